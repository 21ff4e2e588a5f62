/*
 * omp_cilksort.c - the cilksort job (jobs/cilksort.c) written with OpenMP
 * tasks, for comparison: the same 4-way sort, parallel merge and cutoffs
 * (cilksort_kernels.h).
 *
 *   omp_cilksort N [--serial] [--workers W]      (1 <= N <= 2^28; W default: all CPUs)
 */
#include <stdio.h>

#include "cilksort_kernels.h"
#include "common.h"
#include "omp_pool.h"

#define NAME "omp-cilksort"

/* Merge sorted a[0..na) and b[0..nb) into dst, the two sides of the split as tasks. */
static void cs_merge_omp(const cs_elem *a, size_t na, const cs_elem *b,
                         size_t nb, cs_elem *dst)
{
	size_t ma, mb;

	if (na < nb) {
		cs_merge_omp(b, nb, a, na, dst);
		return;
	}
	if (na + nb < CS_MERGE_CUTOFF) {
		cs_merge_serial(a, na, b, nb, dst);
		return;
	}
	cs_merge_split(a, na, b, nb, dst, &ma, &mb);
#pragma omp task
	cs_merge_omp(a, ma, b, mb, dst);
	cs_merge_omp(a + ma + 1, na - ma - 1, b + mb, nb - mb, dst + ma + mb + 1);
#pragma omp taskwait
}

/* Cilksort of a[0..n) with scratch tmp[0..n) by OpenMP tasks. */
static void cs_sort_omp(cs_elem *a, cs_elem *tmp, size_t n)
{
	size_t q = n / 4;

	if (n < CS_SORT_CUTOFF) {
		cs_quicksort(a, n);
		return;
	}
#pragma omp task
	cs_sort_omp(a, tmp, q);
#pragma omp task
	cs_sort_omp(a + q, tmp + q, q);
#pragma omp task
	cs_sort_omp(a + 2 * q, tmp + 2 * q, q);
	cs_sort_omp(a + 3 * q, tmp + 3 * q, n - 3 * q);
#pragma omp taskwait
#pragma omp task
	cs_merge_omp(a, q, a + q, q, tmp);
	cs_merge_omp(a + 2 * q, q, a + 3 * q, n - 3 * q, tmp + 2 * q);
#pragma omp taskwait
	cs_merge_omp(tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
}

/* Sort on a team of omp_get_max_threads() threads, started by one of them. */
static void cs_sort_parallel(cs_elem *a, cs_elem *tmp, size_t n)
{
#pragma omp parallel
#pragma omp single
	cs_sort_omp(a, tmp, n);
}

/* Parse the arguments, size the OpenMP team, sort and report. */
int main(int argc, char **argv)
{
	job_common c;
	long n = cs_parse_args(NAME, argc, argv, &c);

	omp_pool_start(&c);
	return cs_run_job(NAME, n, &c, cs_sort_parallel);
}
