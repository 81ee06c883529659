// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: buffers made at module load from parameters.
 *
 *   insmod udmabuf-cfs.ko udmabuf0=1048576 udmabuf3=4M
 *
 * creates /dev/udmabuf0 (minor 0) and /dev/udmabuf3 (minor 3).  They live
 * until the module is removed.  If one cannot be made, loading fails and
 * none is left behind.
 */

#include <linux/kernel.h>
#include <linux/moduleparam.h>

#include "udmabuf-cfs.h"

#define UDMABUF_PARAMS	8

static u64 udmabuf_param_size[UDMABUF_PARAMS];
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

#define UDMABUF_PARAM(n)						\
	module_param_cb(udmabuf##n, &udmabuf_param_ops,			\
			&udmabuf_param_size[n], 0444);			\
	MODULE_PARM_DESC(udmabuf##n, "Size of /dev/udmabuf" #n		\
			 " in bytes (K/M/G/T suffixes, 0x hex; 0: none)")

UDMABUF_PARAM(0);
UDMABUF_PARAM(1);
UDMABUF_PARAM(2);
UDMABUF_PARAM(3);
UDMABUF_PARAM(4);
UDMABUF_PARAM(5);
UDMABUF_PARAM(6);
UDMABUF_PARAM(7);

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
		if (!udmabuf_param_size[i])
			continue;

		udmabuf_config_init(&cfg);
		cfg.size = udmabuf_param_size[i];
		cfg.minor = i;
		cfg.origin = UDMABUF_ORIGIN_PARAM;
		snprintf(cfg.name, sizeof(cfg.name), "udmabuf%d", i);

		buf = udmabuf_create(&cfg);
		if (IS_ERR(buf)) {
			pr_err("%s: cannot create a %llu-byte buffer: %pe\n",
			       cfg.name, cfg.size, buf);
			udmabuf_params_exit();
			return PTR_ERR(buf);
		}
		udmabuf_param_buf[i] = buf;
	}
	return 0;
}
