// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * soc-dma - an SoC's own DMA engine copies within a device-tree buffer,
 * driven from user space through its registers: the path from "the device
 * tree has a buffer next to the engine" to "the data arrived", as
 * Documentation/admin-guide.rst walks through it.
 *
 *   soc-dma [BUFFER [CHANNEL]]     default: soc-dma 0xfd500000
 *
 * BUFFER is the name of a buffer the device tree made (examples/soc-dma.dtsi:
 * /dev/soc-dma); CHANNEL the physical address of a ZynqMP ZDMA channel's
 * registers (the FPD "GDMA" channels are at 0xfd500000 + n * 0x10000, the
 * LPD "ADMA" ones at 0xffa80000 + n * 0x10000).  No kernel driver may hold
 * that channel: the fragment disables its node, and /dev/mem (with
 * CONFIG_IO_STRICT_DEVMEM, Debian's default) refuses registers a driver
 * has claimed.
 *
 * The engine is used in its simplest mode, "simple DMA" (ZDMA_CH_CTRL0
 * POINT_TYPE 0): one source and one destination descriptor written into
 * the channel's registers, no descriptor lists in memory.  The first half
 * of the buffer is copied into the second half; the ZynqMP TRM (UG1085)
 * describes the registers used here:
 *
 *   0x100 ZDMA_CH_ISR        status, write 1 to clear; bit 10 DMA_DONE
 *   0x10c ZDMA_CH_IDS        write 1 to mask an interrupt (we poll)
 *   0x110 ZDMA_CH_CTRL0      bit 6 POINT_TYPE, bits 4-5 MODE (0 read-write)
 *   0x11c ZDMA_CH_STATUS     bits 0-1: 0 done, 3 done with an error,
 *                            otherwise busy
 *   0x120 ZDMA_CH_DATA_ATTR  AXI burst types (incrementing)
 *   0x128 ZDMA_CH_SRC_DSCR_WORD0..3  source address (low 32 bits, high
 *                            17 bits), size in bytes, attributes
 *   0x138 ZDMA_CH_DST_DSCR_WORD0..3  the same for the destination
 *   0x188 ZDMA_CH_TOTAL_BYTE bytes moved, write 1 to clear
 *   0x200 ZDMA_CH_CTRL2      bit 0 EN: starts the channel; the engine
 *                            clears it when the transfer is over
 *
 * Build: cc -o soc-dma soc-dma.c $(pkg-config --cflags --libs udmabuf)
 * Run as root (/dev/mem and, by default, the buffer need it).
 */
#define _DEFAULT_SOURCE		/* nanosleep, O_SYNC */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <udmabuf.h>

#define ZDMA_CH_ISR		0x100
#define ZDMA_CH_IDS		0x10c
#define ZDMA_CH_CTRL0		0x110
#define ZDMA_CH_STATUS		0x11c
#define ZDMA_CH_DATA_ATTR	0x120
#define ZDMA_CH_SRC_DSCR_WORD0	0x128
#define ZDMA_CH_DST_DSCR_WORD0	0x138
#define ZDMA_CH_TOTAL_BYTE	0x188
#define ZDMA_CH_CTRL2		0x200

#define ISR_ALL			0xfff
#define ISR_DMA_DONE		(1u << 10)
/* AXI_WR_DATA, AXI_RD_DATA, the descriptor reads, INV_APB: a failure. */
#define ISR_ERRORS		((1u << 9) | (1u << 8) | (1u << 7) | (1u << 6) | 1u)
#define CTRL0_POINT_TYPE	(1u << 6)
#define CTRL0_MODE		(3u << 4)
#define CTRL0_CONT		(1u << 1)
#define DATA_ATTR_ARBURST	(3u << 26)
#define DATA_ATTR_AWBURST	(3u << 12)
#define DATA_ATTR_INCR		((1u << 26) | (1u << 12))
#define STATUS_STATE		3u
#define STATUS_ERROR		3u
#define CTRL2_EN		1u
#define DSCR_SIZE_MAX		((1u << 30) - 1)

static int fail(const char *what, int err)
{
	fprintf(stderr, "soc-dma: %s: %s\n", what, strerror(err));
	return 1;
}

static uint32_t rd(volatile uint32_t *ch, unsigned int reg)
{
	return ch[reg / 4];
}

static void wr(volatile uint32_t *ch, unsigned int reg, uint32_t v)
{
	ch[reg / 4] = v;
}

/*
 * Step 1: the channel's registers, one page of /dev/mem.  O_SYNC maps
 * them as device memory (uncached, accesses in program order).
 */
static volatile uint32_t *map_channel(uint64_t addr)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int fd;

	if (addr % (uint64_t)page) {
		fprintf(stderr, "soc-dma: channel address 0x%" PRIx64 " is not page-aligned\n",
			addr);
		return NULL;
	}
	fd = open("/dev/mem", O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		fail("/dev/mem", errno);
		return NULL;
	}
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)addr);
	close(fd);
	if (p == MAP_FAILED) {
		fail("mmap of the channel's registers (is a driver holding them?)", errno);
		return NULL;
	}
	return p;
}

