// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The numbers udmabufctl's options and save file take (sizes are
 * libudmabuf's udmabuf_parse_size()).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "udmabufctl.h"

int parse_long(const char *s, long min, long max, long *value)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*value = v;
	return 0;
}

int parse_mode(const char *s, unsigned int *mode)
{
	unsigned long v = 0;
	const char *p;

	if (!s || !*s)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '7')
			return -EINVAL;
		if (p - s >= 8)
			return -ERANGE;
		v = v * 8 + (unsigned long)(*p - '0');
	}
	if (v > 0777)
		return -ERANGE;
	*mode = (unsigned int)v;
	return 0;
}

int parse_address(const char *s, uint64_t *addr)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (*s == '-' || *s == '+' || !*s)
		return -EINVAL;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*addr = v;
	return 0;
}
