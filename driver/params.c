// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: buffers declared outside configfs.
 *
 * Module parameters:
 *
 *   insmod udmabuf-cfs.ko udmabuf0=1048576 udmabuf3=4M
 *
 * creates /dev/udmabuf0 (minor 0) and /dev/udmabuf3 (minor 3).
 * udmabufN_bind=BUS/DEVICE (e.g. pci/0000:01:00.0) binds udmabufN to that
 * DMA device, like a configfs item's dma_device; udmabufN_phys=ADDR places
 * it at that CPU physical address, like a configfs item's phys_addr.  They
 * live until the
 * module is removed.  If one cannot be made, loading fails and
 * none is left behind.  They are made before the device-tree buffers, so a
 * minor or name clash fails the device-tree buffer, not the parameter one.
 *
 * Device tree: a platform driver for nodes compatible with
 * "ikwzm,udmabuf-0.10.a" or "ikwzm,u-dma-buf", one buffer per node.  The
 * node's platform device, which the platform bus gave the node's DMA
 * configuration (dma-coherent, dma-ranges, iommus), is the buffer's DMA
 * device; the buffer takes the node's memory-region.  Unbinding tears the
 * DMA mapping down and removes the device at once, like rmdir.
 */

#include <linux/dma-mapping.h>
#include <linux/kernel.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/of_device.h>
#include <linux/platform_device.h>
#include <linux/udmabuf-cfs.h>

#include "udmabuf-cfs.h"

#define UDMABUF_PARAMS	8

static u64 udmabuf_param_size[UDMABUF_PARAMS];
static char udmabuf_param_bind[UDMABUF_PARAMS][UDMABUF_DMA_DEVICE_MAX];
static u64 udmabuf_param_phys[UDMABUF_PARAMS];
static bool udmabuf_param_placed[UDMABUF_PARAMS];
static unsigned int udmabuf_param_mode[UDMABUF_PARAMS];
static struct udmabuf_buffer *udmabuf_param_buf[UDMABUF_PARAMS];

static int udmabuf_param_set(const char *val, const struct kernel_param *kp)
{
	u64 size;
	int ret;

	ret = udmabuf_parse_size(val, &size);
	if (ret)
		return ret;
	if (size > UDMABUF_SIZE_MAX)
		return -ERANGE;
	*(u64 *)kp->arg = size;
	return 0;
}

static int udmabuf_param_get(char *page, const struct kernel_param *kp)
{
	return scnprintf(page, PAGE_SIZE, "%llu\n", *(u64 *)kp->arg);
}

static const struct kernel_param_ops udmabuf_param_ops = {
	.set	= udmabuf_param_set,
	.get	= udmabuf_param_get,
};

/* A page-aligned CPU physical address, as configfs phys_addr takes. */
static int udmabuf_param_phys_set(const char *val,
				  const struct kernel_param *kp)
{
	u64 *addr = kp->arg;
	u64 v;
	int ret;

	ret = kstrtou64(val, 0, &v);
	if (ret)
		return ret;
	if (!PAGE_ALIGNED(v))
		return -EINVAL;
	if (v > PHYS_ADDR_MAX)
		return -ERANGE;
	*addr = v;
	udmabuf_param_placed[addr - udmabuf_param_phys] = true;
	return 0;
}

static int udmabuf_param_phys_get(char *page, const struct kernel_param *kp)
{
	u64 *addr = kp->arg;

	if (!udmabuf_param_placed[addr - udmabuf_param_phys])
		return scnprintf(page, PAGE_SIZE, "\n");
	return scnprintf(page, PAGE_SIZE, "0x%016llx\n", *addr);
}

static const struct kernel_param_ops udmabuf_param_phys_ops = {
	.set	= udmabuf_param_phys_set,
	.get	= udmabuf_param_phys_get,
};

/* Octal permissions of the device node, 1..0777, as configfs mode takes. */
static int udmabuf_param_mode_set(const char *val,
				  const struct kernel_param *kp)
{
	unsigned int mode;
	int ret;

	ret = kstrtouint(val, 8, &mode);
	if (ret)
		return ret;
	/* devtmpfs would make a node of mode 0 a 0600 one: not what was asked. */
	if (!mode || mode > 0777)
		return -EINVAL;
	*(unsigned int *)kp->arg = mode;
	return 0;
}

