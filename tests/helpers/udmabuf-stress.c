// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-stress - concurrent stress test of udmabuf-cfs, for the guest tests.
 *
 *   udmabuf-stress [--seconds N] [--procs N] [--threads N] [--slots N]
 *                  [--seed N] [--prefix NAME] [--module FILE.ko]
 *                  [--tmpdir DIR] [--selftest corrupt|leak|errno]
 *
 * Needs root, the module loaded and no buffer or configfs item.  Forks
 * --procs worker processes of --threads threads each.  Every worker makes
 * random calls for --seconds and checks each result against the outcomes
 * that are legitimate for that call in the state the worker knows of; an
 * outcome outside that set, a data mismatch or a crash fails the run.
 *
 * Buffers (NAME is --prefix, W the worker, S the slot):
 *
 *   private  NAME-wW-S: made, configured, enabled, written and removed only
 *            by worker W, with the minor 1000 + 16 * W + S, so that even a
 *            stale device node only ever reaches buffers of that slot.  Its
 *            owner knows what every byte must be.  Other workers attack it:
 *            they open, map, read and sync it, disable it and rmdir it.
 *   probe    NAME-wW-p: owned by worker W, never written; configured to clash
 *            on the contended minors 500/501 (enable may give EBUSY) or on
 *            the contended device names NAME-c0/NAME-c1 (EEXIST), or neither.
 *   pool     NAME-pool0..3: shared by all workers, never written.
 *   sentinel NAME-sentinel: kept open and mapped by the coordinator during a
 *            phase, so that the module cannot go; rmmod must say EAGAIN.
 *
 * Data: a word (64 bits, native order) of a private buffer is 0 (never
 * written) or pattern_word(tag, index), where the tag names the owner, the
 * slot and a sequence number.  The owner checks the exact tag it last wrote,
 * through every file and mapping it holds, also after others removed the
 * buffer: memory stays valid while open or mapped.  Anyone else can check
 * that each word is 0 or a correct word of that owner and slot, whatever
 * tag: a word of another buffer or of freed memory fails.  A word that the
 * owner is rewriting through write() may be seen half-copied; such a word
 * must turn valid within a few seconds.  Buffers never written must read 0.
 * Owners hand every write to the device and back (the sync ioctls), so that
 * mappings of any cache mode agree on real hardware too; the others only
 * make cache maintenance that cannot discard data (for-device, or for-cpu
 * in the to-device direction).
 *
 * Accepted outcomes (besides the exact ones of bad values, bad ranges, bad
 * ioctls and of the file edges: EINVAL, ERANGE, EACCES, ENOSPC, EBADF,
 * EFAULT, ENOTTY, as the contract says):
 *
 *   mkdir of an own item         OK; EEXIST only if it may still exist
 *   configuration write          OK, ENOENT (removed by another); EBUSY if
 *                                enabled (sync_mode: never EBUSY)
 *   enable=1                     OK, ENOMEM, ENOENT; EINVAL if size is 0;
 *                                probes also EBUSY (minor) / EEXIST (name);
 *                                pool items any of these
 *   enable=0                     OK, EBUSY (someone has it open), ENOENT;
 *                                never OK while the owner holds it open
 *   rmdir                        OK, ENOENT
 *   open of a device node        OK, ENOENT (gone), ENODEV (going, stale);
 *                                ENOENT only, once its owner removed it
 *   open of a stale node         OK (a new buffer of that slot), ENODEV
 *   sysfs attribute              OK, ENOENT, ENODEV (device going)
 *   anything on an open file     exactly as on a live buffer, forever
 *   rmmod during a phase         EAGAIN; between phases, with nothing
 *                                left: OK, and insmod OK
 *
 * Between phases every worker closes and removes what it has; then nothing
 * may be left (configfs items, class devices, device nodes), the module
 * must unload (with --module: and load again).  Exit status: 0 passed,
 * 1 failed (the lines starting with FAIL say why), 64 usage error.  The
 * seed is printed; --seed repeats a run's random choices (not the timing).
 *
 * --selftest makes worker 0 break a rule on purpose (corrupt its data, leave
 * an item behind, expect a wrong errno) to show that the checks can fail.
 */
#define _GNU_SOURCE
/* 64-bit file offsets (pread, lseek, mmap) on 32-bit systems too. */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/udmabuf-cfs.h>

#define EXIT_FAILED	1
#define EXIT_USAGE	64

#define CFS		"/sys/kernel/config/udmabuf"
#define CLASS		"/sys/class/udmabuf"
#define MODNAME		"udmabuf_cfs"

#define MAX_PROCS	8
#define MAX_THREADS	8
#define MAX_SLOTS	6	/* private slots per worker, plus one probe */
#define MAX_HANDLES	8
#define POOL_ITEMS	4
#define CONTENDED	2	/* contended minors and device names */

#define MINOR_CONTENDED	500
#define MINOR_SENTINEL	999
#define MINOR_PRIVATE	1000	/* + 16 * worker + slot */
#define MAX_SIZE	(1ULL << 20)

#define SENTINEL_OWNER	0x7ff
#define SENTINEL_SIZE	65536

#define CHUNK_WORDS	8192
#define SETTLE_NS	(3ULL * 1000000000ULL)
#define PARK_TIMEOUT_NS	(300ULL * 1000000000ULL)

/* ------------------------------------------------------------------ */
/* outcomes and operations                                             */

enum res {
	RES_OK, RES_ENOENT, RES_ENODEV, RES_EBUSY, RES_EEXIST, RES_EINVAL, RES_ERANGE,
	RES_ENOMEM, RES_EAGAIN, RES_ENOSPC, RES_EACCES, RES_EBADF, RES_EFAULT, RES_ENOTTY,
	RES_OTHER, RES_NUM
};

static const struct {
	int err;
	const char *name;
} results[RES_NUM] = {
	[RES_OK] = { 0, "OK" },		[RES_ENOENT] = { ENOENT, "ENOENT" },
	[RES_ENODEV] = { ENODEV, "ENODEV" }, [RES_EBUSY] = { EBUSY, "EBUSY" },
	[RES_EEXIST] = { EEXIST, "EEXIST" }, [RES_EINVAL] = { EINVAL, "EINVAL" },
	[RES_ERANGE] = { ERANGE, "ERANGE" }, [RES_ENOMEM] = { ENOMEM, "ENOMEM" },
	[RES_EAGAIN] = { EAGAIN, "EAGAIN" }, [RES_ENOSPC] = { ENOSPC, "ENOSPC" },
	[RES_EACCES] = { EACCES, "EACCES" }, [RES_EBADF] = { EBADF, "EBADF" },
	[RES_EFAULT] = { EFAULT, "EFAULT" }, [RES_ENOTTY] = { ENOTTY, "ENOTTY" },
	[RES_OTHER] = { -1, "other" },
};

#define M(r)	(1u << RES_##r)

#define OPS(X)								\
	X(mkdir, 40) X(config, 50) X(bad_value, 20) X(enable, 50)	\
	X(disable, 30) X(rmdir, 25) X(absent, 10) X(open, 50)		\
	X(mmap, 40) X(mmap_bad, 10) X(fill, 40) X(verify, 50)		\
	X(read_seq, 15) X(io_edges, 15) X(ioctl, 25) X(ioctl_bad, 10)	\
	X(close, 35) X(unmap, 25) X(fork_verify, 8) X(publish, 10)	\
	X(sibling_verify, 15) X(inspect, 15)				\
	X(attack_open, 35) X(attack_verify, 20) X(attack_rmdir, 20)	\
	X(attack_disable, 15) X(attack_sync_mode, 8) X(attack_sysfs, 20) \
	X(attack_sync, 10) X(stale_open, 10)				\
	X(pool_mkdir, 10) X(pool_config, 10) X(pool_enable, 10)		\
	X(pool_disable, 6) X(pool_rmdir, 6) X(pool_open, 10)		\
	X(rmmod, 5) X(release, 0) X(sentinel, 0) X(reload, 0)

#define OP_ENUM(n, w) OP_##n,
enum op { OPS(OP_ENUM) OP_NUM };
#undef OP_ENUM

#define OP_NAME(n, w) #n,
static const char *const op_names[OP_NUM] = { OPS(OP_NAME) };
#undef OP_NAME

#define OP_WEIGHT(n, w) w,
static const unsigned int op_weights[OP_NUM] = { OPS(OP_WEIGHT) };
#undef OP_WEIGHT

/* ------------------------------------------------------------------ */
/* state shared by all processes                                       */

enum mode { MODE_RUN, MODE_PARK, MODE_EXIT };
enum selftest { ST_NONE, ST_CORRUPT, ST_LEAK, ST_ERRNO };

struct shared {
	atomic_int mode;
	atomic_int gen;		/* bumped to let parked workers run again */
	atomic_int parked;
	atomic_int failed;
	atomic_ulong counts[OP_NUM][RES_NUM];
	atomic_ulong orphan_checks;	/* own data checked after a removal */
	atomic_ulong victim_checks;	/* others' data checked */
};

static struct shared *sh;

static struct {
	unsigned int seconds, procs, threads, slots;
	uint64_t seed;
	const char *prefix;
	const char *module;
	const char *tmpdir;
	enum selftest selftest;
	uint64_t page;
} cfg = {
	.seconds = 10, .procs = 2, .threads = 3, .slots = 3,
	.prefix = "stress", .tmpdir = "/tmp",
};

/* ------------------------------------------------------------------ */
/* per-worker state                                                    */

/* One allocation of a private buffer, as its owner knows it. */
struct instance {
	uint64_t size;		/* bytes, as configured */
	uint64_t alloc;		/* size in whole pages: what a mapping covers */
	uint32_t tag;		/* [0, size) holds this tag's pattern; 0: zeros */
	unsigned int refs;	/* handles, plus one while the slot's current */
};

enum skind { S_PRIVATE, S_PROBE };
enum pkind { P_PLAIN, P_MINOR, P_NAME };

struct slot {
	enum skind kind;
	unsigned int index;
	char name[48];		/* configfs directory */
	char dev[48];		/* device name */
	int minor;		/* minor written (-1: first free) */
	enum pkind probe;
	bool exists;		/* made by us and not removed by us */
	bool ready;		/* size, minor and device name written */
	bool enabled;		/* enabled by us, no sign of its end since */
	bool gone;		/* its device certainly does not exist */
	uint64_t size;		/* size written since mkdir, 0 if none */
	unsigned int mode;	/* permissions written */
	struct instance *cur;	/* private: the buffer while enabled */
};

enum hkind { H_OWN, H_ZERO, H_VICTIM };

struct handle {
	bool used;
	enum hkind kind;
	int fd;			/* -1 once closed while still mapped */
	bool writable;		/* opened O_RDWR */
	volatile uint8_t *map;
	uint64_t map_off, map_len;
	bool map_writable;
	int board;		/* published for sibling threads, or -1 */
	struct instance *inst;	/* H_OWN: the buffer */
	struct slot *slot;	/* H_OWN: whose buffer */
	uint64_t size;		/* bytes */
	unsigned int owner, oslot;	/* whose words are valid (H_OWN, H_VICTIM) */
};

