/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * udmabuf-cfs: physically contiguous DMA buffers for user space.
 *
 * ioctl interface of /dev/<device> and of /dev/udmabuf-cfs.  Every
 * structure uses fixed-width types with explicit padding, so 32-bit and
 * 64-bit programs see the same layout and no compat translation is needed.
 */
#ifndef _UAPI_LINUX_UDMABUF_CFS_H
#define _UAPI_LINUX_UDMABUF_CFS_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Incremented on any incompatible change of the structures below. */
#define UDMABUF_CFS_ABI_VERSION		1

/*
 * A buffer's configuration, the same whichever way it is made (configfs,
 * module parameters, the device tree, UDMABUF_CFS_IOC_ALLOC, libudmabuf):
 * a number outside its range is refused with ERANGE, a choice that does
 * not exist (a direction, an allocator) and a malformed value with EINVAL,
 * everywhere.
 */

/* Device name: 1..UDMABUF_CFS_NAME_MAX characters of [A-Za-z0-9_.-]. */
#define UDMABUF_CFS_NAME_MAX		32

/*
 * sync_mode, 0..UDMABUF_CFS_SYNC_MODE_MAX: the low two bits choose the
 * mapping of an O_SYNC file (0 cached, 1 uncached, 2 write-combine, 3
 * DMA-coherent); UDMABUF_CFS_SYNC_MODE_ALWAYS gives it to every file.
 */
#define UDMABUF_CFS_SYNC_MODE_MAX	7
#define UDMABUF_CFS_SYNC_MODE_ALWAYS	(1U << 2)
#define UDMABUF_CFS_SYNC_MODE_DEFAULT	1

/* Width of the DMA mask the memory must fit in (configfs dma_mask). */
#define UDMABUF_CFS_DMA_BITS_MIN	12
#define UDMABUF_CFS_DMA_BITS_MAX	64
#define UDMABUF_CFS_DMA_BITS_DEFAULT	32

/* Permissions of /dev/<device>: 01..0777; 0 is refused (EINVAL). */
#define UDMABUF_CFS_MODE_MAX		0777
#define UDMABUF_CFS_MODE_DEFAULT	0600

/*
 * sync_check: the sync checker follows who owns each page of the buffer,
 * the CPU or the device, and reports a CPU access to a page the device
 * owns and a sync for the CPU of a range the device was never given.
 */
#define UDMABUF_CFS_SYNC_CHECK_OFF	0
#define UDMABUF_CFS_SYNC_CHECK_REPORT	1 /* log it and count it */
#define UDMABUF_CFS_SYNC_CHECK_SIGBUS	2 /* and SIGBUS at the faulting access */
#define UDMABUF_CFS_SYNC_CHECK_MAX	UDMABUF_CFS_SYNC_CHECK_SIGBUS

/* Directions of a cache synchronisation, as in the sysfs sync_direction. */
#define UDMABUF_CFS_DIR_BIDIRECTIONAL	0
#define UDMABUF_CFS_DIR_TO_DEVICE	1
#define UDMABUF_CFS_DIR_FROM_DEVICE	2
#define UDMABUF_CFS_DIR_MAX		UDMABUF_CFS_DIR_FROM_DEVICE

/* struct udmabuf_cfs_info.flags */
#define UDMABUF_CFS_INFO_DMA_COHERENT	(1U << 0) /* device snoops CPU caches */
#define UDMABUF_CFS_INFO_RAM_CACHED	(1U << 1) /* arch maps RAM cached always */
/* dma_addr is for the device the buffer is bound to (dma_device) */
#define UDMABUF_CFS_INFO_DMA_BOUND	(1U << 2)
/* that device went away: dma_addr is 0, syncs fail with ENODEV */
#define UDMABUF_CFS_INFO_DMA_DETACHED	(1U << 3)
/*
 * mappings are made of the memory's struct pages: get_user_pages() users
 * (O_DIRECT, vmsplice, process_vm_readv, ptrace) and long-term pins
 * (VFIO_IOMMU_MAP_DMA, io_uring fixed buffers, RDMA) work on them.  Without
 * it (CMA's memory, a no-map reserved region) they are PFN mappings, which
 * those refuse at once (EFAULT).
 */
#define UDMABUF_CFS_INFO_PAGES		(1U << 4)

#define UDMABUF_CFS_VERSION_LEN		32

