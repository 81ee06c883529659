// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl's usage: "udmabufctl --help" and "udmabufctl VERB --help",
 * on standard output (util-linux's way), with the columns and the exit
 * statuses.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "udmabufctl.h"

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
	"     --sync-check[=report|sigbus]\n" \
	"                      the sync checker: report each CPU access or sync that\n" \
	"                      a missing sync makes (kernel log, SYNC-VIOLATIONS);\n" \
	"                      sigbus: and SIGBUS at the access (default: report)\n" \
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
	"against a null system call (each sync for the CPU after an untimed sync for\n" \
	"the device, as a program hands a buffer over). Without NAME on a temporary\n" \
	"process-scoped buffer (/dev/udmabuf-cfs); NAME, which must not be in use, is\n" \
	"overwritten, and its sync_mode is changed for the rows and restored\n" \
	"afterwards.\n" \
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

void usage(void)
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
