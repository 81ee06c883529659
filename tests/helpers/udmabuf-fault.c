// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-fault - fail the Nth allocation of one system call, N = 1, 2, ...,
 * for the fault-injection tests of udmabuf-cfs on a debug kernel: write
 * "1" to ITEM/enable, make a configfs item (mkdir) or load the module
 * (insmod), as --help shows, with the options
 *
 *   --gone PATH        PATH must not exist after a failure either
 *   --allow ERR=TEXT   a failure may also be ERR (EINVAL, ...) when the
 *                      kernel logged a line containing TEXT during the call:
 *                      for errnos that core code chooses on its own
 *
 * Each command makes its call with /proc/thread-self/fail-nth set to N, so
 * that the Nth fault-injection point that this thread passes fails (which
 * points count is for the caller to set up: failslab / fail_page_alloc and
 * their stack-trace filters), reads fail-nth back (0: a fault was
 * injected), disarms it, and checks the outcome:
 *
 *   - a failure must be ENOMEM (or an --allow'ed errno), caused by the
 *     injected fault, and leave nothing behind: for enable, the item reads
 *     disabled and there is no device node, class device or DMA mapping of
 *     the device; for mkdir, no directory; for insmod, no module, configfs
 *     subsystem, class, major, platform driver, device node or DMA mapping;
 *     nor any --gone PATH;
 *   - a success, even with a fault injected (into an allocation that may
 *     fail, such as a uevent), must give a working result: a device that
 *     opens, reports its size and keeps data through mmap and read(); it is
 *     then undone (enable=0, rmdir, rmmod), which must succeed and leave
 *     nothing behind either.
 *
 * N grows until the call succeeds with no fault injected.  The summary line
 * "COMMAND: N calls, K failed with ENOMEM, S succeeded despite a fault"
 * ends a good run (exit 0); a broken rule prints a line starting with FAIL
 * and exits 1; usage errors exit 64.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#define EXIT_FAILED	1

static const char *prog = "udmabuf-fault";

#include "udmabuf-helpers.h"

#define MODNAME		"udmabuf_cfs"
#define CFS		"/sys/kernel/config/udmabuf"
#define CLASS		"/sys/class/udmabuf"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define DMA_DUMP	"/sys/kernel/debug/dma-api/dump"
#define KMSG		"/dev/kmsg"
#define MAX_NTH		5000
#define MAX_GONE	8
#define MAX_PARAMS	8
#define SEED		0x2545f4914f6cdd1dULL

static bool failed;

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed = true;
}

static const char *err_name(int err)
{
	return err ? errno_name(err) : "OK";
}

/* ---- what a call is, and what it must leave ---- */

struct target;

struct target_ops {
	const char *what;
	bool (*prepare)(struct target *t);	/* outside the armed window */
	int (*call)(struct target *t);		/* 0 or errno */
	void (*after)(struct target *t);	/* prepare and after: optional */
	bool (*works)(struct target *t);	/* the result of a success */
	int (*undo)(struct target *t);		/* 0 or errno */
	bool (*clean)(struct target *t);	/* nothing left of a failure */
};

struct target {
	const struct target_ops *ops;
	const char *path;		/* item, directory or module file */
	char dev[64];			/* device name of an item */
	char file[256];			/* ITEM/enable or the module file, */
	int file_flags;			/* opened with these */
	int fd;				/* by open_file() */
	char params[512];
	int nparams;
	int param_minor[MAX_PARAMS];
	const char *gone[MAX_GONE];
	int ngone;
	int allow_err;			/* --allow: this errno, */
	const char *allow_text;		/* if the kernel logged this */
	int kmsg;			/* /dev/kmsg, at the end before a call */
};

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static bool must_be_gone(const char *path, const char *after)
{
	if (!exists(path))
		return true;
	fail("%s: %s still exists", after, path);
	return false;
}

static bool gone_all(struct target *t, const char *after)
{
	bool ok = true;
	int i;

	for (i = 0; i < t->ngone; i++)
		ok = must_be_gone(t->gone[i], after) && ok;
	return ok;
}

static bool attr_is(const char *item, const char *attr, const char *want,
		    const char *after)
{
	char path[256], val[64];

	snprintf(path, sizeof(path), "%s/%s", item, attr);
	if (!read_file(path, val, sizeof(val)) && !strcmp(val, want))
		return true;
	fail("%s: %s reads \"%s\", want \"%s\"", after, path, val, want);
	return false;
}

/*
 * DMA-API debugging lists every live DMA allocation with its device:
 * "udmabuf NAME ..." for a buffer (@name NULL: any buffer).
 */
