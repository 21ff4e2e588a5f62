/*
 * histrun.c - asteald's history, its runs: the quanta of each tracked job
 * (history_allot, history_usage, history_class, history_advance) make
 * runs of unchanged values, kept open in memory until a change closes and
 * queues them; history_flush writes the queue (and the open runs, when
 * due) in one transaction per tick.  The format and the rules are
 * described in history.h; the handle is history.c, the job rows
 * histjob.c, and what they share is in history_int.h.
 *
 * A run remembers the row it was written to (rowid, 0 if never): writing
 * it again updates that row in place.  Row ids learnt inside a transaction
 * are applied only after COMMIT (hist_tx_commit), so a failed flush leaves
 * everything as it was, to be retried at the next tick, or, when the
 * failure was not another connection's lock, the handle degraded until
 * history_retry catches up.
 */
#include "history_int.h"
#include "cpulist.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

/* history_flush writes closed runs into the batch once HIST_BURST wait,
 * at most HIST_WRITE_STEP per call (a tick), and commits at once when more
 * than HIST_BATCH_MAX wait to be written, so that no call takes long. */
#define HIST_BURST 512
#define HIST_WRITE_STEP 1024
#define HIST_BATCH_MAX 8192

/* Order queued runs by job, then first quantum. */
static int by_job(const void *a, const void *b)
{
	const struct queued *x = a, *y = b;

	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	return (x->run.first_q > y->run.first_q) -
	       (x->run.first_q < y->run.first_q);
}

/* Sort the runs not yet written by job: each goes in next to its job's
 * last, so that consecutive inserts walk the same index pages (written in
 * the order closed, every insert of a burst lands on another job's page,
 * and in the daemon most of those are out of the CPU's caches). */
static void sort_unwritten(struct history *h)
{
	if (h->qn - h->qw > 1)
		qsort(h->q + h->qw, h->qn - h->qw, sizeof(*h->q), by_job);
}

/* Write run r of job (an insert, or an update of its row), inside a
 * transaction; the row id is kept in r->new_rowid until the commit, and
 * what the write adds to the job's usage is added to its totals. */
int hist_write_run(struct history *h, int64_t job, struct run *r)
{
	const int64_t *was = r->pending ? r->wn : r->w;
	int64_t d[USAGE_N];
	sqlite3_stmt *s;

	if (r->rowid != 0) {
		s = hist_bind(h->st[ST_RUN_UPD], "LLL", r->rowid, r->last_q,
			      r->end_ns);
		s = hist_bind_from(hist_bind_use(s, 4, r->use), 10, "ddsLd",
				   r->allotment, r->availability, r->cpus,
				   hist_cpu_quanta(r), r->cls);
		if (hist_step_done(h, s, "update run") < 0)
			return -1;
		r->new_rowid = r->rowid;
	} else {
		s = hist_bind(h->st[ST_RUN_INS], "LLLLLdddsd", job,
			      r->first_q, r->last_q, r->start_ns, r->end_ns,
			      r->desire, r->availability, r->allotment,
			      r->cpus, r->cls);
		s = hist_bind_from(hist_bind_use(s, 11, r->use), 17, "L",
				   hist_cpu_quanta(r));
		if (hist_step_done(h, s, "insert run") < 0)
			return -1;
		r->new_rowid = sqlite3_last_insert_rowid(h->db);
	}
	for (int k = 0; k < USAGE_N; k++)
		d[k] = r->use[k] - was[k];
	if (hist_acc_add(h, job, d) < 0)
		return -1;
	memcpy(r->wn, r->use, sizeof(r->wn));
	r->pending = 1;
	return 0;
}

/* Bring an open run up to the quantum history_advance() last named: it
 * has lasted until now, unchanged. */
void hist_extend(struct history *h, struct run *r)
{
	if (h->now_q > r->last_q) {
		r->last_q = h->now_q;
		r->end_ns = h->now_q_end;
		r->dirty = 1;
	}
}

/* Write the queue (closed runs, skipped quanta, grants), inside a
 * transaction. */
