// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl create, and the create of each buffer of restore: a
 * configuration for udmabuf_create(), and a failure reported with the
 * step it failed at and a hint of what to do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enomem.h"
#include "output.h"
#include "udmabufctl.h"

void create_req_init(struct create_req *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->minor = -1;
	r->sync_mode = -1;
	r->dma_mask = -1;
	r->mode = -1;
	r->sync_check = -1;
}

int device_name_ok(const char *name)
{
	struct udmabuf_config *c = udmabuf_config_new();
	int ok = c && name && udmabuf_config_set_device_name(c, name) == 0;

	udmabuf_config_free(c);
	return ok;
}

/*
 * The library's configuration of R into *cfgp. 0, or the setter's -errno
 * with the attribute it refused in STEP: a value the kernel would refuse
 * too is that step's failure.
 */
static int config_of(const struct create_req *r, struct udmabuf_config **cfgp,
		     char *step, size_t len)
{
	struct udmabuf_config *c = udmabuf_config_new();
	const char *const *a;
	int ret = 0;

	*cfgp = c;
	snprintf(step, len, "mkdir");
	if (!c)
		return -ENOMEM;
#define SET(attr, call)							\
	do {								\
		if (!ret) {						\
			snprintf(step, len, "%s", attr);		\
			ret = (call);					\
		}							\
	} while (0)
	SET("size", udmabuf_config_set_size(c, r->size));
	if (r->minor >= 0)
		SET("minor", udmabuf_config_set_minor(c, r->minor));
	if (r->sync_mode >= 0)
		SET("sync_mode", udmabuf_config_set_sync_mode(c, (unsigned int)r->sync_mode));
	if (r->sync_check >= 0)
		SET("sync_check", udmabuf_config_set_sync_check(c, (unsigned int)r->sync_check));
	if (r->dma_mask >= 0)
		SET("dma_mask", udmabuf_config_set_dma_mask(c, (unsigned int)r->dma_mask));
	if (r->mode >= 0)
		SET("mode", udmabuf_config_set_mode(c, (unsigned int)r->mode));
	if (r->device_name)
		SET("device_name", udmabuf_config_set_device_name(c, r->device_name));
	if (r->dma_device)
		SET("dma_device", udmabuf_config_set_dma_device(c, r->dma_device));
	if (r->placed)
		SET("phys_addr", udmabuf_config_set_phys_addr(c, r->phys_addr));
#undef SET
	for (a = r->attrs; !ret && a && *a; a++) {
		size_t n = strcspn(*a, "=");

		snprintf(step, len, "%.*s", (int)n, *a);
		ret = udmabuf_config_set_attr(c, step, (*a)[n] ? *a + n + 1 : "");
	}
	return ret;
}

static uint64_t opt_address(const char *s)
{
	uint64_t v;

	if (parse_address(s, &v))
		usage_error("invalid CPU physical address '%s'", s);
	return v;
}

static unsigned int opt_mode(const char *s)
{
	unsigned int m;
	int ret = parse_mode(s, &m);

	if (ret)
		usage_error("invalid mode '%s': must be octal 0..0777", s);
	return m;
}

static int __attribute__((format(printf, 1, 2))) exists(const char *fmt, ...)
{
	char path[600];
	struct stat st;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return stat(path, &st) == 0;
}

