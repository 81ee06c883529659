// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * LD_PRELOAD stand-in for the configfs semantics that a tree of plain files
 * lacks, so that test-cli.sh can run a whole create on the host:
 *
 *  - under $UDMABUF_CONFIGFS_DIR, opening a missing file for writing
 *    creates it (configfs makes the attributes of a new item itself);
 *  - rmdir of a directory there removes its files first (as rmdir of a
 *    configfs item does);
 *  - each write(2) to a file there is appended to $UDMABUF_FAKE_LOG as
 *    "ATTR=VALUE" lines, in order;
 *  - $UDMABUF_FAKE_ERRNO="ATTR=ERRNO" (an errno's name, such as EINVAL, or
 *    its number) makes every write to ATTR fail with that errno,
 *    as a kernel store that refuses the value would; "class/ATTR=ERRNO"
 *    does the same for ATTR under $UDMABUF_SYSFS_DIR (a test run as root
 *    cannot make a file unwritable);
 *  - a regular file under $UDMABUF_FAKE_DEV_DIR stands in for a device
 *    node: it answers the udmabuf-cfs ioctls (GET_INFO gives its size, the
 *    DMA address $UDMABUF_FAKE_DMA_ADDR, default 0x3f000000, the CPU
 *    physical address $UDMABUF_FAKE_PHYS_ADDR, default the DMA address, and
 *    the flags $UDMABUF_FAKE_INFO_FLAGS, default 0, and the sync_mode,
 *    sync_check and sync_violations of $UDMABUF_SYSFS_DIR/NAME, default
 *    1, 0 and 0; the syncs check the range and direction) and each of
 *    them is logged as
 *    "ioctl=NAME OFFSET SIZE DIRECTION"; with $UDMABUF_FAKE_EXPORT set
 *    UDMABUF_CFS_IOC_EXPORT_DMABUF gives a new fd of the node with the
 *    access mode and O_CLOEXEC asked for (other flags EINVAL), logged as
 *    "ioctl=export OFFSET SIZE FLAGS" (FLAGS in octal); other ioctls fail
 *    with ENOTTY, and so do the syncs with $UDMABUF_FAKE_NO_SYNC set (a
 *    module older than them);
 *  - a file named udmabuf-cfs there stands in for /dev/udmabuf-cfs: it
 *    answers UDMABUF_CFS_IOC_ALLOC, logged as "ioctl=alloc SIZE FLAGS
 *    SYNC_MODE DMA_BITS ALLOCATOR DMA_DEVICE" (FLAGS in octal; and
 *    " sync_check=N" after it if the request sets one), by making
 *    a file proc-PID-N of SIZE bytes beside it and returning a new fd of it
 *    with the access mode and O_CLOEXEC asked for (unlike the kernel's, it
 *    has a path and is not removed when closed), and, with
 *    $UDMABUF_SYSFS_DIR set, its class directory with the sync_mode and
 *    sync_check asked for (plain files, also left behind), and
 *    $UDMABUF_FAKE_ERRNO="alloc=ERRNO" makes it fail;
 *  - a regular file under $UDMABUF_FAKE_DEV_DIR whose class device
 *    $UDMABUF_SYSFS_DIR/NAME (NAME: its name, symbolic links resolved) has
 *    a dev attribute "MAJ:MIN" is that device's node for stat(2) and
 *    fstat(2): a character device of that number (its size stays);
 *  - with $UDMABUF_FAKE_DEV_DIR set, writing 1 to an item's enable makes its
 *    device node there (a file of the item's size named by its device_name,
 *    else by the item), unless one exists, and with $UDMABUF_SYSFS_DIR set
 *    its class device's dev (240:MINOR, the item's minor, else 0), unless
 *    the class device has one; writing 0 removes both (the class device's
 *    directory only if the fake made it and nothing else is in it).
 *
 * Only for dynamically linked binaries.
 */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE		/* it would define open() inline */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include <linux/udmabuf-cfs.h>

/* 1 if PATH is under the directory of the environment variable VAR. */
static int under(const char *var, const char *path)
{
	const char *dir = getenv(var);
	size_t len = dir ? strlen(dir) : 0;

	return len && !strncmp(path, dir, len) && path[len] == '/';
}

/* The path of FD in PATH, else NULL (also for a pipe or a socket). */
static const char *fd_path(int fd, char *path, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, len - 1);
	if (n <= 0 || path[0] != '/')
		return NULL;
	path[n] = '\0';
	return path;
}

