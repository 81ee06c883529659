// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: the registry of buffers.
 *
 * This file holds what every way of creating a buffer shares: the table of
 * buffers (keyed by minor, also the name space of device names), the class
 * and the character device region, and the creation and destruction of a
 * buffer.  The frontends (configfs.c, params.c) call down into it; it calls
 * only the layers below (buffer.c, dma.c, sysfs.c).
 *
 * Lifetime: a buffer is a class device.  Its creator (a configfs item, a
 * module parameter or a device-tree node) holds one reference, every open
 * file holds one, and a mapping holds its file.  Destroying a buffer first
 * makes it unopenable, then removes the device from sysfs and /dev, then
 * frees its minor and name, and finally drops the creator's reference; the
 * memory goes with the last reference, never under a live mapping.
 *
 * A process-scoped buffer (process.c) has no device node and no creator
 * that outlives it: it destroys itself when its last user (file or
 * dma-buf) goes.  It still takes a name and an entry in the table, so that
 * its class device cannot clash with another buffer's; the entry lies above
 * every minor (UDMABUF_NODELESS_FIRST), so that it never takes a minor that
 * a node may ask for and no node's minor finds it.
 */

#include <linux/cdev.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "internal.h"

/* Protects udmabuf_table and the users and live fields of every buffer. */
DEFINE_MUTEX(udmabuf_lock);
/*
 * Every buffer from creation until its device is gone: one with a node at
 * its minor, one without (process.c) at an entry above every minor.
 */
static DEFINE_XARRAY_ALLOC(udmabuf_table);

/* The entries of buffers without a node: as many as there are minors. */
#define UDMABUF_NODELESS_FIRST	UDMABUF_MINORS
#define UDMABUF_NODELESS_LAST	(2 * UDMABUF_MINORS - 1)

static dev_t udmabuf_devt;
/*
 * From cdev_alloc(), not static: cdev_del() drops the last reference to its
 * kobject, whose release may run after the module is gone (delayed under
 * CONFIG_DEBUG_KOBJECT_RELEASE), and must then neither be in module memory
 * nor call module code.  A dynamic cdev's release is the core's kfree().
 */
static struct cdev *udmabuf_cdev;

static char *udmabuf_devnode(udmabuf_devnode_const struct device *dev,
			     umode_t *mode)
{
	const struct udmabuf_buffer *buf =
		container_of(dev, struct udmabuf_buffer, dev);

	if (mode)
		*mode = buf->mode;
	return NULL;
}

/*
 * Made with class_create(), not a static struct class: the class's last
 * reference may be dropped after the module is gone (its release is
 * delayed under CONFIG_DEBUG_KOBJECT_RELEASE), and class_create()'s
 * release is the driver core's own.
 */
static struct class *udmabuf_class;

/*
 * Buffer structures not yet freed.  A class device's release callback is
 * this module's code and may run late (delayed kobject release), so
 * module unload waits for the last of them.
 */
static atomic_t udmabuf_structs = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(udmabuf_structs_wq);

/*
 * devtmpfs silently keeps a node that exists already: a buffer named like
 * another device (mem, null, tty...) would leave /dev/NAME that device's,
 * and a program writing "its buffer" would write the other device.
 * Return: 0, -EEXIST if /dev/NAME exists, -ENOMEM.
 */
static int udmabuf_devnode_free(const char *name)
{
	struct path path;
	char *pathname;
	int ret;

	pathname = kasprintf(GFP_KERNEL, "/dev/%s", name);
	if (!pathname)
		return -ENOMEM;
	ret = kern_path(pathname, 0, &path);
	kfree(pathname);
	if (ret)
		return 0;
	path_put(&path);
	return -EEXIST;
}

/* Called with udmabuf_lock held. */
static bool udmabuf_name_taken(const char *name)
{
	struct udmabuf_buffer *buf;
	unsigned long minor;

	xa_for_each(&udmabuf_table, minor, buf)
		if (!strcmp(dev_name(&buf->dev), name))
			return true;
	return false;
}

/*
 * Claim the buffer's name and its entry in the table: @minor, else the
 * lowest free minor, or for a buffer without a node (@nodeless) the lowest
 * free entry above the minors.  It stays unopenable until live.
 */
