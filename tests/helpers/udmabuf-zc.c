// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-zc: zero-copy uses of a buffer's mapping, for the guest tests.
 *
 * Each command maps /dev/NAME (MAP_SHARED), fills it with the shared test
 * pattern where it needs data, hands the mapping to a kernel interface
 * that takes user pages (get_user_pages() and friends), and checks the
 * bytes that come back.  On success it prints OK (or what the command
 * says it prints) and exits 0.
 *
 *   odirect DEV BLOCKDEV       O_DIRECT pwrite from the mapping's first half,
 *                              pread into its (cleared) second half
 *   odirect-hold DEV SLOW FAST CMD
 *                              the same as one asynchronous O_DIRECT write
 *                              and read (Linux AIO) on SLOW, a delayed view
 *                              of the disk FAST; while they are in flight:
 *                              unmap and close, run CMD; then the disk holds
 *                              the mapping's bytes as they were (read back
 *                              through FAST).  INFLIGHT-LOST if the I/O
 *                              ended before CMD did
 *   vmsplice DEV [CMD]         vmsplice the mapping into a pipe; unmap and
 *                              close, run CMD with sh -c, then read the pipe
 *   pvm DEV                    process_vm_readv/writev through the mapping
 *   procmem DEV                pread/pwrite /proc/self/mem at the mapping
 *   ptrace DEV                 PTRACE_PEEKDATA/POKEDATA on a forked child
 *   fork DEV                   a child's store through the inherited mapping
 *   mremap DEV                 prints grow=ERR shrink=ERR move=ERR
 *   munmap DEV                 unmap a middle page; the others keep their data
 *   mprotect DEV               read-only, then writable again
 *   madvise DEV                MADV_DONTNEED, then the same data
 *   sendfile DEV FILE          sendfile DEV -> FILE and FILE -> DEV
 *   sendfile-in DEV FILE       sendfile FILE -> DEV only
 *   iouring DEV [CMD]          IORING_REGISTER_BUFFERS of the mapping; with
 *                              CMD: unmap and close, run CMD, then the
 *                              registered (pinned) pages hold the data and
 *                              take fixed-buffer reads and writes
 *   export DEV OFF SIZE FLAGS  UDMABUF_CFS_IOC_EXPORT_DMABUF only; FLAGS is
 *                              a sum of rdonly, rdwr, wronly, cloexec, or
 *                              a number
 *   dmabuf DEV OFF SIZE        export, mmap the dma-buf, DMA_BUF_IOCTL_SYNC,
 *                              data both ways
 *   dmabuf-read DEV OFF SIZE   the same, read-only: exported O_RDONLY,
 *                              synced for reading, data read
 *   dmabuf-hold DEV CMD        export, unmap, close, run CMD, then the data
 *                              through the dma-buf
 *   vgem DEV CARD              export, PRIME import into vgem (CARD is its
 *                              /dev/dri/cardN); prints OK attached=yes|no
 *                              (debugfs lists vgem's attachment) and
 *                              map-dumb=OK (the data checked through vgem's
 *                              mapping) or the errno DRM refused it with
 *
 * With ZC_RDONLY set in the environment, DEV is opened and mapped read-only.
 *
 * Exit status: 0 success, 1 a system call failed (errno name on stdout),
 * 2 data mismatch or a signal where none belonged, 64 usage error.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <stdbool.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/aio_abi.h>
#include <linux/dma-buf.h>
#include <linux/io_uring.h>

static const char *prog = "udmabuf-zc";

#include "udmabuf-helpers.h"
#include "udmabuf-uring.h"

/* DRM's uapi, as far as PRIME import and dumb mapping go. */
struct zc_drm_prime_handle {
	uint32_t handle;
	uint32_t flags;
	int32_t fd;
};

struct zc_drm_mode_map_dumb {
	uint32_t handle;
	uint32_t pad;
	uint64_t offset;
};

struct zc_drm_gem_close {
	uint32_t handle;
	uint32_t pad;
};

#define ZC_DRM_IOCTL_GEM_CLOSE	_IOW('d', 0x09, struct zc_drm_gem_close)
#define ZC_DRM_IOCTL_PRIME_FD_TO_HANDLE \
	_IOWR('d', 0x2e, struct zc_drm_prime_handle)
#define ZC_DRM_IOCTL_MODE_MAP_DUMB \
	_IOWR('d', 0xB3, struct zc_drm_mode_map_dumb)

/* The part of a buffer the commands work on. */
#define ZC_MAX		(1024 * 1024)

#define SEED_A		0x5a17
#define SEED_B		0xb0b0

struct zc {
	int fd;
	unsigned char *map;
	size_t size;		/* bytes mapped: the buffer up to ZC_MAX */
	long page;
	char **argv;		/* the command's arguments after DEV */
	int arg;		/* the command table's argument */
};

static int mismatch(const char *what, size_t off)
{
	printf("MISMATCH\n");
	fprintf(stderr, "%s: %s: wrong data at offset %zu\n", prog, what, off);
	return EXIT_MISMATCH;
}

static int zc_open(struct zc *z, const char *dev)
{
	struct udmabuf_cfs_info info;
	int rdonly = !!getenv("ZC_RDONLY");
	int ret = open_info(dev, rdonly ? O_RDONLY : O_RDWR, &info, &z->fd);

	if (ret)
		return ret;
	z->page = sysconf(_SC_PAGESIZE);
	z->size = info.size < ZC_MAX ? info.size : ZC_MAX;
	z->size -= z->size % (2 * z->page);
	if (z->size < 4 * (size_t)z->page) {
		fprintf(stderr, "%s: %s: need at least 4 pages\n", prog, dev);
		return EXIT_USAGE;
	}
	z->map = mmap(NULL, z->size, PROT_READ | (rdonly ? 0 : PROT_WRITE),
		      MAP_SHARED, z->fd, 0);
	if (z->map == MAP_FAILED)
		return report_setup_errno("mmap", dev, errno);
	return 0;
}

/* ---- get_user_pages() users ---- */

static int cmd_odirect(struct zc *z)
{
	const char *blk = z->argv[0];
	size_t half = z->size / 2;
	int fd;

	fd = open(blk, O_RDWR | O_DIRECT);
	if (fd < 0)
		return report_setup_errno("open", blk, errno);
	map_fill(z->map, 0, half, SEED_A);
	memset(z->map + half, 0, half);
	if (pwrite(fd, z->map, half, 0) != (ssize_t)half)
		return report_errno(errno);
	if (pread(fd, z->map + half, half, 0) != (ssize_t)half)
		return report_errno(errno);
	close(fd);
	return map_check(z->map + half, 0, half, SEED_A, "O_DIRECT read back");
}

/*
 * O_DIRECT I/O in flight: the block layer holds the mapping's pages (a
 * reference on 6.1, a pin on later kernels) from submission to completion.
 * SLOW is a device-mapper delay target over FAST, so both requests wait
 * there while CMD deletes the buffer and makes others; the write then
 * copies from the held pages and the read lands in them.  FAST sets the
 * scene and checks the outcome without the delay.
 */
static int disk_io(const char *path, int write, size_t len, off_t off,
		   uint64_t seed)
{
	unsigned char *tmp;
	ssize_t n;
	int fd, ret;

	fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0)
		return report_setup_errno("open", path, errno);
	if (posix_memalign((void **)&tmp, 4096, len))
		return report_setup_errno("posix_memalign", "", ENOMEM);
	if (write) {
		map_fill(tmp, 0, len, seed);
		n = pwrite(fd, tmp, len, off);
	} else {
		n = pread(fd, tmp, len, off);
	}
	close(fd);
	if (n != (ssize_t)len) {
		free(tmp);
		return report_setup_errno(write ? "pwrite" : "pread", path,
					  n < 0 ? errno : EIO);
	}
	ret = write ? 0 : map_check(tmp, 0, len, seed, "the disk after the held write");
	free(tmp);
	return ret;
}

