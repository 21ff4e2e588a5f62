/*
 * asteal.h - the public interface of libasteal, a fork/join work-stealing
 * runtime for C11 programs.
 *
 * A program starts one runtime per process, runs root tasks on it, and
 * stops it:
 *
 *     asteal_start(NULL);              // workers: ASTEAL_WORKERS or all CPUs
 *     asteal_run(root, &arg);          // blocks until root and its children end
 *     asteal_stop();
 *
 * Inside a task, parallelism is expressed with task groups:
 *
 *     asteal_group g;
 *     asteal_group_init(&g);
 *     asteal_spawn(&g, child, &child_arg);   // child may run in parallel
 *     ...                                    // the caller goes on
 *     asteal_sync(&g);                       // every child of g has finished
 *
 * A child's argument must stay valid until the sync; it usually lives in
 * the caller's stack frame.  When asteal_spawn returns 1 the child has
 * already finished and its argument can be reused at once (a loop that
 * spawns many children then needs only one slot for the ones that ran).  Every group that spawned must be synced before
 * the function that owns it returns, and groups are synced innermost first.
 *
 * Lazy spawning.  A spawn makes its child stealable (pushes it on the
 * worker's deque) only while that deque holds fewer than the ready limit of
 * stealable tasks; otherwise the child runs at once, as a plain call.  Idle
 * workers steal from the top of deques, where the oldest and largest tasks
 * are, so a few stealable tasks per worker keep them busy while most spawns
 * cost a function call.  The limit is set by asteal_options.ready_limit or
 * ASTEAL_READY_LIMIT; a limit of 0 means "never inline": every spawn is
 * pushed.  Each worker's limit adapts to its thieves: it starts at the one
 * set, doubles (up to 4096) whenever a thief takes the last stealable task
 * of the deque, and halves back when the owner keeps popping its own tasks
 * with nobody asking, so jobs whose stolen tasks are tiny keep more of them
 * stealable.
 *
 * Syncs never block a thread: a sync whose children were stolen and are
 * still running suspends the task's fiber, and the worker goes on with
 * other work; the last child to finish makes the fiber ready again.
 *
 * Errors: functions that can fail return 0 on success and -1 on failure
 * with errno set; misuse (a sync outside a task, a second start, ...) also
 * prints one line naming the call on stderr.  The library never exits the
 * process on a recoverable error.
 *
 * Adaptivity (A-STEAL).  Every quantum the runtime measures its work, steal
 * and mug time, computes its desire for processors (the A-STEAL paper's
 * Fig. 1) and runs on an allotment of min(desire, availability) workers;
 * the others leave at their next safe point (a spawn, a sync, asteal_poll,
 * or while looking for work) and their deques are mugged by workers that
 * run dry.  The reported desire is the real desire rounded up, at least 1
 * and at most the worker count.  Without a daemon the availability is all
 * workers, or a scripted profile.
 *
 * Environment: ASTEAL_WORKERS (worker count), ASTEAL_STACK_SIZE (fiber
 * stack reservation in bytes, K/M/G suffixes allowed; default 64M),
 * ASTEAL_READY_LIMIT; ASTEAL_MODE (asteal, the default; abp: no feedback,
 * yielding thieves, as the paper's ABP; static: every worker always, no
 * quanta), ASTEAL_QUANTUM_MS (default 10), ASTEAL_DELTA (0.8), ASTEAL_RHO
 * (1.5), ASTEAL_PROFILE (a file, one availability per line, per quantum;
 * the last line repeats), ASTEAL_TRACE (a CSV file, one row per quantum),
 * ASTEAL_STATS=1 (a summary and per-worker lines on stderr at stop).
 */
#ifndef ASTEAL_H
#define ASTEAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#error "asteal.h is a C11 header"
#endif

#define ASTEAL_VERSION "0.1.0"

/* What libasteal exports: the functions below and the few asteal__ names
 * the inline fast paths use, all in the version node ASTEAL_1.  Everything
 * else in the shared library is hidden (it is built with
 * -fvisibility=hidden and the version script client-lib/libasteal.map), so
 * a program cannot come to depend on it. */
#if defined(__GNUC__)
#define ASTEAL_API __attribute__((visibility("default")))
#else
#define ASTEAL_API
#endif

