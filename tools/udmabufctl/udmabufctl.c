// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl - create, list and delete udmabuf-cfs DMA buffers.
 *
 * A thin layer over libudmabuf's public API: option parsing, messages and
 * output formats live in the tool, everything that touches the kernel in
 * the library. This file: which verb runs, --version, and main; the verbs
 * are in files of their own, their usage in usage.c, what they share in
 * common.c (see udmabufctl.h).
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

#include "udmabufctl.h"

#ifndef UDMABUF_VERSION
#define UDMABUF_VERSION "unknown"
#endif

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
