// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl - create, list and delete udmabuf-cfs DMA buffers.
 *
 * A thin layer over libudmabuf: option parsing, messages and output
 * formats live here, everything that touches the kernel there. Besides the
 * public API (udmabuf.h) it uses the library's internals
 * (libudmabuf-private.h, linked statically): listing, per-step errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "output.h"
#include "libudmabuf-private.h"

#ifndef UDMABUF_VERSION
#define UDMABUF_VERSION "unknown"
#endif

#define PROG			"udmabufctl"
#define DEFAULT_SAVE_FILE	"/etc/udmabuf/udmabuf.conf"

/* Exit statuses (documented in --help and udmabufctl(8)). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* usage error or failure */
#define EXIT_PARTIAL	2	/* several NAMEs: some, not all, failed */

/* ---------------------------------------------------------------------- */
/* Messages                                                               */

#define SYN_LIST	" " PROG " [list] [-o LIST|--output-all] [-n] [-r|-P|-J] [-b] [-y] [NAME...]\n"
#define SYN_INFO	" " PROG " info [-o LIST|--output-all] [-n] [-r|-P|-J] [-b] [-y] NAME...\n"
#define SYN_CREATE	" " PROG " create NAME --size SIZE [--dma-device BUS/DEVICE] [--phys-addr ADDR]\n" \
			"            [options]\n" \
			"            [ATTR=VALUE...]\n"
#define SYN_DELETE	" " PROG " delete [--force] NAME|/dev/NAME...\n"
#define SYN_SYNC	" " PROG " sync NAME --for-cpu|--for-device [--offset O] [--length L]\n" \
			"            [--direction bidi|to-device|from-device]\n"
#define SYN_SAVE	" " PROG " save [FILE]\n"
#define SYN_RESTORE	" " PROG " restore [--clear] [--state STATE] [FILE]\n"
#define SYN_CLEAR	" " PROG " clear [--force] [--state STATE]\n"
#define SYN_BENCH	" " PROG " bench [--size SIZE] [--reps N] [--sync-modes LIST]\n" \
			"            [-o LIST|--output-all] [-n] [-r|-P|-J] [-b] [-y] [NAME]\n"

#define OPTS_LIST \
	" -o, --output LIST    columns to show (+LIST appends to the defaults)\n" \
	"     --output-all     show all columns\n" \
	" -n, --noheadings     list: no header line; info: values without keys\n" \
	" -r, --raw            unaligned output, white space escaped as \\xHH\n" \
	" -P, --pairs          KEY=\"value\" pairs, one line per buffer\n" \
	" -b, --bytes          sizes in bytes instead of a human-readable form\n" \
	" -J, --json           JSON output (sizes always in bytes)\n" \
	" -y, --shell          column names usable as shell variables (-P: MAJ_MIN=)\n" \
	" -H, --list-columns   list the available columns\n"
#define OPTS_CREATE \
	" -s, --size SIZE      size: bytes, 0x hex, K/M/G/T or KiB/MiB/GiB/TiB\n" \
	"     --minor N        minor number, 0..1048575 (default: first free)\n" \
	"     --sync-mode M    sync mode, 0..7 (default 1)\n" \
	"     --dma-mask BITS  DMA address bits, 12..64 (default 32)\n" \
	"     --dma-device BUS/DEVICE\n" \
	"                      the DMA master the buffer is for, e.g. pci/0000:01:00.0\n" \
	"                      or platform/a0000000.dma (default: the module's own\n" \
	"                      device); DMA-ADDR is then that device's DMA address\n" \
	"     --phys-addr ADDR allocate the buffer at this CPU physical address\n" \
	"                      (page-aligned, 0x hex) or fail\n" \
	"     --mode OCTAL     permissions of the device node (default 0600)\n" \
	"     --device-name D  device name (default: NAME)\n" \
	"     --no-enable      configure the buffer but do not enable it\n" \
	" ATTR=VALUE           write another configfs attribute before enabling\n"
#define OPTS_FORCE \
	" -f, --force          remove buffers that are in use: the device goes away\n" \
	"                      at once, the memory when the last user is gone\n"
#define OPTS_SYNC \
	"     --for-cpu        make the device's writes visible to the CPU\n" \
	"     --for-device     make the CPU's writes visible to the device\n" \
	"     --offset O       start of the range (default 0)\n" \
	"     --length L       length of the range (default: to the end)\n" \
	"     --direction D    bidi (default), to-device or from-device\n"
#define OPTS_RESTORE \
	"     --clear          delete all configfs buffers first; without it, names\n" \
	"                      that exist already are refused\n" \
	"     --state STATE    record the buffers made in STATE, for clear --state\n" \
	" FILE defaults to " DEFAULT_SAVE_FILE "; restore of a missing\n" \
	" default file does nothing. FILE - is standard input.\n"
#define OPTS_STATE \
	"     --state STATE    delete only the buffers that restore --state STATE\n" \
	"                      made and that still exist (what a service started)\n"
#define OPTS_BENCH \
	" -s, --size SIZE      bytes per operation (default 1M, or the whole buffer\n" \
	"                      NAME if smaller)\n" \
	"     --reps N         repetitions of each measurement, 1..100 (default 7)\n" \
	"     --sync-modes LIST\n" \
	"                      the sync_modes, 0..3, of the O_SYNC rows (default\n" \
	"                      0,1,2,3), or none\n"
#define BENCH_TEXT \
	"Time check_buf (write a pattern, read it back, compare) and clear_buf (write\n" \
	"zeros) through the buffer's mapping without O_SYNC and with O_SYNC for each\n" \
	"sync_mode, against the same loops on malloc'ed memory, and the sync ioctls\n" \
	"against a null system call. Without NAME on a temporary process-scoped\n" \
	"buffer (/dev/udmabuf-cfs); NAME, which must not be in use, is overwritten,\n" \
	"and its sync_mode is changed for the rows and restored afterwards.\n" \
	"With -b, and in JSON, times are in nanoseconds and rates in bytes/s.\n"
#define OPTS_HELP \
	" -h, --help           display this help\n"
#define NAMES_TEXT \
	"NAME is a configfs item name, else a device name; /dev/NAME is always\n" \
	"the buffer whose device is NAME.\n"

static void print_columns(FILE *f, const struct column_set *set)
{
	int i, w = (int)column_name_width_of(set);

	fprintf(f, "\nAvailable output columns%s:\n",
		set == &bench_columns ? " of bench" : "");
	for (i = 0; i < set->n; i++)
		fprintf(f, " %*s  %s\n", w, set->v[i].name, set->v[i].help);
}

static void print_exit_status(FILE *f)
{
	fputs("\n"
	      "Exit status:\n"
	      " 0  success\n"
	      " 1  usage error; the command failed (with several NAMEs: all of them);\n"
	      "    or the output could not be written\n"
	      " 2  some, but not all, of several NAMEs (list, info, delete) or of the\n"
	      "    buffers of restore or clear failed; the others were done\n"
	      "\n"
	      "For more details see udmabufctl(8).\n", f);
}

/* The whole usage: udmabufctl --help. */
static void usage(void)
{
	FILE *f = stdout;

	fputs("Usage:\n"
	      SYN_LIST SYN_INFO SYN_CREATE SYN_DELETE SYN_SYNC SYN_SAVE
	      SYN_RESTORE SYN_CLEAR SYN_BENCH
	      "\n"
	      "Create, list, inspect and delete udmabuf-cfs DMA buffers.\n"
	      NAMES_TEXT
	      "Options of list and info may also come before the command, and a first\n"
	      "word that is no command is a NAME: '" PROG " NAME...' lists NAMEs.\n"
	      "\n"
	      "Commands:\n"
	      " list             list buffers (the default command)\n"
	      " info             show everything known about buffers\n"
	      " create           create and enable a buffer; prints its device node\n"
	      " delete           disable and remove buffers\n"
	      " sync             synchronise the CPU caches with the device\n"
	      " save             write the configfs buffers to FILE\n"
	      " restore          create the buffers described in FILE\n"
	      " clear            delete all configfs buffers (or those restore made)\n"
	      " bench            time CPU access and syncs, cached and O_SYNC\n"
	      "\n"
	      "List, info and bench options:\n" OPTS_LIST
	      "\n"
	      "Create options:\n" OPTS_CREATE
	      "\n"
	      "Delete and clear options:\n" OPTS_FORCE
	      "\n"
	      "Clear options:\n" OPTS_STATE
	      "\n"
	      "Sync options:\n" OPTS_SYNC
	      "\n"
	      "Restore options:\n" OPTS_RESTORE
	      "\n"
	      "Bench options:\n" OPTS_BENCH
	      "\n"
	      OPTS_HELP
	      " -V, --version        display the versions of " PROG " and of the module\n",
	      f);
	print_columns(f, &buffer_columns);
	print_columns(f, &bench_columns);
	print_exit_status(f);
}

