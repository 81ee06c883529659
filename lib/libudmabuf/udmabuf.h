/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libudmabuf 1.3 - use udmabuf-cfs DMA buffers from C.
 *
 * A udmabuf-cfs buffer is physically contiguous memory that a program maps
 * and a DMA master reads or writes. This library opens a buffer, maps it,
 * tells its addresses, hands ranges between CPU and device with one ioctl
 * each, exports ranges as dma-buf file descriptors, and creates and destroys
 * buffers through the module's configfs subsystem, allocates buffers that
 * live as long as the program (/dev/udmabuf-cfs), lists every buffer and
 * turns on the module's sync checker. See libudmabuf(3).
 *
 * Two addresses, as everywhere in udmabuf-cfs: the DMA address is what a
 * device is programmed with (an IOVA behind an IOMMU), the CPU physical
 * address is where the memory is for the CPU. They differ behind an IOMMU
 * or a bus that translates; program a DMA master with the DMA address.
 *
 * Conventions:
 *  - Functions that can fail return 0 (or a non-negative value) on success
 *    and a negative errno value on failure. On failure they also leave a
 *    message for the calling thread in udmabuf_last_error(), naming the
 *    buffer, what was done and why it failed.
 *  - The library never prints, never exits, never installs signal handlers
 *    and opens every file descriptor with O_CLOEXEC.
 *  - Thread safety: every function may be called from several threads at
 *    once. A struct udmabuf may be used by several threads at once (its
 *    records of mappings have a lock of their own), except
 *    that udmabuf_close() must not race with other calls on the same handle.
 *    A struct udmabuf_config is not locked: do not change one from two
 *    threads at once (reading it in several udmabuf_create() calls at once
 *    is fine). Error messages are kept per thread.
 *  - Structures are opaque, so they can grow without breaking programs;
 *    the symbols are versioned: LIBUDMABUF_1.0, and a node for what each
 *    later minor version added (marked "Since 1.1" ... "Since 1.3" below).
 *  - For tests, the environment variables UDMABUF_CONFIGFS_DIR,
 *    UDMABUF_SYSFS_DIR, UDMABUF_DEV_DIR and UDMABUF_MODULE_DIR replace the
 *    directories /sys/kernel/config/udmabuf, /sys/class/udmabuf, /dev and
 *    /sys/module/udmabuf_cfs. They are read with secure_getenv(3): ignored
 *    in set-user-ID programs.
 *  - UDMABUF_SYNC_CHECK=report or =sigbus turns the module's sync checker
 *    on for every buffer the program creates or allocates through this
 *    library (udmabuf_create(), udmabuf_alloc()), so that an unmodified
 *    program can be checked; see udmabuf_config_set_sync_check(). Also
 *    read with secure_getenv(3). Since 1.3.
 */
#ifndef UDMABUF_H
#define UDMABUF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UDMABUF_VERSION_MAJOR	1
#define UDMABUF_VERSION_MINOR	3

/*
 * The values the module takes, which the udmabuf_config_set_*() setters
 * check. Since 1.2.
 */
#define UDMABUF_MINOR_MAX		1048575	/* minor numbers 0..this */
#define UDMABUF_SYNC_MODE_MAX		7	/* sync_mode 0..this */
#define UDMABUF_DMA_MASK_MIN		12	/* dma_mask, address bits */
#define UDMABUF_DMA_MASK_MAX		64
#define UDMABUF_DMA_MASK_DEFAULT	32	/* when none is set */
#define UDMABUF_DEVICE_NAME_MAX		32	/* 1..this of [A-Za-z0-9_.-] */

/*
 * The sync checker's modes (udmabuf_config_set_sync_check(),
 * udmabuf_get_sync_check(); the module's sync_check attribute). Since 1.3.
 */
#define UDMABUF_SYNC_CHECK_OFF		0	/* the default */
#define UDMABUF_SYNC_CHECK_REPORT	1	/* log and count each violation */
#define UDMABUF_SYNC_CHECK_SIGBUS	2	/* and SIGBUS at the faulting access */
#define UDMABUF_SYNC_CHECK_MAX		UDMABUF_SYNC_CHECK_SIGBUS

/* ---------------------------------------------------------------------- */
/* Library                                                                */

/* Version of the library, e.g. "1.1.0". */
const char *udmabuf_library_version(void);

