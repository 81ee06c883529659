// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libudmabuf - see udmabuf.h for the API and its conventions.
 *
 * This file: paths, attribute files, lookup, listing, create and delete by
 * step (libudmabuf-private.h) and the thread's last error. The handle of an
 * open buffer is in libudmabuf-buffer.c, configurations and the public
 * create and destroy in libudmabuf-config.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/udmabuf-cfs.h>

#include "libudmabuf-private.h"

#ifndef LIBUDMABUF_VERSION
#define LIBUDMABUF_VERSION "unknown"
#endif

#define DEFAULT_CONFIGFS_MOUNT	"/sys/kernel/config"
#define SUBSYSTEM		"udmabuf"
#define DEFAULT_SYSFS_DIR	"/sys/class/udmabuf"
#define DEFAULT_DEV_DIR		"/dev"
#define DEFAULT_MODULE_DIR	"/sys/module/udmabuf_cfs"

#define ATTR_MAX		UDMABUF_ATTR_MAX

UDMABUF_EXPORT const char *udmabuf_library_version(void)
{
	return LIBUDMABUF_VERSION;
}

/* ---------------------------------------------------------------------- */
/* Errors                                                                 */

static __thread char last_error[512];
static __thread char last_step[ATTR_MAX];

UDMABUF_EXPORT const char *udmabuf_last_error(void)
{
	return last_error;
}

UDMABUF_EXPORT const char *udmabuf_last_error_step(void)
{
	return last_step;
}

static int vfail(int err, const char *step, const char *object,
		 const char *action, va_list ap)
{
	char what[256], reason[128];

	vsnprintf(what, sizeof(what), action, ap);
	/* strerror_r: strerror's buffer is not the thread's own. */
	snprintf(last_error, sizeof(last_error), "%s: %s: %s",
		 object && *object ? object : "udmabuf", what,
		 strerror_r(err, reason, sizeof(reason)));
	snprintf(last_step, sizeof(last_step), "%s", step);
	return -err;
}

int udmabuf_fail(int err, const char *object, const char *action, ...)
{
	va_list ap;
	int ret;

	va_start(ap, action);
	ret = vfail(err, "", object, action, ap);
	va_end(ap);
	return ret;
}

