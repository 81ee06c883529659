// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: buffers declared in the device tree.
 *
 * A platform driver for nodes compatible with "ikwzm,udmabuf-0.10.a" or
 * "ikwzm,u-dma-buf", one buffer per node.  The node's platform device,
 * which the platform bus gave the node's DMA configuration (dma-coherent,
 * dma-ranges, iommus), is the buffer's DMA device; the buffer takes the
 * node's memory-region.  Unbinding tears the DMA mapping down and removes
 * the device at once, like rmdir.  The driver is registered after the
 * module parameters' buffers are made (params.c), so a minor or name clash
 * fails the device-tree buffer, not the parameter one.
 */

#include <linux/dma-mapping.h>
#include <linux/kernel.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/of_device.h>
#include <linux/platform_device.h>
#include <linux/udmabuf-cfs.h>

#include "internal.h"

/*
 * Read a number that may be written as one or two cells (u32 or u64).
 * Return: 0, -ENOENT if absent, -EINVAL if it is neither.
 */
static int udmabuf_of_read_number(struct device_node *np, const char *name,
				  u64 *val)
{
	u32 val32;
	int len;

	if (!of_find_property(np, name, &len))
		return -ENOENT;
	if (len == sizeof(u64))
		return of_property_read_u64(np, name, val) ? -EINVAL : 0;
	if (len != sizeof(u32) || of_property_read_u32(np, name, &val32))
		return -EINVAL;
	*val = val32;
	return 0;
}

/*
 * Read an optional u32 property into *@val (absent leaves it alone) and
 * check it with @check (config.c's, as for every way in); the log says
 * which property and what it must be.
 */
static int udmabuf_of_read_u32(struct device *dev, const char *name,
			       int (*check)(u64 val), const char *what,
			       u32 *val)
{
	struct device_node *np = dev->of_node;
	u32 tmp;
	int ret;

	if (!of_find_property(np, name, NULL))
		return 0;
	if (of_property_read_u32(np, name, &tmp)) {
		dev_err(dev, "%s: must be a u32: %s\n", name, what);
		return -EINVAL;
	}
	ret = check(tmp);
	if (ret) {
		dev_err(dev, "%s: must be %s, not %u\n", name, what, tmp);
		return ret;
	}
	*val = tmp;
	return 0;
}

/* Read an optional u32 or u64 (sync-offset, sync-size) checked against @size. */
static int udmabuf_of_read_u64(struct device *dev, const char *name,
			       int (*check)(u64 size, u64 val), u64 size,
			       u64 *val)
{
	u64 tmp;
	int ret;

	ret = udmabuf_of_read_number(dev->of_node, name, &tmp);
	if (ret == -ENOENT)
		return 0;
	if (!ret)
		ret = check(size, tmp);
	if (ret) {
		dev_err(dev, "%s: must be a u32 or u64 within the buffer's %llu bytes\n",
			name, size);
		return ret;
	}
	*val = tmp;
	return 0;
}

static int udmabuf_of_check_minor(u64 minor)
{
	return minor > INT_MAX ? -ERANGE : udmabuf_check_minor(minor);
}

/* device-name, else udmabuf<minor-number>, else the node name. */
static int udmabuf_of_name(struct device *dev, struct udmabuf_config *cfg)
{
	struct device_node *np = dev->of_node;
	const char *name = np->name;

	if (of_find_property(np, "device-name", NULL)) {
		if (of_property_read_string(np, "device-name", &name)) {
			dev_err(dev, "device-name: must be a string\n");
			return -EINVAL;
		}
	} else if (cfg->minor >= 0) {
		snprintf(cfg->name, sizeof(cfg->name), "udmabuf%d", cfg->minor);
		return 0;
	}

	if (strscpy(cfg->name, name, sizeof(cfg->name)) < 0 ||
	    !udmabuf_name_valid(cfg->name)) {
		dev_err(dev, "device-name \"%s\": must be 1..%d of [A-Za-z0-9_.-]\n",
			name, UDMABUF_CFS_NAME_MAX);
		return -EINVAL;
	}
	return 0;
}

