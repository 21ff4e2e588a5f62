/*
 * layer.h - the OpenMP layer's shared state: libgomp's ABI on libasteal
 * (../../../shared/DESIGN.md, "OpenMP programs"; docs/libasteal.md,
 * "OpenMP programs" tells how it runs end to end).
 *
 * The words:
 *  - a *thread* (struct omp_thr) is an OS thread of the program: the
 *    initial thread, or one of the pool's, which join teams;
 *  - a *slot* is one of the hosted runtime's libasteal workers (runtime.h,
 *    hosted): a processor of the job's allotment, with its accounting.  A
 *    thread runs OpenMP code only while it holds a slot (slot.c), so no
 *    more threads run than the job is allotted processors, and A-STEAL
 *    measures the slots exactly as it measures a libasteal job's workers;
 *  - a *team* (struct omp_team) is the threads of one parallel region;
 *    each runs its implicit task for the region's life and never migrates;
 *  - explicit tasks (struct omp_task) live on Chase-Lev deques (deque.h),
 *    one per thread and nesting level, and run on the stack of whichever
 *    team thread pops or steals them, at a scheduling point (wait.c).
 *
 * Every function below is internal (hidden); the exported names are the
 * GOMP_* and omp_* entry points, listed in libgomp.map.
 */
#ifndef ASTEAL_OMP_LAYER_H
#define ASTEAL_OMP_LAYER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deque.h"
#include "quantum.h"
#include "runtime.h"

#define OMP_API __attribute__((visibility("default")))

#define OMP_MAX_LEVELS 64              /* nesting depth with deques of its own */
#define OMP_WS_RING 16                 /* work shares a thread may run ahead */
#define OMP_SPIN_NS 100000             /* an idle thread spins this long */
#define OMP_SLOT_PATIENCE_NS 40000000  /* a slot wait longer than this runs
                                          anyway (see slot.c) */
#define OMP_READY_LIMIT 4              /* queued tasks before spawns run at once */
#define OMP_READY_LIMIT_MAX 1024

/* Schedule kinds as gcc passes them and omp_sched_t numbers them. */
enum { OMP_SCHED_RUNTIME = 0, OMP_SCHED_STATIC = 1, OMP_SCHED_DYNAMIC = 2,
       OMP_SCHED_GUIDED = 3, OMP_SCHED_AUTO = 4 };
#define OMP_SCHED_MONOTONIC 0x80000000u

/* GOMP_task's flags (gcc's gomp-constants.h). */
#define OMP_TASK_UNTIED    (1u << 0)
#define OMP_TASK_FINAL     (1u << 1)
#define OMP_TASK_MERGEABLE (1u << 2)
#define OMP_TASK_DEPEND    (1u << 3)
#define OMP_TASK_PRIORITY  (1u << 4)
#define OMP_TASK_UP        (1u << 8)
#define OMP_TASK_GRAINSIZE (1u << 9)
#define OMP_TASK_IF        (1u << 10)
#define OMP_TASK_NOGROUP   (1u << 11)
#define OMP_TASK_REDUCTION (1u << 12)
#define OMP_TASK_DETACH    (1u << 13)

/* GOMP_cancel's which. */
#define OMP_CANCEL_PARALLEL  1
#define OMP_CANCEL_LOOP      2
#define OMP_CANCEL_FOR       OMP_CANCEL_LOOP
#define OMP_CANCEL_DO        OMP_CANCEL_LOOP
#define OMP_CANCEL_SECTIONS  4
#define OMP_CANCEL_TASKGROUP 8

/* Internal control variables that belong to a data environment (a task). */
struct omp_icv {
	unsigned nthreads;          /* nthreads-var */
	unsigned thread_limit;      /* thread-limit-var */
	int dyn;                    /* dyn-var */
	int max_active_levels;      /* max-active-levels-var */
	unsigned sched;             /* run-sched-var: kind | OMP_SCHED_MONOTONIC */
	int chunk;                  /* its chunk size (0: the kind's default) */
	int bind;                   /* bind-var (omp_proc_bind_t) */
	int default_device;         /* default-device-var */
};

