// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-bench - benchmarks of udmabuf-cfs buffers (usage() below says
 * how to run it, Documentation/performance.md what it measures).
 *
 * Every measurement is taken together with a baseline in the same run and
 * reported as a ratio (udmabuf time / baseline time: below 1 the buffer is
 * faster, above 1 slower), because in an emulated guest absolute times mean
 * little.  Operations are repeated; each result gives the median and the
 * minimum and maximum.  Where the two sides are measured in pairs (one after
 * the other, alternating which goes first) the ratio is the median of the
 * per-pair ratios, which cancels slow drifts of a busy host.  Times are
 * nanoseconds of CLOCK_MONOTONIC.  The program measures and reports: it
 * never judges a timing, and fails only if something does not work.
 *
 * Buffers are touched only with naturally aligned loads and stores, never
 * with memset/memcpy (tools/udmabufctl/bufloops.h says why).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <limits.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

static const char *prog = "udmabuf-bench";

#include "../helpers/udmabuf-helpers.h"
#include "../../tools/udmabufctl/bufloops.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define KiB		(1024ULL)
#define MiB		(1024ULL * 1024)
#define GiB		(1024ULL * MiB)
#define MAX_SAMPLES	64
#define RW_SIZE		(4 * MiB)
#define SYNC_SIZE	(1 * MiB)
#define SMALL_SIZE	(4 * KiB)
#define CHECK_REPS	15	/* check_buf/clear_buf: cheap, and noisy */
#define BATCH_NS	4e6	/* a timed batch of short operations */
#define NLEVELS		4	/* the buffer counts of the scaling test */

extern char **environ;

static const char *cfs_root = "/sys/kernel/config/udmabuf";
static const char *class_root = "/sys/class/udmabuf";
static const char *tmpdir;	/* $TMPDIR, else /tmp: tmpfs for the baselines */
static const char *cli = "udmabufctl";
static int reps = 7;
/*
 * check_buf sizes: the seed's, and 4 MiB, the page allocator's largest
 * block; a larger buffer is a contiguous range (driver/memory.c).
 */
static const uint64_t sizes[] = { 1 * MiB, 4 * MiB, 5 * MiB, 10 * MiB };
static const long levels[NLEVELS] = { 1, 10, 100, 1000 };
static long pagesize;

/* Results of loops nobody reads end up here, so no loop can be elided. */
static volatile uint64_t sink;

/* ---- Errors ---- */

/* "udmabuf-bench: OBJECT: ACTION: REASON" and exit. */
static void __attribute__((noreturn))
die(const char *obj, const char *action, int err)
{
	fprintf(stderr, "%s: %s: %s: %s\n", prog, obj, action, strerror(err));
	exit(1);
}

/* die() if ERR, a -errno, is not 0. */
static void or_die(int err, const char *obj, const char *action)
{
	if (err)
		die(obj, action, -err);
}

/* ---- Time and statistics ---- */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double start_ns;

/* Progress on stderr, with the time since the start. */
static void progress(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: [%5.1fs] ", prog, (now_ns() - start_ns) / 1e9);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stats {
	double med, min, max;
};

static struct stats stats_of(const double *v, int n)
{
	double s[MAX_SAMPLES];
	struct stats st = { 0, 0, 0 };

	if (n <= 0)
		return st;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	st.min = s[0];
	st.max = s[n - 1];
	st.med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	return st;
}

/* ---- Results ---- */

/**
 * struct result - one row of the output
 * @group: which benchmark (check, rw, mmap, sync, cycle, scale, large, calib)
 * @test: what was measured
 * @variant: how (mapping, block size, ...)
 * @size: bytes involved, 0 if none
 * @base_name: what the baseline is
 * @target: "ratio<=X", "ratio>=X", "value<=Xns" or empty
 * @note: anything a reader needs to interpret the row
 * @val: udmabuf samples, ns per operation
 * @base: baseline samples, ns per operation
 * @n: number of @val samples; @nbase: of @base (val[i] and base[i] are
 *	measured one right after the other, or for calibration rows, no @base)
 *
 * No member but @note may hold a comma (CSV fields are never quoted).
 */
struct result {
	const char *group;
	const char *test;
	const char *variant;
	uint64_t size;
	const char *base_name;
	const char *target;
	char note[160];
	double val[MAX_SAMPLES];
	double base[MAX_SAMPLES];
	int n, nbase;
};

/* A row to measure, its first members set. */
static struct result row(const char *group, const char *test, const char *variant,
			 uint64_t size, const char *base_name, const char *target)
{
	return (struct result){ .group = group, .test = test, .variant = variant, .size = size,
				.base_name = base_name, .target = target };
}

/* Append to the note of R; R, for emit(note(...)). */
static struct result *__attribute__((format(printf, 2, 3)))
note(struct result *r, const char *fmt, ...)
{
	size_t len = strlen(r->note);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->note + len, sizeof(r->note) - len, fmt, ap);
	va_end(ap);
	return r;
}

static void add_pair(struct result *r, double val, double base)
{
	if (r->n >= MAX_SAMPLES)
		return;
	r->val[r->n++] = val;
	r->base[r->nbase++] = base;
}

/* CSV fields here never need quoting: commas in notes and info are replaced. */
static const char *csv_clean(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (*p == ',' || *p == '\n' || *p == '"')
			*p = ';';
	return s;
}

/* "MEDIAN,MIN,MAX," of s, of n values, in the format fmt; ",,," if none. */
static void print_stats(struct stats s, int n, const char *fmt)
{
	if (n)
		printf(fmt, s.med, s.min, s.max);
	else
		printf(",,,");
}

/* Of the ratios of R's pairs; none if it has no @base. */
static struct stats ratio_stats(const struct result *r)
{
	double ratios[MAX_SAMPLES];
	int i;

	for (i = 0; i < r->nbase; i++)
		ratios[i] = r->val[i] / r->base[i];
	return stats_of(ratios, r->nbase);
}

static void emit(struct result *r)
{
	printf("@bench,%s,%s,%s,%" PRIu64 ",%d,", r->group, r->test, r->variant,
	       r->size, r->n);
	print_stats(stats_of(r->val, r->n), r->n, "%.1f,%.1f,%.1f,");
	printf("%s,", r->base_name);
	print_stats(stats_of(r->base, r->nbase), r->nbase, "%.1f,%.1f,%.1f,");
	print_stats(ratio_stats(r), r->nbase, "%.4f,%.4f,%.4f,");
	printf("%s,%s\n", r->target, csv_clean(r->note));
	fflush(stdout);
}