/*
 * Step 4: one simple-mode transfer of LEN bytes from SRC to DST (DMA
 * addresses), then wait until the channel says it is done.
 */
static int zdma_copy(volatile uint32_t *ch, uint64_t src, uint64_t dst, uint32_t len)
{
	struct timespec tick = { 0, 1000000 };
	uint32_t isr = 0, state;
	int ms;

	state = rd(ch, ZDMA_CH_STATUS) & STATUS_STATE;
	if ((rd(ch, ZDMA_CH_CTRL2) & CTRL2_EN) || (state != 0 && state != STATUS_ERROR)) {
		fprintf(stderr, "soc-dma: the channel is busy (STATUS 0x%x)\n", state);
		return 1;
	}
	/* Polled, not interrupt-driven: mask its interrupts, clear old status. */
	wr(ch, ZDMA_CH_IDS, ISR_ALL);
	wr(ch, ZDMA_CH_ISR, ISR_ALL);
	wr(ch, ZDMA_CH_TOTAL_BYTE, rd(ch, ZDMA_CH_TOTAL_BYTE));
	/* Simple mode (descriptors in registers), read-write, no "continue". */
	wr(ch, ZDMA_CH_CTRL0,
	   rd(ch, ZDMA_CH_CTRL0) & ~(CTRL0_POINT_TYPE | CTRL0_MODE | CTRL0_CONT));
	wr(ch, ZDMA_CH_DATA_ATTR,
	   (rd(ch, ZDMA_CH_DATA_ATTR) & ~(DATA_ATTR_ARBURST | DATA_ATTR_AWBURST)) |
	   DATA_ATTR_INCR);

	/* WORD3 0: not coherent (the CPU's caches are synced by hand). */
	wr(ch, ZDMA_CH_SRC_DSCR_WORD0 + 0, (uint32_t)src);
	wr(ch, ZDMA_CH_SRC_DSCR_WORD0 + 4, (uint32_t)(src >> 32));
	wr(ch, ZDMA_CH_SRC_DSCR_WORD0 + 8, len);
	wr(ch, ZDMA_CH_SRC_DSCR_WORD0 + 12, 0);
	wr(ch, ZDMA_CH_DST_DSCR_WORD0 + 0, (uint32_t)dst);
	wr(ch, ZDMA_CH_DST_DSCR_WORD0 + 4, (uint32_t)(dst >> 32));
	wr(ch, ZDMA_CH_DST_DSCR_WORD0 + 8, len);
	wr(ch, ZDMA_CH_DST_DSCR_WORD0 + 12, 0);

	wr(ch, ZDMA_CH_CTRL2, CTRL2_EN);
	for (ms = 0; ms < 2000; ms++) {
		isr = rd(ch, ZDMA_CH_ISR);
		if (isr & ISR_ERRORS) {
			fprintf(stderr, "soc-dma: the engine reports an error (ISR 0x%03x)\n", isr);
			return 1;
		}
		if (isr & ISR_DMA_DONE)
			break;
		nanosleep(&tick, NULL);
	}
	if (!(isr & ISR_DMA_DONE))
		return fail("the DMA engine (no DMA_DONE)", ETIMEDOUT);
	state = rd(ch, ZDMA_CH_STATUS) & STATUS_STATE;
	printf("soc-dma: ZDMA_CH_ISR 0x%03x (DMA_DONE), ZDMA_CH_STATUS %u, ZDMA_CH_TOTAL_BYTE %" PRIu32 "\n",
	       isr, state, rd(ch, ZDMA_CH_TOTAL_BYTE));
	if (state == STATUS_ERROR) {
		fprintf(stderr, "soc-dma: the engine finished with an error\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "soc-dma";
	uint64_t chan = 0xfd500000, dma, size, half, i;
	volatile uint32_t *ch;
	struct udmabuf *buf;
	uint8_t *p;
	char *end;
	int ret = 1;

	if (argc > 3 || (argc > 1 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: soc-dma [BUFFER [CHANNEL]]   (default: soc-dma 0xfd500000)\n");
		return 2;
	}
	if (argc > 2) {
		errno = 0;
		chan = strtoull(argv[2], &end, 0);
		if (errno || *end || end == argv[2]) {
			fprintf(stderr, "soc-dma: '%s' is not an address\n", argv[2]);
			return 2;
		}
	}
	ch = map_channel(chan);
	if (!ch)
		return 1;

	/*
	 * Step 2: the buffer the device tree made.  Its DMA address is what
	 * the engine is given; it is the CPU physical address here, where
	 * the engine is not behind the SMMU.
	 */
	if (udmabuf_open(name, O_RDWR, &buf)) {
		fprintf(stderr, "soc-dma: open: %s\n", udmabuf_last_error());
		goto unmap_regs;
	}
	size = udmabuf_get_size(buf);
	half = size / 2;
	if (half == 0 || half > DSCR_SIZE_MAX) {
		fprintf(stderr, "soc-dma: %s: %" PRIu64 " bytes cannot be halved into one transfer\n",
			name, size);
		goto close;
	}
	if (udmabuf_get_dma_addr(buf, &dma) ||
	    udmabuf_map(buf, 0, 0, 0, (void **)&p)) {
		fprintf(stderr, "soc-dma: %s\n", udmabuf_last_error());
		goto close;
	}
	printf("soc-dma: buffer /dev/%s, %" PRIu64 " bytes at DMA address 0x%" PRIx64
	       ", ZDMA channel at 0x%" PRIx64 "\n", udmabuf_get_name(buf), size, dma, chan);

	/* Step 3: the CPU fills the first half and hands the buffer over. */
	for (i = 0; i < half; i++) {
		p[i] = (uint8_t)(i * 7 + (i >> 8) + 3);
		p[half + i] = 0;
	}
	if (udmabuf_sync_for_device(buf, 0, 2 * half, UDMABUF_DIR_BIDIRECTIONAL))
		goto sync_failed;

	/* Step 4: the engine copies it into the second half. */
	if (zdma_copy(ch, dma, dma + half, (uint32_t)half))
		goto unmap;

	/*
	 * Step 5: the CPU takes back all it gave: the second half, which the
	 * engine wrote (its stale lines are invalidated), and the first, which
	 * the engine read (nothing to do for the caches, but the buffer is the
	 * CPU's again for whoever opens it next); then reads the second half.
	 */
	if (udmabuf_sync_for_cpu(buf, half, half, UDMABUF_DIR_FROM_DEVICE) ||
	    udmabuf_sync_for_cpu(buf, 0, half, UDMABUF_DIR_TO_DEVICE))
		goto sync_failed;
	for (i = 0; i < half; i++) {
		if (p[half + i] != (uint8_t)(i * 7 + (i >> 8) + 3)) {
			fprintf(stderr, "soc-dma: byte %" PRIu64 " was not copied (0x%02x)\n",
				i, p[half + i]);
			goto unmap;
		}
	}
	printf("soc-dma: %" PRIu64 " bytes copied by the ZDMA channel from 0x%" PRIx64
	       " to 0x%" PRIx64 "\n", half, dma, dma + half);
	ret = 0;
	goto unmap;

sync_failed:
	fprintf(stderr, "soc-dma: sync: %s\n", udmabuf_last_error());
unmap:
	udmabuf_unmap(p, size);
close:
	udmabuf_close(buf);
unmap_regs:
	munmap((void *)ch, (size_t)sysconf(_SC_PAGESIZE));
	return ret;
}
