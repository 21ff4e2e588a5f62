/*
 * scheduler.c - asteald's job scheduler (see scheduler.h), the shell
 * around its core (core/core.h, which makes every decision): its life and
 * death (the tick timer armed on the shared clock), the jobs joining and
 * leaving (a reclaiming job's time away added to its history), and the
 * core's effects other than allotments (the history's records and
 * grants, idle jobs confined to the free CPUs, silence logged, the timers
 * and wake-ups it asks for).  One quantum (what the jobs say, the tick,
 * the allotments delivered) is schedtick.c's, what the command line sees
 * and does schedview.c's, confinement and the rigid jobs' usage
 * schedconfine.c's, the pages schedpage.c's; what the files share is in
 * scheduler_int.h.  The rigid jobs (`asteal run --cpus N` of a program
 * that does not connect: in the core with a fixed desire, no connection,
 * held to what DEQ gives them) are registered here, and become ordinary
 * jobs in place, their desire capped, when their program connects and
 * claims their id.
 *
 * Between ticks the core asks for grants (wake: on_grant reads the jobs,
 * then core_grants) and, with --handover release, for the hold timer.
 */
#include "scheduler_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <event2/event.h>

#include "conf.h"
#include "conn.h"
#include "cpulist.h"
#include "deq.h"
#include "exchange.h"
#include "fdlater.h"
#include "handover.h"
#include "history.h"
#include "log.h"
#include "proto.h"
#include "qtime.h"
#include "samples.h"
#include "scheduler.h"
#include "search.h"


static struct sched_job *rigid_connect(struct sched *s, struct sched_job *j,
                                       struct conn *conn,
                                       const Asteal__Hello *hello);

/* The connected job with this id, or NULL. */
struct sched_job *sched__find(const struct sched *s, uint64_t id)
{
	struct core_job *cj = core_find(s->core, id);

	return cj != NULL ? sched__job(cj) : NULL;
}

/* A set of slots as a Linux CPU list ("0-3,6"; empty if it does not fit),
 * for the history. */
static void slot_list(const struct sched *s, const struct deq_set *set,
                      char *buf, size_t len)
{
	int cpus[CPULIST_MAX], n = sched__slot_ints(s, set, cpus);

	if (cpulist_format(cpus, n, buf, len) < 0)
		buf[0] = '\0';
}

/* -------------------------------------------------- the core's effects -- */

/* Record a job's values from a quantum on in the history. */
static void op_record(void *arg, struct core_job *cj, const struct core_record *r)
{
	struct sched *s = arg;
	struct sched_job *j = sched__job(cj);
	struct history_quantum hq;

	if (r->set_changed)
		slot_list(s, r->set, j->cpus, sizeof(j->cpus));
	memset(&hq, 0, sizeof(hq));
	hq.quantum = (int64_t)r->quantum;
	hq.start_ns = (int64_t)(s->t0_wall + r->quantum * s->L);
	hq.end_ns = hq.start_ns + (int64_t)s->L;
	hq.desire = r->desire;
	hq.availability = r->availability;
	hq.allotment = r->allotment;
	hq.cpus = j->cpus;
	hq.cls = HISTORY_CLASS_NONE;        /* the job's Feedback tells it */
	hq.epoch = (int64_t)r->epoch;
	if (history_allot(s->hist, (int64_t)cj->id, &hq) < 0)
		log_warn("history: job %llu quantum %llu: %s",
		         (unsigned long long)cj->id, (unsigned long long)r->quantum,
		         history_error(s->hist));
}

/* A grant was delivered: counted, and kept apart in the history. */
static void op_grant(void *arg, struct core_job *cj, const struct deq_set *set,
                     int n, uint64_t q, uint64_t now)
{
	struct sched *s = arg;
	char list[CPULIST_MAX * 5];

	(void)now;
	s->grants++;
	slot_list(s, set, list, sizeof(list));
	if (history_grant(s->hist, (int64_t)cj->id, (int64_t)q,
	                  (int64_t)qtime_wall_ns(), n, list) < 0)
		log_warn("history: job %llu grant: %s", (unsigned long long)cj->id,
		         history_error(s->hist));
}

/* A job holding no CPU: held to the free ones, if confined. */
static void op_idle(void *arg, struct core_job *cj, const struct deq_set *free)
{
	sched__confine_idle(arg, sched__job(cj), free);
}

