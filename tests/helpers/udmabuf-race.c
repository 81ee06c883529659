// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-race - several programs asking for a buffer at the same moment,
 * for the guest tests (tests/bats/concurrent.bats).
 *
 *   udmabuf-race alloc N SIZE ROUNDS [--allocator N]
 *       N processes each ask /dev/udmabuf-cfs for a SIZE buffer at once,
 *       hold it until all have answered, then free it; ROUNDS times
 *   udmabuf-race enable ROUNDS ITEM...
 *       one process per configfs item writes 1 to ITEM/enable at once;
 *       once all have answered, each enabled item is disabled again
 *   udmabuf-race splice-hold SIZE KEEP [--allocator N]
 *       a process-scoped buffer of SIZE, filled, its first KEEP bytes
 *       spliced into a pipe (vmsplice), then unmapped and closed: prints
 *       "held" and waits for a line on stdin; then reads the pipe, checks
 *       the bytes and prints "drained"; exits at the next line or EOF
 *
 * The processes are started first and wait on one pipe, which is closed to
 * let them all go.  Each round prints "round R: G of N granted" followed by
 * the errno of each refusal; the last line is "granted G of T".
 *
 * Exit status: 0 every request granted, 1 some refused, 2 a setup step
 * failed, 64 usage error.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define EXIT_REFUSED	1
#define EXIT_SYSCALL	EXIT_REFUSED	/* for udmabuf-helpers.h */
#define EXIT_SETUP	2
#define EXIT_USAGE	64

#define MISC_DEV	"/dev/udmabuf-cfs"
#define MAX_RACERS	64
#define SEED		13

static const char *prog = "udmabuf-race";

#include "udmabuf-helpers.h"

struct race {
	int n;			/* racers */
	uint64_t size;		/* alloc */
	uint32_t allocator;	/* alloc */
	char **items;		/* enable */
};

/* A process-scoped buffer of SIZE from ALLOCATOR: its fd, or -errno. */
static int alloc_buffer(uint64_t size, uint32_t allocator)
{
	struct udmabuf_cfs_alloc req = {
		.size = size, .flags = O_RDWR | O_CLOEXEC, .allocator = allocator,
	};
	int dev = open(MISC_DEV, O_RDWR | O_CLOEXEC), err;

	if (dev < 0)
		return -errno;
	err = ioctl(dev, UDMABUF_CFS_IOC_ALLOC, &req) ? errno : 0;
	close(dev);
	return err ? -err : req.fd;
}

/* One racer's request: 0 or the errno.  The buffer stays open. */
static int request(const struct race *r, int i)
{
	char path[4096];
	int fd;

	if (!r->items) {
		fd = alloc_buffer(r->size, r->allocator);
		return fd < 0 ? -fd : 0;
	}
	snprintf(path, sizeof(path), "%s/enable", r->items[i]);
	return write_file(path, "1");
}

/*
 * A racer: wait for the start, ask, say the outcome, keep what it got
 * until the parent closes @hold.  Process-scoped buffers go with it.
 */
static void racer(const struct race *r, int i, int start, int out, int hold)
{
	char c;
	int err;

	if (read(start, &c, 1) < 0)
		_exit(EXIT_SETUP);
	err = request(r, i);
	if (write(out, &err, sizeof(err)) != sizeof(err))
		_exit(EXIT_SETUP);
	if (read(hold, &c, 1) < 0)
		_exit(EXIT_SETUP);
	_exit(0);
}

