/*
 * nqueens_kernels.h - what the nqueens job and its OpenMP and oneTBB
 * versions share: argument parsing, the board state, the serial search of
 * --serial and the table of known solution counts that checks every run.
 *
 * A board state is the set of columns and of both diagonals attacked by
 * the queens of the rows placed so far, each a bit mask over the columns.
 */
#ifndef JOBS_NQUEENS_KERNELS_H
#define JOBS_NQUEENS_KERNELS_H

#include <stdint.h>
#include <string.h>

#include "common.h"

#define NQ_MAX 16
#define NQ_USAGE "N [--cutoff R] [--serial] [--workers W]   (1 <= N <= 16, 0 <= R <= N)"
#define NQ_DEFAULT_CUTOFF 6

/* Boards with at most this many rows left are finished by nq_serial, in
 * every parallel version alike (--cutoff; 0: spawn down to the leaves).
 * The default, 6, still makes fine tasks: nqueens 13 spawns 491,000 of
 * them, about 120 ns of search each on average; at 4 (2.3 million tasks
 * of about 25 ns) the job measured the cost of a spawn more than a search,
 * which is what fib is for. */
static int nq_cutoff = NQ_DEFAULT_CUTOFF;

/* The attacked columns after some rows; a queen in row r+1 may go where none is set. */
struct nq_board {
	uint32_t cols;	/* columns holding a queen */
	uint32_t left;	/* squares of this row on a down-left diagonal of a queen */
	uint32_t right;	/* squares of this row on a down-right diagonal of a queen */
};

/* Number of solutions of the n-queens problem for n = 0..16 (OEIS A000170). */
static const uint64_t nq_known[NQ_MAX + 1] = {
	1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596,
	2279184, 14772512
};

/* Parse "N [--serial] [--workers W]" into *c and return N; exits 2 on bad arguments. */
static inline int nq_parse_args(const char *name, int argc, char **argv,
                                job_common *c)
{
	long n, r = NQ_DEFAULT_CUTOFF;
	int i, k = 1;

	argc = job_parse_common(name, NQ_USAGE, argc, argv, c);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cutoff") == 0) {
			if (i + 1 >= argc || job_parse_long(argv[i + 1], 0, NQ_MAX, &r) < 0)
				job_usage(name, NQ_USAGE);
			i++;
		} else {
			argv[k++] = argv[i];
		}
	}
	if (k != 2 || job_parse_long(argv[1], 1, NQ_MAX, &n) < 0 || r > n)
		job_usage(name, NQ_USAGE);
	nq_cutoff = (int)r;
	return (int)n;
}

/* The columns of the next row where a queen is not attacked on board b. */
static inline uint32_t nq_free(const struct nq_board *b, int n)
{
	return ~(b->cols | b->left | b->right) & ((UINT32_C(1) << n) - 1);
}

/* The board after a queen is put on column bit `bit` of the next row. */
static inline struct nq_board nq_place(const struct nq_board *b, uint32_t bit)
{
	struct nq_board next;

	next.cols = b->cols | bit;
	next.left = (b->left | bit) << 1;
	next.right = (b->right | bit) >> 1;
	return next;
}

/* Count the completions of board b with `rows` rows left to fill, serially. */
static inline uint64_t nq_serial(const struct nq_board *b, int n, int rows)
{
	uint32_t avail = nq_free(b, n), bit;
	struct nq_board next;
	uint64_t count = 0;

	if (rows == 0)
		return 1;
	while (avail != 0) {
		bit = avail & -avail;
		avail &= avail - 1;
		next = nq_place(b, bit);
		count += nq_serial(&next, n, rows - 1);
	}
	return count;
}

#endif
