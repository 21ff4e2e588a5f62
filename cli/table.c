/*
 * table.c - aligned tables, CSV, JSON values, and the formats every
 * command shares (see table.h).
 */
#include <math.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpulist.h"
#include "table.h"

struct table {
	int ncols;
	char **headers;
	int *right;
	char **cells;         /* rows * ncols */
	int rows, cap;
};

/* Copy a string; NULL stays NULL. */
static char *dup(const char *s)
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
	if (t->headers == NULL || t->right == NULL) {
		table_free(t);
		return NULL;
	}
	for (i = 0; i < ncols; i++) {
		t->right[i] = headers[i][0] == '>';
		t->headers[i] = dup(headers[i] + t->right[i]);
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
		char *s = dup(cells[i] != NULL ? cells[i] : "-");
		if (s == NULL) {
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

/* The columns a cell takes on a terminal: its UTF-8 characters (the
 * bytes that do not continue one). */
static int width(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Print a cell, control characters (a job name may hold any) as '?', so
 * no cell can move the cursor or send the terminal an escape sequence. */
static void put_cell(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

/* Print one row with the widths given (the last column unpadded). */
static void print_row(const struct table *t, FILE *f, char *const *row,
                      const int *w)
{
	int i;

	for (i = 0; i < t->ncols; i++) {
		int last = i == t->ncols - 1;
		int pad = w[i] - width(row[i]);
		if (t->right[i])
			fprintf(f, "%*s", pad > 0 ? pad : 0, "");
		put_cell(f, row[i]);
		if (!t->right[i] && !last)
			fprintf(f, "%*s", pad > 0 ? pad : 0, "");
		fputs(last ? "\n" : "  ", f);
	}
}

/* Print aligned. */
void table_print(const struct table *t, FILE *f)
{
	int *w = calloc((size_t)t->ncols, sizeof(*w));
	int i, r;

	if (w == NULL)
		return;
	for (i = 0; i < t->ncols; i++) {
		w[i] = width(t->headers[i]);
		for (r = 0; r < t->rows; r++) {
			int n = width(t->cells[r * t->ncols + i]);
			if (n > w[i])
				w[i] = n;
		}
	}
	print_row(t, f, t->headers, w);
	for (r = 0; r < t->rows; r++)
		print_row(t, f, t->cells + r * t->ncols, w);
	free(w);
}

/* One CSV field. */
static void csv_field(FILE *f, const char *s)
{
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
void table_csv(const struct table *t, FILE *f)
{
	int i, r;

	for (r = -1; r < t->rows; r++)
		for (i = 0; i < t->ncols; i++) {
			csv_field(f, r < 0 ? t->headers[i] : t->cells[r * t->ncols + i]);
			fputs(i == t->ncols - 1 ? "\r\n" : ",", f);
		}
}

/* A JSON string. */
void json_string(FILE *f, const char *s)
{
	if (s == NULL) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
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

/* An instant as a JSON ISO 8601 UTC string (ms), null for 0. */
void json_iso(FILE *f, uint64_t ns)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;
	char buf[48];

	if (ns == 0 || gmtime_r(&s, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		fputs("null", f);
		return;
	}
	fprintf(f, "\"%s.%03uZ\"", buf, (unsigned)(ns / 1000000u % 1000u));
}

/* A JSON array of numbers. */
void json_u32s(FILE *f, const uint32_t *v, size_t n)
{
	size_t i;

	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? "," : "", v[i]);
	fputc(']', f);
}

/* A JSON number for a double (null when not finite). */
void json_double(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

/* A job's usage as JSON members, each after a comma: work_ns, steal_ns,
 * mug_ns, sleep_ns, preempted_ns, allotted_ns. */
void json_usage(FILE *f, uint64_t work, uint64_t steal, uint64_t mug,
                       uint64_t sleep, uint64_t preempted, uint64_t allotted)
{
	fprintf(f, ",\"work_ns\":%llu,\"steal_ns\":%llu,\"mug_ns\":%llu,"
	        "\"sleep_ns\":%llu,\"preempted_ns\":%llu,\"allotted_ns\":%llu",
	        (unsigned long long)work, (unsigned long long)steal,
	        (unsigned long long)mug, (unsigned long long)sleep,
	        (unsigned long long)preempted, (unsigned long long)allotted);
}
