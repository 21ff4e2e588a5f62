/*
 * parallel.c - the parallel construct: the team size follows nthreads-var,
 * omp_set_num_threads and num_threads; if(false) gives a team of one;
 * every thread number appears exactly once; omp_in_parallel answers
 * whether an active region encloses the call; private, firstprivate and
 * shared data; proc_bind clauses are accepted; many regions one after the
 * other, growing and shrinking, reuse the team correctly.
 */
#include "check.h"

#define MAXT 64

/* What every thread of a team records: its number, and the master the team's size. */
static void team_body(int *seen, int *size, int *inpar, int *bad)
{
	int me = omp_get_thread_num(), n = omp_get_num_threads();

	if (me < 0 || me >= n || me >= MAXT)
		ATOMIC_STORE(bad, 1);
	else
		ATOMIC_ADD(&seen[me], 1);
#pragma omp barrier
#pragma omp master
	{
		*size = n;
		*inpar = omp_in_parallel();
	}
}

/* Run a region of want threads (0: no num_threads clause) and check its team. */
static void check_team(int want, int expect)
{
	int seen[MAXT] = { 0 };
	int size = -1, inpar = -1, bad = 0;

	if (want) {
#pragma omp parallel num_threads(want)
		team_body(seen, &size, &inpar, &bad);
	} else {
#pragma omp parallel
		team_body(seen, &size, &inpar, &bad);
	}
	CHECK(!bad, "a thread number out of [0, team size)");
	CHECK(size == expect, "num_threads(%d): team of %d, expected %d", want, size, expect);
	CHECK(inpar == (expect > 1), "omp_in_parallel() in a team of %d gave %d", expect, inpar);
	for (int i = 0; i < size; i++)
		CHECK(seen[i] == 1, "team of %d: thread %d ran %d times", size, i, seen[i]);
}

/* if(false) serializes; if(true) does not. */
static void check_if(void)
{
	int n0 = -1, n1 = -1, cond = 0;

#pragma omp parallel if (cond) num_threads(4)
	n0 = omp_get_num_threads();
	CHECK(n0 == 1, "parallel if(0) num_threads(4): team of %d, expected 1", n0);
	cond = 1;
#pragma omp parallel if (cond) num_threads(3)
#pragma omp master
	n1 = omp_get_num_threads();
	CHECK(n1 == 3, "parallel if(1) num_threads(3): team of %d, expected 3", n1);
#pragma omp parallel if (0)
	{
		CHECK(omp_in_parallel() == 0, "omp_in_parallel() true in a region with if(0)");
		CHECK(omp_get_level() == 1, "omp_get_level() %d in a region with if(0), expected 1",
		      omp_get_level());
		CHECK(omp_get_active_level() == 0, "omp_get_active_level() %d with if(0), "
		      "expected 0", omp_get_active_level());
	}
}

/* private starts fresh, firstprivate copies, shared is one object. */
static void check_data(void)
{
	int fp = 42, sh = 0, pr = 7;

#pragma omp parallel num_threads(4) firstprivate(fp) private(pr) shared(sh)
	{
		pr = omp_get_thread_num();
		CHECK(fp == 42, "firstprivate value %d, expected 42", fp);
		fp += pr;
		ATOMIC_ADD(&sh, 1);
#pragma omp barrier
		CHECK(pr == omp_get_thread_num(), "private copy changed by another thread");
		CHECK(fp == 42 + pr, "firstprivate copy changed by another thread");
	}
	CHECK(fp == 42, "original of a firstprivate changed to %d", fp);
	CHECK(sh == 4, "shared counter %d after a team of 4, expected 4", sh);
}

/* The proc_bind clause with every policy: accepted, and the team is right. */
static void check_proc_bind(void)
{
	int n[4] = { 0 };

#pragma omp parallel num_threads(2) proc_bind(close)
#pragma omp atomic
	n[0]++;
#pragma omp parallel num_threads(2) proc_bind(spread)
#pragma omp atomic
	n[1]++;
#pragma omp parallel num_threads(2) proc_bind(master)
#pragma omp atomic
	n[2]++;
#pragma omp parallel num_threads(2) proc_bind(primary)
#pragma omp atomic
	n[3]++;
	for (int i = 0; i < 4; i++)
		CHECK(n[i] == 2, "proc_bind case %d: %d threads ran, expected 2", i, n[i]);
}

/* Many regions of changing sizes one after the other. */
static void check_many(void)
{
	long total = 0, expect = 0;

	for (int r = 0; r < 40; r++) {
		int want = 1 + r % 5;
		expect += want * (want - 1) / 2;
#pragma omp parallel num_threads(want) reduction(+: total)
		total += omp_get_thread_num();
	}
	CHECK(total == expect, "sum of thread numbers over 40 regions %ld, expected %ld", total,
	      expect);
}

/* Run every check at the environment's team size and at fixed sizes. */
int main(void)
{
	int max = omp_get_max_threads();

	CHECK(!omp_in_parallel(), "omp_in_parallel() true outside any region");
	CHECK(omp_get_num_threads() == 1, "omp_get_num_threads() %d outside a region",
	      omp_get_num_threads());
	CHECK(omp_get_thread_num() == 0, "omp_get_thread_num() %d outside a region",
	      omp_get_thread_num());
	CHECK(max >= 1 && max <= MAXT, "omp_get_max_threads() %d", max);
	check_team(0, max);
	for (int n = 1; n <= 8; n++)
		check_team(n, n);
	omp_set_num_threads(3);
	CHECK(omp_get_max_threads() == 3, "omp_get_max_threads() %d after omp_set_num_threads(3)",
	      omp_get_max_threads());
	check_team(0, 3);
	omp_set_num_threads(max);
	check_if();
	check_data();
	check_proc_bind();
	check_many();
	return 0;
}
