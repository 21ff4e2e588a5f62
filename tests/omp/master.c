/*
 * master.c - master and masked (with and without filter): the block runs
 * on thread 0 (or on the thread the filter names, and on none when that
 * thread is not in the team), once per encounter by that thread, with no
 * barrier; the combined forms parallel master, parallel masked, master
 * taskloop and parallel master taskloop run their work once.
 */
#include "check.h"

#define MAXT 64

/* The blocks and who ran them. */
static void blocks(void)
{
	int master_by[MAXT] = { 0 }, masked_by[MAXT] = { 0 };
	int f1_by[MAXT] = { 0 }, fx_by[MAXT] = { 0 };
	int n = 0;

#pragma omp parallel
	{
		int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
		for (int round = 0; round < 10; round++) {
#pragma omp master
			ATOMIC_ADD(&master_by[me], 1);
#pragma omp masked
			ATOMIC_ADD(&masked_by[me], 1);
#pragma omp masked filter(1)
			ATOMIC_ADD(&f1_by[me], 1);
#pragma omp masked filter(last)
			ATOMIC_ADD(&fx_by[me], 1);
		}
#pragma omp single
		n = omp_get_num_threads();
	}
	for (int t = 0; t < n && t < MAXT; t++) {
		CHECK(master_by[t] == (t == 0) * 10, "master ran %d times on thread %d",
		      master_by[t], t);
		CHECK(masked_by[t] == (t == 0) * 10, "masked ran %d times on thread %d",
		      masked_by[t], t);
		CHECK(f1_by[t] == (t == 1) * 10, "masked filter(1) ran %d times on thread %d in a "
		      "team of %d", f1_by[t], t, n);
		CHECK(fx_by[t] == (t == n - 1) * 10, "masked filter(%d) ran %d times on thread %d",
		      n - 1, fx_by[t], t);
	}
}

/* The combined constructs. */
static void combined(void)
{
	int runs = 0, on = -1, hits[100] = { 0 };

#pragma omp parallel master
	{
		ATOMIC_ADD(&runs, 1);
		on = omp_get_thread_num();
	}
	CHECK(runs == 1 && on == 0, "parallel master: ran %d times, on thread %d", runs, on);
	runs = 0;
#pragma omp parallel masked filter(0)
	ATOMIC_ADD(&runs, 1);
	CHECK(runs == 1, "parallel masked: ran %d times", runs);
#pragma omp parallel
#pragma omp master taskloop grainsize(10)
	for (int i = 0; i < 100; i++)
		ATOMIC_ADD(&hits[i], 1);
#pragma omp parallel master taskloop num_tasks(7)
	for (int i = 0; i < 100; i++)
		ATOMIC_ADD(&hits[i], 1);
	for (int i = 0; i < 100; i++)
		CHECK(hits[i] == 2, "master taskloop: iteration %d ran %d times, expected 2", i,
		      hits[i]);
}

/* Both. */
int main(void)
{
	blocks();
	combined();
	return 0;
}
