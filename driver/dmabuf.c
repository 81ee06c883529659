// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: a range of a buffer exported as a dma-buf.
 *
 * Importers (DRM PRIME, V4L2's DMABUF memory, ...) get the pages of the
 * range as a scatter list mapped for their own device, through its DMA ops
 * and IOMMU; CPU access through the dma-buf (mmap, vmap, DMA_BUF_IOCTL_SYNC)
 * is bracketed by cache maintenance for every device that has it mapped,
 * the buffer's own DMA device included.  A dma-buf holds a reference to the
 * buffer and counts as one of its users: the memory outlives the buffer's
 * deletion for as long as the dma-buf lives.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/udmabuf-cfs.h>
#include <linux/vmalloc.h>

#include "internal.h"

MODULE_IMPORT_NS("DMA_BUF");

/**
 * struct udmabuf_export - the private data of an exported dma-buf
 * @buf: the buffer, with a reference and a user counted
 * @first: the first page of the range in @buf
 * @size: length of the range in bytes, whole pages
 * @lock: protects @attachments and their state
 * @attachments: the importers' attachments
 */
struct udmabuf_export {
	struct udmabuf_buffer *buf;
	pgoff_t first;
	size_t size;
	struct mutex lock;	/* protects @attachments */
	struct list_head attachments;
};

/**
 * struct udmabuf_attachment - one importer's view of the range
 * @dev: the importer's device
 * @sgt: the range's pages, and while mapped their addresses for @dev
 * @node: entry in the export's list
 * @mapped: @sgt is mapped for @dev, for the direction @dir
 * @dir: direction of that mapping
 */
struct udmabuf_attachment {
	struct device *dev;
	struct sg_table sgt;
	struct list_head node;
	bool mapped;
	enum dma_data_direction dir;
};

/* The range's pages, in entries no longer than @dev takes in one segment. */
static int udmabuf_export_sgt(struct udmabuf_export *exp, struct device *dev,
			      struct sg_table *sgt)
{
	size_t seg = max_t(size_t, dma_get_max_seg_size(dev) & PAGE_MASK,
			   PAGE_SIZE);
	struct page *page = exp->buf->pages + exp->first;
	size_t left = exp->size;
	struct scatterlist *sg;
	unsigned int i;
	int ret;

	ret = sg_alloc_table(sgt, DIV_ROUND_UP(left, seg), GFP_KERNEL);
	if (ret)
		return ret;
	for_each_sgtable_sg(sgt, sg, i) {
		size_t len = min(left, seg);

		sg_set_page(sg, page, len, 0);
		page += len >> PAGE_SHIFT;
		left -= len;
	}
	return 0;
}

static int udmabuf_dmabuf_attach(struct dma_buf *dmabuf,
				 struct dma_buf_attachment *attach)
{
	struct udmabuf_export *exp = dmabuf->priv;
	struct udmabuf_attachment *a;
	int ret;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	ret = udmabuf_export_sgt(exp, attach->dev, &a->sgt);
	if (ret) {
		kfree(a);
		return ret;
	}
	a->dev = attach->dev;
	attach->priv = a;

	mutex_lock(&exp->lock);
	list_add(&a->node, &exp->attachments);
	mutex_unlock(&exp->lock);
	return 0;
}

static void udmabuf_dmabuf_detach(struct dma_buf *dmabuf,
				  struct dma_buf_attachment *attach)
{
	struct udmabuf_export *exp = dmabuf->priv;
	struct udmabuf_attachment *a = attach->priv;

	mutex_lock(&exp->lock);
	list_del(&a->node);
	mutex_unlock(&exp->lock);
	sg_free_table(&a->sgt);
	kfree(a);
}

/*
 * The CPU caches are maintained explicitly rather than by the mapping
 * itself: the buffer's own DMA device has the same memory mapped too, and
 * DMA-API debugging takes a second mapping that syncs for a driver bug.
 */
static struct sg_table *udmabuf_dmabuf_map(struct dma_buf_attachment *attach,
					   enum dma_data_direction dir)
{
	struct udmabuf_export *exp = attach->dmabuf->priv;
	struct udmabuf_attachment *a = attach->priv;
	int ret;

	ret = dma_map_sgtable(a->dev, &a->sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		return ERR_PTR(ret);
	dma_sync_sgtable_for_device(a->dev, &a->sgt, dir);

	mutex_lock(&exp->lock);
	a->mapped = true;
	a->dir = dir;
	mutex_unlock(&exp->lock);
	return &a->sgt;
}

static void udmabuf_dmabuf_unmap(struct dma_buf_attachment *attach,
				 struct sg_table *sgt,
				 enum dma_data_direction dir)
{
	struct udmabuf_export *exp = attach->dmabuf->priv;
	struct udmabuf_attachment *a = attach->priv;

	mutex_lock(&exp->lock);
	a->mapped = false;
	mutex_unlock(&exp->lock);
	dma_sync_sgtable_for_cpu(a->dev, sgt, dir);
	dma_unmap_sgtable(a->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
}

/*
 * Cache maintenance for an importer's mapping, segment by DMA segment and
 * in the direction it was mapped for (DMA-API debugging holds a sync in
 * another direction for a bug).  Not through the table's pages: while the
 * importer holds the table, CONFIG_DMABUF_DEBUG scrambles them so that no
 * importer uses them, and only the DMA addresses are left intact.
 */
static void udmabuf_attachment_sync(struct udmabuf_attachment *a,
				    bool for_cpu)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(&a->sgt, sg, i) {
		if (for_cpu)
			dma_sync_single_for_cpu(a->dev, sg_dma_address(sg),
						sg_dma_len(sg), a->dir);
		else
			dma_sync_single_for_device(a->dev, sg_dma_address(sg),
						   sg_dma_len(sg), a->dir);
	}
}

/*
 * Cache maintenance for every device that has the range mapped, and for
 * the buffer's own device (its class device once a bound device has gone
 * away) in the direction of the CPU access.  Towards the devices, the own
 * device's sync goes first: it writes back what the CPU wrote, where an
 * importer's mapping for DMA_FROM_DEVICE may only invalidate (32-bit ARM).
 * A read-only dma-buf's syncs invalidate no dirty line (sync.c): the own
 * device writes back first, and towards the devices only writes back.
 */
static int udmabuf_dmabuf_sync(struct dma_buf *dmabuf,
			       enum dma_data_direction dir, bool for_cpu)
{
	struct udmabuf_export *exp = dmabuf->priv;
	u64 offset = (u64)exp->first << PAGE_SHIFT;
	struct udmabuf_attachment *a;
	bool clean_first = false;

	if (!(dmabuf->file->f_mode & FMODE_WRITE))
		dir = udmabuf_reader_dir(for_cpu, dir, &clean_first);
	if (clean_first)
		udmabuf_dma_sync_cpu_side(exp->buf, false, offset, exp->size,
					  DMA_TO_DEVICE);
	if (!for_cpu) {
		udmabuf_dma_sync_cpu_side(exp->buf, false, offset, exp->size,
					  dir);
		udmabuf_sc_for_device(exp->buf, offset, exp->size);
	}
	mutex_lock(&exp->lock);
	list_for_each_entry(a, &exp->attachments, node) {
		if (a->mapped)
			udmabuf_attachment_sync(a, for_cpu);
	}
	mutex_unlock(&exp->lock);
	if (for_cpu) {
		udmabuf_dma_sync_cpu_side(exp->buf, true, offset, exp->size,
					  dir);
		udmabuf_sc_for_cpu(exp->buf, offset, exp->size, false);
	}
	return 0;
}

static int udmabuf_dmabuf_begin_cpu(struct dma_buf *dmabuf,
				    enum dma_data_direction dir)
{
	return udmabuf_dmabuf_sync(dmabuf, dir, true);
}

static int udmabuf_dmabuf_end_cpu(struct dma_buf *dmabuf,
				  enum dma_data_direction dir)
{
	return udmabuf_dmabuf_sync(dmabuf, dir, false);
}

/* Mapped like a file of the buffer opened without O_SYNC. */
static int udmabuf_dmabuf_mmap(struct dma_buf *dmabuf,
			       struct vm_area_struct *vma)
{
	struct udmabuf_export *exp = dmabuf->priv;
	unsigned long pages = exp->size >> PAGE_SHIFT;

	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_pgoff >= pages || vma_pages(vma) > pages - vma->vm_pgoff)
		return -EINVAL;
	vma->vm_pgoff += exp->first;
	return udmabuf_map_pages(exp->buf, vma,
				 udmabuf_cache_mode(exp->buf, false));
}

/*
 * Memory in the linear map is contiguous there already; highmem (32-bit)
 * has no kernel mapping, and gets one of its own in vmalloc space.
 */
static int udmabuf_dmabuf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct udmabuf_export *exp = dmabuf->priv;
	unsigned long i, count = exp->size >> PAGE_SHIFT;
	struct page **pages;
	void *vaddr;

	if (exp->buf->vaddr) {
		iosys_map_set_vaddr(map, exp->buf->vaddr +
					 ((size_t)exp->first << PAGE_SHIFT));
		return 0;
	}
	pages = kvmalloc_array(count, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < count; i++)
		pages[i] = exp->buf->pages + exp->first + i;
	vaddr = vmap(pages, count, VM_MAP, PAGE_KERNEL);
	kvfree(pages);
	if (!vaddr)
		return -ENOMEM;
	iosys_map_set_vaddr(map, vaddr);
	return 0;
}

