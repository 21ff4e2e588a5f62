/*
 * tbb_fib.cpp - the fib job (jobs/fib.c) written with oneTBB task_group,
 * for comparison: each call runs fib(n-1) as a task, computes fib(n-2)
 * itself and waits; no serial cutoff.
 *
 *   tbb_fib N [--serial] [--workers W]      (0 <= N <= 92; W default: all CPUs)
 */
#include <cinttypes>
#include <cstdio>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "common.h"
#include "tbb_pool.h"
#include "fib_kernels.h"

#define NAME "tbb-fib"

/* fib(n) with a task_group per call; called inside the arena. */
static uint64_t fib_tbb(int n)
{
	uint64_t x = 0, y;
	tbb::task_group g;

	if (n < 2)
		return (uint64_t)n;
	g.run([&x, n] { x = fib_tbb(n - 1); });
	y = fib_tbb(n - 2);
	g.wait();
	return x + y;
}

/* Parse the arguments, compute fib N in a W-thread arena (or serially) and report it. */
int main(int argc, char **argv)
{
	job_common c;
	int n = fib_parse_args(NAME, argc, argv, &c);
	char size[32], result[32];
	double t0, t1;
	uint64_t r;

	tbb_pool pool(&c);
	t0 = job_now();
	if (c.serial)
		r = fib_serial(n);
	else
		r = pool.arena.execute([n] { return fib_tbb(n); });
	t1 = job_now();
	snprintf(size, sizeof(size), "%d", n);
	snprintf(result, sizeof(result), "%" PRIu64, r);
	return job_report(NAME, size, result, &c, t1 - t0, r == fib_iterative(n));
}
