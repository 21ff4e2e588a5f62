/*
 * control.c - asteald's control socket (see control.h).
 *
 * Every connection starts in the handshake: the first frame must be a
 * Hello with our protocol version, within CONTROL_HELLO_TIMEOUT_S.  A JOB
 * is then registered with the scheduler and answers ticks; a CLIENT sends
 * requests and gets one reply each.  A peer that sends garbage, an
 * oversize frame, an unknown or unexpected message or a wrong version gets
 * an Error (where the stream still makes sense) and is disconnected after
 * it is written; a peer that does not read its replies is dropped when
 * CONTROL_MAX_OUTPUT bytes wait for it.  Nothing here blocks: all I/O goes
 * through bufferevents.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <systemd/sd-daemon.h>

#include "asteal.h"
#include "conf.h"
#include "control.h"
#include "frame.h"
#include "history.h"
#include "launch.h"
#include "log.h"
#include "scheduler.h"

#define DAEMON_VERSION "asteald " ASTEAL_VERSION

enum conn_role { CONN_HELLO, CONN_JOB, CONN_CLIENT };

struct conn {
	struct control *ctl;
	struct bufferevent *bev;
	evutil_socket_t fd;            /* the bufferevent's socket */
	uid_t uid;
	pid_t pid;
	int role;
	int closing;                   /* flush, then free */
	int backlog;                   /* bytes may wait in the output buffer
	                                  (set whenever some are put there;
	                                  cleared once it is seen empty) */
	struct event *free_ev;         /* frees a closing connection soon */
	struct event *rd;              /* a job's read event (use_job_reader),
	                                  NULL while the bufferevent reads */
	struct evbuffer *pend;         /* with rd: the start of a frame, kept
	                                  until the rest comes (NULL: never) */
	struct sched_job *job;
	uint64_t serial;
	struct conn *prev, *next;
};

struct control {
	struct event_base *base;
	const struct conf *conf;
	struct sched *sched;
	struct history *hist;
	struct launch *launch;
	struct evconnlistener *listener;
	int bound;                     /* we bound the path (unlink at exit) */
	int stopping;                  /* control_free: jobs outlive us */
	struct conn *conns;
	int nconns, nclients;
	uint64_t serials;
};

static void conn_free(struct conn *c);
static void conn_close(struct conn *c);
static void use_job_reader(struct conn *c);

/* Frames up to this size are encoded on the stack and may be written at
 * once (Tick, Allot, Welcome, small replies); larger ones (History pages,
 * long Jobs lists) are encoded straight into the output buffer. */
#define SEND_STACK_FRAME 2048

/* Whether len more bytes would put more than CONTROL_MAX_OUTPUT in wait
 * for a peer: then it is dropped (closed, its queue discarded). */
static int overflows(struct conn *c, struct evbuffer *out, size_t len)
{
	size_t queued = evbuffer_get_length(out);

	if (queued + len <= CONTROL_MAX_OUTPUT)
		return 0;
	log_warn("peer pid %d (uid %d) does not read its replies: dropped",
	         (int)c->pid, (int)c->uid);
	evbuffer_drain(out, queued);
	conn_close(c);
	return 1;
}

/* Queue len bytes (whole frames) to a peer, written at once when nothing
 * waits before them; -1 when the peer is going away. */
int control_send_frame(struct conn *c, const uint8_t *buf, size_t len)
{
	struct evbuffer *out;
	ssize_t n = 0;

	if (c == NULL || c->closing)
		return -1;
	/* The common case, nothing waiting, touches no buffer at all. */
	if (c->backlog || len > CONTROL_MAX_OUTPUT) {
		out = bufferevent_get_output(c->bev);
		if (overflows(c, out, len))
			return -1;
		c->backlog = evbuffer_get_length(out) > 0;
	}
	/* With nothing queued, write now: handing the bytes to the
	 * bufferevent would cost an epoll_ctl to watch for writability and
	 * another to stop, for every message, for a socket that almost
	 * always has room.  Whatever send() does not take (a full socket,
	 * EAGAIN) goes to the bufferevent as before; on any other error the
	 * whole frame does, so that the bufferevent meets the same error and
	 * reports it through on_event, the one place that handles it. */
	if (!c->backlog) {
		n = send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0)
			n = 0;
		if ((size_t)n == len)
			return 0;
	}
	c->backlog = 1;
	out = bufferevent_get_output(c->bev);
	if (evbuffer_add(out, buf + n, len - (size_t)n) < 0) {
		log_error("out of memory queueing %zu bytes for pid %d", len,
		          (int)c->pid);
		return -1;
	}
	return 0;
}

