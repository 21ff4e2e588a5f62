/*
 * control.c - asteald's control socket (see control.h).
 *
 * Every connection starts in the handshake: the first frame must be a
 * Hello with our protocol version, within --hello-timeout-ms.  A JOB
 * is then registered with the scheduler and answers ticks; a CLIENT sends
 * requests and gets one reply each.  A peer that sends an unknown or
 * unexpected message or a wrong version gets an Error and is disconnected
 * after it is written (conn_fail).  Reading, framing and sending are
 * conn.c's: each connection hands its decoded messages to dispatch here.
 * Whether a peer may connect, take a role, make a job row or hold more
 * input is admit.c's: each peer holds its ticket, and the control asks
 * before each step.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "admit.h"
#include "asteal.h"
#include "conf.h"
#include "conn.h"
#include "exchange.h"
#include "control.h"
#include "fdlater.h"
#include "frame.h"
#include "histreader.h"
#include "launch.h"
#include "log.h"
#include "request.h"
#include "scheduler.h"

/* A peer's role: the place its ticket holds. */
enum peer_role {
	PEER_HELLO = ADMIT_HELLO, PEER_JOB = ADMIT_JOB, PEER_CLIENT = ADMIT_CLIENT
};

/* What the control knows of a connection (its handler's argument). */
struct peer {
	struct control *ctl;
	struct conn *conn;
	int role;                      /* enum peer_role */
	struct sched_job *job;         /* a JOB's, until it is dropped */
	struct admit_ticket *ticket;   /* its place, as admission counts it */
	struct admit_charge page_fds;  /* a JOB's page eventfd, held */
	uint64_t serial;
	struct peer *prev, *next;
};

struct control {
	struct event_base *base;
	const struct conf *conf;
	struct sched *sched;
	struct history *hist;
	struct histreader *reader;     /* builds History pages off the loop */
	struct launch *launch;
	struct evconnlistener *listener;
	int bound;                     /* we bound the path (unlink at exit) */
	int stopping;                  /* control_free: jobs outlive us */
	struct peer *peers;
	struct admit *admit;           /* who may connect, and their counts */
	int spare_fd;                  /* closed to shed a connection when out
	                                  of descriptors, then taken again */
	int pause_ms;                  /* accepting paused that long after the
	                                  last failure for lack of them */
	struct event *resume_ev;       /* accepting again after a pause */
	uint64_t serials;
	struct conn_batch *jobs;       /* the jobs' connections past Hello */
	struct event *jobs_ev;         /* reads them as input comes, while a
	                                  grant waits (--handover release)
	                                  or a CPU is free */
	int jobs_urgent;               /* ... that is now (jobs_urgent) */
	int jobs_watched;              /* jobs_ev is added */
	struct event *hup_ev;          /* reads them when one hangs up */
};

/* Refuse a connection we cannot or will not keep: an Error, written if
 * the socket takes it at once, then close. */
