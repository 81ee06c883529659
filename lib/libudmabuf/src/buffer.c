// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libudmabuf: the handle of an open buffer (udmabuf.h).
 *
 * Everything a program does with an open buffer is one system call on its
 * file descriptor: UDMABUF_CFS_IOC_GET_INFO for the addresses, flags and
 * sync mode (never the root-only sysfs phys_addr), the sync ioctls for
 * cache maintenance, mmap for a mapping. Only udmabuf_open() by name looks
 * anything up, once; udmabuf_alloc() asks /dev/udmabuf-cfs for a new
 * buffer's file. The handle is never written after it is made but for the
 * records of its mappings (behind their own lock), so any number of
 * threads may use it at once.
 */
#define _GNU_SOURCE
/* 64-bit mmap offsets on 32-bit systems too; no off_t in the API. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
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

/* A mapping udmabuf_map() made: where it starts, what it returned. */
struct mapping {
	void *addr;		/* as returned (byte OFFSET) */
	size_t len;		/* as passed to munmap(), from the page start */
};

/*
 * The mappings a handle made, for udmabuf_unmap_mapping(). The one part
 * of a handle that changes, so behind its own lock; the handle points at
 * it and stays constant itself.
 */
struct mappings {
	pthread_mutex_t lock;
	struct mapping *v;
	size_t n, cap;
};

struct udmabuf {
	int fd;
	int accmode;		/* O_RDONLY or O_RDWR */
	uint64_t size;
	unsigned int minor;
	char name[256];		/* device name */
	char driver_version[UDMABUF_CFS_VERSION_LEN];
	struct mappings *maps;
};

/* The name of a process-scoped buffer's file: "anon_inode:" this NAME. */
#define PROCESS_FILE_PREFIX	"anon_inode:udmabuf-cfs:"
/* The node UDMABUF_CFS_IOC_ALLOC is asked of, in DEV_DIR. */
#define ALLOC_NODE		"udmabuf-cfs"

/* The UAPI's values are the header's: programs need not include both. */
_Static_assert((UDMABUF_INFO_DMA_COHERENT == UDMABUF_CFS_INFO_DMA_COHERENT) &&
	       (UDMABUF_INFO_RAM_CACHED == UDMABUF_CFS_INFO_RAM_CACHED) &&
	       (UDMABUF_INFO_DMA_BOUND == UDMABUF_CFS_INFO_DMA_BOUND) &&
	       (UDMABUF_INFO_DMA_DETACHED == UDMABUF_CFS_INFO_DMA_DETACHED),
	       "UDMABUF_INFO_* differ from the UAPI");
_Static_assert((UDMABUF_DIR_BIDIRECTIONAL == UDMABUF_CFS_DIR_BIDIRECTIONAL) &&
	       (UDMABUF_DIR_TO_DEVICE == UDMABUF_CFS_DIR_TO_DEVICE) &&
	       (UDMABUF_DIR_FROM_DEVICE == UDMABUF_CFS_DIR_FROM_DEVICE),
	       "UDMABUF_DIR_* differ from the UAPI");

