/*
 * deque.c - Chase-Lev work-stealing deque, split into a public part that
 * thieves steal from and a private part that only the owner touches.
 *
 * The memory orders are those proven correct for C11 by Le, Pop, Cohen and
 * Zappa Nardelli ("Correct and Efficient Work-Stealing for Weak Memory
 * Models", PPoPP 2013, Fig. 1), applied to the public part [top, split):
 * the index `split` plays the role their `bottom` plays for thieves.  Each
 * choice is argued where it is made.  In short:
 *
 *  - Publishing (dq_push, dq_expose) writes the slots, then raises split
 *    with release, so a thief that reads the new split with acquire sees
 *    the slots (and everything the task's argument points to, written
 *    before the spawn).
 *  - Taking back a public entry races the thieves for the last one.  The
 *    owner lowers split then reads top; a thief reads top then split.  This
 *    is the store-buffering (Dekker) pattern: without a seq_cst fence on
 *    both sides, both could read the old value of the other's variable and
 *    both take the same entry.  With the fences, at least one of them sees
 *    the other, and the CAS on top settles the one remaining conflict
 *    (top == split).
 *  - top only ever moves by a seq_cst CAS, so it increases monotonically and
 *    a stale top in a thief's hands makes its CAS fail rather than take an
 *    entry twice.
 *
 * The private part [split, bottom) needs none of this.  A thief takes index
 * i only by a CAS of top from i to i + 1 after reading a split above i.
 * The owner lowers split only in the public pop, and that pop is exactly
 * Chase-Lev's: its proof is that once the owner has taken index i there,
 * no thief takes the entry that was at i on the strength of a split value
 * read before the lowering (that thief would take it a second time).  So
 * after the owner lowered split to i, a thief can take index i only after
 * reading a split the owner raised again later, and the owner raises split
 * only when it publishes.  Entries at or above split are therefore the
 * owner's alone: pushing one stores the slot and bottom, popping one
 * lowers bottom and reads the slot, both plain (relaxed) accesses.  bottom
 * is atomic only so that other threads may read a snapshot (dq_size).
 *
 * Slots are three words read with relaxed atomic loads.  A thief reads a
 * slot before its CAS; if the owner has since overwritten that slot (which
 * requires top to have moved past it), the CAS fails and the torn read is
 * discarded, so relaxed loads of the slot are enough.
 *
 * Under ThreadSanitizer, FENCE_SC is an RMW on a shared word: the same
 * orderings in a form TSan understands.
 */
#include "deque.h"

#include <stdlib.h>
#include <string.h>

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
	atomic_init(&d->split, 0);
	atomic_init(&d->want, 0);
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
		dq_slot_get(old, i, &e);
		dq_slot_put(a, i, &e);
	}
	/* Release: a thief that loads the new array pointer with acquire sees
	 * the copied slots.  The old array stays readable (retired, not freed)
	 * for thieves that loaded it before this store. */
	atomic_store_explicit(&d->array, a, memory_order_release);
	old->next = d->retired;
	d->retired = old;
	return a;
}

/* Owner: store e at index b (growing when full); 0, or -1 without memory. */
static inline int put(deque *d, int64_t b, const dq_entry *e)
{
	/* Acquire: pairs with the CAS of thieves so that the slots they took
	 * are free to reuse before we overwrite them. */
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_acquire);
	dq_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);

	if (unlikely(b - t > a->size - 1)) {
		a = grow(d, a, t, b);
		if (a == NULL)
			return -1;
	}
	dq_slot_put(a, b, e);
	/* Relaxed: only the owner reads bottom to take entries. */
	atomic_store_explicit(&d->ends.bottom, b + 1, memory_order_relaxed);
	return 0;
}

/* Owner: make [old split, b) public; returns the public entries before. */
static inline int64_t publish(deque *d, int64_t b)
{
	int64_t s = atomic_load_explicit(&d->split, memory_order_relaxed);
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_relaxed);

	atomic_store_explicit(&d->want, 0, memory_order_relaxed);
	/* Release: the slots below b (and the tasks' data) are visible to any
	 * thief that reads split >= b with acquire. */
	if (s != b)
		atomic_store_explicit(&d->split, b, memory_order_release);
	return s > t ? s - t : 0;
}

/* Owner: push e at the bottom and make every entry public. */
int64_t dq_push(deque *d, const dq_entry *e)
{
	/* Relaxed: only the owner writes bottom. */
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed);

	if (put(d, b, e) < 0)
		return -1;
	return publish(d, b + 1);
}