static void info(const char *key, const char *fmt, ...)
{
	char val[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	printf("@info,%s,%s\n", key, csv_clean(val));
	fflush(stdout);
}

/* ---- Files, configfs and sysfs ---- */

/* Write val to path, opened with flags (O_CREAT: mode 0644) added. */
static int write_str(const char *path, const char *val, int flags)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

/* The first line of path into buf, "?" if it cannot be read: the errno. */
static int read_str(const char *path, char *buf, size_t len)
{
	int err = read_file(path, buf, len);

	if (err)
		snprintf(buf, len, "?");
	buf[strcspn(buf, "\n")] = '\0';
	return err;
}

/*
 * Attribute ATTR of buffer NAME under ROOT (cfs_root or class_root), or with
 * ATTR "" the item itself: a path in a buffer that the next call reuses.
 */
static const char *attr_path(const char *root, const char *name, const char *attr)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", root, name, attr);
	return path;
}

/* Phases of a creation: mkdir, size (and dma_mask), enable. */
#define NPHASES 3

/*
 * mkdir, size, dma_mask (unless NULL), enable: 0 or -errno, and nothing
 * left behind on failure.  Adds each phase's ns to ph[] unless NULL.
 */
static int buf_create(const char *name, uint64_t size, const char *dma_mask,
		      double ph[NPHASES])
{
	char path[512], val[32];
	double t[NPHASES + 1];
	int err, k;

	snprintf(path, sizeof(path), "%s/%s", cfs_root, name);
	snprintf(val, sizeof(val), "%" PRIu64, size);
	t[0] = now_ns();
	if (mkdir(path, 0755))
		return -errno;
	t[1] = now_ns();
	err = write_str(attr_path(cfs_root, name, "size"), val, 0);
	if (!err && dma_mask)
		err = write_str(attr_path(cfs_root, name, "dma_mask"), dma_mask, 0);
	t[2] = now_ns();
	if (!err)
		err = write_str(attr_path(cfs_root, name, "enable"), "1", 0);
	t[3] = now_ns();
	if (err)
		rmdir(path);
	for (k = 0; ph && !err && k < NPHASES; k++)
		ph[k] += t[k + 1] - t[k];
	return err;
}

static void buf_delete(const char *name)
{
	int err = write_str(attr_path(cfs_root, name, "enable"), "0", 0);

	if (rmdir(attr_path(cfs_root, name, "")))
		err = -errno;
	or_die(err, name, "delete");
}

/* Set attribute ATTR of buffer NAME under ROOT to the number val. */
static void attr_set(const char *root, const char *name, const char *attr,
		     int val)
{
	char s[12];

	snprintf(s, sizeof(s), "%d", val);
	or_die(write_str(attr_path(root, name, attr), s, 0), name, attr);
}

static int buf_open(const char *name, int flags)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		die(path, "open", errno);
	return fd;
}

static void *buf_map(const char *name, int fd, uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		die(name, "mmap", errno);
	return p;
}

/* Create the file $TMPDIR/udmabuf-bench-WHAT.PID, named in path: its fd. */
static int tmp_create(char *path, size_t len, const char *what)
{
	int fd;

	snprintf(path, len, "%s/udmabuf-bench-%s.%d", tmpdir, what,
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path, "create", errno);
	return fd;
}

static void *alloc_or_die(uint64_t size)
{
	void *p = NULL;
	int err = posix_memalign(&p, pagesize, size);

	if (err)
		die("malloc", "allocate", err);
	return p;
}

/* The largest buffer, in steps of STEP below HI steps, that enable gives. */
static uint64_t probe_largest(const char *name, uint64_t step, uint64_t hi,
			      const char *dma_mask)
{
	uint64_t lo = 0, mid;
	int err;

	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		err = buf_create(name, mid * step, dma_mask, NULL);
		if (!err) {
			buf_delete(name);
			lo = mid;
		} else if (err == -ENOMEM) {
			hi = mid;
		} else {
			die(name, "probe size", -err);
		}
	}
	return lo * step;
}

/* Run a program (stdout to /dev/null) and wait; a failure is fatal. */
static void run_quiet(char *const *argv)
{
	posix_spawn_file_actions_t fa;
	int status, err;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		die(argv[0], "spawn", err);
	if (waitpid(pid, &status, 0) < 0)
		die(argv[0], "wait", errno);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: %s %s: failed (status 0x%x)\n", prog,
			argv[0], argv[1] ? argv[1] : "", status);
		exit(1);
	}
}

/* Run each command of cmds, a NULL-terminated list of argv, in turn. */
static void op_run(void *cmds)
{
	char *const *const *c;

	for (c = cmds; *c; c++)
		run_quiet(*c);
}

/* ---- Timing ---- */

/* A sample: one timed operation on ctx; ns. */
typedef double (*sample_fn)(void *ctx);

/* n pairs of samples of op and base, alternating which goes first. */
static void measure_pair(struct result *r, int n, sample_fn op, void *opctx,
			 sample_fn base, void *basectx)
{
	double a, b;
	int i;

	for (i = 0; i < n; i++) {
		if (i % 2) {
			b = base(basectx);
			a = op(opctx);
		} else {
			a = op(opctx);
			b = base(basectx);
		}
		add_pair(r, a, b);
	}
}

/* Short operations, timed in batches. */
typedef void (*op_fn)(void *ctx);

static double time_batch(op_fn fn, void *ctx, long k)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < k; i++)
		fn(ctx);
	return now_ns() - t0;
}

/* How many calls of fn make a batch of about BATCH_NS. */
static long calibrate(op_fn fn, void *ctx)
{
	long k = 1;
	double t;

	fn(ctx);	/* warm up */
	for (;;) {
		t = time_batch(fn, ctx, k);
		if (t >= BATCH_NS || k >= (1L << 24))
			break;
		k *= t < BATCH_NS / 64 ? 16 : 2;
	}
	return k;
}

struct batch {
	op_fn fn;
	void *ctx;
	long k;
};

/* A sample of a batch: ns per call. */
static double time_per_call(void *ctx)
{
	struct batch *b = ctx;

	return time_batch(b->fn, b->ctx, b->k) / b->k;
}

/* reps paired batches of op and base. */
static void measure_batches(struct result *r, op_fn op, void *opctx,
			    op_fn base, void *basectx)
{
	struct batch a = { op, opctx, calibrate(op, opctx) };
	struct batch b = { base, basectx, calibrate(base, basectx) };

	measure_pair(r, reps, time_per_call, &a, time_per_call, &b);
}

static void op_getppid(void *ctx)
{
	(void)ctx;
	sink += syscall(SYS_getppid);
}

/* A row of short operations against a null system call, getppid(). */
static void getppid_row(const char *group, const char *test,
			const char *variant, uint64_t size, op_fn op,
			void *ctx, const char *target, const char *text)
{
	struct result r = row(group, test, variant, size, "getppid()", target);

	measure_batches(&r, op, ctx, op_getppid, NULL);
	emit(note(&r, "%s", text));
}

