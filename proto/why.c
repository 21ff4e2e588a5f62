/*
 * why.c - the one form of a failure's reason (see why.h).
 */
#include "why.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

/* Format a reason into why (when there is one), set errno to err unless
 * err is 0, and return -1. */
int why_fail(char *why, size_t whylen, int err, const char *fmt, ...)
{
	va_list ap;

	if (why != NULL && whylen > 0) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	if (err != 0)
		errno = err;
	return -1;
}
