// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: process-scoped buffers, from /dev/udmabuf-cfs.
 *
 * The ioctl UDMABUF_CFS_IOC_ALLOC on the misc device /dev/udmabuf-cfs
 * makes a buffer and hands out a new file that is the buffer: it has the
 * file operations of /dev/<device>, and holds a reference and a user of the
 * buffer as an open of /dev/<device> does (and, through the file
 * operations' owner, the module).  There is no configfs item and no device
 * node; a class device /sys/class/udmabuf/proc-PID-N (PID of the allocating
 * process, N a sequence number of the module) shows it beside the others,
 * with its owner.  When its last user (file or dma-buf) goes, and so after
 * its last mapping, the buffer removes itself (registry.c) and its memory
 * goes as any destroyed buffer's: nothing is left behind by a program that
 * is killed.
 *
 * Who may allocate is the node's mode (0600 root; udev rules give it to a
 * group).  Such buffers are charged, before any memory is taken, as the
 * kernel charges memory that user space keeps resident (io_uring's fixed
 * buffers, VFIO's DMA mappings): against the parameter process_max, for
 * all of them together, since contiguous memory is scarce; and against the
 * allocating user's RLIMIT_MEMLOCK (the user's locked_vm, shared with
 * io_uring), unless it has CAP_IPC_LOCK (quota.c).  Over either the ioctl
 * fails with ENOMEM and the log says why.  Memory from the page allocator
 * is also charged to the memory cgroup (memory.c).  A charge lasts as long
 * as the memory: a page left in a pipe keeps its share (memory.c's
 * leftovers).
 */

#include <linux/anon_inodes.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/cred.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/udmabuf-cfs.h>

#include "internal.h"

/* Names tried when proc-PID-N is taken (a configfs item of that name). */
#define UDMABUF_PROCESS_NAME_TRIES	8

static atomic_t udmabuf_process_seq = ATOMIC_INIT(0);

/* process_max and process_used: the quota's (quota.c). */
static int udmabuf_process_max_param_set(const char *val,
					 const struct kernel_param *kp)
{
	u64 max;
	int ret;

	ret = udmabuf_parse_size(val, &max);
	if (!ret)
		udmabuf_quota_set_max(max);
	return ret;
}

static int udmabuf_process_max_param_get(char *page,
					 const struct kernel_param *kp)
{
	u64 max, used;

	udmabuf_quota_read(&max, &used);
	return sysfs_emit(page, "%llu\n", max);
}

static const struct kernel_param_ops udmabuf_process_max_ops = {
	.set	= udmabuf_process_max_param_set,
	.get	= udmabuf_process_max_param_get,
};
module_param_cb(process_max, &udmabuf_process_max_ops, NULL, 0644);
MODULE_PARM_DESC(process_max,
		 "Bytes all process-scoped buffers (/dev/udmabuf-cfs) may hold together, K/M/G suffixes accepted; default a quarter of RAM, 0 refuses every one");

static int udmabuf_process_used_param_set(const char *val,
					  const struct kernel_param *kp)
{
	return -EINVAL;	/* read-only */
}

static int udmabuf_process_used_param_get(char *page,
					  const struct kernel_param *kp)
{
	u64 max, used;

	/* What is used now: no page that has gone since. */
	udmabuf_leftovers_reclaim();
	udmabuf_quota_read(&max, &used);
	return sysfs_emit(page, "%llu\n", used);
}

static const struct kernel_param_ops udmabuf_process_used_ops = {
	.set	= udmabuf_process_used_param_set,
	.get	= udmabuf_process_used_param_get,
};
module_param_cb(process_used, &udmabuf_process_used_ops, NULL, 0444);
MODULE_PARM_DESC(process_used,
		 "Bytes process-scoped buffers hold now (read-only)");

/*
 * Turn a request into a configuration: its own fields (flags, reserved
 * bytes, a NUL-terminated dma_device) here, the values as every way in's
 * (udmabuf_config_check()).  Return: 0, -EINVAL or -ERANGE.
 */
static int udmabuf_process_config(const struct udmabuf_cfs_alloc *req,
				  struct udmabuf_config *cfg)
{
	u32 mode = req->flags & O_ACCMODE;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(req->reserved); i++)
		if (req->reserved[i])
			return -EINVAL;
	if (req->flags & ~UDMABUF_CFS_ALLOC_VALID_FLAGS)
		return -EINVAL;
	if (mode != O_RDONLY && mode != O_RDWR)
		return -EINVAL;
	if (!memchr(req->dma_device, '\0', sizeof(req->dma_device)))
		return -EINVAL;
	if (req->allocator > UDMABUF_CFS_ALLOCATOR_MAX)
		return -EINVAL;

	udmabuf_config_init(cfg);
	cfg->want = req->allocator;
	cfg->size = req->size;
	cfg->sync_mode = req->sync_mode;
	if (req->dma_bits)
		cfg->dma_bits = req->dma_bits;
	cfg->origin = UDMABUF_ORIGIN_PROCESS;
	cfg->nodeless = true;
	strscpy(cfg->dma_device, req->dma_device, sizeof(cfg->dma_device));
	cfg->owner_pid = task_tgid_nr(current);
	get_task_comm(cfg->owner_comm, current);
	cfg->sync_check = req->sync_check;
	return udmabuf_config_check(cfg);
}