/* Copy a name, cut to fit (device names are at most 32 bytes anyway). */
static void copy_name(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int get_info(int fd, struct udmabuf_cfs_info *info)
{
	memset(info, 0, sizeof(*info));
	if (ioctl(fd, UDMABUF_CFS_IOC_GET_INFO, info))
		return -errno;
	/* A new ABI would change the structure under us. */
	if (info->abi_version != UDMABUF_CFS_ABI_VERSION)
		return -EPROTO;
	return 0;
}

/* The handle for FD (which it takes over, also on failure). */
static int make_handle(int fd, const char *what, const char *name,
		       struct udmabuf **bufp)
{
	struct udmabuf_cfs_info info;
	struct udmabuf *buf;
	int ret, fl;

	ret = get_info(fd, &info);
	if (ret) {
		close(fd);
		/* Another driver's node answers ENOTTY, or EINVAL. */
		if (ret == -ENOTTY || ret == -EINVAL)
			return udmabuf_fail(ENOTTY, what,
					    "get info (not a udmabuf-cfs device)");
		if (ret == -EPROTO)
			return udmabuf_fail(EPROTO, what,
					    "get info (module ABI %u, this library knows %u)",
					    info.abi_version,
					    UDMABUF_CFS_ABI_VERSION);
		return udmabuf_fail(-ret, what, "get info");
	}
	fl = fcntl(fd, F_GETFL);
	buf = calloc(1, sizeof(*buf));
	if (buf)
		buf->maps = calloc(1, sizeof(*buf->maps));
	if (!buf || !buf->maps || fl < 0) {
		ret = fl < 0 ? errno : ENOMEM;
		if (buf)
			free(buf->maps);
		free(buf);
		close(fd);
		return udmabuf_fail(ret, what, "open");
	}
	pthread_mutex_init(&buf->maps->lock, NULL);
	buf->fd = fd;
	buf->accmode = fl & O_ACCMODE;
	buf->size = info.size;
	buf->minor = info.minor;
	copy_name(buf->name, sizeof(buf->name), name);
	memcpy(buf->driver_version, info.driver_version,
	       sizeof(buf->driver_version));
	buf->driver_version[sizeof(buf->driver_version) - 1] = '\0';
	*bufp = buf;
	return 0;
}

/*
 * The device name of an open node: the last part of the path it has. A
 * process-scoped buffer's file has no path but a name that ends in its
 * class device's ("anon_inode:udmabuf-cfs:proc-PID-N").
 */
static void name_of_fd(int fd, char *name, size_t len)
{
	static const char process[] = PROCESS_FILE_PREFIX;
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0) {
		snprintf(name, len, "fd %d", fd);
		return;
	}
	path[n] = '\0';
	if (!strncmp(path, process, sizeof(process) - 1))
		copy_name(name, len, path + sizeof(process) - 1);
	else
		copy_name(name, len, strrchr(path, '/') ?
				     strrchr(path, '/') + 1 : path);
}

/*
 * The device node of NAME and the device it must be: a configfs item's
 * device, else DEV_DIR/NAME; a path is the device its last component
 * names once symbolic links are resolved (/dev/cam0 is cam0, and so is a
 * link to it). -ENODEV for an item that is not enabled.
 */
static int resolve(const char *name, char *path, size_t plen, char *dev,
		   size_t dlen)
{
	char dir[PATH_MAX], buf[UDMABUF_ATTR_MAX];

	if (strchr(name, '/')) {
		if (strlen(name) >= plen)
			return -ENAMETOOLONG;
		strcpy(path, name);
		if (!realpath(name, dir))
			return -errno;
		copy_name(dev, dlen, strrchr(dir, '/') + 1);
		return 0;
	}
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	copy_name(dev, dlen, name);
	if (udmabuf_item_dir(name, dir, sizeof(dir)) == 0 &&
	    udmabuf_is_dir(dir)) {
		if (udmabuf_read_attr(dir, "enable", buf, sizeof(buf)) > 0 &&
		    !strchr("1yY", buf[0]))
			return -ENODEV;
		if (udmabuf_read_str_attr(dir, "device_name", buf,
					  sizeof(buf)) == 0 && buf[0])
			copy_name(dev, dlen, buf);
	}
	return udmabuf_path_join(path, plen, udmabuf_dev_dir(), dev);
}

/*
 * The device number in the dev attribute of class device DEV. -ENOENT if
 * there is no such class device, -ENODATA if it has no number (a
 * process-scoped buffer, which has no node).
 */
static int class_devno(const char *dev, dev_t *devno)
{
	char dir[PATH_MAX], buf[UDMABUF_ATTR_MAX], tail;
	unsigned int maj, min;
	int ret;

	if (!*dev || !strcmp(dev, ".") || !strcmp(dev, "..") ||
	    udmabuf_path_join(dir, sizeof(dir), udmabuf_sysfs_dir(), dev))
		return -ENOENT;
	ret = udmabuf_read_attr(dir, "dev", buf, sizeof(buf));
	if (ret < 0)
		return udmabuf_is_dir(dir) ? -ENODATA : -ENOENT;
	if (sscanf(buf, "%u:%u%c", &maj, &min, &tail) != 2)
		return -ENODATA;
	*devno = makedev(maj, min);
	return 0;
}

/*
 * Whether PATH is the device node of buffer DEV, asked before it is
 * opened: opening another driver's node has effects of its own (a
 * watchdog starts and resets the board when closed without its magic
 * close, a tty becomes the controlling terminal, a FIFO blocks), so
 * GET_INFO afterwards is too late. The node must be a character device
 * whose number is that of DEV's class device: a stale node, or a name
 * now another device's, is not opened either. 0 and *DEVNO, or ENOTTY
 * (recorded for WHAT); the failure of stat(2) for no node at all.
 */
