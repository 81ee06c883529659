// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Output formatting and save-file syntax of udmabufctl.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libsmartcols.h>

#include "output.h"

#define F(x)	UDMABUF_FIELD_##x

/*
 * NAME, DEVICE, MAJ:MIN, DEVNAME and ENABLED come with every listed buffer
 * (udmabuf_list_fields() always reads the names and the device number).
 */
const struct column columns[NCOLUMNS] = {
	[COL_NAME]	 = { "NAME",	   COL_STRING,  1,
		"buffer name (configfs item, else device name)", 0 },
	[COL_DEVICE]	 = { "DEVICE",	   COL_STRING,  1,
		"device node", 0 },
	[COL_MAJMIN]	 = { "MAJ:MIN",	   COL_STRING,  1,
		"major:minor device number", 0 },
	[COL_SIZE_]	 = { "SIZE",	   COL_SIZE,    1,
		"size of the buffer", F(SIZE) },
	[COL_SYNC_MODE]	 = { "SYNC-MODE",  COL_NUMBER,  1,
		"sync mode (0..7)", F(SYNC_MODE) },
	[COL_DMA_ADDR]	 = { "DMA-ADDR",   COL_STRING,  1,
		"DMA address, what a device is programmed with (root)", F(DMA_ADDR) },
	[COL_CPU_PHYS_ADDR] = { "CPU-PHYS-ADDR", COL_STRING, 0,
		"CPU physical address (opens the device node)", F(CPU_PHYS_ADDR) },
	[COL_ORIGIN]	 = { "ORIGIN",	   COL_STRING,  1,
		"configfs, param, dt or process (/dev/udmabuf-cfs)", F(ORIGIN) },
	[COL_USERS]	 = { "USERS",	   COL_NUMBER,  1,
		"open files and mappings", F(USERS) },
	[COL_DEVNAME]	 = { "DEVNAME",	   COL_STRING,  0,
		"device name", 0 },
	[COL_ENABLED]	 = { "ENABLED",	   COL_BOOLEAN, 0,
		"the device exists", 0 },
	[COL_DMA_MASK]	 = { "DMA-MASK",   COL_NUMBER,  0,
		"DMA address bits", F(DMA_MASK) },
	[COL_DMA_DEVICE] = { "DMA-DEVICE", COL_STRING,  0,
		"DMA master, BUS/DEVICE (empty: the module's own device)", F(DMA_DEVICE) },
	[COL_MODE]	 = { "MODE",	   COL_STRING,  0,
		"permissions of the device node", F(MODE) },
	[COL_COHERENT]	 = { "COHERENT",   COL_BOOLEAN, 0,
		"DMA is cache-coherent", F(COHERENT) },
	[COL_CACHE]	 = { "CACHE",	   COL_STRING,  0,
		"CPU mapping without O_SYNC", F(CACHE_MODE) },
	[COL_CACHE_SYNC] = { "CACHE-SYNC", COL_STRING,  0,
		"CPU mapping with O_SYNC", F(CACHE_MODE_SYNC) },
	[COL_ALLOCATOR]	 = { "ALLOCATOR",  COL_STRING,  0,
		"where the memory came from: page, cma, dma, contig, placed, pool (disabled: the one asked for)",
		F(ALLOCATOR) },
	[COL_OWNER]	 = { "OWNER",	   COL_STRING,  0,
		"PID and command of the process that allocated a process-scoped buffer", F(OWNER) },
	[COL_SYNC_CHECK] = { "SYNC-CHECK", COL_STRING,  0,
		"sync checker: off, report or sigbus", F(SYNC_CHECK) },
	[COL_SYNC_VIOLATIONS] = { "SYNC-VIOLATIONS", COL_NUMBER, 0,
		"missing syncs the sync checker reported (see the kernel log)",
		F(SYNC_VIOLATIONS) },
};

#undef F

const struct column_alias column_aliases[NALIASES] = {
	{ "PHYS-ADDR", COL_DMA_ADDR },
};

const struct column_set buffer_columns = {
	"buffers", columns, NCOLUMNS, column_aliases, NALIASES
};

size_t column_name_width_of(const struct column_set *set)
{
	size_t w = 0, l;
	int i;

	for (i = 0; i < set->n; i++) {
		l = strlen(set->v[i].name);
		if (l > w)
			w = l;
	}
	return w;
}

