// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabuf-lib - the guests' test of libudmabuf's process-scoped buffers
 * on the real module (tests/bats/process.bats). A program of the
 * library's users: udmabuf.h only.
 *
 *   udmabuf-lib alloc SIZE [OPTS]        allocate and close: OK, or the errno
 *   udmabuf-lib roundtrip SIZE [OPTS]    the whole life of a buffer, checked
 *   udmabuf-lib rdonly-map SIZE          a writable map of an O_RDONLY one
 *   udmabuf-lib hold SIZE [OPTS]         allocate, map, fill, say "ready" and
 *                                        the name, wait for SIGUSR1, then
 *                                        check the data ("intact") and close
 *
 * OPTS: --sync (O_SYNC), --sync-mode M, --dma-mask BITS, --allocator A,
 * --dma-device BUS/DEV.
 *
 * As the helpers of tests/helpers: a call that fails prints its errno name
 * on stdout (the library's message on stderr) and exits 1; a check that
 * does not hold prints "FAIL ..." and exits 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <udmabuf.h>

static int flags = O_RDWR;

/* The errno of a failed call: its name on stdout, exit 1. */
static void failed(const char *what, int ret)
{
	fprintf(stderr, "udmabuf-lib: %s: %s\n", what, udmabuf_last_error());
	printf("%s\n", strerrorname_np(-ret) ? strerrorname_np(-ret) : "E?");
	exit(1);
}

/* CALL must return 0; else failed(WHAT, what it returned). */
#define MUST(call, what) do {						\
		int _ret = (call);					\
									\
		if (_ret)						\
			failed((what), _ret);				\
	} while (0)

#define CHECK(cond, ...) do {						\
		if (!(cond)) {						\
			printf("FAIL ");				\
			printf(__VA_ARGS__);				\
			printf(" (%s; last error: %s)\n", #cond,	\
			       udmabuf_last_error());			\
			exit(2);					\
		}							\
	} while (0)

static struct udmabuf_config *parse(int argc, char **argv)
{
	struct udmabuf_config *cfg = udmabuf_config_new();
	uint64_t size;
	int i, ret = 0;

	if (!cfg || argc < 3 || udmabuf_parse_size(argv[2], &size)) {
		fprintf(stderr, "usage: udmabuf-lib alloc|roundtrip|rdonly-map|hold SIZE [OPTS]\n");
		exit(3);
	}
	udmabuf_config_set_size(cfg, size);
	for (i = 3; i < argc && !ret; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(argv[i], "--sync")) {
			flags |= O_SYNC;
			continue;
		}
		if (!strcmp(argv[i], "--sync-mode")) {
			ret = udmabuf_config_set_sync_mode(cfg, (unsigned int)atoi(v));
		} else if (!strcmp(argv[i], "--dma-mask")) {
			ret = udmabuf_config_set_dma_mask(cfg, (unsigned int)atoi(v));
		} else if (!strcmp(argv[i], "--allocator")) {
			ret = udmabuf_config_set_allocator(cfg, v);
		} else if (!strcmp(argv[i], "--dma-device")) {
			ret = udmabuf_config_set_dma_device(cfg, v);
		} else {
			fprintf(stderr, "udmabuf-lib: unknown option %s\n", argv[i]);
			exit(3);
		}
		i++;
	}
	if (ret)
		failed("configure", ret);
	return cfg;
}

static struct udmabuf *alloc(int argc, char **argv)
{
	struct udmabuf_config *cfg = parse(argc, argv);
	struct udmabuf *buf;
	int ret = udmabuf_alloc(cfg, flags, &buf);

	udmabuf_config_free(cfg);
	if (ret)
		failed("alloc", ret);
	return buf;
}

/* What the listing says of a buffer. */
struct seen {
	char owner[128], origin[32];
	uint64_t size;
};

/* 1 and what the listing says of NAME in L, or 0 if it does not have it. */
static int listed(const char *name, struct seen *l)
{
	struct udmabuf_listing *list;
	size_t i;
	int found = 0, ret = udmabuf_listing_new(0, &list);

	if (ret)
		failed("list", ret);
	for (i = 0; i < udmabuf_listing_count(list) && !found; i++) {
		const struct udmabuf_entry *e = udmabuf_listing_get(list, i);
		const char *o = udmabuf_entry_get_owner(e);

		if (strcmp(udmabuf_entry_get_name(e), name))
			continue;
		found = 1;
		snprintf(l->owner, sizeof(l->owner), "%s", o ? o : "(null)");
		snprintf(l->origin, sizeof(l->origin), "%s", udmabuf_entry_get_origin(e));
		l->size = udmabuf_entry_get_size(e);
	}
	udmabuf_listing_free(list);
	return found;
}

static void fill(uint8_t *p, uint64_t n, unsigned int seed)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed);
}

static int verify(const uint8_t *p, uint64_t n, unsigned int seed)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (uint8_t)(i * 7 + seed))
			return 0;
	return 1;
}

