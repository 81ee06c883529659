// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: attributes of /sys/class/udmabuf/<device>/.
 *
 * These are the run-time face of a buffer, whoever created it, and keep
 * the names and formats existing users of this kind of driver script
 * against.  They are removed (and in-flight calls drained) by device_del()
 * before the creator drops its reference, so the buffer is valid here.
 */

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/udmabuf-cfs.h>

#include "internal.h"

static const char * const udmabuf_origin_names[] = {
	[UDMABUF_ORIGIN_CONFIGFS]	= "configfs",
	[UDMABUF_ORIGIN_PARAM]		= "param",
	[UDMABUF_ORIGIN_DT]		= "dt",
	[UDMABUF_ORIGIN_PROCESS]	= "process",
};

/*
 * A process-scoped buffer belongs to the program that allocated it, which
 * changes and syncs it through its own file (the ioctls).  Through sysfs
 * only an administrator may, whatever mode the attribute has been given
 * (a udev rule or a chmod), so that no other user can change its caching
 * or sync, and so invalidate, its memory.
 */
static int udmabuf_may_change(struct udmabuf_buffer *buf)
{
	if (buf->origin == UDMABUF_ORIGIN_PROCESS && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

static ssize_t size_show(struct device *dev, struct device_attribute *attr,
			 char *page)
{
	return sysfs_emit(page, "%zu\n", to_udmabuf(dev)->size);
}
static DEVICE_ATTR_RO(size);

/* The address to program into the DMA device (an IOVA behind an IOMMU). */
static ssize_t phys_addr_show(struct device *dev,
			      struct device_attribute *attr, char *page)
{
	dma_addr_t addr;
	int ret;

	ret = udmabuf_dma_addr(to_udmabuf(dev), &addr);
	if (ret)
		return ret;
	return sysfs_emit(page, "0x%016llx\n", (u64)addr);
}

/* Physical addresses are for root, as in /proc/PID/pagemap. */
static DEVICE_ATTR_ADMIN_RO(phys_addr);

static ssize_t sync_mode_show(struct device *dev,
			      struct device_attribute *attr, char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(to_udmabuf(dev)->sync_mode));
}

/* A mode written to sync_mode or sync_check, by whom may change it. */
static int udmabuf_parse_mode(struct udmabuf_buffer *buf, const char *page,
			      int (*check)(u64 mode),
			      unsigned int *mode)
{
	int ret;

	ret = udmabuf_may_change(buf);
	if (ret)
		return ret;
	ret = kstrtouint(page, 10, mode);
	return ret ? ret : check(*mode);
}

static ssize_t sync_mode_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *page, size_t count)
{
	struct udmabuf_buffer *buf = to_udmabuf(dev);
	unsigned int mode;
	int ret;

	ret = udmabuf_parse_mode(buf, page, udmabuf_check_sync_mode, &mode);
	if (ret)
		return ret;
	WRITE_ONCE(buf->sync_mode, mode);
	return count;
}
static DEVICE_ATTR_RW(sync_mode);

/* "BUS/DEVICE" of the bound DMA device, empty for the module's own. */
static ssize_t dma_device_show(struct device *dev,
			       struct device_attribute *attr, char *page)
{
	return sysfs_emit(page, "%s\n", to_udmabuf(dev)->dma_device);
}
static DEVICE_ATTR_RO(dma_device);

static ssize_t dma_coherent_show(struct device *dev,
				 struct device_attribute *attr, char *page)
{
	return sysfs_emit(page, "%d\n", udmabuf_coherent(to_udmabuf(dev)));
}
static DEVICE_ATTR_RO(dma_coherent);

static ssize_t origin_show(struct device *dev, struct device_attribute *attr,
			   char *page)
{
	return sysfs_emit(page, "%s\n",
			  udmabuf_origin_names[to_udmabuf(dev)->origin]);
}
static DEVICE_ATTR_RO(origin);

/* page, cma, dma, contig, placed or pool: see memory.c. */
static ssize_t allocator_show(struct device *dev,
			      struct device_attribute *attr, char *page)
{
	return sysfs_emit(page, "%s\n", udmabuf_allocator(to_udmabuf(dev)));
}
static DEVICE_ATTR_RO(allocator);

/* "PID COMM" of the process that allocated a process-scoped buffer. */
static ssize_t owner_show(struct device *dev, struct device_attribute *attr,
			  char *page)
{
	struct udmabuf_buffer *buf = to_udmabuf(dev);

	return sysfs_emit(page, "%d %s\n", buf->owner_pid, buf->owner_comm);
}
static DEVICE_ATTR_RO(owner);