size_t column_name_width(void)
{
	return column_name_width_of(&buffer_columns);
}

void shell_name(const char *name, int lower, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t o = 0;

	if (!len)
		return;
	if (*s && !isalpha(*s) && o + 1 < len)
		buf[o++] = '_';
	for (; *s && o + 1 < len; s++) {
		if (*s == '%' && !s[1] && o + 4 < len) {
			memcpy(buf + o, lower ? "_pct" : "_PCT", 4);
			o += 4;
			break;
		}
		buf[o++] = !isalnum(*s) ? '_' :
			   lower ? (char)tolower(*s) : (char)*s;
	}
	buf[o] = '\0';
}

/*
 * 1 if WORD (LEN bytes) is NAME: case-insensitive, and a '_' of WORD
 * stands for any character of NAME that is no letter or digit (the names
 * -y prints).
 */
static int same_name(const char *name, const char *word, size_t len)
{
	size_t i;

	if (strlen(name) != len)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char a = (unsigned char)name[i];
		unsigned char b = (unsigned char)word[i];

		if (tolower(a) == tolower(b) || (b == '_' && !isalnum(a)))
			continue;
		return 0;
	}
	return 1;
}

/* The column called NAME (LEN bytes), or a former name of it; else -1. */
static int column_of(const struct column_set *set, const char *name,
		     size_t len)
{
	int i;

	for (i = 0; i < set->n; i++)
		if (same_name(set->v[i].name, name, len))
			return i;
	for (i = 0; i < set->naliases; i++)
		if (same_name(set->aliases[i].name, name, len))
			return set->aliases[i].col;
	return -1;
}

size_t default_columns_of(const struct column_set *set, int *ids, size_t max)
{
	size_t n = 0;
	int i;

	for (i = 0; i < set->n && n < max; i++)
		if (set->v[i].is_default)
			ids[n++] = i;
	return n;
}

size_t default_columns(int *ids, size_t max)
{
	return default_columns_of(&buffer_columns, ids, max);
}

unsigned int columns_fields(const int *ids, size_t n)
{
	unsigned int fields = 0;
	size_t i;

	for (i = 0; i < n; i++)
		fields |= columns[ids[i]].fields;
	return fields;
}

int parse_columns_of(const struct column_set *set, const char *spec,
		     int *ids, size_t max, size_t *n, const char **bad)
{
	static char badbuf[64];
	const char *p = spec;

	if (*p == '+')
		p++;
	else
		*n = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		int i = column_of(set, p, len);

		if (i < 0) {
			snprintf(badbuf, sizeof(badbuf), "%.*s",
				 (int)(len < 60 ? len : 60), p);
			*bad = badbuf;
			return -EINVAL;
		}
		if (*n >= max)
			return -E2BIG;
		ids[(*n)++] = i;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

int parse_columns(const char *spec, int *ids, size_t max, size_t *n,
		  const char **bad)
{
	return parse_columns_of(&buffer_columns, spec, ids, max, n, bad);
}

static const char *const sync_check_names[] = {
	[UDMABUF_SYNC_CHECK_OFF] = "off",
	[UDMABUF_SYNC_CHECK_REPORT] = "report",
	[UDMABUF_SYNC_CHECK_SIGBUS] = "sigbus",
};

const char *sync_check_name(int mode)
{
	if (mode < 0 || mode > UDMABUF_SYNC_CHECK_MAX)
		return NULL;
	return sync_check_names[mode];
}

int parse_sync_check(const char *s)
{
	int i;

	for (i = 0; i <= UDMABUF_SYNC_CHECK_MAX; i++)
		if (s && !strcmp(s, sync_check_names[i]))
			return i;
	return -EINVAL;
}

void human_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	unsigned int e = 0, shift;
	uint64_t whole, frac, tenths;

	while (e < 6 && bytes >> (10 * (e + 1)))
		e++;
	if (!e) {
		snprintf(buf, len, "%" PRIu64 "B", bytes);
		return;
	}
	shift = 10 * e;
	whole = bytes >> shift;
	frac = bytes - (whole << shift);
	tenths = (frac * 10 + (UINT64_C(1) << (shift - 1))) >> shift;
	if (tenths >= 10) {
		whole++;
		tenths = 0;
	}
	if (tenths)
		snprintf(buf, len, "%" PRIu64 ".%u%c", whole,
			 (unsigned int)tenths, units[e]);
	else
		snprintf(buf, len, "%" PRIu64 "%c", whole, units[e]);
}

