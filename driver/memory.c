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
#include <linux/sched/user.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "udmabuf-cfs.h"

/*
 * Pieces of a contiguous range taken or given back at a time: 4 MiB, or
 * the allocator's granule where that is larger (512 MiB pageblocks with 64
 * KiB pages).  alloc_contig_range() clears what it takes (init_on_alloc)
 * without rescheduling: a piece is what one CPU clears in one go.  Measured
 * (amd64 guest, 1 GiB): as fast as 64 MiB pieces, with 16 times as many
 * calls.
 */
#define UDMABUF_CONTIG_CHUNK	max_t(unsigned long, SZ_4M >> PAGE_SHIFT, \
				      UDMABUF_CONTIG_GRANULE)

/* Tries at a placed range that is busy, for what is busy only briefly. */
#define UDMABUF_PLACE_ATTEMPTS	4

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
	struct user_struct *user;	/* its RLIMIT_MEMLOCK charge, or NULL */
	struct page *first;
	unsigned long nr;
	unsigned long held;		/* bits set in @map */
	unsigned long map[];
};

/* udmabuf_leftovers and udmabuf_leftover_pages; no allocation under it. */
static DEFINE_MUTEX(udmabuf_leftover_lock);
static LIST_HEAD(udmabuf_leftovers);
static unsigned long udmabuf_leftover_pages;

static unsigned long udmabuf_nr_pages(struct udmabuf_buffer *buf)
{
	return buf->alloc_size >> PAGE_SHIFT;
}

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
 * Put pages [first, first + count): split pages and those of a contiguous
 * range alike, each carrying its own reference.  A page that still has a
 * user (a pipe, a pin) is freed by that user.
 */
static void udmabuf_put_pages(struct page *first, unsigned long count)
{
	unsigned long i;

	for (i = 0; i < count; i++) {
		put_page(first + i);
		if (!((i + 1) % SZ_4K))
			cond_resched();
	}
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

	buf->mem = UDMABUF_MEM_SPLIT;
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
	buf->mem = UDMABUF_MEM_DMA;
	buf->cma = udmabuf_pages_counted(buf);
	buf->page_backed = false;
	return 0;
}

#ifdef CONFIG_CONTIG_ALLOC
/*
 * A page alloc_contig_range() could neither take free nor migrate away: the
 * kernel's own (reserved, slab, page tables, another buffer's), or at
 * least one off the LRU lists.  Read
 * without the zone's lock, as a guess that saves a doomed attempt.
 */
static bool udmabuf_page_unmovable(struct page *page)
{
	if (PageReserved(page))
		return true;
	/* Free, in the buddy lists or a per-CPU list. */
	if (PageBuddy(page) || !page_count(page))
		return false;
	/* Movable pages off the LRU (zsmalloc, balloons) are rare: skipped. */
	return !PageLRU(page);
}

/*
 * How many frames from @pfn on are known alike to @page's: a free block of
 * the buddy allocator counts whole, as compaction skips it.  Its order is
 * read without the zone's lock and may be stale by then; an order that
 * does not fit @pfn's alignment is not trusted.
 */
static unsigned long udmabuf_page_span(struct page *page, unsigned long pfn)
{
	unsigned long order;

	if (!PageBuddy(page))
		return 1;
	/* Racy by design, as compaction's own read: checked below. */
	order = data_race(page_private(page));
	if (order > UDMABUF_MAX_ORDER || !IS_ALIGNED(pfn, 1UL << order))
		return 1;
	return 1UL << order;
}

/*
 * Whether the contiguous-range allocator may take pages of @zone for good.
 * Not ZONE_MOVABLE's: the kernel keeps that zone's pages movable so that
 * its memory can go offline (movablecore=, movable_node, virtio-mem,
 * memory onlined movable), and a buffer there would make that fail.  The
 * kernel's own alloc_contig_pages() never reaches it either: it walks the
 * zones a GFP_KERNEL mask allows.
 */
static bool udmabuf_zone_for_contig(struct zone *zone)
{
	return populated_zone(zone) && !zone_is_zone_device(zone) &&
	       zone_idx(zone) != ZONE_MOVABLE;
}

/*
 * Whether every page frame of [pfn, pfn + nr) is online RAM of @zone that
 * the page allocator manages and could give up; if not, *@bad is the first
 * one that is not.
 */
