/*
 * runtime.h - libasteal's internal shared state: the runtime (one per
 * process), its workers, the inline helpers every part of the library
 * uses on them, and runtime.c's own functions (the hosted runtime).  The
 * other modules' functions are declared in their own headers: worker.h
 * (the scheduler's loop, and what worker.c, allot.c and suspend.c share),
 * allot.h, suspend.h, pfor.h, quantum.h (the link thread), settings.h,
 * profile.h, trace.h and summary.h.
 *
 * Invariants the scheduler keeps (worker.c, allot.c and suspend.c argue
 * them):
 *  - A deque's task entries were all pushed by one fiber: the one running on
 *    the deque's owner, or the suspended fiber that keeps the deque.
 *  - A worker in its scheduling loop owns a deque with no task entries
 *    (at most ready fibers), so a task it starts or a fiber it resumes
 *    finds only its own entries at the bottom.
 *  - A worker takes work from anywhere else (a root, a mugged deque, a
 *    steal) only while its own deque is empty: find_work pops it, or
 *    allot_park gives it up, first (it may hold a fiber left there at a
 *    safe point, on that fiber's children).
 */
#ifndef ASTEAL_RUNTIME_H
#define ASTEAL_RUNTIME_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "asteal.h"
#include "deque.h"
#include "fiber.h"
#include "usage.h"
#include "util.h"

#define RT_MAX_WORKERS 1024
#define RT_MAX_DEQUES 65536
#define RT_DEQUE_LOG_SIZE 8            /* 256 slots to start with */
#define RT_DEFAULT_STACK (64u << 20)    /* reserved, touched only as used */
#define RT_DEFAULT_READY_LIMIT 4
#ifndef RT_READY_LIMIT_MAX
#define RT_READY_LIMIT_MAX 4096        /* the adaptive limit stays below this */
#endif
#define RT_READY_DECAY 16              /* own pops per limit before it halves */
#ifndef RT_STEAL_BATCH
#define RT_STEAL_BATCH 64              /* most entries one steal takes */
#endif
#define RT_FIBER_CACHE 8               /* fibers a worker keeps for itself */
#define RT_SPIN_NS 100000              /* steal this long before sleeping */
#define RT_SLEEP_BACKSTOP_NS 10000000  /* a sleeper rescans this often */

#define RT_REVOKES 64                  /* revocations tracked at once */
#define RT_NO_TAG UINT64_MAX           /* a revocation no Allot asked for */
#define RT_PAGES_KEPT 64               /* lost daemons' pages kept mapped */

/* asteal_group.state values private to the library (asteal.h has IDLE
 * and OUTSIDE). */
#define GROUP_BUSY 0x62757379u         /* children pushed, not yet synced */
#define GROUP_ROOT 0x726f6f74u         /* the group of a root task */

/* Reset an idle group before its first push: no child of it is
 * outstanding.  This must happen before the push: once the child is on the
 * deque a thief may run it, read the state and count it down at once (the
 * push's release fence publishes these stores to that thief). */
static inline void group_start(asteal_group *g)
{
	atomic_store_explicit(&g->join, 0, memory_order_relaxed);
	g->waiter = NULL;
	g->pushed = 0;
	g->state = GROUP_BUSY;
}

enum after_kind { AFTER_NONE, AFTER_RELEASE, AFTER_SUSPEND, AFTER_PARK };

/* hot.flags bits */
#define RT_LEAVE 1u                    /* the allotment lost this worker */
#define RT_REPIN 2u                    /* hosted: the slot's CPU changed */

/* Scheduling modes (ASTEAL_MODE). */
enum rt_mode { RT_MODE_ASTEAL, RT_MODE_ABP, RT_MODE_STATIC };

/* Per-worker counters, written only by their worker (relaxed).  The
 * times are in the worker's usage (usage.h), which only grows;
 * asteal_stats_reset moves base_wall[] and base_cpu[] instead of zeroing
 * them, so that the quantum accounting's differences stay right. */
struct wstats {
	_Atomic uint64_t tasks, pushed, steal_attempts, steals, stolen, suspends, sleeps;
	_Atomic uint64_t mugs, leaves;
	_Atomic uint64_t base_wall[WS_COUNT];
	_Atomic uint64_t base_cpu[WS_COUNT];
};

struct worker {
	struct asteal__hot hot;        /* first: the inline fast paths read it */
	struct runtime *rt;
	int id;
	pthread_t thread;
	fiber native;                  /* the thread's own stack */
	fiber *cur;                    /* the fiber running on this worker */
	fiber *pool;                   /* parked loop fibers kept for reuse */
	int npool;
	/* What the fiber we switch to must do first (see after_switch). */
	int after;
	fiber *after_fiber;
	asteal_group *after_group;
	int64_t after_count;
	uint64_t rng;
	struct usage usage;            /* time per state, wall and CPU */
	void *altstack;                /* signal stack for guard-page faults */
	/* Allotment (under rt->park_lock): parked is 1 while the worker waits
	 * in allot_park(); leave_t0 is when the link asked it to leave. */
	int parked;
	int leave_ev;                  /* the revocation it leaves for, or -1 */
	uint64_t leave_t0;             /* when that revocation was asked */
	int cpu;                       /* the CPU it is pinned to, or -1
	                                  (hosted: the slot's CPU) */
	/* Hosted (see struct runtime): the thread holding this slot, NULL
	 * when none (under park_lock).  A slot nobody holds is free while
	 * allotted, parked otherwise.  lazy: its holder runs outside the
	 * layer's teams (serial code) and keeps it only until someone needs
	 * it: a revocation parks it at once, a thread waiting takes it. */
	void *holder;
	int lazy;
	/* The adaptive ready limit (see adapt_limit in suspend.c): the owner's
	 * limit, its own pops since it last changed, and the flag thieves set
	 * when they took the last entry of its deque. */
	int64_t limit;
	int64_t own_pops;
	_Atomic uint32_t hungry;
	/* The deque the worker owns now (hot.dq, readable by thieves: they
	 * pick victims among the workers' deques first). */
	_Atomic(deque *) victim;
	/* The worker thread's asteal__fast.stocked (set as the thread starts;
	 * before that, stocked_init), for thieves and the link to clear. */
	_Atomic(_Atomic uint32_t *) stocked;
	_Atomic uint32_t stocked_init;
	/* The worker thread's asteal__fast.stop (NULL before the thread
	 * starts), which quantum.c points at its slot's stop word in the
	 * page, or back at asteal__no_stop; stop_word is where it points. */
	_Atomic(const _Atomic uint32_t *) *_Atomic stop;
	const _Atomic uint32_t *stop_word;
	/* The page whose bell it waits on while parked, or NULL (under
	 * park_lock). */
	struct page *bell_page;
	struct wstats st;
} ALIGNED_CL;