static int cmd_odirect_hold(struct zc *z)
{
	const char *slow = z->argv[0], *fast = z->argv[1], *cmd = z->argv[2];
	size_t half = z->size / 2;
	struct io_event ev[2];
	struct iocb io[2] = { 0 }, *ios[2] = { &io[0], &io[1] };
	struct timespec t0, now = { 0 };
	aio_context_t ctx = 0;
	int fd, ret, i;
	long n;

	/* The disk: another pattern where the write goes, SEED_B where the read comes from. */
	ret = disk_io(fast, 1, half, 0, 0) ?: disk_io(fast, 1, half, half, SEED_B);
	if (ret)
		return ret;
	map_fill(z->map, 0, half, SEED_A);
	memset(z->map + half, 0, half);

	fd = open(slow, O_RDWR | O_DIRECT);
	if (fd < 0)
		return report_setup_errno("open", slow, errno);
	if (syscall(__NR_io_setup, 2, &ctx))
		return report_setup_errno("io_setup", "", errno);
	/* The write from the first half to the disk's, the read into the second. */
	for (i = 0; i < 2; i++) {
		io[i].aio_lio_opcode = i ? IOCB_CMD_PREAD : IOCB_CMD_PWRITE;
		io[i].aio_fildes = fd;
		io[i].aio_buf = (uintptr_t)(z->map + i * half);
		io[i].aio_nbytes = half;
		io[i].aio_offset = i * half;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = syscall(__NR_io_submit, ctx, 2, ios);
	if (n != 2)
		return report_errno(n < 0 ? errno : EAGAIN);

	/* The requests' hold on the pages is all that is left of the buffer. */
	munmap(z->map, z->size);
	close(z->fd);
	if (run_shell(cmd))
		return EXIT_SYSCALL;
	n = syscall(__NR_io_getevents, ctx, 0, 2, ev, &now);
	if (n != 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		printf("INFLIGHT-LOST\n");
		fprintf(stderr, "%s: the I/O ended before the command did (%ld ms)\n",
			prog, (long)(now.tv_sec - t0.tv_sec) * 1000 +
			(now.tv_nsec - t0.tv_nsec) / 1000000);
		return EXIT_SYSCALL;
	}
	for (i = 0; i < 2; i += n) {
		n = syscall(__NR_io_getevents, ctx, 1, 2 - i, ev + i, NULL);
		if (n <= 0)
			return report_errno(n < 0 ? errno : EIO);
	}
	for (i = 0; i < 2; i++)
		if (ev[i].res != (int64_t)half)
			return report_errno(ev[i].res < 0 ? (int)-ev[i].res : EIO);
	close(fd);
	syscall(__NR_io_destroy, ctx);
	return disk_io(fast, 0, half, 0, SEED_A);
}

/* CMD: z->argv[0], NULL if none. */
static int cmd_vmsplice(struct zc *z)
{
	const char *cmd = z->argv[0];
	size_t len = 16 * z->page, got = 0;
	struct iovec iov = { z->map, len };
	unsigned char *copy;
	int p[2];
	ssize_t n;

	if (pipe(p))
		return report_setup_errno("pipe", "", errno);
	map_fill(z->map, 0, len, SEED_A);
	n = vmsplice(p[1], &iov, 1, 0);
	if (n < 0)
		return report_errno(errno);
	if ((size_t)n != len) {
		fprintf(stderr, "%s: vmsplice took %zd of %zu bytes\n", prog,
			n, len);
		return mismatch("vmsplice", (size_t)n);
	}
	if (cmd) {
		munmap(z->map, z->size);
		close(z->fd);
		if (run_shell(cmd))
			return EXIT_SYSCALL;
	}
	copy = malloc(len);
	if (!copy)
		return report_errno(ENOMEM);
	while (got < len) {
		n = read(p[0], copy + got, len - got);
		if (n <= 0)
			return report_errno(n ? errno : EIO);
		got += n;
	}
	return map_check(copy, 0, len, SEED_A, "pipe contents");
}

/*
 * The mapping read and written from elsewhere: through process_vm_readv
 * and _writev, or (z->arg) pread and pwrite of /proc/self/mem.
 */
static int cmd_peek_poke(struct zc *z)
{
	size_t len = z->size;
	unsigned char *local = malloc(len);
	struct iovec liov = { local, len }, riov = { z->map, len };
	off_t at = (off_t)(uintptr_t)z->map;
	int mem = z->arg ? open("/proc/self/mem", O_RDWR) : -1;

	if (!local)
		return report_errno(ENOMEM);
	if (z->arg && mem < 0)
		return report_setup_errno("open", "/proc/self/mem", errno);
	map_fill(z->map, 0, len, SEED_A);
	if ((mem < 0 ? process_vm_readv(getpid(), &liov, 1, &riov, 1, 0) :
	     pread(mem, local, len, at)) != (ssize_t)len)
		return report_errno(errno);
	if (map_check(local, 0, len, SEED_A, mem < 0 ? "process_vm_readv" :
		   "/proc/self/mem read"))
		return EXIT_MISMATCH;
	map_fill(local, 0, len, SEED_B);
	if ((mem < 0 ? process_vm_writev(getpid(), &liov, 1, &riov, 1, 0) :
	     pwrite(mem, local, len, at)) != (ssize_t)len)
		return report_errno(errno);
	return map_check(z->map, 0, len, SEED_B, mem < 0 ? "process_vm_writev" :
			 "/proc/self/mem write");
}

static int cmd_ptrace(struct zc *z)
{
	volatile uint64_t *w = (volatile uint64_t *)z->map;
	int status, ret = 0;
	long word;
	pid_t pid;

	w[0] = pattern_word(SEED_A, 0);
	pid = fork();
	if (pid < 0)
		return report_setup_errno("fork", "", errno);
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(3);
		raise(SIGSTOP);
		/* The parent poked the word through ptrace. */
		_exit(w[0] == pattern_word(SEED_B, 0) ? 0 : 4);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return report_setup_errno("waitpid", "stop", ECHILD);
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, pid, (void *)w, NULL);
	if (errno) {
		ret = report_errno(errno);
	} else if ((uint64_t)word != pattern_word(SEED_A, 0) &&
		   sizeof(long) == 8) {
		ret = mismatch("PTRACE_PEEKDATA", 0);
	} else if (ptrace(PTRACE_POKEDATA, pid, (void *)w,
			  (void *)(uintptr_t)pattern_word(SEED_B, 0))) {
		ret = report_errno(errno);
	}
	if (ret)
		kill(pid, SIGKILL);
	else
		ptrace(PTRACE_CONT, pid, NULL, NULL);
	waitpid(pid, &status, 0);
	if (ret)
		return ret;
	/* 32-bit: PEEK/POKE move the word's first half only. */
	if (sizeof(long) == 8 && (!WIFEXITED(status) || WEXITSTATUS(status)))
		return mismatch("word in the child after POKEDATA", 0);
	return 0;
}