/* The process-wide settings: the environment's (env.c), read once. */
struct omp_global {
	struct omp_icv icv;         /* the initial task's ICVs */
	unsigned *nthreads_list;    /* OMP_NUM_THREADS's list: level i's value */
	size_t nthreads_len;
	int *bind_list;             /* OMP_PROC_BIND's list */
	size_t bind_len;
	size_t stacksize;           /* OMP_STACKSIZE in bytes; 0: the default */
	int wait_policy;            /* OMP_WAIT_POLICY: -1 unset, 0 passive, 1 active */
	int cancel;                 /* OMP_CANCELLATION */
	int max_task_priority;      /* OMP_MAX_TASK_PRIORITY */
	int display_env;            /* OMP_DISPLAY_ENV: 0, 1 (true), 2 (verbose) */
	int display_affinity;       /* OMP_DISPLAY_AFFINITY */
	char *affinity_format;      /* OMP_AFFINITY_FORMAT */
	char *places;               /* OMP_PLACES as given, or NULL */
	int nteams, teams_thread_limit;
	int target_offload;         /* 0 default, 1 mandatory, 2 disabled */
	uintptr_t default_allocator;
	int supported_levels;       /* omp_get_supported_active_levels */
	int team_policy;            /* ASTEAL_OMP_TEAM (below) */
	int nprocs;                 /* CPUs the process may run on */
};

/* How big a team is when the allotment is smaller than it asks
 * (ASTEAL_OMP_TEAM): the full requested size, with the threads beyond
 * the allotment waiting for a processor at scheduling points; or the
 * allotment at the region's start (as dyn-var would). */
enum { OMP_TEAM_FULL, OMP_TEAM_ALLOTMENT };

extern struct omp_global omp_g;

struct omp_team;
struct omp_thr;
struct omp_taskgroup;
struct omp_dephash;

/* A task: an implicit task of a team, an explicit task deferred (its
 * block holds its data after it), or an undeferred one (on the stack of
 * the thread that runs it).  A task's deferred children count it, and a
 * task ends only when they have all ended, so a task's descendants have
 * all ended when it has (a task that ends with children waits for them,
 * a scheduling point): its memory, its taskgroups and its dependences'
 * table outlive every task that points at them. */
struct omp_task {
	struct omp_task *parent;
	struct omp_team *team;              /* the binding team */
	_Atomic long children;              /* deferred children not ended */
	struct omp_taskgroup *taskgroup;    /* the innermost one it is in */
	struct omp_taskgroup *in_group;     /* the one its creation counted in */
	struct omp_taskgroup *cancel_group; /* the innermost one around its
	                                       creation (cancel taskgroup) */
	const struct omp_icv *icv;          /* its ICVs (&own_icv once changed) */
	struct omp_icv own_icv;
	unsigned depth;                     /* 0 for implicit tasks */
	unsigned char kind;                 /* enum below */
	unsigned char final;                /* final (omp_in_final) */
	unsigned char untied;
	unsigned char detach;               /* completes on omp_fulfill_event */
	_Atomic int detach_state;           /* bit 1: body ended, 2: fulfilled */
	void (*fn)(void *);
	void *data;
	struct omp_dephash *dephash;        /* its children's dependences, or NULL */
	struct omp_depnode *dep;            /* its own (deferred with depend), or NULL */
	struct omp_task *next;              /* the team's orphans list */
	unsigned size_class;                /* its block's class (task.c) */
	void *reductions;                   /* in_reduction lookups (reduction.c) */
};

enum { OMP_TASK_IMPLICIT, OMP_TASK_EXPLICIT, OMP_TASK_INCLUDED };

struct omp_taskgroup {
	struct omp_taskgroup *prev;         /* the task's enclosing one */
	struct omp_taskgroup *outer;        /* the one around it, across tasks */
	_Atomic long count;                 /* children created in it, not ended */
	_Atomic int cancelled;
	uintptr_t *reductions;              /* task_reduction data (reduction.c) */
	int workshare;                      /* made for a worksharing construct */
};

/* A work share: the state one worksharing construct (loop, sections,
 * copyprivate single) shares among its team.  Threads meet constructs in
 * the same order; thread i's k-th construct is ring[k % OMP_WS_RING]. */
