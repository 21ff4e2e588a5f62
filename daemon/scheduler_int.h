/*
 * scheduler_int.h - what the files of asteald's job scheduler,
 * scheduler.c (the job table, the tick, life and death), schedinput.c
 * (what the jobs say) and schedview.c (what the command line sees and
 * does), share; private to them (scheduler.h is the interface, and no
 * other file includes this one): the scheduler and its jobs, and a few
 * helpers, named sched__*.  The design is described at the top of
 * scheduler.c.
 */
#ifndef ASTEAL_SCHEDULER_INT_H
#define ASTEAL_SCHEDULER_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "bucket.h"
#include "cpulist.h"
#include "deq.h"
#include "history.h"
#include "message.h"
#include "samples.h"
#include "scheduler.h"

struct event;
struct handover;

struct sched_job {
	uint64_t id;
	struct conn *conn;
	char name[64];
	char command[256];
	uid_t uid;
	pid_t pid;
	int workers;
	uint64_t start_ns;             /* wall clock */
	int index;                     /* in s->jobs[] and s->deq[] */
	int desire;                    /* last reported, in [0, workers] */
	double desire_real;
	int cls;                       /* class index reported last, -1 none */
	uint64_t closable;             /* the next Feedback closes this
	                                  quantum or a later one */
	uint64_t heard;                /* its last Feedback, or its join */
	uint64_t joined;               /* when it joined: its usage totals
	                                  count from about then */
	int silent;                    /* counted as desiring nothing */
	int touched, held, fresh;      /* in s->touched, in s->held; its
	                                  first Allot is due */
	int want_grant, granted;       /* a grant due; given free
	                                  CPUs as it joined or woke: the
	                                  next tick tells it DEQ's answer */
	uint64_t recorded;             /* the tick that last recorded it */
	struct usage_totals tot;       /* usage totals it reported */
	struct deq_set sent;           /* the CPUs of its last Allot */
	uint64_t allot_q, decided;     /* its last Allot's quantum; when DEQ
	                                  decided it */
	unsigned logged;               /* kinds of bad input logged */
	struct bucket refused;         /* refused inputs it may still send
	                                  (schedinput.c, SCHED_REFUSED_*) */
	char cpus[CPULIST_MAX * 5];    /* its CPUs as a list, for the history */
	int rigid;                     /* launched with --cpus, not connected:
	                                  desire cap, no conn, never silent */
	int cap;                       /* --cpus N: its desire's cap, 0 none */
	int confined;                  /* confine_add took it */
	struct deq_set hold;           /* the CPUs it was last held to */
	int keep_row;                  /* leaving, its row is launch.c's */
	uint64_t usage_at;             /* rigid: when tot was last updated */
	struct sched_job *next_rigid;  /* s->rigids */
	char confstate[96];            /* its confinement, for a JobInfo */
	struct sched_job *older, *newer;   /* by last heard (not if silent) */
};

/* A user with connected jobs (--share user): DEQ's fairness state for
 * it lives in the same place of sched.udeq. */
struct sched_user {
	uid_t uid;
	int njobs;                     /* its jobs connected now */
	int to;                        /* its place once the users without
	                                  jobs are gone (users_prune) */
};

struct sched {
	struct event_base *base;
	const struct conf *conf;
	struct history *hist;
	struct history_health health;   /* the last Status's (its text is sent) */
	struct handover *handover;     /* NULL unless --handover release */
	uint64_t decided;              /* when the last tick's DEQ ran: the
	                                  held jobs wait for its sets */
	void (*read)(void *);          /* reads the jobs, at every tick */
	void (*urgent)(void *, int);   /* ... and as input comes, or not */
	void *read_arg;
	int urgent_on;
	int timer_fd;                  /* fires at t0 + q L + offset */
	struct event *timer_ev, *hold_ev, *grant_ev;
	int P;
	uint32_t cpus_u32[CPULIST_MAX];
	struct sched_job **jobs;       /* in id order: DEQ's stable order */
	struct deq_job *deq;           /* DEQ's state, as jobs[] */
	int *changed;                  /* DEQ's list of changed jobs */
	struct sched_user *users;      /* by uid: the users with jobs, and
	                                  those whose last job left since
	                                  the last tick */
	struct deq_user *udeq;         /* DEQ's state, as users[] */
	int nusers, ucap, users_gone;  /* users_gone: some have no job */
	struct sched_job **touched, **held;
	int njobs, cap, ntouched, nheld, nsilent, clients;
	struct sched_job *oldest, *newest;  /* by last heard */
	struct confine *confine;       /* measures jobs and holds them */
	int confine_mode;              /* enum conf_confine, resolved */
	struct deq_set idle_free;      /* the free CPUs the jobs holding
	                                  none were last held to */
	int idle_dirty;                /* a held job came to hold none */
	struct deq_set refill_free;    /* the free CPUs when last looked:
	                                  one more is a refill's cue */
	struct sched_job *rigids;      /* the rigid jobs */
	uint64_t rigid_usage_at;       /* their usage was last taken */
	double others[CPULIST_MAX];    /* scratch for the Status */
	struct sched_job *departed;    /* gone during a tick: their rows are
	                                  closed after its Allots (older) */
	int in_tick;
	uint64_t t0, t0_wall, L, offset, silence, bound, past;  /* ns; past
	                                  in quanta */
	uint64_t q;                    /* the last quantum ticked */
	uint64_t ticks, skipped, started;
	uint64_t epoch;         /* jobs that came or went: the history's
				   runs of turns end where it moves */
	uint64_t feedbacks, bad, allots, revocations, tick_sends, grants;
	struct samples tick, deq_time, wake, revoke, changes, sends;
};