/* Explain why the kernel refused a dma_device; returns 1 if it did. */
static int dma_device_hint(const char *value, int err)
{
	const char *slash = value ? strchr(value, '/') : NULL;
	char bus[256];

	switch (err) {
	case EOPNOTSUPP:
		hint("the loaded udmabuf-cfs module is too old for --dma-device (%s/features does not list dma_device)",
		     udmabuf_configfs_dir());
		return 1;
	case EINVAL:
		hint("'%s' is not BUS/DEVICE, e.g. pci/0000:01:00.0 or platform/a0000000.dma",
		     value ? value : "");
		return 1;
	case ENODEV:
		if (!slash)
			return 0;
		snprintf(bus, sizeof(bus), "%.*s", (int)(slash - value), value);
		if (!bus[0] || bus[0] == '.' ||
		    !exists("/sys/bus/%s/devices", bus))
			hint("there is no bus %s (see /sys/bus)", bus);
		else if (!exists("/sys/bus/%s/devices/%s", bus, slash + 1))
			hint("there is no device %s on bus %s (see /sys/bus/%s/devices)",
			     slash + 1, bus, bus);
		else
			hint("the loaded module does not bind buffers to devices of bus %s",
			     bus);
		return 1;
	case ENXIO:
		/* The generic drivers that set up DMA are each bus's own. */
		if (!strncmp(value, "pci/", 4))
			hint("%s has no driver: bind vfio-pci or uio_pci_generic to it first (its DMA setup exists only then)",
			     value);
		else if (!strncmp(value, "platform/", 9))
			hint("%s has no driver: load its own driver (modprobe) or bind uio_pdrv_genirq or vfio-platform to it first (its DMA setup exists only then)",
			     value);
		else
			hint("%s has no driver: bind its driver to it first (its DMA setup exists only then)",
			     value);
		return 1;
	}
	return 0;
}

/*
 * The value of the last ATTR=VALUE argument of create that sets ATTR (it
 * is written after the options), else NULL.
 */
static const char *create_attr(const struct create_req *cfg,
			       const char *attr)
{
	const char *const *a, *val = NULL;
	size_t len = strlen(attr);

	for (a = cfg->attrs; a && *a; a++)
		if (!strncmp(*a, attr, len) && (*a)[len] == '=')
			val = *a + len + 1;
	return val;
}

/*
 * Say which limit an enable that failed with ENOMEM hit, and the fix; the
 * contiguous-range allocator's from the kernel's line in KMSG, if logged.
 */
static void enomem_hint(const struct create_req *cfg,
			const char *dev, int kmsg)
{
	struct mem_limits m;
	const char *val;
	char what[512], fix[256];
	uint64_t size = cfg->size;
	int mask = cfg->dma_mask >= 0 ? cfg->dma_mask : UDMABUF_DMA_MASK_DEFAULT;
	long l;

	val = create_attr(cfg, "size");
	if (val && udmabuf_parse_size(val, &size))
		size = cfg->size;
	val = create_attr(cfg, "dma_mask");
	if (val && parse_long(val, UDMABUF_DMA_MASK_MIN, UDMABUF_DMA_MASK_MAX,
			      &l) == 0)
		mask = (int)l;
	mem_limits(mask, &m);
	m.longest_range = kmsg_longest_range(kmsg, dev);
	enomem_hint_text(size, mask, &m, what, sizeof(what), fix, sizeof(fix));
	hint("%s", what);
	hint("%s", fix);
}

/* Why the buffer could not be placed at ADDR: ERR is EBUSY, ERANGE or EINVAL. */
static void placement_hint(int err, uint64_t addr)
{
	if (err == EBUSY)
		hint("the memory at 0x%" PRIx64 " is in use (another buffer, the kernel, pages that cannot move, a CMA area)",
		     addr);
	else if (err == ERANGE)
		hint("0x%" PRIx64 " is not RAM, or not within the DMA mask", addr);
	else
		hint("the DMA device would see 0x%" PRIx64 " at another address (an IOMMU or a bus offset)",
		     addr);
}

/*
 * Report a failed create; the action names the failed step. KMSG: the
 * kernel log from before the create (kmsg_open()).
 */
