/*
 * deque.h - Chase-Lev work-stealing deques (Chase and Lev, SPAA 2005) with
 * the C11 memory orders of Le, Pop, Cohen and Zappa Nardelli (PPoPP 2013).
 *
 * One owner pushes and pops at the bottom; any number of thieves steal at
 * the top.  Indices are signed 64-bit and never reset, so a deque can be
 * handed from owner to owner (a suspended fiber, a mugger) without ABA on
 * the top index.  The array grows when full; old arrays are kept on the
 * deque until dq_reclaim, called when no thief can still read them.
 *
 * A deque is separate from workers: its state says whether a worker owns
 * it, a suspended fiber keeps it, it waits to be mugged, or it is free.
 *
 * Split: the entries [top, split) are public (thieves steal them), the
 * entries [split, bottom) are private to the owner, which pushes and pops
 * them with no fence at all (deque.c argues why).  dq_push makes every
 * entry public, as a plain Chase-Lev deque; dq_push_private keeps the new
 * entry private; dq_expose makes all of them public.  Thieves that find
 * the public part empty raise `want`, which the owner reads as a request
 * to expose what it holds.
 */
#ifndef ASTEAL_DEQUE_H
#define ASTEAL_DEQUE_H

#include <stdatomic.h>
#include <stdint.h>

#include "asteal.h"
#include "util.h"

/* One deque slot: a task (fn, arg, group) or a ready fiber (fn == NULL,
 * arg = the fiber). */
typedef struct dq_entry {
	void (*fn)(void *);
	void *arg;
	void *ctx;
} dq_entry;

enum dq_state {
	DQ_FREE = 0,      /* in the runtime's pool, empty */
	DQ_OWNED,         /* a worker pushes and pops it */
	DQ_SUSPENDED,     /* kept by a suspended fiber: stealable, not poppable */
	DQ_MUGGABLE,      /* no owner and not empty: stealable, and claimable whole */
};

/* A power-of-two ring of slots; slot i holds index i mod size. */
typedef struct dq_array {
	int64_t size;                  /* a power of two */
	struct dq_array *next;         /* retired list link */
	_Atomic uintptr_t slot[][3];   /* fn, arg, ctx */
} dq_array;

typedef struct deque {
	struct asteal__ends ends;      /* top and bottom, each on its own line */
	_Atomic int64_t split;         /* first private index (owner writes) */
	char pad_[CACHELINE - 2 * sizeof(int64_t)];
	_Atomic uint32_t want;         /* a thief found the public part empty */
	_Atomic(dq_array *) array;     /* current slots */
	dq_array *retired;             /* older arrays, until dq_reclaim */
	_Atomic int state;             /* enum dq_state */
	/* The owning worker (a struct worker, NULL when no worker owns the
	 * deque), for thieves to clear its stocked hint after a steal. */
	_Atomic(void *) owner;
	int index;                     /* position in the runtime's deque table */
	struct deque *next;            /* free list / muggable list link */
} deque;

/* Allocate an empty deque of 2^log_size slots; NULL when out of memory. */
deque *dq_create(int log_size);

/* Free a deque and all its arrays (no thread may use it any more). */
void dq_destroy(deque *d);

/* Owner: push e at the bottom and make every entry public.  Returns the
 * number of public entries before (as the owner saw it; 0 means thieves
 * had nothing to take), or -1 when growing failed for lack of memory. */
int64_t dq_push(deque *d, const dq_entry *e);

/* Owner: push e at the bottom, private (no thief can take it until
 * dq_expose or dq_push).  Returns the number of entries before, public or
 * not, or -1 when growing failed for lack of memory.  Inline: the owner's
 * fast path (spawn), out of line only to grow. */
static inline int64_t dq_push_private(deque *d, const dq_entry *e);

/* Owner: push e at index b, growing the array first (dq_push_private's
 * slow path); as dq_push_private. */
int64_t dq_push_grow(deque *d, const dq_entry *e);

/* Owner: make every entry public and clear `want`.  Returns the number of
 * public entries before (0: thieves had nothing to take). */
int64_t dq_expose(deque *d);

