/*
 * query.h - what the query commands (`jobs`, `history`, `status`; one
 * file each, query_*.c) share: option and argument parsing, times, and
 * the words and flushing of their output.
 */
#ifndef ASTEAL_CLI_QUERY_H
#define ASTEAL_CLI_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "asteal.pb-c.h"
#include "cli.h"
#include "table.h"

#define QUERY_MAX_IDS 256               /* the daemon's limit per request */
#define QUERY_CPUS_LEN 8192             /* a CPU list as text */

/* Milliseconds on the monotonic clock. */
long long query_mono_ms(void);

/* Say a bad option (getopt returned o) and return CLI_USAGE. */
int query_bad_option(const char *cmd, int o, char **argv);

/* Parse the JOB arguments argv[first..argc) into ids (at most
 * QUERY_MAX_IDS): their count, or -1 after a usage message. */
int query_parse_ids(const char *cmd, int argc, char **argv, int first,
                    uint64_t *ids);

/* A quantum class as a word, NULL when none. */
const char *query_class_name(Asteal__QuantumClass c);

/* A job's end as waitpid() reported it: "exit 3", "killed by SIGKILL",
 * or NULL when unknown. */
const char *query_exit_text(char *buf, size_t len, const Asteal__JobRecord *j);

/* Flush stdout: CLI_OK, or CLI_FAIL after a message. */
int query_flush(void);

/* The times -S/--since and -E/--until take, for messages. */
#define QUERY_TIME_WORDS "now, today, yesterday, -30s, -5min, -2h, -1d, " \
	"@EPOCH, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]"

/* Parse a time argument (asteal(1), TIMES: QUERY_TIME_WORDS) into *ns:
 * 0, or -1. */
int query_parse_time(const char *s, uint64_t now, uint64_t *ns);


#define QUERY_MAX_LIST 64               /* users or names in one option */
#define QUERY_MAX_COLS 40               /* columns in one -o */

/* The long options every query command with a table takes, for its
 * getopt_long table, and their short letters (QUERY_SHORT). */
enum { QUERY_OPT_NAME = 1000, QUERY_OPT_STATE, QUERY_OPT_CSV };
#define QUERY_SHORT "u:S:E:o:nP"
#define QUERY_LONG_OPTIONS \
	{ "user", required_argument, NULL, 'u' }, \
	{ "name", required_argument, NULL, QUERY_OPT_NAME }, \
	{ "state", required_argument, NULL, QUERY_OPT_STATE }, \
	{ "since", required_argument, NULL, 'S' }, \
	{ "until", required_argument, NULL, 'E' }, \
	{ "format", required_argument, NULL, 'o' }, \
	{ "noheader", no_argument, NULL, 'n' }, \
	{ "parsable", no_argument, NULL, 'P' }, \
	{ "csv", no_argument, NULL, QUERY_OPT_CSV }

/* One column of a command's table: its name (the header; -o takes it in
 * any case) and its key (the CSV header and the JSON key; -o takes it
 * too). */
struct query_col {
	const char *name;           /* "START" */
	const char *key;            /* "start_ns" */
	int right;                  /* right-aligned: a number */
};

/* The shared options as parsed: filters and the output's form. */
struct query_args {
	uint32_t uids[QUERY_MAX_LIST];      /* -u: any of these; none: all */
	size_t nuids;
	char *names[QUERY_MAX_LIST];        /* --name: any of these */
	size_t nnames;
	char names_buf[1024];
	const char *const *states_valid;    /* the command's state words */
	unsigned states;                    /* --state: bits of those; 0 all */
	uint64_t since, until;              /* -S, -E: ns, 0 when not given */
	uint64_t now;                       /* when the command started */
	int json;                           /* --json (or --format json) */
	enum table_style style;             /* else: aligned, parsable, CSV */
	int header;                         /* not --noheader */
	int form_given;                     /* --csv, --parsable, --format F */
	const char *columns;                /* -o's list, NULL: the default */
	const char *table_opt;              /* a table-only option given */
	int cols[QUERY_MAX_COLS];           /* the columns chosen */
	int ncols;
};

/* Start a with the global options (--json) and the command's state words
 * (a NULL-terminated list, at most 32). */
void query_args_init(struct query_args *a, const struct cli *g,
                     const char *const *states);

/* Take option o (from QUERY_LONG_OPTIONS) with its argument: 0, -1 when
 * o is not one of them, or CLI_USAGE after a message. */
int query_option(struct query_args *a, const char *cmd, int o, const char *arg);

/* After the options: check them together (--json excludes the table
 * options) and choose the columns (-o's, else the default list for
 * tables or CSV, comma-separated names of cols): 0, or CLI_USAGE after a
 * message naming the valid columns. */
int query_args_done(struct query_args *a, const char *cmd,
                    const struct query_col *cols, int ncols,
                    const char *table_cols, const char *csv_cols);

/* Whether a job of user uid named name in state (an index of the state
 * words, -1 for none) passes -u, --name and --state. */
int query_keep(const struct query_args *a, uint32_t uid, const char *name,
               int state);

/* A new table of the chosen columns (headers: names, or keys for CSV):
 * NULL when out of memory. */
struct table *query_table(const struct query_args *a, const struct query_col *cols);

/* Add to t the chosen cells of all (a cell per column of the command, in
 * its order; NULL for no value): 0, or -1 when out of memory. */
int query_row(struct table *t, const struct query_args *a, const char *const *all);

#endif
