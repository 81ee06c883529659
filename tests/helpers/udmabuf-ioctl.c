// SPDX-License-Identifier: GPL-2.0
/* udmabuf-test: build-compat32 */
/*
 * udmabuf-ioctl - exercise the ioctl interface of udmabuf-cfs devices and
 * the cache maintenance around a cached mapping, for the guest tests.
 *
 * Built twice when the toolchain is there: natively (/usr/bin/udmabuf-ioctl)
 * and as a 32-bit program (/usr/bin/udmabuf-ioctl-32), so that the same
 * commands run through the compat_ioctl path of a 64-bit kernel.
 *
 * Outcome commands print "OK" (or their result) on success and the errno's
 * symbolic name on failure.  Exit statuses and numbers (the whole 64-bit
 * range): those of udmabuf-helpers.h.
 *
 * bad-pointer makes one ioctl with an invalid argument pointer and prints
 * its errno.
 * raw passes a zeroed 4 KiB buffer and prints OK, the positive return
 * value or the errno.  abi prints the struct sizes and ioctl numbers this
 * binary uses.
 *
 * The pattern commands need sync_mode 0..3 (a cached mapping without
 * O_SYNC).  cpu-to-device puts old data in memory, stores the SEED pattern
 * in [OFFSET, +LENGTH) through a cached mapping, syncs for the device
 * (TO_DEVICE), then checks what the device sees: read() of an O_SYNC file,
 * or with --uncached-view an O_SYNC mapping.  device-to-cpu loads old data
 * into the cache through a cached mapping, lets the "device" store the
 * pattern (write() of an O_SYNC file, or an O_SYNC mapping), syncs for the
 * CPU (FROM_DEVICE), then checks the cached mapping.  --sysfs syncs by
 * writing "OFFSET LENGTH DIRECTION" to /sys/class/udmabuf/<device>/
 * sync_for_{cpu,device} instead of the ioctl.  The pattern is
 * udmabuf-helpers.h's, which udmabuf-test stores and checks too.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <sys/mman.h>
#include <sys/types.h>

static const char *prog = "udmabuf-ioctl";

#include "udmabuf-helpers.h"

/* ---- argument parsing ---- */

struct opts {
	int sysfs;
	int uncached_view;
	int no_sync;
};

static const struct flag opt_flags[] = {
	FLAG("--sysfs", sysfs),
	FLAG("--uncached-view", uncached_view),
	FLAG("--no-sync", no_sync),
	{ NULL, 0 },
};

static int open_dev(const char *dev, int flags, int *fdp)
{
	int fd = open_dev_arg(dev, flags | O_CLOEXEC);

	if (fd < 0)
		return report_setup_errno("open", dev, errno);
	*fdp = fd;
	return 0;
}

/* ---- commands ---- */

/* The flags GET_INFO knows, each printed as NAME=0|1. */
static const struct {
	const char *name;
	uint32_t flag;
} info_flags[] = {
	{ "dma_coherent", UDMABUF_CFS_INFO_DMA_COHERENT },
	{ "ram_cached", UDMABUF_CFS_INFO_RAM_CACHED },
	{ "dma_bound", UDMABUF_CFS_INFO_DMA_BOUND },
	{ "dma_detached", UDMABUF_CFS_INFO_DMA_DETACHED },
	{ "pages", UDMABUF_CFS_INFO_PAGES },
};

