/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What limits the size of a buffer, for the hint of an ENOMEM from enable:
 * the facts the kernel logs too, read from /proc and /dev/kmsg.
 */
#ifndef UDMABUFCTL_ENOMEM_H
#define UDMABUFCTL_ENOMEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes; -1 where unknown. */
struct mem_limits {
	int64_t largest_block;	/* page allocator, zones the mask reaches */
	int64_t mem_total;	/* MemTotal */
	int64_t cma_total;	/* CmaTotal; -1: a kernel without CMA */
	int64_t cma_free;	/* CmaFree */
	int64_t longest_range;	/* the kernel's line: contiguous-range allocator */
};

/*
 * The page allocator's largest free block in the zones a DMA_MASK-bit
 * mask reaches, from the text of /proc/buddyinfo in F ("Node N, zone NAME"
 * and the number of free blocks of each order): the largest order with a
 * count that is not 0, of zones DMA, DMA32, Normal and Movable. A mask of
 * 32 bits or fewer reaches only DMA and DMA32 (and Normal where there is
 * no DMA32, as on 32-bit kernels, whose low memory lies below 4 GiB). 0
 * if those zones have nothing free; -ENODATA if the text lists none.
 */
int parse_buddyinfo(FILE *f, int dma_mask, int64_t *largest);

/*
 * MemTotal, CmaTotal and CmaFree from the text of /proc/meminfo in F into
 * m (bytes, -1 for a line that is missing). Leaves m->largest_block.
 */
void parse_meminfo(FILE *f, struct mem_limits *m);

/*
 * All of struct mem_limits for a DMA_MASK-bit mask, from /proc/buddyinfo
 * and /proc/meminfo; what cannot be read stays -1, and so does
 * m->longest_range (kmsg_longest_range()).
 */
void mem_limits(int dma_mask, struct mem_limits *m);

/*
 * The kernel log from now on: /dev/kmsg (UDMABUF_KMSG in tests) opened at
 * its end, non-blocking, for what a step about to be taken logs. An fd, or
 * -errno where the log cannot be read (without CAP_SYSLOG where
 * kernel.dmesg_restrict is set).
 */
int kmsg_open(void);

/*
 * From one record of /dev/kmsg ("PRIO,SEQ,TIME,FLAGS;MESSAGE\n..."), the
 * longest free or movable range (bytes) that the module's line for a
 * failed allocation of device DEV reports: 0, or -ENOENT if the record is
 * another one.
 */
int parse_enomem_record(const char *rec, const char *dev, int64_t *range);

/*
 * The same from the records of FD (kmsg_open()) logged since it was
 * opened: the last such line's range, or -1 if there is none (the line is
 * rate limited, or FD is -errno).
 */
int64_t kmsg_longest_range(int fd, const char *dev);

/*
 * The two hint lines of an ENOMEM from enable, for SIZE bytes below a
 * DMA_MASK-bit mask: what limit was hit (the page allocator's largest free
 * block, the CMA area; unknown facts are left out), into WHAT, and what
 * would help (a smaller size, cma=SIZE at boot, --dma-mask 64), into FIX.
 */
void enomem_hint_text(uint64_t size, int dma_mask, const struct mem_limits *m,
		      char *what, size_t wlen, char *fix, size_t flen);

#endif
