/*
 * request.c - the command line's requests to asteald (see request.h).
 *
 * Each request gets one reply on its connection: the answer, or an Error
 * that keeps the connection (a request that failed is not a bad peer).
 * A History reply is one page, cut where its frame would grow past half
 * of PROTO_MAX_FRAME; `more` tells the client to ask for the next.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asteal.h"
#include "conn.h"
#include "cpulist.h"
#include "frame.h"
#include "history.h"
#include "launch.h"
#include "request.h"
#include "scheduler.h"

/* Send an Error reply and keep the connection (a request that failed). */
void request_error(struct conn *c, Asteal__ErrorCode code, const char *why)
{
	Asteal__Envelope env;
	Asteal__Error err;

	frame_error(&env, &err, code, why);
	conn_send(c, &env);
}

/* Send a reply; one too large for a frame becomes an Error for its
 * request, so that the client is told, not left waiting. */
void request_reply(struct conn *c, const Asteal__Envelope *env)
{
	char why[128];

	if (conn_send(c, env) == 0 || errno != EMSGSIZE)
		return;
	snprintf(why, sizeof(why), "the %s reply would take %zu bytes, above "
	         "the protocol's limit of %u: ask for less", frame_name(env),
	         frame_size(env), PROTO_MAX_FRAME);
	request_error(c, ASTEAL__ERROR_CODE__TOO_LARGE, why);
}

/* A Status request. */
void request_status(struct conn *c, struct sched *s)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Status st = ASTEAL__STATUS__INIT;

	sched_status(s, &st);
	st.daemon_version = (char *)REQUEST_DAEMON_VERSION;
	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS;
	env.status = &st;
	request_reply(c, &env);
}

/* Whether the peer sees every user's jobs whole: root, or the daemon's
 * own uid. */
static int sees_all(const struct conn *c)
{
	return conn_uid(c) == 0 || conn_uid(c) == geteuid();
}

/* Order JobInfos by id (qsort). */
static int cmp_info(const void *a, const void *b)
{
	const Asteal__JobInfo *x = *(Asteal__JobInfo *const *)a;
	const Asteal__JobInfo *y = *(Asteal__JobInfo *const *)b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Cut the jobs to one page: by id, those after `after`, as many as fit in
 * half a frame (one at least); more says whether some were left out (the
 * rest are freed). */
static void jobs_page(Asteal__Jobs *jobs, uint64_t after)
{
	size_t i, k = 0, bytes = 0;

	if (jobs->n_jobs > 1)
		qsort(jobs->jobs, jobs->n_jobs, sizeof(*jobs->jobs), cmp_info);
	for (i = 0; i < jobs->n_jobs; i++) {
		Asteal__JobInfo *ji = jobs->jobs[i];

		if (ji->id > after && !jobs->more) {
			/* its field's tag and length: at most 6 bytes more */
			bytes += asteal__job_info__get_packed_size(ji) + 6;
			if (k == 0 || bytes <= PROTO_MAX_FRAME / 2) {
				jobs->jobs[k++] = ji;
				continue;
			}
			jobs->more = 1;
		}
		free(ji);
	}
	jobs->n_jobs = k;
}

/* A Jobs request: one page of them. */
void request_jobs(struct conn *c, struct sched *s, struct launch *l,
                  const Asteal__JobsRequest *r, int priv)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Jobs jobs;
	uint32_t viewer = (uint32_t)conn_uid(c);
	int all = sees_all(c);
	size_t k = 0;

	if (sched_jobs(s, r->ids, r->n_ids, &jobs) < 0 ||
	    launch_jobs(l, r->ids, r->n_ids, &jobs) < 0) {
		request_error(c, ASTEAL__ERROR_CODE__INTERNAL, "out of memory");
		return;
	}
	/* Others' jobs: without their command lines, or not at all. */
	for (size_t i = 0; i < jobs.n_jobs; i++) {
		Asteal__JobInfo *ji = jobs.jobs[i];

		if (!all && ji->uid != viewer) {
			if (priv) {
				free(ji);
				continue;
			}
			ji->command = (char *)"";
		}
		jobs.jobs[k++] = ji;
	}
	jobs.n_jobs = k;
	jobs_page(&jobs, r->after);
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS;
	env.jobs = &jobs;
	request_reply(c, &env);
	sched_jobs_free(&jobs);
}