static int cmd_fork(struct zc *z)
{
	volatile uint64_t *w = (volatile uint64_t *)z->map;
	int status;
	pid_t pid;

	w[0] = 0;
	pid = fork();
	if (pid < 0)
		return report_setup_errno("fork", "", errno);
	if (!pid) {
		w[0] = pattern_word(SEED_A, 0);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	if (w[0] != pattern_word(SEED_A, 0))
		return mismatch("store by the child", 0);
	return 0;
}

/* ---- the mapping's own rules ---- */

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* 0 if the access went through, else the signal it raised. */
static int try_access(volatile unsigned char *p, int write)
{
	struct sigaction sa = { .sa_handler = on_fault }, old_segv, old_bus;
	int sig;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sig = sigsetjmp(fault_jmp, 1);
	if (!sig) {
		if (write)
			*p = *p;
		else
			(void)*p;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return sig;
}

static const char *result(void *ret)
{
	return ret == MAP_FAILED ? errno_name(errno) : "OK";
}

static int cmd_mremap(struct zc *z)
{
	size_t two = 2 * z->page;
	unsigned char *p, *q;
	const char *grow, *shrink, *move;

	munmap(z->map, z->size);
	p = mmap(NULL, two, PROT_READ | PROT_WRITE, MAP_SHARED, z->fd, 0);
	if (p == MAP_FAILED)
		return report_setup_errno("mmap", "2 pages", errno);
	map_fill(p, 0, two, SEED_A);

	/* Growing would reach past what was mapped: refused. */
	q = mremap(p, two, 3 * two, MREMAP_MAYMOVE);
	grow = result(q);
	if (q != MAP_FAILED)
		p = q;

	q = mremap(p, two, z->page, 0);
	shrink = result(q);

	q = mremap(p, z->page, z->page, MREMAP_MAYMOVE | MREMAP_FIXED,
		   p + 64 * z->page);
	move = result(q);
	if (q != MAP_FAILED && map_check(q, 0, z->page, SEED_A, "moved mapping"))
		return EXIT_MISMATCH;
	printf("grow=%s shrink=%s move=%s\n", grow, shrink, move);
	return 0;
}

static int cmd_munmap(struct zc *z)
{
	size_t pg = z->page;
	int sig;

	map_fill(z->map, 0, 4 * pg, SEED_A);
	if (munmap(z->map + pg, pg))
		return report_errno(errno);
	sig = try_access(z->map + pg, 0);
	if (sig != SIGSEGV) {
		fprintf(stderr, "%s: unmapped page: signal %d\n", prog, sig);
		return mismatch("unmapped page readable", pg);
	}
	return map_check(z->map, 0, pg, SEED_A, "page before the hole") ?:
	       map_check(z->map + 2 * pg, 2 * pg, 2 * pg, SEED_A,
			 "pages after the hole");
}

static int cmd_mprotect(struct zc *z)
{
	int sig;

	map_fill(z->map, 0, z->page, SEED_A);
	if (mprotect(z->map, z->size, PROT_READ))
		return report_errno(errno);
	sig = try_access(z->map, 1);
	if (sig != SIGSEGV)
		return mismatch("store to a read-only mapping", 0);
	if (try_access(z->map, 0))
		return mismatch("load from a read-only mapping", 0);
	if (mprotect(z->map, z->size, PROT_READ | PROT_WRITE))
		return report_errno(errno);
	if (try_access(z->map, 1))
		return mismatch("store after PROT_WRITE again", 0);
	return map_check(z->map, 0, z->page, SEED_A, "data after mprotect");
}

static int cmd_madvise(struct zc *z)
{
	map_fill(z->map, 0, z->size, SEED_A);
	if (madvise(z->map, z->size, MADV_DONTNEED))
		return report_errno(errno);
	return map_check(z->map, 0, z->size, SEED_A, "data after MADV_DONTNEED");
}

/*
 * sendfile DEV -> FILE, then FILE -> DEV; with z->arg 0 only the second
 * (kernels before 5.19 take only regular files and block devices as
 * sendfile's input).
 */
static int cmd_sendfile(struct zc *z)
{
	const char *path = z->argv[0];
	bool from_dev = z->arg;
	size_t len = z->size;
	off_t off = 0;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return report_setup_errno("open", path, errno);
	if (from_dev) {
		map_fill(z->map, 0, len, SEED_A);
		if (sendfile(fd, z->fd, &off, len) != (ssize_t)len)
			return report_errno(errno);
	} else if (ftruncate(fd, len)) {
		return report_setup_errno("ftruncate", path, errno);
	}
	munmap(z->map, z->size);
	z->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (z->map == MAP_FAILED)
		return report_setup_errno("mmap", path, errno);
	if (from_dev && map_check(z->map, 0, len, SEED_A, "file written by sendfile"))
		return EXIT_MISMATCH;

	/* And back: the file, changed, into the buffer. */
	map_fill(z->map, 0, len, SEED_B);
	off = 0;
	if (lseek(z->fd, 0, SEEK_SET) ||
	    sendfile(z->fd, fd, &off, len) != (ssize_t)len)
		return report_errno(errno);
	munmap(z->map, len);
	z->map = mmap(NULL, len, PROT_READ, MAP_SHARED, z->fd, 0);
	if (z->map == MAP_FAILED)
		return report_setup_errno("mmap", "buffer", errno);
	return map_check(z->map, 0, len, SEED_B, "buffer written by sendfile");
}

/* What the registered pages hold, through a fixed write to @file at @off. */
static int ring_check(struct udmabuf_ring *r, void *addr, size_t len, int file,
		      off_t off, uint64_t seed, const char *what)
{
	unsigned char *copy = malloc(len);
	int n, ret;

	if (!copy)
		return report_errno(ENOMEM);
	n = ring_fixed(r, IORING_OP_WRITE_FIXED, file, addr, len, off);
	if (n < 0)
		return report_errno(-n);
	if ((size_t)n != len || pread(file, copy, len, off) != (ssize_t)len)
		return report_errno(EIO);
	ret = map_check(copy, 0, len, seed, what);
	free(copy);
	return ret;
}

static int cmd_iouring(struct zc *z)
{
	const char *cmd = z->argv[0];
	struct iovec iov = { z->map, z->size };
	unsigned char *pattern;
	struct udmabuf_ring r;
	int file, n, ret;

	ret = ring_init(&r);
	if (ret)
		return report_setup_errno("io_uring_setup", "", -ret);
	map_fill(z->map, 0, z->size, SEED_A);
	if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_BUFFERS,
		    &iov, 1))
		return report_errno(errno);
	if (!cmd)
		return 0;
	/* The registration's pins are all that is left of the buffer. */
	munmap(z->map, z->size);
	close(z->fd);
	if (run_shell(cmd))
		return EXIT_SYSCALL;

	file = memfd_create("udmabuf-zc", 0);
	pattern = malloc(z->size);
	if (file < 0 || !pattern)
		return report_setup_errno("memfd_create", "", file < 0 ? errno : ENOMEM);
	ret = ring_check(&r, iov.iov_base, z->size, file, 0, SEED_A,
			 "registered pages after the buffer went");
	if (ret)
		return ret;
	/* A fixed read lands in the pinned pages, nowhere else. */
	map_fill(pattern, 0, z->size, SEED_B);
	if (pwrite(file, pattern, z->size, z->size) != (ssize_t)z->size)
		return report_setup_errno("pwrite", "memfd", errno);
	n = ring_fixed(&r, IORING_OP_READ_FIXED, file, iov.iov_base, z->size,
		       z->size);
	if (n < 0)
		return report_errno(-n);
	if ((size_t)n != z->size)
		return report_errno(EIO);
	return ring_check(&r, iov.iov_base, z->size, file, 2 * z->size, SEED_B,
			  "registered pages after a fixed read");
}