/* Options for asteal_start; a zero field means "use the default". */
typedef struct asteal_options {
	int workers;        /* worker threads; default ASTEAL_WORKERS, else online CPUs */
	size_t stack_size;  /* bytes reserved per fiber stack; default 64 MiB */
	int ready_limit;    /* lazy spawn threshold (see above); -1: default (4), 0: push every spawn */
} asteal_options;

/* Statistics of one worker since asteal_start (or asteal_stats_reset). */
typedef struct asteal_worker_stats {
	uint64_t tasks;           /* tasks run from a deque (popped or stolen) and roots */
	uint64_t pushed;          /* spawns made stealable (the others ran at once,
	                             as plain calls, and are not counted) */
	uint64_t steal_attempts;  /* attempts on another deque */
	uint64_t steals;          /* successful steals */
	uint64_t stolen;          /* tasks those steals took (a steal takes up
	                             to half of what its victim shows) */
	uint64_t suspends;        /* syncs that suspended their fiber */
	uint64_t sleeps;          /* times the worker slept for lack of work */
	uint64_t mugs;            /* muggable deques taken over whole */
	uint64_t leaves;          /* times the allotment took the worker away */
	uint64_t work_ns;         /* CPU time running tasks */
	uint64_t steal_ns;        /* CPU time looking for work (awake) */
	uint64_t sleep_ns;        /* wall time asleep, allotted but idle */
	uint64_t mug_ns;          /* CPU time taking over deques */
	uint64_t park_ns;         /* wall time parked, not allotted */
	uint64_t preempted_ns;    /* wall time allotted but not run: the thread
	                             waited for its processor (another process
	                             had it, or the thread had not started) */
	uint64_t leave_ns;        /* wall time from being told to leave to
	                             parking (revocation latency, not allotted) */
} asteal_worker_stats;

/* The job's adaptive scheduling so far (asteal_summary_get).  Work, steal
 * and mug are CPU time; sleep, preempted and allotted wall time; allotted =
 * work + steal + mug + sleep + preempted.  A-STEAL's usage is work + mug. */
typedef struct asteal_summary {
	const char *mode;         /* "asteal", "abp" or "static" */
	uint64_t job_id;          /* the daemon's id for this job; 0 standalone */
	int workers;
	uint64_t quanta;          /* quanta finished (0 in static mode) */
	double mean_allotment;    /* over the finished quanta */
	double desire;            /* the current desire, real (0 while no
	                             root task is in flight) */
	int allotment;            /* the current allotment */
	uint64_t work_ns, steal_ns, mug_ns, allotted_ns;
	uint64_t sleep_ns;        /* allotted workers asleep for lack of work */
	uint64_t preempted_ns;    /* allotted wall time the threads did not run */
	uint64_t leave_ns;        /* workers told to leave, until they parked */
	uint64_t inefficient, satisfied, deprived;  /* quanta of each class
	                             (a quantum the job spent idle all
	                             through, desire 0, has none) */
	uint64_t mugs, leaves;    /* deques mugged; workers that left */
	uint64_t revocations;     /* allotment losses carried out */
	uint64_t latency_p50_ns, latency_p99_ns, latency_max_ns;
	                          /* from a loss (the daemon's decision, on
	                             the shared clock) to the last leaver parked */
	uint64_t skipped;         /* quantum boundaries the link thread missed
	                             (it ran late by a whole quantum) */
} asteal_summary;

/* Fill *o with the defaults (all fields "default"). */
ASTEAL_API void asteal_options_init(asteal_options *o);

/* Start the process's runtime; o may be NULL.  Fails with EALREADY when a
 * runtime is running and EINVAL on a bad option or environment value. */
ASTEAL_API int asteal_start(const asteal_options *o);

/* Stop the runtime and free its threads and memory.  Fails with EBUSY while
 * a root task runs or when called from inside a task, ESRCH if not started. */
ASTEAL_API int asteal_stop(void);

/* Run fn(arg) as a root task and wait until it and all its children end.
 * Called from inside a task, it simply calls fn(arg). */
ASTEAL_API int asteal_run(void (*fn)(void *), void *arg);

/* Number of workers of the running runtime, 0 if none. */
ASTEAL_API int asteal_workers(void);

/* Index of the calling worker in [0, asteal_workers()), -1 outside tasks. */
ASTEAL_API int asteal_worker_id(void);

/* Copy up to n workers' statistics into out; returns the number copied. */
ASTEAL_API int asteal_stats(asteal_worker_stats *out, int n);

/* Zero every worker's statistics (call between runs, not during one). */
ASTEAL_API void asteal_stats_reset(void);