/* A job went silent, or speaks again: said in the log. */
static void op_voice(void *arg, struct core_job *cj, uint64_t quiet_ns)
{
	struct sched_job *j = sched__job(cj);

	(void)arg;
	if (quiet_ns > 0)
		log_info("job %llu '%s' silent for %llu ms: desires nothing until "
		         "it speaks again", (unsigned long long)cj->id, j->name,
		         (unsigned long long)(quiet_ns / 1000000u));
	else
		log_info("job %llu '%s' speaks again", (unsigned long long)cj->id,
		         j->name);
}

/* Grants are due: on_grant runs as soon as the loop comes back (not from
 * inside the caller, whose connection a read of the jobs could close). */
static void op_wake(void *arg)
{
	struct sched *s = arg;

	event_active(s->grant_ev, EV_TIMEOUT, 0);
}

/* The hold timer, in delay_ns. */
static void op_hold_timer(void *arg, uint64_t delay_ns)
{
	struct sched *s = arg;
	struct timeval tv;

	tv.tv_sec = (time_t)(delay_ns / 1000000000u);
	tv.tv_usec = (suseconds_t)(delay_ns % 1000000000u / 1000u);
	event_add(s->hold_ev, &tv);
}

/* Read the jobs as their input comes, or only at ticks. */
static void op_urgent(void *arg, int on)
{
	struct sched *s = arg;

	if (s->urgent != NULL)
		s->urgent(s->read_arg, on);
}

static const struct core_ops sched_ops = {
	.allot = sched__op_allot,
	.record = op_record,
	.grant = op_grant,
	.idle = op_idle,
	.voice = op_voice,
	.wake = op_wake,
	.hold_timer = op_hold_timer,
	.urgent = op_urgent,
};

/* ------------------------------------------------------------- events -- */

/* CPUs held past the bound are free: grant them. */
static void on_hold(evutil_socket_t fd, short what, void *arg)
{
	struct sched *s = arg;

	(void)fd;
	(void)what;
	sched__shrink_done(s, NULL);
	core_hold_expired(s->core, qtime_now_ns());
}

/* The grants are due: the jobs' input is read first (a job that ended
 * just before another began, as a loop of runs does, has its CPUs back
 * only once its end is read), then the core grants. */
static void on_grant(evutil_socket_t fd, short what, void *arg)
{
	struct sched *s = arg;

	(void)fd;
	(void)what;
	if (s->in_tick)
		return;
	if (s->read != NULL)
		s->read(s->read_arg);
	core_grants(s->core, qtime_now_ns());
}

/* ----------------------------------------------------- life and death -- */

/* Create the scheduler: its quanta start now. */
struct sched *sched_create(struct event_base *base, const struct conf *c,
                           struct history *h, char *why, size_t whylen)
{
	struct sched *s = calloc(1, sizeof(*s));
	struct core_params params;
	struct itimerspec its;
	uint64_t first;