/*
 * The message of the last call of this library that failed in the calling
 * thread, e.g. "cam0: set dma_mask to 70: Numerical result out of range";
 * "" if none has failed. Stays valid until the next failing call in the
 * same thread.
 */
const char *udmabuf_last_error(void);

/*
 * What the last failed udmabuf_create() or udmabuf_destroy() of the
 * calling thread was doing: "mkdir" (the item, its name included), the
 * name of the attribute being written, "enable", "disable" or "rmdir";
 * "" if it failed before taking a step, or if the last failing call was
 * another function's. Valid until the next failing call in the same
 * thread. Since 1.2.
 */
const char *udmabuf_last_error_step(void);

/*
 * Parse a size as udmabufctl(8) takes it: decimal or 0x hexadecimal,
 * optionally followed by K, M, G or T (any case, optionally KiB...: powers
 * of 1024). -EINVAL on anything else, -ERANGE beyond 64 bits.
 */
int udmabuf_parse_size(const char *s, uint64_t *bytes);

/*
 * 1 if the loaded module's configfs subsystem lists ATTR in its
 * "features" (e.g. "dma_device", "phys_addr"), 0 if not; -ENOENT if the
 * module or configfs is not there.
 */
int udmabuf_module_has_feature(const char *attr);

/*
 * The version of the loaded module into BUF (LEN bytes), e.g. "0.1.0".
 * -ENOENT if it is not loaded; -ENODATA if it tells no version;
 * -ENAMETOOLONG if BUF is too small. Since 1.2.
 */
int udmabuf_module_version(char *buf, size_t len);

/*
 * Why there is no configfs subsystem to create buffers in: 0 if there is
 * one, else a mask of the UDMABUF_PROBE_* bits. Since 1.2.
 */
#define UDMABUF_PROBE_NO_CONFIGFS	0x1	/* configfs is not mounted */
#define UDMABUF_PROBE_NO_MODULE		0x2	/* udmabuf-cfs is not loaded */
#define UDMABUF_PROBE_NO_SUBSYS		0x4	/* loaded, no configfs subsystem */
int udmabuf_probe(void);

/*
 * The directories the library uses: the configfs subsystem's (found in
 * /proc/self/mountinfo, normally /sys/kernel/config/udmabuf), the device
 * class's (/sys/class/udmabuf) and the device nodes' (/dev), or what the
 * test variables above say. The strings stay valid until the next call of
 * the same function in the same thread. Since 1.2.
 */
const char *udmabuf_configfs_dir(void);
const char *udmabuf_sysfs_dir(void);
const char *udmabuf_dev_dir(void);

/* ---------------------------------------------------------------------- */
/* An open buffer                                                         */

struct udmabuf;

/*
 * Open a buffer and return a handle in *bufp. NAME is a configfs item name
 * (its device is opened), else a device name (DEV_DIR/NAME, normally
 * /dev/NAME); a NAME that contains a '/' is a path and is opened as it is.
 * FLAGS: O_RDWR or O_RDONLY, optionally O_SYNC (which, with the buffer's
 * sync_mode, selects the CPU mapping; see udmabufctl(8)); O_CLOEXEC is
 * implied. -ENOTTY if the file is not a udmabuf-cfs device, -ENODEV if the
 * buffer is not enabled.
 */
int udmabuf_open(const char *name, int flags, struct udmabuf **bufp);

/*
 * A handle for an already open device node. The handle uses its own
 * duplicate of FD (the caller keeps and closes FD). -ENOTTY if FD is not a
 * udmabuf-cfs device.
 */
int udmabuf_open_fd(int fd, struct udmabuf **bufp);

/*
 * Close the handle (NULL is ignored). Mappings made with udmabuf_map()
 * stay valid until udmabuf_unmap(); the kernel keeps the memory while they
 * exist (a process-scoped buffer's memory goes with the last of them).
 * The handle is freed in any case. Returns 0, or -errno if close(2)
 * failed with other than EINTR (after EINTR Linux has closed the
 * descriptor all the same).
 */
int udmabuf_close(struct udmabuf *buf);

/* The handle's file descriptor (for read/write/poll; do not close it). */
int udmabuf_get_fd(const struct udmabuf *buf);

/*
 * Device name, e.g. "cam0" for /dev/cam0; for a process-scoped buffer
 * (udmabuf_alloc()) its class device's, "proc-PID-N", which has no node.
 */
