/*
 * histquery.c - the read side of asteald's history: history_query reports
 * the selected jobs and runs to callbacks (after writing what is pending),
 * history_stats the sizes, and history_expire applies the retention.  The
 * format and the rules are described in history.h; the store is history.c
 * (the handle), histjob.c (the job rows) and histrun.c (the runs), and
 * what they share is in history_int.h.
 *
 * history_commit (what another connection reads, the daemon's reader
 * thread, is what has been committed) and the snapshots of a reader
 * (history_read_begin, history_read_end) are here too.
 *
 * history_expire is here although it deletes: like the queries it works
 * on the rows on disk, by set (the jobs ended before a cutoff, and their
 * runs), never on the store's tracked jobs, open runs or queue, and it
 * decides what the queries can still see.
 */
#include "history_int.h"

#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#define EXPIRE_BATCH 5000               /* runs deleted per transaction */

/* The columns the queries read, by position: a job's (the six usage
 * columns last, from JOB_USE on, in enum usage_kind's order), and a run's
 * with its job's uid, start and end (usage from RUN_USE on). */
#define J_USE_(kind, name, number) ", j." #name
#define A_USE_(kind, name, number) ", a." #name
#define JOB_HEAD "j.id, j.name, j.uid, j.pid, j.command, j.start_ns," \
	" j.end_ns, j.exit_status, j.workers"
#define JOB_COLS JOB_HEAD ", j.time_limit_ns, j.timed_out" USAGE_KINDS(J_USE_)
#define JOB_USE 11
#define RUN_COLS "a.job, a.first_quantum, a.last_quantum, a.start_ns," \
	" a.end_ns, a.desire, a.availability, a.allotment, a.cpus, a.class," \
	" a.id, j.uid, j.start_ns, j.end_ns, a.cpu_quanta" USAGE_KINDS(A_USE_)
#define RUN_USE 15

/* The query of jobs of a reader of a file of the version before (7),
 * which has no time limits: none, never timed out. */
const char hist_query_jobs_before[] =
	"SELECT " JOB_HEAD ", 0, 0" USAGE_KINDS(J_USE_) " FROM jobs j"
	" WHERE j.id > ?1 ORDER BY j.id";

/* The read side's statements, ST_QUERY on (history.c prepares them at
 * open with the store's).  The queries select by position alone, in the
 * order of an index (jobs by id; runs by job, start and number), so that
 * SQLite never looks at a row it does not return: the filter is applied
 * here, row by row, and a query can stop after any row and say where.
 * Where the window begins is found through the indexes instead: the first
 * job it selects by the jobs' ends (ST_Q_FIRST), and in a job the run
 * that holds its beginning by the runs' starts (ST_Q_RUN_AT), so that a
 * window reads neither the jobs that ended before it nor a job's runs
 * before it. */
const char *const hist_query_sql[ST_COUNT - ST_QUERY] = {
	[ST_Q_JOBS - ST_QUERY] =
		"SELECT " JOB_COLS " FROM jobs j WHERE j.id > ?1 ORDER BY j.id",
	[ST_Q_RUNS - ST_QUERY] =
		"SELECT " RUN_COLS " FROM allotments a"
		" CROSS JOIN jobs j ON j.id = a.job"
		" WHERE (a.job, a.start_ns, a.id) > (?1, ?2, ?3)"
		" ORDER BY a.job, a.start_ns, a.id",
	/* The smallest id of a job that ended at or after ?1 or runs: two
	 * ranges of the index by end, the id read from the index alone. */
	[ST_Q_FIRST - ST_QUERY] =
		"SELECT min(id) FROM (SELECT id FROM jobs WHERE end_ns >= ?1"
		" UNION ALL SELECT id FROM jobs WHERE end_ns IS NULL)",
	/* The start of job ?1's last run that starts before ?2: one seek
	 * in the index of the runs by job and start. */
	[ST_Q_RUN_AT - ST_QUERY] =
		"SELECT start_ns FROM allotments WHERE job = ?1 AND start_ns < ?2"
		" ORDER BY start_ns DESC LIMIT 1",
	/* Retention, a step at a time (history_expire): the runs of the
	 * jobs that ended first, then those of the first ended jobs that
	 * have no run left, then quanta without a tick; each LIMITed, and
	 * each reading no more rows than it deletes (jobs by end, runs by
	 * job, the skipped quanta in the order they were written).  A job's
	 * grants and usage away go with its row (ON DELETE CASCADE, found by
	 * their indexes by job). */
	[ST_EXP_RUNS - ST_QUERY] =
		"DELETE FROM allotments WHERE id IN (SELECT a.id"
		" FROM jobs j JOIN allotments a ON a.job = j.id"
		" WHERE j.end_ns < ?1 ORDER BY j.end_ns LIMIT ?2)",
	[ST_EXP_JOBS - ST_QUERY] =
		"DELETE FROM jobs WHERE id IN (SELECT o.id FROM (SELECT j.id"
		" FROM jobs j WHERE j.end_ns < ?1 ORDER BY j.end_ns LIMIT ?2) o"
		" WHERE NOT EXISTS (SELECT 1 FROM allotments a WHERE a.job = o.id))",
	[ST_EXP_SKIPS - ST_QUERY] =
		"DELETE FROM skipped WHERE rowid IN (SELECT rowid FROM skipped"
		" WHERE end_ns < ?1 LIMIT ?2)",
	[ST_STATS - ST_QUERY] = "SELECT (SELECT count(*) FROM jobs),"
		" (SELECT count(*) - count(end_ns) FROM jobs),"
		" (SELECT count(*) FROM allotments),"
		" (SELECT p.page_count * s.page_size"
		"  FROM pragma_page_count() p, pragma_page_size() s)",
};