struct omp_ws {
	_Atomic unsigned gen;        /* the construct number it holds (+1), 0 none */
	_Atomic unsigned ready;      /* gen once its first thread set it up */
	_Atomic unsigned left;       /* threads yet to finish with it */
	/* Loops (loop.c) and sections (work.c), in iteration indices:
	 * iteration i of n is start + i * incr (mod 2^64, so the same words
	 * serve long and unsigned long long loops).  next, written at every
	 * hand-out, has a line of its own: the bounds every thread reads
	 * then stay in every cache. */
	_Alignas(CACHELINE) _Atomic unsigned long long next;   /* next index to hand out */
	_Alignas(CACHELINE) unsigned long long n;              /* iterations */
	unsigned long long start, incr;
	unsigned long long chunk;           /* in iterations */
	int sched;                          /* OMP_SCHED_STATIC, _DYNAMIC, _GUIDED */
	/* ordered: the first index whose ordered parts may run (chunks pass
	 * it on in index order) */
	_Alignas(CACHELINE) _Atomic unsigned long long ordered_next;
	/* doacross: per outermost iteration, the flattened inner iteration
	 * posted last, plus 1 */
	_Atomic unsigned long long *doacross;
	unsigned ndims;
	unsigned long long inner;           /* iterations of the inner dimensions */
	unsigned long long *dims;           /* each dimension's count */
	/* copyprivate (work.c) */
	void *copy;
	/* sections (work.c) run as a dynamic loop over 1 .. count */
	/* task reductions of the construct (reduction.c) */
	uintptr_t *reductions;
	/* shared memory of GOMP_loop_start's mem argument */
	void *mem;
	size_t memsize;
	_Atomic int cancelled;
	char pad_[CACHELINE];
};

/* A team barrier: arrivals count up to the team size; the last arrival
 * bumps the generation. */
struct omp_barrier {
	_Atomic unsigned arrived;
	char pad_[CACHELINE - sizeof(unsigned)];
	_Atomic unsigned gen;
};

struct omp_team {
	unsigned n;                         /* threads */
	unsigned level, active_level;       /* omp_get_level, omp_get_active_level */
	struct omp_thr **thr;               /* members, by thread number */
	deque **dq;                         /* each member's deque in this team */
	struct omp_task *implicit;          /* n implicit tasks */
	struct omp_barrier bar;             /* barriers inside the region */
	struct omp_barrier endbar;          /* the region's end */
	_Atomic unsigned done;              /* members gone after the end */
	_Atomic uint32_t epoch;             /* futex: sleepers of the team */
	_Atomic int sleepers;
	_Atomic unsigned single;            /* GOMP_single_start's count */
	_Atomic int cancelled;              /* cancel parallel */
	_Atomic int ws_cancelled;           /* cancel for/sections, until the
	                                       next barrier completes */
	pthread_mutex_t lock;               /* orphans, the critical fallback */
	struct omp_task *orphans;           /* stolen where they could not run */
	_Atomic int norphans;
	struct omp_ws ws[OMP_WS_RING];
	/* What the master was doing before the region (team.c). */
	struct omp_team *prev_team;
	unsigned prev_num;
	struct omp_task *prev_task;
	unsigned prev_ws_next, prev_single_next;
	struct omp_ws *prev_ws;
	deque *prev_dq;
	unsigned long long prev_trip, prev_ord_lo, prev_ord_hi;
	int prev_ord_own;
	void (*fn)(void *);
	void *data;
	uintptr_t *reductions;              /* GOMP_parallel_reductions */
	int preset;                         /* ws[0] set up before the start */
	int took_slot;                      /* the master took a slot for it */
	unsigned team_num, num_teams;       /* the master's league (target.c) */
	struct omp_taskgroup *reduction_group;  /* reduction(task:) of the region */
	size_t capacity;                    /* members the allocation holds */
	struct omp_team *next_free;
};