/* The command being run, for its --help. */
static const char *cur_verb = "list";

/*
 * The first word of "udmabufctl NAME...", which is no command: a NAME of
 * list, unless it is no buffer either (a mistyped command?). Else NULL.
 */
static const char *first_word;

/* The usage of one command: udmabufctl VERB --help. */
static void usage_of(const char *verb)
{
	static const struct {
		const char *verb, *text;
		int columns;
	} u[] = {
		{ "list", "Usage:\n" SYN_LIST "\n"
		  "List buffers: all of them, or the NAMEs given.\n" NAMES_TEXT
		  "\nOptions:\n" OPTS_LIST OPTS_HELP, 1 },
		{ "info", "Usage:\n" SYN_INFO "\n"
		  "Show everything known about each NAME as 'key: value' lines\n"
		  "(the columns of -o only, if given); with -P or -J as list does.\n"
		  NAMES_TEXT
		  "\nOptions:\n" OPTS_LIST OPTS_HELP, 1 },
		{ "create", "Usage:\n" SYN_CREATE "\n"
		  "Create and enable a buffer; prints its device node.\n"
		  "\nOptions:\n" OPTS_CREATE OPTS_HELP, 0 },
		{ "delete", "Usage:\n" SYN_DELETE "\n"
		  "Disable and remove buffers.\n" NAMES_TEXT
		  "\nOptions:\n" OPTS_FORCE OPTS_HELP, 0 },
		{ "sync", "Usage:\n" SYN_SYNC "\n"
		  "Synchronise the CPU caches with the device for a range of NAME.\n"
		  "\nOptions:\n" OPTS_SYNC OPTS_HELP, 0 },
		{ "save", "Usage:\n" SYN_SAVE "\n"
		  "Write the configfs buffers to FILE (default " DEFAULT_SAVE_FILE "),\n"
		  "replacing it atomically. FILE - is standard output.\n"
		  "\nOptions:\n" OPTS_HELP, 0 },
		{ "restore", "Usage:\n" SYN_RESTORE "\n"
		  "Create the buffers described in FILE.\n"
		  "\nOptions:\n" OPTS_RESTORE OPTS_HELP, 0 },
		{ "clear", "Usage:\n" SYN_CLEAR "\n"
		  "Delete all configfs buffers, or those that restore --state made.\n"
		  "\nOptions:\n" OPTS_FORCE OPTS_STATE OPTS_HELP, 0 },
		{ "bench", "Usage:\n" SYN_BENCH "\n" BENCH_TEXT
		  "\nOptions:\n" OPTS_BENCH OPTS_LIST OPTS_HELP, 2 },
	};
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (strcmp(verb, u[i].verb))
			continue;
		fputs(u[i].text, stdout);
		if (u[i].columns)
			print_columns(stdout, u[i].columns == 2 ?
				      &bench_columns : &buffer_columns);
		print_exit_status(stdout);
		return;
	}
	usage();
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" PROG " --help' for more information.\n", stderr);
	exit(EXIT_FAIL);
}

static void __attribute__((noreturn)) try_help(void)
{
	fputs("Try '" PROG " --help' for more information.\n", stderr);
	exit(EXIT_FAIL);
}

/* "udmabufctl: NAME: ACTION: REASON" */
static void report(const char *name, const char *action, int err)
{
	fprintf(stderr, PROG ": %s: %s: %s\n", name, action, strerror(err));
}

/*
 * The same for a NAME argument that names no buffer: ENOENT and EINVAL of
 * a lookup are about buffers, not files.
 */
static void report_lookup(const char *name, const char *action, int err)
{
	fprintf(stderr, PROG ": %s: %s: %s\n", name, action,
		err == ENOENT ? "no such buffer" :
		err == EINVAL ? "not a buffer name (NAME or /dev/NAME)" :
		strerror(err));
}

