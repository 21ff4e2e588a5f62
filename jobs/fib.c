/*
 * fib.c - fib N by the doubly recursive algorithm: each call spawns
 * fib(n-1), calls fib(n-2) itself and syncs.  There is no serial cutoff,
 * so the job measures the cost of a spawn and a sync.
 *
 *   fib N [--serial] [--workers W]      (0 <= N <= 92)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "asteal.h"
#include "common.h"
#include "fib_kernels.h"

#define NAME "fib"

/* One call of fib: n in, result out. */
struct fib_arg {
	int n;
	uint64_t result;
};

static inline uint64_t fib_par(int n);

/* The task: fib of a->n into a->result. */
static void fib_task(void *p)
{
	struct fib_arg *a = p;

	a->result = fib_par(a->n);
}

/* Spawn fib(n-1), compute fib(n-2) here, sync and add (no cutoff). */
static inline uint64_t fib_par(int n)
{
	struct fib_arg x;
	asteal_group g;
	uint64_t y;

	if (n < 2)
		return (uint64_t)n;
	x.n = n - 1;
	asteal_group_init(&g);
	asteal_spawn(&g, fib_task, &x);
	y = fib_par(n - 2);
	asteal_sync(&g);
	return x.result + y;
}

/* Compute fib(n) in the mode of c, time it, report it and return the exit status. */
static int fib_main(int n, job_common *c)
{
	struct fib_arg root = { n, 0 };
	char size[32], result[32];
	double t0, t1;
	int rc;

	job_runtime_start(NAME, c);
	t0 = job_now();
	if (c->serial) {
		root.result = fib_serial(n);
	} else if (asteal_run(fib_task, &root) < 0) {
		perror(NAME ": asteal_run");
		exit(JOB_EXIT_WRONG);
	}
	t1 = job_now();
	snprintf(size, sizeof(size), "%d", n);
	snprintf(result, sizeof(result), "%" PRIu64, root.result);
	rc = job_report(NAME, size, result, c, t1 - t0,
	                root.result == fib_iterative(n));
	job_runtime_stop(c);
	return rc;
}

/* Parse the arguments, compute fib N and report it. */
int main(int argc, char **argv)
{
	job_common c;
	int n = fib_parse_args(NAME, argc, argv, &c);

	return fib_main(n, &c);
}