/* A thread of the program, as the layer sees it. */
struct omp_thr {
	/* What the current code runs in (read at every entry point). */
	struct omp_team *team;              /* innermost team, NULL outside */
	struct omp_task *task;              /* the task running now */
	struct worker *slot;                /* the slot held, NULL when none */
	deque *dq;                          /* where its spawns go now */
	unsigned num;                       /* thread number in team */
	unsigned ws_next;                   /* work-share constructs met in team */
	unsigned single_next;
	struct omp_ws *ws;                  /* the innermost construct's */
	unsigned long long static_trip;     /* static chunks taken in this loop */
	unsigned long long ord_lo, ord_hi;  /* its current chunk (ordered) */
	int ord_own;                        /* it has one to pass on */
	struct omp_ws *solo;                /* constructs met outside teams */
	int64_t limit;                      /* queued tasks before spawns run at once */
	int state;                          /* the slot's accounting state (WS_*) */
	_Atomic uint64_t progress;          /* safe points passed (slot.c) */
	uint64_t rng;
	/* The thread. */
	int index;                          /* in the pool; 0: the initial thread */
	pthread_t pt;
	int cpu;                            /* pinned to, or -1 */
	int last_slot;                      /* the slot it held last, or -1 */
	unsigned set_gen;                   /* cpu -1: pinned to the allotted
	                                       CPUs of this allotment (slot.c) */
	deque *dqs[OMP_MAX_LEVELS];         /* one deque per nesting level */
	struct omp_task root;               /* the initial task (initial thread) */
	/* Pool and slot hand-offs (futex). */
	_Atomic uint32_t word;
	_Atomic int dozing;                 /* a pool thread asleep on word */
	_Atomic(struct omp_team *) next_team;   /* given by a master */
	unsigned next_num;
	struct omp_thr *next;               /* pool list / slot waiters */
	struct worker *granted;             /* a slot handed over while waiting */
	int waiting;                        /* queued for a slot */
	int napping;                        /* asleep in omp_wait (slot.c) */
	struct omp_thr *nap_next;
	unsigned overruns;                  /* slot waits that ran anyway */
	/* Host teams (target.c): this thread's league; the target regions it
	 * entered from inside a team and is still in. */
	unsigned team_num, num_teams;
	unsigned target_in_team;
	/* As a master: the pool threads of its last team, by thread number,
	 * taken again in the same places (threadprivate data persists
	 * between regions of one team size, as OpenMP promises). */
	struct omp_thr **crew;
	unsigned ncrew;
	int idle;                           /* in the pool's idle list */
	unsigned aff_shown[3];              /* OMP_DISPLAY_AFFINITY: the level,
	                                       team size and number shown last,
	                                       each plus 1 (0: none yet) */
	/* Task blocks kept for reuse (task.c). */
	void *cache[8];
	unsigned ncache[8];
	/* Locks held (lock.c keeps nothing here). */
};

extern __thread struct omp_thr *omp_self
	__attribute__((tls_model("initial-exec")));

/* ---- init.c: starting the layer ---- */

/* The calling thread's state, made (and the layer started) on first use. */
struct omp_thr *omp_thr_first(void);

/* The calling thread's state, starting the layer on first use. */
static inline struct omp_thr *omp_thr_get(void)
{
	struct omp_thr *t = omp_self;

	return __builtin_expect(t != NULL, 1) ? t : omp_thr_first();
}

/* The hosted runtime (NULL before the layer started). */
extern struct runtime *omp_rt;

/* Report an entry point or a use the layer does not provide and end the
 * process: one line naming it, exit status 1 (never a silent wrong
 * answer). */
__attribute__((noreturn)) void omp_unsupported(const char *entry, const char *what);

/* A broken invariant: one line and abort. */
__attribute__((noreturn)) void omp_fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* ---- slot.c: processors ---- */

/* Take a slot for t (blocking until one is free, within patience). */
void omp_slot_acquire(struct omp_thr *t);

/* Give t's slot back (to a waiting thread, or free). */
void omp_slot_release(struct omp_thr *t);

/* t leaves its outermost team for serial code and keeps its slot lazily;
 * omp_slot_resume, at its next region, takes it back or another. */
void omp_slot_lazy(struct omp_thr *t);
bool omp_slot_resume(struct omp_thr *t);

/* The safe point's slow path: the slot was revoked or re-pinned. */
void omp_slot_check(struct omp_thr *t);

/* t naps in omp_wait: its slot goes (omp_slot_release) and, while it
 * sleeps, an allotment that leaves a slot free wakes its team, so that
 * a processor given to the job finds a thread to run on it. */