static void refuse(evutil_socket_t fd, Asteal__ErrorCode code, const char *why)
{
	Asteal__Envelope env;
	Asteal__Error err;
	uint8_t buf[512];
	size_t len;

	frame_error(&env, &err, code, why);
	if (frame_encode(&env, buf, sizeof(buf), &len) == 0 &&
	    send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("refused peer: %s", strerror(errno));
	evutil_closesocket(fd);
}

/* A peer takes its place in a new role (counts move with it). */
static void peer_set_role(struct peer *p, int role)
{
	admit_take(p->ctl->admit, p->ticket, (enum admit_role)role);
	p->role = role;
}

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

/* Accepting was paused for lack of descriptors and one is freed: try
 * again at the loop's next turn, once fdlater has closed what waits (a
 * new failure pauses longer). */
static void accept_soon(struct control *ctl)
{
	static const struct timeval soon = { 0, 1 };

	if (ctl->resume_ev != NULL && evtimer_pending(ctl->resume_ev, NULL))
		evtimer_add(ctl->resume_ev, &soon);
}

/* A connection is being freed: forget its peer. */
static void peer_gone(struct conn *c, void *arg)
{
	struct peer *p = arg;
	struct control *ctl = p->ctl;

	peer_drop_job(p);
	admit_fd_give(ctl->admit, &p->page_fds);
	if (p->role == PEER_CLIENT)
		histreader_forget(ctl->reader, c);
	if (p->role == PEER_CLIENT && !ctl->stopping)
		launch_conn_gone(ctl->launch, c);
	admit_leave(ctl->admit, p->ticket);
	accept_soon(ctl);
	if (p->role == PEER_CLIENT)
		sched_set_clients(ctl->sched, admit_clients(ctl->admit));
	if (p->prev != NULL)
		p->prev->next = p->next;
	else
		ctl->peers = p->next;
	if (p->next != NULL)
		p->next->prev = p->prev;
	free(p);
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
	int i, nfd, fds[2];

	if (frame_check_handshake(m, ASTEAL__ENVELOPE__MSG_HELLO, why, sizeof(why)) < 0) {
		conn_fail(c, m->msg_case == ASTEAL__ENVELOPE__MSG_HELLO
		                 ? ASTEAL__ERROR_CODE__BAD_VERSION
		                 : ASTEAL__ERROR_CODE__UNEXPECTED, why);
		return;
	}
	if (h->role == ASTEAL__ROLE__JOB) {
		uint64_t claim = h->job_id;

		/* A field out of range is INVALID (asteal.proto), checked
		 * before the limits and the rate, which it takes nothing of. */
		if (h->workers < 1 || h->workers > SCHED_MAX_WORKERS) {
			snprintf(why, sizeof(why), "hello: workers must be from 1 to "
			         "%d, not %u", SCHED_MAX_WORKERS, h->workers);
			conn_fail(c, ASTEAL__ERROR_CODE__INVALID, why);
			return;
		}
		if (admit_room(ctl->admit, p->ticket, ADMIT_JOB, why, sizeof(why)) < 0 ||
		    (h->job_id == 0 &&
		     admit_job_token(p->ticket, why, sizeof(why)) < 0)) {
			conn_fail(c, ASTEAL__ERROR_CODE__BUSY, why);
			return;
		}
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
		peer_set_role(p, PEER_JOB);
		id = sched_job_id(p->job);
		conn_use_job_reader(c, ctl->jobs);
	} else if (h->role == ASTEAL__ROLE__CLIENT) {
		if (admit_room(ctl->admit, p->ticket, ADMIT_CLIENT, why,
		               sizeof(why)) < 0) {
			conn_fail(c, ASTEAL__ERROR_CODE__BUSY, why);
			return;
		}
		peer_set_role(p, PEER_CLIENT);
		sched_set_clients(ctl->sched, admit_clients(ctl->admit));
	} else {
		conn_fail(c, ASTEAL__ERROR_CODE__INVALID, "hello: unknown role");
		return;
	}
	conn_hello_done(c);
	for (i = 0; i < ctl->conf->ncpus; i++)
		cpus[i] = (uint32_t)ctl->conf->cpus[i];
	frame_welcome(&env, &w, id, (uint32_t)ctl->conf->quantum_us, 0, cpus,
	              (size_t)ctl->conf->ncpus, REQUEST_DAEMON_VERSION);
	if (p->role == PEER_JOB)
		sched_quanta(ctl->sched, &w.t0_ns, &w.heartbeat_ms, &w.offset_us);
	if (p->role == PEER_JOB &&
	    (nfd = sched_job_page_fds(p->job, fds)) > 0) {
		/* The page goes with the Welcome (and its eventfd, charged
		 * to the job's uid for its life); if it cannot, the job
		 * sends messages (its Welcome says so). */
		w.page = 1;
		if (nfd < 2 || admit_fd_room(ctl->admit, p->ticket, 1, why,
		                             sizeof(why)) == 0) {
			if (conn_send_fd(c, &env, fds, nfd) == 0) {
				if (nfd == 2)
					admit_fd_take(ctl->admit, p->ticket, 1,
					              &p->page_fds);
				sched_job_page_sent(ctl->sched, p->job, 1);
				sched_job_grant(ctl->sched, p->job);
				return;
			}
			snprintf(why, sizeof(why), "%s", strerror(errno));
		}               /* else no room for its eventfd: why says */
		log_warn("job %llu: its page could not be sent (%s): it sends "
		         "messages", (unsigned long long)id, why);
		sched_job_page_sent(ctl->sched, p->job, 0);
		w.page = 0;
	}
	conn_send(c, &env);
	if (p->role == PEER_JOB)        /* after its Welcome: CPUs free now */
		sched_job_grant(ctl->sched, p->job);
}

/* A client's request: answered (1), or not a request (0). */
static int client_request(struct peer *p, struct conn *c,
                          const Asteal__Envelope *m)
{
	struct control *ctl = p->ctl;
	char why[128];

	switch (m->msg_case) {
	case ASTEAL__ENVELOPE__MSG_STATUS_REQUEST:
		request_status(c, ctl->sched);
		return 1;
	case ASTEAL__ENVELOPE__MSG_JOBS_REQUEST:
		request_jobs(c, ctl->sched, ctl->launch, m->jobs_request,
		             ctl->conf->private_history);
		return 1;
	case ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST:
		request_history(c, ctl->reader, m->history_request,
		                ctl->conf->private_history);
		return 1;
	case ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST:
		request_cancel(c, ctl->sched, ctl->launch, m->cancel_request);
		return 1;
	case ASTEAL__ENVELOPE__MSG_LAUNCH:
		if (admit_job_token(p->ticket, why, sizeof(why)) < 0) {
			request_error(c, ASTEAL__ERROR_CODE__BUSY, why);
			return 1;
		}
		request_launch(c, ctl->launch, p->ticket, m->launch);
		return 1;
	case ASTEAL__ENVELOPE__MSG_JOB_EXIT:
		request_job_exit(c, ctl->launch, m->job_exit);
		return 1;
	case ASTEAL__ENVELOPE__MSG_WAIT_REQUEST:
		request_wait(c, ctl->launch, m->wait_request,
		             ctl->conf->private_history);
		return 1;
	default:
		return 0;
	}
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
		struct exchange_feedback f;

		if (exchange_feedback_take(&f, m->feedback, why, sizeof(why)) < 0)
			sched_feedback_refused(ctl->sched, p->job, why);
		else
			sched_feedback(ctl->sched, p->job, &f);
		return;
	}
	if (p->role == PEER_JOB && m->msg_case == ASTEAL__ENVELOPE__MSG_RELEASED) {
		sched_released(ctl->sched, p->job, m->released->quantum,
		               m->released->parked_ns);
		return;
	}
	if (p->role == PEER_JOB && m->msg_case == ASTEAL__ENVELOPE__MSG_PAGE_DECLINED) {
		if (sched_job_page_declined(ctl->sched, p->job, m->page_declined->why))
			admit_fd_give(ctl->admit, &p->page_fds);
		return;
	}
	if (p->role == PEER_CLIENT) {
		/* Every reply, the answer or an Error, names the request. */
		conn_set_reply(c, m->request_id);
		if (client_request(p, c, m)) {
			conn_set_reply(c, 0);
			return;
		}
	}
	snprintf(why, sizeof(why), "unexpected %s from a %s", frame_name(m),
	         p->role == PEER_JOB ? "job" : "client");
	conn_fail(c, ASTEAL__ERROR_CODE__UNEXPECTED, why);
}

