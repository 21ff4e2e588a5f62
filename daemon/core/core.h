/*
 * core.h - every decision asteald makes, as a pure module
 * (../shared/DESIGN.md, asteald, "The core is pure"): the table of jobs
 * and users, their desires as DEQ sees them (rigid jobs' fixed desires,
 * caps, silence), DEQ itself (policy/deq.c), grants of free CPUs between
 * ticks, the order of hand-overs (handover.h) and what the history
 * records.  No I/O, no clock, no libevent or SQLite: events come in as
 * calls, each with the time it happened on the shared clock, and effects
 * go out through the callbacks of struct core_ops, which the shell
 * (scheduler.c, or a test, or the simulator) applies: an allotment to
 * deliver, a record for the history, a grant, the free CPUs to hold the
 * idle jobs to, a job going silent or speaking again, a wake-up for the
 * grants, a timer for CPUs held too long, and whether the shell must read
 * the jobs as their input comes.
 *
 * The shell keeps its jobs and embeds a struct core_job in each (its
 * fields are the core's: the shell reads them, never writes them); the
 * callbacks are handed that struct back.  Slots are 0..P-1, as in deq.h.
 *
 * One quantum: the shell reads what the jobs said (core_feedback,
 * core_released, core_leave: between core_tick_begin and
 * core_tick, these decide nothing that the tick will decide), then
 * core_tick(q, now): silence, desires, DEQ, hand-overs, allotments,
 * records.  Between ticks, a job that joins or wakes holding nothing and
 * CPUs that come free call wake(); the shell then reads the jobs and
 * calls core_grants().
 */
#ifndef ASTEAL_CORE_H
#define ASTEAL_CORE_H

#include <stdint.h>
#include <sys/types.h>

#include "deq.h"

struct core;

/* A job as the core sees it, embedded in the shell's job.  Read-only
 * outside core.c. */
struct core_job {
	uint64_t id;                   /* DEQ's order is id order */
	uid_t uid;                     /* its user, for --share user */
	int index;                     /* in the core's tables */
	int desire;                    /* last reported */
	int cap;                       /* its desire's cap, 0 none */
	int rigid;                     /* its desire is cap; never silent */
	int silent;                    /* counted as desiring nothing */
	uint64_t heard;                /* its last Feedback, or its join */
	int touched, held, fresh;      /* the next tick records it; it waits
	                                  for CPUs being handed over; its first
	                                  allotment is due */
	int want_grant, granted;       /* a grant due; granted free CPUs: the
	                                  next tick tells it DEQ's answer */
	uint64_t recorded;             /* the tick that last recorded it */
	struct deq_set sent;           /* the slots of its last allotment */
	uint64_t allot_q, decided;     /* its last allotment's quantum, and
	                                  when it was decided */
	struct core_job *older, *newer;    /* by last heard (not if silent) */
};

/* An allotment to deliver: the job holds the slots of set from quantum q
 * on, DEQ's share for it is availability, decided at `decided`. */
struct core_allot {
	const struct deq_set *set;
	int allotment, availability;
	uint64_t quantum, decided;
};

/* What the history records for a job from quantum q on. */
struct core_record {
	uint64_t quantum;
	int desire, availability, allotment;
	const struct deq_set *set;
	int set_changed;               /* its slots may differ from the last */
	uint64_t epoch;                /* moves when jobs come or go */
};

/* The effects, applied by the shell; arg is core_create's.  A shell
 * leaves out (NULL) those it has no use for: an allotment is then taken
 * as delivered, the others as done. */
struct core_ops {
	/* Deliver an allotment (the job's sent set is still the old one):
	 * 0, or -1 when it could not be (a peer going away: its leave
	 * comes), and the job's state is then left as it was. */
	int (*allot)(void *arg, struct core_job *j, const struct core_allot *a);
	/* Record a job's values (once per tick at most). */
	void (*record)(void *arg, struct core_job *j, const struct core_record *r);
	/* A grant of n free slots was delivered, in quantum q, at now. */
	void (*grant)(void *arg, struct core_job *j, const struct deq_set *set,
	              int n, uint64_t q, uint64_t now);
	/* j holds no slot: it may be held to the free ones. */
	void (*idle)(void *arg, struct core_job *j, const struct deq_set *free);
	/* j went silent (quiet_ns since it was last heard), or speaks
	 * again (quiet_ns 0). */
	void (*voice)(void *arg, struct core_job *j, uint64_t quiet_ns);
	/* Grants are due: read the jobs and call core_grants, soon, from
	 * the event loop (not from inside this call). */
	void (*wake)(void *arg);
	/* Call core_hold_expired in delay_ns. */
	void (*hold_timer)(void *arg, uint64_t delay_ns);
	/* Read the jobs' input as it comes (on 1), or only at ticks (0). */
	void (*urgent)(void *arg, int on);
};