/* Make the buffer under a free proc-PID-N name. */
static struct udmabuf_buffer *udmabuf_process_create(struct udmabuf_config *cfg)
{
	struct udmabuf_buffer *buf = ERR_PTR(-EEXIST);
	int i;

	for (i = 0; i < UDMABUF_PROCESS_NAME_TRIES; i++) {
		snprintf(cfg->name, sizeof(cfg->name), "proc-%d-%u",
			 cfg->owner_pid,
			 (unsigned int)atomic_inc_return(&udmabuf_process_seq));
		buf = udmabuf_create(cfg);
		if (!IS_ERR(buf) || PTR_ERR(buf) != -EEXIST)
			break;
	}
	return buf;
}

/*
 * The file of a new buffer, holding its first user; the buffer removes
 * itself when that file and whatever it hands out are gone.
 */
static struct file *udmabuf_process_file(struct udmabuf_buffer *buf,
					 u32 flags)
{
	char name[UDMABUF_CFS_NAME_MAX + 16];
	struct file *file;

	/* Nobody else can reach the buffer yet: it cannot fail. */
	if (WARN_ON(IS_ERR(udmabuf_user_add(buf)))) {
		udmabuf_destroy(buf, true);
		return ERR_PTR(-ENODEV);
	}
	snprintf(name, sizeof(name), "udmabuf-cfs:%s", dev_name(&buf->dev));
	/* Takes a module reference through udmabuf_fops.owner. */
	file = anon_inode_getfile(name, &udmabuf_fops, buf, flags & O_ACCMODE);
	if (IS_ERR(file)) {
		udmabuf_user_put(buf);
		return file;
	}
	/* As an open of /dev/<device>: seekable, pread() and pwrite(). */
	file->f_mode |= FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE;
	file->f_mapping = buf->inode->i_mapping;
	return file;
}

static long udmabuf_ioctl_alloc(struct udmabuf_cfs_alloc __user *arg)
{
	struct udmabuf_cfs_alloc req;
	struct udmabuf_config *cfg;
	const struct cred *cred = NULL;
	struct udmabuf_buffer *buf;
	struct file *file;
	u64 charge;
	int fd, ret;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	/* Too large for the stack: a name and a DMA device name. */
	cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	ret = udmabuf_process_config(&req, cfg);
	if (ret)
		goto out_free_cfg;

	charge = PAGE_ALIGN(req.size);
	/* Pages that have gone since a buffer was freed are not charged. */
	udmabuf_leftovers_reclaim();
	ret = udmabuf_quota_charge(charge, &cred);
	if (ret)
		goto out_free_cfg;

	fd = get_unused_fd_flags(req.flags & O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto out_uncharge;
	}
	buf = udmabuf_process_create(cfg);
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		goto out_put_fd;
	}
	/* From here on the charge goes back with the memory. */
	buf->charged = charge;
	buf->charge_cred = cred;

	file = udmabuf_process_file(buf, req.flags);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		put_unused_fd(fd);
		goto out_free_cfg;
	}
	req.fd = fd;
	if (copy_to_user(arg, &req, sizeof(req))) {
		/* Releasing the file removes the buffer. */
		fput(file);
		put_unused_fd(fd);
		ret = -EFAULT;
		goto out_free_cfg;
	}
	/* Only now is the file visible to user space. */
	fd_install(fd, file);
	kfree(cfg);
	return 0;

out_put_fd:
	put_unused_fd(fd);
out_uncharge:
	udmabuf_quota_uncharge(cred, charge);
	if (cred)
		put_cred(cred);
out_free_cfg:
	kfree(cfg);
	return ret;
}

static long udmabuf_process_ioctl(struct file *file, unsigned int cmd,
				  unsigned long arg)
{
	switch (cmd) {
	case UDMABUF_CFS_IOC_ALLOC:
		return udmabuf_ioctl_alloc((void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations udmabuf_process_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= udmabuf_process_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice udmabuf_process_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "udmabuf-cfs",
	.fops	= &udmabuf_process_fops,
	.mode	= 0600,
};

int udmabuf_process_init(void)
{
	udmabuf_quota_init();
	return misc_register(&udmabuf_process_misc);
}

/* Open files of the node and the buffers' files hold the module. */
void udmabuf_process_exit(void)
{
	misc_deregister(&udmabuf_process_misc);
}