	if (s == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	s->base = base;
	s->conf = c;
	s->hist = h;
	s->P = c->ncpus;
	for (int i = 0; i < c->ncpus; i++)
		s->cpus_u32[i] = (uint32_t)c->cpus[i];
	s->L = (uint64_t)c->quantum_us * 1000u;
	s->offset = (uint64_t)c->offset_us * 1000u;
	s->past = (uint64_t)PROTO_FEEDBACK_PAST_MS * 1000000u / s->L + 1;
	s->t0 = s->started = qtime_now_ns();
	s->t0_wall = qtime_wall_ns();
	s->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->timer_fd < 0) {
		snprintf(why, whylen, "timerfd: %s", strerror(errno));
		free(s);
		return NULL;
	}
	params.P = s->P;
	params.by_user = c->share == CONF_SHARE_USER;
	params.handover = c->handover == CONF_HANDOVER_RELEASE;
	params.silence_ns = (uint64_t)PROTO_SILENT_BEATS * PROTO_HEARTBEAT_MS *
	                    1000000u;
	params.bound_ns = s->L / 4;
	if ((s->core = core_create(&params, &sched_ops, s)) == NULL)
		goto nomem;
	s->timer_ev = event_new(base, s->timer_fd, EV_READ | EV_PERSIST, sched__on_timer, s);
	s->hold_ev = evtimer_new(base, on_hold, s);
	s->grant_ev = evtimer_new(base, on_grant, s);
	if (s->timer_ev == NULL || s->hold_ev == NULL || s->grant_ev == NULL)
		goto nomem;
	/* Tick q at t0 + q L + offset: absolute, so it never drifts. */
	first = s->t0 + s->offset;
	its.it_value.tv_sec = (time_t)(first / 1000000000u);
	its.it_value.tv_nsec = (long)(first % 1000000000u);
	its.it_interval.tv_sec = (time_t)(s->L / 1000000000u);
	its.it_interval.tv_nsec = (long)(s->L % 1000000000u);
	if (timerfd_settime(s->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ||
	    event_add(s->timer_ev, NULL) < 0) {
		snprintf(why, whylen, "cannot start the tick timer: %s", strerror(errno));
		sched_free(s);
		return NULL;
	}
	return s;
nomem:
	snprintf(why, whylen, "out of memory");
	sched_free(s);
	return NULL;
}

/* Close a job's history row (its totals are its runs', written with them). */
static void close_row(struct sched *s, struct sched_job *j)
{
	if (history_job_end(s->hist, (int64_t)j->core.id, (int64_t)qtime_wall_ns(),
	                    NULL) < 0)
		log_warn("history: closing job %llu: %s", (unsigned long long)j->core.id,
		         history_error(s->hist));
}

/* Stop ticking and free everything (running jobs' rows stay open). */
void sched_free(struct sched *s)
{
	if (s == NULL)
		return;
	/* The jobs outlive us: their rows stay open for the next daemon,
	 * which they reconnect to, claiming their ids. */
	for (int i = 0; s->core != NULL && i < core_njobs(s->core); i++) {
		struct sched_job *j = sched__job(core_job_at(s->core, i));

		if (history_job_pause(s->hist, (int64_t)j->core.id) < 0)
			log_warn("history: job %llu: %s", (unsigned long long)j->core.id,
			         history_error(s->hist));
		sched__page_drop(s, j);
		free(j);
	}
	fdlater_flush();        /* the pages' eventfds: the loop goes next */
	if (s->hist != NULL)
		history_flush(s->hist);
	if (s->timer_ev != NULL)
		event_free(s->timer_ev);
	if (s->hold_ev != NULL)
		event_free(s->hold_ev);
	if (s->grant_ev != NULL)
		event_free(s->grant_ev);
	if (s->timer_fd >= 0)
		close(s->timer_fd);
	core_free(s->core);
	free(s);
}

/* Read the jobs at every tick with read(arg). */
void sched_set_reader(struct sched *s, void (*read)(void *),
                      void (*urgent)(void *, int), void *arg)
{
	s->read = read;
	s->urgent = urgent;
	s->read_arg = arg;
}

/* The quanta a Welcome gives a job. */
void sched_quanta(const struct sched *s, uint64_t *t0_ns,
                  uint32_t *heartbeat_ms, uint32_t *offset_us)
{
	*t0_ns = s->t0;
	*heartbeat_ms = PROTO_HEARTBEAT_MS;
	*offset_us = (uint32_t)(s->offset / 1000u);
}

/* Register a job. */
struct sched_job *sched_job_add(struct sched *s, struct conn *conn,
                                const Asteal__Hello *hello, uid_t uid,
                                pid_t pid, uint64_t id_granted, char *why,
                                size_t whylen)
{
	struct sched_job *j;
	struct history_job hj;
	int64_t id;

	if (hello->workers < 1 || hello->workers > SCHED_MAX_WORKERS) {
		snprintf(why, whylen, "workers must be from 1 to %d, not %u",
		         SCHED_MAX_WORKERS, hello->workers);
		return NULL;
	}
	/* A rigid job's child connecting: the same job, now adaptive. */
	if (id_granted && (j = sched__find(s, id_granted)) != NULL &&
	    j->core.rigid && j->core.uid == uid && j->pid == pid)
		return rigid_connect(s, j, conn, hello);
	if (core_njobs(s->core) >= s->conf->max_jobs) {
		snprintf(why, whylen, "at the limit of %d jobs", s->conf->max_jobs);
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL || core_reserve(s->core) < 0) {
		free(j);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	snprintf(j->name, sizeof(j->name), "%s", hello->name ? hello->name : "");
	snprintf(j->command, sizeof(j->command), "%s",
	         hello->command ? hello->command : "");
	j->conn = conn;
	j->pid = pid;
	j->workers = (int)hello->workers;
	j->start_ns = qtime_wall_ns();
	j->desire_real = 1;
	j->cls = -1;
	memset(&hj, 0, sizeof(hj));
	hj.name = j->name;
	hj.command = j->command;
	hj.uid = (int64_t)uid;
	hj.pid = (int64_t)pid;
	hj.start_ns = (int64_t)j->start_ns;
	hj.workers = j->workers;
	id = id_granted ? (int64_t)id_granted : history_job_begin(s->hist, &hj);
	if (id <= 0) {
		snprintf(why, whylen, "history: %s", history_error(s->hist));
		free(j);
		return NULL;
	}
	/* A launched or reconnecting job's row was begun without it. */
	if (id_granted && history_job_workers(s->hist, id, j->workers) < 0)
		log_warn("history: job %lld: %s", (long long)id,
		         history_error(s->hist));
	j->joined = qtime_now_ns();
	/* Desire d_1 = 1; an Allot at the next tick, or a grant after its
	 * Welcome. */
	if (core_join(s->core, &j->core, (uint64_t)id, uid, 1, 0, 0, j->joined) < 0) {
		snprintf(why, whylen, "out of memory");
		if (!id_granted)
			close_row(s, j);
		free(j);
		return NULL;
	}
	sched__confine_join(s, j);
	if (hello->page)
		sched__page_make(s, j, hello);
	if (id_granted)
		sched__claim_usage(s, j, hello);
	log_info("job %llu '%s' %s: uid %d pid %d, %d workers",
	         (unsigned long long)id, j->name, id_granted ? "connected"
	         : "registered", (int)uid, (int)pid, j->workers);
	return j;
}

/* Grant a job that has just joined free CPUs, soon. */
void sched_job_grant(struct sched *s, struct sched_job *j)
{
	core_grant_due(s->core, &j->core);
}

/* The job's id. */
uint64_t sched_job_id(const struct sched_job *j)
{
	return j->core.id;
}

/* A job gone: close its row (unless launch.c keeps it) and free it. */
void sched__bury(struct sched *s, struct sched_job *j)
{
	if (!j->keep_row)
		close_row(s, j);
	if (history_flush(s->hist) < 0)
		log_warn("history: %s", history_error(s->hist));
	sched__page_drop(s, j);
	free(j);
}

/* Remove a job whose connection closed. */
void sched_job_remove(struct sched *s, struct sched_job *j)
{
	if (j->shrinking) {
		j->shrinking = 0;
		s->shrinking--;
	}
	sched__confine_leave(s, j);
	log_info("job %llu '%s' left: its %d CPUs go back at %s tick",
	         (unsigned long long)j->core.id, j->name,
	         deq_set_count(&j->core.sent), s->in_tick ? "this" : "the next");
	core_leave(s->core, &j->core, qtime_now_ns());
	if (s->in_tick) {                /* its row waits for the Allots */
		j->next_gone = s->departed;
		s->departed = j;
		return;
	}
	sched__bury(s, j);
}

/* j claimed its id: its usage before this connection, and its time away
 * into the history (scheduler_int.h). */
void sched__claim_usage(struct sched *s, struct sched_job *j,
                        const Asteal__Hello *hello)
{
	struct usage_totals said;
	int64_t start, had[USAGE_N], away[USAGE_N];
	uint64_t now = qtime_wall_ns(), most, span;
	int any = 0, more = 0;

	exchange_usage_from(&said, hello->usage);
	for (int k = 0; k < USAGE_N; k++)
		any |= said.ns[k] != 0;
	if (history_job_usage(s->hist, (int64_t)j->core.id, &start, had) < 0) {
		if (any)
			log_warn("job %llu: its time away is not counted: history: %s",
			         (unsigned long long)j->core.id, history_error(s->hist));
		return;
	}
	for (int k = 0; k < USAGE_N; k++)
		j->before.ns[k] = (uint64_t)had[k];
	span = now > (uint64_t)start ? now - (uint64_t)start : 0;
	most = sched__usage_bound(span, j->workers);
	for (int k = 0; k < USAGE_N && any; k++) {
		if (said.ns[k] > most || said.ns[k] > (uint64_t)INT64_MAX) {
			log_warn("job %llu pid %d: Hello.usage.%s %llu is more than its %d "
			         "workers could use in the %.3f s since its row began: "
			         "its time away is not counted",
			         (unsigned long long)j->core.id, (int)j->pid,
			         exchange_usage_name((enum usage_kind)k),
			         (unsigned long long)said.ns[k], j->workers,
			         (double)span * 1e-9);
			return;
		}
		away[k] = (int64_t)said.ns[k] > had[k] ? (int64_t)said.ns[k] - had[k] : 0;
		more |= away[k] != 0;
	}
	if (!more)
		return;
	if (history_away(s->hist, (int64_t)j->core.id, (int64_t)now, away) < 0) {
		log_warn("job %llu: its time away is not counted: history: %s",
		         (unsigned long long)j->core.id, history_error(s->hist));
		return;
	}
	for (int k = 0; k < USAGE_N; k++)
		j->before.ns[k] += (uint64_t)away[k];
	log_info("job %llu '%s': %.3f s allotted, %.3f s of work while no daemon "
	         "had it, added to its history", (unsigned long long)j->core.id,
	         j->name, (double)away[USAGE_ALLOTTED] * 1e-9,
	         (double)away[USAGE_WORK] * 1e-9);
}

/* ------------------------------------------------------------ rigid -- */

/* Register a rigid job. */
int sched_rigid_add(struct sched *s, uint64_t id, const char *name,
                    const char *command, uid_t uid, pid_t pid,
                    uint64_t start_ns, int cpus, char *why, size_t whylen)
{
	struct sched_job *j;

	if (cpus < 1 || cpus > SCHED_MAX_WORKERS) {
		snprintf(why, whylen, "--cpus must be from 1 to %d, not %d",
		         SCHED_MAX_WORKERS, cpus);
		return -1;
	}
	if (core_njobs(s->core) >= s->conf->max_jobs) {
		snprintf(why, whylen, "at the limit of %d jobs", s->conf->max_jobs);
		return -1;
	}
	if (sched__find(s, id) != NULL) {
		snprintf(why, whylen, "job %llu is scheduled already",
		         (unsigned long long)id);
		return -1;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	snprintf(j->name, sizeof(j->name), "%s", name);
	snprintf(j->command, sizeof(j->command), "%s", command);
	j->pid = pid;
	j->workers = cpus;
	j->start_ns = start_ns;
	j->desire_real = cpus;
	j->cls = -1;
	j->joined = j->usage_at = qtime_now_ns();
	if (core_join(s->core, &j->core, id, uid, cpus, cpus, 1, j->joined) < 0) {
		free(j);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	j->next_rigid = s->rigids;
	s->rigids = j;
	sched__confine_join(s, j);
	sched_job_grant(s, j);
	log_info("job %llu '%s' is rigid: %d CPUs, uid %d pid %d",
	         (unsigned long long)id, j->name, cpus, (int)uid, (int)pid);
	return 0;
}

/* Take j off the list of rigid jobs. */
static void unlist(struct sched *s, struct sched_job *j)
{
	struct sched_job **p;

	for (p = &s->rigids; *p != NULL; p = &(*p)->next_rigid)
		if (*p == j) {
			*p = j->next_rigid;
			break;
		}
	j->next_rigid = NULL;
}

/* A rigid job's claim by a connecting job (sched_job_add): j becomes an
 * ordinary job on conn, its desire capped. */
static struct sched_job *rigid_connect(struct sched *s, struct sched_job *j,
                                       struct conn *conn,
                                       const Asteal__Hello *hello)
{
	uint64_t now = qtime_now_ns();

	sched__rigid_usage(s, j, now);
	unlist(s, j);
	j->conn = conn;
	j->workers = (int)hello->workers;
	j->desire_real = 1;
	j->cls = -1;
	j->closable = 0;
	/* The Feedback totals count from its Welcome, the ones before
	 * (as a rigid job, or away) are its history's. */
	memset(&j->tot, 0, sizeof(j->tot));
	j->joined = now;
	core_connect(s->core, &j->core, now);
	if (hello->page)
		sched__page_make(s, j, hello);
	if (history_job_workers(s->hist, (int64_t)j->core.id, j->workers) < 0)
		log_warn("history: job %lld: %s", (long long)j->core.id,
		         history_error(s->hist));
	sched__claim_usage(s, j, hello);
	log_info("job %llu '%s' connected: %d workers, desire capped at %d CPUs",
	         (unsigned long long)j->core.id, j->name, j->workers, j->core.cap);
	return j;
}

/* A rigid job ended. */
void sched_rigid_remove(struct sched *s, uint64_t id)
{
	struct sched_job *j = sched__find(s, id);

	if (j == NULL || !j->core.rigid)
		return;
	sched__rigid_usage(s, j, qtime_now_ns());
	unlist(s, j);
	j->keep_row = 1;
	sched_job_remove(s, j);
}

/* Cap a connected job's desire. */
void sched_set_cap(struct sched *s, uint64_t id, int cpus)
{
	struct sched_job *j = sched__find(s, id);
	int was;

	if (j == NULL || j->core.rigid || cpus <= 0 || j->core.cap == cpus)
		return;
	was = sched__enforced(s, j);
	core_set_cap(s->core, &j->core, cpus, 0);
	if (sched__enforced(s, j) != was) {    /* confine_add again, enforcing */
		sched__confine_leave(s, j);
		sched__confine_join(s, j);
		/* its CPUs again: confined then */
		core_set_cap(s->core, &j->core, cpus, 1);
	}
	log_info("job %llu '%s': desire capped at %d CPUs",
	         (unsigned long long)id, j->name, cpus);
}

/* Whether job id is rigid. */
int sched_is_rigid(const struct sched *s, uint64_t id)
{
	const struct sched_job *j = sched__find(s, id);

	return j != NULL && j->core.rigid;
}