/* Queue a message to a peer; -1 when the peer is going away. */
int control_send(struct conn *c, const Asteal__Envelope *m)
{
	struct evbuffer *out;
	struct evbuffer_iovec v;
	uint8_t small[SEND_STACK_FRAME];
	size_t len = 0;

	if (c == NULL || c->closing)
		return -1;
	/* Encode on the stack first: one size computation for the common
	 * small frame; ENOBUFS tells the size of a larger one. */
	if (frame_encode(m, small, sizeof(small), &len) == 0)
		return control_send_frame(c, small, len);
	if (errno != ENOBUFS) {
		log_error("cannot encode a %s for pid %d", frame_name(m), (int)c->pid);
		return -1;
	}
	out = bufferevent_get_output(c->bev);
	if (overflows(c, out, len))
		return -1;
	c->backlog = 1;
	if (evbuffer_reserve_space(out, len, &v, 1) < 1 ||
	    frame_encode(m, v.iov_base, v.iov_len, &len) < 0) {
		log_error("cannot encode a %s for pid %d", frame_name(m), (int)c->pid);
		return -1;
	}
	v.iov_len = len;
	evbuffer_commit_space(out, &v, 1);
	return 0;
}

/* A job's connection is going: its CPUs go back at the next tick, and it
 * ends unless its supervisor has yet to report. */
static void conn_drop_job(struct conn *c)
{
	uint64_t id;

	if (c->job == NULL)
		return;
	if (c->ctl->stopping) {         /* sched_free keeps its row open */
		c->job = NULL;
		return;
	}
	id = sched_job_id(c->job);
	sched_job_remove(c->ctl->sched, c->job);
	c->job = NULL;
	launch_job_left(c->ctl->launch, id);
}

/* Free a connection now. */
static void conn_free(struct conn *c)
{
	struct control *ctl = c->ctl;

	conn_drop_job(c);
	if (c->role == CONN_CLIENT) {
		if (!ctl->stopping)
			launch_conn_gone(ctl->launch, c);
		ctl->nclients--;
		sched_set_clients(ctl->sched, ctl->nclients);
	}
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		ctl->conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	ctl->nconns--;
	if (c->rd != NULL)
		event_free(c->rd);
	if (c->pend != NULL)
		evbuffer_free(c->pend);
	bufferevent_free(c->bev);
	event_free(c->free_ev);
	free(c);
}

/* The deferred free of a closing connection. */
static void on_free(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_free(arg);
}

/* Close a connection once what is queued to it is written (within 2 s):
 * never frees it at once, so callers may still look at it. */
static void conn_close(struct conn *c)
{
	struct timeval wt = { 2, 0 };

	if (!c->closing) {
		c->closing = 1;
		bufferevent_disable(c->bev, EV_READ);
		if (c->rd != NULL)
			event_del(c->rd);
		bufferevent_set_timeouts(c->bev, NULL, &wt);
	}
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		event_active(c->free_ev, EV_TIMEOUT, 0);
}

/* The output drained: a closing connection goes now. */
static void on_write(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	(void)bev;
	if (c->closing)
		conn_free(c);
}

/* Send an Error and close after it is written. */
static void conn_fail(struct conn *c, Asteal__ErrorCode code, const char *why)
{
	Asteal__Envelope env;
	Asteal__Error err;

	log_warn("peer pid %d (uid %d): %s: disconnected", (int)c->pid,
	         (int)c->uid, why);
	frame_error(&env, &err, code, why);
	control_send(c, &env);
	conn_drop_job(c);
	conn_close(c);
}

