/*
 * orphan.c - orphaned worksharing: a function holding for (static and
 * dynamic), sections, single, master, barrier and a reduction is called
 * from inside a parallel region (its constructs bind to that team: the
 * iterations are shared out, single runs once) and outside any region
 * (a team of one: thread 0 runs everything, the barrier is a no-op).
 */
#include "check.h"

#define N 600

static int hits[N];
static int singles, sections[3], masters;

/* Worksharing constructs with no parallel construct around them here. */
static long work(void)
{
	static long total;      /* shared: a reduction's target in an orphaned loop */
	long sum;

#pragma omp single
	total = 0;
#pragma omp for schedule(static) reduction(+: total)
	for (int i = 0; i < N; i++) {
		ATOMIC_ADD(&hits[i], 1);
		total += i;
	}
	sum = total;
#pragma omp for schedule(dynamic, 7) nowait
	for (int i = 0; i < N; i++)
		ATOMIC_ADD(&hits[i], 1);
#pragma omp barrier
#pragma omp sections
	{
#pragma omp section
		ATOMIC_ADD(&sections[0], 1);
#pragma omp section
		ATOMIC_ADD(&sections[1], 1);
#pragma omp section
		ATOMIC_ADD(&sections[2], 1);
	}
#pragma omp single
	ATOMIC_ADD(&singles, 1);    /* its barrier also keeps total until all have read it */
#pragma omp master
	ATOMIC_ADD(&masters, 1);
	return sum;
}

/* Check one call's effects: every iteration twice, each block once. */
static void check(const char *where, long sum, int calls)
{
	CHECK(sum == (long)N * (N - 1) / 2, "%s: reduction %ld, expected %ld", where, sum,
	      (long)N * (N - 1) / 2);
	for (int i = 0; i < N; i++)
		CHECK(hits[i] == 2 * calls, "%s: iteration %d ran %d times, expected %d", where, i,
		      hits[i], 2 * calls);
	CHECK(singles == calls, "%s: single ran %d times, expected %d", where, singles, calls);
	CHECK(masters == calls, "%s: master ran %d times, expected %d", where, masters, calls);
	for (int s = 0; s < 3; s++)
		CHECK(sections[s] == calls, "%s: section %d ran %d times, expected %d", where, s,
		      sections[s], calls);
	memset(hits, 0, sizeof hits);
	singles = masters = sections[0] = sections[1] = sections[2] = 0;
}

/* Call work() outside, inside a team, and inside a team of one. */
int main(void)
{
	long sum = work();
	int bad = 0;

	check("outside any region", sum, 1);
#pragma omp parallel
	{
		long s = work();
		if (s != (long)N * (N - 1) / 2)
			ATOMIC_STORE(&bad, 1);
	}
	CHECK(!bad, "inside a region: a thread's reduction result is wrong");
	check("inside a region", (long)N * (N - 1) / 2, 1);
#pragma omp parallel num_threads(1)
	sum = work();
	check("inside a region of one thread", sum, 1);
	for (int k = 0; k < 3; k++) {
#pragma omp parallel num_threads(3)
		work();
	}
	check("three regions of 3", (long)N * (N - 1) / 2, 3);
	return 0;
}
