/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Output formatting and file syntax of udmabufctl: tables of the entries of
 * libudmabuf's listings (udmabuf.h) through libsmartcols, and the save
 * file's lines. It only formats: its unit test feeds it entries of its
 * own.
 */
#ifndef UDMABUFCTL_OUTPUT_H
#define UDMABUFCTL_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "udmabuf.h"

enum col_type {
	COL_STRING,
	COL_NUMBER,
	COL_BOOLEAN,
	COL_SIZE,	/* human in tables unless --bytes; bytes in JSON */
	COL_TIME,	/* human in tables unless --bytes; nanoseconds in JSON */
	COL_RATE,	/* human in tables unless --bytes; bytes/s in JSON */
	COL_FLOAT,	/* a number with a fraction */
};

struct column {
	const char *name;	/* header; lower case is the JSON key */
	enum col_type type;
	int is_default;		/* shown without -o */
	const char *help;
	unsigned int fields;	/* UDMABUF_FIELD_* the cell needs read */
};

enum {
	COL_NAME, COL_DEVICE, COL_MAJMIN, COL_SIZE_, COL_SYNC_MODE,
	COL_DMA_ADDR, COL_CPU_PHYS_ADDR, COL_ORIGIN, COL_USERS, COL_DEVNAME,
	COL_ENABLED,
	COL_DMA_MASK, COL_DMA_DEVICE, COL_MODE, COL_COHERENT, COL_CACHE,
	COL_CACHE_SYNC, COL_ALLOCATOR, COL_OWNER,
	COL_SYNC_CHECK, COL_SYNC_VIOLATIONS,
	NCOLUMNS
};

extern const struct column columns[NCOLUMNS];

/*
 * Former names that -o still takes, for scripts: PHYS-ADDR was DMA-ADDR's
 * (it showed the DMA address, as the phys_addr attributes read it).
 */
struct column_alias {
	const char *name;
	int col;
};

#define NALIASES 1
extern const struct column_alias column_aliases[NALIASES];

/*
 * The columns of one kind of table: those of list and info (buffers), or
 * those of bench (benchmarks). TABLE is the JSON key of the rows.
 */
struct column_set {
	const char *table;
	const struct column *v;
	int n;
	const struct column_alias *aliases;
	int naliases;
};

extern const struct column_set buffer_columns;

/* Width of the longest column name of a set, for the --help list. */
size_t column_name_width(void);
size_t column_name_width_of(const struct column_set *set);

struct out_opts {
	int json;		/* -J */
	int raw;		/* -r */
	int pairs;		/* -P: KEY="value" pairs */
	int noheadings;
	int bytes;
	int shell;		/* -y: column names usable as shell variables */
};

/*
 * NAME as -y shows it, as util-linux's libsmartcols makes it: each
 * character that is not a letter or digit becomes '_' ("MAJ:MIN" ->
 * "MAJ_MIN"), a trailing '%' "_PCT", a leading character that is no
 * letter gets a '_' before it. Lower case with LOWER (JSON keys, info's
 * keys).
 */
void shell_name(const char *name, int lower, char *buf, size_t len);

/*
 * Parse a column list "NAME,SIZE" (case-insensitive; a former name of
 * column_aliases[] is the column it now names; '_' stands for any other
 * character than a letter or digit, so that the names -y prints are taken
 * too); a leading '+' appends to ids[] as already filled (*n ids).
 * -EINVAL with *bad pointing at the unknown name (in a static buffer),
 * -E2BIG if too many.
 */
int parse_columns(const char *spec, int *ids, size_t max, size_t *n,
		  const char **bad);
int parse_columns_of(const struct column_set *set, const char *spec,
		     int *ids, size_t max, size_t *n, const char **bad);

/* The default columns into ids[]; returns how many. */
size_t default_columns(int *ids, size_t max);
size_t default_columns_of(const struct column_set *set, int *ids, size_t max);

/* What a listing must read (UDMABUF_FIELD_*) to show the columns ids[]. */
unsigned int columns_fields(const int *ids, size_t n);

/* Text of one cell; "" when unknown. */
void cell_text(const struct udmabuf_entry *e, int col, int bytes,
	       char *buf, size_t len);

/* 1 if the cell is unknown (JSON null); text is its cell_text(). */
int cell_unknown(const struct udmabuf_entry *e, int col, const char *text);

/*
 * The word of a sync checker mode (UDMABUF_SYNC_CHECK_*): "off", "report",
 * "sigbus"; NULL for another number. parse_sync_check() takes them back:
 * the mode, or -EINVAL.
 */
const char *sync_check_name(int mode);
int parse_sync_check(const char *s);

/* "512B", "4K", "1.5M", ... (binary units, one decimal at most). */
void human_size(uint64_t bytes, char *buf, size_t len);

/*
 * Copy in to out (len bytes at most, NUL included) with each byte that is
 * not part of a valid UTF-8 sequence replaced by U+FFFD: JSON is UTF-8.
 */
