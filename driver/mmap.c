// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: the CPU's mappings of a buffer.
 *
 * User space chooses the caching of its own mapping through sync_mode and
 * O_SYNC (udmabuf_cache_mode()).  Memory with struct pages is mapped as its
 * pages, all at mmap() time, so that get_user_pages() works on it; CMA's
 * memory is mapped by PFN (memory.c says why), a no-map region's as the
 * DMA API maps it.
 */

#include <linux/cc_platform.h>
#include <linux/dma-map-ops.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "internal.h"

/* mmap() inserts this many pages between checks for signals. */
#define UDMABUF_MAP_BATCH	512UL

/* "udmb": the magic of the buffers' pseudo file system. */
#define UDMABUF_FS_MAGIC	0x75646d62

/*
 * Every buffer has an inode of its own, from a pseudo file system of the
 * module's (as DRM's and dma-buf's), and every file of the buffer (an open
 * of /dev/<device>, a process-scoped buffer's file, a dma-buf) uses its
 * address space.  So every CPU mapping of the buffer, in any process, is
 * in that address space, and unmap_mapping_range() takes entries away
 * from all of them (the sync checker); a fault refills them.
 */
static int udmabuf_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, UDMABUF_FS_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type udmabuf_fs_type = {
	.name		= "udmabuf-cfs",
	.init_fs_context = udmabuf_fs_init_fs_context,
	.kill_sb	= kill_anon_super,
};

static struct vfsmount *udmabuf_mnt;

int udmabuf_mmap_init(void)
{
	udmabuf_mnt = kern_mount(&udmabuf_fs_type);
	return PTR_ERR_OR_ZERO(udmabuf_mnt);
}

/* Every buffer, and so every inode, is gone. */
void udmabuf_mmap_exit(void)
{
	kern_unmount(udmabuf_mnt);
}

int udmabuf_mapping_init(struct udmabuf_buffer *buf)
{
	struct inode *inode = alloc_anon_inode(udmabuf_mnt->mnt_sb);

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	buf->inode = inode;
	return 0;
}

void udmabuf_mapping_release(struct udmabuf_buffer *buf)
{
	if (buf->inode)
		iput(buf->inode);
	buf->inode = NULL;
}

/* Take the CPU's entries for pages [first, first + nr) out of every mapping. */
void udmabuf_unmap_range(struct udmabuf_buffer *buf, unsigned long first,
			 unsigned long nr)
{
	unmap_mapping_range(buf->inode->i_mapping, (loff_t)first << PAGE_SHIFT,
			    (loff_t)nr << PAGE_SHIFT, 1);
}

/* What sysfs cache_mode says, by enum udmabuf_cache. */
const char * const udmabuf_cache_names[] = {
	[UDMABUF_CACHE_CACHED]		= "cached",
	[UDMABUF_CACHE_UNCACHED]	= "uncached",
	[UDMABUF_CACHE_WRITE_COMBINE]	= "write-combine",
	[UDMABUF_CACHE_DMA_COHERENT]	= "dma-coherent",
};

/* The DMA device's coherency, which dma.c gave the class device too. */
bool udmabuf_coherent(struct udmabuf_buffer *buf)
{
	return dev_is_dma_coherent(&buf->dev);
}

/**
 * udmabuf_cache_mode - the CPU mapping a file gets
 * @buf: the buffer
 * @o_sync: the file was opened with O_SYNC (or O_DSYNC)
 *
 * Modes 4..7 behave as 0..3 with O_SYNC.  Without O_SYNC the mapping is
 * cached; with it, the low two bits choose.  On architectures that keep RAM
 * cached whatever is asked, the answer is always cached; on ARM "uncached"
 * RAM is Normal non-cacheable, that is write-combine.  Memory of a no-map
 * region is mapped as the DMA API maps it for the device, whatever is asked.
 */
enum udmabuf_cache udmabuf_cache_mode(struct udmabuf_buffer *buf, bool o_sync)
{
	unsigned int sync_mode = READ_ONCE(buf->sync_mode);
	enum udmabuf_cache cache;

	if (buf->pool)
		return udmabuf_coherent(buf) ? UDMABUF_CACHE_CACHED :
					       UDMABUF_CACHE_DMA_COHERENT;

	if (sync_mode & UDMABUF_CFS_SYNC_MODE_ALWAYS)
		o_sync = true;
	if (!o_sync || UDMABUF_RAM_ALWAYS_CACHED)
		return UDMABUF_CACHE_CACHED;
	cache = sync_mode & (UDMABUF_CFS_SYNC_MODE_ALWAYS - 1);
	if (cache == UDMABUF_CACHE_UNCACHED && UDMABUF_RAM_NEVER_DEVICE)
		return UDMABUF_CACHE_WRITE_COMBINE;
	return cache;
}

static pgprot_t udmabuf_pgprot(enum udmabuf_cache cache, pgprot_t prot)
{
	switch (cache) {
	case UDMABUF_CACHE_UNCACHED:
		return pgprot_noncached(prot);
	case UDMABUF_CACHE_WRITE_COMBINE:
		return pgprot_writecombine(prot);
	case UDMABUF_CACHE_DMA_COHERENT:
		return pgprot_dmacoherent(prot);
	case UDMABUF_CACHE_CACHED:
		break;
	}
	return prot;
}

