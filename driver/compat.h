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
#include <linux/device.h>
#include <linux/highmem.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/dma-map-ops.h>
#include <linux/swiotlb.h>

/*
 * The kernels this module is built and tested for: Linux 5.10 (the oldest
 * long-term series in use) to 7.2 (the newest Debian kernel).  Outside the
 * range one line says so; a newer kernel may be tried with
 * "make UDMABUF_CFS_UNTESTED_KERNEL=1".  dkms.conf, Kconfig and README say
 * the same range.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 10, 0)
#error "udmabuf-cfs supports Linux 5.10 to 7.2: this kernel is older"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0) && !defined(UDMABUF_CFS_UNTESTED_KERNEL)
#error "udmabuf-cfs supports Linux 5.10 to 7.2 (make UDMABUF_CFS_UNTESTED_KERNEL=1 to try a newer)"
#endif

/*
 * v6.13 made the symbol namespace a string literal; before, the macro
 * stringified a bare name.  Take the string everywhere.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#endif

/*
 * v6.17 gave alloc_contig_range() flags (acr_flags_t) where it took a
 * migrate type: ACR_FLAGS_NONE is what MIGRATE_MOVABLE was, ACR_FLAGS_CMA
 * what MIGRATE_CMA was.  Passing MIGRATE_MOVABLE (1) on a newer kernel would
 * be ACR_FLAGS_CMA, and isolate in CMA mode pages CMA does not own.
 */
#ifndef ACR_FLAGS_NONE
#define ACR_FLAGS_NONE		MIGRATE_MOVABLE
#endif

/*
 * The granule of alloc_contig_range(): v5.19 made it isolate pageblocks;
 * before, it isolated the whole MAX_ORDER blocks around the range, and a
 * range whose ends were not aligned to them took in its neighbours' pages
 * (a piece next to one already taken failed with -EBUSY).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 19, 0)
#define UDMABUF_CONTIG_GRANULE	MAX_ORDER_NR_PAGES
#else
#define UDMABUF_CONTIG_GRANULE	pageblock_nr_pages
#endif

/*
 * struct device's one-bit fields became flags with accessors after 6.19
 * (7.2 is the first Debian kernel with them; their macro is #undef'd, so
 * this is tested by version); before, DMA coherency was a field that
 * exists only where the arch does cache maintenance for DMA.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 2, 0)
static inline void dev_assign_dma_coherent(struct device *dev, bool value)
{
#if defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_DEVICE) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU_ALL)
	dev->dma_coherent = value;
#endif
}
#endif

/* v5.11 added kmap_local_page(); kmap() may sleep, as the callers can. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
static inline void *kmap_local_page(struct page *page)
{
	return kmap(page);
}

static inline void kunmap_local(void *addr)
{
	kunmap(kmap_to_page(addr));
}
#endif

/* v5.12 added zone_is_zone_device(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 12, 0)
static inline bool zone_is_zone_device(struct zone *zone)
{
#ifdef CONFIG_ZONE_DEVICE
	return zone_idx(zone) == ZONE_DEVICE;
#else
	return false;
#endif
}
#endif

/*
 * v5.15 added iommu_is_dma_domain() with the lazy DMA domain type
 * (IOMMU_DOMAIN_DMA_FQ); before, there was only IOMMU_DOMAIN_DMA.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
static inline bool iommu_is_dma_domain(struct iommu_domain *domain)
{
	return domain->type == IOMMU_DOMAIN_DMA;
}
#endif

/*
 * v5.15 made forced bouncing a property of the device's swiotlb.  Before,
 * it was the global swiotlb=force, which modules cannot read: such a kernel
 * is taken not to bounce (Documentation/admin-guide.rst says so).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
static inline bool is_swiotlb_force_bounce(struct device *dev)
{
	return false;
}
#endif

/*
 * v5.18 renamed struct dma_buf_map to struct iosys_map; v5.11 had
 * introduced it for dma_buf_ops.vmap(), which before returned the address.
 * UDMABUF_DMA_BUF_VMAP() makes from the newest callbacks the ones the
 * kernel's dma_buf_ops wants, and dma_buf_vmap_op() names them.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
struct iosys_map {
	void *vaddr;
	bool is_iomem;
};

static inline void iosys_map_set_vaddr(struct iosys_map *map, void *vaddr)
{
	map->vaddr = vaddr;
	map->is_iomem = false;
}

#define UDMABUF_DMA_BUF_VMAP(vmap_fn, vunmap_fn)			\
static void *vmap_fn##_addr(struct dma_buf *dmabuf)			\
{									\
	struct iosys_map map = { };					\
									\
	return vmap_fn(dmabuf, &map) ? NULL : map.vaddr;		\
}									\
									\
static void vunmap_fn##_addr(struct dma_buf *dmabuf, void *vaddr)	\
{									\
	struct iosys_map map = { .vaddr = vaddr };			\
									\
	vunmap_fn(dmabuf, &map);					\
}

#define dma_buf_vmap_op(fn)	fn##_addr
#else
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 18, 0)
#define iosys_map		dma_buf_map
#define iosys_map_set_vaddr	dma_buf_map_set_vaddr
#endif
#define UDMABUF_DMA_BUF_VMAP(vmap_fn, vunmap_fn)
#define dma_buf_vmap_op(fn)	fn
#endif

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
 * v6.11 made platform_driver.remove return void; before, it returned an
 * int that the driver core ignored.  UDMABUF_PLATFORM_REMOVE() makes from
 * the void callback the one the kernel wants, platform_remove_op() names it.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
#define UDMABUF_PLATFORM_REMOVE(fn)					\
static int fn##_int(struct platform_device *pdev)			\
{									\
	fn(pdev);							\
	return 0;							\
}

#define platform_remove_op(fn)	fn##_int
#else
#define UDMABUF_PLATFORM_REMOVE(fn)
#define platform_remove_op(fn)	fn
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

/*
 * v6.7 made shrinkers the kernel's to allocate (shrinker_alloc(),
 * shrinker_register(), shrinker_free()); v6.0 gave register_shrinker() a
 * name; before, a shrinker was the caller's structure.  One shrinker,
 * registered, whatever the kernel: udmabuf_shrinker_create() and
 * udmabuf_shrinker_destroy().
 */
