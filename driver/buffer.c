// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: the file of a buffer: /dev/<device>, and the file a
 * process-scoped buffer is (process.c).
 *
 * A file of a fixed size: read() and write() copy through the kernel's
 * mapping of the memory (a page at a time in highmem), bracketed by syncs
 * for an O_SYNC file; mmap() is mmap.c's; the ioctls describe, sync
 * (sync.c) and export (dmabuf.c) the buffer.
 */

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

#include "internal.h"

/* read() and write() copy this much between checks for signals. */
#define UDMABUF_COPY_CHUNK	SZ_1M

static bool udmabuf_file_o_sync(struct file *file)
{
	return file->f_flags & O_DSYNC;
}

/* Whether its syncs may throw away what others wrote (sync.c). */
static bool udmabuf_file_writer(struct file *file)
{
	return file->f_mode & FMODE_WRITE;
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
	       (READ_ONCE(buf->sync_mode) & UDMABUF_CFS_SYNC_MODE_ALWAYS);
}

static int udmabuf_open(struct inode *inode, struct file *file)
{
	struct udmabuf_buffer *buf = udmabuf_user_get(iminor(inode));

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	file->private_data = buf;
	/* Every mapping of the buffer in one address space (mmap.c). */
	file->f_mapping = buf->inode->i_mapping;
	return 0;
}

static int udmabuf_release_file(struct inode *inode, struct file *file)
{
	udmabuf_user_put(file->private_data);
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
		udmabuf_sync_range(buf, true, pos, count,
				   UDMABUF_CFS_DIR_FROM_DEVICE,
				   udmabuf_file_writer(iocb->ki_filp));
	else
		udmabuf_sc_cpu_access(buf, pos, count, "read()");
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
	if (!udmabuf_file_syncs(buf, iocb->ki_filp))
		udmabuf_sc_cpu_access(buf, pos, count, "write()");

	ret = udmabuf_copy(buf, from, count, pos, false);
	if (ret > 0) {
		if (udmabuf_file_syncs(buf, iocb->ki_filp))
			udmabuf_sync_range(buf, false, pos, ret,
					   UDMABUF_CFS_DIR_TO_DEVICE, true);
		iocb->ki_pos = pos + ret;
	}
	return ret;
}

static loff_t udmabuf_llseek(struct file *file, loff_t offset, int whence)
{
	struct udmabuf_buffer *buf = file->private_data;

	return fixed_size_llseek(file, offset, whence, buf->size);
}

static int udmabuf_mmap(struct file *file, struct vm_area_struct *vma)
{
	return udmabuf_mmap_buffer(file->private_data, vma,
				   udmabuf_file_o_sync(file));
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
	info.sync_check = READ_ONCE(buf->sync_check);
	info.sync_violations = atomic64_read(&buf->sync_violations);

	if (copy_to_user(arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long udmabuf_ioctl_sync(struct udmabuf_buffer *buf, struct file *file,
			       void __user *arg, bool for_cpu)
{
	struct udmabuf_cfs_sync sync;

	if (copy_from_user(&sync, arg, sizeof(sync)))
		return -EFAULT;
	if (sync.flags)
		return -EINVAL;
	return udmabuf_sync(buf, for_cpu, sync.offset, sync.size,
			    sync.direction, udmabuf_file_writer(file));
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
		return udmabuf_ioctl_sync(buf, file, uarg, true);
	case UDMABUF_CFS_IOC_SYNC_FOR_DEVICE:
		return udmabuf_ioctl_sync(buf, file, uarg, false);
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
