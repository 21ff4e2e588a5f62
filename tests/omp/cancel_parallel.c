/*
 * cancel_parallel.c - cancel parallel (GOMP_cancel), cancellation point
 * parallel (GOMP_cancellation_point), and barriers as cancellation points
 * (GOMP_barrier_cancel, GOMP_loop_end_cancel, GOMP_sections_end_cancel).
 * With cancellation active: the thread that cancels skips the rest of the
 * region; the other threads leave at their next cancellation point (they
 * spin on one until then, bounded); threads already waiting in a barrier,
 * or at the end of a loop or sections, are released and skip the rest;
 * cancel with a false if() cancels nothing; a region after a cancelled
 * one runs normally.  With cancellation off every statement runs.  The
 * spinning threads need the team's threads to run concurrently, as
 * OpenMP threads do.
 */
#include "cancel.h"

/* Thread 0 cancels; the others spin at a cancellation point. */
static void at_points(int active)
{
	int after = 0, ends = 0, timed_out = 0, n = 0;

#pragma omp parallel
	{
#pragma omp master
		n = omp_get_num_threads();
		if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
			ATOMIC_ADD(&after, 1);
		} else if (active) {
			SPIN_UNTIL_CANCELLED(_Pragma("omp cancellation point parallel"),
						     &timed_out);
		}
		ATOMIC_ADD(&ends, 1);
	}
	CHECK(!timed_out, "a thread spinning at a cancellation point never saw cancel parallel");
	if (active) {
		CHECK(after == 0, "the statement after cancel parallel ran");
		CHECK(ends == 0, "%d threads reached the end of a cancelled region", ends);
	} else {
		CHECK(after == 1 && ends == n, "cancellation off: after %d, %d of %d threads at "
		      "the end", after, ends, n);
	}
}

/* Thread 0 cancels; the others wait in a barrier, which must let them go. */
static void at_barrier(int active)
{
	int after_barrier = 0, n = 0;

#pragma omp parallel
	{
#pragma omp master
		n = omp_get_num_threads();
		if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
		}
#pragma omp barrier
		ATOMIC_ADD(&after_barrier, 1);
	}
	if (active)
		CHECK(after_barrier == 0, "%d threads went past a barrier of a cancelled region",
		      after_barrier);
	else
		CHECK(after_barrier == n, "cancellation off: %d of %d threads past the barrier",
		      after_barrier, n);
}

/* Thread 0 cancels; the others end a loop and sections in a region that
 * can be cancelled (GOMP_loop_end_cancel, GOMP_sections_end_cancel). */
static void at_worksharing_ends(int active)
{
	int past = 0, n = 0;

#pragma omp parallel
	{
#pragma omp master
		n = omp_get_num_threads();
		if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
		}
#pragma omp for schedule(dynamic)
		for (int i = 0; i < 100; i++)
			;
		ATOMIC_ADD(&past, 1);
#pragma omp sections
		{
#pragma omp section
			ATOMIC_ADD(&past, 100);
#pragma omp section
			ATOMIC_ADD(&past, 100);
		}
		ATOMIC_ADD(&past, 10000);
	}
	if (active)
		CHECK(past % 100 == 0 && past < 10000, "after cancel parallel, %d threads went "
		      "past the end of a loop and %d past sections", past % 100, past / 10000);
	else
		CHECK(past == n + 200 + 10000 * n, "cancellation off: a loop and sections in a "
		      "team of %d gave %d", n, past);
}

/* cancel with if(false) cancels nothing; the next region is whole. */
static void not_cancelled(void)
{
	int ends = 0, n = 0, cond = 0, sum = 0;

#pragma omp parallel
	{
#pragma omp master
		n = omp_get_num_threads();
#pragma omp cancel parallel if (cond)
#pragma omp barrier
		ATOMIC_ADD(&ends, 1);
	}
	CHECK(ends == n, "cancel parallel if(0): %d of %d threads reached the end", ends, n);
#pragma omp parallel reduction(+: sum)
	sum += 1;
	CHECK(sum == omp_get_max_threads(), "a region after cancelled ones: %d threads, expected "
	      "%d", sum, omp_get_max_threads());
}

/* All three, then the same again (the runtime recovers from a cancel). */
int main(void)
{
	int active = cancellation_active();

	for (int round = 0; round < 3; round++) {
		at_points(active);
		at_barrier(active);
		at_worksharing_ends(active);
		not_cancelled();
	}
	return 0;
}