static int udmabuf_param_mode_get(char *page, const struct kernel_param *kp)
{
	unsigned int mode = *(unsigned int *)kp->arg;

	return scnprintf(page, PAGE_SIZE, "%04o\n",
			 mode ? mode : UDMABUF_MODE_DEFAULT);
}

static const struct kernel_param_ops udmabuf_param_mode_ops = {
	.set	= udmabuf_param_mode_set,
	.get	= udmabuf_param_mode_get,
};

#define UDMABUF_PARAM(n)						\
	module_param_cb(udmabuf##n, &udmabuf_param_ops,			\
			&udmabuf_param_size[n], 0444);			\
	MODULE_PARM_DESC(udmabuf##n, "Size of /dev/udmabuf" #n		\
			 " in bytes (K/M/G/T suffixes, 0x hex; 0: none)")

#define UDMABUF_BIND_PARAM(n)						\
	module_param_string(udmabuf##n##_bind, udmabuf_param_bind[n],	\
			    UDMABUF_DMA_DEVICE_MAX, 0444);		\
	MODULE_PARM_DESC(udmabuf##n##_bind, "DMA device of /dev/udmabuf"	\
			 #n " as BUS/DEVICE (pci/..., platform/...)")

#define UDMABUF_PHYS_PARAM(n)						\
	module_param_cb(udmabuf##n##_phys, &udmabuf_param_phys_ops,	\
			&udmabuf_param_phys[n], 0400);			\
	MODULE_PARM_DESC(udmabuf##n##_phys, "CPU physical address to"	\
			 " place /dev/udmabuf" #n " at (page-aligned)")

#define UDMABUF_MODE_PARAM(n)						\
	module_param_cb(udmabuf##n##_mode, &udmabuf_param_mode_ops,	\
			&udmabuf_param_mode[n], 0444);			\
	MODULE_PARM_DESC(udmabuf##n##_mode, "Permissions of /dev/udmabuf" \
			 #n " in octal (default 0600)")

UDMABUF_PARAM(0);
UDMABUF_PARAM(1);
UDMABUF_PARAM(2);
UDMABUF_PARAM(3);
UDMABUF_PARAM(4);
UDMABUF_PARAM(5);
UDMABUF_PARAM(6);
UDMABUF_PARAM(7);
UDMABUF_BIND_PARAM(0);
UDMABUF_BIND_PARAM(1);
UDMABUF_BIND_PARAM(2);
UDMABUF_BIND_PARAM(3);
UDMABUF_BIND_PARAM(4);
UDMABUF_BIND_PARAM(5);
UDMABUF_BIND_PARAM(6);
UDMABUF_BIND_PARAM(7);
UDMABUF_PHYS_PARAM(0);
UDMABUF_PHYS_PARAM(1);
UDMABUF_PHYS_PARAM(2);
UDMABUF_PHYS_PARAM(3);
UDMABUF_PHYS_PARAM(4);
UDMABUF_PHYS_PARAM(5);
UDMABUF_PHYS_PARAM(6);
UDMABUF_PHYS_PARAM(7);
UDMABUF_MODE_PARAM(0);
UDMABUF_MODE_PARAM(1);
UDMABUF_MODE_PARAM(2);
UDMABUF_MODE_PARAM(3);
UDMABUF_MODE_PARAM(4);
UDMABUF_MODE_PARAM(5);
UDMABUF_MODE_PARAM(6);
UDMABUF_MODE_PARAM(7);

void udmabuf_params_exit(void)
{
	int i;

	for (i = 0; i < UDMABUF_PARAMS; i++) {
		if (!udmabuf_param_buf[i])
			continue;
		udmabuf_destroy(udmabuf_param_buf[i], true);
		udmabuf_param_buf[i] = NULL;
	}
}

int udmabuf_params_init(void)
{
	struct udmabuf_config cfg;
	struct udmabuf_buffer *buf;
	int i;

	for (i = 0; i < UDMABUF_PARAMS; i++) {
		if (!udmabuf_param_size[i] &&
		    (udmabuf_param_bind[i][0] || udmabuf_param_placed[i] ||
		     udmabuf_param_mode[i])) {
			pr_err("udmabuf%d_bind, _phys or _mode without udmabuf%d\n",
			       i, i);
			udmabuf_params_exit();
			return -EINVAL;
		}
		if (!udmabuf_param_size[i])
			continue;

		udmabuf_config_init(&cfg);
		cfg.size = udmabuf_param_size[i];
		cfg.minor = i;
		cfg.origin = UDMABUF_ORIGIN_PARAM;
		snprintf(cfg.name, sizeof(cfg.name), "udmabuf%d", i);
		strscpy(cfg.dma_device, udmabuf_param_bind[i],
			sizeof(cfg.dma_device));
		cfg.placed = udmabuf_param_placed[i];
		cfg.place = udmabuf_param_phys[i];
		if (udmabuf_param_mode[i])
			cfg.mode = udmabuf_param_mode[i];

		buf = udmabuf_create(&cfg);
		if (IS_ERR(buf)) {
			pr_err("%s: cannot create a %llu-byte buffer%s%s: %pe\n",
			       cfg.name, cfg.size,
			       cfg.dma_device[0] ? " for " : "",
			       cfg.dma_device, buf);
			udmabuf_params_exit();
			return PTR_ERR(buf);
		}
		udmabuf_param_buf[i] = buf;
	}
	return 0;
}

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

/* Read an optional u32 in [min, max] into *val; absent leaves *val alone. */
static int udmabuf_of_read_u32(struct device *dev, const char *name,
			       u32 min, u32 max, u32 *val)
{
	struct device_node *np = dev->of_node;
	u32 tmp;

	if (!of_find_property(np, name, NULL))
		return 0;
	if (of_property_read_u32(np, name, &tmp) || tmp < min || tmp > max) {
		dev_err(dev, "%s: must be a u32 in %u..%u\n", name, min, max);
		return -EINVAL;
	}
	*val = tmp;
	return 0;
}

/* Read an optional u32 or u64 no larger than max. */
static int udmabuf_of_read_u64(struct device *dev, const char *name, u64 max,
			       u64 *val)
{
	u64 tmp;
	int ret;

	ret = udmabuf_of_read_number(dev->of_node, name, &tmp);
	if (ret == -ENOENT)
		return 0;
	if (ret || tmp > max) {
		dev_err(dev, "%s: must be a u32 or u64 of at most %llu\n",
			name, max);
		return -EINVAL;
	}
	*val = tmp;
	return 0;
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
			name, UDMABUF_NAME_MAX);
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
	if (ret || !cfg->size || cfg->size > UDMABUF_SIZE_MAX) {
		dev_err(dev, "size: %s\n", ret == -ENOENT ? "missing" :
			"must be a u32 or u64, not 0 and not too large");
		return -EINVAL;
	}

	ret = udmabuf_of_read_u32(dev, "minor-number", 0, UDMABUF_MINORS - 1,
				  &minor);
	if (ret)
		return ret;
	if (minor < UDMABUF_MINORS)
		cfg->minor = minor;

	ret = udmabuf_of_read_u32(dev, "sync-mode", 0, UDMABUF_SYNC_MODE_MAX,
				  &sync_mode);
	if (ret)
		return ret;
	if (of_property_read_bool(np, "sync-always"))
		sync_mode |= UDMABUF_SYNC_ALWAYS;
	cfg->sync_mode = sync_mode;

	ret = udmabuf_of_read_u32(dev, "sync-direction", 0,
				  UDMABUF_CFS_DIR_FROM_DEVICE, &direction);
	if (ret)
		return ret;
	cfg->sync_direction = direction;

	ret = udmabuf_of_read_u64(dev, "sync-offset", cfg->size - 1,
				  &cfg->sync_offset);
	if (ret)
		return ret;
	ret = udmabuf_of_read_u64(dev, "sync-size", cfg->size,
				  &cfg->sync_size);
	if (ret)
		return ret;

	ret = udmabuf_of_read_u32(dev, "dma-mask", UDMABUF_DMA_BITS_MIN,
				  UDMABUF_DMA_BITS_MAX, &bits);
	if (ret)
		return ret;
	cfg->dma_bits = bits;

	/* Permissions of the device node, as configfs mode: mode = <0660>. */
	if (of_find_property(np, "mode", NULL)) {
		if (of_property_read_u32(np, "mode", &mode) || !mode ||
		    mode > 0777) {
			dev_err(dev, "mode: must be permissions 01..0777 (octal: mode = <0660>)\n");
			return -EINVAL;
		}
	}
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