const char *udmabuf_get_name(const struct udmabuf *buf);

/* Size in bytes (fixed for the life of a buffer). */
uint64_t udmabuf_get_size(const struct udmabuf *buf);

/*
 * The DMA address: what to program into the DMA master (for a buffer bound
 * to a dma_device, that device's DMA address, an IOVA behind an IOMMU).
 * One ioctl; no root needed: whoever may open the buffer may know it.
 * -ENODEV if the buffer's bound DMA device has gone away.
 */
int udmabuf_get_dma_addr(const struct udmabuf *buf, uint64_t *addr);

/*
 * The CPU physical address: where the memory is for the CPU (what
 * /proc/PID/pagemap shows for the mapping). Equal to the DMA address
 * unless an IOMMU or the bus translates; never program a DMA master with
 * it. One ioctl. Since 1.1.
 */
int udmabuf_get_cpu_phys_addr(const struct udmabuf *buf, uint64_t *addr);

/*
 * The same as udmabuf_get_cpu_phys_addr(): the CPU physical address, NOT
 * the DMA address (and not the sysfs or configfs phys_addr, which read the
 * DMA address). Kept under its 1.0 name; new code should call
 * udmabuf_get_cpu_phys_addr(), whose name says which address it is.
 */
int udmabuf_get_phys_addr(const struct udmabuf *buf, uint64_t *addr);

/* UDMABUF_INFO_* bits, as the module reports them now. One ioctl. */
#define UDMABUF_INFO_DMA_COHERENT	(1U << 0) /* the device snoops CPU caches */
#define UDMABUF_INFO_RAM_CACHED		(1U << 1) /* the arch maps RAM cached always */
#define UDMABUF_INFO_DMA_BOUND		(1U << 2) /* bound to a dma_device */
#define UDMABUF_INFO_DMA_DETACHED	(1U << 3) /* that device went away */
int udmabuf_get_flags(const struct udmabuf *buf, uint32_t *flags);

/* Current sync_mode, 0..7 (it may be changed while the buffer lives). */
int udmabuf_get_sync_mode(const struct udmabuf *buf, unsigned int *mode);

/*
 * The sync checker in force (UDMABUF_SYNC_CHECK_*; it may be changed while
 * the buffer lives, through sysfs or configfs sync_check), and how many
 * violations it has reported since the buffer was made: a CPU access to
 * memory the device owns (a sync for the CPU missing), a sync for the CPU
 * of a range never given to the device (a sync for the device missing), a
 * sync for the CPU whose ends split a cache line. The kernel log has a
 * line for each, naming the buffer, the offset and the process. One
 * ioctl each; a module older than the checker tells 0 for both.
 * Since 1.3.
 */
int udmabuf_get_sync_check(const struct udmabuf *buf, unsigned int *mode);
int udmabuf_get_sync_violations(const struct udmabuf *buf, uint64_t *count);

/*
 * Minor number of the device node; of a process-scoped buffer, which has
 * none, its entry in the module's table.
 */
unsigned int udmabuf_get_minor(const struct udmabuf *buf);

/* Version string of the loaded module, e.g. "0.1.0". */
const char *udmabuf_get_driver_version(const struct udmabuf *buf);

/*
 * Map [offset, offset + length) of the buffer with MAP_SHARED and store
 * the address of byte OFFSET in *addr. LENGTH 0 means up to the end of the
 * buffer; OFFSET need not be page-aligned. PROT is PROT_READ, PROT_WRITE or
 * both; 0 means what the handle was opened for. -EINVAL for a range outside
 * the buffer.
 */
int udmabuf_map(const struct udmabuf *buf, uint64_t offset,
		uint64_t length, int prot, void **addr);

/* Undo udmabuf_map(): ADDR as returned, LENGTH as mapped (not 0). */
int udmabuf_unmap(void *addr, uint64_t length);

/*
 * Undo a mapping that udmabuf_map() made through this handle: ADDR as it
 * returned, no length needed (the handle remembers it). -EINVAL if ADDR is
 * not a mapping of this handle's, or was unmapped already. Mappings
 * outlive udmabuf_close(), but their records do not: after it, use
 * udmabuf_unmap(). Do not mix the two on one mapping. Since 1.1.
 */
int udmabuf_unmap_mapping(const struct udmabuf *buf, void *addr);