/* An address as a getter tells it, "0x%016" PRIx64; "" if it cannot. */
static void address_text(const struct udmabuf_entry *e,
			 int (*get)(const struct udmabuf_entry *, uint64_t *),
			 char *buf, size_t len)
{
	uint64_t addr;

	if (!get(e, &addr))
		snprintf(buf, len, "0x%016" PRIx64, addr);
}

/* A number a getter tells, -1 when unknown, in FMT; else "". */
static void number_text(long v, const char *fmt, char *buf, size_t len)
{
	if (v >= 0)
		snprintf(buf, len, fmt, v);
}

void cell_text(const struct udmabuf_entry *e, int col, int bytes,
	       char *buf, size_t len)
{
	const char *item = udmabuf_entry_get_item(e), *s = NULL;
	unsigned int major, minor;
	uint64_t count;
	long l;

	buf[0] = '\0';
	switch (col) {
	case COL_NAME:
		s = *item ? item : udmabuf_entry_get_name(e);
		break;
	case COL_DEVICE:
		s = udmabuf_entry_get_dev_path(e);
		break;
	case COL_MAJMIN:
		if (!udmabuf_entry_get_devno(e, &major, &minor))
			snprintf(buf, len, "%u:%u", major, minor);
		break;
	case COL_SIZE_:
		if (bytes)
			snprintf(buf, len, "%" PRIu64, udmabuf_entry_get_size(e));
		else
			human_size(udmabuf_entry_get_size(e), buf, len);
		break;
	case COL_SYNC_MODE:
		number_text(udmabuf_entry_get_sync_mode(e), "%ld", buf, len);
		break;
	case COL_DMA_ADDR:
		address_text(e, udmabuf_entry_get_dma_addr, buf, len);
		break;
	case COL_CPU_PHYS_ADDR:
		address_text(e, udmabuf_entry_get_cpu_phys_addr, buf, len);
		break;
	case COL_ORIGIN:
		s = udmabuf_entry_get_origin(e);
		break;
	case COL_USERS:
		number_text(udmabuf_entry_get_users(e), "%ld", buf, len);
		break;
	case COL_DEVNAME:
		s = udmabuf_entry_get_name(e);
		break;
	case COL_ENABLED:
		snprintf(buf, len, "%d", udmabuf_entry_is_enabled(e) ? 1 : 0);
		break;
	case COL_DMA_MASK:
		number_text(udmabuf_entry_get_dma_mask(e), "%ld", buf, len);
		break;
	case COL_DMA_DEVICE:
		s = udmabuf_entry_get_dma_device(e);
		break;
	case COL_MODE:
		number_text(udmabuf_entry_get_mode(e), "%04lo", buf, len);
		break;
	case COL_COHERENT:	/* 0 or 1: what the kernel says is 0 or not */
		l = udmabuf_entry_get_dma_coherent(e);
		number_text(l > 0 ? 1 : l, "%ld", buf, len);
		break;
	case COL_CACHE:
		s = udmabuf_entry_get_cache_mode(e);
		break;
	case COL_CACHE_SYNC:
		s = udmabuf_entry_get_cache_mode_sync(e);
		break;
	case COL_ALLOCATOR:
		s = udmabuf_entry_get_allocator(e);
		break;
	case COL_OWNER:
		s = udmabuf_entry_get_owner(e);
		break;
	case COL_SYNC_CHECK:
		l = udmabuf_entry_get_sync_check(e);
		s = sync_check_name((int)l);
		/* A mode of a module newer than this tool: its number. */
		if (!s)
			number_text(l, "%ld", buf, len);
		break;
	case COL_SYNC_VIOLATIONS:
		if (!udmabuf_entry_get_sync_violations(e, &count))
			snprintf(buf, len, "%" PRIu64, count);
		break;
	}
	if (s)
		snprintf(buf, len, "%s", s);
}

int cell_unknown(const struct udmabuf_entry *e, int col, const char *text)
{
	/* "" is a value here: the buffer uses the module's own device. */
	if (col == COL_DMA_DEVICE)
		return !udmabuf_entry_get_dma_device(e);
	return !text[0];
}

