/*
 * table.h - the command line's output: aligned text tables for people
 * (drawn by libsmartcols, fitted to the terminal), parsable text, CSV,
 * and the formats of times, durations, fractions, CPU lists and a
 * job's end every command shares (JSON: json.h).
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

/* Fix column col's width (width > 0, in display columns; 0: as wide as
 * its widest cell, the default) for TABLE_ALIGNED: its header and cells
 * are padded to it, or cut to it with '+' as their last character (as
 * sacct --format NAME%N); the other styles show every cell whole. */
void table_set_width(struct table *t, int col, int width);

/* How a column gives way when its table is printed aligned on a
 * terminal too narrow for it (table_set_shrink). */
enum table_shrink {
	TABLE_SHRINK_CUT = 1,  /* its cells cut at its width (a name, a command) */
	TABLE_SHRINK_WRAP,     /* its cells wrapped over more lines (a value) */
};

/* Let column col give way, as how says, when t is printed aligned on a
 * terminal too narrow for it: down to its header's width, libsmartcols
 * taking a column off each column that gives way in turn.  Never for a
 * number; a column of fixed width (table_set_width) never gives way. */
void table_set_shrink(struct table *t, int col, enum table_shrink how);

/* How a table is printed. */
enum table_style {
	TABLE_ALIGNED,        /* columns aligned by display width, 2 spaces apart;
	                         on a terminal, no wider than it */
	TABLE_PARSABLE,       /* cells '|'-separated, unpadded (sacct -P) */
	TABLE_CSV,            /* RFC 4180, CRLF; values as they are */
};

/* Print t to f (header: the header line first).  Aligned and parsable
 * cells show "-" for no value and '?' for whatever is not a printable
 * character of the locale (and for '|' when parsable); CSV gives an empty
 * field for no value and every byte as it is.  Aligned on a terminal (f
 * is one), the table fits its width: the columns that may give way are
 * cut or wrapped (table_set_shrink), and those on the right that still
 * do not fit are left out whole; elsewhere nothing depends on a
 * terminal.  0, or -1 when out of memory. */
int table_write(const struct table *t, FILE *f, enum table_style style,
                int header);

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

/* A fraction with at most four decimals, trailing zeros dropped ("0.6154",
 * "1"): CSV's and JSON's fractions. */
char *fmt_real(char *buf, size_t len, double v);

/* A job's end from its wait status (waitpid()): "exit N", "killed by
 * SIGNAME" (and " (core dumped)"), as `history --jobs` STATUS, `run
 * --stats` and `wait` say it. */
char *fmt_wait_status(char *buf, size_t len, int status);

/* The length of the valid UTF-8 sequence of a character above U+007F at
 * s (its first byte 0x80 or more), or 0. */
size_t table_utf8_len(const unsigned char *s);

#endif