/* A query under way: where it is, what it has looked at, and the job
 * ids it wants (sorted; all when nids is 0). */
struct scan {
	struct history *h;
	const struct history_filter *f;
	int64_t *ids;
	size_t nids, next;      /* ids[next] is the next wanted id */
	int64_t looked;         /* rows looked at and seeks made */
	struct history_place pos;       /* the last place looked at */
	int64_t from;           /* no job below this id is selected */
	int64_t sought;         /* the job whose runs before the window
				   have been passed over */
	sqlite3_stmt *s;
};

/* Compare two job ids (qsort). */
static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Text column i, "" for NULL. */
static const char *text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t != NULL ? (const char *)t : "";
}

/* (Re)start the scan's statement after its place: jobs after pos.job, runs
 * after (pos.job, pos.start_ns, pos.run).  One seek: counted as a row. */
static void scan_seek(struct scan *sc, int runs)
{
	sqlite3_reset(sc->s);
	if (runs)
		hist_bind(sc->s, "LLL", sc->pos.job, sc->pos.start_ns,
			  sc->pos.run);
	else
		hist_bind(sc->s, "L", sc->pos.job);
	sc->looked++;
}

/* Whether job is one the query wants: 1; 0 when it is not, after moving
 * the place to just before the next wanted job; -1 when no wanted job is
 * left. */
static int scan_want(struct scan *sc, int64_t job)
{
	if (sc->nids == 0)
		return 1;
	while (sc->next < sc->nids && sc->ids[sc->next] < job)
		sc->next++;
	if (sc->next == sc->nids)
		return -1;
	if (sc->ids[sc->next] == job)
		return 1;
	sc->pos.job = sc->ids[sc->next] - 1;
	sc->pos.start_ns = sc->pos.run = INT64_MAX;
	return 0;
}

/* Whether the scan has looked at all the filter allows it to this time;
 * then the filter's stopped_at says where to go on. */
static int scan_spent(struct scan *sc)
{
	if (sc->f->max_scan <= 0 || sc->looked < sc->f->max_scan)
		return 0;
	if (sc->f->stopped_at != NULL) {
		*sc->f->stopped_at = sc->pos;
		sc->f->stopped_at->stopped = 1;
	}
	return 1;
}

/* Where a query from the beginning of the order (after_job 0) may start:
 * sc->from is the first job the filter's window selects, 0 when it
 * selects none; 1 without a window, with job ids (sought one by one), and
 * for a query that goes on after a place (the first page started at the
 * window's first job, so its places are past it).  One statement
 * (counted as a seek) reads the index by end over the jobs that ended in
 * or after the window and the running ones: 0, or -1. */
static int scan_from(struct scan *sc)
{
	sqlite3_stmt *s = sc->h->st[ST_Q_FIRST];
	int rc;

	sc->from = 1;
	if (sc->f->since_ns <= 0 || sc->nids > 0 || sc->f->after_job != 0)
		return 0;
	hist_bind(s, "L", sc->f->since_ns);
	sc->looked++;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		sc->from = sqlite3_column_type(s, 0) == SQLITE_NULL ? 0
			   : sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return rc == SQLITE_ROW ? 0 : hist_sqlerr(sc->h, "query the window");
}

/* Whether a job (its uid and lifetime, end_ns NULL while running) is in
 * the filter's window and visible to it. */
static int job_selected(const struct history_filter *f, int64_t uid,
			int64_t start_ns, int running, int64_t end_ns)
{
	return (!f->by_uid || uid == f->uid) &&
		(running || end_ns >= f->since_ns) &&
		(f->until_ns == 0 || start_ns <= f->until_ns);
}

/* Report the selected jobs; rows reported, or -1; *stop set if jcb asked
 * to stop or the scan is spent. */
