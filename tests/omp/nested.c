/*
 * nested.c - nested parallel regions: omp_get_level, omp_get_active_level,
 * omp_get_ancestor_thread_num, omp_get_team_size and omp_in_parallel at
 * every level, and regions past max-active-levels serialized (a team of
 * one, counted by omp_get_level but not by omp_get_active_level).  First
 * with the max-active-levels the program starts with (libgomp's default,
 * or OMP_MAX_ACTIVE_LEVELS; checked against EXPECT_MAX_ACTIVE_LEVELS when
 * the runner gives it), then after omp_set_max_active_levels(1, 2, 3, 0).
 * Inner teams of different sizes side by side (thread t of the outer team
 * opens a team of t + 1) each get their own size.
 */
#include "check.h"

#define DEPTH 4

/* The chain of enclosing regions as one thread sees it. */
struct chain {
	int tn[DEPTH + 1];      /* ancestor thread numbers, [0] = 0 */
	int ts[DEPTH + 1];      /* ancestor team sizes, [0] = 1 */
	int active;             /* enclosing active levels */
};

static int leaves;              /* threads that reached the deepest level */

/* Check what the API says at level `level`, against the chain. */
static void check_level(int level, const struct chain *c, int mal)
{
	CHECK(omp_get_level() == level, "omp_get_level() %d, expected %d", omp_get_level(), level);
	CHECK(omp_get_active_level() == c->active, "level %d: omp_get_active_level() %d, expected "
	      "%d (max-active-levels %d)", level, omp_get_active_level(), c->active, mal);
	CHECK(omp_in_parallel() == (c->active > 0), "level %d: omp_in_parallel() %d with %d "
	      "active levels", level, omp_in_parallel(), c->active);
	for (int k = 0; k <= level; k++) {
		CHECK(omp_get_ancestor_thread_num(k) == c->tn[k],
		      "level %d: omp_get_ancestor_thread_num(%d) %d, expected %d", level, k,
		      omp_get_ancestor_thread_num(k), c->tn[k]);
		CHECK(omp_get_team_size(k) == c->ts[k], "level %d: omp_get_team_size(%d) %d, "
		      "expected %d", level, k, omp_get_team_size(k), c->ts[k]);
	}
	CHECK(omp_get_ancestor_thread_num(level + 1) == -1 && omp_get_ancestor_thread_num(-1) == -1,
	      "level %d: omp_get_ancestor_thread_num out of range is not -1", level);
	CHECK(omp_get_team_size(level + 1) == -1 && omp_get_team_size(-1) == -1,
	      "level %d: omp_get_team_size out of range is not -1", level);
}

/* Open a region of 2 threads at level `level` (below `depth`), and recurse. */
static void nest(int level, int depth, const struct chain *parent, int mal)
{
	int expect = parent->active < mal ? 2 : 1;

#pragma omp parallel num_threads(2)
	{
		struct chain c = *parent;
		int n = omp_get_num_threads();

		CHECK(n == expect, "level %d: team of %d, expected %d (%d active levels enclosing, "
		      "max-active-levels %d)", level, n, expect, parent->active, mal);
		c.tn[level] = omp_get_thread_num();
		c.ts[level] = n;
		c.active += n > 1;
		check_level(level, &c, mal);
		if (level < depth)
			nest(level + 1, depth, &c, mal);
		else
			ATOMIC_ADD(&leaves, 1);
	}
}

/* Nest `depth` regions of 2 under max-active-levels `mal` and count the leaves. */
static void run(int depth, int mal)
{
	struct chain top = { { 0 }, { 1 }, 0 };
	int active = depth < mal ? depth : mal, expect = 1 << active;

	leaves = 0;
	check_level(0, &top, mal);
	nest(1, depth, &top, mal);
	CHECK(leaves == expect, "%d nested levels under max-active-levels %d: %d threads at the "
	      "deepest, expected %d", depth, mal, leaves, expect);
}

/* Inner teams of different sizes, opened side by side by an outer team of 3. */
static void side_by_side(void)
{
	int sizes[3] = { 0 };

	omp_set_max_active_levels(2);
#pragma omp parallel num_threads(3)
	{
		int t = omp_get_thread_num();
#pragma omp parallel num_threads(t + 1)
		{
			CHECK(omp_get_ancestor_thread_num(1) == t, "inner team's ancestor %d, "
			      "expected %d", omp_get_ancestor_thread_num(1), t);
			CHECK(omp_get_team_size(1) == 3, "outer team size seen inside %d",
			      omp_get_team_size(1));
#pragma omp atomic
			sizes[t] += omp_get_num_threads() * 100 + 1;
		}
	}
	for (int t = 0; t < 3; t++)
		CHECK(sizes[t] == (t + 1) * (t + 1) * 100 + (t + 1),
		      "outer thread %d's inner team of %d: recorded %d", t, t + 1, sizes[t]);
}

/* Run the nesting under the starting settings and under each set value. */
int main(void)
{
	long want;
	int mal = omp_get_max_active_levels();

	CHECK(mal >= 0, "omp_get_max_active_levels() %d", mal);
	if (env_long("EXPECT_MAX_ACTIVE_LEVELS", &want))
		CHECK(mal == want, "omp_get_max_active_levels() %d at the start, expected %ld", mal,
		      want);
	run(3, mal);
	for (int m = 1; m <= 3; m++) {
		omp_set_max_active_levels(m);
		CHECK(omp_get_max_active_levels() == m, "omp_get_max_active_levels() %d after "
		      "setting %d", omp_get_max_active_levels(), m);
		run(m == 3 ? 4 : 3, m);
	}
	omp_set_max_active_levels(0);
	run(2, 0);
	side_by_side();
	return 0;
}
