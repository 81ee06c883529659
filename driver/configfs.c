// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: buffers made at run time through configfs.
 *
 *   mkdir /sys/kernel/config/udmabuf/NAME    an item with default settings
 *   echo 4M > .../NAME/size                  configure it
 *   echo 1 > .../NAME/enable                 allocate, create /dev/NAME
 *   echo 0 > .../NAME/enable                 remove it (EBUSY while in use)
 *   rmdir .../NAME                           remove it even while in use
 *
 * An item is configuration plus, while enabled, the buffer made from it.
 * Configuration is refused with -EBUSY while enabled, except sync_mode and
 * sync_check, which are run-time settings of the buffer and may change at
 * any time, here or through the class device's attributes.
 */

#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

/**
 * struct udmabuf_item - a directory under /sys/kernel/config/udmabuf
 * @item: the configfs item
 * @lock: serialises configuration writes with enable and removal
 * @cfg: configuration; cfg.name is empty until device_name is written
 * @buf: the buffer while enabled, else NULL
 */
struct udmabuf_item {
	struct config_item item;
	struct mutex lock;	/* see above */
	struct udmabuf_config cfg;
	struct udmabuf_buffer *buf;
};

static struct udmabuf_item *to_udmabuf_item(struct config_item *item)
{
	return container_of(item, struct udmabuf_item, item);
}

/* The device name: device_name once written, else the directory name. */
static const char *udmabuf_item_name(struct udmabuf_item *ui)
{
	return ui->cfg.name[0] ? ui->cfg.name : config_item_name(&ui->item);
}

/*
 * Lock @ui for a change of configuration.  Return: 0 with the lock held, or
 * -EBUSY without it if the buffer is enabled.
 */
static int udmabuf_item_lock_config(struct udmabuf_item *ui)
{
	mutex_lock(&ui->lock);
	if (ui->buf) {
		mutex_unlock(&ui->lock);
		return -EBUSY;
	}
	return 0;
}

/* A consistent copy of @ui's configuration, for the show functions. */
static struct udmabuf_config udmabuf_item_cfg(struct udmabuf_item *ui)
{
	struct udmabuf_config cfg;

	mutex_lock(&ui->lock);
	cfg = ui->cfg;
	mutex_unlock(&ui->lock);
	return cfg;
}

static ssize_t udmabuf_item_size_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%llu\n",
			  udmabuf_item_cfg(to_udmabuf_item(item)).size);
}

static ssize_t udmabuf_item_size_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	u64 size;
	int ret;

	ret = udmabuf_parse_size(page, &size);
	if (ret)
		return ret;
	/* 0 is refused at enable: an item starts with it. */
	if (size) {
		ret = udmabuf_check_size(size);
		if (ret)
			return ret;
	}
	ret = udmabuf_item_lock_config(ui);
	if (ret)
		return ret;
	ui->cfg.size = size;
	mutex_unlock(&ui->lock);
	return count;
}
CONFIGFS_ATTR(udmabuf_item_, size);

static ssize_t udmabuf_item_minor_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n",
			  udmabuf_item_cfg(to_udmabuf_item(item)).minor);
}

static ssize_t udmabuf_item_minor_store(struct config_item *item,
					const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	int minor;
	int ret;

	ret = kstrtoint(page, 10, &minor);
	if (!ret)
		ret = udmabuf_check_minor(minor);
	if (ret)
		return ret;
	ret = udmabuf_item_lock_config(ui);
	if (ret)
		return ret;
	ui->cfg.minor = minor;
	mutex_unlock(&ui->lock);
	return count;
}
CONFIGFS_ATTR(udmabuf_item_, minor);

static ssize_t udmabuf_item_device_name_show(struct config_item *item,
					     char *page)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	ssize_t ret;

	mutex_lock(&ui->lock);
	ret = sysfs_emit(page, "%s\n", udmabuf_item_name(ui));
	mutex_unlock(&ui->lock);
	return ret;
}

static ssize_t udmabuf_item_device_name_store(struct config_item *item,
					      const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	char name[UDMABUF_CFS_NAME_MAX + 1];
	size_t len = strlen(page);
	int ret;

	if (len && page[len - 1] == '\n')
		len--;
	if (len >= sizeof(name))
		return -EINVAL;
	memcpy(name, page, len);
	name[len] = '\0';
	if (!udmabuf_name_valid(name))
		return -EINVAL;

	ret = udmabuf_item_lock_config(ui);
	if (ret)
		return ret;
	strscpy(ui->cfg.name, name, sizeof(ui->cfg.name));
	mutex_unlock(&ui->lock);
	return count;
}
CONFIGFS_ATTR(udmabuf_item_, device_name);