static int query_jobs(struct scan *sc, history_job_cb jcb, void *arg,
		      int *stop)
{
	const struct history_filter *f = sc->f;
	sqlite3_stmt *s = sc->s = sc->h->st[ST_Q_JOBS];
	int rc = SQLITE_DONE, n = 0, w;

	if (sc->from == 0)
		return 0;
	sc->pos.job = f->after_job < sc->from ? sc->from - 1 : f->after_job;
	scan_seek(sc, 0);
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
			.workers = sqlite3_column_int(s, 8),
			.time_limit_ns = sqlite3_column_int64(s, 9),
			.timed_out = sqlite3_column_int(s, 10),
		};

		for (int k = 0; k < USAGE_N; k++)
			j.use[k] = sqlite3_column_int64(s, JOB_USE + k);

		sc->looked++;
		sc->pos.job = j.id;
		if ((w = scan_want(sc, j.id)) < 0)
			break;
		if (w == 0)
			scan_seek(sc, 0);
		else if (job_selected(f, j.uid, j.start_ns,
				      sqlite3_column_type(s, 6) == SQLITE_NULL,
				      j.end_ns)) {
			n++;
			*stop = jcb(&j, arg) != 0 || n == f->limit;
		}
		*stop = *stop || scan_spent(sc);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		n = hist_sqlerr(sc->h, "query jobs");
	sqlite3_reset(s);
	return n;
}

/* A run r of a selected job ended before the window: move the place to
 * the job's last run that starts before the window's beginning, when that
 * is ahead: 1, and the scan seeks there; 0 when it is not (the scan reads
 * on); -1 on an error.  A job's runs follow each other in time (their
 * times are the daemon's t0 plus whole quanta), so none before that one
 * ends in the window.  Once per job, counted as a seek. */
static int run_at(struct scan *sc, const struct history_run *r)
{
	sqlite3_stmt *s = sc->h->st[ST_Q_RUN_AT];
	int64_t at = 0;
	int rc;

	sc->sought = r->job;
	sc->looked++;
	hist_bind(s, "LL", r->job, sc->f->since_ns);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		at = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return hist_sqlerr(sc->h, "query runs");
	if (rc != SQLITE_ROW || at <= r->start_ns)
		return 0;
	sc->pos.start_ns = at;
	sc->pos.run = 0;
	return 1;
}

/* Report the selected runs; rows reported, or -1.  A job the filter does
 * not select, or whose runs start past its window, is passed over with
 * one seek, and so are a selected job's runs before the window. */
static int query_runs(struct scan *sc, history_run_cb rcb, void *arg)
{
	const struct history_filter *f = sc->f;
	sqlite3_stmt *s = sc->s = sc->h->st[ST_Q_RUNS];
	int rc = SQLITE_DONE, n = 0, stop = 0, w;

	if (sc->from == 0)
		return 0;
	sc->pos.job = f->after_job;
	sc->pos.start_ns = f->after_start_ns;
	sc->pos.run = f->after_run;
	if (f->after_job < sc->from) {
		sc->pos.job = sc->from - 1;
		sc->pos.start_ns = sc->pos.run = INT64_MAX;
	}
	scan_seek(sc, 1);
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
			.cls = sqlite3_column_int(s, 9),
			.id = sqlite3_column_int64(s, 10),
			.cpu_quanta = sqlite3_column_int64(s, 14),
		};

		for (int k = 0; k < USAGE_N; k++)
			r.use[k] = sqlite3_column_int64(s, RUN_USE + k);

		sc->looked++;
		sc->pos.job = r.job;
		sc->pos.start_ns = r.start_ns;
		sc->pos.run = r.id;
		if ((w = scan_want(sc, r.job)) < 0)
			break;
		if (w == 0) {
			scan_seek(sc, 1);
		} else if (!job_selected(f, sqlite3_column_int64(s, 11),
					 sqlite3_column_int64(s, 12),
					 sqlite3_column_type(s, 13) == SQLITE_NULL,
					 sqlite3_column_int64(s, 13)) ||
			   (f->until_ns != 0 && r.start_ns > f->until_ns)) {
			sc->pos.start_ns = sc->pos.run = INT64_MAX;
			scan_seek(sc, 1);
		} else if (r.end_ns >= f->since_ns) {
			n++;
			stop = rcb(&r, arg) != 0 || n == f->limit;
		} else if (sc->sought != r.job && (w = run_at(sc, &r)) != 0) {
			if (w < 0) {
				sqlite3_reset(s);
				return -1;
			}
			scan_seek(sc, 1);
		}
		stop = stop || scan_spent(sc);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		n = hist_sqlerr(sc->h, "query runs");
	sqlite3_reset(s);
	return n;
}

