/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest test helpers share: errno names (tests assert the exact
 * errno by name), the data pattern (a range written by one helper is
 * verified by another) stored and checked through a mapping or
 * read(2)/write(2), how a device argument is opened, number arguments,
 * and "prog COMMAND ARGS..." command lines with --flags and a help made of
 * the command table.  Static inline functions, so that a helper may use
 * some of them only; the includer defines _GNU_SOURCE (and, for 64-bit
 * file offsets on 32-bit systems, _FILE_OFFSET_BITS 64) and prog first.
 */
#ifndef UDMABUF_HELPERS_H
#define UDMABUF_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/udmabuf-cfs.h>

/*
 * Exit statuses: 0 success, 1 a call failed (its errno name printed), 2 the
 * data differ from what was written, 64 usage (EX_USAGE).  A helper that
 * gives a status another meaning defines it first.
 */
#ifndef EXIT_SYSCALL
#define EXIT_SYSCALL	1
#endif
#ifndef EXIT_MISMATCH
#define EXIT_MISMATCH	2
#endif
#ifndef EXIT_USAGE
#define EXIT_USAGE	64
#endif

/* ---- errno names ---- */

/* glibc's name of ERR (EAGAIN, not EWOULDBLOCK), or E and its number. */
static inline const char *errno_name(int err)
{
	static char buf[32];
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

/* Print the errno name of a failed call on stdout and return EXIT_SYSCALL. */
static inline int report_errno(int err)
{
	printf("%s\n", errno_name(err));
	return EXIT_SYSCALL;
}

/* "OK": a command's success; returns 0. */
static inline int print_ok(void)
{
	printf("OK\n");
	return 0;
}

/*
 * The outcome of the call under test, which returned R: its errno's name
 * and EXIT_SYSCALL if R < 0, else "OK" and 0.  FD, if not -1, is closed
 * first (errno kept).
 */
static inline int outcome(long r, int fd)
{
	int err = errno;

	if (fd >= 0)
		close(fd);
	return r < 0 ? report_errno(err) : print_ok();
}

/*
 * UDMABUF_CFS_IOC_SYNC_FOR_CPU (FOR_CPU) or _FOR_DEVICE of [OFF, OFF+SIZE)
 * of FD: ioctl()'s result.
 */
static inline int sync_ioctl(int fd, int for_cpu, uint64_t off, uint64_t size,
			     uint32_t dir, uint32_t flags)
{
	struct udmabuf_cfs_sync s = {
		.offset = off, .size = size, .direction = dir, .flags = flags,
	};

	return ioctl(fd, for_cpu ? UDMABUF_CFS_IOC_SYNC_FOR_CPU :
				   UDMABUF_CFS_IOC_SYNC_FOR_DEVICE, &s);
}

/* A call that is a precondition of the command, not the thing under test. */
static inline int report_setup_errno(const char *what, const char *arg, int err)
{
	printf("%s\n", errno_name(err));
	fprintf(stderr, "%s: %s %s: %s\n", prog, what, arg, errno_name(err));
	return EXIT_SYSCALL;
}

/* ---- device arguments ---- */

/*
 * open_dev_arg - open(2) PATH with FLAGS, or take "fd:N", a descriptor the
 * caller passed down (duplicated, close-on-exec).  With fd:N the access
 * mode is that file's and FLAGS are ignored: root opens, a test then hands
 * the file to an unprivileged program and checks what the driver (not the
 * node's permissions) allows with it.  Returns the fd, or -1 with errno.
 */
static inline int open_dev_arg(const char *path, int flags)
{
	char *end;
	long n;

	if (strncmp(path, "fd:", 3))
		return open(path, flags);
	errno = 0;
	n = strtol(path + 3, &end, 10);
	if (errno || end == path + 3 || *end || n < 0 || n > 1023) {
		errno = EBADF;
		return -1;
	}
	return fcntl((int)n, F_DUPFD_CLOEXEC, 3);
}

/* Write VAL to PATH with one write(2): 0, or the errno. */
static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* The start of PATH (LEN - 1 bytes at most) into BUF: 0, or the errno. */
static inline int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		err = errno;
	else
		buf[n] = '\0';
	close(fd);
	return err;
}

/* EXPORT_DMABUF of [OFF, OFF+SIZE) of FD: the dma-buf's fd, or -errno. */
static inline int export_dmabuf(int fd, uint64_t off, uint64_t size,
				uint32_t flags)
{
	struct udmabuf_cfs_export exp = {
		.offset = off, .size = size, .flags = flags, .fd = -1,
	};

	return ioctl(fd, UDMABUF_CFS_IOC_EXPORT_DMABUF, &exp) ? -errno : exp.fd;
}

/*
 * open_info - open_dev_arg() DEV with FLAGS (close-on-exec) and read its
 * UDMABUF_CFS_IOC_GET_INFO into INFO: 0 with the file in *FD, or the
 * failure reported as a setup error (nothing left open).
 */