/**
 * struct udmabuf_cfs_info - description of a buffer
 * @abi_version: %UDMABUF_CFS_ABI_VERSION of the running module
 * @flags: %UDMABUF_CFS_INFO_* bits
 * @size: size of the buffer in bytes, as requested
 * @dma_addr: address of the buffer as seen by its DMA device (program the
 *	DMA engine with this one): for a bound buffer the bound device's DMA
 *	address, an IOVA behind an IOMMU; 0 with %UDMABUF_CFS_INFO_DMA_DETACHED
 * @phys_addr: CPU physical address of the buffer; equal to @dma_addr unless
 *	an IOMMU or the bus translates addresses
 * @sync_mode: current sync_mode (0..7), which selects the CPU mapping
 * @minor: minor number of the device node
 * @driver_version: NUL-terminated version string of the module
 * @sync_violations: reports of the sync checker since the buffer was made
 * @sync_check: %UDMABUF_CFS_SYNC_CHECK_* in force
 * @reserved0: zero
 * @reserved: zero, for future use
 */
struct udmabuf_cfs_info {
	__u32 abi_version;
	__u32 flags;
	__u64 size;
	__u64 dma_addr;
	__u64 phys_addr;
	__u32 sync_mode;
	__u32 minor;
	char driver_version[UDMABUF_CFS_VERSION_LEN];
	__u64 sync_violations;
	__u32 sync_check;
	__u32 reserved0;
	__u64 reserved[2];
};

/**
 * struct udmabuf_cfs_sync - a range to synchronise between CPU and device
 * @offset: start of the range in bytes from the start of the buffer
 * @size: length of the range in bytes; 0 means up to the end of the buffer
 * @direction: %UDMABUF_CFS_DIR_* of the DMA transfer around this sync
 * @flags: must be zero
 *
 * Through a file opened without write access the syncs throw away no data
 * that others wrote through a cached mapping: towards the CPU the range is
 * written back before it is invalidated, towards the device only written
 * back (as %UDMABUF_CFS_DIR_TO_DEVICE), whatever @direction says.
 */
struct udmabuf_cfs_sync {
	__u64 offset;
	__u64 size;
	__u32 direction;
	__u32 flags;
};

/**
 * struct udmabuf_cfs_export - a range of the buffer as a new dma-buf
 * @offset: start of the range, page-aligned
 * @size: length of the range, page-aligned; 0 means up to the end of the
 *	buffer (rounded up to whole pages)
 * @flags: O_CLOEXEC, and the dma-buf's access mode: O_RDONLY or O_RDWR
 *	(O_RDWR needs a file opened for writing)
 * @fd: the new dma-buf file descriptor, on return
 *
 * The dma-buf keeps the memory alive after the buffer is deleted; while
 * it exists the buffer counts it as a user, so enable=0 fails with EBUSY.
 */
struct udmabuf_cfs_export {
	__u64 offset;
	__u64 size;
	__u32 flags;
	__s32 fd;
};

/*
 * struct udmabuf_cfs_alloc.allocator: where the memory comes from.  The
 * configfs attribute allocator takes the same by name: "auto", "page",
 * "contig", "cma" (UDMABUF_CFS_ALLOCATOR_NAMES, in this order).
 */
#define UDMABUF_CFS_ALLOCATOR_AUTO	0 /* the first that can: page, contig, cma */
#define UDMABUF_CFS_ALLOCATOR_PAGE	1 /* page allocator, up to its largest block */
#define UDMABUF_CFS_ALLOCATOR_CONTIG	2 /* a free or movable range, taken whole */
#define UDMABUF_CFS_ALLOCATOR_CMA	3 /* the DMA API's contiguous allocator */
#define UDMABUF_CFS_ALLOCATOR_MAX	UDMABUF_CFS_ALLOCATOR_CMA
#define UDMABUF_CFS_ALLOCATOR_NAMES	{ "auto", "page", "contig", "cma" }

/*
 * The flags a request may carry (O_* of <fcntl.h>): the new file
 * descriptor's O_CLOEXEC and access mode, O_RDONLY or O_RDWR.
 */
#define UDMABUF_CFS_ALLOC_VALID_FLAGS	(O_CLOEXEC | O_ACCMODE)
#define UDMABUF_CFS_EXPORT_VALID_FLAGS	(O_CLOEXEC | O_ACCMODE)

/* Size of struct udmabuf_cfs_alloc.dma_device, with the terminating NUL. */
#define UDMABUF_CFS_DMA_DEVICE_LEN	128