/* A Feedback a job's reader decoded by hand: straight to the scheduler
 * from a job (the common case); from anyone else, what dispatch says of
 * it. */
static void dispatch_feedback(struct conn *c, const struct exchange_feedback *fb,
                              void *arg)
{
	struct peer *p = arg;
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	struct exchange_feedback_pb m;

	if (p->role == PEER_JOB) {
		sched_feedback(p->ctl->sched, p->job, fb);
		return;
	}
	exchange_feedback_msg(&m, fb);
	env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
	env.feedback = &m.m;
	dispatch(c, &env, arg);
}

/* A connection holds delta more bytes of input (fewer when negative):
 * counted against its uid's budget (admit.c), which may refuse it. */
static int peer_input(struct conn *c, long delta, char *why, size_t whylen,
                      void *arg)
{
	struct peer *p = arg;

	(void)c;
	return admit_input(p->ctl->admit, p->ticket, delta, why, whylen);
}

/* A connection has delta more bytes of replies waiting to be read:
 * counted against its uid's budget (admit.c), which may refuse them. */
static int peer_output(struct conn *c, long delta, char *why, size_t whylen,
                       void *arg)
{
	struct peer *p = arg;

	(void)c;
	return admit_output(p->ctl->admit, p->ticket, delta, why, whylen);
}

