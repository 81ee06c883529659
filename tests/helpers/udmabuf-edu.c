// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-edu - user-space driver for QEMU's "edu" PCI device, so that the
 * guest tests can prove that a real DMA master reads and writes udmabuf-cfs
 * buffers at the dma_addr that UDMABUF_CFS_IOC_GET_INFO reports.
 *
 * Everything else in the tests moves data with the CPU; here a device does
 * it (send, recv, roundtrip: phase()).  A wrong dma_addr, a missing cache
 * flush or invalidate, or a mapping that is not the memory the device sees,
 * all show up as a mismatch.  --no-dma is the negative control.
 * The dma_addr is valid for the buffer's DMA device only: the tests use it
 * with an edu without an IOMMU in between, or with a buffer bound to that
 * edu (then it is the edu's IOVA).
 *
 * The device (PCI 1234:11e8) as this program uses it: the first 4 KiB of
 * BAR0's 1 MiB of MMIO, whose registers are EDU_REG_* below.  edu's own
 * buffer is 4 KiB at the device-side address 0x40000, which is what goes
 * into the source or destination register for the edu end of a transfer.
 * The RAM end is a bus address that edu ANDs with its dma_mask
 * property (28 bits unless the VM says otherwise).  The address and count
 * registers ignore writes while a transfer runs, so every transfer first
 * waits for the previous one to finish, and registers are read back.
 *
 * Registers at 0x80 and above take 4- or 8-byte accesses, and a 4-byte
 * write stores a zero-extended 32-bit value.  A 64-bit build writes them
 * with one 64-bit store.  A 32-bit build cannot (two 32-bit stores would
 * not make one 64-bit value), so it writes 32 bits and refuses, with
 * ERANGE, any address that does not fit in them.
 *
 * Why at most 4032 bytes: QEMU 7.2 does not fail a transfer whose edu-side
 * range leaves the edu buffer, it stops the whole VM (hw_error), and its
 * bounds check already trips on a range that ends exactly at the end of the
 * buffer.  So a transfer moves 1 to 4032 bytes (a margin of 64 bytes below
 * the end) at the start of the edu buffer; anything else is refused with
 * EINVAL before the device is touched.
 *
 * OFFSET and LEN are multiples of 8, the words of udmabuf-helpers.h's
 * pattern, which depends on the buffer offset: a range received at OFFSET
 * matches only what was sent from the same OFFSET.
 *
 * Needs root (sysfs PCI config and resource files).  Instances serialise on
 * a lock of the device's resource0, so concurrent tests do not interleave
 * their register writes on one edu.
 *
 * With --vfio IOVA, the edu is driven the way VFIO user-space drivers (DPDK,
 * XDMA, DFL, VILLASnode) drive a PCIe card: bound to vfio-pci, its IOMMU
 * group in a type1 container, config space and BAR0 through the VFIO device
 * file.  The buffer commands then register the buffer's mapping with
 * VFIO_IOMMU_MAP_DMA at IOVA + the window's offset (a long-term pin of its
 * pages) and program edu with IOVA + OFFSET instead of dma_addr; the
 * registration goes before the program ends.  A group in use elsewhere is
 * EBUSY, not waited for.
 *
 * Options before the command: --pci BDF, the edu to use (every command
 * but find needs it); --vfio IOVA, above.  Every DMA waits for the device
 * (1 ms polls, ETIMEDOUT after 20 s).
 *
 * Exit status: 0 success, 1 a system call failed or the device refused
 * (errno name printed on stdout: ENODEV not an edu, or the buffer's DMA
 * device went away; EIO liveness check failed; EBUSY registers did not take
 * the values; ETIMEDOUT transfer never finished; EINVAL/ERANGE transfer
 * refused), 2 data mismatch, 64 usage error.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>

#include <linux/vfio.h>

static const char *prog = "udmabuf-edu";

#include "udmabuf-helpers.h"

#ifndef PCI_DEVICES
#define PCI_DEVICES		"/sys/bus/pci/devices"
#endif
#define PCI_COMMAND		0x04
#define PCI_COMMAND_MEMORY	0x2
#define PCI_COMMAND_MASTER	0x4

#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8
#define EDU_MAP_SIZE		4096

