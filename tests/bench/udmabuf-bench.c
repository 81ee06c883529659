// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-bench - benchmarks of udmabuf-cfs buffers.
 *
 * Every measurement is taken together with a baseline in the same run and
 * reported as a ratio (udmabuf time / baseline time: below 1 the buffer is
 * faster, above 1 slower), because in an emulated guest absolute times mean
 * little.  Operations are repeated; each result gives the median and the
 * minimum and maximum.  Where the two sides are measured in pairs (one after
 * the other, alternating which goes first) the ratio is the median of the
 * per-pair ratios, which cancels slow drifts of a busy host.
 *
 * Output: one CSV row per result on stdout, each prefixed with "@bench,"
 * (the first one is the header), plus "@info,KEY,VALUE" rows describing the
 * machine; progress and errors go to stderr.  Times are nanoseconds of
 * CLOCK_MONOTONIC.  The program measures and reports: it never judges a
 * timing, and fails only if something does not work.
 *
 * Buffers are touched only with naturally aligned loads and stores and never
 * with memset/memcpy: on arm64 an uncached mapping is Device memory, where
 * unaligned accesses and DC ZVA fault.  check_buf() and clear_buf() are
 * never inlined, so that every caller runs the very same machine code; they
 * are in tools/udmabufctl/bufloops.h, shared with "udmabufctl bench".
 *
 * See Documentation/performance.md.
 */
#define _GNU_SOURCE
/* 64-bit file offsets (pread, lseek, mmap) on 32-bit systems too. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/udmabuf-cfs.h>

#include "../../tools/udmabufctl/bufloops.h"

#define KiB		(1024ULL)
#define MiB		(1024ULL * 1024)
#define MAX_SAMPLES	64
#define MAX_SIZES	8
#define MAX_LEVELS	8
#define RW_SIZE		(4 * MiB)
#define SYNC_SIZE	(1 * MiB)
#define SMALL_SIZE	(4 * KiB)

extern char **environ;

static const char *prog = "udmabuf-bench";
static const char *cfs_root = "/sys/kernel/config/udmabuf";
static const char *class_root = "/sys/class/udmabuf";
static const char *tmpdir = "/tmp";
static const char *cli = "udmabufctl";
static int reps = 7;
static int check_reps = 15;	/* check_buf/clear_buf: cheap, and noisy */
static double batch_ns = 4e6;	/* a timed batch of short operations */
static uint64_t sizes[MAX_SIZES] = { 1 * MiB, 5 * MiB, 10 * MiB };
static int nsizes = 3;
static long levels[MAX_LEVELS] = { 1, 10, 100, 1000 };
static int nlevels = 4;
static long pagesize;

/* Results of loops nobody reads end up here, so no loop can be elided. */
static volatile uint64_t sink;

/* ------------------------------------------------------------------ */
/* Errors                                                              */

/* "udmabuf-bench: OBJECT: ACTION: REASON" and exit. */
static void __attribute__((noreturn))
die(const char *obj, const char *action, int err)
{
	fprintf(stderr, "%s: %s: %s: %s\n", prog, obj, action, strerror(err));
	exit(1);
}

/* ------------------------------------------------------------------ */
/* Time and statistics                                                 */

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

/* ------------------------------------------------------------------ */
/* Results                                                             */

/**
 * struct result - one row of the output
 * @group: which benchmark (check, rw, mmap, sync, cycle, scale)
 * @test: what was measured
 * @variant: how (mapping, block size, ...)
 * @size: bytes involved, 0 if none
 * @val: udmabuf samples, ns per operation
 * @base: baseline samples, ns per operation
 * @n: number of @val samples; @nbase: of @base (val[i] and base[i] are
 *	measured one right after the other, or for calibration rows, no @base)
 * @base_name: what the baseline is
 * @target: "ratio<=X", "value<=Xns" or empty
 * @note: anything a reader needs to interpret the row (no commas)
 */
struct result {
	const char *group;
	const char *test;
	char variant[64];
	uint64_t size;
	double val[MAX_SAMPLES];
	double base[MAX_SAMPLES];
	int n, nbase;
	const char *base_name;
	char target[32];
	char note[160];
};

static void result_init(struct result *r, const char *group,
			const char *test, const char *variant, uint64_t size,
			const char *base_name)
{
	memset(r, 0, sizeof(*r));
	r->group = group;
	r->test = test;
	snprintf(r->variant, sizeof(r->variant), "%s", variant);
	r->size = size;
	r->base_name = base_name;
}

static void add_pair(struct result *r, double val, double base)
{
	if (r->n >= MAX_SAMPLES)
		return;
	r->val[r->n++] = val;
	r->base[r->nbase++] = base;
}

static void print_header(void)
{
	printf("@bench,group,test,variant,size,samples,median_ns,min_ns,max_ns,"
	       "baseline,base_median_ns,base_min_ns,base_max_ns,"
	       "ratio,ratio_min,ratio_max,target,note\n");
	fflush(stdout);
}

/* CSV fields here never need quoting: commas are replaced. */
static const char *csv_clean(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (*p == ',' || *p == '\n' || *p == '"')
			*p = ';';
	return s;
}