static bool udmabuf_range_in_zone(struct zone *zone, unsigned long pfn,
				  unsigned long nr, unsigned long *bad)
{
	unsigned long end = pfn + nr, seen = 0;

	while (pfn < end) {
		struct page *page = pfn_to_online_page(pfn);

		if (!page || page_zone(page) != zone ||
		    udmabuf_page_unmovable(page)) {
			*bad = pfn;
			return false;
		}
		pfn += udmabuf_page_span(page, pfn);
		if (!(++seen % SZ_4K))
			cond_resched();
	}
	return true;
}

/* Give back a range that is ours alone, page by page. */
static void udmabuf_free_range(unsigned long pfn, unsigned long nr)
{
	udmabuf_put_pages(pfn_to_page(pfn), nr);
}

/*
 * A placed range is held for a while after its buffer is freed: given back
 * to the page allocator at once, it is the largest free block of its zone,
 * which is where the kernel's next unmovable allocations go when their own
 * pageblocks run short (measured: a 16 MiB range placed again at once was
 * refused in 19 of 20 cycles).  A user who reloads an FPGA design and
 * places its buffer again gets the range back from the hold.  It goes back
 * to the page allocator after place_hold seconds, under memory pressure
 * (the shrinker), when a buffer that is not process-scoped finds no
 * contiguous memory (the holds are of such buffers: an unprivileged
 * program's allocation does not take them away), and at unload.  Only a
 * range that no page of has another user is held.
 */
struct udmabuf_hold {
	struct list_head node;
	unsigned long pfn;
	unsigned long nr;
	unsigned long expires;	/* jiffies */
};

static LIST_HEAD(udmabuf_holds);
/*
 * The list of holds and the pages they have.  A spinlock: the shrinker
 * takes it in reclaim; nothing is allocated or freed under it.
 */
static DEFINE_SPINLOCK(udmabuf_hold_lock);
static unsigned long udmabuf_held;
static void udmabuf_hold_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(udmabuf_hold_dwork, udmabuf_hold_work);

static unsigned int udmabuf_place_hold = 30;
module_param_named(place_hold, udmabuf_place_hold, uint, 0644);
MODULE_PARM_DESC(place_hold,
		 "Seconds a placed buffer's range is kept for placing again after it is freed (0: give it back at once)");

static int udmabuf_place_held_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%llu\n",
			  (u64)READ_ONCE(udmabuf_held) << PAGE_SHIFT);
}

static const struct kernel_param_ops udmabuf_place_held_ops = {
	.get	= udmabuf_place_held_get,
};
module_param_cb(place_held, &udmabuf_place_held_ops, NULL, 0444);
MODULE_PARM_DESC(place_held,
		 "Bytes of freed placed buffers held for placing again (read-only)");

/* Give back the holds on @list (taken off udmabuf_holds). */
static void udmabuf_holds_free(struct list_head *list)
{
	struct udmabuf_hold *hold, *tmp;

	list_for_each_entry_safe(hold, tmp, list, node) {
		list_del(&hold->node);
		udmabuf_free_range(hold->pfn, hold->nr);
		kfree(hold);
	}
}

static void udmabuf_hold_work(struct work_struct *work)
{
	struct udmabuf_hold *hold, *tmp;
	unsigned long next = 0;
	bool more = false;
	LIST_HEAD(expired);

	spin_lock(&udmabuf_hold_lock);
	list_for_each_entry_safe(hold, tmp, &udmabuf_holds, node) {
		if (time_after_eq(jiffies, hold->expires)) {
			list_move(&hold->node, &expired);
			udmabuf_held -= hold->nr;
		} else if (!more || time_before(hold->expires, next)) {
			next = hold->expires;
			more = true;
		}
	}
	spin_unlock(&udmabuf_hold_lock);
	if (more)
		schedule_delayed_work(&udmabuf_hold_dwork, next - jiffies);
	udmabuf_holds_free(&expired);
}

/* Keep a freed placed range for placing again; false to free it now. */
static bool udmabuf_hold(unsigned long pfn, unsigned long nr)
{
	unsigned int secs = READ_ONCE(udmabuf_place_hold);
	struct udmabuf_hold *hold;

	if (!secs)
		return false;
	hold = kmalloc(sizeof(*hold), GFP_KERNEL);
	if (!hold)
		return false;
	hold->pfn = pfn;
	hold->nr = nr;
	hold->expires = jiffies + (unsigned long)secs * HZ;
	spin_lock(&udmabuf_hold_lock);
	list_add_tail(&hold->node, &udmabuf_holds);
	udmabuf_held += nr;
	spin_unlock(&udmabuf_hold_lock);
	/* Already pending: it runs for an earlier hold and re-arms. */
	schedule_delayed_work(&udmabuf_hold_dwork, (unsigned long)secs * HZ);
	return true;
}