int udmabuf_fail_step(int err, const char *step, const char *object,
		      const char *action, ...)
{
	va_list ap;
	int ret;

	va_start(ap, action);
	ret = vfail(err, step, object, action, ap);
	va_end(ap);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Paths                                                                  */

/*
 * Test overrides of the directories. secure_getenv: a set-user-ID or
 * file-capability program must not be pointed at other files.
 */
static const char *env_dir(const char *var)
{
	const char *s = secure_getenv(var);

	return s && *s ? s : NULL;
}

static int path_join(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s/%s", a, b);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Undo the \ooo escapes of /proc/self/mountinfo in place. */
static void unescape_octal(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/* Mount point of the first configfs mount, from /proc/self/mountinfo. */
static int configfs_mountpoint(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char fstype[32];
		char *sep = strstr(line, " - ");
		char *p = line, *end;
		int i;

		if (!sep || sscanf(sep + 3, "%31s", fstype) != 1 ||
		    strcmp(fstype, "configfs"))
			continue;
		/* mount point is the fifth field */
		for (i = 0; i < 4 && p; i++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (!p || !(end = strchr(p, ' ')))
			continue;
		*end = '\0';
		unescape_octal(p);
		if (strlen(p) >= len) {
			ret = -ENAMETOOLONG;
			break;
		}
		strcpy(buf, p);
		ret = 0;
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

/*
 * The configfs directory of the subsystem.  Found in mountinfo once per
 * thread and then remembered: listing N buffers asks N times.
 */
UDMABUF_EXPORT const char *udmabuf_configfs_dir(void)
{
	static __thread char dir[PATH_MAX];
	const char *env = env_dir("UDMABUF_CONFIGFS_DIR");
	char mnt[PATH_MAX];

	if (env)
		return env;
	if (dir[0])
		return dir;
	if (configfs_mountpoint(mnt, sizeof(mnt)) == 0 &&
	    path_join(dir, sizeof(dir), mnt, SUBSYSTEM) == 0)
		return dir;
	return DEFAULT_CONFIGFS_MOUNT "/" SUBSYSTEM;
}

UDMABUF_EXPORT const char *udmabuf_sysfs_dir(void)
{
	const char *env = env_dir("UDMABUF_SYSFS_DIR");

	return env ? env : DEFAULT_SYSFS_DIR;
}

UDMABUF_EXPORT const char *udmabuf_dev_dir(void)
{
	const char *env = env_dir("UDMABUF_DEV_DIR");

	return env ? env : DEFAULT_DEV_DIR;
}

const char *udmabuf_module_dir(void)
{
	const char *env = env_dir("UDMABUF_MODULE_DIR");

	return env ? env : DEFAULT_MODULE_DIR;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

UDMABUF_EXPORT int udmabuf_probe(void)
{
	char mnt[PATH_MAX];
	int problems = 0;

	if (is_dir(udmabuf_configfs_dir()))
		return 0;
	if (!env_dir("UDMABUF_CONFIGFS_DIR") &&
	    configfs_mountpoint(mnt, sizeof(mnt)) < 0)
		problems |= UDMABUF_PROBE_NO_CONFIGFS;
	if (!is_dir(udmabuf_module_dir()))
		problems |= UDMABUF_PROBE_NO_MODULE;
	return problems ? problems : UDMABUF_PROBE_NO_SUBSYS;
}

/* ---------------------------------------------------------------------- */
/* Attribute files                                                        */

/*
 * Read attribute ATTR of directory DIR, which is relative to the directory
 * fd DFD (or AT_FDCWD): one openat, one read, one close. Trailing white
 * space is stripped. Returns the length.
 */
static int read_attr_at(int dfd, const char *dir, const char *attr, char *buf,
			size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, ret;

	ret = path_join(path, sizeof(path), dir, attr);
	if (ret)
		return ret;
	fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return (int)n;
}

static int read_attr(const char *dir, const char *attr, char *buf, size_t len)
{
	return read_attr_at(AT_FDCWD, dir, attr, buf, len);
}

/* Write an attribute in one write(2), as configfs and sysfs want it. */
static int write_attr(const char *dir, const char *attr, const char *value)
{
	char path[PATH_MAX];
	size_t len = strlen(value);
	ssize_t n;
	int fd, ret;

	ret = path_join(path, sizeof(path), dir, attr);
	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	ret = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) && !ret && errno != EINTR)
		ret = -errno;
	return ret;
}

static int read_u64_attr(int dfd, const char *dir, const char *attr, int base,
			 uint64_t *val)
{
	char buf[ATTR_MAX], *end;
	int ret = read_attr_at(dfd, dir, attr, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	if (ret == 0)
		return -ENODATA;
	errno = 0;
	*val = strtoull(buf, &end, base);
	if (errno || *end || buf[0] == '-')
		return -EINVAL;
	return 0;
}

static int read_long_attr(int dfd, const char *dir, const char *attr,
			  long *val)
{
	char buf[ATTR_MAX], *end;
	int ret = read_attr_at(dfd, dir, attr, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	if (ret == 0)
		return -ENODATA;
	errno = 0;
	*val = strtol(buf, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int read_int_attr(int dfd, const char *dir, const char *attr, int *val)
{
	long v;
	int ret = read_long_attr(dfd, dir, attr, &v);

	if (ret)
		return ret;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*val = (int)v;
	return 0;
}

static int read_str_attr_at(int dfd, const char *dir, const char *attr,
			    char *buf, size_t len)
{
	char tmp[ATTR_MAX];
	int ret = read_attr_at(dfd, dir, attr, tmp, sizeof(tmp));

	if (ret < 0)
		return ret;
	if ((size_t)ret >= len)
		return -ENAMETOOLONG;
	memcpy(buf, tmp, (size_t)ret + 1);
	return 0;
}

static int read_str_attr(const char *dir, const char *attr, char *buf,
			 size_t len)
{
	return read_str_attr_at(AT_FDCWD, dir, attr, buf, len);
}

/* The helpers above, for the library's other files. */
int udmabuf_path_join(char *buf, size_t len, const char *a, const char *b)
{
	return path_join(buf, len, a, b);
}

int udmabuf_is_dir(const char *path)
{
	return is_dir(path);
}

int udmabuf_read_attr(const char *dir, const char *attr, char *buf, size_t len)
{
	return read_attr(dir, attr, buf, len);
}

int udmabuf_read_str_attr(const char *dir, const char *attr, char *buf,
			  size_t len)
{
	return read_str_attr(dir, attr, buf, len);
}

int udmabuf_read_attr_at(int dfd, const char *dir, const char *attr,
			 char *buf, size_t len)
{
	return read_attr_at(dfd, dir, attr, buf, len);
}

int udmabuf_write_attr(const char *dir, const char *attr, const char *value)
{
	return write_attr(dir, attr, value);
}

static int parse_dev(const char *s, unsigned int *major, unsigned int *minor)
{
	char tail;

	if (sscanf(s, "%u:%u%c", major, minor, &tail) != 2)
		return -EINVAL;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Parsing                                                                */

UDMABUF_EXPORT int udmabuf_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v = 0;
	unsigned int base = 10, shift = 0;
	int digits = 0, overflow = 0;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (;; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			break;
		digits++;
		if (v > (UINT64_MAX - d) / base)
			overflow = 1;
		else
			v = v * base + d;
	}
	if (!digits)
		return -EINVAL;
	if (*s) {
		switch (*s) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		case 't': case 'T': shift = 40; break;
		default: return -EINVAL;
		}
		s++;
		if (s[0] == 'i' && s[1] == 'B')
			s += 2;
		if (*s)
			return -EINVAL;
	}
	if (overflow || (shift && v > (UINT64_MAX >> shift)))
		return -ERANGE;
	*bytes = v << shift;
	return 0;
}

int udmabuf_valid_device_name(const char *s)
{
	size_t len = s ? strlen(s) : 0;
	size_t i;

	if (len < 1 || len > UDMABUF_DEVICE_NAME_MAX ||
	    !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isascii(c) || !(isalnum(c) || c == '_' || c == '.' ||
				     c == '-'))
			return 0;
	}
	return 1;
}

/* ---------------------------------------------------------------------- */
/* Lookup and information                                                 */

/*
 * A NAME argument. "<devdir>/DEV" and "/dev/DEV" name the device DEV
 * (*is_dev = 1); anything else without a '/' is a name (an item name
 * first, else a device name: see find_item). Other paths are refused.
 */
static int normalize_name(const char *name, const char **out, int *is_dev)
{
	const char *dev = udmabuf_dev_dir();
	size_t dlen = strlen(dev);

	if (!name)
		return -EINVAL;
	*is_dev = 0;
	if (!strncmp(name, dev, dlen) && name[dlen] == '/') {
		name += dlen + 1;
		*is_dev = 1;
	} else if (!strncmp(name, "/dev/", 5)) {
		name += 5;
		*is_dev = 1;
	}
	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return -EINVAL;
	*out = name;
	return 0;
}

static int item_dir(const char *item, char *buf, size_t len)
{
	return path_join(buf, len, udmabuf_configfs_dir(), item);
}

int udmabuf_item_dir(const char *item, char *buf, size_t len)
{
	return item_dir(item, buf, len);
}

/*
 * The configfs item of NAME. A device (is_dev: NAME came as a path) is
 * looked up by the items' device names only, so that /dev/b is the buffer
 * whose device is b even when another item is called b. A bare name is an
 * item name first, else a device name.
 */
static int find_item(const char *name, int is_dev, char *item, size_t len)
{
	char path[PATH_MAX];

	if (strlen(name) >= len)
		return -ENAMETOOLONG;
	if (!is_dev && path_join(path, sizeof(path), udmabuf_configfs_dir(),
				 name) == 0 && is_dir(path)) {
		strcpy(item, name);
		return 0;
	}
	return udmabuf_item_of_device(name, item, len);
}

static void info_init(struct udmabuf_info *info)
{
	memset(info, 0, sizeof(*info));
	info->sync_mode = -1;
	info->dma_mask = -1;
	info->mode = -1;
	info->config_minor = -1;
	info->users = -1;
	info->dma_coherent = -1;
}

static void set_devpath(struct udmabuf_info *info)
{
	if (path_join(info->devpath, sizeof(info->devpath),
		      udmabuf_dev_dir(), info->name))
		info->devpath[0] = '\0';
}

/*
 * Where a buffer's attributes are read: its directory relative to the
 * configfs subsystem's or the class's directory fd (udmabuf_list(): one
 * openat per attribute, nothing looked up twice), or AT_FDCWD and full
 * paths (udmabuf_get_info(), one buffer).
 */
struct attr_dirs {
	int cfs;	/* the configfs subsystem directory, or AT_FDCWD */
	int sys;	/* the class directory, or AT_FDCWD */
};

static const struct attr_dirs by_path = { AT_FDCWD, AT_FDCWD };

/* The directory of NAME under BASE, as openat() relative to FD takes it. */
static int sub_dir(int fd, const char *base, const char *name, char *buf,
		   size_t len)
{
	if (fd == AT_FDCWD)
		return path_join(buf, len, base, name);
	if (strlen(name) >= len)
		return -ENAMETOOLONG;
	strcpy(buf, name);
	return 0;
}

static int is_dir_at(int fd, const char *dir)
{
	struct stat st;

	return fstatat(fd, dir, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

/* The dma_device attribute of dir; 0, or -errno if it cannot be read. */
static int read_dma_device(int fd, const char *dir, struct udmabuf_info *info)
{
	int ret = read_str_attr_at(fd, dir, "dma_device", info->dma_device,
				   sizeof(info->dma_device));

	if (ret == 0)
		info->has_dma_device = 1;
	return ret;
}

/*
 * Fill the FIELDS (UDMABUF_FIELD_*) from the class device info->name;
 * what cannot be read stays unknown. An enabled configfs item calls this
 * with its own directory (CFD, CDIR), which it has read already: its
 * device number, size and sync_mode are the device's, and where the
 * class device has no phys_addr or dma_device (an older module) the
 * item's are read instead. Without CDIR the device number is always read,
 * and -ENOENT returned if there is no such device.
 */
static int fill_from_sysfs(const struct attr_dirs *d, struct udmabuf_info *info,
			   int cfd, const char *cdir, unsigned int fields)
{
	char dir[PATH_MAX], buf[ATTR_MAX];
	int fd = d->sys, i, ret;
	uint64_t v;
	long l;

	if (sub_dir(fd, udmabuf_sysfs_dir(), info->name, dir, sizeof(dir)))
		return -ENOENT;
	if (!cdir) {
		ret = read_attr_at(fd, dir, "dev", buf, sizeof(buf));
		if (ret > 0 && parse_dev(buf, &info->major, &info->minor) == 0)
			info->has_dev = 1;
		else if (ret < 0 && !is_dir_at(fd, dir))
			return -ENOENT;
	}
	info->enabled = 1;
	/* A process-scoped buffer (/dev/udmabuf-cfs) has no node. */
	if (cdir || info->has_dev)
		set_devpath(info);
	else
		info->devpath[0] = '\0';
	if ((fields & UDMABUF_FIELD_SIZE) && !(cdir && info->size) &&
	    read_u64_attr(fd, dir, "size", 10, &v) == 0)
		info->size = v;
	if ((fields & UDMABUF_FIELD_SYNC_MODE) && !(cdir && info->sync_mode >= 0) &&
	    read_int_attr(fd, dir, "sync_mode", &i) == 0)
		info->sync_mode = i;
	if (fields & UDMABUF_FIELD_DMA_ADDR) {
		/*
		 * phys_addr reads the DMA address once enabled. The class
		 * device's may be readable by a group (udev rule).
		 */
		ret = read_u64_attr(fd, dir, "phys_addr", 16, &v);
		if (ret == -ENOENT && cdir)
			ret = read_u64_attr(cfd, cdir, "phys_addr", 16, &v);
		if (ret == 0) {
			info->dma_addr = v;
			info->has_dma_addr = 1;
		}
	}
	if ((fields & UDMABUF_FIELD_COHERENT) &&
	    read_int_attr(fd, dir, "dma_coherent", &i) == 0)
		info->dma_coherent = i;
	if ((fields & UDMABUF_FIELD_USERS) &&
	    read_long_attr(fd, dir, "users", &l) == 0)
		info->users = l;
	if ((fields & UDMABUF_FIELD_ORIGIN) && !cdir)
		read_str_attr_at(fd, dir, "origin", info->origin,
				 sizeof(info->origin));
	if (fields & UDMABUF_FIELD_CACHE_MODE)
		read_str_attr_at(fd, dir, "cache_mode", info->cache_mode,
				 sizeof(info->cache_mode));
	if (fields & UDMABUF_FIELD_CACHE_MODE_SYNC)
		read_str_attr_at(fd, dir, "cache_mode_sync",
				 info->cache_mode_sync,
				 sizeof(info->cache_mode_sync));
	/* Only a process-scoped buffer has one. */
	if ((fields & UDMABUF_FIELD_OWNER) && !cdir &&
	    read_str_attr_at(fd, dir, "owner", info->owner,
			     sizeof(info->owner)))
		info->owner[0] = '\0';
	/* Only the device knows; absent on a module older than it. */
	if (fields & UDMABUF_FIELD_ALLOCATOR)
		read_str_attr_at(fd, dir, "allocator", info->allocator,
				 sizeof(info->allocator));
	/* What is bound; the item says what was asked for. */
	if ((fields & UDMABUF_FIELD_DMA_DEVICE) &&
	    read_dma_device(fd, dir, info) == -ENOENT && cdir)
		read_dma_device(cfd, cdir, info);
	/* Last: the open counts as a user while it lasts (users is read). */
	if (fields & UDMABUF_FIELD_CPU_PHYS_ADDR)
		udmabuf_info_cpu_phys_addr(info);
	return 0;
}

/*
 * Fill from configfs item ITEM: its names and whether it is enabled
 * always, the FIELDS that it has, the rest from its class device if it is
 * enabled. -ENOENT if there is no such item.
 */
static int fill_from_item(const struct attr_dirs *d, const char *item,
			  struct udmabuf_info *info, unsigned int fields)
{
	char dir[PATH_MAX], buf[ATTR_MAX];
	int fd = d->cfs, i, ret;
	uint64_t v;
	long l;

	ret = sub_dir(fd, udmabuf_configfs_dir(), item, dir, sizeof(dir));
	if (ret)
		return ret;
	snprintf(info->item, sizeof(info->item), "%s", item);
	strcpy(info->origin, "configfs");
	ret = read_str_attr_at(fd, dir, "device_name", info->name,
			       sizeof(info->name));
	if (ret && !is_dir_at(fd, dir))
		return -ENOENT;	/* removed meanwhile, or never there */
	if (ret || !info->name[0])
		snprintf(info->name, sizeof(info->name), "%s", item);
	/* dev is empty while the item is disabled: one read tells both. */
	ret = read_attr_at(fd, dir, "dev", buf, sizeof(buf));
	if (ret > 0 && parse_dev(buf, &info->major, &info->minor) == 0) {
		info->has_dev = 1;
		info->enabled = 1;
	} else if (ret != 0 &&
		   read_attr_at(fd, dir, "enable", buf, sizeof(buf)) > 0) {
		info->enabled = strchr("1yY", buf[0]) != NULL ||
				!strcmp(buf, "on");
	}
	if ((fields & UDMABUF_FIELD_SIZE) &&
	    read_u64_attr(fd, dir, "size", 10, &v) == 0)
		info->size = v;
	if ((fields & UDMABUF_FIELD_CONFIG_MINOR) &&
	    read_long_attr(fd, dir, "minor", &l) == 0)
		info->config_minor = l;
	if ((fields & UDMABUF_FIELD_SYNC_MODE) &&
	    read_int_attr(fd, dir, "sync_mode", &i) == 0)
		info->sync_mode = i;
	if ((fields & UDMABUF_FIELD_DMA_MASK) &&
	    read_int_attr(fd, dir, "dma_mask", &i) == 0)
		info->dma_mask = i;
	if ((fields & UDMABUF_FIELD_MODE) &&
	    read_u64_attr(fd, dir, "mode", 8, &v) == 0 && v <= 0777)
		info->mode = (int)v;
	if (info->enabled) {
		/* What the class device does not tell stays unknown. */
		fill_from_sysfs(d, info, fd, dir, fields);
		return 0;
	}
	/* Disabled: no address, and the DMA master is what was asked for. */
	if (fields & UDMABUF_FIELD_DMA_DEVICE)
		read_dma_device(fd, dir, info);
	/* phys_addr reads the CPU physical address it was given, if any. */
	if ((fields & UDMABUF_FIELD_PLACEMENT) &&
	    read_u64_attr(fd, dir, "phys_addr", 16, &v) == 0) {
		info->place = v;
		info->has_place = 1;
	}
	return 0;
}

int udmabuf_info_cpu_phys_addr(struct udmabuf_info *info)
{
	struct udmabuf_cfs_info ci;
	struct stat st;
	int fd, ret = 0;

	if (!info->enabled || !info->devpath[0])
		return -ENODEV;
	fd = open(info->devpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* A stale node of another device must not lend us its address. */
	if (fstat(fd, &st))
		ret = -errno;
	else if (S_ISCHR(st.st_mode) && info->has_dev &&
		 st.st_rdev != makedev(info->major, info->minor))
		ret = -ENODEV;
	memset(&ci, 0, sizeof(ci));
	if (!ret && ioctl(fd, UDMABUF_CFS_IOC_GET_INFO, &ci))
		ret = -errno;
	else if (!ret && ci.abi_version != UDMABUF_CFS_ABI_VERSION)
		ret = -EPROTO;
	close(fd);
	if (ret)
		return ret;
	info->cpu_phys_addr = ci.phys_addr;
	info->has_cpu_phys_addr = 1;
	/* A detached buffer has no DMA address (GET_INFO says 0). */
	if (!info->has_dma_addr &&
	    !(ci.flags & UDMABUF_CFS_INFO_DMA_DETACHED)) {
		info->dma_addr = ci.dma_addr;
		info->has_dma_addr = 1;
	}
	return 0;
}

int udmabuf_get_info_fields(const char *name, unsigned int fields,
			    struct udmabuf_info *info)
{
	char item[256];
	int ret, is_dev;

	ret = normalize_name(name, &name, &is_dev);
	if (ret)
		return ret;
	info_init(info);
	if (find_item(name, is_dev, item, sizeof(item)) == 0)
		return fill_from_item(&by_path, item, info, fields);
	if (strlen(name) >= sizeof(info->name))
		return -ENAMETOOLONG;
	strcpy(info->name, name);
	ret = fill_from_sysfs(&by_path, info, AT_FDCWD, NULL, fields);
	if (ret)
		info_init(info);
	return ret;
}

int udmabuf_get_info(const char *name, struct udmabuf_info *info)
{
	return udmabuf_get_info_fields(name, UDMABUF_FIELD_ALL, info);
}

static int cmp_info(const void *a, const void *b)
{
	const struct udmabuf_info *x = a, *y = b;

	return strcmp(x->item[0] ? x->item : x->name,
		      y->item[0] ? y->item : y->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void udmabuf_names_free(char **names, size_t count)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

/*
 * The entries of the open directory d, sorted; want_dirs: only
 * subdirectories (configfs items).
 */
static int read_names_of(DIR *d, int want_dirs, char ***names, size_t *count)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	*names = NULL;
	*count = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		/* configfs and sysfs give d_type: no stat per entry */
		if (want_dirs && de->d_type != DT_DIR &&
		    (de->d_type != DT_UNKNOWN ||
		     !is_dir_at(dirfd(d), de->d_name)))
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap = cap ? 2 * cap : 16) *
					    sizeof(*v));

			if (!nv)
				goto nomem;
			v = nv;
		}
		if (!(v[n] = strdup(de->d_name)))
			goto nomem;
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*names = v;
	*count = n;
	return 0;
nomem:
	udmabuf_names_free(v, n);
	return -ENOMEM;
}

/* Open dir and read its names; *dp stays open for openat() (NULL on error). */
static int open_names(const char *dir, int want_dirs, DIR **dp, char ***names,
		      size_t *count)
{
	int ret;

	*names = NULL;
	*count = 0;
	*dp = opendir(dir);
	if (!*dp)
		return -errno;
	ret = read_names_of(*dp, want_dirs, names, count);
	if (ret) {
		closedir(*dp);
		*dp = NULL;
	}
	return ret;
}

void udmabuf_list_free(struct udmabuf_info *list)
{
	free(list);
}

/*
 * Every buffer, reading FIELDS; with UDMABUF_LISTING_ITEMS in FLAGS only
 * the configfs items, and an error if their directory cannot be read.
 */
static int list_buffers(unsigned int flags, unsigned int fields,
			struct udmabuf_info **list, size_t *count)
{
	char **items = NULL, **devs = NULL, **taken = NULL;
	size_t nitems = 0, ndevs = 0, ntaken = 0, n = 0, i;
	struct udmabuf_info *v = NULL;
	struct attr_dirs d = by_path;	/* what is not open: by path */
	DIR *cd = NULL, *sd = NULL;
	int r1, r2, ret = 0;

	*list = NULL;
	*count = 0;
	r1 = open_names(udmabuf_configfs_dir(), 1, &cd, &items, &nitems);
	r2 = flags & UDMABUF_LISTING_ITEMS ? -ENOENT :
	     open_names(udmabuf_sysfs_dir(), 0, &sd, &devs, &ndevs);
	if (r1 == -ENOMEM || r2 == -ENOMEM) {
		ret = -ENOMEM;
		goto out;
	}
	if ((flags & UDMABUF_LISTING_ITEMS) && r1) {
		ret = r1;
		goto out;
	}
	if (r1 && r2) {
		ret = r1 == -ENOENT || r2 != -ENOENT ? r1 : r2;
		goto out;
	}
	if (cd)
		d.cfs = dirfd(cd);
	if (sd)
		d.sys = dirfd(sd);
	v = calloc(nitems + ndevs + 1, sizeof(*v));
	taken = calloc(nitems + 1, sizeof(*taken));
	if (!v || !taken) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nitems; i++) {
		info_init(&v[n]);
		if (fill_from_item(&d, items[i], &v[n], fields))
			continue;
		if (v[n].enabled)
			taken[ntaken++] = v[n].name;
		n++;
	}
	/* A device of an enabled item is listed as that item. */
	if (ntaken)
		qsort(taken, ntaken, sizeof(*taken), cmp_str);
	for (i = 0; i < ndevs; i++) {
		if ((ntaken && bsearch(&devs[i], taken, ntaken, sizeof(*taken),
				       cmp_str)) ||
		    strlen(devs[i]) >= sizeof(v[n].name))
			continue;
		info_init(&v[n]);
		strcpy(v[n].name, devs[i]);
		/* Listed just now: only a device gone meanwhile fails. */
		if (fill_from_sysfs(&d, &v[n], AT_FDCWD, NULL, fields) == 0)
			n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_info);
	*list = v;
	*count = n;
	v = NULL;
out:
	free(v);
	free(taken);
	udmabuf_names_free(items, nitems);
	udmabuf_names_free(devs, ndevs);
	if (cd)
		closedir(cd);
	if (sd)
		closedir(sd);
	return ret;
}


/* ---------------------------------------------------------------------- */
/* The public listing (udmabuf.h)                                         */

/* An entry is a struct udmabuf_info; the getters hide its layout. */
struct udmabuf_entry {
	struct udmabuf_info info;
};

struct udmabuf_listing {
	struct udmabuf_info *v;
	size_t n;
};

/* What udmabuf_listing_new() read in 1.1, which it goes on reading. */
#define LISTING_1_1_FIELDS	(UDMABUF_FIELD_SIZE | UDMABUF_FIELD_SYNC_MODE | \
				 UDMABUF_FIELD_DMA_ADDR | UDMABUF_FIELD_ORIGIN | \
				 UDMABUF_FIELD_ALLOCATOR | UDMABUF_FIELD_OWNER)
#define LISTING_FLAGS		(UDMABUF_LISTING_CPU_PHYS_ADDR | UDMABUF_LISTING_ITEMS)
#define KNOWN_FIELDS		(UDMABUF_FIELD_ALL | UDMABUF_FIELD_CPU_PHYS_ADDR)

UDMABUF_EXPORT int udmabuf_listing_new_fields(unsigned int flags,
					      unsigned int fields,
					      struct udmabuf_listing **listp)
{
	struct udmabuf_listing *l;
	int ret;

	if (listp)
		*listp = NULL;
	if (!listp || (flags & ~LISTING_FLAGS) || (fields & ~KNOWN_FIELDS))
		return udmabuf_fail(EINVAL, "udmabuf",
				    "list with flags %#x, fields %#x", flags,
				    fields);
	if (flags & UDMABUF_LISTING_CPU_PHYS_ADDR)
		fields |= UDMABUF_FIELD_CPU_PHYS_ADDR;
	l = calloc(1, sizeof(*l));
	if (!l)
		return udmabuf_fail(ENOMEM, "udmabuf", "list");
	ret = list_buffers(flags, fields, &l->v, &l->n);
	if (ret) {
		free(l);
		if (ret == -ENOENT && (flags & UDMABUF_LISTING_ITEMS))
			return udmabuf_fail(ENOENT, udmabuf_configfs_dir(),
					    "list the items");
		if (ret == -ENOENT)
			return udmabuf_fail(ENOENT, "udmabuf",
					    "list (udmabuf-cfs not loaded: no %s, no %s)",
					    udmabuf_configfs_dir(),
					    udmabuf_sysfs_dir());
		return udmabuf_fail(-ret, "udmabuf", "list");
	}
	*listp = l;
	return 0;
}

UDMABUF_EXPORT int udmabuf_listing_new(unsigned int flags,
				       struct udmabuf_listing **listp)
{
	if (flags & ~UDMABUF_LISTING_CPU_PHYS_ADDR) {
		if (listp)
			*listp = NULL;
		return udmabuf_fail(EINVAL, "udmabuf", "list with flags %#x",
				    flags);
	}
	return udmabuf_listing_new_fields(flags, LISTING_1_1_FIELDS, listp);
}

UDMABUF_EXPORT int udmabuf_listing_new_name(const char *name,
					    unsigned int fields,
					    struct udmabuf_listing **listp)
{
	struct udmabuf_listing *l;
	int ret;

	if (listp)
		*listp = NULL;
	if (!listp || !name || (fields & ~KNOWN_FIELDS))
		return udmabuf_fail(EINVAL, name ? name : "udmabuf",
				    "look up with fields %#x", fields);
	l = calloc(1, sizeof(*l));
	if (l)
		l->v = malloc(sizeof(*l->v));
	if (!l || !l->v) {
		free(l);
		return udmabuf_fail(ENOMEM, name, "look up");
	}
	ret = udmabuf_get_info_fields(name, fields, l->v);
	if (ret) {
		udmabuf_listing_free(l);
		if (ret == -EINVAL)
			return udmabuf_fail(EINVAL, name,
					    "look up: not a buffer name (NAME or %s/NAME)",
					    udmabuf_dev_dir());
		if (ret == -ENOENT)
			return udmabuf_fail(ENOENT, name,
					    "look up: no such buffer");
		return udmabuf_fail(-ret, name, "look up");
	}
	l->n = 1;
	*listp = l;
	return 0;
}

UDMABUF_EXPORT void udmabuf_listing_free(struct udmabuf_listing *list)
{
	if (!list)
		return;
	udmabuf_list_free(list->v);
	free(list);
}

UDMABUF_EXPORT size_t udmabuf_listing_count(const struct udmabuf_listing *list)
{
	return list->n;
}

UDMABUF_EXPORT const struct udmabuf_entry *
udmabuf_listing_get(const struct udmabuf_listing *list, size_t i)
{
	/* struct udmabuf_entry is the info it wraps. */
	return i < list->n ? (const struct udmabuf_entry *)&list->v[i] : NULL;
}

UDMABUF_EXPORT const char *udmabuf_entry_get_name(const struct udmabuf_entry *e)
{
	return e->info.name;
}

UDMABUF_EXPORT const char *udmabuf_entry_get_item(const struct udmabuf_entry *e)
{
	return e->info.item;
}

UDMABUF_EXPORT const char *udmabuf_entry_get_origin(const struct udmabuf_entry *e)
{
	return e->info.origin;
}

UDMABUF_EXPORT const char *udmabuf_entry_get_owner(const struct udmabuf_entry *e)
{
	return e->info.owner[0] ? e->info.owner : NULL;
}

UDMABUF_EXPORT const char *udmabuf_entry_get_dev_path(const struct udmabuf_entry *e)
{
	return e->info.devpath;
}

UDMABUF_EXPORT int udmabuf_entry_is_enabled(const struct udmabuf_entry *e)
{
	return e->info.enabled;
}

UDMABUF_EXPORT uint64_t udmabuf_entry_get_size(const struct udmabuf_entry *e)
{
	return e->info.size;
}

UDMABUF_EXPORT int udmabuf_entry_get_sync_mode(const struct udmabuf_entry *e)
{
	return e->info.sync_mode;
}

UDMABUF_EXPORT const char *udmabuf_entry_get_allocator(const struct udmabuf_entry *e)
{
	return e->info.allocator;
}

UDMABUF_EXPORT int udmabuf_entry_get_dma_addr(const struct udmabuf_entry *e,
					      uint64_t *addr)
{
	if (!e->info.has_dma_addr)
		return -ENODATA;
	*addr = e->info.dma_addr;
	return 0;
}

UDMABUF_EXPORT int udmabuf_entry_get_cpu_phys_addr(const struct udmabuf_entry *e,
						   uint64_t *addr)
{
	if (!e->info.has_cpu_phys_addr)
		return -ENODATA;
	*addr = e->info.cpu_phys_addr;
	return 0;
}

UDMABUF_EXPORT int udmabuf_entry_get_devno(const struct udmabuf_entry *e,
					   unsigned int *major,
					   unsigned int *minor)
{
	if (!e->info.has_dev)
		return -ENODATA;
	*major = e->info.major;
	*minor = e->info.minor;
	return 0;
}

UDMABUF_EXPORT long udmabuf_entry_get_users(const struct udmabuf_entry *e)
{
	return e->info.users;
}

UDMABUF_EXPORT int udmabuf_entry_get_dma_mask(const struct udmabuf_entry *e)
{
	return e->info.dma_mask;
}

UDMABUF_EXPORT int udmabuf_entry_get_mode(const struct udmabuf_entry *e)
{
	return e->info.mode;
}

UDMABUF_EXPORT long udmabuf_entry_get_config_minor(const struct udmabuf_entry *e)
{
	return e->info.config_minor;
}

UDMABUF_EXPORT const char *udmabuf_entry_get_dma_device(const struct udmabuf_entry *e)
{
	return e->info.has_dma_device ? e->info.dma_device : NULL;
}

UDMABUF_EXPORT int udmabuf_entry_get_dma_coherent(const struct udmabuf_entry *e)
{
	return e->info.dma_coherent;
}

UDMABUF_EXPORT const char *udmabuf_entry_get_cache_mode(const struct udmabuf_entry *e)
{
	return e->info.cache_mode;
}

UDMABUF_EXPORT const char *
udmabuf_entry_get_cache_mode_sync(const struct udmabuf_entry *e)
{
	return e->info.cache_mode_sync;
}

UDMABUF_EXPORT int udmabuf_entry_get_placement(const struct udmabuf_entry *e,
					       uint64_t *addr)
{
	if (!e->info.has_place)
		return -ENODATA;
	*addr = e->info.place;
	return 0;
}

UDMABUF_EXPORT int udmabuf_module_version(char *buf, size_t len)
{
	const char *dir = udmabuf_module_dir();
	int ret;

	if (!buf || !len)
		return udmabuf_fail(EINVAL, "udmabuf-cfs", "read the version");
	buf[0] = '\0';
	if (!is_dir(dir))
		return udmabuf_fail(ENOENT, "udmabuf-cfs",
				    "read the version (not loaded: no %s)", dir);
	ret = read_str_attr(dir, "version", buf, len);
	if (ret == -ENOENT)
		ret = -ENODATA;
	return ret ? udmabuf_fail(-ret, dir, "read version") : 0;
}

/* ---------------------------------------------------------------------- */
/* Create and delete                                                      */

static __thread char step_buf[ATTR_MAX];

static void set_step(const char **step, const char *what)
{
	if (step) {
		snprintf(step_buf, sizeof(step_buf), "%s", what);
		*step = step_buf;
	}
}

void udmabuf_create_args_init(struct udmabuf_create_args *args,
			      const char *name)
{
	memset(args, 0, sizeof(*args));
	args->name = name;
	args->minor = -1;
	args->sync_mode = -1;
	args->dma_mask = -1;
	args->mode = -1;
}

/*
 * 1 if the module's "features" attribute lists attr, 0 if not; -errno
 * if it cannot be read (-ENOENT: no subsystem, or a module without it).
 */
int udmabuf_has_feature(const char *attr)
{
	char buf[4096], *tok, *save;
	int ret = read_attr(udmabuf_configfs_dir(), "features", buf,
			    sizeof(buf));

	if (ret < 0)
		return ret;
	for (tok = strtok_r(buf, ", \t\n", &save); tok;
	     tok = strtok_r(NULL, ", \t\n", &save))
		if (!strcmp(tok, attr))
			return 1;
	return 0;
}

UDMABUF_EXPORT int udmabuf_module_has_feature(const char *attr)
{
	int ret;

	if (!attr || !*attr)
		return udmabuf_fail(EINVAL, "udmabuf", "check a feature");
	ret = udmabuf_has_feature(attr);
	if (ret < 0)
		return udmabuf_fail(-ret, udmabuf_configfs_dir(),
				    "read features");
	return ret;
}

/*
 * Refuse an attribute the loaded module does not have before anything is
 * made. Without a subsystem at all, let mkdir tell.
 */
static int need_feature(const char *attr, const char **step)
{
	int ret = udmabuf_has_feature(attr);

	if (ret == 0 || (ret == -ENOENT && is_dir(udmabuf_configfs_dir()))) {
		set_step(step, attr);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int valid_item_name(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..") && strlen(name) < 256;
}

/* Write "attr=value" (the attribute name must be a plain file name). */
static int write_assignment(const char *dir, const char *assign,
			    const char **step)
{
	const char *eq = strchr(assign, '=');
	char attr[ATTR_MAX];
	size_t len;

	len = eq ? (size_t)(eq - assign) : 0;
	if (!len || len >= sizeof(attr)) {
		set_step(step, assign);
		return -EINVAL;
	}
	memcpy(attr, assign, len);
	attr[len] = '\0';
	set_step(step, attr);
	if (strchr(attr, '/') || attr[0] == '.' || !strcmp(attr, "enable"))
		return -EINVAL;
	return write_attr(dir, attr, eq + 1);
}

/*
 * A module that lists phys_addr may still only show it (0400, the DMA
 * address): placement needs the attribute writable. The file exists as
 * soon as the item does; when it cannot be looked at, the write tells.
 */
static int phys_addr_writable(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (path_join(path, sizeof(path), dir, "phys_addr") ||
	    stat(path, &st))
		return 1;
	return (st.st_mode & S_IWUSR) != 0;
}

int udmabuf_create_args(const struct udmabuf_create_args *args,
			const char **step)
{
	char dir[PATH_MAX], val[64];
	const char *const *a;
	int ret;

	set_step(step, "mkdir");
	if (!args || !valid_item_name(args->name))
		return -EINVAL;
	if (args->dma_device && *args->dma_device) {
		ret = need_feature("dma_device", step);
		if (ret)
			return ret;
	}
	if (args->has_phys_addr) {
		ret = need_feature("phys_addr", step);
		if (ret)
			return ret;
		set_step(step, "mkdir");
	}
	ret = item_dir(args->name, dir, sizeof(dir));
	if (ret)
		return ret;
	if (mkdir(dir, 0755))
		return -errno;
	if (args->has_phys_addr && !phys_addr_writable(dir)) {
		set_step(step, "phys_addr");
		ret = -EOPNOTSUPP;
		goto undo;
	}

#define SET(attr, ...) do {						\
		snprintf(val, sizeof(val), __VA_ARGS__);		\
		set_step(step, attr);					\
		ret = write_attr(dir, attr, val);			\
		if (ret)						\
			goto undo;					\
	} while (0)

	SET("size", "%" PRIu64, args->size);
	if (args->minor >= 0)
		SET("minor", "%ld", args->minor);
	if (args->sync_mode >= 0)
		SET("sync_mode", "%d", args->sync_mode);
	if (args->dma_mask >= 0)
		SET("dma_mask", "%d", args->dma_mask);
	if (args->mode >= 0)
		SET("mode", "%04o", (unsigned int)args->mode);
	if (args->device_name) {
		set_step(step, "device_name");
		ret = write_attr(dir, "device_name", args->device_name);
		if (ret)
			goto undo;
	}
	if (args->allocator) {
		set_step(step, "allocator");
		ret = write_attr(dir, "allocator", args->allocator);
		if (ret)
			goto undo;
	}
	for (a = args->attrs; a && *a; a++) {
		ret = write_assignment(dir, *a, step);
		if (ret)
			goto undo;
	}
	/* Last before enable, which looks the device up again. */
	if (args->dma_device && *args->dma_device) {
		set_step(step, "dma_device");
		ret = write_attr(dir, "dma_device", args->dma_device);
		if (ret)
			goto undo;
	}
	/* After dma_device: the placement is checked against its mask. */
	if (args->has_phys_addr)
		SET("phys_addr", "0x%" PRIx64, args->phys_addr);
#undef SET
	if (!(args->flags & UDMABUF_CREATE_NO_ENABLE)) {
		set_step(step, "enable");
		ret = write_attr(dir, "enable", "1");
		if (ret)
			goto undo;
	}
	return 0;

undo:
	/* A refused enable leaves nothing behind; only the item remains. */
	write_attr(dir, "enable", "0");
	rmdir(dir);
	return ret;
}

int udmabuf_delete_item(const char *item, unsigned int flags,
			const char **step)
{
	char dir[PATH_MAX];
	int ret;

	set_step(step, "delete");
	ret = item_dir(item, dir, sizeof(dir));
	if (ret)
		return ret;
	set_step(step, "disable");
	ret = write_attr(dir, "enable", "0");
	if (ret && !(flags & UDMABUF_DESTROY_FORCE))
		return ret;
	set_step(step, "rmdir");
	if (rmdir(dir))
		return -errno;
	return 0;
}
