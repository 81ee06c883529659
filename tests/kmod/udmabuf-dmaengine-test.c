// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-dmaengine-test - a test-only module that lets a DMA engine of the
 * SoC copy memory between DMA addresses that user space names, so that the
 * tests can have a real DMA master read and write udmabuf-cfs buffers
 * (tests/bats-zynq/pl330.bats: the Zynq-7000's PL330).  Not for production:
 * it copies wherever it is told.
 *
 * At load it takes a DMA_MEMCPY channel from dmaengine (any engine that
 * offers one; on a Zynq-7000 the PL330 at 0xf8003000) and keeps it until it
 * is unloaded.  debugfs, below udmabuf-dmaengine-test/:
 *
 *   channel   read: "CHANNEL DEVICE\n", e.g. "dma0chan0 f8003000.dma-controller"
 *   copy      write "SRC DST LENGTH" (numbers in C syntax: 0x.. hex or
 *             decimal): the channel copies LENGTH bytes from DMA address SRC
 *             to DMA address DST, and the write returns when it is done.
 *             Errors: EINVAL malformed or LENGTH 0, ERANGE an address or
 *             range beyond dma_addr_t, EIO the engine refused or failed the
 *             transfer, ETIMEDOUT it did not finish within timeout_ms.
 *
 * The addresses are DMA addresses of the channel's device (the engine),
 * the ones its descriptors are programmed with.  A udmabuf-cfs buffer's
 * phys_addr is the DMA address for the buffer's own device; on a
 * Zynq-7000 there is no IOMMU and no offset between the CPU's and the
 * masters' view of DDR, so it is the physical address and the PL330 can use
 * it as it is.  Behind an IOMMU it could not: the buffer would have to be
 * made for the engine (configfs dma_device).
 *
 * Cache maintenance is the caller's business, as with any DMA master that
 * user space programs: sync for the device before, for the CPU after.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/dmaengine.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static unsigned int timeout_ms = 5000;
module_param(timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "how long a copy may take, in milliseconds (default 5000)");

static struct dma_chan *chan;
static struct dentry *dir;

/* Serialises the copies. */
static DEFINE_MUTEX(copy_lock);

struct copy_wait {
	struct completion done;
	enum dmaengine_tx_result result;
};

static void copy_callback(void *arg, const struct dmaengine_result *res)
{
	struct copy_wait *w = arg;

	w->result = res ? res->result : DMA_TRANS_NOERROR;
	complete(&w->done);
}

/*
 * The way the kernel's dmatest moves memory: prepare a memcpy descriptor,
 * submit it, issue the pending work and wait, bounded, for the callback.
 * The wait structure is on the stack: a transfer that times out is
 * terminated (synchronously) before it can call back into a dead frame.
 */
static int do_copy(dma_addr_t src, dma_addr_t dst, size_t len)
{
	struct dma_async_tx_descriptor *tx;
	struct copy_wait w;
	enum dma_status status;
	dma_cookie_t cookie;

	init_completion(&w.done);
	w.result = DMA_TRANS_NOERROR;
	tx = dmaengine_prep_dma_memcpy(chan, dst, src, len,
				       DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
	if (!tx)
		return -EIO;
	tx->callback = NULL;
	tx->callback_result = copy_callback;
	tx->callback_param = &w;
	cookie = dmaengine_submit(tx);
	if (dma_submit_error(cookie))
		return -EIO;
	dma_async_issue_pending(chan);
	if (!wait_for_completion_timeout(&w.done, msecs_to_jiffies(timeout_ms))) {
		dmaengine_terminate_sync(chan);
		return -ETIMEDOUT;
	}
	status = dma_async_is_tx_complete(chan, cookie, NULL, NULL);
	if (status != DMA_COMPLETE || w.result != DMA_TRANS_NOERROR)
		return -EIO;
	return 0;
}

/* [ADDR, ADDR + LEN) does not wrap and is within dma_addr_t's reach. */
static bool dma_range_ok(u64 addr, u64 len)
{
	u64 end = addr + len - 1;

	return end >= addr && (dma_addr_t)end == end;
}

/* "SRC DST LENGTH" into the three numbers. */
static int parse_copy(char *s, u64 *src, u64 *dst, u64 *len)
{
	u64 *v[] = { src, dst, len };
	char *tok;
	int i, err;

	s = strim(s);
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		do {
			tok = strsep(&s, " \t");
		} while (tok && !*tok);
		if (!tok)
			return -EINVAL;
		err = kstrtou64(tok, 0, v[i]);
		if (err)
			return err;
	}
	return s && *skip_spaces(s) ? -EINVAL : 0;
}

static ssize_t copy_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	u64 src, dst, len;
	char *buf;
	int err;

	if (count > 128)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	err = parse_copy(buf, &src, &dst, &len);
	kfree(buf);
	if (err)
		return err == -ERANGE ? -ERANGE : -EINVAL;
	if (!len)
		return -EINVAL;
	if ((size_t)len != len || !dma_range_ok(src, len) || !dma_range_ok(dst, len))
		return -ERANGE;

	mutex_lock(&copy_lock);
	err = do_copy(src, dst, len);
	mutex_unlock(&copy_lock);
	return err ? err : count;
}

static const struct file_operations copy_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = copy_write,
	.llseek = default_llseek,
};

static ssize_t channel_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[96];
	int n;

	n = scnprintf(buf, sizeof(buf), "%s %s\n", dma_chan_name(chan),
		      dev_name(chan->device->dev));
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations channel_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = channel_read,
	.llseek = default_llseek,
};

static int __init dmaengine_test_init(void)
{
	dma_cap_mask_t mask;

	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	chan = dma_request_chan_by_mask(&mask);
	if (IS_ERR(chan)) {
		pr_info("no DMA_MEMCPY channel: %pe\n", chan);
		return PTR_ERR(chan);
	}
	dir = debugfs_create_dir("udmabuf-dmaengine-test", NULL);
	debugfs_create_file("channel", 0400, dir, NULL, &channel_fops);
	debugfs_create_file("copy", 0200, dir, NULL, &copy_fops);
	pr_info("%s of %s\n", dma_chan_name(chan), dev_name(chan->device->dev));
	return 0;
}

static void __exit dmaengine_test_exit(void)
{
	debugfs_remove_recursive(dir);
	dmaengine_terminate_sync(chan);
	dma_release_channel(chan);
}

module_init(dmaengine_test_init);
module_exit(dmaengine_test_exit);
MODULE_DESCRIPTION("udmabuf-cfs tests: memory copies by a dmaengine channel between DMA addresses user space names");
MODULE_LICENSE("GPL");