static int check_node(const char *what, const char *path, const char *dev,
		      dev_t *devno)
{
	struct stat st;
	int ret;

	if (stat(path, &st))
		return udmabuf_fail(errno, what, "open %s", path);
	ret = class_devno(dev, devno);
	if (ret == -ENOENT)
		return udmabuf_fail(ENOTTY, what,
				    "open %s: not a udmabuf-cfs device (no class device %s/%s)",
				    path, udmabuf_sysfs_dir(), dev);
	if (ret)
		return udmabuf_fail(ENOTTY, what,
				    "open %s: not a udmabuf-cfs device (%s has no device node)",
				    path, dev);
	if (!S_ISCHR(st.st_mode))
		return udmabuf_fail(ENOTTY, what,
				    "open %s: not a udmabuf-cfs device (not a character device)",
				    path);
	if (st.st_rdev != *devno)
		return udmabuf_fail(ENOTTY, what,
				    "open %s: not a udmabuf-cfs device (it is %u:%u, %s is %u:%u)",
				    path, major(st.st_rdev), minor(st.st_rdev),
				    dev, major(*devno), minor(*devno));
	return 0;
}

UDMABUF_EXPORT int udmabuf_open(const char *name, int flags,
				struct udmabuf **bufp)
{
	char path[PATH_MAX], dev[256];
	struct stat st;
	dev_t devno = 0;
	int fd, ret;

	if (!bufp)
		return udmabuf_fail(EINVAL, name, "open");
	*bufp = NULL;
	if (!name || !*name)
		return udmabuf_fail(EINVAL, "udmabuf", "open: no name given");
	if ((flags & O_ACCMODE) == O_WRONLY ||
	    (flags & ~(O_ACCMODE | O_SYNC | O_DSYNC | O_CLOEXEC)))
		return udmabuf_fail(EINVAL, name, "open with flags 0%o", flags);
	ret = resolve(name, path, sizeof(path), dev, sizeof(dev));
	if (ret == -ENODEV)
		return udmabuf_fail(ENODEV, name, "open: not enabled");
	if (ret)
		return udmabuf_fail(-ret, name, "open");
	ret = check_node(name, path, dev, &devno);
	if (ret)
		return ret;
	/*
	 * No O_NONBLOCK: the node is a buffer's, whose open does not block,
	 * and the flag would stay on the handle's file for read and write.
	 */
	fd = open(path, flags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return udmabuf_fail(errno, name, "open %s", path);
	/* The node checked is the node opened, not one put there since. */
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) || st.st_rdev != devno) {
		close(fd);
		return udmabuf_fail(ENOTTY, name,
				    "open %s: replaced while it was opened",
				    path);
	}
	return make_handle(fd, name, dev, bufp);
}

UDMABUF_EXPORT int udmabuf_open_fd(int fd, struct udmabuf **bufp)
{
	char what[32], dev[256];
	int dup;

	snprintf(what, sizeof(what), "fd %d", fd);
	if (!bufp)
		return udmabuf_fail(EINVAL, what, "open");
	*bufp = NULL;
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup < 0)
		return udmabuf_fail(errno, what, "open");
	name_of_fd(dup, dev, sizeof(dev));
	return make_handle(dup, what, dev, bufp);
}

/* Why ALLOC_NODE could not be opened, in words. */
static int alloc_node_failed(int err, const char *path)
{
	switch (err) {
	case ENOENT:
		return udmabuf_fail(err, "udmabuf alloc",
				    "open %s (udmabuf-cfs not loaded, or too old to have it)",
				    path);
	case EACCES:
	case EPERM:
		return udmabuf_fail(err, "udmabuf alloc",
				    "open %s (its udev rule gives it to the group udmabuf: be a member)",
				    path);
	default:
		return udmabuf_fail(err, "udmabuf alloc", "open %s", path);
	}
}

UDMABUF_EXPORT int udmabuf_alloc(const struct udmabuf_config *cfg, int flags,
				 struct udmabuf **bufp)
{
	struct udmabuf_cfs_alloc req;
	char path[PATH_MAX], name[256];
	int node, ret, err;

