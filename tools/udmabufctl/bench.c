// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl bench: which buffer is timed, in which mappings, and the
 * table of the results; the timing itself is timing.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "list.h"
#include "timing.h"
#include "udmabufctl.h"

#define BENCH_SIZE_DEFAULT	(UINT64_C(1) << 20)
#define BENCH_REPS_DEFAULT	7
#define BENCH_ROWS_MAX		16

/* A buffer under test: NAME's, or temporary ones (name NULL). */
struct bench_target {
	const char *name;		/* NULL: temporary, process-scoped */
	char dev[256];			/* device name (class device) */
	int orig_mode;			/* NAME's sync_mode before, to restore */
	int cur_mode;			/* what NAME's sync_mode is now */
	struct udmabuf_config *cfg;	/* temporary: size and sync_mode */
	uint64_t size;			/* bytes per operation */
	uint8_t *base;			/* malloc'ed, size bytes */
	int status;			/* EXIT_FAIL once check_buf read wrong */
	int reps;			/* of each measurement */
	unsigned int modes;		/* a bit per sync_mode of the O_SYNC rows */
};

static void bench_signal(int sig)
{
	(void)sig;
	bench_stop = 1;
}

/*
 * Stop at SIG, unless the caller ignores it: a shell ignores SIGINT and
 * SIGQUIT for a background job, nohup SIGHUP, and bench must not end on
 * them there.
 */