/* What a connection hands the control. */
static const struct conn_handler peer_handler = {
	.message = dispatch,
	.feedback = dispatch_feedback,
	.input = peer_input,
	.output = peer_output,
	.failed = peer_failed,
	.gone = peer_gone,
};

/* Take a connection from who on fd (accepted, or handed over): wait for
 * its Hello, or refuse it. */
int control_adopt(struct control *ctl, int fd, const struct conn_peer *who)
{
	struct peer *p;
	Asteal__ErrorCode code = ASTEAL__ERROR_CODE__INTERNAL;
	char why[160];

	snprintf(why, sizeof(why), "out of memory");
	p = calloc(1, sizeof(*p));
	if (p == NULL || (p->ticket = admit_enter(ctl->admit, fd, who)) == NULL)
		goto refused;
	if (admit_room(ctl->admit, p->ticket, ADMIT_HELLO, why, sizeof(why)) < 0) {
		code = ASTEAL__ERROR_CODE__BUSY;
		goto refused;
	}
	p->conn = conn_create(ctl->base, fd, who, ctl->conf->hello_timeout_ms,
	                      &peer_handler, p);
	if (p->conn == NULL)
		goto refused;
	p->ctl = ctl;
	peer_set_role(p, PEER_HELLO);
	p->serial = ++ctl->serials;
	p->next = ctl->peers;
	if (ctl->peers != NULL)
		ctl->peers->prev = p;
	ctl->peers = p;
	log_debug("connection from pid %d uid %d", (int)who->pid, (int)who->uid);
	return 0;
refused:
	log_warn("accept: pid %d uid %d refused: %s", (int)who->pid,
	         (int)who->uid, why);
	if (p != NULL)
		admit_leave(ctl->admit, p->ticket);
	free(p);
	refuse(fd, code, why);
	if (who->pidfd >= 0)
		close(who->pidfd);
	return -1;
}

/* A new connection: learn who it is, wait for its Hello. */
static void on_accept(struct evconnlistener *l, evutil_socket_t fd,
                      struct sockaddr *sa, int salen, void *arg)
{
	struct control *ctl = arg;
	struct conn_peer who;
	char why[160];

	(void)l;
	(void)sa;
	(void)salen;
	ctl->pause_ms = 0;
	if (conn_peer_of(fd, &who, why, sizeof(why)) < 0) {
		log_warn("accept: %s", why);
		refuse(fd, ASTEAL__ERROR_CODE__BUSY, why);
		return;
	}
	control_adopt(ctl, fd, &who);
}

/* Accepting again after a pause for lack of descriptors. */
static void on_resume(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;

	(void)fd;
	(void)what;
	evconnlistener_enable(ctl->listener);
}