static int sys_open(const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & O_CREAT || (flags & O_TMPFILE) == O_TMPFILE)
		mode = va_arg(ap, mode_t);
	va_end(ap);
	if (under("UDMABUF_CONFIGFS_DIR", path) && (flags & O_ACCMODE) == O_WRONLY) {
		flags |= O_CREAT | O_TRUNC;
		mode = 0644;
	}
	return sys_open(path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

/* The errno named S (EINVAL, ...) or numbered S, else EIO. */
static int errno_of(const char *s)
{
	int err;

	for (err = 1; err < 4096; err++)
		if (strerrorname_np(err) && !strcmp(s, strerrorname_np(err)))
			return err;
	return atoi(s) > 0 ? atoi(s) : EIO;
}

/* The errno $UDMABUF_FAKE_ERRNO (after PREFIX) gives writes to ATTR, else 0. */
static int refused(const char *prefix, const char *attr)
{
	const char *fail = getenv("UDMABUF_FAKE_ERRNO");
	size_t p = strlen(prefix), len = strlen(attr);

	if (!fail || strncmp(fail, prefix, p) || strncmp(fail + p, attr, len) ||
	    fail[p + len] != '=')
		return 0;
	return errno_of(fail + p + len + 1);
}

/* Write TEXT to PATH, made if missing, opened with O_WRONLY and FLAGS. */
static void write_file(const char *path, int flags, const char *text)
{
	int fd = sys_open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);

	if (fd >= 0) {
		(void)syscall(SYS_write, fd, text, strlen(text));
		(void)syscall(SYS_close, fd);
	}
}

static void log_write(const char *attr, const void *buf, size_t n)
{
	const char *log = getenv("UDMABUF_FAKE_LOG");
	char line[512];

	snprintf(line, sizeof(line), "%s=%.*s\n", attr, (int)(n < 400 ? n : 400),
		 (const char *)buf);
	if (log)
		write_file(log, O_APPEND, line);
}

