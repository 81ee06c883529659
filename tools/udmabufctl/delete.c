// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabufctl delete, clear's deleting, and who has a buffer open or mapped
 * (for the hint of a delete refused with EBUSY, and bench's refusal).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "udmabufctl.h"

/* 1 if process PID has DEVPATH open (its fds) or mapped (its maps). */
static int pid_uses(const char *pid, const char *devpath)
{
	char path[PATH_MAX], target[PATH_MAX];
	size_t dlen = strlen(devpath);
	struct dirent *de;
	char *line = NULL;
	size_t cap = 0;
	int found = 0;
	ssize_t n;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	while (d && !found && (de = readdir(d))) {
		char fd[PATH_MAX + 256];

		if (de->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof(fd), "%s/%s", path, de->d_name);
		n = readlink(fd, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = !strcmp(target, devpath);
		}
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = found ? NULL : fopen(path, "re");
	while (f && !found && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		found = (size_t)n > dlen && line[n - dlen - 1] == ' ' &&
			!strcmp(line + n - dlen, devpath);
	}
	free(line);
	if (f)
		fclose(f);
	return found;
}

/*
 * The processes that have NAME open or mapped (scans /proc; processes that
 * cannot be inspected are not reported). Free *pids with free().
 */
static int buffer_users(const char *name, pid_t **pids, size_t *count)
{
	struct udmabuf_listing *one;
	const struct udmabuf_entry *e;
	char devpath[PATH_MAX];
	pid_t *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int err;
	DIR *d;

	*pids = NULL;
	*count = 0;
	e = lookup(name, 0, &one, &err);
	if (!e)
		return err;
	/* As /proc shows the node, wherever the library looks for it. */
	snprintf(devpath, sizeof(devpath), "/dev/%s", udmabuf_entry_get_name(e));
	udmabuf_listing_free(one);
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    !pid_uses(de->d_name, devpath))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = (pid_t)atol(de->d_name);
	}
	closedir(d);
	*pids = v;
	*count = n;
	return 0;
}

/* "PID (COMM), ..." of the processes using NAME into list; how many. */
size_t users_text(const char *name, char *list, size_t size)
{
	char comm[64], path[64];
	size_t n = 0, i, len = 0;
	pid_t *pids = NULL;

	list[0] = '\0';
	buffer_users(name, &pids, &n);
	for (i = 0; i < n && len + 100 < size; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pids[i]);
		comm[0] = '\0';
		f = fopen(path, "re");
		if (f) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		len += (size_t)snprintf(list + len, size - len, "%s%d (%s)",
					i ? ", " : "", (int)pids[i], comm);
	}
	free(pids);
	return n;
}

static void busy_hint(const char *name)
{
	char list[512];
	size_t n = users_text(name, list, sizeof(list));

	if (n)
		hint("%s is in use by PID %s; '" PROG " delete --force %s' removes the device now, the memory goes when they let go",
		     name, list, name);
	else
		hint("%s is open or mapped; '" PROG " delete --force %s' removes the device now, the memory goes when it is released",
		     name, name);
}

/*
 * Why process-scoped buffer e cannot be deleted: it is its process's
 * (owner "PID COMM"), freed when the last of its files, mappings and
 * dma-bufs is gone.
 */
static void process_hint(const struct udmabuf_entry *e)
{
	const char *owner = udmabuf_entry_get_owner(e);
	const char *comm = owner ? strchr(owner, ' ') : NULL;
	char who[300] = "a process";

	if (comm)
		snprintf(who, sizeof(who), "process %.*s (%s)",
			 (int)(comm - owner), owner, comm + 1);
	else if (owner && *owner)
		snprintf(who, sizeof(who), "process %s", owner);
	hint("%s was allocated by %s through /dev/udmabuf-cfs, not through configfs; it goes away when that process lets go of it (its last file, mapping and dma-buf)",
	     udmabuf_entry_get_name(e), who);
}

int delete_one(const char *name, unsigned int flags)
{
	struct udmabuf_listing *one;
	const struct udmabuf_entry *e;
	const char *origin;
	int ret;

	e = lookup(name, UDMABUF_FIELD_ORIGIN | UDMABUF_FIELD_OWNER, &one, &ret);
	if (!e) {
		report_lookup(name, "delete", -ret);
		return ret;
	}
	origin = udmabuf_entry_get_origin(e);
	if (!*udmabuf_entry_get_item(e) && !strcmp(origin, "process")) {
		ret = -EPERM;
		report(name, "delete", EPERM);
		process_hint(e);
	} else if (!*udmabuf_entry_get_item(e)) {
		ret = -EPERM;
		report(name, "delete", EPERM);
		hint("%s was created %s, not through configfs; it goes away when the module is unloaded",
		     udmabuf_entry_get_name(e),
		     !strcmp(origin, "dt") ? "from the device tree" :
		     !strcmp(origin, "param") ? "by a module parameter" :
		     "by the module");
	} else {
		ret = udmabuf_destroy(udmabuf_entry_get_item(e), flags);
	}
	udmabuf_listing_free(one);
	if (ret == 0 || ret == -EPERM)
		return ret;
	/* Gone meanwhile: no such buffer. */
	if (ret == -ENOENT)
		report_lookup(name, "delete", ENOENT);
	else
		report(name, "delete", -ret);
	if (ret == -EBUSY)
		busy_hint(name);
	else
		permission_hint(-ret);
	return ret;
}

static int parse_force(int argc, char **argv, unsigned int *flags)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help",  no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			*flags |= UDMABUF_DESTROY_FORCE;
			break;
		case 'h':
			usage_of(cur_verb);
			exit(EXIT_OK);
		default:
			try_help();
		}
	}
	return optind;
}

int cmd_delete(int argc, char **argv)
{
	unsigned int flags = 0;
	size_t failed = 0;
	int i = parse_force(argc, argv, &flags);

	if (i >= argc)
		usage_error("delete: missing buffer name");
	if (need_configfs("delete"))
		return EXIT_FAIL;
	for (; i < argc; i++)
		if (delete_one(argv[i], flags))
			failed++;
	return status_of(failed, (size_t)(argc - optind));
}

int clear_all(unsigned int flags, size_t *total)
{
	struct udmabuf_listing *items;
	size_t n, i, failed = 0;
	int ret = udmabuf_listing_new_fields(UDMABUF_LISTING_ITEMS, 0, &items);

	*total = 0;
	if (ret) {
		fprintf(stderr, PROG ": clear: %s\n", strerror(-ret));
		*total = 1;
		return 1;
	}
	n = udmabuf_listing_count(items);
	for (i = 0; i < n; i++)
		if (delete_one(udmabuf_entry_get_item(udmabuf_listing_get(items, i)),
			       flags))
			failed++;
	udmabuf_listing_free(items);
	*total = n;
	return (int)failed;
}
