// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: a buffer's configuration, the one place it is checked.
 *
 * Every way a buffer is made (configfs, module parameters, the device
 * tree, UDMABUF_CFS_IOC_ALLOC) parses its own syntax into a struct
 * udmabuf_config and leaves the values to the checks here: configfs and
 * sysfs when an attribute is written, udmabuf_create() for all of them,
 * so that the same mistake gets the same errno whichever way it came.
 * The limits are the UAPI header's.  A number outside its range is
 * ERANGE; a value that is not one of the choices, or no value, EINVAL.
 */

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/udmabuf-cfs.h>

#include "internal.h"

/* [A-Za-z0-9_.-] in ASCII: isalnum() takes Latin-1 letters too. */
static bool udmabuf_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

/**
 * udmabuf_name_valid - check a device name
 * @name: NUL-terminated candidate
 *
 * A device name becomes a file in /dev and a directory in sysfs, so it is
 * 1..%UDMABUF_CFS_NAME_MAX ASCII characters of [A-Za-z0-9_.-] and not "." or
 * "..".
 */
bool udmabuf_name_valid(const char *name)
{
	size_t len = strnlen(name, UDMABUF_CFS_NAME_MAX + 1);
	size_t i;

	if (!len || len > UDMABUF_CFS_NAME_MAX)
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (!udmabuf_name_char(name[i]))
			return false;
	return true;
}

/**
 * udmabuf_parse_size - parse a byte count as users write it
 * @str: decimal or 0x-prefixed hex, optionally followed by one of K, M, G, T
 *	(either case, binary multiples); one trailing newline is ignored
 * @size: result
 *
 * Return: 0, -EINVAL for anything else, -ERANGE if it does not fit 64 bits.
 */
int udmabuf_parse_size(const char *str, u64 *size)
{
	char tmp[32];
	unsigned int shift = 0, base = 10;
	size_t len = strlen(str);
	u64 val;
	int ret;

	if (len && str[len - 1] == '\n')
		len--;
	if (!len || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, str, len);
	tmp[len] = '\0';

	switch (tolower(tmp[len - 1])) {
	case 'k':
		shift = 10;
		break;
	case 'm':
		shift = 20;
		break;
	case 'g':
		shift = 30;
		break;
	case 't':
		shift = 40;
		break;
	}
	if (shift)
		tmp[--len] = '\0';
	if (len > 2 && tmp[0] == '0' && tolower(tmp[1]) == 'x')
		base = 16;

	ret = kstrtou64(tmp, base, &val);
	if (ret)
		return ret;
	if (val > (U64_MAX >> shift))
		return -ERANGE;
	*size = val << shift;
	return 0;
}

/**
 * udmabuf_config_init - the defaults of a buffer's configuration
 * @cfg: configuration to fill
 */
void udmabuf_config_init(struct udmabuf_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->minor = -1;
	cfg->sync_mode = UDMABUF_CFS_SYNC_MODE_DEFAULT;
	cfg->dma_bits = UDMABUF_CFS_DMA_BITS_DEFAULT;
	cfg->mode = UDMABUF_CFS_MODE_DEFAULT;
	cfg->origin = UDMABUF_ORIGIN_CONFIGFS;
}

/* Bytes: 1 up to what a file can address in whole pages. */
int udmabuf_check_size(u64 size)
{
	if (!size)
		return -EINVAL;
	return size > UDMABUF_SIZE_MAX ? -ERANGE : 0;
}

int udmabuf_check_sync_mode(u64 sync_mode)
{
	return sync_mode > UDMABUF_CFS_SYNC_MODE_MAX ? -ERANGE : 0;
}

int udmabuf_check_dma_bits(u64 bits)
{
	if (bits < UDMABUF_CFS_DMA_BITS_MIN || bits > UDMABUF_CFS_DMA_BITS_MAX)
		return -ERANGE;
	return 0;
}

/* -1 for the first free one, else one of the major's minors. */
int udmabuf_check_minor(s64 minor)
{
	return minor < -1 || minor >= (s64)UDMABUF_MINORS ? -ERANGE : 0;
}

/* devtmpfs would make a node of mode 0 a 0600 one: not what was asked. */
int udmabuf_check_mode(u64 mode)
{
	if (!mode)
		return -EINVAL;
	return mode > UDMABUF_CFS_MODE_MAX ? -ERANGE : 0;
}

int udmabuf_check_direction(u64 direction)
{
	return direction > UDMABUF_CFS_DIR_MAX ? -EINVAL : 0;
}

int udmabuf_check_sync_check(u64 mode)
{
	return mode > UDMABUF_CFS_SYNC_CHECK_MAX ? -ERANGE : 0;
}

/*
 * The range the sysfs sync triggers act on, set one value at a time: it
 * starts inside a buffer of @size bytes, and is no longer than the buffer
 * (0: to the end).  The sync checks that the two together fit.
 */
int udmabuf_check_sync_offset(u64 size, u64 offset)
{
	return offset >= size ? -EINVAL : 0;
}

int udmabuf_check_sync_size(u64 size, u64 len)
{
	return len > size ? -EINVAL : 0;
}

/**
 * udmabuf_config_check - check a whole configuration
 * @cfg: what a way in made of what it was given
 *
 * An empty name is one still to be given (configfs takes the item's,
 * process-scoped buffers get proc-PID-N); udmabuf_create() requires one.
 *
 * Return: 0, or the errno of the first value that is wrong.
 */
int udmabuf_config_check(const struct udmabuf_config *cfg)
{
	int ret;

	ret = udmabuf_check_size(cfg->size);
	if (!ret && cfg->name[0] && !udmabuf_name_valid(cfg->name))
		ret = -EINVAL;
	if (!ret)
		ret = udmabuf_check_minor(cfg->minor);
	if (!ret)
		ret = udmabuf_check_sync_mode(cfg->sync_mode);
	if (!ret)
		ret = udmabuf_check_dma_bits(cfg->dma_bits);
	if (!ret)
		ret = udmabuf_check_mode(cfg->mode);
	if (!ret)
		ret = udmabuf_check_direction(cfg->sync_direction);
	if (!ret)
		ret = udmabuf_check_sync_offset(cfg->size, cfg->sync_offset);
	if (!ret)
		ret = udmabuf_check_sync_size(cfg->size, cfg->sync_size);
	if (!ret)
		ret = udmabuf_check_sync_check(cfg->sync_check);
	if (!ret && cfg->want > UDMABUF_CFS_ALLOCATOR_MAX)
		ret = -EINVAL;
	return ret;
}

/* The allocators one may ask for, by name; the UAPI's numbers index it. */
static const char *const udmabuf_mem_names[] = UDMABUF_CFS_ALLOCATOR_NAMES;

/* The name of an allocator asked for ("auto" for the default order). */
const char *udmabuf_mem_name(enum udmabuf_mem mem)
{
	if (mem < ARRAY_SIZE(udmabuf_mem_names))
		return udmabuf_mem_names[mem];
	return "";
}

/*
 * An allocator asked for by name, or an empty line for the default order.
 * Return: 0 or -EINVAL.
 */
int udmabuf_mem_parse(const char *name, enum udmabuf_mem *mem)
{
	int i;

	if (sysfs_streq(name, "")) {
		*mem = UDMABUF_MEM_NONE;
		return 0;
	}
	i = sysfs_match_string(udmabuf_mem_names, name);
	if (i < 0)
		return -EINVAL;
	*mem = i;
	return 0;
}
