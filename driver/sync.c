// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: handing a buffer between the CPU and the device.
 *
 * The memory is mapped for DMA_BIDIRECTIONAL for the DMA device (dma.c),
 * so dma_sync_single_for_{cpu,device}() are valid on any part of it while
 * that device has it mapped.  Every way in (the ioctls, sysfs, read() and
 * write() of an O_SYNC file, dma-buf CPU access) ends here.
 *
 * A sync asked for through a file without write access (a read-only
 * descriptor or dma-buf) must not change what the buffer holds, and an
 * invalidation throws away the lines that another program wrote through a
 * cached mapping and has not handed to the device yet.  So such a sync
 * never invalidates a dirty line: towards the device it writes back only
 * (the to-device direction), and towards the CPU it writes back first.
 */

#include <linux/dma-mapping.h>
#include <linux/udmabuf-cfs.h>

#include "internal.h"

static enum dma_data_direction udmabuf_dma_dir(unsigned int direction)
{
	switch (direction) {
	case UDMABUF_CFS_DIR_TO_DEVICE:
		return DMA_TO_DEVICE;
	case UDMABUF_CFS_DIR_FROM_DEVICE:
		return DMA_FROM_DEVICE;
	default:
		return DMA_BIDIRECTIONAL;
	}
}

/**
 * udmabuf_reader_dir - the direction of a sync through a read-only file
 * @for_cpu: towards the CPU (true) or the device (false)
 * @dir: the direction asked for
 * @clean_first: set if a write-back (a sync for the device in the
 *	to-device direction) must go before a sync towards the CPU
 *
 * Return: the direction to sync in.
 */
enum dma_data_direction udmabuf_reader_dir(bool for_cpu,
					   enum dma_data_direction dir,
					   bool *clean_first)
{
	*clean_first = for_cpu && dir != DMA_TO_DEVICE;
	return for_cpu ? dir : DMA_TO_DEVICE;
}

/**
 * udmabuf_sync_range - cache maintenance on a range known to be inside
 * @buf: the buffer
 * @for_cpu: give the range to the CPU (true) or to the device (false)
 * @offset: start of the range
 * @size: its length, not 0
 * @direction: UDMABUF_CFS_DIR_* of the DMA transfer
 * @writer: asked for by one who may write the buffer
 *
 * Return: 0 or -ENODEV if the bound DMA device has gone away.
 */
int udmabuf_sync_range(struct udmabuf_buffer *buf, bool for_cpu, u64 offset,
		       u64 size, unsigned int direction, bool writer)
{
	enum dma_data_direction dir = udmabuf_dma_dir(direction);
	bool clean_first = false;
	int ret;

	if (!writer)
		dir = udmabuf_reader_dir(for_cpu, dir, &clean_first);
	ret = clean_first ? udmabuf_dma_sync(buf, false, offset, size,
					     DMA_TO_DEVICE) : 0;
	if (!ret)
		ret = udmabuf_dma_sync(buf, for_cpu, offset, size, dir);
	if (!ret)
		WRITE_ONCE(buf->sync_owner, !for_cpu);
	return ret;
}

/**
 * udmabuf_sync - cache maintenance on part of a buffer
 * @buf: the buffer
 * @for_cpu: give the range to the CPU (true) or to the device (false)
 * @offset: start of the range
 * @size: length of the range; 0 means up to the end of the buffer
 * @direction: UDMABUF_CFS_DIR_* of the DMA transfer
 * @writer: asked for by one who may write the buffer
 *
 * Return: 0, -EINVAL for a bad direction or a range outside the buffer, or
 * -ENODEV if the bound DMA device has gone away.
 */
int udmabuf_sync(struct udmabuf_buffer *buf, bool for_cpu, u64 offset,
		 u64 size, unsigned int direction, bool writer)
{
	dma_addr_t addr;
	int ret;

	if (udmabuf_check_direction(direction))
		return -EINVAL;
	if (offset >= buf->size)
		return -EINVAL;
	if (!size)
		size = buf->size - offset;
	if (size > buf->size - offset)
		return -EINVAL;

	if (!buf->pool) {
		ret = udmabuf_sync_range(buf, for_cpu, offset, size, direction,
					 writer);
		if (ret)
			return ret;
		/* The program's own handing over: the checker follows it. */
		if (for_cpu)
			udmabuf_sc_for_cpu(buf, offset, size, true);
		else
			udmabuf_sc_for_device(buf, offset, size);
		return 0;
	}

	/* No cacheable alias: nothing to maintain, but the device must be. */
	ret = udmabuf_dma_addr(buf, &addr);
	if (!ret)
		WRITE_ONCE(buf->sync_owner, !for_cpu);
	return ret;
}