int hist_write_queue(struct history *h)
{
	sort_unwritten(h);
	for (; h->qw < h->qn; h->qw++)
		if (hist_write_run(h, h->q[h->qw].job, &h->q[h->qw].run) < 0)
			return -1;
	for (; h->skips_w < h->nskips; h->skips_w++) {
		const struct skip *k = &h->skips[h->skips_w];

		if (hist_step_done(h, hist_bind(h->st[ST_SKIP_INS], "LLLL", k->first,
						k->last, k->start_ns, k->end_ns),
				   "insert skipped quanta") < 0)
			return -1;
	}
	for (; h->grants_w < h->ngrants; h->grants_w++) {
		const struct grant *g = &h->grants[h->grants_w];

		if (hist_step_done(h, hist_bind(h->st[ST_GRANT_INS], "LLLds",
						g->job, g->quantum, g->at_ns,
						g->allotment, g->cpus),
				   "insert grant") < 0)
			return -1;
	}
	return 0;
}

/* Forget the skipped quanta and grants the transaction just committed. */
void hist_queue_done(struct history *h)
{
	if (h->skips_w < h->nskips)
		memmove(h->skips, h->skips + h->skips_w,
			(h->nskips - h->skips_w) * sizeof(*h->skips));
	h->nskips -= h->skips_w;
	h->skips_w = 0;
	for (size_t i = 0; i < h->grants_w; i++)
		free(h->grants[i].cpus);
	if (h->grants_w < h->ngrants)
		memmove(h->grants, h->grants + h->grants_w,
			(h->ngrants - h->grants_w) * sizeof(*h->grants));
	h->ngrants -= h->grants_w;
	h->grants_w = 0;
}

/* A write failed (the message is set): unless another connection's lock
 * is to blame, the handle is degraded, with everything kept pending.
 * Returns -1. */
static int degrade(struct history *h)
{
	if (!hist_transient(h) && !h->degraded) {
		h->degraded = 1;
		snprintf(h->why, sizeof(h->why), "%s", h->err);
	}
	return -1;
}

/* Write the open runs that changed since they were written (brought up
 * to the quantum now), inside a transaction; 0 or -1. */
static int write_open(struct history *h)
{
	for (size_t i = 0; i < h->n; i++) {
		struct live *l = &h->live[i];

		if (!l->has_run)
			continue;
		hist_extend(h, &l->run);
		if (l->run.dirty && hist_write_run(h, l->job, &l->run) < 0)
			return -1;
	}
	return 0;
}

/* Whether some tracked job's open run changed since it was written. */
static int any_dirty_open(const struct history *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->live[i].has_run && (h->live[i].run.dirty ||
					       h->now_q > h->live[i].run.last_q))
			return 1;
	return 0;
}

/* Whether no closed run, skipped quanta or grant waits to be written. */
static int queue_empty(const struct history *h)
{
	return h->qn == 0 && h->nskips == 0 && h->ngrants == 0;
}

/* Write the queue, and the dirty open runs if open_too, in one
 * transaction (none if there is nothing to write). */
int hist_write_pending(struct history *h, int open_too)
{
	if (open_too && !any_dirty_open(h))
		open_too = 0;
	if (queue_empty(h) && h->nops == 0 && !open_too && !h->batch)
		return 0;
	if (hist_tx_begin(h) < 0)
		goto fail;
	if (hist_write_ops(h) < 0 || hist_write_queue(h) < 0 ||
	    (open_too && write_open(h) < 0))
		goto fail;
	if (hist_tx_commit(h) < 0)
		return degrade(h);
	if (open_too)
		h->open_written_ns = h->now_ns;
	return 0;
fail:
	hist_tx_rollback(h);
	return degrade(h);
}

/* Write the job writes and the queue now, unless degraded. */
int hist_sync(struct history *h)
{
	if (h->degraded || hist_write_pending(h, 0) == 0)
		return 0;
	return h->degraded ? 0 : -1;
}

/* Whether every usage in u is >= 0. */
static int use_ok(const int64_t u[USAGE_N])
{
	for (int k = 0; k < USAGE_N; k++)
		if (u[k] < 0)
			return 0;
	return 1;
}