/* accept() failed.  Out of descriptors (or memory), the pending
 * connection stays in the backlog and the listener would wake us for it
 * again at once, forever: instead shed it (the spare descriptor makes
 * room to accept and refuse it) and pause accepting, 10 ms, doubling up
 * to 1 s while it lasts. */
static void on_accept_error(struct evconnlistener *l, void *arg)
{
	struct control *ctl = arg;
	int err = EVUTIL_SOCKET_ERROR();
	struct timeval tv;
	evutil_socket_t fd;
	int shed = 0;

	if (err != EMFILE && err != ENFILE && err != ENOBUFS && err != ENOMEM) {
		log_warn("accept: %s", strerror(err));
		return;
	}
	evconnlistener_disable(l);
	if (ctl->spare_fd < 0)
		ctl->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (ctl->spare_fd >= 0) {
		close(ctl->spare_fd);
		fd = accept(evconnlistener_get_fd(l), NULL, NULL);
		if (fd >= 0)
			refuse(fd, ASTEAL__ERROR_CODE__BUSY,
			       "asteald is out of file descriptors");
		ctl->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		shed = fd >= 0;
	}
	ctl->pause_ms = ctl->pause_ms == 0 ? 10
	              : ctl->pause_ms >= 500 ? 1000 : 2 * ctl->pause_ms;
	log_warn("accept: %s: %saccepting paused for %d ms", strerror(err),
	         shed ? "a connection refused, " : "", ctl->pause_ms);
	tv.tv_sec = ctl->pause_ms / 1000;
	tv.tv_usec = (ctl->pause_ms % 1000) * 1000;
	evtimer_add(ctl->resume_ev, &tv);
}

/* Bind our own socket at path, refusing a live daemon's and replacing a
 * stale one: the fd, or -1 with a reason. */
static int bind_socket(const char *path, int mode, char *why, size_t whylen)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd, bound = -1;

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
	/* The mode is the socket's before bind (fchmod), so that the path
	 * never exists with another one, and no chmod by path follows that
	 * someone could point elsewhere; the umask is out of the way just
	 * for the bind (the daemon has no other thread yet). */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0 && fchmod(fd, (mode_t)mode) == 0) {
		mode_t old = umask(0);

		bound = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
		umask(old);
	}
	if (fd < 0 || bound < 0 || listen(fd, 128) < 0) {
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
	ctl->resume_ev = evtimer_new(base, on_resume, ctl);
	ctl->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (ctl->listener == NULL || ctl->resume_ev == NULL ||
	    (ctl->admit = admit_create(c)) == NULL) {
		snprintf(why, whylen, "cannot listen: %s", strerror(errno));
		if (ctl->listener != NULL)
			evconnlistener_free(ctl->listener);
		else
			close(fd);
		if (ctl->resume_ev != NULL)
			event_free(ctl->resume_ev);
		if (ctl->spare_fd >= 0)
			close(ctl->spare_fd);
		free(ctl);
		return NULL;
	}
	evconnlistener_set_error_cb(ctl->listener, on_accept_error);
	return ctl;
}

/* A job hung up: the jobs are read now. */
static void on_jobs_hup(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_batch_read(arg);
}

/* A job said something: read now while the jobs are read as input comes,
 * else (the watch was left in place, jobs_urgent) the watch goes and the
 * input waits for the tick. */
static void on_jobs_input(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;

	(void)fd;
	(void)what;
	if (ctl->jobs_urgent) {
		conn_batch_read(ctl->jobs);
		return;
	}
	event_del(ctl->jobs_ev);
	ctl->jobs_watched = 0;
}

/* Read the jobs as input comes (a grant waits for a Released, or a CPU
 * is free), or only at ticks again.  The watch is not taken off when
 * that ends, but at the input that finds it unwanted: the scheduler turns
 * it on and off around most ticks (a hand-over held, then done), and each
 * epoll_ctl on the jobs' own epoll set walks every job's socket in it
 * (the kernel's loop check of nested sets: 9% of the daemon's CPU at 100
 * jobs).  Jobs that read their allotments in pages seldom speak on their
 * sockets, so the watch mostly stays. */