static int cmd_info(int argc, char **argv)
{
	static const struct udmabuf_cfs_info zero;
	struct udmabuf_cfs_info info;
	uint32_t known = 0;
	int fd = -1, rc;
	size_t i;

	if (argc != 1)
		return bad_args();
	rc = open_dev(argv[0], O_RDONLY, &fd);
	if (rc)
		return rc;
	/* Poison: every byte the kernel leaves alone shows up. */
	memset(&info, 0xa5, sizeof(info));
	rc = ioctl(fd, UDMABUF_CFS_IOC_GET_INFO, &info);
	if (rc < 0)
		return outcome(rc, fd);
	close(fd);

	printf("abi_version=%" PRIu32 "\n", (uint32_t)info.abi_version);
	printf("flags=0x%08" PRIx32 "\n", (uint32_t)info.flags);
	printf("size=%" PRIu64 "\n", (uint64_t)info.size);
	printf("dma_addr=0x%016" PRIx64 "\n", (uint64_t)info.dma_addr);
	printf("phys_addr=0x%016" PRIx64 "\n", (uint64_t)info.phys_addr);
	printf("sync_mode=%" PRIu32 "\n", (uint32_t)info.sync_mode);
	printf("minor=%" PRIu32 "\n", (uint32_t)info.minor);
	printf("sync_check=%" PRIu32 "\n", (uint32_t)info.sync_check);
	printf("sync_violations=%" PRIu64 "\n",
	       (uint64_t)info.sync_violations);
	printf("driver_version=%s\n",
	       strnlen(info.driver_version, sizeof(info.driver_version)) <
	       sizeof(info.driver_version) ? info.driver_version : "UNTERMINATED");
	for (i = 0; i < sizeof(info_flags) / sizeof(info_flags[0]); i++) {
		printf("%s=%d\n", info_flags[i].name,
		       !!(info.flags & info_flags[i].flag));
		known |= info_flags[i].flag;
	}
	printf("unknown_flags=0x%08" PRIx32 "\n", (uint32_t)info.flags & ~known);
	printf("reserved_zero=%d\n", !info.reserved0 &&
	       !memcmp(info.reserved, zero.reserved, sizeof(zero.reserved)));
	return 0;
}

static int cmd_sync(int argc, char **argv)
{
	uint64_t off, size;
	uint32_t dir, flags = 0;
	int for_cpu, fd = -1, rc;

	for_cpu = argc > 1 && !strcmp(argv[1], "cpu");
	if (argc < 5 || argc > 6 || (!for_cpu && strcmp(argv[1], "device")) ||
	    parse_u64(argv[2], &off) || parse_u64(argv[3], &size) ||
	    parse_u32(argv[4], &dir) || (argc == 6 && parse_u32(argv[5], &flags)))
		return bad_args();
	rc = open_dev(argv[0], O_RDWR, &fd);
	if (rc)
		return rc;
	return outcome(sync_ioctl(fd, for_cpu, off, size, dir, flags), fd);
}

/* ---- bad pointers ---- */

static const struct bad_ioctl {
	const char *name;
	unsigned long cmd;
} bad_ioctls[] = {
	{ "info",	 UDMABUF_CFS_IOC_GET_INFO },
	{ "sync-cpu",	 UDMABUF_CFS_IOC_SYNC_FOR_CPU },
	{ "sync-device", UDMABUF_CFS_IOC_SYNC_FOR_DEVICE },
};

static const char *const bad_cases[] = {
	"null",		/* NULL */
	"unmapped",	/* a page that was unmapped again */
	"readonly",	/* a PROT_READ page: only GET_INFO (which writes) fails */
	"straddle",	/* the struct runs from a mapped into an unmapped page */
	"top",		/* the last page of the address space: kernel, not user */
};

#define NCASES	(sizeof(bad_cases) / sizeof(bad_cases[0]))
#define NIOCTLS	(sizeof(bad_ioctls) / sizeof(bad_ioctls[0]))