/* ---- 1. check_buf and clear_buf ---- */

/*
 * A loop of bufloops.h on n bytes at p: clear_buf, or check_buf with a new
 * pattern each time.
 */
struct loop_ctx {
	uint8_t *p;
	size_t n;
	int clear;
	unsigned int seed;
	uint64_t errors;
};

static double time_loop(void *ctx)
{
	struct loop_ctx *c = ctx;
	double t0 = now_ns();

	if (c->clear)
		bufloop_clear(c->p, c->n);
	else
		c->errors += bufloop_check(c->p, c->n, c->seed++);
	return now_ns() - t0;
}

static const char *const check_variants[] = {
	"cached (no O_SYNC)", "O_SYNC sync_mode=0", "O_SYNC sync_mode=1",
	"O_SYNC sync_mode=2", "O_SYNC sync_mode=3",
};

/* One mapping variant: v 0 = no O_SYNC, v 1..4 = O_SYNC, sync_mode v-1. */
static void check_variant(const char *name, uint64_t size, int v,
			  uint8_t *mem)
{
	struct loop_ctx buf = { .n = size, .clear = 1 },
		base = { .p = mem, .n = size, .clear = 1 };
	struct result r;
	char cache[32];
	int fd, clear;

	attr_set(cfs_root, name, "sync_mode", v ? v - 1 : 1);
	read_str(attr_path(class_root, name, v ? "cache_mode_sync" : "cache_mode"), cache,
		 sizeof(cache));
	fd = buf_open(name, O_RDWR | (v ? O_SYNC : 0));
	buf.p = buf_map(name, fd, size);

	time_loop(&buf);	/* warm up both */
	time_loop(&base);
	for (clear = 0; clear < 2; clear++) {
		buf.clear = clear;
		base.clear = clear;
		r = row("check", clear ? "clear_buf" : "check_buf", check_variants[v],
			size, "malloc", v ? "" : "ratio<=1.02");
		note(&r, "mapping: %s", cache);
		measure_pair(&r, CHECK_REPS, time_loop, &buf, time_loop, &base);
		if (!clear && buf.errors) {
			fprintf(stderr, "%s: %s: check_buf: %" PRIu64
				" bytes read back wrong\n", prog, name,
				buf.errors);
			note(&r, "; %" PRIu64 " BYTES READ BACK WRONG",
			     buf.errors);
		}
		emit(&r);
	}
	sink += base.errors;
	munmap(buf.p, size);
	close(fd);
}

static void bench_check(void)
{
	const char *name = "bench-check";
	int s, v, err;

	for (s = 0; s < (int)ARRAY_SIZE(sizes); s++) {
		uint64_t size = sizes[s];
		uint8_t *mem;

		progress("check_buf/clear_buf, %" PRIu64 " MiB", size / MiB);
		err = buf_create(name, size, NULL, NULL);
		if (err) {
			struct result r = row("check", "check_buf", "all", size, "malloc", "");

			emit(note(&r, "not measured: enable failed: %s", strerror(-err)));
			continue;
		}
		mem = alloc_or_die(size);
		for (v = 0; v < 5; v++)
			check_variant(name, size, v, mem);
		free(mem);
		buf_delete(name);
	}
}

/* ---- 2. read() and write() ---- */

/* RW_SIZE bytes of fd in blocks of bs, with pread or pwrite; or memcpy. */
struct rw_ctx {
	const char *what;
	int fd, write_it;
	uint8_t *mem, *src;
	size_t bs;
};

static double time_rw(void *ctx)
{
	struct rw_ctx *c = ctx;
	double t0 = now_ns();
	uint64_t off;
	ssize_t n;

	for (off = 0; off < RW_SIZE; off += c->bs) {
		if (c->write_it)
			n = pwrite(c->fd, c->mem + off, c->bs, off);
		else
			n = pread(c->fd, c->mem + off, c->bs, off);
		if (n != (ssize_t)c->bs)
			die(c->what, c->write_it ? "pwrite" : "pread",
			    n < 0 ? errno : EIO);
	}
	return now_ns() - t0;
}

static double time_copy(void *ctx)
{
	struct rw_ctx *c = ctx;
	double t0 = now_ns();

	memcpy(c->mem, c->src, RW_SIZE);
	__asm__ __volatile__("" : : "r"(c->mem) : "memory");
	return now_ns() - t0;
}

static void bench_rw(void)
{
	/* The last two with O_SYNC: every read and write brackets the copy with syncs. */
	static const size_t blocks[] = { 4 * KiB, 64 * KiB, 1 * MiB, 64 * KiB, 1 * MiB };
	const char *name = "bench-rw";
	uint8_t *mem = alloc_or_die(RW_SIZE), *src = alloc_or_die(RW_SIZE);
	struct rw_ctx buf = { name, -1, 1, mem, src, RW_SIZE }, tmp = buf;
	char path[512], variant[64];
	struct result r;
	int i, b;

	progress("read/write, %llu MiB", RW_SIZE / MiB);
	for (i = 0; i < (int)RW_SIZE; i++) {
		src[i] = (uint8_t)i;
		mem[i] = (uint8_t)i;
	}
	or_die(buf_create(name, RW_SIZE, NULL, NULL), name, "create");
	tmp.what = "tmpfs";
	tmp.fd = tmp_create(path, sizeof(path), "rw");
	/* Every page of both exists before the timing starts. */
	time_rw(&tmp);
	buf.fd = buf_open(name, O_RDWR);
	time_rw(&buf);
	for (b = 0; b < (int)ARRAY_SIZE(blocks); b++) {
		if (b == 3) {
			close(buf.fd);
			buf.fd = buf_open(name, O_RDWR | O_SYNC);
		}
		snprintf(variant, sizeof(variant), "%s%zu KiB blocks", b > 2 ? "O_SYNC " : "",
			 (size_t)(blocks[b] / KiB));
		for (i = 1; i >= 0; i--) {
			r = row("rw", i ? "write" : "read", variant, RW_SIZE,
				i ? "tmpfs pwrite" : "tmpfs pread",
				b == 1 || b == 2 ? "ratio<=1" : "");
			buf.write_it = i;
			buf.bs = blocks[b];
			tmp.write_it = i;
			tmp.bs = blocks[b];
			measure_pair(&r, reps, time_rw, &buf, time_rw, &tmp);
			emit(&r);
		}
	}
	close(buf.fd);

	/* The copy floor, for reference: memcpy against tmpfs pread 1 MiB. */
	r = row("rw", "memcpy", "malloc to malloc (reference)", RW_SIZE, "tmpfs pread", "");
	tmp.write_it = 0;
	tmp.bs = MiB;
	measure_pair(&r, reps, time_copy, &tmp, time_rw, &tmp);
	emit(note(&r, "reference only: not a target"));

	close(tmp.fd);
	unlink(path);
	buf_delete(name);
	free(mem);
	free(src);
}

