// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: the sync checker.
 *
 * A program that shares a cached buffer with a DMA master on a
 * non-coherent SoC must hand each part of it to the device (sync for the
 * device) before the device reads it or writes it, and take it back (sync
 * for the CPU) before the CPU touches it again.  One that forgets works on
 * x86, in QEMU and in every test, and loses data on the board.  With
 * sync_check set, each page of the buffer is owned by the CPU or by the
 * device, as the DMA API's own debugging follows a driver's mappings:
 *
 * - a sync for the device gives its pages to the device, and takes the
 *   CPU's entries for them out of every mapping of the buffer
 *   (unmap_mapping_range() on the buffer's own address space, mmap.c).
 *   The pages change hands under sc_lock held for writing, and a fault
 *   checks its page and makes its entry under it held for reading: an
 *   entry made by a fault racing the sync is taken away with the others;
 * - a sync for the CPU (the ioctl, sysfs, a dma-buf importer's
 *   DMA_BUF_IOCTL_SYNC) gives them back; one over a page the device was
 *   never given is reported: the device may have read what the CPU left
 *   in its cache (the flush is missing).  A page may come back in parts
 *   (a completion per descriptor, ping-pong halves of one page), so a
 *   second bit per page says it was given and not yet wholly given back:
 *   a sync for the CPU of part of such a page is right, whoever owns it;
 * - a CPU access to a page the device owns, through any mapping (it
 *   faults, having no entry), read(), write() or get_user_pages() (which
 *   faults too), is reported: the sync for the CPU is missing.  With
 *   %UDMABUF_CFS_SYNC_CHECK_SIGBUS the faulting access gets SIGBUS, for a
 *   debugger; otherwise the fault is served and the program goes on.
 *
 * A report is a line in the kernel log, naming the buffer, the offset,
 * the process and what was missing, rate-limited per buffer (the kernel's
 * default: 10 in 5 s), and one more in sync_violations.  Ownership is per
 * page: a sync whose ends fall inside a page gives the whole page; one
 * whose ends fall inside a cache line is reported, since on a non-coherent
 * CPU the rest of the line is written back or thrown away with it.  A page
 * given back in parts stays "given" until a sync for the CPU covers it
 * whole or the checker is turned off, so a later sync for the CPU of it
 * with no sync for the device before goes unreported: two bits a page
 * cannot tell which parts came back, and a missed report is better than a
 * false one.  Only mappings the program asked to be cached are checked: an
 * uncached or write-combined mapping needs no sync, on any architecture.
 * A mapping's caching is what mmap() made it, whatever sync_mode says
 * later, and the checker judges it so (mmap.c).
 *
 * Off (the default), nothing of this runs: no bitmap, no entry is taken
 * away, mappings are made whole at mmap() as always.
 */

#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "internal.h"

/* The longest cache line of the CPUs shared with non-coherent DMA. */
#define UDMABUF_SC_LINE		64

/* Pages [first, last] of the byte range [offset, offset + size). */
static void udmabuf_sc_pages(u64 offset, u64 size, unsigned long *first,
			     unsigned long *last)
{
	*first = offset >> PAGE_SHIFT;
	*last = (offset + size - 1) >> PAGE_SHIFT;
}

/*
 * The pages given to the device and not yet wholly given back: a bitmap
 * after sc_device, in the same allocation (udmabuf_sc_set()).
 */
static unsigned long *udmabuf_sc_given(struct udmabuf_buffer *buf)
{
	return buf->sc_device + BITS_TO_LONGS(udmabuf_nr_pages(buf));
}

/*
 * Pages [first, end) that the byte range [offset, offset + size) of @buf
 * covers whole; the last page is whole up to the buffer's size, past
 * which nothing is synced.
 */
static void udmabuf_sc_whole(struct udmabuf_buffer *buf, u64 offset, u64 size,
			     unsigned long *first, unsigned long *end)
{
	*first = (offset + PAGE_SIZE - 1) >> PAGE_SHIFT;
	if (offset + size >= buf->size)
		*end = udmabuf_nr_pages(buf);
	else
		*end = (offset + size) >> PAGE_SHIFT;
}

/**
 * udmabuf_sc_report - one report of the sync checker
 * @buf: the buffer
 * @offset: where in it
 * @what: the access or the call ("CPU store through a mapping", ...)
 * @missing: what the program did not do
 */
void udmabuf_sc_report(struct udmabuf_buffer *buf, u64 offset,
		       const char *what, const char *missing)
{
	atomic64_inc(&buf->sync_violations);
	if (__ratelimit(&buf->sc_ratelimit))
		dev_notice(&buf->dev,
			   "sync check: %s at offset %#llx by %s[%d]: %s\n",
			   what, offset, current->comm, task_tgid_nr(current),
			   missing);
}

/**
 * udmabuf_sc_set - turn the sync checker on or off
 * @buf: the buffer
 * @mode: %UDMABUF_CFS_SYNC_CHECK_*
 *
 * The bitmaps are made the first time it is turned on and kept; turning
 * it off gives every page to the CPU and forgets what was given, and the
 * mappings fault their entries back in as they are touched.
 *
 * Return: 0, -ERANGE for a mode that does not exist, -ENOMEM.
 */
int udmabuf_sc_set(struct udmabuf_buffer *buf, unsigned int mode)
{
	unsigned long longs = BITS_TO_LONGS(udmabuf_nr_pages(buf));
	unsigned long *map;

	if (udmabuf_check_sync_check(mode))
		return -ERANGE;
	if (mode && !READ_ONCE(buf->sc_device)) {
		/*
		 * Both bitmaps in one allocation: sc_device, then
		 * udmabuf_sc_given()'s.  A large buffer's are larger than a
		 * page, and its size is the caller's: vmalloc space does when
		 * no contiguous memory is left, and a failure is ENOMEM,
		 * silent.
		 */
		map = kvcalloc(2 * longs, sizeof(*map),
			       GFP_KERNEL | __GFP_NOWARN);
		if (!map)
			return -ENOMEM;
		down_write(&buf->sc_lock);
		if (!buf->sc_device) {
			buf->sc_device = map;
			map = NULL;
		}
		up_write(&buf->sc_lock);
		kvfree(map);
	}
	down_write(&buf->sc_lock);
	if (!mode && buf->sc_device) {
		bitmap_zero(buf->sc_device, udmabuf_nr_pages(buf));
		bitmap_zero(udmabuf_sc_given(buf), udmabuf_nr_pages(buf));
	}
	/* Pairs with udmabuf_sc_on(): the bitmap is there before it is on. */
	smp_store_release(&buf->sync_check, mode);
	up_write(&buf->sc_lock);
	return 0;
}

/* The bitmaps go with the buffer. */
void udmabuf_sc_release(struct udmabuf_buffer *buf)
{
	kvfree(buf->sc_device);
	buf->sc_device = NULL;
}

/*
 * Whether the checker is on, read without the lock: the bitmap it then
 * reads was stored before (udmabuf_sc_set()'s release).
 */
static bool udmabuf_sc_on(struct udmabuf_buffer *buf)
{
	/* Pairs with udmabuf_sc_set()'s release. */
	return smp_load_acquire(&buf->sync_check);
}

/* Whether the checker is on and the device owns page @pgoff. */
static bool udmabuf_sc_device_owns(struct udmabuf_buffer *buf,
				   unsigned long pgoff)
{
	return udmabuf_sc_on(buf) && test_bit(pgoff, buf->sc_device);
}

/**
 * udmabuf_sc_for_device - a sync for the device over a range
 * @buf: the buffer
 * @offset: start of the range, inside the buffer
 * @size: its length, not 0, inside the buffer
 *
 * The range's pages are the device's, and given to it until a sync for
 * the CPU covers them whole; the CPU's entries for them go from every
 * mapping, so that the next CPU access faults and is seen.
 */
void udmabuf_sc_for_device(struct udmabuf_buffer *buf, u64 offset, u64 size)
{
	unsigned long first, last;

	if (!READ_ONCE(buf->sync_check))
		return;
	udmabuf_sc_pages(offset, size, &first, &last);
	down_write(&buf->sc_lock);
	if (buf->sync_check) {
		bitmap_set(buf->sc_device, first, last - first + 1);
		bitmap_set(udmabuf_sc_given(buf), first, last - first + 1);
	}
	up_write(&buf->sc_lock);
	udmabuf_unmap_range(buf, first, last - first + 1);
}

/**
 * udmabuf_sc_for_cpu - a sync for the CPU over a range
 * @buf: the buffer
 * @offset: start of the range, inside the buffer
 * @size: its length, not 0, inside the buffer
 * @given: the device must have been given the range before: a sync of
 *	the program's own; a dma-buf's begin_cpu_access() starts a CPU
 *	access from whatever state, as its importers use it
 *
 * Reports a range (the first page of it) the device was never given, and
 * ends that fall inside a cache line of a page the device owns; then the
 * range's pages are the CPU's, and those it covers whole are no longer
 * given.  The line is the architecture's DMA alignment, and at least
 * UDMABUF_SC_LINE: the checker stands in for the non-coherent SoCs on x86
 * too, whose DMA needs no alignment.
 */
void udmabuf_sc_for_cpu(struct udmabuf_buffer *buf, u64 offset, u64 size,
			bool given)
{
	unsigned long first, last, pg, whole, whole_end;
	unsigned long line = max_t(unsigned long, dma_get_cache_alignment(),
				   UDMABUF_SC_LINE);
	u64 end = offset + size, at = 0;
	bool never = false, split = false;

	if (!READ_ONCE(buf->sync_check))
		return;
	udmabuf_sc_pages(offset, size, &first, &last);
	udmabuf_sc_whole(buf, offset, size, &whole, &whole_end);
	down_write(&buf->sc_lock);
	if (!buf->sync_check) {
		up_write(&buf->sc_lock);
		return;
	}
	if (given) {
		/*
		 * A page the device owns was given too (for_device sets both
		 * bits, and the given bit goes only with the owned one): a
		 * page never given is one without its given bit.
		 */
		pg = find_next_zero_bit(udmabuf_sc_given(buf), last + 1,
					first);
		if (pg <= last) {
			never = true;
			at = max_t(u64, offset, (u64)pg << PAGE_SHIFT);
		}
	}
	if (line > 1 && !IS_ALIGNED(offset, line) &&
	    test_bit(first, buf->sc_device)) {
		split = true;
		at = offset;
	} else if (line > 1 && !IS_ALIGNED(end, line) && end < buf->size &&
		   test_bit(last, buf->sc_device)) {
		split = true;
		at = end;
	}
	bitmap_clear(buf->sc_device, first, last - first + 1);
	if (whole < whole_end)
		bitmap_clear(udmabuf_sc_given(buf), whole, whole_end - whole);
	up_write(&buf->sc_lock);

	if (split)
		udmabuf_sc_report(buf, at, "sync for the CPU",
				  "its range ends inside a cache line: round it to whole lines, or the rest of the line is lost");
	else if (never)
		udmabuf_sc_report(buf, at, "sync for the CPU",
				  "the device was never given this range: a sync for the device is missing before it");
}

/**
 * udmabuf_sc_cpu_access - a CPU access to part of a buffer
 * @buf: the buffer
 * @offset: start of the access
 * @size: its length, not 0
 * @what: the access, for the report ("CPU load through a mapping")
 *
 * Return: true if the device owns a page of it (reported).
 */
bool udmabuf_sc_cpu_access(struct udmabuf_buffer *buf, u64 offset, u64 size,
			   const char *what)
{
	unsigned long first, last, pg;

	if (!udmabuf_sc_on(buf))
		return false;
	udmabuf_sc_pages(offset, size, &first, &last);
	pg = find_next_bit(buf->sc_device, last + 1, first);
	if (pg > last)
		return false;
	udmabuf_sc_report(buf, max_t(u64, offset, (u64)pg << PAGE_SHIFT), what,
			  "the device owns it: a sync for the CPU is missing");
	return true;
}

/**
 * udmabuf_sc_fault - a fault of a mapping on page @pgoff
 * @buf: the buffer
 * @vmf: the fault
 * @cached: the program asked for the mapping to be cached, when mmap()
 *	made it
 *
 * Return: true if the access must get SIGBUS.
 */
bool udmabuf_sc_fault(struct udmabuf_buffer *buf, struct vm_fault *vmf,
		      bool cached)
{
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	const char *what;

	if (!cached || !udmabuf_sc_device_owns(buf, vmf->pgoff))
		return false;
	/* A fault that is not the program's own is get_user_pages()'s. */
	if (!(vmf->flags & FAULT_FLAG_USER))
		what = "get_user_pages() (O_DIRECT, vmsplice, a pin)";
	else
		what = write ? "CPU store through a mapping" :
			       "CPU load through a mapping";
	udmabuf_sc_cpu_access(buf, (u64)vmf->pgoff << PAGE_SHIFT, PAGE_SIZE,
			      what);
	return READ_ONCE(buf->sync_check) == UDMABUF_CFS_SYNC_CHECK_SIGBUS;
}
