/*
 * json.c - the command line's one JSON encoder (see json.h): containers,
 * members by type, and the members every command writes alike (instants,
 * usage, a job's end).
 */
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "exchange.h"
#include "json.h"
#include "table.h"

/* Start a document on f. */
void json_start(struct json *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
}

/* Before a member or an element: its comma, its line, its key. */
static void member(struct json *w, const char *key)
{
	int d = w->depth - 1;

	if (d >= 0) {
		if (w->count[d]++ > 0)
			fputc(',', w->f);
		if (w->lines[d])
			fputc('\n', w->f);
	}
	if (key != NULL) {
		json_string(w->f, key);
		fputc(':', w->f);
	}
}

/* Open a container that closes with c. */
static void open_one(struct json *w, const char *key, char c, int lines)
{
	member(w, key);
	fputc(c == '}' ? '{' : '[', w->f);
	if (w->depth < JSON_DEPTH) {
		w->close[w->depth] = c;
		w->count[w->depth] = 0;
		w->lines[w->depth] = lines;
	}
	w->depth++;
}

/* Open an object. */
void json_object(struct json *w, const char *key)
{
	open_one(w, key, '}', 0);
}

/* Open an array. */
void json_array(struct json *w, const char *key, int lines)
{
	open_one(w, key, ']', lines);
}

/* Close the innermost container. */
void json_end(struct json *w)
{
	int d = --w->depth;

	if (d < 0 || d >= JSON_DEPTH) {
		w->depth = d < 0 ? 0 : d;
		return;                 /* nothing open, or nested too deep */
	}
	if (w->lines[d] && w->count[d] > 0)
		fputc('\n', w->f);
	fputc(w->close[d], w->f);
	if (d == 0)
		fputc('\n', w->f);
}

/* Whether key names nanoseconds. */
static int is_ns(const char *key)
{
	size_t n = key != NULL ? strlen(key) : 0;

	return n >= 3 && strcmp(key + n - 3, "_ns") == 0;
}

/* An unsigned integer (a string for *_ns). */
void json_uint(struct json *w, const char *key, uint64_t v)
{
	member(w, key);
	if (is_ns(key))
		fprintf(w->f, "\"%llu\"", (unsigned long long)v);
	else
		fprintf(w->f, "%llu", (unsigned long long)v);
}

/* A signed integer. */
void json_int(struct json *w, const char *key, int64_t v)
{
	member(w, key);
	fprintf(w->f, "%lld", (long long)v);
}

/* A fraction. */
void json_real(struct json *w, const char *key, double v)
{
	char buf[64];

	member(w, key);
	fputs(isfinite(v) ? fmt_real(buf, sizeof(buf), v) : "null", w->f);
}

/* true or false. */
void json_bool(struct json *w, const char *key, int v)
{
	member(w, key);
	fputs(v ? "true" : "false", w->f);
}

/* null. */
void json_null(struct json *w, const char *key)
{
	member(w, key);
	fputs("null", w->f);
}

/* A string. */
void json_str(struct json *w, const char *key, const char *s)
{
	member(w, key);
	json_string(w->f, s);
}

/* An instant as its two members, ns and ISO 8601 UTC (ms). */
void json_instant(struct json *w, const char *name, uint64_t ns)
{
	char key[64], buf[48], iso[64];
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;

	snprintf(key, sizeof(key), "%s_ns", name);
	json_uint(w, key, ns);
	if (ns == 0 || gmtime_r(&s, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		json_null(w, name);
		return;
	}
	snprintf(iso, sizeof(iso), "%s.%03uZ", buf, (unsigned)(ns / 1000000u % 1000u));
	json_str(w, name, iso);
}

/* An array of numbers. */
void json_u32s(struct json *w, const char *key, const uint32_t *v, size_t n)
{
	json_array(w, key, 0);
	for (size_t i = 0; i < n; i++)
		json_uint(w, NULL, v[i]);
	json_end(w);
}

/* Usage times, under their names in message Usage. */
void json_usage(struct json *w, const struct Asteal__Usage *u)
{
	struct usage_totals t;

	exchange_usage_from(&t, u);
	for (int k = 0; k < USAGE_N; k++)
		json_uint(w, exchange_usage_name((enum usage_kind)k), t.ns[k]);
}

/* A job's end. */
void json_exit(struct json *w, int known, int wait_status, int timeout)
{
	char buf[64];

	json_bool(w, "status_known", known);
	if (!known) {
		json_null(w, "wait_status");
		json_null(w, "exit_code");
		json_null(w, "signal");
		json_null(w, "status");
		json_bool(w, "timeout", timeout);
		return;
	}
	json_int(w, "wait_status", wait_status);
	if (WIFEXITED(wait_status))
		json_int(w, "exit_code", WEXITSTATUS(wait_status));
	else
		json_null(w, "exit_code");
	if (WIFSIGNALED(wait_status))
		json_int(w, "signal", WTERMSIG(wait_status));
	else
		json_null(w, "signal");
	json_str(w, "status", fmt_wait_status(buf, sizeof(buf), wait_status));
	json_bool(w, "timeout", timeout);
}

/* A JSON string: valid UTF-8 always. */
void json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (s == NULL) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p == '\n') {
			fputs("\\n", f);
		} else if (*p == '\t') {
			fputs("\\t", f);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else if (*p < 0x80) {
			fputc(*p, f);
		} else if ((n = table_utf8_len(p)) > 0) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		} else {
			fputs("\\ufffd", f);        /* a byte that is no character */
		}
		p++;
	}
	fputc('"', f);
}
