// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The timing of udmabufctl bench: each measurement is a pair, the buffer's
 * side and the baseline's, one right after the other and alternating which
 * goes first, so that a machine that slows down meanwhile disturbs both
 * alike; the ratio is the median of the pairs' ratios. Times are
 * CLOCK_MONOTONIC nanoseconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"
#include "bufloops.h"

volatile sig_atomic_t bench_stop;

/* Results nobody reads end up here, so that nothing can be elided. */
static volatile uint64_t bench_sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* val[] and base[] of n pairs into r. */
static void fill_row(struct bench_row *r, double *val, double *base, int n)
{
	double ratios[BENCH_REPS_MAX];
	int i;

	for (i = 0; i < n; i++)
		ratios[i] = base[i] > 0 ? val[i] / base[i] : 0;
	r->reps = n;
	r->ratio = median(ratios, n);
	r->base_time = median(base, n);
	r->time = median(val, n);	/* sorts val: min and max after it */
	r->min = val[0];
	r->max = val[n - 1];
}

static double time_loop(enum bench_loop loop, uint8_t *p, size_t size,
			unsigned int seed, uint64_t *errors)
{
	double t0 = now_ns();

	if (loop == BENCH_CHECK)
		*errors += bufloop_check(p, size, seed);
	else
		bufloop_clear(p, size);
	return now_ns() - t0;
}

int bench_loop(struct bench_row *r, enum bench_loop loop, uint8_t *p,
	       uint8_t *base, size_t size, int reps, uint64_t *errors)
{
	double val[BENCH_REPS_MAX], bas[BENCH_REPS_MAX];
	uint64_t ignored = 0;
	int i;

	/* Warm up both: page tables, TLB, caches. */
	bufloop_clear(p, size);
	bufloop_clear(base, size);
	for (i = 0; i < reps; i++) {
		if (bench_stop)
			return -EINTR;
		if (i % 2) {
			bas[i] = time_loop(loop, base, size, (unsigned int)i, &ignored);
			val[i] = time_loop(loop, p, size, (unsigned int)i, errors);
		} else {
			val[i] = time_loop(loop, p, size, (unsigned int)i, errors);
			bas[i] = time_loop(loop, base, size, (unsigned int)i, &ignored);
		}
	}
	bench_sink += ignored;
	snprintf(r->baseline, sizeof(r->baseline), "malloc");
	fill_row(r, val, bas, reps);
	return 0;
}

struct sync_op {
	const struct udmabuf *buf;
	int for_device;
	uint64_t size;
};

/* One sync of OP: 0 or -errno. */
static int sync_once(const struct sync_op *op, int for_device)
{
	return for_device ?
	       udmabuf_sync_for_device(op->buf, 0, op->size, UDMABUF_DIR_BIDIRECTIONAL) :
	       udmabuf_sync_for_cpu(op->buf, 0, op->size, UDMABUF_DIR_BIDIRECTIONAL);
}

/*
 * K syncs (op) or null system calls (no op); ns per call, or -errno.
 *
 * A sync for the CPU gives back what a sync for the device gave the
 * device; one of a range the device never had is a program's bug (the
 * flush before the transfer is missing), which the module's sync checker
 * reports. So with PAIRED each sync for the CPU comes after a sync for the
 * device that is not timed: the calls are timed one by one, the baseline's
 * too, so that both sides pay the clock alike.
 */
static double time_batch(const struct sync_op *op, long k, int paired,
			 int *err)
{
	double t0 = now_ns(), sum = 0;
	long i;
	int ret = 0;

	for (i = 0; i < k && !ret; i++) {
		if (!paired) {
			if (op)
				ret = sync_once(op, op->for_device);
			else
				bench_sink += (uint64_t)syscall(SYS_getppid);
			continue;
		}
		if (op)
			ret = sync_once(op, 1);
		t0 = now_ns();
		if (!op)
			bench_sink += (uint64_t)syscall(SYS_getppid);
		else if (!ret)
			ret = sync_once(op, 0);
		sum += now_ns() - t0;
	}
	if (ret) {
		*err = ret;
		return 0;
	}
	return (paired ? sum : now_ns() - t0) / (double)k;
}

/* How many calls make a batch of about a millisecond. */
static long calibrate(const struct sync_op *op, int paired, int *err)
{
	long k = 1;

	time_batch(op, 1, paired, err);		/* warm up */
	while (!*err && k < (1L << 20) &&
	       time_batch(op, k, paired, err) * (double)k < 1e6)
		k *= 2;
	return k;
}

int bench_sync(struct bench_row *r, const struct udmabuf *buf, int for_device,
	       uint64_t size, int reps)
{
	double val[BENCH_REPS_MAX], bas[BENCH_REPS_MAX];
	struct sync_op op = { buf, for_device, size };
	/* Each sync for the CPU after one for the device (time_batch()). */
	int paired = !for_device, err = 0, i;
	long kop = calibrate(&op, paired, &err);
	long kbase = calibrate(NULL, paired, &err);

	for (i = 0; !err && i < reps; i++) {
		if (bench_stop)
			break;
		if (i % 2) {
			bas[i] = time_batch(NULL, kbase, paired, &err);
			val[i] = time_batch(&op, kop, paired, &err);
		} else {
			val[i] = time_batch(&op, kop, paired, &err);
			bas[i] = time_batch(NULL, kbase, paired, &err);
		}
	}
	/*
	 * What the syncs for the device gave the device goes back to the
	 * CPU, which touches the buffer next (and a named buffer is its
	 * owner's afterwards).
	 */
	if (for_device) {
		int ret = sync_once(&op, 0);

		if (!err)
			err = ret;
	}
	if (err)
		return err;
	if (bench_stop)
		return -EINTR;
	snprintf(r->baseline, sizeof(r->baseline), "getppid");
	fill_row(r, val, bas, reps);
	return 0;
}
