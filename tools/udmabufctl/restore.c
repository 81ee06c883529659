// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl restore: the buffers of a file that save wrote, checked whole
 * before anything is made; never over buffers that exist (unless --clear);
 * with --state, a record of what it made for clear --state.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "udmabufctl.h"

#define MAX_TOKENS 64

/* One line of the file: the buffer it asks for. */
struct saved {
	char *line;			/* split in place into tok[] */
	char *tok[MAX_TOKENS];		/* NAME ATTR=VALUE... */
	int ntok;
	int lineno;
	struct create_req req;
	const char *attrs[MAX_TOKENS];	/* those passed through as they are */
};

/* The lines of a file. */
struct saved_file {
	const char *name;		/* for the messages */
	struct saved *v;
	size_t n, cap;
};

/* "FILE:LINE: restore: REASON" */
static void report_line(const char *file, int lineno, int err)
{
	char where[512];

	snprintf(where, sizeof(where), "%s:%d", file, lineno);
	report(where, "restore", err);
}

/* One setting T of a line into s; 0 or -errno. */
static int parse_setting(struct saved *s, char *t, size_t *na, int *enable)
{
	struct create_req *r = &s->req;
	char *val = strchr(t, '=');
	unsigned int m;
	long l = 0;
	int ret = 0;

	if (!val || val == t)
		return -EINVAL;
	val++;
	if (!strncmp(t, "size=", 5)) {
		ret = udmabuf_parse_size(val, &r->size);
	} else if (!strncmp(t, "minor=", 6)) {
		ret = parse_long(val, -1, UDMABUF_MINOR_MAX, &r->minor);
	} else if (!strncmp(t, "sync_mode=", 10)) {
		ret = parse_long(val, 0, UDMABUF_SYNC_MODE_MAX, &l);
		r->sync_mode = (int)l;
	} else if (!strncmp(t, "sync_check=", 11)) {
		ret = parse_long(val, 0, UDMABUF_SYNC_CHECK_MAX, &l);
		r->sync_check = (int)l;
	} else if (!strncmp(t, "dma_mask=", 9)) {
		ret = parse_long(val, UDMABUF_DMA_MASK_MIN, UDMABUF_DMA_MASK_MAX, &l);
		r->dma_mask = (int)l;
	} else if (!strncmp(t, "mode=", 5)) {
		ret = parse_mode(val, &m);
		r->mode = (int)m;
	} else if (!strncmp(t, "enable=", 7)) {
		ret = parse_long(val, 0, 1, &l);
		*enable = (int)l;
	} else if (!strncmp(t, "device_name=", 12)) {
		r->device_name = val;
		ret = device_name_ok(val) ? 0 : -EINVAL;
	} else if (!strncmp(t, "dma_device=", 11)) {
		r->dma_device = val;	/* the kernel checks it */
	} else if (!strncmp(t, "phys_addr=", 10)) {
		/* Placed: written after dma_device, before enable. */
		ret = parse_address(val, &r->phys_addr);
		r->placed = 1;
	} else {
		s->attrs[(*na)++] = t;	/* passed through */
	}
	return ret;
}

/* Check one line and turn it into a request. */
static int parse_saved(const char *file, struct saved *s)
{
	const char *name = s->tok[0];
	size_t na = 0;
	int i, enable = 1, ret;

	create_req_init(&s->req, name);
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..")) {
		report_line(file, s->lineno, EINVAL);
		hint("'%s' is not a buffer name", name);
		return -EINVAL;
	}
	for (i = 1; i < s->ntok; i++) {
		ret = parse_setting(s, s->tok[i], &na, &enable);
		if (ret) {
			report_line(file, s->lineno, -ret);
			hint("bad setting '%s' for %s", s->tok[i], name);
			return ret;
		}
	}
	s->attrs[na] = NULL;
	if (!enable)
		s->req.flags |= UDMABUF_CREATE_NO_ENABLE;
	return 0;
}

/* Add LINE (number LINENO) to sf, checked; 0 or -errno, reported. */
static int add_line(struct saved_file *sf, const char *line, int lineno)
{
	struct saved *s;
	size_t j;
	int ret;

	if (sf->n == sf->cap) {
		size_t cap = sf->cap ? 2 * sf->cap : 16;
		struct saved *nv = realloc(sf->v, cap * sizeof(*nv));

		if (!nv)
			goto nomem;
		sf->v = nv;
		sf->cap = cap;
	}
	s = &sf->v[sf->n];
	memset(s, 0, sizeof(*s));
	s->lineno = lineno;
	s->line = strdup(line);
	if (!s->line)
		goto nomem;
	ret = conf_split(s->line, s->tok, MAX_TOKENS - 1);
	if (ret <= 0) {		/* a comment or blank line, or malformed */
		free(s->line);
		if (ret < 0)
			report_line(sf->name, lineno, -ret);
		return ret;
	}
	sf->n++;
	s->ntok = ret;
	if (parse_saved(sf->name, s))
		return -EINVAL;
	for (j = 0; j + 1 < sf->n; j++)
		if (!strcmp(sf->v[j].tok[0], s->tok[0])) {
			report_line(sf->name, lineno, EEXIST);
			hint("%s is listed twice", s->tok[0]);
			return -EEXIST;
		}
	return 0;
nomem:
	report(sf->name, "restore", ENOMEM);
	return -ENOMEM;
}

