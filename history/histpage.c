/*
 * histpage.c - one page of the allotment history as a History message
 * (see histpage.h): the request's filter for history_query, the jobs and
 * runs it reports collected as JobRecords and AllotmentRecords, the page
 * cut at its limit, at half a frame or where the query stopped, and the
 * cursor to go on from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exchange.h"
#include "frame.h"
#include "histpage.h"
#include "history.h"
#include "proto.h"

/* Duplicate a string for a reply (NULL when out of memory). */
static char *dup_str(const char *s)
{
	return strdup(s != NULL ? s : "");
}

/* A Usage at u (the record's own storage) from a row's usage. */
static Asteal__Usage *row_usage(Asteal__Usage *u, const int64_t use[USAGE_N])
{
	struct usage_totals t;

	for (int k = 0; k < USAGE_N; k++)
		t.ns[k] = (uint64_t)use[k];
	exchange_usage_msg(u, &t);
	return u;
}

/* One job of a page (history_query's job callback). */
static int page_job(const struct history_job_info *j, void *arg)
{
	struct histpage *p = arg;
	Asteal__JobRecord *r;

	if (p->jobs_only && p->bytes > PROTO_MAX_FRAME / 2) {
		p->full = 1;
		return 1;                /* the rest goes in the next page */
	}
	if (frame_grow(&p->h.jobs, sizeof(*p->h.jobs), p->h.n_jobs, &p->capj, 64) < 0 ||
	    (r = calloc(1, sizeof(*r) + sizeof(Asteal__Usage))) == NULL)
		return p->oom = -1;
	asteal__job_record__init(r);
	p->h.jobs[p->h.n_jobs++] = r;   /* freed with the page, whole or not */
	r->name = dup_str(j->name);
	r->command = dup_str(p->viewer < 0 || j->uid == p->viewer ? j->command : "");
	if (r->name == NULL || r->command == NULL)
		return p->oom = -1;
	r->id = (uint64_t)j->id;
	r->uid = (uint32_t)j->uid;
	r->pid = (int32_t)j->pid;
	r->start_ns = (uint64_t)j->start_ns;
	r->end_ns = (uint64_t)j->end_ns;
	r->status_known = j->has_exit != 0;
	r->wait_status = j->exit_status;
	r->usage = row_usage((Asteal__Usage *)(r + 1), j->use);
	r->workers = (uint32_t)j->workers;
	r->time_limit_ns = (uint64_t)j->time_limit_ns;
	r->timeout = j->timed_out != 0;
	p->bytes += 64 + strlen(r->name) + strlen(r->command);
	return 0;
}

/* One allotment run of a page (history_query's run callback; stops when
 * the frame is full). */
static int page_run(const struct history_run *a, void *arg)
{
	struct histpage *p = arg;
	Asteal__AllotmentRecord *r;
	int cpus[CPULIST_MAX], n, i;
	char why[64];

	if (p->bytes > PROTO_MAX_FRAME / 2) {
		p->full = 1;
		return 1;                /* the rest goes in the next page */
	}
	if (frame_grow(&p->h.allotments, sizeof(*p->h.allotments),
	               p->h.n_allotments, &p->capa, 256) < 0)
		return p->oom = -1;
	/* Runs come ordered by job: a new job is a new id, whose record goes
	 * in the page too (counted at its largest: a command line comes in a
	 * Hello, so it is shorter than PROTO_MAX_HELLO_FRAME, or in a
	 * Launch, cut to 255 bytes). */
	if (p->nids == 0 || p->ids[p->nids - 1] != a->job) {
		if (frame_grow(&p->ids, sizeof(*p->ids), p->nids, &p->capi, 64) < 0)
			return p->oom = -1;
		p->ids[p->nids++] = a->job;
		p->bytes += 128 + PROTO_MAX_HELLO_FRAME;
	}
	n = a->cpus[0] ? cpulist_parse(a->cpus, cpus, CPULIST_MAX, why, sizeof(why)) : 0;
	if (n < 0)
		n = 0;
	r = calloc(1, sizeof(*r) + sizeof(Asteal__Usage) +
	              (size_t)n * sizeof(uint32_t));
	if (r == NULL)
		return p->oom = -1;
	asteal__allotment_record__init(r);
	r->job_id = (uint64_t)a->job;
	r->first_quantum = (uint64_t)a->first_quantum;
	r->last_quantum = (uint64_t)a->last_quantum;
	r->start_ns = (uint64_t)a->start_ns;
	r->end_ns = (uint64_t)a->end_ns;
	r->desire = (uint32_t)a->desire;
	r->availability = (uint32_t)a->availability;
	r->allotment = (uint32_t)a->allotment;
	r->usage = row_usage((Asteal__Usage *)(r + 1), a->use);
	r->cpus = (uint32_t *)(r->usage + 1);
	for (i = 0; i < n; i++)
		r->cpus[i] = (uint32_t)cpus[i];
	r->n_cpus = (size_t)n;
	r->cpu_quanta = (uint64_t)a->cpu_quanta;
	r->quantum_class = (Asteal__QuantumClass)(a->cls + 1);
	p->h.allotments[p->h.n_allotments++] = r;
	p->run[1] = p->run[0];
	p->run[0] = a->id;
	/* Usually far less: at its largest a record takes about twice this
	 * (twelve numbers of 11 bytes), and a page is cut at half a frame. */
	p->bytes += 96 + 6 * (size_t)n;
	return 0;
}

