// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-proc - process-scoped buffers from /dev/udmabuf-cfs, for the
 * guest tests (tests/bats/process.bats, users.bats).
 *
 * "alloc" is an outcome command: it prints OK or the errno's symbolic name.
 * "run" allocates and then executes another command with the descriptor,
 * so that the other helpers (which take "fd:N" for a device) act on the
 * buffer; "send" and "recv" hand a descriptor over a unix socket
 * (SCM_RIGHTS) before executing the rest of their command line.
 *
 * Exit status: 0 success, 1 the call under test failed, 64 usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <linux/udmabuf-cfs.h>

#define EXIT_SYSCALL	1
#define EXIT_USAGE	64

#define MISC_DEV	"/dev/udmabuf-cfs"

static const char *prog = "udmabuf-proc";

/* Only the errno names, open_dev_arg() and pattern_word() are used here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#define UDMABUF_HELPERS_PARSE
#include "udmabuf-helpers.h"
#pragma GCC diagnostic pop

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s COMMAND ARGS...\n"
"\n"
"  alloc SIZE [OPTIONS]      UDMABUF_CFS_IOC_ALLOC, then close the buffer; prints OK\n"
"                            or the errno\n"
"  run SIZE [OPTIONS] -- CMD ARGS...\n"
"                            allocate, then exec CMD with every \"{}\" in ARGS\n"
"                            (\"{}\", \"fd:{}\") replaced by the buffer's descriptor\n"
"                            number\n"
"  send SOCKET FD -- CMD ARGS...\n"
"                            send descriptor FD over the unix socket SOCKET\n"
"                            (SCM_RIGHTS, retrying the connection for 10 s), then\n"
"                            exec CMD as run does\n"
"  recv SOCKET -- CMD ARGS...\n"
"                            listen on SOCKET, receive one descriptor, exec CMD\n"
"  export FD -- CMD ARGS...  export buffer FD whole as a read-write dma-buf,\n"
"                            close FD, exec CMD with \"{}\" the dma-buf's descriptor\n"
"  map-hold FD SIZE SEED      mmap FD (MAP_SHARED), close it, print \"ready\", wait\n"
"                            for SIGUSR1, then check the SEED pattern through the\n"
"                            mapping: prints \"intact\" (exit 0) or the first\n"
"                            mismatch (exit 2)\n"
"  ioctl info|sync|export [--dev DEV]\n"
"                            a buffer's ioctl on DEV (default " MISC_DEV "),\n"
"                            zeroed argument; prints OK or the errno\n"
"  getfd PID FD              take descriptor FD of process PID (pidfd_open,\n"
"                            pidfd_getfd: what ptrace would allow); prints OK or\n"
"                            the errno of the first call that fails\n"
"\n"
"OPTIONS of alloc and run:\n"
"  --dev DEV                 the node to ask (default " MISC_DEV "; fd:N accepted)\n"
"  --flags N                 flags (default O_RDWR | O_CLOEXEC); --rdonly, --wronly\n"
"  --sync-mode N --dma-bits N --allocator N --dma-device STRING\n"
"  --dma-device-unterminated dma_device without a NUL\n"
"  --sync-check N            the sync checker: 0 off, 1 report, 2 SIGBUS\n"
"  --reserved I              set reserved[I] to 1\n"
"  --bad-pointer             pass an unmapped address\n",
		prog);
}

static int usage_error(const char *msg)
{
	fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n",
		prog, msg, prog);
	return EXIT_USAGE;
}

struct request {
	const char *dev;
	struct udmabuf_cfs_alloc req;
	int bad_pointer;
};

/*
 * Parse SIZE [OPTIONS] up to "--" or the end.  Returns the index after
 * the parsed arguments (after "--" if there was one), or -1.
 */
static int parse_request(int argc, char **argv, struct request *r)
{
	struct udmabuf_cfs_alloc *q = &r->req;
	uint64_t size;
	uint32_t idx;
	int i;

	memset(r, 0, sizeof(*r));
	r->dev = MISC_DEV;
	q->flags = O_RDWR | O_CLOEXEC;
	q->fd = -1;
	if (argc < 1 || parse_u64(argv[0], &size))
		return -1;
	q->size = size;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--"))
			return i + 1;
		if (!strcmp(a, "--rdonly")) {
			q->flags = (q->flags & ~O_ACCMODE) | O_RDONLY;
		} else if (!strcmp(a, "--wronly")) {
			q->flags = (q->flags & ~O_ACCMODE) | O_WRONLY;
		} else if (!strcmp(a, "--bad-pointer")) {
			r->bad_pointer = 1;
		} else if (!strcmp(a, "--dma-device-unterminated")) {
			memset(q->dma_device, 'x', sizeof(q->dma_device));
		} else if (!v) {
			return -1;
		} else if (!strcmp(a, "--dev")) {
			r->dev = v;
			i++;
		} else if (!strcmp(a, "--flags")) {
			if (parse_u32(v, &q->flags))
				return -1;
			i++;
		} else if (!strcmp(a, "--sync-mode")) {
			if (parse_u32(v, &q->sync_mode))
				return -1;
			i++;
		} else if (!strcmp(a, "--dma-bits")) {
			if (parse_u32(v, &q->dma_bits))
				return -1;
			i++;
		} else if (!strcmp(a, "--allocator")) {
			if (parse_u32(v, &q->allocator))
				return -1;
			i++;
		} else if (!strcmp(a, "--dma-device")) {
			if (strlen(v) >= sizeof(q->dma_device))
				return -1;
			strcpy(q->dma_device, v);
			i++;
		} else if (!strcmp(a, "--sync-check")) {
			if (parse_u32(v, &q->sync_check))
				return -1;
			i++;
		} else if (!strcmp(a, "--reserved")) {
			if (parse_u32(v, &idx) ||
			    idx >= sizeof(q->reserved) / sizeof(q->reserved[0]))
				return -1;
			q->reserved[idx] = 1;
			i++;
		} else {
			return -1;
		}
	}
	return argc;
}

