/*
 * cancel_sections.c - cancel sections and cancellation point sections:
 * with cancellation active the section that cancels skips the rest of its
 * block; a section that started after it began cancelling (it saw the
 * flag the cancelling section sets first) leaves at its next cancellation
 * point (a bounded spin there); no section runs twice; the team goes on
 * after the construct (only the sections are cancelled).  With
 * cancellation off every section runs to its end.  Which thread runs which
 * section, and in what order, is left to the runtime.
 */
#include "cancel.h"

#define SPIN_SECTIONS(timed_out) \
	SPIN_UNTIL_CANCELLED(_Pragma("omp cancellation point sections"), timed_out)

/* One round: section 0 cancels, the others may observe it. */
static void round_of(int active)
{
	int started = 0, after = 0, timed_out = 0, past = 0, n = 0, finished = 0;
	int ran[4] = { 0 };

#pragma omp parallel
	{
#pragma omp master
		n = omp_get_num_threads();
#pragma omp sections
		{
#pragma omp section
			{
				ATOMIC_ADD(&ran[0], 1);
				ATOMIC_STORE(&started, 1);
#pragma omp cancel sections
				ATOMIC_ADD(&after, 1);
			}
#pragma omp section
			{
				ATOMIC_ADD(&ran[1], 1);
				if (active && ATOMIC_LOAD(&started))
					SPIN_SECTIONS(&timed_out);
				ATOMIC_ADD(&finished, 1);
			}
#pragma omp section
			{
				ATOMIC_ADD(&ran[2], 1);
				if (active && ATOMIC_LOAD(&started))
					SPIN_SECTIONS(&timed_out);
				ATOMIC_ADD(&finished, 1);
			}
#pragma omp section
			{
				ATOMIC_ADD(&ran[3], 1);
#pragma omp cancellation point sections
				ATOMIC_ADD(&finished, 1);
			}
		}
		ATOMIC_ADD(&past, 1);
	}
	CHECK(!timed_out, "a section spinning at a cancellation point never saw cancel sections");
	CHECK(ran[0] == 1, "the cancelling section ran %d times", ran[0]);
	for (int s = 1; s < 4; s++)
		CHECK(ran[s] <= 1 && (active || ran[s] == 1), "section %d ran %d times", s, ran[s]);
	CHECK(after == !active, "the statement after cancel sections ran %d times (cancellation "
	      "%s)", after, active ? "on" : "off");
	CHECK(active || finished == 3, "cancellation off: %d of 3 sections finished", finished);
	CHECK(past == n, "%d of %d threads went on after the sections", past, n);
}

/* A few rounds, then sections that are not cancelled. */
int main(void)
{
	int active = cancellation_active(), sum = 0;

	for (int round = 0; round < 5; round++)
		round_of(active);
#pragma omp parallel sections reduction(+: sum)
	{
#pragma omp section
		sum += 1;
#pragma omp section
		sum += 2;
	}
	CHECK(sum == 3, "sections after cancelled ones: %d, expected 3", sum);
	return 0;
}
