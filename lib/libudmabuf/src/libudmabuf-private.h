/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libudmabuf internals: what the library's source files share, and nothing
 * else includes. Not installed; not exported: the library is built with
 * -fvisibility=hidden, so only what udmabuf.h declares (marked
 * UDMABUF_EXPORT where it is defined) leaves libudmabuf.so (through the
 * version script) or libudmabuf.a (whose other symbols are made local).
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

/* /sys/module/udmabuf_cfs, or $UDMABUF_MODULE_DIR. */
const char *udmabuf_module_dir(void);

/* 1 if s is a valid device name: 1..32 of [A-Za-z0-9_.-], not "." or "..". */
int udmabuf_valid_device_name(const char *s);

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
	 * "placed" or "pool"; "" while disabled or with a module older than
	 * the attribute. Read from the class device.
	 */
	char allocator[16];
	/*
	 * "PID COMM" of the process that allocated a process-scoped buffer
	 * (origin "process"); "" for the others. Read from the class device.
	 */
	char owner[64];
};

/*
 * Information about one buffer: every field but the CPU physical address
 * (UDMABUF_FIELD_ALL), which needs the device opened. -ENOENT if there is
 * no such buffer.
 */
int udmabuf_get_info(const char *name, struct udmabuf_info *info);

/* The same reading FIELDS (UDMABUF_FIELD_*) only. */
int udmabuf_get_info_fields(const char *name, unsigned int fields,
			    struct udmabuf_info *info);

/*
 * The CPU physical address of an enabled buffer (info->devpath), and its
 * DMA address if that is not known yet, from GET_INFO: the device node is
 * opened and closed again (it counts as a user meanwhile). 0, or -errno:
 * -ENODEV if the buffer is disabled or the node is another device's.
 */
int udmabuf_info_cpu_phys_addr(struct udmabuf_info *info);

void udmabuf_list_free(struct udmabuf_info *list);

/* What udmabuf_create_args() writes; the public udmabuf_config becomes one. */
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
};

/* Fill args with "module default" for everything. */
void udmabuf_create_args_init(struct udmabuf_create_args *args,
			      const char *name);

/*
 * Create a configfs item, write its attributes and enable it. On failure
 * everything made is removed, and *step (if step is not NULL) names what
 * failed: "mkdir", an attribute name or "enable". The string stays valid
 * until the next call in the same thread.
 *
 * Order: size, minor, sync_mode, dma_mask, mode, device_name, allocator,
 * attrs, dma_device, phys_addr, enable (dma_device and phys_addr last: enable
 * looks the device up again, and the placement is checked against it). If
 * the loaded module's features do not list dma_device (or phys_addr), or
 * its phys_addr attribute is read-only, the call fails with -EOPNOTSUPP
 * (step "dma_device" or "phys_addr").
 */
int udmabuf_create_args(const struct udmabuf_create_args *args,
			const char **step);

/* ---------------------------------------------------------------------- */
/* Shared by the library's source files                                   */

int udmabuf_path_join(char *buf, size_t len, const char *a, const char *b);
int udmabuf_is_dir(const char *path);
/* Read an attribute, trailing white space stripped; returns its length. */
int udmabuf_read_attr(const char *dir, const char *attr, char *buf,
		      size_t len);
int udmabuf_read_str_attr(const char *dir, const char *attr, char *buf,
			  size_t len);
/* The same for DIR relative to the directory fd DFD (or AT_FDCWD). */
int udmabuf_read_attr_at(int dfd, const char *dir, const char *attr,
			 char *buf, size_t len);
/* Write an attribute in one write(2). */
int udmabuf_write_attr(const char *dir, const char *attr, const char *value);
/* The directory of configfs item ITEM. */
int udmabuf_item_dir(const char *item, char *buf, size_t len);
/*
 * The configfs item whose device is DEV (its device_name, or its own name
 * when that is empty); enabled items first, so that of an enabled and a
 * disabled item that both name DEV the one that has the device wins.
 * -ENOENT if none.
 */
int udmabuf_item_of_device(const char *dev, char *item, size_t len);
/* 1, 0 or -errno: the module's features list ATTR. */
int udmabuf_has_feature(const char *attr);
/* Disable and remove item ITEM (it exists). *step as above. */
int udmabuf_delete_item(const char *item, unsigned int flags,
			const char **step);

struct udmabuf_cfs_alloc;

/*
 * The request of udmabuf_alloc() for CFG and FLAGS (O_SYNC asks for
 * sync_mode | 4), checked: 0, or the failure (recorded) for what a
 * process-scoped buffer cannot have.
 */
int udmabuf_config_alloc_request(const struct udmabuf_config *cfg, int flags,
				 struct udmabuf_cfs_alloc *req);

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

#endif /* LIBUDMABUF_PRIVATE_H */
