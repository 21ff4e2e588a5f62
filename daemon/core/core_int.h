/*
 * core_int.h - what the files of asteald's core, table.c (the jobs and
 * users tables, silence's order, the jobs' events, life and views) and
 * core.c (desires, the tick, allotments, hand-overs and grants), share;
 * private to them (core.h is the interface): the core
 * itself, and helpers named core__*.
 */
#ifndef ASTEAL_CORE_INT_H
#define ASTEAL_CORE_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "core.h"
#include "deq.h"

/* A user with jobs (by_user): DEQ's fairness state for it lives in the
 * same place of core.udeq. */
struct core_user {
	uid_t uid;
	int njobs;                     /* its jobs now */
	int to;                        /* its place once the users without
	                                  jobs are gone (users_prune) */
};

struct core {
	int P, by_user;
	int offer;                     /* slots offered: the first offer */
	struct core_ops ops;
	void *arg;
	struct handover *handover;     /* NULL unless handing over */
	uint64_t silence, bound;       /* ns */
	struct core_job **jobs;        /* in id order: DEQ's stable order */
	struct deq_job *deq;           /* DEQ's state, as jobs[] */
	int *changed;                  /* DEQ's list of changed jobs */
	struct core_user *users;       /* by uid: the users with jobs, and
	                                  those whose last job left since
	                                  the last tick */
	struct deq_user *udeq;         /* DEQ's state, as users[] */
	int nusers, ucap, users_gone;  /* users_gone: some have no job */
	struct core_job **touched, **held;
	int njobs, cap, ntouched, nheld, nsilent;
	struct core_job *oldest, *newest;   /* by last heard */
	struct deq_set idle_free;      /* the free slots idle jobs were
	                                  last offered */
	int idle_dirty;                /* a job came to hold none */
	struct deq_set refill_free;    /* the free slots when last looked:
	                                  one more is a refill's cue */
	int urgent_on, in_tick;
	uint64_t q, ticks, decided;    /* the last tick's quantum; ticks;
	                                  when its DEQ ran */
	uint64_t epoch;                /* jobs that came or went */
};

/* Defined in table.c. */

/* Unlink a job from the list by last heard (it went silent, or left). */
void core__heard_unlink(struct core *c, struct core_job *j);

/* The job was heard now: it goes to the newest end. */
void core__heard_now(struct core *c, struct core_job *j, uint64_t now);

/* Drop the users whose last job left (at a tick, before DEQ). */
void core__users_prune(struct core *c);

/* Something of j DEQ or the history must see at the next tick. */
void core__touch(struct core *c, struct core_job *j);

/* Take a job out of an array of job pointers (touched, held). */
void core__drop_from(struct core_job **arr, int *n, struct core_job *j);

/* Defined in core.c. */

/* a & b, or a & ~b (minus), over the first P slots. */
struct deq_set core__set_and(const struct core *c, const struct deq_set *a,
                             const struct deq_set *b, int minus);

/* Tell j its allotment as DEQ decided it at `decided`: all of it, or
 * (handover) the part it can have now. */
void core__deliver(struct core *c, struct core_job *j, uint64_t decided);

/* Give the held jobs what is free now; ask for the hold timer. */
void core__retry_held(struct core *c, uint64_t now);

/* core__retry_held, unless a tick is under way (it retries itself). */
void core__retry_held_soon(struct core *c, uint64_t now);

/* The free slots may have changed: idle jobs, wake-ups, urgent reads. */
void core__update_urgent(struct core *c);

/* Make j's grant due, once the shell's loop comes back to it. */
void core__grant_soon(struct core *c, struct core_job *j);

/* Whether j waits for slots a grant could give it. */
int core__waits_for_slots(const struct core *c, const struct core_job *j);

#endif
