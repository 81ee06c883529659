/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The output options of list and info (which may also come before the
 * verb) and bench: columns and formats of libsmartcols (output.h).
 */
#ifndef UDMABUFCTL_LIST_H
#define UDMABUFCTL_LIST_H

#include <getopt.h>

#include "output.h"

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
int out_option(int c, struct out_args *a, const struct column_set *set);

/* After the options: conflicts, and -H (the columns, nothing else). */
void out_options_done(const struct out_args *a, const struct column_set *set);

#endif