/* Directions of the transfer around a sync. */
#define UDMABUF_DIR_BIDIRECTIONAL	0
#define UDMABUF_DIR_TO_DEVICE		1
#define UDMABUF_DIR_FROM_DEVICE		2

/*
 * Cache maintenance on [offset, offset + length) (LENGTH 0: to the end)
 * with one ioctl on the open handle: for_cpu after the device wrote, before
 * the CPU reads; for_device after the CPU wrote, before the device reads.
 * -EINVAL for a range outside the buffer or a bad direction; -EOPNOTSUPP
 * if the loaded module has no sync ioctls.
 */
int udmabuf_sync_for_cpu(const struct udmabuf *buf,
			 uint64_t offset, uint64_t length,
			 int direction);
int udmabuf_sync_for_device(const struct udmabuf *buf,
			    uint64_t offset, uint64_t length,
			    int direction);

/*
 * The same, named for what is meant (LENGTH 0: to the end). Since 1.1.
 *  flush:      the CPU wrote, the device will read
 *              (udmabuf_sync_for_device(), UDMABUF_DIR_TO_DEVICE)
 *  invalidate: the device wrote, the CPU will read
 *              (udmabuf_sync_for_cpu(), UDMABUF_DIR_FROM_DEVICE)
 */
int udmabuf_flush(const struct udmabuf *buf, uint64_t offset, uint64_t length);
int udmabuf_invalidate(const struct udmabuf *buf, uint64_t offset,
		       uint64_t length);

/*
 * Export the page-aligned range [offset, offset + length) (LENGTH 0: to
 * the end) as a new dma-buf file descriptor, returned. FLAGS: O_RDWR or
 * O_RDONLY; O_CLOEXEC is implied (may be given). The dma-buf keeps the
 * memory alive.
 * -EOPNOTSUPP if the module (or the header this library was built with)
 * has no dma-buf export.
 */
int udmabuf_export_dmabuf(const struct udmabuf *buf,
			  uint64_t offset, uint64_t length,
			  int flags);

/* ---------------------------------------------------------------------- */
/* Creating and destroying buffers (configfs; normally root's)            */

struct udmabuf_config;

/*
 * A configuration for udmabuf_create(): nothing set (every attribute at
 * the module's default). NULL if out of memory.
 */
struct udmabuf_config *udmabuf_config_new(void);
void udmabuf_config_free(struct udmabuf_config *cfg);

/*
 * Setters; each checks its value (-EINVAL or -ERANGE) and the kernel
 * checks again when udmabuf_create() writes it.
 *  size:        bytes (required to enable)
 *  minor:       0..1048575, or -1 for the first free one (the default)
 *  device_name: 1..32 of [A-Za-z0-9_.-] (default: the item name)
 *  sync_mode:   0..7 (default 1)
 *  dma_mask:    address bits, 12..64 (default 32)
 *  mode:        permissions of the device node, 0..0777 (default 0600)
 *  dma_device:  the DMA master, BUS/DEVICE ("pci/0000:01:00.0"); "" or
 *               NULL for the module's own device
 *  phys_addr:   the CPU physical address the buffer must be allocated at
 *               (configfs phys_addr as written before enable; once
 *               enabled it reads the DMA address); needs a module whose
 *               phys_addr attribute is writable
 */
int udmabuf_config_set_size(struct udmabuf_config *cfg, uint64_t bytes);
int udmabuf_config_set_minor(struct udmabuf_config *cfg, long minor);
int udmabuf_config_set_device_name(struct udmabuf_config *cfg,
				   const char *name);
int udmabuf_config_set_sync_mode(struct udmabuf_config *cfg, unsigned int mode);
int udmabuf_config_set_dma_mask(struct udmabuf_config *cfg, unsigned int bits);
int udmabuf_config_set_mode(struct udmabuf_config *cfg, unsigned int mode);
int udmabuf_config_set_dma_device(struct udmabuf_config *cfg,
				  const char *bus_device);
int udmabuf_config_set_phys_addr(struct udmabuf_config *cfg, uint64_t addr);
/*
 * Where the memory comes from (the configfs attribute allocator; the
 * ioctl's field for udmabuf_alloc()): "auto" ("" or NULL: the module's
 * default order), "page", "contig" or "cma". -EINVAL otherwise. Since 1.1.
 */
int udmabuf_config_set_allocator(struct udmabuf_config *cfg,
				 const char *allocator);