/* Send an Error reply and keep the connection (a request that failed). */
static void reply_error(struct conn *c, Asteal__ErrorCode code, const char *why)
{
	Asteal__Envelope env;
	Asteal__Error err;

	frame_error(&env, &err, code, why);
	control_send(c, &env);
}

/* The handshake: Hello with our version, then Welcome. */
static void on_hello(struct conn *c, const Asteal__Envelope *m)
{
	struct control *ctl = c->ctl;
	const Asteal__Hello *h = m->hello;
	Asteal__Envelope env;
	Asteal__Welcome w;
	uint32_t cpus[CPULIST_MAX];
	char why[160];
	uint64_t id = 0;
	int i;

	if (frame_check_handshake(m, ASTEAL__ENVELOPE__MSG_HELLO, why, sizeof(why)) < 0) {
		conn_fail(c, m->msg_case == ASTEAL__ENVELOPE__MSG_HELLO
		                 ? ASTEAL__ERROR_CODE__BAD_VERSION
		                 : ASTEAL__ERROR_CODE__UNEXPECTED, why);
		return;
	}
	if (h->role == ASTEAL__ROLE__JOB) {
		uint64_t claim = h->job_id;
		if (claim != 0 &&
		    launch_claim(ctl->launch, claim, c->uid, c->pid, why, sizeof(why)) < 0) {
			log_info("pid %d: claim refused, registered anew: %s",
			         (int)c->pid, why);
			claim = 0;
		}
		c->job = sched_job_add(ctl->sched, c, h, c->uid, c->pid, claim, why,
		                       sizeof(why));
		if (c->job == NULL) {
			if (claim != 0)
				launch_job_left(ctl->launch, claim);
			conn_fail(c, ASTEAL__ERROR_CODE__BUSY, why);
			return;
		}
		c->role = CONN_JOB;
		id = sched_job_id(c->job);
		use_job_reader(c);
	} else if (h->role == ASTEAL__ROLE__CLIENT) {
		if (ctl->nclients >= ctl->conf->max_clients) {
			conn_fail(c, ASTEAL__ERROR_CODE__BUSY, "too many clients");
			return;
		}
		c->role = CONN_CLIENT;
		ctl->nclients++;
		sched_set_clients(ctl->sched, ctl->nclients);
	} else {
		conn_fail(c, ASTEAL__ERROR_CODE__INVALID, "hello: unknown role");
		return;
	}
	bufferevent_set_timeouts(c->bev, NULL, NULL);
	for (i = 0; i < ctl->conf->ncpus; i++)
		cpus[i] = (uint32_t)ctl->conf->cpus[i];
	frame_welcome(&env, &w, id, (uint32_t)ctl->conf->quantum_us, cpus,
	              (size_t)ctl->conf->ncpus, DAEMON_VERSION);
	control_send(c, &env);
}

/* A Status request. */
static void on_status(struct conn *c)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Status st = ASTEAL__STATUS__INIT;

	sched_status(c->ctl->sched, &st);
	st.daemon_version = (char *)DAEMON_VERSION;
	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS;
	env.status = &st;
	control_send(c, &env);
}

/* A Jobs request. */
static void on_jobs(struct conn *c, const Asteal__JobsRequest *r)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Jobs jobs;

	if (sched_jobs(c->ctl->sched, r->ids, r->n_ids, &jobs) < 0 ||
	    launch_jobs(c->ctl->launch, r->ids, r->n_ids, &jobs) < 0) {
		reply_error(c, ASTEAL__ERROR_CODE__INTERNAL, "out of memory");
		return;
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS;
	env.jobs = &jobs;
	control_send(c, &env);
	sched_jobs_free(&jobs);
}