/**
 * struct udmabuf_cfs_alloc - a process-scoped buffer, from /dev/udmabuf-cfs
 * @size: bytes, 1 or more; the memory is rounded up to whole pages
 * @flags: O_CLOEXEC for the new file descriptor, and its access mode:
 *	O_RDONLY or O_RDWR (O_RDONLY: no write(), no writable shared mapping,
 *	read-only dma-bufs).  Any other bit is refused (EINVAL).
 * @sync_mode: the buffer's sync_mode, 0..%UDMABUF_CFS_SYNC_MODE_MAX, as the
 *	configfs attribute.  The file is never O_SYNC, so modes 4..7 choose
 *	its mapping.
 * @dma_bits: width of the DMA mask the memory must fit in,
 *	%UDMABUF_CFS_DMA_BITS_MIN..%UDMABUF_CFS_DMA_BITS_MAX; 0 for the
 *	default (%UDMABUF_CFS_DMA_BITS_DEFAULT), as the configfs dma_mask
 * @allocator: %UDMABUF_CFS_ALLOCATOR_*, as the configfs attribute allocator
 * @fd: on return, the new file descriptor
 * @sync_check: %UDMABUF_CFS_SYNC_CHECK_*, as the configfs attribute
 *	sync_check (0, off, in requests made before the checker)
 * @dma_device: "BUS/DEVICE" of the DMA device to bind the buffer to (e.g.
 *	"pci/0000:00:04.0"), NUL-terminated, as the configfs attribute
 *	dma_device; empty for none
 * @reserved: zero, for future use
 *
 * Every reserved byte must be zero (EINVAL otherwise), so that later
 * requests can give them a meaning.
 */
struct udmabuf_cfs_alloc {
	__u64 size;
	__u32 flags;
	__u32 sync_mode;
	__u32 dma_bits;
	__u32 allocator;
	__s32 fd;
	__u32 sync_check;
	char dma_device[UDMABUF_CFS_DMA_DEVICE_LEN];
	__u64 reserved[6];
};

#define UDMABUF_CFS_IOC_MAGIC		0xD5

/* Fill in a struct udmabuf_cfs_info. */
#define UDMABUF_CFS_IOC_GET_INFO \
	_IOR(UDMABUF_CFS_IOC_MAGIC, 0x00, struct udmabuf_cfs_info)
/* Give a range back to the CPU after the device wrote (or read) it. */
#define UDMABUF_CFS_IOC_SYNC_FOR_CPU \
	_IOW(UDMABUF_CFS_IOC_MAGIC, 0x01, struct udmabuf_cfs_sync)
/* Hand a range to the device after the CPU wrote it through a cached map. */
#define UDMABUF_CFS_IOC_SYNC_FOR_DEVICE \
	_IOW(UDMABUF_CFS_IOC_MAGIC, 0x02, struct udmabuf_cfs_sync)

/* Export a range as a dma-buf (struct udmabuf_cfs_export). */
#define UDMABUF_CFS_IOC_EXPORT_DMABUF \
	_IOWR(UDMABUF_CFS_IOC_MAGIC, 0x03, struct udmabuf_cfs_export)

/*
 * On /dev/udmabuf-cfs only: allocate a process-scoped buffer and return a
 * file descriptor for it in @fd (the ioctl itself returns 0).  The file is
 * the buffer: mmap(), read()/write()/lseek(), GET_INFO, the sync ioctls and
 * EXPORT_DMABUF work as on /dev/<device> (GET_INFO's minor is the buffer's
 * entry in the module's table; no node has it).  It has no configfs item
 * and no device node, only a class device /sys/class/udmabuf/proc-PID-N
 * (origin "process", owner "PID COMM").  The memory is freed when the last
 * file descriptor, mapping, dma-buf and pinned page are gone.
 *
 * Errors: EINVAL for a bad request (size 0, a flag or reserved byte set,
 * an unknown allocator, dma_device not NUL-terminated or malformed);
 * ERANGE for sync_mode, dma_bits or sync_check out of range, a size beyond what a file
 * can address, or a DMA mask the platform cannot honour; ENOMEM when
 * process_max or the caller's RLIMIT_MEMLOCK would be exceeded, or no such
 * memory can be had (the kernel log says which); ENODEV for no such DMA
 * device, ENXIO for one that has no driver; EFAULT for a bad pointer;
 * EMFILE as any new file descriptor.
 */
#define UDMABUF_CFS_IOC_ALLOC \
	_IOWR(UDMABUF_CFS_IOC_MAGIC, 0x04, struct udmabuf_cfs_alloc)

#endif /* _UAPI_LINUX_UDMABUF_CFS_H */
