/*
 * launch.c - launched jobs and waits (see launch.h).
 *
 * The launches (one per job a supervisor holds), a short list, and the
 * waits (one per WaitRequest not answered yet: waits.c), at most
 * LAUNCH_CONN_WAITS per connection.  A launch's states:
 *
 *   begun --claim--> connected --job left--> left
 *     |                  |                     |
 *     +--- exit or supervisor gone ------------+--> ended: row closed,
 *                                                   waiters answered
 *
 * "exited" (a JobExit came) may happen while the job is still connected:
 * the child's socket and its supervisor's report race, so the job ends at
 * whichever of the two comes last.
 *
 * A launch whose child is the sender's own holds a pidfd on it
 * (childfd.c): when the supervisor goes (killed) while the child lives,
 * the job stays, listed and cancelled through that pidfd, and ends when
 * the pidfd says the process has exited (its status unknown).  A daemon
 * that just started holds back the answers "unknown" for rows a previous
 * daemon left without an exit status, for LAUNCH_RESUME_S: the
 * supervisors of those jobs reconnect within a second or two (Launch with
 * job_id, or JobExit).
 *
 * What the daemon does to a launched job on its own, stop it at its time
 * limit or kill it with its supervisor, is launchstop.c's; the two share
 * launch_int.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "conn.h"
#include "launch_int.h"
#include "log.h"
#include "proto.h"
#include "qtime.h"
#include "scheduler.h"

static void on_resumed(evutil_socket_t fd, short what, void *arg);

/* The table. */
struct launch *launch_create(struct sched *s, struct history *h,
                             struct event_base *base, struct admit *a,
                             const struct conf *conf)
{
	struct launch *l = calloc(1, sizeof(*l));
	struct timeval tv = { LAUNCH_RESUME_S, 0 };

	if (l == NULL)
		return NULL;
	l->sched = s;
	l->hist = h;
	l->base = base;
	l->admit = a;
	l->conf = conf;
	l->started_ns = qtime_wall_ns();
	if (base != NULL) {
		l->resume_ev = evtimer_new(base, on_resumed, l);
		if (l->resume_ev == NULL || evtimer_add(l->resume_ev, &tv) < 0) {
			launch_free(l);
			return NULL;
		}
		l->resuming = 1;
	}
	return l;
}

/* Close a launch's pidfd (now, or after the loop's next dispatch) and
 * give its descriptor back. */
static void child_close(struct launch *l, struct launch_job *j, int now)
{
	childfd_close(&j->child, l->base, now);
	admit_fd_give(l->admit, &j->charge);
}

/* Free a launch that is unlinked: its pidfd (closed now or after the
 * loop's next dispatch), its timer, itself. */
static void job_free(struct launch *l, struct launch_job *j, int now)
{
	child_close(l, j, now);
	timelimit_stop(&j->limit);
	free(j);
}

/* Free the lists. */
void launch_free(struct launch *l)
{
	if (l == NULL)
		return;
	while (l->jobs != NULL) {
		struct launch_job *j = l->jobs;
		l->jobs = j->next;
		job_free(l, j, 1);
	}
	if (l->resume_ev != NULL)
		event_free(l->resume_ev);
	waits_free(&l->waits);
	free(l);
}

/* The launch of job id, or NULL. */
static struct launch_job *find(struct launch *l, uint64_t id)
{
	struct launch_job *j;

	for (j = l->jobs; j != NULL; j = j->next)
		if (j->id == id)
			return j;
	return NULL;
}

/* Unlink and free a launch. */
static void drop(struct launch *l, struct launch_job *dead)
{
	struct launch_job **p;

	for (p = &l->jobs; *p != NULL; p = &(*p)->next)
		if (*p == dead) {
			*p = dead->next;
			l->njobs--;
			job_free(l, dead, 0);
			return;
		}
}

/* Keep a job row's numbers. */
static int row_cb(const struct history_job_info *j, void *arg)
{
	struct launch_row *r = arg;

	r->found = 1;
	r->info = *j;
	r->info.name = r->info.command = NULL;
	return 1;
}

/* Look up job id's row. */
int launch__row_get(struct launch *l, uint64_t id, struct launch_row *r)
{
	struct history_filter f;
	int64_t one = (int64_t)id;

	memset(r, 0, sizeof(*r));
	memset(&f, 0, sizeof(f));
	f.jobs = &one;
	f.njobs = 1;
	f.limit = 1;
	if (history_query(l->hist, &f, row_cb, NULL, r) < 0)
		return -1;
	return r->found;
}

