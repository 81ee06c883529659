// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libudmabuf: what there is to know of buffers, read from configfs and
 * sysfs: a NAME looked up (an item, else a device), the attributes of one
 * buffer, every buffer (reading only the fields asked for, one openat per
 * attribute), and the public listing and its entries.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/udmabuf-cfs.h>

#include "libudmabuf-private.h"

/* What is known of one buffer; an entry of a listing is one. */
struct udmabuf_info {
	char item[256];		/* configfs item name; "" for param/dt buffers */
	char name[256];		/* device name (effective device_name) */
	char devpath[4096];	/* device node; "" while the buffer is disabled */
	char origin[16];	/* "configfs", "param", "dt" or "" if unknown */
	int enabled;		/* 1 if the device exists */
	int has_dev;		/* major/minor valid */
	unsigned int major, minor;
	uint64_t size;		/* bytes */
	int sync_mode;		/* 0..7, -1 if unknown */
	int dma_mask;		/* address bits, -1 if unknown */
	int mode;		/* permissions of the node, -1 if unknown */
	long config_minor;	/* configfs "minor" attribute (-1: auto) */
	/*
	 * The DMA address: what a device is programmed with (an IOVA behind
	 * an IOMMU). Read from the phys_addr attribute of the class device
	 * (root's, or a group's by the udev rule), else of the configfs item;
	 * where neither can be read, from GET_INFO if that is read.
	 */
	int has_dma_addr;
	uint64_t dma_addr;
	/*
	 * The CPU physical address: where the memory is for the CPU. Only
	 * GET_INFO tells it (UDMABUF_FIELD_CPU_PHYS_ADDR): the device node is
	 * opened for that.
	 */
	int has_cpu_phys_addr;
	uint64_t cpu_phys_addr;
	/*
	 * A disabled configfs item's placement: the CPU physical address its
	 * phys_addr attribute was given, where enable will put the memory.
	 */
	int has_place;
	uint64_t place;
	long users;		/* open files and mappings, -1 if unknown */
	int dma_coherent;	/* 0/1, -1 if unknown */
	char cache_mode[16];	/* mapping without O_SYNC, "" if unknown */
	char cache_mode_sync[16]; /* mapping with O_SYNC, "" if unknown */
	/*
	 * The DMA master the buffer is for, as BUS/DEVICE; "" when it is the
	 * module's own device. Read from the class device's dma_device
	 * attribute once enabled, else from the configfs item's.
	 * has_dma_device is 0 when the loaded module has no such attribute
	 * (older than the feature).
	 */
	int has_dma_device;
	char dma_device[256];
	/*
	 * Where the memory came from: "page", "cma", "dma", "contig",
	 * "placed" or "pool", read from the class device. A disabled
	 * configfs item's is the one it asks for, read from the item:
	 * "auto" (the attribute reads empty), "page", "contig" or "cma".
	 * "" with a module older than the attribute.
	 */
	char allocator[16];
	/*
	 * "PID COMM" of the process that allocated a process-scoped buffer
	 * (origin "process"); "" for the others. Read from the class device.
	 */
	char owner[64];
	/*
	 * The sync checker: its mode (UDMABUF_CFS_SYNC_CHECK_*, -1 if
	 * unknown), from the item or the class device, and its reports since
	 * the buffer was made, from the class device.
	 */
	int sync_check;
	int has_violations;
	uint64_t violations;
};

static int parse_dev(const char *s, unsigned int *major, unsigned int *minor)
{
	char tail;

	if (sscanf(s, "%u:%u%c", major, minor, &tail) != 2)
		return -EINVAL;
	return 0;
}

/*
 * The configfs item whose device is DEV (enabled ones first). One pass
 * over the items, reading device_name relative to the subsystem's
 * directory fd; only an item that names DEV is asked whether it is
 * enabled (its dev is empty while disabled).
 */
