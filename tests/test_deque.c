/*
 * test_deque.c - Chase-Lev deque: single-thread semantics, growth, and a
 * multi-thread stress in which one owner pushes and pops while thieves
 * steal, across growth; every item must be taken exactly once.  Also the
 * split (private entries), steals that leave ready fibers, and reserve.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <cmocka.h>

#include "deque.h"
#include "testutil.h"

/* An entry carrying the number i. */
static dq_entry item(uintptr_t i)
{
	dq_entry e = { NULL, (void *)i, (void *)(i * 3) };
	return e;
}

/* Push items from..to, public or private, each asserting that the deque
 * held i - 1 entries before (the public ones: nothing was taken yet). */
static void push_items(deque *d, uintptr_t from, uintptr_t to, int private)
{
	uintptr_t i;

	for (i = from; i <= to; i++) {
		dq_entry x = item(i);
		assert_int_equal(private ? dq_push_private(d, &x) : dq_push(d, &x),
		                 i - 1);
	}
}

/* Pops come back newest first, steals oldest first. */
static void test_lifo_fifo(void **state)
{
	deque *d = dq_create(4);
	dq_entry e;
	uintptr_t i;

	(void)state;
	assert_non_null(d);
	assert_int_equal(dq_pop(d, &e), 0);
	assert_int_equal(dq_steal(d, &e), 0);
	push_items(d, 1, 10, 0);
	assert_int_equal(dq_size(d), 10);
	assert_int_equal(dq_steal(d, &e), 1);
	assert_int_equal((uintptr_t)e.arg, 1);
	assert_int_equal((uintptr_t)e.ctx, 3);
	assert_int_equal(dq_pop(d, &e), 1);
	assert_int_equal((uintptr_t)e.arg, 10);
	assert_int_equal(dq_steal(d, &e), 1);
	assert_int_equal((uintptr_t)e.arg, 2);
	for (i = 9; i >= 3; i--) {
		assert_int_equal(dq_pop(d, &e), 1);
		assert_int_equal((uintptr_t)e.arg, i);
	}
	assert_int_equal(dq_pop(d, &e), 0);
	assert_int_equal(dq_steal(d, &e), 0);
	assert_int_equal(dq_size(d), 0);
	dq_destroy(d);
}

/* A deque that starts with 2 slots grows and keeps every entry in order. */
static void test_growth(void **state)
{
	deque *d = dq_create(1);
	dq_entry e;
	uintptr_t i, n = 100000;

	(void)state;
	assert_non_null(d);
	/* Move the indices away from zero first, so wrap-around is exercised. */
	for (i = 0; i < 5; i++) {
		dq_entry x = item(i);
		assert_int_equal(dq_push(d, &x), 0);
		assert_int_equal(dq_steal(d, &e), 1);
	}
	for (i = 0; i < n; i++) {
		dq_entry x = item(i);
		assert_int_equal(dq_push(d, &x), i);
	}
	assert_int_equal(dq_size(d), n);
	for (i = 0; i < n / 2; i++) {
		assert_int_equal(dq_steal(d, &e), 1);
		assert_int_equal((uintptr_t)e.arg, i);
	}
	for (i = n; i-- > n / 2;) {
		assert_int_equal(dq_pop(d, &e), 1);
		assert_int_equal((uintptr_t)e.arg, i);
	}
	assert_int_equal(dq_pop(d, &e), 0);
	dq_destroy(d);
}

/* A task function for entries that must not look like ready fibers. */
static void noop(void *p)
{
	(void)p;
}

/* dq_steal_task takes tasks but leaves a ready fiber on top (and raises no
 * request when empty); dq_reserve grows the array once, so that the pushes
 * it made room for neither grow nor fail. */
