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

typedef struct dq_array dq_array;

typedef struct deque {
	struct asteal__ends ends;      /* top and bottom, each on its own line */
	char pad_[CACHELINE - sizeof(int64_t)];
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

/* Owner: push e at the bottom.  Returns the number of entries the deque
 * held before (as the owner saw it; 0 means it went from empty to not
 * empty), or -1 when growing failed for lack of memory. */
int64_t dq_push(deque *d, const dq_entry *e);

/* Owner: pop the bottom entry into *e; 1 when taken, 0 when empty. */
int dq_pop(deque *d, dq_entry *e);

/* Thief: steal the top entry into *e; 1 when taken, 0 when empty, -1 when
 * another thread won the race (retry elsewhere). */
int dq_steal(deque *d, dq_entry *e);

/* Entries in the deque as seen now (exact for the owner when no thief
 * runs, otherwise a snapshot); never negative. */
int64_t dq_size(deque *d);

/* Free retired arrays; only when no thief can be reading this deque. */
void dq_reclaim(deque *d);

#endif
