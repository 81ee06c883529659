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
 *  - $UDMABUF_FAKE_ERRNO="ATTR=ERRNO" (EINVAL, ENODEV, EBUSY, ENOMEM or a
 *    number) makes every write to ATTR fail with that errno, as a kernel
 *    store that refuses the value would.
 *
 * Only for dynamically linked binaries; test-cli.sh checks that it works.
 */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE		/* it would define open() inline */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* Path of a configfs file, else NULL; the attribute name is its basename. */
static const char *under_configfs(const char *path)
{
	const char *dir = getenv("UDMABUF_CONFIGFS_DIR");
	size_t len = dir ? strlen(dir) : 0;

	if (!len || strncmp(path, dir, len) || path[len] != '/')
		return NULL;
	return path;
}

static int sys_open(const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static int open_common(const char *path, int flags, va_list ap)
{
	mode_t mode = 0;

	if (flags & O_CREAT || (flags & O_TMPFILE) == O_TMPFILE)
		mode = va_arg(ap, mode_t);
	if (under_configfs(path) && (flags & O_ACCMODE) == O_WRONLY) {
		flags |= O_CREAT | O_TRUNC;
		mode = 0644;
	}
	return sys_open(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_common(path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_common(path, flags, ap);
	va_end(ap);
	return fd;
}

static int errno_of(const char *s)
{
	static const struct { const char *name; int err; } names[] = {
		{ "EINVAL", EINVAL }, { "ENODEV", ENODEV },
		{ "EBUSY", EBUSY }, { "ENOMEM", ENOMEM },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].err;
	return atoi(s) > 0 ? atoi(s) : EIO;
}

static void log_write(const char *attr, const void *buf, size_t n)
{
	const char *log = getenv("UDMABUF_FAKE_LOG");
	char line[512];
	int fd, len;

	if (!log)
		return;
	len = snprintf(line, sizeof(line), "%s=%.*s\n", attr,
		       (int)(n < 400 ? n : 400), (const char *)buf);
	fd = sys_open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	(void)syscall(SYS_write, fd, line, (size_t)len);
	(void)syscall(SYS_close, fd);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	char link[64], path[PATH_MAX];
	const char *fail = getenv("UDMABUF_FAKE_ERRNO"), *attr;
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len > 0) {
		path[len] = '\0';
		if (under_configfs(path)) {
			attr = strrchr(path, '/') + 1;
			log_write(attr, buf, n);
			len = (ssize_t)strlen(attr);
			if (fail && !strncmp(fail, attr, (size_t)len) &&
			    fail[len] == '=') {
				errno = errno_of(fail + len + 1);
				return -1;
			}
		}
	}
	return syscall(SYS_write, fd, buf, n);
}

int rmdir(const char *path)
{
	struct dirent *de;
	DIR *d;

	if (under_configfs(path) && (d = opendir(path))) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')	/* directories stay */
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	return (int)syscall(SYS_unlinkat, AT_FDCWD, path, AT_REMOVEDIR);
}