/* A Cancel request: only the job's owner or root. */
void request_cancel(struct conn *c, struct sched *s, struct launch *l,
                    const Asteal__CancelRequest *r)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__CancelReply rep = ASTEAL__CANCEL_REPLY__INIT;
	int sig = r->signal == 0 ? SIGTERM : r->signal;
	char why[160];
	int r2;

	if (sig < 1 || sig > 64) {
		request_error(c, ASTEAL__ERROR_CODE__INVALID, "no such signal");
		return;
	}
	r2 = launch_cancel(l, r->job_id, conn_uid(c), sig, why, sizeof(why));
	if (r2 > 1) {
		request_error(c, (Asteal__ErrorCode)r2, why);
		return;
	}
	if (r2 == 0)
		r2 = sched_cancel(s, r->job_id, conn_uid(c), sig, why, sizeof(why));
	if (r2 > 1) {
		request_error(c, (Asteal__ErrorCode)r2, why);
		return;
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_CANCEL_REPLY;
	env.cancel_reply = &rep;
	request_reply(c, &env);
}

/* What a History reply collects. */
struct hist_page {
	Asteal__History h;
	size_t capj, capa;
	size_t bytes;                  /* a running estimate of the frame size */
	int full;                      /* cut here: the frame is half full */
	int jobs_only;                 /* a page of jobs (else of runs) */
	int64_t *ids;                  /* the jobs the page's runs name */
	size_t nids, capi;
	int64_t run[2];                /* the last two runs' numbers, last first */
	Asteal__HistoryCursor next;
	int64_t viewer;                /* whose command lines it shows; -1:
	                                  everyone's */
};

/* Duplicate a string for a reply (NULL when out of memory). */
static char *dup_str(const char *s)
{
	return strdup(s != NULL ? s : "");
}

/* One job of a History reply. */
static int hist_job(const struct history_job_info *j, void *arg)
{
	struct hist_page *p = arg;
	Asteal__JobRecord *r;

	if (p->jobs_only && p->bytes > PROTO_MAX_FRAME / 2) {
		p->full = 1;
		return 1;                /* the rest goes in the next page */
	}
	if (frame_grow(&p->h.jobs, sizeof(*p->h.jobs), p->h.n_jobs, &p->capj, 64) < 0)
		return -1;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -1;
	asteal__job_record__init(r);
	r->id = (uint64_t)j->id;
	r->name = dup_str(j->name);
	r->command = dup_str(p->viewer < 0 || j->uid == p->viewer ? j->command : "");
	r->uid = (uint32_t)j->uid;
	r->pid = (int32_t)j->pid;
	r->start_ns = (uint64_t)j->start_ns;
	r->end_ns = (uint64_t)j->end_ns;
	r->status_known = j->has_exit != 0;
	r->wait_status = j->exit_status;
	r->work_ns = (uint64_t)j->work_ns;
	r->steal_ns = (uint64_t)j->steal_ns;
	r->mug_ns = (uint64_t)j->mug_ns;
	r->workers = (uint32_t)j->workers;
	r->allotted_ns = (uint64_t)j->allotted_ns;
	r->sleep_ns = (uint64_t)j->sleep_ns;
	r->preempted_ns = (uint64_t)j->preempted_ns;
	p->h.jobs[p->h.n_jobs++] = r;
	p->bytes += 64 + strlen(r->name) + strlen(r->command);
	return 0;
}