/* Answer everyone waiting for job id, from its history row. */
static void answer_waiters(struct launch *l, uint64_t id)
{
	Asteal__WaitReply rep = ASTEAL__WAIT_REPLY__INIT;
	struct launch_row r;

	if (!waits_for(&l->waits, id))
		return;
	rep.job_id = id;
	if (launch__row_get(l, id, &r) == 1) {
		rep.status_known = r.info.has_exit != 0;
		rep.wait_status = r.info.exit_status;
		rep.end_ns = (uint64_t)r.info.end_ns;
		rep.timeout = r.info.timed_out != 0;
	}
	waits_answer(&l->waits, id, &rep);
}

/* Whether the waits for job id (not launched here, not connected) are
 * held back: within the resumption window, a job that a previous daemon
 * left without an exit status may still hear from its supervisor. */
static int awaits_report(struct launch *l, uint64_t id)
{
	struct launch_row r;

	if (!l->resuming || !waits_for(&l->waits, id) ||
	    launch__row_get(l, id, &r) != 1)
		return 0;               /* nobody waits, or no row to wait on */
	return !r.info.has_exit && r.info.start_ns < (int64_t)l->started_ns;
}

/* Answer the waits for job id when nobody took it back (waits_each's
 * callback): 1 when they were answered. */
static int resumed_one(void *arg, uint64_t id)
{
	struct launch *l = arg;

	if (find(l, id) != NULL || sched_job_owner(l->sched, id, NULL) == 0)
		return 0;
	answer_waiters(l, id);
	return 1;
}

/* The resumption window closed: answer the waits held back for jobs that
 * nobody took back (their rows as they are: status unknown). */
static void on_resumed(evutil_socket_t fd, short what, void *arg)
{
	struct launch *l = arg;

	(void)fd;
	(void)what;
	l->resuming = 0;
	waits_each(&l->waits, resumed_one, l);
}

/* Answer a JobExit. */
static void send_ok(struct conn *c, uint64_t request_id)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Ok ok = ASTEAL__OK__INIT;

	env.msg_case = ASTEAL__ENVELOPE__MSG_OK;
	env.ok = &ok;
	env.request_id = request_id;
	conn_send(c, &env);
}

/* The job ended unless it is still connected or its supervisor has yet
 * to report: close what is open and answer the waiters. */
static void maybe_end(struct launch *l, struct launch_job *j)
{
	uint64_t id = j->id;
	/* its status: reported, or the signal that killed it with its
	 * supervisor (launchstop.c) */
	int known = j->exited || j->killed;
	int status = j->exited ? j->status : j->killed;

	if (j->connected || (!j->exited && (j->sup != NULL || j->child.fd >= 0)))
		return;
	sched_rigid_remove(l->sched, id);
	/* The scheduler closed the row of a job that connected; one that
	 * never did still has its row open. */
	if (j->was_connected ? known && history_job_set_exit(l->hist,
	                           (int64_t)id, status) < 0
	    : history_job_end(l->hist, (int64_t)id, (int64_t)qtime_wall_ns(),
	                      known ? &status : NULL) < 0)
		log_warn("history: job %llu: %s", (unsigned long long)id,
		         history_error(l->hist));
	log_info("job %llu '%s' ended%s", (unsigned long long)id, j->name,
	         j->exited ? "" : j->killed ? " (killed with its supervisor)"
	         : " (its supervisor went away: exit status unknown)");
	if (j->reporter != NULL)
		send_ok(j->reporter, j->reporter_id);
	drop(l, j);
	answer_waiters(l, id);
}

/* The launched child exited (its pidfd is readable): a job whose
 * supervisor is gone ends now. */
static void on_child_exit(evutil_socket_t fd, short what, void *arg)
{
	struct launch_job *j = arg;
	struct launch *l = j->owner;

	(void)fd;
	(void)what;
	child_close(l, j, 0);
	maybe_end(l, j);
}

/* The supervisor went: watch the child's pidfd for its exit (the job ends
 * then); without a watch, the pidfd goes and the job ends now. */
