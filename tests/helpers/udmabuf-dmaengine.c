// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-dmaengine - one transfer by a DMA engine of the SoC between two
 * udmabuf-cfs buffers, with the syncs a program owes such a master, checked
 * through the user mapping.  The engine is driven by the test-only module
 * tests/kmod/udmabuf-dmaengine-test.ko (its debugfs file "copy"), which
 * takes a DMA_MEMCPY channel from dmaengine: the PL330 on a Zynq-7000
 * (tests/bats-zynq/pl330.bats).
 *
 *   copy SRC SRC_OFF DST DST_OFF LENGTH SEED [--no-sync]
 *
 * 1. Both ranges mapped cached (no O_SYNC; the buffers' sync_mode 0..3);
 *    SEED's pattern stored in the source range, another one in the
 *    destination range (what the CPU held there before: its cache lines
 *    must go).
 * 2. Sync for the device: the source range TO_DEVICE (the CPU's writes
 *    cleaned out to memory), the destination range FROM_DEVICE (the CPU's
 *    lines there invalidated before the engine writes).
 * 3. The engine copies LENGTH bytes from the source's DMA address + SRC_OFF
 *    to the destination's + DST_OFF (GET_INFO's dma_addr: the address for
 *    the buffer's device, which on a Zynq-7000, without an IOMMU, is the
 *    physical address, valid for the PL330 too).
 * 4. Sync for the CPU: the destination FROM_DEVICE (invalidated again: lines
 *    the CPU may have fetched speculatively meanwhile), the source
 *    TO_DEVICE (handed back).
 * 5. The destination range checked through its mapping.
 *
 * --no-sync leaves out steps 2 and 4 (the negative control of the tests
 * that observe the maintenance: QEMU has no cache model, so the data alone
 * cannot tell a missing sync).  SRC and DST may be the same buffer.
 *
 * Prints "DMA 0xSRC -> 0xDST LENGTH bytes: OK" (exit 0); the errno name of
 * a failed call (exit 1; the engine's own failures as the module returns
 * them: EIO, ETIMEDOUT); "MISMATCH at OFFSET: got 0x.. want 0x.." (exit 2).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <sys/mman.h>

static const char *prog = "udmabuf-dmaengine";

#include "udmabuf-helpers.h"

#define COPY_FILE "/sys/kernel/debug/udmabuf-dmaengine-test/copy"

struct opts {
	int no_sync;
};

static const struct flag opt_flags[] = {
	FLAG("--no-sync", no_sync),
	{ NULL, 0 },
};

/* A buffer's range, open and mapped. */
struct range {
	const char *path;
	int fd;
	uint64_t off, len, dma;
	volatile uint8_t *map;	/* at buffer offset off rounded down to a page */
	uint64_t map_off;	/* off - that page boundary */
	size_t map_len;
};

static int range_open(struct range *r, const char *path, uint64_t off,
		      uint64_t len)
{
	struct udmabuf_cfs_info info;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t base = off / (uint64_t)page * (uint64_t)page;
	void *p;
	int rc = open_info(path, O_RDWR, &info, &r->fd);

	if (rc)
		return rc;
	r->path = path;
	r->off = off;
	r->len = len;
	if (off + len < off || off + len > info.size) {
		fprintf(stderr, "%s: %s: [%" PRIu64 ", +%" PRIu64 ") is outside its %" PRIu64 " bytes\n",
			prog, path, off, len, (uint64_t)info.size);
		return report_errno(EINVAL);
	}
	r->dma = info.dma_addr + off;
	r->map_off = off - base;
	r->map_len = (size_t)(r->map_off + len);
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		 (off_t)base);
	if (p == MAP_FAILED)
		return report_setup_errno("mmap", path, errno);
	r->map = (volatile uint8_t *)p + r->map_off;
	return 0;
}

static int range_sync(struct range *r, int for_device, uint32_t dir)
{
	if (sync_ioctl(r->fd, !for_device, r->off, r->len, dir, 0))
		return report_setup_errno(for_device ? "SYNC_FOR_DEVICE" :
					  "SYNC_FOR_CPU", r->path, errno);
	return 0;
}

static int cmd_copy(int argc, char **argv)
{
	struct range src, dst;
	uint64_t soff, doff, len, seed, got = 0, want = 0;
	struct opts o;
	char cmd[80];
	int64_t at;
	int n, rc;

	n = split_flags(argc, argv, opt_flags, &o, sizeof(o));
	if (n < 0)
		return EXIT_USAGE;
	if (n != 6 || parse_u64(argv[1], &soff) || parse_u64(argv[3], &doff) ||
	    parse_u64(argv[4], &len) || parse_u64(argv[5], &seed) || !len)
		return bad_args();
	/* The pattern's words are checked at the source's alignment. */
	if (soff % 8 != doff % 8)
		return usage_error("SRC_OFF and DST_OFF must be equal modulo 8");
	rc = range_open(&src, argv[0], soff, len);
	if (!rc)
		rc = range_open(&dst, argv[2], doff, len);
	if (rc)
		return rc;

	map_fill(src.map, soff, len, seed);
	map_fill(dst.map, doff, len, ~seed);
	if (!o.no_sync) {
		rc = range_sync(&src, 1, UDMABUF_CFS_DIR_TO_DEVICE);
		if (!rc)
			rc = range_sync(&dst, 1, UDMABUF_CFS_DIR_FROM_DEVICE);
		if (rc)
			return rc;
	}
	/* One write of "SRC DST LENGTH" to the module's copy file. */
	snprintf(cmd, sizeof(cmd), "0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64,
		 src.dma, dst.dma, len);
	rc = write_file(COPY_FILE, cmd);
	if (rc)
		return report_errno(rc);
	if (!o.no_sync) {
		rc = range_sync(&dst, 0, UDMABUF_CFS_DIR_FROM_DEVICE);
		if (!rc)
			rc = range_sync(&src, 0, UDMABUF_CFS_DIR_TO_DEVICE);
		if (rc)
			return rc;
	}
	/*
	 * The pattern is a function of the buffer offset: what was stored at
	 * SRC_OFF is checked at DST_OFF with the source's offsets.
	 */
	at = map_mismatch(dst.map, soff, len, seed, &got, &want);
	if (at >= 0) {
		printf("MISMATCH at %" PRIu64 ": got 0x%" PRIx64 " want 0x%" PRIx64 "\n",
		       (uint64_t)at - soff + doff, got, want);
		return EXIT_MISMATCH;
	}
	printf("DMA 0x%" PRIx64 " -> 0x%" PRIx64 " %" PRIu64 " bytes: OK\n",
	       src.dma, dst.dma, len);
	return 0;
}

static const struct command commands[] = {
	{ "copy", "SRC SRC_OFF DST DST_OFF LENGTH SEED [--no-sync]", cmd_copy, 0 },
	{ NULL },
};

int main(int argc, char **argv)
{
	return command_main(commands, argc, argv);
}