	if (!bufp)
		return udmabuf_fail(EINVAL, "udmabuf alloc", "no handle pointer");
	*bufp = NULL;
	ret = udmabuf_config_alloc_request(cfg, flags, &req);
	if (ret)
		return ret;
	if (udmabuf_path_join(path, sizeof(path), udmabuf_dev_dir(),
			      ALLOC_NODE))
		return udmabuf_fail(ENAMETOOLONG, "udmabuf alloc", "open %s",
				    udmabuf_dev_dir());
	/* The ioctl needs no write access; the node's mode says who may. */
	node = open(path, O_RDONLY | O_CLOEXEC);
	if (node < 0)
		return alloc_node_failed(errno, path);
	ret = ioctl(node, UDMABUF_CFS_IOC_ALLOC, &req);
	err = errno;
	close(node);
	if (ret) {
		if (err == ENOMEM)
			return udmabuf_fail(err, "udmabuf alloc",
					    "%llu bytes (over the module's process_max cap, or no such contiguous memory)",
					    (unsigned long long)req.size);
		if (err == ENOTTY)
			return udmabuf_fail(err, "udmabuf alloc",
					    "%s has no UDMABUF_CFS_IOC_ALLOC", path);
		/* A module older than the checker takes it for reserved0. */
		if (err == EINVAL && req.sync_check &&
		    udmabuf_has_feature("sync_check") == 0)
			return udmabuf_fail(EOPNOTSUPP, "udmabuf alloc",
					    "sync_check %u: the loaded module has no sync checker",
					    req.sync_check);
		return udmabuf_fail(err, "udmabuf alloc", "%llu bytes",
				    (unsigned long long)req.size);
	}
	name_of_fd(req.fd, name, sizeof(name));
	return make_handle(req.fd, name, name, bufp);
}

UDMABUF_EXPORT int udmabuf_close(struct udmabuf *buf)
{
	int ret = 0;

	if (!buf)
		return 0;
	if (close(buf->fd) && errno != EINTR)
		ret = udmabuf_fail(errno, buf->name, "close");
	/* The mappings stay; only their records go. */
	pthread_mutex_destroy(&buf->maps->lock);
	free(buf->maps->v);
	free(buf->maps);
	free(buf);
	return ret;
}

UDMABUF_EXPORT int udmabuf_get_fd(const struct udmabuf *buf)
{
	return buf->fd;
}

UDMABUF_EXPORT const char *udmabuf_get_name(const struct udmabuf *buf)
{
	return buf->name;
}

UDMABUF_EXPORT uint64_t udmabuf_get_size(const struct udmabuf *buf)
{
	return buf->size;
}

UDMABUF_EXPORT unsigned int udmabuf_get_minor(const struct udmabuf *buf)
{
	return buf->minor;
}

UDMABUF_EXPORT const char *udmabuf_get_driver_version(const struct udmabuf *buf)
{
	return buf->driver_version;
}

/* GET_INFO now; its values change (sync_mode, a DMA device that leaves). */
static int query(const struct udmabuf *buf, struct udmabuf_cfs_info *info)
{
	int ret = get_info(buf->fd, info);

	return ret ? udmabuf_fail(-ret, buf->name, "get info") : 0;
}

UDMABUF_EXPORT int udmabuf_get_dma_addr(const struct udmabuf *buf,
					uint64_t *addr)
{
	struct udmabuf_cfs_info info;
	int ret = query(buf, &info);

	if (ret)
		return ret;
	if (info.flags & UDMABUF_CFS_INFO_DMA_DETACHED)
		return udmabuf_fail(ENODEV, buf->name,
				    "get the DMA address: its DMA device went away");
	*addr = info.dma_addr;
	return 0;
}

/* GET_INFO's phys_addr: the CPU physical address, not the DMA address. */
static int cpu_phys_addr(const struct udmabuf *buf, uint64_t *addr)
{
	struct udmabuf_cfs_info info;
	int ret = query(buf, &info);

	if (!ret)
		*addr = info.phys_addr;
	return ret;
}

UDMABUF_EXPORT int udmabuf_get_cpu_phys_addr(const struct udmabuf *buf,
					     uint64_t *addr)
{
	return cpu_phys_addr(buf, addr);
}

