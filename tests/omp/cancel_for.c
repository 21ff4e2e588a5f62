/*
 * cancel_for.c - cancel for and cancellation point for (GOMP_cancel,
 * GOMP_cancellation_point, GOMP_loop_end_cancel): with cancellation
 * active, the iteration that cancels skips the rest of its body, threads
 * spinning at a cancellation point of the loop leave it (bounded spin),
 * no iteration runs twice, and the whole team goes on after the loop (only
 * the loop is cancelled, not the region); in a loop with a dynamic
 * schedule likewise.  With cancellation off every iteration
 * runs once.  The spins need the team's threads to run concurrently.
 */
#include "cancel.h"

#define N 1000
#define MAXT 64

/* One iteration per thread (static,1): thread 0's iteration cancels. */
static void one_each(int active)
{
	int after = 0, timed_out = 0, past_loop = 0, n = 0;
	static int ran[MAXT];

	memset(ran, 0, sizeof ran);
#pragma omp parallel
	{
		int nt = omp_get_num_threads();
#pragma omp master
		n = nt;
#pragma omp for schedule(static, 1)
		for (int i = 0; i < nt; i++) {
			ATOMIC_ADD(&ran[i % MAXT], 1);
			if (i == 0) {
#pragma omp cancel for
				ATOMIC_ADD(&after, 1);
			} else if (active) {
				SPIN_UNTIL_CANCELLED(_Pragma("omp cancellation point for"),
						     &timed_out);
			}
		}
		ATOMIC_ADD(&past_loop, 1);
	}
	CHECK(!timed_out, "a thread spinning at a cancellation point never saw cancel for");
	CHECK(after == !active, "the statement after cancel for ran %d times (cancellation %s)",
	      after, active ? "on" : "off");
	CHECK(past_loop == n, "%d of %d threads went on after a cancelled loop", past_loop, n);
	for (int i = 0; i < n && i < MAXT; i++)
		CHECK(ran[i] <= 1 && (active || ran[i] == 1), "iteration %d ran %d times", i,
		      ran[i]);
}

/* A dynamic loop; iteration 100 cancels, later observers leave (gcc
 * rejects cancel for in a combined parallel for, which has no barrier). */
static void dynamic(int active)
{
	static int ran[N];
	int flag = 0, after = 0, timed_out = 0;

	memset(ran, 0, sizeof ran);
#pragma omp parallel
#pragma omp for schedule(dynamic, 1)
	for (int i = 0; i < N; i++) {
		ATOMIC_ADD(&ran[i], 1);
		if (i == 100) {
			ATOMIC_STORE(&flag, 1);
#pragma omp cancel for
			ATOMIC_ADD(&after, 1);
		} else if (active && ATOMIC_LOAD(&flag)) {
			SPIN_UNTIL_CANCELLED(_Pragma("omp cancellation point for"),
						     &timed_out);
		}
#pragma omp cancellation point for
	}
	CHECK(!timed_out, "dynamic loop: a thread never saw the cancellation");
	CHECK(after == !active, "dynamic loop: the statement after cancel for ran %d times", after);
	CHECK(ran[100] == 1, "dynamic loop: the cancelling iteration ran %d times", ran[100]);
	for (int i = 0; i < N; i++)
		CHECK(ran[i] <= 1 && (active || ran[i] == 1), "dynamic loop: iteration %d ran %d "
		      "times", i, ran[i]);
}

/* Both, a few times, and a normal loop after them. */
int main(void)
{
	int active = cancellation_active(), sum = 0;

	for (int round = 0; round < 3; round++) {
		one_each(active);
		dynamic(active);
	}
#pragma omp parallel for reduction(+: sum) schedule(dynamic)
	for (int i = 0; i < N; i++)
		sum += 1;
	CHECK(sum == N, "a loop after cancelled ones ran %d of %d iterations", sum, N);
	return 0;
}