/* How the core shares and hands over. */
struct core_params {
	int P;                         /* processor slots, 1..DEQ_MAX_PROCS */
	int by_user;                   /* DEQ among users first */
	int handover;                  /* grant a moved slot only once its
	                                  loser released it, or after bound */
	uint64_t silence_ns;           /* unheard this long: desires nothing
	                                  (0: never) */
	uint64_t bound_ns;             /* the longest a slot stays busy */
};

/* The core, with no job; NULL when out of memory or P is out of range. */
struct core *core_create(const struct core_params *p, const struct core_ops *ops,
                         void *arg);

/* Free it (NULL is fine); the shell frees its jobs. */
void core_free(struct core *c);

/* Make room for one more job: 0, or -1 when out of memory (then
 * core_join cannot fail). */
int core_reserve(struct core *c);

/* A job joins at now (its first allotment is due: at the next tick, or a
 * grant, core_grant_due): id, user, initial desire, cap (0 none), rigid.
 * 0, or -1 when out of memory (nothing changed). */
int core_join(struct core *c, struct core_job *j, uint64_t id, uid_t uid,
              int desire, int cap, int rigid, uint64_t now);

/* A rigid job becomes an ordinary one at now (its program connected),
 * with desire d_1 = 1 and its cap. */
void core_connect(struct core *c, struct core_job *j, uint64_t now);

/* j's desire is capped at cap now; again: its slots are due again. */
void core_set_cap(struct core *c, struct core_job *j, int cap, int again);

/* j left at now: its slots go back (at the next tick, or to jobs waiting
 * for them). */
void core_leave(struct core *c, struct core_job *j, uint64_t now);

/* j said its desire at now (it is heard: not silent); between ticks,
 * holding nothing while slots are free, it is due a grant. */
void core_feedback(struct core *c, struct core_job *j, int desire, uint64_t now);

/* A job that just joined gets its grant as soon as the shell can. */
void core_grant_due(struct core *c, struct core_job *j);

/* j released the slots it gave up with allotments up to quantum q. */
void core_released(struct core *c, struct core_job *j, uint64_t q, uint64_t now);

/* Grants due and refills (wake() asked for this). */
void core_grants(struct core *c, uint64_t now);

/* The hold timer fired at now: slots busy past the bound are free. */
void core_hold_expired(struct core *c, uint64_t now);

/* Only the first n slots (0..n-1, n at most P) are offered from the next
 * tick on: the others are busy elsewhere (asteal-sim's availability
 * profiles); DEQ shares those n, and a job holding a slot beyond them is
 * told its allotment again.  P by default. */
void core_offer(struct core *c, int n);

/* The tick of quantum q begins: what the shell reads of the jobs until
 * core_tick is for it, and grants wait. */
void core_tick_begin(struct core *c, uint64_t q);

/* What a tick did. */
struct core_tick_stats {
	int changes;                   /* jobs DEQ changed */
	uint64_t deq_ns;               /* DEQ's own time, by the clock given */
};

/* The tick begun, at now: silence, desires, DEQ, hand-overs,
 * allotments, records.  clock (may be NULL) times DEQ alone, and the
 * allotments are decided at now plus that time, as DEQ answered.  0, or
 * -1 when DEQ failed (errno; nothing was allotted). */
int core_tick(struct core *c, uint64_t now, uint64_t (*clock)(void),
              struct core_tick_stats *st);

/* Jobs, in id order. */
int core_njobs(const struct core *c);
struct core_job *core_job_at(const struct core *c, int i);

/* The job with this id, or NULL. */
struct core_job *core_find(const struct core *c, uint64_t id);

/* DEQ's state for j: its desire, allotment, availability and slots as
 * the last tick decided. */
const struct deq_job *core_deq(const struct core *c, const struct core_job *j);

/* The desire DEQ sees for j: a rigid job's cap, 0 when silent, else its
 * desire within its cap. */
int core_desire(const struct core_job *j);

/* Whether j holds no slot: none in DEQ's last answer, none delivered. */
int core_holds_none(const struct core *c, const struct core_job *j);

/* Silent jobs; ticks begun; the quantum of the last. */
int core_nsilent(const struct core *c);
uint64_t core_ticks(const struct core *c);
uint64_t core_quantum(const struct core *c);

#endif