void utf8_sanitize(const char *in, char *out, size_t len);

/*
 * Escape white space, backslash, non-printable bytes and a leading '#' as
 * \xHH.
 */
void raw_escape(FILE *f, const char *s);

/* Undo raw_escape() in place; -EINVAL on a malformed escape. */
int raw_unescape(char *s);

/*
 * The buffers v[] as a table of the columns cols[], in the format of o,
 * by libsmartcols: aligned (sizes human unless o->bytes), raw, KEY="value"
 * pairs, or JSON ({"buffers": [...]}, sizes in bytes, unknown cells null).
 * 0, or a negative errno.
 */
int print_list(FILE *f, const struct udmabuf_entry *const *v, size_t n,
	       const int *cols, size_t ncols, const struct out_opts *o);

/*
 * "key: value" lines for one buffer, one per column, aligned. Sizes are
 * bytes with the human form in parentheses (bytes only with o->bytes,
 * o->noheadings or o->raw); o->noheadings leaves out the keys, o->raw the
 * alignment (cells escaped as libsmartcols escapes raw output). Unknown
 * values are "-". 0, or a negative errno.
 */
int print_info(FILE *f, const struct udmabuf_entry *e, const int *cols,
	       size_t ncols, const struct out_opts *o);

/*
 * The columns (-H, --list-columns), as util-linux lists them: name, JSON
 * type, description; raw or JSON ("udmabufctl-columns") as o says.
 */
int print_column_list(FILE *f, const struct out_opts *o);
int print_column_list_of(FILE *f, const struct column_set *set,
			 const struct out_opts *o);

/* ---------------------------------------------------------------------- */
/* udmabufctl bench                                                       */

enum {
	BCOL_OP, BCOL_O_SYNC, BCOL_SYNC_MODE, BCOL_CACHE, BCOL_SIZE,
	BCOL_TIME, BCOL_MIN, BCOL_MAX, BCOL_RATE, BCOL_BASELINE,
	BCOL_BASE_TIME, BCOL_RATIO, BCOL_REPS,
	NBENCH_COLUMNS
};

extern const struct column bench_column_v[NBENCH_COLUMNS];
extern const struct column_set bench_columns;

/* One row of udmabufctl bench: an operation timed REPS times. */
struct bench_row {
	char op[24];		/* check_buf, clear_buf, sync_for_cpu, ... */
	int o_sync;		/* the mapping was made as O_SYNC's */
	int sync_mode;		/* the buffer's sync_mode meanwhile; -1 unknown */
	char cache[16];		/* what the kernel says the mapping is; "" */
	uint64_t size;		/* bytes per operation */
	int reps;
	double time, min, max;	/* ns per operation: median, extremes */
	char baseline[16];	/* what RATIO compares with: malloc, getppid */
	double base_time;	/* the baseline's median, ns; 0 if none */
	double ratio;		/* median of the per-pair ratios; 0 if none */
};

/* "412ns", "3.95us", "1.22ms", "2.28s": three significant digits. */
void human_time(double ns, char *buf, size_t len);

/*
 * Text of one cell of a bench row: TIME, RATE and SIZE human unless RAW
 * (nanoseconds, bytes per second, bytes), RATIO three significant digits
 * unless RAW (four decimals). "" when unknown.
 */
void bench_cell_text(const struct bench_row *r, int col, int raw,
		     char *buf, size_t len);

/*
 * The rows v[] as a table of the columns cols[] of bench_columns, in the
 * format of o ({"benchmarks": [...]} in JSON, unknown cells null).
 */
int print_bench(FILE *f, const struct bench_row *v, size_t n,
		const int *cols, size_t ncols, const struct out_opts *o);

/*
 * Save file: one buffer per line, "ITEM attr=value...", '#' comments.
 * conf_split() splits a line into unescaped tokens in place; returns the
 * number of tokens (0 for blank/comment lines) or -EINVAL/-E2BIG.
 */
int conf_split(char *line, char **tok, size_t max);

/*
 * The allocator= a save file asks for, of a configfs item whose allocator
 * attribute reads ALLOCATOR, so that restore makes the same buffer: while
 * disabled it reads what was asked for ("" for auto, the default: NULL);
 * once ENABLED, where the memory came from: CMA is asked for again ("dma",
 * CMA's allocator without a CMA area, as "cma"), but not page or contig,
 * which auto may have chosen and which, asked for, would lose auto's
 * fallback. NULL for "placed", which phys_addr= places again, and for
 * anything else.
 */
const char *conf_allocator(const char *allocator, int enabled);

/*
 * One save-file line for a configfs buffer; allocator= is ALLOCATOR if it
 * is not NULL (conf_allocator()); phys_addr= is PLACE, its placement (the
 * CPU physical address it was placed at, or is to be), if PLACE is not
 * NULL.
 */
void conf_write_line(FILE *f, const struct udmabuf_entry *e,
		     const char *allocator, const uint64_t *place);

#endif