/* Length of the valid UTF-8 sequence at s, 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

void utf8_sanitize(const char *in, char *out, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0, n;

	if (!len)
		return;
	while (*s) {
		n = utf8_len(s);
		if (!n) {
			/* not UTF-8: U+FFFD, the replacement character */
			if (o + 3 >= len)
				break;
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			s++;
			continue;
		}
		if (o + n >= len)
			break;
		memcpy(out + o, s, n);
		o += n;
		s += n;
	}
	out[o] = '\0';
}

void raw_escape(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	/* A token starting with '#' would start a comment (conf_split()). */
	for (; *s; s++) {
		if (*s <= ' ' || *s == '\\' || *s >= 0x7f ||
		    (*s == '#' && s == (const unsigned char *)str))
			fprintf(f, "\\x%02x", *s);
		else
			fputc(*s, f);
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int raw_unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (*s != '\\') {
			*d++ = *s++;
			continue;
		}
		if (s[1] != 'x' || hexval(s[2]) < 0 || hexval(s[3]) < 0 ||
		    (hexval(s[2]) == 0 && hexval(s[3]) == 0))
			return -EINVAL;
		*d++ = (char)(hexval(s[2]) << 4 | hexval(s[3]));
		s += 4;
	}
	*d = '\0';
	return 0;
}

#define CELL_MAX 4096

/* A column's value in JSON: unknown (empty) cells are null. */
static int json_type(enum col_type t)
{
	switch (t) {
	case COL_NUMBER:
	case COL_SIZE:
	case COL_TIME:
	case COL_RATE:
	case COL_FLOAT:
		return SCOLS_JSON_NUMBER;
	case COL_BOOLEAN:
		return SCOLS_JSON_BOOLEAN_OPTIONAL;
	default:
		return SCOLS_JSON_STRING;
	}
}

/*
 * A table named NAME (the JSON key of its array) printed to f in the
 * format of o: aligned, -r raw, -P KEY="value" pairs or -J JSON; with -y
 * the column names are shell variable names (libsmartcols' shellvar: in
 * the header, the pairs and the JSON keys alike). libsmartcols escapes
 * each cell as its format needs.
 */
static struct libscols_table *new_table(FILE *f, const char *name,
					const struct out_opts *o)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return NULL;
	if (scols_table_set_name(tb, name) || scols_table_set_stream(tb, f) ||
	    scols_table_enable_json(tb, o->json) ||
	    scols_table_enable_raw(tb, o->raw) ||
	    scols_table_enable_export(tb, o->pairs) ||
	    scols_table_enable_noheadings(tb, o->noheadings) ||
	    scols_table_enable_shellvar(tb, o->shell)) {
		scols_unref_table(tb);
		return NULL;
	}
	return tb;
}

/* The key of a column in info: its name in lower case (-y: shell-safe). */
static void column_key(int col, int shell, char *key, size_t len)
{
	size_t k;

	if (shell) {
		shell_name(columns[col].name, 1, key, len);
		return;
	}
	for (k = 0; columns[col].name[k] && k < len - 1; k++)
		key[k] = (char)tolower((unsigned char)columns[col].name[k]);
	key[k] = '\0';
}

/* Print tb and free it; 0 or a negative errno. */
static int print_table(struct libscols_table *tb)
{
	int ret = scols_print_table(tb);

	scols_unref_table(tb);
	return ret < 0 ? ret : 0;
}

/* The text of row I's cell of column COL (raw units with RAW). */
typedef void cell_fn(const void *rows, size_t i, int col, int raw, char *buf,
		     size_t len);

/*
 * A table of the columns cols[] of SET, one line per row of ROWS (N of
 * them), in the format of o: numbers to the right; in JSON raw units (as
 * sizes are bytes there) and text that is valid UTF-8.
 */