static void emit(struct result *r)
{
	struct stats v = stats_of(r->val, r->n), b = stats_of(r->base, r->nbase);
	struct stats q = { 0, 0, 0 };
	double ratios[MAX_SAMPLES];
	char base_name[64];
	int i;

	/* The ratio of each pair; its median, minimum and maximum. */
	if (r->n && r->n == r->nbase) {
		for (i = 0; i < r->n; i++)
			ratios[i] = r->val[i] / r->base[i];
		q = stats_of(ratios, r->n);
	}
	snprintf(base_name, sizeof(base_name), "%s", r->base_name);
	printf("@bench,%s,%s,%s,%" PRIu64 ",%d,", r->group, r->test,
	       csv_clean(r->variant), r->size, r->n);
	if (r->n)
		printf("%.1f,%.1f,%.1f,", v.med, v.min, v.max);
	else
		printf(",,,");
	printf("%s,", csv_clean(base_name));
	if (r->nbase)
		printf("%.1f,%.1f,%.1f,", b.med, b.min, b.max);
	else
		printf(",,,");
	if (r->n && r->n == r->nbase)
		printf("%.4f,%.4f,%.4f,", q.med, q.min, q.max);
	else
		printf(",,,");
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

/* ------------------------------------------------------------------ */
/* Files, configfs and sysfs                                           */

static int write_str(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
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

static int read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int cfs_write(const char *name, const char *attr, const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", cfs_root, name, attr);
	return write_str(path, val);
}

static int cfs_read(const char *name, const char *attr, char *buf,
		    size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", cfs_root, name, attr);
	return read_str(path, buf, len);
}

static int class_read(const char *name, const char *attr, char *buf,
		      size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", class_root, name, attr);
	return read_str(path, buf, len);
}

/* mkdir, size, enable: 0 or -errno, and nothing left behind on failure. */
static int buf_create(const char *name, uint64_t size)
{
	char path[512], val[32];
	int err;

	snprintf(path, sizeof(path), "%s/%s", cfs_root, name);
	if (mkdir(path, 0755))
		return -errno;
	snprintf(val, sizeof(val), "%" PRIu64, size);
	err = cfs_write(name, "size", val);
	if (!err)
		err = cfs_write(name, "enable", "1");
	if (err)
		rmdir(path);
	return err;
}

/* Like buf_create(), but a failure is fatal. */
static void buf_create_or_die(const char *name, uint64_t size)
{
	int err = buf_create(name, size);

	if (err)
		die(name, "create", -err);
}

static int buf_delete(const char *name)
{
	char path[512];
	int err;

	err = cfs_write(name, "enable", "0");
	snprintf(path, sizeof(path), "%s/%s", cfs_root, name);
	if (rmdir(path))
		return -errno;
	return err;
}

static void buf_delete_or_die(const char *name)
{
	int err = buf_delete(name);

	if (err)
		die(name, "delete", -err);
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

static void *alloc_or_die(uint64_t size)
{
	void *p = NULL;
	int err = posix_memalign(&p, pagesize, size);

	if (err)
		die("malloc", "allocate", err);
	return p;
}

/* Run a program (stdout to /dev/null) and wait; a failure is fatal. */
static void run_quiet(char *const argv[])
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

/* ------------------------------------------------------------------ */
/* Timing short operations in batches                                  */

typedef void (*op_fn)(void *ctx);

static double time_batch(op_fn fn, void *ctx, long k)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < k; i++)
		fn(ctx);
	return now_ns() - t0;
}

/* How many calls of fn make a batch of about batch_ns. */
static long calibrate(op_fn fn, void *ctx)
{
	long k = 1;
	double t;

	fn(ctx);	/* warm up */
	for (;;) {
		t = time_batch(fn, ctx, k);
		if (t >= batch_ns || k >= (1L << 24))
			break;
		if (t < batch_ns / 64)
			k *= 16;
		else
			k *= 2;
	}
	return k;
}

/* reps paired batches of op and base; samples are ns per call. */
static void measure_pair(struct result *r, op_fn op, void *opctx,
			 op_fn base, void *basectx)
{
	long kop = calibrate(op, opctx), kbase = calibrate(base, basectx);
	double a, b;
	int i;

	for (i = 0; i < reps; i++) {
		if (i % 2) {
			b = time_batch(base, basectx, kbase);
			a = time_batch(op, opctx, kop);
		} else {
			a = time_batch(op, opctx, kop);
			b = time_batch(base, basectx, kbase);
		}
		add_pair(r, a / kop, b / kbase);
	}
}

/* ------------------------------------------------------------------ */
/* 1. check_buf and clear_buf                                          */

/*
 * check_buf: fill with a known pattern from the CPU, read it all back and
 * compare (the original udmabuf's check_buf test); returns the number of
 * bytes that did not read back as written.  clear_buf: write zeros over the
 * buffer, word by word (the original's clear_buf).  The loops are
 * udmabufctl bench's too (bufloops.h).
 */
#define check_buf	bufloop_check
#define clear_buf	bufloop_clear

static double time_check(uint8_t *p, size_t n, unsigned int seed,
			 uint64_t *errors)
{
	double t0 = now_ns();

	*errors += check_buf(p, n, seed);
	return now_ns() - t0;
}

static double time_clear(uint8_t *p, size_t n)
{
	double t0 = now_ns();

	clear_buf(p, n);
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
	struct result chk, clr;
	char mode[8], cache[32] = "?";
	uint64_t errors = 0, merrors = 0;
	uint8_t *p;
	int fd, i, err;

	snprintf(mode, sizeof(mode), "%d", v ? v - 1 : 1);
	err = cfs_write(name, "sync_mode", mode);
	if (err)
		die(name, "set sync_mode", -err);
	class_read(name, v ? "cache_mode_sync" : "cache_mode", cache,
		   sizeof(cache));
	fd = buf_open(name, O_RDWR | (v ? O_SYNC : 0));
	p = buf_map(name, fd, size);

	result_init(&chk, "check", "check_buf", check_variants[v], size,
		    "malloc");
	result_init(&clr, "check", "clear_buf", check_variants[v], size,
		    "malloc");
	snprintf(chk.note, sizeof(chk.note), "mapping: %s", cache);
	snprintf(clr.note, sizeof(clr.note), "mapping: %s", cache);
	if (!v) {
		snprintf(chk.target, sizeof(chk.target), "ratio<=1.02");
		snprintf(clr.target, sizeof(clr.target), "ratio<=1.02");
	}

	clear_buf(p, size);	/* warm up both */
	clear_buf(mem, size);
	for (i = 0; i < check_reps; i++) {
		double a, b;

		if (i % 2) {
			b = time_check(mem, size, i, &merrors);
			a = time_check(p, size, i, &errors);
		} else {
			a = time_check(p, size, i, &errors);
			b = time_check(mem, size, i, &merrors);
		}
		add_pair(&chk, a, b);
		if (i % 2) {
			b = time_clear(mem, size);
			a = time_clear(p, size);
		} else {
			a = time_clear(p, size);
			b = time_clear(mem, size);
		}
		add_pair(&clr, a, b);
	}
	if (errors) {
		fprintf(stderr, "%s: %s: check_buf: %" PRIu64
			" bytes read back wrong\n", prog, name, errors);
		snprintf(chk.note + strlen(chk.note),
			 sizeof(chk.note) - strlen(chk.note),
			 "; %" PRIu64 " BYTES READ BACK WRONG", errors);
	}
	sink += merrors;
	emit(&chk);
	emit(&clr);
	munmap(p, size);
	close(fd);
}

static void bench_check(void)
{
	const char *name = "bench-check";
	int s, v, err;

	for (s = 0; s < nsizes; s++) {
		uint64_t size = sizes[s];
		uint8_t *mem;

		progress("check_buf/clear_buf, %" PRIu64 " MiB", size / MiB);
		err = buf_create(name, size);
		if (err) {
			struct result r;

			result_init(&r, "check", "check_buf", "all", size,
				    "malloc");
			snprintf(r.note, sizeof(r.note),
				 "not measured: enable failed: %s",
				 strerror(-err));
			emit(&r);
			continue;
		}
		mem = alloc_or_die(size);
		for (v = 0; v < 5; v++)
			check_variant(name, size, v, mem);
		free(mem);
		buf_delete_or_die(name);
	}
}

/* ------------------------------------------------------------------ */
/* 2. read() and write()                                               */

/* Whole file in blocks of bs with pread or pwrite; ns. */
static double time_rw(int fd, uint8_t *mem, uint64_t size, size_t bs,
		      int write_it, const char *what)
{
	double t0 = now_ns();
	uint64_t off;
	ssize_t n;

	for (off = 0; off < size; off += bs) {
		if (write_it)
			n = pwrite(fd, mem + off, bs, off);
		else
			n = pread(fd, mem + off, bs, off);
		if (n != (ssize_t)bs)
			die(what, write_it ? "pwrite" : "pread",
			    n < 0 ? errno : EIO);
	}
	return now_ns() - t0;
}

static int tmpfs_file(uint64_t size, uint8_t *mem, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/udmabuf-bench.%d", tmpdir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path, "create", errno);
	/* Every page exists before the timing starts. */
	time_rw(fd, mem, size, size, 1, path);
	return fd;
}

static void rw_one(const char *name, int fd, int tfd, uint8_t *mem,
		   size_t bs, int write_it, const char *variant)
{
	struct result r;
	int i;

	result_init(&r, "rw", write_it ? "write" : "read", variant, RW_SIZE,
		    write_it ? "tmpfs pwrite" : "tmpfs pread");
	if (bs >= 64 * KiB && !strstr(variant, "O_SYNC"))
		snprintf(r.target, sizeof(r.target), "ratio<=1");
	for (i = 0; i < reps; i++) {
		double a, b;

		if (i % 2) {
			b = time_rw(tfd, mem, RW_SIZE, bs, write_it, "tmpfs");
			a = time_rw(fd, mem, RW_SIZE, bs, write_it, name);
		} else {
			a = time_rw(fd, mem, RW_SIZE, bs, write_it, name);
			b = time_rw(tfd, mem, RW_SIZE, bs, write_it, "tmpfs");
		}
		add_pair(&r, a, b);
	}
	emit(&r);
}

static double time_copy(uint8_t *dst, const uint8_t *src, uint64_t size)
{
	double t0 = now_ns();

	memcpy(dst, src, size);
	__asm__ __volatile__("" : : "r"(dst) : "memory");
	return now_ns() - t0;
}

static void bench_rw(void)
{
	static const size_t blocks[] = { 4 * KiB, 64 * KiB, 1 * MiB };
	const char *name = "bench-rw";
	uint8_t *mem = alloc_or_die(RW_SIZE), *src = alloc_or_die(RW_SIZE);
	char path[512], variant[64];
	struct result r;
	int fd, sfd, tfd, i;
	unsigned int b;

	progress("read/write, %llu MiB", RW_SIZE / MiB);
	for (i = 0; i < (int)RW_SIZE; i++)
		src[i] = mem[i] = (uint8_t)i;
	buf_create_or_die(name, RW_SIZE);
	fd = buf_open(name, O_RDWR);
	tfd = tmpfs_file(RW_SIZE, mem, path, sizeof(path));
	time_rw(fd, mem, RW_SIZE, RW_SIZE, 1, name);

	for (b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
		snprintf(variant, sizeof(variant), "%zu KiB blocks",
			 (size_t)(blocks[b] / KiB));
		rw_one(name, fd, tfd, mem, blocks[b], 1, variant);
		rw_one(name, fd, tfd, mem, blocks[b], 0, variant);
	}

	/* O_SYNC: every read and write brackets the copy with cache syncs. */
	sfd = buf_open(name, O_RDWR | O_SYNC);
	for (b = 1; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
		snprintf(variant, sizeof(variant), "O_SYNC %zu KiB blocks",
			 (size_t)(blocks[b] / KiB));
		rw_one(name, sfd, tfd, mem, blocks[b], 1, variant);
		rw_one(name, sfd, tfd, mem, blocks[b], 0, variant);
	}
	close(sfd);

	/* The copy floor, for reference: memcpy against tmpfs pread 1 MiB. */
	result_init(&r, "rw", "memcpy", "malloc to malloc (reference)",
		    RW_SIZE, "tmpfs pread");
	snprintf(r.note, sizeof(r.note), "reference only: not a target");
	for (i = 0; i < reps; i++)
		add_pair(&r, time_copy(mem, src, RW_SIZE),
			 time_rw(tfd, mem, RW_SIZE, MiB, 0, "tmpfs"));
	emit(&r);

	close(tfd);
	unlink(path);
	close(fd);
	buf_delete_or_die(name);
	free(mem);
	free(src);
}

/* ------------------------------------------------------------------ */
/* 3. mmap and first touch of the largest buffer                       */

/* The number after "KEY" and SEP on a line of the /proc file PATH, or -1. */
static long proc_value(const char *path, const char *key, char sep)
{
	char line[256];
	size_t len = strlen(key);
	long val = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == sep) {
			val = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return val;
}

/* kB value of a /proc/meminfo line, or -1. */
static long meminfo_kb(const char *key)
{
	return proc_value("/proc/meminfo", key, ':');
}

/* Largest buffer, in whole MiB, that enable accepts now; 0 if none. */
static uint64_t probe_largest(const char *name)
{
	long cma = meminfo_kb("CmaFree");
	uint64_t lo = 0, hi, mid;
	int err;

	/* Upper bound (exclusive): CMA's free space, else generous. */
	hi = cma > 0 ? (uint64_t)cma / 1024 + 1 : 65;
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		err = buf_create(name, mid * MiB);
		if (!err) {
			buf_delete_or_die(name);
			lo = mid;
		} else if (err == -ENOMEM) {
			hi = mid;
		} else {
			die(name, "probe size", -err);
		}
	}
	info("cma_free_kb", "%ld", cma);
	info("largest_buffer", "%" PRIu64, lo * MiB);
	return lo * MiB;
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
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

/* mmap and touch; ns, and the minor faults taken added to *faults. */
static double time_map_buf(const char *name, int fd, uint64_t size,
			   enum touch how, long *faults)
{
	long f0 = minor_faults();
	double t0 = now_ns(), t;
	void *p = buf_map(name, fd, size);

	touch_pages(p, size, how);
	t = now_ns() - t0;
	*faults += minor_faults() - f0;
	munmap(p, size);
	return t;
}

static double time_map_anon(uint64_t size, int flags, enum touch how)
{
	double t0 = now_ns(), t;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	if (p == MAP_FAILED)
		die("anonymous memory", "mmap", errno);
	touch_pages(p, size, how);
	t = now_ns() - t0;
	munmap(p, size);
	return t;
}

/* One row: udmabuf mmap + touch against anonymous memory + the same. */
static void mmap_row(const char *name, int fd, uint64_t size,
		     enum touch how, int anon_flags, const char *test,
		     const char *base, const char *target)
{
	long faults = 0, ignored = 0;
	struct result r;
	int i;

	result_init(&r, "mmap", test, "every page", size, base);
	snprintf(r.target, sizeof(r.target), "%s", target);
	time_map_buf(name, fd, size, how, &ignored);	/* warm up */
	time_map_anon(size, anon_flags, how);
	for (i = 0; i < reps; i++) {
		double a, b;

		if (i % 2) {
			b = time_map_anon(size, anon_flags, how);
			a = time_map_buf(name, fd, size, how, &faults);
		} else {
			a = time_map_buf(name, fd, size, how, &faults);
			b = time_map_anon(size, anon_flags, how);
		}
		add_pair(&r, a, b);
	}
	snprintf(r.note, sizeof(r.note),
		 "udmabuf side: %.2f page faults per page",
		 (double)faults / reps / (size / pagesize));
	emit(&r);
}

/*
 * Reference: what one access per page costs when no page is mapped or
 * faulted at all, only missing from the TLB: anonymous memory mapped and
 * touched beforehand, its TLB entries dropped (mprotect() to PROT_NONE and
 * back, untimed), then read page by page.  No mapping of any memory can
 * make its first touch cheaper; against the same baseline as the
 * udmabuf-cfs rows, it is the floor of their ratio on this machine.
 */
static double time_touch_mapped(uint8_t *p, uint64_t size)
{
	double t0;

	if (mprotect(p, size, PROT_NONE) ||
	    mprotect(p, size, PROT_READ | PROT_WRITE))
		die("anonymous memory", "mprotect", errno);
	t0 = now_ns();
	touch_pages(p, size, TOUCH_READ);
	return now_ns() - t0;
}

static void mmap_floor_row(uint64_t size)
{
	struct result r;
	uint8_t *p;
	int i;

	result_init(&r, "mmap", "touch only of pages already mapped (reference)",
		    "every page", size, "anon MAP_POPULATE + read");
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		die("anonymous memory", "mmap", errno);
	touch_pages(p, size, TOUCH_WRITE);
	time_touch_mapped(p, size);	/* warm up */
	for (i = 0; i < reps; i++) {
		double a = time_touch_mapped(p, size);
		double b = time_map_anon(size, MAP_POPULATE, TOUCH_READ);

		add_pair(&r, a, b);
	}
	munmap(p, size);
	snprintf(r.note, sizeof(r.note),
		 "anonymous memory: TLB misses only; the floor of the ratios above");
	emit(&r);
}

/*
 * What the sync checker costs, on the buffer of the rows above.  With it
 * on, mmap maps nothing ahead (each first touch faults), and in a DMA
 * round (sync for the device, sync for the CPU, a write to every page)
 * each sync for the device revokes the CPU's mappings, so that every page
 * faults again: a round against the same round with the checker off.
 */
struct round_ctx {
	const char *name;
	int fd;
	uint8_t *p;
	uint64_t size;
};

static void op_dma_round(void *ctx)
{
	struct round_ctx *c = ctx;
	struct udmabuf_cfs_sync range = {
		.offset = 0, .size = c->size,
		.direction = UDMABUF_CFS_DIR_BIDIRECTIONAL,
	};

	if (ioctl(c->fd, UDMABUF_CFS_IOC_SYNC_FOR_DEVICE, &range))
		die(c->name, "ioctl SYNC_FOR_DEVICE", errno);
	if (ioctl(c->fd, UDMABUF_CFS_IOC_SYNC_FOR_CPU, &range))
		die(c->name, "ioctl SYNC_FOR_CPU", errno);
	touch_pages(c->p, c->size, TOUCH_WRITE);
}

static void set_sync_check(const char *name, const char *mode)
{
	char path[512];
	int err;

	snprintf(path, sizeof(path), "%s/%s/sync_check", class_root, name);
	err = write_str(path, mode);
	if (err)
		die(path, "write", -err);
}

static double time_round(const char *name, const char *mode,
			 struct round_ctx *c)
{
	double t0;

	set_sync_check(name, mode);
	t0 = now_ns();
	op_dma_round(c);
	return now_ns() - t0;
}

static void checker_rows(const char *name, int fd, uint64_t size)
{
	struct round_ctx on = { .name = name, .fd = fd }, off;
	double a[MAX_SAMPLES];
	char violations[32];
	struct result r;
	int i;

	set_sync_check(name, "1");
	mmap_row(name, fd, size, TOUCH_WRITE, MAP_POPULATE,
		 "mmap + first write with the sync checker on",
		 "anon MAP_POPULATE + write", "");

	/* A round of a large buffer takes long under emulation: 4 MiB. */
	on.size = size < 4 * MiB ? size : 4 * MiB;
	on.p = buf_map(name, fd, on.size);
	off = on;
	off.p = buf_map(name, fd, off.size);
	result_init(&r, "mmap", "DMA round with the sync checker on",
		    "sync for device then CPU and a write to every page",
		    on.size, "the same round with the checker off");
	/*
	 * A sync for the device revokes every mapping of the buffer, the
	 * other side's too: each side's rounds run together, after one
	 * round that is not timed.
	 */
	time_round(name, "1", &on);
	for (i = 0; i < reps; i++)
		a[i] = time_round(name, "1", &on);
	time_round(name, "0", &off);
	for (i = 0; i < reps; i++)
		add_pair(&r, a[i], time_round(name, "0", &off));
	if (class_read(name, "sync_violations", violations,
		       sizeof(violations)))
		snprintf(violations, sizeof(violations), "?");
	snprintf(r.note, sizeof(r.note),
		 "the checker's price in a DMA loop; reports: %s",
		 violations);
	emit(&r);
	munmap(on.p, on.size);
	munmap(off.p, off.size);
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
	struct result r;
	uint64_t size;
	int fd;

	progress("mmap + first touch: probing the largest buffer");
	size = probe_largest(name);
	if (!size) {
		result_init(&r, "mmap", "mmap + first write", "every page", 0,
			    "anon MAP_POPULATE");
		snprintf(r.note, sizeof(r.note), "not measured: no buffer");
		emit(&r);
		return;
	}
	progress("mmap + first touch, %" PRIu64 " MiB", size / MiB);
	buf_create_or_die(name, size);
	fd = buf_open(name, O_RDWR);
	mmap_row(name, fd, size, TOUCH_WRITE, MAP_POPULATE,
		 "mmap + first write", "anon MAP_POPULATE + write",
		 "ratio<=0.05");
	mmap_row(name, fd, size, TOUCH_READ, MAP_POPULATE,
		 "mmap + first read", "anon MAP_POPULATE + read",
		 "ratio<=0.05");
	mmap_row(name, fd, size, TOUCH_NONE, MAP_POPULATE,
		 "mmap alone", "anon MAP_POPULATE alone", "");
	mmap_row(name, fd, size, TOUCH_WRITE, 0, "mmap + first write",
		 "anon + write (page faults)", "");
	progress("the sync checker's cost");
	checker_rows(name, fd, size);
	close(fd);
	buf_delete_or_die(name);
	mmap_floor_row(size);
}

/* ------------------------------------------------------------------ */
/* 4. Cache synchronisation                                            */

struct sync_ctx {
	const char *what;
	int fd;
	unsigned long cmd;
	struct udmabuf_cfs_sync range;
	const char *path;
	const char *text;
	size_t len;
};

static void op_getppid(void *ctx)
{
	(void)ctx;
	sink += syscall(SYS_getppid);
}

/* Open, read and close a small file (c->path): the cost of one attribute. */
struct calib_ctx {
	const char *path;
	uint8_t *mem;
};

static void op_read_file(void *ctx)
{
	struct calib_ctx *c = ctx;
	char buf[64];

	if (read_str(c->path, buf, sizeof(buf)))
		die(c->path, "read", errno);
	sink += buf[0];
}

static void op_ioctl(void *ctx)
{
	struct sync_ctx *c = ctx;

	if (ioctl(c->fd, c->cmd, &c->range))
		die(c->what, "ioctl", errno);
}

static void op_info(void *ctx)
{
	struct sync_ctx *c = ctx;
	struct udmabuf_cfs_info in;

	if (ioctl(c->fd, UDMABUF_CFS_IOC_GET_INFO, &in))
		die(c->what, "ioctl GET_INFO", errno);
	sink += in.size;
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
	int err = write_str(c->path, c->text);

	if (err)
		die(c->path, "write", -err);
}

static void sync_row(const char *test, const char *variant, uint64_t size,
		     op_fn op, struct sync_ctx *c, const char *target,
		     const char *note)
{
	struct result r;

	result_init(&r, "sync", test, variant, size, "getppid()");
	snprintf(r.target, sizeof(r.target), "%s", target);
	snprintf(r.note, sizeof(r.note), "%s", note);
	measure_pair(&r, op, c, op_getppid, NULL);
	emit(&r);
}

static void bench_sync(void)
{
	const char *name = "bench-sync";
	struct udmabuf_cfs_info in;
	struct sync_ctx c = { .what = name };
	char path[2][512], note[96], text[64];
	const char *target;
	int coherent, i;

	progress("sync latency");
	buf_create_or_die(name, SYNC_SIZE);
	c.fd = buf_open(name, O_RDWR);
	if (ioctl(c.fd, UDMABUF_CFS_IOC_GET_INFO, &in))
		die(name, "ioctl GET_INFO", errno);
	coherent = !!(in.flags & UDMABUF_CFS_INFO_DMA_COHERENT);
	info("driver_version", "%s", in.driver_version);
	info("dma_coherent", "%d", coherent);
	info("ram_always_cached", "%d",
	     !!(in.flags & UDMABUF_CFS_INFO_RAM_CACHED));
	snprintf(note, sizeof(note), "%s buffer",
		 coherent ? "coherent" : "non-coherent");
	target = coherent ? "ratio<=3" : "";

	sync_row("ioctl GET_INFO", "no cache work", 0, op_info, &c, "",
		 "reference: ioctl dispatch alone");
	for (i = 0; i < 4; i++) {
		int cpu = !(i % 2);
		uint64_t len = i < 2 ? SMALL_SIZE : SYNC_SIZE;

		c.cmd = cpu ? UDMABUF_CFS_IOC_SYNC_FOR_CPU :
			      UDMABUF_CFS_IOC_SYNC_FOR_DEVICE;
		c.range = (struct udmabuf_cfs_sync){
			.offset = 0, .size = len,
			.direction = UDMABUF_CFS_DIR_BIDIRECTIONAL,
		};
		sync_row(cpu ? "ioctl SYNC_FOR_CPU" : "ioctl SYNC_FOR_DEVICE",
			 len == SMALL_SIZE ? "4 KiB" : "1 MiB (whole)", len,
			 op_ioctl, &c, target, note);
	}
	close(c.fd);

	snprintf(text, sizeof(text), "0 %llu 0", SMALL_SIZE);
	c.text = text;
	c.len = strlen(text);
	for (i = 0; i < 2; i++) {
		const char *attr = i ? "sync_for_device" : "sync_for_cpu";

		snprintf(path[i], sizeof(path[i]), "%s/%s/%s", class_root,
			 name, attr);
		c.path = path[i];
		c.fd = open(path[i], O_WRONLY | O_CLOEXEC);
		if (c.fd < 0)
			die(path[i], "open", errno);
		sync_row(i ? "sysfs sync_for_device" : "sysfs sync_for_cpu",
			 "4 KiB; write on an open file", SMALL_SIZE, op_sysfs,
			 &c, "", note);
		close(c.fd);
	}
	sync_row("sysfs sync_for_device", "4 KiB; open+write+close",
		 SMALL_SIZE, op_sysfs_open, &c, "",
		 "what a shell's echo costs");
	buf_delete_or_die(name);
}

/* ------------------------------------------------------------------ */
/* 5. create -> enable -> delete cycles                                */

struct cycle_ctx {
	char dir[512];
	char size[32];
};

static void op_cfs_cycle(void *ctx)
{
	(void)ctx;
	buf_create_or_die("bench-cycle", SMALL_SIZE);
	buf_delete_or_die("bench-cycle");
}

static void tmpfs_put(const char *dir, const char *file, const char *val)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die(path, "write", errno);
	close(fd);
}

