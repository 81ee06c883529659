// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libudmabuf: where the module's files are (the configfs subsystem, the
 * device class, the device nodes, the module), whether they are there,
 * and reading and writing their attributes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libudmabuf-private.h"

#define DEFAULT_CONFIGFS_MOUNT	"/sys/kernel/config"
#define SUBSYSTEM		"udmabuf"
#define DEFAULT_SYSFS_DIR	"/sys/class/udmabuf"
#define DEFAULT_DEV_DIR		"/dev"
#define DEFAULT_MODULE_DIR	"/sys/module/udmabuf_cfs"

/*
 * Test overrides of the directories. secure_getenv: a set-user-ID or
 * file-capability program must not be pointed at other files.
 */
static const char *env_dir(const char *var)
{
	const char *s = secure_getenv(var);

	return s && *s ? s : NULL;
}

int udmabuf_path_join(char *buf, size_t len, const char *a, const char *b)
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
		if (!p)
			continue;
		end = strchr(p, ' ');
		if (!end)
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
	    udmabuf_path_join(dir, sizeof(dir), mnt, SUBSYSTEM) == 0)
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

static const char *module_dir(void)
{
	const char *env = env_dir("UDMABUF_MODULE_DIR");

	return env ? env : DEFAULT_MODULE_DIR;
}

int udmabuf_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

UDMABUF_EXPORT int udmabuf_probe(void)
{
	char mnt[PATH_MAX];
	int problems = 0;

	if (udmabuf_is_dir(udmabuf_configfs_dir()))
		return 0;
	if (!env_dir("UDMABUF_CONFIGFS_DIR") &&
	    configfs_mountpoint(mnt, sizeof(mnt)) < 0)
		problems |= UDMABUF_PROBE_NO_CONFIGFS;
	if (!udmabuf_is_dir(module_dir()))
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
int udmabuf_read_attr_at(int dfd, const char *dir, const char *attr, char *buf,
			 size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, ret;

	ret = udmabuf_path_join(path, sizeof(path), dir, attr);
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

int udmabuf_read_attr(const char *dir, const char *attr, char *buf, size_t len)
{
	return udmabuf_read_attr_at(AT_FDCWD, dir, attr, buf, len);
}

/* Write an attribute in one write(2), as configfs and sysfs want it. */
int udmabuf_write_attr(const char *dir, const char *attr, const char *value)
{
	char path[PATH_MAX];
	size_t len = strlen(value);
	ssize_t n;
	int fd, ret;

	ret = udmabuf_path_join(path, sizeof(path), dir, attr);
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

int udmabuf_read_u64_attr(int dfd, const char *dir, const char *attr, int base,
			  uint64_t *val)
{
	char buf[UDMABUF_ATTR_MAX], *end;
	int ret = udmabuf_read_attr_at(dfd, dir, attr, buf, sizeof(buf));

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

int udmabuf_read_long_attr(int dfd, const char *dir, const char *attr,
			   long *val)
{
	char buf[UDMABUF_ATTR_MAX], *end;
	int ret = udmabuf_read_attr_at(dfd, dir, attr, buf, sizeof(buf));

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

int udmabuf_read_int_attr(int dfd, const char *dir, const char *attr, int *val)
{
	long v;
	int ret = udmabuf_read_long_attr(dfd, dir, attr, &v);

	if (ret)
		return ret;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*val = (int)v;
	return 0;
}

int udmabuf_read_str_attr_at(int dfd, const char *dir, const char *attr,
			     char *buf, size_t len)
{
	char tmp[UDMABUF_ATTR_MAX];
	int ret = udmabuf_read_attr_at(dfd, dir, attr, tmp, sizeof(tmp));

	if (ret < 0)
		return ret;
	if ((size_t)ret >= len)
		return -ENAMETOOLONG;
	memcpy(buf, tmp, (size_t)ret + 1);
	return 0;
}

int udmabuf_read_str_attr(const char *dir, const char *attr, char *buf,
			  size_t len)
{
	return udmabuf_read_str_attr_at(AT_FDCWD, dir, attr, buf, len);
}

int udmabuf_item_dir(const char *item, char *buf, size_t len)
{
	return udmabuf_path_join(buf, len, udmabuf_configfs_dir(), item);
}

/*
 * 1 if the module's "features" attribute lists attr, 0 if not; -errno
 * if it cannot be read (-ENOENT: no subsystem, or a module without it).
 */
int udmabuf_has_feature(const char *attr)
{
	char buf[4096], *tok, *save;
	int ret = udmabuf_read_attr(udmabuf_configfs_dir(), "features", buf,
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

UDMABUF_EXPORT int udmabuf_module_version(char *buf, size_t len)
{
	const char *dir = module_dir();
	int ret;

	if (!buf || !len)
		return udmabuf_fail(EINVAL, "udmabuf-cfs", "read the version");
	buf[0] = '\0';
	if (!udmabuf_is_dir(dir))
		return udmabuf_fail(ENOENT, "udmabuf-cfs",
				    "read the version (not loaded: no %s)", dir);
	ret = udmabuf_read_str_attr(dir, "version", buf, len);
	if (ret == -ENOENT)
		ret = -ENODATA;
	return ret ? udmabuf_fail(-ret, dir, "read version") : 0;
}
