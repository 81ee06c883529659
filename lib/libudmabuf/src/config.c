// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libudmabuf: configurations (udmabuf_config_*()): each setter checks its
 * value and keeps a copy; udmabuf_create() writes what a configuration
 * says (create.c), udmabuf_alloc() asks for it (buffer.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/udmabuf-cfs.h>

#include "libudmabuf-private.h"

struct udmabuf_config {
	struct udmabuf_create_args args;	/* name and flags unused */
	char *device_name;
	char *dma_device;
	char **attrs;				/* NULL-terminated "attr=value" */
	size_t nattrs;
	int allocator;				/* UDMABUF_CFS_ALLOCATOR_* */
};

/*
 * The limits udmabuf.h tells programs are the module's, which the UAPI
 * header gives; the setters check the UAPI's own.
 */
_Static_assert((UDMABUF_SYNC_MODE_MAX == UDMABUF_CFS_SYNC_MODE_MAX) &&
	       (UDMABUF_DMA_MASK_MIN == UDMABUF_CFS_DMA_BITS_MIN) &&
	       (UDMABUF_DMA_MASK_MAX == UDMABUF_CFS_DMA_BITS_MAX) &&
	       (UDMABUF_DMA_MASK_DEFAULT == UDMABUF_CFS_DMA_BITS_DEFAULT) &&
	       (UDMABUF_DEVICE_NAME_MAX == UDMABUF_CFS_NAME_MAX),
	       "the limits of udmabuf.h differ from the UAPI's");
_Static_assert((UDMABUF_SYNC_CHECK_OFF == UDMABUF_CFS_SYNC_CHECK_OFF) &&
	       (UDMABUF_SYNC_CHECK_REPORT == UDMABUF_CFS_SYNC_CHECK_REPORT) &&
	       (UDMABUF_SYNC_CHECK_SIGBUS == UDMABUF_CFS_SYNC_CHECK_SIGBUS) &&
	       (UDMABUF_SYNC_CHECK_MAX == UDMABUF_CFS_SYNC_CHECK_MAX),
	       "UDMABUF_SYNC_CHECK_* differ from the UAPI");

/* The environment variable that turns the sync checker on everywhere. */
#define SYNC_CHECK_ENV		"UDMABUF_SYNC_CHECK"

/* The configfs names of UDMABUF_CFS_ALLOCATOR_*, in their order. */
static const char *const allocator_names[] = {
	[UDMABUF_CFS_ALLOCATOR_AUTO] = "auto",
	[UDMABUF_CFS_ALLOCATOR_PAGE] = "page",
	[UDMABUF_CFS_ALLOCATOR_CONTIG] = "contig",
	[UDMABUF_CFS_ALLOCATOR_CMA] = "cma",
};

void udmabuf_create_args_init(struct udmabuf_create_args *args,
			      const char *name)
{
	memset(args, 0, sizeof(*args));
	args->name = name;
	args->minor = -1;
	args->sync_mode = -1;
	args->dma_mask = -1;
	args->mode = -1;
	args->sync_check = -1;
}

UDMABUF_EXPORT struct udmabuf_config *udmabuf_config_new(void)
{
	struct udmabuf_config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg) {
		udmabuf_fail(ENOMEM, "udmabuf", "make a configuration");
		return NULL;
	}
	udmabuf_create_args_init(&cfg->args, NULL);
	return cfg;
}

UDMABUF_EXPORT void udmabuf_config_free(struct udmabuf_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nattrs; i++)
		free(cfg->attrs[i]);
	free(cfg->attrs);
	free(cfg->device_name);
	free(cfg->dma_device);
	free(cfg);
}

static int bad(int err, const char *attr, const char *fmt, uint64_t v)
{
	char what[64];

	snprintf(what, sizeof(what), fmt, v);
	return udmabuf_fail(err, "udmabuf config", "%s %s", attr, what);
}

UDMABUF_EXPORT int udmabuf_config_set_size(struct udmabuf_config *cfg,
					   uint64_t bytes)
{
	cfg->args.size = bytes;
	return 0;
}

UDMABUF_EXPORT int udmabuf_config_set_minor(struct udmabuf_config *cfg,
					    long minor)
{
	if (minor < -1 || minor > UDMABUF_MINOR_MAX)
		return bad(ERANGE, "minor", "%" PRId64, (uint64_t)minor);
	cfg->args.minor = minor;
	return 0;
}