static void pidfd_watch(struct launch *l, struct launch_job *j)
{
	if (childfd_watch(&j->child, l->base, on_child_exit, j) < 0) {
		log_warn("job %llu: cannot watch pid %d: %s", (unsigned long long)j->id,
		         (int)j->pid, strerror(errno));
		admit_fd_give(l->admit, &j->charge);    /* it closed the pidfd */
	}
}

/* A launch with --cpus: a rigid job until its child connects, or a cap
 * on the desire of the one that connected already (a resumption). */
static void rigid(struct launch *l, struct launch_job *j)
{
	char why[200];

	if (j->connected) {
		sched_set_cap(l->sched, j->id, j->cpus);
		return;
	}
	if (sched_rigid_add(l->sched, j->id, j->name, j->command, j->uid, j->pid,
	                    j->start_ns, j->cpus, why, sizeof(why)) < 0)
		log_warn("job %llu '%s': not scheduled as a rigid job of %d CPUs: %s",
		         (unsigned long long)j->id, j->name, j->cpus, why);
}

/* The pid a Launch names, checked (launch.h): its pidfd in *fd when the
 * daemon holds it (the sender's running child, within the room of t's
 * uid), else -1; 0, or an error code with a reason in why. */
static Asteal__ErrorCode named_pid(struct launch *l, struct conn *sup, uid_t uid,
                                   const struct admit_ticket *t,
                                   const Asteal__Launch *m, int *fd,
                                   char *why, size_t whylen)
{
	pid_t sender = conn_pid(sup);

	if (childfd_open(m->pid, sender, uid, fd, why, whylen) < 0)
		return errno == EPERM ? ASTEAL__ERROR_CODE__PERMISSION
		     : errno == ESRCH ? ASTEAL__ERROR_CODE__NOT_FOUND
		     : errno == EMFILE || errno == ENFILE ? ASTEAL__ERROR_CODE__BUSY
		     : ASTEAL__ERROR_CODE__INTERNAL;
	if (m->cpus > 0 && !childfd_is_child(m->pid, sender, uid)) {
		/* Its process tree will be confined: it must be the
		 * sender's own child, not any pid the message names. */
		snprintf(why, whylen, "launch: pid %d is not a child of the "
		         "sender (pid %d, uid %d)", (int)m->pid, (int)sender,
		         (int)uid);
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return ASTEAL__ERROR_CODE__PERMISSION;
	}
	if (*fd >= 0 && (l->base == NULL ||
	                 !childfd_worth(*fd, m->pid, sender, uid))) {
		close(*fd);
		*fd = -1;
	}
	if (*fd >= 0 && l->admit != NULL && t != NULL &&
	    admit_fd_room(l->admit, t, 1, why, whylen) < 0) {
		close(*fd);
		*fd = -1;
		return ASTEAL__ERROR_CODE__BUSY;
	}
	return 0;
}

/* A Launch with job_id after a daemon restart: j takes the job back (the
 * row must be this uid's and this child's, and not supervised already);
 * 0, or an error code with a reason in why. */
static Asteal__ErrorCode take_back(struct launch *l, struct launch_job *j,
                                   const Asteal__Launch *m, char *why,
                                   size_t whylen)
{
	uid_t owner;
	struct launch_row r;
	int have;

	if (find(l, m->job_id) != NULL) {
		snprintf(why, whylen, "job %llu is supervised already",
		         (unsigned long long)m->job_id);
		return ASTEAL__ERROR_CODE__UNEXPECTED;
	}
	j->id = m->job_id;
	if (sched_job_owner(l->sched, m->job_id, &owner) == 0) {
		if (owner != j->uid) {
			snprintf(why, whylen, "job %llu is not yours",
			         (unsigned long long)m->job_id);
			return ASTEAL__ERROR_CODE__PERMISSION;
		}
		j->connected = j->was_connected = 1;
		return 0;
	}
	have = launch__row_get(l, m->job_id, &r);
	if (have != 1 || r.info.uid != (int64_t)j->uid ||
	    r.info.pid != m->pid || r.info.end_ns != 0 ||
	    history_job_reopen(l->hist, (int64_t)m->job_id, m->pid) < 0) {
		snprintf(why, whylen, "job %llu cannot be resumed: %s",
		         (unsigned long long)m->job_id,
		         have < 0 ? history_error(l->hist)
		         : have == 0 ? "unknown" : r.info.uid != (int64_t)j->uid
		         ? "not yours" : r.info.end_ns != 0 ? "it has ended"
		         : "another pid");
		return have < 0 ? ASTEAL__ERROR_CODE__INTERNAL
		       : ASTEAL__ERROR_CODE__NOT_FOUND;
	}
	return 0;
}