/* Free the last job record of the page. */
static void drop_last_job(struct histpage *p)
{
	Asteal__JobRecord *j = p->h.jobs[--p->h.n_jobs];

	free(j->name);
	free(j->command);
	free(j);
}

/* A page of the jobs f selects: one more than the limit asked, to learn
 * whether more follow; 0 or -1. */
static int page_jobs(struct histpage *p, struct history *hist,
                     const struct history_filter *f, int64_t limit)
{
	p->jobs_only = 1;
	if (history_query(hist, f, page_job, NULL, p) < 0)
		return -1;
	p->h.more = p->full;
	if ((int64_t)p->h.n_jobs > limit) {
		p->h.more = 1;
		drop_last_job(p);
	}
	if (p->h.more && p->h.n_jobs > 0)
		p->next.job_id = p->h.jobs[p->h.n_jobs - 1]->id;
	else if (f->stopped_at->stopped) {
		p->h.more = 1;
		p->next.job_id = (uint64_t)f->stopped_at->job;
	}
	return 0;
}

/* What runless() looks for: the jobs of a page's id range with no run. */
struct runless {
	struct histpage *p;
	int64_t hi;                    /* the range's last id */
	int fail;                      /* out of memory */
};

/* One job of the range: named in the page unless it is already. */
static int runless_job(const struct history_job_info *j, void *arg)
{
	struct runless *rl = arg;
	struct histpage *p = rl->p;
	size_t i;

	if (j->id > rl->hi || p->bytes > PROTO_MAX_FRAME / 2 + PROTO_MAX_FRAME / 4)
		return 1;
	for (i = 0; i < p->nids; i++)
		if (p->ids[i] == j->id)
			return 0;
	if (frame_grow(&p->ids, sizeof(*p->ids), p->nids, &p->capi, 64) < 0) {
		rl->fail = 1;
		return 1;
	}
	p->ids[p->nids++] = j->id;
	p->bytes += 128 + PROTO_MAX_HELLO_FRAME;
	return 0;
}

/* Name in a page of runs the jobs of its id range that have no run (a
 * job that ended before its first tick, a program without libasteal), so
 * that the history shows every job as soon as it is begun: those with an
 * id above the previous page's last (lo) up to this page's (hi), as many
 * as HISTPAGE_RUNLESS_SCAN rows allow.  0, or -1 on an error. */
static int runless(struct history *hist, const struct history_filter *f,
                   struct histpage *p, int64_t lo, int64_t hi)
{
	struct history_filter fj = *f;
	struct runless rl = { p, hi, 0 };

	fj.after_job = lo;
	fj.after_start_ns = fj.after_run = 0;
	fj.limit = HISTPAGE_RUNLESS_SCAN;
	fj.max_scan = HISTPAGE_RUNLESS_SCAN;
	fj.stopped_at = NULL;
	if (history_query(hist, &fj, runless_job, NULL, &rl) < 0)
		return -1;
	return rl.fail ? -1 : 0;
}

/* A page of the runs f selects (one more than the limit asked) and the
 * jobs they name; 0 or -1. */