int udmabuf_item_of_device(const char *dev, char *item, size_t len)
{
	char buf[UDMABUF_ATTR_MAX];
	int ret = -ENOENT;
	struct dirent *de;
	DIR *d;

	d = opendir(udmabuf_configfs_dir());
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int n;

		if (de->d_name[0] == '.' ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		n = udmabuf_read_attr_at(dirfd(d), de->d_name, "device_name",
					 buf, sizeof(buf));
		if (n < 0 || strcmp(n ? buf : de->d_name, dev) ||
		    strlen(de->d_name) >= len)
			continue;
		n = udmabuf_read_attr_at(dirfd(d), de->d_name, "dev", buf,
					 sizeof(buf));
		if (n < 0)	/* a module without dev */
			n = udmabuf_read_attr_at(dirfd(d), de->d_name, "enable",
						 buf, sizeof(buf)) > 0 &&
			    buf[0] == '1';
		if (n > 0 || ret) {
			strcpy(item, de->d_name);
			ret = 0;
		}
		if (n > 0)
			break;	/* enabled: the one that has the device */
	}
	closedir(d);
	return ret;
}

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
	if (!is_dev && udmabuf_path_join(path, sizeof(path), udmabuf_configfs_dir(),
					 name) == 0 && udmabuf_is_dir(path)) {
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
	info->sync_check = -1;
}

static void set_devpath(struct udmabuf_info *info)
{
	if (udmabuf_path_join(info->devpath, sizeof(info->devpath),
			      udmabuf_dev_dir(), info->name))
		info->devpath[0] = '\0';
}

/*
 * Where a buffer's attributes are read: its directory relative to the
 * configfs subsystem's or the class's directory fd (list_buffers(): one
 * openat per attribute, nothing looked up twice), or AT_FDCWD and full
 * paths (get_info(), one buffer).
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
		return udmabuf_path_join(buf, len, base, name);
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
	int ret = udmabuf_read_str_attr_at(fd, dir, "dma_device", info->dma_device,
					   sizeof(info->dma_device));

	if (ret == 0)
		info->has_dma_device = 1;
	return ret;
}

/*
 * Whether ST may be the node of the buffer of INFO: a character device of
 * its number (when known), or a regular file (a test's stand-in, which
 * GET_INFO then refuses).
 */
static int node_may_be(const struct udmabuf_info *info, const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 1;
	return S_ISCHR(st->st_mode) &&
	       (!info->has_dev ||
		st->st_rdev == makedev(info->major, info->minor));
}

/*
 * The CPU physical address of an enabled buffer (info->devpath), and its
 * DMA address if that is not known yet, from GET_INFO: the device node is
 * opened and closed again (it counts as a user meanwhile). 0, or -errno:
 * -ENODEV if the buffer is disabled or the node is another device's.
 */
