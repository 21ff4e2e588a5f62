/*
 * deque.c - Chase-Lev work-stealing deque.
 *
 * The memory orders are those proven correct for C11 by Le, Pop, Cohen and
 * Zappa Nardelli ("Correct and Efficient Work-Stealing for Weak Memory
 * Models", PPoPP 2013, Fig. 1).  Each choice is argued where it is made.
 * In short:
 *
 *  - push publishes the slot, then bottom.  A release fence between them
 *    makes the slot (and everything the task's argument points to, written
 *    before the spawn) visible to a thief that reads the new bottom with
 *    acquire.
 *  - pop and steal race for the last entry.  pop writes bottom then reads
 *    top; steal reads top then bottom.  This is the store-buffering (Dekker)
 *    pattern: without a seq_cst fence on both sides, both could read the old
 *    value of the other's variable and both take the same entry.  With the
 *    fences, at least one of them sees the other, and the CAS on top settles
 *    the one remaining conflict (t == b).
 *  - top only ever moves by a seq_cst CAS, so it increases monotonically and
 *    a stale top in a thief's hands makes its CAS fail rather than take an
 *    entry twice.
 *
 * Slots are three words read with relaxed atomic loads.  A thief reads a
 * slot before its CAS; if the owner has since overwritten that slot (which
 * requires top to have moved past it), the CAS fails and the torn read is
 * discarded, so relaxed loads of the slot are enough.
 *
 * Under ThreadSanitizer, FENCE_SC is an RMW on a shared word and the release
 * fence of push becomes a release store of bottom: the same orderings in a
 * form TSan understands.
 */
#include "deque.h"

#include <stdlib.h>
#include <string.h>

struct dq_array {
	int64_t size;                  /* a power of two */
	dq_array *next;                /* retired list link */
	_Atomic uintptr_t slot[][3];   /* fn, arg, ctx */
};

/* Allocate an array of 2^log_size slots. */
static dq_array *array_new(int log_size)
{
	int64_t size = (int64_t)1 << log_size;
	dq_array *a = malloc(sizeof(*a) + (size_t)size * sizeof(a->slot[0]));

	if (a == NULL)
		return NULL;
	a->size = size;
	a->next = NULL;
	return a;
}

/* Store e in slot i of a (relaxed: published by the fence that follows). */
static inline void slot_put(dq_array *a, int64_t i, const dq_entry *e)
{
	_Atomic uintptr_t *s = a->slot[i & (a->size - 1)];

	atomic_store_explicit(&s[0], (uintptr_t)e->fn, memory_order_relaxed);
	atomic_store_explicit(&s[1], (uintptr_t)e->arg, memory_order_relaxed);
	atomic_store_explicit(&s[2], (uintptr_t)e->ctx, memory_order_relaxed);
}

/* Load slot i of a into *e (relaxed: ordered by the reads of top/bottom). */
static inline void slot_get(dq_array *a, int64_t i, dq_entry *e)
{
	_Atomic uintptr_t *s = a->slot[i & (a->size - 1)];

	e->fn = (void (*)(void *))atomic_load_explicit(&s[0], memory_order_relaxed);
	e->arg = (void *)atomic_load_explicit(&s[1], memory_order_relaxed);
	e->ctx = (void *)atomic_load_explicit(&s[2], memory_order_relaxed);
}

/* Allocate an empty deque of 2^log_size slots. */
deque *dq_create(int log_size)
{
	deque *d = alloc_cl(sizeof(deque));
	dq_array *a;

	if (d == NULL)
		return NULL;
	a = array_new(log_size);
	if (a == NULL) {
		free(d);
		return NULL;
	}
	atomic_init(&d->ends.top, 0);
	atomic_init(&d->ends.bottom, 0);
	atomic_init(&d->array, a);
	atomic_init(&d->state, DQ_FREE);
	d->retired = NULL;
	d->next = NULL;
	d->index = -1;
	return d;
}

/* Free a deque and all its arrays. */
void dq_destroy(deque *d)
{
	if (d == NULL)
		return;
	dq_reclaim(d);
	free(atomic_load_explicit(&d->array, memory_order_relaxed));
	free(d);
}

/* Free retired arrays; only when no thief can be reading this deque. */
void dq_reclaim(deque *d)
{
	dq_array *a = d->retired, *next;

	for (; a != NULL; a = next) {
		next = a->next;
		free(a);
	}
	d->retired = NULL;
}