static bool no_dma_entries(const char *name, const char *after)
{
	char line[512], drv[64], dev[128];
	bool ok = true;
	FILE *f = fopen(DMA_DUMP, "re");

	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %127s", drv, dev) == 2 &&
		    !strcmp(drv, "udmabuf") && (!name || !strcmp(dev, name))) {
			fail("%s: a DMA allocation is left: %s", after, line);
			ok = false;
		}
	fclose(f);
	return ok;
}

/* ---- a device that works ---- */

/* Open /dev/@dev, check its size, write through mmap and read it back. */
static bool device_works(const char *dev, uint64_t want_size, const char *after)
{
	struct udmabuf_cfs_info info;
	char path[128], val[32];
	void *map;
	bool ok = false;
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fail("%s: open %s: %s", after, path, err_name(errno));
		return false;
	}
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, UDMABUF_CFS_IOC_GET_INFO, &info) ||
	    (want_size && info.size != want_size) || !info.size) {
		fail("%s: %s: GET_INFO: %s, size %llu (want %" PRIu64 ")", after,
		     path, err_name(errno), (unsigned long long)info.size, want_size);
		goto out;
	}
	snprintf(path, sizeof(path), CLASS "/%s/size", dev);
	if (read_file(path, val, sizeof(val)) || strtoull(val, NULL, 10) != info.size) {
		fail("%s: %s reads \"%s\", GET_INFO says %llu", after, path, val,
		     (unsigned long long)info.size);
		goto out;
	}
	snprintf(path, sizeof(path), "/dev/%s", dev);
	map = mmap(NULL, info.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fail("%s: mmap %s: %s", after, path, err_name(errno));
		goto out;
	}
	map_fill(map, 0, info.size, SEED);
	munmap(map, info.size);
	if (fd_pattern(fd, FD_CHECK, 0, info.size, SEED, path)) {
		fail("%s: %s: the data written through mmap reads back wrong",
		     after, path);
		goto out;
	}
	ok = true;
out:
	close(fd);
	return ok;
}

/* ---- enable ---- */

/* The prepare of enable and insmod. */
static bool open_file(struct target *t)
{
	t->fd = open(t->file, t->file_flags | O_CLOEXEC);
	if (t->fd < 0)
		fail("open %s: %s", t->file, err_name(errno));
	return t->fd >= 0;
}

static int enable_call(struct target *t)
{
	return write(t->fd, "1", 1) < 0 ? errno : 0;
}

static void close_fd(struct target *t)
{
	close(t->fd);
	t->fd = -1;
}

static bool enable_clean(struct target *t)
{
	const char *after = "after a failed enable";
	char path[256];
	bool ok;

	ok = attr_is(t->path, "enable", "0\n", after);
	ok = attr_is(t->path, "dev", "", after) && ok;
	snprintf(path, sizeof(path), "/dev/%s", t->dev);
	ok = must_be_gone(path, after) && ok;
	snprintf(path, sizeof(path), CLASS "/%s", t->dev);
	ok = must_be_gone(path, after) && ok;
	ok = no_dma_entries(t->dev, after) && ok;
	return gone_all(t, after) && ok;
}

static bool enable_works(struct target *t)
{
	char path[256], val[32];

	snprintf(path, sizeof(path), "%s/size", t->path);
	if (read_file(path, val, sizeof(val))) {
		fail("cannot read %s", path);
		return false;
	}
	return attr_is(t->path, "enable", "1\n", "after enable") &&
	       device_works(t->dev, strtoull(val, NULL, 0), "after enable");
}

static int enable_undo(struct target *t)
{
	return write_file(t->file, "0");
}

static const struct target_ops enable_ops = {
	"enable", open_file, enable_call, close_fd, enable_works,
	enable_undo, enable_clean,
};

static bool enable_init(struct target *t, const char *item)
{
	char path[256];

	t->ops = &enable_ops;
	t->path = item;
	snprintf(t->file, sizeof(t->file), "%s/enable", item);
	t->file_flags = O_WRONLY;
	snprintf(path, sizeof(path), "%s/device_name", item);
	if (read_file(path, t->dev, sizeof(t->dev)) || !t->dev[0]) {
		fail("cannot read %s", path);
		return false;
	}
	t->dev[strcspn(t->dev, "\n")] = '\0';
	return true;
}

/* ---- mkdir ---- */

static int mkdir_call(struct target *t)
{
	return mkdir(t->path, 0755) ? errno : 0;
}

static bool mkdir_clean(struct target *t)
{
	return must_be_gone(t->path, "after a failed mkdir") &&
	       gone_all(t, "after a failed mkdir");
}

static bool mkdir_works(struct target *t)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/enable", t->path);
	return attr_is(t->path, "size", "0\n", "after mkdir") &&
	       (exists(path) || (fail("after mkdir: no %s", path), false));
}

