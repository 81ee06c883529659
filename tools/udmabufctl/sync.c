// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl sync: one open of the buffer and one sync ioctl, through
 * libudmabuf's handle.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "udmabufctl.h"

/* What to sync: sync's options and its NAME. */
struct sync_args {
	const char *name;
	int for_device;
	int dir;
	uint64_t offset, length;	/* length 0: to the end */
};

/* The options and NAME into a; exits on a usage error. */
static void sync_options(int argc, char **argv, struct sync_args *a)
{
	enum { OPT_CPU = 256, OPT_DEV, OPT_OFF, OPT_LEN, OPT_DIR };
	static const struct option opts[] = {
		{ "for-cpu",	no_argument,	   NULL, OPT_CPU },
		{ "for-device",	no_argument,	   NULL, OPT_DEV },
		{ "offset",	required_argument, NULL, OPT_OFF },
		{ "length",	required_argument, NULL, OPT_LEN },
		{ "direction",	required_argument, NULL, OPT_DIR },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int target = -1, c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_CPU:
		case OPT_DEV:
			if (target >= 0)
				usage_error("sync: give one of --for-cpu and --for-device");
			target = c;
			break;
		case OPT_OFF:
			a->offset = opt_size("offset", optarg);
			break;
		case OPT_LEN:
			a->length = opt_size("length", optarg);
			break;
		case OPT_DIR:
			if (!strcmp(optarg, "bidi") || !strcmp(optarg, "bidirectional"))
				a->dir = UDMABUF_DIR_BIDIRECTIONAL;
			else if (!strcmp(optarg, "to-device"))
				a->dir = UDMABUF_DIR_TO_DEVICE;
			else if (!strcmp(optarg, "from-device"))
				a->dir = UDMABUF_DIR_FROM_DEVICE;
			else
				usage_error("invalid direction '%s': use bidi, to-device or from-device",
					    optarg);
			break;
		case 'h':
			usage_of(cur_verb);
			exit(EXIT_OK);
		default:
			try_help();
		}
	}
	if (optind >= argc)
		usage_error("sync: missing buffer name");
	if (optind + 1 < argc)
		usage_error("sync: unexpected argument '%s'", argv[optind + 1]);
	if (target < 0)
		usage_error("sync: --for-cpu or --for-device is required");
	a->name = argv[optind];
	a->for_device = target == OPT_DEV;
}

/* Why the sync of NAME failed with ERR (positive), and what to do. */
static void sync_failed(const char *name, int err)
{
	struct udmabuf_listing *one = NULL;
	const struct udmabuf_entry *e;
	int ret;

	e = err == ENOENT ? lookup(name, 0, &one, &ret) : NULL;
	if (e && *udmabuf_entry_get_dev_path(e))
		fprintf(stderr, PROG ": %s: sync: no device node %s\n", name,
			udmabuf_entry_get_dev_path(e));
	else if (err == ENODEV)		/* a configfs item that is not enabled */
		fprintf(stderr, PROG ": %s: sync: not enabled\n", name);
	else if (err == ENOENT)
		report_lookup(name, "sync", ENOENT);
	else
		report(name, "sync", err);
	udmabuf_listing_free(one);

	if (err == ENOENT && !(e && *udmabuf_entry_get_dev_path(e)))
		probe_hint();
	else if (err == EOPNOTSUPP)
		hint("%s does not answer the udmabuf-cfs sync ioctls; is the loaded module older than this tool?",
		     name);
	else if (err == EINVAL)
		hint("the range must lie inside the buffer");
	else if (err != ENOENT && err != ENODEV)
		permission_hint(err);
}

int cmd_sync(int argc, char **argv)
{
	struct sync_args a = { .dir = UDMABUF_DIR_BIDIRECTIONAL };
	struct udmabuf *buf;
	int ret;

	sync_options(argc, argv, &a);
	/*
	 * One open, one ioctl. A node the library will not open is not a
	 * buffer's (it says why); a sync ioctl it does not know is an old
	 * module's (EOPNOTSUPP).
	 */
	ret = udmabuf_open(a.name, O_RDONLY, &buf);
	if (ret == -ENOTTY) {
		fprintf(stderr, PROG ": %s\n", udmabuf_last_error());
		return EXIT_FAIL;
	}
	if (!ret) {
		ret = a.for_device ?
		      udmabuf_sync_for_device(buf, a.offset, a.length, a.dir) :
		      udmabuf_sync_for_cpu(buf, a.offset, a.length, a.dir);
		udmabuf_close(buf);
	}
	if (ret)
		sync_failed(a.name, -ret);
	return ret ? EXIT_FAIL : EXIT_OK;
}