/* Fill *s with the job's adaptive scheduling summary; -1 (ESRCH) when no
 * runtime runs. */
ASTEAL_API int asteal_summary_get(asteal_summary *s);

/* Run body(lo', hi', arg) over disjoint subranges covering [lo, hi) in
 * parallel, each at most grain long (grain <= 0: chosen from the range and
 * the worker count).  Must be called from inside a task.  The header
 * carries an inline fast path (below): while the worker's deque is
 * stocked, chunks run in place as a plain loop, which the compiler can
 * fuse with a body it sees; the library splits the range only when
 * someone wants work. */
ASTEAL_API int asteal_for(long lo, long hi, long grain,
                          void (*body)(long lo, long hi, void *arg), void *arg);

/* ------------------------------------------------------------------------
 * Task groups.  The struct is public so that it can live on the stack; its
 * fields are private.
 */
typedef struct asteal_group {
	/* ASTEAL__GROUP_IDLE when no child is outstanding (the only state
	 * in which asteal_sync returns at once), else a state private to the
	 * library.  One word, so that a group whose children all ran at once
	 * costs one store and one compare. */
	uint64_t state;
	int64_t pushed;            /* children pushed and not taken back */
	_Atomic int64_t join;      /* completion count of stolen children */
	void *waiter;              /* fiber suspended in asteal_sync */
} asteal_group;

#define ASTEAL__GROUP_IDLE 0x61737467u      /* initialised inside a task */
#define ASTEAL__GROUP_OUTSIDE 0x6f757473u   /* initialised outside any task */

/* Prepare g for spawns; cheap, call it once per group. */
static inline void asteal_group_init(asteal_group *g);

/* Spawn fn(arg) as a child of g.  Returns 1 when the child has already
 * run to completion (lazy spawning ran it at once: its argument may be
 * read and reused right away), 0 when it was deferred (it may run in
 * parallel; its argument must stay untouched until asteal_sync), and -1 on
 * failure: EPERM outside a task, EINVAL for an uninitialised group. */
static inline int asteal_spawn(asteal_group *g, void (*fn)(void *), void *arg);

/* Wait until every child of g has finished.  Fails (EPERM) outside a task,
 * (EINVAL) on a group that was not initialised. */
static inline int asteal_sync(asteal_group *g);

/* A safe point for long leaf code: lets the runtime take back the worker's
 * processor (A-STEAL allotment changes) without waiting for a spawn or sync. */
static inline void asteal_poll(void);

/* ------------------------------------------------------------------------
 * Inline fast paths.  Everything below is private to libasteal.
 */
struct asteal__ends {                  /* the first bytes of every deque */
	_Atomic int64_t top;           /* written by thieves */
	char pad_[64 - sizeof(int64_t)];
	_Atomic int64_t bottom;        /* written by the owner only */
};

struct asteal__loop;

/* The asteal_for frames of the fiber running on a worker (the fiber keeps
 * them while it is switched out): the innermost, the outermost, and the
 * frame the library's search for work to promote starts at (every frame
 * outside it has nothing left to give). */
struct asteal__loops {
	struct asteal__loop *inner, *outer, *mark;
};

struct asteal__hot {                   /* the first bytes of every worker */
	struct asteal__ends *dq;       /* the deque the worker owns now */
	_Atomic uint32_t flags;        /* nonzero: a safe point has work to do */
	uint32_t id;
	struct asteal__loops loops;
};

/* Per-thread words the fast paths read straight off the thread pointer
 * (one load, no pointer to chase). */
struct asteal__fast {
	/* Nonzero while the running worker's deque holds at least its ready
	 * limit of entries: then a spawn runs its child at once.  Set by the
	 * owner after a push, cleared by the owner's pops, by thieves' steals
	 * and by the allotment; a hint (running a child at once is always
	 * correct).  Always 0 outside worker threads. */
	_Atomic uint32_t stocked;
	/* What asteal_group_init writes: ASTEAL__GROUP_IDLE on worker
	 * threads, ASTEAL__GROUP_OUTSIDE elsewhere. */
	uint32_t group;
	/* The word that says the daemon is taking the running worker's
	 * processor: its slot's stop word in the page the job shares with
	 * asteald, when its allotments come there (nonzero: pass a safe
	 * point), else a word that stays 0.  Never NULL. */
	_Atomic(const _Atomic uint32_t *) stop;
};