/* The 1.0 name of udmabuf_get_cpu_phys_addr(), kept for its ABI. */
UDMABUF_EXPORT int udmabuf_get_phys_addr(const struct udmabuf *buf,
					 uint64_t *addr)
{
	return cpu_phys_addr(buf, addr);
}

UDMABUF_EXPORT int udmabuf_get_flags(const struct udmabuf *buf,
				     uint32_t *flags)
{
	struct udmabuf_cfs_info info;
	int ret = query(buf, &info);

	if (!ret)
		*flags = info.flags;
	return ret;
}

UDMABUF_EXPORT int udmabuf_get_sync_mode(const struct udmabuf *buf,
					 unsigned int *mode)
{
	struct udmabuf_cfs_info info;
	int ret = query(buf, &info);

	if (!ret)
		*mode = info.sync_mode;
	return ret;
}

UDMABUF_EXPORT int udmabuf_get_sync_check(const struct udmabuf *buf,
					  unsigned int *mode)
{
	struct udmabuf_cfs_info info;
	int ret = query(buf, &info);

	if (!ret)
		*mode = info.sync_check;
	return ret;
}

UDMABUF_EXPORT int udmabuf_get_sync_violations(const struct udmabuf *buf,
					       uint64_t *count)
{
	struct udmabuf_cfs_info info;
	int ret = query(buf, &info);

	if (!ret)
		*count = info.sync_violations;
	return ret;
}

/* Take the record of ADDR out of M: its length, or 0 if it has none. */
static size_t forget(struct mappings *m, void *addr)
{
	size_t i, len = 0;

	for (i = 0; i < m->n; i++) {
		if (m->v[i].addr != addr)
			continue;
		len = m->v[i].len;
		m->v[i] = m->v[--m->n];
		break;
	}
	return len;
}

/* Record a new mapping (one that udmabuf_unmap() undid may be in its place). */
static int remember(struct mappings *m, void *addr, size_t len)
{
	int ret = 0;

	pthread_mutex_lock(&m->lock);
	forget(m, addr);
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 4;
		struct mapping *v = realloc(m->v, cap * sizeof(*v));

		if (v) {
			m->v = v;
			m->cap = cap;
		}
	}
	if (m->n < m->cap)
		m->v[m->n++] = (struct mapping){ addr, len };
	else
		ret = -ENOMEM;
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static size_t page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

UDMABUF_EXPORT int udmabuf_map(const struct udmabuf *buf, uint64_t offset,
			       uint64_t length, int prot, void **addr)
{
	size_t page = page_size(), head;
	void *p;

	*addr = NULL;
	if (offset > buf->size || (length && length > buf->size - offset))
		return udmabuf_fail(EINVAL, buf->name,
				    "map %#llx bytes at %#llx: outside the buffer (%#llx bytes)",
				    (unsigned long long)length,
				    (unsigned long long)offset,
				    (unsigned long long)buf->size);
	if (!length)
		length = buf->size - offset;
	if (!length)
		return udmabuf_fail(EINVAL, buf->name, "map 0 bytes");
	if (!prot)
		prot = buf->accmode == O_RDWR ? PROT_READ | PROT_WRITE :
						PROT_READ;
	if (prot & ~(PROT_READ | PROT_WRITE))
		return udmabuf_fail(EINVAL, buf->name, "map with prot %#x",
				    (unsigned int)prot);
	head = (size_t)(offset % page);
	if (length > SIZE_MAX - head)
		return udmabuf_fail(EFBIG, buf->name, "map %#llx bytes",
				    (unsigned long long)length);
	p = mmap(NULL, (size_t)length + head, prot, MAP_SHARED, buf->fd,
		 (off_t)(offset - head));
	if (p == MAP_FAILED)
		return udmabuf_fail(errno, buf->name, "map");
	*addr = (char *)p + head;
	if (remember(buf->maps, *addr, (size_t)length + head)) {
		munmap(p, (size_t)length + head);
		*addr = NULL;
		return udmabuf_fail(ENOMEM, buf->name, "map");
	}
	return 0;
}