#define EDU_REG_ID		0x00	/* 32 bits: 0xRRrr00ed, version RR.rr */
#define EDU_REG_LIVENESS	0x04	/* 32 bits: the last write, inverted */
#define EDU_REG_DMA_SRC		0x80	/* 64 bits */
#define EDU_REG_DMA_DST		0x88	/* 64 bits */
#define EDU_REG_DMA_COUNT	0x90	/* 64 bits: bytes */
#define EDU_REG_DMA_CMD		0x98

#define EDU_ID_MAGIC		0xed
/* Cleared by the device when done, about 100 ms of virtual time later. */
#define EDU_CMD_START		0x1
/* From edu to RAM, else RAM to edu.  (0x4, an interrupt, nobody would ack.) */
#define EDU_CMD_TO_RAM		0x2

#define EDU_BUF_ADDR		0x40000ULL
/* Usable part of edu's 4 KiB buffer: see the header comment. */
#define EDU_XFER_MAX		4032ULL

#define EDU_POLL_NS		1000000L	/* 1 ms */
#define EDU_TIMEOUT_MS		20000ULL	/* TCG is slow */

#define BDF_MAX			64

/* Print ERR's name on stdout, "prog: WHAT: ERR" on stderr; EXIT_SYSCALL. */
static int fail(int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", errno_name(err));
	return report_errno(err);
}

/* ---- argument parsing ---- */

struct opts {
	int sync;	/* open DEV with O_SYNC */
	int no_dma;	/* send: start no transfer */
};

static const struct flag opt_flags[] = {
	FLAG("--sync", sync),
	FLAG("--no-dma", no_dma),
	{ NULL, 0 },
};

/*
 * Can edu move LEN bytes between bus address ADDR and its buffer?  0 or
 * the errno (reported) that refuses it.
 */
static int xfer_check(uint64_t addr, uint64_t len)
{
	if (!len || len > EDU_XFER_MAX)
		return fail(EINVAL, "length %" PRIu64 ": must be 1..%llu bytes",
			    len, EDU_XFER_MAX);
	if (len - 1 > UINT64_MAX - addr)
		return fail(EINVAL, "bus address 0x%" PRIx64 " + %" PRIu64
			    " wraps around", addr, len);
#if __SIZEOF_POINTER__ == 4
	if (addr > UINT32_MAX)
		return fail(ERANGE, "bus address 0x%" PRIx64
			    ": a 32-bit build can only program 32-bit addresses",
			    addr);
#endif
	return 0;
}

/* ---- finding the device ---- */

/* Read a sysfs file of BDF holding one hex number. */
static int read_sysfs_hex(const char *bdf, const char *attr, unsigned long *val)
{
	char path[256], text[32];
	int err;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", bdf, attr);
	err = read_file(path, text, sizeof(text));
	if (err)
		return -err;
	errno = 0;
	*val = strtoul(text, NULL, 16);
	return errno ? -errno : 0;
}

/* 1 if BDF is an edu, 0 if not, -errno if its sysfs files cannot be read. */
static int is_edu(const char *bdf)
{
	unsigned long vendor, device;
	int ret;

	ret = read_sysfs_hex(bdf, "vendor", &vendor);
	if (!ret)
		ret = read_sysfs_hex(bdf, "device", &device);
	if (ret)
		return ret;
	return vendor == EDU_VENDOR && device == EDU_DEVICE;
}

static int edu_entry(const struct dirent *de)
{
	return de->d_name[0] != '.' && is_edu(de->d_name) == 1;
}

/* ---- registers ---- */

/* --vfio IOVA: drive the edu through VFIO, the buffer at IOVA. */
static int opt_vfio;
static uint64_t opt_iova;

struct edu {
	char bdf[BDF_MAX];
	int fd;				/* resource0 (locked), or VFIO's device */
	int container, group;		/* VFIO's, or -1 */
	volatile uint8_t *regs;		/* BAR0's first EDU_MAP_SIZE bytes */
};

static uint32_t reg_read32(const struct edu *e, unsigned int reg)
{
	return *(volatile uint32_t *)(e->regs + reg);
}

static void reg_write32(const struct edu *e, unsigned int reg, uint32_t val)
{
	*(volatile uint32_t *)(e->regs + reg) = val;
}

/*
 * Order the buffer accesses against the register accesses: the pattern
 * stores before the start of a transfer, the checks after its end.
 */
