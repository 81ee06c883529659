// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * udmabuf-example - the life of a DMA buffer with libudmabuf.
 *
 *   udmabuf-example NAME                  use an existing buffer
 *   udmabuf-example --create SIZE NAME    create it first, destroy it after
 *   udmabuf-example --alloc SIZE          a buffer of this program's own,
 *                                         freed when it exits (no root
 *                                         needed: the group udmabuf will do)
 *
 * Opens the buffer, prints what a DMA driver in user space needs (size,
 * DMA address, coherency), maps it, writes a pattern, hands it to the
 * device (flush) and back (invalidate) as a DMA transfer would, and checks
 * the pattern.
 *
 *   cc -o udmabuf-example udmabuf-example.c $(pkg-config --cflags --libs udmabuf)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <udmabuf.h>

static int fail(const char *what)
{
	fprintf(stderr, "udmabuf-example: %s: %s\n", what, udmabuf_last_error());
	return 1;
}

/*
 * Use BUF (the handle is closed here); NAME names it in messages, NODE
 * says whether it has a device node (a process-scoped buffer has none).
 */
static int use(const char *name, struct udmabuf *buf, int node)
{
	char where[300];
	uint64_t size, dma, i;
	uint32_t flags;
	uint8_t *p;
	int ret = 1;

	size = udmabuf_get_size(buf);
	if (udmabuf_get_dma_addr(buf, &dma) || udmabuf_get_flags(buf, &flags)) {
		fail("get info");
		goto out;
	}
	if (node)
		snprintf(where, sizeof(where), "/dev/%s", udmabuf_get_name(buf));
	else
		snprintf(where, sizeof(where), "process-scoped");
	printf("%s: %s, %" PRIu64 " bytes at DMA address 0x%" PRIx64
	       ", %s, module %s\n", name, where, size, dma,
	       flags & UDMABUF_INFO_DMA_COHERENT ? "coherent" : "not coherent",
	       udmabuf_get_driver_version(buf));

	if (udmabuf_map(buf, 0, 0, 0, (void **)&p)) {
		fail("map");
		goto out;
	}
	/*
	 * The CPU fills the buffer, then flushes it for the device, which
	 * would now read it by DMA from dma...
	 */
	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(i * 7);
	if (udmabuf_flush(buf, 0, 0)) {
		fail("flush");
		goto unmap;
	}
	/*
	 * ... and, had the device written it back, the CPU invalidates its
	 * cache before reading what the device wrote.
	 */
	if (udmabuf_invalidate(buf, 0, 0)) {
		fail("invalidate");
		goto unmap;
	}
	for (i = 0; i < size; i++)
		if (p[i] != (uint8_t)(i * 7))
			break;
	if (i < size) {
		fprintf(stderr, "udmabuf-example: %s: byte %" PRIu64 " changed\n",
			name, i);
		goto unmap;
	}
	printf("%s: wrote, synced and read back %" PRIu64 " bytes\n", name, size);
	ret = 0;
unmap:
	/* The handle remembers the mapping's length. */
	if (udmabuf_unmap_mapping(buf, p) && !ret)
		ret = fail("unmap");
out:
	udmabuf_close(buf);
	return ret;
}

int main(int argc, char **argv)
{
	struct udmabuf_config *cfg;
	const char *name;
	uint64_t size;
	int ret;

	struct udmabuf *buf;

	if (argc == 2 && argv[1][0] != '-') {
		if (udmabuf_open(argv[1], O_RDWR, &buf))
			return fail("open");
		return use(argv[1], buf, 1);
	}
	if (argc == 3 && !strcmp(argv[1], "--alloc")) {
		if (udmabuf_parse_size(argv[2], &size)) {
			fprintf(stderr, "udmabuf-example: bad size '%s'\n", argv[2]);
			return 2;
		}
		cfg = udmabuf_config_new();
		if (!cfg || udmabuf_config_set_size(cfg, size) ||
		    udmabuf_alloc(cfg, O_RDWR, &buf)) {
			udmabuf_config_free(cfg);
			return fail("alloc");
		}
		udmabuf_config_free(cfg);
		return use(udmabuf_get_name(buf), buf, 0);
	}
	if (argc != 4 || strcmp(argv[1], "--create")) {
		fprintf(stderr, "usage: udmabuf-example [--create SIZE] NAME | --alloc SIZE\n");
		return 2;
	}
	name = argv[3];
	if (udmabuf_parse_size(argv[2], &size)) {
		fprintf(stderr, "udmabuf-example: bad size '%s'\n", argv[2]);
		return 2;
	}
	cfg = udmabuf_config_new();
	if (!cfg || udmabuf_config_set_size(cfg, size) ||
	    udmabuf_config_set_mode(cfg, 0600) ||
	    udmabuf_create(name, cfg, 0)) {
		udmabuf_config_free(cfg);
		return fail("create");
	}
	udmabuf_config_free(cfg);
	if (udmabuf_open(name, O_RDWR, &buf))
		ret = fail("open");
	else
		ret = use(name, buf, 1);
	if (udmabuf_destroy(name, 0))
		ret = fail("destroy");
	return ret;
}