static int set_string(char **slot, const char *value)
{
	char *copy = NULL;

	if (value && *value) {
		copy = strdup(value);
		if (!copy)
			return udmabuf_fail(ENOMEM, "udmabuf config",
					    "copy '%s'", value);
	}
	free(*slot);
	*slot = copy;
	return 0;
}

UDMABUF_EXPORT int udmabuf_config_set_device_name(struct udmabuf_config *cfg,
						  const char *name)
{
	int ret;

	if (name && !udmabuf_valid_device_name(name))
		return udmabuf_fail(EINVAL, "udmabuf config",
				    "device_name '%s' (1..%d of A-Z a-z 0-9 _ . -)",
				    name, UDMABUF_CFS_NAME_MAX);
	ret = set_string(&cfg->device_name, name);
	if (!ret)
		cfg->args.device_name = cfg->device_name;
	return ret;
}

UDMABUF_EXPORT int udmabuf_config_set_sync_mode(struct udmabuf_config *cfg,
						unsigned int mode)
{
	if (mode > UDMABUF_CFS_SYNC_MODE_MAX)
		return bad(ERANGE, "sync_mode", "%" PRIu64, mode);
	cfg->args.sync_mode = (int)mode;
	return 0;
}

UDMABUF_EXPORT int udmabuf_config_set_dma_mask(struct udmabuf_config *cfg,
					       unsigned int bits)
{
	if (bits < UDMABUF_CFS_DMA_BITS_MIN || bits > UDMABUF_CFS_DMA_BITS_MAX)
		return bad(ERANGE, "dma_mask", "%" PRIu64, bits);
	cfg->args.dma_mask = (int)bits;
	return 0;
}

UDMABUF_EXPORT int udmabuf_config_set_mode(struct udmabuf_config *cfg,
					   unsigned int mode)
{
	if (mode > UDMABUF_CFS_MODE_MAX)
		return bad(ERANGE, "mode", "%#" PRIo64, mode);
	cfg->args.mode = (int)mode;
	return 0;
}

UDMABUF_EXPORT int udmabuf_config_set_dma_device(struct udmabuf_config *cfg,
						 const char *bus_device)
{
	const char *slash = bus_device ? strchr(bus_device, '/') : NULL;
	int ret;

	/* The syntax only: which devices exist is the kernel's to say. */
	if (bus_device && *bus_device &&
	    (!slash || slash == bus_device || !slash[1] ||
	     strchr(slash + 1, '/')))
		return udmabuf_fail(EINVAL, "udmabuf config",
				    "dma_device '%s' (BUS/DEVICE, e.g. pci/0000:01:00.0)",
				    bus_device);
	ret = set_string(&cfg->dma_device, bus_device);
	if (!ret)
		cfg->args.dma_device = cfg->dma_device;
	return ret;
}

UDMABUF_EXPORT int udmabuf_config_set_phys_addr(struct udmabuf_config *cfg,
						uint64_t addr)
{
	cfg->args.has_phys_addr = 1;
	cfg->args.phys_addr = addr;
	return 0;
}

UDMABUF_EXPORT int udmabuf_config_set_allocator(struct udmabuf_config *cfg,
						const char *allocator)
{
	size_t i;

	if (!allocator || !*allocator)
		allocator = "auto";
	for (i = 0; i < sizeof(allocator_names) / sizeof(allocator_names[0]); i++) {
		if (strcmp(allocator, allocator_names[i]))
			continue;
		cfg->allocator = (int)i;
		/* auto is the module's default: nothing to write. */
		cfg->args.allocator = i ? allocator_names[i] : NULL;
		return 0;
	}
	return udmabuf_fail(EINVAL, "udmabuf config",
			    "allocator '%s' (auto, page, contig or cma)",
			    allocator);
}

UDMABUF_EXPORT int udmabuf_config_set_sync_check(struct udmabuf_config *cfg,
						 unsigned int mode)
{
	if (mode > UDMABUF_CFS_SYNC_CHECK_MAX)
		return bad(ERANGE, "sync_check", "%" PRIu64, mode);
	cfg->args.sync_check = (int)mode;
	return 0;
}

int udmabuf_env_sync_check(const char *object)
{
	/* Ignored in set-user-ID programs, as the directories' variables. */
	const char *v = secure_getenv(SYNC_CHECK_ENV);

	if (!v || !*v || !strcmp(v, "off"))
		return UDMABUF_CFS_SYNC_CHECK_OFF;
	if (!strcmp(v, "report"))
		return UDMABUF_CFS_SYNC_CHECK_REPORT;
	if (!strcmp(v, "sigbus"))
		return UDMABUF_CFS_SYNC_CHECK_SIGBUS;
	return udmabuf_fail(EINVAL, object,
			    "%s='%.64s' is not report, sigbus or off",
			    SYNC_CHECK_ENV, v);
}

