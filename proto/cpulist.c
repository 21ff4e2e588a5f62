/*
 * cpulist.c - Linux CPU lists, as in /sys/devices/system/cpu/online and
 * taskset -c: items "N" or "N-M" (N <= M) separated by commas.
 *
 * Parsing accepts blanks (spaces, tabs, newlines) before and after any
 * number, comma or dash, so "0-3, 6" and a sysfs file's "0-3\n" both
 * parse.  It rejects an empty list, an empty item (leading, doubled or
 * trailing comma), a sign, a backwards range, an id of CPULIST_MAX or
 * more, a CPU named twice (also through overlapping ranges), and anything
 * else (Linux's stride syntax "0-7:2" included).  Output is ascending.
 *
 * Formatting writes runs of two or more consecutive ids as "N-M", the
 * others as "N" ("0-3,6,8-9").  cpulist_allowed asks sched_getaffinity
 * with a CPU set sized by CPU_ALLOC, grown until the kernel's mask fits,
 * so it works whatever the number of CPUs.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpulist.h"
#include "why.h"

/* The largest CPU set cpulist_allowed tries (bits). */
#define ALLOWED_MAX_BITS (1 << 22)

/* Whether c is a blank between tokens. */
static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Skip blanks at *p. */
static void skip_blanks(const char **p)
{
	while (is_blank(**p))
		(*p)++;
}

/* Parse one CPU id at *p (after blanks) into *id: 0, or -1 with a reason. */
static int parse_id(const char **p, int *id, char *why, size_t whylen)
{
	long v = 0;
	const char *s;

	skip_blanks(p);
	s = *p;
	if (*s == '-' && s[1] >= '0' && s[1] <= '9')
		return why_fail(why, whylen, EINVAL, "negative CPU id at '%.16s'", s);
	if (*s == '-' || *s == '+')
		return why_fail(why, whylen, EINVAL, "CPU ids have no sign (at '%.16s')", s);
	if (*s < '0' || *s > '9') {
		if (*s == '\0')
			return why_fail(why, whylen, EINVAL, "CPU id missing at the end");
		return why_fail(why, whylen, EINVAL, "expected a CPU id at '%.16s'", s);
	}
	while (*s >= '0' && *s <= '9') {
		if (v < 1000000000L)
			v = v * 10 + (*s - '0');
		s++;
	}
	if (v >= CPULIST_MAX) {
		if (v >= 1000000000L)
			return why_fail(why, whylen, EINVAL, "CPU %.*s out of range (0-%d)",
				    (int)(s - *p > 20 ? 20 : s - *p), *p,
				    CPULIST_MAX - 1);
		return why_fail(why, whylen, EINVAL, "CPU %ld out of range (0-%d)", v,
			    CPULIST_MAX - 1);
	}
	*p = s;
	*id = (int)v;
	return 0;
}

/* Parse s into ascending, distinct CPU ids (at most max of them). */
int cpulist_parse(const char *s, int *cpus, int max, char *why, size_t whylen)
{
	unsigned char seen[CPULIST_MAX];
	const char *p = s;
	int n = 0;

	if (s == NULL)
		return why_fail(why, whylen, EINVAL, "empty list");
	memset(seen, 0, sizeof(seen));
	skip_blanks(&p);
	if (*p == '\0')
		return why_fail(why, whylen, EINVAL, "empty list");
	for (;;) {
		int lo, hi;

		skip_blanks(&p);
		if (*p == ',')
			return why_fail(why, whylen, EINVAL, "empty item in '%.32s'", s);
		if (parse_id(&p, &lo, why, whylen) < 0)
			return -1;
		hi = lo;
		skip_blanks(&p);
		if (*p == '-') {
			p++;
			skip_blanks(&p);
			if (*p == '\0' || *p == ',')
				return why_fail(why, whylen, EINVAL,
					    "range %d- has no end", lo);
			if (parse_id(&p, &hi, why, whylen) < 0)
				return -1;
			if (hi < lo)
				return why_fail(why, whylen, EINVAL, "bad range %d-%d",
					    lo, hi);
		}
		for (int c = lo; c <= hi; c++) {
			if (seen[c])
				return why_fail(why, whylen, EINVAL, "CPU %d listed twice",
					    c);
			seen[c] = 1;
		}
		n += hi - lo + 1;
		skip_blanks(&p);
		if (*p == '\0')
			break;
		if (*p != ',')
			return why_fail(why, whylen, EINVAL, "unexpected '%.16s' in CPU list",
				    p);
		p++;
		skip_blanks(&p);
		if (*p == '\0')
			return why_fail(why, whylen, EINVAL, "trailing comma in '%.32s'", s);
	}
	if (n > max)
		return why_fail(why, whylen, EINVAL, "more than %d CPUs", max < 0 ? 0 : max);
	n = 0;
	for (int c = 0; c < CPULIST_MAX; c++)
		if (seen[c])
			cpus[n++] = c;
	return n;
}

