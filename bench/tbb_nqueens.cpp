/*
 * tbb_nqueens.cpp - the nqueens job (jobs/nqueens.c) written with oneTBB
 * task_group, for comparison: one task per free column of each row, the
 * children's boards and counts in arrays on the parent's frame; boards
 * with --cutoff rows left (default 6) are finished serially, as in the job.
 *
 *   tbb_nqueens N [--serial] [--workers W]      (1 <= N <= 16; W default: all CPUs)
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
#include "nqueens_kernels.h"

#define NAME "tbb-nqueens"

/* The completions of board b with `rows` rows left, with a task per free column. */
static uint64_t nq_tbb(const struct nq_board *b, int n, int rows)
{
	struct nq_board child[NQ_MAX];
	uint64_t count[NQ_MAX], sum = 0;
	uint32_t avail, bit;
	tbb::task_group g;
	int i, k = 0;

	if (rows <= nq_cutoff)
		return nq_serial(b, n, rows);
	avail = nq_free(b, n);
	while (avail != 0) {
		bit = avail & -avail;
		avail &= avail - 1;
		child[k] = nq_place(b, bit);
		g.run([&child, &count, k, n, rows] {
			count[k] = nq_tbb(&child[k], n, rows - 1);
		});
		k++;
	}
	g.wait();
	for (i = 0; i < k; i++)
		sum += count[i];
	return sum;
}

/* Parse the arguments, count the solutions in a W-thread arena (or serially) and report them. */
int main(int argc, char **argv)
{
	job_common c;
	int n = nq_parse_args(NAME, argc, argv, &c);
	struct nq_board empty = { 0, 0, 0 };
	char size[32], result[32];
	double t0, t1;
	uint64_t r;

	tbb_pool pool(&c);
	t0 = job_now();
	if (c.serial)
		r = nq_serial(&empty, n, n);
	else
		r = pool.arena.execute([&empty, n] { return nq_tbb(&empty, n, n); });
	t1 = job_now();
	snprintf(size, sizeof(size), "%d", n);
	snprintf(result, sizeof(result), "%" PRIu64, r);
	return job_report(NAME, size, result, &c, t1 - t0, r == nq_known[n]);
}
