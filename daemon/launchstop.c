/*
 * launchstop.c - the daemon stopping a launched job (launch.h) itself, and
 * the signals that reach a launched job:
 *
 *   - a signal (a cancel's, or the daemon's own) goes to the job's
 *     supervisor, which signals its child, or, the supervisor gone, to the
 *     child through the pidfd the daemon holds on it (launch__signal);
 *   - its time limit (Launch.time_limit_ns): at the limit, counted from
 *     the job's start as its history row has it (also for a job taken
 *     back after a daemon restart), the job is marked timed out in the
 *     history and gets SIGTERM, then SIGKILL after --kill-wait seconds
 *     unless it has ended (timelimit.c keeps the time); the supervisor
 *     hears both in a CancelRequest with time_limit set;
 *   - a job that ends with its supervisor (Launch.ends_with_supervisor,
 *     `asteal run`): when the supervisor's connection closes before it
 *     reported the job's exit (it was killed), the child is killed
 *     (SIGKILL through its pidfd; the kernel sends it the same as its
 *     parent dies, PR_SET_PDEATHSIG, cli/spawn.c), and the job's status
 *     is recorded as killed by SIGKILL.
 *
 * launch.c keeps the launches; the two share launch_int.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "conn.h"
#include "launch_int.h"
#include "log.h"
#include "qtime.h"
#include "scheduler.h"

/* The kill-wait when the table has no settings (a harness's): Slurm's
 * default. */
static const int default_kill_wait_s = 30;

/* Send a signal to a launched job. */
int launch__signal(struct launch *l, struct launch_job *j, int sig,
                   int time_limit, char *why, size_t whylen)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__CancelRequest cr = ASTEAL__CANCEL_REQUEST__INIT;

	(void)l;
	if (j->sup == NULL && j->child.fd < 0)
		return 0;
	if (j->sup == NULL) {
		/* Its supervisor is gone: the child itself, by its pidfd. */
		if (childfd_signal(&j->child, sig) < 0) {
			snprintf(why, whylen, "job %llu: signalling pid %d: %s",
			         (unsigned long long)j->id, (int)j->pid,
			         errno == ESRCH ? "it has exited" : strerror(errno));
			return errno == ESRCH ? ASTEAL__ERROR_CODE__NOT_FOUND
			                      : ASTEAL__ERROR_CODE__INTERNAL;
		}
		return 1;
	}
	cr.job_id = j->id;
	cr.signal = sig;
	cr.time_limit = time_limit != 0;
	env.msg_case = ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST;
	env.cancel_request = &cr;
	if (conn_send(j->sup, &env) < 0) {
		snprintf(why, whylen, "job %llu: its supervisor is going away",
		         (unsigned long long)j->id);
		return ASTEAL__ERROR_CODE__INTERNAL;
	}
	return 1;
}

/* The job reached its time limit (SIGTERM), or is still there kill-wait
 * after it (SIGKILL): timelimit.c's callback. */
static void on_limit(void *arg, int sig)
{
	struct launch_job *j = arg;
	struct launch *l = j->owner;
	char why[200] = "";
	int r;

	if (j->exited)
		return;                 /* its end is reported already */
	if (sig == SIGTERM) {
		if (history_job_timeout(l->hist, (int64_t)j->id) < 0)
			log_warn("history: job %llu: %s", (unsigned long long)j->id,
			         history_error(l->hist));
		log_info("job %llu '%s' reached its time limit (%llu s): SIGTERM, "
		         "SIGKILL in %d s unless it ends", (unsigned long long)j->id,
		         j->name, (unsigned long long)(j->limit_ns / 1000000000u),
		         l->conf != NULL ? l->conf->kill_wait_s : default_kill_wait_s);
	} else {
		log_info("job %llu '%s' still runs after its time limit's "
		         "kill-wait: SIGKILL", (unsigned long long)j->id, j->name);
	}
	r = launch__signal(l, j, sig, 1, why, sizeof(why));
	/* Neither a supervisor nor a pidfd: a job connected to the daemon
	 * (its own pidfd, as a cancel of it). */
	if (r == 0)
		r = sched_cancel(l->sched, j->id, 0, sig, why, sizeof(why));
	if (r > 1)
		log_warn("job %llu: its time limit's signal %d: %s",
		         (unsigned long long)j->id, sig, why);
}

/* Arm a launch's time limit. */
void launch__limit_start(struct launch *l, struct launch_job *j,
                         const Asteal__Launch *m)
{
	uint64_t limit = m->time_limit_ns, start = j->start_ns, left;
	int stage = TIMELIMIT_RUNNING;
	struct launch_row r;

	/* Taken back after a restart: the limit and start its row holds,
	 * and its SIGTERM sent already if the row says it timed out. */
	if (m->job_id != 0 && launch__row_get(l, j->id, &r) == 1) {
		limit = (uint64_t)r.info.time_limit_ns;
		start = (uint64_t)r.info.start_ns;
		if (r.info.timed_out)
			stage = TIMELIMIT_TERMED;
	}
	j->limit_ns = limit;
	if (limit == 0 || l->base == NULL)
		return;
	left = timelimit_left(start, limit, qtime_wall_ns());
	if (timelimit_start(&j->limit, l->base, stage, left,
	                    l->conf != NULL ? &l->conf->kill_wait_s
	                                    : &default_kill_wait_s,
	                    on_limit, j) < 0)
		log_warn("job %llu '%s': its time limit is not kept: %s",
		         (unsigned long long)j->id, j->name, strerror(errno));
	else if (m->job_id != 0)
		log_info("job %llu '%s': its time limit (%llu s) %s",
		         (unsigned long long)j->id, j->name,
		         (unsigned long long)(limit / 1000000000u),
		         stage == TIMELIMIT_TERMED ? "passed: SIGKILL after kill-wait"
		         : "kept");
}

/* Kill a job with its supervisor. */
void launch__kill_with_supervisor(struct launch *l, struct launch_job *j)
{
	(void)l;
	if (j->child.fd >= 0 && childfd_signal(&j->child, SIGKILL) < 0 &&
	    errno != ESRCH)
		log_warn("job %llu: killing pid %d with its supervisor: %s",
		         (unsigned long long)j->id, (int)j->pid, strerror(errno));
	j->killed = SIGKILL;
	timelimit_stop(&j->limit);
	log_info("job %llu '%s': its supervisor went away before the job "
	         "ended: killed with it (SIGKILL)", (unsigned long long)j->id,
	         j->name);
}
