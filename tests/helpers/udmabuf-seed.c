// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-seed - the original udmabuf's test program, written anew: what
 * its users ran first on a Zynq-7000 board, with only the interfaces of
 * that time (the class attributes, the device node, O_SYNC and sync_mode),
 * so that seed-era usage is checked on a udmabuf-cfs buffer as it was.
 *
 *   udmabuf-seed [NAME [SYNC_MODE...]]
 *
 * For the buffer NAME (default udmabuf0): reads phys_addr ("%x", as the
 * seed did; the attribute reads 0x%016llx and that parses the same) and
 * size from /sys/class/udmabuf/NAME/; then for each SYNC_MODE (default 0 1
 * 2 3), without and with O_SYNC: writes sync_mode, opens /dev/NAME, maps
 * all of it and runs the seed's two loops over it, check_buf (a pattern
 * byte by byte, read back and compared) and clear_buf (zeros 64 bits at a
 * time, then read back), timing each.  One line each:
 *
 *   sync_mode=2, O_SYNC=1, check_buf: 0 errors 0.123456 s, clear_buf: 0 errors 0.012345 s
 *
 * The times are printed, never judged (QEMU has no cache model).  Exit 0
 * when every loop read back what it wrote, 2 when one did not, 1 when a
 * call failed (its errno name printed, what failed on stderr).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <sys/mman.h>
#include <time.h>

#include "../../tools/udmabufctl/bufloops.h"

static const char *prog = "udmabuf-seed";

#include "udmabuf-helpers.h"

/* /sys/class/udmabuf/NAME/ATTR: read into BUF (VAL NULL) or VAL written. */
static int class_attr(const char *name, const char *attr, const char *val,
		      char *buf, size_t len)
{
	char path[128];
	int err;

	snprintf(path, sizeof(path), "/sys/class/udmabuf/%s/%s", name, attr);
	err = val ? write_file(path, val) : read_file(path, buf, len);
	return err ? report_setup_errno(val ? "write" : "read", path, err) : 0;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* One line: both loops over all of NAME, mapped with or without O_SYNC. */
static int run_one(const char *name, size_t size, unsigned int mode, int o_sync)
{
	char path[128], val[8];
	struct timespec t0;
	uint64_t check_err, clear_err = 0;
	double check_s, clear_s;
	uint8_t *buf;
	size_t i;
	int fd, rc;

	snprintf(val, sizeof(val), "%u", mode);
	rc = class_attr(name, "sync_mode", val, NULL, 0);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR | (o_sync ? O_SYNC : 0));
	if (fd < 0)
		return report_setup_errno("open", path, errno);
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (buf == MAP_FAILED) {
		int err = errno;

		close(fd);
		return report_setup_errno("mmap", path, err);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	check_err = bufloop_check(buf, size, mode + 1);
	check_s = seconds_since(&t0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bufloop_clear(buf, size);
	clear_s = seconds_since(&t0);
	/* The words that do not read back as zero. */
	for (i = 0; i < size / 8; i++)
		clear_err += ((const volatile uint64_t *)(void *)buf)[i] != 0;
	munmap(buf, size);
	close(fd);
	printf("sync_mode=%u, O_SYNC=%d, check_buf: %" PRIu64 " errors %.6f s, clear_buf: %" PRIu64 " errors %.6f s\n",
	       mode, o_sync, check_err, check_s, clear_err, clear_s);
	return check_err || clear_err ? EXIT_MISMATCH : 0;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "udmabuf0";
	unsigned int modes[8] = { 0, 1, 2, 3 }, n_modes = 4, phys = 0, i;
	unsigned long long size = 0;
	char text[64];
	int o_sync, rc, status = 0;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s [NAME [SYNC_MODE...]]   (default: udmabuf0, sync modes 0 1 2 3)\n",
		       prog);
		return 0;
	}
	if (argc > 2) {
		n_modes = 0;
		for (i = 2; i < (unsigned int)argc && n_modes < 8; i++) {
			char *end;
			unsigned long m = strtoul(argv[i], &end, 10);

			if (*end || end == argv[i] || m > 7) {
				fprintf(stderr, "%s: '%s' is not a sync_mode (0..7)\n",
					prog, argv[i]);
				return EXIT_USAGE;
			}
			modes[n_modes++] = (unsigned int)m;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = class_attr(name, "phys_addr", NULL, text, sizeof(text));
	if (rc)
		return rc;
	if (sscanf(text, "%x", &phys) != 1)
		phys = 0;	/* only printed */
	rc = class_attr(name, "size", NULL, text, sizeof(text));
	if (rc)
		return rc;
	if (sscanf(text, "%llu", &size) != 1)
		size = 0;	/* unusable, below */
	printf("phys_addr=0x%x\nsize=%llu\n", phys, size);
	if (!size || size % 8 || size > SIZE_MAX) {
		fprintf(stderr, "%s: %s: unusable size %llu\n", prog, name, size);
		return EXIT_SYSCALL;
	}
	for (i = 0; i < n_modes; i++) {
		for (o_sync = 0; o_sync <= 1; o_sync++) {
			rc = run_one(name, (size_t)size, modes[i], o_sync);
			if (rc == EXIT_SYSCALL)
				return rc;
			if (rc)
				status = rc;
		}
	}
	return status;
}
