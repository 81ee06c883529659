// SPDX-License-Identifier: GPL-2.0
/*
 * udmabuf-v4l2: a device that writes into a buffer's dma-bufs, for the
 * guest tests.  vivid (the kernel's virtual video test driver) captures
 * into V4L2_MEMORY_DMABUF buffers, each one a range of the buffer exported
 * with UDMABUF_CFS_IOC_EXPORT_DMABUF, and the frames are checked through
 * the buffer's own mapping of /dev/NAME.
 *
 *   capture DEV NBUF FRAMES [CMD]
 *                              NBUF buffers at page-aligned offsets of DEV,
 *                              FRAMES frames dequeued and checked; with CMD,
 *                              after the first frame DEV is unmapped and
 *                              closed, CMD is run with sh -c, and the rest
 *                              are captured and checked through mappings
 *                              of the dma-bufs, which are all that is left
 *
 * Every buffer's range is filled with a byte (alternately 0xa5 and 0x5a)
 * before it is queued.  A dequeued frame must be the size the format says,
 * the same bytes as the first frame (so every byte of it was written, over
 * either fill), and vivid's 75% colour bars: eight bars of falling luma,
 * every line alike (the on-screen text is switched off).  What follows the
 * frame in its range, and the part of the buffer beyond the last range,
 * must still hold the fill.  The caches are handed over with the buffer's
 * sync ioctls, as for a DMA master; once DEV is closed, with
 * DMA_BUF_IOCTL_SYNC on the dma-bufs, which outlive the device.
 * QEMU does not model caches, so this checks the calls, not their effect.
 *
 * With UDMABUF_VIVID=N in the environment, the capture node of vivid's
 * instance N (vivid makes one a device, n_devs=); else the first found.
 *
 * Exit status: 0 success (OK on stdout), 1 a system call failed (errno name
 * on stdout), 2 a frame or the memory around it is wrong, 64 usage error.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <poll.h>
#include <sys/mman.h>

#include <linux/dma-buf.h>
#include <linux/videodev2.h>

static const char *prog = "udmabuf-v4l2";

#include "udmabuf-helpers.h"

#define MAX_BUFS	16
#define FILL_A		0xa5
#define FILL_B		0x5a
/* What is asked for: vivid's webcam input has this size (and 320x240 not). */
#define WIDTH		320
#define HEIGHT		180
#define BARS		8
/* Longest wait for one frame (vivid runs at 30 frames/s, slower in TCG). */
#define FRAME_TIMEOUT_MS	20000

struct cap {
	int fd;			/* /dev/NAME, -1 once closed */
	unsigned char *map;	/* its mapping, NULL once unmapped */
	size_t size;
	unsigned char *base[MAX_BUFS];	/* each range: in map, or the dma-buf's */
	int video;
	size_t region;		/* bytes per V4L2 buffer, whole pages */
	unsigned int nbuf;
	int dmabuf[MAX_BUFS];
	unsigned char fill[MAX_BUFS];
	struct v4l2_pix_format pix;
	unsigned char *ref;	/* the first frame */
};

static int mismatch(const char *what, unsigned int index, size_t off)
{
	printf("MISMATCH\n");
	fprintf(stderr, "%s: buffer %u: %s at offset %zu\n", prog, index, what,
		off);
	return EXIT_MISMATCH;
}

/*
 * vivid's video capture node, from the names in sysfs: vivid names it
 * "vivid-NNN-vid-cap", NNN its instance.
 */
