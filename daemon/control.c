/*
 * control.c - asteald's control socket (see control.h).
 *
 * Every connection starts in the handshake: the first frame must be a
 * Hello with our protocol version, within CONTROL_HELLO_TIMEOUT_S.  A JOB
 * is then registered with the scheduler and answers ticks; a CLIENT sends
 * requests and gets one reply each.  A peer that sends an unknown or
 * unexpected message or a wrong version gets an Error and is disconnected
 * after it is written (conn_fail).  Reading, framing and sending are
 * conn.c's: each connection hands its decoded messages to dispatch here.
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

#include <event2/event.h>
#include <event2/listener.h>
#include <systemd/sd-daemon.h>

#include "asteal.h"
#include "conf.h"
#include "conn.h"
#include "control.h"
#include "frame.h"
#include "history.h"
#include "launch.h"
#include "log.h"
#include "scheduler.h"

#define DAEMON_VERSION "asteald " ASTEAL_VERSION

enum peer_role { PEER_HELLO, PEER_JOB, PEER_CLIENT };

/* What the control knows of a connection (its handler's argument). */
struct peer {
	struct control *ctl;
	struct conn *conn;
	int role;
	struct sched_job *job;
	uint64_t serial;
	struct peer *prev, *next;
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
	struct peer *peers;
	int nconns, nclients;
	uint64_t serials;
};

/* A job's connection is going: its CPUs go back at the next tick, and it
 * ends unless its supervisor has yet to report. */
static void peer_drop_job(struct peer *p)
{
	uint64_t id;

	if (p->job == NULL)
		return;
	if (p->ctl->stopping) {         /* sched_free keeps its row open */
		p->job = NULL;
		return;
	}
	id = sched_job_id(p->job);
	sched_job_remove(p->ctl->sched, p->job);
	p->job = NULL;
	launch_job_left(p->ctl->launch, id);
}

/* conn_fail is disconnecting a peer: a job leaves the scheduler now. */
static void peer_failed(struct conn *c, void *arg)
{
	(void)c;
	peer_drop_job(arg);
}

/* A connection is being freed: forget its peer. */
static void peer_gone(struct conn *c, void *arg)
{
	struct peer *p = arg;
	struct control *ctl = p->ctl;

	peer_drop_job(p);
	if (p->role == PEER_CLIENT) {
		if (!ctl->stopping)
			launch_conn_gone(ctl->launch, c);
		ctl->nclients--;
		sched_set_clients(ctl->sched, ctl->nclients);
	}
	if (p->prev != NULL)
		p->prev->next = p->next;
	else
		ctl->peers = p->next;
	if (p->next != NULL)
		p->next->prev = p->prev;
	ctl->nconns--;
	free(p);
}

/* Send an Error reply and keep the connection (a request that failed). */
static void reply_error(struct conn *c, Asteal__ErrorCode code, const char *why)
{
	Asteal__Envelope env;
	Asteal__Error err;

	frame_error(&env, &err, code, why);
	conn_send(c, &env);
}

/* The handshake: Hello with our version, then Welcome. */
static void on_hello(struct peer *p, const Asteal__Envelope *m)
{
	struct control *ctl = p->ctl;
	struct conn *c = p->conn;
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
		    launch_claim(ctl->launch, claim, conn_uid(c), conn_pid(c), why,
		                 sizeof(why)) < 0) {
			log_info("pid %d: claim refused, registered anew: %s",
			         (int)conn_pid(c), why);
			claim = 0;
		}
		p->job = sched_job_add(ctl->sched, c, h, conn_uid(c), conn_pid(c),
		                       claim, why, sizeof(why));
		if (p->job == NULL) {
			if (claim != 0)
				launch_job_left(ctl->launch, claim);
			conn_fail(c, ASTEAL__ERROR_CODE__BUSY, why);
			return;
		}
		p->role = PEER_JOB;
		id = sched_job_id(p->job);
		conn_use_job_reader(c);
	} else if (h->role == ASTEAL__ROLE__CLIENT) {
		if (ctl->nclients >= ctl->conf->max_clients) {
			conn_fail(c, ASTEAL__ERROR_CODE__BUSY, "too many clients");
			return;
		}
		p->role = PEER_CLIENT;
		ctl->nclients++;
		sched_set_clients(ctl->sched, ctl->nclients);
	} else {
		conn_fail(c, ASTEAL__ERROR_CODE__INVALID, "hello: unknown role");
		return;
	}
	conn_hello_done(c);
	for (i = 0; i < ctl->conf->ncpus; i++)
		cpus[i] = (uint32_t)ctl->conf->cpus[i];
	frame_welcome(&env, &w, id, (uint32_t)ctl->conf->quantum_us, cpus,
	              (size_t)ctl->conf->ncpus, DAEMON_VERSION);
	conn_send(c, &env);
}

/* A Status request. */
static void on_status(struct conn *c, struct sched *s)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Status st = ASTEAL__STATUS__INIT;

	sched_status(s, &st);
	st.daemon_version = (char *)DAEMON_VERSION;
	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS;
	env.status = &st;
	conn_send(c, &env);
}

/* A Jobs request. */
static void on_jobs(struct conn *c, struct sched *s, struct launch *l,
                    const Asteal__JobsRequest *r)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Jobs jobs;

	if (sched_jobs(s, r->ids, r->n_ids, &jobs) < 0 ||
	    launch_jobs(l, r->ids, r->n_ids, &jobs) < 0) {
		reply_error(c, ASTEAL__ERROR_CODE__INTERNAL, "out of memory");
		return;
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS;
	env.jobs = &jobs;
	conn_send(c, &env);
	sched_jobs_free(&jobs);
}