static void io_fence(void)
{
#if defined(__aarch64__)
	__asm__ __volatile__("dsb sy" ::: "memory");
#elif defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7
	__asm__ __volatile__("dsb" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* ---- opening the device ---- */

/*
 * Turn on memory decoding and bus mastering in the PCI command register of
 * config space at @base in @fd (sysfs config, or VFIO's config region).
 */
static int edu_enable_at(int fd, off_t base, const char *bdf)
{
	uint8_t cmd[2];
	uint16_t val, want;
	ssize_t r;

	r = pread(fd, cmd, sizeof(cmd), base + PCI_COMMAND);
	if (r != sizeof(cmd))
		return fail(r < 0 ? errno : EIO,
			    "%s: config: reading the command register", bdf);
	/* Config space is little-endian, byte by byte. */
	val = (uint16_t)(cmd[0] | cmd[1] << 8);
	want = val | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	if (want != val) {
		cmd[0] = (uint8_t)want;
		cmd[1] = (uint8_t)(want >> 8);
		r = pwrite(fd, cmd, sizeof(cmd), base + PCI_COMMAND);
		if (r != sizeof(cmd))
			return fail(r < 0 ? errno : EIO,
				    "%s: config: writing the command register",
				    bdf);
	}
	return 0;
}

/* Also for a half-opened one: what is not open is -1 or NULL. */
static void edu_close(struct edu *e)
{
	if (e->regs)
		munmap((void *)e->regs, EDU_MAP_SIZE);
	if (e->fd >= 0)
		close(e->fd);	/* drops the lock */
	if (e->group >= 0)
		close(e->group);
	if (e->container >= 0)
		close(e->container);
}

/*
 * The offset in the device file of a VFIO region with flags @need and at
 * least @size bytes, or -1 (reported).
 */
static off_t vfio_region(const struct edu *e, unsigned int index,
			 uint32_t need, uint64_t size, const char *what)
{
	struct vfio_region_info r = { .argsz = sizeof(r), .index = index };

	if (ioctl(e->fd, VFIO_DEVICE_GET_REGION_INFO, &r) < 0) {
		fail(errno, "%s: VFIO_DEVICE_GET_REGION_INFO (%s)", e->bdf, what);
		return -1;
	}
	if ((r.flags & need) != need || r.size < size) {
		fail(ENXIO, "%s: VFIO region %s: flags 0x%x, %llu bytes", e->bdf,
		     what, r.flags, (unsigned long long)r.size);
		return -1;
	}
	return (off_t)r.offset;
}

/*
 * The edu through VFIO: its IOMMU group (every device of which must be
 * bound to vfio-pci) in a new type1 container, the device file, bus
 * mastering through its config region and BAR0 mapped from it.
 */
static int edu_open_vfio(struct edu *e, const char *bdf)
{
	struct vfio_group_status st = { .argsz = sizeof(st) };
	char path[300], link[256];
	const char *group;
	off_t cfg, bar;
	ssize_t n;
	void *p;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/iommu_group", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return fail(errno, "%s: no IOMMU group", bdf);
	link[n] = '\0';
	group = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;

	e->container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (e->container < 0)
		return fail(errno, "/dev/vfio/vfio");
	if (ioctl(e->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION ||
	    ioctl(e->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) != 1)
		return fail(ENOTSUP, "/dev/vfio/vfio: no type1v2 IOMMU");
	snprintf(path, sizeof(path), "/dev/vfio/%s", group);
	e->group = open(path, O_RDWR | O_CLOEXEC);
	if (e->group < 0)
		return fail(errno, "%s", path);
	if (ioctl(e->group, VFIO_GROUP_GET_STATUS, &st) < 0)
		return fail(errno, "%s: VFIO_GROUP_GET_STATUS", path);
	if (!(st.flags & VFIO_GROUP_FLAGS_VIABLE))
		return fail(EBUSY, "%s: not viable (a device of the group is not bound to vfio-pci)",
			    path);
	if (ioctl(e->group, VFIO_GROUP_SET_CONTAINER, &e->container) < 0)
		return fail(errno, "%s: VFIO_GROUP_SET_CONTAINER", path);
	if (ioctl(e->container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU) < 0)
		return fail(errno, "%s: VFIO_SET_IOMMU (type1v2)", path);
	e->fd = ioctl(e->group, VFIO_GROUP_GET_DEVICE_FD, bdf);
	if (e->fd < 0)
		return fail(errno, "%s: VFIO_GROUP_GET_DEVICE_FD", bdf);

	cfg = vfio_region(e, VFIO_PCI_CONFIG_REGION_INDEX,
			  VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE,
			  PCI_COMMAND + 2, "config");
	if (cfg < 0)
		return EXIT_SYSCALL;
	if (edu_enable_at(e->fd, cfg, bdf))
		return EXIT_SYSCALL;
	bar = vfio_region(e, VFIO_PCI_BAR0_REGION_INDEX,
			  VFIO_REGION_INFO_FLAG_MMAP, EDU_MAP_SIZE, "BAR0");
	if (bar < 0)
		return EXIT_SYSCALL;
	p = mmap(NULL, EDU_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd,
		 bar);
	if (p == MAP_FAILED)
		return fail(errno, "%s: mmap of BAR0", bdf);
	e->regs = p;
	return 0;
}

/* Through sysfs: config and resource0, as a UIO user does. */
static int edu_open_sysfs(struct edu *e, const char *bdf)
{
	char path[256];
	void *p;
	int cfg, ret;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/config", bdf);
	cfg = open(path, O_RDWR | O_CLOEXEC);
	if (cfg < 0)
		return fail(errno, "%s: config", bdf);
	ret = edu_enable_at(cfg, 0, bdf);
	close(cfg);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/resource0", bdf);
	e->fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (e->fd < 0)
		return fail(errno, "%s: resource0", bdf);
	if (flock(e->fd, LOCK_EX) < 0)
		return fail(errno, "%s: resource0: flock", bdf);
	p = mmap(NULL, EDU_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (p == MAP_FAILED)
		return fail(errno, "%s: resource0: mmap", bdf);
	e->regs = p;
	return 0;
}

/*
 * Check that BDF is an edu, enable it, map (and through sysfs, lock) its
 * registers and check the identification register.  0 or an exit code
 * (reported).
 */
static int edu_open(struct edu *e, const char *bdf)
{
	uint32_t id;
	int ret;

	*e = (struct edu){ .fd = -1, .container = -1, .group = -1 };
	if (!bdf)
		return usage_error("which edu: --pci BDF");
	if (!*bdf || strchr(bdf, '/') || bdf[0] == '.')
		return fail(ENODEV, "'%s': not a PCI device name", bdf);
	snprintf(e->bdf, sizeof(e->bdf), "%s", bdf);

	ret = is_edu(bdf);
	if (ret < 0)
		return fail(-ret, "%s: vendor/device", bdf);
	if (!ret)
		return fail(ENODEV, "%s: not an edu (PCI %04x:%04x)", bdf,
			    EDU_VENDOR, EDU_DEVICE);
	ret = opt_vfio ? edu_open_vfio(e, bdf) : edu_open_sysfs(e, bdf);
	id = ret ? 0 : reg_read32(e, EDU_REG_ID);
	if (!ret && (id & 0xff) != EDU_ID_MAGIC)
		ret = fail(ENODEV, "%s: identification register 0x%08x is not edu's",
			   bdf, id);
	if (ret)
		edu_close(e);
	return ret;
}

/* Write a few values to the liveness register; each must come back inverted. */
static int edu_liveness(const struct edu *e)
{
	static const uint32_t probes[] = { 0x00000000, 0xffffffff, 0x5a0ff0a5,
					   0x12345678 };
	size_t i;

	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		uint32_t got;

		reg_write32(e, EDU_REG_LIVENESS, probes[i]);
		got = reg_read32(e, EDU_REG_LIVENESS);
		if (got != (uint32_t)~probes[i])
			return fail(EIO, "%s: liveness: wrote 0x%08x, read 0x%08x, want 0x%08x",
				    e->bdf, probes[i], got, (uint32_t)~probes[i]);
	}
	return 0;
}

/* ---- DMA ---- */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Poll until no transfer runs.  0, or ETIMEDOUT reported. */
static int edu_wait_idle(const struct edu *e, const char *what)
{
	const struct timespec tick = { 0, EDU_POLL_NS };
	uint64_t deadline = now_ms() + EDU_TIMEOUT_MS;

	while (reg_read32(e, EDU_REG_DMA_CMD) & EDU_CMD_START) {
		if (now_ms() >= deadline)
			return fail(ETIMEDOUT, "%s: %s: a transfer still runs after %llu s",
				    e->bdf, what, EDU_TIMEOUT_MS / 1000);
		nanosleep(&tick, NULL);	/* EINTR: just poll earlier */
	}
	return 0;
}

/*
 * Write a 64-bit register and read it back.  A 32-bit build writes and
 * reads the low half: it never needs more (xfer_check).
 */
static int edu_set_reg(const struct edu *e, unsigned int reg, uint64_t val)
{
#if __SIZEOF_POINTER__ == 4
	volatile uint32_t *r = (volatile uint32_t *)(e->regs + reg);
#else
	volatile uint64_t *r = (volatile uint64_t *)(e->regs + reg);
#endif
	uint64_t got;

	*r = val;
	got = *r;
	if (got != val)
		return fail(EBUSY, "%s: register 0x%02x: wrote 0x%" PRIx64
			    ", read 0x%" PRIx64 " (did someone else start a transfer?)",
			    e->bdf, reg, val, got);
	return 0;
}

/*
 * Move LEN bytes between bus address ADDR and the edu buffer (TO_RAM: from
 * edu to ADDR) and wait for the end.  The caller has passed the arguments
 * through xfer_check().  0 or an exit code (reported).
 */
static int edu_dma(const struct edu *e, int to_ram, uint64_t addr,
		   uint64_t len)
{
	uint64_t dev = EDU_BUF_ADDR;
	uint32_t cmd = EDU_CMD_START | (to_ram ? EDU_CMD_TO_RAM : 0);
	int rc;

	rc = edu_wait_idle(e, "before the transfer");
	if (!rc)
		rc = edu_set_reg(e, EDU_REG_DMA_SRC, to_ram ? dev : addr);
	if (!rc)
		rc = edu_set_reg(e, EDU_REG_DMA_DST, to_ram ? addr : dev);
	if (!rc)
		rc = edu_set_reg(e, EDU_REG_DMA_COUNT, len);
	if (rc)
		return rc;
	io_fence();
	reg_write32(e, EDU_REG_DMA_CMD, cmd);
	rc = edu_wait_idle(e, to_ram ? "from-dev" : "to-dev");
	io_fence();
	return rc;
}

/* ---- the buffer ---- */

struct ubuf {
	const char *dev;
	uint64_t off, len, seed;
	int fd;
	struct udmabuf_cfs_info info;
	void *map;			/* page-aligned window */
	size_t map_len;
	uint64_t map_off;		/* the window's offset in the buffer */
	volatile uint8_t *at;		/* buffer offset OFF in the window */
	uint64_t bus;			/* what edu is given for offset 0 */
	int vfio_mapped;		/* the window is registered at bus */
};

/*
 * Check the range (EINVAL before anything is touched), open DEV, learn its
 * dma_addr and map the page-aligned window of the range.
 */
static int ubuf_open(struct ubuf *b, int o_sync)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t start, end;
	void *p;
	int rc;

	if (b->off % 8 || b->len % 8)
		return fail(EINVAL, "offset %" PRIu64 ", length %" PRIu64
			    ": must be multiples of 8", b->off, b->len);
	rc = xfer_check(0, b->len);
	if (rc)
		return rc;
	/* "fd:N" too: a process-scoped buffer has no node (process.bats). */
	rc = open_info(b->dev, O_RDWR | (o_sync ? O_SYNC : 0), &b->info, &b->fd);
	if (rc)
		return rc;
#ifdef UDMABUF_CFS_INFO_DMA_DETACHED
	/* No dma_addr (it reads 0): never let edu write to bus address 0. */
	if (b->info.flags & UDMABUF_CFS_INFO_DMA_DETACHED) {
		rc = fail(ENODEV, "%s: its DMA device went away (no dma_addr)",
			  b->dev);
		goto out;
	}
#endif
	if (b->off > b->info.size || b->len > b->info.size - b->off) {
		rc = fail(EINVAL, "%s: range %" PRIu64 "+%" PRIu64
			  " is not inside the %" PRIu64 "-byte buffer",
			  b->dev, b->off, b->len, b->info.size);
		goto out;
	}
	b->bus = opt_vfio ? opt_iova : b->info.dma_addr;
	rc = xfer_check(b->bus + b->off, b->len);
	if (rc)
		goto out;

	start = b->off & ~(page - 1);
	end = (b->off + b->len + page - 1) & ~(page - 1);
	b->map_len = (size_t)(end - start);
	p = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd,
		 (off_t)start);
	if (p == MAP_FAILED) {
		rc = report_setup_errno("mmap", b->dev, errno);
		goto out;
	}
	b->map = p;
	b->map_off = start;
	b->at = (volatile uint8_t *)p + (b->off - start);
	return 0;
out:
	close(b->fd);
	return rc;
}

/*
 * Register the window with the edu's VFIO container at its place from
 * --vfio's IOVA on: VFIO pins its pages for as long as it is registered
 * (FOLL_LONGTERM), or fails.
 */
static int ubuf_vfio_map(struct ubuf *b, const struct edu *e)
{
	struct vfio_iommu_type1_dma_map m = {
		.argsz = sizeof(m),
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uintptr_t)b->map,
		.iova = b->bus + b->map_off,
		.size = b->map_len,
	};

	if (ioctl(e->container, VFIO_IOMMU_MAP_DMA, &m) < 0)
		return fail(errno, "%s: VFIO_IOMMU_MAP_DMA of %zu bytes at IOVA 0x%" PRIx64,
			    b->dev, b->map_len, b->bus + b->map_off);
	b->vfio_mapped = 1;
	return 0;
}