static int udmabuf_reserve(struct udmabuf_buffer *buf, int minor,
			   bool nodeless)
{
	u32 id;
	int ret;

	mutex_lock(&udmabuf_lock);
	if (udmabuf_name_taken(dev_name(&buf->dev))) {
		ret = -EEXIST;
	} else if (nodeless) {
		ret = xa_alloc(&udmabuf_table, &id, buf,
			       XA_LIMIT(UDMABUF_NODELESS_FIRST,
					UDMABUF_NODELESS_LAST), GFP_KERNEL);
	} else if (minor >= 0) {
		id = minor;
		ret = xa_insert(&udmabuf_table, id, buf, GFP_KERNEL);
	} else {
		ret = xa_alloc(&udmabuf_table, &id, buf,
			       XA_LIMIT(0, UDMABUF_MINORS - 1), GFP_KERNEL);
	}
	if (!ret)
		buf->minor = id;
	mutex_unlock(&udmabuf_lock);
	return ret;
}

static void udmabuf_unreserve(struct udmabuf_buffer *buf)
{
	mutex_lock(&udmabuf_lock);
	xa_erase(&udmabuf_table, buf->minor);
	mutex_unlock(&udmabuf_lock);
}

static void udmabuf_set_live(struct udmabuf_buffer *buf, bool live)
{
	mutex_lock(&udmabuf_lock);
	buf->live = live;
	mutex_unlock(&udmabuf_lock);
}

/* The class device's release: only the structure is left to free. */
static void udmabuf_release(struct device *dev)
{
	kfree(to_udmabuf(dev));
	if (atomic_dec_and_test(&udmabuf_structs))
		wake_up(&udmabuf_structs_wq);
}

/*
 * The last reference to the buffer is gone: no creator, file, mapping or
 * dma-buf uses the memory any more.  The DMA device loses its mapping, the
 * memory goes page by page, a page with another user with that user
 * (memory.c).
 */
static void udmabuf_buffer_release(struct kref *ref)
{
	struct udmabuf_buffer *buf = container_of(ref, struct udmabuf_buffer,
						  ref);

	udmabuf_dma_detach(buf);
	udmabuf_free(buf);
	udmabuf_dma_release(buf);
	udmabuf_sc_release(buf);
	udmabuf_mapping_release(buf);
	/* The structure goes whenever the kobject core gets round to it. */
	put_device(&buf->dev);
}

static void udmabuf_ref_put(struct udmabuf_buffer *buf)
{
	kref_put(&buf->ref, udmabuf_buffer_release);
}

/**
 * udmabuf_create - allocate a buffer and create its device
 * @cfg: what to make; validated here
 *
 * Either everything exists afterwards (memory, minor, name, sysfs device
 * and, unless @cfg->nodeless, device node) or nothing does.
 *
 * Return: the buffer, holding the creator's reference, or an ERR_PTR():
 * what udmabuf_config_check() says of @cfg, -EINVAL for no name, -EEXIST
 * if the name is taken (by another
 * buffer, or as /dev/NAME by any other device), -EBUSY if
 * the minor is taken, -ERANGE if the platform cannot honour the DMA mask,
 * -ENOMEM if the memory cannot be allocated, what udmabuf_alloc() says
 * about a placement, -EINVAL if the DMA device would see placed memory
 * at another address, or what udmabuf_dma_setup() and udmabuf_dma_map()
 * say about the DMA device.
 */
struct udmabuf_buffer *udmabuf_create(const struct udmabuf_config *cfg)
{
	struct udmabuf_buffer *buf;
	int ret;

