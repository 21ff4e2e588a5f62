/*
 * taskgroup.c - taskgroup (GOMP_taskgroup_start and _end) waits for all
 * descendant tasks, not just children: tasks three generations deep are
 * all done when the taskgroup ends; nested taskgroups each wait for their
 * own; taskwait waits for the children (their own effects are visible);
 * a taskgroup in every thread of the team at once; a recursive
 * tree of tasks counted exactly.
 */
#include "check.h"

/* A tree of tasks `depth` levels deep below each task, 3 children each. */
static void tree(int depth, int *count)
{
	ATOMIC_ADD(count, 1);
	if (depth == 0)
		return;
	for (int c = 0; c < 3; c++) {
#pragma omp task firstprivate(depth) shared(count)
		tree(depth - 1, count);
	}
}

/* Descendants, nested groups and taskwait. */
static void descendants(void)
{
	int count = 0, after = -1, inner = 0, inner_after = -1, outer_after = -1;
	int children = 0, kids_seen = -1;

#pragma omp parallel
#pragma omp single
	{
#pragma omp taskgroup
		tree(4, &count);        /* 1 + 3 + 9 + 27 + 81 = 121 */
		after = ATOMIC_LOAD(&count);

#pragma omp taskgroup
		{
#pragma omp task shared(inner, inner_after)
			{
#pragma omp taskgroup
				{
					for (int k = 0; k < 10; k++) {
#pragma omp task shared(inner)
						{
#pragma omp task shared(inner)
							ATOMIC_ADD(&inner, 1);
							ATOMIC_ADD(&inner, 1);
						}
					}
				}
				inner_after = ATOMIC_LOAD(&inner);
			}
		}
		outer_after = inner_after;

		for (int k = 0; k < 20; k++) {
#pragma omp task shared(children)
			ATOMIC_ADD(&children, 1);
		}
#pragma omp taskwait
		kids_seen = ATOMIC_LOAD(&children);
	}
	CHECK(after == 121, "taskgroup end: %d of 121 tasks of a 4-deep tree done", after);
	CHECK(inner_after == 20, "an inner taskgroup ended with %d of its 20 descendants done",
	      inner_after);
	CHECK(outer_after == 20, "the outer taskgroup ended before the task holding the inner one");
	CHECK(kids_seen == 20, "taskwait returned with %d of 20 children done", kids_seen);
}

/* A taskgroup in every thread at once. */
static void every_thread(void)
{
	int bad = 0, n = 0;
	static int per[64];

#pragma omp parallel
	{
		int me = omp_get_thread_num() % 64;
#pragma omp single nowait
		n = omp_get_num_threads();
		for (int round = 1; round <= 5; round++) {
#pragma omp taskgroup
			{
				for (int k = 0; k < 10; k++) {
#pragma omp task firstprivate(me)
					{
#pragma omp task firstprivate(me)
						ATOMIC_ADD(&per[me], 1);
					}
				}
			}
			if (ATOMIC_LOAD(&per[me]) != 10 * round)
				ATOMIC_STORE(&bad, 1);
		}
	}
	CHECK(!bad, "a thread's taskgroup ended before its grandchildren were done");
	for (int t = 0; t < n && t < 64; t++)
		CHECK(per[t] == 50, "thread %d's grandchildren: %d, expected 50", t, per[t]);
}

/* Both. */
int main(void)
{
	descendants();
	every_thread();
	return 0;
}