/* A Cancel request: only the job's owner or root. */
static void on_cancel(struct conn *c, const Asteal__CancelRequest *r)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__CancelReply rep = ASTEAL__CANCEL_REPLY__INIT;
	int sig = r->signal == 0 ? SIGTERM : r->signal;
	char why[160];
	int r2;

	if (sig < 1 || sig > 64) {
		reply_error(c, ASTEAL__ERROR_CODE__INVALID, "no such signal");
		return;
	}
	r2 = launch_cancel(c->ctl->launch, r->job_id, c->uid, sig, why, sizeof(why));
	if (r2 > 1) {
		reply_error(c, (Asteal__ErrorCode)r2, why);
		return;
	}
	if (r2 == 0 && sched_cancel(c->ctl->sched, r->job_id, c->uid, sig) < 0) {
		snprintf(why, sizeof(why), "job %llu: %s", (unsigned long long)r->job_id,
		         errno == EPERM ? "not yours (only its owner or root may cancel it)"
		         : errno == ESRCH ? "no such running job" : strerror(errno));
		reply_error(c, errno == EPERM ? ASTEAL__ERROR_CODE__PERMISSION
		               : errno == ESRCH ? ASTEAL__ERROR_CODE__NOT_FOUND
		               : ASTEAL__ERROR_CODE__INTERNAL, why);
		return;
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_CANCEL_REPLY;
	env.cancel_reply = &rep;
	control_send(c, &env);
}

/* What a History reply collects. */
struct hist_page {
	Asteal__History h;
	size_t capj, capa;
	size_t bytes;                  /* a running estimate of the frame size */
	int full;
	int64_t *ids;                  /* the jobs the page's runs name */
	size_t nids, capi;
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