/* The contents of DIR/ATTR without the newline, "" if it cannot be read. */
static void read_sibling(const char *dir, const char *attr, char *buf,
			 size_t len)
{
	char path[PATH_MAX];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* $UDMABUF_SYSFS_DIR/NAME, where NAME is PATH's basename; NULL if unset. */
static char *class_dir(const char *path, char *buf, size_t len)
{
	const char *dir = getenv("UDMABUF_SYSFS_DIR");

	if (!dir || !*dir)
		return NULL;
	snprintf(buf, len, "%s%s", dir, strrchr(path, '/'));
	return buf;
}

/*
 * Make (ON) or remove the dev attribute of the class device of the node
 * NODE of the item in directory ITEM, as the kernel makes and removes
 * the class device. An attribute a test wrote stays.
 */
static void class_dev(const char *item, const char *node, int on)
{
	char dir[PATH_MAX], path[PATH_MAX + 8], v[32];
	long minor;

	if (!class_dir(node, dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/.fake", dir);
	if (!on) {
		if (unlink(path) == 0) {
			snprintf(path, sizeof(path), "%s/dev", dir);
			unlink(path);
			(void)syscall(SYS_unlinkat, AT_FDCWD, dir, AT_REMOVEDIR);
		}
		return;
	}
	read_sibling(dir, "dev", v, sizeof(v));
	if (v[0])
		return;
	mkdir(dir, 0755);
	write_file(path, 0, "");
	read_sibling(item, "minor", v, sizeof(v));
	minor = v[0] ? strtol(v, NULL, 10) : -1;
	snprintf(v, sizeof(v), "240:%ld\n", minor < 0 ? 0 : minor);
	snprintf(path, sizeof(path), "%s/dev", dir);
	write_file(path, O_TRUNC, v);
}

/* What enable does to the device node: PATH is the item's enable file. */
static void enable_node(const char *path, const void *buf, size_t n)
{
	const char *devdir = getenv("UDMABUF_FAKE_DEV_DIR");
	char dir[PATH_MAX], name[256], size[64], node[PATH_MAX];
	int fd;

	if (!devdir || !*devdir || !n)
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	read_sibling(dir, "device_name", name, sizeof(name));
	if (!name[0])
		snprintf(name, sizeof(name), "%s", strrchr(dir, '/') + 1);
	snprintf(node, sizeof(node), "%s/%s", devdir, name);
	if (*(const char *)buf == '0') {
		unlink(node);
		class_dev(dir, node, 0);
		return;
	}
	read_sibling(dir, "size", size, sizeof(size));
	fd = sys_open(node, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && errno != EEXIST)
		return;
	if (fd >= 0 && ftruncate(fd, (off_t)strtoull(size, NULL, 0))) {
		unlink(node);
		close(fd);
		return;
	}
	if (fd >= 0)
		close(fd);
	class_dev(dir, node, 1);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	char path[PATH_MAX];
	const char *attr;
	int err = 0;

	if (fd_path(fd, path, sizeof(path))) {
		if (under("UDMABUF_CONFIGFS_DIR", path)) {
			attr = strrchr(path, '/') + 1;
			log_write(attr, buf, n);
			err = refused("", attr);
			if (!err && !strcmp(attr, "enable"))
				enable_node(path, buf, n);
		} else if (under("UDMABUF_SYSFS_DIR", path)) {
			err = refused("class/", strrchr(path, '/') + 1);
		}
	}
	if (err) {
		errno = err;
		return -1;
	}
	return syscall(SYS_write, fd, buf, n);
}

int rmdir(const char *path)
{
	struct dirent *de;
	DIR *d;

	d = under("UDMABUF_CONFIGFS_DIR", path) ? opendir(path) : NULL;
	if (d) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')	/* directories stay */
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	return (int)syscall(SYS_unlinkat, AT_FDCWD, path, AT_REMOVEDIR);
}

/* The number in the class attribute ATTR of PATH's buffer, else DEF. */
static unsigned long long class_number(const char *path, const char *attr,
				       unsigned long long def)
{
	char dir[PATH_MAX], v[32];

	if (!class_dir(path, dir, sizeof(dir)))
		return def;
	read_sibling(dir, attr, v, sizeof(v));
	return v[0] >= '0' && v[0] <= '9' ? strtoull(v, NULL, 10) : def;
}

/* Write the class attribute ATTR of the buffer at PATH, its dir made. */
static void class_write(const char *path, const char *attr, unsigned int v)
{
	char name[PATH_MAX], val[16];

	if (!class_dir(path, name, sizeof(name)))
		return;
	mkdir(name, 0755);
	snprintf(name + strlen(name), sizeof(name) - strlen(name), "/%s", attr);
	snprintf(val, sizeof(val), "%u\n", v);
	write_file(name, O_TRUNC, val);
}

/* UDMABUF_CFS_IOC_ALLOC on the fake /dev/udmabuf-cfs at PATH. */
static int fake_alloc(const char *path, struct udmabuf_cfs_alloc *req)
{
	const char *fail = getenv("UDMABUF_FAKE_ERRNO");
	static unsigned int seq;
	char line[512], buf[PATH_MAX];
	int fd;

	snprintf(line, sizeof(line), "alloc %llu %o %u %u %u %.*s",
		 (unsigned long long)req->size, req->flags, req->sync_mode,
		 req->dma_bits, req->allocator, (int)sizeof(req->dma_device),
		 req->dma_device);
	if (req->sync_check)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " sync_check=%u", req->sync_check);
	log_write("ioctl", line, strlen(line));
	if (fail && !strncmp(fail, "alloc=", 6)) {
		errno = errno_of(fail + 6);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%.*s/proc-%d-%u",
		 (int)(strrchr(path, '/') - path), path, (int)getpid(), ++seq);
	fd = sys_open(buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)req->size)) {
		close(fd);
		return -1;
	}
	close(fd);
	fd = sys_open(buf, (int)(req->flags & (O_ACCMODE | O_CLOEXEC)), 0);
	if (fd < 0)
		return -1;
	class_write(buf, "sync_mode", req->sync_mode);
	if (req->sync_check)
		class_write(buf, "sync_check", req->sync_check);
	req->fd = fd;
	return 0;
}

/* UDMABUF_CFS_IOC_EXPORT_DMABUF on the fake node at PATH. */
static int fake_export(const char *path, struct udmabuf_cfs_export *exp)
{
	char line[128];
	int fd;

	snprintf(line, sizeof(line), "export %llu %llu %o",
		 (unsigned long long)exp->offset,
		 (unsigned long long)exp->size, exp->flags);
	log_write("ioctl", line, strlen(line));
	if (exp->flags & ~(__u32)(O_ACCMODE | O_CLOEXEC)) {
		errno = EINVAL;
		return -1;
	}
	fd = sys_open(path, (int)exp->flags, 0);
	if (fd < 0)
		return -1;
	exp->fd = fd;
	return 0;
}

