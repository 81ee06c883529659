// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Host tests of libudmabuf.so's public API (udmabuf.h only), run by
 * test-lib.sh with fake-configfs.so preloaded: a tree of plain files
 * stands in for configfs and sysfs, regular files under
 * $UDMABUF_FAKE_DEV_DIR for device nodes. Prints TAP.
 *
 *   test_lib TMPDIR        (the fake tree is made there)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "udmabuf.h"

static int tests, failures;
static char root[1024], cfs[1100], sysfs[1100], dev[1100], logf[1100];

/* The features of a module without the allocator and the sync checker. */
#define FEATURES_1_2 \
	"size,minor,device_name,sync_mode,dma_mask,mode,dma_device,enable,phys_addr,dev"

#define CHECK(cond, ...) do {						\
		int _ok = !!(cond);					\
									\
		tests++;						\
		if (!_ok)						\
			failures++;					\
		printf("%s %d - ", _ok ? "ok" : "not ok", tests);	\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		if (!_ok)						\
			printf("#   failed at %s:%d: %s\n#   last error: %s\n", \
			       __FILE__, __LINE__, #cond,		\
			       udmabuf_last_error());			\
	} while (0)

/* DIR/NAME, in one of two buffers: two such paths can be in use at once. */
static const char *at(const char *dir, const char *name)
{
	static char bufs[2][2300];
	static int next;
	char *p = bufs[next++ % 2];

	snprintf(p, sizeof(bufs[0]), "%s/%s", dir, name);
	return p;
}