/* Owner: double the array, copying the live entries [t, b). */
static dq_array *grow(deque *d, dq_array *old, int64_t t, int64_t b)
{
	int log_size = 0;
	dq_array *a;
	int64_t i;

	while (((int64_t)1 << log_size) < old->size * 2)
		log_size++;
	a = array_new(log_size);
	if (a == NULL)
		return NULL;
	for (i = t; i < b; i++) {
		dq_entry e;
		slot_get(old, i, &e);
		slot_put(a, i, &e);
	}
	/* Release: a thief that loads the new array pointer with acquire sees
	 * the copied slots.  The old array stays readable (retired, not freed)
	 * for thieves that loaded it before this store. */
	atomic_store_explicit(&d->array, a, memory_order_release);
	old->next = d->retired;
	d->retired = old;
	return a;
}

/* Owner: push e at the bottom; returns the size it saw before. */
int64_t dq_push(deque *d, const dq_entry *e)
{
	/* Relaxed: only the owner writes bottom. */
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed);
	/* Acquire: pairs with the CAS of thieves so that the slots they took
	 * are free to reuse before we overwrite them. */
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_acquire);
	dq_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);

	if (unlikely(b - t > a->size - 1)) {
		a = grow(d, a, t, b);
		if (a == NULL)
			return -1;
	}
	slot_put(a, b, e);
#if ASTEAL_TSAN
	atomic_store_explicit(&d->ends.bottom, b + 1, memory_order_release);
#else
	/* Release fence: the slot and the task's data are visible to any
	 * thief that reads bottom >= b + 1 (it reads bottom with acquire). */
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&d->ends.bottom, b + 1, memory_order_relaxed);
#endif
	return b > t ? b - t : 0;
}

/* Owner: pop the bottom entry into *e. */
int dq_pop(deque *d, dq_entry *e)
{
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed) - 1;
	dq_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);
	int64_t t;
	int took = 1;

	/* Reserve slot b by lowering bottom first ... */
	atomic_store_explicit(&d->ends.bottom, b, memory_order_relaxed);
	/* ... seq_cst fence: the store above and the load of top below cannot
	 * be reordered (store-buffering), and this fence is ordered with the
	 * thieves' fence between their loads of top and bottom.  Either a thief
	 * sees our lowered bottom, or we see its raised top. */
	FENCE_SC();
	t = atomic_load_explicit(&d->ends.top, memory_order_relaxed);
	if (t > b) {
		/* Empty: restore bottom. */
		atomic_store_explicit(&d->ends.bottom, b + 1, memory_order_relaxed);
		return 0;
	}
	slot_get(a, b, e);
	if (t == b) {
		/* The last entry: race the thieves for it with a CAS on top.
		 * seq_cst, as the thieves' CAS: top moves in one total order. */
		if (!atomic_compare_exchange_strong_explicit(&d->ends.top, &t, t + 1,
		        memory_order_seq_cst, memory_order_relaxed))
			took = 0;
		atomic_store_explicit(&d->ends.bottom, b + 1, memory_order_relaxed);
	}
	return took;
}

/* Thief: steal the top entry into *e. */
int dq_steal(deque *d, dq_entry *e)
{
	/* Acquire on top: see the slot contents the previous taker left. */
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_acquire);
	int64_t b;
	dq_array *a;

	/* seq_cst fence between the loads of top and bottom: the thief's half
	 * of the store-buffering pattern with dq_pop (see there). */
	FENCE_SC();
	/* Acquire on bottom: synchronises with push's release fence, so the
	 * slot and the task's data are visible. */
	b = atomic_load_explicit(&d->ends.bottom, memory_order_acquire);
	if (t >= b)
		return 0;
	/* Acquire (the paper's consume): the array's slots as written before
	 * the array was published by grow. */
	a = atomic_load_explicit(&d->array, memory_order_acquire);
	slot_get(a, t, e);
	/* seq_cst CAS: claim index t.  Failure means another thief or the
	 * owner's pop took it; whatever we read is discarded. */
	if (!atomic_compare_exchange_strong_explicit(&d->ends.top, &t, t + 1,
	        memory_order_seq_cst, memory_order_relaxed))
		return -1;
	return 1;
}

/* Entries in the deque as seen now; never negative. */
int64_t dq_size(deque *d)
{
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_acquire);
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_acquire);

	return b > t ? b - t : 0;
}