/* Report the selected jobs and runs, after writing everything pending. */
int history_query(struct history *h, const struct history_filter *f,
		  history_job_cb jcb, history_run_cb rcb, void *arg)
{
	static const struct history_filter all;
	struct scan sc;
	size_t first;
	int nj = 0, nr = 0, stop = 0;

	if (h == NULL)
		return -1;
	if (f == NULL)
		f = &all;
	if ((f->njobs > 0 && f->jobs == NULL) || f->since_ns < 0 ||
	    f->until_ns < 0 || f->limit < 0 || f->max_scan < 0) {
		hist_seterr(h, "query: bad filter");
		return -1;
	}
	if (f->stopped_at != NULL)
		memset(f->stopped_at, 0, sizeof(*f->stopped_at));
	/* Degraded, it answers from what is on disk. */
	if (history_commit(h) < 0)
		return -1;
	memset(&sc, 0, sizeof(sc));
	sc.h = h;
	sc.f = f;
	if (f->njobs > 0) {
		sc.ids = malloc(f->njobs * sizeof(*sc.ids));
		if (sc.ids == NULL) {
			hist_seterr(h, "query: out of memory");
			return -1;
		}
		memcpy(sc.ids, f->jobs, f->njobs * sizeof(*sc.ids));
		qsort(sc.ids, f->njobs, sizeof(*sc.ids), cmp_id);
		sc.nids = f->njobs;
		/* Ids are positive: others select nothing. */
		while (sc.next < sc.nids && sc.ids[sc.next] <= 0)
			sc.next++;
	}
	first = sc.next;
	if (scan_from(&sc) < 0) {
		free(sc.ids);
		return -1;
	}
	if (jcb != NULL)
		nj = query_jobs(&sc, jcb, arg, &stop);
	sc.next = first;
	if (rcb != NULL && nj >= 0 && !stop)
		nr = query_runs(&sc, rcb, arg);
	free(sc.ids);
	if (nj < 0 || nr < 0)
		return -1;
	return nj + nr;
}

/* Write everything pending and commit it, for another connection to see. */
int history_commit(struct history *h)
{
	if (h == NULL)
		return -1;
	if (h->reader || h->degraded)
		return 0;
	return hist_write_pending(h, 1) == 0 || h->degraded ? 0 : -1;
}

/* Hold one snapshot of a reader's file until history_read_end. */
int history_read_begin(struct history *h)
{
	if (h == NULL)
		return -1;
	if (!h->reader || h->snapshot)
		return 0;
	/* A deferred transaction takes its snapshot at its first read, and
	 * keeps it for every statement until it ends. */
	if (hist_exec(h, "BEGIN", "begin a snapshot") < 0)
		return -1;
	h->snapshot = 1;
	return 0;
}

/* Let go of the snapshot history_read_begin took. */
void history_read_end(struct history *h)
{
	if (h == NULL || !h->snapshot)
		return;
	h->snapshot = 0;
	/* A read transaction has nothing to write: COMMIT only ends it. */
	if (!sqlite3_get_autocommit(h->db))
		hist_exec(h, "COMMIT", "end a snapshot");
}

/* Delete the jobs that ended before the retention window, and their runs. */
int64_t history_expire(struct history *h, int64_t now_ns, int64_t max_runs,
		       int *done)
{
	int64_t cutoff, deleted = 0, runs = 0, batch;
	int n[3];

	if (done != NULL)
		*done = 1;
	if (h == NULL)
		return -1;
	if (now_ns <= 0 || max_runs < 0) {
		hist_seterr(h, "expire: bad arguments");
		return -1;
	}
	if (h->retention_ns == 0)
		return 0;
	if (hist_settle(h) < 0)
		return -1;
	cutoff = now_ns - h->retention_ns;
	for (;;) {
		batch = EXPIRE_BATCH;
		if (max_runs > 0 && max_runs - runs < batch)
			batch = max_runs - runs;
		if (batch == 0) {
			if (done != NULL)
				*done = 0;      /* more may wait: the next call */
			return deleted;
		}
		/* One short transaction each: the runs, then the jobs left
		 * with none, then the quanta without a tick. */
		for (int k = 0; k < 3; k++) {
			static const int st[3] = { ST_EXP_RUNS, ST_EXP_JOBS,
						   ST_EXP_SKIPS };
			static const char *const what[3] = { "expire runs",
				"expire jobs", "expire skipped quanta" };

			if (hist_step_done(h, hist_bind(h->st[st[k]], "LL",
							cutoff, batch),
					   what[k]) < 0)
				return -1;
			n[k] = sqlite3_changes(h->db);
			deleted += n[k];
			if (n[k] > 0)
				h->transactions++;
		}
		runs += n[0];
		/* Short of a batch each: nothing old is left. */
		if (n[0] < batch && n[1] < batch && n[2] < batch)
			return deleted;
	}
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
