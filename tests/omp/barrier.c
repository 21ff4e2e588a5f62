/*
 * barrier.c - the barrier construct (GOMP_barrier) and flush: in 20
 * rounds every thread writes its slot, waits at a barrier and then sees
 * every other thread's write of the same round (no thread passes a barrier
 * before all arrive); the same with teams of 2, 3 and 5 threads one after the
 * other; and the flush producer/consumer pattern of the OpenMP examples
 * (a payload, flush, a flag set; the consumer spins on the flag with
 * flush, then reads the payload), with flush, flush(list), flush release
 * and flush acquire.  The spin is bounded (WAIT_SECONDS): it needs the
 * team's threads to run concurrently, as OpenMP threads do.
 */
#include "check.h"

#define MAXT 64
#define ROUNDS 20

/* Rounds of write, barrier, read all. */
static void rounds(int nt)
{
	static int slot[MAXT];
	int bad = 0;

#pragma omp parallel num_threads(nt)
	{
		int me = omp_get_thread_num(), n = omp_get_num_threads();
		for (int r = 1; r <= ROUNDS; r++) {
			ATOMIC_STORE(&slot[me], r);
#pragma omp barrier
			for (int t = 0; t < n; t++)
				if (ATOMIC_LOAD(&slot[t]) != r)
					ATOMIC_STORE(&bad, r);
#pragma omp barrier
		}
	}
	CHECK(!bad, "team of %d: after the barrier of round %d a thread had not written its slot",
	      nt, bad);
}

/* The flush pattern: thread 0 produces, the last thread consumes. */
static void flush_pair(void)
{
	int data = 0, flag = 0, got = -1, seen = 0;

#pragma omp parallel num_threads(2) shared(data, flag, got, seen)
	{
		int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
		if (me == 0) {
			data = 42;
#pragma omp flush(data, flag)
#pragma omp atomic write
			flag = 1;
#pragma omp flush(flag)
		}
		if (me == last) {
			int f = 0;
			double end = omp_get_wtime() + WAIT_SECONDS;
			while (!f && omp_get_wtime() < end) {
#pragma omp flush(flag, data)
#pragma omp atomic read
				f = flag;
			}
#pragma omp flush
			seen = f;
			got = data;
		}
	}
	CHECK(seen, "flush: the consumer never saw the flag (bounded wait)");
	CHECK(got == 42, "flush: payload %d after the flag, expected 42", got);

	data = 0;
	flag = 0;
#pragma omp parallel num_threads(2) shared(data, flag, got, seen)
	{
		int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
		if (me == 0) {
			data = 43;
#pragma omp flush release
#pragma omp atomic write relaxed
			flag = 1;
		}
		if (me == last) {
			int f = 0;
			double end = omp_get_wtime() + WAIT_SECONDS;
			while (!f && omp_get_wtime() < end) {
#pragma omp atomic read relaxed
				f = flag;
			}
#pragma omp flush acquire
			seen = f;
			got = data;
		}
	}
	CHECK(seen, "flush release/acquire: the consumer never saw the flag (bounded wait)");
	CHECK(got == 43, "flush release/acquire: payload %d after the flag, expected 43", got);
}

/* The team of the environment, then teams of 2, 3 and 5. */
int main(void)
{
	rounds(omp_get_max_threads());
	rounds(2);
	rounds(3);
	rounds(5);
	flush_pair();
	return 0;
}