static ssize_t udmabuf_item_sync_mode_show(struct config_item *item,
					   char *page)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	unsigned int mode;

	mutex_lock(&ui->lock);
	mode = ui->buf ? READ_ONCE(ui->buf->sync_mode) : ui->cfg.sync_mode;
	mutex_unlock(&ui->lock);
	return sysfs_emit(page, "%u\n", mode);
}

static ssize_t udmabuf_item_sync_mode_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	unsigned int mode;
	int ret;

	ret = kstrtouint(page, 10, &mode);
	if (!ret)
		ret = udmabuf_check_sync_mode(mode);
	if (ret)
		return ret;

	mutex_lock(&ui->lock);
	ui->cfg.sync_mode = mode;
	if (ui->buf)
		WRITE_ONCE(ui->buf->sync_mode, mode);
	mutex_unlock(&ui->lock);
	return count;
}
CONFIGFS_ATTR(udmabuf_item_, sync_mode);

static ssize_t udmabuf_item_dma_mask_show(struct config_item *item,
					  char *page)
{
	return sysfs_emit(page, "%u\n",
			  udmabuf_item_cfg(to_udmabuf_item(item)).dma_bits);
}

static ssize_t udmabuf_item_dma_mask_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	unsigned int bits;
	int ret;

	ret = kstrtouint(page, 10, &bits);
	if (!ret)
		ret = udmabuf_check_dma_bits(bits);
	if (ret)
		return ret;
	ret = udmabuf_item_lock_config(ui);
	if (ret)
		return ret;
	ui->cfg.dma_bits = bits;
	mutex_unlock(&ui->lock);
	return count;
}
CONFIGFS_ATTR(udmabuf_item_, dma_mask);

static ssize_t udmabuf_item_mode_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%04o\n",
			  udmabuf_item_cfg(to_udmabuf_item(item)).mode);
}

static ssize_t udmabuf_item_mode_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	unsigned int mode;
	int ret;

	ret = kstrtouint(page, 8, &mode);
	if (!ret)
		ret = udmabuf_check_mode(mode);
	if (ret)
		return ret;
	ret = udmabuf_item_lock_config(ui);
	if (ret)
		return ret;
	ui->cfg.mode = mode;
	mutex_unlock(&ui->lock);
	return count;
}
CONFIGFS_ATTR(udmabuf_item_, mode);

static ssize_t udmabuf_item_dma_device_show(struct config_item *item,
					    char *page)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	ssize_t ret;

	mutex_lock(&ui->lock);
	ret = sysfs_emit(page, "%s\n", ui->cfg.dma_device);
	mutex_unlock(&ui->lock);
	return ret;
}

/*
 * "BUS/DEVICE" of the DMA master the buffer is for, or empty.  Checked now
 * (a typo or a device without its driver should fail here, not at enable)
 * and again at enable.
 */
static ssize_t udmabuf_item_dma_device_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	char val[UDMABUF_CFS_DMA_DEVICE_LEN];
	int ret;

	ret = udmabuf_dma_parse(page, val, sizeof(val));
	if (ret)
		return ret;
	ret = udmabuf_item_lock_config(ui);
	if (ret)
		return ret;
	strscpy(ui->cfg.dma_device, val, sizeof(ui->cfg.dma_device));
	mutex_unlock(&ui->lock);
	return count;
}
CONFIGFS_ATTR(udmabuf_item_, dma_device);

static ssize_t udmabuf_item_enable_show(struct config_item *item, char *page)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	bool enabled;

	mutex_lock(&ui->lock);
	enabled = ui->buf;
	mutex_unlock(&ui->lock);
	return sysfs_emit(page, "%d\n", enabled);
}

static int udmabuf_item_enable(struct udmabuf_item *ui)
{
	struct udmabuf_config cfg = ui->cfg;
	struct udmabuf_buffer *buf;

	/* A directory name may be too long to be a device name. */
	if (strscpy(cfg.name, udmabuf_item_name(ui), sizeof(cfg.name)) < 0)
		return -EINVAL;

	buf = udmabuf_create(&cfg);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ui->buf = buf;
	return 0;
}