typedef unsigned long (*udmabuf_shrink_fn)(struct shrinker *shrinker,
					   struct shrink_control *sc);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
static inline struct shrinker *
udmabuf_shrinker_create(const char *name, udmabuf_shrink_fn count,
			udmabuf_shrink_fn scan)
{
	struct shrinker *shrinker = shrinker_alloc(0, "%s", name);

	if (!shrinker)
		return ERR_PTR(-ENOMEM);
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker_register(shrinker);
	return shrinker;
}

static inline void udmabuf_shrinker_destroy(struct shrinker *shrinker)
{
	shrinker_free(shrinker);
}
#else
static inline struct shrinker *
udmabuf_shrinker_create(const char *name, udmabuf_shrink_fn count,
			udmabuf_shrink_fn scan)
{
	struct shrinker *shrinker = kzalloc(sizeof(*shrinker), GFP_KERNEL);
	int ret;

	if (!shrinker)
		return ERR_PTR(-ENOMEM);
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker->seeks = DEFAULT_SEEKS;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 0, 0)
	ret = register_shrinker(shrinker, "%s", name);
#else
	ret = register_shrinker(shrinker);
#endif
	if (ret) {
		kfree(shrinker);
		return ERR_PTR(ret);
	}
	return shrinker;
}

static inline void udmabuf_shrinker_destroy(struct shrinker *shrinker)
{
	unregister_shrinker(shrinker);
	kfree(shrinker);
}
#endif

/*
 * v6.14 added the dmem cgroup controller; its header gives stubs where
 * CONFIG_CGROUP_DMEM is off.  Before, the same stubs: no region, every
 * charge granted and nothing to give back.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#include <linux/cgroup_dmem.h>
#else
struct dmem_cgroup_region;
struct dmem_cgroup_pool_state;

static inline __printf(2, 3) struct dmem_cgroup_region *
dmem_cgroup_register_region(u64 size, const char *name_fmt, ...)
{
	return NULL;
}

static inline void
dmem_cgroup_unregister_region(struct dmem_cgroup_region *region)
{
}

static inline int
dmem_cgroup_try_charge(struct dmem_cgroup_region *region, u64 size,
		       struct dmem_cgroup_pool_state **ret_pool,
		       struct dmem_cgroup_pool_state **ret_limit_pool)
{
	*ret_pool = NULL;
	if (ret_limit_pool)
		*ret_limit_pool = NULL;
	return 0;
}

static inline void dmem_cgroup_uncharge(struct dmem_cgroup_pool_state *pool,
					u64 size)
{
}
#endif

/* v6.5 split copy_splice_read() out of generic_file_splice_read(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define copy_splice_read	generic_file_splice_read
#endif

/*
 * struct user_struct counts what its user keeps pinned against
 * RLIMIT_MEMLOCK (locked_vm) only where a user of the count is built in.
 * NET and IO_URING are among those on every supported kernel (5.10 also
 * lists PERF_EVENTS and BPF_SYSCALL, later kernels IOMMUFD, SECRETMEM and
 * VFIO_PCI_ZDEV_KVM); without both there may be no count to charge: NULL.
 */
#include <linux/sched/user.h>

static inline atomic_long_t *udmabuf_user_locked_vm(struct user_struct *user)
{
#if defined(CONFIG_NET) || defined(CONFIG_IO_URING)
	return &user->locked_vm;
#else
	return NULL;
#endif
}

#endif /* _UDMABUF_CFS_COMPAT_H */