static void __attribute__((format(printf, 1, 2))) hint(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": hint: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Why the configfs subsystem is missing (udmabuf_probe()'s P), and the fix. */
static void probe_hint_of(int p)
{
	if (p & UDMABUF_PROBE_NO_CONFIGFS)
		hint("configfs is not mounted: mount -t configfs none /sys/kernel/config");
	if (p & UDMABUF_PROBE_NO_MODULE)
		hint("the udmabuf-cfs module is not loaded: modprobe udmabuf-cfs");
	else if ((p & UDMABUF_PROBE_NO_SUBSYS) && getenv("UDMABUF_CONFIGFS_DIR"))
		hint("is UDMABUF_CONFIGFS_DIR right?");
	else if (p & UDMABUF_PROBE_NO_SUBSYS)
		hint("the loaded udmabuf_cfs module did not register it: modprobe -r udmabuf-cfs && modprobe udmabuf-cfs");
}

/* The same for a buffer that was not found, if configfs is why. */
static void probe_hint(void)
{
	probe_hint_of(udmabuf_probe());
}

/*
 * Every command but sync works through the configfs subsystem. Without
 * it they all fail alike, before anything is read or written:
 * "udmabufctl: COMMAND: no configfs directory DIR" and the fix. Returns 0
 * if it is there.
 */
static int need_configfs(const char *command)
{
	int p = udmabuf_probe();

	if (!p)
		return 0;
	fprintf(stderr, PROG ": %s: no configfs directory %s\n", command,
		udmabuf_configfs_dir());
	probe_hint_of(p);
	return -1;
}

static void permission_hint(int err)
{
	if ((err == EACCES || err == EPERM) && geteuid() != 0)
		hint("this needs root");
}

/*
 * The value of the last ATTR=VALUE argument of create that sets ATTR (it
 * is written after the options), else NULL.
 */
static const char *create_attr(const struct udmabuf_create_args *cfg,
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
static void enomem_hint(const struct udmabuf_create_args *cfg,
			const char *dev, int kmsg)
{
	struct udmabuf_mem_limits m;
	const char *val;
	char what[512], fix[256];
	uint64_t size = cfg->size;
	int mask = cfg->dma_mask >= 0 ? cfg->dma_mask : UDMABUF_DMA_MASK_DEFAULT;
	long l;

	val = create_attr(cfg, "size");
	if (val && udmabuf_parse_size(val, &size))
		size = cfg->size;
	val = create_attr(cfg, "dma_mask");
	if (val && udmabuf_parse_long(val, UDMABUF_DMA_MASK_MIN,
				      UDMABUF_DMA_MASK_MAX, &l) == 0)
		mask = (int)l;
	udmabuf_mem_limits(mask, &m);
	m.longest_range = udmabuf_kmsg_longest_range(kmsg, dev);
	enomem_hint_text(size, mask, &m, what, sizeof(what), fix, sizeof(fix));
	hint("%s", what);
	hint("%s", fix);
}

/*
 * util-linux's close_stdout(), run at exit: output that could not be
 * written (a full disk, a closed pipe's EPIPE aside) is a failure, not a
 * success with a truncated table.
 */
static int close_stream(FILE *f)
{
	int pending = __fpending(f) != 0;
	int prev_fail = ferror(f) != 0;
	int fclose_fail = fclose(f) != 0;

	if (prev_fail || (fclose_fail && (pending || errno != EBADF))) {
		if (!fclose_fail)
			errno = 0;
		return EOF;
	}
	return 0;
}

static void close_stdout(void)
{
	errno = 0;
	if (close_stream(stdout) != 0 && errno != EPIPE) {
		if (errno)
			fprintf(stderr, PROG ": write error: %s\n", strerror(errno));
		else
			fputs(PROG ": write error\n", stderr);
		_exit(EXIT_FAIL);
	}
	if (close_stream(stderr) != 0)
		_exit(EXIT_FAIL);
}

static int status_of(size_t failed, size_t total)
{
	return !failed ? EXIT_OK : failed == total ? EXIT_FAIL : EXIT_PARTIAL;
}

/*
 * The exit status of printing a table (ret: 0 or a negative errno from
 * libsmartcols), reported as "udmabufctl: WHAT: print: REASON". A write
 * error is close_stdout()'s to report.
 */
static int print_or_fail(const char *what, int ret)
{
	if (!ret || ferror(stdout))
		return EXIT_OK;
	report(what, "print", -ret);
	return EXIT_FAIL;
}

/* ---------------------------------------------------------------------- */
/* list / info                                                            */

/*
 * The output options list, info and bench share (for list and info they may
 * come before the verb); out_option() takes them.
 */
#define OUT_LONG_OPTS \
	{ "output",	required_argument, NULL, 'o' }, \
	{ "output-all",	no_argument,	   NULL, 'A' }, \
	{ "noheadings",	no_argument,	   NULL, 'n' }, \
	{ "raw",	no_argument,	   NULL, 'r' }, \
	{ "bytes",	no_argument,	   NULL, 'b' }, \
	{ "json",	no_argument,	   NULL, 'J' }, \
	{ "pairs",	no_argument,	   NULL, 'P' }, \
	{ "shell",	no_argument,	   NULL, 'y' }, \
	{ "list-columns", no_argument,	   NULL, 'H' }, \
	{ "help",	no_argument,	   NULL, 'h' }

static const struct option out_long_opts[] = {
	OUT_LONG_OPTS,
	{ NULL, 0, NULL, 0 }
};
#define OUT_SHORT_OPTS	"o:nrbJPyHh"

struct out_args {
	int cols[64];
	size_t ncols;
	struct out_opts o;
	int list_columns;	/* -H */
};

/*
 * An option of the output (C, with optarg) for a table of the columns of
 * SET; 0 if C is none of them.
 */
static int out_option(int c, struct out_args *a, const struct column_set *set)
{
	const char *bad;
	int ret;

	switch (c) {
	case 'o':
		ret = parse_columns_of(set, optarg, a->cols, 64, &a->ncols, &bad);
		if (ret == -EINVAL)
			usage_error("unknown column: %s", bad);
		if (ret)
			usage_error("too many columns: %s", optarg);
		break;
	case 'A':
		for (a->ncols = 0; (int)a->ncols < set->n; a->ncols++)
			a->cols[a->ncols] = (int)a->ncols;
		break;
	case 'n': a->o.noheadings = 1; break;
	case 'r': a->o.raw = 1; break;
	case 'b': a->o.bytes = 1; break;
	case 'J': a->o.json = 1; break;
	case 'P': a->o.pairs = 1; break;
	case 'y': a->o.shell = 1; break;
	case 'H': a->list_columns = 1; break;
	default: return 0;
	}
	return 1;
}

/* After the options: conflicts, and -H (the columns, nothing else). */
static void out_options_done(const struct out_args *a,
			     const struct column_set *set)
{
	if (a->o.json + a->o.raw + a->o.pairs > 1)
		usage_error("%s and %s are mutually exclusive",
			    a->o.json ? "--json" : "--raw",
			    a->o.pairs ? "--pairs" : "--raw");
	if (a->list_columns)
		exit(print_or_fail(PROG, print_column_list_of(stdout, set, &a->o)));
}

/* Parse the options of list and info; returns optind. */
static int parse_out_args(int argc, char **argv, struct out_args *a)
{
	int c;

	while ((c = getopt_long(argc, argv, OUT_SHORT_OPTS, out_long_opts,
				NULL)) != -1) {
		if (out_option(c, a, &buffer_columns))
			continue;
		if (c == 'h') {
			usage_of(cur_verb);
			exit(EXIT_OK);
		}
		try_help();
	}
	out_options_done(a, &buffer_columns);
	return optind;
}

/* 1 if row is the buffer info (as udmabuf_get_info() found it). */
static int same_buffer(const struct udmabuf_info *row,
		       const struct udmabuf_info *info)
{
	if (info->item[0])
		return !strcmp(row->item, info->item);
	return !row->item[0] && !strcmp(row->name, info->name);
}

/*
 * Keep only the rows of v[] that the NAMEs are (in list order). An unknown
 * NAME is reported; returns how many were.
 */
static size_t filter_list(struct udmabuf_info *v, size_t *n, char **names,
			  int count)
{
	struct udmabuf_info *info = malloc(sizeof(*info));
	char *keep = calloc(*n + 1, 1);
	size_t failed = 0, i, j, m = 0;
	int k, ret;

	if (!info || !keep) {
		free(info);
		free(keep);
		report("list", "allocate", ENOMEM);
		return (size_t)count;
	}
	for (k = 0; k < count; k++) {
		int found = 0;

		ret = udmabuf_get_info(names[k], info);
		for (i = 0; !ret && i < *n; i++)
			if (same_buffer(&v[i], info))
				found = keep[i] = 1;
		if (!found) {
			report_lookup(names[k], "list", ret ? -ret : ENOENT);
			if (names[k] == first_word)
				hint("'%s' is not a command either (see '" PROG " --help')",
				     first_word);
			failed++;
		}
	}
	for (j = 0; j < *n; j++)
		if (keep[j])
			v[m++] = v[j];
	*n = m;
	free(keep);
	free(info);
	return failed;
}

static int cmd_list(int argc, char **argv)
{
	struct out_args a = { .ncols = 0 };
	struct udmabuf_info *v;
	size_t n, failed = 0, total = 0;
	int ret, first;

	a.ncols = default_columns(a.cols, 64);
	first = parse_out_args(argc, argv, &a);
	if (need_configfs("list"))
		return EXIT_FAIL;

	/* Only what the columns show: a few reads per buffer, not all. */
	ret = udmabuf_list_fields(columns_fields(a.cols, a.ncols), &v, &n);
	if (ret) {
		fprintf(stderr, PROG ": list: %s\n", strerror(-ret));
		return EXIT_FAIL;
	}
	if (first < argc) {
		total = (size_t)(argc - first);
		failed = filter_list(v, &n, argv + first, argc - first);
	}
	/* Not even a header when no NAME is a buffer: the command failed. */
	if ((!total || failed < total) &&
	    print_or_fail("list", print_list(stdout, v, n, a.cols, a.ncols, &a.o)))
		failed = total = 1;
	udmabuf_list_free(v);
	/* As info and delete: 2 if some NAMEs are no buffer, 1 if all. */
	return status_of(failed, total);
}

static int cmd_info(int argc, char **argv)
{
	struct out_args a = { .ncols = 0 };
	struct udmabuf_info *v;
	size_t n = 0, failed = 0, total;
	unsigned int fields;
	int i, ret, first;

	for (a.ncols = 0; a.ncols < NCOLUMNS; a.ncols++)
		a.cols[a.ncols] = (int)a.ncols;
	first = parse_out_args(argc, argv, &a);
	if (first >= argc)
		usage_error("info: missing buffer name");
	if (need_configfs("info"))
		return EXIT_FAIL;
	total = (size_t)(argc - first);
	v = calloc(total, sizeof(*v));
	if (!v) {
		report("info", "allocate", ENOMEM);
		return EXIT_FAIL;
	}
	/* The CPU physical address only if shown: it opens the device. */
	fields = UDMABUF_FIELD_ALL |
		 (columns_fields(a.cols, a.ncols) & UDMABUF_FIELD_CPU_PHYS_ADDR);
	for (i = first; i < argc; i++) {
		ret = udmabuf_get_info_fields(argv[i], fields, &v[n]);
		if (ret) {
			report_lookup(argv[i], "info", -ret);
			failed++;
			continue;
		}
		if (!a.o.json && !a.o.pairs) {
			if (n)
				putchar('\n');
			if (print_or_fail("info", print_info(stdout, &v[n], a.cols,
							      a.ncols, &a.o)))
				failed = total;
		}
		n++;
	}
	/* -J and -P: one table of all of them, as list prints it. */
	if ((a.o.json || a.o.pairs) && n &&
	    print_or_fail("info", print_list(stdout, v, n, a.cols, a.ncols, &a.o)))
		failed = total;
	free(v);
	return status_of(failed, total);
}

/* ---------------------------------------------------------------------- */
/* create / delete / clear                                                */

static uint64_t opt_size(const char *what, const char *s)
{
	uint64_t v;
	int ret = udmabuf_parse_size(s, &v);

	if (ret)
		usage_error("invalid %s '%s': %s", what, s, strerror(-ret));
	return v;
}

static long opt_long(const char *what, const char *s, long min, long max)
{
	long v;
	int ret = udmabuf_parse_long(s, min, max, &v);

	if (ret == -ERANGE)
		usage_error("invalid %s '%s': must be %ld..%ld", what, s, min, max);
	if (ret)
		usage_error("invalid %s '%s': %s", what, s, strerror(-ret));
	return v;
}

/*
 * A CPU physical address: decimal or 0x hex (page alignment is the
 * kernel's to check). 0 or -EINVAL.
 */
static int parse_address(const char *s, uint64_t *addr)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (*s == '-' || *s == '+' || !*s)
		return -EINVAL;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*addr = v;
	return 0;
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
	int ret = udmabuf_parse_mode(s, &m);

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
	}
	return 0;
}