/* ---- dma-buf ---- */

static int parse_flags(const char *s, uint32_t *flags)
{
	char *copy = strdup(s), *tok, *save = NULL, *end;

	*flags = 0;
	for (tok = strtok_r(copy, "+,", &save); tok;
	     tok = strtok_r(NULL, "+,", &save)) {
		if (!strcmp(tok, "rdonly")) {
			*flags |= O_RDONLY;
		} else if (!strcmp(tok, "rdwr")) {
			*flags |= O_RDWR;
		} else if (!strcmp(tok, "wronly")) {
			*flags |= O_WRONLY;
		} else if (!strcmp(tok, "cloexec")) {
			*flags |= O_CLOEXEC;
		} else {
			errno = 0;
			*flags |= strtoul(tok, &end, 0);
			if (errno || *end) {
				free(copy);
				return -1;
			}
		}
	}
	free(copy);
	return 0;
}

static int cmd_export(struct zc *z)
{
	uint64_t off = strtoull(z->argv[0], NULL, 0);
	uint64_t size = strtoull(z->argv[1], NULL, 0);
	uint32_t flags;
	int fd, fdflags;

	if (parse_flags(z->argv[2], &flags))
		return usage_error("bad FLAGS");
	fd = export_dmabuf(z->fd, off, size, flags);
	if (fd < 0)
		return report_errno(-fd);
	fdflags = fcntl(fd, F_GETFD);
	printf("OK fd-cloexec=%d mode=%s\n", !!(fdflags & FD_CLOEXEC),
	       (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR ? "rdwr" : "rdonly");
	return 0;
}

/*
 * The dma-buf's mapping holds SEED's pattern, between the CPU access's
 * start and end; it stores SEED_B's, unless the dma-buf is read-only
 * (RDONLY: mapped and synced for reading only).
 */
static int check_dmabuf(int fd, size_t len, uint64_t seed, int rdonly)
{
	uint64_t rw = rdonly ? DMA_BUF_SYNC_READ : DMA_BUF_SYNC_RW;
	struct dma_buf_sync sync = { DMA_BUF_SYNC_START | rw };
	unsigned char *p;

	p = mmap(NULL, len, PROT_READ | (rdonly ? 0 : PROT_WRITE), MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED)
		return report_setup_errno("mmap", "dma-buf", errno);
	if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync))
		return report_errno(errno);
	if (map_check(p, 0, len, seed, "dma-buf mapping"))
		return EXIT_MISMATCH;
	if (!rdonly)
		map_fill(p, 0, len, SEED_B);
	sync.flags = DMA_BUF_SYNC_END | rw;
	if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync))
		return report_errno(errno);
	munmap(p, len);
	return 0;
}

