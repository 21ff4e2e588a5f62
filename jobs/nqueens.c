/*
 * nqueens.c - count every solution of the n-queens problem.  At each row
 * the task spawns one child per column where a queen can go, each child
 * with its own copy of the board in an array on the parent's frame, and
 * adds up the children's counts after the sync.  Boards with few rows left
 * (--cutoff, default 6) are finished serially, as in the OpenMP and oneTBB
 * versions.
 *
 *   nqueens N [--serial] [--workers W]      (1 <= N <= 16)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "asteal.h"
#include "common.h"
#include "nqueens_kernels.h"

#define NAME "nqueens"

/* One subproblem: a board with `rows` rows left to fill, and its count. */
/* One child's board and result. */
struct nq_arg {
	struct nq_board board;
	int rows;
	uint64_t count;
};

static int nq_n;        /* the board size of this run */

static inline uint64_t nq_par(const struct nq_board *b, int rows);

/* The task: count the completions of a child's board. */
static void nq_task(void *p)
{
	struct nq_arg *a = p;

	a->count = nq_par(&a->board, a->rows);
}

/* Count the completions of board b with `rows` rows left: one child task
 * per free column.  A child that ran at once is added right
 * away and its slot reused; deferred ones keep their slot in an array on
 * this frame and are added after the sync.  Boards with nq_cutoff rows or
 * fewer left are finished serially (0: spawn down to the leaves). */
static inline uint64_t nq_par(const struct nq_board *b, int rows)
{
	struct nq_arg child[NQ_MAX];
	uint32_t avail, bit;
	asteal_group g;
	uint64_t count = 0;
	int i, k = 0;

	if (rows <= nq_cutoff)
		return nq_serial(b, nq_n, rows);
	asteal_group_init(&g);
	avail = nq_free(b, nq_n);
	while (avail != 0) {
		bit = avail & -avail;
		avail &= avail - 1;
		child[k].board = nq_place(b, bit);
		child[k].rows = rows - 1;
		if (asteal_spawn(&g, nq_task, &child[k]) == 1)
			count += child[k].count;    /* done already: reuse the slot */
		else
			k++;                        /* deferred: keep it until the sync */
	}
	asteal_sync(&g);
	for (i = 0; i < k; i++)
		count += child[i].count;
	return count;
}

/* Solve size n in the mode of c, time it, report it and return the exit status. */
static int nq_main(int n, job_common *c)
{
	struct nq_arg root = { { 0, 0, 0 }, n, 0 };
	char size[32], result[32];
	double t0, t1;
	int rc;

	nq_n = n;
	job_runtime_start(NAME, c);
	t0 = job_now();
	if (c->serial) {
		root.count = nq_serial(&root.board, n, n);
	} else if (asteal_run(nq_task, &root) < 0) {
		perror(NAME ": asteal_run");
		exit(JOB_EXIT_WRONG);
	}
	t1 = job_now();
	snprintf(size, sizeof(size), "%d", n);
	snprintf(result, sizeof(result), "%" PRIu64, root.count);
	rc = job_report(NAME, size, result, c, t1 - t0, root.count == nq_known[n]);
	job_runtime_stop(c);
	return rc;
}

/* Parse the arguments, count the solutions and report them. */
int main(int argc, char **argv)
{
	job_common c;
	int n = nq_parse_args(NAME, argc, argv, &c);

	return nq_main(n, &c);
}
