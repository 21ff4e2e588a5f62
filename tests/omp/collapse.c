/*
 * collapse.c - collapse(2) and collapse(3) loop nests under static,
 * static chunk, dynamic, guided and runtime schedules: every (i, j[, k])
 * runs exactly once, including nests with negative steps, nests where one
 * dimension is empty (nothing runs), lastprivate of all the collapsed
 * variables, and a non-rectangular nest (j from i).
 */
#include "check.h"

#define DO_PRAGMA(x) _Pragma(#x)
#define A 13
#define B 11
#define C 7

static int c2[A][B], c3[A][B][C];

/* Check a 2-level record: each cell of [0, na) x [0, nb) n times; clear. */
static void check2(const char *name, int na, int nb)
{
	for (int i = 0; i < A; i++)
		for (int j = 0; j < B; j++)
			CHECK(c2[i][j] == (i < na && j < nb), "%s: (%d, %d) ran %d times", name, i,
			      j, c2[i][j]);
	memset(c2, 0, sizeof c2);
}

/* Every nest under schedule `...`. */
#define NESTS_FN(fname, ...)                                                        \
	static void fname(const char *name)                                         \
	{                                                                           \
		int i, j, k;                                                        \
		DO_PRAGMA(omp parallel for collapse(2) schedule(__VA_ARGS__))       \
		for (int x = 0; x < A; x++)                                         \
			for (int y = 0; y < B; y++)                                 \
				ATOMIC_ADD(&c2[x][y], 1);                           \
		check2(name, A, B);                                                 \
		DO_PRAGMA(omp parallel for collapse(2) schedule(__VA_ARGS__))       \
		for (int x = A - 1; x >= 0; x -= 2)                                 \
			for (int y = 2 * B - 2; y >= 0; y -= 2)                     \
				ATOMIC_ADD(&c2[x][y / 2], 1);                       \
		for (int x = 0; x < A; x++)                                         \
			for (int y = 0; y < B; y++)                                 \
				CHECK(c2[x][y] == ((A - 1 - x) % 2 == 0),           \
				      "%s: descending nest: (%d, %d) ran %d times", \
				      name, x, y, c2[x][y]);                        \
		memset(c2, 0, sizeof c2);                                           \
		DO_PRAGMA(omp parallel for collapse(2) schedule(__VA_ARGS__))       \
		for (int x = 0; x < A; x++)                                         \
			for (int y = 5; y < 5; y++)                                 \
				ATOMIC_ADD(&c2[x][y], 1);                           \
		check2(name, 0, 0);                                                 \
		DO_PRAGMA(omp parallel for collapse(3) schedule(__VA_ARGS__) lastprivate(i, j, k)) \
		for (i = 0; i < A; i++)                                             \
			for (j = 0; j < B; j++)                                     \
				for (k = 0; k < C; k++)                             \
					ATOMIC_ADD(&c3[i][j][k], 1);                \
		for (int x = 0; x < A; x++)                                         \
			for (int y = 0; y < B; y++)                                 \
				for (int z = 0; z < C; z++)                         \
					CHECK(c3[x][y][z] == 1, "%s: collapse(3): " \
					      "(%d, %d, %d) ran %d times", name, x, \
					      y, z, c3[x][y][z]);                   \
		memset(c3, 0, sizeof c3);                                           \
		CHECK(i == A && j == B && k == C, "%s: lastprivate after "         \
		      "collapse(3): (%d, %d, %d), expected (%d, %d, %d)", name,    \
		      i, j, k, A, B, C);                                            \
	}

NESTS_FN(n_static, static)
NESTS_FN(n_static3, static, 3)
NESTS_FN(n_dynamic, dynamic)
NESTS_FN(n_guided, guided, 2)
NESTS_FN(n_runtime, runtime)

/* A non-rectangular nest (gcc 12 takes no schedule clause on one). */
static void non_rectangular(void)
{
#pragma omp parallel for collapse(2)
	for (int x = 0; x < A; x++)
		for (int y = x; y < B; y++)
			ATOMIC_ADD(&c2[x][y], 1);
	for (int x = 0; x < A; x++)
		for (int y = 0; y < B; y++)
			CHECK(c2[x][y] == (y >= x), "non-rectangular nest: (%d, %d) ran %d times",
			      x, y, c2[x][y]);
	memset(c2, 0, sizeof c2);
}

/* Every schedule; collapse inside an enclosing region too. */
int main(void)
{
	n_static("collapse schedule(static)");
	n_static3("collapse schedule(static,3)");
	n_dynamic("collapse schedule(dynamic)");
	n_guided("collapse schedule(guided,2)");
	omp_set_schedule(omp_sched_dynamic, 5);
	n_runtime("collapse schedule(runtime) dynamic,5");
#pragma omp parallel
	{
#pragma omp for collapse(2) schedule(dynamic, 4) nowait
		for (int x = 0; x < A; x++)
			for (int y = 0; y < B; y++)
				ATOMIC_ADD(&c2[x][y], 1);
	}
	check2("collapse(2) nowait in a region", A, B);
	non_rectangular();
	return 0;
}
