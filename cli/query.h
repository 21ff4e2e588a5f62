/*
 * query.h - what the query commands (`jobs`, `history`, `status`; one
 * file each, query_jobs.c, query_history.c, query_status.c) share:
 * option and argument parsing, times, and the words and flushing of their
 * output (query.c); and the one table of the columns `jobs` and `history`
 * show, each column's cell made from a row's value, and the members of
 * a job both write in JSON (query_cols.c).
 */
#ifndef ASTEAL_CLI_QUERY_H
#define ASTEAL_CLI_QUERY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "asteal.pb-c.h"
#include "cli.h"
#include "json.h"
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

/* Flush stdout: CLI_OK, or CLI_FAIL after a message. */
int query_flush(void);

/* The times -S/--since and -E/--until take, for messages. */
#define QUERY_TIME_WORDS "now, today, yesterday, -30s, -5min, -2h, -1d, " \
	"now-1h, now+1h, @EPOCH, YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS], or what " \
	"date -d reads: '1 hour ago', 17:30, an ISO 8601 time with its zone"

/* Parse a time argument (asteal(1), TIMES: QUERY_TIME_WORDS) into *ns:
 * 0, or -1. */
int query_parse_time(const char *s, uint64_t now, uint64_t *ns);


#define QUERY_MAX_LIST 64               /* users or names in one option */
#define QUERY_MAX_COLS 40               /* columns in one -o */
#define QUERY_MAX_WIDTH 1000            /* the widest -o NAME%N */

/* The long options of the shared filters that `cancel` takes too (its
 * own getopt_long table names them). */
enum { QUERY_OPT_NAME = 1000, QUERY_OPT_STATE, QUERY_OPT_CSV,
       QUERY_OPT_HELPFORMAT };

/* A query command's columns: QC_* in its order, and the comma-separated
 * names of those its table and its CSV show by default. */
struct query_table {
	const int *cols;
	int ncols;
	const char *table_cols, *csv_cols;
};
#define QUERY_TABLE(cols, table_cols, csv_cols) \
	{ cols, (int)(sizeof(cols) / sizeof((cols)[0])), table_cols, csv_cols }

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
	int since_given, until_given;       /* -S, -E given (maybe @0) */
	uint64_t now;                       /* when the command started */
	int json;                           /* --json (or --format json) */
	enum table_style style;             /* else: aligned, parsable, CSV */
	int header;                         /* not --noheader */
	int form_given;                     /* --csv, --parsable, --format F */
	const char *columns;                /* -o's list, NULL: the default */
	const char *table_opt;              /* a table-only option given */
	int helpformat;                     /* --helpformat: list the columns */
	int cols[QUERY_MAX_COLS];           /* the columns chosen (QC_*) */
	int widths[QUERY_MAX_COLS];         /* their -o NAME%N widths, 0: none */
	int ncols;
};

/* Start a with the global options (--json) and the command's state words
 * (a NULL-terminated list, at most 32). */
void query_args_init(struct query_args *a, const struct cli *g,
                     const char *const *states);

/* Take one of the shared options (o as query_getopt's table gives it,
 * for a command such as `cancel` that parses its own) with its argument:
 * 0, -1 when o is not one of them, or CLI_USAGE after a message. */
int query_option(struct query_args *a, const char *cmd, int o, const char *arg);

struct option;

/* Take the command's own option o (from the table it gave query_getopt)
 * with its argument arg into ctx: 0, or an exit code after a message. */
typedef int query_take_fn(void *ctx, const char *cmd, int o, const char *arg);

/* Parse the options of argv (argv[0] the command's name): the command's
 * own (own: a getopt_long table of long options, at most 16, ending in a
 * zeroed entry) through take, and the shared filters and output options
 * into a: 0 with optind at the first argument left, or an exit code
 * after a message. */
int query_getopt(struct query_args *a, int argc, char **argv,
                 const struct option *own, query_take_fn *take, void *ctx);

