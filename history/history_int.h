/*
 * history_int.h - what the files of asteald's history, history.c (the
 * handle), histschema.c (the schema and its upgrades), histjob.c (the job
 * rows), histrun.c (the runs) and histquery.c (the read side), share;
 * private to them (history.h is the interface, and no other file includes
 * this one): the handle with its tracked jobs, their open runs and the
 * queue of closed runs, the prepared statements, and a few helpers.
 */
#ifndef ASTEAL_HISTORY_INT_H
#define ASTEAL_HISTORY_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "history.h"

/* The prepared statements, prepared once at open: the store's, whose SQL
 * is history.c's, then from ST_QUERY on the read side's, whose SQL is
 * hist_query_sql. */
enum {
	ST_BEGIN, ST_COMMIT, ST_ROLLBACK,
	ST_JOB_INS, ST_JOB_END, ST_JOB_ADD, ST_JOB_EXIT, ST_JOB_GET,
	ST_JOB_WORKERS, ST_JOB_TIMEOUT,
	ST_STALE,
	ST_RUN_INS, ST_RUN_UPD, ST_SKIP_INS, ST_GRANT_INS, ST_AWAY_INS,
	ST_IDS_CLEAR, ST_IDS_ADD,
	ST_QUERY,
	ST_Q_JOBS = ST_QUERY, ST_Q_RUNS, ST_Q_FIRST, ST_Q_RUN_AT,
	ST_EXP_RUNS, ST_EXP_JOBS, ST_EXP_SKIPS,
	ST_STATS,
	ST_COUNT
};

/* The SQL of the read side's statements (histquery.c), indexed from
 * ST_QUERY. */
extern const char *const hist_query_sql[ST_COUNT - ST_QUERY];

/* ST_Q_JOBS's SQL for a reader of a file of the version before, whose
 * jobs have no time limit columns (histquery.c). */
extern const char hist_query_jobs_before[];

/* A run of quanta with the same values. */
struct run {
	int64_t rowid;          /* its row, 0 if never written */
	int64_t new_rowid;      /* the row written in the open transaction */
	int64_t first_q, last_q, start_ns, end_ns;
	int64_t use[USAGE_N];      /* its usage (enum usage_kind) */
	int desire, availability, allotment, cls;      /* allotment and
				   availability: the lower of its turns */
	char *cpus;             /* all the CPUs it held */
	int hi;                 /* the higher of its turns (= allotment
				   without turns) */
	int cur;                /* its allotment from quantum cur_q on */
	int64_t cur_q;
	int64_t cq;             /* processor-quanta of first_q .. cur_q - 1 */
	int64_t epoch;          /* the shares' generation it began in */
	int dirty;              /* changed since last written */
	int pending;            /* written in the open transaction */
	int64_t w[USAGE_N];        /* its usage in its row as
				   committed: what its job's totals hold
				   of it */
	int64_t wn[USAGE_N];       /* ... as written in the open
				   transaction */
};

/* The places of hist_live_find's hints: jobs a tick reads, each once or
 * twice, find theirs without a search. */
#define HIST_LIVE_HINTS 1024

/* A tracked job. */
struct live {
	int64_t job;
	int has_run;
	struct run run;
	int64_t carry[USAGE_N];    /* usage before its first run */
	int lost;               /* its row was dropped (the buffer of job
				   writes was full): nothing of it is kept */
	int64_t start_ns;       /* its row's start */
	int64_t had[USAGE_N];      /* its totals as this handle knows them:
				   its row's when reopened, and all usage
				   given since (history_job_usage) */
};

/* Count usage given to tracked job l in its totals as known here. */
static inline void hist_had_add(struct live *l, const int64_t u[USAGE_N])
{
	for (int k = 0; k < USAGE_N; k++)
		l->had[k] += u[k];
}

/* A job row's write waiting for the disk (in order; before the runs). */
enum { OP_BEGIN, OP_WORKERS, OP_EXIT, OP_END, OP_AWAY, OP_TIMEOUT };
struct jobop {
	int kind;
	int64_t job;
	int64_t uid, pid, start_ns;     /* OP_BEGIN */
	int64_t limit_ns;               /* OP_BEGIN: its time limit */
	int64_t end_ns;                 /* OP_END; OP_AWAY: its at_ns */
	int64_t use[USAGE_N];           /* OP_AWAY: usage outside any run */
	int value;              /* workers (OP_BEGIN, OP_WORKERS), exit
				   status (OP_EXIT, OP_END) */
	int has_value;          /* OP_END: whether the exit status is known */
	char *name, *command;   /* OP_BEGIN */
};

