// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-test - small multi-command tool for the udmabuf-cfs guest tests.
 *
 * Every "-try" command performs one system call and prints its outcome on
 * stdout: "OK" (or a number, where the call returns one) on success, the
 * errno's symbolic name (EINVAL, EBUSY, ...) on failure, so that a test can
 * assert the exact errno instead of matching strerror() text.  The fill and
 * verify commands store and check the pattern of udmabuf-helpers.h.
 *
 * The commands and their arguments are in the table at the end (--help
 * prints it); what is not plain from the name is said above each command's
 * function.  Numbers accept decimal, 0x hex and K/M/G suffixes; --sync
 * opens with O_SYNC, --dsync with O_DSYNC; DEV may be fd:N, a descriptor
 * passed down (its access mode then applies).  Exit statuses: those of
 * udmabuf-helpers.h.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <regex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/dm-ioctl.h>
#include <linux/netlink.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>

static const char *prog = "udmabuf-test";

#include "udmabuf-helpers.h"

/* ---- argument parsing ---- */

struct opts {
	int sync;	/* O_SYNC */
	int dsync;	/* O_DSYNC */
	int no_map;
	int close_fd;
	int no_fill;
};

static const struct flag opt_flags[] = {
	FLAG("--sync", sync),
	FLAG("--dsync", dsync),
	FLAG("--no-map", no_map),
	FLAG("--close-fd", close_fd),
	FLAG("--no-fill", no_fill),
	{ NULL, 0 },
};

static int open_flags(const struct opts *o, int base)
{
	int flags = base | O_CLOEXEC;

	if (o->sync)
		flags |= O_SYNC;
	if (o->dsync)
		flags |= O_DSYNC;
	return flags;
}

static int parse_access(const char *s, int *acc)
{
	if (!strcmp(s, "rdonly"))
		*acc = O_RDONLY;
	else if (!strcmp(s, "wronly"))
		*acc = O_WRONLY;
	else if (!strcmp(s, "rdwr"))
		*acc = O_RDWR;
	else
		return -1;
	return 0;
}

/* ---- commands ---- */