/* What a range must hold. */
struct expect {
	bool exact;		/* every word is pattern_word(tag) (tag 0: 0) */
	uint32_t tag;
	unsigned int owner, slot;	/* else: 0 or a word of these */
};

struct worker {
	int id;			/* 0 .. procs * threads - 1 */
	int tidx;		/* thread index in its process */
	uint64_t rng;
	uint16_t seq;
	bool leak;		/* --selftest leak: keep slot 0 once */
	struct slot slots[MAX_SLOTS + 1];
	struct handle h[MAX_HANDLES];
	unsigned int major;
	char stale[128];	/* a device node made with mknod */
	int stale_minor;
	uint64_t chunk[CHUNK_WORDS];
};

/* Mappings one thread lets its sibling threads read. */
struct board_entry {
	pthread_rwlock_t lock;
	bool active;
	volatile uint8_t *map;
	uint64_t off, len;
	struct expect x;
};

static struct board_entry board[MAX_THREADS];

/* ------------------------------------------------------------------ */
/* small helpers                                                       */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(struct worker *w)
{
	w->rng += 0x9e3779b97f4a7c15ULL;
	return mix64(w->rng);
}

static unsigned int rnd_below(struct worker *w, unsigned int n)
{
	return (unsigned int)(rnd(w) % n);
}

static bool coin(struct worker *w, unsigned int percent)
{
	return rnd_below(w, 100) < percent;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static uint64_t page_round(uint64_t n)
{
	return (n + cfg.page - 1) & ~(cfg.page - 1);
}

/* One line, one write(2), so that lines of workers do not mix. */
static void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDOUT_FILENO, line, (size_t)n) < 0)
		return;
}

static void failf(struct worker *w, const char *fmt, ...)
{
	char msg[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (w)
		say("FAIL: worker %d: %s (seed %" PRIu64 ")", w->id, msg, cfg.seed);
	else
		say("FAIL: %s (seed %" PRIu64 ")", msg, cfg.seed);
	atomic_store(&sh->failed, 1);
}

static enum res res_of(int err)
{
	int r;

	for (r = 0; r < RES_OTHER; r++)
		if (results[r].err == err)
			return (enum res)r;
	return RES_OTHER;
}

static void mask_names(unsigned int mask, char *buf, size_t len)
{
	size_t used = 0;
	int r;

	buf[0] = '\0';
	for (r = 0; r < RES_OTHER && used < len; r++)
		if (mask & (1u << r))
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? "|" : "", results[r].name);
}

/*
 * Count the outcome of a call (0 or an errno) and fail the run unless it
 * is one of the acceptable ones in @ok.
 */
static bool expect(struct worker *w, enum op op, const char *what, int err,
		   unsigned int ok)
{
	enum res r = res_of(err);
	char want[160];

	atomic_fetch_add(&sh->counts[op][r], 1);
	if (ok & (1u << r))
		return true;
	mask_names(ok, want, sizeof(want));
	if (r == RES_OTHER)
		failf(w, "%s: %s: unexpected errno %d (%s), expected %s",
		      op_names[op], what, err, strerror(err), want);
	else
		failf(w, "%s: %s: unexpected %s, expected %s", op_names[op],
		      what, results[r].name, want);
	return false;
}

static bool running(void)
{
	return atomic_load(&sh->mode) == MODE_RUN && !atomic_load(&sh->failed);
}

/* ------------------------------------------------------------------ */
/* system calls, returning 0 or the errno                              */

static int do_mkdir(const char *path)
{
	return mkdir(path, 0755) ? errno : 0;
}

static int do_rmdir(const char *path)
{
	return rmdir(path) ? errno : 0;
}

/* One write(2) of @val; a short write is reported as EIO. */
static int write_attr(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = errno;
	else if ((size_t)n != strlen(val))
		err = EIO;
	close(fd);
	return err;
}

/* Read a small attribute into @buf (NUL-terminated); open and read errors. */
static int read_attr(const char *path, char *buf, size_t len, int *read_err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*read_err = 0;
	buf[0] = '\0';
	if (fd < 0)
		return errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		*read_err = errno;
	else
		buf[n] = '\0';
	close(fd);
	return 0;
}

static int delete_module(void)
{
	return syscall(SYS_delete_module, MODNAME, O_NONBLOCK) ? errno : 0;
}

static int load_module(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, "", 0))
		err = errno;
	close(fd);
	return err;
}

static int sync_ioctl(int fd, bool for_cpu, uint64_t off, uint64_t size,
		      uint32_t dir, uint32_t flags)
{
	struct udmabuf_cfs_sync s = {
		.offset = off, .size = size, .direction = dir, .flags = flags,
	};

	return ioctl(fd, for_cpu ? UDMABUF_CFS_IOC_SYNC_FOR_CPU :
			 UDMABUF_CFS_IOC_SYNC_FOR_DEVICE, &s) ? errno : 0;
}

static int get_info(int fd, struct udmabuf_cfs_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl(fd, UDMABUF_CFS_IOC_GET_INFO, info) ? errno : 0;
}

static void cfs_path(char *buf, size_t len, const char *item, const char *attr)
{
	if (attr)
		snprintf(buf, len, CFS "/%s/%s", item, attr);
	else
		snprintf(buf, len, CFS "/%s", item);
}

/* ------------------------------------------------------------------ */
/* the data                                                            */

#define TAG_MARK	0x80000000u

static uint32_t make_tag(unsigned int owner, unsigned int slot, uint16_t seq)
{
	return TAG_MARK | (owner & 0x7ff) << 20 | (slot & 0xf) << 16 | seq;
}

static uint64_t pattern_word(uint32_t tag, uint64_t idx)
{
	uint64_t hi = (uint64_t)tag << 32;

	return hi | (uint32_t)mix64(hi ^ idx ^ 0x9e3779b97f4a7c15ULL);
}

static bool word_ok(const struct expect *x, uint64_t idx, uint64_t v)
{
	uint32_t tag = (uint32_t)(v >> 32);

	if (x->exact)
		return v == (x->tag ? pattern_word(x->tag, idx) : 0);
	if (!v)
		return true;
	return (tag & TAG_MARK) && (tag >> 20 & 0x7ff) == x->owner &&
	       (tag >> 16 & 0xf) == x->slot && v == pattern_word(tag, idx);
}

static void describe_expect(const struct expect *x, uint64_t idx, char *buf,
			    size_t len)
{
	if (x->exact)
		snprintf(buf, len, "0x%016" PRIx64,
			 x->tag ? pattern_word(x->tag, idx) : 0);
	else
		snprintf(buf, len, "0 or a word of worker %u slot %u",
			 x->owner, x->slot);
}

static void fill_map(volatile uint8_t *map, uint64_t base, uint64_t len,
		     uint32_t tag)
{
	uint64_t o;

	for (o = 0; o + 8 <= len; o += 8)
		*(volatile uint64_t *)(map + o) = pattern_word(tag, (base + o) / 8);
}

/* Buffer offset of the first bad word of a mapped range, or -1. */
static int64_t map_first_bad(volatile const uint8_t *map, uint64_t base,
			     uint64_t from, uint64_t to,
			     const struct expect *x)
{
	uint64_t o;

	for (o = from; o + 8 <= to; o += 8)
		if (!word_ok(x, o / 8, *(volatile const uint64_t *)(map + o - base)))
			return (int64_t)o;
	return -1;
}

/* Where a range is read from: a mapping, or else the file. */
struct view {
	volatile const uint8_t *map;
	uint64_t base;		/* buffer offset of map[0] */
	int fd;
};

static int view_word(const struct view *v, uint64_t off, uint64_t *val)
{
	ssize_t r;

	if (v->map) {
		*val = *(volatile const uint64_t *)(v->map + off - v->base);
		return 0;
	}
	r = pread(v->fd, val, 8, (off_t)off);
	if (r == 8)
		return 0;
	return r < 0 ? errno : EIO;
}

/*
 * A word that breaks a "0 or a word of ..." rule may be one the owner is
 * rewriting through write(), seen half-copied: give it time to settle.
 */
static bool settles(const struct view *v, uint64_t off, const struct expect *x,
		    uint64_t *val)
{
	uint64_t end = now_ns() + SETTLE_NS;

	if (x->exact)
		return false;
	while (now_ns() < end) {
		sleep_ms(1);
		if (view_word(v, off, val))
			return false;
		if (word_ok(x, off / 8, *val))
			return true;
	}
	return false;
}

static bool report_bad(struct worker *w, enum op op, const char *what,
		       uint64_t off, uint64_t got, const struct expect *x)
{
	char want[96];

	describe_expect(x, off / 8, want, sizeof(want));
	failf(w, "%s: %s: MISMATCH at offset %" PRIu64 ": got 0x%016" PRIx64
	      ", want %s", op_names[op], what, off, got, want);
	return false;
}

/* Load up to CHUNK_WORDS words of [off, to) into w->chunk; return count. */
static int load_chunk(struct worker *w, enum op op, const char *what,
		      const struct view *v, uint64_t off, uint64_t to)
{
	uint64_t n = (to - off) / 8, i;
	ssize_t r;

	if (n > CHUNK_WORDS)
		n = CHUNK_WORDS;
	if (v->map) {
		for (i = 0; i < n; i++)
			w->chunk[i] = *(volatile const uint64_t *)
				(v->map + off + 8 * i - v->base);
		return (int)n;
	}
	r = pread(v->fd, w->chunk, n * 8, (off_t)off);
	if (r == (ssize_t)(n * 8))
		return (int)n;
	if (r < 0)
		expect(w, op, what, errno, M(OK));
	else
		failf(w, "%s: %s: short read at %" PRIu64 ": %zd of %" PRIu64,
		      op_names[op], what, off, r, n * 8);
	return -1;
}

/* Check [from, to) (multiples of 8) of a view; report the first bad word. */
static bool scan(struct worker *w, enum op op, const char *what,
		 const struct view *v, uint64_t from, uint64_t to,
		 const struct expect *x)
{
	uint64_t off, val;
	int n, i;

	for (off = from; off < to; off += 8 * (uint64_t)n) {
		n = load_chunk(w, op, what, v, off, to);
		if (n <= 0)
			return n == 0;
		for (i = 0; i < n; i++) {
			uint64_t at = off + 8 * (uint64_t)i;

			val = w->chunk[i];
			if (!word_ok(x, at / 8, val) && !settles(v, at, x, &val))
				return report_bad(w, op, what, at, val, x);
		}
	}
	return true;
}