static int udmabuf_of_config(struct device *dev, struct udmabuf_config *cfg)
{
	struct device_node *np = dev->of_node;
	u32 minor = UDMABUF_MINORS, sync_mode, direction = 0, bits, mode;
	int ret;

	udmabuf_config_init(cfg);
	cfg->origin = UDMABUF_ORIGIN_DT;
	cfg->parent = dev;
	cfg->of_node = np;
	cfg->dma_target = dev;
	sync_mode = cfg->sync_mode;
	bits = cfg->dma_bits;
	mode = cfg->mode;

	ret = udmabuf_of_read_number(np, "size", &cfg->size);
	if (!ret)
		ret = udmabuf_check_size(cfg->size);
	if (ret) {
		dev_err(dev, "size: %s\n", ret == -ENOENT ? "missing" :
			"must be a u32 or u64, not 0 and not too large");
		return ret == -ENOENT ? -EINVAL : ret;
	}

	ret = udmabuf_of_read_u32(dev, "minor-number", udmabuf_of_check_minor,
				  "a minor number", &minor);
	if (ret)
		return ret;
	if (minor < UDMABUF_MINORS)
		cfg->minor = minor;

	ret = udmabuf_of_read_u32(dev, "sync-mode", udmabuf_check_sync_mode,
				  "a sync_mode 0..7", &sync_mode);
	if (ret)
		return ret;
	if (of_property_read_bool(np, "sync-always"))
		sync_mode |= UDMABUF_CFS_SYNC_MODE_ALWAYS;
	cfg->sync_mode = sync_mode;

	ret = udmabuf_of_read_u32(dev, "sync-direction", udmabuf_check_direction,
				  "0 (both), 1 (to device) or 2 (from device)",
				  &direction);
	if (ret)
		return ret;
	cfg->sync_direction = direction;

	ret = udmabuf_of_read_u64(dev, "sync-offset", udmabuf_check_sync_offset,
				  cfg->size, &cfg->sync_offset);
	if (ret)
		return ret;
	ret = udmabuf_of_read_u64(dev, "sync-size", udmabuf_check_sync_size,
				  cfg->size, &cfg->sync_size);
	if (ret)
		return ret;

	ret = udmabuf_of_read_u32(dev, "dma-mask", udmabuf_check_dma_bits,
				  "a DMA address width of 12..64 bits", &bits);
	if (ret)
		return ret;
	cfg->dma_bits = bits;

	ret = udmabuf_of_read_u32(dev, "sync-check", udmabuf_check_sync_check,
				  "0 (off), 1 (report) or 2 (SIGBUS)",
				  &cfg->sync_check);
	if (ret)
		return ret;

	/* Permissions of the device node, as configfs mode: mode = <0660>. */
	ret = udmabuf_of_read_u32(dev, "mode", udmabuf_check_mode,
				  "permissions 01..0777 (octal: mode = <0660>)",
				  &mode);
	if (ret)
		return ret;
	cfg->mode = mode;

	return udmabuf_of_name(dev, cfg);
}

/* Why udmabuf_create() refused a node, in words for the log. */
static const char *udmabuf_of_reason(int err)
{
	switch (err) {
	case -EBUSY:
		return "its minor-number is taken";
	case -EEXIST:
		return "its name is taken";
	case -ENOMEM:
		/* Large buffers need CMA; a no-map region serves one buffer. */
		return "not enough contiguous memory in its pool";
	case -ERANGE:
		return "the platform cannot allocate within its dma-mask";
	default:
		return "cannot set it up";
	}
}

static int udmabuf_of_probe(struct platform_device *pdev)
{
	struct udmabuf_config cfg;
	struct udmabuf_buffer *buf;
	int ret;

	ret = udmabuf_of_config(&pdev->dev, &cfg);
	if (ret)
		return ret;

	/* The node's device is the DMA master: it takes the node's mask. */
	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(cfg.dma_bits));
	if (ret) {
		dev_err(&pdev->dev, "dma-mask %u: %s\n", cfg.dma_bits,
			udmabuf_of_reason(-ERANGE));
		return -ERANGE;
	}

	buf = udmabuf_create(&cfg);
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		/* A deferral is not an error; its reason is kept for debugfs. */
		if (ret == -EPROBE_DEFER)
			return dev_err_probe(&pdev->dev, ret, "%s: waiting\n",
					     cfg.name);
		/* dev_err_probe() would say nothing about -ENOMEM: say why. */
		dev_err(&pdev->dev, "cannot create %s (%llu bytes, minor %d): %s: %pe\n",
			cfg.name, cfg.size, cfg.minor, udmabuf_of_reason(ret),
			buf);
		return ret;
	}
	platform_set_drvdata(pdev, buf);
	return 0;
}

/*
 * Like rmdir: the device goes now, the memory with its last user.  The
 * DMA mapping is for this platform device, so it goes now too.
 */
static void udmabuf_of_remove(struct platform_device *pdev)
{
	struct udmabuf_buffer *buf = platform_get_drvdata(pdev);

	udmabuf_dma_detach(buf);
	udmabuf_destroy(buf, true);
}

UDMABUF_PLATFORM_REMOVE(udmabuf_of_remove)

static const struct of_device_id udmabuf_of_match[] = {
	{ .compatible = "ikwzm,udmabuf-0.10.a" },
	{ .compatible = "ikwzm,u-dma-buf" },
	{ }
};
MODULE_DEVICE_TABLE(of, udmabuf_of_match);

static struct platform_driver udmabuf_of_driver = {
	.probe			= udmabuf_of_probe,
	.remove			= platform_remove_op(udmabuf_of_remove),
	.driver = {
		.name		= "udmabuf-cfs",
		.of_match_table	= udmabuf_of_match,
	},
};

int udmabuf_of_init(void)
{
	return platform_driver_register(&udmabuf_of_driver);
}

void udmabuf_of_exit(void)
{
	platform_driver_unregister(&udmabuf_of_driver);
}