static int udmabuf_item_disable(struct udmabuf_item *ui, bool force)
{
	struct udmabuf_buffer *buf = ui->buf;
	int ret;

	/* The structure outlives the creator's reference for the reads below. */
	get_device(&buf->dev);
	ret = udmabuf_destroy(buf, force);
	if (!ret) {
		/*
		 * sync_mode and sync_check may have been changed through
		 * sysfs: the item shows them and the next enable uses them.
		 * Read now that the device is gone, and with it every write
		 * to its attributes.
		 */
		ui->cfg.sync_mode = READ_ONCE(buf->sync_mode);
		ui->cfg.sync_check = READ_ONCE(buf->sync_check);
		ui->buf = NULL;
	}
	put_device(&buf->dev);
	return ret;
}

static ssize_t udmabuf_item_enable_store(struct config_item *item,
					 const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	bool enable;
	int ret;

	ret = kstrtobool(page, &enable);
	if (ret)
		return ret;

	mutex_lock(&ui->lock);
	if (enable == !!ui->buf)
		ret = 0;
	else if (enable)
		ret = udmabuf_item_enable(ui);
	else
		ret = udmabuf_item_disable(ui, false);
	mutex_unlock(&ui->lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(udmabuf_item_, enable);

/*
 * Enabled: the address to program into the DMA device.  Disabled: the CPU
 * physical address the memory must be placed at, if one was written.
 */
static ssize_t udmabuf_item_phys_addr_show(struct config_item *item,
					   char *page)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	dma_addr_t addr;
	ssize_t ret = 0;

	mutex_lock(&ui->lock);
	if (ui->buf) {
		ret = udmabuf_dma_addr(ui->buf, &addr);
		if (!ret)
			ret = sysfs_emit(page, "0x%016llx\n", (u64)addr);
	} else if (ui->cfg.placed) {
		ret = sysfs_emit(page, "0x%016llx\n", (u64)ui->cfg.place);
	}
	mutex_unlock(&ui->lock);
	return ret;
}

/* A page-aligned CPU physical address, or nothing to place freely again. */
static ssize_t udmabuf_item_phys_addr_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	bool placed = !sysfs_streq(page, "");
	u64 addr = 0;
	int ret;

	if (placed) {
		ret = kstrtou64(page, 0, &addr);
		if (ret)
			return ret;
		if (!PAGE_ALIGNED(addr))
			return -EINVAL;
		if (addr > PHYS_ADDR_MAX)
			return -ERANGE;
	}
	ret = udmabuf_item_lock_config(ui);
	if (ret)
		return ret;
	ui->cfg.placed = placed;
	ui->cfg.place = addr;
	mutex_unlock(&ui->lock);
	return count;
}

/* Physical addresses are for root, as in /proc/PID/pagemap. */
static struct configfs_attribute udmabuf_item_attr_phys_addr = {
	.ca_name	= "phys_addr",
	.ca_owner	= THIS_MODULE,
	.ca_mode	= 0600,
	.show		= udmabuf_item_phys_addr_show,
	.store		= udmabuf_item_phys_addr_store,
};

/*
 * Where the memory came from (memory.c).  While disabled: the allocator
 * asked for, or empty for the first that can give the memory.
 */
static ssize_t udmabuf_item_allocator_show(struct config_item *item,
					   char *page)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	ssize_t ret = 0;

	mutex_lock(&ui->lock);
	if (ui->buf)
		ret = sysfs_emit(page, "%s\n", udmabuf_allocator(ui->buf));
	else if (ui->cfg.want != UDMABUF_MEM_NONE)
		ret = sysfs_emit(page, "%s\n", udmabuf_mem_name(ui->cfg.want));
	mutex_unlock(&ui->lock);
	return ret;
}

static ssize_t udmabuf_item_allocator_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	enum udmabuf_mem want;
	int ret;

	ret = udmabuf_mem_parse(page, &want);
	if (ret)
		return ret;
	ret = udmabuf_item_lock_config(ui);
	if (ret)
		return ret;
	ui->cfg.want = want;
	mutex_unlock(&ui->lock);
	return count;
}
CONFIGFS_ATTR(udmabuf_item_, allocator);

static ssize_t udmabuf_item_dev_show(struct config_item *item, char *page)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	ssize_t ret = 0;

	mutex_lock(&ui->lock);
	if (ui->buf)
		ret = sysfs_emit(page, "%u:%u\n", MAJOR(ui->buf->dev.devt),
				 MINOR(ui->buf->dev.devt));
	mutex_unlock(&ui->lock);
	return ret;
}
CONFIGFS_ATTR_RO(udmabuf_item_, dev);

