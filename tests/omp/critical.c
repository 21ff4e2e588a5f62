/*
 * critical.c - the critical construct (GOMP_critical_start and _end for
 * the unnamed one, GOMP_critical_name_start and _end for named ones): a
 * plain counter incremented many times by every thread under an unnamed
 * critical and under two named ones ends exact; no two threads are ever
 * inside the same critical at once; differently named criticals nest; a
 * hint clause is accepted; criticals in tasks exclude each other too.
 */
#include "check.h"

#define ROUNDS 5000

static long plain, named_a, named_b, in_tasks;
static int inside, inside_a;

/* All threads hammer the three counters. */
static void hammer(void)
{
	int n = 0, overlap = 0;

#pragma omp parallel
	{
#pragma omp single
		n = omp_get_num_threads();
		for (int r = 0; r < ROUNDS; r++) {
#pragma omp critical
			{
				if (ATOMIC_ADD(&inside, 1) != 1)
					ATOMIC_STORE(&overlap, 1);
				plain++;
				ATOMIC_ADD(&inside, -1);
			}
#pragma omp critical(alpha)
			{
				if (ATOMIC_ADD(&inside_a, 1) != 1)
					ATOMIC_STORE(&overlap, 2);
				named_a += 2;
#pragma omp critical(beta) hint(omp_sync_hint_contended)
				named_b--;
				ATOMIC_ADD(&inside_a, -1);
			}
		}
	}
	CHECK(!overlap, "two threads inside the %s critical at once", overlap == 1 ? "unnamed" :
	      "named");
	CHECK(plain == (long)n * ROUNDS, "unnamed critical counter %ld, expected %ld", plain,
	      (long)n * ROUNDS);
	CHECK(named_a == 2L * n * ROUNDS, "critical(alpha) counter %ld, expected %ld", named_a,
	      2L * n * ROUNDS);
	CHECK(named_b == -(long)n * ROUNDS, "critical(beta) nested in alpha: %ld, expected %ld",
	      named_b, -(long)n * ROUNDS);
}

/* Criticals inside tasks run by the team. */
static void tasks(void)
{
#pragma omp parallel
#pragma omp single
	for (int t = 0; t < 200; t++) {
#pragma omp task
		for (int r = 0; r < 50; r++) {
#pragma omp critical(task_counter)
			in_tasks++;
		}
	}
	CHECK(in_tasks == 200 * 50, "critical in tasks: counter %ld, expected %d", in_tasks,
	      200 * 50);
}

/* Both. */
int main(void)
{
	hammer();
	tasks();
	return 0;
}