/* A Launch: a new job, or the resumption of one after a restart. */
Asteal__ErrorCode launch_begin(struct launch *l, struct conn *sup, uid_t uid,
                               const struct admit_ticket *t,
                               const Asteal__Launch *m, uint64_t *id,
                               char *why, size_t whylen)
{
	struct launch_job *j, *k;
	struct history_job hj;
	Asteal__ErrorCode code;
	int held = 0, fd = -1;
	int64_t row;

	for (k = l->jobs; k != NULL; k = k->next)
		held += k->sup == sup;
	if (held >= LAUNCH_MAX_PER_CONN) {
		snprintf(why, whylen, "at most %d jobs per supervisor", LAUNCH_MAX_PER_CONN);
		return ASTEAL__ERROR_CODE__BUSY;
	}
	if (m->pid <= 0) {
		snprintf(why, whylen, "launch: no child pid");
		return ASTEAL__ERROR_CODE__INVALID;
	}
	if (m->cpus > SCHED_MAX_WORKERS) {
		snprintf(why, whylen, "launch: --cpus %u is more than %d", m->cpus,
		         SCHED_MAX_WORKERS);
		return ASTEAL__ERROR_CODE__INVALID;
	}
	if (m->time_limit_ns / 1000000000u > PROTO_TIME_LIMIT_MAX_S) {
		snprintf(why, whylen, "launch: a time limit of more than %lld s",
		         (long long)PROTO_TIME_LIMIT_MAX_S);
		return ASTEAL__ERROR_CODE__INVALID;
	}
	code = named_pid(l, sup, uid, t, m, &fd, why, whylen);
	if (code != 0)
		return code;
	j = calloc(1, sizeof(*j));
	if (j == NULL) {
		snprintf(why, whylen, "out of memory");
		code = ASTEAL__ERROR_CODE__INTERNAL;
		goto failed;
	}
	snprintf(j->name, sizeof(j->name), "%s", m->name && *m->name ? m->name : "job");
	snprintf(j->command, sizeof(j->command), "%s", m->command ? m->command : "");
	j->uid = uid;
	j->pid = m->pid;
	j->owner = l;
	j->child.fd = -1;
	j->sup = sup;
	j->cpus = (int)m->cpus;
	j->ends_with_supervisor = m->ends_with_supervisor;
	j->start_ns = qtime_wall_ns();
	if (m->job_id != 0) {
		code = take_back(l, j, m, why, whylen);
		if (code != 0)
			goto failed;
	} else {
		memset(&hj, 0, sizeof(hj));
		hj.name = j->name;
		hj.command = j->command;
		hj.uid = (int64_t)uid;
		hj.pid = (int64_t)m->pid;
		hj.start_ns = (int64_t)j->start_ns;
		hj.time_limit_ns = (int64_t)m->time_limit_ns;
		row = history_job_begin(l->hist, &hj);
		if (row <= 0) {
			snprintf(why, whylen, "history: %s", history_error(l->hist));
			code = ASTEAL__ERROR_CODE__INTERNAL;
			goto failed;
		}
		j->id = (uint64_t)row;
	}
	childfd_hold(&j->child, fd);
	if (fd >= 0 && l->admit != NULL && t != NULL)
		admit_fd_take(l->admit, t, 1, &j->charge);
	j->next = l->jobs;
	l->jobs = j;
	l->njobs++;
	*id = j->id;
	log_info("job %llu '%s' %s: uid %d, child pid %d", (unsigned long long)j->id,
	         j->name, m->job_id ? "supervised again" : "launched", (int)uid,
	         (int)j->pid);
	if (j->cpus > 0)
		rigid(l, j);
	launch__limit_start(l, j, m);
	return 0;
failed:
	if (fd >= 0)
		close(fd);
	free(j);
	return code;
}

