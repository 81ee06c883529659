/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * udmabuf-cfs compatibility layer.
 *
 * Force-included into every source file by Kbuild, so the logic files can
 * use the newest kernel API names and read like mainline code.  Each block
 * back-fills one newer interface for older kernels; feature tests are used
 * where the kernel offers one, version numbers only where it does not.
 * This is the only file of the driver that may test LINUX_VERSION_CODE.
 */
#ifndef _UDMABUF_CFS_COMPAT_H
#define _UDMABUF_CFS_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/dma-map-ops.h>

/*
 * v6.2 constified the device passed to class->devnode().  The callback is
 * declared with this qualifier so one definition fits both prototypes.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define udmabuf_devnode_const
#else
#define udmabuf_devnode_const const
#endif

/*
 * The driver core's bus functions take a const struct bus_type since about
 * v6.4, and v6.11 made pci_bus_type and platform_bus_type const themselves.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define udmabuf_bus_const
#else
#define udmabuf_bus_const const
#endif

/* v6.4 dropped the owner argument of class_create(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define udmabuf_class_create(name)	class_create(THIS_MODULE, name)
#else
#define udmabuf_class_create(name)	class_create(name)
#endif

/*
 * v6.11 made platform_driver.remove return void; before, the void variant
 * was called remove_new (back-ported to the 6.1 stable series).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
#define platform_remove_void	remove_new
#else
#define platform_remove_void	remove
#endif

/*
 * Architectures without a DMA-coherent page protection of their own get the
 * generic definition from <linux/dma-map-ops.h>; make sure there is one even
 * where that header does not provide it.
 */
#ifndef pgprot_dmacoherent
#define pgprot_dmacoherent(prot)	pgprot_noncached(prot)
#endif

/*
 * The largest order the page allocator hands out: v6.4 made MAX_ORDER
 * inclusive, v6.8 renamed it MAX_PAGE_ORDER.
 */
#if defined(MAX_PAGE_ORDER)
#define UDMABUF_MAX_ORDER	MAX_PAGE_ORDER
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define UDMABUF_MAX_ORDER	(MAX_ORDER - 1)
#else
#define UDMABUF_MAX_ORDER	MAX_ORDER
#endif

/* v6.3 made vma->vm_flags read-only, to be changed through helpers. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * udmabuf_pgprot_mkdirty - @prot as the protection of an entry that is
 * young and dirty already (and so, in a writable protection, writable in
 * hardware).  pte_pgprot() is the inverse of pfn_pte() only where the
 * architecture defines it: v6.12's generic fallback gives an empty
 * protection, and 32-bit ARM, RISC-V and others have none.  Elsewhere
 * @prot is returned unchanged, and first writes fault as before.
 */
#if defined(CONFIG_ARM64) || defined(CONFIG_X86)
static inline pgprot_t udmabuf_pgprot_mkdirty(unsigned long pfn, pgprot_t prot)
{
	return pte_pgprot(pte_mkyoung(pte_mkdirty(pfn_pte(pfn, prot))));
}
#else
static inline pgprot_t udmabuf_pgprot_mkdirty(unsigned long pfn, pgprot_t prot)
{
	return prot;
}
#endif

/* v6.5 split copy_splice_read() out of generic_file_splice_read(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define copy_splice_read	generic_file_splice_read
#endif

#endif /* _UDMABUF_CFS_COMPAT_H */
