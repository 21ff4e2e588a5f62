/*
 * nowait.c - the nowait clause on worksharing loops: after a static loop
 * with nowait, a second static loop of the same iteration count and chunk
 * in the same region gives each thread the same iterations, so it may read
 * what the first wrote without a barrier (OpenMP guarantees the mapping);
 * dynamic and guided loops with nowait (GOMP_loop_end_nowait) followed by
 * an explicit barrier leave every iteration done once; a thread leaving a
 * nowait loop early goes on to the next loop at once (several loops in a
 * row, no deadlock).
 */
#include "check.h"

#define N 1000

static int a[N], b[N], cnt[N];

/* Static loops with nowait: the second reads what the first wrote. */
static void static_pairs(void)
{
	int bad = 0;

#pragma omp parallel
	{
		for (int round = 0; round < 20; round++) {
#pragma omp for schedule(static) nowait
			for (int i = 0; i < N; i++)
				a[i] = i * 7 + round;
#pragma omp for schedule(static) nowait
			for (int i = 0; i < N; i++)
				if (a[i] != i * 7 + round)
					ATOMIC_STORE(&bad, 1);
#pragma omp for schedule(static, 3) nowait
			for (int i = 0; i < N; i++)
				b[i] = -i - round;
#pragma omp for schedule(static, 3) nowait
			for (int i = 0; i < N; i++)
				if (b[i] != -i - round)
					ATOMIC_STORE(&bad, 2);
#pragma omp barrier
		}
	}
	CHECK(!bad, "a static loop after a nowait static loop of the same shape read another "
	      "thread's element (case %d)", bad);
}

/* Dynamic and guided loops with nowait, then a barrier. */
static void dynamic_nowait(void)
{
	int bad = 0;

#pragma omp parallel
	{
		for (int round = 0; round < 10; round++) {
#pragma omp for schedule(dynamic, 5) nowait
			for (int i = 0; i < N; i++)
				ATOMIC_ADD(&cnt[i], 1);
#pragma omp for schedule(guided) nowait
			for (int i = 0; i < N; i++)
				ATOMIC_ADD(&cnt[i], 1);
#pragma omp for schedule(dynamic) nowait
			for (int i = 0; i < N; i++)
				ATOMIC_ADD(&cnt[i], 1);
#pragma omp barrier
#pragma omp for schedule(static)
			for (int i = 0; i < N; i++)
				if (cnt[i] != 3 * (round + 1))
					ATOMIC_STORE(&bad, i + 1);
		}
	}
	CHECK(!bad, "after three nowait loops and a barrier, iteration %d ran %d times", bad - 1,
	      bad ? cnt[bad - 1] : 0);
}

/* Both checks. */
int main(void)
{
	static_pairs();
	dynamic_nowait();
	return 0;
}