UDMABUF_EXPORT int udmabuf_unmap_mapping(const struct udmabuf *buf, void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	size_t len;

	pthread_mutex_lock(&buf->maps->lock);
	len = addr ? forget(buf->maps, addr) : 0;
	pthread_mutex_unlock(&buf->maps->lock);
	if (!len)
		return udmabuf_fail(EINVAL, buf->name,
				    "unmap %p: not a mapping of this handle", addr);
	if (munmap((void *)(a & ~(uintptr_t)(page_size() - 1)), len))
		return udmabuf_fail(errno, buf->name, "unmap %p", addr);
	return 0;
}

UDMABUF_EXPORT int udmabuf_unmap(void *addr, uint64_t length)
{
	size_t page = page_size();
	uintptr_t a = (uintptr_t)addr, base = a & ~(uintptr_t)(page - 1);

	if (!addr || !length || length > SIZE_MAX - (a - base))
		return udmabuf_fail(EINVAL, "udmabuf", "unmap %p", addr);
	if (munmap((void *)base, (size_t)length + (a - base)))
		return udmabuf_fail(errno, "udmabuf", "unmap %p", addr);
	return 0;
}

static int sync_range(const struct udmabuf *buf, unsigned long cmd,
		      const char *what, uint64_t offset, uint64_t length,
		      int direction)
{
	struct udmabuf_cfs_sync range = {
		.offset = offset,
		.size = length,
		.direction = (uint32_t)direction,
	};

	if (direction < UDMABUF_DIR_BIDIRECTIONAL ||
	    direction > UDMABUF_DIR_FROM_DEVICE)
		return udmabuf_fail(EINVAL, buf->name, "%s: direction %d",
				    what, direction);
	if (ioctl(buf->fd, cmd, &range) == 0)
		return 0;
	if (errno == ENOTTY)
		return udmabuf_fail(EOPNOTSUPP, buf->name,
				    "%s: the module has no sync ioctl", what);
	return udmabuf_fail(errno, buf->name, "%s %#llx bytes at %#llx", what,
			    (unsigned long long)length,
			    (unsigned long long)offset);
}

UDMABUF_EXPORT int udmabuf_sync_for_cpu(const struct udmabuf *buf,
					uint64_t offset, uint64_t length,
					int direction)
{
	return sync_range(buf, UDMABUF_CFS_IOC_SYNC_FOR_CPU, "sync for cpu",
			  offset, length, direction);
}

UDMABUF_EXPORT int udmabuf_sync_for_device(const struct udmabuf *buf,
					   uint64_t offset, uint64_t length,
					   int direction)
{
	return sync_range(buf, UDMABUF_CFS_IOC_SYNC_FOR_DEVICE,
			  "sync for device", offset, length, direction);
}

UDMABUF_EXPORT int udmabuf_flush(const struct udmabuf *buf, uint64_t offset,
				 uint64_t length)
{
	return sync_range(buf, UDMABUF_CFS_IOC_SYNC_FOR_DEVICE, "flush",
			  offset, length, UDMABUF_DIR_TO_DEVICE);
}

UDMABUF_EXPORT int udmabuf_invalidate(const struct udmabuf *buf,
				      uint64_t offset, uint64_t length)
{
	return sync_range(buf, UDMABUF_CFS_IOC_SYNC_FOR_CPU, "invalidate",
			  offset, length, UDMABUF_DIR_FROM_DEVICE);
}

UDMABUF_EXPORT int udmabuf_export_dmabuf(const struct udmabuf *buf,
					 uint64_t offset, uint64_t length,
					 int flags)
{
#ifdef UDMABUF_CFS_IOC_EXPORT_DMABUF
	/* Like every descriptor of the library's, it is not inherited. */
	struct udmabuf_cfs_export exp = {
		.offset = offset,
		.size = length,
		.flags = (uint32_t)(flags | O_CLOEXEC),
		.fd = -1,
	};

	if (ioctl(buf->fd, UDMABUF_CFS_IOC_EXPORT_DMABUF, &exp) == 0)
		return exp.fd;
	if (errno == ENOTTY)
		return udmabuf_fail(EOPNOTSUPP, buf->name,
				    "export a dma-buf: the module cannot");
	return udmabuf_fail(errno, buf->name,
			    "export %#llx bytes at %#llx as a dma-buf",
			    (unsigned long long)length,
			    (unsigned long long)offset);
#else
	(void)offset;
	(void)length;
	(void)flags;
	return udmabuf_fail(EOPNOTSUPP, buf->name,
			    "export a dma-buf: this libudmabuf was built without it");
#endif
}
