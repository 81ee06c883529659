// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: contiguous ranges beyond the page allocator's largest block,
 * and placement.  Built where the kernel has CONFIG_CONTIG_ALLOC.
 *
 * A range of free or movable pages is looked for zone by zone (never in
 * ZONE_MOVABLE, whose memory must be able to go offline, nor in a CMA area),
 * checked page frame by page frame (online, in the zone, not reserved,
 * within the DMA mask), and taken with alloc_contig_range(), which migrates
 * what is movable out of it.  Placement (a CPU physical address written to
 * phys_addr) takes exactly that range the same way.  Each page of a range
 * carries its own reference, so a range goes back page by page, as split
 * pages do (memory.c).  The caller runs one search or placement at a time
 * (memory.c's udmabuf_contig_lock).
 *
 * A freed placed range is held for placing again (the holds, below).
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "internal.h"

/*
 * Pieces of a contiguous range taken or given back at a time: 4 MiB, or
 * the allocator's granule where that is larger (512 MiB pageblocks with 64
 * KiB pages).  alloc_contig_range() clears what it takes (init_on_alloc)
 * without rescheduling: a piece is what one CPU may clear in one go, and
 * large enough that the number of calls does not cost time.
 */
#define UDMABUF_CONTIG_CHUNK	max_t(unsigned long, SZ_4M >> PAGE_SHIFT, \
				      UDMABUF_CONTIG_GRANULE)

/* Tries at a placed range that is busy, for what is busy only briefly. */
#define UDMABUF_PLACE_ATTEMPTS	4

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
 * pageblocks run short, and placing there again would most often fail with
 * EBUSY.  A user who reloads an FPGA design and
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
bool udmabuf_hold(unsigned long pfn, unsigned long nr)
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
unsigned long udmabuf_unhold_oldest(unsigned long want)
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
bool udmabuf_unhold_all(void)
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

unsigned long udmabuf_held_pages(void)
{
	return READ_ONCE(udmabuf_held);
}

/* Module exit: every hold goes back, none comes after. */
void udmabuf_contig_exit(void)
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
		 * the pieces before it, and most likely fail there again: in
		 * memory with many such pages a search must take no page
		 * twice, or one CPU clears pages for minutes.
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
int udmabuf_alloc_contig(struct udmabuf_buffer *buf)
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
unsigned long udmabuf_largest_range(struct udmabuf_buffer *buf)
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
int udmabuf_alloc_placed(struct udmabuf_buffer *buf)
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
		/* Refused for this device: the range stays held for another. */
		if (!udmabuf_hold(pfn, nr))
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
