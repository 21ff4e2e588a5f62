/*
 * single.c - the single construct (GOMP_single_start; GOMP_single_copy_start
 * and _end for copyprivate): executed by exactly one thread per encounter,
 * with its implicit barrier (every thread sees what it wrote after it),
 * with nowait, and copyprivate broadcasting scalars (int, double, a
 * pointer), several variables at once and a struct with an array in it
 * from the thread that ran the block to every thread of the team.
 */
#include "check.h"

struct big {
	int id;
	double vals[8];
	char name[24];
};

/* One thread per encounter, and the barrier after it. */
static void once(void)
{
	int runs = 0, bad = 0;
	static int value[51];   /* one per round: a fast thread may be a round ahead */

#pragma omp parallel
	{
		for (int round = 1; round <= 50; round++) {
#pragma omp single
			{
				ATOMIC_ADD(&runs, 1);
				value[round] = round;
			}
			if (value[round] != round)
				ATOMIC_STORE(&bad, round);
		}
	}
	CHECK(runs == 50, "single ran %d times in 50 encounters, expected 50", runs);
	CHECK(!bad, "after single's barrier a thread saw an old value (round %d)", bad);
}

/* nowait: still exactly once. */
static void nowait(void)
{
	int runs = 0;

#pragma omp parallel
	{
		for (int round = 0; round < 50; round++) {
#pragma omp single nowait
			ATOMIC_ADD(&runs, 1);
		}
#pragma omp barrier
	}
	CHECK(runs == 50, "single nowait ran %d times in 50 encounters", runs);
}

/* copyprivate of scalars, several at once, and a struct. */
static void copyprivate(void)
{
	int bad = 0;

#pragma omp parallel
	{
		int i = -1, *p = NULL, who = -1;
		double d = 0.0;
		struct big b;
		static int target = 77;

		memset(&b, 0, sizeof b);
		for (int round = 0; round < 20; round++) {
#pragma omp single copyprivate(i, d, p, who)
			{
				i = 1000 + round;
				d = round + 0.5;
				p = &target;
				who = omp_get_thread_num();
			}
			if (i != 1000 + round || d != round + 0.5 || p != &target || who < 0 ||
			    who >= omp_get_num_threads())
				ATOMIC_STORE(&bad, 1);
#pragma omp single copyprivate(b)
			{
				b.id = round;
				for (int k = 0; k < 8; k++)
					b.vals[k] = k * 1.5 + round;
				snprintf(b.name, sizeof b.name, "round %d", round);
			}
			char want[24];
			snprintf(want, sizeof want, "round %d", round);
			if (b.id != round || b.vals[7] != 10.5 + round || strcmp(b.name, want) != 0)
				ATOMIC_STORE(&bad, 2);
		}
	}
	CHECK(bad != 1, "copyprivate of scalars: a thread did not get the single's values");
	CHECK(bad != 2, "copyprivate of a struct: a thread did not get the single's copy");
}

/* All three. */
int main(void)
{
	once();
	nowait();
	copyprivate();
	return 0;
}
