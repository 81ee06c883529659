// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-stress - concurrent stress test of udmabuf-cfs, for the guest tests.
 *
 *   udmabuf-stress [--seconds N] [--seed N] [--module FILE.ko] [--selftest MODE]
 *
 * Needs root, the module loaded and no buffer or configfs item.  Forks
 * two worker processes of three threads each, and a placer process (with a
 * second thread, the churner).
 * Every worker makes random calls for --seconds and checks each result
 * against the outcomes that are legitimate for that call in the state the
 * worker knows of; an outcome outside that set, a data mismatch or a crash
 * fails the run.
 *
 * Buffers (NAME is "stress", W the worker, S the slot):
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
 *   process  from UDMABUF_CFS_IOC_ALLOC on /dev/udmabuf-cfs (any allocator,
 *            sync_mode and DMA mask): a file only its worker holds, written
 *            and checked like a private buffer; a process-scoped buffer
 *            cannot be removed while a file, mapping or dma-buf of it exists.
 *   param    udmabuf0 (64 KiB beyond the page allocator's largest block:
 *            a contiguous range), udmabuf1 (64 KiB, the page allocator),
 *            udmabuf2 (placed with udmabuf2_phys where the placer last
 *            freed a range), loaded with the module for the phases after
 *            the first (--module): live for the whole phase, never
 *            written.  Their last users go while a page is in a pipe
 *            (param_churn, and the placer's churner thread).
 *   placed   NAME-place0/1: the placer's, at CPU physical addresses it
 *            learnt (a range it was given, then freed, then asks for again;
 *            the other item's live range; the kernel's code; beyond RAM).
 *
 * Beside files and mappings, buffers are held by dma-bufs (exported, mapped,
 * synced, closed), by pipes (vmsplice of mapped pages, left unread for a
 * while, then read and checked or closed unread), by io_uring fixed-buffer
 * registrations (pinned for long, checked through a fixed write to a
 * memfd, kept for a while), and by children killed with SIGKILL while they
 * hold a process-scoped buffer's file, mapping, dma-buf, ring and pipe pages
 * (and a parameter buffer's): their buffer must be gone when wait() returns.
 * Now and then a 16 MiB contiguous process-scoped buffer goes with a page
 * in a pipe (big_defer).
 *
 * Data: a word (64 bits, native order) of a private buffer is 0 (never
 * written) or tag_word(tag, index), where the tag names the owner, the
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
 *   ALLOC                        OK, ENOMEM (process_max, no such memory);
 *                                bad requests exactly EINVAL or ERANGE
 *   EXPORT_DMABUF                OK; ENODEV once a configfs or pool buffer
 *                                may have been removed (never for process
 *                                and parameter buffers); bad ranges and
 *                                flags EINVAL, O_RDWR of a read-only file
 *                                EACCES; mmap and DMA_BUF_IOCTL_SYNC OK
 *   vmsplice of mapped pages     OK (all of it), EFAULT where the mapping
 *                                has no struct pages (CMA: GET_INFO says)
 *   IORING_REGISTER_BUFFERS      OK (6.5 and later) or EOPNOTSUPP (before:
 *                                io_uring took shmem and hugetlbfs only);
 *                                EFAULT for a read-only mapping or one
 *                                without struct pages
 *   insmod with parameters       OK; EBUSY, ENOMEM, ERANGE or EINVAL when
 *                                udmabuf2_phys's range cannot be had, ENOMEM
 *                                when udmabuf0's range cannot: then insmod
 *                                without them, OK; their allocator reads
 *                                contig, page and placed
 *   placer's enable              exactly EBUSY at a range that is the other
 *                                item's live one, has a page in the placer's
 *                                pipe, a live parameter buffer's or the
 *                                kernel's code; ERANGE beyond RAM; EINVAL with
 *                                allocator=page; at a range it freed itself
 *                                OK, EBUSY or ENOMEM, and if OK exactly there
 *
 * Between phases every worker and the placer close and remove what they
 * have (pipes read, rings closed, children reaped); then nothing may be
 * left (configfs items, class devices, device nodes), process_used must be
 * 0 and the module's refcount back to what it was when the phase began,
 * each within SETTLED_MS (memory freed in the background, a ring's
 * teardown), and the module must unload (with --module: and load again,
 * with parameter buffers or without; the last time as at the start).  At
 * the end, free memory (see settled_free_kib()) must be back to within
 * MEMFREE_MARGIN_KIB of what it was at the start.  Exit status: 0 passed,
 * 1 failed (the lines starting with FAIL say why), 64 usage error.  The
 * seed is printed; --seed repeats a run's random choices (not the timing).
 *
 * --selftest makes worker 0 break a rule on purpose to show that the checks
 * can fail: corrupt its data, leave an item behind, expect a wrong errno,
 * corrupt data a pipe holds (splice), leave a page of a process-scoped
 * buffer in a pipe of a child that does not exit (procleak: process_used),
 * hold /dev/udmabuf-cfs open in such a child (modref: the refcount alone),
 * keep memory in such a child (memfree).
 */
#define _GNU_SOURCE
/* 64-bit file offsets (pread, lseek, mmap) on 32-bit systems too. */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/dma-buf.h>
#include <linux/io_uring.h>

static const char *prog = "udmabuf-stress";

/* mix64(), sync_ioctl(), read_file(), usage_error(), the usual headers */
#include "udmabuf-helpers.h"
#include "udmabuf-uring.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define CFS		"/sys/kernel/config/udmabuf"
#define CLASS		"/sys/class/udmabuf"
#define MODNAME		"udmabuf_cfs"
#define MODDIR		"/sys/module/" MODNAME
#define PARAMS		MODDIR "/parameters"
#define PROCDEV		"/dev/udmabuf-cfs"
#define PREFIX		"stress"	/* of every item's and device's name */

#define MAX_PROCS	8
#define MAX_THREADS	8
#define MAX_SLOTS	6	/* private slots per worker, plus one probe */
#define MAX_HANDLES	8
#define MAX_DBUFS	3	/* dma-bufs a worker holds */
#define MAX_PIPES	3	/* pipes with pages in them */
#define MAX_RINGS	2	/* io_uring rings with registered buffers */
#define PROC_SLOT	15	/* the slot of process-scoped buffers' tags */
#define SPLICE_PAGES	8	/* at most, per pipe or ring */
#define POOL_ITEMS	4
#define CONTENDED	2	/* contended minors and device names */

#define MINOR_CONTENDED	500
#define MINOR_SENTINEL	999
#define MINOR_PRIVATE	1000	/* + 16 * worker + slot */
#define MAX_SIZE	(1ULL << 20)

/* Parameter buffers (udmabufN=, see the top): contiguous, page, placed. */
#define PARAMS_MAX	3
#define PARAM_CONTIG	0
#define PARAM_PLACED	2
#define PARAM_CONTIG_MAX (16ULL << 20)	/* larger blocks: no udmabuf0 */
#define PARAM_PAGE_SIZE	65536ULL
#define PARAM_PLACED_SIZE 65536ULL

/* A contiguous process-scoped buffer freed with a page in a pipe. */
#define BIG_DEFER_SIZE	(16ULL << 20)

#define SENTINEL	PREFIX "-sentinel"
#define SENTINEL_SIZE	65536

#define CHUNK_WORDS	8192
#define SETTLE_NS	(3ULL * 1000000000ULL)
#define PARK_TIMEOUT_NS	(300ULL * 1000000000ULL)

/*
 * Once everything is released, how long process_used and the module's
 * refcount may take to come back (an io_uring ring unpins its pages in a
 * worker after its file is closed).
 */
#define SETTLED_MS	5000

/* A child killed with SIGKILL: how long it may take to be ready at most. */
#define KILL_READY_MS	10000

/*
 * Free memory at the end may be this much below what it was at the start
 * (settled_free_kib()): kernel memory a run leaves in use without leaking
 * it (partly used slabs of the caches that grew, page tables, freed kernel
 * stacks' cache).  A leak per buffer, pin or pipe (thousands of each) is
 * far beyond it, and so are two leaked ranges of udmabuf0; one may hide.
 */
#define MEMFREE_MARGIN_KIB	8192

/* ---- outcomes and operations ---- */

/* The outcomes counted by name; any other errno is RES_OTHER. */
#define RESULTS(X)							\
	X(OK, 0) X(ENOENT, ENOENT) X(ENODEV, ENODEV) X(EBUSY, EBUSY)	\
	X(EEXIST, EEXIST) X(EINVAL, EINVAL) X(ERANGE, ERANGE)		\
	X(ENOMEM, ENOMEM) X(EAGAIN, EAGAIN) X(ENOSPC, ENOSPC)		\
	X(EACCES, EACCES) X(EBADF, EBADF) X(EFAULT, EFAULT)		\
	X(ENOTTY, ENOTTY) X(EOPNOTSUPP, EOPNOTSUPP) X(OTHER, -1)

#define RES_ENUM(n, e) RES_##n,
enum res { RESULTS(RES_ENUM) RES_NUM };

#define RES_ROW(n, e) { e, #n },
static const struct {
	int err;
	const char *name;
} results[RES_NUM] = { RESULTS(RES_ROW) };

#define M(r)	(1u << RES_##r)

/* What an operation needs of its handle: all of these. */
#define HW_FD		1u	/* the file open */
#define HW_MAP		2u	/* a mapping */
#define HW_UNMAPPED	4u	/* no mapping */
#define HW_MINE		8u	/* not a victim's */
#define HW_VICTIM	16u	/* a victim's */
#define HW_WRITER	32u	/* own data, the file opened O_RDWR */
#define HW_UNPUB	64u	/* not published on the board */

/*
 * The operations and their weights.  op_FN() of an S() row is given a
 * random own slot (the probe too if the third column says so), of an H()
 * row a random handle that has what the third column asks (none: no call).
 */
#define OPS(X, S, H)							\
	S(mkdir, 40, true) S(config, 50, true) S(bad_value, 20, true)	\
	S(enable, 50, true) S(disable, 30, true) S(rmdir, 25, true)	\
	S(absent, 10, true) S(open, 50, true)				\
	H(mmap, 40, HW_FD | HW_UNMAPPED) H(fill, 40, HW_FD | HW_WRITER)	\
	H(verify, 50, HW_MINE) H(read_seq, 15, HW_MINE | HW_FD)		\
	H(io_edges, 15, HW_FD) H(ioctl, 25, HW_FD)			\
	H(close, 35, HW_FD) H(unmap, 25, HW_MAP)			\
	H(fork_verify, 8, HW_MAP | HW_MINE)				\
	H(publish, 10, HW_MAP | HW_MINE | HW_UNPUB)			\
	X(sibling_verify, 15) S(inspect, 15, false)			\
	X(attack_open, 35) H(attack_verify, 20, HW_VICTIM) X(attack_sysfs, 20) \
	X(stale_open, 10) X(pool_open, 10) X(rmmod, 5)			\
	X(palloc, 25) H(export, 20, HW_FD)				\
	H(vmsplice, 15, HW_MAP) H(uring, 8, HW_MAP) X(uring_close, 6)	\
	X(kill9, 5) X(param_open, 12) X(param_churn, 4) X(big_defer, 2)

/* Operations that share a function, op_FN(), which looks at w->op. */
#define SHARED_OPS(X)							\
	X(attack_rmdir, 20, attack_write) X(attack_disable, 15, attack_write) \
	X(attack_sync_mode, 8, attack_write) X(attack_sync, 10, attack_write) \
	X(pool_mkdir, 10, pool) X(pool_config, 10, pool)		\
	X(pool_enable, 10, pool) X(pool_disable, 6, pool) X(pool_rmdir, 6, pool) \
	X(mmap_bad, 10, bad) X(ioctl_bad, 10, bad) X(palloc_bad, 6, bad)	\
	X(export_bad, 6, bad) X(dbuf_map, 15, dbuf) X(dbuf_close, 12, dbuf)	\
	X(pipe_drain, 10, pipe) X(pipe_close, 5, pipe)

/* What the coordinator, the placer and the selftests count their calls as. */
#define OTHER_OPS(X)							\
	X(release) X(sentinel) X(reload) X(place_new) X(place_again)	\
	X(place_busy) X(place_far) X(place_inuse) X(place_page)		\
	X(place_pipe) X(place_hold) X(selftest)

#define OP_ENUM(n, ...) OP_##n,
enum op {
	OPS(OP_ENUM, OP_ENUM, OP_ENUM) SHARED_OPS(OP_ENUM) OTHER_OPS(OP_ENUM)
	OP_NUM
};

#define OP_NAME(n, ...) #n,
static const char *const op_names[OP_NUM] = {
	OPS(OP_NAME, OP_NAME, OP_NAME) SHARED_OPS(OP_NAME) OTHER_OPS(OP_NAME)
};

#define OP_WEIGHT(n, wt, ...) [OP_##n] = wt,
static const unsigned int op_weights[OP_NUM] = {
	OPS(OP_WEIGHT, OP_WEIGHT, OP_WEIGHT) SHARED_OPS(OP_WEIGHT)
};

#define OP_SUM(n, wt, ...) + (wt)
static const unsigned int weight_total = 0 OPS(OP_SUM, OP_SUM, OP_SUM) SHARED_OPS(OP_SUM);

/* ---- state shared by all processes ---- */

enum mode { MODE_RUN, MODE_PARK, MODE_EXIT };
enum selftest {
	ST_NONE, ST_CORRUPT, ST_LEAK, ST_ERRNO, ST_SPLICE, ST_PROCLEAK,
	ST_MODREF, ST_MEMFREE, ST_NUM
};

static const char *const selftest_names[ST_NUM] = {
	[ST_CORRUPT] = "corrupt", [ST_LEAK] = "leak", [ST_ERRNO] = "errno",
	[ST_SPLICE] = "splice", [ST_PROCLEAK] = "procleak",
	[ST_MODREF] = "modref", [ST_MEMFREE] = "memfree",
};

struct shared {
	atomic_int mode;
	atomic_int gen;		/* bumped to let parked workers run again */
	atomic_int parked;
	atomic_int failed;
	atomic_ulong counts[OP_NUM][RES_NUM];
	atomic_ulong orphan_checks;	/* own data checked after a removal */
	atomic_ulong victim_checks;	/* others' data checked */
	atomic_ulong copy_checks;	/* data checked in pipes and rings */
	atomic_ulong kill_gone;		/* killed children whose buffer went */
	/* Set by the coordinator while the workers are parked. */
	uint64_t param_size[PARAMS_MAX];	/* 0: not loaded this phase */
	/* Set by the placer when it parks: a range it freed, for udmabuf2. */
	uint64_t place_addr;
	atomic_int st_child;		/* --selftest: the child to kill at the end */
};

static struct shared *sh;

static struct {
	unsigned int seconds, procs, threads, slots;
	unsigned int nprocs;	/* worker processes, and the placer's */
	uint64_t seed;
	const char *module;
	enum selftest selftest;
	uint64_t page;
	bool placer;		/* run the placer */
	bool uring_pins;	/* io_uring registers file mappings (6.5+) */
	uint64_t contig_size;	/* udmabuf0's size, or 0: none */
} cfg = {
	.seconds = 10, .procs = 2, .threads = 3, .slots = 3,
};

/* ---- per-worker state ---- */

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

/*
 * What a handle's data must be: an own private buffer's (H_OWN) or an own
 * process-scoped one's (H_PROC) exact words, zeros (H_ZERO: pool, probe,
 * parameter buffers), or 0 or a word of its owner (H_VICTIM).
 */
enum hkind { H_OWN, H_ZERO, H_VICTIM, H_PROC };

/* Whose data a handle, a dma-buf, a pipe or a ring holds. */
struct origin {
	enum hkind kind;
	struct instance *inst;	/* H_OWN, H_PROC: the buffer (a reference) */
	unsigned int owner, oslot;	/* whose words are valid (H_OWN, H_VICTIM) */
	uint64_t size;		/* the buffer's, in bytes */
};

struct handle {
	bool used;
	struct origin o;
	int fd;			/* -1 once closed while still mapped */
	bool writable;		/* opened O_RDWR */
	volatile uint8_t *map;
	uint64_t map_off, map_len;
	bool map_writable;
	int board;		/* published for sibling threads, or -1 */
	struct slot *slot;	/* H_OWN: whose buffer */
	bool pages;		/* GET_INFO: mapped by struct pages */
	bool live;		/* cannot be removed while held: process, param */
};

struct dbuf {
	bool used;
	int fd;			/* -1 once closed while still mapped */
	bool rdwr;
	volatile uint8_t *map;	/* all of the exported range */
	uint64_t off, len;	/* the exported range of the buffer */
	struct origin o;
};

/* A pipe with [off, off + len) of a buffer in it (vmsplice). */
struct spipe {
	bool used;
	int fd[2];
	uint64_t off, len;
	struct origin o;
};

/* A ring with [off, off + len) of a buffer registered (pinned). */
struct uring {
	bool used;
	struct udmabuf_ring r;
	void *addr;		/* the user address it was registered at */
	uint64_t off, len;
	struct origin o;
};

/* What a range must hold. */
struct expect {
	bool exact;		/* every word is tag_word(tag) (tag 0: 0) */
	uint32_t tag;
	unsigned int owner, slot;	/* else: 0 or a word of these */
};

/* Another worker's private slot. */
struct victim {
	unsigned int owner, slot;
	char name[48];
	int minor;
};

struct worker {
	int id;			/* 0 .. procs * threads - 1 */
	int tidx;		/* thread index in its process */
	enum op op;		/* the operation under way */
	uint64_t rng;
	uint16_t seq;
	bool leak;		/* --selftest leak: keep slot 0 once */
	struct slot slots[MAX_SLOTS + 1];
	struct handle h[MAX_HANDLES];
	struct dbuf d[MAX_DBUFS];
	struct spipe p[MAX_PIPES];
	struct uring u[MAX_RINGS];
	int memfd;		/* where ring checks write to, or -1 */
	unsigned int major;
	char stale[128];	/* a device node made with mknod */
	struct victim sv;	/* whose slot the stale node reaches (minor -1: none) */
	uint64_t chunk[CHUNK_WORDS];
};

/* Where a range is read from: a mapping, or else the file. */
struct view {
	volatile const uint8_t *map;
	uint64_t base;		/* buffer offset of map[0] */
	int fd;
};

/* Mappings one thread lets its sibling threads read. */
struct board_entry {
	pthread_rwlock_t lock;
	bool active;
	struct view v;		/* the mapping */
	uint64_t len;
	struct expect x;
};

static struct board_entry board[MAX_THREADS];

/* ---- small helpers ---- */

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

/*
 * Count the outcome of a call (0 or an errno) and fail the run unless it
 * is one of the acceptable ones in @ok.
 */
static bool expect(struct worker *w, enum op op, const char *what, int err,
		   unsigned int ok)
{
	enum res r = RES_OK;
	char want[160] = "";
	size_t used = 0;
	int k;

	while (r < RES_OTHER && results[r].err != err)
		r++;
	atomic_fetch_add(&sh->counts[op][r], 1);
	if (ok & (1u << r))
		return true;
	for (k = 0; k < RES_OTHER && used < sizeof(want); k++)
		if (ok & (1u << k))
			used += (size_t)snprintf(want + used, sizeof(want) - used, "%s%s",
						 used ? "|" : "", results[k].name);
	failf(w, "%s: %s: unexpected %s, expected %s", op_names[op], what,
	      r == RES_OTHER ? errno_name(err) : results[r].name, want);
	return false;
}

static bool running(void)
{
	return atomic_load(&sh->mode) == MODE_RUN && !atomic_load(&sh->failed);
}

/*
 * open(2) with @flags the path @fmt makes, which must give an outcome in
 * @ok: the file, or -1 (a failure in @ok, or the run failed).
 */
static int open_ok(struct worker *w, enum op op, int flags, unsigned int ok,
		   const char *fmt, ...)
{
	char path[160];
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	fd = open(path, flags);
	if (expect(w, op, path, fd < 0 ? errno : 0, ok) || fd < 0)
		return fd;
	close(fd);
	return -1;
}

/* ---- system calls, returning 0 or the errno ---- */

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

static int delete_module(void)
{
	return syscall(SYS_delete_module, MODNAME, O_NONBLOCK) ? errno : 0;
}

static int load_module(const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		err = errno;
	close(fd);
	return err;
}

static int get_info(int fd, struct udmabuf_cfs_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl(fd, UDMABUF_CFS_IOC_GET_INFO, info) ? errno : 0;
}

/* ---- the data ---- */

#define TAG_MARK	0x80000000u

static uint32_t make_tag(unsigned int owner, unsigned int slot, uint16_t seq)
{
	return TAG_MARK | (owner & 0x7ff) << 20 | (slot & 0xf) << 16 | seq;
}

static uint64_t tag_word(uint32_t tag, uint64_t idx)
{
	uint64_t hi = (uint64_t)tag << 32;

	return hi | (uint32_t)mix64(hi ^ idx ^ 0x9e3779b97f4a7c15ULL);
}

static bool word_ok(const struct expect *x, uint64_t idx, uint64_t v)
{
	uint32_t tag = (uint32_t)(v >> 32);

	if (x->exact)
		return v == (x->tag ? tag_word(x->tag, idx) : 0);
	return !v || ((tag & TAG_MARK) && (tag >> 20 & 0x7ff) == x->owner &&
		      (tag >> 16 & 0xf) == x->slot && v == tag_word(tag, idx));
}

/*
 * A word that breaks a "0 or a word of ..." rule may be one the owner is
 * rewriting through write(), seen half-copied: give it time to settle.
 */
static bool settles(const struct view *v, uint64_t off, const struct expect *x,
		    uint64_t *val)
{
	uint64_t end = now_ns() + SETTLE_NS;

	while (!x->exact && now_ns() < end) {
		sleep_ms(1);
		if (v->map)
			*val = *(volatile const uint64_t *)(v->map + off - v->base);
		else if (pread(v->fd, val, 8, (off_t)off) != 8)
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

	if (x->exact)
		snprintf(want, sizeof(want), "0x%016" PRIx64,
			 x->tag ? tag_word(x->tag, off / 8) : 0);
	else
		snprintf(want, sizeof(want), "0 or a word of worker %u slot %u",
			 x->owner, x->slot);
	failf(w, "%s: %s: MISMATCH at offset %" PRIu64 ": got 0x%016" PRIx64
	      ", want %s", op_names[op], what, off, got, want);
	return false;
}

/*
 * Check [from, to) (multiples of 8) of a view, CHUNK_WORDS words at a time
 * through w->chunk; report the first bad word.
 */
static bool scan(struct worker *w, enum op op, const char *what,
		 const struct view *v, uint64_t from, uint64_t to,
		 const struct expect *x)
{
	uint64_t off, val, n, i;
	ssize_t r;

	for (off = from; off + 8 <= to; off += 8 * n) {
		n = (to - off) / 8 < CHUNK_WORDS ? (to - off) / 8 : CHUNK_WORDS;
		for (i = 0; v->map && i < n; i++)
			w->chunk[i] = *(volatile const uint64_t *)(v->map + off + 8 * i - v->base);
		r = v->map ? (ssize_t)(n * 8) : pread(v->fd, w->chunk, n * 8, (off_t)off);
		if (r < 0)
			return expect(w, op, what, errno, M(OK));
		if (r != (ssize_t)(n * 8)) {
			failf(w, "%s: %s: short read at %" PRIu64 ": %zd of %" PRIu64,
			      op_names[op], what, off, r, n * 8);
			return false;
		}
		for (i = 0; i < n; i++) {
			val = w->chunk[i];
			if (!word_ok(x, off / 8 + i, val) &&
			    !settles(v, off + 8 * i, x, &val))
				return report_bad(w, op, what, off + 8 * i, val, x);
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
		n = size - off < sizeof(w->chunk) ? size - off : sizeof(w->chunk);
		for (i = 0; i < n / 8; i++)
			w->chunk[i] = tag_word(tag, off / 8 + i);
		r = sequential ? write(fd, w->chunk, n) : pwrite(fd, w->chunk, n, (off_t)off);
		if ((uint64_t)r != n)
			return r < 0 ? errno : EIO;
	}
	return 0;
}

/* ---- instances, slots and handles ---- */

static struct instance *inst_new(uint64_t size)
{
	struct instance *in = calloc(1, sizeof(*in));

	if (!in) {
		say("FAIL: out of memory");
		exit(EXIT_FAILURE);
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
	s->gone = certain || (!s->enabled && s->gone);
	s->enabled = false;
	inst_put(s->cur);
	s->cur = NULL;
}

static void slot_lost(struct slot *s, bool certain)
{
	slot_down(s, certain);
	s->exists = false;
	s->ready = false;
	s->size = 0;
}

/* A file, mapping or dma-buf of ours keeps the current buffer of @s. */
static bool holds_cur(struct worker *w, struct slot *s)
{
	int i;

	if (!s->cur)
		return false;
	for (i = 0; i < MAX_HANDLES; i++)
		if (w->h[i].used && w->h[i].o.inst == s->cur)
			return true;
	for (i = 0; i < MAX_DBUFS; i++)
		if (w->d[i].used && w->d[i].o.inst == s->cur)
			return true;
	return false;
}

/*
 * The entries of a worker's arrays (handles, dma-bufs, pipes, rings) start
 * with "bool used": a free one, cleared, or NULL (none free); a random used
 * one, or NULL.
 */
static void *entry_new(void *arr, size_t n, size_t size)
{
	size_t i;

	for (i = 0; i < n; i++) {
		bool *used = (bool *)((char *)arr + i * size);

		if (!*used) {
			memset(used, 0, size);
			return used;
		}
	}
	return NULL;
}

static void *entry_pick(struct worker *w, void *arr, size_t n, size_t size)
{
	void *c[MAX_HANDLES];	/* the largest array */
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (*(bool *)((char *)arr + i * size))
			c[k++] = (char *)arr + i * size;
	return k ? c[rnd_below(w, (unsigned int)k)] : NULL;
}

#define NEW_ENTRY(a)		entry_new(a, ARRAY_SIZE(a), sizeof((a)[0]))
#define PICK_ENTRY(w, a)	entry_pick(w, a, ARRAY_SIZE(a), sizeof((a)[0]))

/* A random row for w->op of a table whose rows start with their enum op. */
static const void *row_pick(struct worker *w, const void *rows, size_t n,
			    size_t size)
{
	unsigned int c[16], k = 0, i;

	for (i = 0; i < n; i++)
		if (*(const enum op *)((const char *)rows + i * size) == w->op)
			c[k++] = i;
	return (const char *)rows + c[rnd_below(w, k)] * size;
}

#define PICK_ROW(w, a)	row_pick(w, a, ARRAY_SIZE(a), sizeof((a)[0]))

static bool own_data(enum hkind k) { return k == H_OWN || k == H_PROC; }

/* A random handle that has all that @want (HW_*) asks for, or NULL. */
static struct handle *pick_handle(struct worker *w, unsigned int want)
{
	struct handle *c[MAX_HANDLES], *h;
	int n = 0;

	for (h = w->h; h < w->h + MAX_HANDLES; h++)
		if (h->used && (!(want & HW_FD) || h->fd >= 0) &&
		    (!(want & HW_MAP) || h->map) && (!(want & HW_UNMAPPED) || !h->map) &&
		    (!(want & HW_MINE) || h->o.kind != H_VICTIM) &&
		    (!(want & HW_VICTIM) || h->o.kind == H_VICTIM) &&
		    (!(want & HW_WRITER) || (own_data(h->o.kind) && h->writable)) &&
		    (!(want & HW_UNPUB) || h->board < 0))
			c[n++] = h;
	return n ? c[rnd_below(w, (unsigned int)n)] : NULL;
}

/*
 * What the bytes of [0, size) of an origin's buffer must be, or with @tail
 * those beyond size, up to the page end (a mapping's whole pages).
 */
static void origin_expect(const struct origin *o, struct expect *x, bool tail)
{
	*x = (struct expect){
		.exact = own_data(o->kind) ? !tail : o->kind == H_ZERO,
		.tag = own_data(o->kind) ? o->inst->tag : 0,
		.owner = o->owner, .slot = o->oslot,
	};
}

/* Where a handle's data comes from; with a reference on its instance. */
static void origin_of(const struct handle *h, struct origin *o)
{
	*o = h->o;
	if (o->inst)
		o->inst->refs++;
}

static void origin_put(struct origin *o)
{
	inst_put(o->inst);
	o->inst = NULL;
}

/*
 * Check [off, off + len) of a buffer as @v shows it, against what its
 * origin says: its bytes up to the buffer's size, the page's tail after.
 */
static bool scan_origin(struct worker *w, enum op op, const char *what,
			const struct view *v, uint64_t off, uint64_t len,
			const struct origin *o)
{
	uint64_t end = off + len, to = end < o->size ? end : o->size;
	struct expect x, tx;

	origin_expect(o, &x, false);
	origin_expect(o, &tx, true);
	if (off < to && !scan(w, op, what, v, off, to, &x))
		return false;
	return scan(w, op, what, v, off > o->size ? off : o->size, end, &tx);
}

static void op_publish(struct worker *w, struct handle *h)
{
	struct board_entry *b = &board[w->tidx];

	pthread_rwlock_wrlock(&b->lock);
	if (!b->active) {
		b->v = (struct view){ .map = h->map, .base = h->map_off, .fd = -1 };
		b->len = h->map_len;
		origin_expect(&h->o, &b->x, true);
		b->active = true;
		h->board = w->tidx;
	}
	pthread_rwlock_unlock(&b->lock);
}

static void handle_unmap(struct worker *w, struct handle *h)
{
	if (h->board >= 0) {	/* withdrawn from the board first */
		pthread_rwlock_wrlock(&board[h->board].lock);
		board[h->board].active = false;
		pthread_rwlock_unlock(&board[h->board].lock);
		h->board = -1;
	}
	if (munmap((void *)h->map, h->map_len))
		expect(w, OP_unmap, "munmap", errno, M(OK));
	h->map = NULL;
}

static void handle_release(struct worker *w, struct handle *h)
{
	if (h->map)
		handle_unmap(w, h);
	if (h->fd >= 0 && close(h->fd))
		expect(w, OP_close, "close", errno, M(OK));
	h->fd = -1;
	origin_put(&h->o);
	h->used = false;
}

/* ---- checks through handles ---- */

/* Check what @h sees through its mapping (or, with @use_fd, its file); count it. */
static bool handle_check(struct worker *w, enum op op, struct handle *h,
			 bool use_fd)
{
	struct view v = { .map = use_fd ? NULL : h->map, .base = h->map_off,
			  .fd = h->fd };
	char what[96];

	snprintf(what, sizeof(what), "%s of a %s buffer of %" PRIu64 " bytes",
		 v.map ? "mapping" : "read()", h->o.kind == H_OWN ? "own" :
		 h->o.kind == H_PROC ? "process-scoped" :
		 h->o.kind == H_ZERO ? "never written" : "victim's", h->o.size);
	if (!scan_origin(w, op, what, &v, v.map ? h->map_off : 0,
			 v.map ? h->map_len : h->o.size, &h->o))
		return false;
	if (h->o.kind == H_VICTIM)
		atomic_fetch_add(&sh->victim_checks, 1);
	else if (h->o.kind == H_OWN && h->slot && h->o.inst != h->slot->cur)
		atomic_fetch_add(&sh->orphan_checks, 1);
	return true;
}

/* Flags of an open(2) of a device node: sometimes O_SYNC (uncached). */
static int open_flags(struct worker *w, bool rdwr)
{
	return (rdwr ? O_RDWR : O_RDONLY) | O_CLOEXEC | (coin(w, 30) ? O_SYNC : 0);
}

#define MINOR_NONE	(-2)	/* check_info(): a process-scoped buffer's file */

/*
 * GET_INFO of a freshly opened file, into *@info: the ABI, the minor of the
 * node (none for a process-scoped buffer: @want_minor MINOR_NONE), and where
 * known the size and minor of the buffer.
 */
static bool check_info(struct worker *w, enum op op, int fd, uint64_t size,
		       int want_minor, struct udmabuf_cfs_info *info)
{
	bool node = want_minor != MINOR_NONE;
	struct stat st;

	if (!expect(w, op, "GET_INFO", get_info(fd, info), M(OK)))
		return false;
	if (fstat(fd, &st)) {
		failf(w, "%s: fstat: %s", op_names[op], strerror(errno));
		return false;
	}
	if (info->abi_version != UDMABUF_CFS_ABI_VERSION ||
	    S_ISCHR(st.st_mode) != node ||
	    (node && info->minor != minor(st.st_rdev)) ||
	    (want_minor >= 0 && info->minor != (unsigned int)want_minor) ||
	    (size && info->size != size) || !info->size ||
	    (!size && info->size > MAX_SIZE) || info->sync_mode > 7) {
		failf(w, "%s: GET_INFO says abi %u, minor %u (node %u, want %d), "
		      "size %llu (want %" PRIu64 "), sync_mode %u",
		      op_names[op], info->abi_version, info->minor,
		      minor(st.st_rdev), want_minor, (unsigned long long)info->size,
		      size, info->sync_mode);
		return false;
	}
	return true;
}

/*
 * A new handle of @kind for @fd, a file just opened (O_RDWR: @rdwr), once
 * GET_INFO agrees (@size and @minor as for check_info()); else @fd closes.
 */
static struct handle *handle_take(struct worker *w, enum op op, int fd,
				  enum hkind kind, bool rdwr, uint64_t size,
				  int minor)
{
	struct handle *h = NEW_ENTRY(w->h);
	struct udmabuf_cfs_info info;

	h->used = true;
	h->board = -1;
	h->fd = fd;
	h->writable = rdwr;
	h->o.kind = kind;
	h->o.owner = (unsigned int)w->id;
	if (!check_info(w, op, fd, size, minor, &info)) {
		handle_release(w, h);
		return NULL;
	}
	h->o.size = info.size;
	h->pages = info.flags & UDMABUF_CFS_INFO_PAGES;
	return h;
}

/* ---- own items ---- */

static int private_minor(int worker, unsigned int slot)
{
	return MINOR_PRIVATE + 16 * worker + (int)slot;
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

/* Write @val to @attr of the item @name: the errno, or -1 if not in @ok. */
static int item_write(struct worker *w, enum op op, const char *name,
		      const char *attr, const char *val, unsigned int ok)
{
	char path[160], what[240];
	int err;

	snprintf(path, sizeof(path), CFS "/%s/%s", name, attr);
	snprintf(what, sizeof(what), "%s=%s", path, val);
	err = write_attr(path, val);
	return expect(w, op, what, err, ok) ? err : -1;
}

/* mkdir (@make) or rmdir of the item @name: as item_write(). */
static int item_dir(struct worker *w, enum op op, const char *name, bool make,
		    unsigned int ok)
{
	char path[160];
	int err;

	snprintf(path, sizeof(path), CFS "/%s", name);
	err = (make ? mkdir(path, 0755) : rmdir(path)) ? errno : 0;
	return expect(w, op, path, err, ok) ? err : -1;
}

/* Write one attribute of an own item; false if the item is gone or bad. */
static bool slot_write(struct worker *w, enum op op, struct slot *s,
		       const char *attr, const char *val, unsigned int ok)
{
	int err = item_write(w, op, s->name, attr, val, ok);

	if (err == ENOENT)
		slot_lost(s, false);
	return !err;
}

static void probe_setup_names(struct worker *w, struct slot *s)
{
	s->probe = (enum pkind)rnd_below(w, 3);
	snprintf(s->dev, sizeof(s->dev), "%s", s->name);
	s->minor = s->probe == P_MINOR ? MINOR_CONTENDED + (int)rnd_below(w, CONTENDED) : -1;
	if (s->probe == P_NAME)
		snprintf(s->dev, sizeof(s->dev), PREFIX "-c%u",
			 rnd_below(w, CONTENDED));
}

/* The configuration attributes, as config_write() writes them. */
enum cattr { CA_SIZE, CA_MINOR, CA_NAME, CA_MASK, CA_MODE, CA_SYNC_MODE, CA_NUM };

/*
 * Write configuration attribute @a of @s's item with what its owner would
 * write: a new size (to @size), its minor, name (with a newline or
 * without) and mode, any mask and sync_mode.  The errno, or -1 if not in
 * @ok.
 */
static int config_write(struct worker *w, struct slot *s, enum cattr a,
			unsigned int ok, uint64_t *size)
{
	static const char *const attrs[CA_NUM] = {
		"size", "minor", "device_name", "dma_mask", "mode", "sync_mode",
	};
	char val[64];

	switch (a) {
	case CA_SIZE:
		*size = s->kind == S_PROBE ? small_size(w) : private_size(w);
		snprintf(val, sizeof(val), "%" PRIu64, *size);
		break;
	case CA_MINOR:
		snprintf(val, sizeof(val), "%d", s->minor);
		break;
	case CA_NAME:
		snprintf(val, sizeof(val), "%s%s", s->dev, coin(w, 50) ? "\n" : "");
		break;
	case CA_MODE:
		snprintf(val, sizeof(val), "%o", s->mode);
		break;
	default:
		snprintf(val, sizeof(val), "%u",
			 a == CA_MASK ? (coin(w, 50) ? 32 : 64) : rnd_below(w, 8));
		break;
	}
	return item_write(w, w->op, s->name, attrs[a], val, ok);
}

/*
 * Right after mkdir: size (but now and then: enable must say EINVAL),
 * minor, device name and sometimes mode.
 */
static void slot_setup(struct worker *w, struct slot *s)
{
	uint64_t size = 0;
	enum cattr a;
	int err;

	if (s->kind == S_PROBE)
		probe_setup_names(w, s);
	s->mode = coin(w, 30) ? (coin(w, 50) ? 0640 : 0666) : 0600;
	for (a = CA_SIZE; a <= CA_MODE; a++) {
		if (a == CA_MASK || (a == CA_SIZE && coin(w, 5)) ||
		    (a == CA_MODE && s->mode == 0600) ||
		    (a == CA_NAME && !strcmp(s->dev, s->name) && coin(w, 50)))
			continue;
		err = config_write(w, s, a, M(OK) | M(ENOENT), &size);
		if (err == ENOENT)
			slot_lost(s, false);
		if (err)
			return;
	}
	s->size = size;
	s->ready = true;
}

static void op_mkdir(struct worker *w, struct slot *s)
{
	if (item_dir(w, OP_mkdir, s->name, true,
		     s->exists ? M(OK) | M(EEXIST) : M(OK)))
		return;
	/* Removed by another worker; its rmdir has finished. */
	slot_lost(s, true);
	s->exists = true;
	slot_setup(w, s);
}

/* A configuration write; enabled items refuse it unless someone disabled. */
static void op_config(struct worker *w, struct slot *s)
{
	enum cattr a = rnd_below(w, CA_NUM);
	unsigned int ok = M(OK) | M(ENOENT);
	uint64_t size = 0;
	int err;

	if (!s->ready)
		return;
	if (a != CA_SYNC_MODE && s->enabled)
		ok |= M(EBUSY);
	err = config_write(w, s, a, ok, &size);
	if (err == ENOENT)
		slot_lost(s, false);
	if (err)
		return;
	if (a != CA_SYNC_MODE && s->enabled)	/* another worker disabled it */
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

static void op_bad_value(struct worker *w, struct slot *s)
{
	unsigned int i = rnd_below(w, ARRAY_SIZE(bad_values));

	if (!s->exists)
		return;
	/* The value is checked before the state: the same errno enabled or not. */
	slot_write(w, OP_bad_value, s, bad_values[i].attr, bad_values[i].val,
		   1u << bad_values[i].res | M(ENOENT));
}

static void op_enable(struct worker *w, struct slot *s)
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

static void op_disable(struct worker *w, struct slot *s)
{
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

static void op_rmdir(struct worker *w, struct slot *s)
{
	/* ENOENT: another worker's rmdir, which has finished. */
	if (s->exists &&
	    item_dir(w, OP_rmdir, s->name, false, M(OK) | M(ENOENT)) >= 0)
		slot_lost(s, true);
}

/* What is certainly gone answers ENOENT, and nothing else. */
static void op_absent(struct worker *w, struct slot *s)
{
	unsigned int r = rnd_below(w, 3);
	char path[160];
	struct stat st;

	snprintf(path, sizeof(path), CLASS "/%s", s->dev);
	if (s->exists)
		return;
	if (r == 0)
		item_dir(w, OP_absent, s->name, false, M(ENOENT));
	else if (r == 1)
		item_write(w, OP_absent, s->name, "size", "4096", M(ENOENT));
	/* Its class device, unless a probe's contended name may be another's. */
	else if (s->gone && !(s->kind == S_PROBE && s->probe == P_NAME))
		expect(w, OP_absent, path, stat(path, &st) ? errno : 0, M(ENOENT));
}

static struct handle *slot_open(struct worker *w, struct slot *s, bool rdwr)
{
	bool own = s->kind == S_PRIVATE;
	unsigned int ok = M(OK) | M(ENOENT) | M(ENODEV);
	struct handle *h;
	int fd;

	if (!NEW_ENTRY(w->h))
		return NULL;
	/* The node of a probe with a contended name may be anyone's. */
	if (!s->enabled && !(s->kind == S_PROBE && s->probe == P_NAME))
		ok = s->gone ? M(ENOENT) : M(ENOENT) | M(ENODEV);
	fd = open_ok(w, OP_open, open_flags(w, rdwr), ok, "/dev/%s", s->dev);
	if (fd < 0) {
		slot_down(s, false);
		return NULL;
	}
	h = handle_take(w, OP_open, fd, own ? H_OWN : H_ZERO, rdwr,
			own ? s->cur->size : 0, own ? s->minor : -1);
	if (h && own) {
		h->o.inst = s->cur;
		h->o.inst->refs++;
		h->slot = s;
		h->o.oslot = s->index;
	}
	return h;
}

static void op_open(struct worker *w, struct slot *s)
{
	slot_open(w, s, coin(w, 70));
}

/* Map all of a handle's buffer, or a random part of it; then check it. */
static void handle_map(struct worker *w, struct handle *h, bool whole)
{
	uint64_t pages = page_round(h->o.size) / cfg.page, off = 0, len = pages;
	/* Parameter buffers are never written, but may be pinned for writing. */
	bool rw = h->writable && (own_data(h->o.kind) || h->live);
	void *p;

	if (!whole) {
		off = rnd_below(w, (unsigned int)pages);
		len = 1 + rnd_below(w, (unsigned int)(pages - off));
	}
	p = mmap(NULL, len * cfg.page, PROT_READ | (rw ? PROT_WRITE : 0), MAP_SHARED,
		 h->fd, (off_t)(off * cfg.page));
	if (!expect(w, OP_mmap, "mmap", p == MAP_FAILED ? errno : 0, M(OK)))
		return;
	h->map = p;
	h->map_off = off * cfg.page;
	h->map_len = len * cfg.page;
	h->map_writable = rw;
	handle_check(w, OP_mmap, h, false);
}

static void op_mmap(struct worker *w, struct handle *h)
{
	handle_map(w, h, coin(w, 60));
}

/* Write a new pattern through a handle, and hand it to the device and back. */
static bool handle_fill(struct worker *w, struct handle *h)
{
	struct instance *in = h->o.inst;
	uint32_t tag = make_tag((unsigned int)w->id, h->o.oslot, ++w->seq);
	const uint32_t dir = UDMABUF_CFS_DIR_BIDIRECTIONAL;
	uint64_t o;

	if (h->map && h->map_writable && h->map_off == 0 &&
	    h->map_len >= in->alloc && coin(w, 60)) {
		for (o = 0; o + 8 <= in->alloc; o += 8)
			*(volatile uint64_t *)(h->map + o) = tag_word(tag, o / 8);
	} else if (!expect(w, OP_fill, "write of the pattern",
			   fill_fd(w, h->fd, in->size, tag, coin(w, 50)), M(OK))) {
		return false;
	}
	if (!expect(w, OP_fill, "SYNC_FOR_DEVICE",
		    sync_ioctl(h->fd, false, 0, 0, dir, 0) ? errno : 0, M(OK)) ||
	    !expect(w, OP_fill, "SYNC_FOR_CPU",
		    sync_ioctl(h->fd, true, 0, 0, dir, 0) ? errno : 0, M(OK)))
		return false;
	in->tag = tag;
	return true;
}

static void op_fill(struct worker *w, struct handle *h)
{
	handle_fill(w, h);
}

static void op_verify(struct worker *w, struct handle *h)
{
	handle_check(w, OP_verify, h, !h->map || (h->fd >= 0 && coin(w, 30)));
}

/* read() from offset 0 in random pieces up to end of file. */
static void op_read_seq(struct worker *w, struct handle *h)
{
	struct view v = { .map = (volatile const uint8_t *)w->chunk, .fd = -1 };
	struct expect x;
	uint64_t off = 0;
	ssize_t r;

	origin_expect(&h->o, &x, false);
	if (!expect(w, OP_read_seq, "lseek to 0",
		    lseek(h->fd, 0, SEEK_SET) ? errno ? errno : EIO : 0, M(OK)))
		return;
	for (;;) {
		r = read(h->fd, w->chunk, 8 * (1 + rnd_below(w, CHUNK_WORDS)));
		if (!expect(w, OP_read_seq, "read", r < 0 ? errno : 0, M(OK)))
			return;
		if (!r)
			break;
		if (r % 8 || off + (uint64_t)r > h->o.size) {
			failf(w, "read_seq: read %zd bytes at %" PRIu64 " of %" PRIu64,
			      r, off, h->o.size);
			return;
		}
		v.base = off;
		if (!scan(w, OP_read_seq, "read()", &v, off, off + (uint64_t)r, &x))
			return;
		off += (uint64_t)r;
	}
	if (off != h->o.size)
		failf(w, "read_seq: end of file after %" PRIu64 " of %" PRIu64
		      " bytes", off, h->o.size);
}

/* The edges of a file of fixed size: EOF, ENOSPC, lseek limits. */
static void op_io_edges(struct worker *w, struct handle *h)
{
	uint64_t word = 0;
	off_t pos;
	ssize_t r;

	r = pread(h->fd, &word, 8, (off_t)h->o.size);
	if (expect(w, OP_io_edges, "pread at the end", r < 0 ? errno : 0, M(OK)) &&
	    r != 0)
		failf(w, "io_edges: pread at the end returned %zd", r);
	r = pwrite(h->fd, &word, 8, (off_t)h->o.size);
	expect(w, OP_io_edges, "pwrite at the end", r < 0 ? errno : 0,
	       h->writable ? M(ENOSPC) : M(EBADF));
	pos = lseek(h->fd, (off_t)h->o.size + 8, SEEK_SET);
	expect(w, OP_io_edges, "lseek past the end", pos < 0 ? errno : 0,
	       M(EINVAL));
	pos = lseek(h->fd, 0, SEEK_END);
	if (expect(w, OP_io_edges, "lseek to the end", pos < 0 ? errno : 0,
		   M(OK)) && (uint64_t)pos != h->o.size)
		failf(w, "io_edges: SEEK_END gave %lld, size %" PRIu64,
		      (long long)pos, h->o.size);
}

static void op_ioctl(struct worker *w, struct handle *h)
{
	struct udmabuf_cfs_info info;
	uint64_t off, len;
	uint32_t dir;

	if (!check_info(w, OP_ioctl, h->fd, h->o.size,
			h->o.kind == H_PROC ? MINOR_NONE : -1, &info))
		return;
	off = rnd(w) % h->o.size;
	len = coin(w, 30) ? 0 : 1 + rnd(w) % (h->o.size - off);
	dir = rnd_below(w, 3);
	expect(w, OP_ioctl, "SYNC_FOR_DEVICE",
	       sync_ioctl(h->fd, false, off, len, dir, 0) ? errno : 0, M(OK));
	/* Giving the CPU a range back may discard what others cached. */
	if (!own_data(h->o.kind))
		dir = UDMABUF_CFS_DIR_TO_DEVICE;
	expect(w, OP_ioctl, "SYNC_FOR_CPU",
	       sync_ioctl(h->fd, true, off, len, dir, 0) ? errno : 0, M(OK));
}

static void op_close(struct worker *w, struct handle *h)
{
	if (h->map && coin(w, 50)) {	/* the mapping keeps the file */
		expect(w, OP_close, "close", close(h->fd) ? errno : 0, M(OK));
		h->fd = -1;
		return;
	}
	handle_release(w, h);
}

static void op_unmap(struct worker *w, struct handle *h)
{
	handle_unmap(w, h);
	if (h->fd < 0)	/* nothing else holds it */
		handle_release(w, h);
}

/* A child checks the mapping it inherited, then exits (and drops it). */
static void op_fork_verify(struct worker *w, struct handle *h)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(handle_check(w, OP_fork_verify, h, false) ? 0 : 2);
	if (!expect(w, OP_fork_verify, "fork", pid < 0 ? errno : 0, M(OK)))
		return;
	if (waitpid(pid, &status, 0) != pid)
		failf(w, "fork_verify: waitpid: %s", strerror(errno));
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		failf(w, "fork_verify: the child found other data in the inherited mapping (status 0x%x)",
		      status);
}

/* Check a mapping a sibling thread published, while it goes on working. */
static void op_sibling_verify(struct worker *w)
{
	int t = (int)rnd_below(w, cfg.threads - 1);
	struct board_entry *b = &board[t >= w->tidx ? t + 1 : t];

	pthread_rwlock_rdlock(&b->lock);
	if (b->active)
		scan(w, OP_sibling_verify, "a sibling's mapping", &b->v, b->v.base,
		     b->v.base + b->len, &b->x);
	pthread_rwlock_unlock(&b->lock);
}

/* /dev node, configfs dev and the class device tell the same story. */
static void op_inspect(struct worker *w, struct slot *s)
{
	char path[160], val[64];
	unsigned int maj, min;
	struct stat st;
	int err;

	if (!s->enabled)
		return;
	snprintf(path, sizeof(path), "/dev/%s", s->dev);
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
	snprintf(path, sizeof(path), CFS "/%s/dev", s->name);
	err = read_file(path, val, sizeof(val));
	if (!expect(w, OP_inspect, path, err, M(OK) | M(ENOENT)) ||
	    err || !val[0])
		return;
	if (sscanf(val, "%u:%u", &maj, &min) != 2 || (int)min != s->minor)
		failf(w, "inspect: %s reads \"%s\", want minor %d", path, val,
		      s->minor);
}

/* ---- attacks on other workers' buffers ---- */

static bool pick_victim(struct worker *w, struct victim *v)
{
	unsigned int n = cfg.procs * cfg.threads;

	if (n < 2)
		return false;
	v->owner = rnd_below(w, n - 1);
	if (v->owner >= (unsigned int)w->id)
		v->owner++;
	v->slot = rnd_below(w, cfg.slots);
	snprintf(v->name, sizeof(v->name), "%s-w%u-%u", PREFIX, v->owner,
		 v->slot);
	v->minor = private_minor((int)v->owner, v->slot);
	return true;
}

/* GET_INFO and the first 64 KiB of a victim's buffer, through @fd; close it. */
static void peek_victim(struct worker *w, enum op op, int fd,
			const struct victim *v, const char *what)
{
	struct view view = { .map = NULL, .fd = fd };
	struct expect x = { .exact = false, .owner = v->owner, .slot = v->slot };
	struct udmabuf_cfs_info info;

	if (check_info(w, op, fd, 0, v->minor, &info) &&
	    scan(w, op, what, &view, 0, info.size < 65536 ? info.size : 65536, &x))
		atomic_fetch_add(&sh->victim_checks, 1);
	close(fd);
}

static void op_attack_open(struct worker *w)
{
	struct victim v;
	struct handle *h;
	int fd;

	if (!pick_victim(w, &v))
		return;
	fd = open_ok(w, OP_attack_open, open_flags(w, false), M(OK) | M(ENOENT) | M(ENODEV),
		     "/dev/%s", v.name);
	if (fd < 0)
		return;
	if (NEW_ENTRY(w->h) && coin(w, 60)) {
		h = handle_take(w, OP_attack_open, fd, H_VICTIM, false, 0, v.minor);
		if (h) {
			h->o.owner = v.owner;
			h->o.oslot = v.slot;
		}
		return;
	}
	peek_victim(w, OP_attack_open, fd, &v, v.name);
}

/* Check a victim's buffer through its file or mapping, or map it (read-only). */
static void op_attack_verify(struct worker *w, struct handle *h)
{
	if (!h->map && h->fd >= 0 && coin(w, 50))
		handle_map(w, h, true);
	else
		handle_check(w, OP_attack_verify, h, h->fd >= 0 && coin(w, 30));
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
	char path[160], val[128] = "";	/* read() leaves it terminated */
	ssize_t n;
	int fd;

	if (!pick_victim(w, &v))
		return;
	snprintf(path, sizeof(path), CLASS "/%s/%s", v.name, attr);
	/* The device may go between open (ENOENT too) and read (ENODEV only). */
	fd = open_ok(w, OP_attack_sysfs, O_RDONLY | O_CLOEXEC, M(OK) | M(ENOENT) | M(ENODEV),
		     "%s", path);
	if (fd < 0)
		return;
	n = read(fd, val, sizeof(val) - 1);
	close(fd);
	if (expect(w, OP_attack_sysfs, path, n < 0 ? errno : 0, M(OK) | M(ENODEV)) &&
	    n >= 0 && !sysfs_value_ok(attr, val))
		failf(w, "attack_sysfs: %s reads \"%s\"", path, val);
}

/*
 * Writes to a victim's item and class device (sync_mode; cache maintenance
 * that never discards data, and bad requests for it) and its rmdir.
 */
#define GOOD_SYNC	(M(OK) | M(ENOENT) | M(ENODEV))
#define BAD_SYNC	(M(EINVAL) | M(ENOENT) | M(ENODEV))

static void op_attack_write(struct worker *w)
{
	static const struct attack {
		enum op op;
		const char *dir, *attr, *val;	/* attr NULL: rmdir; val NULL: 0-7 */
		unsigned int ok;
	} writes[] = {
		{ OP_attack_rmdir, CFS, NULL, NULL, M(OK) | M(ENOENT) },
		{ OP_attack_disable, CFS, "enable", "0", M(OK) | M(EBUSY) | M(ENOENT) },
		{ OP_attack_sync_mode, CFS, "sync_mode", NULL, M(OK) | M(ENOENT) },
		{ OP_attack_sync_mode, CLASS, "sync_mode", NULL,
		  M(OK) | M(ENOENT) | M(ENODEV) },
		{ OP_attack_sync, CLASS, "sync_for_device", "1", GOOD_SYNC },
		{ OP_attack_sync, CLASS, "sync_for_device", "0 0 0", GOOD_SYNC },
		{ OP_attack_sync, CLASS, "sync_for_device", "0 4096 1\n", GOOD_SYNC },
		{ OP_attack_sync, CLASS, "sync_for_cpu", "0 0 1", GOOD_SYNC },
		{ OP_attack_sync, CLASS, "sync_for_device", "1T 4096 0", BAD_SYNC },
		{ OP_attack_sync, CLASS, "sync_for_cpu", "0 0 3", BAD_SYNC },
		{ OP_attack_sync, CLASS, "sync_for_device", "x", BAD_SYNC },
	};
	const struct attack *a = PICK_ROW(w, writes);
	char path[160], val[8];
	struct victim v;

	if (!pick_victim(w, &v))
		return;
	if (!a->attr) {
		item_dir(w, w->op, v.name, false, a->ok);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", a->dir, v.name, a->attr);
	snprintf(val, sizeof(val), "%u", rnd_below(w, 8));
	expect(w, w->op, path, write_attr(path, a->val ? a->val : val), a->ok);
}

/* The first line of @path that holds @needle, into @line: false if none. */
static bool file_line(const char *path, const char *needle, char *line, int len)
{
	FILE *f = fopen(path, "re");
	bool found = false;

	while (f && !found && fgets(line, len, f))
		found = strstr(line, needle);
	if (f)
		fclose(f);
	return found;
}

static unsigned int udmabuf_major(void)
{
	unsigned int major = 0;
	char line[128];

	if (file_line("/proc/devices", " udmabuf\n", line, sizeof(line)))
		sscanf(line, "%u", &major);
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
		w->sv.minor = -1;
		return;
	}
	w->sv = v;
}

/* A node made with mknod: a buffer of that slot, or ENODEV. */
static void op_stale_open(struct worker *w)
{
	int fd;

	if (w->sv.minor < 0 || coin(w, 10)) {
		stale_make(w);
		return;
	}
	fd = open_ok(w, OP_stale_open, O_RDONLY | O_CLOEXEC, M(OK) | M(ENODEV), "%s", w->stale);
	if (fd >= 0)
		peek_victim(w, OP_stale_open, fd, &w->sv, w->stale);
}

/* ---- the pool: items anyone makes, changes and removes ---- */

/*
 * mkdir (and a size), a configuration write (values as a probe's),
 * enable=1, enable=0 or rmdir of a random pool item, whose state nobody
 * knows.
 */
static void op_pool(struct worker *w)
{
	struct slot s = { .kind = S_PROBE, .mode = 0600 };
	enum cattr a = rnd_below(w, CA_NUM);
	unsigned int ok = M(OK) | M(EBUSY) | M(ENOENT);
	uint64_t size;

	snprintf(s.name, sizeof(s.name), PREFIX "-pool%u",
		 rnd_below(w, POOL_ITEMS));
	probe_setup_names(w, &s);
	/* enable=1: size 0 (EINVAL), a taken minor (EBUSY) or name (EEXIST), no memory */
	if (w->op == OP_pool_rmdir)
		item_dir(w, w->op, s.name, false, M(OK) | M(ENOENT));
	else if (w->op == OP_pool_mkdir && !item_dir(w, w->op, s.name, true, M(OK) | M(EEXIST)))
		config_write(w, &s, CA_SIZE, ok, &size);
	else if (w->op == OP_pool_config)
		config_write(w, &s, a, a == CA_SYNC_MODE ? M(OK) | M(ENOENT) : ok, &size);
	else if (w->op == OP_pool_enable)
		item_write(w, w->op, s.name, "enable", "1", ok | M(ENOMEM) | M(EEXIST) | M(EINVAL));
	else if (w->op == OP_pool_disable)
		item_write(w, w->op, s.name, "enable", "0", ok);
}

/* Pool and probe buffers are never written: they read 0. */
static void op_pool_open(struct worker *w)
{
	bool rdwr = coin(w, 50), pool = coin(w, 50);
	unsigned int k = rnd_below(w, pool ? POOL_ITEMS : CONTENDED);
	int fd;

	if (!NEW_ENTRY(w->h))
		return;
	fd = open_ok(w, OP_pool_open, open_flags(w, rdwr), M(OK) | M(ENOENT) | M(ENODEV),
		     "/dev/" PREFIX "-%s%u", pool ? "pool" : "c", k);
	if (fd >= 0)
		handle_take(w, OP_pool_open, fd, H_ZERO, rdwr, 0, -1);
}

/* While the coordinator's sentinel exists, the module is busy. */
static void op_rmmod(struct worker *w)
{
	expect(w, OP_rmmod, "delete_module " MODNAME, delete_module(),
	       M(EAGAIN));
}

/* ---- process-scoped buffers ---- */

/* A random valid request for a buffer of up to MAX_SIZE bytes. */
static void alloc_request(struct worker *w, struct udmabuf_cfs_alloc *req,
			  uint64_t size, bool rdwr)
{
	static const uint32_t bits[] = { 0, 32, 64 };

	memset(req, 0, sizeof(*req));
	req->size = size;
	req->flags = (rdwr ? O_RDWR : O_RDONLY) | (coin(w, 50) ? O_CLOEXEC : 0);
	req->sync_mode = rnd_below(w, 8);
	req->dma_bits = bits[rnd_below(w, 3)];
	req->allocator = coin(w, 85) ? rnd_below(w, 3) : UDMABUF_CFS_ALLOCATOR_CMA;
}

/* ALLOC on /dev/udmabuf-cfs: the errno (0: req->fd is the buffer). */
static int alloc_ioctl(struct udmabuf_cfs_alloc *req)
{
	int fd = open(PROCDEV, O_RDWR | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (ioctl(fd, UDMABUF_CFS_IOC_ALLOC, req))
		err = errno;
	close(fd);
	return err;
}

/* A new buffer (true), or ENOMEM (false); anything else fails the run. */
static bool proc_alloc(struct worker *w, enum op op,
		       struct udmabuf_cfs_alloc *req)
{
	int err = alloc_ioctl(req);

	return expect(w, op, "ALLOC", err, M(OK) | M(ENOMEM)) && !err;
}

/* A handle of a new process-scoped buffer, or NULL (ENOMEM, a failed check). */
static struct handle *proc_open(struct worker *w, enum op op, uint64_t size,
				bool rdwr)
{
	struct udmabuf_cfs_alloc req;
	struct handle *h;

	alloc_request(w, &req, size, rdwr);
	if (!proc_alloc(w, op, &req))
		return NULL;
	h = handle_take(w, op, req.fd, H_PROC, rdwr, req.size, MINOR_NONE);
	if (h) {
		h->live = true;
		h->o.inst = inst_new(req.size);	/* the handle's reference */
		h->o.oslot = PROC_SLOT;
	}
	return h;
}

static void op_palloc(struct worker *w)
{
	struct handle *h;

	if (!NEW_ENTRY(w->h))
		return;
	h = proc_open(w, OP_palloc, private_size(w), coin(w, 80));
	/* New memory reads 0, through a mapping too. */
	if (h && coin(w, 60))
		handle_map(w, h, coin(w, 70));
}

/* ---- pages held elsewhere: dma-bufs, pipes, rings ---- */

/*
 * Check a copy in w->chunk of [off, off + len) of a buffer: what a pipe or
 * a ring gave back.  A victim's words may be half-written by its owner in
 * the copy, which cannot settle: only its own and zero buffers are checked.
 */
static void check_copy(struct worker *w, enum op op, const char *what,
		       uint64_t off, uint64_t len, const struct origin *o)
{
	struct view v = { .map = (volatile const uint8_t *)w->chunk, .base = off,
			  .fd = -1 };

	if (o->kind == H_VICTIM)
		return;
	if (scan_origin(w, op, what, &v, off, len, o))
		atomic_fetch_add(&sh->copy_checks, 1);
}

/* A random page-aligned part of a handle's mapping, of 1 to SPLICE_PAGES. */
static void pick_pages(struct worker *w, const struct handle *h,
		       uint64_t *off, uint64_t *len)
{
	uint64_t pages = h->map_len / cfg.page, first, most;

	most = sizeof(w->chunk) / cfg.page;
	most = most < SPLICE_PAGES ? most : SPLICE_PAGES;
	first = rnd_below(w, (unsigned int)pages);
	most = most < pages - first ? most : pages - first;
	*off = h->map_off + first * cfg.page;
	*len = (1 + rnd_below(w, (unsigned int)most)) * cfg.page;
}

/*
 * Map a dma-buf (unless it is: read-only, or writable if its file is) and
 * check the mapping, between DMA_BUF_IOCTL_SYNC start and end.  Not the
 * owner's: only "write" (to the device), which never discards.
 */
static void dbuf_check(struct worker *w, struct dbuf *d)
{
	uint64_t how = own_data(d->o.kind) ? DMA_BUF_SYNC_RW : DMA_BUF_SYNC_WRITE;
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | how };
	struct view v = { .base = d->off, .fd = -1 };
	bool rw = d->rdwr && coin(w, 50);
	void *p;

	if (!d->map) {
		p = mmap(NULL, d->len, PROT_READ | (rw ? PROT_WRITE : 0), MAP_SHARED, d->fd, 0);
		if (!expect(w, OP_dbuf_map, "mmap of a dma-buf", p == MAP_FAILED ? errno : 0,
			    M(OK)))
			return;
		d->map = p;
	}
	v.map = d->map;
	if (d->fd >= 0 && !expect(w, OP_dbuf_map, "DMA_BUF_IOCTL_SYNC start",
				  ioctl(d->fd, DMA_BUF_IOCTL_SYNC, &sync) ? errno : 0, M(OK)))
		return;
	if (scan_origin(w, OP_dbuf_map, "a dma-buf's mapping", &v, d->off,
			d->len, &d->o) && d->o.kind == H_VICTIM)
		atomic_fetch_add(&sh->victim_checks, 1);
	sync.flags = DMA_BUF_SYNC_END | how;
	if (d->fd >= 0)
		expect(w, OP_dbuf_map, "DMA_BUF_IOCTL_SYNC end",
		       ioctl(d->fd, DMA_BUF_IOCTL_SYNC, &sync) ? errno : 0, M(OK));
}

/*
 * Unmap and close it (@all), or at random one of them (the mapping keeps
 * the dma-buf without its file); forget it once both went.
 */
static void dbuf_release(struct worker *w, struct dbuf *d, bool all)
{
	bool unmap = all || d->fd < 0 || coin(w, 50);
	bool close_fd = all || !d->map || !unmap || coin(w, 50);

	if (d->map && unmap) {
		if (munmap((void *)d->map, d->len))
			expect(w, OP_dbuf_close, "munmap", errno, M(OK));
		d->map = NULL;
	}
	if (d->fd >= 0 && close_fd) {
		expect(w, OP_dbuf_close, "close of a dma-buf",
		       close(d->fd) ? errno : 0, M(OK));
		d->fd = -1;
	}
	if (!d->map && d->fd < 0) {
		origin_put(&d->o);
		d->used = false;
	}
}

static void op_export(struct worker *w, struct handle *h)
{
	struct dbuf *d = NEW_ENTRY(w->d);
	uint64_t alloc = page_round(h->o.size), size;

	if (!d)
		return;
	d->off = rnd_below(w, (unsigned int)(alloc / cfg.page)) * cfg.page;
	size = coin(w, 25) ? 0 : (1 + rnd_below(w, (unsigned int)
				  ((alloc - d->off) / cfg.page))) * cfg.page;
	d->rdwr = h->writable && coin(w, 50);
	d->fd = export_dmabuf(h->fd, d->off, size,
			      (d->rdwr ? O_RDWR : O_RDONLY) | (coin(w, 50) ? O_CLOEXEC : 0));
	/*
	 * A buffer removed meanwhile says ENODEV, but not one that cannot be
	 * removed while it is held (process-scoped, parameter).
	 */
	if (!expect(w, OP_export, "EXPORT_DMABUF", d->fd < 0 ? -d->fd : 0,
		    h->live ? M(OK) : M(OK) | M(ENODEV)) || d->fd < 0)
		return;
	d->used = true;
	d->len = size ? size : alloc - d->off;
	origin_of(h, &d->o);
	if (coin(w, 50))
		dbuf_check(w, d);
}

/*
 * Bad requests, each with one thing wrong, which decides the errno (the
 * request is checked before the state): on a file (mmap, the sync and
 * export ioctls, ioctls of a bad number or to a bad address) and ALLOC.
 */
enum bad_call { B_MMAP, B_SYNC, B_EXPORT, B_IOCTL, B_ALLOC };

/* Offsets and lengths of requests on a file (see bad_at()). */
enum bad_at { AT_0, AT_8, AT_HALF_PAGE, AT_PAGE, AT_SIZE, AT_ALLOC, AT_PAST, AT_HUGE };

/* How ALLOC's member changes: set, or-ed, every byte set, a random bit set. */
enum bad_set { SET, OR, FILL, BIT };

#define RDONLY	(O_RDONLY | O_CLOEXEC)
#define BAD_NR	_IOR(UDMABUF_CFS_IOC_MAGIC, 0x7f, struct udmabuf_cfs_info)

static const struct bad {
	enum op op;
	enum bad_call call;
	const char *what;
	size_t off, len;	/* enum bad_at; B_ALLOC: the member's */
	/*
	 * B_MMAP: prot, flags; B_SYNC: direction, flags; B_EXPORT: flags;
	 * B_IOCTL: the request; B_ALLOC: the value, enum bad_set.
	 */
	uint64_t a, b;
	enum res want;	/* EACCES: a request that read-only files refuse */
} bads[] = {
#define MMAP_BAD(what, off, len, prot, flags, want) \
	{ OP_mmap_bad, B_MMAP, what, off, len, prot, flags, RES_##want }
#define SYNC_BAD(what, off, len, dir, flags) \
	{ OP_ioctl_bad, B_SYNC, what, off, len, dir, flags, RES_EINVAL }
#define EXPORT_BAD(what, off, len, flags, want) \
	{ OP_export_bad, B_EXPORT, what, off, len, flags, 0, RES_##want }
#define IOCTL_BAD(op, what, arg, nr, want) \
	{ OP_##op##_bad, B_IOCTL, what, arg, AT_0, nr, 0, RES_##want }
#define ALLOC_BAD(what, m, val, how, want)					\
	{ OP_palloc_bad, B_ALLOC, what, offsetof(struct udmabuf_cfs_alloc, m),	\
	  sizeof(((struct udmabuf_cfs_alloc *)NULL)->m), val, how, RES_##want }
	MMAP_BAD("mmap MAP_PRIVATE", AT_0, AT_ALLOC, PROT_READ, MAP_PRIVATE, EINVAL),
	MMAP_BAD("mmap at the end", AT_ALLOC, AT_PAGE, PROT_READ, MAP_SHARED, EINVAL),
	MMAP_BAD("mmap of a page too many", AT_0, AT_PAST, PROT_READ, MAP_SHARED,
		 EINVAL),
	MMAP_BAD("mmap for writing of a read-only file", AT_0, AT_ALLOC,
		 PROT_READ | PROT_WRITE, MAP_SHARED, EACCES),
	IOCTL_BAD(ioctl, "unknown ioctl", AT_0, BAD_NR, ENOTTY),
	IOCTL_BAD(ioctl, "GET_INFO to a bad address", AT_8,
		  UDMABUF_CFS_IOC_GET_INFO, EFAULT),
	SYNC_BAD("sync with flags 1", AT_0, AT_0, 0, 1),
	SYNC_BAD("sync in direction 3", AT_0, AT_0, 3, 0),
	SYNC_BAD("sync at the end", AT_SIZE, AT_0, 0, 0),
	SYNC_BAD("sync 8 bytes past the end", AT_8, AT_SIZE, 0, 0),
	SYNC_BAD("sync at 2^63", AT_HUGE, AT_8, 0, 0),
	EXPORT_BAD("EXPORT_DMABUF at an unaligned offset", AT_HALF_PAGE, AT_0,
		   RDONLY, EINVAL),
	EXPORT_BAD("EXPORT_DMABUF at the end", AT_ALLOC, AT_0, RDONLY, EINVAL),
	EXPORT_BAD("EXPORT_DMABUF of a page too many", AT_0, AT_PAST, RDONLY, EINVAL),
	EXPORT_BAD("EXPORT_DMABUF with O_NONBLOCK", AT_0, AT_0, RDONLY | O_NONBLOCK,
		   EINVAL),
	EXPORT_BAD("EXPORT_DMABUF with O_WRONLY", AT_0, AT_0, O_WRONLY, EINVAL),
	EXPORT_BAD("EXPORT_DMABUF O_RDWR of a read-only file", AT_0, AT_0, O_RDWR,
		   EACCES),
	IOCTL_BAD(export, "EXPORT_DMABUF to a bad address", AT_8,
		  UDMABUF_CFS_IOC_EXPORT_DMABUF, EFAULT),
	ALLOC_BAD("ALLOC of size 0", size, 0, SET, EINVAL),
	ALLOC_BAD("ALLOC with O_NONBLOCK", flags, O_NONBLOCK, OR, EINVAL),
	ALLOC_BAD("ALLOC with O_WRONLY", flags, O_WRONLY, SET, EINVAL),
	ALLOC_BAD("ALLOC with sync_check 3", sync_check,
		  UDMABUF_CFS_SYNC_CHECK_MAX + 1, SET, ERANGE),
	ALLOC_BAD("ALLOC with a reserved bit set", reserved, 0, BIT, EINVAL),
	ALLOC_BAD("ALLOC with sync_mode 8", sync_mode, 8, SET, ERANGE),
	ALLOC_BAD("ALLOC with a DMA mask of 11 bits", dma_bits, 11, SET, ERANGE),
	ALLOC_BAD("ALLOC with a DMA mask of 65 bits", dma_bits, 65, SET, ERANGE),
	ALLOC_BAD("ALLOC with allocator 4", allocator, 4, SET, EINVAL),
	ALLOC_BAD("ALLOC with dma_device not NUL-terminated", dma_device, 'x',
		  FILL, EINVAL),
	ALLOC_BAD("ALLOC of 2^64 - 1 bytes", size, UINT64_MAX, SET, ERANGE),
};

static uint64_t bad_at(const struct handle *h, size_t at)
{
	uint64_t alloc = page_round(h->o.size);
	const uint64_t v[] = {
		0, 8, cfg.page / 2, cfg.page, h->o.size, alloc, alloc + cfg.page,
		1ULL << 63,
	};

	return v[at];
}

static void bad_member(struct worker *w, struct udmabuf_cfs_alloc *req,
		       const struct bad *b)
{
	uint8_t *m = (uint8_t *)req + b->off;
	unsigned int bit;

	if (b->b == FILL) {
		memset(m, (int)b->a, b->len);
	} else if (b->b == BIT) {
		bit = rnd_below(w, (unsigned int)(8 * b->len));
		m[bit / 8] |= (uint8_t)(1u << bit % 8);
	} else if (b->len == sizeof(uint64_t)) {
		*(uint64_t *)m = b->a | (b->b == OR ? *(uint64_t *)m : 0);
	} else {
		*(uint32_t *)m = (uint32_t)b->a | (b->b == OR ? *(uint32_t *)m : 0);
	}
}

static void op_bad(struct worker *w)
{
	const struct bad *b = PICK_ROW(w, bads);
	struct udmabuf_cfs_alloc req;
	struct handle *h = NULL;
	uint64_t off = 0, len = 0;
	int err, fd = -1;
	void *p;

	if (b->call != B_ALLOC) {
		h = pick_handle(w, HW_FD);
		if (!h || (b->want == RES_EACCES && h->writable))
			return;
		off = bad_at(h, b->off);
		len = bad_at(h, b->len);
	}
	switch (b->call) {
	case B_MMAP:
		p = mmap(NULL, len, (int)b->a, (int)b->b, h->fd, (off_t)off);
		err = p == MAP_FAILED ? errno : 0;
		if (!err)
			munmap(p, len);
		break;
	case B_SYNC:
		err = sync_ioctl(h->fd, coin(w, 50), off, len, (uint32_t)b->a,
				 (uint32_t)b->b) ? errno : 0;
		break;
	case B_EXPORT:
		fd = export_dmabuf(h->fd, off, len, (uint32_t)b->a);
		err = fd < 0 ? -fd : 0;
		break;
	case B_IOCTL:
		err = ioctl(h->fd, (unsigned long)b->a, (void *)(uintptr_t)off) ?
		      errno : 0;
		break;
	default:
		alloc_request(w, &req, 4096, true);
		bad_member(w, &req, b);
		err = alloc_ioctl(&req);
		fd = err ? -1 : req.fd;
		break;
	}
	if (fd >= 0)	/* a dma-buf or buffer that should not have been */
		close(fd);
	expect(w, w->op, b->what, err, 1u << b->want);
}

/* dbuf_map, dbuf_close: check a dma-buf, or let it go (part of it). */
static void op_dbuf(struct worker *w)
{
	struct dbuf *d = PICK_ENTRY(w, w->d);

	if (d && w->op == OP_dbuf_close)
		dbuf_release(w, d, false);
	else if (d)
		dbuf_check(w, d);
}

/*
 * vmsplice @len bytes at @addr into a new pipe, which is at least 16 pages
 * (64 KiB with 4 KiB pages): all of it fits.  The errno; EIO if short.
 */
static int splice_pages(volatile uint8_t *addr, uint64_t len, int fd[2])
{
	struct iovec iov = { (void *)addr, len };
	ssize_t n;
	int err;

	if (pipe2(fd, O_CLOEXEC | O_NONBLOCK))
		return errno;
	n = vmsplice(fd[1], &iov, 1, SPLICE_F_NONBLOCK);
	err = n < 0 ? errno : (uint64_t)n != len ? EIO : 0;
	if (err) {
		close(fd[0]);
		close(fd[1]);
		fd[0] = -1;
		fd[1] = -1;
	}
	return err;
}

/* vmsplice the page at @off of @fd, mapped for this alone, into a new pipe. */
static int splice_page(int fd, uint64_t off, int p[2])
{
	void *map = mmap(NULL, cfg.page, PROT_READ, MAP_SHARED, fd, (off_t)off);
	int err;

	if (map == MAP_FAILED)
		return errno;
	err = splice_pages(map, cfg.page, p);
	munmap(map, cfg.page);
	return err;
}

/*
 * Read the @len bytes a pipe holds into w->chunk (fewer: EIO), close it and
 * check them: [off, off + len) of @o's buffer.  False if the read failed.
 */
static bool pipe_check(struct worker *w, enum op op, int p[2], uint64_t off,
		       uint64_t len, const struct origin *o, const char *what)
{
	uint64_t got = 0;
	ssize_t n = 1;
	int err;

	while (got < len && n > 0) {
		n = read(p[0], (uint8_t *)w->chunk + got, len - got);
		got += n > 0 ? (uint64_t)n : 0;
	}
	err = got == len ? 0 : n ? errno : EIO;
	close(p[0]);
	close(p[1]);
	if (!expect(w, op, "read of the pipe", err, M(OK)))
		return false;
	check_copy(w, op, what, off, len, o);
	return true;
}

/* Read and check the pages a pipe holds (@drain), or close it unread. */
static void spipe_end(struct worker *w, enum op op, struct spipe *p, bool drain)
{
	if (drain) {
		pipe_check(w, op, p->fd, p->off, p->len, &p->o, "pages a pipe held");
	} else {
		close(p->fd[0]);
		close(p->fd[1]);
	}
	origin_put(&p->o);
	p->used = false;
}

static void op_vmsplice(struct worker *w, struct handle *h)
{
	struct spipe *p = NEW_ENTRY(w->p);
	int err;

	if (!p)
		return;
	pick_pages(w, h, &p->off, &p->len);
	err = splice_pages(h->map + (p->off - h->map_off), p->len, p->fd);
	if (!expect(w, OP_vmsplice, "vmsplice of a mapping", err,
		    h->pages ? M(OK) : M(EFAULT)) || err)
		return;
	p->used = true;
	origin_of(h, &p->o);
}

/* pipe_drain, pipe_close: a pipe read and checked, or closed unread. */
static void op_pipe(struct worker *w)
{
	struct spipe *p = PICK_ENTRY(w, w->p);

	if (p)
		spipe_end(w, w->op, p, w->op == OP_pipe_drain);
}

/* What the pinned pages hold, through a fixed write to a memfd. */
static void uring_check(struct worker *w, struct uring *u)
{
	ssize_t n;
	int ret;

	if (w->memfd < 0)
		w->memfd = memfd_create("udmabuf-stress", MFD_CLOEXEC);
	if (w->memfd < 0) {
		failf(w, "memfd_create: %s", strerror(errno));
		return;
	}
	ret = ring_fixed(&u->r, IORING_OP_WRITE_FIXED, w->memfd, u->addr,
			 (unsigned int)u->len, 0);
	if (!expect(w, OP_uring, "IORING_OP_WRITE_FIXED from the registered pages",
		    ret < 0 ? -ret : 0, M(OK)))
		return;
	if ((uint64_t)ret != u->len) {
		failf(w, "uring: a fixed write of %" PRIu64 " bytes wrote %d",
		      u->len, ret);
		return;
	}
	n = pread(w->memfd, w->chunk, u->len, 0);
	if (n != (ssize_t)u->len)
		failf(w, "uring: pread of the memfd: %zd", n);
	else
		check_copy(w, OP_uring, "pages a ring pinned", u->off, u->len, &u->o);
}

static void op_uring(struct worker *w, struct handle *h)
{
	struct uring *u = NEW_ENTRY(w->u);
	struct iovec iov;
	unsigned int ok;
	int err;

	if (!u)
		return;
	err = ring_init(&u->r);
	if (!expect(w, OP_uring, "io_uring_setup", -err, M(OK)) || err)
		return;
	pick_pages(w, h, &u->off, &u->len);
	u->addr = (void *)(h->map + (u->off - h->map_off));
	iov = (struct iovec){ u->addr, u->len };
	err = syscall(__NR_io_uring_register, u->r.fd, IORING_REGISTER_BUFFERS, &iov, 1) ?
	      errno : 0;
	/*
	 * Pinning for writing takes struct pages and a writable mapping
	 * (EFAULT), and io_uring took shmem and hugetlbfs mappings only
	 * before 6.5 (EOPNOTSUPP).
	 */
	ok = !h->pages || !h->map_writable ? M(EFAULT) : cfg.uring_pins ? M(OK) : M(EOPNOTSUPP);
	if (!expect(w, OP_uring, "IORING_REGISTER_BUFFERS of a mapping", err, ok) || err) {
		ring_exit(&u->r);
		return;
	}
	u->used = true;
	origin_of(h, &u->o);
	uring_check(w, u);
}

static void uring_release(struct uring *u)
{
	ring_exit(&u->r);
	origin_put(&u->o);
	u->used = false;
}

static void op_uring_close(struct worker *w)
{
	struct uring *u = PICK_ENTRY(w, w->u);

	if (!u)
		return;
	if (coin(w, 50))
		uring_check(w, u);
	uring_release(u);
}

/* ---- parameter buffers ---- */

static void op_param_open(struct worker *w)
{
	unsigned int k = rnd_below(w, PARAMS_MAX);
	bool rdwr = coin(w, 50);
	struct handle *h;
	int fd;

	if (!sh->param_size[k] || !NEW_ENTRY(w->h))
		return;
	fd = open_ok(w, OP_param_open, open_flags(w, rdwr), M(OK), "/dev/udmabuf%u", k);
	if (fd < 0)
		return;
	h = handle_take(w, OP_param_open, fd, H_ZERO, rdwr, sh->param_size[k], (int)k);
	if (!h)
		return;
	h->live = true;
	if (coin(w, 50))
		handle_map(w, h, coin(w, 30));
}

/* A page at @off of parameter buffer @k in a new pipe, its file closed. */
static bool param_splice(struct worker *w, enum op op, unsigned int k,
			 uint64_t off, int p[2])
{
	int fd = open_ok(w, op, O_RDONLY | O_CLOEXEC, M(OK), "/dev/udmabuf%u", k), err;

	if (fd < 0)
		return false;
	err = splice_page(fd, off, p);
	close(fd);	/* the last user, perhaps, with a page in a pipe */
	return expect(w, op, "mmap and vmsplice of a parameter buffer's page",
		      err, M(OK));
}

/*
 * Last users of a contiguous parameter buffer going, one after another,
 * each with a page of it in a pipe, which is read soon after: the buffer
 * waits for its pages while the next last user goes.
 */
static void op_param_churn(struct worker *w)
{
	unsigned int k = coin(w, 70) ? PARAM_CONTIG : PARAM_PLACED, i, n;
	struct origin o = { .kind = H_ZERO };
	uint64_t off, pages;
	int p[2];

	if (!sh->param_size[k])
		k = PARAM_CONTIG;
	if (!sh->param_size[k])
		return;
	o.size = sh->param_size[k];
	pages = page_round(o.size) / cfg.page;
	n = 8 + rnd_below(w, 24);
	for (i = 0; i < n && running(); i++) {
		off = rnd_below(w, (unsigned int)pages) * cfg.page;
		if (!param_splice(w, OP_param_churn, k, off, p))
			return;
		if (coin(w, 50))
			sleep_ms(rnd_below(w, 3));
		if (!pipe_check(w, OP_param_churn, p, off, cfg.page, &o,
				"a parameter buffer's page in a pipe"))
			return;
	}
}

/*
 * A large contiguous process-scoped buffer whose last user goes while a
 * page of it is in a pipe, read a little later: freeing its range widens
 * the window of op_param_churn()'s race.  (ENOMEM: process_max.)
 */
static void op_big_defer(struct worker *w)
{
	struct udmabuf_cfs_alloc req;
	struct origin o = { .kind = H_ZERO, .size = BIG_DEFER_SIZE };
	uint64_t off;
	int p[2], err;

	alloc_request(w, &req, BIG_DEFER_SIZE, true);
	req.allocator = UDMABUF_CFS_ALLOCATOR_CONTIG;
	if (!proc_alloc(w, OP_big_defer, &req))
		return;
	off = rnd_below(w, (unsigned int)(BIG_DEFER_SIZE / cfg.page)) * cfg.page;
	err = splice_page(req.fd, off, p);
	close(req.fd);
	if (!expect(w, OP_big_defer, "mmap and vmsplice of a page", err, M(OK)))
		return;
	sleep_ms(rnd_below(w, 600));
	pipe_check(w, OP_big_defer, p, off, cfg.page, &o,
		   "a freed buffer's page in a pipe");
}

/* ---- children killed with SIGKILL ---- */

/*
 * Report entries of @dir (directories only, or names starting with @prefix)
 * but a parameter buffer of this phase, whose device stays while it is loaded.
 */
static bool dir_clean(const char *dir, bool dirs_only, const char *prefix)
{
	struct dirent *de;
	bool clean = true;
	DIR *d = opendir(dir);
	unsigned int k;
	char c;

	if (!d)
		return errno == ENOENT;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (dirs_only && de->d_type != DT_DIR)
			continue;
		if (prefix && strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		if (sscanf(de->d_name, "udmabuf%u%c", &k, &c) == 1 && k < PARAMS_MAX &&
		    sh->param_size[k])
			continue;
		failf(NULL, "left behind: %s/%s", dir, de->d_name);
		clean = false;
	}
	closedir(d);
	return clean;
}

static void run_op(struct worker *w, enum op op);

/* What a child to be killed takes (random bits): bit N for kill_takes[N], and these. */
enum { KILL_PARAM = 8, KILL_CLOSE = 16 };
static const enum op kill_takes[] = { OP_vmsplice, OP_export, OP_uring };

/*
 * The child: a process-scoped buffer of its own (or its parent's handle
 * @h), mapped, its pages in a pipe and a ring, a dma-buf of it, a page of
 * parameter buffer 0 or 2 in a pipe; then it says it is ready ('A': with a
 * buffer of its own) and waits for SIGKILL.  Of its copy of the parent's
 * handles, dma-bufs, pipes and rings it forgets all but @h (without their
 * board locks, which a thread that the fork did not copy may have held).
 */
static void __attribute__((noreturn))
kill9_child(struct worker *w, struct handle *h, unsigned int steps, int ready)
{
	unsigned int k = coin(w, 50) ? PARAM_CONTIG : PARAM_PLACED, i;
	struct handle keep = h ? *h : (struct handle){ .used = false };
	bool own = !h;
	int p[2];

	memset(w->h, 0, sizeof(w->h));
	memset(w->d, 0, sizeof(w->d));
	memset(w->p, 0, sizeof(w->p));
	memset(w->u, 0, sizeof(w->u));
	w->memfd = -1;
	w->h[0] = keep;
	if (own) {
		h = proc_open(w, OP_kill9, small_size(w), true);
		if (h)
			handle_map(w, h, true);
		if (h && (!h->map || !handle_fill(w, h)))
			_exit(3);
		own = h;
	}
	for (i = 0; i < ARRAY_SIZE(kill_takes); i++)
		if (steps & 1u << i)
			run_op(w, kill_takes[i]);
	if ((steps & KILL_PARAM) && sh->param_size[k])
		param_splice(w, OP_kill9, k, 0, p);
	if (own && (steps & KILL_CLOSE))
		close(h->fd);	/* the mapping and the rest hold it */
	if (write(ready, own ? "A" : "r", 1) != 1)
		_exit(3);
	for (;;)
		pause();
}

/*
 * Fork a child that takes buffers, kill it with SIGKILL when it is ready
 * (or before: while it sets up), and see its buffer gone when wait()
 * returns: the files, mappings, dma-bufs and pipes of a process are
 * released before its parent learns it died.
 */
static void op_kill9(struct worker *w)
{
	struct handle *h = coin(w, 40) ? pick_handle(w, HW_MAP) : NULL;
	unsigned int steps = (unsigned int)rnd(w);
	char c = 0, prefix[32];
	int ready[2], status;
	struct pollfd pfd;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC)) {
		failf(w, "kill9: pipe2: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		kill9_child(w, h, steps, ready[1]);
	}
	close(ready[1]);
	pfd = (struct pollfd){ .fd = ready[0], .events = POLLIN };
	if (!expect(w, OP_kill9, "fork", pid < 0 ? errno : 0, M(OK)))
		goto out;
	if (coin(w, 20))
		sleep_ms(rnd_below(w, 5));
	else if (poll(&pfd, 1, KILL_READY_MS) == 1 && read(ready[0], &c, 1) != 1)
		c = 0;
	kill(pid, SIGKILL);
	snprintf(prefix, sizeof(prefix), "proc-%d-", (int)pid);
	if (waitpid(pid, &status, 0) != pid)
		failf(w, "kill9: waitpid: %s", strerror(errno));
	else if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		failf(w, "kill9: the child ended before it was killed (status 0x%x)", status);
	else if (!dir_clean(CLASS, false, prefix))
		failf(w, "kill9: a buffer of process %d is left after it was killed and waited for",
		      (int)pid);
	else if (c == 'A')
		atomic_fetch_add(&sh->kill_gone, 1);
out:
	/* Only now: its "ready" must not meet a closed pipe (SIGPIPE). */
	close(ready[0]);
}

/* ---- the worker loop ---- */

#define OP_FN(n, wt) [OP_##n] = { .fn = op_##n },
#define SLOT_FN(n, wt, p) [OP_##n] = { .slot_fn = op_##n, .probes = p },
#define HANDLE_FN(n, wt, t) [OP_##n] = { .handle_fn = op_##n, .want = t },
#define SHARED_FN(n, wt, f) [OP_##n] = { .fn = op_##f },
static const struct {
	void (*fn)(struct worker *w);
	void (*slot_fn)(struct worker *w, struct slot *s);
	void (*handle_fn)(struct worker *w, struct handle *h);
	bool probes;
	unsigned int want;
} op_fns[OP_NUM] = {
	OPS(OP_FN, SLOT_FN, HANDLE_FN) SHARED_OPS(SHARED_FN)
};

static void run_op(struct worker *w, enum op op)
{
	struct handle *h;

	if (op_fns[op].fn) {
		op_fns[op].fn(w);
	} else if (op_fns[op].slot_fn) {
		op_fns[op].slot_fn(w, &w->slots[rnd_below(w, cfg.slots +
							  op_fns[op].probes)]);
	} else {
		h = pick_handle(w, op_fns[op].want);
		if (h)
			op_fns[op].handle_fn(w, h);
	}
}

static void one_op(struct worker *w)
{
	unsigned int r = rnd_below(w, weight_total);
	int op;

	for (op = 0; r >= op_weights[op]; op++)
		r -= op_weights[op];
	w->op = (enum op)op;
	run_op(w, w->op);
}

/* Close everything and remove own items: nothing may stay behind. */
static void release_all(struct worker *w)
{
	unsigned int i;
	void *e;

	while ((e = PICK_ENTRY(w, w->p)))
		spipe_end(w, OP_release, e, true);
	while ((e = PICK_ENTRY(w, w->u)))
		uring_release(e);
	while ((e = PICK_ENTRY(w, w->d)))
		dbuf_release(w, e, true);
	while ((e = PICK_ENTRY(w, w->h)))
		handle_release(w, e);
	if (w->memfd >= 0)
		close(w->memfd);
	w->memfd = -1;
	for (i = 0; i <= cfg.slots; i++) {
		struct slot *s = &w->slots[i];

		if (s->exists && !(w->leak && i == 0))
			item_dir(w, OP_release, s->name, false,
				 M(OK) | M(ENOENT));
		slot_lost(s, true);
	}
	w->leak = false;
	unlink(w->stale);
	w->sv.minor = -1;
}

/*
 * --selftest procleak, modref, memfree: a child that does not exit until
 * the coordinator kills it after its checks holds a page of a process-scoped
 * buffer (contiguous, whose pages are freed one by one) in a pipe, the
 * buffer's file and mapping gone; or /dev/udmabuf-cfs open; or memory.
 */
static void selftest_child(struct worker *w)
{
	struct udmabuf_cfs_alloc req;
	const size_t len = 2 * MEMFREE_MARGIN_KIB * 1024;
	int fd = -1, p[2] = { -1, -1 }, err;
	volatile char *mem;
	pid_t pid;
	size_t i;

	if (cfg.selftest == ST_PROCLEAK) {
		alloc_request(w, &req, 65536, true);
		req.flags = O_RDWR | O_CLOEXEC;
		req.allocator = UDMABUF_CFS_ALLOCATOR_CONTIG;
		if (!expect(w, OP_selftest, "ALLOC", alloc_ioctl(&req), M(OK)))
			return;
		err = splice_page(req.fd, 0, p);
		close(req.fd);
		if (!expect(w, OP_selftest, "mmap and vmsplice", err, M(OK)))
			return;
	} else if (cfg.selftest == ST_MODREF) {
		fd = open_ok(w, OP_selftest, O_RDWR | O_CLOEXEC, M(OK), PROCDEV);
		if (fd < 0)
			return;
	}
	pid = fork();
	if (pid == 0) {
		mem = cfg.selftest == ST_MEMFREE ? malloc(len) : NULL;
		for (i = 0; mem && i < len; i += 512)
			mem[i] = 0x5a;
		for (;;)
			pause();
	}
	if (!expect(w, OP_selftest, "fork", pid < 0 ? errno : 0, M(OK)))
		return;
	atomic_store(&sh->st_child, pid);
	close(fd);	/* those that are open: the child holds them */
	close(p[0]);
	close(p[1]);
}

/*
 * --selftest: worker 0 (alone) makes a mapped buffer of slot 0 and breaks
 * one rule on purpose; the run must fail.
 */
static void selftest(struct worker *w)
{
	struct slot *s = &w->slots[0];
	struct handle *h;
	int p[2];

	if (cfg.selftest == ST_ERRNO) {
		expect(w, OP_rmmod, "delete_module while the sentinel exists",
		       delete_module(), M(OK));
		return;
	}
	if (cfg.selftest >= ST_PROCLEAK) {
		selftest_child(w);
		return;
	}
	op_mkdir(w, s);
	if (s->ready && !s->size && slot_write(w, OP_config, s, "size", "8192",
					       M(OK)))
		s->size = 8192;
	op_enable(w, s);
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
	/* splice: the pipe holds the mapping's pages, so a change shows there. */
	if (cfg.selftest == ST_SPLICE &&
	    !expect(w, OP_selftest, "vmsplice", splice_pages(h->map, cfg.page, p), M(OK)))
		return;
	*(volatile uint64_t *)(h->map + 56) ^= 1;
	if (cfg.selftest == ST_SPLICE)
		pipe_check(w, OP_selftest, p, 0, cfg.page, &h->o, "pages a pipe held");
	else
		handle_check(w, OP_verify, h, false);
}

/*
 * Wait until the coordinator lets the workers run again (*GEN: the
 * generation they ran in, then the new one); false: exit.
 */
static bool worker_park(int *gen)
{
	atomic_fetch_add(&sh->parked, 1);
	while (atomic_load(&sh->gen) == *gen) {
		if (atomic_load(&sh->mode) == MODE_EXIT)
			return false;
		sleep_ms(2);
	}
	*gen = atomic_load(&sh->gen);
	return atomic_load(&sh->mode) != MODE_EXIT;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int gen = atomic_load(&sh->gen);

	do {
		w->major = udmabuf_major();	/* the module's, this phase */
		stale_make(w);
		if (cfg.selftest != ST_NONE && !gen)
			selftest(w);
		while (running()) {
			if (cfg.selftest != ST_NONE)
				sleep_ms(5);
			else
				one_op(w);
		}
		release_all(w);
	} while (worker_park(&gen));
	return NULL;
}

static struct worker *worker_new(int id, int tidx)
{
	struct worker *w = calloc(1, sizeof(*w));
	struct slot *s;
	unsigned int i;

	if (!w) {
		say("FAIL: out of memory");
		exit(EXIT_FAILURE);
	}
	w->id = id;
	w->tidx = tidx;
	w->memfd = -1;
	w->rng = mix64(cfg.seed ^ (0x1000193ULL * (uint64_t)(id + 1)));
	for (i = 0; i <= cfg.slots; i++) {	/* private below cfg.slots, then the probe */
		s = &w->slots[i];
		s->kind = i < cfg.slots ? S_PRIVATE : S_PROBE;
		s->index = i;
		snprintf(s->name, sizeof(s->name), "%s-w%d-%c", PREFIX, id,
			 s->kind == S_PRIVATE ? (char)('0' + i) : 'p');
		snprintf(s->dev, sizeof(s->dev), "%s", s->name);
		s->minor = s->kind == S_PRIVATE ? private_minor(id, i) : -1;
		s->gone = true;
	}
	snprintf(w->stale, sizeof(w->stale), "/tmp/%s-stale-w%d", PREFIX, id);
	w->sv.minor = -1;
	return w;
}

/* A worker process: its threads share the address space and the board. */
static void process_main(unsigned int p)
{
	pthread_t tids[MAX_THREADS];
	unsigned int t;

	for (t = 0; t < cfg.threads; t++)	/* every lock before any thread */
		pthread_rwlock_init(&board[t].lock, NULL);
	for (t = 0; t < cfg.threads; t++)
		if (pthread_create(&tids[t], NULL, worker_main,
				   worker_new((int)(p * cfg.threads + t), (int)t))) {
			failf(NULL, "worker process %u: pthread_create failed", p);
			exit(EXIT_FAILURE);
		}
	for (t = 0; t < cfg.threads; t++)
		pthread_join(tids[t], NULL);
	_exit(0);
}

/* ---- the placer ---- */

#define PLACE_ITEMS	2
#define PLACE_FAR	0x100000000000ULL	/* 16 TiB: beyond the guests' RAM */

/* Where an item's phys_addr came from. */
enum pwhere { PW_NONE, PW_OWN, PW_OTHER, PW_FAR, PW_KERNEL, PW_PARAM };

struct pitem {
	char name[48];
	bool exists, enabled;
	int fd;			/* open while enabled, or -1 */
	enum pwhere where;	/* PW_NONE: not placed, the allocator chose */
	uint64_t phys, size;	/* where it is (enabled) or is asked to be */
};

static struct pitem pitems[PLACE_ITEMS];
/* A page of a placed buffer in a pipe, at CPU physical address off. */
static struct spipe ppipes[PLACE_ITEMS];
static uint64_t kernel_code;	/* the kernel's code, from /proc/iomem, or 0 */

/* The start of "Kernel code" in /proc/iomem (root sees the addresses). */
static uint64_t find_kernel_code(void)
{
	unsigned long long start, end;
	uint64_t found;
	char line[160];

	if (!file_line("/proc/iomem", ": Kernel code", line, sizeof(line)) ||
	    sscanf(line, " %llx-%llx", &start, &end) != 2 || !start)
		return 0;
	found = (start + cfg.page - 1) & ~(cfg.page - 1);
	return found + cfg.page > end ? 0 : found;
}

static void pitem_close(struct pitem *it)
{
	if (it->fd >= 0)
		close(it->fd);
	it->fd = -1;
}

/* Open an enabled item: it must be where it was asked to be, if placed. */
static bool pitem_open(struct worker *w, enum op op, struct pitem *it)
{
	struct udmabuf_cfs_info info;

	if (it->fd >= 0)
		return true;
	it->fd = open_ok(w, op, O_RDWR | O_CLOEXEC, M(OK), "/dev/%s", it->name);
	if (it->fd < 0 || !expect(w, op, "GET_INFO", get_info(it->fd, &info), M(OK)))
		return false;
	if (info.size != it->size ||
	    (it->where != PW_NONE && info.phys_addr != it->phys)) {
		failf(w, "%s: %s is %llu bytes at 0x%llx, asked for %" PRIu64 " at 0x%" PRIx64,
		      op_names[op], it->name, (unsigned long long)info.size,
		      (unsigned long long)info.phys_addr, it->size,
		      it->where != PW_NONE ? it->phys : 0);
		return false;
	}
	it->phys = info.phys_addr;
	return true;
}

/* Disable an item: nobody but the placer opens it, and it closed it. */
static bool pitem_disable(struct worker *w, enum op op, struct pitem *it)
{
	pitem_close(it);
	if (!it->enabled)
		return true;
	if (item_write(w, op, it->name, "enable", "0", M(OK)))
		return false;
	it->enabled = false;
	if (it->where == PW_NONE || it->where == PW_OWN)
		sh->place_addr = it->size >= PARAM_PLACED_SIZE ? it->phys : 0;
	return true;
}

/* A new item, or the old one emptied: size, contiguous, not placed. */
static bool pitem_fresh(struct worker *w, enum op op, struct pitem *it,
			uint64_t size)
{
	char val[32];

	if (!pitem_disable(w, op, it) ||
	    (it->exists && item_dir(w, op, it->name, false, M(OK))))
		return false;
	it->exists = false;
	if (item_dir(w, op, it->name, true, M(OK)))
		return false;
	it->exists = true;
	it->where = PW_NONE;
	it->size = size;
	snprintf(val, sizeof(val), "%" PRIu64, size);
	return !item_write(w, op, it->name, "size", val, M(OK)) &&
	       !item_write(w, op, it->name, "allocator", "contig", M(OK));
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* What enable=1 of a placed item may say, from what the placer knows. */
static unsigned int place_want(const struct pitem *it)
{
	const struct pitem *other = &pitems[it == &pitems[0]];
	unsigned int i;

	if (it->where == PW_FAR)
		return M(ERANGE);	/* not RAM */
	if (it->where == PW_KERNEL || it->where == PW_PARAM)
		return M(EBUSY);	/* in use, for good or for the phase */
	if (other->enabled && overlaps(it->phys, it->size, other->phys,
				       other->size))
		return M(EBUSY);
	for (i = 0; i < PLACE_ITEMS; i++)
		if (ppipes[i].used && overlaps(it->phys, it->size,
					       ppipes[i].off, cfg.page))
			return M(EBUSY);
	/* Its own range, freed: held, or taken by now, or no memory. */
	return M(OK) | M(EBUSY) | M(ENOMEM);
}

static void pitem_place(struct worker *w, enum op op, struct pitem *it,
			enum pwhere where, uint64_t phys)
{
	char val[32];

	it->where = where;
	it->phys = phys;
	snprintf(val, sizeof(val), "0x%" PRIx64, phys);
	if (item_write(w, op, it->name, "phys_addr", val, M(OK)) ||
	    item_write(w, op, it->name, "enable", "1", place_want(it)))
		return;
	it->enabled = true;
	if (pitem_open(w, op, it) && coin(w, 50))
		pitem_close(it);
}

/* Allocate without a placement, and learn where the memory is. */
static void place_new(struct worker *w, struct pitem *it)
{
	static const uint64_t sizes[] = { 65536, 262144, 1 << 20 };

	if (!pitem_fresh(w, OP_place_new, it, sizes[rnd_below(w, 3)]) ||
	    item_write(w, OP_place_new, it->name, "enable", "1", M(OK) | M(ENOMEM)))
		return;
	it->enabled = true;
	pitem_open(w, OP_place_new, it);
}

/* Free the item's range and place it there again. */
static void place_again(struct worker *w, struct pitem *it)
{
	if (!it->exists || (it->where == PW_NONE && !it->enabled) ||
	    !pitem_disable(w, OP_place_again, it))
		return;
	pitem_place(w, OP_place_again, it,
		    it->where == PW_NONE ? PW_OWN : it->where, it->phys);
}

/* Ask for a page inside the other item's live range: EBUSY. */
static void place_busy(struct worker *w, struct pitem *it)
{
	struct pitem *other = &pitems[it == &pitems[0]];
	uint64_t off;

	if (!other->enabled || !pitem_fresh(w, OP_place_busy, it, cfg.page))
		return;
	off = rnd_below(w, (unsigned int)(other->size / cfg.page)) * cfg.page;
	pitem_place(w, OP_place_busy, it, PW_OTHER, other->phys + off);
}

/* Beyond RAM (ERANGE), the kernel's code (EBUSY), a live parameter buffer. */
static void place_elsewhere(struct worker *w, struct pitem *it)
{
	struct udmabuf_cfs_info info;
	unsigned int k = coin(w, 50) ? PARAM_CONTIG : PARAM_PLACED, r;
	int fd, err;

	if (!pitem_fresh(w, OP_place_far, it, cfg.page))
		return;
	r = rnd_below(w, 3);
	if (r == 0)
		pitem_place(w, OP_place_far, it, PW_FAR, PLACE_FAR);
	else if (r == 1 && kernel_code)
		pitem_place(w, OP_place_inuse, it, PW_KERNEL, kernel_code);
	if (r < 2 || !sh->param_size[k])
		return;
	fd = open_ok(w, OP_place_inuse, O_RDONLY | O_CLOEXEC, M(OK), "/dev/udmabuf%u", k);
	if (fd < 0)
		return;
	err = get_info(fd, &info);
	close(fd);
	if (expect(w, OP_place_inuse, "GET_INFO", err, M(OK)))
		pitem_place(w, OP_place_inuse, it, PW_PARAM,
			    info.phys_addr + page_round(info.size) - cfg.page);
}

/* allocator=page cannot be placed: EINVAL. */
static void place_page(struct worker *w, struct pitem *it)
{
	if (!pitem_fresh(w, OP_place_page, it, cfg.page) ||
	    item_write(w, OP_place_page, it->name, "allocator", "page", M(OK)) ||
	    item_write(w, OP_place_page, it->name, "phys_addr", "0x100000", M(OK)))
		return;
	item_write(w, OP_place_page, it->name, "enable", "1", M(EINVAL));
	item_write(w, OP_place_page, it->name, "allocator", "contig", M(OK));
	it->where = PW_NONE;
}

/* A page of a live placed buffer in a pipe; then, sometimes, it goes. */
static void place_pipe(struct worker *w, struct pitem *it)
{
	struct spipe *pp = &ppipes[it - pitems];
	uint64_t off;

	if (pp->used || !it->enabled || !pitem_open(w, OP_place_pipe, it))
		return;
	off = rnd_below(w, (unsigned int)(it->size / cfg.page)) * cfg.page;
	if (!expect(w, OP_place_pipe, "mmap and vmsplice of a placed buffer",
		    splice_page(it->fd, off, pp->fd), M(OK)))
		return;
	pp->used = true;
	pp->off = it->phys + off;
	if (coin(w, 50))
		pitem_disable(w, OP_place_pipe, it);
}

/* Read the page (never written: 0) and close the pipe. */
static void place_drain(struct worker *w, struct spipe *pp)
{
	struct origin o = { .kind = H_ZERO, .size = cfg.page };

	pipe_check(w, OP_place_pipe, pp->fd, 0, cfg.page, &o,
		   "a placed buffer's page in a pipe");
	pp->used = false;
}

static void placer_op(struct worker *w)
{
	struct pitem *it = &pitems[rnd_below(w, PLACE_ITEMS)];
	struct spipe *pp = &ppipes[rnd_below(w, PLACE_ITEMS)];
	static const char *const holds[] = { "0", "1", "30" };
	unsigned int r = rnd_below(w, 20);

	if (r < 3)
		place_new(w, it);
	else if (r < 7)
		place_again(w, it);
	else if (r < 9)
		place_busy(w, it);
	else if (r < 11)
		place_elsewhere(w, it);
	else if (r < 12)
		place_page(w, it);
	else if (r < 14)
		place_pipe(w, it);
	else if (r < 16 && pp->used)
		place_drain(w, pp);
	else if (r == 16)
		expect(w, OP_place_hold, PARAMS "/place_hold",
		       write_attr(PARAMS "/place_hold", holds[rnd_below(w, 3)]),
		       M(OK));
	else if (r == 17)
		op_rmmod(w);
	else if (r > 17 && it->exists)
		pitem_disable(w, OP_place_again, it);
	sleep_ms(rnd_below(w, 20));
}

/* Everything of the placer's goes; the last range it freed is published. */
static void placer_release(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < PLACE_ITEMS; i++) {
		struct pitem *it = &pitems[i];

		if (ppipes[i].used)
			place_drain(w, &ppipes[i]);
		pitem_disable(w, OP_release, it);
		if (it->exists)
			item_dir(w, OP_release, it->name, false, M(OK));
		it->exists = false;
		it->where = PW_NONE;
	}
}

/*
 * The churner: a thread of the placer's process that does nothing but
 * op_param_churn() while a contiguous parameter buffer is loaded.
 */
static void *churner_main(void *arg)
{
	struct worker *w = arg;
	int gen = atomic_load(&sh->gen);

	do {
		while (running()) {
			if (sh->param_size[PARAM_CONTIG])
				op_param_churn(w);
			else
				sleep_ms(20);
		}
	} while (worker_park(&gen));
	return NULL;
}

static void placer_main(struct worker *w)
{
	int gen = atomic_load(&sh->gen);
	pthread_t churner;
	unsigned int i;

	if (pthread_create(&churner, NULL, churner_main,
			   worker_new(w->id + 1, 0))) {
		failf(w, "pthread_create failed");
		_exit(EXIT_FAILURE);
	}
	kernel_code = find_kernel_code();
	for (i = 0; i < PLACE_ITEMS; i++) {
		snprintf(pitems[i].name, sizeof(pitems[i].name), "%s-place%u",
			 PREFIX, i);
		pitems[i].fd = -1;
	}
	do {
		while (running())
			placer_op(w);
		placer_release(w);
	} while (worker_park(&gen));
	pthread_join(churner, NULL);
	_exit(0);
}

/* ---- the coordinator ---- */

/* The sentinel, filled with the helpers' pattern of the phase's generation. */
struct sentinel {
	int fd;
	volatile uint8_t *map;
	uint64_t seed;
};

static bool sentinel_create(struct sentinel *st, int gen)
{
	char val[16];
	uint64_t i;
	void *p;

	snprintf(val, sizeof(val), "%d", MINOR_SENTINEL);
	if (item_dir(NULL, OP_sentinel, SENTINEL, true, M(OK)) ||
	    item_write(NULL, OP_sentinel, SENTINEL, "size", "65536", M(OK)) ||
	    item_write(NULL, OP_sentinel, SENTINEL, "minor", val, M(OK)) ||
	    item_write(NULL, OP_sentinel, SENTINEL, "enable", "1", M(OK)))
		return false;
	st->fd = open_ok(NULL, OP_sentinel, O_RDWR | O_CLOEXEC, M(OK), "/dev/" SENTINEL);
	if (st->fd < 0)
		return false;
	p = mmap(NULL, SENTINEL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, st->fd, 0);
	if (!expect(NULL, OP_sentinel, "mmap", p == MAP_FAILED ? errno : 0, M(OK)))
		return false;
	st->map = p;
	st->seed = (uint64_t)gen;
	/* map_fill()'s words (its byte loops make 32-bit gcc warn here) */
	for (i = 0; i < SENTINEL_SIZE / 8; i++)
		((volatile uint64_t *)st->map)[i] = pattern_word(st->seed, i);
	return expect(NULL, OP_sentinel, "SYNC_FOR_DEVICE",
		      sync_ioctl(st->fd, false, 0, 0, 0, 0) ? errno : 0, M(OK));
}

static void sentinel_remove(struct sentinel *st)
{
	uint64_t got, want;
	int64_t bad;

	if (st->map) {
		bad = map_mismatch(st->map, 0, SENTINEL_SIZE, st->seed, &got, &want);
		if (bad >= 0)
			failf(NULL, "the sentinel's data changed at offset %lld",
			      (long long)bad);
		munmap((void *)st->map, SENTINEL_SIZE);
		st->map = NULL;
	}
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	item_dir(NULL, OP_sentinel, SENTINEL, false, M(OK) | M(ENOENT));
}

static void remove_pool(void)
{
	char name[48];
	unsigned int k;

	for (k = 0; k < POOL_ITEMS; k++) {
		snprintf(name, sizeof(name), PREFIX "-pool%u", k);
		item_dir(NULL, OP_release, name, false, M(OK) | M(ENOENT));
	}
}

/* A decimal number a sysfs file holds, or -1. */
static long long read_number(const char *path)
{
	char buf[64];

	if (read_file(path, buf, sizeof(buf)) || !buf[0])
		return -1;
	return strtoll(buf, NULL, 10);
}

/*
 * With nothing left, the module must unload, vanish and load again, with
 * the module parameters of the next phase: the parameter buffers (udmabuf2
 * where the placer last freed a range), sometimes a smaller process_max
 * and a shorter place_hold; none after the last phase (as at the start)
 * and for the selftests.  The parameters it was loaded with go to @desc;
 * its refcount to @ref.
 */
static bool reload_module(struct worker *self, bool last, char *desc,
			  size_t dlen, long long *ref)
{
	static const char *const gone[] = { "/sys/module/" MODNAME, CFS, CLASS };
	/* Where "auto" must take a parameter buffer's memory from. */
	static const char *const allocator[PARAMS_MAX] = { "contig\n", "page\n", "placed\n" };
	uint64_t sizes[PARAMS_MAX] = { 0 };
	char params[256] = "", path[96], val[32];
	unsigned int i, ok;
	size_t n;
	int err;

	if (!expect(NULL, OP_reload, "delete_module with nothing left",
		    delete_module(), M(OK)))
		return false;
	memset(sh->param_size, 0, sizeof(sh->param_size));
	for (i = 0; i < ARRAY_SIZE(gone); i++)
		if (!access(gone[i], F_OK)) {
			failf(NULL, "%s still exists after rmmod", gone[i]);
			return false;
		}
	if (udmabuf_major()) {
		failf(NULL, "/proc/devices still lists udmabuf after rmmod");
		return false;
	}
	if (!last && cfg.placer) {
		sizes[1] = PARAM_PAGE_SIZE;
		n = (size_t)snprintf(params, sizeof(params), "udmabuf1=%llu", PARAM_PAGE_SIZE);
		sizes[PARAM_CONTIG] = cfg.contig_size;
		if (cfg.contig_size)
			n += (size_t)snprintf(params + n, sizeof(params) - n, " udmabuf0=%" PRIu64,
					      cfg.contig_size);
		sizes[PARAM_PLACED] = sh->place_addr ? PARAM_PLACED_SIZE : 0;
		if (sh->place_addr)
			n += (size_t)snprintf(params + n, sizeof(params) - n,
					      " udmabuf2=%llu udmabuf2_phys=0x%" PRIx64,
					      PARAM_PLACED_SIZE, sh->place_addr);
		if (coin(self, 50))
			snprintf(params + n, sizeof(params) - n, " process_max=8M place_hold=1");
	}
	snprintf(desc, dlen, "%s%s", params[0] ? " with " : "", params);
	err = load_module(cfg.module, params);
	if (err && params[0]) {
		/* udmabuf0's range cannot be had; udmabuf2's range is taken. */
		ok = M(ENOMEM) | (sizes[PARAM_PLACED] ? M(EBUSY) | M(ERANGE) | M(EINVAL) : 0);
		if (!expect(NULL, OP_reload, params, err, ok))
			return false;
		snprintf(desc, dlen, " without \"%s\" (%s)", params, errno_name(err));
		memset(sizes, 0, sizeof(sizes));
		err = load_module(cfg.module, "");
	}
	if (!expect(NULL, OP_reload, cfg.module, err, M(OK)))
		return false;
	if (access(CFS, F_OK)) {
		failf(NULL, "%s does not exist after insmod", CFS);
		return false;
	}
	for (i = 0; i < PARAMS_MAX; i++) {
		snprintf(path, sizeof(path), CLASS "/udmabuf%u/allocator", i);
		if (!sizes[i])
			continue;
		if (!expect(NULL, OP_reload, path, read_file(path, val, sizeof(val)), M(OK)))
			return false;
		if (strcmp(val, allocator[i])) {
			failf(NULL, "%s reads \"%.*s\", want \"%.*s\"", path,
			      (int)strcspn(val, "\n"), val, (int)strcspn(allocator[i], "\n"),
			      allocator[i]);
			return false;
		}
	}
	memcpy(sh->param_size, sizes, sizeof(sizes));
	*ref = read_number(MODDIR "/refcnt");
	return true;
}

/*
 * With everything released: process_used 0 and the module's refcount back
 * to @ref, within SETTLED_MS.  The milliseconds it took, or -1 (failed).
 */
static long wait_settled(long long ref, unsigned int phase)
{
	uint64_t t0 = now_ns();
	long long used, cnt;
	long ms;

	for (;;) {
		used = read_number(PARAMS "/process_used");
		cnt = read_number(MODDIR "/refcnt");
		ms = (long)((now_ns() - t0) / 1000000);
		if (!used && cnt == ref)
			return ms;
		if (ms >= SETTLED_MS)
			break;
		sleep_ms(10);
	}
	failf(NULL, "after phase %u: process_used is %lld bytes (want 0) and the module's refcount %lld (want %lld) %ld ms after everything was released",
	      phase, used, cnt, ref, ms);
	return -1;
}

/* The sum of the numbers that @format (one %lld) reads in lines of @path. */
static long long sum_lines(const char *path, const char *format)
{
	FILE *f = fopen(path, "re");
	long long sum = 0, n;
	char line[128];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, format, &n) == 1)
			sum += n;
	fclose(f);
	return sum;
}

/*
 * Free memory in KiB, as comparable between two moments as the kernel
 * lets it be: after dropping the page cache and the reclaimable slab
 * objects (drop_caches), giving back what every slab cache keeps without
 * using it (its empty slabs and, under KASAN, its quarantine of freed
 * objects: kmem_cache_shrink()), with the per-CPU free lists (which
 * MemFree leaves out: megabytes that any free or allocation moves) counted
 * in, and the per-CPU counter deltas folded into MemFree first
 * (stat_refresh).
 */
static long long settled_free_kib(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *de;
	char path[320];

	write_attr("/proc/sys/vm/drop_caches", "3");
	while (d && (de = readdir(d))) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", de->d_name);
		if (de->d_type == DT_DIR && de->d_name[0] != '.')
			write_attr(path, "1");
	}
	if (d)
		closedir(d);
	write_attr("/proc/sys/vm/stat_refresh", "1");
	return sum_lines("/proc/meminfo", "MemFree: %lld") +
	       sum_lines("/proc/zoneinfo", " count: %lld") *
	       (long long)(cfg.page / 1024);
}

/* At the end: free memory back within the margin (a few tries). */
static void check_memory(long long start_kib)
{
	long long end_kib = 0;
	int i;

	for (i = 0; i < 3; i++) {
		if (i)
			sleep_ms(1000);
		end_kib = settled_free_kib();
		if (end_kib >= start_kib - MEMFREE_MARGIN_KIB)
			break;
	}
	say("end: free memory %lld KiB at the start, %lld KiB at the end (%+lld KiB, margin %d KiB)",
	    start_kib, end_kib, end_kib - start_kib, MEMFREE_MARGIN_KIB);
	if (end_kib < start_kib - MEMFREE_MARGIN_KIB)
		failf(NULL, "free memory is %lld KiB below the start's, beyond the margin of %d KiB",
		      start_kib - end_kib, MEMFREE_MARGIN_KIB);
}

/* The worker processes, then the placer's; cfg.nprocs of them. */
static pid_t procs[MAX_PROCS + 1];

/*
 * How worker process @i ended (WSTATUS): fail if it was killed, or exited
 * early (@early: before it was told to) or with a status other than 0.
 */
static void proc_ended(unsigned int i, int wstatus, bool early)
{
	if (WIFSIGNALED(wstatus))
		failf(NULL, "worker process %d killed by signal %d", (int)procs[i],
		      WTERMSIG(wstatus));
	else if (early || WEXITSTATUS(wstatus))
		failf(NULL, "worker process %d exited%s with %d", (int)procs[i],
		      early ? " early" : "", WEXITSTATUS(wstatus));
	procs[i] = 0;
}

/*
 * Fail if a worker process ended before it was told to.  (Others are
 * children of a worker process that it left behind, which the coordinator
 * adopts as their subreaper: ignored.)
 */
static bool reap_early(void)
{
	int status;
	pid_t pid = waitpid(-1, &status, WNOHANG);
	unsigned int i;

	for (i = 0; pid > 0 && i < cfg.nprocs; i++)
		if (procs[i] == pid) {
			proc_ended(i, status, true);
			return true;
		}
	return false;
}

/* Stop the workers between two phases; false if they did not all stop. */
static bool park_all(void)
{
	/* The workers, and the placer and its churner. */
	unsigned int n = cfg.procs * cfg.threads + 2 * cfg.placer;
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

/* One phase of work: wait, trying rmmod now and then. */
static void run_phase(uint64_t ms, struct worker *self)
{
	uint64_t end = now_ns() + ms * 1000000ULL;

	while (now_ns() < end && !atomic_load(&sh->failed)) {
		sleep_ms(20 + rnd_below(self, 60));
		reap_early();
		if (coin(self, 20))
			op_rmmod(NULL);
	}
}

static bool clean_start(void)
{
	const char *why = NULL;

	if (access("/sys/module/" MODNAME "/initstate", F_OK) || access(CFS, F_OK))
		why = "the module is not loaded (need " CFS ")";
	else if (!dir_clean(CFS, true, NULL) || !dir_clean(CLASS, false, NULL))
		why = "not a clean start: remove every buffer first";
	else if (read_number(PARAMS "/process_used"))
		why = "not a clean start: process_used is not 0";
	if (why)
		say("FAIL: %s", why);
	return !why;
}

/* The outcomes of each operation, and what data the workers checked. */
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
	say("stats: data checked in pipes and rings: %lu; killed children whose process-scoped buffer was gone when waited for: %lu",
	    atomic_load(&sh->copy_checks), atomic_load(&sh->kill_gone));
}

/*
 * Phases of work; between two, everything is released and checked.  @ref:
 * the module's refcount at the start; @free_kib: free memory then.
 */
static void coordinate(struct sentinel *st, long long ref, long long free_kib)
{
	uint64_t total = (uint64_t)cfg.seconds * 1000, phase_ms;
	long settled, settled_max = 0;
	struct worker *self = worker_new(0, 0);
	long long held = 0;
	unsigned int phases, i;
	char desc[300] = "";
	bool clean;

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
		if (atomic_load(&sh->failed))
			break;
		/* Nothing left: each of them listed, each entry reported. */
		clean = dir_clean(CFS, true, NULL);
		clean = dir_clean(CLASS, false, NULL) && clean;
		if (!dir_clean("/dev", false, PREFIX) || !clean)
			break;
		settled = wait_settled(ref, i + 1);
		if (settled < 0)
			break;
		if (settled > settled_max)
			settled_max = settled;
		held = read_number(PARAMS "/place_held");
		if (cfg.module && !reload_module(self, i + 1 == phases, desc,
						 sizeof(desc), &ref))
			break;
		say("phase %u of %u: %llu ms, then everything released (settled in %ld ms)%s%s",
		    i + 1, phases, (unsigned long long)phase_ms, settled,
		    cfg.module ? ", module unloaded and loaded again" : "", desc);
		if (i + 1 == phases) {
			say("end: process_used 0 and the module's refcount as at the start within %ld ms of the release (at most, of %u phases); place_held %lld bytes before the last unload",
			    settled_max, phases, held);
			check_memory(free_kib);
			break;
		}
		if (!sentinel_create(st, atomic_load(&sh->gen) + 1))
			break;
		/* Let the workers run again. */
		atomic_store(&sh->parked, 0);
		atomic_store(&sh->mode, MODE_RUN);
		atomic_fetch_add(&sh->gen, 1);
	}
	atomic_store(&sh->mode, MODE_EXIT);
	free(self);
}

/* Fork the worker processes; they drop the sentinel they inherit. */
static bool start_workers(const struct sentinel *st)
{
	unsigned int p;
	pid_t pid;

	for (p = 0; p < cfg.nprocs; p++) {
		pid = fork();
		if (pid == 0) {
			munmap((void *)st->map, SENTINEL_SIZE);
			close(st->fd);
			if (p == cfg.procs)
				placer_main(worker_new((int)(cfg.procs * cfg.threads), 0));
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

/*
 * udmabuf0's size: 64 KiB beyond the page allocator's largest block, whose
 * order is the last column of /proc/buddyinfo; 0 if that is too large.
 */
static uint64_t contig_param_size(void)
{
	char line[512], *tok, *save = NULL;
	unsigned int orders = 0;
	uint64_t largest;

	if (file_line("/proc/buddyinfo", "Node", line, sizeof(line)))
		for (tok = strtok_r(line, "\n ", &save); tok;
		     tok = strtok_r(NULL, "\n ", &save))
			orders += tok[0] >= '0' && tok[0] <= '9';
	if (orders < 2)
		return 0;
	/* "Node 0, zone DMA": the node's number counts too. */
	largest = cfg.page << (orders - 2);
	return largest > PARAM_CONTIG_MAX ? 0 : largest + 65536;
}

/* The command line into cfg: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv)
{
	unsigned long long n;
	unsigned int k;
	char *end;
	int i;

	for (i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];	/* argv[argc] is NULL */

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: udmabuf-stress [--seconds N] [--seed N] [--module FILE.ko]\n"
			       "                      [--selftest corrupt|leak|errno|splice|procleak|modref|memfree]\n"
			       "(tests/helpers/%s.c tells more)\n", prog);
			return 0;
		}
		if (!v)
			return usage_error("missing value or unknown option: %s", a);
		n = strtoull(v, &end, 0);	/* overflow: ULLONG_MAX */
		for (k = ST_NONE + 1; k < ST_NUM && strcmp(v, selftest_names[k]); k++)
			;
		if (!strcmp(a, "--module"))
			cfg.module = v;
		else if (!strcmp(a, "--seed") && *v && !*end)
			cfg.seed = n;
		else if (!strcmp(a, "--seconds") && *v && !*end && n >= 1 && n <= 86400)
			cfg.seconds = (unsigned int)n;
		else if (!strcmp(a, "--selftest") && k < ST_NUM)
			cfg.selftest = (enum selftest)k;
		else if (strcmp(a, "--seed") && strcmp(a, "--seconds") && strcmp(a, "--selftest"))
			return usage_error("unknown option: %s", a);
		else
			return usage_error("bad value: %s", v);
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct sentinel st = { .fd = -1 };
	long long ref, free_kib;
	unsigned int ma = 0, mi = 0, p;
	struct utsname u;
	int rc, status;
	pid_t pid;

	cfg.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	rc = parse_args(argc, argv);
	if (rc >= 0)
		return rc;
	if (cfg.selftest != ST_NONE) {
		cfg.procs = 1;
		cfg.threads = 1;
	}
	cfg.placer = cfg.selftest == ST_NONE;
	cfg.nprocs = cfg.procs + cfg.placer;
	/* io_uring registers file mappings other than shmem's from 6.5 on. */
	if (!uname(&u) && sscanf(u.release, "%u.%u", &ma, &mi) == 2)
		cfg.uring_pins = ma > 6 || (ma == 6 && mi >= 5);
	cfg.page = (uint64_t)sysconf(_SC_PAGESIZE);
	cfg.contig_size = contig_param_size();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("udmabuf-stress: mmap");
		return EXIT_FAILURE;
	}
	say("seed %" PRIu64 " (repeat with --seed %" PRIu64 "): %u s, %u processes of %u threads, %u private buffers each",
	    cfg.seed, cfg.seed, cfg.seconds, cfg.procs, cfg.threads, cfg.slots);
	if (!clean_start())
		return EXIT_FAILURE;
	/* Children a worker process leaves behind become ours to reap. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	ref = read_number(MODDIR "/refcnt");
	free_kib = settled_free_kib();
	if (sentinel_create(&st, 0) && start_workers(&st))
		coordinate(&st, ref, free_kib);
	atomic_store(&sh->mode, MODE_EXIT);
	for (p = 0; p < cfg.nprocs; p++)
		if (procs[p] && waitpid(procs[p], &status, 0) == procs[p])
			proc_ended(p, status, false);
	/* Kill and reap the child a --selftest left, once the checks are done. */
	pid = atomic_load(&sh->st_child);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (atomic_load(&sh->failed)) {
		sentinel_remove(&st);
		remove_pool();
	}
	print_stats();
	if (atomic_load(&sh->failed)) {
		say("stress: FAILED (seed %" PRIu64 ")", cfg.seed);
		return EXIT_FAILURE;
	}
	say("stress: passed");
	return 0;
}
