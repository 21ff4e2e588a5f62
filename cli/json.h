/*
 * json.h - the command line's one JSON encoder: every command writes its
 * JSON through it, so that the schema asteal(1) gives (OUTPUT, "JSON")
 * holds by construction.  Strings are valid UTF-8 always (json_string);
 * a member whose key ends in "_ns" (an instant or a duration in
 * nanoseconds) is a string of decimal digits, every other integer a JSON
 * number; fractions have at most four decimals; an instant comes twice,
 * as NAME_ns and as NAME, an ISO 8601 UTC string (null for none); a
 * job's end is the same members wherever it is told (json_exit).
 *
 * Containers nest: json_object and json_array open one (named by key
 * inside an object, key NULL for an element of an array or the
 * document), json_end closes the innermost, and closing the document
 * ends its line.  A "lines" array puts each element on a line of its own.
 */
#ifndef ASTEAL_CLI_JSON_H
#define ASTEAL_CLI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH 8            /* containers open at once */

/* A JSON document being written. */
struct json {
	FILE *f;
	int depth;                  /* containers open */
	char close[JSON_DEPTH];     /* '}' or ']' for each */
	int count[JSON_DEPTH];      /* members or elements written in each */
	int lines[JSON_DEPTH];      /* an array with an element a line */
};

/* Start a document on f. */
void json_start(struct json *w, FILE *f);

/* Open an object (key: its name in the enclosing object; NULL for an
 * element of an array or the document itself). */
void json_object(struct json *w, const char *key);

/* Open an array, named as for json_object (lines: an element a line). */
void json_array(struct json *w, const char *key, int lines);

/* Close the innermost container; the document's last ends its line. */
void json_end(struct json *w);

/* An unsigned integer: a string of digits when key ends in "_ns", else
 * a number. */
void json_uint(struct json *w, const char *key, uint64_t v);

/* A signed integer (a number). */
void json_int(struct json *w, const char *key, int64_t v);

/* A fraction, with at most four decimals (null when not finite). */
void json_real(struct json *w, const char *key, double v);

/* true or false. */
void json_bool(struct json *w, const char *key, int v);

/* null. */
void json_null(struct json *w, const char *key);

/* A string (NULL: null). */
void json_str(struct json *w, const char *key, const char *s);

/* An instant (ns since the epoch; 0: none) as NAME_ns and NAME (ISO 8601
 * UTC to the millisecond, null for none). */
void json_instant(struct json *w, const char *name, uint64_t ns);

/* An array of numbers. */
void json_u32s(struct json *w, const char *key, const uint32_t *v, size_t n);

struct Asteal__Usage;

/* Usage times: work_ns, steal_ns, mug_ns, sleep_ns, preempted_ns and
 * allotted_ns, from u (all 0 when NULL: a message without one). */
void json_usage(struct json *w, const struct Asteal__Usage *u);

/* A job's end as waitpid() told it (known: whether anybody saw it):
 * status_known, wait_status (null when unknown), exit_code (its exit
 * status; null when a signal killed it or unknown), signal (the signal
 * that killed it, else null), status (fmt_wait_status's words, null
 * when unknown) and timeout (whether asteald stopped it at its time
 * limit). */
void json_exit(struct json *w, int known, int wait_status, int timeout);

/* Print s as a JSON string, quoted and escaped (NULL prints null); the
 * output is valid UTF-8 always: each byte of s that does not belong to a
 * valid UTF-8 character becomes U+FFFD, written \ufffd. */
void json_string(FILE *f, const char *s);

#endif
