/*
 * nqueens.c - count every solution of the n-queens problem.  At each row
 * the task spawns one child per column where a queen can go, each child
 * with its own copy of the board in an array on the parent's frame, and
 * adds up the children's counts after the sync.  There is no cutoff: the
 * recursion spawns down to the last row.
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
struct nq_arg {
	struct nq_board board;
	int n;
	int rows;
	uint64_t count;
};

/* The task: spawn a child per free column of the next row, sync, add up. */
static void nq_task(void *p)
{
	struct nq_arg *a = p;
	struct nq_arg child[NQ_MAX];
	uint32_t avail, bit;
	asteal_group g;
	int i, k = 0;

	if (a->rows == 0) {
		a->count = 1;
		return;
	}
	asteal_group_init(&g);
	avail = nq_free(&a->board, a->n);
	while (avail != 0) {
		bit = avail & -avail;
		avail &= avail - 1;
		child[k].board = nq_place(&a->board, bit);
		child[k].n = a->n;
		child[k].rows = a->rows - 1;
		child[k].count = 0;
		asteal_spawn(&g, nq_task, &child[k]);
		k++;
	}
	asteal_sync(&g);
	a->count = 0;
	for (i = 0; i < k; i++)
		a->count += child[i].count;
}

/* Solve size n in the mode of c, time it, report it and return the exit status. */
static int nq_main(int n, job_common *c)
{
	struct nq_arg root = { { 0, 0, 0 }, n, n, 0 };
	char size[32], result[32];
	double t0, t1;
	int rc;

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
