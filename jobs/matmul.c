/*
 * matmul.c - C += A*B for square N x N matrices of doubles by recursive
 * divide and conquer: split the largest of the three dimensions in two;
 * the halves of a row or column split write disjoint parts of C and run in
 * parallel, the halves of an inner (k) split run one after the other.
 * Below MM_BLOCK in every dimension a serial loop does the work.  The
 * split, the kernel and the check are in matmul_kernels.h, which this job
 * shares with its OpenMP and oneTBB versions.
 *
 * The inputs are small integers, so every sum is exact in double whatever
 * the order of the additions: results are deterministic and compared
 * exactly.  The check is the full product by a triple loop when N <= 512;
 * for larger N, MM_SAMPLES entries computed one by one and the sum of all
 * of C, which equals sum_p colsum(A)[p] * rowsum(B)[p].
 *
 *   matmul N [--serial] [--workers W]      (1 <= N <= 8192)
 */
#include <stdio.h>
#include <stdlib.h>

#include "asteal.h"
#include "common.h"
#include "matmul_kernels.h"

#define NAME "matmul"

/* The task: spawn the first half of a row or column split, or run the k halves in order. */
static void mm_task(void *arg)
{
	struct mm_arg *p = arg;
	struct mm_arg x, y;
	asteal_group g;

	switch (mm_split(p, &x, &y)) {
	case MM_LEAF:
		mm_kernel(p);
		break;
	case MM_PARALLEL:
		asteal_group_init(&g);
		asteal_spawn(&g, mm_task, &x);
		mm_task(&y);
		asteal_sync(&g);
		break;
	case MM_SERIAL:
		mm_task(&x);
		mm_task(&y);
		break;
	}
}

/* The whole product on the runtime; exits 1 when it fails. */
static void mm_parallel(struct mm_arg *root)
{
	if (asteal_run(mm_task, root) < 0) {
		perror(NAME ": asteal_run");
		exit(JOB_EXIT_WRONG);
	}
}

/* Parse the arguments, start the runtime, multiply and report. */
int main(int argc, char **argv)
{
	job_common c;
	size_t n;
	int rc;

	n = mm_parse_args(NAME, argc, argv, &c);
	job_runtime_start(NAME, &c);
	rc = mm_run_job(NAME, n, &c, mm_parallel);
	job_runtime_stop(&c);
	return rc;
}