/*
 * Report a failed create; the action names the failed step. KMSG: the
 * kernel log from before the create (udmabuf_kmsg_open()).
 */
static void create_failed(const struct udmabuf_create_args *cfg, const char *step,
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

	if (!strcmp(step, "dma_device") && dma_device_hint(cfg->dma_device, err))
		return;
	if (!strcmp(step, "mkdir") && err == ENOENT)
		probe_hint();
	else if (!strcmp(step, "enable") && err == ENODEV && cfg->dma_device &&
		 *cfg->dma_device)
		hint("%s went away before the buffer was enabled", cfg->dma_device);
	else if (!strcmp(step, "enable") && err == ENXIO && cfg->dma_device &&
		 *cfg->dma_device)
		hint("%s has no driver: bind vfio-pci or uio_pci_generic to it first (its DMA setup exists only then)",
		     cfg->dma_device);
	else if (!strcmp(step, "enable") && err == EINVAL && cfg->dma_device &&
		 *cfg->dma_device)
		hint("is %s a DMA master? A device without a DMA mask cannot have buffers",
		     cfg->dma_device);
	else if (!strcmp(step, "enable") && cfg->has_phys_addr &&
		 (err == EBUSY || err == ERANGE || err == EINVAL))
		hint(err == EBUSY ? "the memory at 0x%" PRIx64 " is in use (another buffer, the kernel, pages that cannot move, a CMA area)" :
		     err == ERANGE ? "0x%" PRIx64 " is not RAM, or not within the DMA mask" :
		     "the DMA device would see 0x%" PRIx64 " at another address (an IOMMU or a bus offset)",
		     cfg->phys_addr);
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

/*
 * Create one buffer as CFG says, reporting a failure with what the kernel
 * logged meanwhile. 0 or -errno.
 */
static int create_reported(const struct udmabuf_create_args *cfg)
{
	const char *step = "mkdir";
	int kmsg = udmabuf_kmsg_open();
	int ret = udmabuf_create_args(cfg, &step);

	if (ret)
		create_failed(cfg, step, -ret, kmsg);
	if (kmsg >= 0)
		close(kmsg);
	return ret;
}

static int cmd_create(int argc, char **argv)
{
	enum { OPT_MINOR = 256, OPT_SYNC, OPT_MASK, OPT_MODE, OPT_DEVNAME,
	       OPT_NOENABLE, OPT_DMADEV, OPT_PHYS };
	static const struct option opts[] = {
		{ "size",	 required_argument, NULL, 's' },
		{ "minor",	 required_argument, NULL, OPT_MINOR },
		{ "sync-mode",	 required_argument, NULL, OPT_SYNC },
		{ "dma-mask",	 required_argument, NULL, OPT_MASK },
		{ "dma-device",	 required_argument, NULL, OPT_DMADEV },
		{ "phys-addr",	 required_argument, NULL, OPT_PHYS },
		{ "mode",	 required_argument, NULL, OPT_MODE },
		{ "device-name", required_argument, NULL, OPT_DEVNAME },
		{ "no-enable",	 no_argument,	    NULL, OPT_NOENABLE },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct udmabuf_create_args cfg;
	int have_size = 0, c, i;

	udmabuf_create_args_init(&cfg, NULL);
	while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cfg.size = opt_size("size", optarg);
			have_size = 1;
			break;
		case OPT_MINOR:
			cfg.minor = opt_long("minor", optarg, 0, UDMABUF_MINOR_MAX);
			break;
		case OPT_SYNC:
			cfg.sync_mode = (int)opt_long("sync mode", optarg, 0,
						      UDMABUF_SYNC_MODE_MAX);
			break;
		case OPT_MASK:
			cfg.dma_mask = (int)opt_long("DMA mask", optarg,
						     UDMABUF_DMA_MASK_MIN,
						     UDMABUF_DMA_MASK_MAX);
			break;
		case OPT_MODE:
			cfg.mode = (int)opt_mode(optarg);
			break;
		case OPT_DEVNAME:
			cfg.device_name = optarg;
			break;
		case OPT_DMADEV:
			cfg.dma_device = optarg;
			break;
		case OPT_PHYS:
			cfg.phys_addr = opt_address(optarg);
			cfg.has_phys_addr = 1;
			break;
		case OPT_NOENABLE:
			cfg.flags |= UDMABUF_CREATE_NO_ENABLE;
			break;
		case 'h':
			usage_of(cur_verb);
			return EXIT_OK;
		default:
			try_help();
		}
	}
	if (optind >= argc)
		usage_error("create: missing buffer name");
	cfg.name = argv[optind++];
	for (i = optind; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i])
			usage_error("create: unexpected argument '%s' (one buffer at a time; attributes as ATTR=VALUE)",
				    argv[i]);
		if (!strncmp(argv[i], "enable=", 7))
			usage_error("create: use --no-enable instead of '%s'", argv[i]);
		if (!strncmp(argv[i], "device_name=", 12))
			cfg.device_name = argv[i] + 12;
		if (!strncmp(argv[i], "dma_device=", 11) && !cfg.dma_device)
			cfg.dma_device = argv[i] + 11;
	}
	cfg.attrs = (const char *const *)&argv[optind];
	if (!have_size && !(cfg.flags & UDMABUF_CREATE_NO_ENABLE))
		usage_error("create: --size is required");
	if (have_size && !cfg.size && !(cfg.flags & UDMABUF_CREATE_NO_ENABLE))
		usage_error("create: the size must not be 0");
	if (!udmabuf_valid_device_name(cfg.device_name ? cfg.device_name : cfg.name))
		usage_error("invalid device name '%s': use 1..%d characters of A-Z a-z 0-9 _ . -",
			    cfg.device_name ? cfg.device_name : cfg.name,
			    UDMABUF_DEVICE_NAME_MAX);
	if (cfg.device_name && strchr(cfg.name, '/'))
		usage_error("invalid buffer name '%s'", cfg.name);

	if (need_configfs("create"))
		return EXIT_FAIL;
	/* argv[argc] is NULL, so the attribute list is terminated. */
	if (create_reported(&cfg))
		return EXIT_FAIL;
	if (!(cfg.flags & UDMABUF_CREATE_NO_ENABLE))
		printf("%s/%s\n", udmabuf_dev_dir(),
		       cfg.device_name ? cfg.device_name : cfg.name);
	return EXIT_OK;
}

/* "PID (COMM), ..." of the processes using NAME into list; how many. */
static size_t users_text(const char *name, char *list, size_t size)
{
	char comm[64], path[64];
	size_t n = 0, i, len = 0;
	pid_t *pids = NULL;

	list[0] = '\0';
	udmabuf_users(name, &pids, &n);
	for (i = 0; i < n && len + 100 < size; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pids[i]);
		comm[0] = '\0';
		f = fopen(path, "re");
		if (f) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		len += (size_t)snprintf(list + len, size - len, "%s%d (%s)",
					i ? ", " : "", (int)pids[i], comm);
	}
	free(pids);
	return n;
}