ASTEAL_API extern __thread struct asteal__hot *asteal__tls
	__attribute__((tls_model("initial-exec")));
ASTEAL_API extern __thread struct asteal__fast asteal__fast
	__attribute__((tls_model("initial-exec")));

ASTEAL_API int asteal__spawn_slow(asteal_group *g, void (*fn)(void *), void *arg);
ASTEAL_API int asteal__for_slow(long lo, long hi, long grain,
                                void (*body)(long lo, long hi, void *arg),
                                void *arg);
ASTEAL_API int asteal__sync_slow(asteal_group *g);
ASTEAL_API void asteal__poll_slow(void);

/* The calling worker as a hint: NULL outside tasks, else a live worker of
 * the runtime.  A task's fiber can move to another thread in a spawn, sync
 * or poll, and compilers may keep a thread-local's address across such a
 * call, so after a move this may still name the worker the task left.  The
 * fast paths below use it only to choose between running a child at once
 * and calling the library, which is right either way; the library itself
 * reads the thread pointer exactly (worker_self in runtime.h).  The same
 * caution applies to tasks' own thread-locals, errno included: do not rely
 * on their addresses across spawn, sync or poll. */
static inline struct asteal__hot *asteal__self(void)
{
	return asteal__tls;
}

static inline void asteal_group_init(asteal_group *g)
{
	/* The rest of the group is set up by its first push.  Whether we
	 * are inside a task is noted here, so that sync's fast path need not
	 * look. */
	g->state = asteal__fast.group;
}

/* How the stop pointer is loaded.  The word read through it is the page
 * the link thread mapped before it stored the pointer, so the load wants
 * consume: relaxed gives that on every architecture libasteal builds for
 * (the second load depends on the first's address), but ThreadSanitizer
 * follows no dependency, so its builds load with acquire. */
#if defined(__SANITIZE_THREAD__)
#define ASTEAL__STOP_LOAD memory_order_acquire
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ASTEAL__STOP_LOAD memory_order_acquire
#endif
#endif
#ifndef ASTEAL__STOP_LOAD
#define ASTEAL__STOP_LOAD memory_order_relaxed
#endif

/* Whether a spawn may run its child at once, passing no safe point: the
 * running worker is stocked and the daemon is not taking its processor.
 * Thread-local reads at a fixed offset from the thread pointer: after the
 * task moved to another thread they read that thread's words (and stale
 * ones would only be a hint, see asteal__self). */
extern inline __attribute__((gnu_inline, always_inline)) int
asteal__stocked(void)
{
	return atomic_load_explicit(&asteal__fast.stocked, memory_order_relaxed) != 0 &&
	       atomic_load_explicit(atomic_load_explicit(&asteal__fast.stop,
	                                                 ASTEAL__STOP_LOAD),
	                            memory_order_relaxed) == 0;
}

static inline int asteal_spawn(asteal_group *g, void (*fn)(void *), void *arg)
{
	if (__builtin_expect(asteal__stocked(), 1)) {
		fn(arg);
		return 1;
	}
	return asteal__spawn_slow(g, fn, arg);
}

static inline int asteal_sync(asteal_group *g)
{
	if (__builtin_expect(g->state == ASTEAL__GROUP_IDLE, 1))
		return 0;
	return asteal__sync_slow(g);
}

static inline void asteal_poll(void)
{
	struct asteal__hot *h = asteal__self();

	if (h != NULL && (atomic_load_explicit(&h->flags, memory_order_relaxed) ||
	                  atomic_load_explicit(atomic_load_explicit(&asteal__fast.stop,
	                                                            ASTEAL__STOP_LOAD),
	                                       memory_order_relaxed)))
		asteal__poll_slow();
}

/* asteal_for's frames.  A running loop registers one on its fiber
 * (struct asteal__loops): its range, where its next chunk starts, and
 * room for the parts the library splits off it.  The library promotes
 * on demand (in the manner of heartbeat scheduling): when a thief asked
 * for work and the deque is empty, the owner's next chunk boundary gives
 * the right half of the oldest frame's remaining iterations to thieves as
 * one task of that frame's group, and lowers the frame's hi.  So a loop
 * costs no push while nobody asks, and a thief gets the biggest piece of
 * work there is.  Only the fiber's own code touches its frames. */
#define ASTEAL__LOOP_SPLITS 8

struct asteal__range {                 /* a part split off a loop */
	long lo, hi;
	struct asteal__loop *loop;
};