static int print_rows(FILE *f, const struct column_set *set, const void *rows,
		      size_t n, cell_fn *cell, const int *cols, size_t ncols,
		      const struct out_opts *o)
{
	struct libscols_table *tb = new_table(f, set->table, o);
	char *buf = malloc(CELL_MAX), *clean = malloc(CELL_MAX);
	size_t i, c;

	if (!tb || !buf || !clean)
		goto nomem;
	for (c = 0; c < ncols; c++) {
		const struct column *col = &set->v[cols[c]];
		int right = col->type != COL_STRING && col->type != COL_BOOLEAN;
		struct libscols_column *cl;

		cl = scols_table_new_column(tb, col->name, 0,
					    right ? SCOLS_FL_RIGHT : 0);
		if (!cl || scols_column_set_json_type(cl, json_type(col->type)))
			goto nomem;
	}
	for (i = 0; i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			goto nomem;
		for (c = 0; c < ncols; c++) {
			const char *text = buf;

			cell(rows, i, cols[c], o->bytes || o->json, buf, CELL_MAX);
			if (o->json) {
				utf8_sanitize(buf, clean, CELL_MAX);
				text = clean;
			}
			if (scols_line_set_data(ln, c, text))
				goto nomem;
		}
	}
	free(buf);
	free(clean);
	return print_table(tb);
nomem:
	scols_unref_table(tb);
	free(buf);
	free(clean);
	return -ENOMEM;
}

static void entry_cell(const void *rows, size_t i, int col, int raw,
		       char *buf, size_t len)
{
	cell_text(((const struct udmabuf_entry *const *)rows)[i], col, raw,
		  buf, len);
}

int print_list(FILE *f, const struct udmabuf_entry *const *v, size_t n,
	       const int *cols, size_t ncols, const struct out_opts *o)
{
	return print_rows(f, &buffer_columns, v, n, entry_cell, cols, ncols, o);
}

int print_info(FILE *f, const struct udmabuf_entry *e, const int *cols,
	       size_t ncols, const struct out_opts *o)
{
	struct out_opts to = { .raw = o->raw, .noheadings = 1 };
	struct libscols_table *tb = new_table(f, "buffer", &to);
	char buf[CELL_MAX], key[40];
	size_t i;

	/* Two columns, "key:" and value; -n leaves out the keys. */
	if (!tb || (!o->noheadings && !scols_table_new_column(tb, "KEY", 0, 0)) ||
	    !scols_table_new_column(tb, "VALUE", 0, 0))
		goto nomem;
	for (i = 0; i < ncols; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		int c = cols[i];
		size_t v = 0;

		if (!ln)
			goto nomem;
		if (!o->noheadings) {
			column_key(c, o->shell, key, sizeof(key) - 1);
			strcat(key, ":");
			if (scols_line_set_data(ln, v++, key))
				goto nomem;
		}
		cell_text(e, c, 1, buf, sizeof(buf));
		if (!buf[0]) {
			strcpy(buf, "-");
		} else if (c == COL_SIZE_ && udmabuf_entry_get_size(e) >= 1024 &&
			   !o->bytes && !o->noheadings && !o->raw) {
			/* The human form for a reader; -n and -r are for scripts. */
			char h[32];
			size_t l = strlen(buf);

			human_size(udmabuf_entry_get_size(e), h, sizeof(h));
			snprintf(buf + l, sizeof(buf) - l, " (%s)", h);
		}
		if (scols_line_set_data(ln, v, buf))
			goto nomem;
	}
	return print_table(tb);
nomem:
	scols_unref_table(tb);
	return -ENOMEM;
}

/* The JSON type of a column as util-linux's --list-columns names it. */
static const char *type_name(enum col_type t)
{
	switch (t) {
	case COL_NUMBER:
	case COL_SIZE:
	case COL_TIME:
	case COL_RATE:
		return "<integer>";
	case COL_FLOAT:
		return "<float>";
	case COL_BOOLEAN:
		return "<boolean>";
	default:
		return "<string>";
	}
}

int print_column_list_of(FILE *f, const struct column_set *set,
			 const struct out_opts *o)
{
	struct out_opts to = { .json = o->json, .raw = o->raw,
			       .pairs = o->pairs, .noheadings = 1 };
	struct libscols_table *tb = new_table(f, "udmabufctl-columns", &to);
	int i;

	if (!tb || !scols_table_new_column(tb, "HOLDER", 0, SCOLS_FL_RIGHT) ||
	    !scols_table_new_column(tb, "TYPE", 0, 0) ||
	    !scols_table_new_column(tb, "DESCRIPTION", 0, 0))
		goto nomem;
	for (i = 0; i < set->n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln || scols_line_set_data(ln, 0, set->v[i].name) ||
		    scols_line_set_data(ln, 1, type_name(set->v[i].type)) ||
		    scols_line_set_data(ln, 2, set->v[i].help))
			goto nomem;
	}
	return print_table(tb);
