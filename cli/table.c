/*
 * table.c - a table's cells, its '|'-separated and CSV forms, and the
 * formats every command shares (see table.h); its aligned form, drawn by
 * libsmartcols, is table_draw.c's (the two share table_int.h).
 *
 * A table keeps its cells as they were given (NULL: no value) until it
 * is written, so that each style shows them in its own way.
 */
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <wchar.h>

#include "cpulist.h"
#include "table.h"
#include "table_int.h"

/* Copy a string; NULL stays NULL. */
static char *copy_str(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* A new table. */
struct table *table_new(const char *const *headers, int ncols)
{
	struct table *t = calloc(1, sizeof(*t));
	int i;

	if (t == NULL)
		return NULL;
	t->ncols = ncols;
	t->headers = calloc((size_t)ncols, sizeof(*t->headers));
	t->right = calloc((size_t)ncols, sizeof(*t->right));
	t->width = calloc((size_t)ncols, sizeof(*t->width));
	t->shrink = calloc((size_t)ncols, sizeof(*t->shrink));
	if (t->headers == NULL || t->right == NULL || t->width == NULL ||
	    t->shrink == NULL) {
		table_free(t);
		return NULL;
	}
	for (i = 0; i < ncols; i++) {
		t->right[i] = headers[i][0] == '>';
		t->headers[i] = copy_str(headers[i] + t->right[i]);
		if (t->headers[i] == NULL) {
			table_free(t);
			return NULL;
		}
	}
	return t;
}

/* Free. */
void table_free(struct table *t)
{
	int i;

	if (t == NULL)
		return;
	for (i = 0; t->headers != NULL && i < t->ncols; i++)
		free(t->headers[i]);
	for (i = 0; i < t->rows * t->ncols; i++)
		free(t->cells[i]);
	free(t->headers);
	free(t->right);
	free(t->width);
	free(t->shrink);
	free(t->cells);
	free(t);
}

/* Append a row. */
int table_add(struct table *t, const char *const *cells)
{
	int i;

	if (t->rows == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		char **c = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof(*c));
		if (c == NULL)
			return -1;
		t->cells = c;
		t->cap = cap;
	}
	for (i = 0; i < t->ncols; i++) {
		char *s = copy_str(cells[i]);
		if (s == NULL && cells[i] != NULL) {
			while (i-- > 0)
				free(t->cells[t->rows * t->ncols + i]);
			return -1;
		}
		t->cells[t->rows * t->ncols + i] = s;
	}
	t->rows++;
	return 0;
}

/* Rows so far. */
int table_rows(const struct table *t)
{
	return t->rows;
}

/* Fix column col's width in an aligned table. */
void table_set_width(struct table *t, int col, int width)
{
	if (col >= 0 && col < t->ncols && width >= 0)
		t->width[col] = width;
}

/* Let column col give way on a terminal too narrow for the table. */
void table_set_shrink(struct table *t, int col, enum table_shrink how)
{
	if (col >= 0 && col < t->ncols)
		t->shrink[col] = (int)how;
}

/* Write s as a cell shows it (table_int.h). */
int table__cell_cut(char *out, const char *s, int sep, int max)
{
	mbstate_t st;
	size_t left = strlen(s), n;
	wchar_t wc;
	int w = 0, cw;

	memset(&st, 0, sizeof(st));
	while (left > 0) {
		if (*s >= 0x20 && *s < 0x7f && mbsinit(&st)) {
			n = 1;                  /* ASCII that prints: itself */
			cw = 1;
		} else if ((n = mbrtowc(&wc, s, left, &st)) == (size_t)-1 ||
		           n == (size_t)-2 || n == 0) {
			memset(&st, 0, sizeof(st));
			n = 1;
			cw = -1;
		} else {
			cw = wcwidth(wc);
		}
		if (cw < 0 || (sep != 0 && *s == sep)) {
			if (max >= 0 && w + 1 > max)
				break;
			if (out != NULL)
				*out++ = '?';
			w++;
		} else {
			if (max >= 0 && w + cw > max)
				break;
			if (out != NULL) {
				memcpy(out, s, n);
				out += n;
			}
			w += cw;
		}
		s += n;
		left -= n;
	}
	if (out != NULL)
		*out = '\0';
	return w;
}

/* A cell as shown: its value, or "-" when it has none. */
const char *table__shown(const char *s)
{
	return s != NULL ? s : "-";
}

/* Print a row '|'-separated, each cell written into *buf (*cap bytes,
 * grown as needed): 0, or -1 when out of memory. */
static int print_parsable(const struct table *t, FILE *f, char *const *row,
                          char **buf, size_t *cap)
{
	int i;

	for (i = 0; i < t->ncols; i++) {
		const char *s = table__shown(row[i]);
		size_t need = strlen(s) + 2;

		if (need > *cap) {
			char *b = realloc(*buf, need);
			if (b == NULL)
				return -1;
			*buf = b;
			*cap = need;
		}
		table__cell_cut(*buf, s, '|', -1);
		fputs(*buf, f);
		fputc(i == t->ncols - 1 ? '\n' : '|', f);
	}
	return 0;
}