/* Check one quantum's fields; 0, or -1 with the message set. */
static int check_quantum(struct history *h, const struct history_quantum *q)
{
	const char *why = NULL;

	if (q == NULL || q->cpus == NULL)
		why = "NULL quantum or cpus";
	else if (q->quantum < 0 || q->start_ns <= 0 || q->end_ns < q->start_ns)
		why = "bad quantum number or times";
	else if (q->desire < 0 || q->availability < 0 || q->allotment < 0)
		why = "negative desire, availability or allotment";
	else if (!use_ok(q->use))
		why = "negative usage";
	else if (q->cls < HISTORY_CLASS_NONE || q->cls > HISTORY_DEPRIVED)
		why = "bad class";
	else if (strnlen(q->cpus, HIST_CPUS_MAX) >= HIST_CPUS_MAX)
		why = "cpus too long";
	if (why != NULL) {
		hist_seterr(h, "allot: %s", why);
		return -1;
	}
	return 0;
}

/* The processor-quanta run r was allotted, up to its last quantum. */
int64_t hist_cpu_quanta(const struct run *r)
{
	return r->cq + (int64_t)r->cur * (r->last_q - r->cur_q + 1);
}

/* How quantum q continues run r: 0 it does not (r ends before it), 1 with
 * the same values (the quanta between, of which nobody said anything,
 * were the same), 2 as a turn (history.h: deprived in both, the same
 * epoch, allotments within one of each other, and r already taking turns
 * or q's allotment another than r's). */
static int continues(const struct run *r, const struct history_quantum *q,
		     int64_t qn)
{
	int lo, hi;

	if (qn <= r->last_q || q->desire != r->desire)
		return 0;
	if (r->hi == r->allotment && q->availability == r->availability &&
	    q->allotment == r->allotment && strcmp(q->cpus, r->cpus) == 0)
		return 1;
	if (r->allotment != r->availability ||
	    q->allotment != q->availability || q->epoch != r->epoch)
		return 0;
	if (r->hi == r->allotment && q->allotment == r->allotment)
		return 0;       /* same allotment, other CPUs: a new run */
	lo = q->allotment < r->allotment ? q->allotment : r->allotment;
	hi = q->allotment > r->hi ? q->allotment : r->hi;
	return hi - lo <= 1 ? 2 : 0;
}

/* The CPUs of lists a and b together, in a new string (NULL when out of
 * memory or either does not parse, which the daemon's lists always do).
 * The union is no longer than a, a comma and b: its ranges begin and end
 * at ids that begin or end ranges of a or b, and there are no more of
 * them. */