/* One allotment run of a History reply (stops when the frame is full). */
static int hist_run(const struct history_run *a, void *arg)
{
	struct hist_page *p = arg;
	Asteal__AllotmentRecord *r;
	int cpus[CPULIST_MAX], n, i;
	char why[64];

	if (p->bytes > PROTO_MAX_FRAME / 2) {
		p->full = 1;
		return 1;                /* the rest goes in the next page */
	}
	if (frame_grow(&p->h.allotments, sizeof(*p->h.allotments),
	               p->h.n_allotments, &p->capa, 256) < 0)
		return -1;
	/* Runs come ordered by job: a new job is a new id, whose record goes
	 * in the page too (counted at its largest: a command line comes in a
	 * Hello, so it is shorter than PROTO_MAX_HELLO_FRAME, or in a
	 * Launch, cut to 255 bytes). */
	if (p->nids == 0 || p->ids[p->nids - 1] != a->job) {
		if (frame_grow(&p->ids, sizeof(*p->ids), p->nids, &p->capi, 64) < 0)
			return -1;
		p->ids[p->nids++] = a->job;
		p->bytes += 128 + PROTO_MAX_HELLO_FRAME;
	}
	n = a->cpus[0] ? cpulist_parse(a->cpus, cpus, CPULIST_MAX, why, sizeof(why)) : 0;
	if (n < 0)
		n = 0;
	r = calloc(1, sizeof(*r) + (size_t)n * sizeof(uint32_t));
	if (r == NULL)
		return -1;
	asteal__allotment_record__init(r);
	r->job_id = (uint64_t)a->job;
	r->first_quantum = (uint64_t)a->first_quantum;
	r->last_quantum = (uint64_t)a->last_quantum;
	r->start_ns = (uint64_t)a->start_ns;
	r->end_ns = (uint64_t)a->end_ns;
	r->desire = (uint32_t)a->desire;
	r->availability = (uint32_t)a->availability;
	r->allotment = (uint32_t)a->allotment;
	r->cpus = (uint32_t *)(r + 1);
	for (i = 0; i < n; i++)
		r->cpus[i] = (uint32_t)cpus[i];
	r->n_cpus = (size_t)n;
	r->work_ns = (uint64_t)a->work_ns;
	r->steal_ns = (uint64_t)a->steal_ns;
	r->mug_ns = (uint64_t)a->mug_ns;
	r->allotted_ns = (uint64_t)a->allotted_ns;
	r->sleep_ns = (uint64_t)a->sleep_ns;
	r->preempted_ns = (uint64_t)a->preempted_ns;
	r->quantum_class = (Asteal__QuantumClass)(a->cls + 1);
	p->h.allotments[p->h.n_allotments++] = r;
	p->run[1] = p->run[0];
	p->run[0] = a->id;
	/* Usually far less: at its largest a record takes about twice this
	 * (twelve numbers of 11 bytes), and a page is cut at half a frame. */
	p->bytes += 96 + 6 * (size_t)n;
	return 0;
}

/* What runless() looks for: the jobs of a page's id range with no run. */
struct runless {
	struct hist_page *p;
	int64_t hi;                    /* the range's last id */
	int fail;                      /* out of memory */
};

/* One job of the range: named in the page unless it is already. */
static int runless_job(const struct history_job_info *j, void *arg)
{
	struct runless *rl = arg;
	struct hist_page *p = rl->p;
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
 * as REQUEST_RUNLESS_SCAN rows allow.  0, or -1 on an error. */
static int runless(struct history *hist, const struct history_filter *f,
                   struct hist_page *p, int64_t lo, int64_t hi)
{
	struct history_filter fj = *f;
	struct runless rl = { p, hi, 0 };

	fj.after_job = lo;
	fj.after_start_ns = fj.after_run = 0;
	fj.limit = REQUEST_RUNLESS_SCAN;
	fj.max_scan = REQUEST_RUNLESS_SCAN;
	fj.stopped_at = NULL;
	if (history_query(hist, &fj, runless_job, NULL, &rl) < 0)
		return -1;
	return rl.fail ? -1 : 0;
}

/* Free what a History reply collected. */
static void hist_free(struct hist_page *p)
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
}