static void udmabuf_dmabuf_vunmap(struct dma_buf *dmabuf,
				  struct iosys_map *map)
{
	struct udmabuf_export *exp = dmabuf->priv;

	if (!exp->buf->vaddr)
		vunmap(map->vaddr);
}

UDMABUF_DMA_BUF_VMAP(udmabuf_dmabuf_vmap, udmabuf_dmabuf_vunmap)

static void udmabuf_dmabuf_release(struct dma_buf *dmabuf)
{
	struct udmabuf_export *exp = dmabuf->priv;

	udmabuf_user_put(exp->buf);
	mutex_destroy(&exp->lock);
	kfree(exp);
}

static const struct dma_buf_ops udmabuf_dmabuf_ops = {
	.attach			= udmabuf_dmabuf_attach,
	.detach			= udmabuf_dmabuf_detach,
	.map_dma_buf		= udmabuf_dmabuf_map,
	.unmap_dma_buf		= udmabuf_dmabuf_unmap,
	.begin_cpu_access	= udmabuf_dmabuf_begin_cpu,
	.end_cpu_access		= udmabuf_dmabuf_end_cpu,
	.mmap			= udmabuf_dmabuf_mmap,
	.vmap			= dma_buf_vmap_op(udmabuf_dmabuf_vmap),
	.vunmap			= dma_buf_vmap_op(udmabuf_dmabuf_vunmap),
	.release		= udmabuf_dmabuf_release,
};