void omp_slot_nap_begin(struct omp_thr *t);
void omp_slot_nap_end(struct omp_thr *t, bool acquire);

/* t is about to block outside the layer's waits (a lock, an event):
 * its slot goes to whoever needs one; omp_slot_unblock takes one back. */
void omp_slot_block(struct omp_thr *t);
void omp_slot_unblock(struct omp_thr *t);

/* Threads waiting for a slot (a hint). */
extern _Atomic int omp_slot_waiters;

/* A forked child starts afresh (init.c's fork handler calls these; the
 * second is pool.c's). */
void omp_slot_fork_child(void);
void omp_team_fork_child(void);

/* The allotment hook of the hosted runtime (runtime.h). */
void omp_slot_allot(struct runtime *rt);

/* Enter accounting state s on the slot held (WS_WORK or WS_STEAL). */
void omp_slot_state(struct omp_thr *t, int s);

/* A safe point: two loads when nothing is asked (the page's generation,
 * the slot's flags; applying a new allotment may ask), and the thread's count of
 * them (its own line; a thread waiting for a slot reads it to tell
 * holders that make progress from holders spinning in user code). */
static inline void omp_safepoint(struct omp_thr *t)
{
	struct worker *s = t->slot;

	atomic_store_explicit(&t->progress, atomic_load_explicit(&t->progress,
	                      memory_order_relaxed) + 1, memory_order_relaxed);
	if (omp_rt != NULL)             /* NULL: a forked child's, anew */
		quantum_page_look(omp_rt); /* a new allotment in the page */
	if (s == NULL || atomic_load_explicit(&s->hot.flags, memory_order_relaxed))
		omp_slot_check(t);
}

/* ---- wait.c: scheduling points ---- */

enum { OMP_WAIT_ANY, OMP_WAIT_TIED, OMP_WAIT_NONE };
#define OMP_WAIT_NOSLOT 0x100          /* or'ed in: the caller runs nothing
                                          after the wait, so a wait that
                                          ends asleep takes no slot back */

/* Wait until done(arg) holds.  Meanwhile run the team's tasks (mode
 * OMP_WAIT_ANY: any; OMP_WAIT_TIED: descendants of the current task, as
 * the task scheduling constraints allow; OMP_WAIT_NONE: none), give the
 * slot up when it is revoked or someone waits for one, and sleep when
 * there is nothing to do.  Returns in state WS_WORK, holding a slot
 * unless OMP_WAIT_NOSLOT. */
void omp_wait(struct omp_thr *t, bool (*done)(void *), void *arg, int mode);

/* Spin (OMP_WAIT_POLICY's time) until *word moves from e or cond(arg);
 * whether it did. */
bool omp_spin_until(_Atomic uint32_t *word, uint32_t e, bool (*cond)(void *),
                    void *arg);

/* Wake the team's sleepers: one (new work), or all (a condition changed). */
void omp_wake(struct omp_team *team, int all);

/* ---- team.c, barrier.c: parallel regions (team_int.h) ---- */

/* Wait at the team's barrier (tasks run meanwhile); true when the
 * parallel region was cancelled (cancellable barriers only). */
bool omp_barrier(struct omp_thr *t, bool cancellable);

/* What starts a parallel region: fn(data) on num_threads threads (0: the
 * ICVs' choice), at most count (0: no cap; sections), with task
 * reductions, and with the team's first worksharing construct set up
 * before the threads start (combined parallel loops and sections: preset
 * fills the share). */
struct omp_region {
	void (*fn)(void *);
	void *data;
	unsigned num_threads, flags, count;
	uintptr_t *reductions;
	void (*preset)(struct omp_ws *ws, void *arg, unsigned n);
	void *preset_arg;
};

/* Start a team for region r with the calling thread as its master;
 * returns once the master's part is set up (the master then runs fn and
 * calls omp_team_end). */
void omp_team_begin(const struct omp_region *r);

/* The master's end of the region. */
void omp_team_end(void);

/* A target region run on the host (target.c) is a new initial task: the
 * calling thread's place in its teams is saved and cleared around it. */
