/*
 * histquery.c - the read side of asteald's history: history_query reports
 * the selected jobs and runs to callbacks (after writing what is pending),
 * history_stats the sizes, and history_expire applies the retention.  The
 * format and the rules are described in history.h; the store is history.c
 * (the handle), histjob.c (the job rows) and histrun.c (the runs), and
 * what they share is in history_int.h.
 *
 * history_expire is here although it deletes: like the queries it works
 * on the rows on disk, by set (the jobs ended before a cutoff, and their
 * runs), never on the store's tracked jobs, open runs or queue, and it
 * decides what the queries can still see.
 */
#include "history_int.h"

#include <string.h>
#include <sqlite3.h>

#define EXPIRE_BATCH 5000               /* runs deleted per transaction */

#define JOB_COLS "j.id, j.name, j.uid, j.pid, j.command, j.start_ns," \
	" j.end_ns, j.exit_status, j.work_ns, j.steal_ns, j.mug_ns," \
	" j.workers, j.allotted_ns"
#define JOB_WHERE " (j.end_ns IS NULL OR j.end_ns >= ?1)" \
	" AND (?2 = 0 OR j.start_ns <= ?2) AND j.id > ?4" \
	" AND (?9 IS NULL OR j.uid = ?9)" \
	" ORDER BY j.id LIMIT ?3"
#define RUN_COLS "a.job, a.first_quantum, a.last_quantum, a.start_ns," \
	" a.end_ns, a.desire, a.availability, a.allotment, a.cpus," \
	" a.work_ns, a.steal_ns, a.mug_ns, a.class, a.allotted_ns, a.id"
#define RUN_WHERE " a.end_ns >= ?1 AND (?2 = 0 OR a.start_ns <= ?2)" \
	" AND (a.job, a.start_ns, a.id) > (?4, ?5, ?6)" \
	" AND (?9 IS NULL OR a.job IN (SELECT id FROM jobs WHERE uid = ?9))" \
	" ORDER BY a.job, a.start_ns, a.id LIMIT ?3"

/* The read side's statements, ST_QUERY on (history.c prepares them at
 * open with the store's). */
const char *const hist_query_sql[ST_COUNT - ST_QUERY] = {
	[ST_Q_JOBS - ST_QUERY] =
		"SELECT " JOB_COLS " FROM jobs j WHERE" JOB_WHERE,
	[ST_Q_JOBS_IDS - ST_QUERY] =
		"SELECT " JOB_COLS " FROM temp.history_ids q"
		" JOIN jobs j ON j.id = q.id WHERE" JOB_WHERE,
	[ST_Q_RUNS - ST_QUERY] =
		"SELECT " RUN_COLS " FROM allotments a WHERE" RUN_WHERE,
	[ST_Q_RUNS_IDS - ST_QUERY] =
		"SELECT " RUN_COLS " FROM temp.history_ids q"
		" JOIN allotments a ON a.job = q.id WHERE" RUN_WHERE,
	[ST_EXP_RUNS - ST_QUERY] =
		"DELETE FROM allotments WHERE id IN (SELECT a.id"
		" FROM jobs j JOIN allotments a ON a.job = j.id"
		" WHERE j.end_ns < ?1 LIMIT ?2)",
	[ST_EXP_JOBS - ST_QUERY] = "DELETE FROM jobs WHERE end_ns < ?1",
	[ST_EXP_SKIPS - ST_QUERY] = "DELETE FROM skipped WHERE end_ns < ?1",
	[ST_STATS - ST_QUERY] = "SELECT (SELECT count(*) FROM jobs),"
		" (SELECT count(*) - count(end_ns) FROM jobs),"
		" (SELECT count(*) FROM allotments),"
		" (SELECT p.page_count * s.page_size"
		"  FROM pragma_page_count() p, pragma_page_size() s)",
};

/* Bind since, until, limit, where to start (jobs: after a job id; runs:
 * after a place in the order) and whose jobs (?9) to a query statement. */
static sqlite3_stmt *bind_window(sqlite3_stmt *s,
				 const struct history_filter *f, int runs)
{
	int64_t limit = f->limit > 0 ? f->limit : (int64_t)-1;

	if (f->by_uid)
		sqlite3_bind_int64(s, 9, f->uid);
	else
		sqlite3_bind_null(s, 9);
	if (runs)
		return hist_bind(s, "LLLLLL", f->since_ns, f->until_ns, limit,
				 f->after_job, f->after_start_ns, f->after_run);
	return hist_bind(s, "LLLL", f->since_ns, f->until_ns, limit,
			 f->after_job);
}

/* Text column i, "" for NULL. */
static const char *text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t != NULL ? (const char *)t : "";
}

/* Report the selected jobs; rows reported, or -1; *stop set if jcb
 * asked to stop. */
static int query_jobs(struct history *h, const struct history_filter *f,
		      history_job_cb jcb, void *arg, int *stop)
{
	sqlite3_stmt *s = bind_window(h->st[f->njobs ? ST_Q_JOBS_IDS
							: ST_Q_JOBS], f, 0);
	int rc = SQLITE_DONE, n = 0;

	while (!*stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct history_job_info j = {
			.id = sqlite3_column_int64(s, 0),
			.name = text(s, 1),
			.uid = sqlite3_column_int64(s, 2),
			.pid = sqlite3_column_int64(s, 3),
			.command = text(s, 4),
			.start_ns = sqlite3_column_int64(s, 5),
			.end_ns = sqlite3_column_int64(s, 6),
			.has_exit = sqlite3_column_type(s, 7) != SQLITE_NULL,
			.exit_status = sqlite3_column_int(s, 7),
			.work_ns = sqlite3_column_int64(s, 8),
			.steal_ns = sqlite3_column_int64(s, 9),
			.mug_ns = sqlite3_column_int64(s, 10),
			.workers = sqlite3_column_int(s, 11),
			.allotted_ns = sqlite3_column_int64(s, 12),
		};

		n++;
		*stop = jcb(&j, arg) != 0;
	}
	if (!*stop && rc != SQLITE_DONE)
		n = hist_sqlerr(h, "query jobs");
	sqlite3_reset(s);
	return n;
}