/* Check a request; on success the range is in @first and @size. */
static int udmabuf_export_check(struct udmabuf_buffer *buf, struct file *file,
				const struct udmabuf_cfs_export *req,
				pgoff_t *first, size_t *size)
{
	u32 mode = req->flags & O_ACCMODE;

	if (req->flags & ~UDMABUF_CFS_EXPORT_VALID_FLAGS)
		return -EINVAL;
	if (mode != O_RDONLY && mode != O_RDWR)
		return -EINVAL;
	if (mode == O_RDWR && !(file->f_mode & FMODE_WRITE))
		return -EACCES;
	if (!PAGE_ALIGNED(req->offset) || !PAGE_ALIGNED(req->size) ||
	    req->offset >= buf->alloc_size ||
	    req->size > buf->alloc_size - req->offset)
		return -EINVAL;
	/* Memory without struct pages has nothing to put in a scatter list. */
	if (!buf->pages)
		return -EOPNOTSUPP;

	*first = req->offset >> PAGE_SHIFT;
	*size = req->size ?: buf->alloc_size - req->offset;
	return 0;
}

static struct dma_buf *udmabuf_export(struct udmabuf_buffer *buf,
				      pgoff_t first, size_t size, u32 mode)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct udmabuf_export *exp;
	struct dma_buf *dmabuf;

	exp = kzalloc(sizeof(*exp), GFP_KERNEL);
	if (!exp)
		return ERR_PTR(-ENOMEM);
	exp->buf = udmabuf_user_add(buf);
	if (IS_ERR(exp->buf)) {
		dmabuf = ERR_CAST(exp->buf);
		goto out_free_export;
	}
	exp->first = first;
	exp->size = size;
	mutex_init(&exp->lock);
	INIT_LIST_HEAD(&exp->attachments);

	info.exp_name = KBUILD_MODNAME;
	info.owner = THIS_MODULE;
	info.ops = &udmabuf_dmabuf_ops;
	info.size = size;
	info.flags = mode;
	info.priv = exp;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf))
		goto out_put_buffer;
	/* Its mappings are the buffer's (mmap.c), found by the checker. */
	dmabuf->file->f_mapping = exp->buf->inode->i_mapping;
	return dmabuf;

out_put_buffer:
	mutex_destroy(&exp->lock);
	udmabuf_user_put(exp->buf);
out_free_export:
	kfree(exp);
	return dmabuf;
}

/**
 * udmabuf_ioctl_export - UDMABUF_CFS_IOC_EXPORT_DMABUF
 * @buf: the buffer of @file
 * @file: the open file the request came through
 * @arg: struct udmabuf_cfs_export in user memory
 *
 * Return: 0 with the new file descriptor in @arg; -EINVAL for bad flags or
 * an unaligned range or one outside the buffer, -EACCES for a writable
 * dma-buf of a file not open for writing, -EOPNOTSUPP for memory without
 * struct pages (a no-map reserved region), -ENODEV if the buffer is being
 * removed, or what dma_buf_export() and the fd table say.
 */
long udmabuf_ioctl_export(struct udmabuf_buffer *buf, struct file *file,
			  void __user *arg)
{
	struct udmabuf_cfs_export req;
	struct dma_buf *dmabuf;
	pgoff_t first;
	size_t size;
	int fd, ret;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	ret = udmabuf_export_check(buf, file, &req, &first, &size);
	if (ret)
		return ret;

	fd = get_unused_fd_flags(req.flags & O_CLOEXEC);
	if (fd < 0)
		return fd;
	dmabuf = udmabuf_export(buf, first, size, req.flags & O_ACCMODE);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto out_put_fd;
	}
	req.fd = fd;
	if (copy_to_user(arg, &req, sizeof(req))) {
		ret = -EFAULT;
		goto out_put_dmabuf;
	}
	/* Only now is the file visible to user space. */
	fd_install(fd, dmabuf->file);
	return 0;

out_put_dmabuf:
	dma_buf_put(dmabuf);
out_put_fd:
	put_unused_fd(fd);
	return ret;
}