static int cmd_write_attr(int argc, char **argv)
{
	ssize_t w;
	size_t len;
	int fd;

	if (argc != 2)
		return bad_args();
	fd = open(argv[0], O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return report_setup_errno("open", argv[0], errno);
	len = strlen(argv[1]);
	w = write(fd, argv[1], len);
	if (w < 0)
		return outcome(w, fd);
	if (close(fd) < 0)
		return report_errno(errno);
	if ((size_t)w != len) {
		printf("SHORT write: %zd of %zu bytes\n", w, len);
		return EXIT_SYSCALL;
	}
	return print_ok();
}

static int cmd_open_try(int argc, char **argv)
{
	struct opts o;
	int n = split_flags(argc, argv, opt_flags, &o, sizeof(o));
	int acc = O_RDWR, fd;

	if (n < 0)
		return EXIT_USAGE;
	if (n < 1 || n > 2 || (n == 2 && parse_access(argv[1], &acc)))
		return bad_args();
	fd = open_dev_arg(argv[0], open_flags(&o, acc));
	return outcome(fd, fd);
}

/*
 * mmap-try: open DEV with ACCESS (default rdwr), map the range with TYPE
 * and PROT (default shared, rw) and touch its first and last word.  A
 * refused open is printed as an outcome too.
 */
static int cmd_mmap_try(int argc, char **argv)
{
	struct opts o;
	int n = split_flags(argc, argv, opt_flags, &o, sizeof(o));
	int flags = MAP_SHARED, prot = PROT_READ | PROT_WRITE, acc = O_RDWR;
	uint64_t off, len;
	int fd;
	void *p;

	if (n < 0)
		return EXIT_USAGE;
	if ((n != 3 && n != 4 && n != 6) || parse_u64(argv[1], &off) ||
	    parse_u64(argv[2], &len) || (n == 6 && parse_access(argv[4], &acc)))
		return bad_args();
	if (n >= 4 && !strcmp(argv[3], "private"))
		flags = MAP_PRIVATE;
	else if (n >= 4 && strcmp(argv[3], "shared"))
		return usage_error("bad mapping type '%s'", argv[3]);
	if (n == 6 && !strcmp(argv[5], "r"))
		prot = PROT_READ;
	else if (n == 6 && !strcmp(argv[5], "w"))
		prot = PROT_WRITE;
	else if (n == 6 && strcmp(argv[5], "rw"))
		return usage_error("bad protection '%s'", argv[5]);
	fd = open_dev_arg(argv[0], open_flags(&o, acc));
	if (fd < 0)
		return report_errno(errno);
	p = mmap(NULL, (size_t)len, prot, flags, fd, (off_t)off);
	if (p == MAP_FAILED)
		return outcome(-1, fd);
	/* Fault in the first and the last page. */
	if (prot & PROT_READ) {
		(void)*(volatile uint64_t *)p;
		if (len >= 8)
			(void)*(volatile uint64_t *)((volatile uint8_t *)p +
						     ((len - 8) & ~(uint64_t)7));
	}
	munmap(p, (size_t)len);
	return outcome(0, fd);
}

static int cmd_lseek_try(int argc, char **argv)
{
	int64_t off;
	int whence, fd;
	off_t r;

	if (argc != 3 || parse_s64(argv[1], &off))
		return bad_args();
	if (!strcmp(argv[2], "set"))
		whence = SEEK_SET;
	else if (!strcmp(argv[2], "end"))
		whence = SEEK_END;
	else
		return usage_error("bad whence '%s'", argv[2]);
	fd = open_dev_arg(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report_setup_errno("open", argv[0], errno);
	r = lseek(fd, (off_t)off, whence);
	if (r < 0)
		return outcome(r, fd);
	close(fd);
	printf("%lld\n", (long long)r);
	return 0;
}

/* pread(2), or (arg 1) pwrite(2) of zeros: the count it returns. */
static int cmd_prw_try(int argc, char **argv)
{
	int write_it = this_command->arg;
	uint64_t off, len;
	uint8_t *buf;
	ssize_t r;
	int fd;

	if (argc != 3 || parse_u64(argv[1], &off) || parse_u64(argv[2], &len) ||
	    len > 256 * 1024 * 1024)
		return bad_args();
	buf = calloc(1, len ? (size_t)len : 1);
	if (!buf)
		return report_setup_errno("calloc", "", ENOMEM);
	fd = open_dev_arg(argv[0], (write_it ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return report_setup_errno("open", argv[0], errno);
	}
	if (write_it)
		r = pwrite(fd, buf, (size_t)len, (off_t)off);
	else
		r = pread(fd, buf, (size_t)len, (off_t)off);
	if (r < 0)
		return outcome(r, fd);
	close(fd);
	free(buf);
	printf("%zd\n", r);
	return 0;
}

/* One call on the name ARGV[0]: mkdir (arg 'm'), rmdir ('r') or rmmod. */
static int cmd_name_try(int argc, char **argv)
{
	int op = this_command->arg;

	if (argc != 1)
		return bad_args();
	return outcome(op == 'm' ? mkdir(argv[0], 0755) :
		       op == 'r' ? rmdir(argv[0]) :
		       syscall(SYS_delete_module, argv[0], O_NONBLOCK), -1);
}

/* finit_module(2) of MODULE.ko with the parameters, one string. */
static int cmd_insmod_try(int argc, char **argv)
{
	static char params[4096];
	size_t used = 0;
	int i, fd;

	for (i = 1; i < argc && used < sizeof(params); i++)
		used += (size_t)snprintf(params + used, sizeof(params) - used,
					 "%s%s", i > 1 ? " " : "", argv[i]);
	if (argc < 1 || used >= sizeof(params))
		return bad_args();
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report_setup_errno("open", argv[0], errno);
	return outcome(syscall(SYS_finit_module, fd, params, 0), fd);
}

/*
 * /dev/kmsg records: "PRIO,SEQ,USEC,FLAGS[,...];MESSAGE\n" followed by
 * optional continuation lines starting with a space.  One record per read.
 */
static int kmsg_walk(int64_t after, int print, const regex_t *match,
		     int64_t *lastp, int usec)
{
	char rec[8192];
	int64_t last = -1;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return report_setup_errno("open", "/dev/kmsg", errno);
	for (;;) {
		ssize_t r = read(fd, rec, sizeof(rec) - 1);
		unsigned long long seq, us;
		char *msg, *nl;

		if (r < 0) {
			if (errno == EPIPE)	/* overwritten while reading: go on */
				continue;
			if (errno == EAGAIN)
				break;
			close(fd);
			return report_setup_errno("read", "/dev/kmsg", errno);
		}
		if (r == 0)
			break;
		rec[r] = '\0';
		if (sscanf(rec, "%*u,%llu,%llu", &seq, &us) != 2)
			continue;
		last = (int64_t)seq;
		if (!print || (int64_t)seq <= after)
			continue;
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		if (match && regexec(match, msg, 0, NULL, 0) != 0)
			continue;
		if (usec)
			printf("%llu ", us);
		printf("%s\n", msg);
	}
	close(fd);
	if (lastp)
		*lastp = last;
	else if (!print)
		printf("%" PRId64 "\n", last);
	return 0;
}

/* A number without arguments: the page size, or (arg 1) the last record's. */
static int cmd_number(int argc, char **argv)
{
	(void)argv;
	if (argc != 0)
		return bad_args();
	if (this_command->arg)
		return kmsg_walk(0, 0, NULL, NULL, 0);
	printf("%ld\n", sysconf(_SC_PAGESIZE));
	return 0;
}

static int cmd_kmsg_since(int argc, char **argv)
{
	int usec = argc == 2 && !strcmp(argv[0], "-t");
	int64_t seq;

	if (argc != 1 + usec || parse_s64(argv[usec], &seq))
		return bad_args();
	return kmsg_walk(seq, 1, NULL, NULL, usec);
}

/*
 * The per-test kernel log check of the bats helpers in one process: the
 * records after SEQ that match REGEX, and the mark for the next test.
 */
static int cmd_kmsg_check(int argc, char **argv)
{
	int64_t seq, last;
	regex_t re;
	FILE *f;
	int rc;

	if (argc != 3 || parse_s64(argv[0], &seq))
		return bad_args();
	if (regcomp(&re, argv[1], REG_EXTENDED | REG_NOSUB))
		return usage_error("kmsg-check: bad regular expression");
	rc = kmsg_walk(seq, 1, &re, &last, 0);
	regfree(&re);
	if (rc)
		return rc;
	f = fopen(argv[2], "w");
	if (!f || fprintf(f, "%" PRId64 "\n", last) < 0 || fclose(f))
		return report_setup_errno("write", argv[2], errno);
	return 0;
}

/* Does the uevent in MSG (LEN bytes of NUL-separated strings) add NAME? */
static int uevent_adds(const char *msg, ssize_t len, const char *name)
{
	int add = 0, ours = 0, dev = 0;
	ssize_t off;

	for (off = 0; off < len; off += strlen(msg + off) + 1) {
		const char *kv = msg + off;

		if (!strcmp(kv, "ACTION=add"))
			add = 1;
		else if (!strcmp(kv, "SUBSYSTEM=udmabuf"))
			ours = 1;
		else if (!strncmp(kv, "DEVNAME=", 8) && !strcmp(kv + 8, name))
			dev = 1;
	}
	return add && ours && dev;
}

/*
 * uevent-open NAME ENABLE: like a udev rule, open /dev/NAME as soon as the
 * kernel announces it.  A child writes 1 to ENABLE; this process listens
 * to kernel uevents with real-time priority on the child's CPU, so that it
 * runs the moment the announcement is sent, before enable has returned.
 */
static int cmd_uevent_open(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct sched_param sp = { .sched_priority = 10 };
	char msg[8192], path[256];
	cpu_set_t cpu0;
	int sock, fd, status, ret;
	pid_t child;
	ssize_t len;

	if (argc != 2)
		return bad_args();
	snprintf(path, sizeof(path), "/dev/%s", argv[0]);
	sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
		      NETLINK_KOBJECT_UEVENT);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return report_setup_errno("netlink", "uevent", errno);
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) < 0)
		return report_setup_errno("sched_setaffinity", "0", errno);

	child = fork();
	if (child < 0)
		return report_setup_errno("fork", "", errno);
	if (!child)
		_exit(write_file(argv[1], "1") ? 1 : 0);
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		return report_setup_errno("sched_setscheduler", "FIFO", errno);

	for (;;) {
		len = recv(sock, msg, sizeof(msg) - 1, 0);
		if (len < 0)
			return report_setup_errno("recv", "uevent", errno);
		msg[len] = '\0';
		if (uevent_adds(msg, len, argv[0]))
			break;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	ret = outcome(fd, fd);
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "%s: writing 1 to %s failed\n", prog, argv[1]);
		return EXIT_SYSCALL;
	}
	return ret;
}