/* ---- 3. mmap and first touch of the largest buffer ---- */

/*
 * The number after KEY, which ends in its separator, on a line of the
 * /proc file PATH, or -1: proc_value(MEMINFO, "MemFree:"), in kB.
 */
#define MEMINFO	"/proc/meminfo"
#define VMSTAT	"/proc/vmstat"
static long proc_value(const char *path, const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long val = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len)) {
			val = strtol(line + len, NULL, 10);
			break;
		}
	fclose(f);
	return val;
}

/* Touch every page once: write a byte (TOUCH_WRITE), read one, or not. */
enum touch { TOUCH_NONE, TOUCH_READ, TOUCH_WRITE };

static void touch_pages(uint8_t *p, uint64_t size, enum touch how)
{
	volatile uint8_t *q = p;
	uint64_t off, sum = 0;

	if (how == TOUCH_NONE)
		return;
	for (off = 0; off < size; off += pagesize) {
		if (how == TOUCH_WRITE)
			q[off] = (uint8_t)off;
		else
			sum += q[off];
	}
	sink += sum;
}

/* mmap of a buffer (fd, MAP_SHARED) or of anonymous memory (fd -1), and touch. */
#define ANON	(MAP_PRIVATE | MAP_ANONYMOUS)
struct map_ctx {
	const char *name;
	int fd, flags;
	uint64_t size;
	enum touch how;
	long faults;	/* the minor faults taken, added up */
	uint8_t *p;	/* a mapping of the buffer, for time_round() */
};

/* ns; munmap is not timed. */
static double time_map(void *ctx)
{
	struct map_ctx *c = ctx;
	struct rusage r0, r1;
	double t0, t;
	void *p;

	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ns();
	p = mmap(NULL, c->size, PROT_READ | PROT_WRITE, c->flags, c->fd, 0);
	if (p == MAP_FAILED)
		die(c->name, "mmap", errno);
	touch_pages(p, c->size, c->how);
	t = now_ns() - t0;
	getrusage(RUSAGE_SELF, &r1);
	c->faults += r1.ru_minflt - r0.ru_minflt;
	munmap(p, c->size);
	return t;
}

/* One row: udmabuf mmap + touch against anonymous memory + the same. */
static void mmap_row(struct map_ctx *buf, enum touch how, int anon_flags,
		     const char *test, const char *base, const char *target)
{
	struct map_ctx anon = { .name = "anonymous memory", .fd = -1,
				.flags = ANON | anon_flags, .size = buf->size,
				.how = how };
	struct result r = row("mmap", test, "every page", buf->size, base, target);

	buf->how = how;
	time_map(buf);	/* warm up */
	time_map(&anon);
	buf->faults = 0;
	measure_pair(&r, reps, time_map, buf, time_map, &anon);
	emit(note(&r, "udmabuf side: %.2f page faults per page",
		  (double)buf->faults / reps / (buf->size / pagesize)));
}

/*
 * Reference: what one access per page costs when no page is mapped or
 * faulted at all, only missing from the TLB: anonymous memory mapped and
 * touched beforehand, its TLB entries dropped (mprotect() to PROT_NONE and
 * back, untimed), then read page by page.  No mapping of any memory can
 * make its first touch cheaper; against the same baseline as the
 * udmabuf-cfs rows, it is the floor of their ratio on this machine.
 */
static double time_touch_mapped(void *ctx)
{
	struct loop_ctx *c = ctx;
	double t0;

	if (mprotect(c->p, c->n, PROT_NONE) ||
	    mprotect(c->p, c->n, PROT_READ | PROT_WRITE))
		die("anonymous memory", "mprotect", errno);
	t0 = now_ns();
	touch_pages(c->p, c->n, TOUCH_READ);
	return now_ns() - t0;
}

static void mmap_floor_row(uint64_t size)
{
	struct map_ctx anon = { .name = "anonymous memory", .fd = -1,
				.flags = ANON | MAP_POPULATE, .size = size,
				.how = TOUCH_READ };
	struct loop_ctx c = { .n = size };
	struct result r = row("mmap", "touch only of pages already mapped (reference)",
			      "every page", size, "anon MAP_POPULATE + read", "");

	c.p = mmap(NULL, size, PROT_READ | PROT_WRITE, ANON | MAP_POPULATE, -1, 0);
	if (c.p == MAP_FAILED)
		die("anonymous memory", "mmap", errno);
	touch_pages(c.p, size, TOUCH_WRITE);
	time_touch_mapped(&c);	/* warm up */
	measure_pair(&r, reps, time_touch_mapped, &c, time_map, &anon);
	munmap(c.p, size);
	emit(note(&r, "anonymous memory: TLB misses only; the floor of the ratios above"));
}

/*
 * What the sync checker costs, on the buffer of the rows above.  With it
 * on, mmap maps nothing ahead (each first touch faults), and in a DMA
 * round (sync for the device, sync for the CPU, a write to every page)
 * each sync for the device revokes the CPU's mappings, so that every page
 * faults again: a round (on the mapping c->p of c->size bytes) against
 * the same round with the checker off.
 */
static double time_round(void *ctx)
{
	struct map_ctx *c = ctx;
	double t0 = now_ns();

	if (sync_ioctl(c->fd, 0, 0, c->size, UDMABUF_CFS_DIR_BIDIRECTIONAL, 0))
		die(c->name, "ioctl SYNC_FOR_DEVICE", errno);
	if (sync_ioctl(c->fd, 1, 0, c->size, UDMABUF_CFS_DIR_BIDIRECTIONAL, 0))
		die(c->name, "ioctl SYNC_FOR_CPU", errno);
	touch_pages(c->p, c->size, TOUCH_WRITE);
	return now_ns() - t0;
}