static void put(const char *dir, const char *name, const char *text)
{
	const char *path = at(dir, name);
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void mkdirs(const char *dir)
{
	char cmd[2300];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	if (system(cmd)) {
		perror(dir);
		exit(2);
	}
}

/* A fake device node of SIZE bytes: byte i is i & 0xff. */
static void node(const char *name, size_t size)
{
	const char *path = at(dev, name);
	unsigned char *b = malloc(size);
	size_t i;
	FILE *f;

	for (i = 0; b && i < size; i++)
		b[i] = (unsigned char)i;
	f = fopen(path, "w");
	if (!b || !f || fwrite(b, 1, size, f) != size || fclose(f)) {
		perror(path);
		exit(2);
	}
	free(b);
}

/*
 * Directory BASE/NAME (made if missing) with the attributes "ATTR=VALUE..."
 * that follow, up to NULL; each value is written with a newline.
 */
static void attrs(const char *base, const char *name, ...)
{
	char dir[2300], value[256];
	const char *a;
	va_list ap;

	snprintf(dir, sizeof(dir), "%s", at(base, name));
	mkdirs(dir);
	va_start(ap, name);
	while ((a = va_arg(ap, const char *))) {
		char attr[64];
		size_t n = strcspn(a, "=");

		snprintf(attr, sizeof(attr), "%.*s", (int)n, a);
		snprintf(value, sizeof(value), "%s\n", a + n + 1);
		put(dir, attr, value);
	}
	va_end(ap);
}

/* An enabled configfs item ITEM whose device is DEVNAME. */
static void item(const char *name, const char *devname)
{
	char dn[64];

	snprintf(dn, sizeof(dn), "device_name=%s", devname);
	attrs(cfs, name, dn, "enable=1", "size=8192", NULL);
}

static int exists(const char *dir, const char *name)
{
	struct stat st;

	return stat(at(dir, name), &st) == 0;
}

/* The fake's log since the last call, then emptied. */
static char *take_log(void)
{
	static char text[8192];
	FILE *f = fopen(logf, "r");
	size_t n = 0;

	text[0] = '\0';
	if (f) {
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[n] = '\0';
	unlink(logf);
	return text;
}

static int has(const char *s, const char *what)
{
	return !!strstr(s, what);
}

/* The last error has WHAT in it. */
static int says(const char *what)
{
	return has(udmabuf_last_error(), what);
}

static int step_is(const char *step)
{
	return !strcmp(udmabuf_last_error_step(), step);
}

/* The fake's log since the last take_log() is WANT (shown if not). */
#define LOG_IS(want, ...) do {						\
		const char *_log = take_log();				\
		int _same = !strcmp(_log, (want));			\
									\
		CHECK(_same, __VA_ARGS__);				\
		if (!_same)						\
			printf("#   log: %s\n", _log);			\
	} while (0)

/*
 * udmabuf_create(NAME, CFG, UDMABUF_CREATE_NO_ENABLE) succeeds and the
 * fake's log of it is WANT (any if NULL; shown if not); the item is
 * removed again.
 */
static int creates(const char *name, struct udmabuf_config *cfg, const char *want)
{
	const char *log;

	take_log();
	if (udmabuf_create(name, cfg, UDMABUF_CREATE_NO_ENABLE))
		return 0;
	log = take_log();
	udmabuf_destroy(name, UDMABUF_DESTROY_FORCE);
	unlink(logf);
	if (want && strcmp(log, want)) {
		printf("#   log: %s\n", log);
		return 0;
	}
	return 1;
}

/*
 * The only entry of udmabuf_listing_new_name(NAME, FIELDS), NULL if that
 * fails; valid until the next call, which frees its listing.
 */
static const struct udmabuf_entry *entry(const char *name, unsigned int fields)
{
	static struct udmabuf_listing *l;

	udmabuf_listing_free(l);
	l = NULL;
	if (udmabuf_listing_new_name(name, fields, &l) || udmabuf_listing_count(l) != 1)
		return NULL;
	return udmabuf_listing_get(l, 0);
}

static void *thread_fails(void *arg)
{
	struct udmabuf *b;

	(void)arg;
	udmabuf_open("threadghost", O_RDWR, &b);
	return says("threadghost") ? (void *)1 : NULL;
}

static void test_open_map_sync(void)
{
	struct udmabuf *b, *b2;
	uint64_t addr = 0;
	uint32_t flags = 1;
	unsigned int mode = 9;
	unsigned char *p;
	pthread_t t;
	void *tret;
	int fd;

	CHECK(udmabuf_open("ghost", O_RDWR, &b) == -ENOENT && !b,
	      "open of a missing buffer is ENOENT");
	CHECK(says("ghost") && says("No such file"),
	      "its message names the buffer and the reason: %s",
	      udmabuf_last_error());
	CHECK(pthread_create(&t, NULL, thread_fails, NULL) == 0 &&
	      pthread_join(t, &tret) == 0 && tret &&
	      says("ghost") && !says("threadghost"),
	      "the last error is per thread");

	put(root, "plain", "not a device");
	CHECK(udmabuf_open(at(root, "plain"), O_RDWR, &b) == -ENOTTY,
	      "a file that is not a udmabuf-cfs device is ENOTTY");
	CHECK(says(at(root, "plain")) && says("not a udmabuf-cfs device"),
	      "and names it and says so: %s", udmabuf_last_error());
	CHECK(udmabuf_open("buf0", O_WRONLY, &b) == -EINVAL,
	      "O_WRONLY is refused (a mapping needs read access)");

	node("buf0", 3 * 4096 + 100);
	attrs(sysfs, "buf0", "dev=240:20", NULL);
	take_log();
	CHECK(udmabuf_open("buf0", O_RDWR, &b) == 0 && b,
	      "open by device name");
	CHECK(udmabuf_get_size(b) == 3 * 4096 + 100 &&
	      !strcmp(udmabuf_get_name(b), "buf0") &&
	      !strcmp(udmabuf_get_driver_version(b), "fake"),
	      "size, name and driver version come from GET_INFO");
	CHECK(udmabuf_get_flags(b, &flags) == 0 && flags == 0 &&
	      udmabuf_get_sync_mode(b, &mode) == 0 && mode == 1,
	      "flags and sync mode through the ioctl");

	/* Behind an IOMMU the two addresses differ: each getter gives its own. */
	setenv("UDMABUF_FAKE_DMA_ADDR", "0x80000000", 1);
	setenv("UDMABUF_FAKE_PHYS_ADDR", "0x3f000000", 1);
	addr = 0;
	CHECK(udmabuf_get_dma_addr(b, &addr) == 0 && addr == 0x80000000,
	      "udmabuf_get_dma_addr gives the DMA address, not the CPU one: %#llx",
	      (unsigned long long)addr);
	addr = 0;
	CHECK(udmabuf_get_cpu_phys_addr(b, &addr) == 0 && addr == 0x3f000000,
	      "udmabuf_get_cpu_phys_addr gives the CPU physical address, not the DMA one: %#llx",
	      (unsigned long long)addr);
	addr = 0;
	CHECK(udmabuf_get_phys_addr(b, &addr) == 0 && addr == 0x3f000000,
	      "udmabuf_get_phys_addr (1.0) gives the CPU physical address too: %#llx",
	      (unsigned long long)addr);
	unsetenv("UDMABUF_FAKE_DMA_ADDR");
	unsetenv("UDMABUF_FAKE_PHYS_ADDR");
	CHECK(!has(take_log(), "phys_addr"), "nothing reads the root-only phys_addr file");

	CHECK(udmabuf_map(b, 4096 + 5, 10, 0, (void **)&p) == 0 &&
	      p[0] == (unsigned char)(4096 + 5) && p[9] == (unsigned char)(4096 + 14),
	      "a range at an unaligned offset maps the right bytes");
	CHECK(udmabuf_unmap(p, 10) == 0, "and unmaps");
	CHECK(udmabuf_map(b, 0, 0, 0, (void **)&p) == 0 && p[4096 * 3 + 99] == 99,
	      "length 0 maps to the end");
	p[1] = 0xa5;
	CHECK(udmabuf_unmap(p, udmabuf_get_size(b)) == 0, "the whole map unmaps");
	CHECK(udmabuf_map(b, 4096, 3 * 4096, 0, (void **)&p) == -EINVAL &&
	      says("outside the buffer"),
	      "a range past the end is EINVAL and says so");
	CHECK(udmabuf_map(b, 0, 0, PROT_EXEC, (void **)&p) == -EINVAL,
	      "PROT_EXEC is refused");

	take_log();
	CHECK(udmabuf_sync_for_device(b, 4096, 100, UDMABUF_DIR_TO_DEVICE) == 0 &&
	      udmabuf_sync_for_cpu(b, 0, 0, UDMABUF_DIR_FROM_DEVICE) == 0,
	      "syncs succeed");
	LOG_IS("ioctl=sync_for_device 4096 100 1\nioctl=sync_for_cpu 0 0 2\n",
	       "each sync is one ioctl on the open fd, nothing else");
	CHECK(udmabuf_sync_for_cpu(b, 4096 * 4, 1, 0) == -EINVAL,
	      "a range outside the buffer is EINVAL (from the kernel)");
	CHECK(udmabuf_sync_for_cpu(b, 0, 0, 3) == -EINVAL && says("direction 3"),
	      "a bad direction is refused before the ioctl");
	CHECK(udmabuf_export_dmabuf(b, 0, 0, O_RDWR) == -EOPNOTSUPP ||
	      udmabuf_export_dmabuf(b, 0, 0, O_RDWR) == -ENOTTY,
	      "dma-buf export without a module that can is EOPNOTSUPP");
	setenv("UDMABUF_FAKE_EXPORT", "1", 1);
	take_log();
	fd = udmabuf_export_dmabuf(b, 0, 0, O_RDWR);
	CHECK(fd >= 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC,
	      "an exported dma-buf's fd is close-on-exec without O_CLOEXEC asked");
	close(fd);
	LOG_IS("ioctl=export 0 0 2000002\n",
	       "the export asks the kernel for O_CLOEXEC");
	fd = udmabuf_export_dmabuf(b, 4096, 4096, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0 && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY &&
	      fcntl(fd, F_GETFD) == FD_CLOEXEC,
	      "O_RDONLY | O_CLOEXEC: read-only, close-on-exec");
	close(fd);
	unsetenv("UDMABUF_FAKE_EXPORT");
	take_log();

	fd = dup(udmabuf_get_fd(b));
	CHECK(udmabuf_open_fd(fd, &b2) == 0 && udmabuf_get_fd(b2) != fd &&
	      !strcmp(udmabuf_get_name(b2), "buf0") &&
	      udmabuf_get_size(b2) == udmabuf_get_size(b),
	      "open by fd: the handle has its own fd, the name is the node's");
	CHECK(udmabuf_close(b2) == 0 && fcntl(fd, F_GETFD) >= 0,
	      "closing it leaves the caller's fd open");
	close(fd);
	CHECK(fcntl(udmabuf_get_fd(b), F_GETFD) == FD_CLOEXEC,
	      "the handle's fd is close-on-exec");
	CHECK(udmabuf_close(b) == 0 && udmabuf_close(NULL) == 0, "close");

	/* item "a" has device "b", item "b" device "c". */
	item("a", "b");
	item("b", "c");
	node("b", 4096);
	node("c", 8192);
	attrs(sysfs, "b", "dev=240:21", NULL);
	attrs(sysfs, "c", "dev=240:22", NULL);
	CHECK(udmabuf_open("b", O_RDONLY, &b) == 0 &&
	      !strcmp(udmabuf_get_name(b), "c") && udmabuf_get_size(b) == 8192,
	      "a bare name is the configfs item first");
	udmabuf_close(b);
	CHECK(udmabuf_open(at(dev, "b"), O_RDONLY, &b) == 0 &&
	      !strcmp(udmabuf_get_name(b), "b") && udmabuf_get_size(b) == 4096,
	      "a path is the device node");
	udmabuf_close(b);
	CHECK(udmabuf_destroy(at(dev, "b"), 0) == 0 && !exists(cfs, "a") &&
	      exists(cfs, "b"),
	      "destroy of a path removes the item whose device it is");
	CHECK(udmabuf_destroy("b", 0) == 0 && !exists(cfs, "b"),
	      "destroy of a name removes that item");
	attrs(cfs, "off", "enable=0", NULL);
	CHECK(udmabuf_open("off", O_RDWR, &b) == -ENODEV && says("not enabled"),
	      "open of a disabled item is ENODEV");
	udmabuf_destroy("off", 0);
}

static volatile sig_atomic_t alarmed;

/* SIGALRM, without SA_RESTART: alarm(2) around a call that may block. */
static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

/*
 * Only a buffer's device node is ever opened: a file that is not one may
 * be a watchdog (opening it arms it), a tty (it would become the
 * controlling terminal) or a FIFO (open blocks), and GET_INFO afterwards
 * is too late. An open that might block is under alarm(2): a hang is a
 * failed test, not a stuck run.
 */
static void test_open_not_a_buffer(void)
{
	struct udmabuf *b = NULL;
	int ret;

	/* A node without a class device: another driver's (/dev/watchdog). */
	node("wdog", 4096);
	take_log();
	ret = udmabuf_open("wdog", O_RDONLY, &b);
	CHECK(ret == -ENOTTY && !b && !has(take_log(), "get_info"),
	      "a node without a class device is not opened (ENOTTY): %d", ret);
	CHECK(says("wdog") && says("not a udmabuf-cfs device"),
	      "and the error names it and says why: %s", udmabuf_last_error());
	ret = udmabuf_open(at(dev, "wdog"), O_RDONLY, &b);
	CHECK(ret == -ENOTTY && !has(take_log(), "get_info"),
	      "nor is it as a path: %d", ret);

	/* A FIFO where a buffer's node should be: open(2) would block. */
	attrs(sysfs, "fifo0", "dev=240:30", NULL);
	CHECK(mkfifo(at(dev, "fifo0"), 0600) == 0, "mkfifo");
	alarm(2);
	ret = udmabuf_open("fifo0", O_RDONLY, &b);
	CHECK(ret == -ENOTTY && !b,
	      "a FIFO named like a buffer is not opened (ENOTTY, no hang): %d",
	      ret);
	CHECK(mkfifo(at(dev, "fifo1"), 0600) == 0, "mkfifo");
	alarm(2);
	ret = udmabuf_open("fifo1", O_RDONLY, &b);
	alarm(0);
	CHECK(ret == -ENOTTY && !b,
	      "nor a FIFO without a class device: %d", ret);

	/* A stale node: "stale" is 240:31, its node is 240:32's. */
	attrs(sysfs, "stale", "dev=240:31", NULL);
	attrs(sysfs, "other", "dev=240:32", NULL);
	node("other", 8192);
	CHECK(symlink("other", at(dev, "stale")) == 0, "symlink");
	take_log();
	ret = udmabuf_open("stale", O_RDONLY, &b);
	CHECK(ret == -ENOTTY && !b && !has(take_log(), "get_info"),
	      "a node whose device number is not the buffer's is refused: %d",
	      ret);
	CHECK(says("240:32") && says("240:31"),
	      "and the error gives both numbers: %s", udmabuf_last_error());
	CHECK(udmabuf_open(at(dev, "stale"), O_RDONLY, &b) == 0 && b &&
	      !strcmp(udmabuf_get_name(b), "other") &&
	      udmabuf_get_size(b) == 8192,
	      "a path is the buffer whose node it resolves to");
	udmabuf_close(b);
	b = NULL;
	CHECK(udmabuf_open("other", O_RDONLY, &b) == 0 && b,
	      "the buffer itself opens");
	CHECK(b && (fcntl(udmabuf_get_fd(b), F_GETFL) & O_NONBLOCK) == 0,
	      "its file is not non-blocking");
	udmabuf_close(b);

	/* A class device without dev (a process-scoped buffer has no node). */
	attrs(sysfs, "nodev", "origin=process", NULL);
	node("nodev", 4096);
	take_log();
	ret = udmabuf_open("nodev", O_RDONLY, &b);
	CHECK(ret == -ENOTTY && !has(take_log(), "get_info"),
	      "a class device without a device number has no node to open: %d",
	      ret);
}

static void test_create(void)
{
	struct udmabuf_config *cfg = udmabuf_config_new();

	CHECK(cfg, "config_new");
	CHECK(udmabuf_config_set_dma_device(cfg, "pci") == -EINVAL &&
	      udmabuf_config_set_dma_device(cfg, "/x") == -EINVAL &&
	      udmabuf_config_set_attr(cfg, "enable", "1") == -EINVAL &&
	      udmabuf_config_set_attr(cfg, "../x", "1") == -EINVAL,
	      "setters refuse malformed values (device names: test_limits)");
	CHECK(says("../x"), "and name them: %s", udmabuf_last_error());

	CHECK(udmabuf_config_set_size(cfg, 65536) == 0 &&
	      udmabuf_config_set_minor(cfg, 7) == 0 &&
	      udmabuf_config_set_device_name(cfg, "cam.0") == 0 &&
	      udmabuf_config_set_sync_mode(cfg, 2) == 0 &&
	      udmabuf_config_set_dma_mask(cfg, 40) == 0 &&
	      udmabuf_config_set_mode(cfg, 0660) == 0 &&
	      udmabuf_config_set_dma_device(cfg, "pci/0000:00:04.0") == 0 &&
	      udmabuf_config_set_phys_addr(cfg, 0x80000000) == 0 &&
	      udmabuf_config_set_attr(cfg, "future", "x y") == 0,
	      "every attribute can be set");

	put(cfs, "features", "size,minor,device_name,sync_mode,dma_mask,mode,enable,phys_addr,dev\n");
	take_log();
	CHECK(udmabuf_create("cam", cfg, 0) == -EOPNOTSUPP && !exists(cfs, "cam"),
	      "dma_device on a module without it: EOPNOTSUPP, nothing made");
	CHECK(says("cam: set dma_device") && step_is("dma_device"),
	      "the message names the buffer and the step: %s",
	      udmabuf_last_error());
	put(cfs, "features", FEATURES_1_2 "\n");
	take_log();
	CHECK(udmabuf_create("cam", cfg, 0) == 0, "create with every attribute");
	LOG_IS("size=65536\nminor=7\nsync_mode=2\ndma_mask=40\n"
	       "mode=0660\ndevice_name=cam.0\nfuture=x y\n"
	       "dma_device=pci/0000:00:04.0\nphys_addr=0x80000000\nenable=1\n",
	       "attributes written in order, dma_device and phys_addr just before enable");
	CHECK(udmabuf_create("cam", cfg, 0) == -EEXIST && says("cam: create") &&
	      step_is("mkdir"),
	      "create of an existing item is EEXIST, at step mkdir");
	CHECK(udmabuf_destroy("cam", 0) == 0 && !exists(cfs, "cam"), "destroy");
	LOG_IS("enable=0\n", "destroy disables, then removes");

	setenv("UDMABUF_FAKE_ERRNO", "enable=ENOMEM", 1);
	CHECK(udmabuf_create("cam", cfg, 0) == -ENOMEM && !exists(cfs, "cam") &&
	      says("cam: enable: Cannot allocate memory"),
	      "a refused enable leaves nothing behind and says so: %s",
	      udmabuf_last_error());
	CHECK(step_is("enable"), "the step is enable (%s)", udmabuf_last_error_step());
	setenv("UDMABUF_FAKE_ERRNO", "dma_mask=EINVAL", 1);
	CHECK(udmabuf_create("cam", cfg, 0) == -EINVAL && step_is("dma_mask") &&
	      !exists(cfs, "cam"),
	      "a refused attribute is the step (%s)", udmabuf_last_error_step());
	unsetenv("UDMABUF_FAKE_ERRNO");
	take_log();
	CHECK(udmabuf_create("cam", NULL, UDMABUF_CREATE_NO_ENABLE) == 0 &&
	      exists(cfs, "cam") && !strcmp(take_log(), "size=0\n"),
	      "NO_ENABLE without a config makes a disabled item");
	setenv("UDMABUF_FAKE_ERRNO", "enable=EBUSY", 1);
	CHECK(udmabuf_destroy("cam", 0) == -EBUSY && exists(cfs, "cam") &&
	      says("open or mapped") && step_is("disable"),
	      "destroy of a busy buffer is EBUSY, at step disable");
	CHECK(udmabuf_destroy("cam", UDMABUF_DESTROY_FORCE) == 0 &&
	      !exists(cfs, "cam"), "FORCE removes it anyway");
	unsetenv("UDMABUF_FAKE_ERRNO");

	mkdirs(at(sysfs, "param0"));
	CHECK(udmabuf_destroy("param0", 0) == -EPERM && says("not made through configfs"),
	      "destroy of a parameter buffer is EPERM");
	CHECK(udmabuf_destroy("ghost", 0) == -ENOENT && step_is(""),
	      "destroy of nothing is ENOENT, before any step");
	CHECK(udmabuf_create("a/b", NULL, 0) == -EINVAL &&
	      udmabuf_create("ok", NULL, 0x80) == -EINVAL,
	      "create refuses a bad name or unknown flags");
	CHECK(udmabuf_module_has_feature("dma_device") == 1 &&
	      udmabuf_module_has_feature("teleport") == 0,
	      "module_has_feature reads features");
	udmabuf_config_free(cfg);
	udmabuf_config_free(NULL);
}

/* What udmabuf_alloc() asks of /dev/udmabuf-cfs, and the handle it makes. */
static void test_alloc(void)
{
	static const char *const named[] = {
		"minor", "device_name", "mode", "phys_addr", "future",
	};
	struct udmabuf_config *c, *cfg = udmabuf_config_new();
	struct udmabuf *b = (struct udmabuf *)1;
	char expect[256], name[64];
	unsigned char *p, *q;
	size_t i;

	CHECK(udmabuf_config_set_allocator(cfg, "bogus") == -EINVAL &&
	      says("allocator 'bogus'") &&
	      udmabuf_config_set_allocator(cfg, "auto") == 0 &&
	      udmabuf_config_set_allocator(cfg, "") == 0 &&
	      udmabuf_config_set_allocator(cfg, NULL) == 0,
	      "set_allocator takes auto, \"\" and NULL, refuses others by name");
	take_log();
	CHECK(udmabuf_alloc(cfg, O_RDWR, &b) == -EINVAL && !b && says("size"),
	      "alloc without a size is EINVAL and says so: %s",
	      udmabuf_last_error());
	CHECK(udmabuf_alloc(NULL, O_RDWR, &b) == -EINVAL,
	      "alloc without a configuration is EINVAL");
	udmabuf_config_set_size(cfg, 3 * 4096 + 100);
	CHECK(udmabuf_alloc(cfg, O_WRONLY, &b) == -EINVAL &&
	      udmabuf_alloc(cfg, O_RDWR | O_APPEND, &b) == -EINVAL &&
	      udmabuf_alloc(cfg, O_RDWR | O_NONBLOCK, &b) == -EINVAL,
	      "alloc refuses O_WRONLY and flags other than O_SYNC and O_CLOEXEC");
	/* A configuration that sets what only a configfs item has. */
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		c = udmabuf_config_new();
		udmabuf_config_set_size(c, 4096);
		if (i == 0)
			udmabuf_config_set_minor(c, 3);
		else if (i == 1)
			udmabuf_config_set_device_name(c, "x");
		else if (i == 2)
			udmabuf_config_set_mode(c, 0666);
		else if (i == 3)
			udmabuf_config_set_phys_addr(c, 0x80000000);
		else
			udmabuf_config_set_attr(c, "future", "1");
		CHECK(udmabuf_alloc(c, O_RDWR, &b) == -EINVAL && says(named[i]),
		      "a configuration that sets %s is EINVAL, named: %s",
		      named[i], udmabuf_last_error());
		udmabuf_config_free(c);
	}
	CHECK(!strcmp(take_log(), ""), "bad requests fail before any ioctl");

	CHECK(udmabuf_alloc(cfg, O_RDWR, &b) == -ENOENT && !b &&
	      says("udmabuf-cfs") && says("not loaded"),
	      "without DEV_DIR/udmabuf-cfs: ENOENT, the module not loaded: %s",
	      udmabuf_last_error());

	put(dev, "udmabuf-cfs", "");
	take_log();
	CHECK(udmabuf_alloc(cfg, O_RDWR, &b) == 0 && b,
	      "alloc through DEV_DIR/udmabuf-cfs");
	/*
	 * O_RDWR | O_CLOEXEC; sync_mode 1, the default; dma_bits 0, auto;
	 * no dma_device (the empty last field, after a space: \x20).
	 */
	snprintf(expect, sizeof(expect),
		 "ioctl=alloc 12388 %o 1 0 0\x20\nioctl=get_info\n",
		 O_RDWR | O_CLOEXEC);
	LOG_IS(expect, "one ioctl: size, O_RDWR|O_CLOEXEC, sync_mode 1, defaults");
	snprintf(name, sizeof(name), "proc-%d-1", (int)getpid());
	CHECK(b && !strcmp(udmabuf_get_name(b), name) &&
	      udmabuf_get_size(b) == 3 * 4096 + 100 &&
	      fcntl(udmabuf_get_fd(b), F_GETFD) == FD_CLOEXEC,
	      "the handle has the new file (close-on-exec), its name and size");
	CHECK(udmabuf_map(b, 0, 0, 0, (void **)&p) == 0 &&
	      udmabuf_map(b, 4096 + 7, 100, PROT_READ, (void **)&q) == 0,
	      "maps (whole, and a read-only range at an odd offset)");
	for (i = 0; i < 3 * 4096 + 100; i++)
		p[i] = (unsigned char)(i * 3);
	take_log();
	CHECK(udmabuf_flush(b, 0, 0) == 0 && udmabuf_invalidate(b, 4096, 100) == 0,
	      "flush and invalidate");
	LOG_IS("ioctl=sync_for_device 0 0 1\nioctl=sync_for_cpu 4096 100 2\n",
	       "flush is sync_for_device TO_DEVICE, invalidate sync_for_cpu FROM_DEVICE");
	CHECK(udmabuf_flush(b, 4096 * 4, 1) == -EINVAL && says("flush"),
	      "a flush outside the buffer is EINVAL, named: %s",
	      udmabuf_last_error());
	CHECK(q[0] == (unsigned char)((4096 + 7) * 3) &&
	      q[99] == (unsigned char)((4096 + 106) * 3),
	      "the second mapping sees the bytes the first wrote");
	CHECK(udmabuf_unmap_mapping(b, q) == 0 && udmabuf_unmap_mapping(b, p) == 0,
	      "both unmap through the handle, no length given");
	CHECK(udmabuf_unmap_mapping(b, p) == -EINVAL &&
	      says("not a mapping of this handle") &&
	      udmabuf_unmap_mapping(b, NULL) == -EINVAL,
	      "unmapping again (or NULL) is EINVAL: %s", udmabuf_last_error());
	CHECK(udmabuf_close(b) == 0, "close");

	/* O_SYNC: the file is never O_SYNC, sync_mode | 4 maps as if it were. */
	udmabuf_config_set_sync_mode(cfg, 2);
	udmabuf_config_set_dma_mask(cfg, 40);
	udmabuf_config_set_allocator(cfg, "cma");
	udmabuf_config_set_dma_device(cfg, "pci/0000:00:04.0");
	take_log();
	CHECK(udmabuf_alloc(cfg, O_RDONLY | O_SYNC, &b) == 0, "alloc O_RDONLY|O_SYNC");
	snprintf(expect, sizeof(expect),
		 "ioctl=alloc 12388 %o 6 40 3 pci/0000:00:04.0\nioctl=get_info\n",
		 O_RDONLY | O_CLOEXEC);
	LOG_IS(expect, "O_SYNC asks for sync_mode|4, no O_SYNC in the ioctl; mask, cma, device");
	CHECK(b && udmabuf_map(b, 0, 0, PROT_READ | PROT_WRITE, (void **)&p) == -EACCES,
	      "an O_RDONLY buffer refuses a writable mapping");
	CHECK(b && udmabuf_map(b, 0, 0, 0, (void **)&p) == 0 &&
	      udmabuf_unmap_mapping(b, p) == 0,
	      "prot 0 maps it read-only");
	udmabuf_close(b);
	udmabuf_config_set_sync_mode(cfg, 0);
	take_log();
	udmabuf_alloc(cfg, O_RDWR | O_SYNC, &b);
	udmabuf_close(b);
	snprintf(expect, sizeof(expect),
		 "ioctl=alloc 12388 %o 4 40 3 pci/0000:00:04.0\nioctl=get_info\n",
		 O_RDWR | O_CLOEXEC);
	LOG_IS(expect, "O_SYNC with sync_mode 0 asks for 4");

	setenv("UDMABUF_FAKE_ERRNO", "alloc=ENOMEM", 1);
	CHECK(udmabuf_alloc(cfg, O_RDWR, &b) == -ENOMEM && !b && says("process_max"),
	      "ENOMEM names the process_max cap: %s", udmabuf_last_error());
	setenv("UDMABUF_FAKE_ERRNO", "alloc=ENODEV", 1);
	CHECK(udmabuf_alloc(cfg, O_RDWR, &b) == -ENODEV && !b,
	      "the ioctl's errno comes back (ENODEV)");
	unsetenv("UDMABUF_FAKE_ERRNO");

	/* udmabuf_create writes allocator; auto writes nothing. */
	udmabuf_config_free(cfg);
	cfg = udmabuf_config_new();
	udmabuf_config_set_size(cfg, 4096);
	udmabuf_config_set_allocator(cfg, "contig");
	CHECK(creates("al", cfg, "size=4096\nallocator=contig\n"), "create writes allocator");
	udmabuf_config_set_allocator(cfg, "auto");
	CHECK(creates("al", cfg, "size=4096\n"), "and nothing for auto, the module's default");
	udmabuf_config_free(cfg);
}