nomem:
	scols_unref_table(tb);
	return -ENOMEM;
}

int print_column_list(FILE *f, const struct out_opts *o)
{
	return print_column_list_of(f, &buffer_columns, o);
}

/* ---------------------------------------------------------------------- */
/* udmabufctl bench                                                       */

const struct column bench_column_v[NBENCH_COLUMNS] = {
	[BCOL_OP]	 = { "OP",	  COL_STRING,  1,
		"check_buf (write, read back, compare), clear_buf (write zeros), sync_for_cpu, sync_for_device (ioctl)",
		0 },
	[BCOL_O_SYNC]	 = { "O-SYNC",	  COL_BOOLEAN, 1,
		"mapped as with O_SYNC (else without)", 0 },
	[BCOL_SYNC_MODE] = { "SYNC-MODE", COL_NUMBER,  1,
		"the buffer's sync_mode meanwhile", 0 },
	[BCOL_CACHE]	 = { "CACHE",	  COL_STRING,  1,
		"what the kernel says the mapping is (cache_mode, cache_mode_sync)", 0 },
	[BCOL_SIZE]	 = { "SIZE",	  COL_SIZE,    1,
		"bytes per operation", 0 },
	[BCOL_TIME]	 = { "TIME",	  COL_TIME,    1,
		"median time of one operation (JSON: ns)", 0 },
	[BCOL_MIN]	 = { "MIN",	  COL_TIME,    1,
		"shortest time", 0 },
	[BCOL_MAX]	 = { "MAX",	  COL_TIME,    1,
		"longest time", 0 },
	[BCOL_RATE]	 = { "RATE",	  COL_RATE,    1,
		"SIZE per TIME, per second (JSON: bytes/s)", 0 },
	[BCOL_BASELINE]	 = { "BASELINE",  COL_STRING,  1,
		"what RATIO compares with: malloc (the same loop on malloc'ed memory), getppid (a null system call)",
		0 },
	[BCOL_BASE_TIME] = { "BASE-TIME", COL_TIME,    0,
		"median time of the baseline", 0 },
	[BCOL_RATIO]	 = { "RATIO",	  COL_FLOAT,   1,
		"TIME / BASE-TIME, median of the pairs (above 1: slower)", 0 },
	[BCOL_REPS]	 = { "REPS",	  COL_NUMBER,  0,
		"repetitions (pairs with the baseline)", 0 },
};

const struct column_set bench_columns = {
	"benchmarks", bench_column_v, NBENCH_COLUMNS, NULL, 0
};

void human_time(double ns, char *buf, size_t len)
{
	static const struct { double scale; const char *unit; } u[] = {
		{ 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" },
	};
	size_t i = 0;
	double v;

	while (i + 1 < sizeof(u) / sizeof(u[0]) && ns >= u[i + 1].scale * 0.9995)
		i++;
	v = ns / u[i].scale;
	snprintf(buf, len, "%.*f%s", v >= 99.95 || i == 0 ? 0 : v >= 9.995 ? 1 : 2,
		 v, u[i].unit);
}

void bench_cell_text(const struct bench_row *r, int col, int raw,
		     char *buf, size_t len)
{
	double rate;

	buf[0] = '\0';
	switch (col) {
	case BCOL_OP:
		snprintf(buf, len, "%s", r->op);
		break;
	case BCOL_O_SYNC:
		snprintf(buf, len, "%d", r->o_sync ? 1 : 0);
		break;
	case BCOL_SYNC_MODE:
		if (r->sync_mode >= 0)
			snprintf(buf, len, "%d", r->sync_mode);
		break;
	case BCOL_CACHE:
		snprintf(buf, len, "%s", r->cache);
		break;
	case BCOL_SIZE:
		if (raw)
			snprintf(buf, len, "%" PRIu64, r->size);
		else
			human_size(r->size, buf, len);
		break;
	case BCOL_TIME:
	case BCOL_MIN:
	case BCOL_MAX:
	case BCOL_BASE_TIME: {
		double t = col == BCOL_TIME ? r->time : col == BCOL_MIN ? r->min :
			   col == BCOL_MAX ? r->max : r->base_time;

		if (!r->reps || t <= 0)
			break;
		if (raw)
			snprintf(buf, len, "%.0f", t);
		else
			human_time(t, buf, len);
		break;
	}
	case BCOL_RATE:
		if (!r->reps || r->time <= 0 || !r->size)
			break;
		rate = (double)r->size * 1e9 / r->time;
		if (raw) {
			snprintf(buf, len, "%.0f", rate);
		} else {
			size_t l;

			human_size((uint64_t)(rate + 0.5), buf, len);
			l = strlen(buf);
			snprintf(buf + l, len - l, "/s");
		}
		break;
	case BCOL_BASELINE:
		snprintf(buf, len, "%s", r->baseline);
		break;
	case BCOL_RATIO:
		if (r->ratio <= 0)
			break;
		if (raw)
			snprintf(buf, len, "%.4f", r->ratio);
		else
			snprintf(buf, len, r->ratio >= 100 ? "%.0f" :
				 r->ratio >= 10 ? "%.1f" : "%.3f", r->ratio);
		break;
	case BCOL_REPS:
		snprintf(buf, len, "%d", r->reps);
		break;
	}
}

static void bench_cell(const void *rows, size_t i, int col, int raw,
		       char *buf, size_t len)
{
	bench_cell_text(&((const struct bench_row *)rows)[i], col, raw, buf, len);
}

int print_bench(FILE *f, const struct bench_row *v, size_t n,
		const int *cols, size_t ncols, const struct out_opts *o)
{
	return print_rows(f, &bench_columns, v, n, bench_cell, cols, ncols, o);
}

int conf_split(char *line, char **tok, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			return (int)n;
		if (n >= max)
			return -E2BIG;
		tok[n++] = p;
		p += strcspn(p, " \t\r\n");
		if (*p)
			*p++ = '\0';
		if (raw_unescape(tok[n - 1]))
			return -EINVAL;
	}
}