static int fake_ioctl(int fd, const char *path, unsigned long req, void *arg)
{
	const char *addr = getenv("UDMABUF_FAKE_DMA_ADDR");
	const char *phys = getenv("UDMABUF_FAKE_PHYS_ADDR");
	const char *flags = getenv("UDMABUF_FAKE_INFO_FLAGS");
	struct udmabuf_cfs_info *info = arg;
	struct udmabuf_cfs_sync *sync = arg;
	char line[128];
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	if (!strcmp(strrchr(path, '/'), "/udmabuf-cfs")) {
		if (req == UDMABUF_CFS_IOC_ALLOC)
			return fake_alloc(path, arg);
		errno = ENOTTY;
		return -1;
	}
	if (req == UDMABUF_CFS_IOC_GET_INFO) {
		memset(info, 0, sizeof(*info));
		info->abi_version = UDMABUF_CFS_ABI_VERSION;
		info->size = (__u64)st.st_size;
		info->dma_addr = addr ? strtoull(addr, NULL, 0) : 0x3f000000;
		info->phys_addr = phys ? strtoull(phys, NULL, 0) : info->dma_addr;
		info->flags = flags ? (__u32)strtoul(flags, NULL, 0) : 0;
		info->sync_mode = (__u32)class_number(path, "sync_mode", 1);
		info->sync_check = (__u32)class_number(path, "sync_check", 0);
		info->sync_violations = class_number(path, "sync_violations", 0);
		strcpy(info->driver_version, "fake");
		log_write("ioctl", "get_info", 8);
		return 0;
	}
	if (req == UDMABUF_CFS_IOC_EXPORT_DMABUF && getenv("UDMABUF_FAKE_EXPORT"))
		return fake_export(path, arg);
	if ((req != UDMABUF_CFS_IOC_SYNC_FOR_CPU &&
	     req != UDMABUF_CFS_IOC_SYNC_FOR_DEVICE) ||
	    getenv("UDMABUF_FAKE_NO_SYNC")) {
		errno = ENOTTY;
		return -1;
	}
	snprintf(line, sizeof(line), "%s %llu %llu %u",
		 req == UDMABUF_CFS_IOC_SYNC_FOR_CPU ? "sync_for_cpu" :
		 "sync_for_device", (unsigned long long)sync->offset,
		 (unsigned long long)sync->size, sync->direction);
	log_write("ioctl", line, strlen(line));
	if (sync->direction > UDMABUF_CFS_DIR_FROM_DEVICE || sync->flags ||
	    sync->offset > (__u64)st.st_size ||
	    sync->size > (__u64)st.st_size - sync->offset) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	char path[PATH_MAX];
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd_path(fd, path, sizeof(path)) && under("UDMABUF_FAKE_DEV_DIR", path))
		return fake_ioctl(fd, path, req, arg);
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

/*
 * A regular file PATH under $UDMABUF_FAKE_DEV_DIR as the node of the
 * class device of its name: a character device of its dev, if it has one.
 */
static void as_node(const char *path, mode_t *mode, dev_t *rdev)
{
	char dir[PATH_MAX], v[32];
	unsigned int maj, min;

	if (!path || !S_ISREG(*mode) || !under("UDMABUF_FAKE_DEV_DIR", path) ||
	    !class_dir(path, dir, sizeof(dir)))
		return;
	read_sibling(dir, "dev", v, sizeof(v));
	if (sscanf(v, "%u:%u", &maj, &min) != 2)
		return;
	*mode = S_IFCHR | (*mode & 07777);
	*rdev = makedev(maj, min);
}

/* The next definition of SYM (libc's): stat and fstat are wrapped. */
static void *next(const char *sym)
{
	return dlsym(RTLD_NEXT, sym);
}

int stat(const char *path, struct stat *st)
{
	int (*real)(const char *p, struct stat *s) = next("stat");
	char buf[PATH_MAX];
	int ret = real(path, st);

	if (!ret)
		as_node(realpath(path, buf), &st->st_mode, &st->st_rdev);
	return ret;
}

int stat64(const char *path, struct stat64 *st)
{
	int (*real)(const char *p, struct stat64 *s) = next("stat64");
	char buf[PATH_MAX];
	int ret = real(path, st);

	if (!ret)
		as_node(realpath(path, buf), &st->st_mode, &st->st_rdev);
	return ret;
}

int fstat(int fd, struct stat *st)
{
	int (*real)(int f, struct stat *s) = next("fstat");
	char buf[PATH_MAX];
	int ret = real(fd, st);

	if (!ret)
		as_node(fd_path(fd, buf, sizeof(buf)), &st->st_mode,
			&st->st_rdev);
	return ret;
}

int fstat64(int fd, struct stat64 *st)
{
	int (*real)(int f, struct stat64 *s) = next("fstat64");
	char buf[PATH_MAX];
	int ret = real(fd, st);

	if (!ret)
		as_node(fd_path(fd, buf, sizeof(buf)), &st->st_mode,
			&st->st_rdev);
	return ret;
}