static int cmd_dmabuf(struct zc *z)
{
	uint64_t off = strtoull(z->argv[0], NULL, 0);
	uint64_t size = strtoull(z->argv[1], NULL, 0);
	size_t len;
	int fd, ret;

	if (off % z->page || off >= z->size)
		return usage_error("OFF must be page-aligned, in the first MiB");
	len = size ? size : z->size - off;
	if (off + len > z->size)
		len = z->size - off;
	map_fill(z->map + off, 0, len, SEED_A);
	fd = export_dmabuf(z->fd, off, size,
			   (z->arg ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (fd < 0)
		return report_errno(-fd);
	ret = check_dmabuf(fd, len, SEED_A, z->arg);
	if (ret || z->arg)
		return ret;
	return map_check(z->map + off, 0, len, SEED_B,
			 "buffer after a store through the dma-buf");
}

static int cmd_dmabuf_hold(struct zc *z)
{
	const char *cmd = z->argv[0];
	int fd;

	map_fill(z->map, 0, z->size, SEED_A);
	fd = export_dmabuf(z->fd, 0, 0, O_RDWR);
	if (fd < 0)
		return report_errno(-fd);
	munmap(z->map, z->size);
	close(z->fd);
	if (run_shell(cmd))
		return EXIT_SYSCALL;
	return check_dmabuf(fd, z->size, SEED_A, 0);
}

/* True if debugfs lists an attachment of device NAME to some dma-buf. */
static int dmabuf_attached(const char *name)
{
	FILE *f = fopen("/sys/kernel/debug/dma_buf/bufinfo", "r");
	char line[256];
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line + strspn(line, " \t"), name))
			found = 1;
	}
	fclose(f);
	return found;
}