static inline int open_info(const char *dev, int flags,
			    struct udmabuf_cfs_info *info, int *fd)
{
	int err;

	*fd = open_dev_arg(dev, flags | O_CLOEXEC);
	if (*fd < 0)
		return report_setup_errno("open", dev, errno);
	memset(info, 0, sizeof(*info));
	if (!ioctl(*fd, UDMABUF_CFS_IOC_GET_INFO, info))
		return 0;
	err = errno;
	close(*fd);
	return report_setup_errno("UDMABUF_CFS_IOC_GET_INFO", dev, err);
}

/* ---- the pattern ---- */

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The 64-bit word at byte offset 8*idx of a buffer filled with SEED. */
static inline uint64_t pattern_word(uint64_t seed, uint64_t idx)
{
	return mix64(mix64(seed + 0x9e3779b97f4a7c15ULL) ^ idx);
}

/* The byte at OFFSET, consistent with storing pattern_word() natively. */
static inline uint8_t pattern_byte(uint64_t seed, uint64_t off)
{
	uint64_t w = pattern_word(seed, off / 8);
	unsigned int b = off % 8;

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	b = 7 - b;
#endif
	return (uint8_t)(w >> (8 * b));
}

/* ---- number arguments ---- */

/* Unsigned 64-bit: decimal or 0x hex, optional K/M/G suffix, no sign. */
static inline int parse_u64(const char *s, uint64_t *out)
{
	static const char units[] = "kKmMgG";
	const char *unit;
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	unit = *end ? strchr(units, *end) : NULL;
	if (unit) {
		shift = 10 * (unsigned int)((unit - units) / 2 + 1);
		end++;
	}
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static inline int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (parse_u64(s, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Signed 64-bit: parse_u64()'s numbers, each with an optional '-'. */
static inline int parse_s64(const char *s, int64_t *out)
{
	int neg = *s == '-';
	uint64_t v;

	if (parse_u64(s + neg, &v) || v > (uint64_t)INT64_MAX + (uint64_t)neg)
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* ---- command lines ---- */

/* "prog: MESSAGE" and where the help is, on stderr; returns EXIT_USAGE. */
static inline int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	return EXIT_USAGE;
}

/*
 * A --flag of a command: its name and the offset of the int it sets to 1
 * in the helper's struct opts, written FLAG("--sync", sync).  A table of
 * them ends with { NULL, 0 }.
 */
struct flag {
	const char *name;
	size_t offset;
};

#define FLAG(name, field)	{ name, offsetof(struct opts, field) }

/*
 * split_flags - take the --flags out of ARGV (ARGC entries) wherever they
 * stand; the positional arguments stay at the front, in order.  Each flag
 * of FLAGS found sets its int in OPTS (SIZE bytes, cleared first).
 * Returns the number of positional arguments, or -1 after a usage error
 * for any other --option.
 */
static inline int split_flags(int argc, char **argv, const struct flag *flags,
			      void *opts, size_t size)
{
	const struct flag *f;
	int i, npos = 0;

	memset(opts, 0, size);
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (strncmp(a, "--", 2) != 0) {
			argv[npos++] = argv[i];
			continue;
		}
		for (f = flags; f->name && strcmp(f->name, a); f++)
			;
		if (!f->name) {
			usage_error("unknown option '%s'", a);
			return -1;
		}
		*(int *)((char *)opts + f->offset) = 1;
	}
	return npos;
}

/*
 * A command: its name, its arguments as the help and the usage errors
 * show them, what runs it with the arguments after the name, and a number
 * that FN reads as this_command->arg, so that one function serves several
 * commands.  A table of them ends with { NULL }.
 */
struct command {
	const char *name;
	const char *args;
	int (*fn)(int argc, char **argv);
	int arg;
};

/* The command that runs (run_command). */
static const struct command *this_command;

/* A usage error of the command that runs: what its arguments are. */
static inline int bad_args(void)
{
	return usage_error("usage: %s %s", this_command->name,
			   this_command->args);
}

/* The help: every command of COMMANDS with its arguments. */
static inline void help(FILE *f, const struct command *commands)
{
	fprintf(f, "usage: %s COMMAND ARGS...  (tests/helpers/%s.c tells more)\n\n",
		prog, prog);
	for (; commands->name; commands++)
		fprintf(f, "  %s %s\n", commands->name, commands->args);
}

/* Run the command of COMMANDS that ARGV[0] names. */
static inline int run_command(const struct command *commands, int argc,
			      char **argv)
{
	const struct command *c;

	if (argc < 1)
		return usage_error("missing command");
	for (c = commands; c->name; c++) {
		if (!strcmp(c->name, argv[0])) {
			this_command = c;
			return c->fn(argc - 1, argv + 1);
		}
	}
	return usage_error("unknown command '%s'", argv[0]);
}

/*
 * The main() of a helper called as "prog COMMAND ARGS..." or "prog --help".
 * Standard output is line-buffered even into a pipe or a file, so that a
 * line such as "ready" reaches the test at once.
 */
static inline int command_main(const struct command *commands, int argc,
			       char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		help(stdout, commands);
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return run_command(commands, argc - 1, argv + 1);
}

/* ---- the pattern through a mapping ---- */

/*
 * Fill or check [BASE, BASE+LEN) of the buffer through MAP, a mapping that
 * starts at buffer offset BASE.  Only aligned 64-bit accesses, plus single
 * bytes at unaligned ends: an uncached mapping on arm is Device memory.
 */
static inline void map_fill(volatile uint8_t *map, uint64_t base, uint64_t len,
			    uint64_t seed)
{
	uint64_t o = 0;

	for (; o < len && (base + o) % 8; o++)
		map[o] = pattern_byte(seed, base + o);
	for (; o + 8 <= len; o += 8)
		*(volatile uint64_t *)(map + o) = pattern_word(seed, (base + o) / 8);
	for (; o < len; o++)
		map[o] = pattern_byte(seed, base + o);
}

/*
 * Returns -1 if the range holds the pattern, else the buffer offset of the
 * first word or byte that differs, with what it holds in *GOT and what it
 * should in *WANT.  The accesses are map_fill()'s.
 */
static inline int64_t map_mismatch(volatile uint8_t *map, uint64_t base,
				   uint64_t len, uint64_t seed, uint64_t *got,
				   uint64_t *want)
{
	uint64_t o, at;
	int word;

	for (o = 0; o < len; o += word ? 8 : 1) {
		at = base + o;
		word = at % 8 == 0 && len - o >= 8;
		*got = word ? *(volatile uint64_t *)(map + o) : map[o];
		*want = word ? pattern_word(seed, at / 8) : pattern_byte(seed, at);
		if (*got != *want)
			return (int64_t)at;
	}
	return -1;
}

/*
 * Print the first word or byte that differs, WHERE (if not NULL) saying
 * where it was seen; returns EXIT_MISMATCH.
 */
static inline int print_mismatch(const char *where, int64_t at, uint64_t got,
				 uint64_t want)
{
	printf("MISMATCH%s%s at offset %" PRId64 " (0x%" PRIx64 "): got 0x%"
	       PRIx64 " want 0x%" PRIx64 "\n", where ? " in " : "",
	       where ? where : "", at, (uint64_t)at, got, want);
	return EXIT_MISMATCH;
}

/* 0 if map_mismatch() finds none, else the mismatch printed. */
static inline int map_check(volatile uint8_t *map, uint64_t base, uint64_t len,
			    uint64_t seed, const char *where)
{
	uint64_t got = 0, want = 0;
	int64_t at = map_mismatch(map, base, len, seed, &got, &want);

	return at < 0 ? 0 : print_mismatch(where, at, got, want);
}

#define FD_CHUNK	(64 * 1024)

/* What fd_pattern() does: store the pattern, or check it. */
enum { FD_FILL, FD_CHECK };

/*
 * FD_FILL: pwrite(2) the pattern to [OFF, OFF+LEN) of FD.  FD_CHECK:
 * pread(2) the range, 0 if it holds the pattern, else as map_check.  A
 * failed call or a short one is printed.
 */
static inline int fd_pattern(int fd, int what, uint64_t off, uint64_t len,
			     uint64_t seed, const char *where)
{
	static uint8_t buf[FD_CHUNK];
	uint64_t done = 0;

	while (done < len) {
		size_t n = len - done > FD_CHUNK ? FD_CHUNK : (size_t)(len - done);
		uint64_t at = off + done;
		ssize_t r, i;

		if (what == FD_FILL) {
			for (i = 0; i < (ssize_t)n; i++)
				buf[i] = pattern_byte(seed, at + (uint64_t)i);
			r = pwrite(fd, buf, n, (off_t)at);
		} else {
			r = pread(fd, buf, n, (off_t)at);
		}
		if (r < 0)
			return report_errno(errno);
		if (r == 0) {
			printf("SHORT %s at offset %" PRIu64 "\n",
			       what == FD_FILL ? "write" : "read: end of file", at);
			return EXIT_MISMATCH;
		}
		for (i = 0; what == FD_CHECK && i < r; i++) {
			uint8_t want = pattern_byte(seed, at + (uint64_t)i);

			if (buf[i] != want)
				return print_mismatch(where, (int64_t)(at + (uint64_t)i),
						      buf[i], want);
		}
		done += (uint64_t)r;
	}
	return 0;
}

/* ---- shell commands ---- */

/* Run CMD with sh -c; if it fails, print CMDFAIL and return EXIT_SYSCALL. */
static inline int run_shell(const char *cmd)
{
	int status = system(cmd);

	if (status != 0) {
		fprintf(stderr, "%s: '%s' failed (status %d)\n", prog, cmd,
			status);
		printf("CMDFAIL\n");
		return EXIT_SYSCALL;
	}
	return 0;
}

#endif /* UDMABUF_HELPERS_H */
