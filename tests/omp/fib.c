/*
 * fib.c - deep recursion with tasks: fib(25), each call spawning a task
 * for fib(n - 1), computing fib(n - 2) itself and waiting with taskwait.
 * The task made at n <= 6 is final, so everything below it is included
 * (run at once, still through GOMP_task): about 11000 deferrable tasks
 * nested up to 19 deep, and 110000 included ones.  The result is checked
 * against the known value and the number of calls against the count the
 * recursion makes.
 */
#include "check.h"

#define CUTOFF 6

static long calls;

/* fib(n) by tasks, final below CUTOFF. */
static long fib(int n)
{
	long x, y;

	ATOMIC_ADD(&calls, 1);
	if (n < 2)
		return n;
#pragma omp task shared(x) final(n <= CUTOFF) mergeable
	x = fib(n - 1);
	y = fib(n - 2);
#pragma omp taskwait
	return x + y;
}

/* The number of calls fib(n) makes: 2 fib(n + 1) - 1. */
static long calls_of(int n)
{
	long a = 0, b = 1;

	for (int i = 0; i < n + 1; i++) {
		long t = a + b;
		a = b;
		b = t;
	}
	return 2 * a - 1;
}

/* fib(25) from one thread of the team. */
int main(void)
{
	long r = -1;

#pragma omp parallel
#pragma omp single
	r = fib(25);
	CHECK(r == 75025, "fib(25) with tasks gave %ld, expected 75025", r);
	CHECK(calls == calls_of(25), "fib(25) made %ld calls, expected %ld", calls, calls_of(25));
	return 0;
}