static int mkdir_undo(struct target *t)
{
	return rmdir(t->path) ? errno : 0;
}

static const struct target_ops mkdir_ops = {
	"mkdir", NULL, mkdir_call, NULL, mkdir_works, mkdir_undo, mkdir_clean,
};

/* ---- insmod ---- */

static int insmod_call(struct target *t)
{
	return syscall(SYS_finit_module, t->fd, t->params, 0) ? errno : 0;
}

static bool udmabuf_major(void)
{
	char line[128], name[64];
	unsigned int major;
	bool found = false;
	FILE *f = fopen("/proc/devices", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %63s", &major, name) == 2 &&
		    !strcmp(name, "udmabuf"))
			found = true;
	fclose(f);
	return found;
}

static bool insmod_clean(struct target *t)
{
	const char *after = "after a failed insmod";
	static const char *const paths[] = {
		"/sys/module/" MODNAME, CFS, CLASS,
		"/sys/bus/platform/drivers/udmabuf-cfs",
	};
	char path[64];
	bool ok = true;
	unsigned int i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		ok = must_be_gone(paths[i], after) && ok;
	for (i = 0; i < (unsigned int)t->nparams; i++) {
		snprintf(path, sizeof(path), "/dev/udmabuf%d", t->param_minor[i]);
		ok = must_be_gone(path, after) && ok;
	}
	if (udmabuf_major()) {
		fail("%s: /proc/devices still lists udmabuf", after);
		ok = false;
	}
	ok = no_dma_entries(NULL, after) && ok;
	return gone_all(t, after) && ok;
}

static bool insmod_works(struct target *t)
{
	char name[32];
	bool ok = true;
	int i;

	if (!exists(CFS)) {
		fail("after insmod: no %s", CFS);
		return false;
	}
	for (i = 0; i < t->nparams; i++) {
		snprintf(name, sizeof(name), "udmabuf%d", t->param_minor[i]);
		ok = device_works(name, 0, "after insmod") && ok;
	}
	return ok;
}

static int insmod_undo(struct target *t)
{
	(void)t;
	return syscall(SYS_delete_module, MODNAME, O_NONBLOCK) ? errno : 0;
}

static const struct target_ops insmod_ops = {
	"insmod", open_file, insmod_call, close_fd, insmod_works,
	insmod_undo, insmod_clean,
};

static bool insmod_init(struct target *t, int argc, char **argv)
{
	size_t used = 0;
	int i, minor;

	t->ops = &insmod_ops;
	t->path = argv[0];
	snprintf(t->file, sizeof(t->file), "%s", argv[0]);
	t->file_flags = O_RDONLY;
	for (i = 1; i < argc; i++) {
		used += (size_t)snprintf(t->params + used, sizeof(t->params) - used,
					 "%s%s", i > 1 ? " " : "", argv[i]);
		if (used >= sizeof(t->params))
			return false;
		if (sscanf(argv[i], "udmabuf%d=", &minor) == 1 &&
		    t->nparams < MAX_PARAMS)
			t->param_minor[t->nparams++] = minor;
	}
	return true;
}

/* ---- the kernel log of one call ---- */

/* Did the kernel log a record containing @text since call_nth() began? */
static bool kmsg_logged(struct target *t, const char *text)
{
	char rec[2048];
	bool found = false;
	ssize_t n;

	if (t->kmsg < 0)
		return false;
	for (;;) {
		n = read(t->kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, text))
			found = true;
	}
	return found;
}

/* Which errno a failed call may give: ENOMEM, or an --allow'ed one. */
static bool errno_allowed(struct target *t, int err)
{
	if (err == ENOMEM)
		return true;
	return t->allow_text && err == t->allow_err &&
	       kmsg_logged(t, t->allow_text);
}

/* ---- the loop ---- */

static bool nth_write(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(fd, buf, (size_t)len, 0) == len;
}

/* Make the call with the Nth fault armed; *injected: it was used. */
static int call_nth(struct target *t, int nth, unsigned int n, bool *injected)
{
	char buf[16];
	int err;
	ssize_t r;

	if (t->kmsg >= 0)
		lseek(t->kmsg, 0, SEEK_END);
	if (!nth_write(nth, n)) {
		fail("arming %s: %s", FAIL_NTH, err_name(errno));
		return -1;
	}
	err = t->ops->call(t);
	r = pread(nth, buf, sizeof(buf) - 1, 0);
	if (!nth_write(nth, 0) || r <= 0) {
		fail("reading or disarming %s: %s", FAIL_NTH, err_name(errno));
		return -1;
	}
	buf[r] = '\0';
	*injected = strtoul(buf, NULL, 10) == 0;
	return err;
}

