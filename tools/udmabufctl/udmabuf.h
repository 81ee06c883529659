/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libudmabuf - create, inspect, delete and map udmabuf-cfs DMA buffers.
 *
 * The library talks to the udmabuf-cfs kernel module through its configfs
 * subsystem (/sys/kernel/config/udmabuf), its device class
 * (/sys/class/udmabuf) and the device nodes (/dev/NAME).
 *
 * Conventions:
 *  - Every function that can fail returns 0 (or a non-negative value) on
 *    success and a negative errno value on failure; errno itself is not
 *    meant to be inspected.
 *  - The library never prints anything.
 *  - The directories can be redirected with the environment variables
 *    UDMABUF_CONFIGFS_DIR, UDMABUF_SYSFS_DIR, UDMABUF_DEV_DIR and
 *    UDMABUF_MODULE_DIR (meant for tests).
 *  - A buffer is named either by its configfs item name, by its device name
 *    or by its device path (UDMABUF_DEV_DIR/NAME, normally /dev/NAME).
 */
#ifndef UDMABUF_H
#define UDMABUF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest device name the module accepts (1..32 of [A-Za-z0-9_.-]). */
#define UDMABUF_DEVICE_NAME_MAX	32
/* Largest minor number the module accepts. */
#define UDMABUF_MINOR_MAX	1048575
#define UDMABUF_SYNC_MODE_MAX	7
#define UDMABUF_DMA_MASK_MIN	12
#define UDMABUF_DMA_MASK_MAX	64

/* Version of this library, e.g. "0.1.0". */
const char *udmabuf_library_version(void);

/*
 * Directories in use (environment override or default). The returned
 * strings live in per-thread storage and stay valid until the next call of
 * the same function in the same thread.
 */
const char *udmabuf_configfs_dir(void);	/* .../config/udmabuf */
const char *udmabuf_sysfs_dir(void);	/* /sys/class/udmabuf */
const char *udmabuf_dev_dir(void);	/* /dev */
const char *udmabuf_module_dir(void);	/* /sys/module/udmabuf_cfs */

/* Problems reported by udmabuf_probe(), as a bit mask. */
#define UDMABUF_PROBE_NO_CONFIGFS	0x1	/* configfs is not mounted */
#define UDMABUF_PROBE_NO_MODULE		0x2	/* udmabuf-cfs is not loaded */
#define UDMABUF_PROBE_NO_SUBSYS		0x4	/* loaded, but no configfs subsystem */

/*
 * Check that the configfs subsystem directory exists. Returns 0 if it
 * does, else a mask of UDMABUF_PROBE_* bits saying why it does not.
 */
int udmabuf_probe(void);

/*
 * Loaded module's version into buf. -ENOENT: module not loaded;
 * -ENODATA: loaded but it has no version attribute.
 */
int udmabuf_module_version(char *buf, size_t len);

/*
 * Parse a size: decimal or 0x hexadecimal, optionally followed by one of
 * the binary suffixes K, M, G, T (any case) or KiB, MiB, GiB, TiB.
 * -EINVAL on anything else, -ERANGE if it does not fit in 64 bits.
 */
int udmabuf_parse_size(const char *s, uint64_t *bytes);

/* Parse octal permissions (0..0777). -EINVAL or -ERANGE. */
int udmabuf_parse_mode(const char *s, unsigned int *mode);

/*
 * Parse a decimal integer within [min, max]. -EINVAL on garbage,
 * -ERANGE when out of range.
 */
int udmabuf_parse_long(const char *s, long min, long max, long *value);

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
	int has_phys_addr;	/* phys_addr valid (needs root) */
	uint64_t phys_addr;
	long users;		/* open files and mappings, -1 if unknown */
	int dma_coherent;	/* 0/1, -1 if unknown */
	char cache_mode[16];	/* mapping without O_SYNC, "" if unknown */
	char cache_mode_sync[16]; /* mapping with O_SYNC, "" if unknown */
	/*
	 * The DMA master the buffer is for, as BUS/DEVICE (see
	 * udmabuf_config.dma_device); "" when it is the module's own device.
	 * Read from the class device's dma_device attribute once enabled,
	 * else from the configfs item's. has_dma_device is 0 when the loaded
	 * module has no such attribute (older than the feature).
	 */
	int has_dma_device;
	char dma_device[256];
};