static ssize_t users_show(struct device *dev, struct device_attribute *attr,
			  char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(to_udmabuf(dev)->users));
}
static DEVICE_ATTR_RO(users);

static ssize_t udmabuf_cache_show(struct device *dev, char *page, bool o_sync)
{
	enum udmabuf_cache cache = udmabuf_cache_mode(to_udmabuf(dev), o_sync);

	return sysfs_emit(page, "%s\n", udmabuf_cache_names[cache]);
}

/* What an mmap() of a file opened without O_SYNC really gets. */
static ssize_t cache_mode_show(struct device *dev,
			       struct device_attribute *attr, char *page)
{
	return udmabuf_cache_show(dev, page, false);
}
static DEVICE_ATTR_RO(cache_mode);

/* ... and of a file opened with O_SYNC. */
static ssize_t cache_mode_sync_show(struct device *dev,
				    struct device_attribute *attr, char *page)
{
	return udmabuf_cache_show(dev, page, true);
}
static DEVICE_ATTR_RO(cache_mode_sync);

/*
 * sync_offset and sync_size: bytes, read and set under sync_lock, through
 * one pair of functions that the attribute tells which.
 */
static struct device_attribute dev_attr_sync_offset;

static u64 *udmabuf_sync_range_field(struct udmabuf_buffer *buf,
				     struct device_attribute *attr)
{
	return attr == &dev_attr_sync_offset ? &buf->sync_offset :
					       &buf->sync_size;
}

static ssize_t udmabuf_sync_range_show(struct device *dev,
				       struct device_attribute *attr,
				       char *page)
{
	struct udmabuf_buffer *buf = to_udmabuf(dev);
	u64 val;

	mutex_lock(&buf->sync_lock);
	val = *udmabuf_sync_range_field(buf, attr);
	mutex_unlock(&buf->sync_lock);
	return sysfs_emit(page, "%llu\n", val);
}

static ssize_t udmabuf_sync_range_store(struct device *dev,
					struct device_attribute *attr,
					const char *page, size_t count)
{
	struct udmabuf_buffer *buf = to_udmabuf(dev);
	u64 val;
	int ret;

	ret = udmabuf_may_change(buf);
	if (ret)
		return ret;
	ret = udmabuf_parse_size(page, &val);
	if (!ret)
		ret = attr == &dev_attr_sync_offset ?
			udmabuf_check_sync_offset(buf->size, val) :
			udmabuf_check_sync_size(buf->size, val);
	if (ret)
		return ret;
	mutex_lock(&buf->sync_lock);
	*udmabuf_sync_range_field(buf, attr) = val;
	mutex_unlock(&buf->sync_lock);
	return count;
}

static struct device_attribute dev_attr_sync_offset =
	__ATTR(sync_offset, 0644, udmabuf_sync_range_show,
	       udmabuf_sync_range_store);
static struct device_attribute dev_attr_sync_size =
	__ATTR(sync_size, 0644, udmabuf_sync_range_show,
	       udmabuf_sync_range_store);

static ssize_t sync_direction_show(struct device *dev,
				   struct device_attribute *attr, char *page)
{
	struct udmabuf_buffer *buf = to_udmabuf(dev);
	unsigned int val;

	mutex_lock(&buf->sync_lock);
	val = buf->sync_direction;
	mutex_unlock(&buf->sync_lock);
	return sysfs_emit(page, "%u\n", val);
}

static ssize_t sync_direction_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *page, size_t count)
{
	struct udmabuf_buffer *buf = to_udmabuf(dev);
	unsigned int val;
	int ret;

	ret = udmabuf_may_change(buf);
	if (ret)
		return ret;
	ret = kstrtouint(page, 10, &val);
	if (!ret)
		ret = udmabuf_check_direction(val);
	if (ret)
		return ret;
	mutex_lock(&buf->sync_lock);
	buf->sync_direction = val;
	mutex_unlock(&buf->sync_lock);
	return count;
}
static DEVICE_ATTR_RW(sync_direction);

static ssize_t sync_owner_show(struct device *dev,
			       struct device_attribute *attr, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(to_udmabuf(dev)->sync_owner));
}
static DEVICE_ATTR_RO(sync_owner);

/*
 * Parse "OFFSET SIZE DIRECTION" (sizes as udmabuf_parse_size() reads them,
 * the direction 0..2), the one-write form of a sync trigger.
 */