static void create_failed(const struct create_req *cfg, const char *step,
			  int err, int kmsg)
{
	const char *dev = cfg->device_name ? cfg->device_name : cfg->name;
	char action[300];

	if (!strcmp(step, "mkdir"))
		snprintf(action, sizeof(action), "create");
	else if (!strcmp(step, "enable"))
		snprintf(action, sizeof(action), "enable");
	else
		snprintf(action, sizeof(action), "set %s", step);
	report(cfg->name, action, err);

	/* A device without a driver is refused when written, and at enable. */
	if ((!strcmp(step, "dma_device") ||
	     (!strcmp(step, "enable") && err == ENXIO && cfg->dma_device &&
	      *cfg->dma_device)) && dma_device_hint(cfg->dma_device, err))
		return;
	if (!strcmp(step, "sync_check") && err == EOPNOTSUPP) {
		hint("the loaded udmabuf-cfs module has no sync checker (%s/features does not list sync_check)%s",
		     udmabuf_configfs_dir(),
		     cfg->sync_check > 0 ? "" : "; UDMABUF_SYNC_CHECK asks for it");
		return;
	}
	if (!strcmp(step, "mkdir") && err == ENOENT)
		probe_hint();
	else if (!strcmp(step, "enable") && err == ENODEV && cfg->dma_device &&
		 *cfg->dma_device)
		hint("%s went away before the buffer was enabled", cfg->dma_device);
	else if (!strcmp(step, "enable") && err == EINVAL && cfg->dma_device &&
		 *cfg->dma_device)
		hint("is %s a DMA master? A device without a DMA mask cannot have buffers",
		     cfg->dma_device);
	else if (!strcmp(step, "enable") && cfg->placed &&
		 (err == EBUSY || err == ERANGE || err == EINVAL))
		placement_hint(err, cfg->phys_addr);
	else if (!strcmp(step, "enable") && err == ENOMEM)
		enomem_hint(cfg, dev, kmsg);
	else if (!strcmp(step, "enable") && err == EEXIST)
		hint("a device named %s already exists (see '" PROG " list')", dev);
	else if (!strcmp(step, "enable") && err == EBUSY && cfg->minor >= 0)
		hint("minor %ld is already in use (see '" PROG " list')", cfg->minor);
	else if (!strcmp(step, "enable") && err == ERANGE && cfg->dma_mask >= 0)
		hint("a %d-bit DMA mask is not supported by this system", cfg->dma_mask);
	else if (strcmp(step, "mkdir") && strcmp(step, "enable") && err == ENOENT)
		hint("the loaded module has no '%s' attribute", step);
	else
		permission_hint(err);
}

int create_reported(const struct create_req *r)
{
	struct udmabuf_config *cfg;
	char step[256], msg[512] = "";
	int kmsg = -1, ret;

	ret = config_of(r, &cfg, step, sizeof(step));
	if (!ret) {
		kmsg = kmsg_open();
		ret = udmabuf_create(r->name, cfg, r->flags);
		/* Copied before anything else can fail. */
		snprintf(step, sizeof(step), "%s", udmabuf_last_error_step());
		snprintf(msg, sizeof(msg), "%s", udmabuf_last_error());
	}
	/*
	 * Refused before any step (a bad UDMABUF_SYNC_CHECK): the library's
	 * message names the buffer and says why.
	 */
	if (ret && !step[0] && msg[0])
		fprintf(stderr, PROG ": %s\n", msg);
	else if (ret)
		create_failed(r, step[0] ? step : "mkdir", -ret, kmsg);
	if (kmsg >= 0)
		close(kmsg);
	udmabuf_config_free(cfg);
	return ret;
}