/* Pointers for every case; two pages: [rw][none], plus one read-only. */
static int bad_pointers(void *ptrs[NCASES])
{
	long ps = sysconf(_SC_PAGESIZE);
	uint8_t *two, *ro, *gone;
	struct udmabuf_cfs_sync valid;

	two = mmap(NULL, (size_t)ps * 2, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	gone = mmap(NULL, (size_t)ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (two == MAP_FAILED || ro == MAP_FAILED || gone == MAP_FAILED)
		return -1;
	/*
	 * A valid whole-buffer sync in every readable place: a sync ioctl
	 * that wrongly succeeds then says "OK" instead of failing with a
	 * different errno by chance.
	 */
	memset(&valid, 0, sizeof(valid));
	memcpy(ro, &valid, sizeof(valid));
	memcpy(two + ps - 8, &valid, 8);
	if (munmap(two + ps, (size_t)ps) || munmap(gone, (size_t)ps) ||
	    mprotect(ro, (size_t)ps, PROT_READ))
		return -1;
	ptrs[0] = NULL;
	ptrs[1] = gone;
	ptrs[2] = ro;
	ptrs[3] = two + ps - 8;
	ptrs[4] = (void *)(~(uintptr_t)0 & ~(uintptr_t)(ps - 1));
	return 0;
}

static int cmd_bad_pointer(int argc, char **argv)
{
	void *ptrs[NCASES];
	size_t io = 0, bc = 0;
	int fd = -1, rc;

	if (argc != 3)
		return bad_args();
	while (io < NIOCTLS && strcmp(argv[1], bad_ioctls[io].name))
		io++;
	while (bc < NCASES && strcmp(argv[2], bad_cases[bc]))
		bc++;
	if (io == NIOCTLS || bc == NCASES)
		return bad_args();
	if (bad_pointers(ptrs))
		return report_setup_errno("mmap", "scratch pages", errno);
	rc = open_dev(argv[0], O_RDWR, &fd);
	if (rc)
		return rc;
	return outcome(ioctl(fd, bad_ioctls[io].cmd, ptrs[bc]), fd);
}

static int cmd_raw(int argc, char **argv)
{
	static uint64_t arg[4096 / 8];
	unsigned long long cmd;
	char *end;
	int fd = -1, rc, r;

	if (argc != 2)
		return bad_args();
	errno = 0;
	cmd = strtoull(argv[1], &end, 16);
	if (errno || end == argv[1] || *end || cmd > UINT32_MAX)
		return usage_error("raw: bad ioctl number '%s'", argv[1]);
	rc = open_dev(argv[0], O_RDWR, &fd);
	if (rc)
		return rc;
	r = ioctl(fd, (unsigned long)cmd, arg);
	if (r <= 0)
		return outcome(r, fd);
	close(fd);
	printf("%d\n", r);
	return 0;
}

static int cmd_abi(int argc, char **argv)
{
	(void)argv;
	if (argc != 0)
		return bad_args();
	printf("pointer_bits=%zu\n", sizeof(void *) * 8);
	printf("sizeof_info=%zu\n", sizeof(struct udmabuf_cfs_info));
	printf("sizeof_sync=%zu\n", sizeof(struct udmabuf_cfs_sync));
	printf("GET_INFO=0x%08lx\n", (unsigned long)UDMABUF_CFS_IOC_GET_INFO);
	printf("SYNC_FOR_CPU=0x%08lx\n", (unsigned long)UDMABUF_CFS_IOC_SYNC_FOR_CPU);
	printf("SYNC_FOR_DEVICE=0x%08lx\n",
	       (unsigned long)UDMABUF_CFS_IOC_SYNC_FOR_DEVICE);
	return 0;
}

/* ---- data path ---- */

struct pattern_ctx {
	const char *dev;
	struct opts o;
	uint64_t off, len, seed;
	int fdc;			/* without O_SYNC: cached mapping */
	int fds;			/* with O_SYNC: the device's view */
	uint64_t map_off, map_len;	/* page-aligned window of the range */
	uint64_t win_end;		/* end of that window inside the buffer */
	volatile uint8_t *cached;	/* mapping of fdc at map_off */
	volatile uint8_t *view;		/* mapping of fds (--uncached-view) */
};

/* Sync [off, off+len) through the ioctl or the one-write sysfs form. */
static int pattern_sync(struct pattern_ctx *c, int for_cpu, uint32_t dir)
{
	char path[256], val[96];
	const char *base = strrchr(c->dev, '/');
	int err;

	if (c->o.no_sync)
		return 0;
	if (!c->o.sysfs) {
		if (sync_ioctl(c->fdc, for_cpu, c->off, c->len, dir, 0) < 0)
			return report_errno(errno);
		return 0;
	}
	base = base ? base + 1 : c->dev;
	snprintf(path, sizeof(path), "/sys/class/udmabuf/%s/sync_for_%s", base,
		 for_cpu ? "cpu" : "device");
	snprintf(val, sizeof(val), "%" PRIu64 " %" PRIu64 " %" PRIu32, c->off,
		 c->len, dir);
	err = write_file(path, val);
	return err ? report_errno(err) : 0;
}

/* Opens and maps the range a pattern command's ARGV names, into C. */
static int pattern_open(struct pattern_ctx *c, int argc, char **argv,
			const char *cmd)
{
	struct udmabuf_cfs_info info;
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	void *p;
	int n, rc;

	memset(c, 0, sizeof(*c));
	n = split_flags(argc, argv, opt_flags, &c->o, sizeof(c->o));
	if (n < 0)
		return EXIT_USAGE;
	if (n != 4 || parse_u64(argv[1], &c->off) || parse_u64(argv[2], &c->len) ||
	    parse_u64(argv[3], &c->seed) || !c->len)
		return bad_args();
	c->dev = argv[0];
	rc = open_info(c->dev, O_RDWR, &info, &c->fdc);
	if (!rc)
		rc = open_dev(c->dev, O_RDWR | O_SYNC, &c->fds);
	if (rc)
		return rc;
	if (info.sync_mode & 4) {
		fprintf(stderr, "%s: sync_mode %u maps every file like O_SYNC; "
			"the test needs a cached mapping (sync_mode 0..3)\n",
			prog, (unsigned int)info.sync_mode);
		return EXIT_USAGE;
	}
	if (c->off > info.size || c->len > info.size - c->off)
		return usage_error("%s: range outside the %" PRIu64 "-byte buffer",
				   cmd, (uint64_t)info.size);
	c->map_off = c->off & ~(ps - 1);
	c->map_len = ((c->off + c->len + ps - 1) & ~(ps - 1)) - c->map_off;
	c->win_end = c->map_off + c->map_len;
	if (c->win_end > info.size)
		c->win_end = info.size;
	p = mmap(NULL, (size_t)c->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 c->fdc, (off_t)c->map_off);
	if (p == MAP_FAILED)
		return report_setup_errno("mmap", c->dev, errno);
	c->cached = p;
	if (c->o.uncached_view) {
		p = mmap(NULL, (size_t)c->map_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED, c->fds, (off_t)c->map_off);
		if (p == MAP_FAILED)
			return report_setup_errno("mmap", "O_SYNC view", errno);
		c->view = p;
	}
	return 0;
}

/* The device stores the SEED pattern in [off, off+len). */
static int view_fill(struct pattern_ctx *c, uint64_t off, uint64_t len,
		     uint64_t seed)
{
	if (c->view) {
		map_fill(c->view + (off - c->map_off), off, len, seed);
		return 0;
	}
	return fd_pattern(c->fds, FD_FILL, off, len, seed, NULL);
}

/*
 * [off, off+len) holds the SEED pattern: through the CPU's cached mapping
 * (CACHED), else in what the device reads.
 */
static int range_check(struct pattern_ctx *c, int cached, uint64_t off,
		       uint64_t len, uint64_t seed)
{
	if (cached)
		return map_check(c->cached + (off - c->map_off), off, len, seed,
				 "the cached mapping");
	if (c->view)
		return map_check(c->view + (off - c->map_off), off, len, seed,
				 "the device's view");
	return fd_pattern(c->fds, FD_CHECK, off, len, seed, "the device's view");
}

/* The range holds SEED, the rest of the mapped window still OLD. */
static int window_check(struct pattern_ctx *c, int cached, uint64_t seed,
			uint64_t old)
{
	uint64_t end = c->off + c->len, wend = c->win_end;
	int rc = range_check(c, cached, c->off, c->len, seed);

	if (!rc && c->off > c->map_off)
		rc = range_check(c, cached, c->map_off, c->off - c->map_off, old);
	if (!rc && wend > end)
		rc = range_check(c, cached, end, wend - end, old);
	return rc;
}

static int pattern_done(struct pattern_ctx *c, int rc)
{
	if (c->view)
		munmap((void *)c->view, (size_t)c->map_len);
	munmap((void *)c->cached, (size_t)c->map_len);
	close(c->fds);
	close(c->fdc);
	return rc ?: print_ok();
}

/*
 * CPU to device: the device's view holds OLD everywhere in the window; the
 * CPU stores the pattern through its cached mapping and hands the range to
 * the device; the device then reads the pattern, and OLD around it.
 */
static int cmd_cpu_to_device(int argc, char **argv)
{
	struct pattern_ctx c;
	uint64_t old;
	int rc;

	rc = pattern_open(&c, argc, argv, "cpu-to-device");
	if (rc)
		return rc;
	old = c.seed ^ 0x5a5a5a5aULL;

	rc = view_fill(&c, c.map_off, c.win_end - c.map_off, old);
	/* The cached mapping must not hold lines from before that store. */
	if (!rc)
		rc = pattern_sync(&c, 1, UDMABUF_CFS_DIR_FROM_DEVICE);
	if (!rc)
		rc = range_check(&c, 1, c.off, c.len, old);
	if (!rc) {
		map_fill(c.cached + (c.off - c.map_off), c.off, c.len, c.seed);
		rc = pattern_sync(&c, 0, UDMABUF_CFS_DIR_TO_DEVICE);
	}
	if (!rc)
		rc = window_check(&c, 0, c.seed, old);
	return pattern_done(&c, rc);
}

/*
 * Device to CPU: the CPU has OLD in its cache (read through the cached
 * mapping); the device stores the pattern; after sync_for_cpu the cached
 * mapping shows the pattern.
 */
static int cmd_device_to_cpu(int argc, char **argv)
{
	struct pattern_ctx c;
	uint64_t old, o;
	int rc;

	rc = pattern_open(&c, argc, argv, "device-to-cpu");
	if (rc)
		return rc;
	old = c.seed ^ 0xa5a5a5a5ULL;

	/* OLD in memory and, clean, in the CPU's cache. */
	map_fill(c.cached, c.map_off, c.win_end - c.map_off, old);
	if (!c.o.no_sync &&
	    sync_ioctl(c.fdc, 0, c.map_off, c.win_end - c.map_off,
		       UDMABUF_CFS_DIR_TO_DEVICE, 0) < 0)
		rc = report_setup_errno("ioctl", "SYNC_FOR_DEVICE", errno);
	/* Read it all, so that its lines are in the CPU cache. */
	for (o = 0; !rc && o + 8 <= c.win_end - c.map_off; o += 8)
		(void)*(volatile uint64_t *)(c.cached + o);

	/* The device writes the range: it owns the buffer meanwhile. */
	if (!rc)
		rc = pattern_sync(&c, 0, UDMABUF_CFS_DIR_FROM_DEVICE);
	if (!rc)
		rc = view_fill(&c, c.off, c.len, c.seed);
	if (!rc)
		rc = pattern_sync(&c, 1, UDMABUF_CFS_DIR_FROM_DEVICE);
	if (!rc)
		rc = window_check(&c, 1, c.seed, old);
	return pattern_done(&c, rc);
}

#define PATTERN_ARGS "DEV OFFSET LENGTH SEED [--sysfs] [--uncached-view] [--no-sync]"

static const struct command commands[] = {
	{ "info", "DEV  (GET_INFO; key=value lines)", cmd_info, 0 },
	{ "sync", "DEV cpu|device OFFSET SIZE DIRECTION [FLAGS]", cmd_sync, 0 },
	{ "bad-pointer", "DEV info|sync-cpu|sync-device null|unmapped|readonly|straddle|top",
	  cmd_bad_pointer, 0 },
	{ "raw", "DEV CMD_HEX", cmd_raw, 0 },
	{ "abi", "", cmd_abi, 0 },
	{ "cpu-to-device", PATTERN_ARGS, cmd_cpu_to_device, 0 },
	{ "device-to-cpu", PATTERN_ARGS, cmd_device_to_cpu, 0 },
	{ NULL },
};

int main(int argc, char **argv)
{
	return command_main(commands, argc, argv);
}
