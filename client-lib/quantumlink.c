/*
 * quantumlink.c - the link thread that runs A-STEAL's quanta inside the
 * job (quantum.c tells one quantum: its boundary, its Feedback, its
 * allotment through the page): its state, made from the environment's
 * settings as the runtime starts (settings.c reads them, profile.c the
 * scripted availability, trace.c writes a row per quantum closed), its
 * loop, its connection to the daemon, and its totals for the job's
 * summary (summary.c, through quantum_totals).
 *
 * A timerfd armed on the quanta's absolute grid (t0, L: the daemon's, or
 * the job's own) fires at every boundary; a boundary the thread missed
 * (it ran late by more than a quantum) is skipped and counted, never
 * queued.  The thread also reads the daemon's messages (an Allot for a
 * job without a page, an Error), the eventfd a root task starting writes
 * (runtime.h, roots_fd), and, without a page, the eventfd the workers an
 * Allot took away write once they have all parked (runtime.h, released),
 * for which it sends Released (the daemon measures revocation latency
 * with it).
 *
 * A job without a daemon (none yet, or it went away) runs on its own grid
 * and watches the socket's folder (sockwatch.c): it connects as a daemon
 * binds the socket, and otherwise retries with a backoff from 0.1 s
 * doubling to 2 s, the fallback when the folder cannot be watched.  It
 * claims its id again with its usage totals since it first joined under
 * it, so that the daemon adds its time away to its history.
 */
#include "quantum_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "allot.h"
#include "link.h"
#include "profile.h"
#include "qtime.h"
#include "settings.h"
#include "sockwatch.h"
#include "trace.h"

#define Q_RETRY_MIN_NS 100000000ull     /* reconnect backoff: 0.1 s ... */
#define Q_RETRY_MAX_NS 2000000000ull    /* ... doubling up to 2 s */
#define Q_RETRY_SOON_NS 2000000ull      /* socket seen, not listening: 2 ms */
#define Q_LINK_SLICE_NS 100000ull       /* the link thread's slice: the
                                           kernel's least (short_slice) */


/* Close *fd if open, and mark it closed. */
static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Free the link's state (the thread has stopped). */
void quantum_free(struct runtime *rt)
{
	struct quantum *qt = rt->quantum;

	if (qt == NULL)
		return;
	trace_close(qt->trace);
	quantum_page_remove(rt);
	link_close(qt->link);
	sockwatch_close(&qt->watch);
	close_fd(&qt->stop_pipe[0]);
	close_fd(&qt->stop_pipe[1]);
	close_fd(&qt->timer_fd);
	close_fd(&rt->released_fd);
	close_fd(&rt->roots_fd);
	pthread_mutex_destroy(&qt->lock);
	profile_free(&qt->profile);
	free(qt->last);
	free(qt);
	rt->quantum = NULL;
}

/* Make the link's state from the environment's settings (settings.c). */
int quantum_config(struct runtime *rt)
{
	struct settings set;
	struct quantum *qt;

	if (settings_mode(&rt->mode) < 0)
		return -1;
	rt->allotment = rt->nworkers;
	if (rt->mode == RT_MODE_STATIC)
		return 0;
	qt = calloc(1, sizeof(*qt));
	if (qt == NULL) {
		errno = ENOMEM;
		return -1;
	}
	rt->quantum = qt;
	qt->rt = rt;
	qt->stop_pipe[0] = qt->stop_pipe[1] = -1;
	sockwatch_init(&qt->watch);
	pthread_mutex_init(&qt->lock, NULL);
	qt->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	rt->released_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rt->roots_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (qt->timer_fd < 0 || rt->released_fd < 0 || rt->roots_fd < 0 ||
	    pipe2(qt->stop_pipe, O_CLOEXEC) < 0) {
		qt->stop_pipe[0] = qt->stop_pipe[1] = -1;
		goto fail;
	}
	if (settings_read(&set, rt->nworkers) < 0)
		goto fail;
	qt->est = set.est;
	qt->length = set.length;
	if (set.profile != NULL && profile_read(&qt->profile, set.profile) < 0)
		goto fail;
	memcpy(qt->socket, set.socket, sizeof(qt->socket));
	qt->claim = set.claim;
	qt->quiet = set.quiet;
	qt->retry_ns = Q_RETRY_MIN_NS;
	qt->sent_desire = -1;
	qt->last = calloc((size_t)rt->nworkers, sizeof(*qt->last));
	if (qt->last == NULL) {
		errno = ENOMEM;
		goto fail;
	}
	if (set.trace != NULL && (qt->trace = trace_open(set.trace)) == NULL)
		goto fail;
	qt->q = 1;
	/* No root task yet: idle (desire 0) until asteal_run starts one. */
	qt->idle = rt->mode == RT_MODE_ASTEAL;
	qt->desire = rt->mode == RT_MODE_ABP ? rt->nworkers : 0.0;
	qt->availability = profile_availability(&qt->profile, rt->nworkers, 1);
	/* With a daemon to join, no worker runs before its first Allot: a
	 * worker started on a CPU DEQ gives another job would have to be
	 * revoked there, among every other starting job's threads. */
	qt->waiting = qt->socket[0] != '\0';
	qt->allotment = qt->waiting ? 0 : quantum__allotment(qt, rt);
	rt->allotment = qt->allotment;
	return 0;
fail:
	{
		int e = errno;
		quantum_free(rt);
		errno = e;
	}
	return -1;
}

