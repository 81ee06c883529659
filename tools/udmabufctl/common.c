// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * What every udmabufctl command uses: the command being run, messages in
 * one form ("udmabufctl: NAME: ACTION: REASON", hints, usage errors), the
 * exit statuses, option values and a NAME looked up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udmabufctl.h"

const char *cur_verb = "list";
const char *first_word;

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
