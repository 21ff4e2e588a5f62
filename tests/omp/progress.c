/*
 * progress.c - team threads that wait for each other outside OpenMP's
 * synchronisation all make progress, as they do on libgomp (where the
 * kernel time-slices them): a thread spinning on a flag another thread of
 * its team sets, with and without taskyield in its loop, and a chain of
 * such hand-offs through every thread of the team.  On the layer a team
 * larger than the job's allotment waits for processors at scheduling
 * points; neither a flag spun on nor a taskyield loop may stop the thread
 * the spinner waits for from ever running (WAIT_UNTIL bounds every wait).
 */
#include "check.h"

static int flag, yflag, chain;

/* Thread 0 spins on a flag the last thread sets, with no OpenMP call. */
static void spin_flag(void)
{
#pragma omp parallel
	{
		int n = omp_get_num_threads(), me = omp_get_thread_num();
		if (n > 1 && me == 0)
			WAIT_UNTIL(__atomic_load_n(&flag, __ATOMIC_ACQUIRE),
			           "thread 0 spun on a flag thread %d never set", n - 1);
		else if (me == n - 1)
			__atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
	}
}

/* Yield, then read the flag thread 0 waits for in spin_yield. */
static int yield_then_read(void)
{
#pragma omp taskyield
	return __atomic_load_n(&yflag, __ATOMIC_ACQUIRE);
}

/* The same, the spinner calling taskyield in its loop. */
static void spin_yield(void)
{
#pragma omp parallel
	{
		int n = omp_get_num_threads(), me = omp_get_thread_num();
		if (n > 1 && me == 0) {
			WAIT_UNTIL(yield_then_read(),
			           "thread 0 yielded waiting for thread %d", n - 1);
		} else if (me == n - 1) {
			__atomic_store_n(&yflag, 1, __ATOMIC_RELEASE);
		}
	}
}

/* Thread i waits until thread i - 1 has taken its turn: a chain through
 * the whole team, in thread order. */
static void spin_chain(void)
{
#pragma omp parallel
	{
		int me = omp_get_thread_num();
		WAIT_UNTIL(__atomic_load_n(&chain, __ATOMIC_ACQUIRE) == me,
		           "thread %d waited for its turn in the chain", me);
		__atomic_store_n(&chain, me + 1, __ATOMIC_RELEASE);
	}
}

/* Each pattern once. */
int main(void)
{
	spin_flag();
	spin_yield();
	spin_chain();
	CHECK(chain >= 1, "the chain never started");
	return 0;
}
