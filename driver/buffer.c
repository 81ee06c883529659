// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: the memory of a buffer and its character device.
 *
 * Memory comes from dma_alloc_pages() on the buffer's own class device:
 * physically contiguous (from CMA when the platform has it), in the linear
 * map, cacheable, and mapped for DMA_BIDIRECTIONAL.  The DMA device's view
 * of it, and the syncs, are dma.c's: dma_sync_single_for_{cpu,device}() are
 * valid on any part of it while that device has it mapped.  User space
 * chooses the caching of its own mapping through sync_mode and O_SYNC.
 */

#include <linux/cc_platform.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/udmabuf-cfs.h>

#include "udmabuf-cfs.h"

/* read() and write() copy this much between checks for signals. */
#define UDMABUF_COPY_CHUNK	SZ_1M

/**
 * udmabuf_alloc - allocate the memory of a buffer
 * @buf: buffer with size set and its class device's DMA mask and
 *	memory-region set up (udmabuf_dma_setup())
 *
 * Return: 0 or -ENOMEM.
 */
int udmabuf_alloc(struct udmabuf_buffer *buf)
{
	struct device *dev = &buf->dev;

	buf->alloc_size = PAGE_ALIGN(buf->size);
	if (buf->pool) {
		/*
		 * The region's own allocator; its kernel mapping is uncached.
		 * Such a region's "device address" is its CPU physical one.
		 */
		buf->vaddr = dma_alloc_coherent(dev, buf->alloc_size,
						&buf->alloc_addr,
						GFP_KERNEL | __GFP_NOWARN);
		buf->phys_addr = buf->alloc_addr;
		return buf->vaddr ? 0 : -ENOMEM;
	}

	buf->pages = dma_alloc_pages(dev, buf->alloc_size, &buf->alloc_addr,
				     DMA_BIDIRECTIONAL,
				     GFP_KERNEL | __GFP_NOWARN);
	if (!buf->pages)
		return -ENOMEM;
	buf->vaddr = page_address(buf->pages);
	buf->phys_addr = page_to_phys(buf->pages);

	/*
	 * The allocator cleared the memory through the cached linear map.
	 * Write those lines back now, so that no dirty line can later be
	 * evicted over what the device or an uncached mapping has stored,
	 * then hand the buffer to the CPU as the DMA API expects.
	 */
	dma_sync_single_for_device(dev, buf->alloc_addr, buf->alloc_size,
				   DMA_BIDIRECTIONAL);
	dma_sync_single_for_cpu(dev, buf->alloc_addr, buf->alloc_size,
				DMA_BIDIRECTIONAL);
	return 0;
}

/* Free the memory; called once the last reference to the buffer is gone. */
void udmabuf_free(struct udmabuf_buffer *buf)
{
	if (buf->pages)
		dma_free_pages(&buf->dev, buf->alloc_size, buf->pages,
			       buf->alloc_addr, DMA_BIDIRECTIONAL);
	else if (buf->pool && buf->vaddr)
		dma_free_coherent(&buf->dev, buf->alloc_size, buf->vaddr,
				  buf->alloc_addr);
	buf->pages = NULL;
	buf->vaddr = NULL;
}

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

	if (buf->pool)
		return udmabuf_coherent(buf) ? UDMABUF_CACHE_CACHED :
					       UDMABUF_CACHE_DMA_COHERENT;
	enum udmabuf_cache cache;

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

/* Copy between the buffer and user memory in chunks; returns bytes done. */
static ssize_t udmabuf_copy(struct udmabuf_buffer *buf, char __user *ubuf,
			    size_t count, loff_t pos, bool to_user)
{
	size_t done = 0;

	while (done < count) {
		size_t n = min_t(size_t, count - done, UDMABUF_COPY_CHUNK);
		void *kaddr = buf->vaddr + pos + done;
		unsigned long left;

		if (to_user)
			left = copy_to_user(ubuf + done, kaddr, n);
		else
			left = copy_from_user(kaddr, ubuf + done, n);
		done += n - left;
		if (left || fatal_signal_pending(current))
			break;
		cond_resched();
	}
	return done ? done : -EFAULT;
}

static ssize_t udmabuf_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct udmabuf_buffer *buf = file->private_data;
	loff_t pos = *ppos;
	ssize_t ret;

	if (pos < 0)
		return -EINVAL;
	if (pos >= buf->size || !count)
		return 0;
	count = min_t(u64, count, buf->size - pos);

	/* Without a DMA device there is nobody to be current with. */
	if (udmabuf_file_syncs(buf, file))
		__udmabuf_sync(buf, true, pos, count,
			       UDMABUF_CFS_DIR_FROM_DEVICE);
	ret = udmabuf_copy(buf, ubuf, count, pos, true);
	if (ret > 0)
		*ppos = pos + ret;
	return ret;
}

static ssize_t udmabuf_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct udmabuf_buffer *buf = file->private_data;
	loff_t pos = *ppos;
	ssize_t ret;

	if (pos < 0)
		return -EINVAL;
	if (!count)
		return 0;
	if (pos >= buf->size)
		return -ENOSPC;
	count = min_t(u64, count, buf->size - pos);

	ret = udmabuf_copy(buf, (char __user *)ubuf, count, pos, false);
	if (ret > 0) {
		if (udmabuf_file_syncs(buf, file))
			__udmabuf_sync(buf, false, pos, ret,
				       UDMABUF_CFS_DIR_TO_DEVICE);
		*ppos = pos + ret;
	}
	return ret;
}

static loff_t udmabuf_llseek(struct file *file, loff_t offset, int whence)
{
	struct udmabuf_buffer *buf = file->private_data;

	return fixed_size_llseek(file, offset, whence, buf->size);
}

/*
 * The whole range is mapped here, at mmap() time: the memory is resident
 * and contiguous, so there is nothing to fault in later.  The mapping holds
 * its file, and the file holds the buffer, so the pages outlive the VMA.
 */
static int udmabuf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct udmabuf_buffer *buf = file->private_data;
	unsigned long pages = buf->alloc_size >> PAGE_SHIFT;
	enum udmabuf_cache cache;

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

	cache = udmabuf_cache_mode(buf, udmabuf_file_o_sync(file));
	vma->vm_page_prot = udmabuf_pgprot(cache, vma->vm_page_prot);
	return remap_pfn_range(vma, vma->vm_start,
			       page_to_pfn(buf->pages) + vma->vm_pgoff,
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
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
	default:
		return -ENOTTY;
	}
}

const struct file_operations udmabuf_fops = {
	.owner		= THIS_MODULE,
	.open		= udmabuf_open,
	.release	= udmabuf_release_file,
	.read		= udmabuf_read,
	.write		= udmabuf_write,
	.llseek		= udmabuf_llseek,
	.mmap		= udmabuf_mmap,
	.unlocked_ioctl	= udmabuf_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};