static ssize_t udmabuf_item_sync_check_show(struct config_item *item,
					    char *page)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	unsigned int mode;

	mutex_lock(&ui->lock);
	mode = ui->buf ? READ_ONCE(ui->buf->sync_check) : ui->cfg.sync_check;
	mutex_unlock(&ui->lock);
	return sysfs_emit(page, "%u\n", mode);
}

/* The sync checker (synccheck.c): set at any time, as sync_mode. */
static ssize_t udmabuf_item_sync_check_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);
	unsigned int mode;
	int ret;

	ret = kstrtouint(page, 10, &mode);
	if (!ret)
		ret = udmabuf_check_sync_check(mode);
	if (ret)
		return ret;

	mutex_lock(&ui->lock);
	if (ui->buf)
		ret = udmabuf_sc_set(ui->buf, mode);
	if (!ret)
		ui->cfg.sync_check = mode;
	mutex_unlock(&ui->lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(udmabuf_item_, sync_check);

/* Also the list behind the subsystem's "features" attribute. */
static struct configfs_attribute *udmabuf_item_attrs[] = {
	&udmabuf_item_attr_size,
	&udmabuf_item_attr_minor,
	&udmabuf_item_attr_device_name,
	&udmabuf_item_attr_sync_mode,
	&udmabuf_item_attr_dma_mask,
	&udmabuf_item_attr_mode,
	&udmabuf_item_attr_dma_device,
	&udmabuf_item_attr_enable,
	&udmabuf_item_attr_phys_addr,
	&udmabuf_item_attr_dev,
	&udmabuf_item_attr_allocator,
	&udmabuf_item_attr_sync_check,
	NULL
};

static void udmabuf_item_release(struct config_item *item)
{
	kfree(to_udmabuf_item(item));
}

static struct configfs_item_operations udmabuf_item_ops = {
	.release	= udmabuf_item_release,
};

static const struct config_item_type udmabuf_item_type = {
	.ct_item_ops	= &udmabuf_item_ops,
	.ct_attrs	= udmabuf_item_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_item *udmabuf_make_item(struct config_group *group,
					     const char *name)
{
	struct udmabuf_item *ui;

	ui = kzalloc(sizeof(*ui), GFP_KERNEL);
	if (!ui)
		return ERR_PTR(-ENOMEM);
	mutex_init(&ui->lock);
	udmabuf_config_init(&ui->cfg);
	config_item_init_type_name(&ui->item, name, &udmabuf_item_type);
	return &ui->item;
}

/*
 * rmdir cannot fail, so a buffer still in use loses its device node now and
 * keeps its memory until the last file and mapping are gone.
 */
static void udmabuf_drop_item(struct config_group *group,
			      struct config_item *item)
{
	struct udmabuf_item *ui = to_udmabuf_item(item);

	mutex_lock(&ui->lock);
	if (ui->buf)
		udmabuf_item_disable(ui, true);
	mutex_unlock(&ui->lock);
	config_item_put(item);
}

static struct configfs_group_operations udmabuf_group_ops = {
	.make_item	= udmabuf_make_item,
	.drop_item	= udmabuf_drop_item,
};

/* Names of the item attributes this module supports, for scripts. */
static ssize_t udmabuf_subsys_features_show(struct config_item *item,
					    char *page)
{
	ssize_t len = 0;
	int i;

	for (i = 0; udmabuf_item_attrs[i]; i++)
		len += sysfs_emit_at(page, len, "%s%s", i ? "," : "",
				     udmabuf_item_attrs[i]->ca_name);
	len += sysfs_emit_at(page, len, "\n");
	return len;
}
CONFIGFS_ATTR_RO(udmabuf_subsys_, features);

static struct configfs_attribute *udmabuf_subsys_attrs[] = {
	&udmabuf_subsys_attr_features,
	NULL
};

static const struct config_item_type udmabuf_subsys_type = {
	.ct_group_ops	= &udmabuf_group_ops,
	.ct_attrs	= udmabuf_subsys_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem udmabuf_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "udmabuf",
			.ci_type	= &udmabuf_subsys_type,
		},
	},
};

int udmabuf_configfs_init(void)
{
	config_group_init(&udmabuf_subsys.su_group);
	mutex_init(&udmabuf_subsys.su_mutex);
	return configfs_register_subsystem(&udmabuf_subsys);
}

void udmabuf_configfs_exit(void)
{
	configfs_unregister_subsystem(&udmabuf_subsys);
}
