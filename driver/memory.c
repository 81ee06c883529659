// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: the memory of a buffer.
 *
 * User mappings are backed by the pages themselves, so that everything
 * built on get_user_pages() works on them: O_DIRECT, vmsplice,
 * process_vm_readv, ptrace, and the pins that last (FOLL_LONGTERM: VFIO's
 * VFIO_IOMMU_MAP_DMA, io_uring's fixed buffers, RDMA memory regions).  That
 * needs every page to carry its own reference count, which the page
 * allocator gives only for single pages, and mm pins for good only pages
 * outside CMA areas and ZONE_MOVABLE.  In this order:
 *
 * - Up to the page allocator's largest block, the memory is one block of
 *   alloc_pages() cut into single pages with split_page().  When the buffer
 *   goes, each page is put: one still pinned (an O_DIRECT transfer in
 *   flight, a pipe holding it after vmsplice) is freed by its last user.
 *
 * - Larger, a range of free or movable pages is looked for zone by zone
 *   (never in ZONE_MOVABLE, whose memory must be able to go offline, nor in
 *   a CMA area), checked page frame by page frame (online, in the zone, not
 *   reserved, within the DMA mask), and taken with alloc_contig_range(),
 *   which migrates what is movable out of it.  Placement (a CPU physical
 *   address written to phys_addr) takes exactly that range the same way.
 *   Its pages are counted one by one and go back one by one, as split
 *   pages do.  One search or placement runs at a time (udmabuf_contig_lock).
 *
 * - Where no range can be had (or from a device-tree CMA region),
 *   dma_alloc_pages() on the class device takes it from CMA.  A long-term
 *   pin of a CMA page must first migrate it out of the area, which memory
 *   CMA has handed out cannot do, and get_user_pages() retries that for
 *   ever.  So CMA memory is mapped by PFN, as the DMA API's own
 *   dma_mmap_coherent() maps it: every get_user_pages() on it fails at once
 *   (EFAULT), and GET_INFO leaves out UDMABUF_CFS_INFO_PAGES.
 *
 * The configfs attribute allocator asks for one of them ("page", "contig",
 * "cma") instead of the first that can.
 *
 * - A no-map reserved region has no struct pages: dma_alloc_coherent() from
 *   the region's own allocator, mapped by PFN.
 *
 * Whatever it came from, the memory is cleared, and its cache lines written
 * back, before user space or a device sees it.
 *
 * A process-scoped buffer is charged (process.c) until its memory is gone.
 * Its page allocator memory is charged to the memory cgroup too
 * (__GFP_ACCOUNT), which mm uncharges page by page as it frees them.  For
 * the other charges, a page that still has a user when the buffer goes (in
 * a pipe, under O_DIRECT, pinned) is kept with its charge as a leftover:
 * the buffer's reference on it is dropped once it has no other user, which
 * is checked before every new charge, when process_used is read, under
 * memory pressure (the shrinker) and at unload.
 *
 * On 32-bit ARM with more RAM than the kernel maps permanently, CMA and the
 * contiguous ranges may be in highmem: dma_alloc_pages() refuses CMA pages
 * there (what it hands out must have a kernel address), so such a buffer comes
 * from a range, which is cleared and used page by page (clear_highpage(),
 * kmap_local_page()), never through a kernel address of its own.
 */

#include <linux/delay.h>
#include <linux/dma-direct.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/sched/signal.h>
#include <linux/cred.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "internal.h"

/*
 * One search for a free or movable range, or one placement, at a time.
 * Searches start at the same pageblock of a zone, and alloc_contig_range()
 * refuses (-EBUSY) a pageblock that another call has isolated: two
 * searches at once each went past what the other was taking, and both
 * could fail with plenty of memory free.  Taken killable: a search can
 * take seconds.  The failure's log line is written under it, so that its
 * figures are those of the memory the search saw.
 */
static DEFINE_MUTEX(udmabuf_contig_lock);

/*
 * Pages of freed process-scoped buffers that still had users, each with
 * the buffer's reference and its charge (see the top of this file).  A
 * bit of @map is set while the page at that offset from @first is ours.
 */
struct udmabuf_leftover {
	struct list_head node;
	const struct cred *cred;	/* its user's RLIMIT_MEMLOCK charge, or NULL */
	struct dmem_cgroup_pool_state *dmem_pool;	/* its dmem charge, or NULL */
	u64 dmem_bytes;			/* what that charge is */
	struct page *first;
	unsigned long nr;
	unsigned long held;		/* bits set in @map */
	unsigned long map[];
};

/* udmabuf_leftovers and udmabuf_leftover_pages; no allocation under it. */
static DEFINE_MUTEX(udmabuf_leftover_lock);
static LIST_HEAD(udmabuf_leftovers);
static unsigned long udmabuf_leftover_pages;

/*
 * Write back what the clearing left in the CPU caches, so that no dirty
 * line can later be evicted over what the device or an uncached mapping
 * stored, then hand the memory to the CPU as the DMA API expects.
 */
static void udmabuf_clean(struct udmabuf_buffer *buf)
{
	dma_sync_single_for_device(&buf->dev, buf->alloc_addr, buf->alloc_size,
				   DMA_BIDIRECTIONAL);
	dma_sync_single_for_cpu(&buf->dev, buf->alloc_addr, buf->alloc_size,
				DMA_BIDIRECTIONAL);
}

/*
 * Zones to try, best first, for memory the class device must reach: the
 * page allocator's zone modifiers only ever lower the highest address.
 */
static const gfp_t udmabuf_zones[] = {
	0,
#ifdef CONFIG_ZONE_DMA32
	GFP_DMA32,
#endif
#ifdef CONFIG_ZONE_DMA
	GFP_DMA,
#endif
};

static struct page *udmabuf_alloc_block(struct udmabuf_buffer *buf,
					unsigned int order, gfp_t extra)
{
	struct device *dev = &buf->dev;
	struct page *page;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(udmabuf_zones); i++) {
		page = alloc_pages_node(dev_to_node(dev),
					GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
					extra | udmabuf_zones[i], order);
		if (!page)
			continue;
		if (udmabuf_dma_reach(dev, page_to_phys(page),
				      buf->alloc_size) != DMA_MAPPING_ERROR)
			return page;
		__free_pages(page, order);
	}
	return NULL;
}