static int roundtrip(int argc, char **argv)
{
	struct udmabuf *buf = alloc(argc, argv), *again;
	uint64_t size = udmabuf_get_size(buf), dma = 0, cpu = 0;
	char name[64], prefix[32], expect[128];
	struct seen l;
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	uint8_t *p, *q;
	int i, ret, dmabuf;

	snprintf(name, sizeof(name), "%s", udmabuf_get_name(buf));
	snprintf(prefix, sizeof(prefix), "proc-%d-", (int)getpid());
	CHECK(!strncmp(name, prefix, strlen(prefix)) &&
	      strspn(name + strlen(prefix), "0123456789") ==
	      strlen(name + strlen(prefix)) && name[strlen(prefix)],
	      "name %s is not %sN", name, prefix);
	printf("name %s\n", name);
	CHECK(fcntl(udmabuf_get_fd(buf), F_GETFD) == FD_CLOEXEC,
	      "the fd is not close-on-exec");
	CHECK(!udmabuf_get_dma_addr(buf, &dma) && dma, "DMA address %#" PRIx64, dma);
	CHECK(!udmabuf_get_cpu_phys_addr(buf, &cpu) && cpu, "CPU physical address %#" PRIx64, cpu);
	MUST(udmabuf_map(buf, 0, 0, 0, (void **)&p), "map");
	fill(p, size, 3);
	MUST(udmabuf_flush(buf, 0, 0), "flush");
	MUST(udmabuf_invalidate(buf, 0, 0), "invalidate");
	CHECK(verify(p, size, 3), "the data changed over flush and invalidate");
	ret = udmabuf_flush(buf, size, 1);
	CHECK(ret == -EINVAL, "a flush past the end gave %d", ret);
	/* A second handle of the same file sees the same bytes. */
	MUST(udmabuf_open_fd(udmabuf_get_fd(buf), &again), "open_fd");
	CHECK(!strcmp(udmabuf_get_name(again), name),
	      "udmabuf_open_fd names it %s", udmabuf_get_name(again));
	MUST(udmabuf_map(again, 4096, 4096, PROT_READ, (void **)&q), "map again");
	CHECK(verify(q, 4096, (4096 * 7 + 3) & 0xff), "the second handle's mapping differs");
	dmabuf = udmabuf_export_dmabuf(buf, 0, 0, O_RDWR | O_CLOEXEC);
	if (dmabuf < 0)
		failed("export", dmabuf);
	close(dmabuf);
	printf("data OK\n");

	CHECK(listed(name, &l), "%s is not in the listing", name);
	snprintf(expect, sizeof(expect), "%d udmabuf-lib", (int)getpid());
	CHECK(!strcmp(l.owner, expect) && !strcmp(l.origin, "process") &&
	      l.size == size, "listed with owner \"%s\", origin %s, size %" PRIu64,
	      l.owner, l.origin, l.size);
	printf("listed with owner OK\n");

	CHECK(!udmabuf_unmap_mapping(again, q), "unmap through the second handle");
	ret = udmabuf_unmap_mapping(buf, q);
	CHECK(ret == -EINVAL, "unmapping it through the other handle gave %d", ret);
	CHECK(!udmabuf_unmap_mapping(buf, p), "unmap through the handle");
	ret = udmabuf_unmap_mapping(buf, p);
	CHECK(ret == -EINVAL, "a second unmap gave %d", ret);
	udmabuf_close(again);
	CHECK(listed(name, &l), "%s went with a handle still open", name);
	udmabuf_close(buf);
	/* The last user gone, the buffer removes itself. */
	for (i = 0; i < 200 && listed(name, &l); i++)
		nanosleep(&pause, NULL);
	CHECK(i < 200, "%s still listed 10 s after close", name);
	printf("gone after close OK\n");
	return 0;
}

static int rdonly_map(int argc, char **argv)
{
	struct udmabuf *buf;
	void *p;
	int ret;

	flags = O_RDONLY;
	buf = alloc(argc, argv);
	MUST(udmabuf_map(buf, 0, 0, 0, &p), "map read-only");
	udmabuf_unmap_mapping(buf, p);
	ret = udmabuf_map(buf, 0, 0, PROT_READ | PROT_WRITE, &p);
	CHECK(ret < 0, "an O_RDONLY buffer mapped writable");
	failed("map writable", ret);
	return 0;
}

static int hold(int argc, char **argv)
{
	struct udmabuf *buf = alloc(argc, argv);
	uint64_t size = udmabuf_get_size(buf);
	sigset_t set;
	uint8_t *p;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	MUST(udmabuf_map(buf, 0, 0, 0, (void **)&p), "map");
	fill(p, size, 5);
	printf("ready\n%s\n", udmabuf_get_name(buf));
	fflush(stdout);
	sigwait(&set, &sig);
	MUST(udmabuf_invalidate(buf, 0, 0), "invalidate");
	printf("%s\n", verify(p, size, 5) ? "intact" : "changed");
	udmabuf_unmap_mapping(buf, p);
	udmabuf_close(buf);
	return 0;
}

int main(int argc, char **argv)
{
	struct udmabuf *buf;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "alloc")) {
		buf = alloc(argc, argv);
		udmabuf_close(buf);
		printf("OK\n");
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "roundtrip"))
		return roundtrip(argc, argv);
	if (argc >= 3 && !strcmp(argv[1], "rdonly-map"))
		return rdonly_map(argc, argv);
	if (argc >= 3 && !strcmp(argv[1], "hold"))
		return hold(argc, argv);
	fprintf(stderr, "usage: udmabuf-lib alloc|roundtrip|rdonly-map|hold SIZE [OPTS]\n");
	return 3;
}
