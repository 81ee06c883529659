// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The record of what "restore --state" made, and udmabufctl clear, which
 * deletes all configfs buffers or only those recorded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "udmabufctl.h"

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
void records_free(struct records *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	r->v = NULL;
	r->n = 0;
	r->cap = 0;
}

int records_add(struct records *r, const char *name, unsigned long long ino)
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
int item_ino(const char *name, unsigned long long *ino)
{
	char dir[PATH_MAX];
	struct stat st;
	int n = snprintf(dir, sizeof(dir), "%s/%s", udmabuf_configfs_dir(), name);

	if (n < 0 || (size_t)n >= sizeof(dir))
		return -ENAMETOOLONG;
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*ino = (unsigned long long)st.st_ino;
	return 0;
}

/* Read FILE into r; a missing FILE is no records. Reports its errors. */
int read_records(const char *file, struct records *r)
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
int write_records(const char *file, const struct records *r)
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
int record_current(const struct record *rec)
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

int cmd_clear(int argc, char **argv)
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
		case 'f':
			flags |= UDMABUF_DESTROY_FORCE;
			break;
		case 's':
			state = optarg;
			break;
		case 'h':
			usage_of(cur_verb);
			return EXIT_OK;
		default:
			try_help();
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
