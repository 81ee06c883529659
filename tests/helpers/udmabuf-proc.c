// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-proc - process-scoped buffers from /dev/udmabuf-cfs, for the
 * guest tests (tests/bats/process.bats, users.bats).
 *
 * "alloc" is an outcome command: it prints OK or the errno's symbolic name.
 * "run" allocates and then executes another command with the descriptor,
 * so that the other helpers (which take "fd:N" for a device) act on the
 * buffer; "send" and "recv" hand a descriptor over a unix socket
 * (SCM_RIGHTS) before executing the rest of their command line: in ARGS,
 * every "{}" ("{}", "fd:{}") is the descriptor's number.
 *
 * OPTIONS of alloc and run: --dev DEV, the node to ask (default
 * /dev/udmabuf-cfs; fd:N accepted); --flags N (default O_RDWR | O_CLOEXEC),
 * --rdonly, --wronly; --sync-mode N, --dma-bits N, --allocator N,
 * --sync-check N, --dma-device STRING: the request's fields;
 * --dma-device-unterminated: dma_device without a NUL; --reserved I:
 * reserved[I] set to 1; --bad-pointer: an unmapped address for the request.
 *
 * Exit status: 0 success, 1 the call under test failed, 64 usage error.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>

#define MISC_DEV	"/dev/udmabuf-cfs"

static const char *prog = "udmabuf-proc";

#include "udmabuf-helpers.h"

struct request {
	const char *dev;
	struct udmabuf_cfs_alloc req;
	int bad_pointer;
};

/* The request's field that option A sets to a number, or NULL. */
static uint32_t *u32_field(const char *a, struct udmabuf_cfs_alloc *q)
{
	static const struct {
		const char *name;
		size_t offset;
	} fields[] = {
		{ "--flags", offsetof(struct udmabuf_cfs_alloc, flags) },
		{ "--sync-mode", offsetof(struct udmabuf_cfs_alloc, sync_mode) },
		{ "--dma-bits", offsetof(struct udmabuf_cfs_alloc, dma_bits) },
		{ "--allocator", offsetof(struct udmabuf_cfs_alloc, allocator) },
		{ "--sync-check", offsetof(struct udmabuf_cfs_alloc, sync_check) },
	};
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(a, fields[i].name))
			return (uint32_t *)((char *)q + fields[i].offset);
	return NULL;
}

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
		} else if (u32_field(a, q)) {
			if (parse_u32(v, u32_field(a, q)))
				return -1;
			i++;
		} else if (!strcmp(a, "--dev")) {
			r->dev = v;
			i++;
		} else if (!strcmp(a, "--dma-device")) {
			if (strlen(v) >= sizeof(q->dma_device))
				return -1;
			strcpy(q->dma_device, v);
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
		return bad_args();
	fd = do_alloc(&r);
	if (fd < 0)
		return EXIT_SYSCALL;
	close(fd);
	return print_ok();
}

/* ARG with every "{}" in it replaced by NUM (a new string), or ARG. */
static char *subst_fd(char *arg, const char *num)
{
	char *out = malloc(strlen(arg) / 2 * strlen(num) + strlen(arg) + 1);
	char *o = out, *p = arg;

	if (!out)
		return arg;
	while (*p) {
		if (p[0] == '{' && p[1] == '}') {
			o = stpcpy(o, num);
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
		return bad_args();
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
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 'x';
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cmsg;
	struct sockaddr_un sa;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	uint32_t fd;
	int s, i;

	if (argc < 3 || strcmp(argv[2], "--") || sock_addr(argv[0], &sa) ||
	    parse_u32(argv[1], &fd))
		return bad_args();
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return report_setup_errno("socket", argv[0], errno);
	for (i = 0; connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0; i++) {
		if (i == 200)
			return report_setup_errno("connect", argv[0], errno);
		nanosleep(&ts, NULL);
	}
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
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cmsg;
	struct sockaddr_un sa;
	int s, c, fd;

	if (argc < 2 || strcmp(argv[1], "--") || sock_addr(argv[0], &sa))
		return bad_args();
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return report_setup_errno("socket", argv[0], errno);
	unlink(argv[0]);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 1) < 0)
		return report_setup_errno("bind", argv[0], errno);
	c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return report_setup_errno("accept", argv[0], errno);
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
		return bad_args();
	exp.flags = O_RDWR | O_CLOEXEC;
	if (ioctl((int)fd, UDMABUF_CFS_IOC_EXPORT_DMABUF, &exp) < 0)
		return report_errno(errno);
	close((int)fd);
	return exec_with_fd(argv + 2, exp.fd);
}

/* A buffer's ioctl where it does not belong: the misc device says ENOTTY. */
static int cmd_ioctl(int argc, char **argv)
{
	static uint64_t arg[512];
	unsigned long cmd;
	int fd;

	if (argc != 1)
		return bad_args();
	if (!strcmp(argv[0], "info"))
		cmd = UDMABUF_CFS_IOC_GET_INFO;
	else if (!strcmp(argv[0], "sync"))
		cmd = UDMABUF_CFS_IOC_SYNC_FOR_CPU;
	else if (!strcmp(argv[0], "export"))
		cmd = UDMABUF_CFS_IOC_EXPORT_DMABUF;
	else
		return bad_args();
	fd = open(MISC_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return report_setup_errno("open", MISC_DEV, errno);
	return outcome(ioctl(fd, cmd, arg), fd);
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
		return bad_args();
	pidfd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (pidfd < 0)
		return report_errno(errno);
	got = syscall(SYS_pidfd_getfd, (int)pidfd, (int)fd, 0);
	return outcome(got, -1);
}

static const struct command commands[] = {
	{ "alloc", "SIZE [OPTIONS]  (UDMABUF_CFS_IOC_ALLOC, then close the buffer)",
	  cmd_alloc, 0 },
	{ "run", "SIZE [OPTIONS] -- CMD ARGS...  (allocate, exec CMD)", cmd_run, 0 },
	{ "send", "SOCKET FD -- CMD ARGS...  (send FD, retrying the connection for 10 s)",
	  cmd_send, 0 },
	{ "recv", "SOCKET -- CMD ARGS...  (listen, receive one descriptor)",
	  cmd_recv, 0 },
	{ "export", "FD -- CMD ARGS...  (a read-write dma-buf of all of FD; FD closed)",
	  cmd_export, 0 },
	{ "ioctl", "info|sync|export  (zeroed argument, to " MISC_DEV ")",
	  cmd_ioctl, 0 },
	{ "getfd", "PID FD  (pidfd_open, pidfd_getfd: what ptrace would allow)",
	  cmd_getfd, 0 },
	{ NULL },
};

int main(int argc, char **argv)
{
	return command_main(commands, argc, argv);
}
