// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: the character device of a buffer.
 *
 * The memory (memory.c) is physically contiguous, cacheable, in the linear
 * map or (32-bit) in highmem, and mapped for DMA_BIDIRECTIONAL.  The DMA
 * device's view of it, and the syncs, are dma.c's:
 * dma_sync_single_for_{cpu,device}() are valid on any part of it while that
 * device has it mapped.  User space
 * chooses the caching of its own mapping through sync_mode and O_SYNC.
 */

#include <linux/cc_platform.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/udmabuf-cfs.h>

#include "udmabuf-cfs.h"

/* read() and write() copy this much between checks for signals. */
#define UDMABUF_COPY_CHUNK	SZ_1M
/* mmap() inserts this many pages between checks for signals. */
#define UDMABUF_MAP_BATCH	512UL

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

	if (sync_mode & UDMABUF_SYNC_ALWAYS)
		o_sync = true;
	if (!o_sync || UDMABUF_RAM_ALWAYS_CACHED)
		return UDMABUF_CACHE_CACHED;
	cache = sync_mode & (UDMABUF_SYNC_ALWAYS - 1);
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

static bool udmabuf_file_o_sync(struct file *file)
{
	return file->f_flags & O_DSYNC;
}

/*
 * read() and write() through an O_SYNC file (or with sync_mode 4..7) keep
 * the device's view current: the copy is bracketed by cache maintenance,
 * as if the kernel were a DMA master sharing the buffer.
 */
static bool udmabuf_file_syncs(struct udmabuf_buffer *buf, struct file *file)
{
	if (buf->pool)
		return false;
	return udmabuf_file_o_sync(file) ||
	       (READ_ONCE(buf->sync_mode) & UDMABUF_SYNC_ALWAYS);
}

static enum dma_data_direction udmabuf_dma_dir(unsigned int direction)
{
	switch (direction) {
	case UDMABUF_CFS_DIR_TO_DEVICE:
		return DMA_TO_DEVICE;
	case UDMABUF_CFS_DIR_FROM_DEVICE:
		return DMA_FROM_DEVICE;
	default:
		return DMA_BIDIRECTIONAL;
	}
}

static int __udmabuf_sync(struct udmabuf_buffer *buf, bool for_cpu,
			  u64 offset, u64 size, unsigned int direction)
{
	int ret;

	ret = udmabuf_dma_sync(buf, for_cpu, offset, size,
			       udmabuf_dma_dir(direction));
	if (!ret)
		WRITE_ONCE(buf->sync_owner, !for_cpu);
	return ret;
}

/**
 * udmabuf_sync - cache maintenance on part of a buffer
 * @buf: the buffer
 * @for_cpu: give the range to the CPU (true) or to the device (false)
 * @offset: start of the range
 * @size: length of the range; 0 means up to the end of the buffer
 * @direction: UDMABUF_CFS_DIR_* of the DMA transfer
 *
 * Return: 0, -EINVAL for a bad direction or a range outside the buffer, or
 * -ENODEV if the bound DMA device has gone away.
 */
int udmabuf_sync(struct udmabuf_buffer *buf, bool for_cpu, u64 offset,
		 u64 size, unsigned int direction)
{
	dma_addr_t addr;
	int ret;

	if (direction > UDMABUF_CFS_DIR_FROM_DEVICE)
		return -EINVAL;
	if (offset >= buf->size)
		return -EINVAL;
	if (!size)
		size = buf->size - offset;
	if (size > buf->size - offset)
		return -EINVAL;

	if (!buf->pool)
		return __udmabuf_sync(buf, for_cpu, offset, size, direction);

	/* No cacheable alias: nothing to maintain, but the device must be. */
	ret = udmabuf_dma_addr(buf, &addr);
	if (!ret)
		WRITE_ONCE(buf->sync_owner, !for_cpu);
	return ret;
}

static int udmabuf_open(struct inode *inode, struct file *file)
{
	struct udmabuf_buffer *buf = udmabuf_get(iminor(inode));

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	file->private_data = buf;
	return 0;
}

static int udmabuf_release_file(struct inode *inode, struct file *file)
{
	udmabuf_put(file->private_data);
	return 0;
}