	ret = udmabuf_config_check(cfg);
	if (ret)
		return ERR_PTR(ret);
	if (!cfg->name[0])
		return ERR_PTR(-EINVAL);

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);

	buf->size = cfg->size;
	buf->sync_mode = cfg->sync_mode;
	buf->origin = cfg->origin;
	buf->mode = cfg->mode;
	buf->sync_offset = cfg->sync_offset;
	buf->sync_size = cfg->sync_size ? cfg->sync_size : cfg->size;
	buf->sync_direction = cfg->sync_direction;
	buf->placed = cfg->placed;
	buf->place = cfg->place;
	buf->want = cfg->want;
	buf->owner_pid = cfg->owner_pid;
	memcpy(buf->owner_comm, cfg->owner_comm, sizeof(buf->owner_comm));
	mutex_init(&buf->sync_lock);

	atomic_inc(&udmabuf_structs);
	kref_init(&buf->ref);
	device_initialize(&buf->dev);
	buf->dev.class = udmabuf_class;
	buf->dev.parent = cfg->parent;
	buf->dev.release = udmabuf_release;
	buf->dev.dma_mask = &buf->dma_mask;
	udmabuf_dma_init_buffer(buf);
	init_rwsem(&buf->sc_lock);
	atomic64_set(&buf->sync_violations, 0);
	ratelimit_state_init(&buf->sc_ratelimit, DEFAULT_RATELIMIT_INTERVAL,
			     DEFAULT_RATELIMIT_BURST);
	/* From here on, udmabuf_ref_put() frees whatever has been set up. */

	ret = dev_set_name(&buf->dev, "%s", cfg->name);
	if (ret)
		goto out_put_buffer;

	ret = udmabuf_dma_setup(buf, cfg);
	if (ret)
		goto out_put_buffer;

	if (!cfg->nodeless) {
		ret = udmabuf_devnode_free(cfg->name);
		if (ret)
			goto out_put_buffer;
	}

	ret = udmabuf_reserve(buf, cfg->minor, cfg->nodeless);
	if (ret)
		goto out_put_buffer;
	/* Without a devt, device_add() makes neither a node nor "dev". */
	if (!cfg->nodeless)
		buf->dev.devt = MKDEV(MAJOR(udmabuf_devt), buf->minor);

	ret = udmabuf_alloc(buf);
	if (ret)
		goto out_unreserve;
	ret = udmabuf_mapping_init(buf);
	if (!ret)
		ret = udmabuf_sc_set(buf, cfg->sync_check);
	if (ret)
		goto out_unreserve;

	/* From here on the release callback also undoes the mapping. */
	ret = udmabuf_dma_map(buf);
	if (ret)
		goto out_unreserve;
	/* Placed for a device that sees it elsewhere (an IOMMU, an offset). */
	if (buf->placed && buf->dma_addr != buf->phys_addr) {
		ret = -EINVAL;
		goto out_unreserve;
	}

	/*
	 * Openable before it is announced: device_add() sends the uevent, and
	 * whoever reacts to it (udev, an inotify watcher) may open the node
	 * before device_add() returns.
	 */
	udmabuf_set_live(buf, true);
	ret = device_add(&buf->dev);
	if (ret)
		goto out_clear_live;
	return buf;

out_clear_live:
	/* A file opened through a stale node keeps the memory: that is fine. */
	udmabuf_set_live(buf, false);
out_unreserve:
	udmabuf_unreserve(buf);
out_put_buffer:
	udmabuf_ref_put(buf);
	return ERR_PTR(ret);
}

/* The buffer is no longer live: remove its device, drop the creator's ref. */
static void udmabuf_remove(struct udmabuf_buffer *buf)
{
	device_del(&buf->dev);
	/* Only now may another buffer take the minor and the name. */
	udmabuf_unreserve(buf);
	udmabuf_ref_put(buf);
}

/**
 * udmabuf_destroy - remove a buffer's device and drop the creator's reference
 * @buf: buffer from udmabuf_create()
 * @force: remove it even while files are open or mapped
 *
 * Without @force, a buffer in use is left alone.  With it, the device node,
 * sysfs device, minor and name go at once; open files and mappings keep the
 * memory until they are closed.
 *
 * Return: 0, or -EBUSY if @buf is in use and @force is not set.
 */
int udmabuf_destroy(struct udmabuf_buffer *buf, bool force)
{
	mutex_lock(&udmabuf_lock);
	if (buf->users && !force) {
		mutex_unlock(&udmabuf_lock);
		return -EBUSY;
	}
	buf->live = false;
	mutex_unlock(&udmabuf_lock);

	udmabuf_remove(buf);
	return 0;
}

/* A reference and a user for @buf if it is live; udmabuf_lock held. */
static struct udmabuf_buffer *__udmabuf_user_get(struct udmabuf_buffer *buf)
{
	lockdep_assert_held(&udmabuf_lock);
	if (!buf || !buf->live)
		return ERR_PTR(-ENODEV);
	kref_get(&buf->ref);
	buf->users++;
	return buf;
}