/* Append text to buf at *at, keeping it NUL-terminated; -1 when cut. */
static int append(char *buf, size_t len, size_t *at, const char *text)
{
	size_t tl = strlen(text);

	if (len == 0)
		return -1;
	if (*at + tl >= len) {
		size_t fit = len - 1 - *at;

		memcpy(buf + *at, text, fit);
		*at += fit;
		buf[*at] = '\0';
		return -1;
	}
	memcpy(buf + *at, text, tl + 1);
	*at += tl;
	return 0;
}

/* Write v (>= 0) in decimal at p (no NUL): the digits written. */
static size_t put_uint(char *p, int v)
{
	char tmp[12];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/* The first id >= from in the bitmap, or CPULIST_MAX when there is none. */
static int next_set(const uint64_t *bits, int from)
{
	int w = from / 64;
	uint64_t b;

	if (from >= CPULIST_MAX)
		return CPULIST_MAX;
	b = bits[w] & (~(uint64_t)0 << (from % 64));
	while (b == 0) {
		if (++w >= CPULIST_MAX / 64)
			return CPULIST_MAX;
		b = bits[w];
	}
	return w * 64 + __builtin_ctzll(b);
}

/* Format n CPU ids (any order; duplicates collapse) as a compact list.
 * The daemon formats an allotment's list whenever it changes, so this
 * walks a bitmap word by word and writes numbers by hand rather than
 * scanning every possible id and calling snprintf per item. */
int cpulist_format(const int *cpus, int n, char *buf, size_t len)
{
	uint64_t seen[CPULIST_MAX / 64];
	size_t at = 0;
	int first = 1, c;

	if (len > 0)
		buf[0] = '\0';
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < n; i++) {
		if (cpus[i] < 0 || cpus[i] >= CPULIST_MAX) {
			errno = EINVAL;
			return -1;
		}
		seen[cpus[i] / 64] |= (uint64_t)1 << (cpus[i] % 64);
	}
	for (c = next_set(seen, 0); c < CPULIST_MAX; c = next_set(seen, c + 1)) {
		char item[32];
		size_t il = 0;
		int e;

		for (e = c; e + 1 < CPULIST_MAX &&
		     (seen[(e + 1) / 64] >> ((e + 1) % 64) & 1); e++)
			;
		if (!first)
			item[il++] = ',';
		il += put_uint(item + il, c);
		if (e > c) {
			item[il++] = '-';
			il += put_uint(item + il, e);
		}
		item[il] = '\0';
		if (append(buf, len, &at, item) < 0) {
			errno = ENOSPC;
			return -1;
		}
		first = 0;
		c = e;
	}
	if (len == 0) {
		errno = ENOSPC;
		return -1;
	}
	return (int)at;
}

/* The CPUs this process may run on, ascending (ids of CPULIST_MAX or more,
 * which no list can name, are left out): the count, or -1 with errno
 * (ERANGE when there are more than max, or none below CPULIST_MAX). */
int cpulist_allowed(int *cpus, int max)
{
	int bits = CPULIST_MAX;

	for (;;) {
		cpu_set_t *set = CPU_ALLOC((size_t)bits);
		size_t size = CPU_ALLOC_SIZE((size_t)bits);
		int n = 0;

		if (set == NULL)
			return -1;
		CPU_ZERO_S(size, set);
		if (sched_getaffinity(0, size, set) < 0) {
			int err = errno;

			CPU_FREE(set);
			if (err == EINVAL && bits < ALLOWED_MAX_BITS) {
				bits *= 2;      /* the kernel's mask is bigger */
				continue;
			}
			errno = err;
			return -1;
		}
		for (int c = 0; c < CPULIST_MAX; c++) {
			if (!CPU_ISSET_S((size_t)c, size, set))
				continue;
			if (n >= max) {
				CPU_FREE(set);
				errno = ERANGE;
				return -1;
			}
			cpus[n++] = c;
		}
		CPU_FREE(set);
		if (n == 0) {
			errno = ERANGE;
			return -1;
		}
		return n;
	}
}