/* Owner: push e at the bottom, private, growing the array first. */
int64_t dq_push_grow(deque *d, const dq_entry *e)
{
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed);
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_relaxed);

	if (put(d, b, e) < 0)
		return -1;
	return b > t ? b - t : 0;
}

/* Owner: make every entry public. */
int64_t dq_expose(deque *d)
{
	return publish(d, atomic_load_explicit(&d->ends.bottom,
	                                       memory_order_relaxed));
}

/* Owner: pop the bottom entry into *e, the private part being empty
 * (dq_pop checked). */
int dq_pop_public(deque *d, dq_entry *e)
{
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed) - 1;
	dq_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);
	int64_t t;
	int took = 1;

	/* Public (b == split - 1: dq_pop found the private part empty, and a
	 * private entry was taken there, without a fence): Chase-Lev's pop on
	 * split.  Reserve slot b by lowering split first ... */
	atomic_store_explicit(&d->split, b, memory_order_relaxed);
	/* ... seq_cst fence: the store above and the load of top below cannot
	 * be reordered (store-buffering), and this fence is ordered with the
	 * thieves' fence between their loads of top and split.  Either a thief
	 * sees our lowered split, or we see its raised top. */
	FENCE_SC();
	t = atomic_load_explicit(&d->ends.top, memory_order_relaxed);
	if (t > b) {
		/* Empty: restore split. */
		atomic_store_explicit(&d->split, b + 1, memory_order_relaxed);
		return 0;
	}
	dq_slot_get(a, b, e);
	if (t == b) {
		/* The last entry: race the thieves for it with a CAS on top.
		 * seq_cst, as the thieves' CAS: top moves in one total order. */
		if (!atomic_compare_exchange_strong_explicit(&d->ends.top, &t, t + 1,
		        memory_order_seq_cst, memory_order_relaxed))
			took = 0;
		/* Empty either way: top is b + 1. */
		atomic_store_explicit(&d->split, b + 1, memory_order_relaxed);
		return took;
	}
	atomic_store_explicit(&d->ends.bottom, b, memory_order_relaxed);
	return 1;
}

/* Thief: take the top entry into *e, or leave it when it is a ready fiber
 * and tasks_only is set (1 taken, 0 empty or left, -1 lost a race). */
static inline int steal(deque *d, dq_entry *e, int tasks_only)
{
	/* Acquire on top: see the slot contents the previous taker left. */
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_acquire);
	int64_t s;
	dq_array *a;

	/* seq_cst fence between the loads of top and split: the thief's half
	 * of the store-buffering pattern with dq_pop (see there). */
	FENCE_SC();
	/* Acquire on split: synchronises with publish's release store, so the
	 * slot and the task's data are visible. */
	s = atomic_load_explicit(&d->split, memory_order_acquire);
	if (t >= s) {
		/* Nothing public: ask the owner to publish what it holds (the
		 * load first keeps the line shared while the flag is up). */
		if (!tasks_only &&
		    !atomic_load_explicit(&d->want, memory_order_relaxed))
			atomic_store_explicit(&d->want, 1, memory_order_relaxed);
		return 0;
	}
	/* Acquire (the paper's consume): the array's slots as written before
	 * the array was published by grow. */
	a = atomic_load_explicit(&d->array, memory_order_acquire);
	dq_slot_get(a, t, e);
	/* A fiber read here may be torn (the slot reused since): then top
	 * has moved and leaving it is as right as the failed CAS would be. */
	if (tasks_only && e->fn == NULL)
		return 0;
	/* seq_cst CAS: claim index t.  Failure means another thief or the
	 * owner's pop took it; whatever we read is discarded. */
	if (!atomic_compare_exchange_strong_explicit(&d->ends.top, &t, t + 1,
	        memory_order_seq_cst, memory_order_relaxed))
		return -1;
	return 1;
}

/* Thief: steal the top entry into *e. */
int dq_steal(deque *d, dq_entry *e)
{
	return steal(d, e, 0);
}

/* Thief: steal the top entry into *e unless it is a ready fiber. */
int dq_steal_task(deque *d, dq_entry *e)
{
	return steal(d, e, 1);
}

/* Owner: make room for n more entries now, so that the next n pushes
 * cannot fail. */
int dq_reserve(deque *d, int64_t n)
{
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed);
	/* Acquire, as in put: the slots thieves took are free to reuse. */
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_acquire);
	dq_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);

	/* put grows when b - t > size - 1 before storing at b: room for n
	 * pushes means b + n - 1 - t <= size - 1. */
	while (b + n - t > a->size) {
		a = grow(d, a, t, b);
		if (a == NULL)
			return -1;
	}
	return 0;
}