/* Wait for a stop signal. */
static int wait_for_stop(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	return sigwait(&set, &sig) ? -1 : 0;
}

/* What a pattern command does (its arg), in this order. */
enum {
	P_MAP = 1,	/* through a mapping, else pwrite(2)/pread(2) */
	P_FILL = 2,	/* store the pattern */
	P_WAIT = 4,	/* print "ready", wait for a stop signal */
	P_CHECK = 8,	/* check the pattern */
};

/*
 * The pattern commands: fill or check the range through a mapping
 * (mmap-fill, mmap-verify) or the file (write-fill, read-verify), each
 * printing OK.  hold opens (and maps unless --no-map) the range, fills it
 * (unless --no-fill), prints "ready", waits for SIGUSR1/SIGTERM/SIGHUP/
 * SIGINT, then checks the range and prints "intact".  --close-fd closes
 * the file (with fd:N, N too) once mapped: only the mapping keeps it.  A
 * mismatch is exit 2 and its line.
 */
static int cmd_pattern(int argc, char **argv)
{
	int what = this_command->arg;
	struct opts o;
	int n = split_flags(argc, argv, opt_flags, &o, sizeof(o));
	uint64_t off, len, seed;
	volatile uint8_t *map = NULL;
	int acc, fd, rc = 0;

	if (n < 0)
		return EXIT_USAGE;
	if (n != 4 || parse_u64(argv[1], &off) || parse_u64(argv[2], &len) ||
	    parse_u64(argv[3], &seed) || (o.no_map && o.close_fd))
		return bad_args();
	if (o.no_map)
		what &= ~P_MAP;
	acc = (what & P_MAP) || (what & P_FILL && what & P_CHECK) ? O_RDWR :
	      what & P_FILL ? O_WRONLY : O_RDONLY;
	if (o.no_fill)
		what &= ~P_FILL;
	fd = open_dev_arg(argv[0], open_flags(&o, acc));
	if (fd < 0)
		return report_setup_errno("open", argv[0], errno);
	if (what & P_MAP) {
		map = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, (off_t)off);
		if (map == MAP_FAILED)
			return outcome(-1, fd);
	}
	if (what & P_FILL && map)
		map_fill(map, off, len, seed);
	else if (what & P_FILL)
		rc = fd_pattern(fd, FD_FILL, off, len, seed, NULL);
	if (map && o.close_fd) {
		close(fd);
		fd = -1;
		if (!strncmp(argv[0], "fd:", 3))
			close(atoi(argv[0] + 3));
	}
	if (!rc && what & P_WAIT) {
		printf("ready\n");
		if (wait_for_stop() < 0)
			rc = report_setup_errno("wait", "signal", errno);
	}
	if (!rc && what & P_CHECK)
		rc = map ? map_check(map, off, len, seed, NULL) :
			   fd_pattern(fd, FD_CHECK, off, len, seed, NULL);
	if (map)
		munmap((void *)map, (size_t)len);
	if (fd >= 0)
		close(fd);
	if (!rc)
		printf(what & P_WAIT ? "intact\n" : "OK\n");
	return rc;
}