static void tmpfs_unlink(const char *dir, const char *file)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (unlink(path))
		die(path, "unlink", errno);
}

/* The same file system operations on tmpfs: mkdir, 3 writes, rmdir. */
static void op_tmpfs_cycle(void *ctx)
{
	struct cycle_ctx *c = ctx;

	if (mkdir(c->dir, 0755))
		die(c->dir, "mkdir", errno);
	tmpfs_put(c->dir, "size", c->size);
	tmpfs_put(c->dir, "enable", "1");
	tmpfs_put(c->dir, "enable", "0");
	tmpfs_unlink(c->dir, "size");
	tmpfs_unlink(c->dir, "enable");
	if (rmdir(c->dir))
		die(c->dir, "rmdir", errno);
}

static void op_cli_cycle(void *ctx)
{
	char *create[] = { (char *)cli, "create", "bench-cli", "--size",
			   ((struct cycle_ctx *)ctx)->size, NULL };
	char *del[] = { (char *)cli, "delete", "bench-cli", NULL };

	run_quiet(create);
	run_quiet(del);
}

static void op_cli_help(void *ctx)
{
	char *help[] = { (char *)cli, "--help", NULL };

	(void)ctx;
	run_quiet(help);
	run_quiet(help);
}

static void cycle_row(const char *test, const char *base_name, op_fn op,
		      op_fn base, struct cycle_ctx *c)
{
	struct result r;
	struct stats s;

	result_init(&r, "cycle", test, "4 KiB buffer", SMALL_SIZE, base_name);
	measure_pair(&r, op, c, base, c);
	s = stats_of(r.val, r.n);
	snprintf(r.note, sizeof(r.note), "%.0f cycles/s", 1e9 / s.med);
	emit(&r);
}

