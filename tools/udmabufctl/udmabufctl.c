// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl - create, list and delete udmabuf-cfs DMA buffers.
 *
 * A thin layer over libudmabuf's public API: option parsing, messages and
 * output formats live in the tool, everything that touches the kernel in
 * the library. This file: the command line (which verb, its usage), the
 * messages every verb uses, and main. The verbs are in files of their
 * own; see udmabufctl.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "udmabufctl.h"

#ifndef UDMABUF_VERSION
#define UDMABUF_VERSION "unknown"
#endif

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
/* The command being run, for its --help. */
const char *cur_verb = "list";

const char *first_word;

/* The usage of one command: udmabufctl VERB --help. */
void usage_of(const char *verb)
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

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" PROG " --help' for more information.\n", stderr);
	exit(EXIT_FAIL);
}

void try_help(void)
{
	fputs("Try '" PROG " --help' for more information.\n", stderr);
	exit(EXIT_FAIL);
}

/* "udmabufctl: NAME: ACTION: REASON" */
void report(const char *name, const char *action, int err)
{
	fprintf(stderr, PROG ": %s: %s: %s\n", name, action, strerror(err));
}

/*
 * The same for a NAME argument that names no buffer: ENOENT and EINVAL of
 * a lookup are about buffers, not files.
 */
void report_lookup(const char *name, const char *action, int err)
{
	fprintf(stderr, PROG ": %s: %s: %s\n", name, action,
		err == ENOENT ? "no such buffer" :
		err == EINVAL ? "not a buffer name (NAME or /dev/NAME)" :
		strerror(err));
}

void hint(const char *fmt, ...)
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
void probe_hint(void)
{
	probe_hint_of(udmabuf_probe());
}

/*
 * Every command but sync works through the configfs subsystem. Without
 * it they all fail alike, before anything is read or written:
 * "udmabufctl: COMMAND: no configfs directory DIR" and the fix. Returns 0
 * if it is there.
 */
int need_configfs(const char *command)
{
	int p = udmabuf_probe();

	if (!p)
		return 0;
	fprintf(stderr, PROG ": %s: no configfs directory %s\n", command,
		udmabuf_configfs_dir());
	probe_hint_of(p);
	return -1;
}

void permission_hint(int err)
{
	if ((err == EACCES || err == EPERM) && geteuid() != 0)
		hint("this needs root");
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

int status_of(size_t failed, size_t total)
{
	return !failed ? EXIT_OK : failed == total ? EXIT_FAIL : EXIT_PARTIAL;
}

/*
 * The exit status of printing a table (ret: 0 or a negative errno from
 * libsmartcols), reported as "udmabufctl: WHAT: print: REASON". A write
 * error is close_stdout()'s to report.
 */
int print_or_fail(const char *what, int ret)
{
	if (!ret || ferror(stdout))
		return EXIT_OK;
	report(what, "print", -ret);
	return EXIT_FAIL;
}

/* ---------------------------------------------------------------------- */
/* Option values and names                                                */

uint64_t opt_size(const char *what, const char *s)
{
	uint64_t v;
	int ret = udmabuf_parse_size(s, &v);

	if (ret)
		usage_error("invalid %s '%s': %s", what, s, strerror(-ret));
	return v;
}

long opt_long(const char *what, const char *s, long min, long max)
{
	long v;
	int ret = parse_long(s, min, max, &v);

	if (ret == -ERANGE)
		usage_error("invalid %s '%s': must be %ld..%ld", what, s, min, max);
	if (ret)
		usage_error("invalid %s '%s': %s", what, s, strerror(-ret));
	return v;
}

const struct udmabuf_entry *lookup(const char *name, unsigned int fields,
				   struct udmabuf_listing **list, int *err)
{
	*err = udmabuf_listing_new_name(name, fields, list);
	return *err ? NULL : udmabuf_listing_get(*list, 0);
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