/* ---- where the mapping is: /proc/self/pagemap, not the driver's word ---- */

#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)

/* The frame behind the mapped page at P (root: pagemap shows frames). */
static int page_frame(int pm, const void *p, long page, uint64_t *pfn)
{
	uint64_t e;
	off_t at = (off_t)((uintptr_t)p / (uintptr_t)page * sizeof(e));

	if (pread(pm, &e, sizeof(e), at) != (ssize_t)sizeof(e))
		return -1;
	if (!(e & PM_PRESENT) || !(e & PM_PFN_MASK)) {
		errno = ENXIO;
		return -1;
	}
	*pfn = e & PM_PFN_MASK;
	return 0;
}

/*
 * mmap-phys: map a range read-only, touch every page, and check through
 * pagemap that the frames are consecutive.  Prints the physical address of
 * the first page; exit 2 at the first page out of line.
 */
static int cmd_mmap_phys(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t off, len, i, first = 0, pfn;
	volatile const uint8_t *p;
	int fd, pm, rc = 0;

	if (argc != 3 || parse_u64(argv[1], &off) || parse_u64(argv[2], &len) ||
	    !len || len % (uint64_t)page || off % (uint64_t)page)
		return bad_args();
	fd = open_dev_arg(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report_setup_errno("open", argv[0], errno);
	p = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	close(fd);
	if (p == MAP_FAILED)
		return report_errno(errno);
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm < 0)
		return report_setup_errno("open", "/proc/self/pagemap", errno);
	for (i = 0; i < len; i += (uint64_t)page) {
		(void)p[i];
		if (page_frame(pm, (const void *)(p + i), page, &pfn)) {
			rc = report_setup_errno("pagemap", argv[0], errno);
			break;
		}
		if (!i) {
			first = pfn;
		} else if (pfn != first + i / (uint64_t)page) {
			printf("page at +0x%" PRIx64 " is frame 0x%" PRIx64 ", not 0x%" PRIx64 "\n",
			       i, pfn, first + i / (uint64_t)page);
			rc = EXIT_MISMATCH;
			break;
		}
	}
	close(pm);
	munmap((void *)p, (size_t)len);
	if (!rc)
		printf("0x%016" PRIx64 "\n", first * (uint64_t)page);
	return rc;
}

