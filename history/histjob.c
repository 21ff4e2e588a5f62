/*
 * histjob.c - asteald's history, its job rows: a job begins (its row is
 * inserted and the job tracked), gets its worker count, exit status and
 * time out, ends or pauses (its open run, the queue and its row in one
 * transaction, then it is no longer tracked), is taken back by the next
 * daemon (reopen), or, left open and taken back by nobody, is closed
 * (stale).
 * The format and the rules are described in history.h; the handle is
 * history.c, the runs histrun.c, and what they share is in history_int.h.
 *
 * In memory: an array of the jobs this handle tracks, sorted by id, each
 * with its open run and its totals as this handle knows them; and the
 * buffer of job rows' writes (begin, worker count, exit status, time out,
 * end, usage away) waiting for the next transaction, which writes them in
 * order before the runs, so that a full disk delays them instead of
 * refusing jobs (history.h, "Failures").  The ids are the handle's.  The job
 * totals are added to as runs are written (hist_acc_add), and as usage
 * away is.
 */
#include "history_int.h"
#include "search.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

/* Whether live[i] sorts before the job id at key. */
static int live_below(const void *arr, size_t i, const void *key)
{
	return ((const struct live *)arr)[i].job < *(const int64_t *)key;
}

/* Index of the first tracked job with id >= job. */
static size_t live_pos(const struct history *h, int64_t job)
{
	return search_first(h->live, h->n, &job, live_below);
}

/* The tracked job `job`, or NULL: where its hint says, else by search. */
struct live *hist_live_find(struct history *h, int64_t job)
{
	size_t *hint = &h->live_hint[(uint64_t)job % HIST_LIVE_HINTS];
	size_t i = *hint;

	if (i < h->n && h->live[i].job == job)
		return &h->live[i];
	i = live_pos(h, job);
	if (i >= h->n || h->live[i].job != job)
		return NULL;
	*hint = i;
	return &h->live[i];
}

/* The tracked job `job`, or NULL with "WHAT: job N is not running here"
 * as the handle's error. */
struct live *hist_live_get(struct history *h, int64_t job, const char *what)
{
	struct live *l = hist_live_find(h, job);

