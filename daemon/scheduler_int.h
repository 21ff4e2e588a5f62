/*
 * scheduler_int.h - what the files of asteald's job scheduler, the shell
 * around its core (core/core.h), share: scheduler.c (life and death, the
 * jobs joining and leaving, the core's other effects), schedtick.c (one
 * quantum: what the jobs say, the tick, the allotments delivered),
 * schedpage.c (the pages), schedview.c (what the command line sees and
 * does) and schedconfine.c (confinement, the rigid jobs' usage); private
 * to them (scheduler.h is the
 * interface, and no other file includes this one): the scheduler and its
 * jobs, each embedding the core's, and a few helpers, named sched__*.
 */
#ifndef ASTEAL_SCHEDULER_INT_H
#define ASTEAL_SCHEDULER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <event2/util.h>

#include "bucket.h"
#include "core.h"
#include "cpulist.h"
#include "jobpage.h"
#include "deq.h"
#include "history.h"
#include "message.h"
#include "samples.h"
#include "scheduler.h"

struct event;

/* A job: what the core decides for it (j->core, read-only here), and
 * what the shell keeps: its connection, identity, usage, confinement. */
struct sched_job {
	struct core_job core;          /* id, uid, desire, cap, rigid, silent,
	                                  sent, ...: core.h */
	struct conn *conn;
	char name[64];
	char command[256];
	pid_t pid;
	int workers;
	uint64_t start_ns;             /* wall clock */
	double desire_real;
	int cls;                       /* class index reported last, -1 none */
	uint64_t closable;             /* the next Feedback closes this
	                                  quantum or a later one */
	uint64_t joined;               /* when it joined: its usage totals
	                                  count from about then */
	struct usage_totals tot;       /* usage totals it reported */
	struct usage_totals before;    /* its history's totals when it
	                                  claimed its id, its usage away
	                                  added: its usage before this
	                                  connection (JobInfo adds it) */
	unsigned logged;               /* kinds of bad input logged */
	struct bucket refused;         /* refused inputs it may still send
	                                  (schedtick.c, SCHED_REFUSED_*) */
	char cpus[CPULIST_MAX * 5];    /* its CPUs as a list, for the history */
	int confined;                  /* confine_add took it */
	struct deq_set hold;           /* the CPUs it was last held to */
	struct deq_set shrink;         /* the CPUs to hold it to once its
	                                  revocation is done (shrinking) */
	int shrinking;
	int keep_row;                  /* leaving, its row is launch.c's */
	uint64_t usage_at;             /* rigid: when tot was last updated */
	struct sched_job *next_rigid;  /* s->rigids */
	struct sched_job *next_gone;   /* s->departed */
	char confstate[96];            /* its confinement, for a JobInfo */
	struct jobpage *page;          /* the page it writes its Feedback in,
	                                  or NULL: it sends messages */
	int64_t page_seq;              /* the page's count when last read */
	int64_t parked_seq;            /* its parked part's, likewise */
	uint32_t page_gen;             /* the allotment generation written */
	int page_allotted;             /* the allotment written last */
	struct event *wake_ev;         /* its eventfd: a revocation done */
	uint64_t idle_q, idle_at;      /* a revocation of idle slots only,
	                                  done as written (schedpage.c) */
	int idle_pending;              /* ... not yet told the core */
	int wakes;                     /* its signals since the tick */
	int wake_muted;                /* wake_ev unwatched until the tick */
	int wake_logged;               /* its muting was logged */
	struct sched *sched;           /* for wake_ev's callback */
};

/* The shell's job of a core job. */
static inline struct sched_job *sched__job(struct core_job *cj)
{
	return (struct sched_job *)((char *)cj - offsetof(struct sched_job, core));
}

struct sched {
	struct event_base *base;
	const struct conf *conf;
	struct history *hist;
	struct history_health health;   /* the last Status's (its text is sent) */
	struct core *core;             /* every decision (core.h) */
	void (*read)(void *);          /* reads the jobs, at every tick */
	void (*urgent)(void *, int);   /* ... and as input comes, or not */
	void *read_arg;
	int timer_fd;                  /* fires at t0 + q L + offset */
	struct event *timer_ev, *hold_ev, *grant_ev;
	int P;
	uint32_t cpus_u32[CPULIST_MAX];
	int clients;
	struct confine *confine;       /* measures jobs and holds them */
	int confine_mode;              /* enum conf_confine, resolved */
	struct sched_job *rigids;      /* the rigid jobs */
	uint64_t rigid_usage_at;       /* their usage was last taken */
	double others[CPULIST_MAX];    /* scratch for the Status */
	struct sched_job *departed;    /* gone during a tick: their rows are
	                                  closed after its Allots */
	int in_tick;
	uint64_t t0, t0_wall, L, offset, past;  /* ns; past in quanta */
	uint64_t q;                    /* the last quantum ticked */
	uint64_t ticks, skipped, started;
	uint64_t feedbacks, bad, allots, revocations, tick_sends, grants;
	uint64_t pages_read, pages_torn, pages_written, futex_wakes,
	         idle_revocations;
	uint64_t pages_failed;         /* asked for, not made or not sent */
	uint64_t pages_declined;       /* sent, and the job could not use it */
	int page_jobs;                 /* jobs with a page now */
	int page_allot_jobs;           /* ... reading their allotments there */
	int shrinking;                 /* jobs held to CPUs they lost */
	struct samples tick, deq_time, wake, revoke, changes, sends;
};