/* One round; the number granted, or -1 if a step of the test failed. */
static int round_run(const struct race *r, int round)
{
	int start[2], out[2], hold[2], errs[MAX_RACERS];
	int i, granted = 0, failed = 0, status;
	pid_t pids[MAX_RACERS];

	if (pipe2(start, O_CLOEXEC) || pipe2(out, O_CLOEXEC) ||
	    pipe2(hold, O_CLOEXEC))
		return -1;
	for (i = 0; i < r->n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (!pids[i]) {
			close(start[1]);
			close(out[0]);
			close(hold[1]);
			racer(r, i, start[0], out[1], hold[0]);
		}
	}
	close(start[0]);
	close(out[1]);
	close(hold[0]);
	/* Every racer is blocked in read(): go. */
	close(start[1]);
	for (i = 0; i < r->n; i++) {
		if (read(out[0], &errs[i], sizeof(errs[i])) != sizeof(errs[i]))
			return -1;
		if (!errs[i])
			granted++;
	}
	close(out[0]);
	printf("round %d: %d of %d granted", round, granted, r->n);
	for (i = 0; i < r->n; i++)
		if (errs[i])
			printf(" %s", errno_name(errs[i]));
	printf("\n");
	close(hold[1]);
	for (i = 0; i < r->n; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	/* Which racer got which item does not matter: disable them all. */
	for (i = 0; r->items && i < r->n; i++) {
		char path[4096];
		int err;

		snprintf(path, sizeof(path), "%s/enable", r->items[i]);
		err = write_file(path, "0");
		if (err && err != EINVAL)
			failed = 1;
	}
	return failed ? -1 : granted;
}

static int wait_line(void)
{
	char line[64];

	return fgets(line, sizeof(line), stdin) ? 0 : -1;
}

/* ARGV[N..] is nothing, or --allocator and its number into *ALLOC. */
static int allocator_arg(int argc, char **argv, int n, uint32_t *alloc)
{
	*alloc = 0;
	return argc != n && (argc != n + 2 || strcmp(argv[n], "--allocator") ||
			     parse_u32(argv[n + 1], alloc));
}

static int cmd_splice_hold(int argc, char **argv)
{
	uint64_t size, keep;
	unsigned char *map, *copy;
	struct iovec iov;
	size_t got = 0;
	uint32_t alloc;
	int fd, p[2];
	ssize_t n;

	if (argc < 2 || parse_u64(argv[0], &size) || parse_u64(argv[1], &keep) ||
	    !keep || keep > size || allocator_arg(argc, argv, 2, &alloc))
		return bad_args();
	fd = alloc_buffer(size, alloc);
	if (fd < 0)
		return report_errno(-fd);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return report_setup_errno("mmap", "buffer", errno);
	map_fill(map, 0, keep, SEED);
	if (pipe2(p, O_CLOEXEC))
		return report_setup_errno("pipe", "", errno);
	if (fcntl(p[1], F_SETPIPE_SZ, (int)keep) < 0)
		return report_setup_errno("F_SETPIPE_SZ", argv[1], errno);
	iov.iov_base = map;
	iov.iov_len = keep;
	n = vmsplice(p[1], &iov, 1, SPLICE_F_NONBLOCK);
	if (n != (ssize_t)keep)
		return report_setup_errno("vmsplice", argv[1],
					  n < 0 ? errno : EAGAIN);
	munmap(map, size);
	close(fd);
	printf("held\n");
	wait_line();
	copy = malloc(keep);
	if (!copy)
		return report_setup_errno("malloc", argv[1], ENOMEM);
	while (got < keep) {
		n = read(p[0], copy + got, keep - got);
		if (n <= 0)
			return report_setup_errno("read", "pipe", n ? errno : EIO);
		got += n;
	}
	if (map_check(copy, 0, keep, SEED, "the pipe"))
		return EXIT_REFUSED;
	close(p[0]);
	close(p[1]);
	printf("drained\n");
	wait_line();
	return 0;
}

/* The rounds of R: the last line says how many were granted. */
static int race(struct race *r, uint32_t rounds)
{
	int total = 0, g;
	uint32_t i;

	for (i = 1; i <= rounds; i++) {
		g = round_run(r, i);
		if (g < 0) {
			fprintf(stderr, "%s: round %u: %s\n", prog, i,
				strerror(errno));
			return EXIT_SETUP;
		}
		total += g;
	}
	printf("granted %d of %d\n", total, (int)rounds * r->n);
	return total == (int)rounds * r->n ? 0 : EXIT_REFUSED;
}

static int cmd_alloc(int argc, char **argv)
{
	struct race r = { 0 };
	uint32_t n, rounds;

	if (argc < 3 || parse_u32(argv[0], &n) || !n || n > MAX_RACERS ||
	    parse_u64(argv[1], &r.size) || parse_u32(argv[2], &rounds) ||
	    allocator_arg(argc, argv, 3, &r.allocator))
		return bad_args();
	r.n = n;
	return race(&r, rounds);
}

static int cmd_enable(int argc, char **argv)
{
	struct race r = { .n = argc - 1, .items = argv + 1 };
	uint32_t rounds;

	if (argc < 2 || argc - 1 > MAX_RACERS || parse_u32(argv[0], &rounds))
		return bad_args();
	return race(&r, rounds);
}

static const struct command commands[] = {
	{ "alloc", "N SIZE ROUNDS [--allocator N]", cmd_alloc, 0 },
	{ "enable", "ROUNDS ITEM...", cmd_enable, 0 },
	{ "splice-hold", "SIZE KEEP [--allocator N]", cmd_splice_hold, 0 },
	{ NULL },
};

int main(int argc, char **argv)
{
	return command_main(commands, argc, argv);
}
