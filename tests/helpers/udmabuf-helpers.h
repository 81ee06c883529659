/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest test helpers share: errno names (tests assert the exact
 * errno by name) and the data pattern (a range written by one helper is
 * verified by another), and how a device argument is opened.  Static
 * functions, included by each helper; the includer defines prog and
 * EXIT_SYSCALL and includes <errno.h>, <fcntl.h>, <stdint.h>, <stdio.h>,
 * <stdlib.h> and <string.h> first.
 */
#ifndef UDMABUF_HELPERS_H
#define UDMABUF_HELPERS_H

/* ------------------------------------------------------------------ */
/* errno names                                                         */

#define E(x) { x, #x }
static const struct {
	int num;
	const char *name;
} errno_names[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(ENOTBLK), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV),
	E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY),
	E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK),
	E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK),
	E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ENODATA),
	E(ETIME), E(ENOLINK), E(EPROTO), E(EBADMSG), E(EOVERFLOW), E(EILSEQ),
	E(EOPNOTSUPP), E(ETIMEDOUT), E(EALREADY), E(EINPROGRESS), E(ESTALE),
	E(EDQUOT), E(ECANCELED), E(ENOKEY), E(EKEYREJECTED), E(EHWPOISON),
};
#undef E

static const char *errno_name(int err)
{
	static char buf[32];
	size_t i;

	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (errno_names[i].num == err)
			return errno_names[i].name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

/* Print the errno name of a failed call on stdout and return EXIT_SYSCALL. */
static int report_errno(int err)
{
	printf("%s\n", errno_name(err));
	return EXIT_SYSCALL;
}

/* A call that is a precondition of the command, not the thing under test. */
static int report_setup_errno(const char *what, const char *arg, int err)
{
	printf("%s\n", errno_name(err));
	fprintf(stderr, "%s: %s %s: %s\n", prog, what, arg, errno_name(err));
	return EXIT_SYSCALL;
}

/* ------------------------------------------------------------------ */
/* device arguments                                                    */

/*
 * open_dev_arg - open(2) PATH with FLAGS, or take "fd:N", a descriptor the
 * caller passed down (duplicated, close-on-exec).  With fd:N the access
 * mode is that file's and FLAGS are ignored: root opens, a test then hands
 * the file to an unprivileged program and checks what the driver (not the
 * node's permissions) allows with it.  Returns the fd, or -1 with errno.
 */
static int open_dev_arg(const char *path, int flags)
{
	char *end;
	long n;

	if (strncmp(path, "fd:", 3))
		return open(path, flags);
	errno = 0;
	n = strtol(path + 3, &end, 10);
	if (errno || end == path + 3 || *end || n < 0 || n > 1023) {
		errno = EBADF;
		return -1;
	}
	return fcntl((int)n, F_DUPFD_CLOEXEC, 3);
}

/* ------------------------------------------------------------------ */
/* the pattern                                                         */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The 64-bit word at byte offset 8*idx of a buffer filled with SEED. */
static uint64_t pattern_word(uint64_t seed, uint64_t idx)
{
	return mix64(mix64(seed + 0x9e3779b97f4a7c15ULL) ^ idx);
}

/* The byte at OFFSET, consistent with storing pattern_word() natively. */
static uint8_t pattern_byte(uint64_t seed, uint64_t off)
{
	uint64_t w = pattern_word(seed, off / 8);
	unsigned int b = off % 8;

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	b = 7 - b;
#endif
	return (uint8_t)(w >> (8 * b));
}

#ifdef UDMABUF_HELPERS_PARSE
/* Number arguments, for the helpers that define UDMABUF_HELPERS_PARSE. */
/* Unsigned 64-bit: decimal or 0x hex, optional K/M/G suffix, no sign. */
static int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (*end)
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (parse_u64(s, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}
#endif /* UDMABUF_HELPERS_PARSE */

#endif /* UDMABUF_HELPERS_H */