/* Arm the timer on the grid (t0, L) for the first boundary after now;
 * returns the quantum in progress at now. */
static uint64_t arm(struct quantum *qt, uint64_t now)
{
	struct itimerspec its;
	uint64_t q = now > qt->t0 ? (now - qt->t0) / qt->length : 0;
	uint64_t next = qt->t0 + (q + 1) * qt->length;

	its.it_value.tv_sec = (time_t)(next / 1000000000u);
	its.it_value.tv_nsec = (long)(next % 1000000000u);
	its.it_interval.tv_sec = (time_t)(qt->length / 1000000000u);
	its.it_interval.tv_nsec = (long)(qt->length % 1000000000u);
	if (timerfd_settime(qt->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0 &&
	    !qt->quiet)
		fprintf(stderr, "asteal: quantum timer: %s\n", strerror(errno));
	return q;
}

/* Say one line on stderr about the link (unless ASTEAL_QUIET). */
static void say(const struct quantum *qt, const char *what, const char *why)
{
	if (!qt->quiet)
		fprintf(stderr, "asteal: %s (%s)\n", what, why);
}

/* The daemon went away: keep the allotment and the grid, schedule
 * locally, retry. */
void quantum__lost_daemon(struct quantum *qt, uint64_t now, const char *why)
{
	say(qt, "lost the daemon: running standalone, will reconnect", why);
	quantum_page_remove(qt->rt);
	link_close(qt->link);
	qt->link = NULL;
	qt->retry_at = now + qt->retry_ns;
	(void)sockwatch_open(&qt->watch, qt->socket);  /* else backoff alone */
	pthread_mutex_lock(&qt->lock);
	qt->job_id = 0;
	pthread_mutex_unlock(&qt->lock);
}

static void from_daemon(struct runtime *rt, struct quantum *qt);

/* Stop waiting for a first Allot that will not come (no daemon): the
 * allotment without one, at once. */
static void stop_waiting(struct runtime *rt, struct quantum *qt, uint64_t now)
{
	if (!qt->waiting)
		return;
	pthread_mutex_lock(&qt->lock);
	quantum__allot_alone(rt, qt, now);
	pthread_mutex_unlock(&qt->lock);
}

/* Try the daemon when it is time to; on success take its quanta: its t0
 * and L, from the boundary now in progress, and tell it our desire. */
static void try_connect(struct runtime *rt, struct quantum *qt, uint64_t now)
{
	struct link_quanta lq;
	struct exchange_feedback fb = { 0 };
	struct usage_totals had = { { 0 } };
	char why[256];

	if (qt->socket[0] == '\0' || qt->link != NULL || now < qt->retry_at)
		return;
	/* Watched before the attempt, so that a daemon binding its socket
	 * after this attempt failed is seen (without a watch: backoff). */
	(void)sockwatch_open(&qt->watch, qt->socket);
	/* Claiming its id again: its usage under it, for its time away. */
	pthread_mutex_lock(&qt->lock);
	if (qt->claim != 0 && qt->claim == qt->id_joined)
		usage_sum_totals(&qt->under_id, &had);
	pthread_mutex_unlock(&qt->lock);
	qt->link = link_connect(qt->socket, rt->nworkers, qt->claim, &had, why,
	                        sizeof(why));
	if (qt->link == NULL) {
		stop_waiting(rt, qt, now);
		qt->retry_at = now + qt->retry_ns;
		qt->retry_ns = qt->retry_ns * 2 > Q_RETRY_MAX_NS ? Q_RETRY_MAX_NS
		                                                 : qt->retry_ns * 2;
		if (errno == ENOSYS) {
			qt->socket[0] = '\0';  /* built without the link */
			sockwatch_close(&qt->watch);
		}
		if (errno == ENOENT || errno == ECONNREFUSED || errno == ENOSYS)
			return;         /* no daemon: standalone, quietly */
		say(qt, "daemon unusable: running standalone", why);
		return;
	}
	link_quanta(qt->link, &lq);
	now = qtime_now_ns();
	if (lq.t0_ns > now) {   /* a grid that has not started: not ours */
		link_close(qt->link);
		qt->link = NULL;
		qt->retry_at = now + qt->retry_ns;
		say(qt, "daemon unusable: running standalone",
		    "its quanta start in the future");
		stop_waiting(rt, qt, now);
		return;
	}
	qt->retry_ns = Q_RETRY_MIN_NS;
	sockwatch_close(&qt->watch);
	qt->claim = link_job_id(qt->link);     /* ours again after a restart */
	qt->heartbeat = lq.heartbeat_ns;
	memset(&qt->since, 0, sizeof(qt->since));
	qt->sent_desire = -1;
	qt->page_written = 1;                   /* d_1, as the daemon counts it */
	qt->closable = 0;
	pthread_mutex_lock(&qt->lock);
	qt->job_id = link_job_id(qt->link);
	if (qt->job_id != qt->id_joined) {      /* a new id: counted anew */
		memset(&qt->under_id, 0, sizeof(qt->under_id));
		qt->id_joined = qt->job_id;
	}
	qt->t0 = lq.t0_ns;
	qt->length = lq.length_ns;
	qt->q = arm(qt, now);
	quantum__feedback_fill(rt, qt, &fb, -1);         /* totals 0: just set */
	pthread_mutex_unlock(&qt->lock);
	/* The daemon starts every job at d_1 = 1: say ours if it differs
	 * (closing the quantum before this one, which has ended).  Not
	 * when idle: a job connects as the runtime starts, before its first
	 * asteal_run, and a desire 0 said now would close that quantum, so
	 * that the wake-up a moment later closes the one running, and the
	 * boundary that ends it cannot report: the job would spend its
	 * first whole quantum on d_1.  The boundary that still finds no
	 * root task says 0 (one quantum of one CPU, at most, held idle). */
	if (fb.desire != 1 && qt->q > 0 && !qt->idle)
		quantum__report(qt, &fb, qt->q - 1, now, 1);
	else
		qt->sent_desire = 1, qt->sent_at = now;
	/* An Allot that came with the Welcome is read already: the socket
	 * will not say so again, and the daemon sends no other while
	 * nothing changes (a job held this way never ran).  With the page,
	 * its allotment is applied as it is installed. */
	from_daemon(rt, qt);
	if (qt->link != NULL)                   /* not lost just now */
		quantum_page_link(rt, qt->link);
}

/* Tell the daemon about the revocations the workers finished. */
static void send_released(struct runtime *rt, struct quantum *qt)
{
	struct rt_released done[RT_REVOKES];
	uint64_t n;
	unsigned i, k;

	if (read(rt->released_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	pthread_mutex_lock(&rt->park_lock);
	k = rt->nreleased;
	memcpy(done, rt->released, k * sizeof(done[0]));
	rt->nreleased = 0;
	pthread_mutex_unlock(&rt->park_lock);
	for (i = 0; i < k && qt->link != NULL; i++)
		if (link_released(qt->link, done[i].tag, done[i].at) < 0)
			quantum__lost_daemon(qt, qtime_now_ns(), "it does not read");
}

/* A root task started while the job had none (roots_fd): start again
 * from d_1 = 1 and tell the daemon at once, closing the quantum before
 * this one, or this one when a Feedback closed that already (the daemon
 * takes one for the quantum in progress; at most one per quantum, so when
 * this one is closed too, the next boundary's report says it). */
static void roots_changed(struct runtime *rt, struct quantum *qt)
{
	struct exchange_feedback fb = { 0 };
	uint64_t n, now, q;
	int woke;

	if (read(rt->roots_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	now = qtime_now_ns();
	pthread_mutex_lock(&qt->lock);
	woke = quantum__wake_up(rt, qt, now);
	q = qt->q;
	quantum__feedback_fill(rt, qt, &fb, -1);         /* no quantum ended */
	pthread_mutex_unlock(&qt->lock);
	if (!woke)
		return;
	quantum__report(qt, &fb, q > 0 && qt->closable < q ? q - 1 : q, now, 0);
}

/* Handle what the daemon sent: an Allot changes the allotment at once
 * (revocation latency counted from when the daemon decided it); an Error
 * is said once in a while. */
static void from_daemon(struct runtime *rt, struct quantum *qt)
{
	static struct link_msg m;       /* one thread at a time: the link
	                                   thread, or quantum_start's caller
	                                   before the link thread exists */
	char why[160];
	int r;

	while ((r = link_next(qt->link, &m, why, sizeof(why))) > 0) {
		if (m.kind == LINK_ALLOT) {
			pthread_mutex_lock(&qt->lock);
			qt->waiting = 0;
			qt->availability = m.availability;
			qt->allotment = m.allotment < 0 ? 0 : m.allotment > rt->nworkers
			                ? rt->nworkers : m.allotment;
			worker_allot(rt, qt->allotment,
			             m.ncpus >= qt->allotment ? m.cpus : NULL,
			             m.decided_ns, m.quantum);
			pthread_mutex_unlock(&qt->lock);
		} else if (m.kind == LINK_ERROR) {
			/* The first, then one in a thousand: a daemon that
			 * refuses our reports says so every quantum. */
			if (qt->errors++ % 1000 == 0)
				say(qt, "the daemon refused a report", m.text);
		}
	}
	if (r < 0)
		quantum__lost_daemon(qt, qtime_now_ns(), why);
}

/* Ask the kernel for a short time slice for the calling thread (Linux
 * 6.12's EEVDF: a SCHED_OTHER thread's sched_runtime), keeping its policy
 * and nice value.  A thread with a shorter slice than the one running
 * preempts it when it wakes; with the default slice the link thread, woken
 * by its boundary or an Allot, waited behind a worker for the next
 * scheduler tick (4 ms at HZ=250), and the revocation it carried with it.
 * Best effort: older kernels refuse or ignore it, and no privilege is
 * needed where it works. */
static void short_slice(void)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof(a), 0) != 0 ||
	    (a.policy != SCHED_OTHER && a.policy != SCHED_BATCH))
		return;
	a.size = sizeof(a);
	a.flags = 0;
	a.runtime = Q_LINK_SLICE_NS;
	(void)syscall(SYS_sched_setattr, 0, &a, 0);  /* refused: the default */
}

/* The daemon's socket appeared (or its watch has news): try at once, then
 * soon (it may be bound but not listening yet), backing off from there. */
static void socket_seen(struct quantum *qt)
{
	if (sockwatch_seen(&qt->watch) == 0)
		return;
	qt->retry_at = qtime_now_ns();
	qt->retry_ns = Q_RETRY_SOON_NS;
}

/* The link thread: a boundary every L on the grid, the daemon's messages,
 * the workers' finished revocations; without a daemon, the socket's
 * folder (sockwatch.c), reconnecting as the socket appears, else with
 * backoff; ends when the stop pipe is written. */
static void *quantum_thread(void *arg)
{
	struct runtime *rt = arg;
	struct quantum *qt = rt->quantum;

	short_slice();
	for (;;) {
		uint64_t now = qtime_now_ns();
		struct pollfd p[5];
		int n = 4, timeout = -1, watching = 0;

		try_connect(rt, qt, now);
		p[0].fd = qt->stop_pipe[0];
		p[1].fd = qt->timer_fd;
		p[2].fd = rt->released_fd;
		p[3].fd = rt->roots_fd;
		if (qt->link != NULL) {
			p[n++].fd = link_fd(qt->link);
		} else if (qt->socket[0] != '\0') {
			timeout = qt->retry_at > now
			          ? (int)((qt->retry_at - now + 999999) / 1000000) : 0;
			if (sockwatch_fd(&qt->watch) >= 0) {
				p[n++].fd = sockwatch_fd(&qt->watch);
				watching = 1;
			}
		}
		for (int i = 0; i < n; i++) {
			p[i].events = POLLIN;
			p[i].revents = 0;
		}
		if (poll(p, (nfds_t)n, timeout) < 0 && errno != EINTR)
			continue;
		if (p[0].revents)
			break;
		if (p[1].revents)
			quantum__boundary(rt, qt);
		if (p[3].revents)
			roots_changed(rt, qt);
		if (n == 5 && p[4].revents && watching)
			socket_seen(qt);
		else if (n == 5 && p[4].revents && qt->link != NULL)
			from_daemon(rt, qt);
		if (p[2].revents)
			send_released(rt, qt);
	}
	return NULL;
}

/* Start the link thread (nothing to do in static mode): the job's own
 * grid, with quantum 1 starting now, then the daemon's if there is one. */
int quantum_start(struct runtime *rt)
{
	struct quantum *qt = rt->quantum;
	int err;

	if (qt == NULL)
		return 0;
	qt->start = qtime_now_ns();
	qt->t0 = qt->start - qt->length;
	qt->q = arm(qt, qt->start);
	try_connect(rt, qt, qt->start);  /* join the daemon from the start */
	err = pthread_create(&qt->thread, NULL, quantum_thread, rt);
	if (err != 0) {
		errno = err;
		return -1;
	}
	qt->running = 1;
	return 0;
}

/* asteal_run started a root task while none was in flight: wake the link
 * thread (nothing to do without one). */
void quantum_root_started(struct runtime *rt)
{
	uint64_t one = 1;

	if (rt->roots_fd >= 0 && write(rt->roots_fd, &one, sizeof(one)) < 0)
		return;         /* the counter is full: a wake-up is pending */
}

/* Stop the link thread and give every worker back (they must see the
 * runtime stop), flushing the trace. */
void quantum_stop(struct runtime *rt)
{
	struct quantum *qt = rt->quantum;

	if (qt != NULL && qt->running) {
		struct exchange_feedback fb = { 0 };
		uint64_t now;
		char c = 1;

		while (write(qt->stop_pipe[1], &c, 1) < 0 && errno == EINTR)
			;
		pthread_join(qt->thread, NULL);
		/* The quantum in progress ends with the runtime: closed, and
		 * its usage told to the daemon before it closes our row. */
		now = qtime_now_ns();
		pthread_mutex_lock(&qt->lock);
		quantum__close(rt, qt, now, &fb);
		pthread_mutex_unlock(&qt->lock);
		quantum__report(qt, &fb, qt->q, now, 1);
		quantum_page_remove(rt);
		link_close(qt->link);           /* the daemon closes our row */
		qt->link = NULL;
		qt->running = 0;
		trace_flush(qt->trace);
	}
	worker_allot(rt, rt->nworkers, NULL, qtime_now_ns(), RT_NO_TAG);
}

/* Copy the link's totals for the summary (summary.c). */
int quantum_totals(struct runtime *rt, struct quantum_totals *t)
{
	struct quantum *qt = rt->quantum;

	if (qt == NULL)
		return -1;
	pthread_mutex_lock(&qt->lock);
	t->quanta = qt->quanta;
	t->skipped = qt->skipped;
	t->sum_allotment = qt->sum_allotment;
	t->total = qt->total;
	memcpy(t->classes, qt->classes, sizeof(t->classes));
	t->desire = qt->desire;
	t->allotment = qt->allotment;
	t->job_id = qt->job_id;
	pthread_mutex_unlock(&qt->lock);
	return 0;
}