/**
 * udmabuf_maps_cached - whether a file's mapping is cached as asked
 * @buf: the buffer
 * @o_sync: the file was opened with O_SYNC (or O_DSYNC)
 *
 * What the program asked for, whatever the architecture gives (x86 maps
 * RAM cached always): a program that asked for an uncached mapping needs
 * no sync on any machine, so the sync checker leaves its accesses alone.
 */
bool udmabuf_maps_cached(struct udmabuf_buffer *buf, bool o_sync)
{
	unsigned int sync_mode = READ_ONCE(buf->sync_mode);

	if (buf->pool)
		return false;
	if (sync_mode & UDMABUF_CFS_SYNC_MODE_ALWAYS)
		o_sync = true;
	return !o_sync || !(sync_mode & (UDMABUF_CFS_SYNC_MODE_ALWAYS - 1));
}

/*
 * Entries are made at mmap() time unless the sync checker is on; this
 * makes what is missing: a page of a mapping made with the checker on, or
 * one zapped since (madvise(MADV_DONTNEED), a sync for the device with
 * the checker on).  A page is inserted with its own count, memory without
 * pages by its frame.  @cached: the checker checks the mapping
 * (udmabuf_map_pages()).
 *
 * The entry is made here, not by the fault's caller, and under the
 * checker's lock held for reading: a sync for the device gives its pages
 * to the device under the lock held for writing and takes their entries
 * away after, so an entry made by a fault that saw its page still the
 * CPU's cannot outlive the handing over, and the next access faults and
 * is seen (synccheck.c).
 */
static vm_fault_t udmabuf_vm_fault(struct vm_fault *vmf, bool cached)
{
	struct vm_area_struct *vma = vmf->vma;
	struct udmabuf_buffer *buf = vma->vm_private_data;
	vm_fault_t ret;
	int err;

	if (vmf->pgoff >= udmabuf_nr_pages(buf))
		return VM_FAULT_SIGBUS;
	down_read(&buf->sc_lock);
	if (READ_ONCE(buf->sync_check) && udmabuf_sc_fault(buf, vmf, cached)) {
		ret = VM_FAULT_SIGBUS;
	} else if (!buf->page_backed) {
		ret = vmf_insert_pfn_prot(vma, vmf->address,
					  page_to_pfn(buf->pages) + vmf->pgoff,
					  vma->vm_page_prot);
	} else {
		/* -EBUSY: another thread's fault made the entry first. */
		err = vm_insert_page(vma, vmf->address,
				     buf->pages + vmf->pgoff);
		ret = err && err != -EBUSY ? vmf_error(err) : VM_FAULT_NOPAGE;
	}
	up_read(&buf->sc_lock);
	return ret;
}

/*
 * A mapping's caching is fixed when mmap() makes it, whatever sync_mode
 * says later, and so is whether the sync checker checks it: the VMA's
 * operations say which, and every copy of the VMA (fork(), mremap(), a
 * split) keeps them.
 */
static vm_fault_t udmabuf_vm_fault_cached(struct vm_fault *vmf)
{
	return udmabuf_vm_fault(vmf, true);
}

static vm_fault_t udmabuf_vm_fault_uncached(struct vm_fault *vmf)
{
	return udmabuf_vm_fault(vmf, false);
}

static const struct vm_operations_struct udmabuf_vm_ops_cached = {
	.fault	= udmabuf_vm_fault_cached,
};

static const struct vm_operations_struct udmabuf_vm_ops_uncached = {
	.fault	= udmabuf_vm_fault_uncached,
};

static int udmabuf_insert_pages(struct udmabuf_buffer *buf,
				struct vm_area_struct *vma)
{
	struct page *next = buf->pages + vma->vm_pgoff;
	unsigned long left = vma_pages(vma);
	unsigned long addr = vma->vm_start;
	struct page **batch;
	int ret = 0;

	batch = kmalloc_array(UDMABUF_MAP_BATCH, sizeof(*batch), GFP_KERNEL);
	if (!batch)
		return -ENOMEM;
	while (left && !ret) {
		unsigned long n = min_t(unsigned long, left, UDMABUF_MAP_BATCH);
		unsigned long i, not_done = n;

		for (i = 0; i < n; i++)
			batch[i] = next++;
		ret = vm_insert_pages(vma, addr, batch, &not_done);
		addr += (n - not_done) << PAGE_SHIFT;
		left -= n - not_done;
		if (!ret && fatal_signal_pending(current))
			ret = -EINTR;
		cond_resched();
	}
	kfree(batch);
	return ret;
}

/*
 * The protection the entries made at mmap() time are built from.  On cores
 * that do not set the dirty bit in hardware (ARMv8.0 such as Cortex-A53,
 * ARMv7) the first write to a clean entry is a permission fault, in which
 * the kernel marks the entry dirty and flushes its TLB entry: one fault per
 * page written.  Nothing tracks the dirtiness of this memory (it is never
 * written back, so the VMA does not want write notification), so the
 * entries of a writable shared mapping are made young and dirty at once,
 * as a write fault leaves them.  Only those state bits differ from
 * vm_page_prot: the memory type is the same.
 */
