/*
 * histjob.c - asteald's history, its job rows: a job begins (its row is
 * inserted and the job tracked), gets its worker count and exit status,
 * ends or pauses (its open run, the queue and its row in one transaction,
 * then it is no longer tracked), is taken back by the next daemon
 * (reopen), or, left open and taken back by nobody, is closed (stale).
 * The format and the rules are described in history.h; the handle is
 * history.c, the runs histrun.c, and what they share is in history_int.h.
 *
 * In memory: an array of the jobs this handle tracks, sorted by id, each
 * with its open run.
 */
#include "history_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

/* Index of the first tracked job with id >= job. */
static size_t live_pos(const struct history *h, int64_t job)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->live[mid].job < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The tracked job `job`, or NULL. */
struct live *hist_live_find(struct history *h, int64_t job)
{
	size_t i = live_pos(h, job);

	return i < h->n && h->live[i].job == job ? &h->live[i] : NULL;
}

/* Make room for one more tracked job; 0, or -1 when out of memory. */
static int live_reserve(struct history *h)
{
	struct live *bigger;
	size_t cap = h->cap ? 2 * h->cap : 16;

	if (h->n < h->cap)
		return 0;
	bigger = realloc(h->live, cap * sizeof(*bigger));
	if (bigger == NULL) {
		hist_seterr(h, "out of memory");
		return -1;
	}
	h->live = bigger;
	h->cap = cap;
	return 0;
}

/* Start tracking `job` (live_reserve() must have made room). */
static void live_add(struct history *h, int64_t job)
{
	size_t i = live_pos(h, job);

	memmove(&h->live[i + 1], &h->live[i], (h->n - i) * sizeof(h->live[0]));
	memset(&h->live[i], 0, sizeof(h->live[i]));
	h->live[i].job = job;
	h->n++;
}

/* Stop tracking the job l, freeing its open run. */
static void live_remove(struct history *h, struct live *l)
{
	size_t i = (size_t)(l - h->live);

	if (l->has_run)
		free(l->run.cpus);
	memmove(l, l + 1, (h->n - i - 1) * sizeof(*l));
	h->n--;
}

/* Record a new job and track it; its id, or -1. */
int64_t history_job_begin(struct history *h, const struct history_job *j)
{
	sqlite3_stmt *s;
	int64_t id;

	if (h == NULL)
		return -1;
	if (j == NULL || j->name == NULL || j->uid < 0 || j->pid <= 0 ||
	    j->start_ns <= 0 || j->workers < 0) {
		hist_seterr(h, "job begin: bad arguments");
		return -1;
	}
	if (live_reserve(h) < 0 || hist_settle(h) < 0)
		return -1;
	s = hist_bind(h->st[ST_JOB_INS], "sLLsLd", j->name, j->uid, j->pid,
		      j->command ? j->command : "", j->start_ns, j->workers);
	if (hist_step_done(h, s, "job begin") < 0)
		return -1;
	h->transactions++;
	id = sqlite3_last_insert_rowid(h->db);
	live_add(h, id);
	return id;
}

/* Write a job's open run and the queue, then run s, the bound update of
 * its row, which must change that one running row, in one transaction;
 * then stop tracking the job.  0, or -1 (what names the caller). */
static int job_finish(struct history *h, int64_t id, sqlite3_stmt *s,
		      const char *what)
{
	struct live *l = hist_live_find(h, id);

	if (hist_tx_begin(h) < 0) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		return -1;
	}
	if (l != NULL && l->has_run)
		hist_extend(h, &l->run);
	if (hist_write_queue(h) < 0 ||
	    (l != NULL && l->has_run && l->run.dirty &&
	     hist_write_run(h, id, &l->run) < 0) ||
	    hist_step_done(h, s, what) < 0)
		goto fail;
	if (sqlite3_changes(h->db) != 1) {
		hist_seterr(h, "%s: no running job %" PRId64, what, id);
		goto fail;
	}
	if (hist_tx_commit(h) < 0)
		return -1;
	if (l != NULL)
		live_remove(h, l);
	return 0;
fail:
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	hist_tx_rollback(h);
	return -1;
}