/*
 * ---- access checks ----
 * A refused open(2) is an outcome here, not a setup error.
 */

/* open(2) read-only and read(2) to the end. */
static int cmd_read_try(int argc, char **argv)
{
	char buf[4096];
	ssize_t r;
	int fd;

	if (argc != 1)
		return bad_args();
	fd = open_dev_arg(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report_errno(errno);
	do
		r = read(fd, buf, sizeof(buf));
	while (r > 0);
	return outcome(r, fd);
}

static int cmd_chmod_try(int argc, char **argv)
{
	unsigned long mode;
	char *end;

	if (argc != 2)
		return bad_args();
	errno = 0;
	mode = strtoul(argv[1], &end, 8);
	if (errno || end == argv[1] || *end || mode > 07777)
		return usage_error("chmod-try: bad mode '%s'", argv[1]);
	return outcome(chmod(argv[0], (mode_t)mode), -1);
}

/* ---- device-mapper: a delay target; the guest has no dmsetup ---- */

#define DM_BUF_SIZE	4096

/* The header of a device-mapper request: what every command starts with. */
static struct dm_ioctl *dm_request(void *buf, const char *name)
{
	struct dm_ioctl *io = buf;

	memset(buf, 0, DM_BUF_SIZE);
	io->version[0] = DM_VERSION_MAJOR;	/* minor and patch level 0 */
	io->data_size = DM_BUF_SIZE;
	io->data_start = sizeof(*io);
	snprintf(io->name, sizeof(io->name), "%s", name);
	return io;
}

static int dm_call(int ctl, unsigned long req, struct dm_ioctl *io,
		   const char *what)
{
	if (ioctl(ctl, req, io) == 0)
		return 0;
	return report_setup_errno(what, io->name, errno);
}

static int cmd_dm_delay(int argc, char **argv)
{
	static uint64_t buf[DM_BUF_SIZE / sizeof(uint64_t)];
	struct dm_target_spec *spec;
	uint64_t ms, dev;
	struct dm_ioctl *io;
	struct stat st;
	int blk, ctl, ret;
	off_t end;

	if (argc != 3 || parse_u64(argv[2], &ms))
		return bad_args();
	/* The block device: the target covers all of it. */
	blk = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (blk < 0)
		return report_setup_errno("open", argv[1], errno);
	end = fstat(blk, &st) ? -1 : lseek(blk, 0, SEEK_END);
	close(blk);
	if (!S_ISBLK(st.st_mode) || end <= 0) {
		fprintf(stderr, "%s: %s is not a block device with data\n",
			prog, argv[1]);
		return EXIT_USAGE;
	}
	ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return report_setup_errno("open", "/dev/mapper/control", errno);

	io = dm_request(buf, argv[0]);
	ret = dm_call(ctl, DM_DEV_CREATE, io, "DM_DEV_CREATE");
	if (ret)
		goto out;

	/* One target over the whole device: "delay MAJ:MIN 0 MS". */
	io = dm_request(buf, argv[0]);
	io->target_count = 1;
	spec = (struct dm_target_spec *)(io + 1);
	spec->sector_start = 0;
	spec->length = (uint64_t)end / 512;
	snprintf(spec->target_type, sizeof(spec->target_type), "delay");
	snprintf((char *)(spec + 1),
		 DM_BUF_SIZE - sizeof(*io) - sizeof(*spec),
		 "%u:%u 0 %" PRIu64, major(st.st_rdev), minor(st.st_rdev), ms);
	ret = dm_call(ctl, DM_TABLE_LOAD, io, "DM_TABLE_LOAD");
	if (ret)
		goto remove;

	/* Resuming a device without a live table makes the loaded one live. */
	io = dm_request(buf, argv[0]);
	ret = dm_call(ctl, DM_DEV_SUSPEND, io, "DM_DEV_SUSPEND (resume)");
	if (ret)
		goto remove;

	/* The kernel names the disk dm-MINOR (io->dev is huge_encode_dev()). */
	dev = io->dev;
	printf("/dev/dm-%u\n", (unsigned int)((dev & 0xff) | ((dev >> 12) & 0xfff00)));
	close(ctl);
	return 0;

remove:
	io = dm_request(buf, argv[0]);
	ioctl(ctl, DM_DEV_REMOVE, io);
out:
	close(ctl);
	return ret;
}

static int cmd_dm_remove(int argc, char **argv)
{
	static uint64_t buf[DM_BUF_SIZE / sizeof(uint64_t)];
	int ctl, ret;

	if (argc != 1)
		return bad_args();
	ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return report_setup_errno("open", "/dev/mapper/control", errno);
	ret = dm_call(ctl, DM_DEV_REMOVE, dm_request(buf, argv[0]),
		      "DM_DEV_REMOVE");
	close(ctl);
	return ret ?: print_ok();
}

/*
 * pin-scatter SIZE STRIDE CMD: SIZE bytes of anonymous memory, every page
 * touched, one page in each STRIDE vmspliced into a pipe (a page reference
 * that migration cannot move: alloc_contig_range() fails on a range with
 * one), while CMD runs with sh -c.  Prints the number of pages held, then
 * exits with CMD's status.
 */
static int cmd_pin_scatter(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t size, stride, off, held = 0;
	int pipes[512][2], np = 0, slots = 0, status;
	unsigned char *map;
	size_t i;

	if (argc != 3 || parse_u64(argv[0], &size) || parse_u64(argv[1], &stride) ||
	    !size || stride < (uint64_t)page || stride % page)
		return bad_args();
	map = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return report_setup_errno("mmap", "anonymous", errno);
	/* Small pages: a huge one would hold 2 MiB where one page is meant. */
	madvise(map, size, MADV_NOHUGEPAGE);
	for (i = 0; i < size; i += page)
		map[i] = (unsigned char)i | 1;
	for (off = 0; off < size; off += stride) {
		struct iovec iov = { map + off, (size_t)page };

		if (!slots) {
			if (np == 512)
				return report_setup_errno("pipe", "pin-scatter", EMFILE);
			if (pipe(pipes[np]))
				return report_setup_errno("pipe", "pin-scatter", errno);
			slots = fcntl(pipes[np][1], F_SETPIPE_SZ, 256 * page);
			slots = slots > 0 ? slots / page : 16;
			np++;
		}
		if (vmsplice(pipes[np - 1][1], &iov, 1, 0) != page)
			return report_setup_errno("vmsplice", "pin-scatter", errno);
		held++;
		slots--;
	}
	printf("%" PRIu64 "\n", held);
	fflush(stdout);
	status = system(argv[2]);
	if (status == -1 || !WIFEXITED(status))
		return EXIT_SYSCALL;
	return WEXITSTATUS(status);
}

static const struct command commands[] = {
	/* Outcome commands: print OK, a number, or the errno name. */
	{ "write-attr", "FILE VALUE  (one write(2), no newline added)",
	  cmd_write_attr, 0 },
	{ "open-try", "DEV [rdonly|wronly|rdwr] [--sync|--dsync]", cmd_open_try, 0 },
	{ "mmap-try", "DEV OFFSET LENGTH [shared|private [rdonly|wronly|rdwr r|w|rw]] [--sync]",
	  cmd_mmap_try, 0 },
	{ "lseek-try", "DEV OFFSET set|end", cmd_lseek_try, 0 },
	{ "pread-try", "DEV OFFSET LENGTH", cmd_prw_try, 0 },
	{ "pwrite-try", "DEV OFFSET LENGTH", cmd_prw_try, 1 },
	{ "mkdir-try", "PATH", cmd_name_try, 'm' },
	{ "rmdir-try", "PATH", cmd_name_try, 'r' },
	{ "insmod-try", "MODULE.ko [PARAM=VALUE...]", cmd_insmod_try, 0 },
	{ "rmmod-try", "MODULE_NAME  (delete_module(2), O_NONBLOCK)", cmd_name_try, 0 },
	{ "read-try", "FILE", cmd_read_try, 0 },
	{ "chmod-try", "PATH OCTAL_MODE", cmd_chmod_try, 0 },
	{ "mmap-phys", "DEV OFFSET LENGTH", cmd_mmap_phys, 0 },
	/* The pattern: OK, or exit 2 and the first mismatch. */
	{ "mmap-fill", "DEV OFFSET LENGTH SEED [--sync]", cmd_pattern, P_MAP | P_FILL },
	{ "mmap-verify", "DEV OFFSET LENGTH SEED [--sync]", cmd_pattern, P_MAP | P_CHECK },
	{ "write-fill", "DEV OFFSET LENGTH SEED", cmd_pattern, P_FILL },
	{ "read-verify", "DEV OFFSET LENGTH SEED", cmd_pattern, P_CHECK },
	{ "hold", "DEV OFFSET LENGTH SEED [--sync] [--no-map] [--close-fd] [--no-fill]",
	  cmd_pattern, P_MAP | P_FILL | P_WAIT | P_CHECK },
	/* Other */
	{ "pagesize", "", cmd_number, 0 },
	{ "kmsg-seq", "", cmd_number, 1 },
	{ "kmsg-since", "[-t] SEQ", cmd_kmsg_since, 0 },
	{ "kmsg-check", "SEQ REGEX FILE", cmd_kmsg_check, 0 },
	{ "uevent-open", "NAME ENABLE_FILE", cmd_uevent_open, 0 },
	{ "dm-delay", "NAME BLOCKDEV MS", cmd_dm_delay, 0 },
	{ "dm-remove", "NAME", cmd_dm_remove, 0 },
	{ "pin-scatter", "SIZE STRIDE CMD", cmd_pin_scatter, 0 },
	{ NULL },
};

int main(int argc, char **argv)
{
	return command_main(commands, argc, argv);
}
