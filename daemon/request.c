/*
 * request.c - the command line's requests to asteald (see request.h).
 *
 * Each request gets one reply on its connection: the answer, or an Error
 * that keeps the connection (a request that failed is not a bad peer).
 * A History reply is one page (histpage.h); `more` tells the client to
 * ask for the next.  Pages are built off the loop by the history's reader
 * (histreader.h), which answers later, in order.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asteal.h"
#include "conn.h"
#include "frame.h"
#include "histpage.h"
#include "histreader.h"
#include "launch.h"
#include "log.h"
#include "request.h"
#include "scheduler.h"
#include "search.h"

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
	uint64_t ids[PROTO_JOBS_MAX_IDS];
	size_t k = 0, n = 0;
	char why[64];

	/* The ids sorted once, without repeats: each job looks itself up
	 * in them by binary search. */
	if (r->n_ids > PROTO_JOBS_MAX_IDS) {
		snprintf(why, sizeof(why), "at most %u job ids", PROTO_JOBS_MAX_IDS);
		request_error(c, ASTEAL__ERROR_CODE__INVALID, why);
		return;
	}
	if (r->n_ids > 0) {
		memcpy(ids, r->ids, r->n_ids * sizeof(ids[0]));
		qsort(ids, r->n_ids, sizeof(ids[0]), search_cmp_u64);
	}
	for (size_t i = 0; i < r->n_ids; i++)
		if (n == 0 || ids[i] != ids[n - 1])
			ids[n++] = ids[i];
	if (sched_jobs(s, ids, n, &jobs) < 0 ||
	    launch_jobs(l, ids, n, &jobs) < 0) {
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

/* A History request: one page of jobs and allotment runs (histpage.c),
 * built and answered by the reader (histreader.c). */
void request_history(struct conn *c, struct histreader *rd,
                     const Asteal__HistoryRequest *r, int priv)
{
	struct histpage_viewer v;
	Asteal__ErrorCode e;
	char why[300];

	v.uid = (int64_t)conn_uid(c);
	v.sees_all = sees_all(c);
	v.only_own = priv && !v.sees_all;
	e = histreader_ask(rd, c, r, &v, why, sizeof(why));
	if (e != 0)
		request_error(c, e, why);
}

/* A Launch: the job's id, at once. */
void request_launch(struct conn *c, struct launch *l,
                    const struct admit_ticket *t, const Asteal__Launch *m)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Launched rep = ASTEAL__LAUNCHED__INIT;
	Asteal__ErrorCode e;
	char why[160];

	e = launch_begin(l, c, conn_uid(c), t, m, &rep.job_id, why, sizeof(why));
	if (e != 0) {
		log_warn("pid %d uid %d: Launch refused: %s", (int)conn_pid(c),
		         (int)conn_uid(c), why);
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