static void bench_cycle(void)
{
	struct cycle_ctx c;

	progress("create/enable/delete cycles");
	snprintf(c.dir, sizeof(c.dir), "%s/udmabuf-bench-cycle", tmpdir);
	snprintf(c.size, sizeof(c.size), "%llu", SMALL_SIZE);
	cycle_row("configfs create+enable+delete",
		  "same file ops on tmpfs", op_cfs_cycle, op_tmpfs_cycle, &c);
	cycle_row("udmabufctl create + delete", "2x udmabufctl --help",
		  op_cli_cycle, op_cli_help, &c);
}

/* ------------------------------------------------------------------ */
/* 6. Scaling with the number of buffers                               */

static void scale_name(char *buf, size_t len, long i)
{
	snprintf(buf, len, "bench-s%04ld", i);
}

/* Phases of a creation: mkdir, size, enable. */
#define NPHASES 3

/* Create buffer i through configfs; adds each phase's ns to ph[]. */
static double time_create(long i, double ph[NPHASES])
{
	char name[32], path[512], val[32];
	double t[NPHASES + 1];
	int err, k;

	scale_name(name, sizeof(name), i);
	snprintf(path, sizeof(path), "%s/%s", cfs_root, name);
	snprintf(val, sizeof(val), "%llu", SMALL_SIZE);
	t[0] = now_ns();
	if (mkdir(path, 0755))
		die(name, "mkdir", errno);
	t[1] = now_ns();
	err = cfs_write(name, "size", val);
	if (err)
		die(name, "set size", -err);
	t[2] = now_ns();
	err = cfs_write(name, "enable", "1");
	if (err)
		die(name, "enable", -err);
	t[3] = now_ns();
	for (k = 0; k < NPHASES; k++)
		ph[k] += t[k + 1] - t[k];
	return t[NPHASES] - t[0];
}

