// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: buffers made by module parameters.
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
 * none is left behind.  They are made before the device-tree buffers
 * (of.c), so a minor or name clash fails the device-tree buffer, not the
 * parameter one.
 */

#include <linux/dma-mapping.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/udmabuf-cfs.h>

#include "internal.h"

#define UDMABUF_PARAMS	8

static u64 udmabuf_param_size[UDMABUF_PARAMS];
static char udmabuf_param_bind[UDMABUF_PARAMS][UDMABUF_CFS_DMA_DEVICE_LEN];
static u64 udmabuf_param_phys[UDMABUF_PARAMS];
static bool udmabuf_param_placed[UDMABUF_PARAMS];
static unsigned int udmabuf_param_mode[UDMABUF_PARAMS];
static unsigned int udmabuf_param_sync_check[UDMABUF_PARAMS];
static struct udmabuf_buffer *udmabuf_param_buf[UDMABUF_PARAMS];

static int udmabuf_param_set(const char *val, const struct kernel_param *kp)
{
	u64 size;
	int ret;

	ret = udmabuf_parse_size(val, &size);
	/* 0 is no buffer. */
	if (!ret && size)
		ret = udmabuf_check_size(size);
	if (ret)
		return ret;
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
	if (!ret)
		ret = udmabuf_check_mode(mode);
	if (ret)
		return ret;
	*(unsigned int *)kp->arg = mode;
	return 0;
}

static int udmabuf_param_mode_get(char *page, const struct kernel_param *kp)
{
	unsigned int mode = *(unsigned int *)kp->arg;

	return scnprintf(page, PAGE_SIZE, "%04o\n",
			 mode ? mode : UDMABUF_CFS_MODE_DEFAULT);
}

static const struct kernel_param_ops udmabuf_param_mode_ops = {
	.set	= udmabuf_param_mode_set,
	.get	= udmabuf_param_mode_get,
};

/* The sync checker of the buffer, 0..2, as configfs sync_check takes. */
static int udmabuf_param_sync_check_set(const char *val,
					const struct kernel_param *kp)
{
	unsigned int mode;
	int ret;

	ret = kstrtouint(val, 10, &mode);
	if (!ret)
		ret = udmabuf_check_sync_check(mode);
	if (ret)
		return ret;
	*(unsigned int *)kp->arg = mode;
	return 0;
}

static const struct kernel_param_ops udmabuf_param_sync_check_ops = {
	.set	= udmabuf_param_sync_check_set,
	.get	= param_get_uint,
};

#define UDMABUF_PARAM(n)						\
	module_param_cb(udmabuf##n, &udmabuf_param_ops,			\
			&udmabuf_param_size[n], 0444);			\
	MODULE_PARM_DESC(udmabuf##n, "Size of /dev/udmabuf" #n		\
			 " in bytes (K/M/G/T suffixes, 0x hex; 0: none)")

#define UDMABUF_BIND_PARAM(n)						\
	module_param_string(udmabuf##n##_bind, udmabuf_param_bind[n],	\
			    UDMABUF_CFS_DMA_DEVICE_LEN, 0444);		\
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

#define UDMABUF_SYNC_CHECK_PARAM(n)					\
	module_param_cb(udmabuf##n##_sync_check,			\
			&udmabuf_param_sync_check_ops,			\
			&udmabuf_param_sync_check[n], 0444);		\
	MODULE_PARM_DESC(udmabuf##n##_sync_check, "Sync checker of"	\
			 " /dev/udmabuf" #n ": 0 off, 1 report, 2 SIGBUS")

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
UDMABUF_SYNC_CHECK_PARAM(0);
UDMABUF_SYNC_CHECK_PARAM(1);
UDMABUF_SYNC_CHECK_PARAM(2);
UDMABUF_SYNC_CHECK_PARAM(3);
UDMABUF_SYNC_CHECK_PARAM(4);
UDMABUF_SYNC_CHECK_PARAM(5);
UDMABUF_SYNC_CHECK_PARAM(6);
UDMABUF_SYNC_CHECK_PARAM(7);

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
		     udmabuf_param_mode[i] || udmabuf_param_sync_check[i])) {
			pr_err("udmabuf%d_bind, _phys, _mode or _sync_check without udmabuf%d\n",
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
		cfg.sync_check = udmabuf_param_sync_check[i];

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