static int find_node(char *path, size_t len)
{
	const char *cls = "/sys/class/video4linux";
	const char *inst = getenv("UDMABUF_VIVID");
	char want[32] = "";
	DIR *d;
	struct dirent *e;
	int found = 0;

	if (inst && *inst)
		snprintf(want, sizeof(want), "vivid-%03lu-vid-cap",
			 strtoul(inst, NULL, 10));
	d = opendir(cls);
	if (!d)
		return -ENOENT;
	while (!found && (e = readdir(d))) {
		char file[512], name[64];
		size_t n;

		snprintf(file, sizeof(file), "%s/%s/name", cls, e->d_name);
		if (strncmp(e->d_name, "video", 5) ||
		    read_file(file, name, sizeof(name)))
			continue;
		name[strcspn(name, "\n")] = '\0';
		n = strlen(name);
		if (*want ? !strcmp(name, want) :
		    !strncmp(name, "vivid-", 6) && n > 8 &&
		    !strcmp(name + n - 8, "-vid-cap")) {
			snprintf(path, len, "/dev/%s", e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found ? 0 : -ENODEV;
}

/* Switch vivid's on-screen text off, so that every frame is the same. */
static int osd_off(int video)
{
	struct v4l2_queryctrl qc = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };

	while (!ioctl(video, VIDIOC_QUERYCTRL, &qc)) {
		if (!strcmp((const char *)qc.name, "OSD Text Mode")) {
			struct v4l2_querymenu m = { .id = qc.id };
			struct v4l2_control c = { .id = qc.id };

			for (m.index = qc.minimum; m.index <= (__u32)qc.maximum;
			     m.index++) {
				if (ioctl(video, VIDIOC_QUERYMENU, &m) ||
				    strcmp((const char *)m.name, "None"))
					continue;
				c.value = m.index;
				if (ioctl(video, VIDIOC_S_CTRL, &c))
					return report_setup_errno("S_CTRL",
						"OSD Text Mode", errno);
				return 0;
			}
			break;
		}
		qc.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	fprintf(stderr, "%s: vivid has no OSD Text Mode \"None\"\n", prog);
	return report_errno(ENOENT);
}

static int setup_video(struct cap *c)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_capability caps = { 0 };
	char path[300];
	int input = 0, ret;

	ret = find_node(path, sizeof(path));
	if (ret)
		return report_setup_errno("find", "vivid's capture node", -ret);
	c->video = open(path, O_RDWR | O_CLOEXEC);
	if (c->video < 0)
		return report_setup_errno("open", path, errno);
	if (ioctl(c->video, VIDIOC_QUERYCAP, &caps))
		return report_setup_errno("QUERYCAP", path, errno);
	if (!(caps.device_caps & V4L2_CAP_VIDEO_CAPTURE) ||
	    !(caps.device_caps & V4L2_CAP_STREAMING)) {
		fprintf(stderr, "%s: %s: no single-planar streaming capture\n",
			prog, path);
		return report_errno(ENOTTY);
	}
	/* Input 0 is vivid's webcam: no signal to lock, progressive. */
	if (ioctl(c->video, VIDIOC_S_INPUT, &input))
		return report_setup_errno("S_INPUT", path, errno);
	ret = osd_off(c->video);
	if (ret)
		return ret;

	fmt.fmt.pix.width = WIDTH;
	fmt.fmt.pix.height = HEIGHT;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	if (ioctl(c->video, VIDIOC_S_FMT, &fmt))
		return report_setup_errno("S_FMT", path, errno);
	c->pix = fmt.fmt.pix;
	if (c->pix.pixelformat != V4L2_PIX_FMT_YUYV ||
	    c->pix.field != V4L2_FIELD_NONE ||
	    c->pix.bytesperline < 2 * c->pix.width ||
	    c->pix.sizeimage < c->pix.bytesperline * c->pix.height ||
	    c->pix.width % (2 * BARS)) {
		fprintf(stderr, "%s: vivid gave %ux%u, fourcc %08x, field %u, %u bytes per line, %u bytes\n",
			prog, c->pix.width, c->pix.height, c->pix.pixelformat,
			c->pix.field, c->pix.bytesperline, c->pix.sizeimage);
		return report_errno(EINVAL);
	}
	return 0;
}

static int udmabuf_sync(struct cap *c, unsigned int i, int for_cpu)
{
	struct dma_buf_sync ds = {
		.flags = (for_cpu ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
			 DMA_BUF_SYNC_RW,
	};

	/* Once the buffer's fd is gone, the dma-buf is what is left. */
	if (c->fd < 0 ? ioctl(c->dmabuf[i], DMA_BUF_IOCTL_SYNC, &ds) :
	    sync_ioctl(c->fd, for_cpu, (uint64_t)i * c->region, c->region,
		       UDMABUF_CFS_DIR_FROM_DEVICE, 0))
		return report_errno(errno);
	return 0;
}

/* Fill buffer i's range with its next fill byte and queue it. */
static int queue(struct cap *c, unsigned int i)
{
	struct v4l2_buffer b = {
		.index = i,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
		.length = c->region,
	};
	int ret;

	c->fill[i] = c->fill[i] == FILL_A ? FILL_B : FILL_A;
	/* A dma-buf of ours is handed over as a device would receive it. */
	if (c->fd < 0) {
		ret = udmabuf_sync(c, i, 1);
		if (ret)
			return ret;
	}
	memset(c->base[i], c->fill[i], c->region);
	ret = udmabuf_sync(c, i, 0);
	if (ret)
		return ret;
	b.m.fd = c->dmabuf[i];
	if (ioctl(c->video, VIDIOC_QBUF, &b))
		return report_errno(errno);
	return 0;
}

static size_t first_not(const unsigned char *p, size_t len, unsigned char v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return i;
	return len;
}

/*
 * vivid's default pattern, 75% colour bars: every line alike, eight bars
 * of equal width, each of one luma (the Y bytes of YUYV), falling from
 * white to black.
 */
static int check_bars(struct cap *c, unsigned int index)
{
	const unsigned char *f = c->ref;
	size_t bpl = c->pix.bytesperline, line = 2 * c->pix.width;
	unsigned int bar_px = c->pix.width / BARS, y, b, x;
	unsigned char luma[BARS];

	for (y = 1; y < c->pix.height; y++)
		if (memcmp(f, f + y * bpl, line))
			return mismatch("line differs from the first (not colour bars)",
					index, y * bpl);
	for (b = 0; b < BARS; b++) {
		luma[b] = f[2 * b * bar_px];
		for (x = b * bar_px; x < (b + 1) * bar_px; x++)
			if (f[2 * x] != luma[b])
				return mismatch("luma changes inside a bar",
						index, 2 * x);
		if (b && luma[b] >= luma[b - 1])
			return mismatch("bars do not fall in luma", index,
					2 * b * bar_px);
	}
	fprintf(stderr, "%s: bars' luma %u %u %u %u %u %u %u %u\n", prog,
		luma[0], luma[1], luma[2], luma[3], luma[4], luma[5], luma[6],
		luma[7]);
	return 0;
}

/* Dequeue one frame and check it; returns the index in *index. */
static int dequeue(struct cap *c, unsigned int frame, unsigned int *index)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};
	struct pollfd pfd = { .fd = c->video, .events = POLLIN };
	const unsigned char *p;
	size_t off;
	int ret;

	ret = poll(&pfd, 1, FRAME_TIMEOUT_MS);
	if (ret < 0)
		return report_errno(errno);
	if (!ret) {
		fprintf(stderr, "%s: no frame %u within %d ms\n", prog, frame,
			FRAME_TIMEOUT_MS);
		return report_errno(ETIMEDOUT);
	}
	if (ioctl(c->video, VIDIOC_DQBUF, &b))
		return report_errno(errno);
	*index = b.index;
	if (b.index >= c->nbuf)
		return mismatch("index out of range", b.index, 0);
	if (b.flags & V4L2_BUF_FLAG_ERROR)
		return mismatch("frame flagged as an error", b.index, 0);
	if (b.bytesused != c->pix.sizeimage) {
		fprintf(stderr, "%s: frame %u: %u bytes used, the format says %u\n",
			prog, frame, b.bytesused, c->pix.sizeimage);
		return mismatch("payload size", b.index, b.bytesused);
	}
	ret = udmabuf_sync(c, b.index, 1);
	if (ret)
		return ret;

	p = c->base[b.index];
	off = first_not(p + b.bytesused, c->region - b.bytesused,
			c->fill[b.index]);
	if (off != c->region - b.bytesused)
		return mismatch("written past the payload", b.index,
				b.bytesused + off);
	if (!c->ref) {
		c->ref = malloc(b.bytesused);
		if (!c->ref)
			return report_errno(ENOMEM);
		memcpy(c->ref, p, b.bytesused);
		if (first_not(p, b.bytesused, c->fill[b.index]) == b.bytesused)
			return mismatch("frame not written", b.index, 0);
		return check_bars(c, b.index);
	}
	for (off = 0; off < b.bytesused; off++)
		if (p[off] != c->ref[off])
			return mismatch(p[off] == c->fill[b.index] ?
					"frame not written (fill)" :
					"frame differs from the first",
					b.index, off);
	return 0;
}

/* Nothing was queued beyond the last range: it still holds the first fill. */
static int check_beyond(struct cap *c)
{
	size_t used = c->nbuf * c->region;
	size_t off = first_not(c->map + used, c->size - used, FILL_A);

	if (off != c->size - used)
		return mismatch("written beyond the last buffer", c->nbuf,
				used + off);
	return 0;
}

/*
 * Leave the dma-bufs as the only way to the memory: map each, unmap and
 * close DEV, then run CMD.
 */
static int let_go_of_dev(struct cap *c, const char *cmd)
{
	unsigned int i;
	int ret;

	ret = check_beyond(c);
	if (ret)
		return ret;
	for (i = 0; i < c->nbuf; i++) {
		c->base[i] = mmap(NULL, c->region, PROT_READ | PROT_WRITE,
				  MAP_SHARED, c->dmabuf[i], 0);
		if (c->base[i] == MAP_FAILED)
			return report_setup_errno("mmap", "dma-buf", errno);
	}
	munmap(c->map, c->size);
	c->map = NULL;
	close(c->fd);
	c->fd = -1;
	return run_shell(cmd);
}

static int cmd_capture(int argc, char **argv)
{
	const char *dev = argv[0], *cmd = argc == 4 ? argv[3] : NULL;
	uint32_t nbuf, frames;
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_requestbuffers req = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};
	struct udmabuf_cfs_info info;
	struct cap c = { .fd = -1 };
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i, f;
	int ret;

	if (argc < 3 || argc > 4 || parse_u32(argv[1], &nbuf) || !nbuf ||
	    nbuf > MAX_BUFS || parse_u32(argv[2], &frames) || !frames)
		return bad_args();
	ret = open_info(dev, O_RDWR, &info, &c.fd);
	if (ret)
		return ret;
	c.size = info.size - info.size % page;
	c.map = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd,
		     0);
	if (c.map == MAP_FAILED)
		return report_setup_errno("mmap", dev, errno);
	ret = setup_video(&c);
	if (ret)
		return ret;

	c.region = (c.pix.sizeimage + page - 1) / page * page;
	req.count = nbuf;
	if (ioctl(c.video, VIDIOC_REQBUFS, &req))
		return report_errno(errno);
	c.nbuf = req.count;
	if (c.nbuf < nbuf || c.nbuf > MAX_BUFS ||
	    c.nbuf * c.region > c.size) {
		fprintf(stderr, "%s: %u buffers of %zu bytes (asked for %u) in %zu bytes\n",
			prog, c.nbuf, c.region, nbuf, c.size);
		return EXIT_USAGE;
	}
	memset(c.map, FILL_A, c.size);

	for (i = 0; i < c.nbuf; i++) {
		c.dmabuf[i] = export_dmabuf(c.fd, (uint64_t)i * c.region,
					    c.region, O_RDWR | O_CLOEXEC);
		if (c.dmabuf[i] < 0)
			return report_errno(-c.dmabuf[i]);
		c.base[i] = c.map + (size_t)i * c.region;
		c.fill[i] = FILL_B;	/* queue() turns it into FILL_A */
		ret = queue(&c, i);
		if (ret)
			return ret;
	}
	if (ioctl(c.video, VIDIOC_STREAMON, &type))
		return report_errno(errno);

	for (f = 0; f < frames; f++) {
		ret = dequeue(&c, f, &i);
		if (ret)
			return ret;
		if (f == 0 && cmd) {
			ret = let_go_of_dev(&c, cmd);
			if (ret)
				return ret;
		}
		if (f + 1 < frames) {
			ret = queue(&c, i);
			if (ret)
				return ret;
		}
	}

	if (ioctl(c.video, VIDIOC_STREAMOFF, &type))
		return report_errno(errno);
	if (c.map) {
		ret = check_beyond(&c);
		if (ret)
			return ret;
		munmap(c.map, c.size);
	} else {
		for (i = 0; i < c.nbuf; i++)
			munmap(c.base[i], c.region);
	}
	/* The queue lets go of the dma-bufs; then so do we. */
	req.count = 0;
	if (ioctl(c.video, VIDIOC_REQBUFS, &req))
		return report_errno(errno);
	for (i = 0; i < c.nbuf; i++)
		close(c.dmabuf[i]);
	close(c.video);
	if (c.fd >= 0)
		close(c.fd);
	free(c.ref);
	fprintf(stderr, "%s: %u frames of %ux%u YUYV (%u bytes) in %u buffers of %zu bytes\n",
		prog, frames, c.pix.width, c.pix.height, c.pix.sizeimage,
		c.nbuf, c.region);
	return print_ok();
}

static const struct command commands[] = {
	{ "capture", "DEV NBUF FRAMES [CMD]  (NBUF 1..16)", cmd_capture, 0 },
	{ NULL },
};

int main(int argc, char **argv)
{
	return command_main(commands, argc, argv);
}