/*
 * The sync checker (the configfs attribute sync_check; the ioctl's field
 * for udmabuf_alloc()): UDMABUF_SYNC_CHECK_OFF (the default), _REPORT (a
 * line in the kernel log and one more in sync_violations for each access
 * or sync that breaks the ownership of a page, CPU's or device's) or
 * _SIGBUS (the same, and SIGBUS at a faulting access, for a debugger).
 * -ERANGE beyond UDMABUF_SYNC_CHECK_MAX, as the module.
 *
 * The environment variable UDMABUF_SYNC_CHECK ("report" or "sigbus";
 * "off" or empty: none) raises every buffer's mode to its own, never
 * lowers it: udmabuf_create() and udmabuf_alloc() apply the stronger of
 * the two, with or without CFG. Any other value makes them fail with
 * -EINVAL before anything is made, and the message says so. udmabuf_create()
 * refuses a mode other than off with -EOPNOTSUPP, before anything is made,
 * if the loaded module has no sync_check attribute. Since 1.3.
 */
int udmabuf_config_set_sync_check(struct udmabuf_config *cfg,
				  unsigned int mode);
/*
 * Any other configfs attribute, written after the ones above (in the order
 * given) and before dma_device, phys_addr and enable. Not "enable".
 */
int udmabuf_config_set_attr(struct udmabuf_config *cfg, const char *attr,
			    const char *value);

#define UDMABUF_CREATE_NO_ENABLE	0x1	/* configure, do not enable */

/*
 * Create configfs item NAME, write the attributes that CFG sets (NULL:
 * none) and enable it. On failure everything made is removed and the
 * message names the step that failed ("mkdir", an attribute, "enable"),
 * which udmabuf_last_error_step() tells alone (since 1.2).
 * -EEXIST if the item exists; -EOPNOTSUPP, before anything is made, if CFG
 * sets dma_device or phys_addr and the loaded module cannot take it.
 */
int udmabuf_create(const char *name, const struct udmabuf_config *cfg,
		   unsigned int flags);

#define UDMABUF_DESTROY_FORCE		0x1	/* even if open or mapped */

/*
 * Disable and remove configfs item NAME; a NAME with a '/' is a device
 * path (/dev/NAME) and names the item whose device it is. -EBUSY if the
 * buffer is open or mapped, unless UDMABUF_DESTROY_FORCE: the device then
 * disappears at once and the memory when its last user lets go. -EPERM for
 * a buffer not made through configfs (module parameter, device tree).
 * udmabuf_last_error_step() tells the step that failed, "disable" or
 * "rmdir" (since 1.2).
 */
int udmabuf_destroy(const char *name, unsigned int flags);

/* ---------------------------------------------------------------------- */
/* Process-scoped buffers (/dev/udmabuf-cfs; the udmabuf group's)         */

/*
 * Allocate a buffer that lives as long as its users: the handle's file
 * descriptor, the mappings and the dma-bufs made of it. No configfs item,
 * no device node; udmabuf_get_name() is its class device's name,
 * "proc-PID-N". A program that is killed leaves nothing behind.
 *
 * CFG (from udmabuf_config_new()) gives the size (required), and
 * optionally sync_mode, dma_mask, dma_device, allocator and (since 1.3)
 * sync_check, which UDMABUF_SYNC_CHECK may raise; a CFG that
 * sets minor, device_name, mode, phys_addr or any udmabuf_config_set_attr()
 * attribute is refused with -EINVAL (the message names it). FLAGS: O_RDWR
 * or O_RDONLY, optionally O_SYNC, as for udmabuf_open(): the file is never
 * O_SYNC, so with O_SYNC the library asks for sync_mode | 4 (sync_mode 1
 * when CFG sets none), which maps the buffer as an O_SYNC open would.
 * O_CLOEXEC is implied; any other bit is -EINVAL.
 *
 * Errors: -ENOENT if DEV_DIR/udmabuf-cfs is not there (the module is not
 * loaded, or too old); -EACCES if it may not be opened (its udev rule gives
 * it to the group udmabuf); -ENOMEM if the module's process_max cap would
 * be exceeded or there is no such contiguous memory; the others of
 * UDMABUF_CFS_IOC_ALLOC (linux/udmabuf-cfs.h): -EINVAL, -ERANGE, -ENODEV,
 * -ENXIO, -EMFILE; -EINVAL too for a bad UDMABUF_SYNC_CHECK, -EOPNOTSUPP
 * for a sync checker asked of a module that has none. Since 1.1.
 */