/* Report the selected runs; rows reported, or -1. */
static int query_runs(struct history *h, const struct history_filter *f,
		      history_run_cb rcb, void *arg)
{
	sqlite3_stmt *s = bind_window(h->st[f->njobs ? ST_Q_RUNS_IDS
							: ST_Q_RUNS], f, 1);
	int rc = SQLITE_DONE, n = 0, stop = 0;

	while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct history_run r = {
			.job = sqlite3_column_int64(s, 0),
			.first_quantum = sqlite3_column_int64(s, 1),
			.last_quantum = sqlite3_column_int64(s, 2),
			.start_ns = sqlite3_column_int64(s, 3),
			.end_ns = sqlite3_column_int64(s, 4),
			.desire = sqlite3_column_int(s, 5),
			.availability = sqlite3_column_int(s, 6),
			.allotment = sqlite3_column_int(s, 7),
			.cpus = text(s, 8),
			.work_ns = sqlite3_column_int64(s, 9),
			.steal_ns = sqlite3_column_int64(s, 10),
			.mug_ns = sqlite3_column_int64(s, 11),
			.cls = sqlite3_column_int(s, 12),
			.allotted_ns = sqlite3_column_int64(s, 13),
			.id = sqlite3_column_int64(s, 14),
		};

		n++;
		stop = rcb(&r, arg) != 0;
	}
	if (!stop && rc != SQLITE_DONE)
		n = hist_sqlerr(h, "query runs");
	sqlite3_reset(s);
	return n;
}

/* Report the selected jobs and runs, after writing everything pending. */
int history_query(struct history *h, const struct history_filter *f,
		  history_job_cb jcb, history_run_cb rcb, void *arg)
{
	static const struct history_filter all;
	int nj = 0, nr = 0, stop = 0;

	if (h == NULL)
		return -1;
	if (f == NULL)
		f = &all;
	if ((f->njobs > 0 && f->jobs == NULL) || f->since_ns < 0 ||
	    f->until_ns < 0 || f->limit < 0) {
		hist_seterr(h, "query: bad filter");
		return -1;
	}
	/* Degraded, it answers from what is on disk. */
	if (!h->degraded && hist_write_pending(h, 1) < 0 && !h->degraded)
		return -1;
	if (f->njobs > 0 && hist_fill_ids(h, f->jobs, f->njobs) < 0)
		return -1;
	if (jcb != NULL && (nj = query_jobs(h, f, jcb, arg, &stop)) < 0)
		return -1;
	if (rcb != NULL && !stop && (nr = query_runs(h, f, rcb, arg)) < 0)
		return -1;
	return nj + nr;
}

/* Delete the jobs that ended before the retention window, and their runs. */
int64_t history_expire(struct history *h, int64_t now_ns)
{
	sqlite3_stmt *s;
	int64_t cutoff, deleted = 0;
	int n;

	if (h == NULL)
		return -1;
	if (now_ns <= 0) {
		hist_seterr(h, "expire: bad time");
		return -1;
	}
	if (h->retention_ns == 0)
		return 0;
	if (hist_settle(h) < 0)
		return -1;
	cutoff = now_ns - h->retention_ns;
	do {
		s = hist_bind(h->st[ST_EXP_RUNS], "Ld", cutoff, EXPIRE_BATCH);
		if (hist_step_done(h, s, "expire runs") < 0)
			return -1;
		n = sqlite3_changes(h->db);
		deleted += n;
		if (n > 0)
			h->transactions++;
	} while (n == EXPIRE_BATCH);
	if (hist_step_done(h, hist_bind(h->st[ST_EXP_SKIPS], "L", cutoff),
			   "expire skipped quanta") < 0)
		return -1;
	deleted += sqlite3_changes(h->db);
	if (hist_step_done(h, hist_bind(h->st[ST_EXP_JOBS], "L", cutoff),
			   "expire jobs") < 0)
		return -1;
	n = sqlite3_changes(h->db);
	if (n > 0)
		h->transactions++;
	return deleted + n;
}

/* Fill in the sizes. */
int history_stats(struct history *h, struct history_stats *st)
{
	sqlite3_stmt *s;

	if (h == NULL)
		return -1;
	if (st == NULL) {
		hist_seterr(h, "stats: NULL argument");
		return -1;
	}
	memset(st, 0, sizeof(*st));
	s = h->st[ST_STATS];
	if (sqlite3_step(s) != SQLITE_ROW) {
		hist_sqlerr(h, "stats");
		sqlite3_reset(s);
		return -1;
	}
	st->jobs = sqlite3_column_int64(s, 0);
	st->running_jobs = sqlite3_column_int64(s, 1);
	st->allotment_rows = sqlite3_column_int64(s, 2);
	st->db_bytes = sqlite3_column_int64(s, 3);
	sqlite3_reset(s);
	st->live_jobs = (int64_t)h->n;
	for (size_t i = 0; i < h->n; i++)
		st->open_runs += h->live[i].has_run;
	st->queued_runs = (int64_t)h->qn;
	st->transactions = h->transactions;
	st->changes = sqlite3_total_changes64(h->db);
	st->dropped = h->dropped;
	st->job_writes = (int64_t)h->nops;
	st->job_writes_dropped = h->ops_dropped;
	st->degraded = h->degraded;
	st->quantum_base = h->qbase;
	return 0;
}