/* Read and check the whole of f before anything is made. */
static int read_saved(FILE *f, struct saved_file *sf)
{
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, ret = 0;

	while (!ret && getline(&line, &cap, f) > 0)
		ret = add_line(sf, line, ++lineno);
	free(line);
	if (!ret && ferror(f)) {
		ret = -errno;
		report(sf->name, "restore", -ret);
	}
	return ret;
}

static void saved_free(struct saved_file *sf)
{
	size_t i;

	for (i = 0; i < sf->n; i++)
		free(sf->v[i].line);
	free(sf->v);
}

/* Refuse to clobber: the names of sf that are configfs items already. */
static size_t conflicts(const struct saved_file *sf)
{
	struct udmabuf_listing *items;
	size_t i, j, n = 0;

	if (udmabuf_listing_new_fields(UDMABUF_LISTING_ITEMS, 0, &items))
		return 0;
	for (i = 0; i < sf->n; i++)
		for (j = 0; j < udmabuf_listing_count(items); j++) {
			const char *item =
				udmabuf_entry_get_item(udmabuf_listing_get(items, j));

			if (!strcmp(sf->v[i].tok[0], item)) {
				report(item, "restore", EEXIST);
				n++;
			}
		}
	udmabuf_listing_free(items);
	return n;
}

/*
 * Create the buffers of sf; with STATE, record each made in *made. The
 * exit status: a buffer made but not recorded is a failure (its service's
 * stop would leave it).
 */
static int create_saved(struct saved_file *sf, const char *state,
			struct records *made)
{
	size_t i, failed = 0, unrecorded = 0;
	unsigned long long ino;
	int ret;

	for (i = 0; i < sf->n; i++) {
		struct saved *s = &sf->v[i];

		s->req.attrs = s->attrs;
		if (create_reported(&s->req)) {
			failed++;
			continue;
		}
		if (!state)
			continue;
		ret = item_ino(s->tok[0], &ino);
		if (!ret)
			ret = records_add(made, s->tok[0], ino);
		if (ret) {
			report(s->tok[0], "record", -ret);
			unrecorded++;
		}
	}
	if (state && (write_records(state, made) || unrecorded))
		return EXIT_FAIL;
	return status_of(failed, sf->n);
}

/* restore's options: --clear into *clear, --state; returns FILE. */
static const char *restore_options(int argc, char **argv, int *clear,
				   const char **state)
{
	static const struct option opts[] = {
		{ "clear", no_argument,	      NULL, 'c' },
		{ "state", required_argument, NULL, 's' },
		{ "help",  no_argument,	      NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			*clear = 1;
			break;
		case 's':
			*state = optarg;
			break;
		case 'h':
			usage_of(cur_verb);
			exit(EXIT_OK);
		default:
			try_help();
		}
	}
	if (optind + 1 < argc)
		usage_error("restore: unexpected argument '%s'", argv[optind + 1]);
	if (*state && !strcmp(*state, "-"))
		usage_error("restore: --state takes a file, not standard input");
	return optind < argc ? argv[optind] : NULL;
}

int cmd_restore(int argc, char **argv)
{
	struct records made = { 0 }, had = { 0 };
	struct saved_file sf = { 0 };
	const char *state = NULL, *file;
	int clear = 0, status = EXIT_FAIL;
	size_t total, i, n;
	FILE *f;

	file = restore_options(argc, argv, &clear, &state);
	if (need_configfs("restore"))
		return EXIT_FAIL;
	/* A record that cannot be read would be overwritten: stop first. */
	if (state && read_records(state, &had))
		return EXIT_FAIL;
	sf.name = file ? file : default_save_file();
	f = !strcmp(sf.name, "-") ? stdin : fopen(sf.name, "re");
	if (f == stdin)
		sf.name = "standard input";	/* for the messages */
	if (!f) {
		if (errno == ENOENT && !file)
			status = EXIT_OK;	/* nothing was saved */
		else
			report(sf.name, "restore", errno);
		records_free(&had);
		return status;
	}
	if (read_saved(f, &sf))
		goto out;
	n = clear ? 0 : conflicts(&sf);
	if (n) {
		hint("%zu buffer(s) of %s exist already; '" PROG " restore --clear' deletes all buffers first",
		     n, sf.name);
		goto out;
	}
	/* A buffer that cannot be deleted stops it before anything is made. */
	n = clear ? (size_t)clear_all(0, &total) : 0;
	if (n) {
		fprintf(stderr, PROG ": %s: restore: nothing from it was made: %zu of %zu buffer(s) could not be deleted\n",
			sf.name, n, total);
		goto out;
	}
	/* Earlier records that still hold, then what is made now. */
	for (i = 0; state && i < had.n; i++)
		if (record_current(&had.v[i]) &&
		    records_add(&made, had.v[i].name, had.v[i].ino)) {
			report(state, "record", ENOMEM);
			goto out;
		}
	status = create_saved(&sf, state, &made);
out:
	records_free(&made);
	records_free(&had);
	saved_free(&sf);
	if (f != stdin)
		fclose(f);
	return status;
}