/*
 * Copy @n bytes at @pos between the buffer and an iterator; returns bytes
 * done.  Memory with a kernel mapping is copied through it; memory in
 * highmem has none, and is copied a page at a time through a temporary one.
 * Not with copy_page_to_iter(): into a pipe (splice, sendfile) that hands
 * over the page itself as if it were page cache, which the pipe's reader
 * then refuses for having no mapping.
 */
static size_t udmabuf_copy_chunk(struct udmabuf_buffer *buf,
				 struct iov_iter *iter, size_t n, loff_t pos,
				 bool to_iter)
{
	size_t done = 0;

	if (buf->vaddr)
		return to_iter ? copy_to_iter(buf->vaddr + pos, n, iter) :
				 copy_from_iter(buf->vaddr + pos, n, iter);
	while (done < n) {
		struct page *page = buf->pages + ((pos + done) >> PAGE_SHIFT);
		size_t offset = offset_in_page(pos + done);
		size_t len = min_t(size_t, n - done, PAGE_SIZE - offset);
		void *kaddr = kmap_local_page(page);
		size_t copied;

		if (to_iter)
			copied = copy_to_iter(kaddr + offset, len, iter);
		else
			copied = copy_from_iter(kaddr + offset, len, iter);
		kunmap_local(kaddr);
		done += copied;
		if (copied < len)
			break;
	}
	return done;
}

/* Copy between the buffer and an iterator in chunks; returns bytes done. */
static ssize_t udmabuf_copy(struct udmabuf_buffer *buf, struct iov_iter *iter,
			    size_t count, loff_t pos, bool to_iter)
{
	size_t done = 0;

	while (done < count) {
		size_t n = min_t(size_t, count - done, UDMABUF_COPY_CHUNK);
		size_t copied;

		copied = udmabuf_copy_chunk(buf, iter, n, pos + done, to_iter);
		done += copied;
		if (copied < n || fatal_signal_pending(current))
			break;
		cond_resched();
	}
	return done ? done : -EFAULT;
}

static ssize_t udmabuf_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct udmabuf_buffer *buf = iocb->ki_filp->private_data;
	size_t count = iov_iter_count(to);
	loff_t pos = iocb->ki_pos;
	ssize_t ret;

	if (pos < 0)
		return -EINVAL;
	if (pos >= buf->size || !count)
		return 0;
	count = min_t(u64, count, buf->size - pos);

	/* Without a DMA device there is nobody to be current with. */
	if (udmabuf_file_syncs(buf, iocb->ki_filp))
		__udmabuf_sync(buf, true, pos, count,
			       UDMABUF_CFS_DIR_FROM_DEVICE);
	ret = udmabuf_copy(buf, to, count, pos, true);
	if (ret > 0)
		iocb->ki_pos = pos + ret;
	return ret;
}

static ssize_t udmabuf_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct udmabuf_buffer *buf = iocb->ki_filp->private_data;
	size_t count = iov_iter_count(from);
	loff_t pos = iocb->ki_pos;
	ssize_t ret;

	if (pos < 0)
		return -EINVAL;
	if (!count)
		return 0;
	if (pos >= buf->size)
		return -ENOSPC;
	count = min_t(u64, count, buf->size - pos);

	ret = udmabuf_copy(buf, from, count, pos, false);
	if (ret > 0) {
		if (udmabuf_file_syncs(buf, iocb->ki_filp))
			__udmabuf_sync(buf, false, pos, ret,
				       UDMABUF_CFS_DIR_TO_DEVICE);
		iocb->ki_pos = pos + ret;
	}
	return ret;
}

static loff_t udmabuf_llseek(struct file *file, loff_t offset, int whence)
{
	struct udmabuf_buffer *buf = file->private_data;

	return fixed_size_llseek(file, offset, whence, buf->size);
}

/*
 * Entries are normally all made at mmap() time; this refills what was
 * zapped since (madvise(MADV_DONTNEED)).  The page carries its own count.
 */