/* A job's Hello claims an id. */
int launch_claim(struct launch *l, uint64_t id, uid_t uid, pid_t pid,
                 char *why, size_t whylen)
{
	struct launch_job *j = find(l, id);
	struct launch_row r;
	uid_t owner;
	int have;

	if (j != NULL) {
		if (j->uid != uid || j->pid != pid || j->connected || j->exited) {
			snprintf(why, whylen, "job %llu was launched for %s",
			         (unsigned long long)id, j->connected || j->exited
			         ? "a process that came already" : "another process");
			return -1;
		}
		j->connected = j->was_connected = 1;
		return 0;
	}
	if (sched_job_owner(l->sched, id, &owner) == 0) {
		snprintf(why, whylen, "job %llu is connected already", (unsigned long long)id);
		return -1;
	}
	have = launch__row_get(l, id, &r);
	if (have != 1 || r.info.uid != (int64_t)uid || r.info.end_ns != 0 ||
	    history_job_reopen(l->hist, (int64_t)id, pid) < 0) {
		snprintf(why, whylen, "job %llu: %s", (unsigned long long)id,
		         have < 0 ? history_error(l->hist) : have == 0 ? "unknown"
		         : r.info.uid != (int64_t)uid ? "another user's"
		         : r.info.end_ns != 0 ? "it has ended" : history_error(l->hist));
		return -1;
	}
	return 0;
}

/* A JobExit. */
Asteal__ErrorCode launch_exit(struct launch *l, struct conn *c, uid_t uid,
                              const Asteal__JobExit *m, char *why, size_t whylen)
{
	struct launch_job *j = NULL, *k;
	struct launch_row r;
	int have;

	for (k = l->jobs; k != NULL && j == NULL; k = k->next)
		if (m->job_id ? k->id == m->job_id : k->sup == c && k->pid == m->pid)
			j = k;
	if (j != NULL) {
		if (j->sup != c && (j->sup != NULL || (uid != 0 && uid != j->uid))) {
			snprintf(why, whylen, "job %llu is not yours to report",
			         (unsigned long long)j->id);
			return ASTEAL__ERROR_CODE__PERMISSION;
		}
		if (j->exited) {
			snprintf(why, whylen, "job %llu: its exit was reported already",
			         (unsigned long long)j->id);
			return ASTEAL__ERROR_CODE__UNEXPECTED;
		}
		j->exited = 1;
		j->status = m->wait_status;
		j->reporter = c;
		j->reporter_id = conn_reply_id(c);
		if (j->connected &&
		    history_job_set_exit(l->hist, (int64_t)j->id, j->status) < 0)
			log_warn("history: %s", history_error(l->hist));
		maybe_end(l, j);
		return 0;
	}
	if (m->job_id == 0) {
		snprintf(why, whylen, "no job with child pid %d", (int)m->pid);
		return ASTEAL__ERROR_CODE__NOT_FOUND;
	}
	/* A supervisor that lost the daemon and reports to a new one. */
	have = launch__row_get(l, m->job_id, &r);
	if (have != 1) {
		snprintf(why, whylen, "job %llu: %s", (unsigned long long)m->job_id,
		         have < 0 ? history_error(l->hist) : "no such job");
		return have < 0 ? ASTEAL__ERROR_CODE__INTERNAL : ASTEAL__ERROR_CODE__NOT_FOUND;
	}
	if (uid != 0 && r.info.uid != (int64_t)uid) {
		snprintf(why, whylen, "job %llu is not yours to report",
		         (unsigned long long)m->job_id);
		return ASTEAL__ERROR_CODE__PERMISSION;
	}
	if (history_job_set_exit(l->hist, (int64_t)m->job_id, m->wait_status) < 0) {
		snprintf(why, whylen, "history: %s", history_error(l->hist));
		return ASTEAL__ERROR_CODE__INTERNAL;
	}
	if (sched_job_owner(l->sched, m->job_id, NULL) != 0) {
		if (r.info.end_ns == 0)
			history_job_end(l->hist, (int64_t)m->job_id, (int64_t)qtime_wall_ns(),
			                &m->wait_status);
		answer_waiters(l, m->job_id);
	}
	send_ok(c, conn_reply_id(c));
	return 0;
}

