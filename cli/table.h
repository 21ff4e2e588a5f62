/*
 * table.h - the command line's output: aligned text tables (for people),
 * CSV, JSON strings, and the formats of times, durations and CPU lists
 * every command shares.
 */
#ifndef ASTEAL_CLI_TABLE_H
#define ASTEAL_CLI_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct table;

/* A table with ncols columns named by headers; a header starting with '>'
 * (not printed) makes its column right-aligned (numbers).  NULL when out
 * of memory. */
struct table *table_new(const char *const *headers, int ncols);

/* Free (NULL is fine). */
void table_free(struct table *t);

/* Append a row of ncols cells (copied; NULL is no value); -1 when out
 * of memory. */
int table_add(struct table *t, const char *const *cells);

/* Rows so far. */
int table_rows(const struct table *t);

/* How a table is printed. */
enum table_style {
	TABLE_ALIGNED,        /* columns aligned by display width, 2 spaces apart */
	TABLE_PARSABLE,       /* cells '|'-separated, unpadded (sacct -P) */
	TABLE_CSV,            /* RFC 4180, CRLF; values as they are */
};

/* Print t to f (header: the header line first).  Aligned and parsable
 * cells show "-" for no value and '?' for whatever is not a printable
 * character of the locale (and for '|' when parsable); CSV gives an empty
 * field for no value and every byte as it is. */
void table_write(const struct table *t, FILE *f, enum table_style style,
                 int header);

/* Print s as a JSON string, quoted and escaped (NULL prints null); the
 * output is valid UTF-8 always: each byte of s that does not belong to a
 * valid UTF-8 character becomes U+FFFD, written \ufffd. */
void json_string(FILE *f, const char *s);

/* Print a 64-bit number as a JSON string of its decimal digits (every
 * *_ns value: a double cannot hold all of them). */
void json_u64s(FILE *f, uint64_t v);

/* A wall-clock instant (ns since the epoch) as local
 * "YYYY-MM-DD HH:MM:SS"; "-" for 0. */
char *fmt_time(char *buf, size_t len, uint64_t ns);

/* A duration as "850ms", "12.3s", "4m05s", "2h13m", "3d04h". */
char *fmt_duration(char *buf, size_t len, uint64_t ns);

/* CPU ids as a Linux CPU list "0-3,6" ("-" when n is 0). */
char *fmt_cpus(char *buf, size_t len, const uint32_t *cpus, size_t n);

/* The name of user uid (cached: tables repeat the same few), or the
 * number when it has none. */
const char *fmt_user(uint32_t uid, char *buf, size_t len);

/* An unsigned number as text. */
char *fmt_u64(char *buf, size_t len, uint64_t v);

/* A wall-clock instant as local "YYYY-MM-DD HH:MM:SS.mmm" ("-" for 0). */
char *fmt_time_ms(char *buf, size_t len, uint64_t ns);

/* A short duration (latencies): "850ns", "12.3us", "1.25ms", "2.00s". */
char *fmt_short(char *buf, size_t len, uint64_t ns);

/* An instant as the members ,"NAME_ns":"ns" (a string, as json_u64s) and
 * ,"NAME":ISO 8601 UTC string (ms), null for 0. */
void json_instant(FILE *f, const char *name, uint64_t ns);

/* A JSON array of numbers. */
void json_u32s(FILE *f, const uint32_t *v, size_t n);

/* A JSON number for a double (null when not finite). */
void json_double(FILE *f, double v);

/* Usage times as JSON members, each after a comma: work_ns, steal_ns,
 * mug_ns, sleep_ns, preempted_ns, allotted_ns (strings, as json_u64s). */
void json_usage(FILE *f, uint64_t work, uint64_t steal, uint64_t mug,
                uint64_t sleep, uint64_t preempted, uint64_t allotted);

/* A fraction with at most four decimals, trailing zeros dropped ("0.6154",
 * "1"): CSV's and JSON's fractions. */
char *fmt_real(char *buf, size_t len, double v);

/* The length of the valid UTF-8 sequence of a character above U+007F at
 * s (its first byte 0x80 or more), or 0. */
size_t table_utf8_len(const unsigned char *s);

#endif
