/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libudmabuf internals: what the library's source files share, and nothing
 * else includes. Not installed; not exported: the library is built with
 * -fvisibility=hidden, so only what udmabuf.h declares (marked
 * UDMABUF_EXPORT where it is defined) leaves libudmabuf.so (through the
 * version script) or libudmabuf.a (whose other symbols are made local).
 *
 * The files, each one concern, and what they use of each other (no file
 * uses one that uses it):
 *   error.c    the version, the thread's last error        (nothing)
 *   parse.c    sizes and device names                      (nothing)
 *   sysfs.c    directories, attribute files, the module    error
 *   listing.c  buffers looked up and listed                sysfs, error
 *   config.c   configurations                              parse, error
 *   create.c   create and destroy through configfs         config, listing,
 *                                                          sysfs, parse, error
 *   buffer.c   the handle of an open buffer, alloc         config, sysfs, error
 */
#ifndef LIBUDMABUF_PRIVATE_H
#define LIBUDMABUF_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "udmabuf.h"

#define UDMABUF_EXPORT		__attribute__((visibility("default")))

/* Attribute values are short; this is plenty. */
#define UDMABUF_ATTR_MAX	256

/* ---------------------------------------------------------------------- */
/* error.c                                                                */

/*
 * Record "OBJECT: ACTION: strerror(ERR)" as the thread's last error and
 * return -ERR. ERR is positive. ACTION may be a printf format.
 */
int udmabuf_fail(int err, const char *object, const char *action, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, for a step of a create or destroy (udmabuf_last_error_step()). */
int udmabuf_fail_step(int err, const char *step, const char *object,
		      const char *action, ...)
	__attribute__((format(printf, 4, 5)));

/* ---------------------------------------------------------------------- */
/* parse.c                                                                */

/* 1 if s is a valid device name: 1..32 of [A-Za-z0-9_.-], not "." or "..". */
int udmabuf_valid_device_name(const char *s);

/* ---------------------------------------------------------------------- */
/* sysfs.c                                                                */

/* "A/B" into buf; -ENAMETOOLONG if it does not fit. */
int udmabuf_path_join(char *buf, size_t len, const char *a, const char *b);
int udmabuf_is_dir(const char *path);
/* The directory of configfs item ITEM. */
int udmabuf_item_dir(const char *item, char *buf, size_t len);
/*
 * Read attribute ATTR of directory DIR, which is relative to the directory
 * fd DFD (or AT_FDCWD): one openat, one read, one close. Trailing white
 * space is stripped. Returns the length.
 */
int udmabuf_read_attr_at(int dfd, const char *dir, const char *attr,
			 char *buf, size_t len);
int udmabuf_read_attr(const char *dir, const char *attr, char *buf,
		      size_t len);
/* The same as a string that must fit LEN (-ENAMETOOLONG), or a number. */
int udmabuf_read_str_attr_at(int dfd, const char *dir, const char *attr,
			     char *buf, size_t len);
int udmabuf_read_str_attr(const char *dir, const char *attr, char *buf,
			  size_t len);
int udmabuf_read_u64_attr(int dfd, const char *dir, const char *attr,
			  int base, uint64_t *val);
int udmabuf_read_long_attr(int dfd, const char *dir, const char *attr,
			   long *val);
int udmabuf_read_int_attr(int dfd, const char *dir, const char *attr,
			  int *val);
/* Write an attribute in one write(2), as configfs and sysfs want it. */
int udmabuf_write_attr(const char *dir, const char *attr, const char *value);
/* 1, 0 or -errno: the module's features list ATTR. */
int udmabuf_has_feature(const char *attr);

/* ---------------------------------------------------------------------- */
/* listing.c                                                              */

/*
 * The configfs item whose device is DEV (its device_name, or its own name
 * when that is empty); enabled items first, so that of an enabled and a
 * disabled item that both name DEV the one that has the device wins.
 * -ENOENT if none.
 */
int udmabuf_item_of_device(const char *dev, char *item, size_t len);

/* ---------------------------------------------------------------------- */
/* config.c                                                               */

/* What create.c writes of a configuration (udmabuf_config_args()). */
struct udmabuf_create_args {
	const char *name;		/* configfs item name (required) */
	const char *device_name;	/* NULL: same as name */
	uint64_t size;			/* bytes */
	long minor;			/* -1: first free */
	int sync_mode;			/* -1: module default */
	int dma_mask;			/* -1: module default */
	int mode;			/* -1: module default */
	const char *const *attrs;	/* NULL or NULL-terminated "attr=value" */
	unsigned int flags;		/* UDMABUF_CREATE_* */
	const char *dma_device;		/* NULL or "": the module's own device */
	int has_phys_addr;		/* write phys_addr before enable */
	uint64_t phys_addr;
	const char *allocator;		/* NULL: module default */
	int sync_check;			/* -1: module default (off) */
};

/* Fill args with "module default" for everything. */
void udmabuf_create_args_init(struct udmabuf_create_args *args,
			      const char *name);

/*
 * The sync checker UDMABUF_SYNC_CHECK asks for every buffer made:
 * UDMABUF_CFS_SYNC_CHECK_* (off when unset or empty); -EINVAL, recorded
 * as OBJECT's failure, for another value.
 */
int udmabuf_env_sync_check(const char *object);

/*
 * The sync checker a buffer of WANT (-1: the configuration sets none) is
 * made with, UDMABUF_SYNC_CHECK applied: the stronger of the two. -EINVAL
 * (recorded for OBJECT) for a bad variable.
 */
int udmabuf_sync_check_of(int want, const char *object);

/* What CFG says, as create.c writes it (name and flags unset). */
const struct udmabuf_create_args *udmabuf_config_args(const struct udmabuf_config *cfg);

struct udmabuf_cfs_alloc;

/*
 * The request of udmabuf_alloc() for CFG and FLAGS (O_SYNC asks for
 * sync_mode | 4), checked: 0, or the failure (recorded) for what a
 * process-scoped buffer cannot have.
 */
int udmabuf_config_alloc_request(const struct udmabuf_config *cfg, int flags,
				 struct udmabuf_cfs_alloc *req);

#endif /* LIBUDMABUF_PRIVATE_H */