/* End a job: its open run, the queue and its row in one transaction. */
int history_job_end(struct history *h, int64_t id, int64_t end_ns,
		    const int *exit_status, int64_t work_ns, int64_t steal_ns,
		    int64_t mug_ns)
{
	if (h == NULL)
		return -1;
	if (id <= 0 || end_ns <= 0 || work_ns < 0 || steal_ns < 0 ||
	    mug_ns < 0) {
		hist_seterr(h, "job end: bad arguments");
		return -1;
	}
	return job_finish(h, id, hist_bind(h->st[ST_JOB_END], "LLpLLL", id,
					   end_ns, exit_status, work_ns,
					   steal_ns, mug_ns), "job end");
}

/* Stop tracking a job that is still running (the daemon stops): its open
 * run, the queue and its totals so far, in one transaction; the row stays
 * open for history_job_reopen(). */
int history_job_pause(struct history *h, int64_t id, int64_t work_ns,
		      int64_t steal_ns, int64_t mug_ns)
{
	if (h == NULL)
		return -1;
	if (id <= 0 || work_ns < 0 || steal_ns < 0 || mug_ns < 0) {
		hist_seterr(h, "job pause: bad arguments");
		return -1;
	}
	return job_finish(h, id, hist_bind(h->st[ST_JOB_PAUSE], "LLLL", id,
					   work_ns, steal_ns, mug_ns),
			  "job pause");
}

/* Set a job's worker count (known once its library says hello). */
int history_job_workers(struct history *h, int64_t id, int workers)
{
	sqlite3_stmt *s;

	if (h == NULL)
		return -1;
	if (id <= 0 || workers < 0) {
		hist_seterr(h, "job workers: bad arguments");
		return -1;
	}
	if (hist_settle(h) < 0)
		return -1;
	s = hist_bind(h->st[ST_JOB_WORKERS], "Ld", id, workers);
	if (hist_step_done(h, s, "job workers") < 0)
		return -1;
	h->transactions++;
	return 0;
}

/* Set a job's exit status. */
int history_job_set_exit(struct history *h, int64_t id, int status)
{
	sqlite3_stmt *s;

	if (h == NULL)
		return -1;
	if (hist_settle(h) < 0)
		return -1;
	s = hist_bind(h->st[ST_JOB_EXIT], "Ld", id, status);
	if (hist_step_done(h, s, "set exit status") < 0)
		return -1;
	if (sqlite3_changes(h->db) != 1) {
		hist_seterr(h, "set exit status: no job %" PRId64, id);
		return -1;
	}
	h->transactions++;
	return 0;
}

/* Take back a job left running by a previous daemon. */
int history_job_reopen(struct history *h, int64_t id, int64_t pid)
{
	sqlite3_stmt *s;
	int64_t rowpid = 0;
	int rc, running = 0;

	if (h == NULL)
		return -1;
	if (hist_live_find(h, id) != NULL) {
		hist_seterr(h, "reopen: job %" PRId64 " is tracked already",
			    id);
		return -1;
	}
	if (live_reserve(h) < 0)
		return -1;
	s = hist_bind(h->st[ST_JOB_GET], "L", id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		rowpid = sqlite3_column_int64(s, 0);
		running = sqlite3_column_int(s, 1);
	} else if (rc != SQLITE_DONE) {
		hist_sqlerr(h, "reopen");
		sqlite3_reset(s);
		return -1;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_ROW || !running || rowpid != pid || pid <= 0) {
		hist_seterr(h, "reopen: job %" PRId64 " %s", id,
			    rc != SQLITE_ROW ? "is unknown" :
			    !running ? "has ended" : "has another pid");
		return -1;
	}
	live_add(h, id);
	return 0;
}

/* Close the job rows left open that nobody reopened. */
int history_close_stale(struct history *h, int64_t now_ns,
			int64_t older_than_ns)
{
	int n;

	if (h == NULL)
		return -1;
	if (now_ns <= 0 || older_than_ns < 0) {
		hist_seterr(h, "close stale: bad arguments");
		return -1;
	}
	if (hist_settle(h) < 0 || hist_fill_ids(h, NULL, 0) < 0 ||
	    hist_step_done(h, hist_bind(h->st[ST_STALE], "LL",
					now_ns - older_than_ns, now_ns),
			   "close stale") < 0)
		return -1;
	n = sqlite3_changes(h->db);
	h->transactions += n > 0;
	return n;
}