	if (frame_grow(&p->h.jobs, sizeof(*p->h.jobs), p->h.n_jobs, &p->capj, 64) < 0)
		return -1;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -1;
	asteal__job_record__init(r);
	r->id = (uint64_t)j->id;
	r->name = dup_str(j->name);
	r->command = dup_str(j->command);
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
	 * in the page too (counted at its largest). */
	if (p->nids == 0 || p->ids[p->nids - 1] != a->job) {
		if (frame_grow(&p->ids, sizeof(*p->ids), p->nids, &p->capi, 64) < 0)
			return -1;
		p->ids[p->nids++] = a->job;
		p->bytes += 64 + 64 + 256;
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
	r->quantum_class = (Asteal__QuantumClass)(a->cls + 1);
	p->h.allotments[p->h.n_allotments++] = r;
	p->bytes += 80 + 6 * (size_t)n;
	return 0;
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
static void on_history(struct conn *c, const Asteal__HistoryRequest *r)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	struct history_filter f;
	struct hist_page p;
	int64_t ids[256];
	size_t i;
	int64_t limit = r->limit ? r->limit : CONTROL_HISTORY_PAGE;

	if (r->n_job_ids > 256) {
		reply_error(c, ASTEAL__ERROR_CODE__INVALID, "at most 256 job ids");
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
	memset(&p, 0, sizeof(p));
	asteal__history__init(&p.h);
	/* jobs_only: a page of the jobs the filter selects; else a page of
	 * runs (one more asked, to learn whether more follow) and the jobs
	 * they name.  Either way limit + 1 asked, to learn about more. */
	f.limit = limit + 1;
	f.offset = (int64_t)r->offset;
	if (r->jobs_only) {
		if (history_query(c->ctl->hist, &f, hist_job, NULL, &p) < 0)
			goto fail;
		if ((int64_t)p.h.n_jobs > limit) {
			p.h.more = 1;
			p.h.n_jobs--;
			free(p.h.jobs[p.h.n_jobs]->name);
			free(p.h.jobs[p.h.n_jobs]->command);
			free(p.h.jobs[p.h.n_jobs]);
		}
	} else {
		if (history_query(c->ctl->hist, &f, NULL, hist_run, &p) < 0)
			goto fail;
		if ((int64_t)p.h.n_allotments > limit) {
			p.h.more = 1;
			free(p.h.allotments[--p.h.n_allotments]);
			if (p.h.n_allotments == 0 ||
			    (int64_t)p.h.allotments[p.h.n_allotments - 1]->job_id !=
			    p.ids[p.nids - 1])
				p.nids--;       /* only the dropped run named it */
		}
		if (p.full)
			p.h.more = 1;
		if (p.nids > 0) {
			struct history_filter fj;
			memset(&fj, 0, sizeof(fj));
			fj.jobs = p.ids;
			fj.njobs = p.nids;
			if (history_query(c->ctl->hist, &fj, hist_job, NULL, &p) < 0)
				goto fail;
		}
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY;
	env.history = &p.h;
	control_send(c, &env);
	hist_free(&p);
	return;
fail:
	hist_free(&p);
	reply_error(c, ASTEAL__ERROR_CODE__INTERNAL, history_error(c->ctl->hist));
}

/* A Launch: the job's id, at once. */
static void on_launch(struct conn *c, const Asteal__Launch *m)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Launched rep = ASTEAL__LAUNCHED__INIT;
	Asteal__ErrorCode e;
	char why[160];

	e = launch_begin(c->ctl->launch, c, c->uid, m, &rep.job_id, why, sizeof(why));
	if (e != 0) {
		reply_error(c, e, why);
		return;
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_LAUNCHED;
	env.launched = &rep;
	control_send(c, &env);
}

/* A JobExit from a supervisor: Ok comes when the job has ended. */
static void on_job_exit(struct conn *c, const Asteal__JobExit *m)
{
	Asteal__ErrorCode e;
	char why[160];

	e = launch_exit(c->ctl->launch, c, c->uid, m, why, sizeof(why));
	if (e != 0)
		reply_error(c, e, why);
}

/* A WaitRequest: answered when the job ends. */
static void on_wait(struct conn *c, const Asteal__WaitRequest *m)
{
	Asteal__ErrorCode e;
	char why[160];

	e = launch_wait(c->ctl->launch, c, m->job_id, why, sizeof(why));
	if (e != 0)
		reply_error(c, e, why);
}

/* One decoded message from a peer past the handshake. */
static void dispatch(struct conn *c, const Asteal__Envelope *m)
{
	char why[128];

	if (c->role == CONN_HELLO) {
		on_hello(c, m);
		return;
	}
	if (c->role == CONN_JOB && m->msg_case == ASTEAL__ENVELOPE__MSG_FEEDBACK) {
		sched_feedback(c->ctl->sched, c->job, m->feedback);
		return;
	}
	if (c->role == CONN_CLIENT) {
		switch (m->msg_case) {
		case ASTEAL__ENVELOPE__MSG_STATUS_REQUEST:
			on_status(c);
			return;
		case ASTEAL__ENVELOPE__MSG_JOBS_REQUEST:
			on_jobs(c, m->jobs_request);
			return;
		case ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST:
			on_history(c, m->history_request);
			return;
		case ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST:
			on_cancel(c, m->cancel_request);
			return;
		case ASTEAL__ENVELOPE__MSG_LAUNCH:
			on_launch(c, m->launch);
			return;
		case ASTEAL__ENVELOPE__MSG_JOB_EXIT:
			on_job_exit(c, m->job_exit);
			return;
		case ASTEAL__ENVELOPE__MSG_WAIT_REQUEST:
			on_wait(c, m->wait_request);
			return;
		default:
			break;
		}
	}
	snprintf(why, sizeof(why), "unexpected %s from a %s", frame_name(m),
	         c->role == CONN_JOB ? "job" : "client");
	conn_fail(c, ASTEAL__ERROR_CODE__UNEXPECTED, why);
}

/* The first bytes of a stream announce a frame over the limit: say so and
 * close. */
static void fail_too_large(struct conn *c, const uint8_t *hdr)
{
	char why[FRAME_WHY_LEN];

	snprintf(why, sizeof(why), "a frame of %lu bytes is over the "
	         "limit of %u", (unsigned long)hdr[0] << 24 | (unsigned long)hdr[1] << 16 |
	         (unsigned long)hdr[2] << 8 | hdr[3], PROTO_MAX_FRAME);
	conn_fail(c, ASTEAL__ERROR_CODE__TOO_LARGE, why);
}

/* Handle a frame that frame_decode turned into m (NULL: it failed, with
 * errno and the reason in why). */
static void take_message(struct conn *c, Asteal__Envelope *m, const char *why)
{
	if (m == NULL) {
		conn_fail(c, frame_error_code(errno), why);
		return;
	}
	dispatch(c, m);         /* may close c (freed later, not now) */
	frame_free(m);
}

/* Take every whole frame in an input buffer. */
static void take_frames(struct conn *c, struct evbuffer *in)
{
	while (!c->closing) {
		uint8_t hdr[PROTO_HEADER_LEN];
		size_t avail = evbuffer_get_length(in), flen = 0;
		Asteal__Envelope *m;
		char why[FRAME_WHY_LEN];
		int r;

		evbuffer_copyout(in, hdr, avail < sizeof(hdr) ? avail : sizeof(hdr));
		r = frame_peek(hdr, avail < sizeof(hdr) ? avail : sizeof(hdr), &flen);
		if (r < 0) {
			fail_too_large(c, hdr);
			return;
		}
		if (avail < PROTO_HEADER_LEN || avail < flen)
			return;         /* wait for the rest */
		m = frame_decode(evbuffer_pullup(in, (ssize_t)flen) + PROTO_HEADER_LEN,
		                 flen - PROTO_HEADER_LEN, why, sizeof(why));
		evbuffer_drain(in, flen);
		take_message(c, m, why);
	}
}

/* Keep the start of a frame a job sent (n bytes at p) for its next read:
 * 0, or -1 when out of memory (the job is then disconnected). */
static int keep_partial(struct conn *c, const void *p, size_t n)
{
	if ((c->pend == NULL && (c->pend = evbuffer_new()) == NULL) ||
	    evbuffer_add(c->pend, p, n) < 0) {
		log_error("out of memory reading from pid %d", (int)c->pid);
		conn_fail(c, ASTEAL__ERROR_CODE__INTERNAL, "out of memory");
		return -1;
	}
	return 0;
}

/* Bytes arrived in the bufferevent's input: take every whole frame. */
static void on_read(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t left;

	take_frames(c, in);
	/* A job that just switched to its own reader (use_job_reader, from
	 * its Hello) may have sent part of its next frame already: it goes
	 * on in c->pend.  (Only libevent may add to a bufferevent's input.) */
	left = evbuffer_get_length(in);
	if (c->rd != NULL && !c->closing && left > 0) {
		if ((c->pend == NULL && (c->pend = evbuffer_new()) == NULL) ||
		    evbuffer_remove_buffer(in, c->pend, left) != (int)left) {
			log_error("out of memory reading from pid %d", (int)c->pid);
			conn_fail(c, ASTEAL__ERROR_CODE__INTERNAL, "out of memory");
		}
	}
}

/* Read a varint at *p (before end) into *v, moving *p past it: 0, or -1
 * when it is longer than 10 bytes or runs past end. */
static int feedback_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	int i;

	for (i = 0; i < 10 && *p < end; i++) {
		uint8_t b = *(*p)++;

		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* Decode a frame body that is an Envelope holding a Feedback written the
 * plain way (one-byte tags of Feedback's own fields with their wire
 * types, nothing else) into *fb: 1, or 0 when the body is anything else,
 * to be left to frame_decode.  A job sends one Feedback per quantum, and
 * the generic path costs an unpack that allocates, a scan for unknown
 * fields and a free.  Values are those protobuf-c's unpack gives (the
 * last of repeated fields, the low 32 bits for 32-bit fields); whatever
 * this does not recognise, frame_decode judges, so the accepted and the
 * refused inputs and the Errors are the same as before. */
static int decode_feedback(const uint8_t *p, size_t len, Asteal__Feedback *fb)
{
	const uint8_t *end = p + len;
	uint64_t v;

	/* Envelope field 11 (feedback), length-delimited, filling the rest */
	if (len < 2 || *p++ != (11 << 3 | 2) ||
	    feedback_varint(&p, end, &v) < 0 || v != (uint64_t)(end - p))
		return 0;
	while (p < end) {
		uint8_t tag = *p++;

		if (tag == (3 << 3 | 1)) {              /* desire_real, fixed64 */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
			return 0;       /* the wire is little endian */
#endif
			if (end - p < 8)
				return 0;
			memcpy(&fb->desire_real, p, 8);
			p += 8;
			continue;
		}
		if ((tag & 7) != 0 || (tag >> 3) < 1 || (tag >> 3) > 8 ||
		    (tag >> 3) == 3 || feedback_varint(&p, end, &v) < 0)
			return 0;
		switch (tag >> 3) {
		case 1: fb->quantum = v; break;
		case 2: fb->desire = (uint32_t)v; break;
		case 4: fb->work_ns = v; break;
		case 5: fb->steal_ns = v; break;
		case 6: fb->mug_ns = v; break;
		case 7: fb->allotted_ns = v; break;
		default: fb->quantum_class = (Asteal__QuantumClass)(int32_t)(uint32_t)v; break;
		}
	}
	return 1;
}

/* A job's socket is readable (the job's own read event, see
 * use_job_reader): read what is there with one recv() and take every whole
 * frame straight from it. */
static void on_job_readable(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	uint8_t buf[16384];
	size_t at = 0;
	ssize_t n;

	(void)what;
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		/* End of stream or an error: what the bufferevent reported
		 * through on_event before. */
		if (n < 0 && !c->closing)
			log_info("peer pid %d: %s", (int)c->pid,
			         evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		conn_free(c);
		return;
	}
	/* Bytes left from an earlier read (part of a frame) go first: then
	 * the new ones join them. */
	if (c->pend != NULL && evbuffer_get_length(c->pend) > 0) {
		if (keep_partial(c, buf, (size_t)n) == 0)
			take_frames(c, c->pend);
		return;
	}
	while (!c->closing) {
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
		Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;
		size_t flen = 0;
		int r = frame_peek(buf + at, (size_t)n - at, &flen);

		if (r < 0) {
			fail_too_large(c, buf + at);
			return;
		}
		if (r == 0) {
			if (at < (size_t)n)
				keep_partial(c, buf + at, (size_t)n - at);
			return;
		}
		if (decode_feedback(buf + at + PROTO_HEADER_LEN,
		                    flen - PROTO_HEADER_LEN, &fb)) {
			env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
			env.feedback = &fb;
			dispatch(c, &env);
		} else {
			char why[FRAME_WHY_LEN];
			Asteal__Envelope *m = frame_decode(buf + at + PROTO_HEADER_LEN,
			                                   flen - PROTO_HEADER_LEN, why,
			                                   sizeof(why));
			take_message(c, m, why);
		}
		at += flen;
	}
}

/* A job answers every tick, so its reads are the daemon's most frequent
 * event.  The bufferevent asks the kernel how much is readable (an ioctl)
 * before every read and copies through its buffer chain; the job's own
 * read event does one recv() into the stack and decodes from there.  The
 * bufferevent keeps writing. */
static void use_job_reader(struct conn *c)
{
	c->rd = event_new(c->ctl->base, c->fd, EV_READ | EV_PERSIST,
	                  on_job_readable, c);
	if (c->rd == NULL || event_add(c->rd, NULL) < 0) {
		if (c->rd != NULL)
			event_free(c->rd);
		c->rd = NULL;           /* the bufferevent goes on reading */
		return;
	}
	bufferevent_disable(c->bev, EV_READ);
}

/* The peer closed, failed or timed out. */
static void on_event(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	(void)bev;
	if (what & BEV_EVENT_TIMEOUT)
		log_warn("peer pid %d (uid %d): %s", (int)c->pid, (int)c->uid,
		         c->closing ? "does not read its error: dropped"
		                    : "no hello in time: disconnected");
	else if ((what & BEV_EVENT_ERROR) && !c->closing)
		log_info("peer pid %d: %s", (int)c->pid,
		         evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
	conn_free(c);
}

/* A new connection: learn who it is, wait for its Hello. */
static void on_accept(struct evconnlistener *l, evutil_socket_t fd,
                      struct sockaddr *sa, int salen, void *arg)
{
	struct control *ctl = arg;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct timeval hello = { CONTROL_HELLO_TIMEOUT_S, 0 };
	struct conn *c;

	(void)l;
	(void)sa;
	(void)salen;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		log_warn("accept: SO_PEERCRED: %s", strerror(errno));
		evutil_closesocket(fd);
		return;
	}
	if (ctl->nconns >= ctl->conf->max_jobs + ctl->conf->max_clients + 16) {
		log_warn("accept: connection limit reached: pid %d refused", (int)cred.pid);
		evutil_closesocket(fd);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL ||
	    (c->free_ev = event_new(ctl->base, -1, 0, on_free, c)) == NULL ||
	    (c->bev = bufferevent_socket_new(ctl->base, fd, BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		log_error("accept: out of memory");
		if (c != NULL && c->free_ev != NULL)
			event_free(c->free_ev);
		free(c);
		evutil_closesocket(fd);
		return;
	}
	c->ctl = ctl;
	c->fd = fd;
	c->uid = cred.uid;
	c->pid = cred.pid;
	c->serial = ++ctl->serials;
	c->next = ctl->conns;
	if (ctl->conns != NULL)
		ctl->conns->prev = c;
	ctl->conns = c;
	ctl->nconns++;
	bufferevent_setcb(c->bev, on_read, on_write, on_event, c);
	bufferevent_set_timeouts(c->bev, &hello, NULL);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	log_debug("connection from pid %d uid %d", (int)cred.pid, (int)cred.uid);
}

/* Bind our own socket at path, refusing a live daemon's and replacing a
 * stale one: the fd, or -1 with a reason. */
static int bind_socket(const char *path, int mode, char *why, size_t whylen)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(why, whylen, "%s exists and is not a socket", path);
			return -1;
		}
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			close(fd);
			snprintf(why, whylen, "%s is in use by a running daemon", path);
			return -1;
		}
		if (fd >= 0)
			close(fd);
		log_info("replacing the stale socket %s", path);
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, (mode_t)mode) < 0 || listen(fd, 128) < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Listen on systemd's socket or our own. */
struct control *control_create(struct event_base *base, const struct conf *c,
                               char *why, size_t whylen)
{
	struct control *ctl = calloc(1, sizeof(*ctl));
	int n = sd_listen_fds(1), fd;

	if (ctl == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	ctl->base = base;
	ctl->conf = c;
	if (n > 1) {
		snprintf(why, whylen, "systemd passed %d sockets, expected one", n);
		free(ctl);
		return NULL;
	}
	if (n == 1 && sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1, NULL, 0) > 0) {
		fd = SD_LISTEN_FDS_START;
		evutil_make_socket_nonblocking(fd);
		log_info("listening on the socket systemd passed");
	} else {
		fd = bind_socket(c->socket, c->socket_mode, why, whylen);
		if (fd < 0) {
			free(ctl);
			return NULL;
		}
		ctl->bound = 1;
		log_info("listening on %s", c->socket);
	}
	ctl->listener = evconnlistener_new(base, on_accept, ctl,
	                                   LEV_OPT_CLOSE_ON_FREE, -1, fd);
	if (ctl->listener == NULL) {
		snprintf(why, whylen, "cannot listen: %s", strerror(errno));
		close(fd);
		free(ctl);
		return NULL;
	}
	return ctl;
}

/* Connect the control to the scheduler and history: -1 when out of
 * memory. */
int control_attach(struct control *ctl, struct sched *s, struct history *h)
{
	ctl->sched = s;
	ctl->hist = h;
	ctl->launch = launch_create(s, h);
	return ctl->launch != NULL ? 0 : -1;
}

/* Close every connection and the listener. */
void control_free(struct control *ctl)
{
	if (ctl == NULL)
		return;
	ctl->stopping = 1;
	while (ctl->conns != NULL)
		conn_free(ctl->conns);
	launch_free(ctl->launch);
	evconnlistener_free(ctl->listener);
	if (ctl->bound)
		unlink(ctl->conf->socket);
	free(ctl);
}

/* Command-line connections now. */
int control_clients(const struct control *ctl)
{
	return ctl->nclients;
}