/* udmabuf_parse_size(): each size and its value, or the errno it gets. */
static void test_sizes(void)
{
	static const struct {
		const char *s;
		uint64_t want;
	} good[] = {
		{ "0", 0 }, { "1", 1 }, { "4096", 4096 }, { "0x1000", 4096 },
		{ "0X1f", 31 }, { "0xABCdef", 0xabcdef },
		{ "010", 10 },			/* decimal, not octal */
		{ "4K", 4096 }, { "4k", 4096 }, { "4KiB", 4096 },
		{ "1M", 1 << 20 }, { "1m", 1 << 20 }, { "3MiB", 3 << 20 },
		{ "2G", UINT64_C(2) << 30 }, { "2g", UINT64_C(2) << 30 },
		{ "1GiB", UINT64_C(1) << 30 }, { "5T", UINT64_C(5) << 40 },
		{ "5t", UINT64_C(5) << 40 }, { "1TiB", UINT64_C(1) << 40 },
		{ "0x10K", 16 << 10 }, { "18446744073709551615", UINT64_MAX },
		{ "0xffffffffffffffff", UINT64_MAX },
		{ "16777215T", UINT64_C(16777215) << 40 },
	};
	static const struct {
		const char *s;
		int err;
	} bad[] = {
		{ "", EINVAL }, { "abc", EINVAL }, { "0x", EINVAL }, { "-1", EINVAL },
		{ "+1", EINVAL }, { " 1", EINVAL }, { "1 ", EINVAL }, { "1\n", EINVAL },
		{ "1.5M", EINVAL }, { "1KB", EINVAL }, { "1Kib", EINVAL },
		{ "1kiB ", EINVAL }, { "1P", EINVAL }, { "4MM", EINVAL },
		{ "12Q", EINVAL }, { "K", EINVAL }, { "0x1g0", EINVAL },
		{ "18446744073709551616", ERANGE }, { "99999999999999999999999", ERANGE },
		{ "0x10000000000000000", ERANGE }, { "16777216T", ERANGE },
		{ "17179869184G", ERANGE }, { "18446744073709551615K", ERANGE },
		{ "99999999999999999999999x", EINVAL },
	};
	uint64_t v;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 0;
		ret = udmabuf_parse_size(good[i].s, &v);
		CHECK(ret == 0 && v == good[i].want,
		      "size '%s' = %" PRIu64 " (got %d, %" PRIu64 ")",
		      good[i].s, good[i].want, ret, v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		ret = udmabuf_parse_size(bad[i].s, &v);
		CHECK(ret == -bad[i].err && v == 12345, "size '%.*s'%s -> %s (got %d)",
		      (int)strcspn(bad[i].s, "\n"), bad[i].s,
		      strchr(bad[i].s, '\n') ? " and a newline" : "",
		      strerror(bad[i].err), ret);
	}
}

