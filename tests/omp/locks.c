/*
 * locks.c - the lock API: omp_init_lock, omp_set_lock, omp_unset_lock,
 * omp_test_lock and omp_destroy_lock (a counter under the lock ends exact;
 * omp_test_lock fails while another thread holds the lock and succeeds
 * once it is free); nested locks (omp_test_nest_lock returns the new
 * nesting count to the owner, 0 to others; the lock frees after as many
 * unsets as sets); omp_init_lock_with_hint and omp_init_nest_lock_with_hint
 * with every hint; destroy and init again; locks taken inside tasks.
 * Who holds what when is fixed by barriers, never by timing.
 *
 * gcc 12's omp.h declares the _with_hint functions but libgomp.so.1
 * (12.2) does not define them, so a program linked with libgomp cannot
 * call them: they are weak references here, used and checked when the
 * runtime has them (LLVM's libomp does) and skipped otherwise.
 */
#include "check.h"

#pragma weak omp_init_lock_with_hint
#pragma weak omp_init_nest_lock_with_hint

#define ROUNDS 2000

/* A counter under the lock, by set/unset and by a test_lock loop. */
static void counter(omp_lock_t *l, int rounds)
{
	long count = 0;
	int n = 0;

#pragma omp parallel
	{
#pragma omp master
		n = omp_get_num_threads();
		for (int r = 0; r < rounds; r++) {
			omp_set_lock(l);
			count++;
			omp_unset_lock(l);
		}
		/* No omp_set_lock waiters from here: a lock that hands itself to
		 * its queued waiters may fail every omp_test_lock meanwhile. */
#pragma omp barrier
		for (int r = 0; r < rounds / 10; r++) {
			WAIT_UNTIL(omp_test_lock(l),
				   "omp_test_lock never succeeded (bounded wait)");
			count += 2;
			omp_unset_lock(l);
		}
	}
	CHECK(count == (long)n * (rounds + rounds / 10 * 2), "counter under a lock: %ld, expected "
	      "%ld", count, (long)n * (rounds + rounds / 10 * 2));
}

/* omp_test_lock by others while thread 0 holds it, then after it lets go. */
static void test_while_held(omp_lock_t *l)
{
	int got = 0, got_after = -1;

#pragma omp parallel
	{
		int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
		if (me == 0)
			omp_set_lock(l);
#pragma omp barrier
		if (me != 0 && omp_test_lock(l)) {
			ATOMIC_ADD(&got, 1);
			omp_unset_lock(l);
		}
#pragma omp barrier
		if (me == 0)
			omp_unset_lock(l);
#pragma omp barrier
		if (me == last) {
			got_after = omp_test_lock(l);
			if (got_after)
				omp_unset_lock(l);
		}
	}
	CHECK(got == 0, "omp_test_lock succeeded %d times while another thread held the lock", got);
	CHECK(got_after == 1, "omp_test_lock on a free lock returned %d", got_after);
}

/* Nesting counts for the owner, 0 for the others. */
static void nested(omp_nest_lock_t *l)
{
	int counts[4] = { -1, -1, -1, -1 }, others = 0, after = -1;

#pragma omp parallel
	{
		int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
		if (me == 0) {
			counts[0] = omp_test_nest_lock(l);
			counts[1] = omp_test_nest_lock(l);
			omp_set_nest_lock(l);
			counts[2] = omp_test_nest_lock(l);
			omp_set_nest_lock(l);
			counts[3] = omp_test_nest_lock(l);
		}
#pragma omp barrier
		if (me != 0) {
			int c = omp_test_nest_lock(l);
			if (c) {
				ATOMIC_ADD(&others, 1);
				omp_unset_nest_lock(l);
			}
		}
#pragma omp barrier
		if (me == 0)
			for (int k = 0; k < 6; k++)
				omp_unset_nest_lock(l);
#pragma omp barrier
		if (me == last) {
			after = omp_test_nest_lock(l);
			if (after)
				omp_unset_nest_lock(l);
		}
	}
	CHECK(counts[0] == 1 && counts[1] == 2 && counts[2] == 4 && counts[3] == 6,
	      "omp_test_nest_lock by the owner returned %d, %d, (set) %d, (set) %d; expected 1, "
	      "2, 4, 6", counts[0], counts[1], counts[2], counts[3]);
	CHECK(others == 0, "omp_test_nest_lock succeeded %d times for threads that did not own it",
	      others);
	CHECK(after == 1, "after 6 unsets of 6 holds, omp_test_nest_lock by another thread "
	      "returned %d", after);
}

/* A nested lock as a counter, with recursion inside. */
static void nested_counter(omp_nest_lock_t *l)
{
	long count = 0;
	int n = 0;

#pragma omp parallel
	{
#pragma omp master
		n = omp_get_num_threads();
		for (int r = 0; r < 1000; r++) {
			omp_set_nest_lock(l);
			omp_set_nest_lock(l);
			count++;
			omp_unset_nest_lock(l);
			count++;
			omp_unset_nest_lock(l);
		}
	}
	CHECK(count == 2000L * n, "counter under a nested lock: %ld, expected %ld", count,
	      2000L * n);
}

/* Locks taken and released inside tasks. */
static void in_tasks(omp_lock_t *l)
{
	long count = 0;

#pragma omp parallel
#pragma omp single
	for (int t = 0; t < 200; t++) {
#pragma omp task shared(count)
		{
			omp_set_lock(l);
			count++;
			omp_unset_lock(l);
		}
	}
	CHECK(count == 200, "counter under a lock in tasks: %ld, expected 200", count);
}

/* Plain, hinted and nested locks through every check. */
int main(void)
{
	static const omp_sync_hint_t hints[] = {
		omp_sync_hint_none, omp_sync_hint_uncontended, omp_sync_hint_contended,
		omp_sync_hint_nonspeculative, omp_sync_hint_speculative,
		omp_sync_hint_contended | omp_sync_hint_speculative,
		omp_sync_hint_uncontended | omp_sync_hint_nonspeculative,
	};
	omp_lock_t l;
	omp_nest_lock_t nl;

	omp_init_lock(&l);
	counter(&l, ROUNDS);
	test_while_held(&l);
	in_tasks(&l);
	omp_destroy_lock(&l);
	omp_init_lock(&l);      /* again, after destroy */
	counter(&l, ROUNDS);
	omp_destroy_lock(&l);
	for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
		if (omp_init_lock_with_hint) {
			omp_init_lock_with_hint(&l, hints[h]);
			test_while_held(&l);
			counter(&l, 500);
			omp_destroy_lock(&l);
		}
		if (omp_init_nest_lock_with_hint) {
			omp_init_nest_lock_with_hint(&nl, hints[h]);
			nested(&nl);
			omp_destroy_nest_lock(&nl);
		}
	}
	omp_init_nest_lock(&nl);
	nested(&nl);
	nested_counter(&nl);
	omp_destroy_nest_lock(&nl);
	return 0;
}