/*
 * DRM refuses dumb mappings of imported objects (drm_gem_dumb_map_offset:
 * EINVAL); where it maps one, the bytes must be ours.
 */
static int cmd_vgem(struct zc *z)
{
	const char *card = z->argv[0];
	struct zc_drm_prime_handle prime = { 0 };
	struct zc_drm_mode_map_dumb map = { 0 };
	struct zc_drm_gem_close gclose = { 0 };
	const char *map_result = "OK";
	unsigned char *p;
	int drm, attached;

	drm = open(card, O_RDWR | O_CLOEXEC);
	if (drm < 0)
		return report_setup_errno("open", card, errno);
	map_fill(z->map, 0, z->size, SEED_A);
	prime.fd = export_dmabuf(z->fd, 0, 0, O_RDWR | O_CLOEXEC);
	if (prime.fd < 0)
		return report_errno(-prime.fd);
	if (ioctl(drm, ZC_DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime))
		return report_errno(errno);
	/* The GEM object holds the dma-buf: the fd is not needed any more. */
	close(prime.fd);
	attached = dmabuf_attached("vgem");

	map.handle = prime.handle;
	if (ioctl(drm, ZC_DRM_IOCTL_MODE_MAP_DUMB, &map)) {
		map_result = errno_name(errno);
	} else {
		p = mmap(NULL, z->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 drm, map.offset);
		if (p == MAP_FAILED)
			return report_errno(errno);
		if (map_check(p, 0, z->size, SEED_A, "vgem's mapping of the import"))
			return EXIT_MISMATCH;
		map_fill(p, 0, z->size, SEED_B);
		if (map_check(z->map, 0, z->size, SEED_B, "buffer after a store through vgem"))
			return EXIT_MISMATCH;
		munmap(p, z->size);
	}
	gclose.handle = prime.handle;
	if (ioctl(drm, ZC_DRM_IOCTL_GEM_CLOSE, &gclose))
		return report_errno(errno);
	close(drm);
	printf("OK attached=%s map-dumb=%s\n",
	       attached < 0 ? "unknown" : attached ? "yes" : "no", map_result);
	return 0;
}