static void checker_rows(struct map_ctx *buf)
{
	struct map_ctx round = *buf;
	double a[MAX_SAMPLES];
	char violations[32];
	struct result r = row("mmap", "DMA round with the sync checker on",
			      "sync for device then CPU and a write to every page", 0,
			      "the same round with the checker off", "");
	int i;

	attr_set(class_root, buf->name, "sync_check", 1);
	mmap_row(buf, TOUCH_WRITE, MAP_POPULATE,
		 "mmap + first write with the sync checker on",
		 "anon MAP_POPULATE + write", "");

	/* A round of a large buffer takes long under emulation: 4 MiB. */
	round.size = buf->size < 4 * MiB ? buf->size : 4 * MiB;
	r.size = round.size;
	round.p = buf_map(round.name, round.fd, round.size);
	/*
	 * A sync for the device with the checker on revokes the buffer's
	 * mappings: each side's rounds run together, after one round that
	 * is not timed.
	 */
	time_round(&round);
	for (i = 0; i < reps; i++)
		a[i] = time_round(&round);
	attr_set(class_root, buf->name, "sync_check", 0);
	time_round(&round);
	for (i = 0; i < reps; i++)
		add_pair(&r, a[i], time_round(&round));
	read_str(attr_path(class_root, round.name, "sync_violations"), violations,
		 sizeof(violations));
	emit(note(&r, "the checker's price in a DMA loop; reports: %s", violations));
	munmap(round.p, round.size);
}

/*
 * udmabuf: mmap (which maps the whole buffer) and one access per page;
 * baseline: anonymous memory with MAP_POPULATE (allocated, zeroed and
 * mapped by mmap) and the same accesses.  References: mmap alone,
 * anonymous memory faulted in page by page, and the touch alone.
 */
static void bench_mmap(void)
{
	const char *name = "bench-mmap";
	struct map_ctx buf = { .name = name, .flags = MAP_SHARED };
	long cma = proc_value(MEMINFO, "CmaFree:");

	progress("mmap + first touch: probing the largest buffer");
	/* Up to CMA's free space, else generous. */
	buf.size = probe_largest(name, MiB, cma > 0 ? cma / 1024 + 1 : 65, NULL);
	info("cma_free_kb", "%ld", cma);
	info("largest_buffer", "%" PRIu64, buf.size);
	if (!buf.size) {
		struct result r = row("mmap", "mmap + first write", "every page", 0,
				      "anon MAP_POPULATE", "");

		emit(note(&r, "not measured: no buffer"));
		return;
	}
	progress("mmap + first touch, %" PRIu64 " MiB", buf.size / MiB);
	or_die(buf_create(name, buf.size, NULL, NULL), name, "create");
	buf.fd = buf_open(name, O_RDWR);
	mmap_row(&buf, TOUCH_WRITE, MAP_POPULATE, "mmap + first write",
		 "anon MAP_POPULATE + write", "ratio<=0.05");
	mmap_row(&buf, TOUCH_READ, MAP_POPULATE, "mmap + first read",
		 "anon MAP_POPULATE + read", "ratio<=0.05");
	mmap_row(&buf, TOUCH_NONE, MAP_POPULATE, "mmap alone",
		 "anon MAP_POPULATE alone", "");
	mmap_row(&buf, TOUCH_WRITE, 0, "mmap + first write",
		 "anon + write (page faults)", "");
	progress("the sync checker's cost");
	checker_rows(&buf);
	close(buf.fd);
	buf_delete(name);
	mmap_floor_row(buf.size);
}

/* ---- 4. Cache synchronisation ---- */

/* ioctl(fd, cmd, arg); pwrite of text to fd; or write_str(path, text). */
struct sync_ctx {
	const char *what;
	int fd;
	unsigned long cmd;
	void *arg;
	struct udmabuf_cfs_sync range;
	const char *path;
	const char *text;
	size_t len;
};

/* Open, read and close a small file: the cost of one attribute. */
static void op_read_file(void *path)
{
	char buf[64];
	int err = read_str(path, buf, sizeof(buf));

	if (err)
		die(path, "read", err);
	sink += buf[0];
}

static void op_ioctl(void *ctx)
{
	struct sync_ctx *c = ctx;

	if (ioctl(c->fd, c->cmd, c->arg))
		die(c->what, "ioctl", errno);
}

static void op_sysfs(void *ctx)
{
	struct sync_ctx *c = ctx;

	if (pwrite(c->fd, c->text, c->len, 0) != (ssize_t)c->len)
		die(c->what, "write", errno);
}

/* What "echo 0 4096 0 > sync_for_device" costs: open, write, close. */
static void op_sysfs_open(void *ctx)
{
	struct sync_ctx *c = ctx;

	or_die(write_str(c->path, c->text, 0), c->path, "write");
}

static void bench_sync(void)
{
	const char *name = "bench-sync";
	struct udmabuf_cfs_info in;
	struct sync_ctx c = { .what = name };
	char path[512], kind[96], text[64];
	const char *target;
	int coherent, i;

	progress("sync latency");
	or_die(buf_create(name, SYNC_SIZE, NULL, NULL), name, "create");
	c.fd = buf_open(name, O_RDWR);
	if (ioctl(c.fd, UDMABUF_CFS_IOC_GET_INFO, &in))
		die(name, "ioctl GET_INFO", errno);
	coherent = !!(in.flags & UDMABUF_CFS_INFO_DMA_COHERENT);
	info("driver_version", "%s", in.driver_version);
	info("dma_coherent", "%d", coherent);
	info("ram_always_cached", "%d",
	     !!(in.flags & UDMABUF_CFS_INFO_RAM_CACHED));
	snprintf(kind, sizeof(kind), "%s buffer",
		 coherent ? "coherent" : "non-coherent");
	target = coherent ? "ratio<=3" : "";

	c.cmd = UDMABUF_CFS_IOC_GET_INFO;
	c.arg = &in;
	getppid_row("sync", "ioctl GET_INFO", "no cache work", 0, op_ioctl, &c,
		    "", "reference: ioctl dispatch alone");
	c.arg = &c.range;
	c.range.direction = UDMABUF_CFS_DIR_BIDIRECTIONAL;
	for (i = 0; i < 4; i++) {
		int cpu = !(i % 2);

		c.cmd = cpu ? UDMABUF_CFS_IOC_SYNC_FOR_CPU : UDMABUF_CFS_IOC_SYNC_FOR_DEVICE;
		c.range.size = i < 2 ? SMALL_SIZE : SYNC_SIZE;
		getppid_row("sync", cpu ? "ioctl SYNC_FOR_CPU" : "ioctl SYNC_FOR_DEVICE",
			    i < 2 ? "4 KiB" : "1 MiB (whole)", c.range.size, op_ioctl, &c, target,
			    kind);
	}
	close(c.fd);

	snprintf(text, sizeof(text), "0 %llu 0", SMALL_SIZE);
	c.text = text;
	c.len = strlen(text);
	for (i = 0; i < 2; i++) {
		const char *attr = i ? "sync_for_device" : "sync_for_cpu";

		snprintf(path, sizeof(path), "%s/%s/%s", class_root, name,
			 attr);
		c.path = path;
		c.fd = open(path, O_WRONLY | O_CLOEXEC);
		if (c.fd < 0)
			die(path, "open", errno);
		getppid_row("sync", i ? "sysfs sync_for_device" :
			    "sysfs sync_for_cpu", "4 KiB; write on an open file",
			    SMALL_SIZE, op_sysfs, &c, "", kind);
		close(c.fd);
	}
	getppid_row("sync", "sysfs sync_for_device", "4 KiB; open+write+close",
		    SMALL_SIZE, op_sysfs_open, &c, "",
		    "what a shell's echo costs");
	buf_delete(name);
}