static void busy_hint(const char *name)
{
	char list[512];
	size_t n = users_text(name, list, sizeof(list));

	if (n)
		hint("%s is in use by PID %s; --force removes the device now, the memory goes when they let go",
		     name, list);
	else
		hint("%s is open or mapped; --force removes the device now, the memory goes when it is released",
		     name);
}

static int delete_one(const char *name, unsigned int flags)
{
	const char *step = "delete";
	struct udmabuf_info info;
	int ret;

	ret = udmabuf_delete(name, flags, &step);
	if (!ret)
		return 0;
	/* Gone meanwhile, or never there: no such buffer either way. */
	if (ret == -ENOENT || (ret == -EINVAL && !strcmp(step, "delete")))
		report_lookup(name, "delete", -ret);
	else
		report(name, !strcmp(step, "disable") || !strcmp(step, "rmdir") ?
			     "delete" : step, -ret);
	if (ret == -EBUSY)
		busy_hint(name);
	else if (ret == -EPERM && udmabuf_get_info(name, &info) == 0)
		hint("%s was created %s, not through configfs; it goes away when the module is unloaded",
		     info.name, !strcmp(info.origin, "dt") ? "from the device tree" :
		     !strcmp(info.origin, "param") ? "by a module parameter" :
		     "by the module");
	else
		permission_hint(-ret);
	return ret;
}

static int parse_force(int argc, char **argv, unsigned int *flags)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help",  no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f': *flags |= UDMABUF_DELETE_FORCE; break;
		case 'h': usage_of(cur_verb); exit(EXIT_OK);
		default: try_help();
		}
	}
	return optind;
}

static int cmd_delete(int argc, char **argv)
{
	unsigned int flags = 0;
	size_t failed = 0;
	int i = parse_force(argc, argv, &flags);

	if (i >= argc)
		usage_error("delete: missing buffer name");
	if (need_configfs("delete"))
		return EXIT_FAIL;
	for (; i < argc; i++)
		if (delete_one(argv[i], flags))
			failed++;
	return status_of(failed, (size_t)(argc - optind));
}

/* Delete every configfs buffer. */
static int clear_all(unsigned int flags, size_t *total)
{
	char **items;
	size_t n, i, failed = 0;
	int ret = udmabuf_list_items(&items, &n);

	*total = 0;
	if (ret) {
		fprintf(stderr, PROG ": clear: %s\n", strerror(-ret));
		*total = 1;
		return 1;
	}
	for (i = 0; i < n; i++)
		if (delete_one(items[i], flags))
			failed++;
	udmabuf_names_free(items, n);
	*total = n;
	return (int)failed;
}

/* ---------------------------------------------------------------------- */
/* sync                                                                   */

static int cmd_sync(int argc, char **argv)
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
	int dir = UDMABUF_DIR_BIDIRECTIONAL;
	uint64_t offset = 0, length = 0;
	int target = -1, c, ret;
	struct udmabuf_info info;
	struct udmabuf *buf;
	const char *name;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_CPU:
		case OPT_DEV:
			if (target >= 0)
				usage_error("sync: give one of --for-cpu and --for-device");
			target = c;
			break;
		case OPT_OFF:
			offset = opt_size("offset", optarg);
			break;
		case OPT_LEN:
			length = opt_size("length", optarg);
			break;
		case OPT_DIR:
			if (!strcmp(optarg, "bidi") || !strcmp(optarg, "bidirectional"))
				dir = UDMABUF_DIR_BIDIRECTIONAL;
			else if (!strcmp(optarg, "to-device"))
				dir = UDMABUF_DIR_TO_DEVICE;
			else if (!strcmp(optarg, "from-device"))
				dir = UDMABUF_DIR_FROM_DEVICE;
			else
				usage_error("invalid direction '%s': use bidi, to-device or from-device",
					    optarg);
			break;
		case 'h':
			usage_of(cur_verb);
			return EXIT_OK;
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
	name = argv[optind];
	/* One open, one ioctl. A node that does not answer is an old module. */
	ret = udmabuf_open(name, O_RDONLY, &buf);
	if (ret == -ENOTTY)
		ret = -EOPNOTSUPP;
	if (!ret) {
		ret = target == OPT_CPU ?
		      udmabuf_sync_for_cpu(buf, offset, length, dir) :
		      udmabuf_sync_for_device(buf, offset, length, dir);
		udmabuf_close(buf);
	}
	if (ret == -ENOENT && udmabuf_get_info(name, &info) == 0 &&
	    info.devpath[0]) {
		fprintf(stderr, PROG ": %s: sync: no device node %s\n", name,
			info.devpath);
		return EXIT_FAIL;
	}
	if (ret == -ENODEV) {	/* a configfs item that is not enabled */
		fprintf(stderr, PROG ": %s: sync: not enabled\n", name);
		return EXIT_FAIL;
	}
	if (ret == -ENOENT) {
		report_lookup(name, "sync", ENOENT);
		probe_hint();
		return EXIT_FAIL;
	}
	if (ret) {
		report(name, "sync", -ret);
		if (ret == -EOPNOTSUPP)
			hint("%s does not answer the udmabuf-cfs sync ioctls; is the loaded module older than this tool?",
			     name);
		else if (ret == -EINVAL)
			hint("the range must lie inside the buffer");
		else
			permission_hint(-ret);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}


/* ---------------------------------------------------------------------- */
/* bench                                                                  */

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
};

static void bench_signal(int sig)
{
	(void)sig;
	bench_stop = 1;
}

/*
 * Stop at SIG, unless the caller ignores it: a shell ignores SIGINT for a
 * background job, nohup SIGHUP, and bench must not end on them there.
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
		if (ret)
			report(t->name, "open", -ret);
	} else {
		ret = udmabuf_config_set_sync_mode(t->cfg, (unsigned int)mode);
		if (!ret)
			ret = udmabuf_alloc(t->cfg, O_RDWR | (o_sync ? O_SYNC : 0), bufp);
		if (ret) {
			report("bench", "allocate a temporary buffer", -ret);
			if (ret == -ENOENT)
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
 * NAME as a buffer to bench: enabled, with a device node, used by nobody
 * (bench overwrites it), and its sync_mode writable if it must change.
 * Reports why not.
 */
