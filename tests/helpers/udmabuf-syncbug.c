// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-syncbug - small programs that share a buffer with a "device" the
 * wrong way, and the same programs done right, for the sync checker's
 * tests (tests/bats/synccheck.bats).
 *
 *   udmabuf-syncbug BUG DEV OFFSET [--fixed]
 *
 * DEV is /dev/NAME or fd:N.  Each BUG hands the whole buffer to the device
 * (UDMABUF_CFS_IOC_SYNC_FOR_DEVICE, as before starting a DMA transfer) and
 * then touches OFFSET as a program that forgot a sync would; with --fixed
 * it makes the sync it forgot first.
 *
 *   load       reads a word through a cached mapping (sync for the CPU
 *              missing)
 *   store      writes a word through a cached mapping
 *   read       read(2) of 8 bytes at OFFSET
 *   write      write(2) of 8 bytes at OFFSET
 *   vmsplice   vmsplice(2) of the mapping's page at OFFSET into a pipe
 *              (get_user_pages() on it)
 *   no-flush   no sync for the device at all: the "device" ran on what the
 *              CPU wrote, then the program syncs [OFFSET, +4096) for the
 *              CPU (a sync for the device missing before the transfer)
 *   split      syncs [OFFSET, +100) for the CPU, whose ends are inside
 *              cache lines, then reads OFFSET; --fixed rounds the range out
 *              to whole 128-byte lines
 *   dmabuf     as an importer would: exports the buffer as a dma-buf, maps
 *              it, ends a CPU access (DMA_BUF_IOCTL_SYNC END: the device's
 *              now) and reads OFFSET through the dma-buf's mapping without
 *              starting one; --fixed starts it (SYNC START) first
 *
 * Prints "done" after the access; a SIGBUS at it (sync_check 2) ends the
 * program by that signal.  Exit status: 0 done, 1 a call failed, 64 usage.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <sys/mman.h>
#include <sys/uio.h>

#include <linux/dma-buf.h>

static const char *prog = "udmabuf-syncbug";

#include "udmabuf-helpers.h"

/* The largest cache line of the SoCs the checker stands in for. */
#define LINE	128

/* [OFFSET, +SIZE) (0: to the end) for the CPU, or for the device. */
static int sync_for(int fd, int for_cpu, uint64_t offset, uint64_t size)
{
	if (sync_ioctl(fd, for_cpu, offset, size, UDMABUF_CFS_DIR_BIDIRECTIONAL, 0) < 0)
		return report_setup_errno("sync", for_cpu ? "for the CPU" :
					  "for the device", errno);
	return 0;
}

static int usage(void)
{
	return usage_error("usage: load|store|read|write|vmsplice|no-flush|split|dmabuf DEV OFFSET [--fixed]");
}

static int dmabuf_bug(int fd, uint64_t offset, size_t len, int fixed)
{
	struct udmabuf_cfs_export exp = { .flags = O_RDWR | O_CLOEXEC };
	struct dma_buf_sync sync = { 0 };
	volatile uint64_t *word;
	unsigned char *map;

	if (ioctl(fd, UDMABUF_CFS_IOC_EXPORT_DMABUF, &exp) < 0)
		return report_setup_errno("EXPORT_DMABUF", "", errno);
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, exp.fd, 0);
	if (map == MAP_FAILED)
		return report_setup_errno("mmap", "dma-buf", errno);
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	if (ioctl(exp.fd, DMA_BUF_IOCTL_SYNC, &sync) < 0)
		return report_setup_errno("DMA_BUF_IOCTL_SYNC", "end", errno);
	/* The device runs now; then the importer reads the result. */
	if (fixed) {
		sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
		if (ioctl(exp.fd, DMA_BUF_IOCTL_SYNC, &sync) < 0)
			return report_setup_errno("DMA_BUF_IOCTL_SYNC", "start",
						  errno);
	}
	word = (volatile uint64_t *)(map + (offset & ~7ULL));
	(void)*word;
	printf("done\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct udmabuf_cfs_info info;
	volatile uint64_t *word;
	const char *bug;
	uint64_t offset, val = 0x5a5a5a5a5a5a5a5aULL;
	uint64_t start = 0, size = 0;	/* the sync for the CPU: all of it */
	unsigned char *map;
	size_t len;
	int fd, fixed = 0, p[2], rc, no_flush, split;
	struct iovec iov;

	if (argc == 5 && !strcmp(argv[4], "--fixed"))
		fixed = 1;
	else if (argc != 4)
		return usage();
	bug = argv[1];
	no_flush = !strcmp(bug, "no-flush");
	split = !strcmp(bug, "split");
	if (parse_u64(argv[3], &offset))
		return usage();
	rc = open_info(argv[2], O_RDWR, &info, &fd);
	if (rc)
		return rc;
	if (offset + 4096 > info.size)
		return usage();
	len = (size_t)((info.size + 4095) & ~4095ULL);
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return report_setup_errno("mmap", argv[2], errno);
	word = (volatile uint64_t *)(map + (offset & ~7ULL));

	if (!strcmp(bug, "dmabuf"))
		return dmabuf_bug(fd, offset, len, fixed);
	if (no_flush) {
		/* The CPU wrote what the device is to read. */
		*word = val;
		start = offset;
		size = 4096;
	} else if (split && fixed) {
		/* [OFFSET, +100) rounded out to whole lines. */
		start = offset & ~(uint64_t)(LINE - 1);
		size = ((offset + 100 + LINE - 1) & ~(uint64_t)(LINE - 1)) - start;
	} else if (split) {
		start = offset;
		size = 100;
	}
	/* The device runs now; then the program takes the result. */
	if ((!no_flush || fixed) && sync_for(fd, 0, 0, 0))
		return EXIT_SYSCALL;
	if ((no_flush || split || fixed) && sync_for(fd, 1, start, size))
		return EXIT_SYSCALL;
	if (no_flush || split)
		bug = "load";

	if (!strcmp(bug, "load")) {
		(void)*word;
	} else if (!strcmp(bug, "store")) {
		*word = val;
	} else if (!strcmp(bug, "read")) {
		if (pread(fd, &val, sizeof(val), (off_t)offset) != sizeof(val))
			return report_setup_errno("pread", argv[2], errno);
	} else if (!strcmp(bug, "write")) {
		if (pwrite(fd, &val, sizeof(val), (off_t)offset) != sizeof(val))
			return report_setup_errno("pwrite", argv[2], errno);
	} else if (!strcmp(bug, "vmsplice")) {
		if (pipe(p))
			return report_setup_errno("pipe", "", errno);
		iov.iov_base = map + (offset & ~4095ULL);
		iov.iov_len = 4096;
		if (vmsplice(p[1], &iov, 1, 0) != 4096)
			return report_setup_errno("vmsplice", argv[2], errno);
	} else {
		return usage();
	}
	printf("done\n");
	return 0;
}