/* A root task waiting in asteal_run. */
struct root {
	asteal_group g;                /* first: a task's ctx points here */
	void (*fn)(void *);
	void *arg;
	_Atomic uint32_t done;
	struct root *next;
};

struct runtime {
	int nworkers;
	struct worker *workers;
	size_t stack_size;
	int64_t ready_limit;

	/* Every deque ever created, for thieves to pick victims from. */
	deque **deques;
	_Atomic int ndeques;
	_Atomic int nmuggable;         /* deques in state DQ_MUGGABLE */

	pthread_mutex_t lock;          /* free deques, fiber pool, roots */
	deque *free_deques;
	fiber *free_fibers;
	struct root *roots;
	_Atomic int nroots;            /* roots not yet picked up */
	_Atomic int running_roots;     /* root tasks started and not ended */
	int roots_fd;                  /* eventfd: running_roots left 0 (for
	                                  the link thread; -1 without one) */

	_Atomic uint32_t epoch;        /* futex word idle workers sleep on */
	_Atomic int sleepers;
	_Atomic int stopping;

	int mode;                      /* enum rt_mode */
	/* Allotment changes: the link thread (quantum.c) and parking workers
	 * meet under park_lock. */
	pthread_mutex_t park_lock;
	int allotment;                 /* workers 0 .. allotment-1 are active */
	struct revoke {                /* an allotment loss being carried out */
		uint64_t t0, end;      /* asked, last departure so far */
		uint64_t tag;          /* the daemon's Allot quantum, or RT_NO_TAG */
		int pending;           /* departing workers not yet parked */
	} revokes[RT_REVOKES];
	/* Tagged revocations that finished, for the link thread to report
	 * (Released): it reads released_fd (an eventfd; -1 when there is no
	 * link thread), then takes the entries under park_lock. */
	struct rt_released {
		uint64_t tag, at;      /* the Allot's quantum; last one parked */
	} released[RT_REVOKES];
	unsigned nreleased;
	int released_fd;
	unsigned nrevokes;             /* revocations ever opened */
	uint64_t *latency;             /* revocation latencies (ns) */
	size_t nlatency, caplatency;
	struct quantum *quantum;       /* the link thread, NULL in static mode */
	/* Hosted: the workers are processor slots that the threads of a
	 * layer above the runtime (client-lib/omp/, the OpenMP layer) take
	 * and give back; the runtime has no threads of its own but the link
	 * thread.  The accounting, the allotment and its revocations are the
	 * slots' (allot.c); the holder pins itself to its slot's CPU, and
	 * allot_hook, when set, runs after every allotment change (on the
	 * link thread, park_lock not held) to hand free slots out. */
	int hosted;
	void (*allot_hook)(struct runtime *rt);
	/* The allotments through the page shared with the daemon
	 * (quantum.c): the page the workers read at safe points (NULL:
	 * none; set and cleared under park_lock), the generation applied
	 * last, the eventfd that tells the daemon a revocation is done, and
	 * the pages of daemons lost, kept mapped until the runtime ends
	 * (a worker may still be reading one). */
	struct page *_Atomic page;
	_Atomic uint32_t page_gen;
	_Atomic int page_availability; /* p_q of the allotment applied */
	int page_wake;
	pthread_mutex_t page_apply;    /* one applier at a time, into: */
	struct page_allotment *page_buf;
	struct page *retired[RT_PAGES_KEPT];
	int nretired;
};

/* runtime.c, hosted: a runtime of n slots (no worker threads) with its
 * link thread running and one root task in flight for good (the program
 * itself); NULL with errno and a message on failure.  Stopped with
 * runtime_hosted_stop. */
struct runtime *runtime_hosted_start(int n, void (*hook)(struct runtime *rt));
void runtime_hosted_stop(struct runtime *rt);

/* The calling worker, or NULL outside tasks: exact even after the running
 * fiber moved to another thread (asteal__self_exact reads the thread
 * pointer with a volatile asm each time, and asteal__tls sits at a fixed
 * offset from it in the static TLS block).  The hot fields come first in
 * struct worker. */
static inline struct worker *worker_self(void)
{
	return (struct worker *)asteal__self_exact();
}

/* The worker's stocked hint (see asteal__fast in asteal.h).  Acquire:
 * pairs with worker_main's store of the thread's own word, so a thread
 * that never synchronised with the worker otherwise (a thief asking for
 * work, request_work) still sees the word after the thread set it up. */
static inline _Atomic uint32_t *worker_stocked(struct worker *w)
{
	return atomic_load_explicit(&w->stocked, memory_order_acquire);
}

#endif
