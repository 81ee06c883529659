/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The timing of "udmabufctl bench": loops on a mapping against the same
 * loops on malloc'ed memory, and the sync ioctls against a null system
 * call, each repeated in pairs. Messages and the choice of buffers are
 * bench.c's.
 */
#ifndef UDMABUFCTL_TIMING_H
#define UDMABUFCTL_TIMING_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"
#include "udmabuf.h"

#define BENCH_REPS_MAX	100

enum bench_loop { BENCH_CHECK, BENCH_CLEAR };

/* Set by a signal handler: the timing stops after the current pass. */
extern volatile sig_atomic_t bench_stop;

/*
 * REPS pairs of the loop on p (the buffer's mapping) and on base (malloc'ed,
 * as large), which of the two goes first alternating; fills r's times,
 * baseline and ratio. Bytes that read back wrong are added to *errors
 * (check_buf on p only). -EINTR if bench_stop was set meanwhile.
 */
int bench_loop(struct bench_row *r, enum bench_loop loop, uint8_t *p,
	       uint8_t *base, size_t size, int reps, uint64_t *errors);

/*
 * REPS pairs of batches (about a millisecond each) of one sync ioctl of
 * [0, size) through buf (bidirectional) and of a null system call; fills
 * r's times, baseline and ratio. 0, -EINTR, or the ioctl's -errno.
 * Handed over as a program must (the sync checker finds no fault): each
 * sync for the CPU comes after an untimed sync for the device, and after
 * the syncs for the device one for the CPU gives the range back.
 */
int bench_sync(struct bench_row *r, const struct udmabuf *buf, int for_device,
	       uint64_t size, int reps);

#endif
