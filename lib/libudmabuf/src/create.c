// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libudmabuf: creating a buffer through configfs, step by step (mkdir, each
 * attribute, enable), undone whole when a step fails; and destroying one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libudmabuf-private.h"

static __thread char step_buf[UDMABUF_ATTR_MAX];

static void set_step(const char **step, const char *what)
{
	if (step) {
		snprintf(step_buf, sizeof(step_buf), "%s", what);
		*step = step_buf;
	}
}

/*
 * Refuse an attribute the loaded module does not have before anything is
 * made. Without a subsystem at all, let mkdir tell.
 */
static int need_feature(const char *attr, const char **step)
{
	int ret = udmabuf_has_feature(attr);

	if (ret == 0 || (ret == -ENOENT && udmabuf_is_dir(udmabuf_configfs_dir()))) {
		set_step(step, attr);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int valid_item_name(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..") && strlen(name) < 256;
}

/* Write "attr=value" (the attribute name must be a plain file name). */
static int write_assignment(const char *dir, const char *assign,
			    const char **step)
{
	const char *eq = strchr(assign, '=');
	char attr[UDMABUF_ATTR_MAX];
	size_t len;

	len = eq ? (size_t)(eq - assign) : 0;
	if (!len || len >= sizeof(attr)) {
		set_step(step, assign);
		return -EINVAL;
	}
	memcpy(attr, assign, len);
	attr[len] = '\0';
	set_step(step, attr);
	if (strchr(attr, '/') || attr[0] == '.' || !strcmp(attr, "enable"))
		return -EINVAL;
	return udmabuf_write_attr(dir, attr, eq + 1);
}

/*
 * A module that lists phys_addr may still only show it (0400, the DMA
 * address): placement needs the attribute writable. The file exists as
 * soon as the item does; when it cannot be looked at, the write tells.
 */
static int phys_addr_writable(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (udmabuf_path_join(path, sizeof(path), dir, "phys_addr") ||
	    stat(path, &st))
		return 1;
	return (st.st_mode & 0200) != 0;
}

/* Write ATTR of DIR, its value a printf FMT, and make it the step. */
static int __attribute__((format(printf, 4, 5)))
write_attrf(const char *dir, const char **step, const char *attr,
	    const char *fmt, ...)
{
	char val[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	set_step(step, attr);
	return udmabuf_write_attr(dir, attr, val);
}

static int create_args(const struct udmabuf_create_args *args,
		       const char **step)
{
	char dir[PATH_MAX];
	const char *const *a;
	int ret;

	set_step(step, "mkdir");
	if (!args || !valid_item_name(args->name))
		return -EINVAL;
	if (args->dma_device && *args->dma_device) {
		ret = need_feature("dma_device", step);
		if (ret)
			return ret;
	}
	if (args->has_phys_addr) {
		ret = need_feature("phys_addr", step);
		if (ret)
			return ret;
		set_step(step, "mkdir");
	}
	/* A checker asked for and not there would check nothing, silently. */
	if (args->sync_check > 0) {
		ret = need_feature("sync_check", step);
		if (ret)
			return ret;
		set_step(step, "mkdir");
	}
	ret = udmabuf_item_dir(args->name, dir, sizeof(dir));
	if (ret)
		return ret;
	if (mkdir(dir, 0755))
		return -errno;
	if (args->has_phys_addr && !phys_addr_writable(dir)) {
		set_step(step, "phys_addr");
		ret = -EOPNOTSUPP;
		goto undo;
	}
	ret = write_attrf(dir, step, "size", "%" PRIu64, args->size);
	if (!ret && args->minor >= 0)
		ret = write_attrf(dir, step, "minor", "%ld", args->minor);
	if (!ret && args->sync_mode >= 0)
		ret = write_attrf(dir, step, "sync_mode", "%d", args->sync_mode);
	/* Off is the module's default: nothing to write. */
	if (!ret && args->sync_check > 0)
		ret = write_attrf(dir, step, "sync_check", "%d", args->sync_check);
	if (!ret && args->dma_mask >= 0)
		ret = write_attrf(dir, step, "dma_mask", "%d", args->dma_mask);
	if (!ret && args->mode >= 0)
		ret = write_attrf(dir, step, "mode", "%04o", (unsigned int)args->mode);
	if (ret)
		goto undo;
	if (args->device_name) {
		set_step(step, "device_name");
		ret = udmabuf_write_attr(dir, "device_name", args->device_name);
		if (ret)
			goto undo;
	}
	if (args->allocator) {
		set_step(step, "allocator");
		ret = udmabuf_write_attr(dir, "allocator", args->allocator);
		if (ret)
			goto undo;
	}
	for (a = args->attrs; a && *a; a++) {
		ret = write_assignment(dir, *a, step);
		if (ret)
			goto undo;
	}
	/* Last before enable, which looks the device up again. */
	if (args->dma_device && *args->dma_device) {
		set_step(step, "dma_device");
		ret = udmabuf_write_attr(dir, "dma_device", args->dma_device);
		if (ret)
			goto undo;
	}
	/* After dma_device: the placement is checked against its mask. */
	if (args->has_phys_addr) {
		ret = write_attrf(dir, step, "phys_addr", "0x%" PRIx64,
				  args->phys_addr);
		if (ret)
			goto undo;
	}
	if (!(args->flags & UDMABUF_CREATE_NO_ENABLE)) {
		set_step(step, "enable");
		ret = udmabuf_write_attr(dir, "enable", "1");
		if (ret)
			goto undo;
	}
	return 0;

undo:
	/* A refused enable leaves nothing behind; only the item remains. */
	udmabuf_write_attr(dir, "enable", "0");
	rmdir(dir);
	return ret;
}

static int delete_item(const char *item, unsigned int flags,
		       const char **step)
{
	char dir[PATH_MAX];
	int ret;

	set_step(step, "delete");
	ret = udmabuf_item_dir(item, dir, sizeof(dir));
	if (ret)
		return ret;
	set_step(step, "disable");
	ret = udmabuf_write_attr(dir, "enable", "0");
	if (ret && !(flags & UDMABUF_DESTROY_FORCE))
		return ret;
	set_step(step, "rmdir");
	if (rmdir(dir))
		return -errno;
	return 0;
}

/* "create", "enable", "set ATTR": what a failed step of a create was. */
static int create_failed(const char *name, const char *step, int err)
{
	if (!strcmp(step, "mkdir"))
		return udmabuf_fail_step(err, step, name, "create");
	if (!strcmp(step, "enable"))
		return udmabuf_fail_step(err, step, name, "enable");
	if (err == EOPNOTSUPP)
		return udmabuf_fail_step(err, step, name,
					 "set %s (the loaded module cannot)", step);
	return udmabuf_fail_step(err, step, name, "set %s", step);
}

UDMABUF_EXPORT int udmabuf_create(const char *name,
				  const struct udmabuf_config *cfg,
				  unsigned int flags)
{
	struct udmabuf_create_args args;
	const char *step = "mkdir";
	int ret, check;

	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..") || strlen(name) > NAME_MAX)
		return udmabuf_fail_step(EINVAL, "mkdir",
					 name && *name ? name : "udmabuf",
					 "create: not an item name");
	if (flags & ~UDMABUF_CREATE_NO_ENABLE)
		return udmabuf_fail(EINVAL, name, "create with flags %#x", flags);
	if (cfg)
		args = *udmabuf_config_args(cfg);
	else
		udmabuf_create_args_init(&args, NULL);
	args.name = name;
	args.flags = flags;
	/* UDMABUF_SYNC_CHECK raises the configuration's checker. */
	check = udmabuf_sync_check_of(args.sync_check, name);
	if (check < 0)
		return check;
	args.sync_check = check;
	if (!args.device_name && !udmabuf_valid_device_name(name))
		return udmabuf_fail_step(EINVAL, "mkdir", name,
					 "create: not a device name; set one");
	ret = create_args(&args, &step);
	return ret ? create_failed(name, step, -ret) : 0;
}

UDMABUF_EXPORT int udmabuf_destroy(const char *name, unsigned int flags)
{
	char item[NAME_MAX + 1], dir[PATH_MAX];
	const char *step = "delete";
	int ret;

	if (!name || !*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return udmabuf_fail(EINVAL, "udmabuf", "destroy: no name given");
	if (flags & ~UDMABUF_DESTROY_FORCE)
		return udmabuf_fail(EINVAL, name, "destroy with flags %#x", flags);
	if (strchr(name, '/')) {
		const char *dev = strrchr(name, '/') + 1;

		ret = *dev ? udmabuf_item_of_device(dev, item, sizeof(item)) : -EINVAL;
		if (ret == -ENOENT &&
		    udmabuf_path_join(dir, sizeof(dir), udmabuf_sysfs_dir(), dev) == 0 &&
		    udmabuf_is_dir(dir))
			ret = -EPERM;
	} else if (strlen(name) >= sizeof(item)) {
		ret = -ENAMETOOLONG;
	} else {
		strcpy(item, name);
		ret = udmabuf_item_dir(item, dir, sizeof(dir));
		if (!ret && !udmabuf_is_dir(dir)) {
			ret = -ENOENT;
			if (udmabuf_path_join(dir, sizeof(dir), udmabuf_sysfs_dir(),
					      name) == 0 && udmabuf_is_dir(dir))
				ret = -EPERM;
		}
	}
	if (ret == -EPERM)
		return udmabuf_fail(EPERM, name,
				    "destroy: not made through configfs (module parameter or device tree)");
	if (ret == -ENOENT)
		return udmabuf_fail(ENOENT, name, "destroy: no such buffer");
	if (ret)
		return udmabuf_fail(-ret, name, "delete");
	ret = delete_item(item, flags, &step);
	if (!ret)
		return 0;
	if (!strcmp(step, "disable") && ret == -EBUSY)
		return udmabuf_fail_step(EBUSY, step, name,
					 "disable (open or mapped)");
	if (!strcmp(step, "delete"))
		return udmabuf_fail(-ret, name, "delete");
	return udmabuf_fail_step(-ret, step, name, "%s", step);
}