/* Open the node and allocate: the buffer's fd, or -1 with the errno printed. */
static int do_alloc(struct request *r)
{
	void *arg = &r->req;
	int dev, err;

	dev = open_dev_arg(r->dev, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return report_setup_errno("open", r->dev, errno), -1;
	if (r->bad_pointer)
		arg = (void *)(uintptr_t)16;
	if (ioctl(dev, UDMABUF_CFS_IOC_ALLOC, arg) < 0) {
		err = errno;
		close(dev);
		report_errno(err);
		return -1;
	}
	close(dev);
	return r->req.fd;
}

static int cmd_alloc(int argc, char **argv)
{
	struct request r;
	int fd;

	if (parse_request(argc, argv, &r) != argc)
		return usage_error("alloc SIZE [OPTIONS]");
	fd = do_alloc(&r);
	if (fd < 0)
		return EXIT_SYSCALL;
	close(fd);
	printf("OK\n");
	return 0;
}

/* ARG with every "{}" in it replaced by NUM (a new string), or ARG. */
static char *subst_fd(char *arg, const char *num)
{
	size_t n = 0, len;
	char *out, *o;
	const char *p;

	for (p = strstr(arg, "{}"); p; p = strstr(p + 2, "{}"))
		n++;
	if (!n)
		return arg;
	len = strlen(arg) + n * strlen(num) + 1;
	out = malloc(len);
	if (!out)
		return arg;
	for (o = out, p = arg; *p;) {
		if (p[0] == '{' && p[1] == '}') {
			o += sprintf(o, "%s", num);
			p += 2;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/*
 * exec ARGV with every "{}" in its arguments ("{}", "fd:{}") replaced by
 * FD, which stays open across it.
 */
static int exec_with_fd(char **argv, int fd)
{
	char num[16];
	int i;

	if (!argv[0])
		return usage_error("no command to run");
	if (fcntl(fd, F_SETFD, 0) < 0)
		return report_setup_errno("fcntl", "F_SETFD", errno);
	snprintf(num, sizeof(num), "%d", fd);
	for (i = 1; argv[i]; i++)
		argv[i] = subst_fd(argv[i], num);
	fflush(stdout);
	execvp(argv[0], argv);
	return report_setup_errno("exec", argv[0], errno);
}

static int cmd_run(int argc, char **argv)
{
	struct request r;
	int next, fd;

	next = parse_request(argc, argv, &r);
	if (next < 0 || next >= argc || strcmp(argv[next - 1], "--"))
		return usage_error("run SIZE [OPTIONS] -- CMD ARGS...");
	fd = do_alloc(&r);
	if (fd < 0)
		return EXIT_SYSCALL;
	return exec_with_fd(argv + next, fd);
}

static int sock_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -1;
	strcpy(sa->sun_path, path);
	return 0;
}

static int cmd_send(int argc, char **argv)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct sockaddr_un sa;
	struct msghdr msg = { 0 };
	struct cmsghdr *cmsg;
	char byte = 'x';
	struct iovec iov = { &byte, 1 };
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	uint32_t fd;
	int s, i;

	if (argc < 3 || strcmp(argv[2], "--") || sock_addr(argv[0], &sa) ||
	    parse_u32(argv[1], &fd))
		return usage_error("send SOCKET FD -- CMD ARGS...");
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return report_setup_errno("socket", argv[0], errno);
	for (i = 0; connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0; i++) {
		if (i == 200)
			return report_setup_errno("connect", argv[0], errno);
		nanosleep(&ts, NULL);
	}
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	if (sendmsg(s, &msg, 0) != 1)
		return report_setup_errno("sendmsg", argv[0], errno);
	close(s);
	return exec_with_fd(argv + 3, (int)fd);
}

static int cmd_recv(int argc, char **argv)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct sockaddr_un sa;
	struct msghdr msg = { 0 };
	struct cmsghdr *cmsg;
	char byte;
	struct iovec iov = { &byte, 1 };
	int s, c, fd;

	if (argc < 2 || strcmp(argv[1], "--") || sock_addr(argv[0], &sa))
		return usage_error("recv SOCKET -- CMD ARGS...");
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return report_setup_errno("socket", argv[0], errno);
	unlink(argv[0]);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 1) < 0)
		return report_setup_errno("bind", argv[0], errno);
	c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return report_setup_errno("accept", argv[0], errno);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	if (recvmsg(c, &msg, MSG_CMSG_CLOEXEC) != 1)
		return report_setup_errno("recvmsg", argv[0], errno ? errno : EPROTO);
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return report_setup_errno("recvmsg", "no descriptor", EPROTO);
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	close(c);
	close(s);
	unlink(argv[0]);
	return exec_with_fd(argv + 2, fd);
}