/* sched_job.logged: bit 0 to 7 are schedinput.c's kinds of bad input. */
#define SCHED_LOGGED_CONFINE (1u << 8)   /* confine_set failed */

/* Defined in scheduler.c. */

/* Make room for one more job in every per-job array: 0, or -1. */
int sched__reserve(struct sched *s);

/* One more job of uid: the user's place in users[], or -1 when out of
 * memory. */
int sched__user_join(struct sched *s, uid_t uid);

/* Put a new job j of user place u into jobs[] and deq[] in id order. */
void sched__insert(struct sched *s, struct sched_job *j, int u);

/* The job was heard now: it goes to the newest end. */
void sched__heard_now(struct sched *s, struct sched_job *j, uint64_t now);

/* The job said something DEQ or the history must see at the next tick. */
void sched__touch(struct sched *s, struct sched_job *j);

/* The connected job with this id, or NULL (binary search: id order). */
struct sched_job *sched__find(const struct sched *s, uint64_t id);

/* The Linux CPU ids of a set of slots, ascending: their count. */
int sched__slot_cpus(const struct sched *s, const struct deq_set *set,
                     uint32_t *ids);

/* The same as ints (cpulist's and confine's type). */
int sched__slot_ints(const struct sched *s, const struct deq_set *set, int *cpus);

/* Whether j holds no CPU: none in DEQ's last answer, none it was told. */
int sched__holds_none(const struct sched *s, const struct sched_job *j);

/* Give the held jobs what is free now; while some still wait, their
 * losers' Released messages are read as they come.  Nothing during a
 * tick: the tick retries once its DEQ has run. */
void sched__retry_held(struct sched *s, uint64_t now);

/* A job that holds no CPU asked for some: while CPUs are free it gets
 * them at once (a grant), not at the next tick. */
void sched__job_woke(struct sched *s, struct sched_job *j);

/* Have the jobs read as their input comes (while a grant waits for a
 * Released, or while some CPU is free), or only at ticks. */
void sched__update_urgent(struct sched *s);

/* Defined in schedrigid.c. */

/* The desire DEQ sees for j: a rigid job's cap, 0 for a silent job,
 * else its last desire within its cap. */
int sched__desire(const struct sched_job *j);

/* j has joined: its process tree is measured, and confined if the mode
 * says so. */
void sched__confine_join(struct sched *s, struct sched_job *j);

/* j's CPUs are now the slots of set (about to be told, or rigid):
 * confine it (a set of none: it is left where it is, until
 * sched__confine_idle). */
void sched__confine_set(struct sched *s, struct sched_job *j,
                        const struct deq_set *set);

/* Hold the jobs holding no CPU to the free slots (none held or being
 * handed over), when there are some and they or the jobs changed. */
void sched__confine_idle(struct sched *s, const struct deq_set *free);

/* j leaves: release its process tree. */
void sched__confine_leave(struct sched *s, struct sched_job *j);

/* A rigid job's claim by a connecting job (sched_job_add): j becomes an
 * ordinary job on conn, its desire capped. */
struct sched_job *sched__rigid_connect(struct sched *s, struct sched_job *j,
                                       struct conn *conn,
                                       const Asteal__Hello *hello);

/* The rigid jobs' usage (CPU time of their trees, allotted time) into
 * their totals and the history, about every heartbeat; and for j now
 * (its allotment changes) when j is not NULL. */
void sched__rigid_usage(struct sched *s, struct sched_job *j, uint64_t now);

/* Defined in schedinput.c. */

/* The quantum running now on the shared clock. */
uint64_t sched__quantum_now(const struct sched *s, uint64_t now);

#endif