/* Write the pattern of @tag to [0, size) through the file. */
static int fill_fd(struct worker *w, int fd, uint64_t size, uint32_t tag,
		   bool sequential)
{
	uint64_t off, i, n;
	ssize_t r;

	if (sequential && lseek(fd, 0, SEEK_SET) != 0)
		return errno ? errno : EIO;
	for (off = 0; off < size; off += n) {
		n = size - off;
		if (n > sizeof(w->chunk))
			n = sizeof(w->chunk);
		for (i = 0; i < n / 8; i++)
			w->chunk[i] = pattern_word(tag, off / 8 + i);
		if (sequential)
			r = write(fd, w->chunk, n);
		else
			r = pwrite(fd, w->chunk, n, (off_t)off);
		if (r < 0)
			return errno;
		if ((uint64_t)r != n)
			return EIO;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* instances, slots and handles                                        */

static struct instance *inst_new(uint64_t size)
{
	struct instance *in = calloc(1, sizeof(*in));

	if (!in) {
		say("FAIL: out of memory");
		exit(EXIT_FAILED);
	}
	in->size = size;
	in->alloc = page_round(size);
	in->refs = 1;
	return in;
}

static void inst_put(struct instance *in)
{
	if (in && !--in->refs)
		free(in);
}

/* The device of @s was disabled or removed; @certain: it is gone now. */
static void slot_down(struct slot *s, bool certain)
{
	if (certain)
		s->gone = true;
	else if (s->enabled)
		s->gone = false;
	s->enabled = false;
	inst_put(s->cur);
	s->cur = NULL;
}

/* The item of @s was removed. */
static void slot_lost(struct slot *s, bool certain)
{
	slot_down(s, certain);
	s->exists = false;
	s->ready = false;
	s->size = 0;
}

static bool holds_cur(struct worker *w, struct slot *s)
{
	int i;

	if (!s->cur)
		return false;
	for (i = 0; i < MAX_HANDLES; i++)
		if (w->h[i].used && w->h[i].inst == s->cur)
			return true;
	return false;
}

static struct handle *handle_new(struct worker *w)
{
	int i;

	for (i = 0; i < MAX_HANDLES; i++)
		if (!w->h[i].used) {
			memset(&w->h[i], 0, sizeof(w->h[i]));
			w->h[i].used = true;
			w->h[i].fd = -1;
			w->h[i].board = -1;
			return &w->h[i];
		}
	return NULL;
}

static int free_handles(struct worker *w)
{
	int i, n = 0;

	for (i = 0; i < MAX_HANDLES; i++)
		n += !w->h[i].used;
	return n;
}

/* A random used handle that satisfies @want, or NULL. */
static struct handle *pick_handle(struct worker *w,
				  bool (*want)(const struct handle *h))
{
	struct handle *c[MAX_HANDLES];
	int i, n = 0;

	for (i = 0; i < MAX_HANDLES; i++)
		if (w->h[i].used && want(&w->h[i]))
			c[n++] = &w->h[i];
	return n ? c[rnd_below(w, (unsigned int)n)] : NULL;
}

static bool h_has_fd(const struct handle *h) { return h->fd >= 0; }
static bool h_has_map(const struct handle *h) { return h->map; }
static bool h_fd_unmapped(const struct handle *h) { return h->fd >= 0 && !h->map; }
static bool h_own_writer(const struct handle *h)
{
	return h->kind == H_OWN && h->fd >= 0 && h->writable;
}
static bool h_checkable(const struct handle *h) { return h->kind != H_VICTIM; }
static bool h_own_fd(const struct handle *h)
{
	return h->kind != H_VICTIM && h->fd >= 0;
}
static bool h_victim(const struct handle *h) { return h->kind == H_VICTIM; }
static bool h_publishable(const struct handle *h)
{
	return h->map && h->kind != H_VICTIM && h->board < 0;
}
static bool h_forkable(const struct handle *h)
{
	return h->map && h->kind != H_VICTIM;
}

/* What the bytes of [0, size) of a handle's buffer must be. */
static void handle_expect(const struct handle *h, struct expect *x)
{
	memset(x, 0, sizeof(*x));
	x->owner = h->owner;
	x->slot = h->oslot;
	if (h->kind == H_OWN) {
		x->exact = true;
		x->tag = h->inst->tag;
	} else if (h->kind == H_ZERO) {
		x->exact = true;
	}
}

/* ... and beyond size, up to the page end (mappings only). */
static void tail_expect(const struct handle *h, struct expect *x)
{
	handle_expect(h, x);
	if (h->kind == H_OWN)
		x->exact = false;
}

static void board_publish(struct worker *w, struct handle *h)
{
	struct board_entry *b = &board[w->tidx];

	pthread_rwlock_wrlock(&b->lock);
	if (!b->active) {
		b->map = h->map;
		b->off = h->map_off;
		b->len = h->map_len;
		tail_expect(h, &b->x);
		b->active = true;
		h->board = w->tidx;
	}
	pthread_rwlock_unlock(&b->lock);
}

static void board_withdraw(struct handle *h)
{
	struct board_entry *b;

	if (h->board < 0)
		return;
	b = &board[h->board];
	pthread_rwlock_wrlock(&b->lock);
	b->active = false;
	pthread_rwlock_unlock(&b->lock);
	h->board = -1;
}

static void handle_unmap(struct worker *w, struct handle *h)
{
	board_withdraw(h);
	if (munmap((void *)h->map, h->map_len))
		expect(w, OP_unmap, "munmap", errno, M(OK));
	h->map = NULL;
}

static void handle_drop(struct handle *h)
{
	inst_put(h->inst);
	h->used = false;
}

/* Unmap and close everything of @h. */
static void handle_release(struct worker *w, struct handle *h)
{
	if (h->map)
		handle_unmap(w, h);
	if (h->fd >= 0 && close(h->fd))
		expect(w, OP_close, "close", errno, M(OK));
	h->fd = -1;
	handle_drop(h);
}

/* ------------------------------------------------------------------ */
/* checks through handles                                              */

/* Check what @h sees through its mapping (or, with @use_fd, its file). */
static bool handle_check(struct worker *w, enum op op, struct handle *h,
			 bool use_fd)
{
	struct view v = { .map = use_fd ? NULL : h->map, .base = h->map_off,
			  .fd = h->fd };
	struct expect x, tx;
	uint64_t from = 0, to = h->size, end;
	char what[96];

	handle_expect(h, &x);
	tail_expect(h, &tx);
	snprintf(what, sizeof(what), "%s of a %s buffer of %" PRIu64 " bytes",
		 v.map ? "mapping" : "read()", h->kind == H_OWN ? "own" :
		 h->kind == H_ZERO ? "never written" : "victim's", h->size);
	if (v.map) {
		from = h->map_off;
		end = h->map_off + h->map_len;
		to = end < h->size ? end : h->size;
		if (from < to && !scan(w, op, what, &v, from, to, &x))
			return false;
		from = from > h->size ? from : h->size;
		return from >= end || scan(w, op, what, &v, from, end, &tx);
	}
	return scan(w, op, what, &v, from, to, &x);
}

static void count_check(struct worker *w, const struct handle *h)
{
	if (h->kind == H_VICTIM)
		atomic_fetch_add(&sh->victim_checks, 1);
	else if (h->kind == H_OWN && h->inst != h->slot->cur)
		atomic_fetch_add(&sh->orphan_checks, 1);
	(void)w;
}

/*
 * GET_INFO of a freshly opened file: the ABI, the minor of the node, and
 * where known the size and minor of the buffer.  Returns its size.
 */
static bool check_info(struct worker *w, enum op op, int fd, uint64_t size,
		       int want_minor, uint64_t *size_out)
{
	struct udmabuf_cfs_info info;
	struct stat st;

	if (!expect(w, op, "GET_INFO", get_info(fd, &info), M(OK)))
		return false;
	if (fstat(fd, &st)) {
		failf(w, "%s: fstat: %s", op_names[op], strerror(errno));
		return false;
	}
	if (info.abi_version != UDMABUF_CFS_ABI_VERSION ||
	    info.minor != minor(st.st_rdev) ||
	    (want_minor >= 0 && info.minor != (unsigned int)want_minor) ||
	    (size && info.size != size) || !info.size ||
	    info.size > MAX_SIZE || info.sync_mode > 7) {
		failf(w, "%s: GET_INFO says abi %u, minor %u (node %u, want %d), size %llu (want %" PRIu64 "), sync_mode %u",
		      op_names[op], info.abi_version, info.minor,
		      minor(st.st_rdev), want_minor, (unsigned long long)info.size,
		      size, info.sync_mode);
		return false;
	}
	*size_out = info.size;
	return true;
}

/* ------------------------------------------------------------------ */
/* naming                                                              */

static void private_names(struct slot *s, int worker, unsigned int i)
{
	s->kind = S_PRIVATE;
	s->index = i;
	snprintf(s->name, sizeof(s->name), "%s-w%d-%u", cfg.prefix, worker, i);
	snprintf(s->dev, sizeof(s->dev), "%s", s->name);
	s->minor = MINOR_PRIVATE + 16 * worker + (int)i;
}

static int private_minor(int worker, unsigned int slot)
{
	return MINOR_PRIVATE + 16 * worker + (int)slot;
}

static void contended_name(char *buf, size_t len, unsigned int k)
{
	snprintf(buf, len, "%s-c%u", cfg.prefix, k);
}

static void pool_name(char *buf, size_t len, unsigned int k)
{
	snprintf(buf, len, "%s-pool%u", cfg.prefix, k);
}

static void dev_path(char *buf, size_t len, const char *dev)
{
	snprintf(buf, len, "/dev/%s", dev);
}

/* ------------------------------------------------------------------ */
/* own items                                                           */

static struct slot *pick_slot(struct worker *w, bool probes)
{
	return &w->slots[rnd_below(w, cfg.slots + probes)];
}

static uint64_t private_size(struct worker *w)
{
	static const uint64_t sizes[] = { 4096, 16384, 65536, 262144 };
	unsigned int r = rnd_below(w, 10);

	if (r < 3)	/* not a whole number of pages */
		return 4096 + 8 * (1 + rnd_below(w, 1000));
	if (r == 9)
		return MAX_SIZE;
	return sizes[rnd_below(w, 4)];
}

static uint64_t small_size(struct worker *w)
{
	static const uint64_t sizes[] = { 4096, 8192, 65536 };

	return sizes[rnd_below(w, 3)];
}

/* Write one attribute of an own item; false if the item is gone or bad. */
static bool slot_write(struct worker *w, enum op op, struct slot *s,
		       const char *attr, const char *val, unsigned int ok)
{
	char path[160], what[200];
	int err;

	cfs_path(path, sizeof(path), s->name, attr);
	snprintf(what, sizeof(what), "%s=%s", path, val);
	err = write_attr(path, val);
	if (!expect(w, op, what, err, ok))
		return false;
	if (err == ENOENT)
		slot_lost(s, false);
	return !err;
}

/* Choose the clash a probe is set up for. */
static void probe_setup_names(struct worker *w, struct slot *s)
{
	s->probe = (enum pkind)rnd_below(w, 3);
	snprintf(s->dev, sizeof(s->dev), "%s", s->name);
	s->minor = -1;
	if (s->probe == P_MINOR)
		s->minor = MINOR_CONTENDED + (int)rnd_below(w, CONTENDED);
	else if (s->probe == P_NAME)
		contended_name(s->dev, sizeof(s->dev), rnd_below(w, CONTENDED));
}

/* Size, minor, device name (and sometimes mode) right after mkdir. */
static void slot_setup(struct worker *w, struct slot *s)
{
	char val[64];
	uint64_t size;

	if (s->kind == S_PROBE)
		probe_setup_names(w, s);
	if (!coin(w, 5)) {	/* else: enable must say EINVAL */
		size = s->kind == S_PROBE ? small_size(w) : private_size(w);
		snprintf(val, sizeof(val), "%" PRIu64, size);
		if (!slot_write(w, OP_mkdir, s, "size", val, M(OK) | M(ENOENT)))
			return;
		s->size = size;
	}
	snprintf(val, sizeof(val), "%d", s->minor);
	if (!slot_write(w, OP_mkdir, s, "minor", val, M(OK) | M(ENOENT)))
		return;
	if (coin(w, 50) || strcmp(s->dev, s->name)) {
		snprintf(val, sizeof(val), "%s\n", s->dev);
		if (!slot_write(w, OP_mkdir, s, "device_name", val,
				M(OK) | M(ENOENT)))
			return;
	}
	s->mode = 0600;
	if (coin(w, 30)) {
		s->mode = coin(w, 50) ? 0640 : 0666;
		snprintf(val, sizeof(val), "%o", s->mode);
		if (!slot_write(w, OP_mkdir, s, "mode", val, M(OK) | M(ENOENT)))
			return;
	}
	s->ready = true;
}

static void slot_mkdir(struct worker *w, struct slot *s)
{
	char path[160];
	int err;

	cfs_path(path, sizeof(path), s->name, NULL);
	err = do_mkdir(path);
	if (!expect(w, OP_mkdir, path, err,
		    s->exists ? M(OK) | M(EEXIST) : M(OK)))
		return;
	if (err)
		return;
	/* Removed by another worker; its rmdir has finished. */
	slot_lost(s, true);
	s->exists = true;
	slot_setup(w, s);
}

static void op_mkdir(struct worker *w)
{
	slot_mkdir(w, pick_slot(w, true));
}

/* A configuration write; enabled items refuse it unless someone disabled. */
static void op_config(struct worker *w)
{
	static const char *const attrs[] = {
		"size", "minor", "device_name", "dma_mask", "mode", "sync_mode",
	};
	struct slot *s = pick_slot(w, true);
	unsigned int a = rnd_below(w, 6), ok = M(OK) | M(ENOENT);
	char val[64];
	uint64_t size = 0;

	if (!s->ready)
		return;
	switch (a) {
	case 0:
		size = s->kind == S_PROBE ? small_size(w) : private_size(w);
		snprintf(val, sizeof(val), "%" PRIu64, size);
		break;
	case 1:
		snprintf(val, sizeof(val), "%d", s->minor);
		break;
	case 2:
		snprintf(val, sizeof(val), "%s", s->dev);
		break;
	case 3:
		snprintf(val, sizeof(val), "%s", coin(w, 50) ? "32" : "64");
		break;
	case 4:
		snprintf(val, sizeof(val), "%o", s->mode);
		break;
	default:
		snprintf(val, sizeof(val), "%u", rnd_below(w, 8));
		break;
	}
	if (a != 5 && s->enabled)
		ok |= M(EBUSY);
	if (!slot_write(w, OP_config, s, attrs[a], val, ok))
		return;
	if (a != 5 && s->enabled)	/* another worker disabled it */
		slot_down(s, true);
	if (size)
		s->size = size;
}

static const struct {
	const char *attr, *val;
	enum res res;
} bad_values[] = {
	{ "size", "4Q", RES_EINVAL },
	{ "size", "\n", RES_EINVAL },
	{ "size", "18446744073709551616", RES_ERANGE },
	{ "size", "16777216T", RES_ERANGE },
	{ "minor", "-2", RES_ERANGE },
	{ "minor", "x", RES_EINVAL },
	{ "minor", "1048576", RES_ERANGE },
	{ "dma_mask", "11", RES_ERANGE },
	{ "dma_mask", "65", RES_ERANGE },
	{ "sync_mode", "8", RES_ERANGE },
	{ "sync_mode", "-1", RES_EINVAL },
	{ "mode", "1000", RES_ERANGE },
	{ "mode", "9", RES_EINVAL },
	{ "device_name", "a/b", RES_EINVAL },
	{ "device_name", "..", RES_EINVAL },
	{ "device_name", "0123456789abcdef0123456789abcdef0", RES_EINVAL },
	{ "enable", "maybe", RES_EINVAL },
	{ "phys_addr", "0x1001", RES_EINVAL },
	{ "phys_addr", "0x12g", RES_EINVAL },
	{ "dev", "1:2", RES_EACCES },
};

static void op_bad_value(struct worker *w)
{
	struct slot *s = pick_slot(w, true);
	unsigned int i = rnd_below(w, sizeof(bad_values) / sizeof(bad_values[0]));

	if (!s->exists)
		return;
	/* The value is checked before the state: the same errno enabled or not. */
	slot_write(w, OP_bad_value, s, bad_values[i].attr, bad_values[i].val,
		   1u << bad_values[i].res | M(ENOENT));
}

static void slot_enable(struct worker *w, struct slot *s)
{
	unsigned int ok = M(OK) | M(ENOENT) | M(ENOMEM);

	if (!s->ready)
		return;
	if (s->enabled) {
		/* Idempotent; only safe to ask while we hold it open. */
		if (s->kind == S_PRIVATE && holds_cur(w, s))
			slot_write(w, OP_enable, s, "enable", "1",
				   M(OK) | M(ENOENT));
		return;
	}
	if (!s->size)
		ok = M(EINVAL) | M(ENOENT);
	else if (s->kind == S_PROBE && s->probe == P_MINOR)
		ok |= M(EBUSY);
	else if (s->kind == S_PROBE && s->probe == P_NAME)
		ok |= M(EEXIST);
	if (!slot_write(w, OP_enable, s, "enable", "1", ok))
		return;
	s->enabled = true;
	s->gone = false;
	if (s->kind == S_PRIVATE)
		s->cur = inst_new(s->size);
}

static void op_enable(struct worker *w)
{
	slot_enable(w, pick_slot(w, true));
}

static void op_disable(struct worker *w)
{
	struct slot *s = pick_slot(w, true);
	unsigned int ok = M(OK) | M(EBUSY) | M(ENOENT);

	if (!s->exists)
		return;
	if (!s->enabled)	/* only its owner enables it */
		ok = M(OK) | M(ENOENT);
	else if (s->kind == S_PRIVATE && holds_cur(w, s))
		ok &= ~M(OK);
	if (slot_write(w, OP_disable, s, "enable", coin(w, 50) ? "0" : "n\n", ok))
		slot_down(s, true);
}

static void op_rmdir(struct worker *w)
{
	struct slot *s = pick_slot(w, true);
	char path[160];

	if (!s->exists)
		return;
	cfs_path(path, sizeof(path), s->name, NULL);
	/* ENOENT: another worker's rmdir, which has finished. */
	if (expect(w, OP_rmdir, path, do_rmdir(path), M(OK) | M(ENOENT)))
		slot_lost(s, true);
}

/* What is certainly gone answers ENOENT, and nothing else. */
static void op_absent(struct worker *w)
{
	struct slot *s = pick_slot(w, true);
	char path[160];
	struct stat st;

	if (s->exists)
		return;
	cfs_path(path, sizeof(path), s->name, NULL);
	switch (rnd_below(w, 3)) {
	case 0:
		expect(w, OP_absent, path, do_rmdir(path), M(ENOENT));
		break;
	case 1:
		cfs_path(path, sizeof(path), s->name, "size");
		expect(w, OP_absent, path, write_attr(path, "4096"), M(ENOENT));
		break;
	default:
		if (!s->gone || (s->kind == S_PROBE && s->probe == P_NAME))
			return;
		snprintf(path, sizeof(path), CLASS "/%s", s->dev);
		expect(w, OP_absent, path, stat(path, &st) ? errno : 0,
		       M(ENOENT));
		break;
	}
}

/* The node of a probe with a contended name may be anyone's. */
static bool slot_dev_is_ours(const struct slot *s)
{
	return !(s->kind == S_PROBE && s->probe == P_NAME);
}

static struct handle *slot_open(struct worker *w, struct slot *s, bool rdwr)
{
	bool own = s->kind == S_PRIVATE;
	unsigned int ok = M(OK) | M(ENOENT) | M(ENODEV);
	char path[96];
	struct handle *h;
	uint64_t size;
	int fd, err;

	if (!free_handles(w))
		return NULL;
	if (!s->enabled && slot_dev_is_ours(s))
		ok = s->gone ? M(ENOENT) : M(ENOENT) | M(ENODEV);
	dev_path(path, sizeof(path), s->dev);
	fd = open(path, (rdwr ? O_RDWR : O_RDONLY) | O_CLOEXEC |
		  (coin(w, 30) ? O_SYNC : 0));
	err = fd < 0 ? errno : 0;
	if (!expect(w, OP_open, path, err, ok))
		return NULL;
	if (err) {
		slot_down(s, false);
		return NULL;
	}
	h = handle_new(w);
	h->fd = fd;
	h->writable = rdwr;
	h->kind = H_ZERO;
	if (own) {
		h->kind = H_OWN;
		h->inst = s->cur;
		h->inst->refs++;
		h->slot = s;
		h->owner = (unsigned int)w->id;
		h->oslot = s->index;
	}
	if (!check_info(w, OP_open, fd, own ? s->cur->size : 0,
			own ? s->minor : -1, &size)) {
		handle_release(w, h);
		return NULL;
	}
	h->size = size;
	return h;
}

static void op_open(struct worker *w)
{
	slot_open(w, pick_slot(w, true), coin(w, 70));
}

/* Map all of a handle's buffer, or a random part of it; then check it. */
static void handle_map(struct worker *w, struct handle *h, bool whole)
{
	uint64_t alloc, pages, off, len;
	bool rw;
	void *p;

	alloc = page_round(h->size);
	pages = alloc / cfg.page;
	off = 0;
	len = alloc;
	if (!whole) {
		off = rnd_below(w, (unsigned int)pages) * cfg.page;
		len = (1 + rnd_below(w, (unsigned int)((alloc - off) / cfg.page))) *
		      cfg.page;
	}
	rw = h->writable && h->kind == H_OWN;
	p = mmap(NULL, len, PROT_READ | (rw ? PROT_WRITE : 0), MAP_SHARED,
		 h->fd, (off_t)off);
	if (!expect(w, OP_mmap, "mmap", p == MAP_FAILED ? errno : 0, M(OK)))
		return;
	h->map = p;
	h->map_off = off;
	h->map_len = len;
	h->map_writable = rw;
	if (handle_check(w, OP_mmap, h, false))
		count_check(w, h);
}

static void op_mmap(struct worker *w)
{
	struct handle *h = pick_handle(w, h_fd_unmapped);

	if (h)
		handle_map(w, h, coin(w, 60));
}

static void op_mmap_bad(struct worker *w)
{
	struct handle *h = pick_handle(w, h_has_fd);
	uint64_t alloc;
	int flags = MAP_SHARED, prot = PROT_READ;
	off_t off = 0;
	size_t len;
	enum res want = RES_EINVAL;
	void *p;

	if (!h)
		return;
	alloc = page_round(h->size);
	len = alloc;
	switch (rnd_below(w, 4)) {
	case 0:
		flags = MAP_PRIVATE;
		break;
	case 1:
		off = (off_t)alloc;
		len = cfg.page;
		break;
	case 2:
		len = alloc + cfg.page;
		break;
	default:
		if (h->writable)
			return;
		prot |= PROT_WRITE;
		want = RES_EACCES;
		break;
	}
	p = mmap(NULL, len, prot, flags, h->fd, off);
	if (p != MAP_FAILED)
		munmap(p, len);
	expect(w, OP_mmap_bad, "mmap of a bad range or mode",
	       p == MAP_FAILED ? errno : 0, 1u << want);
}

static bool sync_both(struct worker *w, enum op op, int fd)
{
	return expect(w, op, "SYNC_FOR_DEVICE", sync_ioctl(fd, false, 0, 0,
			UDMABUF_CFS_DIR_BIDIRECTIONAL, 0), M(OK)) &&
	       expect(w, op, "SYNC_FOR_CPU", sync_ioctl(fd, true, 0, 0,
			UDMABUF_CFS_DIR_BIDIRECTIONAL, 0), M(OK));
}

/* Write a new pattern through a handle, and hand it to the device and back. */
static bool handle_fill(struct worker *w, struct handle *h)
{
	struct instance *in = h->inst;
	uint32_t tag = make_tag((unsigned int)w->id, h->oslot, ++w->seq);

	if (h->map && h->map_writable && h->map_off == 0 &&
	    h->map_len >= in->alloc && coin(w, 60)) {
		fill_map(h->map, 0, in->alloc, tag);
	} else if (!expect(w, OP_fill, "write of the pattern",
			   fill_fd(w, h->fd, in->size, tag, coin(w, 50)), M(OK))) {
		return false;
	}
	if (!sync_both(w, OP_fill, h->fd))
		return false;
	in->tag = tag;
	return true;
}

static void op_fill(struct worker *w)
{
	struct handle *h = pick_handle(w, h_own_writer);

	if (h)
		handle_fill(w, h);
}

static void op_verify(struct worker *w)
{
	struct handle *h = pick_handle(w, h_checkable);

	if (!h)
		return;
	if (handle_check(w, OP_verify, h, !h->map || (h->fd >= 0 && coin(w, 30))))
		count_check(w, h);
}

/* read() from offset 0 in random pieces up to end of file. */
static void op_read_seq(struct worker *w)
{
	struct handle *h = pick_handle(w, h_own_fd);
	struct expect x;
	uint64_t off = 0, i;
	ssize_t r;
	size_t n;

	if (!h)
		return;
	handle_expect(h, &x);
	if (!expect(w, OP_read_seq, "lseek to 0",
		    lseek(h->fd, 0, SEEK_SET) ? errno ? errno : EIO : 0, M(OK)))
		return;
	for (;;) {
		n = 8 * (1 + rnd_below(w, CHUNK_WORDS));
		r = read(h->fd, w->chunk, n);
		if (!expect(w, OP_read_seq, "read", r < 0 ? errno : 0, M(OK)))
			return;
		if (!r)
			break;
		if (r % 8 || off + (uint64_t)r > h->size) {
			failf(w, "read_seq: read %zd bytes at %" PRIu64 " of %" PRIu64,
			      r, off, h->size);
			return;
		}
		for (i = 0; i < (uint64_t)r / 8; i++)
			if (!word_ok(&x, off / 8 + i, w->chunk[i])) {
				report_bad(w, OP_read_seq, "read()", off + 8 * i,
					   w->chunk[i], &x);
				return;
			}
		off += (uint64_t)r;
	}
	if (off != h->size)
		failf(w, "read_seq: end of file after %" PRIu64 " of %" PRIu64
		      " bytes", off, h->size);
}

/* The edges of a file of fixed size: EOF, ENOSPC, lseek limits. */
static void op_io_edges(struct worker *w)
{
	struct handle *h = pick_handle(w, h_has_fd);
	uint64_t word = 0;
	off_t pos;
	ssize_t r;

	if (!h)
		return;
	r = pread(h->fd, &word, 8, (off_t)h->size);
	if (expect(w, OP_io_edges, "pread at the end", r < 0 ? errno : 0, M(OK)) &&
	    r != 0)
		failf(w, "io_edges: pread at the end returned %zd", r);
	r = pwrite(h->fd, &word, 8, (off_t)h->size);
	expect(w, OP_io_edges, "pwrite at the end", r < 0 ? errno : 0,
	       h->writable ? M(ENOSPC) : M(EBADF));
	pos = lseek(h->fd, (off_t)h->size + 8, SEEK_SET);
	expect(w, OP_io_edges, "lseek past the end", pos < 0 ? errno : 0,
	       M(EINVAL));
	pos = lseek(h->fd, 0, SEEK_END);
	if (expect(w, OP_io_edges, "lseek to the end", pos < 0 ? errno : 0,
		   M(OK)) && (uint64_t)pos != h->size)
		failf(w, "io_edges: SEEK_END gave %lld, size %" PRIu64,
		      (long long)pos, h->size);
}

static void op_ioctl(struct worker *w)
{
	struct handle *h = pick_handle(w, h_has_fd);
	uint64_t size, off, len;
	uint32_t dir;

	if (!h)
		return;
	if (!check_info(w, OP_ioctl, h->fd, h->size, -1, &size))
		return;
	off = rnd(w) % h->size;
	len = coin(w, 30) ? 0 : 1 + rnd(w) % (h->size - off);
	dir = rnd_below(w, 3);
	expect(w, OP_ioctl, "SYNC_FOR_DEVICE",
	       sync_ioctl(h->fd, false, off, len, dir, 0), M(OK));
	/* Giving the CPU a range back may discard what others cached. */
	if (h->kind != H_OWN)
		dir = UDMABUF_CFS_DIR_TO_DEVICE;
	expect(w, OP_ioctl, "SYNC_FOR_CPU",
	       sync_ioctl(h->fd, true, off, len, dir, 0), M(OK));
}

static void op_ioctl_bad(struct worker *w)
{
	struct handle *h = pick_handle(w, h_has_fd);
	bool cpu;
	int err;

	if (!h)
		return;
	cpu = coin(w, 50);
	switch (rnd_below(w, 7)) {
	case 0:
		err = ioctl(h->fd, _IOR(UDMABUF_CFS_IOC_MAGIC, 0x7f,
					struct udmabuf_cfs_info), NULL) ? errno : 0;
		expect(w, OP_ioctl_bad, "unknown ioctl", err, M(ENOTTY));
		return;
	case 1:
		err = ioctl(h->fd, UDMABUF_CFS_IOC_GET_INFO, (void *)8) ? errno : 0;
		expect(w, OP_ioctl_bad, "GET_INFO to a bad address", err, M(EFAULT));
		return;
	case 2:
		err = sync_ioctl(h->fd, cpu, 0, 0, 0, 1);
		break;
	case 3:
		err = sync_ioctl(h->fd, cpu, 0, 0, 3, 0);
		break;
	case 4:
		err = sync_ioctl(h->fd, cpu, h->size, 0, 0, 0);
		break;
	case 5:
		err = sync_ioctl(h->fd, cpu, 8, h->size, 0, 0);
		break;
	default:
		err = sync_ioctl(h->fd, cpu, 1ULL << 63, 8, 0, 0);
		break;
	}
	expect(w, OP_ioctl_bad, "sync with a bad range, direction or flags",
	       err, M(EINVAL));
}

static void op_close(struct worker *w)
{
	struct handle *h = pick_handle(w, h_has_fd);

	if (!h)
		return;
	if (h->map && coin(w, 50)) {	/* the mapping keeps the file */
		expect(w, OP_close, "close", close(h->fd) ? errno : 0, M(OK));
		h->fd = -1;
		return;
	}
	handle_release(w, h);
}

static void op_unmap(struct worker *w)
{
	struct handle *h = pick_handle(w, h_has_map);

	if (!h)
		return;
	handle_unmap(w, h);
	if (h->fd < 0)
		handle_drop(h);
}

/* A child checks the mapping it inherited, then exits (and drops it). */
static void op_fork_verify(struct worker *w)
{
	struct handle *h = pick_handle(w, h_forkable);
	struct expect x, tx;
	uint64_t end, to;
	int status;
	pid_t pid;

	if (!h)
		return;
	handle_expect(h, &x);
	tail_expect(h, &tx);
	end = h->map_off + h->map_len;
	to = end < h->size ? end : h->size;
	pid = fork();
	if (pid == 0) {
		if (map_first_bad(h->map, h->map_off, h->map_off, to, &x) >= 0 ||
		    map_first_bad(h->map, h->map_off, to > h->map_off ? to :
				  h->map_off, end, &tx) >= 0)
			_exit(2);
		_exit(0);
	}
	if (!expect(w, OP_fork_verify, "fork", pid < 0 ? errno : 0, M(OK)))
		return;
	if (waitpid(pid, &status, 0) != pid) {
		failf(w, "fork_verify: waitpid: %s", strerror(errno));
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		failf(w, "fork_verify: the child found other data in the inherited mapping (status 0x%x)",
		      status);
}

static void op_publish(struct worker *w)
{
	struct handle *h = pick_handle(w, h_publishable);

	if (h)
		board_publish(w, h);
}

/* Check a mapping a sibling thread published, while it goes on working. */
static void op_sibling_verify(struct worker *w)
{
	struct board_entry *b;
	struct view v;
	int t;

	if (cfg.threads < 2)
		return;
	t = (int)rnd_below(w, cfg.threads - 1);
	b = &board[t >= w->tidx ? t + 1 : t];
	pthread_rwlock_rdlock(&b->lock);
	if (b->active) {
		v.map = b->map;
		v.base = b->off;
		v.fd = -1;
		scan(w, OP_sibling_verify, "a sibling's mapping", &v, b->off,
		     b->off + b->len, &b->x);
	}
	pthread_rwlock_unlock(&b->lock);
}

/* /dev node, configfs dev and the class device tell the same story. */
static void op_inspect(struct worker *w)
{
	struct slot *s = pick_slot(w, false);
	char path[160], val[64];
	unsigned int maj, min;
	struct stat st;
	int err, rerr;

	if (!s->enabled)
		return;
	dev_path(path, sizeof(path), s->dev);
	err = stat(path, &st) ? errno : 0;
	/*
	 * Other workers disable and remove this buffer at any time.  devtmpfs
	 * removes a node in two steps: it first takes every permission away
	 * (so that hard links to it lose access), then unlinks it; a node seen
	 * in between has permissions 0000.
	 */
	if (!err && S_ISCHR(st.st_mode) && (int)minor(st.st_rdev) == s->minor &&
	    !(st.st_mode & 0777))
		return;
	if (expect(w, OP_inspect, path, err, M(OK) | M(ENOENT)) && !err &&
	    (!S_ISCHR(st.st_mode) || (int)minor(st.st_rdev) != s->minor ||
	     (st.st_mode & 07777) != s->mode))
		failf(w, "inspect: %s is mode %o, minor %u; want a char device, mode %o, minor %d",
		      path, st.st_mode, minor(st.st_rdev), s->mode, s->minor);
	cfs_path(path, sizeof(path), s->name, "dev");
	err = read_attr(path, val, sizeof(val), &rerr);
	if (!expect(w, OP_inspect, path, err ? err : rerr, M(OK) | M(ENOENT)) ||
	    err || !val[0])
		return;
	if (sscanf(val, "%u:%u", &maj, &min) != 2 || (int)min != s->minor)
		failf(w, "inspect: %s reads \"%s\", want minor %d", path, val,
		      s->minor);
}

/* ------------------------------------------------------------------ */
/* attacks on other workers' buffers                                   */

struct victim {
	unsigned int owner, slot;
	char name[48];
	int minor;
};

static bool pick_victim(struct worker *w, struct victim *v)
{
	unsigned int n = cfg.procs * cfg.threads;

	if (n < 2)
		return false;
	v->owner = rnd_below(w, n - 1);
	if (v->owner >= (unsigned int)w->id)
		v->owner++;
	v->slot = rnd_below(w, cfg.slots);
	snprintf(v->name, sizeof(v->name), "%s-w%u-%u", cfg.prefix, v->owner,
		 v->slot);
	v->minor = private_minor((int)v->owner, v->slot);
	return true;
}

/* Check the first 64 KiB of a victim's buffer through the file. */
static void peek_victim(struct worker *w, enum op op, int fd, uint64_t size,
			const struct victim *v, const char *what)
{
	struct view view = { .map = NULL, .fd = fd };
	struct expect x = { .exact = false, .owner = v->owner, .slot = v->slot };

	if (scan(w, op, what, &view, 0, size < 65536 ? size : 65536, &x))
		atomic_fetch_add(&sh->victim_checks, 1);
}

static void op_attack_open(struct worker *w)
{
	struct victim v;
	struct handle *h;
	char path[96];
	uint64_t size;
	int fd, err;

	if (!pick_victim(w, &v))
		return;
	dev_path(path, sizeof(path), v.name);
	fd = open(path, O_RDONLY | O_CLOEXEC | (coin(w, 30) ? O_SYNC : 0));
	err = fd < 0 ? errno : 0;
	if (!expect(w, OP_attack_open, path, err, M(OK) | M(ENOENT) | M(ENODEV)) ||
	    err)
		return;
	if (!check_info(w, OP_attack_open, fd, 0, v.minor, &size)) {
		close(fd);
		return;
	}
	h = coin(w, 60) ? handle_new(w) : NULL;
	if (!h) {
		peek_victim(w, OP_attack_open, fd, size, &v, path);
		close(fd);
		return;
	}
	h->kind = H_VICTIM;
	h->fd = fd;
	h->size = size;
	h->owner = v.owner;
	h->oslot = v.slot;
}

static void op_attack_verify(struct worker *w)
{
	struct handle *h = pick_handle(w, h_victim);
	void *p;

	if (!h)
		return;
	if (!h->map && h->fd >= 0 && coin(w, 50)) {
		p = mmap(NULL, page_round(h->size), PROT_READ, MAP_SHARED, h->fd, 0);
		if (!expect(w, OP_attack_verify, "mmap", p == MAP_FAILED ? errno : 0,
			    M(OK)))
			return;
		h->map = p;
		h->map_off = 0;
		h->map_len = page_round(h->size);
	}
	if (handle_check(w, OP_attack_verify, h, h->fd >= 0 && coin(w, 30)))
		count_check(w, h);
}

static void op_attack_rmdir(struct worker *w)
{
	struct victim v;
	char path[160];

	if (!pick_victim(w, &v))
		return;
	cfs_path(path, sizeof(path), v.name, NULL);
	expect(w, OP_attack_rmdir, path, do_rmdir(path), M(OK) | M(ENOENT));
}

static void op_attack_disable(struct worker *w)
{
	struct victim v;
	char path[160];

	if (!pick_victim(w, &v))
		return;
	cfs_path(path, sizeof(path), v.name, "enable");
	expect(w, OP_attack_disable, path, write_attr(path, "0"),
	       M(OK) | M(EBUSY) | M(ENOENT));
}

static void op_attack_sync_mode(struct worker *w)
{
	struct victim v;
	char path[160], val[8];

	if (!pick_victim(w, &v))
		return;
	snprintf(val, sizeof(val), "%u", rnd_below(w, 8));
	if (coin(w, 50)) {
		cfs_path(path, sizeof(path), v.name, "sync_mode");
		expect(w, OP_attack_sync_mode, path, write_attr(path, val),
		       M(OK) | M(ENOENT));
	} else {
		snprintf(path, sizeof(path), CLASS "/%s/sync_mode", v.name);
		expect(w, OP_attack_sync_mode, path, write_attr(path, val),
		       M(OK) | M(ENOENT) | M(ENODEV));
	}
}

/* An attribute of the class device, checked for its format. */
static bool sysfs_value_ok(const char *attr, const char *val)
{
	unsigned long long n;
	char extra;

	if (!strcmp(attr, "origin"))
		return !strcmp(val, "configfs\n");
	if (!strcmp(attr, "phys_addr"))
		return strlen(val) == 19 && !strncmp(val, "0x", 2);
	if (!strcmp(attr, "cache_mode"))
		return !strcmp(val, "cached\n") || !strcmp(val, "uncached\n") ||
		       !strcmp(val, "write-combine\n") ||
		       !strcmp(val, "dma-coherent\n");
	if (sscanf(val, "%llu%c", &n, &extra) != 2 || extra != '\n')
		return false;
	if (!strcmp(attr, "size"))
		return n && n <= MAX_SIZE;
	if (!strcmp(attr, "dma_coherent") || !strcmp(attr, "sync_owner"))
		return n <= 1;
	return true;
}

static void op_attack_sysfs(struct worker *w)
{
	static const char *const attrs[] = {
		"size", "phys_addr", "sync_mode", "dma_coherent", "origin",
		"users", "cache_mode", "sync_offset", "sync_size", "sync_owner",
	};
	const char *attr = attrs[rnd_below(w, 10)];
	struct victim v;
	char path[160], val[128];
	int err, rerr;

	if (!pick_victim(w, &v))
		return;
	snprintf(path, sizeof(path), CLASS "/%s/%s", v.name, attr);
	err = read_attr(path, val, sizeof(val), &rerr);
	if (!expect(w, OP_attack_sysfs, path, err, M(OK) | M(ENOENT) | M(ENODEV)) ||
	    err)
		return;
	if (expect(w, OP_attack_sysfs, path, rerr, M(OK) | M(ENODEV)) && !rerr &&
	    !sysfs_value_ok(attr, val))
		failf(w, "attack_sysfs: %s reads \"%s\"", path, val);
}

/* Cache maintenance triggers that never discard data, and bad ones. */
static void op_attack_sync(struct worker *w)
{
	static const struct {
		const char *attr, *val;
		bool bad;
	} writes[] = {
		{ "sync_for_device", "1", false },
		{ "sync_for_device", "0 0 0", false },
		{ "sync_for_device", "0 4096 1\n", false },
		{ "sync_for_cpu", "0 0 1", false },
		{ "sync_for_device", "1T 4096 0", true },
		{ "sync_for_cpu", "0 0 3", true },
		{ "sync_for_device", "x", true },
	};
	unsigned int i = rnd_below(w, sizeof(writes) / sizeof(writes[0]));
	struct victim v;
	char path[160];

	if (!pick_victim(w, &v))
		return;
	snprintf(path, sizeof(path), CLASS "/%s/%s", v.name, writes[i].attr);
	expect(w, OP_attack_sync, path, write_attr(path, writes[i].val),
	       (writes[i].bad ? M(EINVAL) : M(OK)) | M(ENOENT) | M(ENODEV));
}

/* The major of udmabuf in /proc/devices, or 0. */
static unsigned int udmabuf_major(void)
{
	FILE *f = fopen("/proc/devices", "re");
	char line[128], name[64];
	unsigned int major = 0, m;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %63s", &m, name) == 2 &&
		    !strcmp(name, "udmabuf"))
			major = m;
	fclose(f);
	return major;
}

/* Point w->stale at the minor of a random victim's slot. */
static void stale_make(struct worker *w)
{
	struct victim v;

	if (!w->major || !pick_victim(w, &v))
		return;
	unlink(w->stale);
	if (mknod(w->stale, S_IFCHR | 0600, makedev(w->major, (unsigned int)v.minor))) {
		failf(w, "mknod %s: %s", w->stale, strerror(errno));
		w->stale_minor = -1;
		return;
	}
	w->stale_minor = v.minor;
}

/* A node made with mknod: a buffer of that slot, or ENODEV. */
static void op_stale_open(struct worker *w)
{
	struct victim v;
	uint64_t size;
	int fd, err;

	if (w->stale_minor < 0 || coin(w, 10)) {
		stale_make(w);
		return;
	}
	v.owner = (unsigned int)(w->stale_minor - MINOR_PRIVATE) / 16;
	v.slot = (unsigned int)(w->stale_minor - MINOR_PRIVATE) % 16;
	fd = open(w->stale, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? errno : 0;
	if (!expect(w, OP_stale_open, w->stale, err, M(OK) | M(ENODEV)) || err)
		return;
	if (check_info(w, OP_stale_open, fd, 0, w->stale_minor, &size))
		peek_victim(w, OP_stale_open, fd, size, &v, w->stale);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* the pool: items anyone makes, changes and removes                   */

static void op_pool_mkdir(struct worker *w)
{
	char name[48], path[160], val[32];
	int err;

	pool_name(name, sizeof(name), rnd_below(w, POOL_ITEMS));
	cfs_path(path, sizeof(path), name, NULL);
	err = do_mkdir(path);
	if (!expect(w, OP_pool_mkdir, path, err, M(OK) | M(EEXIST)) || err)
		return;
	cfs_path(path, sizeof(path), name, "size");
	snprintf(val, sizeof(val), "%" PRIu64, small_size(w));
	expect(w, OP_pool_mkdir, path, write_attr(path, val),
	       M(OK) | M(EBUSY) | M(ENOENT));
}

static void op_pool_config(struct worker *w)
{
	char name[48], path[160], val[48];
	unsigned int ok = M(OK) | M(EBUSY) | M(ENOENT);
	unsigned int k = rnd_below(w, POOL_ITEMS);
	const char *attr;

	pool_name(name, sizeof(name), k);
	switch (rnd_below(w, 5)) {
	case 0:
		attr = "size";
		snprintf(val, sizeof(val), "%" PRIu64, small_size(w));
		break;
	case 1:
		attr = "minor";
		snprintf(val, sizeof(val), "%d", coin(w, 50) ? -1 :
			 MINOR_CONTENDED + (int)rnd_below(w, CONTENDED));
		break;
	case 2:
		attr = "device_name";
		if (coin(w, 50))
			pool_name(val, sizeof(val), k);
		else
			contended_name(val, sizeof(val), rnd_below(w, CONTENDED));
		break;
	case 3:
		attr = "dma_mask";
		snprintf(val, sizeof(val), "%s", coin(w, 50) ? "32" : "64");
		break;
	default:
		attr = "sync_mode";
		snprintf(val, sizeof(val), "%u", rnd_below(w, 8));
		ok = M(OK) | M(ENOENT);
		break;
	}
	cfs_path(path, sizeof(path), name, attr);
	expect(w, OP_pool_config, path, write_attr(path, val), ok);
}

static void op_pool_enable(struct worker *w)
{
	char name[48], path[160];

	pool_name(name, sizeof(name), rnd_below(w, POOL_ITEMS));
	cfs_path(path, sizeof(path), name, "enable");
	/* Size 0 (EINVAL), a taken minor (EBUSY) or name (EEXIST), no memory. */
	expect(w, OP_pool_enable, path, write_attr(path, "1"),
	       M(OK) | M(ENOENT) | M(ENOMEM) | M(EBUSY) | M(EEXIST) | M(EINVAL));
}

static void op_pool_disable(struct worker *w)
{
	char name[48], path[160];

	pool_name(name, sizeof(name), rnd_below(w, POOL_ITEMS));
	cfs_path(path, sizeof(path), name, "enable");
	expect(w, OP_pool_disable, path, write_attr(path, "0"),
	       M(OK) | M(EBUSY) | M(ENOENT));
}

static void op_pool_rmdir(struct worker *w)
{
	char name[48], path[160];

	pool_name(name, sizeof(name), rnd_below(w, POOL_ITEMS));
	cfs_path(path, sizeof(path), name, NULL);
	expect(w, OP_pool_rmdir, path, do_rmdir(path), M(OK) | M(ENOENT));
}

/* Pool and probe buffers are never written: they read 0. */
static void op_pool_open(struct worker *w)
{
	char name[48], path[96];
	bool rdwr = coin(w, 50);
	struct handle *h;
	uint64_t size;
	int fd, err;

	if (!free_handles(w))
		return;
	if (coin(w, 50))
		pool_name(name, sizeof(name), rnd_below(w, POOL_ITEMS));
	else
		contended_name(name, sizeof(name), rnd_below(w, CONTENDED));
	dev_path(path, sizeof(path), name);
	fd = open(path, (rdwr ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	err = fd < 0 ? errno : 0;
	if (!expect(w, OP_pool_open, path, err, M(OK) | M(ENOENT) | M(ENODEV)) ||
	    err)
		return;
	h = handle_new(w);
	h->kind = H_ZERO;
	h->fd = fd;
	h->writable = rdwr;
	if (check_info(w, OP_pool_open, fd, 0, -1, &size))
		h->size = size;
	else
		handle_release(w, h);
}

/* While the coordinator's sentinel exists, the module is busy. */
static void op_rmmod(struct worker *w)
{
	expect(w, OP_rmmod, "delete_module " MODNAME, delete_module(),
	       M(EAGAIN));
}

/* ------------------------------------------------------------------ */
/* the worker loop                                                     */

#define OP_FN(n, w) [OP_##n] = op_##n,
static void op_release(struct worker *w) { (void)w; }
static void op_sentinel(struct worker *w) { (void)w; }
static void op_reload(struct worker *w) { (void)w; }
static void (*const op_fns[OP_NUM])(struct worker *w) = { OPS(OP_FN) };
#undef OP_FN

static unsigned int weight_total;

static void one_op(struct worker *w)
{
	unsigned int r = rnd_below(w, weight_total);
	int op;

	for (op = 0; op < OP_NUM; op++) {
		if (r < op_weights[op]) {
			op_fns[op](w);
			return;
		}
		r -= op_weights[op];
	}
}

/* Close everything and remove own items: nothing may stay behind. */
static void release_all(struct worker *w)
{
	char path[160];
	unsigned int i;

	for (i = 0; i < MAX_HANDLES; i++)
		if (w->h[i].used)
			handle_release(w, &w->h[i]);
	for (i = 0; i <= cfg.slots; i++) {
		struct slot *s = &w->slots[i];

		if (s->exists && !(w->leak && i == 0)) {
			cfs_path(path, sizeof(path), s->name, NULL);
			expect(w, OP_release, path, do_rmdir(path),
			       M(OK) | M(ENOENT));
		}
		slot_lost(s, true);
	}
	w->leak = false;
	unlink(w->stale);
	w->stale_minor = -1;
}

/*
 * --selftest: worker 0 (alone) makes a mapped buffer of slot 0 and breaks
 * one rule on purpose; the run must fail.
 */
static void selftest(struct worker *w)
{
	struct slot *s = &w->slots[0];
	struct handle *h;

	if (cfg.selftest == ST_ERRNO) {
		expect(w, OP_rmmod, "delete_module while the sentinel exists",
		       delete_module(), M(OK));
		return;
	}
	slot_mkdir(w, s);
	if (s->ready && !s->size && slot_write(w, OP_config, s, "size", "8192",
					       M(OK)))
		s->size = 8192;
	slot_enable(w, s);
	h = s->enabled ? slot_open(w, s, true) : NULL;
	if (h)
		handle_map(w, h, true);
	if (!h || !h->map || !handle_fill(w, h)) {
		failf(w, "selftest: could not set up a mapped buffer");
		return;
	}
	if (cfg.selftest == ST_LEAK) {
		w->leak = true;
		return;
	}
	*(volatile uint64_t *)(h->map + 56) ^= 1;
	handle_check(w, OP_verify, h, false);
}

static void worker_resume(struct worker *w)
{
	w->major = udmabuf_major();
	stale_make(w);
}

/* Wait until the coordinator lets the workers run again; false: exit. */
static bool worker_park(struct worker *w, int gen)
{
	(void)w;
	atomic_fetch_add(&sh->parked, 1);
	while (atomic_load(&sh->gen) == gen) {
		if (atomic_load(&sh->mode) == MODE_EXIT)
			return false;
		sleep_ms(2);
	}
	return atomic_load(&sh->mode) != MODE_EXIT;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int gen = atomic_load(&sh->gen);

	worker_resume(w);
	if (cfg.selftest != ST_NONE)
		selftest(w);
	for (;;) {
		while (running()) {
			if (cfg.selftest != ST_NONE)
				sleep_ms(5);
			else
				one_op(w);
		}
		release_all(w);
		if (!worker_park(w, gen))
			break;
		gen = atomic_load(&sh->gen);
		worker_resume(w);
	}
	return NULL;
}

static struct worker *worker_new(int id, int tidx)
{
	struct worker *w = calloc(1, sizeof(*w));
	unsigned int i;

	if (!w) {
		say("FAIL: out of memory");
		exit(EXIT_FAILED);
	}
	w->id = id;
	w->tidx = tidx;
	w->rng = mix64(cfg.seed ^ (0x1000193ULL * (uint64_t)(id + 1)));
	for (i = 0; i < cfg.slots; i++)
		private_names(&w->slots[i], id, i);
	w->slots[cfg.slots].kind = S_PROBE;
	w->slots[cfg.slots].index = cfg.slots;
	snprintf(w->slots[cfg.slots].name, sizeof(w->slots[0].name), "%s-w%d-p",
		 cfg.prefix, id);
	snprintf(w->slots[cfg.slots].dev, sizeof(w->slots[0].dev), "%s-w%d-p",
		 cfg.prefix, id);
	w->slots[cfg.slots].minor = -1;
	for (i = 0; i <= cfg.slots; i++)
		w->slots[i].gone = true;
	snprintf(w->stale, sizeof(w->stale), "%s/%s-stale-w%d", cfg.tmpdir,
		 cfg.prefix, id);
	w->stale_minor = -1;
	return w;
}

/* A worker process: its threads share the address space and the board. */
static void process_main(unsigned int p)
{
	pthread_t tids[MAX_THREADS];
	struct worker *ws[MAX_THREADS];
	unsigned int t;

	for (t = 0; t < cfg.threads; t++) {
		pthread_rwlock_init(&board[t].lock, NULL);
		ws[t] = worker_new((int)(p * cfg.threads + t), (int)t);
	}
	for (t = 0; t < cfg.threads; t++)
		if (pthread_create(&tids[t], NULL, worker_main, ws[t])) {
			failf(ws[t], "pthread_create failed");
			exit(EXIT_FAILED);
		}
	for (t = 0; t < cfg.threads; t++)
		pthread_join(tids[t], NULL);
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* the coordinator                                                     */

struct sentinel {
	char name[48];
	int fd;
	volatile uint8_t *map;
	uint32_t tag;
};

static bool sentinel_write(const char *name, const char *attr, const char *val)
{
	char path[160];

	cfs_path(path, sizeof(path), name, attr);
	return expect(NULL, OP_sentinel, path, write_attr(path, val), M(OK));
}

static bool sentinel_create(struct sentinel *st, int gen)
{
	char path[160], val[16];
	void *p;

	snprintf(st->name, sizeof(st->name), "%s-sentinel", cfg.prefix);
	cfs_path(path, sizeof(path), st->name, NULL);
	snprintf(val, sizeof(val), "%d", MINOR_SENTINEL);
	if (!expect(NULL, OP_sentinel, path, do_mkdir(path), M(OK)) ||
	    !sentinel_write(st->name, "size", "65536") ||
	    !sentinel_write(st->name, "minor", val) ||
	    !sentinel_write(st->name, "enable", "1"))
		return false;
	dev_path(path, sizeof(path), st->name);
	st->fd = open(path, O_RDWR | O_CLOEXEC);
	if (!expect(NULL, OP_sentinel, path, st->fd < 0 ? errno : 0, M(OK)))
		return false;
	p = mmap(NULL, SENTINEL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, st->fd, 0);
	if (!expect(NULL, OP_sentinel, "mmap", p == MAP_FAILED ? errno : 0, M(OK)))
		return false;
	st->map = p;
	st->tag = make_tag(SENTINEL_OWNER, 0, (uint16_t)gen);
	fill_map(st->map, 0, SENTINEL_SIZE, st->tag);
	return expect(NULL, OP_sentinel, "SYNC_FOR_DEVICE",
		      sync_ioctl(st->fd, false, 0, 0, 0, 0), M(OK));
}

static void sentinel_remove(struct sentinel *st)
{
	struct expect x = { .exact = true, .tag = st->tag };
	char path[160];
	int64_t bad;

	if (st->map) {
		bad = map_first_bad(st->map, 0, 0, SENTINEL_SIZE, &x);
		if (bad >= 0)
			failf(NULL, "the sentinel's data changed at offset %lld",
			      (long long)bad);
		munmap((void *)st->map, SENTINEL_SIZE);
		st->map = NULL;
	}
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	cfs_path(path, sizeof(path), st->name, NULL);
	expect(NULL, OP_sentinel, path, do_rmdir(path), M(OK) | M(ENOENT));
}

/* Report entries of @dir (directories only, or names starting with @prefix). */
static bool dir_clean(const char *dir, bool dirs_only, const char *prefix)
{
	struct dirent *de;
	bool clean = true;
	DIR *d = opendir(dir);

	if (!d)
		return errno == ENOENT;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (dirs_only && de->d_type != DT_DIR)
			continue;
		if (prefix && strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		failf(NULL, "left behind: %s/%s", dir, de->d_name);
		clean = false;
	}
	closedir(d);
	return clean;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static bool check_clean(void)
{
	bool ok = dir_clean(CFS, true, NULL);

	ok = dir_clean(CLASS, false, NULL) && ok;
	return dir_clean("/dev", false, cfg.prefix) && ok;
}

static void remove_pool(void)
{
	char name[48], path[160];
	unsigned int k;

	for (k = 0; k < POOL_ITEMS; k++) {
		pool_name(name, sizeof(name), k);
		cfs_path(path, sizeof(path), name, NULL);
		expect(NULL, OP_release, path, do_rmdir(path), M(OK) | M(ENOENT));
	}
}

/* With nothing left, the module must unload, vanish and load again. */
static bool reload_module(void)
{
	static const char *const gone[] = {
		"/sys/module/" MODNAME, CFS, CLASS,
	};
	unsigned int i;

	if (!expect(NULL, OP_reload, "delete_module with nothing left",
		    delete_module(), M(OK)))
		return false;
	for (i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		if (exists(gone[i])) {
			failf(NULL, "%s still exists after rmmod", gone[i]);
			return false;
		}
	if (udmabuf_major()) {
		failf(NULL, "/proc/devices still lists udmabuf after rmmod");
		return false;
	}
	if (!expect(NULL, OP_reload, cfg.module, load_module(cfg.module), M(OK)))
		return false;
	if (!exists(CFS)) {
		failf(NULL, "%s does not exist after insmod", CFS);
		return false;
	}
	return true;
}

static pid_t procs[MAX_PROCS];

/* Fail if a worker process ended before it was told to. */
static bool reap_early(void)
{
	int status;
	pid_t pid = waitpid(-1, &status, WNOHANG);
	unsigned int i;

	if (pid <= 0)
		return false;
	for (i = 0; i < cfg.procs; i++)
		if (procs[i] == pid)
			procs[i] = 0;
	if (WIFSIGNALED(status))
		failf(NULL, "worker process %d killed by signal %d", (int)pid,
		      WTERMSIG(status));
	else
		failf(NULL, "worker process %d exited early with %d", (int)pid,
		      WEXITSTATUS(status));
	return true;
}

/* Stop the workers between two phases; false if they did not all stop. */
static bool park_all(void)
{
	unsigned int n = cfg.procs * cfg.threads;
	uint64_t end = now_ns() + PARK_TIMEOUT_NS;

	atomic_store(&sh->mode, MODE_PARK);
	while ((unsigned int)atomic_load(&sh->parked) < n) {
		if (reap_early())
			return false;
		if (now_ns() > end) {
			failf(NULL, "only %d of %u workers stopped within %llu s",
			      atomic_load(&sh->parked), n,
			      PARK_TIMEOUT_NS / 1000000000ULL);
			return false;
		}
		sleep_ms(5);
	}
	return true;
}

static void resume_all(void)
{
	atomic_store(&sh->parked, 0);
	atomic_store(&sh->mode, MODE_RUN);
	atomic_fetch_add(&sh->gen, 1);
}

/* One phase of work: wait, trying rmmod now and then. */
static void run_phase(uint64_t ms, struct worker *self)
{
	uint64_t end = now_ns() + ms * 1000000ULL;

	while (now_ns() < end && !atomic_load(&sh->failed)) {
		sleep_ms(20 + rnd_below(self, 60));
		reap_early();
		if (coin(self, 20))
			expect(NULL, OP_rmmod, "delete_module while the sentinel exists",
			       delete_module(), M(EAGAIN));
	}
}

static bool clean_start(void)
{
	if (!exists("/sys/module/" MODNAME "/initstate") || !exists(CFS)) {
		say("FAIL: the module is not loaded (need " CFS ")");
		return false;
	}
	if (!dir_clean(CFS, true, NULL) || !dir_clean(CLASS, false, NULL)) {
		say("FAIL: not a clean start: remove every buffer first");
		return false;
	}
	return true;
}

static void print_stats(void)
{
	char line[900];
	size_t used;
	int op, r;

	for (op = 0; op < OP_NUM; op++) {
		used = (size_t)snprintf(line, sizeof(line), "%-17s", op_names[op]);
		for (r = 0; r < RES_NUM; r++) {
			unsigned long n = atomic_load(&sh->counts[op][r]);

			if (n && used < sizeof(line))
				used += (size_t)snprintf(line + used, sizeof(line) - used,
							 " %s=%lu", results[r].name, n);
		}
		if (used > 17)
			say("stats: %s", line);
	}
	say("stats: own data checked after its buffer was removed: %lu; others' data checked: %lu",
	    atomic_load(&sh->orphan_checks), atomic_load(&sh->victim_checks));
}

/* Phases of work; between two, everything is released and checked. */
static void coordinate(struct sentinel *st)
{
	uint64_t total = (uint64_t)cfg.seconds * 1000, phase_ms;
	unsigned int phases, i;
	struct worker *self = worker_new(0, 0);

	self->rng = mix64(cfg.seed ^ 0xc0ffeeULL);
	/* Three phases or more, of 1 to 10 s. */
	phases = (unsigned int)(total / 1000 < 3 ? total / 1000 : 3);
	if (phases < (total + 9999) / 10000)
		phases = (unsigned int)((total + 9999) / 10000);
	phase_ms = total / phases;
	for (i = 0; i < phases; i++) {
		run_phase(phase_ms, self);
		if (!park_all())
			break;
		sentinel_remove(st);
		remove_pool();
		if (atomic_load(&sh->failed) || !check_clean())
			break;
		if (cfg.module && !reload_module())
			break;
		say("phase %u of %u: %llu ms, then everything released%s", i + 1,
		    phases, (unsigned long long)phase_ms,
		    cfg.module ? ", module unloaded and loaded again" : "");
		if (i + 1 == phases || !sentinel_create(st, atomic_load(&sh->gen) + 1))
			break;
		resume_all();
	}
	atomic_store(&sh->mode, MODE_EXIT);
	free(self);
}

/* Fork the worker processes; they drop the sentinel they inherit. */
static bool start_workers(const struct sentinel *st)
{
	unsigned int p;
	pid_t pid;

	for (p = 0; p < cfg.procs; p++) {
		pid = fork();
		if (pid == 0) {
			munmap((void *)st->map, SENTINEL_SIZE);
			close(st->fd);
			process_main(p);
		}
		if (pid < 0) {
			failf(NULL, "fork: %s", strerror(errno));
			return false;
		}
		procs[p] = pid;
	}
	return true;
}

static void wait_workers(void)
{
	unsigned int p;
	int status;

	for (p = 0; p < cfg.procs; p++) {
		if (!procs[p] || waitpid(procs[p], &status, 0) != procs[p])
			continue;
		if (WIFSIGNALED(status))
			failf(NULL, "worker process %d killed by signal %d",
			      (int)procs[p], WTERMSIG(status));
		else if (WEXITSTATUS(status))
			failf(NULL, "worker process %d exited with %d",
			      (int)procs[p], WEXITSTATUS(status));
	}
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: udmabuf-stress [--seconds N] [--procs N] [--threads N] [--slots N]\n"
"                      [--seed N] [--prefix NAME] [--module FILE.ko]\n"
"                      [--tmpdir DIR] [--selftest corrupt|leak|errno]\n"
"\n"
"Concurrent stress test of udmabuf-cfs (needs root, the module loaded and no\n"
"buffer).  Defaults: 10 s, 2 processes of 3 threads, 3 private buffers per\n"
"thread, prefix \"stress\".  With --module, the module is unloaded and loaded\n"
"again between phases.  Exit status: 0 passed, 1 failed, 64 usage error.\n");
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "udmabuf-stress: %s%s%s\n"
		"Try 'udmabuf-stress --help' for more information.\n",
		msg, arg ? ": " : "", arg ? arg : "");
	return EXIT_USAGE;
}

static bool parse_uint(const char *s, unsigned int min, unsigned int max,
		       unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = (unsigned int)v;
	return true;
}

static bool parse_selftest(const char *s)
{
	static const char *const names[] = { "corrupt", "leak", "errno" };
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			cfg.selftest = (enum selftest)(i + 1);
			return true;
		}
	return false;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv)
{
	char *end;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok = true;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		if (!v)
			return usage_error("missing value or unknown option", a);
		i++;
		if (!strcmp(a, "--seconds"))
			ok = parse_uint(v, 1, 86400, &cfg.seconds);
		else if (!strcmp(a, "--procs"))
			ok = parse_uint(v, 1, MAX_PROCS, &cfg.procs);
		else if (!strcmp(a, "--threads"))
			ok = parse_uint(v, 1, MAX_THREADS, &cfg.threads);
		else if (!strcmp(a, "--slots"))
			ok = parse_uint(v, 1, MAX_SLOTS, &cfg.slots);
		else if (!strcmp(a, "--seed"))
			cfg.seed = strtoull(v, &end, 0), ok = *v && !*end;
		else if (!strcmp(a, "--prefix"))
			cfg.prefix = v, ok = *v && strlen(v) <= 12 && !strchr(v, '/');
		else if (!strcmp(a, "--module"))
			cfg.module = v;
		else if (!strcmp(a, "--tmpdir"))
			cfg.tmpdir = v;
		else if (!strcmp(a, "--selftest"))
			ok = parse_selftest(v);
		else
			return usage_error("unknown option", a);
		if (!ok)
			return usage_error("bad value", v);
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct sentinel st = { .fd = -1 };
	int rc, op;

	cfg.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	rc = parse_args(argc, argv);
	if (rc >= 0)
		return rc;
	if (cfg.selftest != ST_NONE)
		cfg.procs = cfg.threads = 1;
	cfg.page = (uint64_t)sysconf(_SC_PAGESIZE);
	for (op = 0; op < OP_NUM; op++)
		weight_total += op_weights[op];
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("udmabuf-stress: mmap");
		return EXIT_FAILED;
	}
	say("seed %" PRIu64 " (repeat with --seed %" PRIu64 "): %u s, %u processes of %u threads, %u private buffers each",
	    cfg.seed, cfg.seed, cfg.seconds, cfg.procs, cfg.threads, cfg.slots);
	if (!clean_start())
		return EXIT_FAILED;
	if (sentinel_create(&st, 0) && start_workers(&st))
		coordinate(&st);
	atomic_store(&sh->mode, MODE_EXIT);
	wait_workers();
	if (atomic_load(&sh->failed)) {
		sentinel_remove(&st);
		remove_pool();
	}
	print_stats();
	if (atomic_load(&sh->failed)) {
		say("stress: FAILED (seed %" PRIu64 ")", cfg.seed);
		return EXIT_FAILED;
	}
	say("stress: passed");
	return 0;
}
