/*
 * omp_matmul.c - the matmul job (jobs/matmul.c) written with OpenMP tasks,
 * for comparison: the same recursion (matmul_kernels.h), the first half of
 * a row or column split a task, the halves of an inner split one after
 * the other, and the same serial kernel below MM_BLOCK.
 *
 *   omp_matmul N [--serial] [--workers W]      (1 <= N <= 8192; W default: all CPUs)
 */
#include <stdio.h>

#include "common.h"
#include "matmul_kernels.h"
#include "omp_pool.h"

#define NAME "omp-matmul"

/* c += a * b for the product p with OpenMP tasks; called inside a parallel region. */
static void mm_omp(const struct mm_arg *p)
{
	struct mm_arg x, y;

	switch (mm_split(p, &x, &y)) {
	case MM_LEAF:
		mm_kernel(p);
		break;
	case MM_PARALLEL:
#pragma omp task shared(x)
		mm_omp(&x);
		mm_omp(&y);
#pragma omp taskwait
		break;
	case MM_SERIAL:
		mm_omp(&x);
		mm_omp(&y);
		break;
	}
}

/* The whole product on a team of omp_get_max_threads() threads, started by one of them. */
static void mm_parallel(struct mm_arg *root)
{
#pragma omp parallel
#pragma omp single
	mm_omp(root);
}

/* Parse the arguments, size and start the OpenMP team, multiply and report. */
int main(int argc, char **argv)
{
	job_common c;
	size_t n = mm_parse_args(NAME, argc, argv, &c);

	omp_pool_start(&c);
	return mm_run_job(NAME, n, &c, mm_parallel);
}