/* Time one run of udmabufctl with the arguments given (output to /dev/null). */
static double time_cli(char *const argv[])
{
	double t0 = now_ns();

	run_quiet(argv);
	return now_ns() - t0;
}

static void scale_delete(long from, long to)
{
	char name[32];
	long i;

	for (i = from; i <= to; i++) {
		scale_name(name, sizeof(name), i);
		buf_delete_or_die(name);
	}
}

/*
 * What creation and listing are measured against.  A yardstick is timed
 * right after each sample, so that a host that slows down or speeds up
 * meanwhile (other guests, other jobs) does not bend the curve.
 */
struct yardstick {
	struct cycle_ctx cycle;	/* the configfs file operations, on tmpfs */
	long kcycle;
	struct calib_ctx read;	/* READS_PER_YARD sysfs attribute reads */
};

#define READS_PER_YARD	1000
#define SYSFS_PROBE	"/sys/devices/system/cpu/online"

static double yard_cycle(struct yardstick *y)
{
	return time_batch(op_tmpfs_cycle, &y->cycle, y->kcycle) / y->kcycle;
}

static double yard_reads(struct yardstick *y)
{
	return time_batch(op_read_file, &y->read, READS_PER_YARD);
}

/*
 * Create buffers from+1..to into c: samples are mean times per buffer over
 * at most MAX_SAMPLES / 4 consecutive chunks, each paired with the tmpfs
 * yardstick; ph[] gets the mean time per buffer of each phase.
 */