static int bench_check_name(struct bench_target *t, unsigned int modes)
{
	struct udmabuf_info *info = malloc(sizeof(*info));
	char list[512], val[16];
	int ret = -ENOMEM;
	long mode;

	if (!info) {
		report(t->name, "bench", ENOMEM);
		return ret;
	}
	ret = udmabuf_get_info(t->name, info);
	if (ret) {
		report_lookup(t->name, "bench", -ret);
		if (ret == -ENOENT)
			probe_hint();
		goto out;
	}
	ret = -ENODEV;
	if (!info->enabled) {
		fprintf(stderr, PROG ": %s: bench: not enabled\n", t->name);
		goto out;
	}
	if (!info->devpath[0]) {
		fprintf(stderr, PROG ": %s: bench: no device node%s\n", t->name,
			!strcmp(info->origin, "process") ?
			" (a process-scoped buffer of another program)" : "");
		goto out;
	}
	snprintf(t->dev, sizeof(t->dev), "%s", info->name);
	if (info->users > 0) {
		ret = -EBUSY;
		report(t->name, "bench", EBUSY);
		if (users_text(t->name, list, sizeof(list)))
			hint("%s is in use by PID %s; bench would overwrite its data and change its sync_mode: stop them first",
			     t->name, list);
		else
			hint("%s is open or mapped; bench would overwrite its data and change its sync_mode: close it first",
			     t->name);
		goto out;
	}
	ret = class_attr(t->dev, "sync_mode", val, sizeof(val), 0);
	if (!ret && udmabuf_parse_long(val, 0, UDMABUF_SYNC_MODE_MAX, &mode))
		ret = -EINVAL;
	if (ret) {
		report(t->name, "read sync_mode", -ret);
		goto out;
	}
	t->orig_mode = t->cur_mode = (int)mode;
	if (!t->size)
		t->size = info->size < BENCH_SIZE_DEFAULT ? info->size :
			  BENCH_SIZE_DEFAULT;
	if (t->size > info->size) {
		char a[32], b[32];

		ret = -EINVAL;
		human_size(t->size, a, sizeof(a));
		human_size(info->size, b, sizeof(b));
		fprintf(stderr, PROG ": %s: bench: --size %s is more than the buffer's %s\n",
			t->name, a, b);
		goto out;
	}
	/* May it be written? Before anything is measured. */
	if (modes || (t->orig_mode & 4)) {
		t->cur_mode = -1;
		ret = bench_set_mode(t, t->orig_mode);
	}
out:
	free(info);
	return ret;
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

static int cmd_bench(int argc, char **argv)
{
	enum { OPT_REPS = 256, OPT_MODES };
	static const struct option opts[] = {
		{ "size",	required_argument, NULL, 's' },
		{ "reps",	required_argument, NULL, OPT_REPS },
		{ "sync-modes",	required_argument, NULL, OPT_MODES },
		OUT_LONG_OPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct bench_row rows[BENCH_ROWS_MAX];
	struct bench_target t = { .orig_mode = -1, .cur_mode = -1 };
	struct out_args a = { .ncols = 0 };
	struct udmabuf *plain = NULL;
	int reps = BENCH_REPS_DEFAULT, modes = 0xf, ret = 0, c, m, k;
	size_t n = 0, i;
	long l;

	a.ncols = default_columns_of(&bench_columns, a.cols, 64);
	while ((c = getopt_long(argc, argv, "s:" OUT_SHORT_OPTS, opts,
				NULL)) != -1) {
		if (out_option(c, &a, &bench_columns))
			continue;
		switch (c) {
		case 's':
			t.size = opt_size("size", optarg);
			if (!t.size)
				usage_error("bench: the size must not be 0");
			break;
		case OPT_REPS:
			l = opt_long("repetitions", optarg, 1, BENCH_REPS_MAX);
			reps = (int)l;
			break;
		case OPT_MODES:
			modes = parse_modes(optarg);
			if (modes < 0)
				usage_error("invalid sync modes '%s': a list of 0..3 such as 1,3, or none",
					    optarg);
			break;
		case 'h':
			usage_of(cur_verb);
			return EXIT_OK;
		default:
			try_help();
		}
	}
	out_options_done(&a, &bench_columns);
	if (optind + 1 < argc)
		usage_error("bench: unexpected argument '%s' (one buffer at a time)",
			    argv[optind + 1]);
	t.name = optind < argc ? argv[optind] : NULL;
	if (t.name) {
		if (bench_check_name(&t, (unsigned int)modes))
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
	/* Interrupted: the sync_mode is still put back. */
	bench_catch(SIGINT);
	bench_catch(SIGTERM);
	bench_catch(SIGHUP);

	memset(rows, 0, sizeof(rows));
	for (i = 0; i < BENCH_ROWS_MAX; i++)
		rows[i].reps = reps;
	/* Without O_SYNC: NAME's own mode without "sync always", else 1. */
	ret = bench_loops(&t, 0, t.name ? t.orig_mode & 3 : 1, rows, &n, &plain);
	/* The syncs, through that handle. */
	for (k = 0; !ret && k < 2; k++) {
		struct bench_row *r = &rows[n];

		*r = rows[0];
		r->cache[0] = '\0';
		snprintf(r->op, sizeof(r->op), k ? "sync_for_device" : "sync_for_cpu");
		ret = bench_sync(r, plain, k, t.size, reps);
		if (ret && ret != -EINTR) {
			report(t.name ? t.name : "bench", r->op, -ret);
			if (ret == -EOPNOTSUPP)
				hint("the loaded module does not answer the udmabuf-cfs sync ioctls");
		} else if (!ret) {
			n++;
		}
	}
	udmabuf_close(plain);
	for (m = 0; !ret && m < 4; m++)
		if (modes & (1 << m))
			ret = bench_loops(&t, 1, m, rows, &n, NULL);
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

/* ---------------------------------------------------------------------- */
/* save / restore                                                         */

static const char *default_save_file(void)
{
	const char *env = getenv("UDMABUF_SAVE_FILE");

	return env && *env ? env : DEFAULT_SAVE_FILE;
}

static int write_save_file(FILE *f)
{
	struct udmabuf_info info;
	char **items;
	size_t n, i;
	int ret = udmabuf_list_items(&items, &n);

	if (ret) {
		/* Never replace a saved file because the buffers are unknown. */
		fprintf(stderr, PROG ": save: %s\n", strerror(-ret));
		return ret;
	}
	fprintf(f, "# udmabuf buffers, written by '" PROG " save' (" PROG " %s).\n"
		   "# One buffer per line: NAME ATTR=VALUE...; read by '" PROG " restore'.\n",
		UDMABUF_VERSION);
	for (i = 0; i < n; i++) {
		ret = udmabuf_get_info(items[i], &info);
		if (ret) {
			report_lookup(items[i], "save", -ret);
			break;
		}
		/*
		 * A placed buffer must come back at the same CPU physical
		 * address, which only GET_INFO tells once it is enabled (its
		 * phys_addr then reads the DMA address). A disabled item's
		 * placement is what its phys_addr reads (info.place).
		 */
		if (info.enabled && !strcmp(info.allocator, "placed")) {
			ret = udmabuf_info_cpu_phys_addr(&info);
			if (ret) {
				fprintf(stderr, PROG ": %s: save: read the CPU physical address it is placed at (%s): %s\n",
					items[i], info.devpath, strerror(-ret));
				break;
			}
			info.place = info.cpu_phys_addr;
			info.has_place = 1;
		}
		conf_write_line(f, &info);
	}
	udmabuf_names_free(items, n);
	return ret;
}

/*
 * Replace FILE atomically with what fill() writes: a temporary file next
 * to it, fsync, rename. Its directory is made if missing (that of the
 * default file may not exist yet). fill() reports its own errors and
 * returns -errno; the others are reported here as "FILE: ACTION: reason".
 * Returns 0 or -errno.
 */
static int replace_file(const char *file, const char *action,
			int (*fill)(const char *file, FILE *f, void *ctx),
			void *ctx)
{
	char *tmp, *dircopy;
	int fd, ret;
	FILE *f;

	/* A failure to make the directory shows up as mkstemp's. */
	dircopy = strdup(file);
	if (dircopy) {
		(void)mkdir(dirname(dircopy), 0755);
		free(dircopy);
	}
	if (asprintf(&tmp, "%s.XXXXXX", file) < 0) {
		report(file, action, ENOMEM);
		return -ENOMEM;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		report(file, action, -ret);
		permission_hint(-ret);
		free(tmp);
		return ret;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto fail;
	}
	fchmod(fd, 0644);
	ret = fill(file, f, ctx);
	if (ret) {
		fclose(f);
		unlink(tmp);
		free(tmp);
		return ret;
	}
	if (fflush(f) || fsync(fd)) {
		ret = -errno;
		fclose(f);
		goto fail;
	}
	if (fclose(f)) {
		ret = -errno;
		goto fail;
	}
	if (rename(tmp, file)) {
		ret = -errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	report(file, action, -ret);
	unlink(tmp);
	free(tmp);
	return ret;
}

static int fill_save_file(const char *file, FILE *f, void *ctx)
{
	(void)file;
	(void)ctx;
	return write_save_file(f);
}

/*
 * save -: the whole file or nothing on standard output, as a file is
 * replaced whole or not at all. Write errors are close_stdout()'s.
 */
static int save_to_stdout(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f) {
		fprintf(stderr, PROG ": save: %s\n", strerror(errno));
		return EXIT_FAIL;
	}
	ret = write_save_file(f);
	if (fclose(f) && !ret) {
		ret = -ENOMEM;
		fprintf(stderr, PROG ": save: %s\n", strerror(-ret));
	}
	if (!ret)
		fwrite(text, 1, len, stdout);
	free(text);
	return ret ? EXIT_FAIL : EXIT_OK;
}

static int cmd_save(int argc, char **argv)
{
	const char *file;
	int c;

	while ((c = getopt_long(argc, argv, "h",
				(const struct option[]){
					{ "help", no_argument, NULL, 'h' },
					{ NULL, 0, NULL, 0 } }, NULL)) != -1) {
		if (c == 'h') {
			usage_of(cur_verb);
			return EXIT_OK;
		}
		try_help();
	}
	if (optind + 1 < argc)
		usage_error("save: unexpected argument '%s'", argv[optind + 1]);
	file = optind < argc ? argv[optind] : default_save_file();
	if (need_configfs("save"))
		return EXIT_FAIL;
	if (!strcmp(file, "-"))
		return save_to_stdout();
	return replace_file(file, "save", fill_save_file, NULL) ?
	       EXIT_FAIL : EXIT_OK;
}

/* ---------------------------------------------------------------------- */
/* The record of what restore made (--state)                              */

/*
 * "restore --state FILE" records each buffer it creates in FILE, and
 * "clear --state FILE" deletes only those: what a service's start made,
 * its stop removes, and buffers made otherwise (by hand, by other tools,
 * by module parameters or the device tree) stay. A record is the item's
 * name and the inode number of its configfs directory, so that an item
 * deleted and made again by someone else under the same name is not
 * taken for the one restore made. Syntax as the save file's:
 * "NAME ino=N" lines, '#' comments.
 */
struct record {
	char *name;
	unsigned long long ino;
};

struct records {
	struct record *v;
	size_t n, cap;
};

static void records_free(struct records *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}

static int records_add(struct records *r, const char *name,
		       unsigned long long ino)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct record *nv = realloc(r->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		r->v = nv;
		r->cap = cap;
	}
	r->v[r->n].name = strdup(name);
	if (!r->v[r->n].name)
		return -ENOMEM;
	r->v[r->n++].ino = ino;
	return 0;
}

/* The inode number of configfs item NAME; -errno if there is none. */
static int item_ino(const char *name, unsigned long long *ino)
{
	char dir[PATH_MAX];
	struct stat st;
	int ret = udmabuf_item_dir(name, dir, sizeof(dir));

	if (ret)
		return ret;
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*ino = (unsigned long long)st.st_ino;
	return 0;
}

/* Read FILE into r; a missing FILE is no records. Reports its errors. */
static int read_records(const char *file, struct records *r)
{
	char *line = NULL, *tok[4], *end;
	int lineno = 0, ret = 0, nt;
	size_t cap = 0;
	FILE *f = fopen(file, "re");

	if (!f) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		report(file, "read", -ret);
		return ret;
	}
	while (!ret && getline(&line, &cap, f) > 0) {
		unsigned long long ino;

		lineno++;
		nt = conf_split(line, tok, 3);
		if (nt == 0)
			continue;
		ret = -EINVAL;
		if (nt != 2 || strncmp(tok[1], "ino=", 4) || !tok[1][4])
			break;
		errno = 0;
		ino = strtoull(tok[1] + 4, &end, 10);
		if (errno || *end)
			break;
		ret = records_add(r, tok[0], ino);
	}
	if (!ret && ferror(f))
		ret = -errno;
	if (ret) {
		char where[512];

		snprintf(where, sizeof(where), "%s:%d", file, lineno);
		report(ret == -EINVAL ? where : file, "read", -ret);
		records_free(r);
	}
	free(line);
	fclose(f);
	return ret;
}

static int fill_records(const char *file, FILE *f, void *ctx)
{
	const struct records *r = ctx;
	size_t i;

	(void)file;
	fputs("# Buffers made by '" PROG " restore --state'; '" PROG
	      " clear --state' deletes them.\n", f);
	for (i = 0; i < r->n; i++) {
		raw_escape(f, r->v[i].name);
		fprintf(f, " ino=%llu\n", r->v[i].ino);
	}
	return 0;
}

/* Write r to FILE atomically; no records: remove FILE. */
static int write_records(const char *file, const struct records *r)
{
	if (!r->n) {
		if (unlink(file) && errno != ENOENT) {
			int err = errno;

			report(file, "remove", err);
			return -err;
		}
		return 0;
	}
	return replace_file(file, "record", fill_records, (void *)r);
}

/* 1 if the record is of the item that is called so now. */
static int record_current(const struct record *rec)
{
	unsigned long long ino;

	return item_ino(rec->name, &ino) == 0 && ino == rec->ino;
}

/*
 * Delete the buffers recorded in FILE that are still the ones restore
 * made; FILE keeps the records of those that could not be deleted (and is
 * removed when none is left). Returns the exit status.
 */
static int clear_recorded(const char *file, unsigned int flags)
{
	struct records r = { 0 }, left = { 0 };
	size_t i, failed = 0, total = 0;
	int ret = read_records(file, &r);

	if (ret)
		return EXIT_FAIL;
	for (i = 0; i < r.n; i++) {
		/* Gone already, or another buffer of the same name now. */
		if (!record_current(&r.v[i]))
			continue;
		total++;
		if (delete_one(r.v[i].name, flags) == 0)
			continue;
		failed++;
		if (records_add(&left, r.v[i].name, r.v[i].ino)) {
			report(file, "record", ENOMEM);
			ret = -ENOMEM;
			break;
		}
	}
	if (!ret)
		ret = write_records(file, &left);
	records_free(&r);
	records_free(&left);
	return ret ? EXIT_FAIL : status_of(failed, total);
}

static int cmd_clear(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument,	      NULL, 'f' },
		{ "state", required_argument, NULL, 's' },
		{ "help",  no_argument,	      NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *state = NULL;
	unsigned int flags = 0;
	size_t total;
	int c, failed;

	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f': flags |= UDMABUF_DELETE_FORCE; break;
		case 's': state = optarg; break;
		case 'h': usage_of(cur_verb); return EXIT_OK;
		default: try_help();
		}
	}
	if (optind < argc)
		usage_error("clear: unexpected argument '%s'", argv[optind]);
	if (state && !strcmp(state, "-"))
		usage_error("clear: --state takes a file, not standard input");
	if (need_configfs("clear"))
		return EXIT_FAIL;
	if (state)
		return clear_recorded(state, flags);
	failed = clear_all(flags, &total);
	return status_of((size_t)failed, total);
}