static void test_steal_task_reserve(void **state)
{
	deque *d = dq_create(2);
	dq_entry a = { noop, (void *)1, NULL }, f = { NULL, (void *)2, NULL };
	dq_entry b = { noop, (void *)3, NULL }, e;
	dq_array *arr;
	uintptr_t i;

	(void)state;
	assert_non_null(d);
	assert_int_equal(dq_steal_task(d, &e), 0);
	assert_int_equal(atomic_load(&d->want), 0);
	assert_true(dq_push(d, &a) >= 0);
	assert_true(dq_push(d, &f) >= 0);
	assert_true(dq_push(d, &b) >= 0);
	assert_int_equal(dq_steal_task(d, &e), 1);
	assert_int_equal((uintptr_t)e.arg, 1);
	assert_int_equal(dq_steal_task(d, &e), 0);     /* the fiber stays */
	assert_int_equal(dq_size(d), 2);
	assert_int_equal(atomic_load(&d->want), 0);
	assert_int_equal(dq_steal(d, &e), 1);          /* a plain steal takes it */
	assert_null(e.fn);
	assert_int_equal((uintptr_t)e.arg, 2);
	assert_int_equal(dq_steal_task(d, &e), 1);
	assert_int_equal((uintptr_t)e.arg, 3);
	assert_int_equal(dq_steal_task(d, &e), 0);
	assert_int_equal(atomic_load(&d->want), 0);
	/* Four slots, three in use: room for 13 more means 16 slots. */
	push_items(d, 1, 3, 1);
	assert_int_equal(dq_reserve(d, 13), 0);
	arr = atomic_load(&d->array);
	assert_true(arr->size >= 16);
	assert_int_equal(dq_reserve(d, 13), 0);        /* room already */
	assert_ptr_equal(atomic_load(&d->array), arr);
	for (i = 4; i <= 16; i++) {
		dq_entry x = item(i);
		assert_true(dq_push_private(d, &x) >= 0);
	}
	assert_ptr_equal(atomic_load(&d->array), arr);
	for (i = 16; i >= 1; i--) {
		assert_int_equal(dq_pop(d, &e), 1);
		assert_int_equal((uintptr_t)e.arg, i);
	}
	assert_int_equal(dq_pop(d, &e), 0);
	dq_destroy(d);
}

/* Private entries: invisible to thieves (who raise want), counted by
 * dq_size, taken back first by the owner, published by dq_expose and by a
 * public push. */
static void test_private(void **state)
{
	deque *d = dq_create(2);
	dq_entry e;
	uintptr_t i;

	(void)state;
	assert_non_null(d);
	push_items(d, 1, 3, 0);
	push_items(d, 4, 9, 1);                         /* grows on the way */
	assert_int_equal(dq_size(d), 9);
	assert_int_equal(dq_public(d), 3);
	assert_int_equal(dq_private(d), 6);
	/* Thieves take the public part oldest first, then find nothing and
	 * ask for more. */
	for (i = 1; i <= 3; i++) {
		assert_int_equal(dq_steal(d, &e), 1);
		assert_int_equal((uintptr_t)e.arg, i);
	}
	assert_int_equal(atomic_load(&d->want), 0);
	assert_int_equal(dq_steal(d, &e), 0);
	assert_int_equal(atomic_load(&d->want), 1);
	/* The owner takes its newest entry back, privately. */
	assert_int_equal(dq_pop(d, &e), 1);
	assert_int_equal((uintptr_t)e.arg, 9);
	/* Publishing answers the request. */
	assert_int_equal(dq_expose(d), 0);
	assert_int_equal(atomic_load(&d->want), 0);
	assert_int_equal(dq_public(d), 5);
	assert_int_equal(dq_private(d), 0);
	assert_int_equal(dq_steal(d, &e), 1);
	assert_int_equal((uintptr_t)e.arg, 4);
	/* A public push publishes the private entries pushed before it. */
	{
		dq_entry x = item(10), y = item(11);
		assert_true(dq_push_private(d, &x) >= 0);
		assert_int_equal(dq_public(d), 4);
		assert_int_equal(dq_push(d, &y), 4);
		assert_int_equal(dq_public(d), 6);
	}
	/* The owner pops everything back, newest first, and thieves find
	 * nothing after. */
	for (i = 11; i >= 5; i--) {
		if (i == 9)
			continue;
		assert_int_equal(dq_pop(d, &e), 1);
		assert_int_equal((uintptr_t)e.arg, i);
	}
	assert_int_equal(dq_pop(d, &e), 0);
	assert_int_equal(dq_steal(d, &e), 0);
	assert_int_equal(dq_size(d), 0);
	dq_destroy(d);
}

