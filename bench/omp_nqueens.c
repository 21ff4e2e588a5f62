/*
 * omp_nqueens.c - the nqueens job (jobs/nqueens.c) written with OpenMP
 * tasks, for comparison: one task per free column of each row, the
 * children's boards and counts in arrays on the parent's frame; boards
 * with --cutoff rows left (default 6) are finished serially, as in the job.
 *
 *   omp_nqueens N [--serial] [--workers W]      (1 <= N <= 16; W default: all CPUs)
 */
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>

#include "common.h"
#include "nqueens_kernels.h"

#define NAME "omp-nqueens"

/* The completions of board b with `rows` rows left, with OpenMP tasks. */
static uint64_t nq_omp(const struct nq_board *b, int n, int rows)
{
	struct nq_board child[NQ_MAX];
	uint64_t count[NQ_MAX], sum = 0;
	uint32_t avail, bit;
	int i, k = 0;

	if (rows <= nq_cutoff)
		return nq_serial(b, n, rows);
	avail = nq_free(b, n);
	while (avail != 0) {
		bit = avail & -avail;
		avail &= avail - 1;
		child[k] = nq_place(b, bit);
#pragma omp task shared(child, count) firstprivate(k)
		count[k] = nq_omp(&child[k], n, rows - 1);
		k++;
	}
#pragma omp taskwait
	for (i = 0; i < k; i++)
		sum += count[i];
	return sum;
}

/* The solutions for size n on a team of workers threads. */
static uint64_t nq_parallel(int n, int workers)
{
	struct nq_board empty = { 0, 0, 0 };
	uint64_t r = 0;

#pragma omp parallel num_threads(workers)
#pragma omp single
	r = nq_omp(&empty, n, n);
	return r;
}

/* Parse the arguments, count the solutions with OpenMP (or serially) and report them. */
int main(int argc, char **argv)
{
	job_common c;
	int n = nq_parse_args(NAME, argc, argv, &c);
	struct nq_board empty = { 0, 0, 0 };
	char size[32], result[32];
	double t0, t1;
	uint64_t r;

	if (c.workers == 0)
		c.workers = omp_get_num_procs();
	if (!c.serial)
		nq_parallel(1, c.workers);	/* start the team's threads */
	t0 = job_now();
	r = c.serial ? nq_serial(&empty, n, n) : nq_parallel(n, c.workers);
	t1 = job_now();
	snprintf(size, sizeof(size), "%d", n);
	snprintf(result, sizeof(result), "%" PRIu64, r);
	return job_report(NAME, size, result, &c, t1 - t0, r == nq_known[n]);
}
