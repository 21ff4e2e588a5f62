/*
 * sections.c - the sections construct (GOMP_sections_start, _next, _end,
 * _end_nowait; GOMP_parallel_sections for the combined form): each section
 * runs exactly once whatever the team size (more sections than threads,
 * fewer, one), lastprivate takes the lexically last section's value,
 * firstprivate copies in, nowait lets threads go on (a barrier after it
 * sees every section done), and sections run again in a loop of rounds.
 */
#include "check.h"

#define S 7

static int ran[S];

/* Check each of the first n sections ran `times` times; clear. */
static void check_ran(const char *name, int n, int times)
{
	for (int s = 0; s < S; s++)
		CHECK(ran[s] == (s < n ? times : 0), "%s: section %d ran %d times, expected %d",
		      name, s, ran[s], s < n ? times : 0);
	memset(ran, 0, sizeof ran);
}

/* Seven sections in a region, lastprivate and firstprivate. */
static void seven(void)
{
	int last = -1, fp = 50;

#pragma omp parallel
	{
#pragma omp sections lastprivate(last) firstprivate(fp)
		{
#pragma omp section
			{ ATOMIC_ADD(&ran[0], 1); last = 0 + fp; }
#pragma omp section
			{ ATOMIC_ADD(&ran[1], 1); last = 1 + fp; }
#pragma omp section
			{ ATOMIC_ADD(&ran[2], 1); last = 2 + fp; }
#pragma omp section
			{ ATOMIC_ADD(&ran[3], 1); last = 3 + fp; }
#pragma omp section
			{ ATOMIC_ADD(&ran[4], 1); last = 4 + fp; }
#pragma omp section
			{ ATOMIC_ADD(&ran[5], 1); last = 5 + fp; }
#pragma omp section
			{ ATOMIC_ADD(&ran[6], 1); last = 6 + fp; }
		}
	}
	check_ran("sections in a region", 7, 1);
	CHECK(last == 56, "sections lastprivate: %d, expected 56 (the last section's)", last);
}

/* The combined form, several rounds, and a single section. */
static void combined(void)
{
	for (int round = 0; round < 32; round++) {
#pragma omp parallel sections num_threads(1 + round / 8)
		{
#pragma omp section
			ATOMIC_ADD(&ran[0], 1);
#pragma omp section
			ATOMIC_ADD(&ran[1], 1);
#pragma omp section
			ATOMIC_ADD(&ran[2], 1);
		}
	}
	check_ran("parallel sections, 32 rounds", 3, 32);
#pragma omp parallel sections
	{
		ATOMIC_ADD(&ran[0], 1);
	}
	check_ran("parallel sections with one section", 1, 1);
}

/* nowait: the team goes on; a barrier later sees all done. */
static void nowait(void)
{
	int bad = 0;

#pragma omp parallel
	{
		for (int round = 1; round <= 20; round++) {
#pragma omp sections nowait
			{
#pragma omp section
				ATOMIC_ADD(&ran[0], 1);
#pragma omp section
				ATOMIC_ADD(&ran[1], 1);
#pragma omp section
				ATOMIC_ADD(&ran[2], 1);
#pragma omp section
				ATOMIC_ADD(&ran[3], 1);
			}
#pragma omp barrier
			for (int s = 0; s < 4; s++)
				if (ATOMIC_LOAD(&ran[s]) != round)
					ATOMIC_STORE(&bad, 1);
#pragma omp barrier
		}
	}
	CHECK(!bad,
	      "sections nowait: after a barrier a section had not run exactly once per round");
	check_ran("sections nowait, 20 rounds", 4, 20);
}

/* All three. */
int main(void)
{
	seven();
	combined();
	nowait();
	return 0;
}
