// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-time checks of the udmabuf-cfs UAPI (include/uapi/linux/udmabuf-cfs.h):
 * the structures have the same size and member offsets for every ABI (i386,
 * x86_64, armhf, aarch64, ...), so a 64-bit kernel needs no compat
 * translation, and the ioctl numbers are the published ones.
 *
 * Compiled only (-c), with each compiler tests/uapi/check finds, as C11 and
 * as C++11.  Build with -Wpadded -Werror to also prove that the compiler
 * inserts no padding of its own.  EXPECT_PTR_BITS, if defined, makes sure
 * the compiler really targets the ABI the check thinks it does.
 */
#include <stddef.h>
#include <linux/udmabuf-cfs.h>

#ifdef __cplusplus
#define ASSERT(cond, msg) static_assert(cond, msg)
#else
#define ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#define OFFSET(type, member, off) \
	ASSERT(offsetof(struct type, member) == (off), \
	       "offsetof(struct " #type ", " #member ") != " #off)
/* A member's offset and size. */
#define FIELD(type, member, off, size) \
	ASSERT(offsetof(struct type, member) == (off) && \
	       sizeof(((struct type *)0)->member) == (size), \
	       "struct " #type "." #member " is not at " #off " with " #size " bytes")

#ifdef EXPECT_PTR_BITS
ASSERT(sizeof(void *) * 8 == EXPECT_PTR_BITS, "the compiler does not target the expected pointer width");
#endif

/* struct udmabuf_cfs_info: 104 bytes, every __u64 naturally aligned. */
ASSERT(sizeof(struct udmabuf_cfs_info) == 104, "sizeof(struct udmabuf_cfs_info) != 104");
FIELD(udmabuf_cfs_info, abi_version, 0, 4);
FIELD(udmabuf_cfs_info, flags, 4, 4);
FIELD(udmabuf_cfs_info, size, 8, 8);
FIELD(udmabuf_cfs_info, dma_addr, 16, 8);
FIELD(udmabuf_cfs_info, phys_addr, 24, 8);
FIELD(udmabuf_cfs_info, sync_mode, 32, 4);
FIELD(udmabuf_cfs_info, minor, 36, 4);
FIELD(udmabuf_cfs_info, driver_version, 40, 32);
FIELD(udmabuf_cfs_info, sync_violations, 72, 8);
OFFSET(udmabuf_cfs_info, sync_check, 80);
OFFSET(udmabuf_cfs_info, reserved0, 84);
FIELD(udmabuf_cfs_info, reserved, 88, 16);

/* struct udmabuf_cfs_sync: 24 bytes. */
ASSERT(sizeof(struct udmabuf_cfs_sync) == 24, "sizeof(struct udmabuf_cfs_sync) != 24");
FIELD(udmabuf_cfs_sync, offset, 0, 8);
FIELD(udmabuf_cfs_sync, size, 8, 8);
FIELD(udmabuf_cfs_sync, direction, 16, 4);
FIELD(udmabuf_cfs_sync, flags, 20, 4);

ASSERT(sizeof(struct udmabuf_cfs_export) == 24, "sizeof(struct udmabuf_cfs_export) != 24");
OFFSET(udmabuf_cfs_export, offset, 0);
OFFSET(udmabuf_cfs_export, size, 8);
OFFSET(udmabuf_cfs_export, flags, 16);
FIELD(udmabuf_cfs_export, fd, 20, 4);

/* struct udmabuf_cfs_alloc: 208 bytes, every __u64 naturally aligned. */
ASSERT(sizeof(struct udmabuf_cfs_alloc) == 208, "sizeof(struct udmabuf_cfs_alloc) != 208");
FIELD(udmabuf_cfs_alloc, size, 0, 8);
OFFSET(udmabuf_cfs_alloc, flags, 8);
OFFSET(udmabuf_cfs_alloc, sync_mode, 12);
OFFSET(udmabuf_cfs_alloc, dma_bits, 16);
OFFSET(udmabuf_cfs_alloc, allocator, 20);
FIELD(udmabuf_cfs_alloc, fd, 24, 4);
OFFSET(udmabuf_cfs_alloc, sync_check, 28);
FIELD(udmabuf_cfs_alloc, dma_device, 32, 128);
FIELD(udmabuf_cfs_alloc, reserved, 160, 48);

/* Constants. */
ASSERT(UDMABUF_CFS_ABI_VERSION == 1, "ABI version");
ASSERT(UDMABUF_CFS_DIR_BIDIRECTIONAL == 0, "DIR_BIDIRECTIONAL");
ASSERT(UDMABUF_CFS_DIR_TO_DEVICE == 1, "DIR_TO_DEVICE");
ASSERT(UDMABUF_CFS_DIR_FROM_DEVICE == 2, "DIR_FROM_DEVICE");
ASSERT(UDMABUF_CFS_INFO_DMA_COHERENT == 1, "INFO_DMA_COHERENT");
ASSERT(UDMABUF_CFS_INFO_RAM_CACHED == 2, "INFO_RAM_CACHED");
ASSERT(UDMABUF_CFS_INFO_DMA_BOUND == 4, "INFO_DMA_BOUND");
ASSERT(UDMABUF_CFS_INFO_DMA_DETACHED == 8, "INFO_DMA_DETACHED");
ASSERT(UDMABUF_CFS_INFO_PAGES == 16, "INFO_PAGES");
ASSERT(UDMABUF_CFS_VERSION_LEN == 32, "VERSION_LEN");
ASSERT(UDMABUF_CFS_IOC_MAGIC == 0xD5, "ioctl magic");

/*
 * ioctl numbers.  The encoding is the generic one (2 direction bits, 14 size
 * bits, 8 type bits, 8 number bits) on every architecture checked here: the
 * whole number fixes each ioctl's direction, size (the structure's, above),
 * type and number.
 */
ASSERT(UDMABUF_CFS_IOC_GET_INFO == 0x8068d500U, "GET_INFO != 0x8068d500");
ASSERT(UDMABUF_CFS_IOC_SYNC_FOR_CPU == 0x4018d501U, "SYNC_FOR_CPU != 0x4018d501");
ASSERT(UDMABUF_CFS_IOC_SYNC_FOR_DEVICE == 0x4018d502U, "SYNC_FOR_DEVICE != 0x4018d502");
ASSERT(UDMABUF_CFS_IOC_EXPORT_DMABUF == 0xc018d503U, "EXPORT_DMABUF != 0xc018d503");
ASSERT(UDMABUF_CFS_IOC_ALLOC == 0xc0d0d504U, "ALLOC != 0xc0d0d504");

ASSERT(UDMABUF_CFS_ALLOCATOR_AUTO == 0, "ALLOCATOR_AUTO");
ASSERT(UDMABUF_CFS_ALLOCATOR_PAGE == 1, "ALLOCATOR_PAGE");
ASSERT(UDMABUF_CFS_ALLOCATOR_CONTIG == 2, "ALLOCATOR_CONTIG");
ASSERT(UDMABUF_CFS_ALLOCATOR_CMA == 3, "ALLOCATOR_CMA");
ASSERT(UDMABUF_CFS_DMA_DEVICE_LEN == 128, "DMA_DEVICE_LEN");

/* Something to compile besides the assertions. */
int udmabuf_cfs_layout_checked(void);
int udmabuf_cfs_layout_checked(void)
{
	return 1;
}