/* After the options: check them together (--json excludes the table
 * options) and choose the columns of t (-o's, else t's default list for
 * tables or CSV, each maybe with a width NAME%N, 1 <= N <=
 * QUERY_MAX_WIDTH, as sacct --format takes it) into a->cols and
 * a->widths: 0, or CLI_USAGE after a message naming the valid columns or
 * saying what a width is.  With --helpformat it lists t's columns
 * instead, one a line (the name -o takes, the CSV and JSON key, and "*"
 * for those of the default table), and returns the exit code: the
 * command stops there (a->helpformat says so). */
int query_args_done(struct query_args *a, const char *cmd,
                    const struct query_table *t);

/* Whether a job of user uid named name in state (an index of the state
 * words, -1 for none) passes -u, --name and --state. */
int query_keep(const struct query_args *a, uint32_t uid, const char *name,
               int state);

/* ---- the running jobs (query_jobs.c), also for cancel's filters ---- */

struct client;

/* The states of a running job (--state, STATE), NULL-terminated. */
extern const char *const query_jobs_states[];

/* Job j's state: an index of query_jobs_states. */
int query_jobs_state(const Asteal__JobInfo *j);

/* Ask for the running jobs (ids: only these, nids 0: all), page after
 * page: 0 with *reply (all its pages' jobs, sorted by id; frame_free
 * it), or an exit code after a message. */
int query_jobs_fetch(struct client *c, const uint64_t *ids, size_t nids,
                     Asteal__Envelope **reply);

/* One running job as a JSON object, named key in an object (NULL in an
 * array; now: for its age). */
void query_jobs_json(struct json *w, const char *key, const Asteal__JobInfo *j,
                     uint64_t now);

/* What a frame of `jobs --watch` says of its jobs above them. */
struct query_jobs_sum {
	size_t jobs;                /* the jobs that pass the filters */
	unsigned allotted;          /* the CPUs they hold */
};

/* The jobs of all that pass a's filters (now: for their ages) written to
 * f as one frame of `jobs --watch`: a table of a's form and columns, or
 * with a->json a JSON array on one line; their count and CPUs into *sum.
 * 0, or -1 when out of memory. */
int query_jobs_render(FILE *f, const struct query_args *a,
                      const Asteal__Jobs *all, uint64_t now,
                      struct query_jobs_sum *sum);

/* ---- one job's records in the history (query_history.c), for show ---- */

struct hist;

/* The history's records of the jobs ids (nids >= 1) into *out (free it
 * with query_history_free): 0, or an exit code after a message. */
int query_history_jobs(struct client *c, const uint64_t *ids, size_t nids,
                       struct hist **out);

/* Job id's record in h, or NULL. */
const Asteal__JobRecord *query_history_job(const struct hist *h, uint64_t id);

/* Free h (NULL is fine). */
void query_history_free(struct hist *h);

/* A job record as a JSON object, named as for query_jobs_json (now: a
 * running job's elapsed time). */
void query_history_job_json(struct json *w, const char *key,
                            const Asteal__JobRecord *j, uint64_t now);

/* ---- the columns of `jobs` and `history` (query_cols.c) ---- */

/* Every column either command shows; each command lists its own, in its
 * order (asteal(1) explains each). */
enum {
	QC_ID, QC_JOB, QC_NAME, QC_USER, QC_UID, QC_PID, QC_COMMAND, QC_STATE,
	QC_START, QC_END, QC_START_MS, QC_END_MS, QC_AGE, QC_ELAPSED,
	QC_DURATION, QC_FIRST, QC_LAST, QC_DESIRE, QC_AVAIL, QC_ALLOT, QC_CPUS,
	QC_CAP, QC_RIGID, QC_HELD, QC_WORKERS, QC_EFF, QC_CLASS, QC_STATUS,
	QC_KNOWN, QC_WSTATUS, QC_WORK, QC_STEAL, QC_MUG, QC_SLEEP,
	QC_PREEMPTED, QC_ALLOTTED, QC_CPUTIME, QC_CPUQ, QC_TIMELIMIT, QC_NCOLS
};

/* How a column's value becomes its cell: for people (a table) or raw
 * (CSV: integers, ns). */