/* ---- 5. create -> enable -> delete cycles ---- */

/* The tmpfs directory dir with its files size and enable. */
struct cycle_ctx {
	char dir[512], size_file[600], enable_file[600];
	char size[32];
};

static void op_cfs_cycle(void *ctx)
{
	(void)ctx;
	or_die(buf_create("bench-cycle", SMALL_SIZE, NULL, NULL), "bench-cycle",
	       "create");
	buf_delete("bench-cycle");
}

/* The same file system operations on tmpfs: mkdir, 3 writes, rmdir. */
static void op_tmpfs_cycle(void *ctx)
{
	struct cycle_ctx *c = ctx;
	int f = O_CREAT | O_TRUNC;

	if (mkdir(c->dir, 0755))
		die(c->dir, "mkdir", errno);
	or_die(write_str(c->size_file, c->size, f), c->size_file, "write");
	or_die(write_str(c->enable_file, "1", f), c->enable_file, "write");
	or_die(write_str(c->enable_file, "0", f), c->enable_file, "write");
	if (unlink(c->size_file) || unlink(c->enable_file) || rmdir(c->dir))
		die(c->dir, "remove", errno);
}

static void cycle_init(struct cycle_ctx *c, const char *dir)
{
	snprintf(c->dir, sizeof(c->dir), "%s/%s", tmpdir, dir);
	snprintf(c->size_file, sizeof(c->size_file), "%s/size", c->dir);
	snprintf(c->enable_file, sizeof(c->enable_file), "%s/enable", c->dir);
	snprintf(c->size, sizeof(c->size), "%llu", SMALL_SIZE);
}

static void cycle_row(const char *test, const char *base_name, op_fn op,
		      void *opctx, op_fn base, void *basectx)
{
	struct result r = row("cycle", test, "4 KiB buffer", SMALL_SIZE, base_name, "");

	measure_batches(&r, op, opctx, base, basectx);
	emit(note(&r, "%.0f cycles/s", 1e9 / stats_of(r.val, r.n).med));
}

static void bench_cycle(void)
{
	struct cycle_ctx c;
	char *create[] = { (char *)cli, "create", "bench-cli", "--size",
			   c.size, NULL };
	char *del[] = { (char *)cli, "delete", "bench-cli", NULL };
	char *help[] = { (char *)cli, "--help", NULL };
	char *const *cli_cycle[] = { create, del, NULL };
	char *const *two_helps[] = { help, help, NULL };

	progress("create/enable/delete cycles");
	cycle_init(&c, "udmabuf-bench-cycle");
	cycle_row("configfs create+enable+delete", "same file ops on tmpfs",
		  op_cfs_cycle, NULL, op_tmpfs_cycle, &c);
	cycle_row("udmabufctl create + delete", "2x udmabufctl --help",
		  op_run, cli_cycle, op_run, two_helps);
}

/* ---- 6. Scaling with the number of buffers ---- */

/* The name of buffer i, in a buffer the next call reuses. */
static const char *scale_name(long i)
{
	static char name[32];

	snprintf(name, sizeof(name), "bench-s%04ld", i);
	return name;
}

/* Create buffer i through configfs; adds each phase's ns to ph[]. */
static double time_create(long i, double ph[NPHASES])
{
	const char *name = scale_name(i);
	double t0 = now_ns();

	or_die(buf_create(name, SMALL_SIZE, NULL, ph), name, "create");
	return now_ns() - t0;
}

/*
 * What creation and listing are measured against.  A yardstick is timed
 * right after each sample, so that a host that slows down or speeds up
 * meanwhile (other guests, other jobs) does not bend the curve: for
 * creation, a batch of the configfs file operations on tmpfs; for the
 * CLI, READS_PER_YARD reads of a sysfs attribute.
 */
#define READS_PER_YARD	1000
#define SYSFS_PROBE	"/sys/devices/system/cpu/online"

static double yard_reads(void *path)
{
	return time_batch(op_read_file, path, READS_PER_YARD);
}

/*
 * Create buffers from+1..to into c: samples are mean times per buffer over
 * at most MAX_SAMPLES / 4 consecutive chunks, each paired with the tmpfs
 * yardstick yard; the first buffer alone is created (and deleted) reps
 * times.  ph[] gets the mean time per buffer of each phase.
 */
static void create_batch(struct result *c, long from, long to,
			 struct batch *yard, double ph[NPHASES])
{
	long count = to == 1 ? reps : to - from, i, k;
	long chunk = (count + MAX_SAMPLES / 4 - 1) / (MAX_SAMPLES / 4);

	for (i = 0; to == 1 && i < reps; i++) {
		add_pair(c, time_create(1, ph), time_per_call(yard));
		if (i < reps - 1)
			buf_delete(scale_name(1));
	}
	for (i = from + 1; to > 1 && i <= to; i = k) {
		double t = 0;

		for (k = i; k <= to && k < i + chunk; k++)
			t += time_create(k, ph);
		add_pair(c, t / (k - i), time_per_call(yard));
	}
	for (k = 0; k < NPHASES; k++)
		ph[k] /= count;
}

/*
 * Time the command argv with have buffers alive and emit the row (TEST,
 * with TARGET); returns the median ratio. The note counts the time in
 * attribute reads beyond empty_ratio, the program's start-up (see
 * bench_scale()): per buffer when per_buffer, else in all.
 */
static double scale_cli(const char *test, char *const *argv, long have,
			double empty_ratio, int per_buffer, const char *target)
{
	char *const *cmds[] = { argv, NULL };
	struct batch run = { op_run, cmds, 1 };
	char variant[32];
	struct result s = row("scale", test, variant, 0, "1000 sysfs attribute reads", target);
	double med;

	snprintf(variant, sizeof(variant), "%ld alive", have);
	measure_pair(&s, reps, time_per_call, &run, yard_reads, SYSFS_PROBE);
	med = ratio_stats(&s).med;
	if (empty_ratio < 0)
		note(&s, "program start-up: %.0f attribute reads' time",
		     med * READS_PER_YARD);
	else if (per_buffer && have)
		note(&s, "%.0f attribute reads' time per buffer",
		     (med - empty_ratio) * READS_PER_YARD / have);
	else
		note(&s, "%.0f attribute reads' time after start-up",
		     (med - empty_ratio) * READS_PER_YARD);
	emit(&s);
	return med;
}