/* A History request: one page of jobs and allotment runs. */
void request_history(struct conn *c, struct history *hist,
                     const Asteal__HistoryRequest *r, int priv)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	struct history_filter f;
	struct history_place stopped;
	struct hist_page p;
	int64_t ids[PROTO_HISTORY_MAX_IDS];
	size_t i;
	int64_t limit = r->limit ? r->limit : REQUEST_HISTORY_PAGE;
	char why[64];

	if (r->n_job_ids > PROTO_HISTORY_MAX_IDS) {
		snprintf(why, sizeof(why), "at most %u job ids",
		         PROTO_HISTORY_MAX_IDS);
		request_error(c, ASTEAL__ERROR_CODE__INVALID, why);
		return;
	}
	if (limit > 100000)
		limit = 100000;
	for (i = 0; i < r->n_job_ids; i++)
		ids[i] = (int64_t)r->job_ids[i];
	memset(&f, 0, sizeof(f));
	f.jobs = ids;
	f.njobs = r->n_job_ids;
	f.since_ns = (int64_t)r->since_ns;
	f.until_ns = (int64_t)r->until_ns;
	f.uid = (int64_t)conn_uid(c);
	f.by_uid = priv && !sees_all(c);
	f.max_scan = REQUEST_HISTORY_SCAN;
	f.stopped_at = &stopped;
	memset(&p, 0, sizeof(p));
	p.viewer = sees_all(c) ? -1 : f.uid;
	asteal__history__init(&p.h);
	asteal__history_cursor__init(&p.next);
	/* jobs_only: a page of the jobs the filter selects; else a page of
	 * runs (one more asked, to learn whether more follow) and the jobs
	 * they name.  Either way limit + 1 asked, to learn about more. */
	f.limit = limit + 1;
	if (r->after != NULL) {
		f.after_job = (int64_t)r->after->job_id;
		f.after_start_ns = (int64_t)r->after->start_ns;
		f.after_run = (int64_t)r->after->run;
		if (f.after_job < 0 || f.after_start_ns < 0 || f.after_run < 0) {
			request_error(c, ASTEAL__ERROR_CODE__INVALID,
			            "history cursor out of range");
			return;
		}
	}
	if (r->jobs_only) {
		p.jobs_only = 1;
		if (history_query(hist, &f, hist_job, NULL, &p) < 0)
			goto fail;
		p.h.more = p.full;
		if ((int64_t)p.h.n_jobs > limit) {
			p.h.more = 1;
			p.h.n_jobs--;
			free(p.h.jobs[p.h.n_jobs]->name);
			free(p.h.jobs[p.h.n_jobs]->command);
			free(p.h.jobs[p.h.n_jobs]);
		}
		if (p.h.more)
			p.next.job_id = p.h.jobs[p.h.n_jobs - 1]->id;
		else if (stopped.stopped) {
			p.h.more = 1;
			p.next.job_id = (uint64_t)stopped.job;
		}
	} else {
		if (history_query(hist, &f, NULL, hist_run, &p) < 0)
			goto fail;
		if ((int64_t)p.h.n_allotments > limit) {
			p.h.more = 1;
			free(p.h.allotments[--p.h.n_allotments]);
			p.run[0] = p.run[1];
			if (p.h.n_allotments == 0 ||
			    (int64_t)p.h.allotments[p.h.n_allotments - 1]->job_id !=
			    p.ids[p.nids - 1])
				p.nids--;       /* only the dropped run named it */
		}
		if (p.full)
			p.h.more = 1;
		if (p.h.more && p.h.n_allotments > 0) {
			const Asteal__AllotmentRecord *last =
				p.h.allotments[p.h.n_allotments - 1];

			p.next.job_id = last->job_id;
			p.next.start_ns = last->start_ns;
			p.next.run = (uint64_t)p.run[0];
		} else if (stopped.stopped) {
			/* Looked at its share of rows: go on after the last,
			 * whether the page holds any or not. */
			p.h.more = 1;
			p.next.job_id = (uint64_t)stopped.job;
			p.next.start_ns = (uint64_t)stopped.start_ns;
			p.next.run = (uint64_t)stopped.run;
		}
		if (runless(hist, &f, &p, r->after ? (int64_t)r->after->job_id : 0,
		            p.h.more ? (int64_t)p.next.job_id : INT64_MAX) < 0)
			goto fail;
		if (p.nids > 0) {
			struct history_filter fj;
			memset(&fj, 0, sizeof(fj));
			fj.jobs = p.ids;
			fj.njobs = p.nids;
			fj.by_uid = f.by_uid;
			fj.uid = f.uid;
			if (history_query(hist, &fj, hist_job, NULL, &p) < 0)
				goto fail;
		}
	}
	if (p.h.more)
		p.h.next = &p.next;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY;
	env.history = &p.h;
	request_reply(c, &env);
	hist_free(&p);
	return;
fail:
	hist_free(&p);
	request_error(c, ASTEAL__ERROR_CODE__INTERNAL, history_error(hist));
}

/* A Launch: the job's id, at once. */
void request_launch(struct conn *c, struct launch *l, const Asteal__Launch *m)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Launched rep = ASTEAL__LAUNCHED__INIT;
	Asteal__ErrorCode e;
	char why[160];

	e = launch_begin(l, c, conn_uid(c), m, &rep.job_id, why, sizeof(why));
	if (e != 0) {
		request_error(c, e, why);
		return;
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_LAUNCHED;
	env.launched = &rep;
	request_reply(c, &env);
}

/* A JobExit from a supervisor: Ok comes when the job has ended. */
void request_job_exit(struct conn *c, struct launch *l,
                      const Asteal__JobExit *m)
{
	Asteal__ErrorCode e;
	char why[160];

	e = launch_exit(l, c, conn_uid(c), m, why, sizeof(why));
	if (e != 0)
		request_error(c, e, why);
}

/* A WaitRequest: answered when the job ends. */
void request_wait(struct conn *c, struct launch *l,
                  const Asteal__WaitRequest *m, int priv)
{
	Asteal__ErrorCode e;
	char why[160];

	e = launch_wait(l, c, m->job_id, priv && !sees_all(c)
	                ? (int64_t)conn_uid(c) : -1, why, sizeof(why));
	if (e != 0)
		request_error(c, e, why);
}