#define MAX_TOKENS 64

struct saved {
	char *line;
	char *tok[MAX_TOKENS];
	int ntok;
	int lineno;
	struct udmabuf_create_args cfg;
	const char *attrs[MAX_TOKENS];
};

/* Check one save-file line and turn it into a config. */
static int parse_saved(const char *file, struct saved *s)
{
	size_t na = 0;
	int i, enable = 1;
	char where[512];

	snprintf(where, sizeof(where), "%s:%d", file, s->lineno);
	udmabuf_create_args_init(&s->cfg, s->tok[0]);
	if (!s->tok[0][0] || strchr(s->tok[0], '/') || !strcmp(s->tok[0], ".") ||
	    !strcmp(s->tok[0], "..")) {
		report(where, "restore", EINVAL);
		hint("'%s' is not a buffer name", s->tok[0]);
		return -EINVAL;
	}
	for (i = 1; i < s->ntok; i++) {
		char *t = s->tok[i], *val = strchr(t, '=');
		uint64_t size;
		long l;
		unsigned int m;
		int ret = 0;

		if (!val || val == t) {
			ret = -EINVAL;
		} else if (!strncmp(t, "size=", 5)) {
			ret = udmabuf_parse_size(val + 1, &size);
			s->cfg.size = size;
		} else if (!strncmp(t, "minor=", 6)) {
			ret = udmabuf_parse_long(val + 1, -1, UDMABUF_MINOR_MAX, &l);
			s->cfg.minor = l;
		} else if (!strncmp(t, "sync_mode=", 10)) {
			ret = udmabuf_parse_long(val + 1, 0, UDMABUF_SYNC_MODE_MAX, &l);
			s->cfg.sync_mode = (int)l;
		} else if (!strncmp(t, "dma_mask=", 9)) {
			ret = udmabuf_parse_long(val + 1, UDMABUF_DMA_MASK_MIN,
						 UDMABUF_DMA_MASK_MAX, &l);
			s->cfg.dma_mask = (int)l;
		} else if (!strncmp(t, "mode=", 5)) {
			ret = udmabuf_parse_mode(val + 1, &m);
			s->cfg.mode = (int)m;
		} else if (!strncmp(t, "enable=", 7)) {
			ret = udmabuf_parse_long(val + 1, 0, 1, &l);
			enable = (int)l;
		} else if (!strncmp(t, "device_name=", 12)) {
			s->cfg.device_name = val + 1;
			if (!udmabuf_valid_device_name(val + 1))
				ret = -EINVAL;
		} else if (!strncmp(t, "dma_device=", 11)) {
			s->cfg.dma_device = val + 1;	/* the kernel checks it */
		} else if (!strncmp(t, "phys_addr=", 10)) {
			/* Placed: written after dma_device, before enable. */
			ret = parse_address(val + 1, &s->cfg.phys_addr);
			s->cfg.has_phys_addr = 1;
		} else {
			s->attrs[na++] = t;	/* passed through */
		}
		if (ret) {
			report(where, "restore", -ret);
			hint("bad setting '%s' for %s", t, s->tok[0]);
			return ret;
		}
	}
	s->attrs[na] = NULL;
	s->cfg.attrs = s->attrs;
	if (!enable)
		s->cfg.flags |= UDMABUF_CREATE_NO_ENABLE;
	return 0;
}

