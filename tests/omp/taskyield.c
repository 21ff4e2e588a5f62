/*
 * taskyield.c - taskyield (GOMP_taskyield) in tied and untied tasks, in
 * the implicit task and outside any region: it may switch to other tasks
 * or not, so only what must hold is checked: every task finishes once,
 * each task's own locals and firstprivates are intact after its yields,
 * and the thread running a tied task is the same before and after its
 * taskyield (tied tasks resume on the thread that began them).
 */
#include "check.h"

#define TASKS 300

/* Tasks that yield between steps. */
int main(void)
{
	int done = 0, bad = 0, moved = 0;

#pragma omp taskyield
#pragma omp parallel
	{
#pragma omp taskyield
#pragma omp single
		for (int t = 0; t < TASKS; t++) {
#pragma omp task firstprivate(t) shared(done, bad, moved)
			{
				int local = t * 3, me = omp_get_thread_num();
				for (int k = 0; k < 5; k++) {
#pragma omp taskyield
					local++;
				}
				if (omp_get_thread_num() != me)
					ATOMIC_STORE(&moved, 1);
				if (local != t * 3 + 5)
					ATOMIC_STORE(&bad, 1);
				ATOMIC_ADD(&done, 1);
			}
#pragma omp task untied firstprivate(t) shared(done, bad)
			{
				int local = t;
				for (int k = 0; k < 5; k++) {
#pragma omp taskyield
					local += 2;
				}
				if (local != t + 10)
					ATOMIC_STORE(&bad, 1);
				ATOMIC_ADD(&done, 1);
			}
		}
	}
	CHECK(!bad, "a task's locals changed across taskyield");
	CHECK(!moved, "a tied task resumed on another thread after taskyield");
	CHECK(done == 2 * TASKS, "%d of %d yielding tasks finished", done, 2 * TASKS);
	return 0;
}