/*
 * Take [pfn, pfn + nr) from the holds: true if one held it all (it is ours
 * now, what the hold had besides is given back).  A hold that has only part
 * of it is given back, so that the range can be taken as any other.
 */
static bool udmabuf_unhold(unsigned long pfn, unsigned long nr)
{
	unsigned long end = pfn + nr;
	struct udmabuf_hold *hold, *tmp, *found = NULL;
	LIST_HEAD(release);

	spin_lock(&udmabuf_hold_lock);
	list_for_each_entry_safe(hold, tmp, &udmabuf_holds, node) {
		if (hold->pfn >= end || hold->pfn + hold->nr <= pfn)
			continue;
		udmabuf_held -= hold->nr;
		if (hold->pfn <= pfn && hold->pfn + hold->nr >= end) {
			list_del(&hold->node);
			found = hold;
		} else {
			list_move(&hold->node, &release);
		}
	}
	spin_unlock(&udmabuf_hold_lock);
	udmabuf_holds_free(&release);
	if (!found)
		return false;
	if (found->pfn < pfn)
		udmabuf_free_range(found->pfn, pfn - found->pfn);
	if (found->pfn + found->nr > end)
		udmabuf_free_range(end, found->pfn + found->nr - end);
	kfree(found);
	return true;
}

/*
 * Give back the oldest holds, at least @want pages if there are as many;
 * what was given back, in pages.
 */
static unsigned long udmabuf_unhold_oldest(unsigned long want)
{
	struct udmabuf_hold *hold, *tmp;
	unsigned long got = 0;
	LIST_HEAD(release);

	spin_lock(&udmabuf_hold_lock);
	list_for_each_entry_safe(hold, tmp, &udmabuf_holds, node) {
		if (got >= want)
			break;
		list_move_tail(&hold->node, &release);
		udmabuf_held -= hold->nr;
		got += hold->nr;
	}
	spin_unlock(&udmabuf_hold_lock);
	udmabuf_holds_free(&release);
	return got;
}

/* Give every hold back now; false if there was none. */
static bool udmabuf_unhold_all(void)
{
	LIST_HEAD(release);

	spin_lock(&udmabuf_hold_lock);
	list_splice_init(&udmabuf_holds, &release);
	udmabuf_held = 0;
	spin_unlock(&udmabuf_hold_lock);
	if (list_empty(&release))
		return false;
	udmabuf_holds_free(&release);
	return true;
}

static unsigned long udmabuf_held_pages(void)
{
	return READ_ONCE(udmabuf_held);
}

/* Module exit: every hold goes back, none comes after. */
static void udmabuf_holds_exit(void)
{
	cancel_delayed_work_sync(&udmabuf_hold_dwork);
	udmabuf_unhold_all();
}