/* A closed run waiting for a flush. */
struct queued {
	int64_t job;
	struct run run;
};

struct history {
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	struct live *live;      /* tracked jobs by id, n of cap used */
	size_t n, cap;
	/* Where hist_live_find last found each job (by id modulo the size;
	 * checked before use, so a job moved or gone only costs a search). */
	size_t live_hint[HIST_LIVE_HINTS];
	struct queued *q;       /* closed runs, qn of qcap used */
	size_t qn, qcap, qmax;
	int64_t flush_open_ns;  /* write open runs this often */
	int64_t flush_ns;       /* commit closed runs at most this often */
	int64_t committed_ns;   /* quantum time of the last commit */
	int batch;              /* a write transaction is open, holding the
				   runs queue[0..qw) (history_flush writes
				   closed runs a share at a time, and commits
				   every flush_ns) */
	size_t qw;
	size_t skips_w;         /* skips[0..skips_w) are in it */
	size_t grants_w;        /* grants[0..grants_w) are in it */
	int64_t retention_ns;   /* 0 = forever */
	int64_t now_ns;         /* end of the latest quantum seen */
	int64_t now_q;          /* the quantum history_advance() named, -1 */
	int64_t now_q_end;      /* ... and its end */
	int64_t open_written_ns;        /* when open runs were last written */
	int64_t transactions, dropped;
	struct jobop *ops;      /* job rows' writes waiting, nops of capops,
				   at most maxops */
	size_t nops, capops, maxops;
	size_t catch_up;        /* closed runs a history_retry writes */
	size_t opsw;            /* ops[0..opsw) are in the open transaction */
	int64_t ops_dropped;    /* job writes lost to a full buffer */
	int64_t next_id;        /* the next job's id */
	int64_t qbase;          /* added to every quantum number (history.h) */
	int64_t acc_job;        /* usage written to runs in the open */
	int64_t acc[USAGE_N];      /* transaction, not yet added to
				   the job's totals (acc_job 0: none) */
	int rc;                 /* SQLite's code for the last error */
	int degraded;           /* writes fail: keep everything pending and
				   try again only in history_retry */
	int reader;             /* opened to read only (history_open_readonly,
				   history_open_reader) */
	int snapshot;           /* a reader's read transaction is open
				   (history_read_begin) */
	int writer_beside;      /* history_open_reader's: no job id or
				   quantum base read */
	char why[256];          /* what made it degraded */
	char notice[512];       /* what history_open did to a broken file */
	struct skip {           /* quanta without a tick, to be committed */
		int64_t first, last, start_ns, end_ns;
	} *skips;
	size_t nskips, capskips;
	struct grant {          /* CPUs granted as a job joined, to be
				   committed (quantum with the base) */
		int64_t job, quantum, at_ns;
		int allotment;
		char *cpus;
	} *grants;
	size_t ngrants, capgrants;
	char err[256];
};

/* Defined in history.c. */

/* Set the error message (printf-like). */
__attribute__((format(printf, 2, 3)))
void hist_seterr(struct history *h, const char *fmt, ...);

/* Set the error message to what SQLite said about `what`; returns -1. */
int hist_sqlerr(struct history *h, const char *what);

/* Run SQL text with sqlite3_exec; 0, or -1 with the message. */
int hist_exec(struct history *h, const char *sql, const char *what);

/* Step a statement that returns no rows, then reset it; 0 or -1. */
int hist_step_done(struct history *h, sqlite3_stmt *s, const char *what);

/* Bind parameters 1, 2, ... of s as fmt says, one letter each: L an
 * int64_t, d an int, p a const int * (NULL binds NULL), s a string;
 * returns s. */
sqlite3_stmt *hist_bind(sqlite3_stmt *s, const char *fmt, ...);

/* Bind parameters first, first + 1, ... of s as hist_bind does; returns
 * s. */
sqlite3_stmt *hist_bind_from(sqlite3_stmt *s, int first, const char *fmt, ...);

/* The processor-quanta run r was allotted, up to its last quantum. */
int64_t hist_cpu_quanta(const struct run *r);

/* Bind usage u (enum usage_kind) to parameters first, first + 1, ... of
 * s, in that order; returns s. */
sqlite3_stmt *hist_bind_use(sqlite3_stmt *s, int first,
			    const int64_t u[USAGE_N]);

/* Put ids (n of them, or the tracked jobs' if ids is NULL) in the
 * temporary table history_ids; 0 or -1. */
int hist_fill_ids(struct history *h, const int64_t *ids, size_t n);

/* Whether the last error is one that trying again at once may mend
 * (another connection holds the lock). */
