/*
 * cancel_taskgroup.c - cancel taskgroup and cancellation point taskgroup:
 * with cancellation active the task that cancels skips the rest of its
 * block; a task that reaches a cancellation point after its taskgroup was
 * cancelled (here: after an undeferred child cancelled it) leaves there;
 * tasks of the group not yet started may be discarded (counted, not
 * required); nothing runs twice; the taskgroup ends (no hang) and tasks
 * after it, and later taskgroups, run normally.  With cancellation off
 * everything runs.  No task waits for another to run concurrently.
 */
#include "cancel.h"

#define TASKS 100

/* One round of the three cases. */
static void round_of(int active, int *discarded)
{
	int after = 0, point_after = 0, ran[TASKS] = { 0 }, x = 0, later = 0;
	int dep_ran = 0, dep_saw = -1;

#pragma omp parallel
#pragma omp single
	{
		/* The cancelling task skips the rest of its block. */
#pragma omp taskgroup
		{
			for (int t = 0; t < TASKS; t++) {
#pragma omp task firstprivate(t) shared(ran)
				ATOMIC_ADD(&ran[t], 1);
			}
#pragma omp task shared(after)
			{
#pragma omp cancel taskgroup
				ATOMIC_ADD(&after, 1);
			}
		}
		/* A cancellation point after an undeferred child cancelled the group. */
#pragma omp taskgroup
		{
#pragma omp task shared(point_after)
			{
#pragma omp task if (0)
				{
#pragma omp cancel taskgroup
				}
#pragma omp cancellation point taskgroup
				ATOMIC_ADD(&point_after, 1);
			}
		}
		/* A task depending on the cancelling one: may be discarded. */
#pragma omp taskgroup
		{
#pragma omp task depend(out: x) shared(x)
			{
				x = 1;
#pragma omp cancel taskgroup
			}
#pragma omp task depend(in: x) shared(x, dep_ran, dep_saw)
			{
				dep_ran++;
				dep_saw = x;
			}
		}
		/* After the groups: tasks run normally. */
		for (int t = 0; t < 10; t++) {
#pragma omp task shared(later)
			ATOMIC_ADD(&later, 1);
		}
#pragma omp taskwait
	}
	CHECK(after == !active, "the statement after cancel taskgroup ran %d times (cancellation "
	      "%s)", after, active ? "on" : "off");
	CHECK(point_after == !active, "the statement after a cancellation point of a cancelled "
	      "taskgroup ran %d times (cancellation %s)", point_after, active ? "on" : "off");
	for (int t = 0; t < TASKS; t++) {
		CHECK(ran[t] <= 1 && (active || ran[t] == 1), "task %d of a taskgroup ran %d times",
		      t, ran[t]);
		*discarded += !ran[t];
	}
	CHECK(dep_ran <= 1 && (active || dep_ran == 1), "the dependent task ran %d times", dep_ran);
	CHECK(!dep_ran || dep_saw == 1, "the dependent task ran before the task it depends on "
	      "(saw %d)", dep_saw);
	CHECK(later == 10, "after cancelled taskgroups %d of 10 tasks ran", later);
}

/* A few rounds. */
int main(void)
{
	int active = cancellation_active(), discarded = 0;

	for (int round = 0; round < 5; round++)
		round_of(active, &discarded);
	CHECK(active || discarded == 0, "cancellation off: %d tasks were discarded", discarded);
	return 0;
}