/* Shared state of the stress test. */
struct stress {
	deque *d;
	long n;
	_Atomic int done;              /* the owner has pushed everything */
	_Atomic unsigned char *taken;  /* times each item was taken */
	_Atomic long total;
};

/* Record that item i was taken. */
static void take(struct stress *s, const dq_entry *e)
{
	uintptr_t i = (uintptr_t)e->arg;

	if (i >= (uintptr_t)s->n || (uintptr_t)e->ctx != i * 3)
		fail_msg("torn or bogus entry %lu", (unsigned long)i);
	atomic_fetch_add(&s->taken[i], 1);
	atomic_fetch_add(&s->total, 1);
}

/* A thief: steal until the owner is done and the deque is empty. */
static void *thief(void *p)
{
	struct stress *s = p;
	dq_entry e;

	for (;;) {
		int r = dq_steal(s->d, &e);
		if (r > 0)
			take(s, &e);
		else if (r == 0 && atomic_load(&s->done) && dq_size(s->d) == 0)
			break;
	}
	return NULL;
}

/* Push item i for the stress tests: public, or (split) private unless a
 * thief asked or every 16th, which publishes. */
static void stress_push(struct stress *s, long i, int split)
{
	dq_entry x = item((uintptr_t)i);

	if (!split || i % 16 == 0 || atomic_load_explicit(&s->d->want,
	                                                  memory_order_relaxed))
		assert_true(dq_push(s->d, &x) >= 0);
	else
		assert_true(dq_push_private(s->d, &x) >= 0);
}

/* One owner pushes 3 and pops 1 in turn (then drains); 3 thieves steal.
 * With split, most pushes are private and the owner's pops take them back
 * with no fence while thieves race it for the public ones below. */
static void stress(int split)
{
	struct stress s;
	pthread_t t[3];
	dq_entry e;
	long i, n = test_scale(1000000, 4, 20);

	s.d = dq_create(2);
	s.n = n;
	s.taken = calloc((size_t)n, 1);
	atomic_init(&s.done, 0);
	atomic_init(&s.total, 0);
	assert_non_null(s.d);
	assert_non_null(s.taken);
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&t[i], NULL, thief, &s), 0);
	for (i = 0; i < n; i++) {
		stress_push(&s, i, split);
		if (i % 3 == 2 && dq_pop(s.d, &e))
			take(&s, &e);
		if (split && i % 1000 == 999) {
			/* Pop a run back: through the private part into the
			 * public one, where the thieves race us. */
			int k;
			for (k = 0; k < 20 && dq_pop(s.d, &e); k++)
				take(&s, &e);
		}
	}
	dq_expose(s.d);
	atomic_store(&s.done, 1);
	while (dq_pop(s.d, &e))
		take(&s, &e);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&s.total), n);
	for (i = 0; i < n; i++)
		if (atomic_load(&s.taken[i]) != 1)
			fail_msg("item %ld taken %d times", i, (int)atomic_load(&s.taken[i]));
	free((void *)s.taken);
	dq_destroy(s.d);
}

/* The plain Chase-Lev stress: every push public. */
static void test_stress(void **state)
{
	(void)state;
	stress(0);
}

/* The split stress: mostly private pushes, published now and then. */
static void test_stress_split(void **state)
{
	(void)state;
	stress(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lifo_fifo),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_private),
		cmocka_unit_test(test_steal_task_reserve),
		cmocka_unit_test(test_stress),
		cmocka_unit_test(test_stress_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