static vm_fault_t udmabuf_vm_fault(struct vm_fault *vmf)
{
	struct udmabuf_buffer *buf = vmf->vma->vm_private_data;

	if (vmf->pgoff >= buf->alloc_size >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	vmf->page = buf->pages + vmf->pgoff;
	get_page(vmf->page);
	return 0;
}

static const struct vm_operations_struct udmabuf_vm_ops = {
	.fault	= udmabuf_vm_fault,
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
 * @cache: the CPU mapping to give
 *
 * The whole range is mapped at once: the memory is resident, so nothing is
 * left to fault in, and a writable mapping's entries are dirty already, so
 * that the first write to a page does not fault either.  Page-backed
 * memory is mapped as its pages, which get_user_pages() can take
 * (VM_MIXEDMAP, not VM_IO or VM_PFNMAP); the mapping cannot grow past the
 * buffer (mremap() fails with EFAULT).
 *
 * Return: 0 or a negative errno.
 */
int udmabuf_map_pages(struct udmabuf_buffer *buf, struct vm_area_struct *vma,
		      enum udmabuf_cache cache)
{
	pgprot_t prot;
	int ret;

	vma->vm_page_prot = udmabuf_pgprot(cache, vma->vm_page_prot);
	if (!buf->page_backed)
		return remap_pfn_range(vma, vma->vm_start,
				       page_to_pfn(buf->pages) + vma->vm_pgoff,
				       vma->vm_end - vma->vm_start,
				       vma->vm_page_prot);

	vm_flags_set(vma, VM_DONTEXPAND);
	vma->vm_ops = &udmabuf_vm_ops;
	vma->vm_private_data = buf;
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

static int udmabuf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct udmabuf_buffer *buf = file->private_data;
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
	return udmabuf_map_pages(buf, vma,
				 udmabuf_cache_mode(buf, udmabuf_file_o_sync(file)));
}

static long udmabuf_ioctl_info(struct udmabuf_buffer *buf, void __user *arg)
{
	struct udmabuf_cfs_info info = {
		.abi_version	= UDMABUF_CFS_ABI_VERSION,
		.size		= buf->size,
		.phys_addr	= buf->phys_addr,
		.sync_mode	= READ_ONCE(buf->sync_mode),
		.minor		= buf->minor,
	};
	dma_addr_t addr;

	if (udmabuf_dma_addr(buf, &addr))
		info.flags |= UDMABUF_CFS_INFO_DMA_DETACHED;
	else
		info.dma_addr = addr;
	if (buf->dma_target)
		info.flags |= UDMABUF_CFS_INFO_DMA_BOUND;
	if (udmabuf_coherent(buf))
		info.flags |= UDMABUF_CFS_INFO_DMA_COHERENT;
	if (UDMABUF_RAM_ALWAYS_CACHED)
		info.flags |= UDMABUF_CFS_INFO_RAM_CACHED;
	if (buf->page_backed)
		info.flags |= UDMABUF_CFS_INFO_PAGES;
	strscpy(info.driver_version, UDMABUF_CFS_VERSION,
		sizeof(info.driver_version));

	if (copy_to_user(arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long udmabuf_ioctl_sync(struct udmabuf_buffer *buf, void __user *arg,
			       bool for_cpu)
{
	struct udmabuf_cfs_sync sync;

	if (copy_from_user(&sync, arg, sizeof(sync)))
		return -EFAULT;
	if (sync.flags)
		return -EINVAL;
	return udmabuf_sync(buf, for_cpu, sync.offset, sync.size,
			    sync.direction);
}

static long udmabuf_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct udmabuf_buffer *buf = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case UDMABUF_CFS_IOC_GET_INFO:
		return udmabuf_ioctl_info(buf, uarg);
	case UDMABUF_CFS_IOC_SYNC_FOR_CPU:
		return udmabuf_ioctl_sync(buf, uarg, true);
	case UDMABUF_CFS_IOC_SYNC_FOR_DEVICE:
		return udmabuf_ioctl_sync(buf, uarg, false);
	case UDMABUF_CFS_IOC_EXPORT_DMABUF:
		return udmabuf_ioctl_export(buf, file, uarg);
	default:
		return -ENOTTY;
	}
}

const struct file_operations udmabuf_fops = {
	.owner		= THIS_MODULE,
	.open		= udmabuf_open,
	.release	= udmabuf_release_file,
	.read_iter	= udmabuf_read_iter,
	.write_iter	= udmabuf_write_iter,
	.splice_read	= copy_splice_read,
	.splice_write	= iter_file_splice_write,
	.llseek		= udmabuf_llseek,
	.mmap		= udmabuf_mmap,
	.unlocked_ioctl	= udmabuf_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};