/*
 * The commands: DEV and from MIN to MAX more arguments, ARGS in the help.
 * A command's success prints OK, unless it prints its own line (OWN).
 */
static const struct zc_command {
	const char *name, *args;
	int min, max;
	int (*fn)(struct zc *z);
	int arg, own;
} commands[] = {
	{ "odirect", "BLOCKDEV", 1, 1, cmd_odirect, 0, 0 },
	{ "odirect-hold", "SLOW FAST CMD", 3, 3, cmd_odirect_hold, 0, 0 },
	{ "vmsplice", "[CMD]", 0, 1, cmd_vmsplice, 0, 0 },
	{ "pvm", "", 0, 0, cmd_peek_poke, 0, 0 },
	{ "procmem", "", 0, 0, cmd_peek_poke, 1, 0 },
	{ "ptrace", "", 0, 0, cmd_ptrace, 0, 0 },
	{ "fork", "", 0, 0, cmd_fork, 0, 0 },
	{ "mremap", "", 0, 0, cmd_mremap, 0, 1 },
	{ "munmap", "", 0, 0, cmd_munmap, 0, 0 },
	{ "mprotect", "", 0, 0, cmd_mprotect, 0, 0 },
	{ "madvise", "", 0, 0, cmd_madvise, 0, 0 },
	{ "sendfile", "FILE", 1, 1, cmd_sendfile, 1, 0 },
	{ "sendfile-in", "FILE", 1, 1, cmd_sendfile, 0, 0 },
	{ "iouring", "[CMD]", 0, 1, cmd_iouring, 0, 0 },
	{ "export", "OFF SIZE FLAGS", 3, 3, cmd_export, 0, 1 },
	{ "dmabuf", "OFF SIZE", 2, 2, cmd_dmabuf, 0, 0 },
	{ "dmabuf-read", "OFF SIZE", 2, 2, cmd_dmabuf, 1, 0 },
	{ "dmabuf-hold", "CMD", 1, 1, cmd_dmabuf_hold, 0, 0 },
	{ "vgem", "CARD", 1, 1, cmd_vgem, 0, 1 },
	{ NULL, NULL, 0, 0, NULL, 0, 0 },
};

int main(int argc, char **argv)
{
	const struct zc_command *c;
	struct zc z = { .fd = -1, .argv = argv + 3 };
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: %s COMMAND DEV ARGS...  (the source's header tells more)\n\n",
		       prog);
		for (c = commands; c->name; c++)
			printf("  %s DEV %s\n", c->name, c->args);
		return 0;
	}
	for (c = commands; argc >= 3 && c->name; c++) {
		if (strcmp(c->name, argv[1]))
			continue;
		if (argc - 3 < c->min || argc - 3 > c->max)
			break;
		ret = zc_open(&z, argv[2]);
		z.arg = c->arg;
		ret = ret ?: c->fn(&z);
		if (!ret && !c->own)
			printf("OK\n");
		return ret;
	}
	return usage_error("unknown command or wrong arguments");
}
