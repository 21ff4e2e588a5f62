/*
 * worker.h - worker.c's functions (each worker's loop: find work, steal,
 * sleep; the loop fibers and the switch; wake-ups), and what the
 * scheduler's three modules share: worker.c, allot.c (the allotment:
 * leaving, parking, mugging, deque hand-over; allot.h) and suspend.c (the
 * slow paths of spawn, sync and poll; suspension and resumption;
 * suspend.h).  The helpers below are inline: the owner's slow paths of
 * spawn and sync and the steal loop call most of them on every pass, and
 * must not gain a call by the split.  The functions declared after them
 * are off those paths (a fiber switch, a park, a mug, a deque changing
 * hands).
 */
#ifndef ASTEAL_WORKER_H
#define ASTEAL_WORKER_H

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "allot.h"
#include "quantum.h"
#include "qtime.h"
#include "runtime.h"

/* Add v to one of the worker's own counters. */
static inline void stat_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
	                      memory_order_relaxed);
}

/* Wake up to n waiters of a futex word. */
static inline void futex_wake(_Atomic uint32_t *addr, int n)
{
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Enter a new accounting state at time now (usage.h). */
static inline void set_state_at(struct worker *w, int s, uint64_t now)
{
	usage_enter(&w->usage, s, now);
}

/* A safe point's flags: a new allotment in the page is applied first
 * (it may set ours), then the flags are read (relaxed: a stale read only
 * moves the leave to the next safe point). */
static inline uint32_t safe_point_flags(struct worker *w)
{
	quantum_page_look(w->rt);
	return atomic_load_explicit(&w->hot.flags, memory_order_relaxed);
}

/* Enter a new accounting state now. */
static inline void set_state(struct worker *w, int s)
{
	usage_enter(&w->usage, s, qtime_now_ns());
}

/* Set the worker's stocked hint.  A worker asked to leave must not stay
 * stocked (spawns that run at once pass no safe point): the link sets
 * RT_LEAVE then clears stocked, we set stocked then look at the flags, all
 * seq_cst, so one of us sees the other. */
static inline void stock(struct worker *w)
{
	_Atomic uint32_t *st = worker_stocked(w);

	if (atomic_load_explicit(st, memory_order_relaxed))
		return;
	atomic_store(st, 1);
	if (atomic_load(&w->hot.flags))
		atomic_store(st, 0);
}

/* Set the worker's stocked hint from its deque's size (as the owner saw
 * it): set when it holds the ready limit, else clear. */
static inline void restock_at(struct worker *w, int64_t size)
{
	_Atomic uint32_t *st = worker_stocked(w);

	if (size < w->limit) {
		if (atomic_load_explicit(st, memory_order_relaxed))
			atomic_store_explicit(st, 0, memory_order_relaxed);
		return;
	}
	stock(w);
}

/* Recompute the worker's stocked hint from its deque's size now. */
static inline void restock(struct worker *w)
{
	restock_at(w, dq_size((deque *)w->hot.dq));
}

/* Make d the worker's deque. */
static inline void deque_own(struct worker *w, deque *d)
{
	atomic_store_explicit(&d->state, DQ_OWNED, memory_order_relaxed);
	atomic_store_explicit(&d->owner, (void *)w, memory_order_relaxed);
	w->hot.dq = &d->ends;
	/* Release: a thief that picks d through victim sees it set up. */
	atomic_store_explicit(&w->victim, d, memory_order_release);
	restock(w);
}

/* Leave d without an owning worker, in the given state (release: whoever
 * takes it next sees its slots).  Its private entries become public first:
 * a deque without an owner is one thieves and muggers must be able to
 * empty. */
static inline void deque_disown(deque *d, int state)
{
	dq_expose(d);
	atomic_store_explicit(&d->owner, NULL, memory_order_relaxed);
	atomic_store_explicit(&d->state, state, memory_order_release);
}

/* worker.c: a loop fiber for the worker (NULL when out of memory), and the
 * switch to another fiber, which returns when some worker resumes us. */
fiber *worker_fiber_get(struct worker *w);
void worker_switch_to(struct worker *w, fiber *to);

/* worker.c: a worker thread (its start routine: loop fibers until the
 * runtime stops). */
void *worker_main(void *arg);

/* worker.c: work was made visible (a deque went from empty to not empty,
 * a root, a muggable deque): wake a sleeper if there is one. */
void worker_notify(struct runtime *rt);

/* worker.c: wake every sleeping worker (stop). */
void worker_wake_all(struct runtime *rt);

/* worker.c: a loop fiber with the runtime's stack size (NULL when out of
 * memory). */
fiber *worker_fiber_new(struct runtime *rt);

/* worker.c: print one line about a misuse of the API and fail with err
 * (-1 with errno err). */
int worker_report_misuse(const char *call, const char *what, int err);

#endif