/* The device name rule and the limits, as the setters apply them. */
static void test_limits(void)
{
	static const char *const good[] = {
		"udmabuf0", "a.b-c_D9", "x", "...",
		"abcdefghijklmnopqrstuvwxyz012345",	/* 32 characters */
	};
	static const char *const bad[] = {
		"abcdefghijklmnopqrstuvwxyz0123456",	/* 33 */
		"", ".", "..", "a/b", "a b", "caf\xc3\xa9",
	};
	struct udmabuf_config *c = udmabuf_config_new();
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(udmabuf_config_set_device_name(c, good[i]) == 0,
		      "device name '%s' is taken", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(udmabuf_config_set_device_name(c, bad[i]) == -EINVAL,
		      "device name #%zu of the bad ones is refused", i);
	CHECK(strlen(good[4]) == UDMABUF_DEVICE_NAME_MAX,
	      "UDMABUF_DEVICE_NAME_MAX is the longest name taken");
	CHECK(udmabuf_config_set_minor(c, UDMABUF_MINOR_MAX) == 0 &&
	      udmabuf_config_set_minor(c, UDMABUF_MINOR_MAX + 1L) == -ERANGE &&
	      udmabuf_config_set_minor(c, -2) == -ERANGE &&
	      udmabuf_config_set_mode(c, 0777) == 0 &&
	      udmabuf_config_set_mode(c, 01000) == -ERANGE &&
	      udmabuf_config_set_sync_mode(c, UDMABUF_SYNC_MODE_MAX) == 0 &&
	      udmabuf_config_set_sync_mode(c, UDMABUF_SYNC_MODE_MAX + 1) == -ERANGE &&
	      udmabuf_config_set_dma_mask(c, UDMABUF_DMA_MASK_MIN) == 0 &&
	      udmabuf_config_set_dma_mask(c, UDMABUF_DMA_MASK_MIN - 1) == -ERANGE &&
	      udmabuf_config_set_dma_mask(c, UDMABUF_DMA_MASK_MAX) == 0 &&
	      udmabuf_config_set_dma_mask(c, UDMABUF_DMA_MASK_MAX + 1) == -ERANGE &&
	      udmabuf_config_set_dma_mask(c, UDMABUF_DMA_MASK_DEFAULT) == 0,
	      "the setters take the limits of udmabuf.h (minor -1 is any, modes up to 0777) and no more");
	udmabuf_config_free(c);
}

/* The directories, what is missing, and the module's version. */
static void test_module(void)
{
	char mod[1100], ver[16], none[1100];

	snprintf(mod, sizeof(mod), "%s/module", root);
	snprintf(none, sizeof(none), "%s/none", root);
	mkdirs(mod);
	setenv("UDMABUF_MODULE_DIR", mod, 1);
	CHECK(!strcmp(udmabuf_configfs_dir(), cfs) &&
	      !strcmp(udmabuf_sysfs_dir(), sysfs) && !strcmp(udmabuf_dev_dir(), dev),
	      "the directories are those of the environment");
	CHECK(udmabuf_probe() == 0, "probe: the subsystem is there");
	setenv("UDMABUF_CONFIGFS_DIR", none, 1);
	CHECK(udmabuf_probe() == UDMABUF_PROBE_NO_SUBSYS,
	      "probe: loaded, but no subsystem");
	setenv("UDMABUF_MODULE_DIR", none, 1);
	CHECK(udmabuf_probe() == UDMABUF_PROBE_NO_MODULE,
	      "probe: not loaded (configfs is not asked for with the variable set)");
	CHECK(udmabuf_module_version(ver, sizeof(ver)) == -ENOENT && says("not loaded"),
	      "module_version: ENOENT when not loaded: %s", udmabuf_last_error());
	setenv("UDMABUF_CONFIGFS_DIR", cfs, 1);
	setenv("UDMABUF_MODULE_DIR", mod, 1);
	CHECK(udmabuf_module_version(ver, sizeof(ver)) == -ENODATA,
	      "module_version: ENODATA without a version");
	put(mod, "version", "0.1.0\n");
	CHECK(udmabuf_module_version(ver, sizeof(ver)) == 0 && !strcmp(ver, "0.1.0"),
	      "module_version reads it (%s)", ver);
	CHECK(udmabuf_module_version(ver, 3) == -ENAMETOOLONG,
	      "module_version: ENAMETOOLONG for a short buffer");
	unsetenv("UDMABUF_MODULE_DIR");
}

/* Every attribute of a buffer, through udmabuf_listing_new_name(). */
static void test_fields(void)
{
	struct udmabuf_listing *l = NULL;
	const struct udmabuf_entry *e;
	unsigned int maj = 0, min = 0;
	uint64_t a = 0;

	item("fcam", "fcam0");
	attrs(cfs, "fcam", "dev=240:4", "sync_mode=3", "dma_mask=40",
	      "mode=0660", "minor=4", NULL);
	attrs(sysfs, "fcam0", "dev=240:4", "users=2", "dma_coherent=1",
	      "cache_mode=cached", "cache_mode_sync=uncached",
	      "dma_device=pci/0000:00:10.0", NULL);
	e = entry("fcam", UDMABUF_FIELD_ALL);
	CHECK(e, "listing of one buffer by its item name");
	CHECK(e && udmabuf_entry_get_devno(e, &maj, &min) == 0 && maj == 240 &&
	      min == 4 && udmabuf_entry_get_users(e) == 2 &&
	      udmabuf_entry_get_dma_mask(e) == 40 &&
	      udmabuf_entry_get_mode(e) == 0660 &&
	      udmabuf_entry_get_config_minor(e) == 4 &&
	      udmabuf_entry_get_dma_coherent(e) == 1 &&
	      !strcmp(udmabuf_entry_get_dma_device(e), "pci/0000:00:10.0") &&
	      !strcmp(udmabuf_entry_get_cache_mode(e), "cached") &&
	      !strcmp(udmabuf_entry_get_cache_mode_sync(e), "uncached") &&
	      udmabuf_entry_get_placement(e, &a) == -ENODATA,
	      "the 1.2 getters: device number, users, mask, mode, minor, coherence, DMA device, cache modes");
	e = entry("/dev/fcam0", UDMABUF_FIELD_SIZE);
	CHECK(e && !strcmp(udmabuf_entry_get_item(e), "fcam") &&
	      udmabuf_entry_get_users(e) == -1,
	      "/dev/DEV is the buffer whose device is DEV; fields not asked for stay unknown");

	/*
	 * A FIFO where an enabled buffer's node should be: the CPU physical
	 * address is not read through it (open(2) would block the listing).
	 */
	item("ffifo", "ffifo0");
	attrs(sysfs, "ffifo0", "dev=240:41", NULL);
	CHECK(mkfifo(at(dev, "ffifo0"), 0600) == 0, "mkfifo");
	alarmed = 0;
	alarm(2);
	e = entry("ffifo", UDMABUF_FIELD_CPU_PHYS_ADDR);
	alarm(0);
	CHECK(e && !alarmed && udmabuf_entry_get_cpu_phys_addr(e, &a) == -ENODATA,
	      "a FIFO in place of the node is not opened for the CPU physical address (no hang)");

	/* Disabled, placed: the placement; an older module: no dma_device. */
	attrs(cfs, "fplaced", "enable=0", "phys_addr=0x80000000", NULL);
	e = entry("fplaced", UDMABUF_FIELD_ALL);
	CHECK(e && udmabuf_entry_get_placement(e, &a) == 0 && a == 0x80000000 &&
	      !udmabuf_entry_is_enabled(e) &&
	      udmabuf_entry_get_devno(e, &maj, &min) == -ENODATA &&
	      !udmabuf_entry_get_dma_device(e) && !strcmp(udmabuf_entry_get_allocator(e), ""),
	      "a disabled item: its placement, no device number, no dma_device (NULL), no allocator (\"\")");

	/* Disabled: the allocator asked for; it reads empty for auto. */
	attrs(cfs, "fcontig", "enable=0", "allocator=contig", NULL);
	attrs(cfs, "fauto", "enable=0", "allocator=", NULL);
	e = entry("fcontig", UDMABUF_FIELD_ALLOCATOR);
	CHECK(e && !strcmp(udmabuf_entry_get_allocator(e), "contig"),
	      "a disabled item's allocator is the one it asks for (contig)");
	e = entry("fauto", UDMABUF_FIELD_ALLOCATOR);
	CHECK(e && !strcmp(udmabuf_entry_get_allocator(e), "auto"),
	      "a disabled item whose allocator reads empty asks for auto");
	e = entry("fcontig", UDMABUF_FIELD_SIZE);
	CHECK(e && !strcmp(udmabuf_entry_get_allocator(e), ""),
	      "and is not read unless asked for");

	l = (struct udmabuf_listing *)1;
	CHECK(udmabuf_listing_new_name("ghost", 0, &l) == -ENOENT && !l &&
	      says("ghost: look up: no such buffer"),
	      "no such buffer: ENOENT (%s)", udmabuf_last_error());
	CHECK(udmabuf_listing_new_name("/tmp/fcam0", 0, &l) == -EINVAL &&
	      udmabuf_listing_new_name("fcam", 1U << 20, &l) == -EINVAL,
	      "another path, unknown fields: EINVAL");
}

/* The public listing over a fake tree: a configfs item, a process buffer. */
static void test_listing(void)
{
	const struct udmabuf_entry *e, *pe = NULL, *ce = NULL;
	struct udmabuf_listing *l = NULL;
	uint64_t a = 0;
	size_t i, n;

	item("lcam", "lcam0");
	attrs(sysfs, "lcam0", "dev=240:3", "size=8192",
	      "phys_addr=0x0000000040000000", "allocator=page", NULL);
	attrs(sysfs, "proc-77-9", "origin=process", "owner=77 python3",
	      "size=65536", "sync_mode=5", "allocator=contig", NULL);

	l = (struct udmabuf_listing *)1;
	CHECK(udmabuf_listing_new(0x80, &l) == -EINVAL && !l,
	      "listing with unknown flags is EINVAL");
	CHECK(udmabuf_listing_new(0, &l) == 0 && l, "listing");
	n = l ? udmabuf_listing_count(l) : 0;
	for (i = 0; i < n; i++) {
		e = udmabuf_listing_get(l, i);
		if (!strcmp(udmabuf_entry_get_name(e), "proc-77-9"))
			pe = e;
		if (!strcmp(udmabuf_entry_get_name(e), "lcam0"))
			ce = e;
	}
	CHECK(l && !udmabuf_listing_get(l, n), "past the end: NULL");
	CHECK(pe && !strcmp(udmabuf_entry_get_origin(pe), "process") &&
	      !strcmp(udmabuf_entry_get_owner(pe), "77 python3") &&
	      !strcmp(udmabuf_entry_get_item(pe), "") &&
	      !strcmp(udmabuf_entry_get_dev_path(pe), "") &&
	      udmabuf_entry_is_enabled(pe) == 1 &&
	      udmabuf_entry_get_size(pe) == 65536 &&
	      udmabuf_entry_get_sync_mode(pe) == 5 &&
	      !strcmp(udmabuf_entry_get_allocator(pe), "contig"),
	      "a process-scoped buffer: origin, owner, no item, no node, size, sync_mode, allocator");
	CHECK(pe && udmabuf_entry_get_dma_addr(pe, &a) == -ENODATA &&
	      udmabuf_entry_get_cpu_phys_addr(pe, &a) == -ENODATA,
	      "its addresses unknown where they cannot be read: ENODATA");
	CHECK(ce && !strcmp(udmabuf_entry_get_origin(ce), "configfs") &&
	      !udmabuf_entry_get_owner(ce) &&
	      !strcmp(udmabuf_entry_get_item(ce), "lcam") &&
	      udmabuf_entry_get_dma_addr(ce, &a) == 0 && a == 0x40000000 &&
	      !strcmp(udmabuf_entry_get_allocator(ce), "page") &&
	      has(udmabuf_entry_get_dev_path(ce), "/lcam0"),
	      "a configfs buffer: no owner (NULL), its item, DMA address, node");
	udmabuf_listing_free(l);
	udmabuf_listing_free(NULL);

	CHECK(udmabuf_listing_new_fields(UDMABUF_LISTING_ITEMS, 0, &l) == 0,
	      "listing of the items only");
	n = l ? udmabuf_listing_count(l) : 0;
	for (i = 0, pe = ce = NULL; i < n; i++) {
		e = udmabuf_listing_get(l, i);
		if (!*udmabuf_entry_get_item(e))
			pe = e;
		if (!strcmp(udmabuf_entry_get_item(e), "lcam"))
			ce = e;
	}
	CHECK(n && !pe && ce && udmabuf_entry_get_sync_mode(ce) == -1 &&
	      udmabuf_entry_get_dma_addr(ce, &a) == -ENODATA,
	      "has every item and nothing else, and reads no field not asked for");
	udmabuf_listing_free(l);
	CHECK(udmabuf_listing_new_fields(0, UDMABUF_FIELD_SYNC_MODE, &l) == 0,
	      "listing of chosen fields");
	n = l ? udmabuf_listing_count(l) : 0;
	for (i = 0, pe = NULL; i < n; i++)
		if (!strcmp(udmabuf_entry_get_name(udmabuf_listing_get(l, i)), "proc-77-9"))
			pe = udmabuf_listing_get(l, i);
	CHECK(pe && udmabuf_entry_get_sync_mode(pe) == 5 &&
	      udmabuf_entry_get_size(pe) == 0 && !*udmabuf_entry_get_origin(pe),
	      "reads those fields only");
	udmabuf_listing_free(l);
	CHECK(udmabuf_listing_new_fields(0x80, 0, &l) == -EINVAL &&
	      udmabuf_listing_new_fields(0, 1U << 20, &l) == -EINVAL,
	      "unknown flags or fields: EINVAL");

	setenv("UDMABUF_CONFIGFS_DIR", "/nonexistent/config", 1);
	CHECK(udmabuf_listing_new_fields(UDMABUF_LISTING_ITEMS, 0, &l) == -ENOENT &&
	      udmabuf_listing_new_fields(0, 0, &l) == 0,
	      "without the subsystem, the items cannot be listed, the buffers can");
	udmabuf_listing_free(l);
	setenv("UDMABUF_SYSFS_DIR", "/nonexistent/class", 1);
	l = (struct udmabuf_listing *)1;
	CHECK(udmabuf_listing_new(0, &l) == -ENOENT && !l && says("not loaded"),
	      "without the module: ENOENT, and says so: %s", udmabuf_last_error());
	setenv("UDMABUF_CONFIGFS_DIR", cfs, 1);
	setenv("UDMABUF_SYSFS_DIR", sysfs, 1);
}

/*
 * The sync checker: the setter, what udmabuf_create() writes and
 * udmabuf_alloc() asks for, UDMABUF_SYNC_CHECK, the getters of an open
 * buffer and of a listing.
 */
static void test_sync_check(void)
{
	static const char features[] = FEATURES_1_2 ",allocator,sync_check\n";
	static const struct {
		const char *name;
		int mode, ret;
		uint64_t count;
		const char *what;
	} listed[] = {
		{ "scam", 1, 0, 3, "an enabled item: its mode and the device's count" },
		{ "soff", 2, -ENODATA, 0, "a disabled item: the mode it will have, no count" },
		{ "sold", -1, -ENODATA, 0,
		  "a module older than the checker: unknown (-1, ENODATA)" },
	};
	struct udmabuf_config *cfg = udmabuf_config_new();
	const struct udmabuf_entry *e;
	struct udmabuf *b = NULL;
	unsigned int mode = 9;
	uint64_t count = 9;
	char expect[256];
	size_t i;

	CHECK(udmabuf_config_set_sync_check(cfg, UDMABUF_SYNC_CHECK_MAX + 1) == -ERANGE &&
	      says("sync_check 3"),
	      "set_sync_check refuses %d with ERANGE, as the module: %s",
	      UDMABUF_SYNC_CHECK_MAX + 1, udmabuf_last_error());
	CHECK(UDMABUF_SYNC_CHECK_OFF == 0 && UDMABUF_SYNC_CHECK_REPORT == 1 &&
	      UDMABUF_SYNC_CHECK_SIGBUS == 2 && UDMABUF_SYNC_CHECK_MAX == 2 &&
	      udmabuf_config_set_sync_check(cfg, UDMABUF_SYNC_CHECK_OFF) == 0 &&
	      udmabuf_config_set_sync_check(cfg, UDMABUF_SYNC_CHECK_SIGBUS) == 0 &&
	      udmabuf_config_set_sync_check(cfg, UDMABUF_SYNC_CHECK_REPORT) == 0,
	      "set_sync_check takes off, report and sigbus (0, 1, 2)");

	/* create: written after sync_mode, only when on. */
	put(cfs, "features", features);
	udmabuf_config_set_size(cfg, 4096);
	udmabuf_config_set_sync_mode(cfg, 0);
	CHECK(creates("sc", cfg, "size=4096\nsync_mode=0\nsync_check=1\n"),
	      "create writes sync_check after sync_mode");
	udmabuf_config_set_sync_check(cfg, UDMABUF_SYNC_CHECK_OFF);
	CHECK(creates("sc", cfg, "size=4096\nsync_mode=0\n"),
	      "and nothing for off, the module's default");

	/* UDMABUF_SYNC_CHECK: the stronger of it and the configuration. */
	setenv("UDMABUF_SYNC_CHECK", "report", 1);
	CHECK(creates("sc", cfg, "size=4096\nsync_mode=0\nsync_check=1\n"),
	      "UDMABUF_SYNC_CHECK=report turns it on for a configuration set to off");
	CHECK(creates("sc", NULL, "size=0\nsync_check=1\n"), "and without a configuration");
	udmabuf_config_set_sync_check(cfg, UDMABUF_SYNC_CHECK_SIGBUS);
	CHECK(creates("sc", cfg, "size=4096\nsync_mode=0\nsync_check=2\n"),
	      "it never lowers what the configuration asks (sigbus stays)");
	setenv("UDMABUF_SYNC_CHECK", "sigbus", 1);
	udmabuf_config_set_sync_check(cfg, UDMABUF_SYNC_CHECK_REPORT);
	CHECK(creates("sc", cfg, "size=4096\nsync_mode=0\nsync_check=2\n"),
	      "UDMABUF_SYNC_CHECK=sigbus raises report to sigbus");
	udmabuf_config_set_sync_check(cfg, UDMABUF_SYNC_CHECK_OFF);
	setenv("UDMABUF_SYNC_CHECK", "off", 1);
	CHECK(creates("sc", cfg, "size=4096\nsync_mode=0\n"), "UDMABUF_SYNC_CHECK=off is none");
	setenv("UDMABUF_SYNC_CHECK", "", 1);
	CHECK(creates("sc", cfg, "size=4096\nsync_mode=0\n"),
	      "an empty UDMABUF_SYNC_CHECK is none");
	setenv("UDMABUF_SYNC_CHECK", "1", 1);
	take_log();
	CHECK(udmabuf_create("sc", cfg, 0) == -EINVAL && !exists(cfs, "sc") &&
	      !strcmp(take_log(), "") &&
	      !strcmp(udmabuf_last_error(),
		      "sc: UDMABUF_SYNC_CHECK='1' is not report, sigbus or off: "
		      "Invalid argument") && step_is(""),
	      "a bad UDMABUF_SYNC_CHECK is EINVAL, before anything is made, and says so: %s",
	      udmabuf_last_error());

	/* A module without the attribute: refused before anything is made. */
	put(cfs, "features", FEATURES_1_2 "\n");
	setenv("UDMABUF_SYNC_CHECK", "report", 1);
	take_log();
	CHECK(udmabuf_create("sc", cfg, 0) == -EOPNOTSUPP && !exists(cfs, "sc") &&
	      !strcmp(take_log(), "") && step_is("sync_check") &&
	      says("sc: set sync_check (the loaded module cannot)"),
	      "a checker asked of a module without one: EOPNOTSUPP, nothing made: %s",
	      udmabuf_last_error());
	unsetenv("UDMABUF_SYNC_CHECK");
	CHECK(creates("sc", cfg, NULL), "a configuration with it off needs no such module");
	put(cfs, "features", features);

	/* alloc: the request's field; the variable too. */
	put(dev, "udmabuf-cfs", "");
	udmabuf_config_set_sync_mode(cfg, 1);
	udmabuf_config_set_sync_check(cfg, UDMABUF_SYNC_CHECK_SIGBUS);
	take_log();
	CHECK(udmabuf_alloc(cfg, O_RDWR, &b) == 0, "alloc with sync_check sigbus");
	snprintf(expect, sizeof(expect),
		 "ioctl=alloc 4096 %o 1 0 0  sync_check=2\nioctl=get_info\n",
		 O_RDWR | O_CLOEXEC);
	LOG_IS(expect, "the request's sync_check is 2");
	CHECK(b && udmabuf_get_sync_check(b, &mode) == 0 && mode == 2 &&
	      udmabuf_get_sync_violations(b, &count) == 0 && count == 0,
	      "GET_INFO tells the mode (2) and the count (0)");
	if (b) {
		attrs(sysfs, udmabuf_get_name(b), "sync_violations=12", NULL);
		count = 0;
		CHECK(udmabuf_get_sync_violations(b, &count) == 0 && count == 12,
		      "the count is the module's now (12), one ioctl");
		e = entry(udmabuf_get_name(b),
			  UDMABUF_FIELD_SYNC_CHECK | UDMABUF_FIELD_SYNC_VIOLATIONS);
		CHECK(e && udmabuf_entry_get_sync_check(e) == 2 &&
		      udmabuf_entry_get_sync_violations(e, &count) == 0 && count == 12,
		      "a listing reads them from sysfs");
		e = entry(udmabuf_get_name(b), UDMABUF_FIELD_ALL);
		CHECK(e && udmabuf_entry_get_sync_check(e) == -1 &&
		      udmabuf_entry_get_sync_violations(e, &count) == -ENODATA,
		      "UDMABUF_FIELD_ALL is 1.2's: they stay unknown (-1, ENODATA)");
	}
	udmabuf_close(b);
	udmabuf_config_set_sync_check(cfg, UDMABUF_SYNC_CHECK_OFF);
	setenv("UDMABUF_SYNC_CHECK", "report", 1);
	take_log();
	udmabuf_alloc(cfg, O_RDWR, &b);
	udmabuf_close(b);
	CHECK(has(take_log(), " sync_check=1\n"),
	      "UDMABUF_SYNC_CHECK=report turns it on for alloc");
	setenv("UDMABUF_SYNC_CHECK", "Report", 1);
	b = (struct udmabuf *)1;
	CHECK(udmabuf_alloc(cfg, O_RDWR, &b) == -EINVAL && !b &&
	      !strcmp(take_log(), "") &&
	      says("UDMABUF_SYNC_CHECK='Report' is not report, sigbus or off"),
	      "a bad one fails alloc with EINVAL before the ioctl: %s",
	      udmabuf_last_error());
	/* A module older than the checker: EINVAL for the reserved word. */
	setenv("UDMABUF_SYNC_CHECK", "report", 1);
	setenv("UDMABUF_FAKE_ERRNO", "alloc=EINVAL", 1);
	put(cfs, "features", "size,enable\n");
	CHECK(udmabuf_alloc(cfg, O_RDWR, &b) == -EOPNOTSUPP &&
	      says("the loaded module has no sync checker"),
	      "alloc asking a module without the checker for it: EOPNOTSUPP, and why: %s",
	      udmabuf_last_error());
	unsetenv("UDMABUF_SYNC_CHECK");
	CHECK(udmabuf_alloc(cfg, O_RDWR, &b) == -EINVAL,
	      "without a checker asked for, its EINVAL stays EINVAL");
	unsetenv("UDMABUF_FAKE_ERRNO");
	put(cfs, "features", features);
	unlink(logf);

	/* A listing: an item's mode (also disabled), the device's count. */
	item("scam", "scam0");
	attrs(cfs, "scam", "dev=240:7", "sync_check=1", NULL);
	attrs(sysfs, "scam0", "dev=240:7", "sync_check=1", "sync_violations=3", NULL);
	attrs(cfs, "soff", "enable=0", "sync_check=2", NULL);
	attrs(sysfs, "sold", "dev=240:8", NULL);
	for (i = 0; i < sizeof(listed) / sizeof(listed[0]); i++) {
		count = 0;
		e = entry(listed[i].name, UDMABUF_FIELD_SYNC_CHECK | UDMABUF_FIELD_SYNC_VIOLATIONS);
		CHECK(e && udmabuf_entry_get_sync_check(e) == listed[i].mode &&
		      udmabuf_entry_get_sync_violations(e, &count) == listed[i].ret &&
		      count == listed[i].count, "%s", listed[i].what);
	}
	udmabuf_destroy("scam", UDMABUF_DESTROY_FORCE);
	udmabuf_destroy("soff", UDMABUF_DESTROY_FORCE);
	udmabuf_config_free(cfg);
}

int main(int argc, char **argv)
{
	struct sigaction alarm_action = { .sa_handler = on_alarm };

	if (argc != 2) {
		fprintf(stderr, "usage: test_lib TMPDIR\n");
		return 2;
	}
	snprintf(root, sizeof(root), "%s", argv[1]);
	snprintf(cfs, sizeof(cfs), "%s/config/udmabuf", root);
	snprintf(sysfs, sizeof(sysfs), "%s/class/udmabuf", root);
	snprintf(dev, sizeof(dev), "%s/dev", root);
	snprintf(logf, sizeof(logf), "%s/log", root);
	sigaction(SIGALRM, &alarm_action, NULL);
	mkdirs(cfs);
	mkdirs(sysfs);
	mkdirs(dev);
	setenv("UDMABUF_CONFIGFS_DIR", cfs, 1);
	setenv("UDMABUF_SYSFS_DIR", sysfs, 1);
	setenv("UDMABUF_DEV_DIR", dev, 1);
	setenv("UDMABUF_FAKE_DEV_DIR", dev, 1);
	setenv("UDMABUF_FAKE_LOG", logf, 1);

	CHECK(!strcmp(udmabuf_library_version(), "1.3.0"), "library version %s",
	      udmabuf_library_version());
	CHECK(!strcmp(udmabuf_last_error(), ""), "no error before any failure");
	test_open_map_sync();
	test_open_not_a_buffer();
	test_create();
	test_alloc();
	test_listing();
	test_sizes();
	test_limits();
	test_module();
	test_fields();
	test_sync_check();
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