static int cmd_export(int argc, char **argv)
{
	struct udmabuf_cfs_export exp = { 0 };
	uint32_t fd;

	if (argc < 2 || strcmp(argv[1], "--") || parse_u32(argv[0], &fd))
		return usage_error("export FD -- CMD ARGS...");
	exp.flags = O_RDWR | O_CLOEXEC;
	if (ioctl((int)fd, UDMABUF_CFS_IOC_EXPORT_DMABUF, &exp) < 0)
		return report_errno(errno);
	close((int)fd);
	return exec_with_fd(argv + 2, exp.fd);
}

/* Only a mapping keeps the file: no descriptor is left open. */
static int cmd_map_hold(int argc, char **argv)
{
	volatile uint64_t *map;
	uint64_t size, seed, i;
	uint32_t fd;
	sigset_t set;
	int sig;

	if (argc != 3 || parse_u32(argv[0], &fd) || parse_u64(argv[1], &size) ||
	    parse_u64(argv[2], &seed) || !size || size % 8)
		return usage_error("map-hold FD SIZE SEED");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (map == MAP_FAILED)
		return report_setup_errno("mmap", argv[0], errno);
	close((int)fd);
	printf("ready\n");
	fflush(stdout);
	if (sigwait(&set, &sig))
		return report_setup_errno("sigwait", "", errno);
	for (i = 0; i < size / 8; i++) {
		if (map[i] != pattern_word(seed, i)) {
			printf("mismatch at %" PRIu64 "\n", i * 8);
			return 2;
		}
	}
	printf("intact\n");
	return 0;
}

/* A buffer's ioctl where it does not belong: the misc device says ENOTTY. */
static int cmd_ioctl(int argc, char **argv)
{
	static uint64_t arg[512];
	const char *dev = MISC_DEV;
	unsigned long cmd;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "--dev"))
		dev = argv[2];
	else if (argc != 1)
		return usage_error("ioctl info|sync|export [--dev DEV]");
	if (!strcmp(argv[0], "info"))
		cmd = UDMABUF_CFS_IOC_GET_INFO;
	else if (!strcmp(argv[0], "sync"))
		cmd = UDMABUF_CFS_IOC_SYNC_FOR_CPU;
	else if (!strcmp(argv[0], "export"))
		cmd = UDMABUF_CFS_IOC_EXPORT_DMABUF;
	else
		return usage_error("ioctl info|sync|export [--dev DEV]");
	fd = open_dev_arg(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return report_setup_errno("open", dev, errno);
	if (ioctl(fd, cmd, arg) < 0)
		return report_errno(errno);
	printf("OK\n");
	return 0;
}

/* The numbers are the same on every architecture (Linux 5.3 and 5.6). */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd		438
#endif

/* Another process's descriptor, as a debugger would take it. */
static int cmd_getfd(int argc, char **argv)
{
	uint32_t pid, fd;
	long pidfd, got;

	if (argc != 2 || parse_u32(argv[0], &pid) || parse_u32(argv[1], &fd))
		return usage_error("getfd PID FD");
	pidfd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (pidfd < 0)
		return report_errno(errno);
	got = syscall(SYS_pidfd_getfd, (int)pidfd, (int)fd, 0);
	if (got < 0)
		return report_errno(errno);
	printf("OK\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("no command");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "alloc"))
		return cmd_alloc(argc - 2, argv + 2);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "send"))
		return cmd_send(argc - 2, argv + 2);
	if (!strcmp(argv[1], "recv"))
		return cmd_recv(argc - 2, argv + 2);
	if (!strcmp(argv[1], "map-hold"))
		return cmd_map_hold(argc - 2, argv + 2);
	if (!strcmp(argv[1], "export"))
		return cmd_export(argc - 2, argv + 2);
	if (!strcmp(argv[1], "ioctl"))
		return cmd_ioctl(argc - 2, argv + 2);
	if (!strcmp(argv[1], "getfd"))
		return cmd_getfd(argc - 2, argv + 2);
	return usage_error("unknown command");
}
