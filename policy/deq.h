/*
 * deq.h - dynamic equipartitioning (DEQ), the job scheduler's allocator, as
 * a pure module shared by asteald and asteal-sim (see ../shared/DESIGN.md,
 * "DEQ, exactly").
 *
 * Processors are numbered 0..P-1 here (slots); the daemon maps slots to
 * Linux CPU ids.  The caller keeps, per job, the CPU set and the fairness
 * state deq_allot() returned last time and passes them back next quantum;
 * deq_allot() itself keeps nothing between calls.  deq_allot_users() is
 * DEQ twice, users first: among the users, then among each user's jobs
 * (the caller keeps the users' fairness state too).
 */
#ifndef ASTEAL_DEQ_H
#define ASTEAL_DEQ_H

#include <stdint.h>

#define DEQ_MAX_PROCS 1024

/* A set of processor slots. */
struct deq_set {
	uint64_t w[DEQ_MAX_PROCS / 64];
};

struct deq_job {
	int desire;            /* in: processors asked for, >= 0 */
	struct deq_set cpus;   /* in: slots held last quantum; out: this one's */
	int allotment;         /* out: number of slots in cpus, <= desire */
	int availability;      /* out: the job's DEQ share, what it would get
				  if it asked for P; allotment is always
				  min(desire, availability) */
	int64_t credit;        /* in/out: fairness state, the job's place in
				  the queue for leftover processors (see
				  deq.c); 0 for a new job */
	int changed;           /* out: allotment, availability or cpus
				  differ from what came in */
	int user;              /* in: deq_allot_users: the job's user, an
				  index into its users[]; deq_allot ignores
				  it */
};

/* A user, whose jobs deq_allot_users() shares out as one. */
struct deq_user {
	int64_t credit;        /* in/out: the user's place in the queue for
				  leftover processors among users, as a
				  job's among jobs; 0 for a new user */
	int desire;            /* out: its jobs' desires, each capped at P,
				  summed and capped at P */
	int allotment;         /* out: processors its jobs got in all,
				  min(desire, availability) */
	int availability;      /* out: the user's DEQ share among users,
				  what its jobs would get if they asked
				  for P */
};

/* Allot P processors (1 <= P <= DEQ_MAX_PROCS) among n jobs for quantum
 * q: returns 0, or -1 with errno EINVAL on bad arguments (P out of range,
 * n < 0, jobs NULL with n > 0, a negative desire, a slot >= P in an input
 * set; then nothing is changed), or ENOMEM (only possible for n > 2048).
 * A slot claimed by several jobs stays with the lowest-indexed one. */
int deq_allot(int P, struct deq_job *jobs, int n, uint64_t q);

/* deq_allot, and the indices of the jobs whose allotment, availability or
 * cpus changed (those with `changed` set) in changed[], which has room
 * for n, their number in *nchanged: found in DEQ's own pass, so that a
 * caller does nothing for the jobs that did not change. */
int deq_allot_changes(int P, struct deq_job *jobs, int n, uint64_t q,
		      int *changed, int *nchanged);

/* DEQ among the nusers users (each job's user indexes users[]), then,
 * within each user's share, among that user's jobs, by deq_allot's rules:
 * a user's desire is the sum of its jobs', and leftovers go by turns among
 * users (their credits) and then among a user's jobs (the jobs' credits).
 * Every job's availability stays exact (what it would get from this call
 * asking for P) and allotment = min(desire, availability); slots are
 * placed as deq_allot places them.  changed and nchanged as in
 * deq_allot_changes (both may be NULL).  Returns 0, or -1 with errno
 * EINVAL (deq_allot's cases, nusers < 0, users NULL with nusers > 0, a
 * job's user outside 0..nusers-1; nothing is changed) or ENOMEM (only
 * possible beyond 2048 jobs or 64 users). */
int deq_allot_users(int P, struct deq_job *jobs, int n, struct deq_user *users,
		    int nusers, uint64_t q, int *changed, int *nchanged);

/* Set helpers; slots outside 0..DEQ_MAX_PROCS-1 are ignored. */
void deq_set_clear(struct deq_set *s);
void deq_set_add(struct deq_set *s, int slot);
void deq_set_del(struct deq_set *s, int slot);
int deq_set_has(const struct deq_set *s, int slot);
int deq_set_count(const struct deq_set *s);
int deq_set_subset(const struct deq_set *a, const struct deq_set *b);

#endif