/* Owner: private entries held now. */
static inline int64_t dq_private(deque *d)
{
	return atomic_load_explicit(&d->ends.bottom, memory_order_relaxed) -
	       atomic_load_explicit(&d->split, memory_order_relaxed);
}

/* Owner: pop the bottom entry, private or public, into *e; 1 when taken,
 * 0 when empty.  A private entry costs no fence (inline; the public case
 * is dq_pop_public). */
static inline int dq_pop(deque *d, dq_entry *e);

/* Owner: dq_pop when the private part is empty: Chase-Lev's pop. */
int dq_pop_public(deque *d, dq_entry *e);

/* Thief: steal the top entry into *e; 1 when taken, 0 when empty, -1 when
 * another thread won the race (retry elsewhere). */
int dq_steal(deque *d, dq_entry *e);

/* Thief: as dq_steal, but a ready fiber on top is left where it is
 * (returns 0 then, and does not raise `want`). */
int dq_steal_task(deque *d, dq_entry *e);

/* Owner: make room for n more entries (growing the array now), so that
 * the next n pushes cannot fail; 0, or -1 when out of memory. */
int dq_reserve(deque *d, int64_t n);

/* Entries in the deque, public and private, as seen now (exact for the
 * owner when no thief runs, otherwise a snapshot); never negative. */
static inline int64_t dq_size(deque *d);

/* Public entries as seen now (what a thief could take); never negative. */
static inline int64_t dq_public(deque *d);

/* Free retired arrays; only when no thief can be reading this deque. */
void dq_reclaim(deque *d);

/* ------------------------------------------------------------------------
 * Inline owner paths.  The orders are argued at the top of deque.c; the
 * private part [split, bottom) is the owner's alone, so these use plain
 * (relaxed) accesses only.
 */

/* Store e in slot i of a (relaxed: published by a later release). */
static inline void dq_slot_put(dq_array *a, int64_t i, const dq_entry *e)
{
	_Atomic uintptr_t *s = a->slot[i & (a->size - 1)];

	atomic_store_explicit(&s[0], (uintptr_t)e->fn, memory_order_relaxed);
	atomic_store_explicit(&s[1], (uintptr_t)e->arg, memory_order_relaxed);
	atomic_store_explicit(&s[2], (uintptr_t)e->ctx, memory_order_relaxed);
}

/* Load slot i of a into *e (relaxed: ordered by the reads of the ends). */
static inline void dq_slot_get(dq_array *a, int64_t i, dq_entry *e)
{
	_Atomic uintptr_t *s = a->slot[i & (a->size - 1)];

	e->fn = (void (*)(void *))atomic_load_explicit(&s[0], memory_order_relaxed);
	e->arg = (void *)atomic_load_explicit(&s[1], memory_order_relaxed);
	e->ctx = (void *)atomic_load_explicit(&s[2], memory_order_relaxed);
}

static inline int64_t dq_push_private(deque *d, const dq_entry *e)
{
	/* Relaxed: only the owner writes bottom and the array pointer. */
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed);
	dq_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);
	/* Acquire: pairs with the thieves' CAS, so that the slots they took
	 * are free to reuse before we overwrite one. */
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_acquire);

	if (unlikely(b - t > a->size - 1))
		return dq_push_grow(d, e);
	dq_slot_put(a, b, e);
	atomic_store_explicit(&d->ends.bottom, b + 1, memory_order_relaxed);
	return b > t ? b - t : 0;
}

static inline int dq_pop(deque *d, dq_entry *e)
{
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed) - 1;

	if (likely(b >= atomic_load_explicit(&d->split, memory_order_relaxed))) {
		/* Private: no thief can take index b. */
		atomic_store_explicit(&d->ends.bottom, b, memory_order_relaxed);
		dq_slot_get(atomic_load_explicit(&d->array, memory_order_relaxed),
		            b, e);
		return 1;
	}
	return dq_pop_public(d, e);
}

static inline int64_t dq_size(deque *d)
{
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_acquire);
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_acquire);

	return b > t ? b - t : 0;
}

static inline int64_t dq_public(deque *d)
{
	int64_t s = atomic_load_explicit(&d->split, memory_order_acquire);
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_acquire);

	return s > t ? s - t : 0;
}

#endif
