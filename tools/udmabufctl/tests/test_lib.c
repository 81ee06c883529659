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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "udmabuf.h"

static int tests, failures;
static char root[1024], cfs[1100], sysfs[1100], dev[1100], logf[1100];

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

static void put(const char *dir, const char *name, const char *text)
{
	char path[2300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
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
	char path[2300];
	unsigned char *b = malloc(size);
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dev, name);
	for (i = 0; i < size; i++)
		b[i] = (unsigned char)i;
	f = fopen(path, "w");
	if (!b || !f || fwrite(b, 1, size, f) != size || fclose(f)) {
		perror(path);
		exit(2);
	}
	free(b);
}

/* An enabled configfs item ITEM whose device is DEVNAME. */
static void item(const char *name, const char *devname)
{
	char dir[2300];

	snprintf(dir, sizeof(dir), "%s/%s", cfs, name);
	mkdirs(dir);
	put(dir, "device_name", devname);
	put(dir, "enable", "1\n");
	put(dir, "size", "8192\n");
}

static int exists(const char *dir, const char *name)
{
	char path[2300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
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
	return strstr(s, what) != NULL;
}

static void *thread_fails(void *arg)
{
	struct udmabuf *b;

	(void)arg;
	udmabuf_open("threadghost", O_RDWR, &b);
	return strstr(udmabuf_last_error(), "threadghost") ? (void *)1 : NULL;
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
	char *log;
	int fd;

	CHECK(udmabuf_open("ghost", O_RDWR, &b) == -ENOENT && !b,
	      "open of a missing buffer is ENOENT");
	CHECK(has(udmabuf_last_error(), "ghost") &&
	      has(udmabuf_last_error(), "No such file"),
	      "its message names the buffer and the reason: %s",
	      udmabuf_last_error());
	CHECK(pthread_create(&t, NULL, thread_fails, NULL) == 0 &&
	      pthread_join(t, &tret) == 0 && tret &&
	      has(udmabuf_last_error(), "ghost") &&
	      !has(udmabuf_last_error(), "threadghost"),
	      "the last error is per thread");

	put(root, "plain", "not a device");
	{
		char path[2300];

		snprintf(path, sizeof(path), "%s/plain", root);
		CHECK(udmabuf_open(path, O_RDWR, &b) == -ENOTTY,
		      "a file that is not a udmabuf-cfs device is ENOTTY");
	}
	CHECK(has(udmabuf_last_error(), "not a udmabuf-cfs device"),
	      "and says so: %s", udmabuf_last_error());
	CHECK(udmabuf_open("buf0", O_WRONLY, &b) == -EINVAL,
	      "O_WRONLY is refused (a mapping needs read access)");

	node("buf0", 3 * 4096 + 100);
	take_log();
	CHECK(udmabuf_open("buf0", O_RDWR, &b) == 0 && b,
	      "open by device name");
	CHECK(udmabuf_get_size(b) == 3 * 4096 + 100 &&
	      !strcmp(udmabuf_get_name(b), "buf0") &&
	      !strcmp(udmabuf_get_driver_version(b), "fake"),
	      "size, name and driver version come from GET_INFO");
	CHECK(udmabuf_get_dma_addr(b, &addr) == 0 && addr == 0x3f000000 &&
	      udmabuf_get_phys_addr(b, &addr) == 0 && addr == 0x3f000000 &&
	      udmabuf_get_flags(b, &flags) == 0 && flags == 0 &&
	      udmabuf_get_sync_mode(b, &mode) == 0 && mode == 1,
	      "DMA and physical address, flags and sync mode through the ioctl");
	log = take_log();
	CHECK(!has(log, "phys_addr"), "nothing reads the root-only phys_addr file");

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

	CHECK(udmabuf_map(b, 4096 + 5, 10, 0, (void **)&p) == 0 &&
	      p[0] == (unsigned char)(4096 + 5) && p[9] == (unsigned char)(4096 + 14),
	      "a range at an unaligned offset maps the right bytes");
	CHECK(udmabuf_unmap(p, 10) == 0, "and unmaps");
	CHECK(udmabuf_map(b, 0, 0, 0, (void **)&p) == 0 && p[4096 * 3 + 99] == 99,
	      "length 0 maps to the end");
	p[1] = 0xa5;
	CHECK(udmabuf_unmap(p, udmabuf_get_size(b)) == 0, "the whole map unmaps");
	CHECK(udmabuf_map(b, 4096, 3 * 4096, 0, (void **)&p) == -EINVAL &&
	      has(udmabuf_last_error(), "outside the buffer"),
	      "a range past the end is EINVAL and says so");
	CHECK(udmabuf_map(b, 0, 0, PROT_EXEC, (void **)&p) == -EINVAL,
	      "PROT_EXEC is refused");

	take_log();
	CHECK(udmabuf_sync_for_device(b, 4096, 100, UDMABUF_DIR_TO_DEVICE) == 0 &&
	      udmabuf_sync_for_cpu(b, 0, 0, UDMABUF_DIR_FROM_DEVICE) == 0,
	      "syncs succeed");
	log = take_log();
	CHECK(!strcmp(log, "ioctl=sync_for_device 4096 100 1\n"
			   "ioctl=sync_for_cpu 0 0 2\n"),
	      "each sync is one ioctl on the open fd, nothing else");
	CHECK(udmabuf_sync_for_cpu(b, 4096 * 4, 1, 0) == -EINVAL,
	      "a range outside the buffer is EINVAL (from the kernel)");
	CHECK(udmabuf_sync_for_cpu(b, 0, 0, 3) == -EINVAL &&
	      has(udmabuf_last_error(), "direction 3"),
	      "a bad direction is refused before the ioctl");
	CHECK(udmabuf_export_dmabuf(b, 0, 0, O_RDWR) == -EOPNOTSUPP ||
	      udmabuf_export_dmabuf(b, 0, 0, O_RDWR) == -ENOTTY,
	      "dma-buf export without a module that can is EOPNOTSUPP");

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
	CHECK(udmabuf_open("b", O_RDONLY, &b) == 0 &&
	      !strcmp(udmabuf_get_name(b), "c") && udmabuf_get_size(b) == 8192,
	      "a bare name is the configfs item first");
	udmabuf_close(b);
	{
		char path[2300];

		snprintf(path, sizeof(path), "%s/b", dev);
		CHECK(udmabuf_open(path, O_RDONLY, &b) == 0 &&
		      !strcmp(udmabuf_get_name(b), "b") &&
		      udmabuf_get_size(b) == 4096,
		      "a path is the device node");
		udmabuf_close(b);
		CHECK(udmabuf_destroy(path, 0) == 0 && !exists(cfs, "a") &&
		      exists(cfs, "b"),
		      "destroy of a path removes the item whose device it is");
	}
	CHECK(udmabuf_destroy("b", 0) == 0 && !exists(cfs, "b"),
	      "destroy of a name removes that item");
	{
		char dir[2300];

		snprintf(dir, sizeof(dir), "%s/off", cfs);
		mkdirs(dir);
		put(dir, "enable", "0\n");
		CHECK(udmabuf_open("off", O_RDWR, &b) == -ENODEV &&
		      has(udmabuf_last_error(), "not enabled"),
		      "open of a disabled item is ENODEV");
		udmabuf_destroy("off", 0);
	}
}

static void test_create(void)
{
	struct udmabuf_config *cfg = udmabuf_config_new();
	char *log, dir[2300];

	CHECK(cfg != NULL, "config_new");
	CHECK(udmabuf_config_set_minor(cfg, -2) == -ERANGE &&
	      udmabuf_config_set_minor(cfg, 1048576) == -ERANGE &&
	      udmabuf_config_set_sync_mode(cfg, 8) == -ERANGE &&
	      udmabuf_config_set_dma_mask(cfg, 11) == -ERANGE &&
	      udmabuf_config_set_dma_mask(cfg, 65) == -ERANGE &&
	      udmabuf_config_set_mode(cfg, 01000) == -ERANGE,
	      "setters refuse values out of range");
	CHECK(udmabuf_config_set_device_name(cfg, "a/b") == -EINVAL &&
	      udmabuf_config_set_device_name(cfg, "..") == -EINVAL &&
	      udmabuf_config_set_dma_device(cfg, "pci") == -EINVAL &&
	      udmabuf_config_set_dma_device(cfg, "/x") == -EINVAL &&
	      udmabuf_config_set_attr(cfg, "enable", "1") == -EINVAL &&
	      udmabuf_config_set_attr(cfg, "../x", "1") == -EINVAL,
	      "setters refuse malformed values");
	CHECK(has(udmabuf_last_error(), "../x"), "and name them: %s",
	      udmabuf_last_error());

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
	CHECK(has(udmabuf_last_error(), "cam: set dma_device"),
	      "the message names the buffer and the step: %s",
	      udmabuf_last_error());
	put(cfs, "features", "size,minor,device_name,sync_mode,dma_mask,mode,dma_device,enable,phys_addr,dev\n");
	take_log();
	CHECK(udmabuf_create("cam", cfg, 0) == 0, "create with every attribute");
	log = take_log();
	CHECK(!strcmp(log, "size=65536\nminor=7\nsync_mode=2\ndma_mask=40\n"
			   "mode=0660\ndevice_name=cam.0\nfuture=x y\n"
			   "dma_device=pci/0000:00:04.0\nphys_addr=0x80000000\n"
			   "enable=1\n"),
	      "attributes written in order, dma_device and phys_addr just before enable");
	if (strcmp(log, "size=65536\nminor=7\nsync_mode=2\ndma_mask=40\n"
			"mode=0660\ndevice_name=cam.0\nfuture=x y\n"
			"dma_device=pci/0000:00:04.0\nphys_addr=0x80000000\n"
			"enable=1\n"))
		printf("#   log: %s\n", log);
	CHECK(udmabuf_create("cam", cfg, 0) == -EEXIST &&
	      has(udmabuf_last_error(), "cam: create"),
	      "create of an existing item is EEXIST");
	CHECK(udmabuf_destroy("cam", 0) == 0 && !exists(cfs, "cam"), "destroy");
	log = take_log();
	CHECK(!strcmp(log, "enable=0\n"), "destroy disables, then removes");

	setenv("UDMABUF_FAKE_ERRNO", "enable=ENOMEM", 1);
	CHECK(udmabuf_create("cam", cfg, 0) == -ENOMEM && !exists(cfs, "cam") &&
	      has(udmabuf_last_error(), "cam: enable: Cannot allocate memory"),
	      "a refused enable leaves nothing behind and says so: %s",
	      udmabuf_last_error());
	unsetenv("UDMABUF_FAKE_ERRNO");
	take_log();
	CHECK(udmabuf_create("cam", NULL, UDMABUF_CREATE_NO_ENABLE) == 0 &&
	      exists(cfs, "cam") && !strcmp(take_log(), "size=0\n"),
	      "NO_ENABLE without a config makes a disabled item");
	setenv("UDMABUF_FAKE_ERRNO", "enable=EBUSY", 1);
	CHECK(udmabuf_destroy("cam", 0) == -EBUSY && exists(cfs, "cam") &&
	      has(udmabuf_last_error(), "open or mapped"),
	      "destroy of a busy buffer is EBUSY");
	CHECK(udmabuf_destroy("cam", UDMABUF_DESTROY_FORCE) == 0 &&
	      !exists(cfs, "cam"), "FORCE removes it anyway");
	unsetenv("UDMABUF_FAKE_ERRNO");

	snprintf(dir, sizeof(dir), "%s/param0", sysfs);
	mkdirs(dir);
	CHECK(udmabuf_destroy("param0", 0) == -EPERM &&
	      has(udmabuf_last_error(), "not made through configfs"),
	      "destroy of a parameter buffer is EPERM");
	CHECK(udmabuf_destroy("ghost", 0) == -ENOENT, "destroy of nothing is ENOENT");
	CHECK(udmabuf_create("a/b", NULL, 0) == -EINVAL &&
	      udmabuf_create("ok", NULL, 0x80) == -EINVAL,
	      "create refuses a bad name or unknown flags");
	CHECK(udmabuf_module_has_feature("dma_device") == 1 &&
	      udmabuf_module_has_feature("teleport") == 0,
	      "module_has_feature reads features");
	udmabuf_config_free(cfg);
	udmabuf_config_free(NULL);
}

int main(int argc, char **argv)
{
	uint64_t v;

	if (argc != 2) {
		fprintf(stderr, "usage: test_lib TMPDIR\n");
		return 2;
	}
	snprintf(root, sizeof(root), "%s", argv[1]);
	snprintf(cfs, sizeof(cfs), "%s/config/udmabuf", root);
	snprintf(sysfs, sizeof(sysfs), "%s/class/udmabuf", root);
	snprintf(dev, sizeof(dev), "%s/dev", root);
	snprintf(logf, sizeof(logf), "%s/log", root);
	mkdirs(cfs);
	mkdirs(sysfs);
	mkdirs(dev);
	setenv("UDMABUF_CONFIGFS_DIR", cfs, 1);
	setenv("UDMABUF_SYSFS_DIR", sysfs, 1);
	setenv("UDMABUF_DEV_DIR", dev, 1);
	setenv("UDMABUF_FAKE_DEV_DIR", dev, 1);
	setenv("UDMABUF_FAKE_LOG", logf, 1);

	CHECK(!strcmp(udmabuf_library_version(), "1.1.0"), "library version %s",
	      udmabuf_library_version());
	CHECK(!strcmp(udmabuf_last_error(), ""), "no error before any failure");
	CHECK(udmabuf_parse_size("4M", &v) == 0 && v == 4 << 20 &&
	      udmabuf_parse_size("4Q", &v) == -EINVAL, "parse_size");
	test_open_map_sync();
	test_create();
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
