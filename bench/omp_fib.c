/*
 * omp_fib.c - the fib job (jobs/fib.c) written with OpenMP tasks, for
 * comparison: each call makes fib(n-1) a task, computes fib(n-2) itself
 * and waits; no serial cutoff.
 *
 *   omp_fib N [--serial] [--workers W]      (0 <= N <= 92; W default: all CPUs)
 */
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>

#include "common.h"
#include "fib_kernels.h"

#define NAME "omp-fib"

/* fib(n) with OpenMP tasks; called inside a parallel region. */
static uint64_t fib_omp(int n)
{
	uint64_t x = 0, y;

	if (n < 2)
		return (uint64_t)n;
#pragma omp task shared(x)
	x = fib_omp(n - 1);
	y = fib_omp(n - 2);
#pragma omp taskwait
	return x + y;
}

/* fib(n) on a team of workers threads, started by one of them. */
static uint64_t fib_parallel(int n, int workers)
{
	uint64_t r = 0;

#pragma omp parallel num_threads(workers)
#pragma omp single
	r = fib_omp(n);
	return r;
}

/* Parse the arguments, compute fib N with OpenMP (or serially) and report it. */
int main(int argc, char **argv)
{
	job_common c;
	int n = fib_parse_args(NAME, argc, argv, &c);
	char size[32], result[32];
	double t0, t1;
	uint64_t r;

	if (c.workers == 0)
		c.workers = omp_get_num_procs();
	if (!c.serial)
		fib_parallel(1, c.workers);	/* start the team's threads */
	t0 = job_now();
	r = c.serial ? fib_serial(n) : fib_parallel(n, c.workers);
	t1 = job_now();
	snprintf(size, sizeof(size), "%d", n);
	snprintf(result, sizeof(result), "%" PRIu64, r);
	return job_report(NAME, size, result, &c, t1 - t0, r == fib_iterative(n));
}