static void create_batch(struct result *c, long from, long to,
			 struct yardstick *y, double ph[NPHASES])
{
	long count = to - from, chunk, i, k;

	chunk = (count + MAX_SAMPLES / 4 - 1) / (MAX_SAMPLES / 4);
	if (chunk < 1)
		chunk = 1;
	for (i = from + 1; i <= to; ) {
		long end = i + chunk - 1 < to ? i + chunk - 1 : to;
		double t = 0;

		for (k = i; k <= end; k++)
			t += time_create(k, ph);
		add_pair(c, t / (end - i + 1), yard_cycle(y));
		i = end + 1;
	}
	for (k = 0; k < NPHASES && count > 0; k++)
		ph[k] /= count;
}

/*
 * Time "udmabufctl ARGS" (TEST names the row) with have buffers alive;
 * returns the median ratio. The note counts the time in attribute reads
 * beyond empty_ratio, the program's start-up (see bench_scale()): per
 * buffer when per_buffer, else in all.
 */
static double scale_cli(struct result *s, const char *test, char *const argv[],
			long have, struct yardstick *y, double empty_ratio,
			int per_buffer)
{
	struct stats q;
	double ratios[MAX_SAMPLES];
	int i;

	result_init(s, "scale", test, "", 0, "1000 sysfs attribute reads");
	snprintf(s->variant, sizeof(s->variant), "%ld alive", have);
	for (i = 0; i < reps; i++) {
		if (i % 2) {
			double b = yard_reads(y);

			add_pair(s, time_cli(argv), b);
		} else {
			double a = time_cli(argv);

			add_pair(s, a, yard_reads(y));
		}
		ratios[i] = s->val[i] / s->base[i];
	}
	q = stats_of(ratios, reps);
	if (empty_ratio < 0)
		snprintf(s->note, sizeof(s->note),
			 "program start-up: %.0f attribute reads' time",
			 q.med * READS_PER_YARD);
	else if (per_buffer && have)
		snprintf(s->note, sizeof(s->note),
			 "%.0f attribute reads' time per buffer",
			 (q.med - empty_ratio) * READS_PER_YARD / have);
	else
		snprintf(s->note, sizeof(s->note),
			 "%.0f attribute reads' time after start-up",
			 (q.med - empty_ratio) * READS_PER_YARD);
	return q.med;
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
 */
static void bench_scale(void)
{
	static struct result create[MAX_LEVELS], list[MAX_LEVELS + 1],
		info_item[MAX_LEVELS], info_dev[MAX_LEVELS], json;
	char *list_argv[] = { (char *)cli, "list", NULL };
	char *json_argv[] = { (char *)cli, "list", "-J", NULL };
	char item[32], dev[48];
	char *item_argv[] = { (char *)cli, "info", item, NULL };
	char *dev_argv[] = { (char *)cli, "info", dev, NULL };
	double ph[NPHASES] = { 0 };
	struct yardstick y = { .read.path = SYSFS_PROBE };
	double empty;
	long have = 0;
	int l, i, k;

	snprintf(y.cycle.dir, sizeof(y.cycle.dir), "%s/udmabuf-bench-yard",
		 tmpdir);
	snprintf(y.cycle.size, sizeof(y.cycle.size), "%llu", SMALL_SIZE);
	y.kcycle = calibrate(op_tmpfs_cycle, &y.cycle);
	scale_name(item, sizeof(item), 1);
	snprintf(dev, sizeof(dev), "/dev/%s", item);

	progress("scaling: list of no buffers");
	empty = scale_cli(&list[0], "udmabufctl list", list_argv, 0, &y, -1, 1);
	for (l = 0; l < nlevels; l++) {
		struct result *c = &create[l];

		progress("scaling: %ld buffers", levels[l]);
		result_init(c, "scale", "create per buffer", "", SMALL_SIZE,
			    "same file ops on tmpfs");
		snprintf(c->variant, sizeof(c->variant), "%ld alive",
			 levels[l]);
		memset(ph, 0, sizeof(ph));
		if (levels[l] == 1) {
			/* One buffer into an empty table, reps times. */
			for (i = 0; i < reps; i++) {
				add_pair(c, time_create(1, ph), yard_cycle(&y));
				if (i < reps - 1)
					scale_delete(1, 1);
			}
			for (k = 0; k < NPHASES; k++)
				ph[k] /= reps;
		} else {
			create_batch(c, have, levels[l], &y, ph);
		}
		have = levels[l];
		snprintf(c->note, sizeof(c->note),
			 "mean per phase: mkdir %.0f us; size %.0f us; enable %.0f us",
			 ph[0] / 1e3, ph[1] / 1e3, ph[2] / 1e3);
		scale_cli(&list[l + 1], "udmabufctl list", list_argv, have, &y,
			  empty, 1);
		scale_cli(&info_item[l], "udmabufctl info NAME", item_argv, have,
			  &y, empty, 0);
		scale_cli(&info_dev[l], "udmabufctl info /dev/NAME", dev_argv,
			  have, &y, empty, 1);
		if (l == nlevels - 1) {
			snprintf(list[l + 1].target, sizeof(list[l + 1].target),
				 "value<=1e9");
			snprintf(info_item[l].target, sizeof(info_item[l].target),
				 "value<=1e8");
			snprintf(info_dev[l].target, sizeof(info_dev[l].target),
				 "value<=1e9");
			scale_cli(&json, "udmabufctl list -J", json_argv, have,
				  &y, empty, 1);
			snprintf(json.target, sizeof(json.target), "value<=1e9");
		}
	}
	for (l = 0; l < nlevels; l++)
		emit(&create[l]);
	for (l = 0; l <= nlevels; l++)
		emit(&list[l]);
	if (nlevels)
		emit(&json);
	for (l = 0; l < nlevels; l++)
		emit(&info_item[l]);
	for (l = 0; l < nlevels; l++)
		emit(&info_dev[l]);

	progress("scaling: deleting %ld buffers", have);
	scale_delete(1, have);
}

/* ------------------------------------------------------------------ */
/* 7. Calibration: primitives to compare the guest with real hardware  */

static void op_byte_loop(void *ctx)
{
	struct calib_ctx *c = ctx;
	uint64_t errors = check_buf(c->mem, MiB, 1);

	sink += errors;
}

static void op_spawn(void *ctx)
{
	char *argv[] = { "/proc/self/exe", "--help", NULL };

	(void)ctx;
	run_quiet(argv);
}

static void calib_row(const char *test, op_fn op, struct calib_ctx *c)
{
	struct result r;

	result_init(&r, "calib", test, "", 0, "getppid()");
	snprintf(r.note, sizeof(r.note),
		 "for comparing machines (run it on the host too)");
	measure_pair(&r, op, c, op_getppid, NULL);
	emit(&r);
}

/*
 * The same few primitives on any Linux machine, module or not: run on the
 * host as well, they tell how much slower the emulated guest is at each
 * kind of work, which turns the guest's absolute times into estimates.
 */
static void bench_calib(void)
{
	struct calib_ctx c = { .path = "/sys/devices/system/cpu/online" };
	char path[512];
	struct result r;
	int fd, i;

	progress("calibration");
	result_init(&r, "calib", "getppid()", "", 0, "");
	for (i = 0; i < reps; i++) {
		long k = calibrate(op_getppid, NULL);

		r.val[r.n++] = time_batch(op_getppid, NULL, k) / k;
	}
	snprintf(r.note, sizeof(r.note), "null system call");
	emit(&r);

	calib_row("sysfs attribute open+read+close", op_read_file, &c);
	snprintf(path, sizeof(path), "%s/udmabuf-bench.%d", tmpdir,
		 (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, "1\n", 2) != 2)
		die(path, "create", errno);
	close(fd);
	c.path = path;
	calib_row("tmpfs file open+read+close", op_read_file, &c);
	unlink(path);
	c.mem = alloc_or_die(MiB);
	clear_buf(c.mem, MiB);
	calib_row("check_buf 1 MiB malloc", op_byte_loop, &c);
	free(c.mem);
	calib_row("spawn+wait static program", op_spawn, &c);
}

/* ------------------------------------------------------------------ */
/* Main                                                                */

static void machine_info(int module)
{
	struct utsname u;
	char mode[8], cache[32], key[32];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int m, err;

	if (!uname(&u)) {
		info("machine", "%s", u.machine);
		info("kernel", "%s", u.release);
	}
	info("cpus", "%ld", cpus);
	info("page_size", "%ld", pagesize);
	info("reps", "%d", reps);
	info("check_reps", "%d", check_reps);
	if (!module)
		return;
	/* What each sync_mode really maps with O_SYNC on this machine. */
	buf_create_or_die("bench-info", SMALL_SIZE);
	for (m = 0; m < 4; m++) {
		snprintf(mode, sizeof(mode), "%d", m);
		err = cfs_write("bench-info", "sync_mode", mode);
		if (err)
			die("bench-info", "set sync_mode", -err);
		if (class_read("bench-info", "cache_mode_sync", cache,
			       sizeof(cache)))
			snprintf(cache, sizeof(cache), "?");
		snprintf(key, sizeof(key), "mapping_o_sync_mode_%d", m);
		info(key, "%s", cache);
	}
	buf_delete_or_die("bench-info");
}

static int parse_list(const char *arg, uint64_t *out, int max, uint64_t unit)
{
	char *copy = strdup(arg), *tok, *save = NULL, *end;
	int n = 0;

	if (!copy)
		die("options", "parse", ENOMEM);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long v = strtoull(tok, &end, 10);

		if (*end || !v || n == max) {
			fprintf(stderr, "%s: bad list '%s'\n", prog, arg);
			exit(64);
		}
		out[n++] = v * unit;
	}
	free(copy);
	return n;
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
		"  --reps N       repetitions of every measurement (default %d)\n"
		"  --check-reps N repetitions of check_buf/clear_buf (default %d)\n"
		"  --sizes LIST   check_buf sizes in MiB (default 1,5,10)\n"
		"  --levels LIST  buffer counts of the scaling test\n"
		"                 (default 1,10,100,1000)\n"
		"  --batch-ms MS  length of a timed batch of short operations\n"
		"                 (default 4)\n"
		"  --tmpdir DIR   tmpfs directory for the baselines (default /tmp)\n"
		"  -h, --help     this help\n"
		"\n"
		"Output: '@bench,' CSV rows (the first is the header) and\n"
		"'@info,KEY,VALUE' rows on stdout; progress on stderr.\n",
		prog, reps, check_reps);
}