static pgprot_t udmabuf_insert_prot(struct udmabuf_buffer *buf,
				    struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_SHARED) || !(vma->vm_flags & VM_WRITE))
		return vma->vm_page_prot;
	return udmabuf_pgprot_mkdirty(page_to_pfn(buf->pages + vma->vm_pgoff),
				      vma->vm_page_prot);
}

/**
 * udmabuf_map_pages - map part of a buffer into a VMA
 * @buf: the buffer, which the VMA's file keeps alive
 * @vma: the VMA; @vma->vm_pgoff is the page of @buf at its start, and the
 *	whole VMA is inside @buf (checked by the caller)
 * @cache: the CPU mapping to give, chosen from the VMA's file and sync_mode
 *
 * The sync checker checks the mapping if it is cached and the program
 * asked for it to be (x86 gives a cached one whatever is asked): decided
 * now, as the mapping's caching is.
 *
 * The whole range is mapped at once: the memory is resident, so nothing is
 * left to fault in, and a writable mapping's entries are dirty already, so
 * that the first write to a page does not fault either.  Page-backed
 * memory is mapped as its pages, which get_user_pages() can take
 * (VM_MIXEDMAP, not VM_IO or VM_PFNMAP); the mapping cannot grow past the
 * buffer (mremap() fails with EFAULT).  With the sync checker on, nothing
 * is mapped now: each page comes in by a fault, which sees who owns it.
 *
 * Return: 0 or a negative errno.
 */
int udmabuf_map_pages(struct udmabuf_buffer *buf, struct vm_area_struct *vma,
		      enum udmabuf_cache cache)
{
	bool checked = READ_ONCE(buf->sync_check);
	bool o_sync = vma->vm_file && (vma->vm_file->f_flags & O_DSYNC);
	pgprot_t prot;
	int ret;

	vma->vm_page_prot = udmabuf_pgprot(cache, vma->vm_page_prot);
	if (cache == UDMABUF_CACHE_CACHED && udmabuf_maps_cached(buf, o_sync))
		vma->vm_ops = &udmabuf_vm_ops_cached;
	else
		vma->vm_ops = &udmabuf_vm_ops_uncached;
	vma->vm_private_data = buf;
	if (!buf->page_backed) {
		if (!checked)
			return remap_pfn_range(vma, vma->vm_start,
					       page_to_pfn(buf->pages) +
					       vma->vm_pgoff,
					       vma->vm_end - vma->vm_start,
					       vma->vm_page_prot);
		/* As remap_pfn_range() would make it, empty. */
		vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND |
			     VM_DONTDUMP);
		return 0;
	}

	/*
	 * VM_MIXEDMAP now, as vm_insert_pages() would set it: the pages of a
	 * mapping made empty are inserted by faults, and vm_insert_page()
	 * sets the flag only where mmap_lock is held for writing.
	 */
	vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND);
	if (checked)
		return 0;
	/*
	 * vm_insert_pages() builds the entries from vm_page_prot.  Nobody else
	 * sees the VMA before ->mmap() returns, and it gets its own
	 * protection back at once: later faults (after MADV_DONTNEED) make
	 * clean entries, as any fault does.
	 */
	prot = vma->vm_page_prot;
	vma->vm_page_prot = udmabuf_insert_prot(buf, vma);
	ret = udmabuf_insert_pages(buf, vma);
	vma->vm_page_prot = prot;
	return ret;
}

/**
 * udmabuf_mmap_buffer - mmap() of a buffer's file
 * @buf: the buffer, which the VMA's file keeps alive
 * @vma: the new VMA
 * @o_sync: the file was opened with O_SYNC (or O_DSYNC)
 *
 * Return: 0; -EINVAL for a private mapping or one outside the buffer;
 * -ENODEV where memory encryption would give user space ciphertext; or
 * what mapping the memory fails with.
 */
int udmabuf_mmap_buffer(struct udmabuf_buffer *buf, struct vm_area_struct *vma,
			bool o_sync)
{
	unsigned long pages = buf->alloc_size >> PAGE_SHIFT;

	/* A private copy would silently stop being the DMA memory. */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	/*
	 * With memory encryption (SME hosts, SEV and TDX guests) the DMA API
	 * may have decrypted the memory for the device, and whether it did
	 * depends on the device's mask; a user mapping with the default,
	 * encrypted protection would read ciphertext.  read() and write()
	 * go through the kernel's own mapping and stay right.
	 */
	if (cc_platform_has(CC_ATTR_MEM_ENCRYPT))
		return -ENODEV;
	if (vma->vm_pgoff >= pages || vma_pages(vma) > pages - vma->vm_pgoff)
		return -EINVAL;

	if (buf->pool)
		return dma_mmap_coherent(&buf->dev, vma, buf->vaddr,
					 buf->alloc_addr, buf->alloc_size);
	return udmabuf_map_pages(buf, vma, udmabuf_cache_mode(buf, o_sync));
}