struct omp_thr_save {
	struct omp_team *team;
	struct omp_task *task;
	struct omp_ws *ws;
	deque *dq;
	unsigned num, ws_next, single_next;
	unsigned long long static_trip, ord_lo, ord_hi;
	int ord_own;
	unsigned team_num, num_teams;
	struct omp_task initial;            /* the target region's initial task */
};
void omp_target_enter(struct omp_thr_save *s);
void omp_target_leave(struct omp_thr_save *s);

/* The number of threads a new region asked for n (0: nthreads-var) gets. */
unsigned omp_team_size(struct omp_thr *t, unsigned n);

/* ---- task.c ---- */

/* The ICVs of the current task, to read. */
static inline const struct omp_icv *omp_icv(void)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->task != NULL ? t->task->icv : &omp_g.icv;
}

/* The ICVs of the current task, to change (the task's own copy). */
struct omp_icv *omp_icv_mut(void);

/* Create a task: GOMP_task's arguments, and for a taskloop's tasks the
 * two bounds (range, each range_size bytes) written at the start of the
 * task's copy of its data. */
void omp_task_create(void (*fn)(void *), void *data,
                     void (*cpyfn)(void *, void *), long arg_size,
                     long arg_align, bool if_clause, unsigned flags,
                     void **depend, int priority, void *detach,
                     const void *range, size_t range_size);

/* Run a task popped or stolen from a deque (on t, at a scheduling point). */
void omp_task_run(struct omp_thr *t, struct omp_task *task);

/* Wait until the current task's children have ended. */
void omp_task_wait_children(struct omp_thr *t, struct omp_task *task);

/* Find one task t may run now (mode as omp_wait) and run it; 1 if run. */
int omp_task_find_run(struct omp_thr *t, int mode);

/* Whether anything is queued in t's team for anyone. */
bool omp_task_visible(struct omp_team *team);

/* Make a ready deferred task runnable: push it on t's deque. */
void omp_task_push(struct omp_thr *t, struct omp_task *task);

/* Whether the task must not run: its parallel or taskgroup is cancelled. */
bool omp_task_cancelled(const struct omp_task *task);

/* Whether tasks task creates now are cancelled before they start (also
 * what cancel taskgroup's cancellation points ask). */
bool omp_creation_cancelled(const struct omp_task *task);

/* ---- depend.c ---- */

/* Register a deferred task's dependences in its parent's table; the
 * number of predecessors it must wait for (0: ready now). */
long omp_dep_add(struct omp_task *parent, struct omp_task *task, void **depend);

/* A task with dependences ended: release its successors (pushing the
 * ready ones on t's deque) and leave its parent's table. */
void omp_dep_done(struct omp_thr *t, struct omp_task *task);

/* Wait (a scheduling point) until the sibling tasks that an undeferred
 * task or a taskwait with these dependences must follow have ended. */
void omp_dep_wait(struct omp_thr *t, void **depend);

/* Free the table of a task whose children have all ended. */
void omp_dep_free(struct omp_task *task);

/* ---- work.c ---- */

/* Enter the next worksharing construct: its work share, and whether this
 * thread is the first there (then it sets the share up and calls
 * omp_ws_ready).  Outside teams, the thread's own share. */
struct omp_ws *omp_ws_enter(struct omp_thr *t, bool *first);

/* The first thread finished setting up ws. */
void omp_ws_ready(struct omp_ws *ws);

/* This thread is done with its innermost construct's share. */
void omp_ws_leave(struct omp_thr *t);

/* ---- reduction.c ---- */

/* Set up, for a team of n, the task reductions of a parallel region. */
void omp_reduction_parallel(struct omp_team *team, uintptr_t *data, unsigned n);

/* A worksharing construct's task reductions for t (first: it set the
 * construct up; the others share its copies). */
void omp_reduction_workshare(struct omp_thr *t, struct omp_ws *ws,
                             uintptr_t *data, bool first);

/* ---- env.c ---- */

/* Read the OMP_* and ASTEAL_OMP_* environment into omp_g (once, from the
 * library's constructor), with libgomp's answers to bad values. */
void omp_env_init(void);

/* Print the OpenMP environment (OMP_DISPLAY_ENV, omp_display_env). */
void omp_env_display(int verbose);

#endif