/* The range is ours: clear it, and map it for the class device's syncs. */
static int udmabuf_contig_taken(struct udmabuf_buffer *buf, unsigned long pfn)
{
	unsigned long nr = udmabuf_nr_pages(buf), i;
	struct device *dev = &buf->dev;
	struct page *page = pfn_to_page(pfn);
	dma_addr_t addr;

	for (i = 0; i < nr; i++) {
		clear_highpage(page + i);
		if (!(i % SZ_4K))
			cond_resched();
	}
	addr = dma_map_page_attrs(dev, page, 0, buf->alloc_size,
				  DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
	if (dma_mapping_error(dev, addr)) {
		udmabuf_free_range(pfn, nr);
		return -ENOMEM;
	}
	buf->mem = UDMABUF_MEM_CONTIG;
	buf->pages = page;
	buf->alloc_addr = addr;
	buf->page_backed = true;
	return 0;
}

/*
 * Take a range in adjacent pieces: alloc_contig_range() clears what it
 * takes (init_on_alloc) without rescheduling, which for gigabytes means
 * seconds on one CPU.  Nothing is kept if a piece cannot be had; then
 * *@failed is where that piece ended.
 */
static int udmabuf_take_range(unsigned long pfn, unsigned long nr,
			      unsigned long *failed)
{
	unsigned long done = 0, n = 0;
	int ret = 0;

	while (done < nr) {
		/*
		 * Pieces end on multiples of the chunk, which are aligned
		 * to the allocator's granule whatever @pfn is.
		 */
		n = min_t(unsigned long, nr - done,
			  ALIGN(pfn + done + 1, UDMABUF_CONTIG_CHUNK) -
			  (pfn + done));
		ret = alloc_contig_range(pfn + done, pfn + done + n,
					 ACR_FLAGS_NONE,
					 GFP_KERNEL | __GFP_NOWARN);
		if (ret)
			break;
		done += n;
		cond_resched();
	}
	if (ret) {
		udmabuf_free_range(pfn, done);
		*failed = pfn + done + n;
	}
	return ret;
}

/* Look for a free or movable range in @zone within the class device's reach. */
static int udmabuf_contig_zone(struct udmabuf_buffer *buf, struct zone *zone)
{
	unsigned long nr = udmabuf_nr_pages(buf);
	unsigned long align = max_t(unsigned long, UDMABUF_CONTIG_GRANULE, 1);
	unsigned long pfn = ALIGN(zone->zone_start_pfn, align), bad;
	int ret;

	while (pfn + nr <= zone_end_pfn(zone)) {
		if (udmabuf_dma_reach(&buf->dev, PFN_PHYS(pfn),
				      buf->alloc_size) == DMA_MAPPING_ERROR)
			break;
		if (!udmabuf_range_in_zone(zone, pfn, nr, &bad)) {
			pfn = ALIGN(bad + 1, align);
			continue;
		}
		ret = udmabuf_take_range(pfn, nr, &bad);
		if (!ret)
			return udmabuf_contig_taken(buf, pfn);
		if (ret == -EINTR || fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
		/*
		 * Somewhere in the piece that failed a page would not move
		 * (pinned, in a pipe, under writeback): go on past that piece.
		 * A window starting before its end would take and clear again
		 * the pieces before it, and most likely fail there again: with
		 * windows a sixteenth of the size apart, a search through
		 * memory that 500 tests had scattered kept one CPU clearing
		 * pages for minutes (a soft lockup in an amd64 guest).
		 */
		pfn = ALIGN(bad, align);
	}
	return -ENOMEM;
}

/*
 * A free or movable range anywhere the class device reaches; the highest
 * zones first, as the page allocator falls back, to spare the low ones for
 * devices with narrow masks.
 */
static int udmabuf_alloc_contig(struct udmabuf_buffer *buf)
{
	int nid, z, ret;

	for_each_online_node(nid) {
		for (z = MAX_NR_ZONES - 1; z >= 0; z--) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (!udmabuf_zone_for_contig(zone))
				continue;
			ret = udmabuf_contig_zone(buf, zone);
			if (ret != -ENOMEM)
				return ret;
		}
	}
	return -ENOMEM;
}

/*
 * Where the frames of @zone from @pfn on stop being within the class
 * device's reach, pageblock by pageblock: the first pageblock it does not
 * reach, or the zone's end.
 */
static unsigned long udmabuf_reach_end(struct udmabuf_buffer *buf,
				       struct zone *zone, unsigned long pfn,
				       unsigned long align)
{
	unsigned long end = zone_end_pfn(zone);

	for (; pfn < end; pfn += align)
		if (udmabuf_dma_reach(&buf->dev, PFN_PHYS(pfn),
				      PAGE_SIZE) == DMA_MAPPING_ERROR)
			return pfn;
	return end;
}

/*
 * The longest run the contiguous-range allocator could try, in any zone:
 * what a failed allocation's log line reports as the most it could offer.
 * Runs start at pageblocks, as the allocator's candidates do.  Read
 * without locks, a page in such a run may still refuse to move, and a
 * CMA area's free pages count (modules cannot tell a pageblock's type):
 * a hint.
 */
static unsigned long udmabuf_largest_range(struct udmabuf_buffer *buf)
{
	unsigned long align = max_t(unsigned long, UDMABUF_CONTIG_GRANULE, 1);
	unsigned long largest = 0, pfn, limit, bad;
	int nid, z;

	for_each_online_node(nid) {
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (!udmabuf_zone_for_contig(zone))
				continue;
			pfn = ALIGN(zone->zone_start_pfn, align);
			limit = udmabuf_reach_end(buf, zone, pfn, align);
			while (pfn < limit) {
				if (udmabuf_range_in_zone(zone, pfn, limit - pfn,
							  &bad)) {
					largest = max(largest, limit - pfn);
					break;
				}
				largest = max(largest, bad - pfn);
				pfn = ALIGN(bad + 1, align);
			}
		}
	}
	return largest << PAGE_SHIFT;
}