/* A Cancel request: only the job's owner or root. */
static void on_cancel(struct conn *c, struct sched *s, struct launch *l,
                      const Asteal__CancelRequest *r)
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
	r2 = launch_cancel(l, r->job_id, conn_uid(c), sig, why, sizeof(why));
	if (r2 > 1) {
		reply_error(c, (Asteal__ErrorCode)r2, why);
		return;
	}
	if (r2 == 0 && sched_cancel(s, r->job_id, conn_uid(c), sig) < 0) {
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
	conn_send(c, &env);
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
static void on_history(struct conn *c, struct history *hist,
                       const Asteal__HistoryRequest *r)
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
		if (history_query(hist, &f, hist_job, NULL, &p) < 0)
			goto fail;
		if ((int64_t)p.h.n_jobs > limit) {
			p.h.more = 1;
			p.h.n_jobs--;
			free(p.h.jobs[p.h.n_jobs]->name);
			free(p.h.jobs[p.h.n_jobs]->command);
			free(p.h.jobs[p.h.n_jobs]);
		}
	} else {
		if (history_query(hist, &f, NULL, hist_run, &p) < 0)
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
			if (history_query(hist, &fj, hist_job, NULL, &p) < 0)
				goto fail;
		}
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY;
	env.history = &p.h;
	conn_send(c, &env);
	hist_free(&p);
	return;
fail:
	hist_free(&p);
	reply_error(c, ASTEAL__ERROR_CODE__INTERNAL, history_error(hist));
}

/* A Launch: the job's id, at once. */
static void on_launch(struct conn *c, struct launch *l, const Asteal__Launch *m)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Launched rep = ASTEAL__LAUNCHED__INIT;
	Asteal__ErrorCode e;
	char why[160];

	e = launch_begin(l, c, conn_uid(c), m, &rep.job_id, why, sizeof(why));
	if (e != 0) {
		reply_error(c, e, why);
		return;
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_LAUNCHED;
	env.launched = &rep;
	conn_send(c, &env);
}

/* A JobExit from a supervisor: Ok comes when the job has ended. */
static void on_job_exit(struct conn *c, struct launch *l,
                        const Asteal__JobExit *m)
{
	Asteal__ErrorCode e;
	char why[160];

	e = launch_exit(l, c, conn_uid(c), m, why, sizeof(why));
	if (e != 0)
		reply_error(c, e, why);
}

/* A WaitRequest: answered when the job ends. */
static void on_wait(struct conn *c, struct launch *l,
                    const Asteal__WaitRequest *m)
{
	Asteal__ErrorCode e;
	char why[160];

	e = launch_wait(l, c, m->job_id, why, sizeof(why));
	if (e != 0)
		reply_error(c, e, why);
}

/* One decoded message from a peer (conn's message handler). */
static void dispatch(struct conn *c, const Asteal__Envelope *m, void *arg)
{
	struct peer *p = arg;
	struct control *ctl = p->ctl;
	char why[128];

	if (p->role == PEER_HELLO) {
		on_hello(p, m);
		return;
	}
	if (p->role == PEER_JOB && m->msg_case == ASTEAL__ENVELOPE__MSG_FEEDBACK) {
		sched_feedback(ctl->sched, p->job, m->feedback);
		return;
	}
	if (p->role == PEER_CLIENT) {
		switch (m->msg_case) {
		case ASTEAL__ENVELOPE__MSG_STATUS_REQUEST:
			on_status(c, ctl->sched);
			return;
		case ASTEAL__ENVELOPE__MSG_JOBS_REQUEST:
			on_jobs(c, ctl->sched, ctl->launch, m->jobs_request);
			return;
		case ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST:
			on_history(c, ctl->hist, m->history_request);
			return;
		case ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST:
			on_cancel(c, ctl->sched, ctl->launch, m->cancel_request);
			return;
		case ASTEAL__ENVELOPE__MSG_LAUNCH:
			on_launch(c, ctl->launch, m->launch);
			return;
		case ASTEAL__ENVELOPE__MSG_JOB_EXIT:
			on_job_exit(c, ctl->launch, m->job_exit);
			return;
		case ASTEAL__ENVELOPE__MSG_WAIT_REQUEST:
			on_wait(c, ctl->launch, m->wait_request);
			return;
		default:
			break;
		}
	}
	snprintf(why, sizeof(why), "unexpected %s from a %s", frame_name(m),
	         p->role == PEER_JOB ? "job" : "client");
	conn_fail(c, ASTEAL__ERROR_CODE__UNEXPECTED, why);
}

/* What a connection hands the control. */
static const struct conn_handler peer_handler = {
	.message = dispatch,
	.failed = peer_failed,
	.gone = peer_gone,
};

/* A new connection: learn who it is, wait for its Hello. */
static void on_accept(struct evconnlistener *l, evutil_socket_t fd,
                      struct sockaddr *sa, int salen, void *arg)
{
	struct control *ctl = arg;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct peer *p;

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
	p = calloc(1, sizeof(*p));
	if (p == NULL ||
	    (p->conn = conn_create(ctl->base, fd, cred.uid, cred.pid,
	                           CONTROL_HELLO_TIMEOUT_S, &peer_handler, p)) == NULL) {
		log_error("accept: out of memory");
		free(p);
		evutil_closesocket(fd);
		return;
	}
	p->ctl = ctl;
	p->serial = ++ctl->serials;
	p->next = ctl->peers;
	if (ctl->peers != NULL)
		ctl->peers->prev = p;
	ctl->peers = p;
	ctl->nconns++;
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
	while (ctl->peers != NULL)
		conn_free(ctl->peers->conn);
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