static int cmd_restore(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "clear", no_argument,	      NULL, 'c' },
		{ "state", required_argument, NULL, 's' },
		{ "help",  no_argument,	      NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct records made = { 0 }, had = { 0 };
	const char *state = NULL;
	struct saved *v = NULL;
	size_t n = 0, cap = 0, i, j, failed = 0, unrecorded = 0, total;
	char *line = NULL, **items;
	int clear = 0, c, ret, lineno = 0, status = EXIT_FAIL;
	const char *file;
	size_t lcap = 0;
	FILE *f;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': clear = 1; break;
		case 's': state = optarg; break;
		case 'h': usage_of(cur_verb); return EXIT_OK;
		default: try_help();
		}
	}
	if (optind + 1 < argc)
		usage_error("restore: unexpected argument '%s'", argv[optind + 1]);
	if (state && !strcmp(state, "-"))
		usage_error("restore: --state takes a file, not standard input");
	file = optind < argc ? argv[optind] : default_save_file();
	if (need_configfs("restore"))
		return EXIT_FAIL;
	/* A record that cannot be read would be overwritten: stop first. */
	if (state && read_records(state, &had))
		return EXIT_FAIL;

	if (!strcmp(file, "-")) {
		f = stdin;
		file = "standard input";	/* for the messages */
	} else {
		f = fopen(file, "re");
	}
	if (!f) {
		if (errno == ENOENT && optind >= argc)
			status = EXIT_OK;	/* nothing was saved */
		else
			report(file, "restore", errno);
		records_free(&had);
		return status;
	}
	/* Read and check the whole file before touching anything. */
	while (getline(&line, &lcap, f) > 0) {
		lineno++;
		if (n == cap) {
			struct saved *nv = realloc(v, (cap = cap ? 2 * cap : 16) *
						   sizeof(*v));

			if (!nv) {
				report(file, "restore", ENOMEM);
				goto out;
			}
			v = nv;
		}
		memset(&v[n], 0, sizeof(v[n]));
		v[n].lineno = lineno;
		v[n].line = strdup(line);
		if (!v[n].line) {
			report(file, "restore", ENOMEM);
			goto out;
		}
		n++;
		ret = conf_split(v[n - 1].line, v[n - 1].tok, MAX_TOKENS - 1);
		if (ret < 0) {
			char where[512];

			snprintf(where, sizeof(where), "%s:%d", file, lineno);
			report(where, "restore", -ret);
			goto out;
		}
		if (ret == 0) {
			free(v[--n].line);
			continue;
		}
		v[n - 1].ntok = ret;
		if (parse_saved(file, &v[n - 1]))
			goto out;
		for (j = 0; j + 1 < n; j++)
			if (!strcmp(v[j].tok[0], v[n - 1].tok[0])) {
				char where[512];

				snprintf(where, sizeof(where), "%s:%d", file, lineno);
				report(where, "restore", EEXIST);
				hint("%s is listed twice", v[j].tok[0]);
				goto out;
			}
	}
	if (ferror(f)) {
		report(file, "restore", errno);
		goto out;
	}

	/* Refuse to clobber: only the names that exist already conflict. */
	ret = udmabuf_list_items(&items, &total);
	if (ret == 0 && !clear) {
		size_t conflicts = 0;

		for (i = 0; i < n; i++)
			for (j = 0; j < total; j++)
				if (!strcmp(v[i].tok[0], items[j])) {
					report(items[j], "restore", EEXIST);
					conflicts++;
				}
		udmabuf_names_free(items, total);
		if (conflicts) {
			hint("%zu buffer(s) of %s exist already; '" PROG " restore --clear' deletes all buffers first",
			     conflicts, file);
			goto out;
		}
	} else if (ret == 0) {
		udmabuf_names_free(items, total);
	}
	if (clear && clear_all(0, &total))
		goto out;

	/* Earlier records that still hold, then what is made now. */
	for (i = 0; state && i < had.n; i++)
		if (record_current(&had.v[i]) &&
		    records_add(&made, had.v[i].name, had.v[i].ino)) {
			report(state, "record", ENOMEM);
			goto out;
		}
	for (i = 0; i < n; i++) {
		unsigned long long ino;

		if (create_reported(&v[i].cfg)) {
			failed++;
			continue;
		}
		if (!state)
			continue;
		ret = item_ino(v[i].tok[0], &ino);
		if (!ret)
			ret = records_add(&made, v[i].tok[0], ino);
		if (ret) {
			report(v[i].tok[0], "record", -ret);
			unrecorded++;
		}
	}
	status = status_of(failed, n);
	/* Not recorded, its stop would leave the buffers: a failure. */
	if (state && (write_records(state, &made) || unrecorded))
		status = EXIT_FAIL;
out:
	records_free(&made);
	records_free(&had);
	for (i = 0; i < n; i++)
		free(v[i].line);
	free(v);
	free(line);
	if (f != stdin)
		fclose(f);
	return status;
}

/* ---------------------------------------------------------------------- */

static int cmd_version(void)
{
	char ver[128];
	int ret = udmabuf_module_version(ver, sizeof(ver));

	printf(PROG " %s\n", UDMABUF_VERSION);
	if (ret == 0)
		printf("udmabuf-cfs module %s\n", ver);
	else if (ret == -ENOENT)
		printf("udmabuf-cfs module not loaded\n");
	else
		printf("udmabuf-cfs module loaded, version unknown\n");
	return EXIT_OK;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "list",    cmd_list },
	{ "info",    cmd_info },
	{ "create",  cmd_create },
	{ "delete",  cmd_delete },
	{ "sync",    cmd_sync },
	{ "save",    cmd_save },
	{ "restore", cmd_restore },
	{ "clear",   cmd_clear },
	{ "bench",   cmd_bench },
};

/*
 * Where the verb is: the first argument that is neither an option nor the
 * argument of -o/--output. argc if there is none.
 */
static int verb_index(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "--"))
			return i + 1;
		if (arg[0] != '-' || !arg[1])
			return i;
		if (!strcmp(arg, "--output"))
			i++;
		else if (arg[1] != '-' && arg[strcspn(arg, "o")] == 'o' &&
			 !arg[strcspn(arg, "o") + 1])
			i++;	/* -o LIST, -no LIST */
	}
	return argc;
}

int main(int argc, char **argv)
{
	size_t k;
	int v;

	if (argc < 1)
		return EXIT_FAIL;
	atexit(close_stdout);
	setlocale(LC_CTYPE, "");	/* column widths of multibyte text */
	argv[0] = (char *)PROG;	/* getopt's messages start with it */
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage();
		return EXIT_OK;
	}
	if (argc > 1 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		if (argc > 2)
			usage_error("--version takes no arguments");
		return cmd_version();
	}
	v = verb_index(argc, argv);
	for (k = 0; v < argc && k < sizeof(commands) / sizeof(commands[0]); k++) {
		if (strcmp(argv[v], commands[k].name))
			continue;
		/*
		 * Options before the verb (udmabufctl --json info NAME) go to
		 * it: drop the verb, the rest keeps its order.
		 */
		cur_verb = commands[k].name;
		memmove(argv + v, argv + v + 1, (size_t)(argc - v) * sizeof(*argv));
		return commands[k].fn(argc - 1, argv);
	}
	/*
	 * The default command: udmabufctl [list] [NAME...]. A first word that
	 * is no command is a NAME.
	 */
	if (v < argc)
		first_word = argv[v];
	return cmd_list(argc, argv);
}
