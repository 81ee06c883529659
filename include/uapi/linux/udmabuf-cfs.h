/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * udmabuf-cfs: physically contiguous DMA buffers for user space.
 *
 * ioctl interface of /dev/<device>.  Every structure uses fixed-width types
 * with explicit padding, so 32-bit and 64-bit programs see the same layout
 * and no compat translation is needed.
 */
#ifndef _UAPI_LINUX_UDMABUF_CFS_H
#define _UAPI_LINUX_UDMABUF_CFS_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Incremented on any incompatible change of the structures below. */
#define UDMABUF_CFS_ABI_VERSION		1

/* Directions of a cache synchronisation, as in the sysfs sync_direction. */
#define UDMABUF_CFS_DIR_BIDIRECTIONAL	0
#define UDMABUF_CFS_DIR_TO_DEVICE	1
#define UDMABUF_CFS_DIR_FROM_DEVICE	2

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
	__u64 reserved[4];
};

/**
 * struct udmabuf_cfs_sync - a range to synchronise between CPU and device
 * @offset: start of the range in bytes from the start of the buffer
 * @size: length of the range in bytes; 0 means up to the end of the buffer
 * @direction: %UDMABUF_CFS_DIR_* of the DMA transfer around this sync
 * @flags: must be zero
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

#endif /* _UAPI_LINUX_UDMABUF_CFS_H */