/* ------------------------------------------------------------------ */
/* Large buffers: the contiguous-range allocator beyond CMA            */

#define GiB		((uint64_t)1024 * MiB)

/* mkdir, size, dma_mask 64, enable: 0 or -errno, nothing left on failure. */
static int buf_create_wide(const char *name, uint64_t size)
{
	char path[512], val[32];
	int err;

	snprintf(path, sizeof(path), "%s/%s", cfs_root, name);
	if (mkdir(path, 0755))
		return -errno;
	snprintf(val, sizeof(val), "%" PRIu64, size);
	err = cfs_write(name, "size", val);
	if (!err)
		err = cfs_write(name, "dma_mask", "64");
	if (!err)
		err = cfs_write(name, "enable", "1");
	if (err)
		rmdir(path);
	return err;
}

/* A counter of /proc/vmstat, or -1. */
static long vmstat(const char *key)
{
	return proc_value("/proc/vmstat", key, ' ');
}

/* The largest buffer, to 16 MiB, that enable gives now with a 64-bit mask. */
static uint64_t large_probe(const char *name, uint64_t limit)
{
	uint64_t lo = 0, hi = limit / (16 * MiB) + 1, mid;
	int err;

	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		err = buf_create_wide(name, mid * 16 * MiB);
		if (!err) {
			buf_delete_or_die(name);
			lo = mid;
		} else if (err == -ENOMEM) {
			hi = mid;
		} else {
			die(name, "probe size", -err);
		}
	}
	return lo * 16 * MiB;
}

