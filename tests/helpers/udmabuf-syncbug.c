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
 *   race       not one access but 1000 rounds of a race, with sync_check
 *              2: one thread loads each of the first 16 pages through the
 *              mapping while another hands the buffer to the device, and
 *              then loads them too (OFFSET is not used).  Each of those
 *              must get SIGBUS, whatever the racing load did; prints "N of
 *              LOADS loads unreported" (exit 2) where not (no --fixed: the
 *              program is wrong on purpose, twice)
 *
 * Prints "done" after the access; a SIGBUS at it (sync_check 2) ends the
 * program by that signal.  Exit status: 0 done, 1 a call failed, 2 a race
 * round unreported, 64 usage.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>

#include <linux/dma-buf.h>

static const char *prog = "udmabuf-syncbug";

#include "udmabuf-helpers.h"

/* The largest cache line of the SoCs the checker stands in for. */
#define LINE	128

/*
 * race: rounds, and the pages of each; in ns, the spread of the delays
 * (the loads of 16 pages in an emulated guest: some 300 us) and how long
 * the preemption lasts.
 */
#define RACE_ROUNDS	1000
#define RACE_PAGES	16
#define RACE_SPREAD	400000
#define RACE_HOLD	100000

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
	return usage_error("usage: load|store|read|write|vmsplice|no-flush|split|dmabuf|race DEV OFFSET [--fixed]");
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

/*
 * race: a loading thread, a sync for the device on another CPU, and a
 * thread of real-time priority on the loader's CPU that wakes at a swept
 * delay into the loads and holds the CPU while the sync runs: where the
 * kernel is preemptible, a load's fault stops at every point of its way in
 * turn.  With sync_check 2 a load of a page the device owns gets SIGBUS,
 * which the loading threads catch: such a load makes no entry.
 */
struct racer {
	volatile uint8_t *map;
	unsigned int pages;
	struct timespec t0;
	atomic_ullong go_at;		/* ns since t0 */
	atomic_uint go, preempted, done;
};

static __thread sigjmp_buf race_jmp;

static void race_sigbus(int sig)
{
	(void)sig;
	siglongjmp(race_jmp, 1);
}

/* Loads page @pg: whether it got SIGBUS. */
static bool load_bus(volatile uint8_t *map, unsigned int pg)
{
	if (sigsetjmp(race_jmp, 1))
		return true;
	(void)map[(size_t)pg * 4096];
	return false;
}

static uint64_t ns_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000000000ULL + t.tv_nsec - t0->tv_nsec;
}

static void on_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *race_loader(void *arg)
{
	struct racer *r = arg;
	unsigned int round, pg;

	on_cpu(0);
	for (round = 1; round <= RACE_ROUNDS; round++) {
		while (atomic_load(&r->go) < round)
			;
		for (pg = 0; pg < r->pages; pg++)
			load_bus(r->map, pg);
		atomic_store(&r->done, round);
	}
	return NULL;
}

static void *race_preemptor(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct timespec ts, nap = { .tv_nsec = 10000 };
	struct racer *r = arg;
	unsigned int round;
	uint64_t at;

	on_cpu(0);
	/* Without the privilege it only competes: the race still runs. */
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	for (round = 1; round <= RACE_ROUNDS; round++) {
		/* Asleep until the round starts: the CPU is the loader's. */
		while (atomic_load(&r->go) < round)
			nanosleep(&nap, NULL);
		at = atomic_load(&r->go_at) + (round * 7919ULL) % RACE_SPREAD;
		ts.tv_sec = r->t0.tv_sec + (r->t0.tv_nsec + at) / 1000000000ULL;
		ts.tv_nsec = (r->t0.tv_nsec + at) % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		atomic_store(&r->preempted, round);
		at = ns_since(&r->t0) + RACE_HOLD;
		while (ns_since(&r->t0) < at)
			;
	}
	return NULL;
}

/*
 * Each round every page starts the CPU's with no entry in the mapping;
 * after the sync for the device, a load of it must get SIGBUS, whatever
 * the racing load did.
 */
static int race_bug(int fd, volatile uint8_t *map, uint64_t size)
{
	static struct racer r;
	struct sigaction sa = { .sa_handler = race_sigbus };
	unsigned int round, pg, missed = 0;
	pthread_t loader, preemptor;
	int err;

	r.map = map;
	r.pages = size / 4096 < RACE_PAGES ? size / 4096 : RACE_PAGES;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL))
		return report_setup_errno("sigaction", "SIGBUS", errno);
	clock_gettime(CLOCK_MONOTONIC, &r.t0);
	err = pthread_create(&loader, NULL, race_loader, &r);
	if (!err)
		err = pthread_create(&preemptor, NULL, race_preemptor, &r);
	if (err)
		return report_setup_errno("pthread_create", "", err);
	on_cpu(1);
	for (round = 1; round <= RACE_ROUNDS; round++) {
		/* Given and taken back: no entry, and the CPU's. */
		if (sync_for(fd, 0, 0, 0) || sync_for(fd, 1, 0, 0))
			return EXIT_SYSCALL;
		atomic_store(&r.go_at, ns_since(&r.t0));
		atomic_store(&r.go, round);
		/* The sync runs while the loader is held. */
		while (atomic_load(&r.preempted) < round)
			;
		if (sync_for(fd, 0, 0, 0))
			return EXIT_SYSCALL;
		while (atomic_load(&r.done) < round)
			;
		for (pg = 0; pg < r.pages; pg++)
			missed += !load_bus(map, pg);
	}
	pthread_join(loader, NULL);
	pthread_join(preemptor, NULL);
	if (missed) {
		printf("%u of %u loads unreported\n", missed,
		       RACE_ROUNDS * r.pages);
		return EXIT_MISMATCH;
	}
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
	if (!strcmp(bug, "race"))
		return fixed ? usage() : race_bug(fd, map, info.size);
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