/*
 * Exactly the range at buf->place: -ERANGE where it is not RAM or not
 * within reach of the mask, -EINVAL where the class device would see it at
 * another address, -EBUSY where it is in use (another buffer, the kernel's
 * own memory, pages that cannot be migrated, a CMA area).
 */
static int udmabuf_alloc_placed(struct udmabuf_buffer *buf)
{
	unsigned long pfn = PHYS_PFN(buf->place), nr = udmabuf_nr_pages(buf);
	struct page *page = pfn_to_online_page(pfn);
	unsigned long bad;
	dma_addr_t addr;
	int attempt, ret;

	if (udmabuf_unhold(pfn, nr)) {
		addr = udmabuf_dma_reach(&buf->dev, buf->place, buf->alloc_size);
		if (addr == buf->place)
			return udmabuf_contig_taken(buf, pfn);
		udmabuf_free_range(pfn, nr);
		return addr == DMA_MAPPING_ERROR ? -ERANGE : -EINVAL;
	}
	if (!page || !udmabuf_range_in_zone(page_zone(page), pfn, nr, &bad))
		return page && pfn_to_online_page(bad) ? -EBUSY : -ERANGE;
	if (!udmabuf_zone_for_contig(page_zone(page)))
		return -EBUSY;
	addr = udmabuf_dma_reach(&buf->dev, buf->place, buf->alloc_size);
	if (addr == DMA_MAPPING_ERROR)
		return -ERANGE;
	if (addr != buf->place)
		return -EINVAL;

	/*
	 * A page that was just freed or is being migrated can make one
	 * attempt fail; the kernel's CMA allocator moves on to another range
	 * then, but this range is the only one wanted.
	 */
	for (attempt = 1; attempt <= UDMABUF_PLACE_ATTEMPTS; attempt++) {
		ret = udmabuf_take_range(pfn, nr, &bad);
		if (ret != -EBUSY || fatal_signal_pending(current))
			break;
		msleep(20 * attempt);
	}
	if (ret)
		return ret == -EINTR || ret == -ENOMEM ? ret : -EBUSY;
	return udmabuf_contig_taken(buf, pfn);
}
#else
static int udmabuf_alloc_contig(struct udmabuf_buffer *buf)
{
	return -ENOMEM;
}

static int udmabuf_alloc_placed(struct udmabuf_buffer *buf)
{
	return -EINVAL;
}

static unsigned long udmabuf_largest_range(struct udmabuf_buffer *buf)
{
	return 0;
}

static bool udmabuf_unhold_all(void)
{
	return false;
}

static unsigned long udmabuf_unhold_oldest(unsigned long want)
{
	return 0;
}

static unsigned long udmabuf_held_pages(void)
{
	return 0;
}

