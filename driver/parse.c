// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: parsing what users write, for every layer.
 */

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "udmabuf-cfs.h"

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
 * 1..%UDMABUF_NAME_MAX ASCII characters of [A-Za-z0-9_.-] and not "." or
 * "..".
 */
bool udmabuf_name_valid(const char *name)
{
	size_t len = strnlen(name, UDMABUF_NAME_MAX + 1);
	size_t i;

	if (!len || len > UDMABUF_NAME_MAX)
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