static int page_runs(struct histpage *p, struct history *hist,
                     const struct history_filter *f, int64_t limit)
{
	const struct history_place *stopped = f->stopped_at;
	struct history_filter fj;

	if (history_query(hist, f, NULL, page_run, p) < 0)
		return -1;
	if ((int64_t)p->h.n_allotments > limit) {
		p->h.more = 1;
		free(p->h.allotments[--p->h.n_allotments]);
		p->run[0] = p->run[1];
		if (p->h.n_allotments == 0 ||
		    (int64_t)p->h.allotments[p->h.n_allotments - 1]->job_id !=
		    p->ids[p->nids - 1])
			p->nids--;       /* only the dropped run named it */
	}
	if (p->full)
		p->h.more = 1;
	if (p->h.more && p->h.n_allotments > 0) {
		const Asteal__AllotmentRecord *last =
			p->h.allotments[p->h.n_allotments - 1];

		p->next.job_id = last->job_id;
		p->next.start_ns = last->start_ns;
		p->next.run = (uint64_t)p->run[0];
	} else if (stopped->stopped) {
		/* Looked at its share of rows: go on after the last, whether
		 * the page holds any or not. */
		p->h.more = 1;
		p->next.job_id = (uint64_t)stopped->job;
		p->next.start_ns = (uint64_t)stopped->start_ns;
		p->next.run = (uint64_t)stopped->run;
	}
	if (runless(hist, f, p, f->after_job,
	            p->h.more ? (int64_t)p->next.job_id : INT64_MAX) < 0)
		return -1;
	if (p->nids == 0)
		return 0;
	memset(&fj, 0, sizeof(fj));
	fj.jobs = p->ids;
	fj.njobs = p->nids;
	fj.by_uid = f->by_uid;
	fj.uid = f->uid;
	return history_query(hist, &fj, page_job, NULL, p) < 0 ? -1 : 0;
}

/* Build the page r asks for. */
Asteal__ErrorCode histpage_build(struct histpage *p, struct history *hist,
                                 const Asteal__HistoryRequest *r,
                                 const struct histpage_viewer *v,
                                 char *why, size_t whylen)
{
	struct history_filter f;
	struct history_place stopped;
	int64_t ids[PROTO_HISTORY_MAX_IDS];
	int64_t limit = r->limit ? r->limit : HISTPAGE_DEFAULT;
	size_t i;
	int rc;

	memset(p, 0, sizeof(*p));
	asteal__history__init(&p->h);
	asteal__history_cursor__init(&p->next);
	p->viewer = v->sees_all ? -1 : v->uid;
	if (r->n_job_ids > PROTO_HISTORY_MAX_IDS) {
		snprintf(why, whylen, "at most %u job ids", PROTO_HISTORY_MAX_IDS);
		return ASTEAL__ERROR_CODE__INVALID;
	}
	if (limit > HISTPAGE_MAX_LIMIT)
		limit = HISTPAGE_MAX_LIMIT;
	for (i = 0; i < r->n_job_ids; i++)
		ids[i] = (int64_t)r->job_ids[i];
	memset(&f, 0, sizeof(f));
	f.jobs = ids;
	f.njobs = r->n_job_ids;
	f.since_ns = (int64_t)r->since_ns;
	f.until_ns = (int64_t)r->until_ns;
	f.uid = v->uid;
	f.by_uid = v->only_own;
	f.max_scan = HISTPAGE_SCAN;
	f.stopped_at = &stopped;
	/* Either way limit + 1 asked, to learn about more. */
	f.limit = limit + 1;
	if (r->after != NULL) {
		f.after_job = (int64_t)r->after->job_id;
		f.after_start_ns = (int64_t)r->after->start_ns;
		f.after_run = (int64_t)r->after->run;
		if (f.after_job < 0 || f.after_start_ns < 0 || f.after_run < 0) {
			snprintf(why, whylen, "history cursor out of range");
			return ASTEAL__ERROR_CODE__INVALID;
		}
	}
	/* The page's queries (its runs, the jobs they name) see one state
	 * of a file another thread writes. */
	if (history_read_begin(hist) < 0) {
		snprintf(why, whylen, "%s", history_error(hist));
		return ASTEAL__ERROR_CODE__INTERNAL;
	}
	rc = r->jobs_only ? page_jobs(p, hist, &f, limit)
	                  : page_runs(p, hist, &f, limit);
	if (rc < 0 || p->oom)
		snprintf(why, whylen, "%s", p->oom ? "out of memory"
		         : history_error(hist));
	history_read_end(hist);
	if (rc < 0 || p->oom)
		return ASTEAL__ERROR_CODE__INTERNAL;
	if (p->h.more)
		p->h.next = &p->next;
	return 0;
}

/* Free what a page holds. */
void histpage_free(struct histpage *p)
{
	size_t i;

	for (i = 0; i < p->h.n_jobs; i++) {
		free(p->h.jobs[i]->name);
		free(p->h.jobs[i]->command);
		free(p->h.jobs[i]);
	}
	for (i = 0; i < p->h.n_allotments; i++)
		free(p->h.allotments[i]);
	free(p->h.jobs);
	free(p->h.allotments);
	free(p->ids);
	memset(p, 0, sizeof(*p));
}