static int info_cpu_phys_addr(struct udmabuf_info *info)
{
	struct udmabuf_cfs_info ci;
	struct stat st;
	int fd, ret = 0;

	if (!info->enabled || !info->devpath[0])
		return -ENODEV;
	/*
	 * Another device's node is not opened (opening may start it: a
	 * watchdog), nor is what may block in open() (a FIFO); a stale node
	 * of another device must not lend us its address.  Checked before
	 * the open and again on what was opened.
	 */
	if (stat(info->devpath, &st))
		return -errno;
	if (!node_may_be(info, &st))
		return -ENODEV;
	fd = open(info->devpath, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		ret = -errno;
	else if (!node_may_be(info, &st))
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
	char dir[PATH_MAX], buf[UDMABUF_ATTR_MAX];
	int fd = d->sys, i, ret;
	uint64_t v;
	long l;

	if (sub_dir(fd, udmabuf_sysfs_dir(), info->name, dir, sizeof(dir)))
		return -ENOENT;
	if (!cdir) {
		ret = udmabuf_read_attr_at(fd, dir, "dev", buf, sizeof(buf));
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
	    udmabuf_read_u64_attr(fd, dir, "size", 10, &v) == 0)
		info->size = v;
	if ((fields & UDMABUF_FIELD_SYNC_MODE) && !(cdir && info->sync_mode >= 0) &&
	    udmabuf_read_int_attr(fd, dir, "sync_mode", &i) == 0)
		info->sync_mode = i;
	if (fields & UDMABUF_FIELD_DMA_ADDR) {
		/*
		 * phys_addr reads the DMA address once enabled. The class
		 * device's may be readable by a group (udev rule).
		 */
		ret = udmabuf_read_u64_attr(fd, dir, "phys_addr", 16, &v);
		if (ret == -ENOENT && cdir)
			ret = udmabuf_read_u64_attr(cfd, cdir, "phys_addr", 16, &v);
		if (ret == 0) {
			info->dma_addr = v;
			info->has_dma_addr = 1;
		}
	}
	if ((fields & UDMABUF_FIELD_COHERENT) &&
	    udmabuf_read_int_attr(fd, dir, "dma_coherent", &i) == 0)
		info->dma_coherent = i;
	if ((fields & UDMABUF_FIELD_SYNC_CHECK) && info->sync_check < 0 &&
	    udmabuf_read_int_attr(fd, dir, "sync_check", &i) == 0)
		info->sync_check = i;
	if ((fields & UDMABUF_FIELD_SYNC_VIOLATIONS) &&
	    udmabuf_read_u64_attr(fd, dir, "sync_violations", 10, &v) == 0) {
		info->violations = v;
		info->has_violations = 1;
	}
	if ((fields & UDMABUF_FIELD_USERS) &&
	    udmabuf_read_long_attr(fd, dir, "users", &l) == 0)
		info->users = l;
	if ((fields & UDMABUF_FIELD_ORIGIN) && !cdir)
		udmabuf_read_str_attr_at(fd, dir, "origin", info->origin,
					 sizeof(info->origin));
	if (fields & UDMABUF_FIELD_CACHE_MODE)
		udmabuf_read_str_attr_at(fd, dir, "cache_mode", info->cache_mode,
					 sizeof(info->cache_mode));
	if (fields & UDMABUF_FIELD_CACHE_MODE_SYNC)
		udmabuf_read_str_attr_at(fd, dir, "cache_mode_sync",
					 info->cache_mode_sync,
					 sizeof(info->cache_mode_sync));
	/* Only a process-scoped buffer has one. */
	if ((fields & UDMABUF_FIELD_OWNER) && !cdir &&
	    udmabuf_read_str_attr_at(fd, dir, "owner", info->owner,
				     sizeof(info->owner)))
		info->owner[0] = '\0';
	/* Only the device knows; absent on a module older than it. */
	if (fields & UDMABUF_FIELD_ALLOCATOR)
		udmabuf_read_str_attr_at(fd, dir, "allocator", info->allocator,
					 sizeof(info->allocator));
	/* What is bound; the item says what was asked for. */
	if ((fields & UDMABUF_FIELD_DMA_DEVICE) &&
	    read_dma_device(fd, dir, info) == -ENOENT && cdir)
		read_dma_device(cfd, cdir, info);
	/* Last: the open counts as a user while it lasts (users is read). */
	if (fields & UDMABUF_FIELD_CPU_PHYS_ADDR)
		info_cpu_phys_addr(info);
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
	char dir[PATH_MAX], buf[UDMABUF_ATTR_MAX];
	int fd = d->cfs, i, ret;
	uint64_t v;
	long l;

	ret = sub_dir(fd, udmabuf_configfs_dir(), item, dir, sizeof(dir));
	if (ret)
		return ret;
	snprintf(info->item, sizeof(info->item), "%s", item);
	strcpy(info->origin, "configfs");
	ret = udmabuf_read_str_attr_at(fd, dir, "device_name", info->name,
				       sizeof(info->name));
	if (ret && !is_dir_at(fd, dir))
		return -ENOENT;	/* removed meanwhile, or never there */
	if (ret || !info->name[0])
		snprintf(info->name, sizeof(info->name), "%s", item);
	/* dev is empty while the item is disabled: one read tells both. */
	ret = udmabuf_read_attr_at(fd, dir, "dev", buf, sizeof(buf));
	if (ret > 0 && parse_dev(buf, &info->major, &info->minor) == 0) {
		info->has_dev = 1;
		info->enabled = 1;
	} else if (ret != 0 &&
		   udmabuf_read_attr_at(fd, dir, "enable", buf, sizeof(buf)) > 0) {
		info->enabled = strchr("1yY", buf[0]) || !strcmp(buf, "on");
	}
	if ((fields & UDMABUF_FIELD_SIZE) &&
	    udmabuf_read_u64_attr(fd, dir, "size", 10, &v) == 0)
		info->size = v;
	if ((fields & UDMABUF_FIELD_CONFIG_MINOR) &&
	    udmabuf_read_long_attr(fd, dir, "minor", &l) == 0)
		info->config_minor = l;
	if ((fields & UDMABUF_FIELD_SYNC_MODE) &&
	    udmabuf_read_int_attr(fd, dir, "sync_mode", &i) == 0)
		info->sync_mode = i;
	if ((fields & UDMABUF_FIELD_DMA_MASK) &&
	    udmabuf_read_int_attr(fd, dir, "dma_mask", &i) == 0)
		info->dma_mask = i;
	if ((fields & UDMABUF_FIELD_MODE) &&
	    udmabuf_read_u64_attr(fd, dir, "mode", 8, &v) == 0 && v <= 0777)
		info->mode = (int)v;
	/* The item's is the device's once enabled. */
	if ((fields & UDMABUF_FIELD_SYNC_CHECK) &&
	    udmabuf_read_int_attr(fd, dir, "sync_check", &i) == 0)
		info->sync_check = i;
	if (info->enabled) {
		/* What the class device does not tell stays unknown. */
		fill_from_sysfs(d, info, fd, dir, fields);
		return 0;
	}
	/* Disabled: no address, and the DMA master is what was asked for. */
	if (fields & UDMABUF_FIELD_DMA_DEVICE)
		read_dma_device(fd, dir, info);
	/* So is the allocator; empty for auto, the first that can. */
	if ((fields & UDMABUF_FIELD_ALLOCATOR) &&
	    udmabuf_read_str_attr_at(fd, dir, "allocator", info->allocator,
				     sizeof(info->allocator)) == 0 &&
	    !info->allocator[0])
		strcpy(info->allocator, "auto");
	/* phys_addr reads the CPU physical address it was given, if any. */
	if ((fields & UDMABUF_FIELD_PLACEMENT) &&
	    udmabuf_read_u64_attr(fd, dir, "phys_addr", 16, &v) == 0) {
		info->place = v;
		info->has_place = 1;
	}
	return 0;
}

static int get_info(const char *name, unsigned int fields,
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
		v[n] = strdup(de->d_name);
		if (!v[n])
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

static void list_free(struct udmabuf_info *list)
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
#define KNOWN_FIELDS		(UDMABUF_FIELD_ALL | UDMABUF_FIELD_CPU_PHYS_ADDR | \
				 UDMABUF_FIELD_SYNC_CHECK | \
				 UDMABUF_FIELD_SYNC_VIOLATIONS)

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
	ret = get_info(name, fields, l->v);
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
	list_free(list->v);
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

UDMABUF_EXPORT int udmabuf_entry_get_sync_check(const struct udmabuf_entry *e)
{
	return e->info.sync_check;
}

UDMABUF_EXPORT int udmabuf_entry_get_sync_violations(const struct udmabuf_entry *e,
						     uint64_t *count)
{
	if (!e->info.has_violations)
		return -ENODATA;
	*count = e->info.violations;
	return 0;
}