	if (l == NULL)
		hist_seterr(h, "%s: job %" PRId64 " is not running here", what, job);
	return l;
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

/* Queue a job row's write (taking op's strings); 0, or -1 when the buffer
 * is full (the write is lost, counted; its strings freed). */
static int op_push(struct history *h, const struct jobop *op)
{
	if (h->nops == h->capops && h->capops < h->maxops) {
		size_t cap = h->capops ? 2 * h->capops : 16;
		struct jobop *bigger;

		if (cap > h->maxops)
			cap = h->maxops;
		bigger = realloc(h->ops, cap * sizeof(*bigger));
		if (bigger != NULL) {
			h->ops = bigger;
			h->capops = cap;
		}
	}
	if (h->nops == h->capops) {
		free(op->name);
		free(op->command);
		h->ops_dropped++;
		hist_seterr(h, "job %" PRId64 ": the buffer of job writes is"
			    " full (%zu), a write was lost", op->job, h->maxops);
		return -1;
	}
	h->ops[h->nops++] = *op;
	return 0;
}

/* Free op's strings. */
static void op_free(struct jobop *op)
{
	free(op->name);
	free(op->command);
}

/* Forget the job writes the transaction just committed held. */
void hist_ops_done(struct history *h)
{
	if (h->opsw == 0)
		return;
	for (size_t i = 0; i < h->opsw; i++)
		op_free(&h->ops[i]);
	memmove(h->ops, h->ops + h->opsw, (h->nops - h->opsw) * sizeof(*h->ops));
	h->nops -= h->opsw;
	h->opsw = 0;
}

/* Free every pending job write (at close). */
void hist_ops_free(struct history *h)
{
	for (size_t i = 0; i < h->nops; i++)
		op_free(&h->ops[i]);
	h->nops = h->opsw = 0;
}

/* Write a job's usage away: its row in table away, and as much more in
 * its totals. */
static int write_away(struct history *h, const struct jobop *o)
{
	sqlite3_stmt *s = hist_bind(h->st[ST_AWAY_INS], "LL", o->job, o->end_ns);

	if (hist_step_done(h, hist_bind_use(s, 3, o->use), "write usage away") < 0)
		return -1;
	s = hist_bind_use(hist_bind(h->st[ST_JOB_ADD], "L", o->job), 2, o->use);
	return hist_step_done(h, s, "add usage away to a job's totals");
}

/* Write the job rows' pending writes, inside a transaction. */
int hist_write_ops(struct history *h)
{
	for (; h->opsw < h->nops; h->opsw++) {
		const struct jobop *o = &h->ops[h->opsw];
		sqlite3_stmt *s;

		if (o->kind == OP_AWAY) {
			if (write_away(h, o) < 0)
				return -1;
			continue;
		}
		switch (o->kind) {
		case OP_BEGIN:
			s = hist_bind(h->st[ST_JOB_INS], "LsLLsLdL", o->job,
				      o->name, o->uid, o->pid, o->command,
				      o->start_ns, o->value, o->limit_ns);
			break;
		case OP_TIMEOUT:
			s = hist_bind(h->st[ST_JOB_TIMEOUT], "L", o->job);
			break;
		case OP_WORKERS:
			s = hist_bind(h->st[ST_JOB_WORKERS], "Ld", o->job,
				      o->value);
			break;
		case OP_EXIT:
			s = hist_bind(h->st[ST_JOB_EXIT], "Ld", o->job, o->value);
			break;
		default:
			s = hist_bind(h->st[ST_JOB_END], "LLp", o->job,
				      o->end_ns, o->has_value ? &o->value : NULL);
		}
		if (hist_step_done(h, s, "write a job row") < 0)
			return -1;
	}
	return 0;
}

/* Add usage written to a run of job to its totals, in the open
 * transaction: kept while the runs written are the same job's (the queue
 * is written sorted by job), added to the row when another's come or
 * before the commit. */
int hist_acc_add(struct history *h, int64_t job, const int64_t d[USAGE_N])
{
	if (h->acc_job != job && hist_acc_flush(h) < 0)
		return -1;
	h->acc_job = job;
	for (int k = 0; k < USAGE_N; k++)
		h->acc[k] += d[k];
	return 0;
}

/* Add the usage kept by hist_acc_add to its job's totals. */
int hist_acc_flush(struct history *h)
{
	static const int64_t none[USAGE_N];
	int64_t job = h->acc_job;

	if (job == 0)
		return 0;
	h->acc_job = 0;
	if (memcmp(h->acc, none, sizeof(none)) == 0)
		return 0;
	if (hist_step_done(h, hist_bind_use(hist_bind(h->st[ST_JOB_ADD], "L",
						      job), 2, h->acc),
			   "add to a job's totals") < 0)
		return -1;
	memset(h->acc, 0, sizeof(h->acc));
	return 0;
}

/* Whether job id is running, as the pending writes and the row on disk
 * say: 1, 0 (no such job, or ended), or -1 on a read error; *exists set
 * if the job is known at all. */
static int running(struct history *h, int64_t id, int *exists)
{
	sqlite3_stmt *s;
	int rc, run = 0, seen = 0;

	for (size_t i = h->nops; i > 0; i--) {
		const struct jobop *o = &h->ops[i - 1];

		if (o->job == id && o->kind == OP_END) {
			*exists = 1;
			return 0;
		}
		if (o->job == id && o->kind == OP_BEGIN) {
			*exists = 1;
			return 1;
		}
	}
	s = hist_bind(h->st[ST_JOB_GET], "L", id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		seen = 1;
		run = sqlite3_column_int(s, 1);
	} else if (rc != SQLITE_DONE) {
		hist_sqlerr(h, "read a job row");
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	*exists = seen;
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? run : -1;
}

/* Record a new job and track it; its id, or -1. */
int64_t history_job_begin(struct history *h, const struct history_job *j)
{
	struct jobop op;
	int64_t id;

	if (h == NULL)
		return -1;
	if (j == NULL || j->name == NULL || j->uid < 0 || j->pid <= 0 ||
	    j->start_ns <= 0 || j->workers < 0 || j->time_limit_ns < 0) {
		hist_seterr(h, "job begin: bad arguments");
		return -1;
	}
	if (live_reserve(h) < 0)
		return -1;
	memset(&op, 0, sizeof(op));
	op.kind = OP_BEGIN;
	op.name = strdup(j->name);
	op.command = strdup(j->command ? j->command : "");
	if (op.name == NULL || op.command == NULL) {
		op_free(&op);
		hist_seterr(h, "job begin: out of memory");
		return -1;
	}
	id = op.job = h->next_id++;
	op.uid = j->uid;
	op.pid = j->pid;
	op.start_ns = j->start_ns;
	op.value = j->workers;
	op.limit_ns = j->time_limit_ns;
	live_add(h, id);
	hist_live_find(h, id)->start_ns = j->start_ns;
	/* Admitted all the same: its id is given, nothing of it kept. */
	if (op_push(h, &op) < 0)
		hist_live_find(h, id)->lost = 1;
	else
		hist_sync(h);
	return id;
}

/* Queue the write of a row of away: usage of job id in no run, at at_ns;
 * 0, or -1 when the buffer of job writes is full (counted). */
static int away_push(struct history *h, int64_t id, int64_t at_ns,
		     const int64_t use[USAGE_N])
{
	struct jobop op;

	memset(&op, 0, sizeof(op));
	op.kind = OP_AWAY;
	op.job = id;
	op.end_ns = at_ns;
	memcpy(op.use, use, sizeof(op.use));
	return op_push(h, &op);
}

/* Stop tracking the tracked job l at at_ns: its open run, brought up to
 * now, goes to the queue; usage it was given before any run (it left, or
 * its daemon stopped, before its first) goes to its totals as a row of
 * away at at_ns, so that its totals keep all it was given. */
static void job_untrack(struct history *h, struct live *l, int64_t at_ns)
{
	int64_t id = l->job;
	int carried = 0;

	for (int k = 0; k < USAGE_N; k++)
		carried |= l->carry[k] != 0;
	if (l->has_run) {
		hist_extend(h, &l->run);
		l->has_run = 0;
		if (l->lost || !l->run.dirty)
			free(l->run.cpus);
		else
			hist_enqueue(h, id, &l->run);   /* a full queue counts it */
	} else if (carried && !l->lost) {
		away_push(h, id, at_ns > l->start_ns ? at_ns : l->start_ns,
			  l->carry);            /* a full buffer counts it */
	}
	live_remove(h, l);
}

/* End a job: its open run goes to the queue, and the queue, its row's
 * end and the pending job writes are written in one transaction. */
int history_job_end(struct history *h, int64_t id, int64_t end_ns,
		    const int *exit_status)
{
	struct live *l;
	struct jobop op;
	int exists, lost = 0;

	if (h == NULL)
		return -1;
	if (id <= 0 || end_ns <= 0) {
		hist_seterr(h, "job end: bad arguments");
		return -1;
	}
	l = hist_live_find(h, id);
	if (l == NULL) {
		int run = running(h, id, &exists);

		if (run == 0)
			hist_seterr(h, "job end: no running job %" PRId64, id);
		if (run != 1)
			return -1;
	}
	if (l != NULL) {
		lost = l->lost;
		job_untrack(h, l, end_ns);
	}
	memset(&op, 0, sizeof(op));
	op.kind = OP_END;
	op.job = id;
	op.end_ns = end_ns;
	op.has_value = exit_status != NULL;
	op.value = exit_status ? *exit_status : 0;
	if (!lost)
		op_push(h, &op);        /* a full buffer counts it */
	hist_sync(h);
	return 0;
}

/* Stop tracking a job that is still running (the daemon stops): its open
 * run and the queue are written; the row stays open for
 * history_job_reopen(). */
int history_job_pause(struct history *h, int64_t id)
{
	struct live *l;

	if (h == NULL)
		return -1;
	if ((l = hist_live_get(h, id, "job pause")) == NULL)
		return -1;
	job_untrack(h, l, h->now_ns);
	hist_sync(h);
	return 0;
}

/* Queue a write of a job's worker count, exit status or time out (kind),
 * if the job is known; 0 or -1. */
static int job_set(struct history *h, int kind, int64_t id, int value,
		   const char *what)
{
	struct live *l = hist_live_find(h, id);
	struct jobop op;
	int exists = 1;

	if (l != NULL && l->lost)
		return 0;
	if (l == NULL && running(h, id, &exists) < 0)
		return -1;
	if (!exists) {
		hist_seterr(h, "%s: no job %" PRId64, what, id);
		return -1;
	}
	memset(&op, 0, sizeof(op));
	op.kind = kind;
	op.job = id;
	op.value = value;
	if (op_push(h, &op) < 0)
		return -1;
	hist_sync(h);
	return 0;
}

/* Set a job's worker count (known once its library says hello). */
int history_job_workers(struct history *h, int64_t id, int workers)
{
	if (h == NULL)
		return -1;
	if (id <= 0 || workers < 0) {
		hist_seterr(h, "job workers: bad arguments");
		return -1;
	}
	return job_set(h, OP_WORKERS, id, workers, "job workers");
}

/* Set a job's exit status. */
int history_job_set_exit(struct history *h, int64_t id, int status)
{
	if (h == NULL)
		return -1;
	return job_set(h, OP_EXIT, id, status, "set exit status");
}

/* Mark a job as stopped at its time limit. */
int history_job_timeout(struct history *h, int64_t id)
{
	if (h == NULL)
		return -1;
	return job_set(h, OP_TIMEOUT, id, 1, "set time out");
}

/* Take back a job left running by a previous daemon: tracked again, with
 * its row's start and totals. */
int history_job_reopen(struct history *h, int64_t id, int64_t pid)
{
	sqlite3_stmt *s;
	struct live *l;
	int64_t rowpid = 0, start = 0, had[USAGE_N] = { 0 };
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
		start = sqlite3_column_int64(s, 2);
		for (int k = 0; k < USAGE_N; k++)   /* in enum usage_kind's order */
			had[k] = sqlite3_column_int64(s, 3 + k);
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
	l = hist_live_find(h, id);
	l->start_ns = start;
	memcpy(l->had, had, sizeof(had));
	return 0;
}

/* A job's usage that no run holds (it ran away from every daemon): a job
 * write, its row in table away and its totals. */
int history_away(struct history *h, int64_t id, int64_t at_ns,
		 const int64_t use[USAGE_N])
{
	struct live *l;

	if (h == NULL)
		return -1;
	if (at_ns <= 0 || use == NULL) {
		hist_seterr(h, "away: bad arguments");
		return -1;
	}
	for (int k = 0; k < USAGE_N; k++)
		if (use[k] < 0) {
			hist_seterr(h, "away: negative usage");
			return -1;
		}
	if ((l = hist_live_get(h, id, "away")) == NULL)
		return -1;
	if (l->lost)
		return 0;               /* nothing of it is kept */
	if (away_push(h, id, at_ns, use) < 0)
		return -1;
	hist_had_add(l, use);
	hist_sync(h);
	return 0;
}

/* A tracked job's start and its totals as this handle knows them. */
int history_job_usage(struct history *h, int64_t id, int64_t *start_ns,
		      int64_t use[USAGE_N])
{
	struct live *l;

	if (h == NULL)
		return -1;
	if ((l = hist_live_get(h, id, "job usage")) == NULL)
		return -1;
	if (l->lost) {
		hist_seterr(h, "job usage: job %" PRId64 " is not kept (its row"
			    " was lost)", id);
		return -1;
	}
	*start_ns = l->start_ns;
	memcpy(use, l->had, sizeof(l->had));
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
	/* Everything pending is written first: the rows ended in the
	 * buffer are not stale. */
	if (hist_settle(h) < 0 || hist_fill_ids(h, NULL, 0) < 0 ||
	    hist_step_done(h, hist_bind(h->st[ST_STALE], "LL",
					now_ns - older_than_ns, now_ns),
			   "close stale") < 0)
		return -1;
	n = sqlite3_changes(h->db);
	h->transactions += n > 0;
	return n;
}