/* Populating anonymous memory of the same size: the yardstick of enable. */
static double time_populate(uint64_t size)
{
	double t0 = now_ns();
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		die("anonymous memory", "mmap", errno);
	munmap(p, size);
	return now_ns() - t0;
}

static void large_alloc(const char *name, uint64_t size, const char *group)
{
	char allocator[32] = "?";
	struct result r;
	int i, err;

	result_init(&r, "large", group, "dma_mask 64", size,
		    "MAP_POPULATE anonymous");
	for (i = 0; i < reps; i++) {
		double t0 = now_ns(), a;

		err = buf_create_wide(name, size);
		a = now_ns() - t0;
		if (err) {
			snprintf(r.note, sizeof(r.note), "enable: %s",
				 strerror(-err));
			break;
		}
		cfs_read(name, "allocator", allocator, sizeof(allocator));
		buf_delete_or_die(name);
		add_pair(&r, a, time_populate(size));
	}
	if (!r.note[0])
		snprintf(r.note, sizeof(r.note), "allocator %s", allocator);
	emit(&r);
}

/* Fill tmpfs until about @keep bytes are free; the file's fd, or -1. */
static int large_fill(uint64_t keep, char *path, size_t len)
{
	long free_kb = meminfo_kb("MemFree");
	uint64_t left, n = 0;
	static char chunk[1 << 20];
	int fd;

	if (free_kb < 0 || (uint64_t)free_kb * 1024 <= keep)
		return -1;
	left = (uint64_t)free_kb * 1024 - keep;
	snprintf(path, len, "%s/udmabuf-bench-fill.%d", tmpdir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path, "create", errno);
	memset(chunk, 0x5a, sizeof(chunk));
	while (n < left && write(fd, chunk, sizeof(chunk)) == sizeof(chunk))
		n += sizeof(chunk);
	return fd;
}

/*
 * Where the kernel image lies in physical memory (/proc/iomem, root), in
 * MiB: from the start of its code to the end of its last section.  With
 * KASLR it moves at every boot, and no range can span it: it decides
 * which part of memory the largest buffer can come from.  False if
 * /proc/iomem does not say.
 */
static int kernel_image_mib(uint64_t *lo, uint64_t *hi)
{
	FILE *f = fopen("/proc/iomem", "re");
	unsigned long long a, b;
	char line[256];
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, ": Kernel ") ||
		    sscanf(line, " %llx-%llx", &a, &b) != 2 || !b)
			continue;
		if (!found || a / MiB < *lo)
			*lo = a / MiB;
		if (!found || b / MiB > *hi)
			*hi = b / MiB;
		found = 1;
	}
	fclose(f);
	return found;
}

static void bench_large(void)
{
	const char *name = "bench-large";
	long free_kb = meminfo_kb("MemFree"), ooms = vmstat("oom_kill");
	char path[512];
	struct result r;
	uint64_t largest, klo = 0, khi = 0;
	int fd, err;

	progress("large: the largest buffer");
	largest = large_probe(name, (uint64_t)free_kb * 1024);
	result_init(&r, "large", "largest buffer / MemFree", "dma_mask 64",
		    largest, "MemFree");
	snprintf(r.target, sizeof(r.target), "ratio>=0.5");
	add_pair(&r, (double)largest, (double)free_kb * 1024);
	snprintf(r.note, sizeof(r.note), "largest %" PRIu64 " MiB of %ld MiB free",
		 (uint64_t)(largest / MiB), free_kb / 1024);
	if (kernel_image_mib(&klo, &khi)) {
		size_t n = strlen(r.note);

		snprintf(r.note + n, sizeof(r.note) - n,
			 "; kernel image at %" PRIu64 "-%" PRIu64 " MiB", klo, khi);
		info("kernel_image_mib", "%" PRIu64 "-%" PRIu64, klo, khi);
	}
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
	result_init(&r, "large", "enable 1 GiB with memory full", "dma_mask 64",
		    GiB, "");
	{
		double t0 = now_ns();

		err = buf_create_wide(name, GiB);
		r.val[r.n++] = now_ns() - t0;
	}
	snprintf(r.note, sizeof(r.note), "%s; oom kills %ld; %ld MiB free",
		 err ? strerror(-err) : "allocated (pages migrated)",
		 vmstat("oom_kill") - ooms, meminfo_kb("MemFree") / 1024);
	if (!err)
		buf_delete_or_die(name);
	emit(&r);
	close(fd);
	unlink(path);
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

#define NTESTS (sizeof(tests) / sizeof(tests[0]))

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "reps", required_argument, NULL, 'r' },
		{ "check-reps", required_argument, NULL, 'c' },
		{ "sizes", required_argument, NULL, 's' },
		{ "levels", required_argument, NULL, 'l' },
		{ "batch-ms", required_argument, NULL, 'b' },
		{ "tmpdir", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t tmp[MAX_LEVELS];
	int want[NTESTS] = { 0 }, any = 0, need_module = 0, c, i;
	unsigned int t;
	struct stat st;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			reps = atoi(optarg);
			if (reps < 1 || reps > MAX_SAMPLES) {
				fprintf(stderr, "%s: --reps wants 1..%d\n",
					prog, MAX_SAMPLES);
				return 64;
			}
			break;
		case 'c':
			check_reps = atoi(optarg);
			if (check_reps < 1 || check_reps > MAX_SAMPLES) {
				fprintf(stderr, "%s: --check-reps wants 1..%d\n",
					prog, MAX_SAMPLES);
				return 64;
			}
			break;
		case 's':
			nsizes = parse_list(optarg, sizes, MAX_SIZES, MiB);
			break;
		case 'l':
			nlevels = parse_list(optarg, tmp, MAX_LEVELS, 1);
			for (i = 0; i < nlevels; i++)
				levels[i] = (long)tmp[i];
			break;
		case 'b':
			batch_ns = atof(optarg) * 1e6;
			break;
		case 't':
			tmpdir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 64;
		}
	}
	for (i = optind; i < argc; i++) {
		int found = 0;

		for (t = 0; t < NTESTS; t++)
			if (!strcmp(argv[i], tests[t].name) ||
			    !strcmp(argv[i], "all"))
				want[t] = any = found = 1;
		if (!found) {
			fprintf(stderr, "%s: unknown test '%s'\n", prog,
				argv[i]);
			return 64;
		}
	}
	for (i = 1; i < nlevels; i++)
		if (levels[i] <= levels[i - 1]) {
			fprintf(stderr, "%s: --levels must increase\n", prog);
			return 64;
		}

	start_ns = now_ns();
	pagesize = sysconf(_SC_PAGESIZE);
	/* Everything but the calibration needs the module. */
	for (t = 0; t < NTESTS; t++)
		if ((!any || want[t]) && tests[t].fn != bench_calib)
			need_module = 1;
	if (need_module && stat(cfs_root, &st))
		die(cfs_root, "stat (is udmabuf-cfs loaded?)", errno);
	print_header();
	machine_info(need_module);
	for (t = 0; t < NTESTS; t++)
		if (!any || want[t])
			tests[t].fn();
	return 0;
}