static void udmabuf_holds_exit(void)
{
}
#endif

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

	if (mutex_lock_killable(&udmabuf_contig_lock))
		return -EINTR;
	if (!buf->rmem && udmabuf_may_use(buf, UDMABUF_MEM_CONTIG)) {
		ret = udmabuf_alloc_contig(buf);
		/* Held ranges are the root-made buffers' own: see the holds. */
		if (ret == -ENOMEM && buf->origin != UDMABUF_ORIGIN_PROCESS &&
		    udmabuf_unhold_all())
			ret = udmabuf_alloc_contig(buf);
	}
	if (ret == -ENOMEM && udmabuf_may_use(buf, UDMABUF_MEM_DMA))
		ret = udmabuf_alloc_dma(buf);
	if (ret == -ENOMEM)
		udmabuf_alloc_failed(buf);
	mutex_unlock(&udmabuf_contig_lock);
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
	    buf->want != UDMABUF_MEM_DMA)
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
	if (!buf->rmem && udmabuf_may_use(buf, UDMABUF_MEM_SPLIT) &&
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
static void udmabuf_uncharge_pages(struct user_struct *user,
				   unsigned long pages)
{
	udmabuf_process_uncharge(user, (u64)pages << PAGE_SHIFT);
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
		udmabuf_uncharge_pages(lo->user, n);
		freed += n;
		if (lo->held)
			continue;
		list_del(&lo->node);
		if (lo->user)
			free_uid(lo->user);
		kvfree(lo);
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
		udmabuf_uncharge_pages(buf->charge_user, nr);
		if (buf->charge_user)
			free_uid(buf->charge_user);
		return;
	}

	lo->first = buf->pages + first;
	lo->nr = last - first + 1;
	lo->user = buf->charge_user;
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
	udmabuf_uncharge_pages(lo->user, nr - lo->held);

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
#ifdef CONFIG_CONTIG_ALLOC
	/* Only a range nothing else uses can be held for placing again. */
	if (buf->mem == UDMABUF_MEM_CONTIG && buf->placed &&
	    !udmabuf_pages_used(buf, &first, &last) &&
	    udmabuf_hold(page_to_pfn(buf->pages), nr))
		return;
#endif
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
 * its pages (see the leftovers).  Then udmabuf_buffer_done() finishes the
 * buffer.
 */
void udmabuf_free(struct udmabuf_buffer *buf)
{
	switch (buf->mem) {
	case UDMABUF_MEM_SPLIT:
	case UDMABUF_MEM_CONTIG:
		dma_unmap_page_attrs(&buf->dev, buf->alloc_addr,
				     buf->alloc_size, DMA_BIDIRECTIONAL,
				     DMA_ATTR_SKIP_CPU_SYNC);
		udmabuf_put_buffer_pages(buf);
		buf->charged = 0;
		break;
	case UDMABUF_MEM_DMA:
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
		udmabuf_uncharge_pages(buf->charge_user,
				       udmabuf_nr_pages(buf));
		if (buf->charge_user)
			free_uid(buf->charge_user);
	}
	buf->charged = 0;
	buf->charge_user = NULL;
	buf->mem = UDMABUF_MEM_NONE;
	buf->pages = NULL;
	buf->vaddr = NULL;
	udmabuf_buffer_done(buf);
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
	udmabuf_shrinker = udmabuf_shrinker_create("udmabuf-cfs",
						   udmabuf_shrink_count,
						   udmabuf_shrink_scan);
	return PTR_ERR_OR_ZERO(udmabuf_shrinker);
}

/* Which allocator the memory came from, for sysfs and configfs. */
const char *udmabuf_allocator(struct udmabuf_buffer *buf)
{
	switch (buf->mem) {
	case UDMABUF_MEM_SPLIT:
		return "page";
	case UDMABUF_MEM_DMA:
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

/* The allocators one may ask for, by their configfs allocator names. */
static const char *const udmabuf_mem_names[] = {
	[UDMABUF_MEM_SPLIT]	= "page",
	[UDMABUF_MEM_CONTIG]	= "contig",
	[UDMABUF_MEM_DMA]	= "cma",
};

/* The name of an allocator asked for; "" for the default order. */
const char *udmabuf_mem_name(enum udmabuf_mem mem)
{
	if (mem < ARRAY_SIZE(udmabuf_mem_names) && udmabuf_mem_names[mem])
		return udmabuf_mem_names[mem];
	return "";
}

/*
 * An allocator asked for by name: "page", "contig" or "cma"; "auto" or an
 * empty line for the default order.  Return: 0 or -EINVAL.
 */
int udmabuf_mem_parse(const char *name, enum udmabuf_mem *mem)
{
	unsigned int i;

	if (sysfs_streq(name, "") || sysfs_streq(name, "auto")) {
		*mem = UDMABUF_MEM_NONE;
		return 0;
	}
	/* Not sysfs_match_string(): it stops at the first hole. */
	for (i = 0; i < ARRAY_SIZE(udmabuf_mem_names); i++) {
		if (udmabuf_mem_names[i] && sysfs_streq(name, udmabuf_mem_names[i])) {
			*mem = i;
			return 0;
		}
	}
	return -EINVAL;
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
	udmabuf_holds_exit();
	list_for_each_entry_safe(lo, tmp, &udmabuf_leftovers, node) {
		list_del(&lo->node);
		for_each_set_bit(i, lo->map, lo->nr)
			put_page(lo->first + i);
		udmabuf_uncharge_pages(lo->user, lo->held);
		if (lo->user)
			free_uid(lo->user);
		kvfree(lo);
	}
	udmabuf_leftover_pages = 0;
}
