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

/* Append a row of ncols cells (copied; NULL prints as "-"); -1 when out
 * of memory. */
int table_add(struct table *t, const char *const *cells);

/* Rows so far. */
int table_rows(const struct table *t);

/* Print with aligned columns, two spaces apart, header first. */
void table_print(const struct table *t, FILE *f);

/* Print as CSV (RFC 4180 quoting), header first. */
void table_csv(const struct table *t, FILE *f);

/* Print s as a JSON string, quoted and escaped (NULL prints null). */
void json_string(FILE *f, const char *s);

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

/* An instant as a JSON ISO 8601 UTC string (ms), null for 0. */
void json_iso(FILE *f, uint64_t ns);

/* A JSON array of numbers. */
void json_u32s(FILE *f, const uint32_t *v, size_t n);

/* A JSON number for a double (null when not finite). */
void json_double(FILE *f, double v);

/* Usage times as JSON members, each after a comma: work_ns, steal_ns,
 * mug_ns, sleep_ns, preempted_ns, allotted_ns. */
void json_usage(FILE *f, uint64_t work, uint64_t steal, uint64_t mug,
                uint64_t sleep, uint64_t preempted, uint64_t allotted);

#endif