/*
 * Buffers are created level by level (1, 10, 100, 1000 alive); at each
 * level "udmabufctl list" and "udmabufctl info" of one buffer, by item
 * name and by device path, are timed; at the last level also
 * "udmabufctl list -J". Creation is reported per buffer, against the same
 * file operations on tmpfs; the CLI against 1000 reads of a sysfs
 * attribute. Cost linear in the number of buffers shows as a flat
 * creation ratio and a flat number of attribute reads per listed buffer;
 * info by name should not grow at all. info /dev/NAME looks the device
 * up among the items, reading device_name of each until it matches: the
 * first buffer made is asked for, found wherever configfs lists it.
 * At the last level the CLI has absolute targets.
 */
static void bench_scale(void)
{
	char item[32], dev[48], variant[32];
	char *list_argv[] = { (char *)cli, "list", NULL };
	char *json_argv[] = { (char *)cli, "list", "-J", NULL };
	char *item_argv[] = { (char *)cli, "info", item, NULL };
	char *dev_argv[] = { (char *)cli, "info", dev, NULL };
	struct cycle_ctx cyc;
	struct batch yard = { op_tmpfs_cycle, &cyc, 0 };
	double ph[NPHASES], empty;
	struct result c;
	long have = 0;
	int l, last;

	cycle_init(&cyc, "udmabuf-bench-yard");
	yard.k = calibrate(op_tmpfs_cycle, &cyc);
	snprintf(item, sizeof(item), "%s", scale_name(1));
	snprintf(dev, sizeof(dev), "/dev/%s", item);

	progress("scaling: list of no buffers");
	empty = scale_cli("udmabufctl list", list_argv, 0, -1, 1, "");
	for (l = 0; l < NLEVELS; l++) {
		last = l == NLEVELS - 1;
		progress("scaling: %ld buffers", levels[l]);
		snprintf(variant, sizeof(variant), "%ld alive", levels[l]);
		c = row("scale", "create per buffer", variant, SMALL_SIZE,
			"same file ops on tmpfs", "");
		memset(ph, 0, sizeof(ph));
		create_batch(&c, have, levels[l], &yard, ph);
		have = levels[l];
		emit(note(&c, "mean per phase: mkdir %.0f us; size %.0f us; enable %.0f us",
			  ph[0] / 1e3, ph[1] / 1e3, ph[2] / 1e3));
		scale_cli("udmabufctl list", list_argv, have, empty, 1,
			  last ? "value<=1e9" : "");
		scale_cli("udmabufctl info NAME", item_argv, have, empty, 0,
			  last ? "value<=1e8" : "");
		scale_cli("udmabufctl info /dev/NAME", dev_argv, have, empty, 1,
			  last ? "value<=1e9" : "");
	}
	scale_cli("udmabufctl list -J", json_argv, have, empty, 1, "value<=1e9");

	progress("scaling: deleting %ld buffers", have);
	for (l = 1; l <= have; l++)
		buf_delete(scale_name(l));
}

/* ---- 7. Calibration: primitives to compare with real hardware ---- */

static void op_byte_loop(void *ctx)
{
	struct loop_ctx *c = ctx;

	sink += bufloop_check(c->p, c->n, 1);
}

/*
 * The same few primitives on any Linux machine, module or not: run on the
 * host as well, they tell how much slower the emulated guest is at each
 * kind of work, which turns the guest's absolute times into estimates.
 */
static void bench_calib(void)
{
	static const char *const why = "for comparing machines (run it on the host too)";
	char *help[] = { "/proc/self/exe", "--help", NULL };
	char *const *spawn[] = { help, NULL };
	struct loop_ctx loop = { .n = MiB };
	char path[512];
	struct result r = row("calib", "getppid()", "", 0, "", "");
	int i, fd;

	progress("calibration");
	for (i = 0; i < reps; i++) {
		long k = calibrate(op_getppid, NULL);

		r.val[r.n++] = time_batch(op_getppid, NULL, k) / k;
	}
	emit(note(&r, "null system call"));

	getppid_row("calib", "sysfs attribute open+read+close", "", 0,
		    op_read_file, SYSFS_PROBE, "", why);
	fd = tmp_create(path, sizeof(path), "calib");
	if (write(fd, "1\n", 2) != 2)
		die(path, "write", errno);
	close(fd);
	getppid_row("calib", "tmpfs file open+read+close", "", 0, op_read_file,
		    path, "", why);
	unlink(path);
	loop.p = alloc_or_die(MiB);
	bufloop_clear(loop.p, MiB);
	getppid_row("calib", "check_buf 1 MiB malloc", "", 0, op_byte_loop,
		    &loop, "", why);
	free(loop.p);
	getppid_row("calib", "spawn+wait static program", "", 0, op_run, spawn,
		    "", why);
}

/* ---- Large buffers: the contiguous-range allocator beyond CMA ---- */

/* enable against populating anonymous memory of the same size. */
static void large_alloc(const char *name, uint64_t size, const char *group)
{
	struct map_ctx anon = { .name = "anonymous memory", .fd = -1,
				.flags = ANON | MAP_POPULATE, .size = size };
	char allocator[32];
	struct result r = row("large", group, "dma_mask 64", size, "MAP_POPULATE anonymous", "");
	int i, err;

	for (i = 0; i < reps; i++) {
		double t0 = now_ns(), a;

		err = buf_create(name, size, "64", NULL);
		a = now_ns() - t0;
		if (err) {
			note(&r, "enable: %s", strerror(-err));
			break;
		}
		read_str(attr_path(cfs_root, name, "allocator"), allocator, sizeof(allocator));
		buf_delete(name);
		add_pair(&r, a, time_map(&anon));
	}
	if (!r.note[0])
		note(&r, "allocator %s", allocator);
	emit(&r);
}

/* Fill tmpfs until about @keep bytes are free; the file's fd, or -1. */
static int large_fill(uint64_t keep, char *path, size_t len)
{
	long free_kb = proc_value(MEMINFO, "MemFree:");
	uint64_t left, n = 0;
	static char chunk[1 << 20];
	int fd;

	if (free_kb < 0 || (uint64_t)free_kb * 1024 <= keep)
		return -1;
	left = (uint64_t)free_kb * 1024 - keep;
	fd = tmp_create(path, len, "fill");
	memset(chunk, 0x5a, sizeof(chunk));
	while (n < left && write(fd, chunk, sizeof(chunk)) == sizeof(chunk))
		n += sizeof(chunk);
	return fd;
}

