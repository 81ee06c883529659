// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: physically contiguous DMA buffers for user space.
 *
 * Module load and unload, on top of everything else: the registry and the
 * DMA layer first, then the frontends that create buffers (module
 * parameters, the device tree, configfs, /dev/udmabuf-cfs), and the
 * reverse at unload.
 *
 * Lifetime: a buffer is a class device.  Its creator (a configfs item, a
 * module parameter or a device-tree node) holds one reference, every open
 * file holds one, and a mapping holds its file.  Destroying a buffer first
 * makes it unopenable, then removes the device from sysfs and /dev, then
 * frees its minor and name, and finally drops the creator's reference; the
 * memory goes with the last reference, never under a live mapping.
 */

#include <linux/init.h>
#include <linux/module.h>

#include "internal.h"

static int __init udmabuf_init(void)
{
	int ret;

	/* The file operations of every /dev/<device>. */
	ret = udmabuf_registry_init(&udmabuf_fops);
	if (ret)
		return ret;

	ret = udmabuf_memory_init();
	if (ret)
		goto out_registry_exit;

	ret = udmabuf_mmap_init();
	if (ret)
		goto out_memory_exit;

	ret = udmabuf_dma_init();
	if (ret)
		goto out_mmap_exit;

	ret = udmabuf_params_init();
	if (ret)
		goto out_dma_exit;

	ret = udmabuf_of_init();
	if (ret)
		goto out_params_exit;

	ret = udmabuf_configfs_init();
	if (ret)
		goto out_of_exit;

	ret = udmabuf_process_init();
	if (ret)
		goto out_configfs_exit;

	pr_info("version " UDMABUF_CFS_VERSION " loaded, major %u\n",
		udmabuf_major());
	return 0;

out_configfs_exit:
	udmabuf_configfs_exit();
out_of_exit:
	udmabuf_of_exit();
out_params_exit:
	udmabuf_params_exit();
out_dma_exit:
	udmabuf_dma_exit();
out_mmap_exit:
	udmabuf_mmap_exit();
out_memory_exit:
	udmabuf_memory_exit();
out_registry_exit:
	udmabuf_registry_exit();
	return ret;
}
module_init(udmabuf_init);

/*
 * Open files (of /dev/<device>, of /dev/udmabuf-cfs and of process-scoped
 * buffers), dma-bufs and configfs items hold a reference on the module, so
 * by the time this runs only the buffers made from parameters and the
 * device tree are left, unused.
 */
static void __exit udmabuf_exit(void)
{
	udmabuf_process_exit();
	udmabuf_configfs_exit();
	udmabuf_of_exit();
	udmabuf_params_exit();
	udmabuf_dma_exit();
	udmabuf_mmap_exit();
	udmabuf_memory_exit();
	udmabuf_registry_exit();
	/* Every release callback of this module has run by now. */
	pr_info("unloaded\n");
}
module_exit(udmabuf_exit);

MODULE_DESCRIPTION("Physically contiguous DMA buffers for user space, managed through configfs");
MODULE_LICENSE("GPL");
MODULE_VERSION(UDMABUF_CFS_VERSION);