int hist_transient(const struct history *h);

/* Begin a write transaction; 0 or -1. */
int hist_tx_begin(struct history *h);

/* Commit; then the queue is written and the open runs written in the
 * transaction are clean.  0, or -1 after rolling back. */
int hist_tx_commit(struct history *h);

/* Forget the row ids learnt in a transaction that failed, and roll back
 * (keeping the error message that caused it). */
void hist_tx_rollback(struct history *h);

/* Defined in histschema.c. */

/* Read the schema version, the application id and the number of schema
 * objects (tables, indexes...) into v[0..2]; 0, or -1 with the message. */
int hist_schema_probe(struct history *h, int64_t v[3]);

/* Check, from what hist_schema_probe read into v, that a writer may use
 * the file: empty, or an asteal history no newer than this version; 0, or
 * -1 with the message. */
int hist_schema_check(struct history *h, const int64_t v[3]);

/* Bring the schema of a file at `version` (0: empty) to the current one,
 * a version at a time, drop the unused index, and create the temporary
 * table of ids; 0, or -1 with the message. */
int hist_schema_update(struct history *h, int64_t version);

/* Check, from what hist_schema_probe read into v, that a reader of this
 * version can read the file as it is (it never upgrades), and create the
 * temporary tables it needs; 0, or -1 with the message. */
int hist_schema_readable(struct history *h, const int64_t v[3]);

/* Defined in histjob.c. */

/* Write the job rows' pending writes, inside a transaction; 0 or -1. */
int hist_write_ops(struct history *h);

/* Add what the runs written in the open transaction added to a job's
 * usage to its totals (before the commit); 0 or -1. */
int hist_acc_flush(struct history *h);

/* Add usage d (enum usage_kind) written to a run of job to its totals,
 * in the open transaction; 0 or -1. */
int hist_acc_add(struct history *h, int64_t job, const int64_t d[USAGE_N]);

/* Forget the job writes the transaction just committed held. */
void hist_ops_done(struct history *h);

/* Free every pending job write (at close). */
void hist_ops_free(struct history *h);

/* The tracked job `job`, or NULL. */
struct live *hist_live_find(struct history *h, int64_t job);

/* The tracked job `job`, or NULL with the error "WHAT: job N is not
 * running here". */
struct live *hist_live_get(struct history *h, int64_t job, const char *what);

/* Defined in histrun.c. */

/* Write run r of job (an insert, or an update of its row), inside a
 * transaction; the row id is kept in r->new_rowid until the commit;
 * 0 or -1. */
int hist_write_run(struct history *h, int64_t job, struct run *r);

/* Bring an open run up to the quantum history_advance() last named: it
 * has lasted until now, unchanged. */
void hist_extend(struct history *h, struct run *r);

/* Write the queue (the closed runs, the skipped quanta and the grants),
 * inside a transaction; 0 or -1. */
int hist_write_queue(struct history *h);

/* Write the job writes, the queue, and the dirty open runs if open_too,
 * in one transaction (joining the batch if one is open) and commit;
 * nothing when there is nothing to write.  0, or -1 with everything still
 * pending: unless the failure is transient (hist_transient), the handle
 * is degraded then, with the reason. */
int hist_write_pending(struct history *h, int open_too);

/* Write everything pending (the job writes, the batch) before a write of
 * its own (closing stale rows, retention); 0, or -1 (also while degraded,
 * when it tries nothing). */
int hist_settle(struct history *h);

/* Write the job writes and the queue now, unless degraded (then nothing
 * is tried: history_retry does); a failure is kept in the state (see
 * hist_write_pending).  0, or -1 when a transient failure left them
 * pending for the next flush. */
int hist_sync(struct history *h);

/* Queue closed run r of job (taking its cpus); -1 if the queue is full
 * (the run is dropped, counted). */
int hist_enqueue(struct history *h, int64_t job, struct run *r);

/* Forget the skipped quanta and grants the transaction just committed
 * held (skips[0..skips_w), grants[0..grants_w)). */
void hist_queue_done(struct history *h);

/* The longest CPU list a run or a grant may hold. */
#define HIST_CPUS_MAX 16384

/* Free every grant still queued (at close). */
void hist_grants_free(struct history *h);

/* A full queue array arr of *cap elements of size bytes, grown (doubling
 * from first, at most to h->qmax elements): the new array with *cap set,
 * or NULL (arr unchanged) when it has h->qmax already or memory is out
 * (histrun.c). */
void *hist_queue_grow(struct history *h, void *arr, size_t *cap,
		      size_t size, size_t first);

#endif