static int udmabuf_parse_range(const char *page, u64 *offset, u64 *size,
			       unsigned int *direction)
{
	char tmp[96], *cur, *tok[3];
	size_t len = strlen(page);
	int i;

	if (len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, page, len + 1);
	cur = strim(tmp);
	for (i = 0; i < 3; i++) {
		tok[i] = strsep(&cur, " \t");
		if (!tok[i] || !*tok[i])
			return -EINVAL;
		if (cur)
			cur = skip_spaces(cur);
	}
	if (cur && *cur)
		return -EINVAL;
	if (udmabuf_parse_size(tok[0], offset) ||
	    udmabuf_parse_size(tok[1], size) ||
	    kstrtouint(tok[2], 10, direction))
		return -EINVAL;
	return 0;
}

/*
 * Write "1" to sync the range set in sync_offset, sync_size and
 * sync_direction, or "OFFSET SIZE DIRECTION" to sync that range without
 * touching the shared values (two processes cannot race on those).
 */
static ssize_t udmabuf_sync_store(struct device *dev, const char *page,
				  size_t count, bool for_cpu)
{
	struct udmabuf_buffer *buf = to_udmabuf(dev);
	unsigned int direction;
	u64 offset, size;
	int ret;

	/* Who may write these attributes may change the buffer: a writer. */
	ret = udmabuf_may_change(buf);
	if (ret)
		return ret;
	if (sysfs_streq(page, "1")) {
		mutex_lock(&buf->sync_lock);
		ret = udmabuf_sync(buf, for_cpu, buf->sync_offset,
				   buf->sync_size, buf->sync_direction, true);
		mutex_unlock(&buf->sync_lock);
	} else {
		ret = udmabuf_parse_range(page, &offset, &size, &direction);
		if (!ret)
			ret = udmabuf_sync(buf, for_cpu, offset, size,
					   direction, true);
	}
	return ret ? ret : count;
}

static ssize_t sync_for_cpu_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *page, size_t count)
{
	return udmabuf_sync_store(dev, page, count, true);
}
static DEVICE_ATTR_WO(sync_for_cpu);

static ssize_t sync_for_device_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *page, size_t count)
{
	return udmabuf_sync_store(dev, page, count, false);
}
static DEVICE_ATTR_WO(sync_for_device);

static ssize_t sync_check_show(struct device *dev,
			       struct device_attribute *attr, char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(to_udmabuf(dev)->sync_check));
}

static ssize_t sync_check_store(struct device *dev,
				struct device_attribute *attr,
				const char *page, size_t count)
{
	struct udmabuf_buffer *buf = to_udmabuf(dev);
	unsigned int mode;
	int ret;

	ret = udmabuf_parse_mode(buf, page, udmabuf_check_sync_check, &mode);
	if (!ret)
		ret = udmabuf_sc_set(buf, mode);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(sync_check);

/* Reports of the sync checker: anyone's to read, as the buffer's users. */
static ssize_t sync_violations_show(struct device *dev,
				    struct device_attribute *attr, char *page)
{
	return sysfs_emit(page, "%lld\n",
			  (long long)atomic64_read(&to_udmabuf(dev)->sync_violations));
}
static DEVICE_ATTR_RO(sync_violations);

static struct attribute *udmabuf_attrs[] = {
	&dev_attr_size.attr,
	&dev_attr_phys_addr.attr,
	&dev_attr_sync_mode.attr,
	&dev_attr_dma_coherent.attr,
	&dev_attr_dma_device.attr,
	&dev_attr_origin.attr,
	&dev_attr_allocator.attr,
	&dev_attr_users.attr,
	&dev_attr_owner.attr,
	&dev_attr_cache_mode.attr,
	&dev_attr_cache_mode_sync.attr,
	&dev_attr_sync_offset.attr,
	&dev_attr_sync_size.attr,
	&dev_attr_sync_direction.attr,
	&dev_attr_sync_owner.attr,
	&dev_attr_sync_for_cpu.attr,
	&dev_attr_sync_for_device.attr,
	&dev_attr_sync_check.attr,
	&dev_attr_sync_violations.attr,
	NULL
};

/* owner only for process-scoped buffers: the others have none. */
static umode_t udmabuf_attr_visible(struct kobject *kobj,
				    struct attribute *attr, int n)
{
	struct udmabuf_buffer *buf = to_udmabuf(kobj_to_dev(kobj));

	if (attr == &dev_attr_owner.attr &&
	    buf->origin != UDMABUF_ORIGIN_PROCESS)
		return 0;
	return attr->mode;
}

static const struct attribute_group udmabuf_group = {
	.attrs = udmabuf_attrs,
	.is_visible = udmabuf_attr_visible,
};

const struct attribute_group *udmabuf_dev_groups[] = {
	&udmabuf_group,
	NULL
};