/* One CSV field. */
static void csv_field(FILE *f, const char *s)
{
	if (s == NULL)
		return;
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Print as CSV. */
static void print_csv(const struct table *t, FILE *f, int header)
{
	int i, r;

	for (r = header ? -1 : 0; r < t->rows; r++)
		for (i = 0; i < t->ncols; i++) {
			csv_field(f, r < 0 ? t->headers[i] : t->cells[r * t->ncols + i]);
			fputs(i == t->ncols - 1 ? "\r\n" : ",", f);
		}
}

/* Print in a style. */
int table_write(const struct table *t, FILE *f, enum table_style style,
                int header)
{
	char *buf = NULL;
	size_t cap = 0;
	int r, rc = 0;

	switch (style) {
	case TABLE_ALIGNED:
		return table__draw(t, f, header);
	case TABLE_PARSABLE:
		if (header)
			rc = print_parsable(t, f, t->headers, &buf, &cap);
		for (r = 0; rc == 0 && r < t->rows; r++)
			rc = print_parsable(t, f, t->cells + r * t->ncols, &buf, &cap);
		free(buf);
		return rc;
	case TABLE_CSV:
		print_csv(t, f, header);
		break;
	}
	return 0;
}

/* The length of the valid UTF-8 sequence (of a character above U+007F)
 * at s, or 0. */
size_t table_utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) ||       /* overlong */
	    (s[0] == 0xed && s[1] > 0x9f) ||       /* surrogates */
	    (s[0] == 0xf0 && s[1] < 0x90) ||       /* overlong */
	    (s[0] == 0xf4 && s[1] > 0x8f))         /* above U+10FFFF */
		return 0;
	return n;
}

/* A local time. */
char *fmt_time(char *buf, size_t len, uint64_t ns)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (ns == 0 || localtime_r(&s, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(buf, len, "-");
	return buf;
}

/* A duration. */
char *fmt_duration(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / 1000000000u;

	if (ns < 1000000000u)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000u));
	else if (s < 60)
		snprintf(buf, len, "%.1fs", (double)ns / 1e9);
	else if (s < 3600)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(s / 60),
		         (unsigned long long)(s % 60));
	else if (s < 86400)
		snprintf(buf, len, "%lluh%02llum", (unsigned long long)(s / 3600),
		         (unsigned long long)(s % 3600 / 60));
	else
		snprintf(buf, len, "%llud%02lluh", (unsigned long long)(s / 86400),
		         (unsigned long long)(s % 86400 / 3600));
	return buf;
}

/* A CPU list, by the daemon's own formatter; "?" for ids no list can
 * name (a daemon would not send them). */
char *fmt_cpus(char *buf, size_t len, const uint32_t *cpus, size_t n)
{
	int ids[CPULIST_MAX];
	size_t i;

	if (n == 0 || n > CPULIST_MAX) {
		snprintf(buf, len, "%s", n == 0 ? "-" : "?");
		return buf;
	}
	for (i = 0; i < n; i++) {
		if (cpus[i] >= CPULIST_MAX) {
			snprintf(buf, len, "?");
			return buf;
		}
		ids[i] = (int)cpus[i];
	}
	cpulist_format(ids, (int)n, buf, len);   /* too long: cut, still a list */
	return buf;
}

/* The name of user uid (a small cache: tables repeat the same few), or
 * the number. */
const char *fmt_user(uint32_t uid, char *buf, size_t len)
{
	static struct { uint32_t uid; char name[64]; int used; } cache[8];
	static unsigned next;
	struct passwd pw, *res = NULL;
	char pbuf[2048];
	unsigned i;

	for (i = 0; i < 8; i++)
		if (cache[i].used && cache[i].uid == uid) {
			snprintf(buf, len, "%s", cache[i].name);
			return buf;
		}
	if (getpwuid_r(uid, &pw, pbuf, sizeof(pbuf), &res) == 0 && res != NULL)
		snprintf(buf, len, "%s", pw.pw_name);
	else
		snprintf(buf, len, "%u", uid);
	i = next++ % 8;
	cache[i].uid = uid;
	cache[i].used = 1;
	snprintf(cache[i].name, sizeof(cache[i].name), "%s", buf);
	return buf;
}

/* An unsigned number as text. */
char *fmt_u64(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* A wall-clock instant as local "YYYY-MM-DD HH:MM:SS.mmm" ("-" for 0). */
char *fmt_time_ms(char *buf, size_t len, uint64_t ns)
{
	size_t n;

	fmt_time(buf, len, ns);
	n = strlen(buf);
	if (ns != 0 && n > 1)
		snprintf(buf + n, len - n, ".%03u", (unsigned)(ns / 1000000u % 1000u));
	return buf;
}

/* A short duration (latencies): "850ns", "12.3us", "1.25ms", "2.00s". */
char *fmt_short(char *buf, size_t len, uint64_t ns)
{
	static const char *const unit[] = { "us", "ms", "s" };
	double v = (double)ns;
	int u = -1;

	if (ns < 1000) {
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
		return buf;
	}
	while (u < 2 && v >= 1000) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.*f%s", v < 10 ? 2 : v < 100 ? 1 : 0, v, unit[u]);
	return buf;
}

/* A fraction with at most four decimals, trailing zeros dropped: "0.6154",
 * "1", "12.5". */
char *fmt_real(char *buf, size_t len, double v)
{
	char *dot, *end;

	snprintf(buf, len, "%.4f", v);
	dot = strchr(buf, '.');
	if (dot != NULL) {
		end = buf + strlen(buf);
		while (end > dot + 1 && end[-1] == '0')
			*--end = '\0';
		if (end == dot + 1)
			*dot = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, len, "0");
	return buf;
}

/* A job's end from its wait status: "exit 3", "killed by SIGKILL" (with
 * " (core dumped)"), "killed by signal 70" for one without a name. */
char *fmt_wait_status(char *buf, size_t len, int status)
{
	if (WIFEXITED(status)) {
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		const char *name = sigabbrev_np(WTERMSIG(status));
		if (name != NULL)
			snprintf(buf, len, "killed by SIG%s%s", name,
			         WCOREDUMP(status) ? " (core dumped)" : "");
		else
			snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	} else {
		snprintf(buf, len, "status 0x%x", (unsigned)status);
	}
	return buf;
}