/*
 * Where the kernel image lies in physical memory (/proc/iomem, root), in
 * MiB: from the start of its code to the end of its last section.  With
 * KASLR it moves at every boot, and no range can span it: it decides
 * which part of memory the largest buffer can come from.  Into r's note
 * and the info, unless /proc/iomem does not say.
 */
static void kernel_image_note(struct result *r)
{
	FILE *f = fopen("/proc/iomem", "re");
	unsigned long long a, b, lo = ULLONG_MAX, hi = 0;
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, ": Kernel ") ||
		    sscanf(line, " %llx-%llx", &a, &b) != 2 || !b)
			continue;
		lo = a / MiB < lo ? a / MiB : lo;
		hi = b / MiB > hi ? b / MiB : hi;
	}
	fclose(f);
	if (lo == ULLONG_MAX)
		return;
	note(r, "; kernel image at %llu-%llu MiB", lo, hi);
	info("kernel_image_mib", "%llu-%llu", lo, hi);
}

static void bench_large(void)
{
	const char *name = "bench-large";
	long free_kb = proc_value(MEMINFO, "MemFree:"), ooms = proc_value(VMSTAT, "oom_kill ");
	char path[512];
	struct result r;
	uint64_t largest;
	double t0;
	int fd, err;

	progress("large: the largest buffer");
	/* To 16 MiB, with a 64-bit mask. */
	largest = probe_largest(name, 16 * MiB,
				(uint64_t)free_kb * 1024 / (16 * MiB) + 1, "64");
	r = row("large", "largest buffer / MemFree", "dma_mask 64", largest,
		"MemFree", "ratio>=0.5");
	add_pair(&r, (double)largest, (double)free_kb * 1024);
	note(&r, "largest %" PRIu64 " MiB of %ld MiB free",
	     (uint64_t)(largest / MiB), free_kb / 1024);
	kernel_image_note(&r);
	emit(&r);

	if (largest < GiB) {
		info("large_1g", "not measured: the largest buffer is %" PRIu64 " MiB",
		     (uint64_t)(largest / MiB));
		return;
	}
	progress("large: enable of 1 GiB");
	large_alloc(name, GiB, "enable 1 GiB");

	progress("large: enable of 1 GiB with memory full of tmpfs pages");
	fd = large_fill(GiB + GiB / 4, path, sizeof(path));
	if (fd < 0) {
		info("large_full", "not measured: too little memory");
		return;
	}
	r = row("large", "enable 1 GiB with memory full", "dma_mask 64", GiB, "", "");
	t0 = now_ns();
	err = buf_create(name, GiB, "64", NULL);
	r.val[r.n++] = now_ns() - t0;
	note(&r, "%s; oom kills %ld; %ld MiB free",
	     err ? strerror(-err) : "allocated (pages migrated)",
	     proc_value(VMSTAT, "oom_kill ") - ooms, proc_value(MEMINFO, "MemFree:") / 1024);
	if (!err)
		buf_delete(name);
	emit(&r);
	close(fd);
	unlink(path);
}

/* ---- Main ---- */

static void machine_info(int module)
{
	struct utsname u;
	char cache[32], key[32];
	int m;

	if (!uname(&u)) {
		info("machine", "%s", u.machine);
		info("kernel", "%s", u.release);
	}
	info("cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	info("page_size", "%ld", pagesize);
	info("reps", "%d", reps);
	info("check_reps", "%d", CHECK_REPS);
	if (!module)
		return;
	/* What each sync_mode really maps with O_SYNC on this machine. */
	or_die(buf_create("bench-info", SMALL_SIZE, NULL, NULL), "bench-info",
	       "create");
	for (m = 0; m < 4; m++) {
		attr_set(cfs_root, "bench-info", "sync_mode", m);
		read_str(attr_path(class_root, "bench-info", "cache_mode_sync"), cache,
			 sizeof(cache));
		snprintf(key, sizeof(key), "mapping_o_sync_mode_%d", m);
		info(key, "%s", cache);
	}
	buf_delete("bench-info");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [OPTIONS] [TEST...]\n"
		"\n"
		"Benchmarks of udmabuf-cfs buffers, each against a baseline\n"
		"measured in the same run.  TESTs: large check rw mmap sync cycle\n"
		"scale calib (default: all, in this order).  All but calib need\n"
		"the module loaded and root.\n"
		"\n"
		"  --reps N       repetitions of every measurement but\n"
		"                 check_buf/clear_buf's %d (default %d)\n"
		"  -h, --help     this help\n"
		"\n"
		"The baselines' files go to $TMPDIR (default /tmp), best a tmpfs.\n"
		"Output: '@bench,' CSV rows (the first is the header) and\n"
		"'@info,KEY,VALUE' rows on stdout; progress on stderr.\n",
		prog, CHECK_REPS, reps);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	/*
	 * The largest buffer first: it is a fraction of the memory free after
	 * boot, before the other tests' thousands of buffers and files leave
	 * unmovable pages (slab, page tables) scattered over it.
	 */
	{ "large", bench_large },
	{ "check", bench_check }, { "rw", bench_rw }, { "mmap", bench_mmap },
	{ "sync", bench_sync }, { "cycle", bench_cycle },
	{ "scale", bench_scale }, { "calib", bench_calib },
};

#define NTESTS ARRAY_SIZE(tests)
#define CALIB	(1U << (NTESTS - 1))	/* the one test without the module */

int main(int argc, char **argv)
{
	unsigned int want = 0, t;
	struct stat st;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
			if (reps < 1 || reps > MAX_SAMPLES) {
				fprintf(stderr, "%s: --reps wants 1..%d\n",
					prog, MAX_SAMPLES);
				return 64;
			}
			continue;
		}
		for (t = 0; t < NTESTS && strcmp(argv[i], tests[t].name); t++)
			;
		if (t == NTESTS && strcmp(argv[i], "all")) {
			fprintf(stderr, "%s: unknown test or option '%s'\n", prog, argv[i]);
			usage(stderr);
			return 64;
		}
		want |= t < NTESTS ? 1U << t : ~0U;
	}
	if (!want)
		want = ~0U;

	start_ns = now_ns();
	tmpdir = getenv("TMPDIR") ?: "/tmp";
	pagesize = sysconf(_SC_PAGESIZE);
	if (want & ~CALIB && stat(cfs_root, &st))
		die(cfs_root, "stat (is udmabuf-cfs loaded?)", errno);
	printf("@bench,group,test,variant,size,samples,median_ns,min_ns,max_ns,"
	       "baseline,base_median_ns,base_min_ns,base_max_ns,"
	       "ratio,ratio_min,ratio_max,target,note\n");
	machine_info(!!(want & ~CALIB));
	for (t = 0; t < NTESTS; t++)
		if (want & 1U << t)
			tests[t].fn();
	return 0;
}
