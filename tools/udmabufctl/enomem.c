// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Why an enable failed with ENOMEM: the memory the kernel had, as /proc
 * and the module's own line in the kernel log tell it, and the hint made
 * of it. See enomem.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enomem.h"
#include "output.h"

/* Free blocks of a group of zones: listed at all, largest order free. */
struct zone_group {
	int listed;
	int order;	/* -1: nothing free */
};

int parse_buddyinfo(FILE *f, int dma_mask, int64_t *largest)
{
	struct zone_group low = { 0, -1 }, high = { 0, -1 }, *g;
	long page = sysconf(_SC_PAGESIZE);
	int have_dma32 = 0, use_high;
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, f) > 0) {
		char zone[32], *p, *end;
		unsigned long count;
		int off = 0, i;

		if (sscanf(line, "Node %*d, zone %31s %n", zone, &off) != 1 ||
		    !off)
			continue;
		if (!strcmp(zone, "DMA32"))
			have_dma32 = 1;
		if (!strcmp(zone, "DMA") || !strcmp(zone, "DMA32"))
			g = &low;
		else if (!strcmp(zone, "Normal") || !strcmp(zone, "Movable"))
			g = &high;
		else
			continue;	/* HighMem, Device: not for buffers */
		g->listed = 1;
		for (p = line + off, i = 0;; p = end, i++) {
			errno = 0;
			count = strtoul(p, &end, 10);
			if (end == p || errno)
				break;
			if (count && i > g->order)
				g->order = i;
		}
	}
	free(line);
	use_high = dma_mask > 32 || !have_dma32;
	if (!low.listed && !(use_high && high.listed))
		return -ENODATA;
	if (use_high && high.order > low.order)
		low.order = high.order;
	if (page <= 0)
		page = 4096;
	*largest = low.order < 0 ? 0 : (int64_t)page << low.order;
	return 0;
}

void parse_meminfo(FILE *f, struct mem_limits *m)
{
	static const char *const key[] = { "MemTotal:", "CmaTotal:", "CmaFree:" };
	int64_t *val[] = { &m->mem_total, &m->cma_total, &m->cma_free };
	char line[256], unit[8];
	long long kib;
	size_t i;

	for (i = 0; i < 3; i++)
		*val[i] = -1;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < 3; i++)
			if (!strncmp(line, key[i], strlen(key[i])) &&
			    sscanf(line + strlen(key[i]), "%lld %7s", &kib,
				   unit) == 2 &&
			    !strcmp(unit, "kB") && kib >= 0 &&
			    kib <= INT64_MAX / 1024)
				*val[i] = kib * 1024;
}

void mem_limits(int dma_mask, struct mem_limits *m)
{
	FILE *f;

	m->largest_block = -1;
	m->mem_total = -1;
	m->cma_total = -1;
	m->cma_free = -1;
	m->longest_range = -1;
	f = fopen("/proc/buddyinfo", "re");
	if (f) {
		if (parse_buddyinfo(f, dma_mask, &m->largest_block))
			m->largest_block = -1;
		fclose(f);
	}
	f = fopen("/proc/meminfo", "re");
	if (f) {
		parse_meminfo(f, m);
		fclose(f);
	}
}

int kmsg_open(void)
{
	const char *path = secure_getenv("UDMABUF_KMSG");
	int fd = open(path && *path ? path : "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

int parse_enomem_record(const char *rec, const char *dev, int64_t *range)
{
	static const char key[] = ", largest free or movable range ";
	const char *msg = strchr(rec, ';'), *p, *nl;
	size_t dlen = strlen(dev);
	unsigned long long kib;
	char *end;

	if (!msg)
		return -ENOENT;
	msg++;
	nl = strchr(msg, '\n');
	if (strncmp(msg, "udmabuf_cfs: ", 13) || strncmp(msg + 13, dev, dlen) ||
	    strncmp(msg + 13 + dlen, ": no ", 5))
		return -ENOENT;
	p = strstr(msg, key);
	if (!p || (nl && p > nl))
		return -ENOENT;
	p += sizeof(key) - 1;
	if (!isdigit((unsigned char)*p))
		return -ENOENT;
	errno = 0;
	kib = strtoull(p, &end, 10);
	if (errno || strncmp(end, " KiB", 4) || kib > INT64_MAX / 1024)
		return -ENOENT;
	*range = (int64_t)kib * 1024;
	return 0;
}

int64_t kmsg_longest_range(int fd, const char *dev)
{
	int64_t range = -1, r;
	char rec[8192];
	ssize_t n;

	if (fd < 0)
		return -1;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten before it was read */
		if (n <= 0)
			break;		/* EAGAIN: nothing more */
		rec[n] = '\0';
		if (!parse_enomem_record(rec, dev, &r))
			range = r;
	}
	return range;
}

void enomem_hint_text(uint64_t size, int dma_mask, const struct mem_limits *m,
		      char *what, size_t wlen, char *fix, size_t flen)
{
	char sz[32], block[32], total[32], avail[32], ram[32], cma[96];
	char run[32], range[80];

	human_size(size, sz, sizeof(sz));
	if (m->cma_total > 0) {
		human_size((uint64_t)m->cma_total, total, sizeof(total));
		human_size(m->cma_free > 0 ? (uint64_t)m->cma_free : 0, avail,
			   sizeof(avail));
		snprintf(cma, sizeof(cma), "the CMA area has %s of %s free",
			 avail, total);
	} else {
		snprintf(cma, sizeof(cma), "there is no CMA area");
	}
	/* What the kernel's line says the contiguous-range allocator had. */
	range[0] = '\0';
	if (m->longest_range >= 0) {
		human_size((uint64_t)m->longest_range, run, sizeof(run));
		snprintf(range, sizeof(range),
			 ", the longest free or movable range %s", run);
	}
	if (m->largest_block >= 0) {
		human_size((uint64_t)m->largest_block, block, sizeof(block));
		snprintf(what, wlen, "no %s of contiguous memory within the %d-bit DMA mask: the page allocator's largest free block is %s%s and %s",
			 sz, dma_mask, block, range, cma);
	} else {
		snprintf(what, wlen, "no %s of contiguous memory within the %d-bit DMA mask (see dmesg): %s",
			 sz, dma_mask, cma);
	}

	if (m->mem_total > 0 && size > (uint64_t)m->mem_total) {
		human_size((uint64_t)m->mem_total, ram, sizeof(ram));
		snprintf(fix, flen, "try a smaller size: %s is more than the %s of RAM",
			 sz, ram);
	} else {
		snprintf(fix, flen, "try a smaller size%s%s%s",
			 dma_mask < 64 ? ", " : " or ",
			 m->cma_total > 0 ? "a larger cma=SIZE at boot" :
			 "cma=SIZE at boot (a CMA area)",
			 dma_mask < 64 ? " or --dma-mask 64 if the device can address all memory" : "");
	}
}