static int ubuf_vfio_unmap(struct ubuf *b, const struct edu *e)
{
	struct vfio_iommu_type1_dma_unmap u = {
		.argsz = sizeof(u),
		.iova = b->bus + b->map_off,
		.size = b->map_len,
	};

	if (!b->vfio_mapped)
		return 0;
	b->vfio_mapped = 0;
	if (ioctl(e->container, VFIO_IOMMU_UNMAP_DMA, &u) < 0)
		return fail(errno, "%s: VFIO_IOMMU_UNMAP_DMA", b->dev);
	if (u.size != b->map_len)
		return fail(EIO, "%s: VFIO_IOMMU_UNMAP_DMA unmapped %llu of %zu bytes",
			    b->dev, (unsigned long long)u.size, b->map_len);
	return 0;
}

static void ubuf_close(struct ubuf *b)
{
	munmap(b->map, b->map_len);
	close(b->fd);
}

static int ubuf_sync(const struct ubuf *b, int for_cpu, uint32_t dir)
{
	if (sync_ioctl(b->fd, for_cpu, b->off, b->len, dir, 0) < 0)
		return fail(errno, "%s: %s %" PRIu64 "+%" PRIu64 " direction %u",
			    b->dev, for_cpu ? "UDMABUF_CFS_IOC_SYNC_FOR_CPU" :
			    "UDMABUF_CFS_IOC_SYNC_FOR_DEVICE", b->off, b->len, dir);
	return 0;
}

