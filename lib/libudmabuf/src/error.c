// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libudmabuf: the library's version, and what the last failing call of a
 * thread says (udmabuf_last_error(), udmabuf_last_error_step()). Every
 * failure of the library is recorded here, by udmabuf_fail().
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "libudmabuf-private.h"

#ifndef LIBUDMABUF_VERSION
#define LIBUDMABUF_VERSION "unknown"
#endif

UDMABUF_EXPORT const char *udmabuf_library_version(void)
{
	return LIBUDMABUF_VERSION;
}

static __thread char last_error[512];
static __thread char last_step[UDMABUF_ATTR_MAX];

UDMABUF_EXPORT const char *udmabuf_last_error(void)
{
	return last_error;
}

UDMABUF_EXPORT const char *udmabuf_last_error_step(void)
{
	return last_step;
}

static int vfail(int err, const char *step, const char *object,
		 const char *action, va_list ap)
{
	char what[256], reason[128];

	vsnprintf(what, sizeof(what), action, ap);
	/* strerror_r: strerror's buffer is not the thread's own. */
	snprintf(last_error, sizeof(last_error), "%s: %s: %s",
		 object && *object ? object : "udmabuf", what,
		 strerror_r(err, reason, sizeof(reason)));
	snprintf(last_step, sizeof(last_step), "%s", step);
	return -err;
}

int udmabuf_fail(int err, const char *object, const char *action, ...)
{
	va_list ap;
	int ret;

	va_start(ap, action);
	ret = vfail(err, "", object, action, ap);
	va_end(ap);
	return ret;
}

int udmabuf_fail_step(int err, const char *step, const char *object,
		      const char *action, ...)
{
	va_list ap;
	int ret;

	va_start(ap, action);
	ret = vfail(err, step, object, action, ap);
	va_end(ap);
	return ret;
}