int udmabuf_alloc(const struct udmabuf_config *cfg, int flags,
		  struct udmabuf **bufp);

/* ---------------------------------------------------------------------- */
/* Listing buffers                                                        */

struct udmabuf_listing;
struct udmabuf_entry;

/* Also read each buffer's CPU physical address: opens its device node. */
#define UDMABUF_LISTING_CPU_PHYS_ADDR	0x1
/* Only the configfs items; fail if the subsystem cannot be read. Since 1.2. */
#define UDMABUF_LISTING_ITEMS		0x2

/*
 * A snapshot of every buffer, as udmabufctl(8) lists them: configfs items
 * (enabled or not), buffers of module parameters and the device tree, and
 * process-scoped buffers; sorted by name. FLAGS: 0 or
 * UDMABUF_LISTING_CPU_PHYS_ADDR. -ENOENT if the module is not loaded. Free
 * with udmabuf_listing_free(). Since 1.1.
 */
int udmabuf_listing_new(unsigned int flags, struct udmabuf_listing **listp);

/*
 * What a listing reads of each buffer. Its names, its device number and
 * node and whether it is enabled are always read (an item's device_name
 * and dev, two reads); each field is a read or two more. Since 1.2.
 */
#define UDMABUF_FIELD_SIZE		(1U << 0)
#define UDMABUF_FIELD_SYNC_MODE		(1U << 1)
#define UDMABUF_FIELD_DMA_ADDR		(1U << 2)
#define UDMABUF_FIELD_ORIGIN		(1U << 3)
#define UDMABUF_FIELD_USERS		(1U << 4)
#define UDMABUF_FIELD_DMA_MASK		(1U << 5)
#define UDMABUF_FIELD_MODE		(1U << 6)
#define UDMABUF_FIELD_CONFIG_MINOR	(1U << 7)
#define UDMABUF_FIELD_DMA_DEVICE	(1U << 8)
#define UDMABUF_FIELD_COHERENT		(1U << 9)
#define UDMABUF_FIELD_CACHE_MODE	(1U << 10)
#define UDMABUF_FIELD_CACHE_MODE_SYNC	(1U << 11)
#define UDMABUF_FIELD_ALLOCATOR		(1U << 12)
#define UDMABUF_FIELD_PLACEMENT		(1U << 13)
#define UDMABUF_FIELD_OWNER		(1U << 15)
/*
 * Every field of 1.2 but the CPU physical address. It stays so: a program
 * built with a later udmabuf.h must still run on the library it was
 * linked against, which refuses fields it does not know (-EINVAL). Later
 * fields are asked for by name.
 */
#define UDMABUF_FIELD_ALL		(((1U << 14) - 1) | UDMABUF_FIELD_OWNER)
/* Opens each enabled buffer's node (UDMABUF_LISTING_CPU_PHYS_ADDR). */
#define UDMABUF_FIELD_CPU_PHYS_ADDR	(1U << 14)
/* The sync checker's mode and count (sysfs, anyone's). Since 1.3. */
#define UDMABUF_FIELD_SYNC_CHECK	(1U << 16)
#define UDMABUF_FIELD_SYNC_VIOLATIONS	(1U << 17)

/*
 * udmabuf_listing_new() reading only FIELDS (UDMABUF_FIELD_*) of each
 * buffer: what the others would tell stays unknown. FLAGS: 0,
 * UDMABUF_LISTING_CPU_PHYS_ADDR (the same as that field) or
 * UDMABUF_LISTING_ITEMS. Since 1.2.
 */
int udmabuf_listing_new_fields(unsigned int flags, unsigned int fields,
			       struct udmabuf_listing **listp);

/*
 * A listing of the one buffer NAME, reading FIELDS: a configfs item name,
 * else a device name; "/dev/DEV" (or DEV under the device directory) is
 * always the buffer whose device is DEV. -ENOENT if there is no such
 * buffer; -EINVAL if NAME is another path. Since 1.2.
 */
int udmabuf_listing_new_name(const char *name, unsigned int fields,
			     struct udmabuf_listing **listp);

void udmabuf_listing_free(struct udmabuf_listing *list);
size_t udmabuf_listing_count(const struct udmabuf_listing *list);
/* Entry I (0..count-1), valid until the listing is freed; NULL past it. */
const struct udmabuf_entry *udmabuf_listing_get(const struct udmabuf_listing *list,
						size_t i);

