/*
 * launch_int.h - what the files of the launched jobs' module, launch.c
 * (the launches, their states and rows, the waits) and launchstop.c (the
 * daemon stopping a launched job itself: its time limit, its supervisor's
 * death, and the signals of a cancel), share; private to them (launch.h
 * is the interface).
 */
#ifndef ASTEAL_LAUNCH_INT_H
#define ASTEAL_LAUNCH_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "admit.h"
#include "childfd.h"
#include "history.h"
#include "launch.h"
#include "timelimit.h"
#include "waits.h"

struct conf;

/* One launched job. */
struct launch_job {
	uint64_t id;
	uid_t uid;
	pid_t pid;                 /* the child's */
	char name[64];
	char command[256];
	uint64_t start_ns;
	struct launch *owner;
	struct conn *sup;          /* NULL once the supervisor went */
	int connected;             /* its libasteal holds a connection */
	int was_connected;         /* then closing its row was the scheduler's */
	int exited;                /* JobExit came */
	int status;
	int cpus;                  /* Launch.cpus: rigid until it connects */
	int ends_with_supervisor;  /* Launch.ends_with_supervisor (run) */
	int killed;                /* the signal that killed it with its
	                              supervisor (launchstop.c), or 0 */
	uint64_t limit_ns;         /* its time limit, 0 none */
	struct timelimit limit;    /* ... and its timer */
	struct childfd child;      /* the child's pidfd, when it is the sender's own */
	struct admit_charge charge;  /* ... counted against its uid */
	struct conn *reporter;     /* gets Ok for its JobExit when the job ends */
	uint64_t reporter_id;      /* ... under the JobExit's request id */
	struct launch_job *next;
};

/* The table. */
struct launch {
	struct sched *sched;
	struct history *hist;
	struct event_base *base;
	struct admit *admit;           /* counts the pidfds held */
	const struct conf *conf;       /* kill-wait, read live */
	struct event *resume_ev;       /* the end of the resumption window */
	int resuming;                  /* within it: LAUNCH_RESUME_S */
	uint64_t started_ns;           /* wall clock, at launch_create */
	struct launch_job *jobs;
	struct waits waits;            /* the clients waiting for jobs to end */
	int njobs;
};

/* What a history lookup of one job found. */
struct launch_row {
	int found;
	struct history_job_info info;  /* strings not kept */
};

/* Look up job id's row: 1 found, 0 not, -1 on a database error. */
int launch__row_get(struct launch *l, uint64_t id, struct launch_row *r);

/* Send sig to launched job j: through its supervisor (a CancelRequest,
 * its time_limit flag as given), or, its supervisor gone, to its child by
 * pidfd.  1 when sent, 0 when there is no way (neither), or an error
 * code (NOT_FOUND: the child has exited; INTERNAL) with a reason. */
int launch__signal(struct launch *l, struct launch_job *j, int sig,
                   int time_limit, char *why, size_t whylen);

/* Arm j's time limit as its Launch m asks: a new job's from now, a job
 * taken back its row's, from its row's start (logged when it cannot). */
void launch__limit_start(struct launch *l, struct launch_job *j,
                         const Asteal__Launch *m);

/* j's supervisor went before it reported j's exit, and j ends with it:
 * kill its child (SIGKILL) and record it so. */
void launch__kill_with_supervisor(struct launch *l, struct launch_job *j);

#endif