/*
 * The range's way to edu (RECV 0) or from it (RECV 1), with its syncs:
 * send stores the pattern, syncs it for the device (TO_DEVICE) and lets
 * edu copy it into its own memory (not with --no-dma); recv stores another
 * seed's pattern, syncs it for the device (BIDIRECTIONAL: written back and
 * dropped from the caches), lets edu copy its memory back, syncs for the
 * CPU (FROM_DEVICE) and checks the pattern.
 */
static int phase(const struct ubuf *b, const struct edu *e,
		 const struct opts *o, int recv)
{
	int rc = 0;

	map_fill(b->at, b->off, b->len, recv ? ~b->seed : b->seed);
	rc = ubuf_sync(b, 0, recv ? UDMABUF_CFS_DIR_BIDIRECTIONAL :
				    UDMABUF_CFS_DIR_TO_DEVICE);
	if (rc || o->no_dma)
		return rc;
	rc = edu_dma(e, recv, b->bus + b->off, b->len);
	if (rc || !recv)
		return rc;
	rc = ubuf_sync(b, 1, UDMABUF_CFS_DIR_FROM_DEVICE);
	return rc ? rc : map_check(b->at, b->off, b->len, b->seed,
				   "the range edu wrote");
}

/* ---- commands ---- */

static const char *opt_pci;