const char *conf_allocator(const char *allocator, int enabled)
{
	static const char *const askable[] = { "page", "contig", "cma" };
	size_t i;

	/* Without a CMA area, asking for CMA gives dma_alloc_pages()'s. */
	if (!strcmp(allocator, "dma") || !strcmp(allocator, "cma"))
		return "cma";
	/*
	 * An enabled buffer's page or contig may be what auto chose: asked
	 * for again, it would lose auto's fallback to the next allocator.
	 */
	if (enabled)
		return NULL;
	for (i = 0; i < sizeof(askable) / sizeof(askable[0]); i++)
		if (!strcmp(allocator, askable[i]))
			return askable[i];
	return NULL;
}

void conf_write_line(FILE *f, const struct udmabuf_entry *e,
		     const char *allocator, const uint64_t *place)
{
	const char *name = udmabuf_entry_get_name(e);
	const char *item = udmabuf_entry_get_item(e);
	const char *dma_device = udmabuf_entry_get_dma_device(e);
	unsigned int major, minor;
	long l;

	raw_escape(f, item);
	fprintf(f, " size=%" PRIu64, udmabuf_entry_get_size(e));
	if (!udmabuf_entry_get_devno(e, &major, &minor)) {
		fprintf(f, " minor=%u", minor);
	} else {
		l = udmabuf_entry_get_config_minor(e);
		if (l >= 0)
			fprintf(f, " minor=%ld", l);
	}
	l = udmabuf_entry_get_sync_mode(e);
	if (l >= 0)
		fprintf(f, " sync_mode=%ld", l);
	l = udmabuf_entry_get_dma_mask(e);
	if (l >= 0)
		fprintf(f, " dma_mask=%ld", l);
	l = udmabuf_entry_get_mode(e);
	if (l >= 0)
		fprintf(f, " mode=%04lo", l);
	/* Off is the default, and what a module without the checker has. */
	l = udmabuf_entry_get_sync_check(e);
	if (l > 0)
		fprintf(f, " sync_check=%ld", l);
	if (name[0] && strcmp(name, item)) {
		fputs(" device_name=", f);
		raw_escape(f, name);
	}
	if (dma_device && dma_device[0]) {
		fputs(" dma_device=", f);
		raw_escape(f, dma_device);
	}
	if (allocator)
		fprintf(f, " allocator=%s", allocator);
	/* A placed buffer comes back where it was: its CPU physical address. */
	if (place)
		fprintf(f, " phys_addr=0x%" PRIx64, *place);
	fprintf(f, " enable=%d\n", udmabuf_entry_is_enabled(e) ? 1 : 0);
}