static void bench_catch(int sig)
{
	struct sigaction sa, old;

	if (!sigaction(sig, NULL, &old) && old.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bench_signal;
	sigaction(sig, &sa, NULL);
}

/* A class attribute of DEV: 0 or -errno. */
static int class_attr(const char *dev, const char *attr, char *buf,
		      size_t len, int write_it)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s/%s", udmabuf_sysfs_dir(), dev, attr);
	/* No O_TRUNC: sysfs takes the write whole; sync modes are one digit. */
	fd = open(path, (write_it ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write_it) {
		n = write(fd, buf, strlen(buf));
		if (n < 0)
			err = -errno;
		else if ((size_t)n != strlen(buf))
			err = -EIO;
	} else {
		n = read(fd, buf, len - 1);
		if (n < 0) {
			err = -errno;
			n = 0;
		}
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
	}
	close(fd);
	return err;
}

/* Set NAME's sync_mode (not written if it is so already); reports. */
static int bench_set_mode(struct bench_target *t, int mode)
{
	char val[16];
	int ret;

	if (mode == t->cur_mode)
		return 0;
	snprintf(val, sizeof(val), "%d", mode);
	ret = class_attr(t->dev, "sync_mode", val, 0, 1);
	if (ret) {
		report(t->name, "set sync_mode", -ret);
		permission_hint(-ret);
		return ret;
	}
	t->cur_mode = mode;
	return 0;
}

/*
 * A handle of the buffer under test, mapped as without O_SYNC (o_sync 0)
 * or as with O_SYNC for sync_mode MODE: NAME opened so with its sync_mode
 * set; else a new temporary buffer (the library asks for MODE | 4 for
 * O_SYNC, as udmabuf_alloc() documents). Fills the row's mapping columns.
 */
static int bench_open(struct bench_target *t, int o_sync, int mode,
		      struct bench_row *r, struct udmabuf **bufp)
{
	unsigned int now;
	int ret;

	if (t->name) {
		ret = bench_set_mode(t, mode);
		if (ret)
			return ret;
		ret = udmabuf_open(t->name, O_RDWR | (o_sync ? O_SYNC : 0), bufp);
		if (ret) {
			report(t->name, "open", -ret);
			/* The library's words for a node it would not open. */
			if (ret == -ENOTTY)
				hint("%s", udmabuf_last_error());
			return ret;
		}
	} else {
		ret = udmabuf_config_set_sync_mode(t->cfg, (unsigned int)mode);
		if (!ret)
			ret = udmabuf_alloc(t->cfg, O_RDWR | (o_sync ? O_SYNC : 0), bufp);
		if (ret) {
			char why[512];

			/* The library's words for what it refused itself. */
			snprintf(why, sizeof(why), "%s", udmabuf_last_error());
			report("bench", "allocate a temporary buffer", -ret);
			if (ret == -EINVAL && getenv("UDMABUF_SYNC_CHECK"))
				hint("%s", why);
			else if (ret == -EOPNOTSUPP)
				hint("%s (UDMABUF_SYNC_CHECK asks for it)", why);
			else if (ret == -ENOENT)
				hint("there is no %s/udmabuf-cfs: is the udmabuf-cfs module loaded, and new enough?",
				     udmabuf_dev_dir());
			else if (ret == -EACCES || ret == -EPERM)
				hint("%s/udmabuf-cfs is for root and the group udmabuf; or name a buffer you may use",
				     udmabuf_dev_dir());
			else if (ret == -ENOMEM)
				hint("try a smaller --size, or name an existing buffer");
			return ret;
		}
		snprintf(t->dev, sizeof(t->dev), "%s", udmabuf_get_name(*bufp));
	}
	r->o_sync = o_sync;
	r->sync_mode = udmabuf_get_sync_mode(*bufp, &now) ? -1 : (int)now;
	if (class_attr(t->dev, o_sync ? "cache_mode_sync" : "cache_mode",
		       r->cache, sizeof(r->cache), 0))
		r->cache[0] = '\0';
	r->size = t->size;
	return 0;
}

/* check_buf and clear_buf through one mapping: two rows. */
static int bench_loops(struct bench_target *t, int o_sync, int mode,
		       struct bench_row *rows, size_t *n, struct udmabuf **keep)
{
	const char *what = t->name ? t->name : "bench";
	struct udmabuf *buf = NULL;
	uint64_t errors = 0;
	void *p;
	int ret, k;

	ret = bench_open(t, o_sync, mode, &rows[*n], &buf);
	if (ret)
		return ret;
	ret = udmabuf_map(buf, 0, t->size, PROT_READ | PROT_WRITE, &p);
	if (ret) {
		report(what, "map", -ret);
		udmabuf_close(buf);
		return ret;
	}
	rows[*n + 1] = rows[*n];
	for (k = 0; k < 2 && !ret; k++) {
		struct bench_row *r = &rows[*n + k];

		snprintf(r->op, sizeof(r->op), k ? "clear_buf" : "check_buf");
		ret = bench_loop(r, k ? BENCH_CLEAR : BENCH_CHECK, p, t->base,
				 t->size, r->reps, &errors);
	}
	udmabuf_unmap(p, t->size);
	if (keep && !ret)
		*keep = buf;
	else
		udmabuf_close(buf);
	if (errors) {
		fprintf(stderr, PROG ": %s: bench: check_buf: %" PRIu64
			" bytes read back wrong (%s, sync_mode %d)\n", what,
			errors, o_sync ? "O_SYNC" : "without O_SYNC",
			rows[*n].sync_mode);
		t->status = EXIT_FAIL;
	}
	if (!ret)
		*n += 2;
	return ret;
}

/*
 * NAME's entry as a buffer to bench: enabled, with a device node, used by
 * nobody (bench overwrites it). Reports why not.
 */
static int bench_usable(struct bench_target *t, const struct udmabuf_entry *e)
{
	char list[512];

	if (!udmabuf_entry_is_enabled(e)) {
		fprintf(stderr, PROG ": %s: bench: not enabled\n", t->name);
		return -ENODEV;
	}
	if (!*udmabuf_entry_get_dev_path(e)) {
		fprintf(stderr, PROG ": %s: bench: no device node%s\n", t->name,
			!strcmp(udmabuf_entry_get_origin(e), "process") ?
			" (a process-scoped buffer of another program)" : "");
		return -ENODEV;
	}
	if (udmabuf_entry_get_users(e) <= 0)
		return 0;
	report(t->name, "bench", EBUSY);
	if (users_text(t->name, list, sizeof(list)))
		hint("%s is in use by PID %s; bench would overwrite its data and change its sync_mode: stop them first",
		     t->name, list);
	else
		hint("%s is open or mapped; bench would overwrite its data and change its sync_mode: close it first",
		     t->name);
	return -EBUSY;
}

/*
 * NAME as a buffer to bench: usable (above), its size enough for --size,
 * and its sync_mode writable if it must change. Reports why not.
 */
static int bench_check_name(struct bench_target *t, unsigned int modes)
{
	struct udmabuf_listing *one;
	const struct udmabuf_entry *e;
	char val[16], a[32], b[32];
	uint64_t size;
	long mode;
	int ret;

	e = lookup(t->name, UDMABUF_FIELD_ALL, &one, &ret);
	if (!e) {
		report_lookup(t->name, "bench", -ret);
		if (ret == -ENOENT)
			probe_hint();
		return ret;
	}
	snprintf(t->dev, sizeof(t->dev), "%s", udmabuf_entry_get_name(e));
	size = udmabuf_entry_get_size(e);
	ret = bench_usable(t, e);
	udmabuf_listing_free(one);
	if (ret)
		return ret;
	ret = class_attr(t->dev, "sync_mode", val, sizeof(val), 0);
	if (!ret && parse_long(val, 0, UDMABUF_SYNC_MODE_MAX, &mode))
		ret = -EINVAL;
	if (ret) {
		report(t->name, "read sync_mode", -ret);
		return ret;
	}
	t->orig_mode = (int)mode;
	t->cur_mode = (int)mode;
	if (!t->size)
		t->size = size < BENCH_SIZE_DEFAULT ? size : BENCH_SIZE_DEFAULT;
	if (t->size > size) {
		human_size(t->size, a, sizeof(a));
		human_size(size, b, sizeof(b));
		fprintf(stderr, PROG ": %s: bench: --size %s is more than the buffer's %s\n",
			t->name, a, b);
		return -EINVAL;
	}
	/* May it be written? Before anything is measured. */
	if (modes || (t->orig_mode & 4)) {
		t->cur_mode = -1;
		return bench_set_mode(t, t->orig_mode);
	}
	return 0;
}

/* --sync-modes LIST: a bit per sync_mode 0..3; -1 if malformed. */
static int parse_modes(const char *s)
{
	int modes = 0;

	if (!strcmp(s, "none"))
		return 0;
	for (;;) {
		if (*s < '0' || *s > '3' || (s[1] && s[1] != ','))
			return -1;
		modes |= 1 << (*s - '0');
		if (!s[1])
			return modes;
		s += 2;
	}
}

/* bench's options and NAME into t and a; exits on a usage error. */
static void bench_options(int argc, char **argv, struct bench_target *t,
			  struct out_args *a)
{
	enum { OPT_REPS = 256, OPT_MODES };
	static const struct option opts[] = {
		{ "size",	required_argument, NULL, 's' },
		{ "reps",	required_argument, NULL, OPT_REPS },
		{ "sync-modes",	required_argument, NULL, OPT_MODES },
		OUT_LONG_OPTS,
		{ NULL, 0, NULL, 0 }
	};
	int c, modes;

	a->ncols = default_columns_of(&bench_columns, a->cols, 64);
	while ((c = getopt_long(argc, argv, "s:" OUT_SHORT_OPTS, opts,
				NULL)) != -1) {
		if (out_option(c, a, &bench_columns))
			continue;
		switch (c) {
		case 's':
			t->size = opt_size("size", optarg);
			if (!t->size)
				usage_error("bench: the size must not be 0");
			break;
		case OPT_REPS:
			t->reps = (int)opt_long("repetitions", optarg, 1,
						BENCH_REPS_MAX);
			break;
		case OPT_MODES:
			modes = parse_modes(optarg);
			if (modes < 0)
				usage_error("invalid sync modes '%s': a list of 0..3 such as 1,3, or none",
					    optarg);
			t->modes = (unsigned int)modes;
			break;
		case 'h':
			usage_of(cur_verb);
			exit(EXIT_OK);
		default:
			try_help();
		}
	}
	out_options_done(a, &bench_columns);
	if (optind + 1 < argc)
		usage_error("bench: unexpected argument '%s' (one buffer at a time)",
			    argv[optind + 1]);
	t->name = optind < argc ? argv[optind] : NULL;
}

/*
 * The rows of the table into rows[] (*n of them): the loops without
 * O_SYNC, the syncs through that mapping's handle, the loops with O_SYNC
 * for each sync_mode asked for. 0, -EINTR, or the -errno of what failed
 * (reported).
 */
static int bench_rows(struct bench_target *t, struct bench_row *rows,
		      size_t *n)
{
	struct udmabuf *plain = NULL;
	int ret, k, m;
	size_t i;

	memset(rows, 0, BENCH_ROWS_MAX * sizeof(*rows));
	for (i = 0; i < BENCH_ROWS_MAX; i++)
		rows[i].reps = t->reps;
	/* Without O_SYNC: NAME's own mode without "sync always", else 1. */
	ret = bench_loops(t, 0, t->name ? t->orig_mode & 3 : 1, rows, n, &plain);
	for (k = 0; !ret && k < 2; k++) {
		struct bench_row *r = &rows[*n];

		*r = rows[0];
		r->cache[0] = '\0';
		snprintf(r->op, sizeof(r->op), k ? "sync_for_device" : "sync_for_cpu");
		ret = bench_sync(r, plain, k, t->size, t->reps);
		if (ret && ret != -EINTR) {
			report(t->name ? t->name : "bench", r->op, -ret);
			if (ret == -EOPNOTSUPP)
				hint("the loaded module does not answer the udmabuf-cfs sync ioctls");
		} else if (!ret) {
			(*n)++;
		}
	}
	udmabuf_close(plain);
	for (m = 0; !ret && m < 4; m++)
		if (t->modes & (1U << m))
			ret = bench_loops(t, 1, m, rows, n, NULL);
	return ret;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_target t = { .orig_mode = -1, .cur_mode = -1,
				  .reps = BENCH_REPS_DEFAULT, .modes = 0xf };
	struct bench_row rows[BENCH_ROWS_MAX];
	struct out_args a = { .ncols = 0 };
	size_t n = 0;
	int ret = 0;

	bench_options(argc, argv, &t, &a);
	if (t.name) {
		if (bench_check_name(&t, t.modes))
			return EXIT_FAIL;
	} else {
		if (!t.size)
			t.size = BENCH_SIZE_DEFAULT;
		t.cfg = udmabuf_config_new();
		if (!t.cfg || udmabuf_config_set_size(t.cfg, t.size)) {
			report("bench", "allocate", ENOMEM);
			udmabuf_config_free(t.cfg);
			return EXIT_FAIL;
		}
	}
	if (posix_memalign((void **)&t.base, 4096, t.size)) {
		report("bench", "allocate the baseline's memory", ENOMEM);
		ret = -ENOMEM;
		goto out;
	}
	/* Interrupted, by Ctrl-\ too: the sync_mode is still put back. */
	bench_catch(SIGINT);
	bench_catch(SIGQUIT);
	bench_catch(SIGTERM);
	bench_catch(SIGHUP);
	ret = bench_rows(&t, rows, &n);
	if (ret == -EINTR)
		fprintf(stderr, PROG ": %s: bench: interrupted\n",
			t.name ? t.name : "bench");
out:
	/* NAME's sync_mode as it was. */
	if (t.name && t.orig_mode >= 0 && t.cur_mode != t.orig_mode &&
	    bench_set_mode(&t, t.orig_mode)) {
		fprintf(stderr, PROG ": %s: bench: its sync_mode is %d now, not %d as before\n",
			t.name, t.cur_mode, t.orig_mode);
		ret = -EIO;
	}
	free(t.base);
	udmabuf_config_free(t.cfg);
	if (ret)
		return EXIT_FAIL;
	if (print_or_fail("bench", print_bench(stdout, rows, n, a.cols,
					       a.ncols, &a.o)))
		return EXIT_FAIL;
	return t.status;
}