/* Every edu, sorted by name; ENODEV if there is none. */
static int cmd_find(int argc, char **argv)
{
	struct dirent **list;
	int i, n;

	(void)argv;
	if (argc != 0)
		return bad_args();
	n = scandir(PCI_DEVICES, &list, edu_entry, alphasort);
	if (n < 0)
		return fail(errno, "%s", PCI_DEVICES);
	if (!n) {
		free(list);
		return fail(ENODEV, "no edu device (PCI %04x:%04x) in %s",
			    EDU_VENDOR, EDU_DEVICE, PCI_DEVICES);
	}
	for (i = 0; i < n; i++) {
		printf("%s\n", list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return 0;
}

static int cmd_probe(int argc, char **argv)
{
	struct edu e;
	int rc;

	(void)argv;
	if (argc != 0)
		return bad_args();
	rc = edu_open(&e, opt_pci);
	if (rc)
		return rc;
	rc = edu_liveness(&e);
	edu_close(&e);
	return rc ?: print_ok();
}

/* to-dev, or (arg 1) from-dev. */
static int cmd_xfer(int argc, char **argv)
{
	int to_ram = this_command->arg;
	uint64_t addr, len;
	struct edu e;
	int rc;

	if (argc != 2 || parse_u64(argv[0], &addr) || parse_u64(argv[1], &len))
		return bad_args();
	rc = xfer_check(addr, len);
	if (rc)
		return rc;
	rc = edu_open(&e, opt_pci);
	if (rc)
		return rc;
	rc = edu_dma(&e, to_ram, addr, len);
	edu_close(&e);
	return rc ?: print_ok();
}

enum { DO_SEND = 1, DO_RECV = 2 };

/* send, recv or roundtrip: its arg is what it does (DO_*). */
static int cmd_buffer(int argc, char **argv)
{
	int what = this_command->arg;
	struct ubuf b = { 0 };
	struct edu e;
	struct opts o;
	int n, rc, use_edu;

	n = split_flags(argc, argv, opt_flags, &o, sizeof(o));
	if (n < 0)
		return EXIT_USAGE;
	if (o.no_dma && what != DO_SEND)
		return usage_error("%s: --no-dma is an option of send only",
				   this_command->name);
	if (n != 4 || parse_u64(argv[1], &b.off) || parse_u64(argv[2], &b.len) ||
	    parse_u64(argv[3], &b.seed))
		return bad_args();
	b.dev = argv[0];

	/* The buffer first: its range checks come before edu is touched. */
	rc = ubuf_open(&b, o.sync);
	if (rc)
		return rc;
	use_edu = !(what == DO_SEND && o.no_dma);
	if (use_edu) {
		rc = edu_open(&e, opt_pci);
		if (rc) {
			ubuf_close(&b);
			return rc;
		}
	}
	if (use_edu && opt_vfio)
		rc = ubuf_vfio_map(&b, &e);
	if (!rc && (what & DO_SEND))
		rc = phase(&b, &e, &o, 0);
	if (!rc && (what & DO_RECV))
		rc = phase(&b, &e, &o, 1);
	if (use_edu) {
		int urc = ubuf_vfio_unmap(&b, &e);

		rc = rc ? rc : urc;
		edu_close(&e);
	}
	ubuf_close(&b);
	return rc ?: print_ok();
}

#define BUFFER_ARGS "DEV OFFSET LEN SEED [--sync]"

static const struct command commands[] = {
	{ "find", " (the BDF of every edu, one a line, sorted)", cmd_find, 0 },
	{ "probe", " (identification, liveness; enable memory and bus mastering)",
	  cmd_probe, 0 },
	{ "to-dev", "ADDR LEN  (DMA from bus address ADDR into edu)", cmd_xfer, 0 },
	{ "from-dev", "ADDR LEN  (DMA from edu to bus address ADDR)", cmd_xfer, 1 },
	{ "send", BUFFER_ARGS " [--no-dma]", cmd_buffer, DO_SEND },
	{ "recv", BUFFER_ARGS, cmd_buffer, DO_RECV },
	{ "roundtrip", BUFFER_ARGS, cmd_buffer, DO_SEND | DO_RECV },
	{ NULL },
};

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (i < argc && !strncmp(argv[i], "-", 1)) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			help(stdout, commands);
			printf("\nbefore COMMAND: [--pci BDF] [--vfio IOVA]\n");
			return 0;
		}
		if (!strcmp(a, "--pci")) {
			if (i + 1 >= argc)
				return usage_error("--pci needs a BDF");
			opt_pci = argv[i + 1];
			i += 2;
		} else if (!strcmp(a, "--vfio")) {
			if (i + 1 >= argc || parse_u64(argv[i + 1], &opt_iova) ||
			    opt_iova % (uint64_t)sysconf(_SC_PAGESIZE))
				return usage_error("--vfio needs a page-aligned IOVA");
			opt_vfio = 1;
			i += 2;
		} else {
			return usage_error("unknown option '%s'", a);
		}
	}
	return run_command(commands, argc - i, argv + i);
}