static void jobs_urgent(void *arg, int on)
{
	struct control *ctl = arg;

	ctl->jobs_urgent = on;
	if (ctl->jobs_ev != NULL && on && !ctl->jobs_watched &&
	    event_add(ctl->jobs_ev, NULL) == 0)
		ctl->jobs_watched = 1;
}

/* Read what the jobs said, now. */
void control_read_jobs(struct control *ctl)
{
	conn_batch_read(ctl->jobs);
}

/* The scheduler's reader: the batch of jobs. */
static void read_ctl_jobs(void *arg)
{
	control_read_jobs(arg);
}

/* Connect the control to the scheduler and history: -1 when out of
 * memory. */
int control_attach(struct control *ctl, struct sched *s, struct history *h)
{
	char why[300];

	ctl->sched = s;
	ctl->hist = h;
	ctl->launch = launch_create(s, h, ctl->base, ctl->admit, ctl->conf);
	ctl->jobs = conn_batch_create();
	ctl->reader = histreader_create(ctl->base, h, ctl->conf->db, why,
	                                sizeof(why));
	if (ctl->launch == NULL || ctl->jobs == NULL || ctl->reader == NULL)
		return -1;
	if (!histreader_threaded(ctl->reader))
		log_info("history pages are built on the event loop: %s", why);
	/* The jobs are read at every tick, just before DEQ: one wake-up a
	 * quantum.  While some CPU is free (a job holding none that asks
	 * takes it at once) or, with --handover release, while a grant
	 * waits for a Released, they are read as their input comes too.
	 * And they are read whenever one hangs up: a job that ended gives
	 * its CPUs back at once, not at the next tick (the scheduler gives
	 * them to a job waiting for one, sched__update_urgent). */
	ctl->jobs_ev = event_new(ctl->base, conn_batch_fd(ctl->jobs),
	                         EV_READ | EV_PERSIST, on_jobs_input, ctl);
	ctl->hup_ev = event_new(ctl->base, conn_batch_hup_fd(ctl->jobs),
	                        EV_READ | EV_PERSIST, on_jobs_hup, ctl->jobs);
	if (ctl->jobs_ev == NULL || ctl->hup_ev == NULL ||
	    event_add(ctl->hup_ev, NULL) < 0)
		return -1;
	sched_set_reader(s, read_ctl_jobs, jobs_urgent, ctl);
	/* Everything the daemon holds for itself is open now. */
	admit_count_base(ctl->admit);
	return 0;
}

/* Close every connection and the listener. */
void control_free(struct control *ctl)
{
	if (ctl == NULL)
		return;
	ctl->stopping = 1;
	while (ctl->peers != NULL)
		conn_free(ctl->peers->conn);
	histreader_free(ctl->reader);   /* its pages' connections are gone */
	fdlater_flush();          /* the sockets' numbers, before the loop goes */
	if (ctl->jobs_ev != NULL)
		event_free(ctl->jobs_ev);
	if (ctl->hup_ev != NULL)
		event_free(ctl->hup_ev);
	conn_batch_free(ctl->jobs);
	launch_free(ctl->launch);
	evconnlistener_free(ctl->listener);
	event_free(ctl->resume_ev);
	if (ctl->spare_fd >= 0)
		close(ctl->spare_fd);
	admit_free(ctl->admit);
	if (ctl->bound)
		unlink(ctl->conf->socket);
	free(ctl);
}

/* Command-line connections now. */
int control_clients(const struct control *ctl)
{
	return admit_clients(ctl->admit);
}

/* The bytes of input the peers hold now, and the most since the last
 * call. */
long control_input(struct control *ctl, long *most)
{
	return admit_input_held(ctl->admit, most);
}