/* A success: the result works, and undoing it leaves nothing. */
static bool check_success(struct target *t, unsigned int n)
{
	int err;

	if (!t->ops->works(t)) {
		printf("# the call that succeeded had fail-nth %u\n", n);
		return false;
	}
	err = t->ops->undo(t);
	if (err) {
		fail("undoing a successful %s (fail-nth %u): %s", t->ops->what, n,
		     err_name(err));
		return false;
	}
	return t->ops->clean(t);
}

static int run(struct target *t)
{
	unsigned int n, enomem = 0, allowed = 0, despite = 0;
	bool injected = false;
	int nth, err;

	nth = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	if (nth < 0) {
		fail("open %s: %s", FAIL_NTH, err_name(errno));
		return EXIT_FAILED;
	}
	for (n = 1; n <= MAX_NTH && !failed; n++) {
		if (t->ops->prepare && !t->ops->prepare(t))
			break;
		err = call_nth(t, nth, n, &injected);
		if (t->ops->after)
			t->ops->after(t);
		if (err < 0)
			break;
		if (!err) {
			if (!check_success(t, n) || !injected)
				break;
			despite++;
			continue;
		}
		if (!errno_allowed(t, err))
			fail("%s with the fault at point %u: unexpected %s, want ENOMEM",
			     t->ops->what, n, err_name(err));
		else if (!injected)
			fail("%s failed with %s although no fault was injected (point %u)",
			     t->ops->what, err_name(err), n);
		else if (t->ops->clean(t) && err == ENOMEM)
			enomem++;
		else if (!failed)
			allowed++;
	}
	close(nth);
	if (n > MAX_NTH)
		fail("%s: still injecting faults after %u calls", t->ops->what, MAX_NTH);
	if (failed)
		return EXIT_FAILED;
	printf("%s: %u calls, %u failed with ENOMEM, %u succeeded despite a fault",
	       t->ops->what, n, enomem, despite);
	if (t->allow_text)
		printf(", %u failed with %s", allowed, err_name(t->allow_err));
	printf("\n");
	return 0;
}

/* ERR=TEXT of --allow. */
static bool parse_allow(struct target *t, char *arg)
{
	char *eq = strchr(arg, '=');
	const char *name;
	int e;

	if (!eq || !eq[1])
		return false;
	*eq = '\0';
	t->allow_text = eq + 1;
	for (e = 1; e < 200; e++) {
		name = strerrorname_np(e);
		if (name && !strcmp(name, arg)) {
			t->allow_err = e;
			return true;
		}
	}
	return false;
}

/* Take the options out of argv; returns the count of the others, or -1. */
static int take_options(struct target *t, int argc, char **argv)
{
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--gone") && strcmp(argv[i], "--allow")) {
			argv[n++] = argv[i];
			continue;
		}
		if (i + 1 >= argc)
			return -1;
		if (!strcmp(argv[i], "--allow")) {
			if (!parse_allow(t, argv[++i]))
				return -1;
		} else if (t->ngone < MAX_GONE) {
			t->gone[t->ngone++] = argv[++i];
		} else {
			return -1;
		}
	}
	return n;
}

/* What each command calls, by its arg. */
static const struct target_ops *const targets[] = {
	&enable_ops, &mkdir_ops, &insmod_ops,
};

/* The command on the target ARGV names (options taken out). */
static int cmd_fault(int argc, char **argv)
{
	const struct target_ops *ops = targets[this_command->arg];
	struct target t = { .ops = ops, .path = argv[0], .fd = -1, .kmsg = -1 };
	int n = take_options(&t, argc, argv);

	if (n < 1 || (ops != &insmod_ops && n != 1) ||
	    (ops == &insmod_ops && !insmod_init(&t, n, argv)))
		return bad_args();
	if (t.allow_text) {
		t.kmsg = open(KMSG, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (t.kmsg < 0) {
			fail("open %s: %s", KMSG, err_name(errno));
			return EXIT_FAILED;
		}
	}
	if (ops == &enable_ops && !enable_init(&t, argv[0]))
		return EXIT_FAILED;
	return run(&t);
}

#define OPTIONS "[--gone PATH]... [--allow ERR=TEXT]"

static const struct command commands[] = {
	{ "enable", "ITEM " OPTIONS, cmd_fault, 0 },
	{ "mkdir", "PATH " OPTIONS, cmd_fault, 1 },
	{ "insmod", "MODULE.ko [PARAM=VALUE...] " OPTIONS, cmd_fault, 2 },
	{ NULL },
};

int main(int argc, char **argv)
{
	return command_main(commands, argc, argv);
}
