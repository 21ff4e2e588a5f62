/*
 * tbb_cilksort.cpp - the cilksort job (jobs/cilksort.c) written with
 * oneTBB task_group, for comparison: the same 4-way sort, parallel merge
 * and cutoffs (cilksort_kernels.h).
 *
 *   tbb_cilksort N [--serial] [--workers W]      (1 <= N <= 2^28; W default: all CPUs)
 */
#include <cstdio>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "cilksort_kernels.h"
#include "common.h"
#include "tbb_pool.h"

#define NAME "tbb-cilksort"

/* Merge sorted a[0..na) and b[0..nb) into dst, the lower side of the split as a task. */
static void cs_merge_tbb(const cs_elem *a, size_t na, const cs_elem *b,
                         size_t nb, cs_elem *dst)
{
	tbb::task_group g;
	size_t ma, mb;

	if (na < nb) {
		cs_merge_tbb(b, nb, a, na, dst);
		return;
	}
	if (na + nb < CS_MERGE_CUTOFF) {
		cs_merge_serial(a, na, b, nb, dst);
		return;
	}
	cs_merge_split(a, na, b, nb, dst, &ma, &mb);
	g.run([=] { cs_merge_tbb(a, ma, b, mb, dst); });
	cs_merge_tbb(a + ma + 1, na - ma - 1, b + mb, nb - mb, dst + ma + mb + 1);
	g.wait();
}

/* Cilksort of a[0..n) with scratch tmp[0..n) by task_group; called inside the arena. */
static void cs_sort_tbb(cs_elem *a, cs_elem *tmp, size_t n)
{
	tbb::task_group g;
	size_t q = n / 4;

	if (n < CS_SORT_CUTOFF) {
		cs_quicksort(a, n);
		return;
	}
	g.run([=] { cs_sort_tbb(a, tmp, q); });
	g.run([=] { cs_sort_tbb(a + q, tmp + q, q); });
	g.run([=] { cs_sort_tbb(a + 2 * q, tmp + 2 * q, q); });
	cs_sort_tbb(a + 3 * q, tmp + 3 * q, n - 3 * q);
	g.wait();
	g.run([=] { cs_merge_tbb(a, q, a + q, q, tmp); });
	cs_merge_tbb(a + 2 * q, q, a + 3 * q, n - 3 * q, tmp + 2 * q);
	g.wait();
	cs_merge_tbb(tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
}

/* Parse the arguments, sort in a W-thread arena (or serially) and report. */
int main(int argc, char **argv)
{
	job_common c;
	long n = cs_parse_args(NAME, argc, argv, &c);

	tbb_pool pool(&c);

	return pool.run([n, &c] { return cs_run_job(NAME, n, &c, cs_sort_tbb); });
}