/*
 * Getters of an entry; what was not read or could not be is "" (strings),
 * -1 (numbers) or -ENODATA (addresses, device numbers).
 *  name:      device name ("cam0", "proc-1234-5")
 *  item:      configfs item name; "" if not made through configfs
 *  origin:    "configfs", "param", "dt" or "process"
 *  owner:     "PID COMM" of the process that allocated a process-scoped
 *             buffer; NULL for any other buffer
 *  dev_path:  the device node ("/dev/cam0"); "" for none (disabled,
 *             process-scoped)
 *  enabled:   1 if the buffer's memory and device exist, else 0
 *  size:      bytes
 *  sync_mode: 0..7
 *  allocator: "page", "cma", "dma", "contig", "placed" or "pool"; of a
 *             disabled configfs item, the one it asks for: "auto",
 *             "page", "contig" or "cma" (since 1.3)
 *  dma_addr:  the DMA address (sysfs phys_addr: root's, unless a udev rule
 *             gives it to a group)
 *  cpu_phys_addr: the CPU physical address, with
 *             UDMABUF_LISTING_CPU_PHYS_ADDR and a node that may be opened
 * Since 1.2:
 *  devno:     the device number, while enabled
 *  users:     open files and mappings
 *  dma_mask:  address bits
 *  mode:      permissions of the device node, 0..0777
 *  config_minor: the minor number a configfs item asks for; -1 also for
 *             "the first free one"
 *  dma_device: the DMA master, BUS/DEVICE; "" for the module's own
 *             device; NULL where the module has no such attribute
 *  dma_coherent: 1 if the device snoops the CPU caches, else 0
 *  cache_mode, cache_mode_sync: what the CPU mapping is without and with
 *             O_SYNC ("cached", "uncached", "write-combined", ...)
 *  placement: a disabled configfs item's placement, the CPU physical
 *             address its phys_addr attribute was given
 * Since 1.3:
 *  sync_check: UDMABUF_SYNC_CHECK_*; -1 where unknown (a module older
 *             than the checker)
 *  sync_violations: the checker's reports since the buffer was made,
 *             while enabled; -ENODATA where unknown
 */
const char *udmabuf_entry_get_name(const struct udmabuf_entry *e);
const char *udmabuf_entry_get_item(const struct udmabuf_entry *e);
const char *udmabuf_entry_get_origin(const struct udmabuf_entry *e);
const char *udmabuf_entry_get_owner(const struct udmabuf_entry *e);
const char *udmabuf_entry_get_dev_path(const struct udmabuf_entry *e);
int udmabuf_entry_is_enabled(const struct udmabuf_entry *e);
uint64_t udmabuf_entry_get_size(const struct udmabuf_entry *e);
int udmabuf_entry_get_sync_mode(const struct udmabuf_entry *e);
const char *udmabuf_entry_get_allocator(const struct udmabuf_entry *e);
int udmabuf_entry_get_dma_addr(const struct udmabuf_entry *e, uint64_t *addr);
int udmabuf_entry_get_cpu_phys_addr(const struct udmabuf_entry *e,
				    uint64_t *addr);
int udmabuf_entry_get_devno(const struct udmabuf_entry *e,
			    unsigned int *major, unsigned int *minor);
long udmabuf_entry_get_users(const struct udmabuf_entry *e);
int udmabuf_entry_get_dma_mask(const struct udmabuf_entry *e);
int udmabuf_entry_get_mode(const struct udmabuf_entry *e);
long udmabuf_entry_get_config_minor(const struct udmabuf_entry *e);
const char *udmabuf_entry_get_dma_device(const struct udmabuf_entry *e);
int udmabuf_entry_get_dma_coherent(const struct udmabuf_entry *e);
const char *udmabuf_entry_get_cache_mode(const struct udmabuf_entry *e);
const char *udmabuf_entry_get_cache_mode_sync(const struct udmabuf_entry *e);
int udmabuf_entry_get_placement(const struct udmabuf_entry *e, uint64_t *addr);
int udmabuf_entry_get_sync_check(const struct udmabuf_entry *e);
int udmabuf_entry_get_sync_violations(const struct udmabuf_entry *e,
				      uint64_t *count);

#ifdef __cplusplus
}
#endif

#endif /* UDMABUF_H */
