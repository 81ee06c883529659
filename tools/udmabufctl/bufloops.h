/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The original udmabuf's two test loops, written anew, shared by
 * "udmabufctl bench" and tests/bench/udmabuf-bench.c so that both time the
 * same loops:
 *
 *   bufloop_check()  fill with a pattern byte by byte, then read every byte
 *                    back and compare (check_buf)
 *   bufloop_clear()  write zeros over the buffer, 64 bits at a time
 *                    (clear_buf)
 *
 * Both are never inlined, so that within a program the buffer under test
 * and the malloc'ed baseline run the very same machine code. They touch
 * memory only with naturally aligned loads and stores and never call
 * memset/memcpy: an uncached mapping may be Device memory (32-bit ARM),
 * where unaligned accesses and DC ZVA fault. P must be 8-byte aligned.
 */
#ifndef UDMABUF_BUFLOOPS_H
#define UDMABUF_BUFLOOPS_H

#include <stddef.h>
#include <stdint.h>

/* Zero the compiler cannot see, so that bufloop_clear() stays a loop. */
static volatile uint64_t bufloop_zero;

/* The number of bytes that did not read back as written. */
static __attribute__((noinline, unused)) uint64_t
bufloop_check(uint8_t *p, size_t n, unsigned int seed)
{
	uint64_t errors = 0;
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i + seed);
	/* The compare must read the memory, not what the compiler knows. */
	__asm__ __volatile__("" : : "r"(p) : "memory");
	for (i = 0; i < n; i++)
		errors += p[i] != (uint8_t)(i + seed);
	return errors;
}

static __attribute__((noinline, unused)) void
bufloop_clear(uint8_t *p, size_t n)
{
	uint64_t *w = (uint64_t *)(void *)p, z = bufloop_zero;
	size_t i;

	for (i = 0; i < n / sizeof(*w); i++)
		w[i] = z;
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif
