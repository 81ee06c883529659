// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libudmabuf: the values a user writes: sizes (udmabuf_parse_size()) and
 * device names.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <linux/udmabuf-cfs.h>

#include "libudmabuf-private.h"

UDMABUF_EXPORT int udmabuf_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v = 0;
	unsigned int base = 10, shift = 0;
	int digits = 0, overflow = 0;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (;; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			break;
		digits++;
		if (v > (UINT64_MAX - d) / base)
			overflow = 1;
		else
			v = v * base + d;
	}
	if (!digits)
		return -EINVAL;
	if (*s) {
		switch (*s) {
		case 'k':
		case 'K':
			shift = 10;
			break;
		case 'm':
		case 'M':
			shift = 20;
			break;
		case 'g':
		case 'G':
			shift = 30;
			break;
		case 't':
		case 'T':
			shift = 40;
			break;
		default:
			return -EINVAL;
		}
		s++;
		if (s[0] == 'i' && s[1] == 'B')
			s += 2;
		if (*s)
			return -EINVAL;
	}
	if (overflow || (shift && v > (UINT64_MAX >> shift)))
		return -ERANGE;
	*bytes = v << shift;
	return 0;
}

int udmabuf_valid_device_name(const char *s)
{
	size_t len = s ? strlen(s) : 0;
	size_t i;

	if (len < 1 || len > UDMABUF_CFS_NAME_MAX ||
	    !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isascii(c) || !(isalnum(c) || c == '_' || c == '.' ||
				     c == '-'))
			return 0;
	}
	return 1;
}