/**
 * udmabuf_user_get - find the buffer of a minor for a new open file
 * @minor: minor number of the device node being opened
 *
 * A minor is below UDMABUF_MINORS, so only a buffer with a node is found:
 * a process-scoped buffer's entry lies above them.
 *
 * Return: the buffer with a reference and a user counted, or
 * ERR_PTR(-ENODEV) if no live buffer has this minor (it was deleted, or
 * the node is a stale copy).
 */
struct udmabuf_buffer *udmabuf_user_get(unsigned int minor)
{
	struct udmabuf_buffer *buf;

	mutex_lock(&udmabuf_lock);
	buf = __udmabuf_user_get(xa_load(&udmabuf_table, minor));
	mutex_unlock(&udmabuf_lock);
	return buf;
}

/**
 * udmabuf_user_add - count a dma-buf export as a user
 * @buf: buffer of an open file, or a process-scoped buffer being given
 *	its first file (process.c)
 *
 * Return: @buf with a reference and a user counted, or ERR_PTR(-ENODEV)
 * if it is being removed.  Undone by udmabuf_user_put().
 */
struct udmabuf_buffer *udmabuf_user_add(struct udmabuf_buffer *buf)
{
	mutex_lock(&udmabuf_lock);
	buf = __udmabuf_user_get(buf);
	mutex_unlock(&udmabuf_lock);
	return buf;
}

/*
 * Undo udmabuf_user_get() when a file is released.  A process-scoped buffer is
 * gone with its last user: nothing can open it again.  Its memory then
 * goes as any destroyed buffer's does (memory.c).
 */
void udmabuf_user_put(struct udmabuf_buffer *buf)
{
	bool idle, gone = false;

	mutex_lock(&udmabuf_lock);
	idle = !--buf->users && buf->live;
	if (idle && buf->origin == UDMABUF_ORIGIN_PROCESS) {
		buf->live = false;
		gone = true;
	}
	mutex_unlock(&udmabuf_lock);
	if (gone)
		udmabuf_remove(buf);
	udmabuf_ref_put(buf);
}

/*
 * The class, the minors and the character device every buffer uses; @fops
 * are the device nodes' file operations (buffer.c's).
 */
int udmabuf_registry_init(const struct file_operations *fops)
{
	int ret;

	ret = alloc_chrdev_region(&udmabuf_devt, 0, UDMABUF_MINORS, "udmabuf");
	if (ret)
		return ret;

	udmabuf_cdev = cdev_alloc();
	if (!udmabuf_cdev) {
		ret = -ENOMEM;
		goto out_unregister_region;
	}
	udmabuf_cdev->ops = fops;
	udmabuf_cdev->owner = THIS_MODULE;
	ret = cdev_add(udmabuf_cdev, udmabuf_devt, UDMABUF_MINORS);
	if (ret)
		goto out_del_cdev;	/* unmaps nothing, frees the cdev */

	udmabuf_class = udmabuf_class_create("udmabuf");
	if (IS_ERR(udmabuf_class)) {
		ret = PTR_ERR(udmabuf_class);
		goto out_del_cdev;
	}
	udmabuf_class->devnode = udmabuf_devnode;
	udmabuf_class->dev_groups = udmabuf_dev_groups;
	return 0;

out_del_cdev:
	cdev_del(udmabuf_cdev);
out_unregister_region:
	unregister_chrdev_region(udmabuf_devt, UDMABUF_MINORS);
	return ret;
}

/* Called once every buffer is destroyed. */
void udmabuf_registry_exit(void)
{
	/* Their structures may still wait for a delayed release. */
	wait_event(udmabuf_structs_wq, !atomic_read(&udmabuf_structs));
	class_destroy(udmabuf_class);
	cdev_del(udmabuf_cdev);
	unregister_chrdev_region(udmabuf_devt, UDMABUF_MINORS);
	xa_destroy(&udmabuf_table);
}

/* The major number, for the log line at load. */
unsigned int udmabuf_major(void)
{
	return MAJOR(udmabuf_devt);
}