/*
 * From the page allocator, split into single pages; -ENOMEM to try other
 * allocators, -EDQUOT where only the memory cgroup's limit refused it.
 */
static int udmabuf_alloc_split(struct udmabuf_buffer *buf)
{
	unsigned int order = get_order(buf->alloc_size);
	unsigned long nr = udmabuf_nr_pages(buf);
	struct device *dev = &buf->dev;
	struct page *page;
	dma_addr_t addr;

	if (buf->origin != UDMABUF_ORIGIN_PROCESS) {
		page = udmabuf_alloc_block(buf, order, 0);
		if (!page)
			return -ENOMEM;
	} else {
		/* split_page() hands each page its share of the charge. */
		page = udmabuf_alloc_block(buf, order, __GFP_ACCOUNT);
		if (!page) {
			/*
			 * Taking it elsewhere would escape the cgroup's
			 * limit: say which refused.
			 */
			page = udmabuf_alloc_block(buf, order, 0);
			if (!page)
				return -ENOMEM;
			__free_pages(page, order);
			return -EDQUOT;
		}
	}
	split_page(page, order);
	/* The block's tail beyond the buffer goes back at once. */
	udmabuf_put_pages(page + nr, (1UL << order) - nr);

	/*
	 * Mapped for the class device, so that its syncs are for memory it
	 * has mapped.  The check above means no bounce buffer is involved
	 * (one still would be where all DMA is bounced: memory encryption).
	 */
	addr = dma_map_page_attrs(dev, page, 0, buf->alloc_size,
				  DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
	if (dma_mapping_error(dev, addr))
		goto out_put_pages;
	if (addr != udmabuf_dma_reach(dev, page_to_phys(page),
				      buf->alloc_size)) {
		dma_unmap_page_attrs(dev, addr, buf->alloc_size,
				     DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
		goto out_put_pages;
	}

	buf->mem = UDMABUF_MEM_PAGE;
	buf->pages = page;
	buf->alloc_addr = addr;
	return 0;

out_put_pages:
	udmabuf_put_pages(page, nr);
	return -ENOMEM;
}

/* True if every page carries its own reference, as CMA's do. */
static bool udmabuf_pages_counted(struct udmabuf_buffer *buf)
{
	unsigned long i;

	for (i = 0; i < udmabuf_nr_pages(buf); i++) {
		if (!page_count(buf->pages + i))
			return false;
		if (!(i % SZ_4K))
			cond_resched();
	}
	return true;
}

/*
 * From the DMA API: CMA, the class device's region, or the page allocator.
 * Mapped by PFN whatever it is (see the top of this file): CMA's pages
 * cannot be pinned for good, the page allocator's are not counted one by
 * one.
 */
static int udmabuf_alloc_dma(struct udmabuf_buffer *buf)
{
	buf->pages = dma_alloc_pages(&buf->dev, buf->alloc_size,
				     &buf->alloc_addr, DMA_BIDIRECTIONAL,
				     GFP_KERNEL | __GFP_NOWARN);
	if (!buf->pages)
		return -ENOMEM;
	buf->mem = UDMABUF_MEM_CMA;
	buf->cma = udmabuf_pages_counted(buf);
	buf->page_backed = false;
	return 0;
}

/* The largest free block of the page allocator in zones the mask reaches. */
static unsigned long udmabuf_largest_free_block(struct udmabuf_buffer *buf)
{
	unsigned long largest = 0;
	int nid, z, order;

	for_each_online_node(nid) {
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (!populated_zone(zone) ||
			    udmabuf_dma_reach(&buf->dev,
					      PFN_PHYS(zone->zone_start_pfn),
					      PAGE_SIZE) == DMA_MAPPING_ERROR)
				continue;
			for (order = UDMABUF_MAX_ORDER; order >= 0; order--) {
				/* Unlocked: a hint for a log line. */
				if (data_race(zone->free_area[order].nr_free)) {
					largest = max(largest, PAGE_SIZE << order);
					break;
				}
			}
		}
	}
	return largest;
}

/* Say once in a while why a buffer could not be had, and what would help. */
static void udmabuf_alloc_failed(struct udmabuf_buffer *buf)
{
	unsigned long cma_free =
		global_zone_page_state(NR_FREE_CMA_PAGES) << (PAGE_SHIFT - 10);

	pr_info_ratelimited("%s: no %zu KiB of contiguous memory below %#llx: page allocator's largest free block %lu KiB, CMA %lu KiB free, largest free or movable range %lu KiB; try a smaller size, cma=SIZE at boot%s\n",
			    dev_name(&buf->dev), buf->alloc_size >> 10,
			    buf->dma_mask, udmabuf_largest_free_block(buf) >> 10,
			    cma_free, udmabuf_largest_range(buf) >> 10,
			    buf->dma_mask < DMA_BIT_MASK(64) ? " or dma_mask=64" : "");
}

/* A no-map region's own allocator; its kernel mapping is uncached. */
static int udmabuf_alloc_pool(struct udmabuf_buffer *buf)
{
	buf->vaddr = dma_alloc_coherent(&buf->dev, buf->alloc_size,
					&buf->alloc_addr,
					GFP_KERNEL | __GFP_NOWARN);
	if (!buf->vaddr)
		return -ENOMEM;
	buf->mem = UDMABUF_MEM_POOL;
	/* Such a region's "device address" is its CPU physical one. */
	buf->phys_addr = buf->alloc_addr;
	return 0;
}

static bool udmabuf_may_use(struct udmabuf_buffer *buf, enum udmabuf_mem mem)
{
	return buf->want == UDMABUF_MEM_NONE || buf->want == mem;
}

/*
 * A free or movable range, else CMA, one search at a time (see
 * udmabuf_contig_lock); -ENOMEM, with the log line, if neither can give it.
 */
static int udmabuf_alloc_range(struct udmabuf_buffer *buf)
{
	int ret = -ENOMEM;

	/* Memory the memory cgroup does not see: the dmem cgroup's. */
	if (buf->origin == UDMABUF_ORIGIN_PROCESS) {
		ret = udmabuf_dmem_charge(buf->alloc_size, &buf->dmem_pool);
		if (ret)
			return ret;
		ret = -ENOMEM;
	}
	if (mutex_lock_killable(&udmabuf_contig_lock)) {
		ret = -EINTR;
		goto out_uncharge;
	}
	if (!buf->rmem && udmabuf_may_use(buf, UDMABUF_MEM_CONTIG)) {
		ret = udmabuf_alloc_contig(buf);
		/* Held ranges are the root-made buffers' own: see the holds. */
		if (ret == -ENOMEM && buf->origin != UDMABUF_ORIGIN_PROCESS &&
		    udmabuf_unhold_all())
			ret = udmabuf_alloc_contig(buf);
	}
	if (ret == -ENOMEM && udmabuf_may_use(buf, UDMABUF_MEM_CMA))
		ret = udmabuf_alloc_dma(buf);
	if (ret == -ENOMEM)
		udmabuf_alloc_failed(buf);
	mutex_unlock(&udmabuf_contig_lock);
out_uncharge:
	if (ret) {
		udmabuf_dmem_uncharge(buf->dmem_pool, buf->alloc_size);
		buf->dmem_pool = NULL;
	}
	return ret;
}

/**
 * udmabuf_alloc - allocate the memory of a buffer
 * @buf: buffer with size set and its class device's DMA mask and
 *	memory-region set up (udmabuf_dma_setup())
 *
 * Allocations run at the same time; a search for a contiguous range
 * waits for another in progress (udmabuf_contig_lock).
 *
 * Return: 0, -ENOMEM, -EINTR if a fatal signal stopped the search or the
 * wait for it, -EINVAL if the allocator asked for cannot give such memory
 * (a placement, a device-tree region), or for a placement what
 * udmabuf_alloc_placed() says.
 */
int udmabuf_alloc(struct udmabuf_buffer *buf)
{
	int ret = -ENOMEM;

	buf->alloc_size = PAGE_ALIGN(buf->size);
	if (buf->pool)
		return udmabuf_alloc_pool(buf);

	/* A device-tree region is the only place such a buffer may be. */
	if (buf->rmem && buf->want != UDMABUF_MEM_NONE &&
	    buf->want != UDMABUF_MEM_CMA)
		return -EINVAL;
	if (buf->placed) {
		if (buf->want != UDMABUF_MEM_NONE &&
		    buf->want != UDMABUF_MEM_CONTIG)
			return -EINVAL;
		if (mutex_lock_killable(&udmabuf_contig_lock))
			return -EINTR;
		ret = udmabuf_alloc_placed(buf);
		mutex_unlock(&udmabuf_contig_lock);
		if (ret)
			return ret;
		goto out_clean;
	}
	if (!buf->rmem && udmabuf_may_use(buf, UDMABUF_MEM_PAGE) &&
	    get_order(buf->alloc_size) <= UDMABUF_MAX_ORDER) {
		ret = udmabuf_alloc_split(buf);
		if (ret == -EDQUOT) {
			pr_info_ratelimited("%s[%d]: process-scoped buffer of %zu bytes refused: over the memory cgroup's limit\n",
					    current->comm,
					    task_tgid_nr(current),
					    buf->alloc_size);
			return -ENOMEM;
		}
		if (!ret)
			buf->page_backed = true;
	}
	if (ret == -ENOMEM)
		ret = udmabuf_alloc_range(buf);
	if (ret)
		return ret;

out_clean:

	/*
	 * The memory is all in one zone: highmem (32-bit) has no kernel
	 * mapping to keep, read() and write() map it a page at a time.
	 */
	buf->vaddr = PageHighMem(buf->pages) ? NULL : page_address(buf->pages);
	buf->phys_addr = page_to_phys(buf->pages);
	udmabuf_clean(buf);
	return 0;
}

/* Whether page @i of the buffer has a user besides the buffer. */
static bool udmabuf_page_used(struct udmabuf_buffer *buf, unsigned long i)
{
	return page_ref_count(buf->pages + i) > 1;
}

/*
 * Count @buf's pages that have another user, and where they are:
 * [*@first, *@last].  For the log line and the leftovers.
 */
static unsigned long udmabuf_pages_used(struct udmabuf_buffer *buf,
					unsigned long *first,
					unsigned long *last)
{
	unsigned long i, used = 0;

	for (i = 0; i < udmabuf_nr_pages(buf); i++) {
		if (udmabuf_page_used(buf, i)) {
			if (!used++)
				*first = i;
			*last = i;
		}
		if (!((i + 1) % SZ_4K))
			cond_resched();
	}
	return used;
}

/* Give back the charge of @pages pages of a leftover or buffer. */
static void udmabuf_uncharge_pages(const struct cred *cred,
				   unsigned long pages)
{
	udmabuf_quota_uncharge(cred, (u64)pages << PAGE_SHIFT);
}

/* The last page of a leftover is gone: the rest of its charges go. */
static void udmabuf_leftover_done(struct udmabuf_leftover *lo)
{
	udmabuf_dmem_uncharge(lo->dmem_pool, lo->dmem_bytes);
	if (lo->cred)
		put_cred(lo->cred);
	kvfree(lo);
}

/*
 * Drop the buffer's reference on every leftover page that has no other
 * user, and the charge with it.  Return: the pages given back.
 */
static unsigned long udmabuf_leftovers_scan(void)
{
	struct udmabuf_leftover *lo, *tmp;
	unsigned long freed = 0, i, n;

	lockdep_assert_held(&udmabuf_leftover_lock);
	list_for_each_entry_safe(lo, tmp, &udmabuf_leftovers, node) {
		n = 0;
		for_each_set_bit(i, lo->map, lo->nr) {
			if (page_ref_count(lo->first + i) > 1)
				continue;
			clear_bit(i, lo->map);
			put_page(lo->first + i);
			n++;
		}
		cond_resched();
		if (!n)
			continue;
		lo->held -= n;
		udmabuf_leftover_pages -= n;
		udmabuf_uncharge_pages(lo->cred, n);
		freed += n;
		if (lo->held)
			continue;
		list_del(&lo->node);
		udmabuf_leftover_done(lo);
	}
	return freed;
}

/**
 * udmabuf_leftovers_reclaim - free leftover pages that have no user now
 *
 * Called before a new charge is decided and when process_used is read, so
 * that a charge lasts as long as its memory and no longer than that is
 * seen.
 */
void udmabuf_leftovers_reclaim(void)
{
	if (list_empty_careful(&udmabuf_leftovers))
		return;
	mutex_lock(&udmabuf_leftover_lock);
	udmabuf_leftovers_scan();
	mutex_unlock(&udmabuf_leftover_lock);
}

/*
 * The pages of a process-scoped buffer are going: those without another
 * user now, and their charge, go at once; the others stay ours, charged,
 * as a leftover.  Should the leftover's record not be had, every page is
 * put and the charge given back: the memory then outlives its charge,
 * rather than a page being leaked.
 */
static void udmabuf_put_charged(struct udmabuf_buffer *buf)
{
	unsigned long nr = udmabuf_nr_pages(buf), first = 0, last = 0, i;
	unsigned long used = udmabuf_pages_used(buf, &first, &last);
	struct udmabuf_leftover *lo = NULL;

	if (used) {
		lo = kvzalloc(struct_size(lo, map,
					  BITS_TO_LONGS(last - first + 1)),
			      GFP_KERNEL | __GFP_NOWARN);
		dev_info_ratelimited(&buf->dev, "memory still in use (pinned or in a pipe): freed when released\n");
	}
	if (!lo) {
		udmabuf_put_pages(buf->pages, nr);
		udmabuf_uncharge_pages(buf->charge_cred, nr);
		if (buf->charge_cred)
			put_cred(buf->charge_cred);
		return;
	}

	lo->first = buf->pages + first;
	lo->nr = last - first + 1;
	lo->cred = buf->charge_cred;
	lo->dmem_pool = buf->dmem_pool;
	lo->dmem_bytes = buf->alloc_size;
	buf->dmem_pool = NULL;
	/* A page whose other user left since it was counted goes now. */
	for (i = 0; i < lo->nr; i++) {
		if (udmabuf_page_used(buf, first + i)) {
			set_bit(i, lo->map);
			lo->held++;
		} else {
			put_page(lo->first + i);
		}
	}
	udmabuf_put_pages(buf->pages, first);
	udmabuf_put_pages(buf->pages + last + 1, nr - last - 1);
	udmabuf_uncharge_pages(lo->cred, nr - lo->held);
	/*
	 * Their other users all left while the record was made: nothing is
	 * left to hold, and a record without pages would never be scanned
	 * to its end (its charges with it).
	 */
	if (!lo->held) {
		udmabuf_leftover_done(lo);
		return;
	}

	mutex_lock(&udmabuf_leftover_lock);
	list_add_tail(&lo->node, &udmabuf_leftovers);
	udmabuf_leftover_pages += lo->held;
	mutex_unlock(&udmabuf_leftover_lock);
	/* A page may have lost its user while the record was made. */
	udmabuf_leftovers_reclaim();
}

/* The pages of a buffer, split or a contiguous range, are going. */
static void udmabuf_put_buffer_pages(struct udmabuf_buffer *buf)
{
	unsigned long nr = udmabuf_nr_pages(buf), first, last;

	if (buf->charged) {
		udmabuf_put_charged(buf);
		return;
	}
	/* Only a range nothing else uses can be held for placing again. */
	if (buf->mem == UDMABUF_MEM_CONTIG && buf->placed &&
	    !udmabuf_pages_used(buf, &first, &last) &&
	    udmabuf_hold(page_to_pfn(buf->pages), nr))
		return;
	if (udmabuf_pages_used(buf, &first, &last))
		dev_info_ratelimited(&buf->dev, "memory still in use (pinned or in a pipe): freed when released\n");
	udmabuf_put_pages(buf->pages, nr);
}

/**
 * udmabuf_free - free the memory of a buffer
 * @buf: buffer whose last reference is gone
 *
 * Each page is put: one with another user (a pipe after vmsplice, an
 * O_DIRECT transfer in flight, a long-term pin) is freed by its last user,
 * without this module.  A process-scoped buffer's charge lasts as long as
 * its pages (see the leftovers).
 */
void udmabuf_free(struct udmabuf_buffer *buf)
{
	switch (buf->mem) {
	case UDMABUF_MEM_PAGE:
	case UDMABUF_MEM_CONTIG:
		dma_unmap_page_attrs(&buf->dev, buf->alloc_addr,
				     buf->alloc_size, DMA_BIDIRECTIONAL,
				     DMA_ATTR_SKIP_CPU_SYNC);
		udmabuf_put_buffer_pages(buf);
		buf->charged = 0;
		break;
	case UDMABUF_MEM_CMA:
		dma_free_pages(&buf->dev, buf->alloc_size, buf->pages,
			       buf->alloc_addr, DMA_BIDIRECTIONAL);
		break;
	case UDMABUF_MEM_POOL:
		dma_free_coherent(&buf->dev, buf->alloc_size, buf->vaddr,
				  buf->alloc_addr);
		break;
	case UDMABUF_MEM_NONE:
		break;
	}
	/* CMA and pool memory have no page another user can keep. */
	if (buf->charged) {
		udmabuf_uncharge_pages(buf->charge_cred,
				       udmabuf_nr_pages(buf));
		if (buf->charge_cred)
			put_cred(buf->charge_cred);
	}
	/* Unless a leftover took it, the dmem charge goes with the memory. */
	udmabuf_dmem_uncharge(buf->dmem_pool, buf->alloc_size);
	buf->dmem_pool = NULL;
	buf->charged = 0;
	buf->charge_cred = NULL;
	buf->mem = UDMABUF_MEM_NONE;
	buf->pages = NULL;
	buf->vaddr = NULL;
}

/*
 * Memory pressure: leftovers whose other users have gone, then the
 * oldest held ranges.
 */
static unsigned long udmabuf_shrink_count(struct shrinker *shrinker,
					  struct shrink_control *sc)
{
	unsigned long n = udmabuf_held_pages() +
			  READ_ONCE(udmabuf_leftover_pages);

	return n ? n : SHRINK_EMPTY;
}

static unsigned long udmabuf_shrink_scan(struct shrinker *shrinker,
					 struct shrink_control *sc)
{
	unsigned long freed = 0;

	if (mutex_trylock(&udmabuf_leftover_lock)) {
		freed = udmabuf_leftovers_scan();
		mutex_unlock(&udmabuf_leftover_lock);
	}
	if (freed < sc->nr_to_scan)
		freed += udmabuf_unhold_oldest(sc->nr_to_scan - freed);
	return freed ? freed : SHRINK_STOP;
}

static struct shrinker *udmabuf_shrinker;

int udmabuf_memory_init(void)
{
	udmabuf_dmem_init();
	udmabuf_shrinker = udmabuf_shrinker_create("udmabuf-cfs",
						   udmabuf_shrink_count,
						   udmabuf_shrink_scan);
	if (IS_ERR(udmabuf_shrinker)) {
		udmabuf_dmem_exit();
		return PTR_ERR(udmabuf_shrinker);
	}
	return 0;
}

/* Which allocator the memory came from, for sysfs and configfs. */
const char *udmabuf_allocator(struct udmabuf_buffer *buf)
{
	switch (buf->mem) {
	case UDMABUF_MEM_PAGE:
		return "page";
	case UDMABUF_MEM_CMA:
		return buf->cma ? "cma" : "dma";
	case UDMABUF_MEM_CONTIG:
		return buf->placed ? "placed" : "contig";
	case UDMABUF_MEM_POOL:
		return "pool";
	case UDMABUF_MEM_NONE:
		break;
	}
	return "none";
}

/*
 * Module exit, every buffer gone: the holds go back, and the leftovers'
 * pages are put, to be freed by their last users.  Their charges go with
 * the module.
 */
void udmabuf_memory_exit(void)
{
	struct udmabuf_leftover *lo, *tmp;
	unsigned long i;

	udmabuf_shrinker_destroy(udmabuf_shrinker);
	udmabuf_contig_exit();
	list_for_each_entry_safe(lo, tmp, &udmabuf_leftovers, node) {
		list_del(&lo->node);
		for_each_set_bit(i, lo->map, lo->nr)
			put_page(lo->first + i);
		udmabuf_uncharge_pages(lo->cred, lo->held);
		udmabuf_leftover_done(lo);
	}
	udmabuf_leftover_pages = 0;
	udmabuf_dmem_exit();
}
