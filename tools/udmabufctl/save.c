// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl save: the configfs buffers as a file, one line each, which
 * restore reads; replaced atomically, as any file udmabufctl writes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "udmabufctl.h"

#ifndef UDMABUF_VERSION
#define UDMABUF_VERSION "unknown"
#endif

const char *default_save_file(void)
{
	const char *env = getenv("UDMABUF_SAVE_FILE");

	return env && *env ? env : DEFAULT_SAVE_FILE;
}

/*
 * A placed buffer must come back at the same CPU physical address, which
 * only GET_INFO tells once it is enabled (its phys_addr then reads the DMA
 * address): into *addr, through a handle. 0 or -errno, reported.
 */
static int placed_at(const struct udmabuf_entry *e, uint64_t *addr)
{
	const char *path = udmabuf_entry_get_dev_path(e);
	struct udmabuf *buf;
	int ret = udmabuf_open(path, O_RDONLY, &buf);

	if (!ret) {
		ret = udmabuf_get_cpu_phys_addr(buf, addr);
		udmabuf_close(buf);
	}
	if (ret)
		fprintf(stderr, PROG ": %s: save: read the CPU physical address it is placed at (%s): %s\n",
			udmabuf_entry_get_item(e), path, strerror(-ret));
	return ret;
}

static int write_save_file(FILE *f)
{
	struct udmabuf_listing *items;
	size_t n, i;
	int ret = udmabuf_listing_new_fields(UDMABUF_LISTING_ITEMS,
					     UDMABUF_FIELD_ALL |
					     UDMABUF_FIELD_SYNC_CHECK, &items);

	if (ret) {
		/* Never replace a saved file because the buffers are unknown. */
		fprintf(stderr, PROG ": save: %s\n", strerror(-ret));
		return ret;
	}
	fprintf(f, "# udmabuf buffers, written by '" PROG " save' (" PROG " %s).\n"
		   "# One buffer per line: NAME ATTR=VALUE...; read by '" PROG " restore'.\n",
		UDMABUF_VERSION);
	n = udmabuf_listing_count(items);
	for (i = 0; !ret && i < n; i++) {
		const struct udmabuf_entry *e = udmabuf_listing_get(items, i);
		uint64_t place;
		int placed;

		/* A disabled item's placement is what its phys_addr reads. */
		if (udmabuf_entry_is_enabled(e))
			placed = !strcmp(udmabuf_entry_get_allocator(e), "placed") &&
				 !(ret = placed_at(e, &place));
		else
			placed = !udmabuf_entry_get_placement(e, &place);
		if (ret)
			break;
		/* Disabled: the one asked for ("auto" is not saved). */
		conf_write_line(f, e,
				conf_allocator(udmabuf_entry_get_allocator(e),
					       udmabuf_entry_is_enabled(e)),
				placed ? &place : NULL);
	}
	udmabuf_listing_free(items);
	return ret;
}

/*
 * Replace FILE atomically with what fill() writes: a temporary file next
 * to it, fsync, rename. Its directory is made if missing (that of the
 * default file may not exist yet). fill() reports its own errors and
 * returns -errno; the others are reported here as "FILE: ACTION: reason".
 * Returns 0 or -errno.
 */
int replace_file(const char *file, const char *action,
		 int (*fill)(const char *file, FILE *f, void *ctx), void *ctx)
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

int cmd_save(int argc, char **argv)
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