enum query_fmt {
	QF_TEXT,        /* a string as it is (query_text) */
	QF_UINT,        /* a number (query_num) */
	QF_INT,         /* a signed number (query_int) */
	QF_USER,        /* a uid: its user's name, or the number (query_num) */
	QF_TIME,        /* an instant: local time to the second; raw: ns */
	QF_TIME_MS,     /* an instant: to the millisecond; raw: ns */
	QF_DURATION,    /* a duration: "4m05s"; raw: ns */
	QF_BOOL,        /* yes or no; raw: 1 or 0 */
	QF_CLASS,       /* a quantum class's word (query_num) */
	QF_CPUS,        /* a CPU list "0-3,6" (query_cpus) */
};

/* One column: its name (the header; -o takes it in any case), its key
 * (the CSV header and the JSON key; -o takes it too), its alignment and
 * how its value is written. */
struct query_col {
	const char *name;           /* "START" */
	const char *key;            /* "start_ns" */
	int right;                  /* right-aligned: a number */
	enum query_fmt fmt;
	int shrink;                 /* long text: gives way on a narrow terminal */
};

/* The columns, by QC_*. */
extern const struct query_col query_cols[QC_NCOLS];

/* One row's cells, every column by QC_* (NULL: no value, "-" in a table
 * and empty in CSV), and room for their text. */
struct query_cells {
	int raw;                            /* CSV's values, not people's */
	const char *cell[QC_NCOLS];
	char v[QC_NCOLS][48];
	char cpus[QUERY_CPUS_LEN];
};

/* A running job's cells, and a job record's, for people (show). */
void query_jobs_cells(const Asteal__JobInfo *j, uint64_t now, struct query_cells *r);
void query_history_job_cells(const Asteal__JobRecord *j, uint64_t now,
                             struct query_cells *r);

/* Start r's row with no values (raw: CSV's values). */
void query_cells_start(struct query_cells *r, int raw);

/* Column col's cell: the number v, written by the column's kind. */
void query_num(struct query_cells *r, int col, uint64_t v);

/* A column's number, for query_nums. */
struct query_val {
	int col;                    /* QC_* */
	uint64_t v;
};

/* The cells of n columns' numbers (query_num each). */
void query_nums(struct query_cells *r, const struct query_val *v, size_t n);

/* Column col's cell: a signed number. */
void query_int(struct query_cells *r, int col, int v);

/* Column col's cell: s as it is (NULL: no value). */
void query_text(struct query_cells *r, int col, const char *s);

/* Column col's cell: n CPU ids as a list, no value for none. */
void query_cpus(struct query_cells *r, int col, const uint32_t *cpus, size_t n);

/* The usage columns WORK, STEAL, MUG, SLEEP, PREEMPTED and ALLOTTED, from
 * u (all 0 when NULL: a message without one). */
void query_usage(struct query_cells *r, const Asteal__Usage *u);

/* What `jobs` and `history --jobs` both say of a job first, from the
 * message either has. */
struct query_job {
	uint64_t id;
	const char *name;
	uint32_t uid;
	int pid;
	const char *command;
	const char *state;          /* one of the command's state words */
	uint64_t start_ns;
};

/* The cells of j: ID, NAME, USER, UID, PID, COMMAND, STATE and START. */
void query_job_cells(struct query_cells *r, const struct query_job *j);

/* j as the first members of a JSON object: "id", "name", "uid", "user",
 * "pid", "command", "state", "start_ns" and "start". */
void query_job_json(struct json *w, const struct query_job *j);

/* Fill r with the cells of row i of a query's rows in ctx (raw: plain
 * numbers, for CSV). */
typedef void query_cells_fn(const void *ctx, size_t i, int raw,
                            struct query_cells *r);

/* Print rows 0 to n - 1 of ctx, their cells from cells, as a table in a's
 * form with a's chosen columns on f: 0, or -1 when out of memory. */
int query_print(FILE *f, const struct query_args *a, size_t n,
                query_cells_fn *cells, const void *ctx);

#endif