struct asteal__loop {
	long next;                     /* first iteration not started */
	long hi;                       /* end: promotion lowers it */
	long grain;
	void (*body)(long lo, long hi, void *arg);
	void *arg;
	struct asteal__loop *outer;    /* enclosing frame, or NULL */
	struct asteal__loop *inner;    /* the frame inside (stale if none) */
	int nsplit;                    /* split[] in use (valid while g busy) */
	asteal_group g;                /* the split parts' group */
	struct asteal__range split[ASTEAL__LOOP_SPLITS];
};

ASTEAL_API extern intptr_t asteal__tls_offset;

/* The calling worker, exactly (NULL outside worker threads): the thread
 * pointer is read with a volatile asm each time, so it is right even after
 * the fiber moved to another thread inside a call, which a compiler-cached
 * thread-local address is not.  asteal__tls is at asteal__tls_offset from
 * the thread pointer, in the static TLS block (recorded at load time). */
extern inline __attribute__((gnu_inline, always_inline)) struct asteal__hot *
asteal__self_exact(void)
{
	uintptr_t tp;

#if defined(__x86_64__)
	__asm__ volatile("movq %%fs:0, %0" : "=r"(tp));
#elif defined(__aarch64__)
	__asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
#else
#error "libasteal supports x86-64 and aarch64"
#endif
	return *(struct asteal__hot **)(tp + (uintptr_t)asteal__tls_offset);
}

/* The loop's chunk boundary found the stocked hint clear: pass the safe
 * point, promote work if thieves want some, and set the hint again. */
ASTEAL_API void asteal__for_poll(void);

/* Run [lo, hi) a grain at a time on a worker (h, exact), with the frame
 * registered so that the library can split it off for thieves; then wait
 * for the parts it split off. */
extern inline __attribute__((gnu_inline, always_inline)) void
asteal__for_run(struct asteal__hot *h, long lo, long hi, long grain,
                void (*body)(long lo, long hi, void *arg), void *arg)
{
	struct asteal__loop f;

	f.hi = hi;
	f.grain = grain;
	f.body = body;
	f.arg = arg;
	f.g.state = ASTEAL__GROUP_IDLE;
	f.outer = h->loops.inner;
	if (f.outer != NULL)
		f.outer->inner = &f;
	else
		h->loops.outer = &f;
	h->loops.inner = &f;
	for (;;) {
		long end = f.hi;        /* a promotion may have lowered it */
		/* Before each chunk but the last (the first too, so that a
		 * loop of long chunks is split before it starts one), the
		 * hint (see asteal__self; a stale one only delays the poll or
		 * makes a needless one).  A chunk runs after every poll, so
		 * the loop progresses even if the hint stays clear. */
		if (!asteal__stocked() && end - lo > grain) {
			f.next = lo;
			asteal__for_poll();
			end = f.hi;
		}
		if (end - lo <= grain) {
			f.next = end;
			if (end > lo)
				body(lo, end, arg);
			break;
		}
		f.next = lo + grain;
		body(lo, lo + grain, arg);
		lo += grain;
	}
	/* The body may have moved this fiber to another thread. */
	h = asteal__self_exact();
	h->loops.inner = f.outer;
	if (h->loops.mark == &f)
		h->loops.mark = f.outer;
	if (f.g.state != ASTEAL__GROUP_IDLE)
		asteal__sync_slow(&f.g);
}

/* asteal_for's fast path, inlined where the header is seen (GNU inline
 * semantics: the library keeps the out-of-line asteal_for, so programs
 * built against an older header still link).  On a worker thread, a range
 * of more than one chunk runs in place (asteal__for_run); anything else
 * (a grain to choose, outside tasks, bad arguments) goes to the library. */
#ifndef ASTEAL__FOR_OUT_OF_LINE
extern inline __attribute__((gnu_inline, always_inline)) int
asteal_for(long lo, long hi, long grain,
           void (*body)(long lo, long hi, void *arg), void *arg)
{
	struct asteal__hot *h = asteal__self_exact();

	if (grain > 0 && body != NULL && h != NULL) {
		if (hi - lo <= grain) {
			if (hi > lo)
				body(lo, hi, arg);
			return 0;
		}
		asteal__for_run(h, lo, hi, grain, body, arg);
		return 0;
	}
	return asteal__for_slow(lo, hi, grain, body, arg);
}
#endif

#endif /* ASTEAL_H */
