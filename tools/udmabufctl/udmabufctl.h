/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * udmabufctl: what its files share. A file per verb family: list.c (list,
 * info and the output options), create.c, delete.c (delete, and who uses
 * a buffer), sync.c, save.c, restore.c, state.c (restore's record, clear),
 * bench.c; main in udmabufctl.c, the usage in usage.c, messages and what
 * else every verb uses in common.c; tables in output.c, parsers in
 * parse.c, the ENOMEM hint in enomem.c, bench's timing in timing.c. No
 * file uses udmabufctl.c, which uses the verbs.
 *
 * The buffers are libudmabuf's business: only its public API (udmabuf.h).
 */
#ifndef UDMABUFCTL_H
#define UDMABUFCTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "udmabuf.h"

#define PROG			"udmabufctl"
#define DEFAULT_SAVE_FILE	"/etc/udmabuf/udmabuf.conf"

/* Exit statuses (documented in --help and udmabufctl(8)). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* usage error or failure */
#define EXIT_PARTIAL	2	/* several NAMEs: some, not all, failed */

/* ---------------------------------------------------------------------- */
/* Messages and options (common.c, usage.c)                               */

/* The command being run, for its --help. */
extern const char *cur_verb;

/*
 * The first word of "udmabufctl NAME...", which is no command: a NAME of
 * list, unless it is no buffer either (a mistyped command?). Else NULL.
 */
extern const char *first_word;

/* udmabufctl --help; udmabufctl VERB --help. */
void usage(void);
void usage_of(const char *verb);

/* "udmabufctl: MESSAGE" and "Try ... --help", exit 1. */
void usage_error(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
__attribute__((noreturn)) void try_help(void);

/* "udmabufctl: NAME: ACTION: REASON" */
void report(const char *name, const char *action, int err);

/*
 * The same for a NAME argument that names no buffer: ENOENT and EINVAL of
 * a lookup are about buffers, not files.
 */
void report_lookup(const char *name, const char *action, int err);

/* "udmabufctl: hint: MESSAGE" */
void hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Why there is no configfs subsystem, if there is none, and the fix. */
void probe_hint(void);

/*
 * Every command but sync works through the configfs subsystem. Without
 * it they all fail alike, before anything is read or written:
 * "udmabufctl: COMMAND: no configfs directory DIR" and the fix. Returns 0
 * if it is there.
 */
int need_configfs(const char *command);

/* "this needs root" for EACCES and EPERM of a user who is not. */
void permission_hint(int err);

/* 0 if nothing failed, 1 if everything did, else 2. */
int status_of(size_t failed, size_t total);

/*
 * The exit status of printing a table (ret: 0 or a negative errno from
 * libsmartcols), reported as "udmabufctl: WHAT: print: REASON". A write
 * error is close_stdout()'s to report.
 */
int print_or_fail(const char *what, int ret);

/* Option values, or a usage error naming WHAT. */
uint64_t opt_size(const char *what, const char *s);
long opt_long(const char *what, const char *s, long min, long max);

/*
 * NAME's entry, reading FIELDS, in a listing of its own (*list, to be
 * freed); NULL and the -errno in *err if there is no such buffer.
 */
const struct udmabuf_entry *lookup(const char *name, unsigned int fields,
				   struct udmabuf_listing **list, int *err);

/* ---------------------------------------------------------------------- */
/* Parsers (parse.c)                                                      */

/*
 * A decimal integer within [min, max]. -EINVAL on garbage, -ERANGE when out
 * of range.
 */
int parse_long(const char *s, long min, long max, long *value);

/* Octal permissions, 0..0777. -EINVAL or -ERANGE. */
int parse_mode(const char *s, unsigned int *mode);

/*
 * A CPU physical address: decimal or 0x hex (page alignment is the
 * kernel's to check). 0 or -EINVAL.
 */
int parse_address(const char *s, uint64_t *addr);

/* ---------------------------------------------------------------------- */
/* What the verbs share                                                   */

/*
 * A buffer to create: create's options, or a line of restore's file. The
 * library's configuration is made of it when it is created; the values
 * are kept for the hints of a failure.
 */
struct create_req {
	const char *name;		/* the configfs item */
	const char *device_name;	/* NULL: the item's name */
	const char *dma_device;		/* NULL or "": the module's own */
	const char *const *attrs;	/* ATTR=VALUE, NULL-terminated, or NULL */
	uint64_t size, phys_addr;
	int placed;			/* phys_addr is set */
	long minor;			/* -1: the first free one */
	int sync_mode, dma_mask, mode;	/* -1: the module's default */
	int sync_check;			/* -1: the module's default (off) */
	unsigned int flags;		/* UDMABUF_CREATE_NO_ENABLE */
};

/* Everything at the module's default. */
void create_req_init(struct create_req *r, const char *name);

/* 1 if the module would take NAME as a device name (the library's rule). */
int device_name_ok(const char *name);

/*
 * Create the buffer R asks for, reporting a failure with its hints (what
 * the kernel logged meanwhile among them). 0 or -errno. (create.c)
 */
int create_reported(const struct create_req *r);

/*
 * Delete NAME (as udmabuf_listing_new_name() finds it), reporting a
 * failure with its hints. 0 or -errno. (delete.c)
 */
int delete_one(const char *name, unsigned int flags);

/* Delete every configfs buffer; the number that failed, *total of them. */
int clear_all(unsigned int flags, size_t *total);

/*
 * "PID (COMM), ..." of the processes that have NAME open or mapped into
 * list (size bytes); how many there are. (delete.c)
 */
size_t users_text(const char *name, char *list, size_t size);

/* ---------------------------------------------------------------------- */
/* save, restore and clear (save.c, restore.c, state.c)                   */

/* FILE of save and restore without one: $UDMABUF_SAVE_FILE, else the default. */
const char *default_save_file(void);

/*
 * Replace FILE atomically with what fill() writes: a temporary file next
 * to it, fsync, rename. Its directory is made if missing (that of the
 * default file may not exist yet). fill() reports its own errors and
 * returns -errno; the others are reported here as "FILE: ACTION: reason".
 * Returns 0 or -errno.
 */
int replace_file(const char *file, const char *action,
		 int (*fill)(const char *file, FILE *f, void *ctx), void *ctx);

/*
 * "restore --state FILE" records each buffer it creates in FILE, and
 * "clear --state FILE" deletes only those. A record is the item's name and
 * the inode number of its configfs directory (state.c).
 */
struct record {
	char *name;
	unsigned long long ino;
};

struct records {
	struct record *v;
	size_t n, cap;
};

void records_free(struct records *r);
int records_add(struct records *r, const char *name, unsigned long long ino);

/* Read FILE into r; a missing FILE is no records. Reports its errors. */
int read_records(const char *file, struct records *r);

/* Write r to FILE atomically; no records: remove FILE. */
int write_records(const char *file, const struct records *r);

/* The inode number of configfs item NAME; -errno if there is none. */
int item_ino(const char *name, unsigned long long *ino);

/* 1 if the record is of the item that is called so now. */
int record_current(const struct record *rec);

/* ---------------------------------------------------------------------- */
/* The commands                                                           */

int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_create(int argc, char **argv);
int cmd_delete(int argc, char **argv);
int cmd_sync(int argc, char **argv);
int cmd_save(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_clear(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