/* sched_job.logged: bit 0 to 7 are schedtick.c's kinds of bad input. */
#define SCHED_LOGGED_CONFINE (1u << 8)   /* confine_set failed */

/* The Linux CPU ids of a set of slots, ascending: their count. */
static inline int sched__slot_cpus(const struct sched *s,
                                   const struct deq_set *set, uint32_t *ids)
{
	int n = 0;

	for (int w = 0; w * 64 < s->P; w++)
		for (uint64_t bits = set->w[w]; bits != 0; bits &= bits - 1)
			ids[n++] = s->cpus_u32[w * 64 + __builtin_ctzll(bits)];
	return n;
}

/* The same as ints (cpulist's and confine's type). */
static inline int sched__slot_ints(const struct sched *s,
                                   const struct deq_set *set, int *cpus)
{
	int n = 0;

	for (int w = 0; w * 64 < s->P; w++)
		for (uint64_t bits = set->w[w]; bits != 0; bits &= bits - 1)
			cpus[n++] = (int)s->cpus_u32[w * 64 + __builtin_ctzll(bits)];
	return n;
}

/* Defined in scheduler.c. */

/* The connected job with this id, or NULL. */
struct sched_job *sched__find(const struct sched *s, uint64_t id);

/* A job gone: close its row (unless launch.c keeps it) and free it. */
void sched__bury(struct sched *s, struct sched_job *j);

/* j has just claimed its id (its history row open, tracked): its usage
 * before this connection is its history's totals, and what its Hello's
 * usage totals since it first joined under that id have beyond them, its
 * time away, goes into its history once (usage away), unless they are
 * more than its workers could have used since its row began (a log line,
 * nothing added). */
void sched__claim_usage(struct sched *s, struct sched_job *j,
                        const Asteal__Hello *hello);

/* Defined in schedtick.c. */

/* The tick timer fired: tick for the quantum now running (a tick the
 * loop was too late for is skipped and counted). */
void sched__on_timer(evutil_socket_t fd, short what, void *arg);

/* The quantum running now on the shared clock. */
uint64_t sched__quantum_now(const struct sched *s, uint64_t now);

/* Read every page at a tick (before the core's): a new Feedback in one is
 * taken as a message's would be, but for a quantum that is not new,
 * which is not news (a job writes its page at every boundary). */
void sched__pages_read(struct sched *s, uint64_t now);

/* The usage a job's workers could have used in span ns, and the slack of
 * PROTO_USAGE_SLACK_MS: what no total of a job's may exceed. */
uint64_t sched__usage_bound(uint64_t span, int workers);

/* The core's allot effect: confine the job to its slots if they moved,
 * then its allotment into its page or as an Allot; 0, or -1 (a peer going
 * away). */
int sched__op_allot(void *arg, struct core_job *cj, const struct core_allot *ca);

/* Send an allotment to a job as an Allot message: 0, or -1 (a peer going
 * away: its end comes). */
int sched__allot_send(struct sched *s, struct sched_job *j,
                      const struct core_allot *ca);

/* Write an allotment into the page of a job that reads them there
 * (instead of an Allot). */
void sched__page_allot(struct sched *s, struct sched_job *j,
                       const struct core_allot *ca);

/* Hold the jobs whose revocation is done or overdue to the CPUs they kept
 * (j: that one; NULL: every job still shrinking). */
void sched__shrink_done(struct sched *s, struct sched_job *j);

/* Defined in schedpage.c. */

/* At a tick, watch a job's eventfd again if it signalled it too often
 * since the last (the tick's page reads). */
void sched__page_wake_tick(struct sched_job *j);

/* Make the page a job's Hello asked for (none if it cannot be made: the
 * job sends messages), and drop it. */
void sched__page_make(struct sched *s, struct sched_job *j,
                      const Asteal__Hello *hello);
void sched__page_drop(struct sched *s, struct sched_job *j);

/* Defined in schedconfine.c, which calls nothing of scheduler.c. */

/* Whether the confine mode holds j to its CPUs. */
int sched__enforced(const struct sched *s, const struct sched_job *j);

/* j has joined: its process tree is measured, and confined if the mode
 * says so. */
void sched__confine_join(struct sched *s, struct sched_job *j);

/* j's CPUs are now the slots of set (about to be told, or rigid):
 * confine it (a set of none: it is left where it is, until
 * sched__confine_idle). */
void sched__confine_set(struct sched *s, struct sched_job *j,
                        const struct deq_set *set);

/* j holds no CPU: hold it to the free slots, if it is confined. */
void sched__confine_idle(struct sched *s, struct sched_job *j,
                         const struct deq_set *free);

/* j leaves: release its process tree. */
void sched__confine_leave(struct sched *s, struct sched_job *j);

/* The rigid jobs' usage (CPU time of their trees, allotted time) into
 * their totals and the history, about every heartbeat; and for j now
 * (its allotment changes) when j is not NULL. */
void sched__rigid_usage(struct sched *s, struct sched_job *j, uint64_t now);

#endif