/* A WaitRequest. */
Asteal__ErrorCode launch_wait(struct launch *l, struct conn *c, uint64_t id,
                              int64_t only_uid, char *why, size_t whylen)
{
	struct launch_job *j = find(l, id);
	Asteal__ErrorCode code;
	struct launch_row r;
	uid_t owner = 0;
	int have = 1;

	if (j != NULL)
		owner = j->uid;
	else if (sched_job_owner(l->sched, id, &owner) != 0) {
		have = launch__row_get(l, id, &r);
		owner = (uid_t)r.info.uid;
	}
	if (have == 1 && only_uid >= 0 && (int64_t)owner != only_uid)
		have = 0;               /* not shown to this user: not there */
	if (have != 1) {
		snprintf(why, whylen, "job %llu: %s", (unsigned long long)id,
		         have < 0 ? history_error(l->hist) : "no such job");
		return have < 0 ? ASTEAL__ERROR_CODE__INTERNAL
		                : ASTEAL__ERROR_CODE__NOT_FOUND;
	}
	code = waits_add(&l->waits, c, id, conn_reply_id(c), LAUNCH_CONN_WAITS,
	                 why, whylen);
	if (code != 0)
		return code;
	/* A job that is neither launched nor connected has ended (a row a
	 * previous daemon left open counts as ended: nobody runs it now). */
	if (j == NULL && sched_job_owner(l->sched, id, NULL) != 0 &&
	    !awaits_report(l, id))
		answer_waiters(l, id);
	return 0;
}

/* A cancel. */
int launch_cancel(struct launch *l, uint64_t id, uid_t uid, int sig,
                  char *why, size_t whylen)
{
	struct launch_job *j = find(l, id);
	int r;

	if (j == NULL || j->exited || (j->sup == NULL && j->child.fd < 0))
		return 0;
	if (uid != 0 && uid != j->uid) {
		snprintf(why, whylen, "job %llu: not yours (only its owner or root "
		         "may cancel it)", (unsigned long long)id);
		return ASTEAL__ERROR_CODE__PERMISSION;
	}
	r = launch__signal(l, j, sig, 0, why, whylen);
	if (r == 1)
		log_info("job %llu: signal %d %s for uid %d", (unsigned long long)id,
		         sig, j->sup != NULL ? "passed to its supervisor"
		         : "sent to its child (its supervisor is gone)", (int)uid);
	return r;
}

/* A connection closed. */
void launch_conn_gone(struct launch *l, struct conn *c)
{
	struct launch_job *j, *next;

	waits_conn_gone(&l->waits, c);
	for (j = l->jobs; j != NULL; j = next) {
		next = j->next;
		if (j->reporter == c)
			j->reporter = NULL;
		if (j->sup == c) {
			j->sup = NULL;
			if (!j->exited && j->ends_with_supervisor)
				launch__kill_with_supervisor(l, j);
			if (!j->exited)
				pidfd_watch(l, j);
			maybe_end(l, j);
		}
	}
}

/* A job's connection closed. */
void launch_job_left(struct launch *l, uint64_t id)
{
	struct launch_job *j = find(l, id);

	if (j == NULL) {
		if (!awaits_report(l, id))
			answer_waiters(l, id);
		return;
	}
	j->connected = 0;
	maybe_end(l, j);
}

/* Append the unmanaged launched jobs to a Jobs reply. */
int launch_jobs(struct launch *l, const uint64_t *ids, size_t n, Asteal__Jobs *out)
{
	struct launch_job *j;
	Asteal__JobInfo **a;
	size_t k = out->n_jobs;

	if (l->njobs == 0)
		return 0;
	a = realloc(out->jobs, (out->n_jobs + (size_t)l->njobs) * sizeof(*a));
	if (a == NULL) {
		sched_jobs_free(out);
		return -1;
	}
	out->jobs = a;
	for (j = l->jobs; j != NULL; j = j->next) {
		Asteal__JobInfo *ji;
		if (j->connected || j->exited || !sched_id_wanted(j->id, ids, n) ||
		    sched_is_rigid(l->sched, j->id))
			continue;
		ji = sched_info_new(j->id, j->name, j->uid, j->pid, j->command,
		                    j->start_ns, 0);
		if (ji == NULL) {
			out->n_jobs = k;
			sched_jobs_free(out);
			return -1;
		}
		ji->unmanaged = 1;
		a[k++] = ji;
	}
	out->n_jobs = k;
	return 0;
}

/* Launched jobs not connected now. */
int launch_unmanaged(const struct launch *l)
{
	const struct launch_job *j;
	int n = 0;

	for (j = l->jobs; j != NULL; j = j->next)
		n += !j->connected && !j->exited && !sched_is_rigid(l->sched, j->id);
	return n;
}