int udmabuf_sync_check_of(int want, const char *object)
{
	int env = udmabuf_env_sync_check(object);

	if (env < 0)
		return env;
	return env > want ? env : want;
}

UDMABUF_EXPORT int udmabuf_config_set_attr(struct udmabuf_config *cfg,
					   const char *attr,
					   const char *value)
{
	char **v, *a;

	if (!attr || !*attr || strchr(attr, '/') || strchr(attr, '=') ||
	    attr[0] == '.' || !strcmp(attr, "enable") || !value)
		return udmabuf_fail(EINVAL, "udmabuf config", "set attribute '%s'",
				    attr ? attr : "(null)");
	if (asprintf(&a, "%s=%s", attr, value) < 0)
		return udmabuf_fail(ENOMEM, "udmabuf config",
				    "set attribute '%s'", attr);
	v = realloc(cfg->attrs, (cfg->nattrs + 2) * sizeof(*v));
	if (!v) {
		free(a);
		return udmabuf_fail(ENOMEM, "udmabuf config",
				    "set attribute '%s'", attr);
	}
	v[cfg->nattrs++] = a;
	v[cfg->nattrs] = NULL;
	cfg->attrs = v;
	cfg->args.attrs = (const char *const *)v;
	return 0;
}

int udmabuf_config_alloc_request(const struct udmabuf_config *cfg, int flags,
				 struct udmabuf_cfs_alloc *req)
{
	static const char what[] = "udmabuf alloc";
	const char *set = NULL;
	int sync = flags & (O_SYNC | O_DSYNC);
	int mode, check;

	memset(req, 0, sizeof(*req));
	if (!cfg)
		return udmabuf_fail(EINVAL, what, "no configuration (the size is required)");
	if ((flags & O_ACCMODE) != O_RDONLY && (flags & O_ACCMODE) != O_RDWR)
		return udmabuf_fail(EINVAL, what, "flags 0%o: O_RDWR or O_RDONLY",
				    (unsigned int)flags);
	if (flags & ~(O_ACCMODE | O_SYNC | O_DSYNC | O_CLOEXEC))
		return udmabuf_fail(EINVAL, what,
				    "flags 0%o: only O_RDWR or O_RDONLY, O_SYNC, O_CLOEXEC",
				    (unsigned int)flags);
	/* What belongs to a named buffer, which this is not. */
	if (cfg->args.minor >= 0)
		set = "minor";
	else if (cfg->args.device_name)
		set = "device_name";
	else if (cfg->args.mode >= 0)
		set = "mode";
	else if (cfg->args.has_phys_addr)
		set = "phys_addr";
	else if (cfg->nattrs)
		set = cfg->attrs[0];
	if (set)
		return udmabuf_fail(EINVAL, what,
				    "a process-scoped buffer has no %.*s (the configuration sets it)",
				    (int)strcspn(set, "="), set);
	if (!cfg->args.size)
		return udmabuf_fail(EINVAL, what, "size 0 (set a size)");
	if (cfg->dma_device && strlen(cfg->dma_device) >= sizeof(req->dma_device))
		return udmabuf_fail(EINVAL, what, "dma_device '%s' is too long",
				    cfg->dma_device);
	check = udmabuf_sync_check_of(cfg->args.sync_check, what);
	if (check < 0)
		return check;
	/* The module's default when none is set; "sync always" for O_SYNC. */
	mode = cfg->args.sync_mode >= 0 ? cfg->args.sync_mode :
					  UDMABUF_CFS_SYNC_MODE_DEFAULT;
	if (sync)
		mode |= UDMABUF_CFS_SYNC_MODE_ALWAYS;
	req->size = cfg->args.size;
	req->flags = (uint32_t)((flags & O_ACCMODE) | O_CLOEXEC);
	req->sync_mode = (uint32_t)mode;
	req->dma_bits = cfg->args.dma_mask >= 0 ? (uint32_t)cfg->args.dma_mask : 0;
	req->allocator = (uint32_t)cfg->allocator;
	req->sync_check = (uint32_t)(check > 0 ? check : 0);
	req->fd = -1;
	if (cfg->dma_device)
		strcpy(req->dma_device, cfg->dma_device);
	return 0;
}

const struct udmabuf_create_args *udmabuf_config_args(const struct udmabuf_config *cfg)
{
	return &cfg->args;
}