static char *cpus_union(const char *a, const char *b)
{
	int ids[2 * CPULIST_MAX];
	size_t len = strlen(a) + strlen(b) + 2;
	char why[64], *buf;
	int n = 0, m;

	if (*a != '\0' &&
	    (n = cpulist_parse(a, ids, CPULIST_MAX, why, sizeof(why))) < 0)
		return NULL;
	if (*b != '\0') {
		m = cpulist_parse(b, ids + n, CPULIST_MAX, why, sizeof(why));
		if (m < 0)
			return NULL;
		n += m;
	}
	if ((buf = malloc(len)) != NULL && cpulist_format(ids, n, buf, len) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Quantum q (number qn) continues run r as a turn: the allotment it
 * had from cur_q on ends before qn, the lower and higher values and the
 * CPUs take q's in. */
static void take_turn(struct run *r, const struct history_quantum *q,
		      int64_t qn)
{
	char *both;

	if (q->allotment != r->cur) {
		r->cq += (int64_t)r->cur * (qn - r->cur_q);
		r->cur = q->allotment;
		r->cur_q = qn;
	}
	if (q->allotment < r->allotment)
		r->allotment = r->availability = q->allotment;
	if (q->allotment > r->hi)
		r->hi = q->allotment;
	if (strcmp(q->cpus, r->cpus) != 0 &&
	    (both = cpus_union(r->cpus, q->cpus)) != NULL) {
		free(r->cpus);
		r->cpus = both;
	}
}

/* A full queue array arr of *cap elements of size bytes, grown (doubling
 * from first, at most to h->qmax elements): the new array with *cap set,
 * or NULL (arr unchanged) when it has h->qmax already or memory is out. */
void *hist_queue_grow(struct history *h, void *arr, size_t *cap,
		      size_t size, size_t first)
{
	size_t more = *cap ? 2 * *cap : first;
	void *bigger;

	if (*cap >= h->qmax)
		return NULL;
	if (more > h->qmax)
		more = h->qmax;
	bigger = realloc(arr, more * size);
	if (bigger != NULL)
		*cap = more;
	return bigger;
}

/* Queue closed run r of job (taking its cpus); -1 if the queue is full
 * (the run is dropped, counted). */
int hist_enqueue(struct history *h, int64_t job, struct run *r)
{
	struct queued *bigger;

	if (h->qn == h->qcap &&
	    (bigger = hist_queue_grow(h, h->q, &h->qcap, sizeof(*h->q), 64)) != NULL)
		h->q = bigger;
	if (h->qn == h->qcap) {
		free(r->cpus);
		h->dropped++;
		hist_seterr(h, "allot: history queue full, a run was dropped");
		return -1;
	}
	h->q[h->qn].job = job;
	h->q[h->qn].run = *r;
	h->q[h->qn].run.pending = 0;
	h->qn++;
	return 0;
}

/* Record one quantum of a tracked job. */
int history_allot(struct history *h, int64_t job_id,
		  const struct history_quantum *q)
{
	const int64_t *u;
	struct live *l;
	struct run *r;
	int64_t qn;
	char *cpus;
	int rc = 0, how;

	if (h == NULL)
		return -1;
	if (check_quantum(h, q) < 0)
		return -1;
	if ((l = hist_live_get(h, job_id, "allot")) == NULL)
		return -1;
	if (l->lost)
		return 0;
	r = &l->run;
	qn = q->quantum + h->qbase;
	if (l->has_run && qn <= r->last_q) {
		hist_seterr(h, "allot: job %" PRId64 " quantum %" PRId64
			    " is not after %" PRId64, job_id, q->quantum,
			    r->last_q - h->qbase);
		return -1;
	}
	if (h->open_written_ns == 0 || q->end_ns < h->open_written_ns)
		h->open_written_ns = q->start_ns;
	if (q->end_ns > h->now_ns)
		h->now_ns = q->end_ns;
	u = q->use;
	hist_had_add(l, u);
	if (l->has_run && (how = continues(r, q, qn)) != 0) {
		if (how == 2)
			take_turn(r, q, qn);
		if (q->cls != HISTORY_CLASS_NONE)
			r->cls = q->cls;
		r->last_q = qn;
		r->end_ns = q->end_ns;
		for (int k = 0; k < USAGE_N; k++)
			r->use[k] += u[k];
		r->dirty = 1;
		return 0;
	}
	cpus = strdup(q->cpus);
	if (cpus == NULL) {
		hist_seterr(h, "allot: out of memory");
		return -1;
	}
	if (l->has_run) {
		/* The run lasted until this quantum began. */
		if (r->last_q < qn - 1) {
			r->last_q = qn - 1;
			r->end_ns = q->start_ns;
			r->dirty = 1;
		}
		if (r->dirty)
			rc = hist_enqueue(h, job_id, r);
		else
			free(r->cpus);
	}
	memset(r, 0, sizeof(*r));
	r->first_q = r->last_q = qn;
	r->start_ns = q->start_ns;
	r->end_ns = q->end_ns;
	r->desire = q->desire;
	r->availability = q->availability;
	r->allotment = r->hi = r->cur = q->allotment;
	r->cur_q = qn;
	r->epoch = q->epoch;
	r->cls = q->cls;
	r->cpus = cpus;
	for (int k = 0; k < USAGE_N; k++)
		r->use[k] = u[k] + l->carry[k];
	memset(l->carry, 0, sizeof(l->carry));
	r->dirty = 1;
	l->has_run = 1;
	return rc;
}

/* A job's class for one of its quanta, to the open run holding it. */
int history_class(struct history *h, int64_t job_id, int64_t quantum,
		  int cls)
{
	struct live *l;

	if (h == NULL)
		return -1;
	if (quantum < 0 || cls < HISTORY_INEFFICIENT || cls > HISTORY_DEPRIVED) {
		hist_seterr(h, "class: bad quantum or class");
		return -1;
	}
	if ((l = hist_live_get(h, job_id, "class")) == NULL)
		return -1;
	if (l->lost || !l->has_run || quantum + h->qbase < l->run.first_q)
		return 0;
	l->run.cls = cls;
	l->run.dirty = 1;
	return 0;
}

/* Add usage to a tracked job's open run (or to its next one). */
int history_usage(struct history *h, int64_t job_id,
		  const int64_t use[USAGE_N])
{
	struct live *l;
	int64_t *to;

	if (h == NULL)
		return -1;
	if (use == NULL || !use_ok(use)) {
		hist_seterr(h, "usage: negative usage");
		return -1;
	}
	if ((l = hist_live_get(h, job_id, "usage")) == NULL)
		return -1;
	if (l->lost)
		return 0;
	hist_had_add(l, use);
	to = l->has_run ? l->run.use : l->carry;
	for (int k = 0; k < USAGE_N; k++)
		to[k] += use[k];
	if (l->has_run)
		l->run.dirty = 1;
	return 0;
}

/* The quantum that is over now: every open run lasted until its end. */
int history_advance(struct history *h, int64_t quantum, int64_t end_ns)
{
	if (h == NULL)
		return -1;
	if (quantum < 0 || end_ns <= 0 || quantum + h->qbase < h->now_q) {
		hist_seterr(h, "advance: quantum %" PRId64 " is before %" PRId64,
			    quantum, h->now_q - h->qbase);
		return -1;
	}
	h->now_q = quantum + h->qbase;
	h->now_q_end = end_ns;
	if (h->open_written_ns == 0)
		h->open_written_ns = end_ns;
	if (end_ns > h->now_ns)
		h->now_ns = end_ns;
	return 0;
}

/* Quanta first..last had no tick: queue them for the next write (the
 * ranges of one late wake-up after another merge). */
int history_skipped(struct history *h, int64_t first, int64_t last,
		    int64_t start_ns, int64_t end_ns)
{
	struct skip *k;

	if (h == NULL)
		return -1;
	if (first < 0 || last < first || start_ns <= 0 || end_ns < start_ns) {
		hist_seterr(h, "skipped: bad quanta or times");
		return -1;
	}
	first += h->qbase;
	last += h->qbase;
	/* One that follows the last not yet written extends it. */
	if (h->nskips > h->skips_w && h->skips[h->nskips - 1].last + 1 == first) {
		h->skips[h->nskips - 1].last = last;
		h->skips[h->nskips - 1].end_ns = end_ns;
		return 0;
	}
	if (h->nskips == h->capskips) {
		size_t cap = h->capskips ? 2 * h->capskips : 16;
		struct skip *more;

		if (cap > h->qmax) {
			h->dropped++;
			hist_seterr(h, "skipped: history queue full, dropped");
			return -1;
		}
		more = realloc(h->skips, cap * sizeof(*more));
		if (more == NULL) {
			hist_seterr(h, "skipped: out of memory");
			return -1;
		}
		h->skips = more;
		h->capskips = cap;
	}
	k = &h->skips[h->nskips++];
	k->first = first;
	k->last = last;
	k->start_ns = start_ns;
	k->end_ns = end_ns;
	return 0;
}

/* The closed runs waiting for a flush. */
size_t history_queued(const struct history *h)
{
	return h != NULL ? h->qn : 0;
}

/* Write everything pending before a write of its own. */
int hist_settle(struct history *h)
{
	if (h->degraded) {
		hist_seterr(h, "history degraded: %s", h->why);
		return -1;
	}
	return h->batch || h->nops ? hist_write_pending(h, 0) : 0;
}

/* Write a share of the queue into the batch, and commit when due. */
int history_flush(struct history *h)
{
	int open_due;
	size_t end;

	if (h == NULL)
		return -1;
	if (h->degraded)
		return 0;               /* history_retry tries again */
	if (h->nops > 0)
		return hist_write_pending(h, 0) == 0 || h->degraded ? 0 : -1;
	open_due = h->open_written_ns != 0 &&
		   h->now_ns - h->open_written_ns >= h->flush_open_ns;
	if (queue_empty(h) && !open_due && !h->batch)
		return 0;
	if (open_due && !any_dirty_open(h)) {
		h->open_written_ns = h->now_ns;
		open_due = 0;
		if (queue_empty(h) && !h->batch)
			return 0;
	}
	/* Commit what is due: a commit rewrites every page the batch
	 * touched, so one a second costs far less than one per share. */
	if (open_due || h->now_ns - h->committed_ns >= h->flush_ns ||
	    h->qn - h->qw > HIST_BATCH_MAX)
		return hist_write_pending(h, open_due) == 0 || h->degraded ? 0 : -1;
	if (h->qn - h->qw < HIST_BURST && h->skips_w == h->nskips &&
	    h->grants_w == h->ngrants)
		return 0;
	if (!h->batch) {
		if (hist_tx_begin(h) < 0)
			goto fail;
		h->batch = 1;
	}
	sort_unwritten(h);
	end = h->qn - h->qw > HIST_WRITE_STEP ? h->qw + HIST_WRITE_STEP : h->qn;
	for (; h->qw < end; h->qw++)
		if (hist_write_run(h, h->q[h->qw].job, &h->q[h->qw].run) < 0)
			goto fail;
	if (h->qw == h->qn && hist_write_queue(h) < 0)  /* skips, grants */
		goto fail;
	return 0;
fail:
	hist_tx_rollback(h);
	return degrade(h) == 0 || h->degraded ? 0 : -1;
}

/* Write the job writes and up to max closed runs (then the skips and
 * the open runs, once the queue is written) in one transaction: 0 when
 * nothing waits any more, 1 when more does, -1 on failure (rolled
 * back). */
static int write_slice(struct history *h, size_t max)
{
	size_t end;
	int all;

	if (hist_tx_begin(h) < 0 || hist_write_ops(h) < 0)
		goto fail;
	sort_unwritten(h);
	end = h->qn - h->qw > max ? h->qw + max : h->qn;
	for (; h->qw < end; h->qw++)
		if (hist_write_run(h, h->q[h->qw].job, &h->q[h->qw].run) < 0)
			goto fail;
	all = h->qw == h->qn;
	/* The skips and grants, then the open runs, once the queue is
	 * written. */
	if (all && (hist_write_queue(h) < 0 || write_open(h) < 0))
		goto fail;
	if (hist_tx_commit(h) < 0)
		return -1;
	if (all)
		h->open_written_ns = h->now_ns;
	return all ? 0 : 1;
fail:
	hist_tx_rollback(h);
	return -1;
}

/* While degraded, write a slice of what is pending. */
int history_retry(struct history *h)
{
	int r;

	if (h == NULL)
		return -1;
	if (!h->degraded)
		return 0;
	h->degraded = 0;
	r = write_slice(h, h->catch_up);
	if (r != 0) {
		h->degraded = 1;
		if (r < 0)              /* with the reason it has now */
			snprintf(h->why, sizeof(h->why), "%s", h->err);
		else
			snprintf(h->why, sizeof(h->why), "catching up, %zu "
				 "runs wait", h->qn);
	}
	return r;
}

/* The history's health, from memory. */
void history_health(const struct history *h, struct history_health *out)
{
	memset(out, 0, sizeof(*out));
	out->degraded = h == NULL || h->degraded;
	if (h == NULL) {
		snprintf(out->state, sizeof(out->state), "degraded: no history");
		return;
	}
	snprintf(out->state, sizeof(out->state), "%s%s", h->degraded ?
		 "degraded: " : "ok", h->degraded ? h->why : "");
	out->pending = (int64_t)(h->nops + h->qn + h->nskips + h->ngrants);
	out->dropped = h->dropped + h->ops_dropped;
}
