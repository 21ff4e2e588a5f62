/*
 * tbb_matmul.cpp - the matmul job (jobs/matmul.c) written with oneTBB
 * task_group, for comparison: the same recursion (matmul_kernels.h), the
 * first half of a row or column split a task, the halves of an inner split
 * one after the other, and the same serial kernel below MM_BLOCK.
 *
 *   tbb_matmul N [--serial] [--workers W]      (1 <= N <= 8192; W default: all CPUs)
 */
#include <cstdio>

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "common.h"
#include "matmul_kernels.h"
#include "tbb_pool.h"

#define NAME "tbb-matmul"

/* c += a * b for the product p with a task_group per parallel split; called inside the arena. */
static void mm_tbb(struct mm_arg *p)
{
	struct mm_arg x, y;
	tbb::task_group g;

	switch (mm_split(p, &x, &y)) {
	case MM_LEAF:
		mm_kernel(p);
		break;
	case MM_PARALLEL:
		g.run([&x] { mm_tbb(&x); });
		mm_tbb(&y);
		g.wait();
		break;
	case MM_SERIAL:
		mm_tbb(&x);
		mm_tbb(&y);
		break;
	}
}

/* Parse the arguments, multiply in a W-thread arena (or serially) and report. */
int main(int argc, char **argv)
{
	job_common c;
	size_t n = mm_parse_args(NAME, argc, argv, &c);

	tbb_pool pool(&c);

	return pool.run([n, &c] { return mm_run_job(NAME, n, &c, mm_tbb); });
}
