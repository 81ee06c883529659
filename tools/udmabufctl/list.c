// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl list and info, and the output options they share with bench.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "list.h"
#include "udmabufctl.h"

static const struct option out_long_opts[] = {
	OUT_LONG_OPTS,
	{ NULL, 0, NULL, 0 }
};

/*
 * An option of the output (C, with optarg) for a table of the columns of
 * SET; 0 if C is none of them.
 */
int out_option(int c, struct out_args *a, const struct column_set *set)
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
	case 'n':
		a->o.noheadings = 1;
		break;
	case 'r':
		a->o.raw = 1;
		break;
	case 'b':
		a->o.bytes = 1;
		break;
	case 'J':
		a->o.json = 1;
		break;
	case 'P':
		a->o.pairs = 1;
		break;
	case 'y':
		a->o.shell = 1;
		break;
	case 'H':
		a->list_columns = 1;
		break;
	default:
		return 0;
	}
	return 1;
}

/* After the options: conflicts, and -H (the columns, nothing else). */
void out_options_done(const struct out_args *a, const struct column_set *set)
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

/* 1 if E is the buffer that NAME's lookup found. */
static int same_buffer(const struct udmabuf_entry *e,
		       const struct udmabuf_entry *name)
{
	const char *item = udmabuf_entry_get_item(name);

	if (*item)
		return !strcmp(udmabuf_entry_get_item(e), item);
	return !*udmabuf_entry_get_item(e) &&
	       !strcmp(udmabuf_entry_get_name(e), udmabuf_entry_get_name(name));
}

/*
 * Keep only the entries of v[] that the NAMEs are (in list order). An
 * unknown NAME is reported; returns how many were.
 */
static size_t filter_list(const struct udmabuf_entry **v, size_t *n,
			  char **names, int count)
{
	char *keep = calloc(*n + 1, 1);
	size_t failed = 0, i, j, m = 0;
	int k;

	if (!keep) {
		report("list", "allocate", ENOMEM);
		return (size_t)count;
	}
	for (k = 0; k < count; k++) {
		struct udmabuf_listing *one = NULL;
		const struct udmabuf_entry *e;
		int found = 0, err;

		e = lookup(names[k], 0, &one, &err);
		for (i = 0; e && i < *n; i++)
			if (same_buffer(v[i], e)) {
				keep[i] = 1;
				found = 1;
			}
		udmabuf_listing_free(one);
		if (!found) {
			report_lookup(names[k], "list", e ? ENOENT : -err);
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
	return failed;
}

/* The entries of LIST, in its order (freed by the caller). */
static const struct udmabuf_entry **entries_of(const struct udmabuf_listing *list)
{
	size_t i, n = udmabuf_listing_count(list);
	const struct udmabuf_entry **v = calloc(n + 1, sizeof(*v));

	for (i = 0; v && i < n; i++)
		v[i] = udmabuf_listing_get(list, i);
	return v;
}

int cmd_list(int argc, char **argv)
{
	struct out_args a = { .ncols = 0 };
	struct udmabuf_listing *list;
	const struct udmabuf_entry **v;
	size_t n, failed = 0, total = 0;
	int ret, first;

	a.ncols = default_columns(a.cols, 64);
	first = parse_out_args(argc, argv, &a);
	if (need_configfs("list"))
		return EXIT_FAIL;

	/* Only what the columns show: a few reads per buffer, not all. */
	ret = udmabuf_listing_new_fields(0, columns_fields(a.cols, a.ncols),
					 &list);
	if (ret) {
		fprintf(stderr, PROG ": list: %s\n", strerror(-ret));
		return EXIT_FAIL;
	}
	n = udmabuf_listing_count(list);
	v = entries_of(list);
	if (!v) {
		report("list", "allocate", ENOMEM);
		udmabuf_listing_free(list);
		return EXIT_FAIL;
	}
	if (first < argc) {
		total = (size_t)(argc - first);
		failed = filter_list(v, &n, argv + first, argc - first);
	}
	/* Not even a header when no NAME is a buffer: the command failed. */
	if ((!total || failed < total) &&
	    print_or_fail("list", print_list(stdout, v, n, a.cols, a.ncols, &a.o))) {
		failed = 1;
		total = 1;
	}
	free(v);
	udmabuf_listing_free(list);
	/* As info and delete: 2 if some NAMEs are no buffer, 1 if all. */
	return status_of(failed, total);
}

int cmd_info(int argc, char **argv)
{
	struct out_args a = { .ncols = 0 };
	struct udmabuf_listing **lists;
	const struct udmabuf_entry **v;
	size_t n = 0, failed = 0, total, k;
	unsigned int fields;
	int i, err, first;

	for (a.ncols = 0; a.ncols < NCOLUMNS; a.ncols++)
		a.cols[a.ncols] = (int)a.ncols;
	first = parse_out_args(argc, argv, &a);
	if (first >= argc)
		usage_error("info: missing buffer name");
	if (need_configfs("info"))
		return EXIT_FAIL;
	total = (size_t)(argc - first);
	v = calloc(total, sizeof(*v));
	lists = calloc(total, sizeof(*lists));
	if (!v || !lists) {
		free(v);
		free(lists);
		report("info", "allocate", ENOMEM);
		return EXIT_FAIL;
	}
	/*
	 * Everything of 1.2's, and what the columns shown need besides: the
	 * sync checker's fields, the CPU physical address (it opens the
	 * device).
	 */
	fields = UDMABUF_FIELD_ALL | columns_fields(a.cols, a.ncols);
	for (i = first; i < argc; i++) {
		v[n] = lookup(argv[i], fields, &lists[n], &err);
		if (!v[n]) {
			report_lookup(argv[i], "info", -err);
			failed++;
			continue;
		}
		if (!a.o.json && !a.o.pairs) {
			if (n)
				putchar('\n');
			if (print_or_fail("info", print_info(stdout, v[n], a.cols, a.ncols, &a.o)))
				failed = total;
		}
		n++;
	}
	/* -J and -P: one table of all of them, as list prints it. */
	if ((a.o.json || a.o.pairs) && n &&
	    print_or_fail("info", print_list(stdout, v, n, a.cols, a.ncols, &a.o)))
		failed = total;
	for (k = 0; k < n; k++)
		udmabuf_listing_free(lists[k]);
	free(lists);
	free(v);
	return status_of(failed, total);
}
