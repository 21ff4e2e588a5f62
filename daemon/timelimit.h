/*
 * timelimit.h - a launched job's time limit (Launch.time_limit_ns, from
 * `asteal run` and `submit --time`): the timer that stops the job once it
 * has run that long, as Slurm does at a job's time limit and systemd at
 * RuntimeMaxSec=: SIGTERM at the limit, then, unless the job has ended
 * within asteald's kill-wait (--kill-wait, Slurm's KillWait), SIGKILL.
 *
 * This module keeps the time only; its owner (launch.c) says how a signal
 * reaches the job and records the time out in the history.  The owner
 * stops the timer when the job ends, and before it frees the struct.
 */
#ifndef ASTEAL_TIMELIMIT_H
#define ASTEAL_TIMELIMIT_H

#include <stdint.h>

struct event;
struct event_base;

/* Where a limit stands. */
enum timelimit_stage {
	TIMELIMIT_OFF,          /* no limit (or stopped) */
	TIMELIMIT_RUNNING,      /* armed for the limit: SIGTERM next */
	TIMELIMIT_TERMED,       /* SIGTERM sent: SIGKILL after kill-wait */
	TIMELIMIT_KILLED,       /* SIGKILL sent: nothing more to do */
};

/* What the owner does at a stage: send sig (SIGTERM at the limit, then
 * SIGKILL) to the job of arg. */
typedef void (*timelimit_fire_fn)(void *arg, int sig);

/* One job's limit; zeroed (memset or {0}) is a limit that is off. */
struct timelimit {
	struct event *ev;       /* the timer, NULL while off */
	int stage;              /* enum timelimit_stage */
	const int *kill_wait_s; /* read as SIGTERM goes (a reload changes it) */
	timelimit_fire_fn fire;
	void *arg;
};

/* Arm t on base at stage TIMELIMIT_RUNNING (SIGTERM after left_ns; 0: at
 * the loop's next turn) or TIMELIMIT_TERMED (SIGKILL after *kill_wait_s
 * seconds from now: the SIGTERM went before, as after a daemon restart),
 * calling fire(arg, sig) at each; *kill_wait_s is read when the SIGTERM
 * goes.  0, or -1 with errno (out of memory; t stays off). */
int timelimit_start(struct timelimit *t, struct event_base *base, int stage,
                    uint64_t left_ns, const int *kill_wait_s,
                    timelimit_fire_fn fire, void *arg);

/* Stop t (the job ended) and free its timer; an off one is fine. */
void timelimit_stop(struct timelimit *t);

/* The time left until a limit of limit_ns from start_ns, at now_ns (all
 * on one clock): 0 when it has passed. */
uint64_t timelimit_left(uint64_t start_ns, uint64_t limit_ns, uint64_t now_ns);

#endif