/* Information about one buffer. -ENOENT if there is no such buffer. */
int udmabuf_get_info(const char *name, struct udmabuf_info *info);

/*
 * All buffers: configfs items (enabled or not) and the devices of
 * /sys/class/udmabuf that have no configfs item (module parameters, device
 * tree). Sorted by name. Free *list with udmabuf_list_free().
 * -ENOENT if neither the configfs subsystem nor the class exists.
 */
int udmabuf_list(struct udmabuf_info **list, size_t *count);
void udmabuf_list_free(struct udmabuf_info *list);

/* Names of the configfs items only (sorted). Free with udmabuf_names_free(). */
int udmabuf_list_items(char ***names, size_t *count);
void udmabuf_names_free(char **names, size_t count);

#define UDMABUF_CREATE_NO_ENABLE	0x1	/* configure, do not enable */

struct udmabuf_config {
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
};

/* Fill cfg with "module default" for everything. */
void udmabuf_config_init(struct udmabuf_config *cfg, const char *name);

/*
 * Create a configfs item, write its attributes and enable it. On failure
 * everything made is removed, and *step (if step is not NULL) names what
 * failed: "mkdir", an attribute name or "enable". The string stays valid
 * until the next call in the same thread.
 *
 * cfg->dma_device binds the buffer to the DMA master that will use it,
 * named BUS/DEVICE as in /sys/bus/BUS/devices/DEVICE ("pci/0000:00:04.0",
 * "platform/a0000000.dma"): the buffer is allocated for that device, its
 * IOMMU, coherency and DMA mask apply, and the buffer's phys_addr is that
 * device's DMA address (an IOVA behind an IOMMU). It is written after all
 * other attributes, cfg->attrs included, just before "enable". The kernel
 * refuses a malformed value with -EINVAL and a bus or device it does not
 * know with -ENODEV. If the loaded module's features do not list
 * dma_device, the call fails with -EOPNOTSUPP (step "dma_device") before
 * anything is created.
 */
int udmabuf_create(const struct udmabuf_config *cfg, const char **step);

#define UDMABUF_DELETE_FORCE	0x1	/* remove the item even if in use */

/*
 * Disable and remove a configfs item. NAME may be an item name, a device
 * name or a device path. -EBUSY if the buffer is open or mapped (unless
 * UDMABUF_DELETE_FORCE: the device then disappears at once and the memory
 * lives until the last user is gone); -EPERM if the buffer was not made
 * through configfs (module parameter or device tree); -ENOENT if there is
 * no such buffer. *step as for udmabuf_create().
 */
int udmabuf_delete(const char *name, unsigned int flags, const char **step);

/*
 * Processes that have the buffer open or mapped (scans /proc). Free *pids
 * with free(). Processes that cannot be inspected are not reported.
 */
int udmabuf_users(const char *name, pid_t **pids, size_t *count);

/* open(2) the device node of a buffer; returns the fd. */
int udmabuf_open(const char *name, int flags);

struct udmabuf_mapping {
	void *addr;		/* MAP_SHARED mapping of the whole buffer */
	size_t length;		/* mapped length (size rounded up to pages) */
	uint64_t size;		/* buffer size in bytes */
	int fd;			/* the open device node */
};

/*
 * Open and map a whole buffer. flags: O_RDWR or O_RDONLY, optionally
 * O_SYNC (see the module's sync_mode). Undo with udmabuf_unmap().
 */
int udmabuf_map(const char *name, int flags, struct udmabuf_mapping *map);
int udmabuf_unmap(struct udmabuf_mapping *map);

enum udmabuf_sync_target {
	UDMABUF_SYNC_FOR_CPU,
	UDMABUF_SYNC_FOR_DEVICE,
};

enum udmabuf_direction {
	UDMABUF_DIR_BIDIRECTIONAL = 0,
	UDMABUF_DIR_TO_DEVICE = 1,
	UDMABUF_DIR_FROM_DEVICE = 2,
};

/*
 * Synchronise the CPU caches for [offset, offset + length) of a buffer;
 * length 0 means "to the end of the buffer". Uses the device's
 * sync_for_cpu / sync_for_device attribute; -EOPNOTSUPP if the loaded
 * module does not provide it.
 */
int udmabuf_sync(const char *name, enum udmabuf_sync_target target,
		 uint64_t offset, uint64_t length,
		 enum udmabuf_direction direction);

#ifdef __cplusplus
}
#endif

#endif /* UDMABUF_H */