/* create's options into R; 1 if --size was given. Exits on a usage error. */
static int create_options(int argc, char **argv, struct create_req *r)
{
	enum { OPT_MINOR = 256, OPT_SYNC, OPT_MASK, OPT_MODE, OPT_DEVNAME,
	       OPT_NOENABLE, OPT_DMADEV, OPT_PHYS, OPT_CHECK };
	static const struct option opts[] = {
		{ "size",	 required_argument, NULL, 's' },
		{ "minor",	 required_argument, NULL, OPT_MINOR },
		{ "sync-mode",	 required_argument, NULL, OPT_SYNC },
		{ "sync-check",	 optional_argument, NULL, OPT_CHECK },
		{ "dma-mask",	 required_argument, NULL, OPT_MASK },
		{ "dma-device",	 required_argument, NULL, OPT_DMADEV },
		{ "phys-addr",	 required_argument, NULL, OPT_PHYS },
		{ "mode",	 required_argument, NULL, OPT_MODE },
		{ "device-name", required_argument, NULL, OPT_DEVNAME },
		{ "no-enable",	 no_argument,	    NULL, OPT_NOENABLE },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int have_size = 0, c;

	while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			r->size = opt_size("size", optarg);
			have_size = 1;
			break;
		case OPT_MINOR:
			r->minor = opt_long("minor", optarg, 0, UDMABUF_MINOR_MAX);
			break;
		case OPT_SYNC:
			r->sync_mode = (int)opt_long("sync mode", optarg, 0,
						     UDMABUF_SYNC_MODE_MAX);
			break;
		case OPT_CHECK:
			/* Without a value: report, the mode for a test run. */
			r->sync_check = optarg ? parse_sync_check(optarg) :
						 UDMABUF_SYNC_CHECK_REPORT;
			if (r->sync_check < 0)
				usage_error("invalid sync check '%s': use report, sigbus or off",
					    optarg);
			break;
		case OPT_MASK:
			r->dma_mask = (int)opt_long("DMA mask", optarg,
						    UDMABUF_DMA_MASK_MIN,
						    UDMABUF_DMA_MASK_MAX);
			break;
		case OPT_MODE:
			r->mode = (int)opt_mode(optarg);
			break;
		case OPT_DEVNAME:
			r->device_name = optarg;
			break;
		case OPT_DMADEV:
			r->dma_device = optarg;
			break;
		case OPT_PHYS:
			r->phys_addr = opt_address(optarg);
			r->placed = 1;
			break;
		case OPT_NOENABLE:
			r->flags |= UDMABUF_CREATE_NO_ENABLE;
			break;
		case 'h':
			usage_of(cur_verb);
			exit(EXIT_OK);
		default:
			try_help();
		}
	}
	return have_size;
}

/*
 * NAME and the ATTR=VALUE arguments after the options (argv[first]...)
 * into R, and what create cannot take of them. Exits on a usage error.
 */
static void create_arguments(int argc, char **argv, int first, int have_size,
			     struct create_req *r)
{
	const char *dev;
	int i;

	if (first >= argc)
		usage_error("create: missing buffer name");
	r->name = argv[first++];
	for (i = first; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i])
			usage_error("create: unexpected argument '%s' (one buffer at a time; attributes as ATTR=VALUE)",
				    argv[i]);
		if (!strncmp(argv[i], "enable=", 7))
			usage_error("create: use --no-enable instead of '%s'", argv[i]);
		if (!strncmp(argv[i], "device_name=", 12))
			r->device_name = argv[i] + 12;
		if (!strncmp(argv[i], "dma_device=", 11) && !r->dma_device)
			r->dma_device = argv[i] + 11;
	}
	/* argv[argc] is NULL, so the attribute list is terminated. */
	r->attrs = (const char *const *)&argv[first];
	if (!have_size && !(r->flags & UDMABUF_CREATE_NO_ENABLE))
		usage_error("create: --size is required");
	if (have_size && !r->size && !(r->flags & UDMABUF_CREATE_NO_ENABLE))
		usage_error("create: the size must not be 0");
	dev = r->device_name ? r->device_name : r->name;
	if (!device_name_ok(dev))
		usage_error("invalid device name '%s': use 1..%d characters of A-Z a-z 0-9 _ . -",
			    dev, UDMABUF_DEVICE_NAME_MAX);
	if (r->device_name && strchr(r->name, '/'))
		usage_error("invalid buffer name '%s'", r->name);
}

int cmd_create(int argc, char **argv)
{
	struct create_req r;
	int have_size;

	create_req_init(&r, NULL);
	have_size = create_options(argc, argv, &r);
	create_arguments(argc, argv, optind, have_size, &r);
	if (need_configfs("create") || create_reported(&r))
		return EXIT_FAIL;
	if (!(r.flags & UDMABUF_CREATE_NO_ENABLE))
		printf("%s/%s\n", udmabuf_dev_dir(),
		       r.device_name ? r.device_name : r.name);
	return EXIT_OK;
}
