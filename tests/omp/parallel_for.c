/*
 * parallel_for.c - the combined parallel for with constant bounds, which
 * gcc compiles to its GOMP_parallel_loop_* entry points (static: auto;
 * dynamic and guided: the monotonic modifier; nonmonotonic_dynamic and
 * _guided: no modifier; runtime, maybe_nonmonotonic_runtime and
 * nonmonotonic_runtime; static with a chunk inline),
 * parallel for simd, parallel loop and for simd, with num_threads and if
 * clauses.  Each iteration runs exactly once, static chunks map
 * round-robin and the team has the size asked for.
 */
#include "loop_sched.h"

/*
 * gcc calls GOMP_parallel_loop_* only when the bounds and the step are
 * constants: one function per schedule and loop space.
 */
#define COMBINED_LOOP(r, nt, LO, HI, STEP, ...)                             \
	do {                                                                \
		run_reset(r, (r)->name, LO, HI, STEP);                      \
		DO_PRAGMA(omp parallel for num_threads(nt) schedule(__VA_ARGS__)) \
		for (long i = LO; i < HI; i += STEP) {                      \
			long last = LONG_MIN;                               \
			run_team(r);                                        \
			run_visit(r, i, &last);                             \
		}                                                           \
	} while (0)

#define COMBINED_FN(fname, ...)                                             \
	static void fname(struct run *r, int nt, int space)                 \
	{                                                                   \
		if (space == 0)                                             \
			COMBINED_LOOP(r, nt, 0, 1000, 1, __VA_ARGS__);      \
		else if (space == 1)                                        \
			COMBINED_LOOP(r, nt, -30, 700, 9, __VA_ARGS__);     \
		else if (space == 2)                                        \
			COMBINED_LOOP(r, nt, 1, 2, 1, __VA_ARGS__);         \
		else                                                        \
			COMBINED_LOOP(r, nt, 5, 5, 1, __VA_ARGS__);         \
	}

COMBINED_FN(c_static, static)
COMBINED_FN(c_static4, static, 4)
COMBINED_FN(c_dynamic, dynamic)
COMBINED_FN(c_dynamic3, dynamic, 3)
COMBINED_FN(c_guided, guided)
COMBINED_FN(c_guided5, guided, 5)
COMBINED_FN(c_runtime, runtime)
COMBINED_FN(c_auto, auto)
COMBINED_FN(c_ndynamic, nonmonotonic: dynamic, 2)
COMBINED_FN(c_nguided, nonmonotonic: guided)
COMBINED_FN(c_nruntime, nonmonotonic: runtime)
COMBINED_FN(c_mruntime, monotonic: runtime)
COMBINED_FN(c_mdynamic, monotonic: dynamic)
COMBINED_FN(c_mguided, monotonic: guided, 3)

static const struct {
	const char *name;
	void (*fn)(struct run *, int, int);
	long chunk;
} fns[] = {
	{ "static", c_static, 0 }, { "static,4", c_static4, 4 }, { "dynamic", c_dynamic, 0 },
	{ "dynamic,3", c_dynamic3, 0 }, { "guided", c_guided, 0 }, { "guided,5", c_guided5, 0 },
	{ "runtime", c_runtime, 0 }, { "auto", c_auto, 0 },
	{ "nonmonotonic:dynamic,2", c_ndynamic, 0 }, { "nonmonotonic:guided", c_nguided, 0 },
	{ "nonmonotonic:runtime", c_nruntime, 0 }, { "monotonic:runtime", c_mruntime, 0 },
	{ "monotonic:dynamic", c_mdynamic, 0 }, { "monotonic:guided,3", c_mguided, 0 },
};

static struct run r;

/* parallel for simd, parallel loop, for simd and an if(0) combined loop. */
static void other_forms(void)
{
	static int a[MAXN];
	long sum = 0;

#pragma omp parallel for simd schedule(simd: static, 8)
	for (int i = 0; i < MAXN; i++)
		a[i] = 2 * i;
#pragma omp parallel loop reduction(+: sum)
	for (int i = 0; i < MAXN; i++)
		sum += a[i];
	CHECK(sum == (long)MAXN * (MAXN - 1), "parallel for simd then parallel loop: sum %ld, "
	      "expected %ld", sum, (long)MAXN * (MAXN - 1));
	sum = 0;
#pragma omp parallel
	{
#pragma omp for simd reduction(+: sum) schedule(dynamic, 16)
		for (int i = 0; i < MAXN; i++)
			sum += a[i] / 2;
#pragma omp loop
		for (int i = 0; i < MAXN; i++)
			a[i] = -a[i];
	}
	CHECK(sum == (long)MAXN * (MAXN - 1) / 2, "for simd: sum %ld", sum);
	for (int i = 0; i < MAXN; i++)
		CHECK(a[i] == -2 * i, "loop construct: a[%d] = %d", i, a[i]);
	int team = 0;
#pragma omp parallel for if (0) num_threads(4) schedule(dynamic)
	for (int i = 0; i < 10; i++)
		if (i == 0)
			team = omp_get_num_threads();
	CHECK(team == 1, "parallel for if(0): team of %d", team);
}

/* Every schedule at a few team sizes and loop spaces. */
int main(void)
{
	char name[96];

	omp_set_schedule(omp_sched_guided, 2);
	/* Teams of 1 and 3 (3 differs from every size the runner sets), the
	 * size changed least often: libgomp is slow to resize a team. */
	for (int nt = 1; nt <= 3; nt += 2)
		for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++)
			for (int space = 0; space < 4; space++) {
				snprintf(name, sizeof name,
					 "parallel for num_threads(%d) schedule(%s), loop %d",
					 nt, fns[f].name, space);
				r.name = name;
				fns[f].fn(&r, nt, space);
				run_check_once(&r);
				if (run_iterations(&r) >= nt) {
					/* Dynamic kinds may leave a thread without iterations: only
					 * static ones are sure to record the team. */
					if (fns[f].chunk || f == 0)
						CHECK(r.nthreads == nt, "%s: team of %d", name,
						      r.nthreads);
					if (fns[f].chunk)
						run_check_static_chunk(&r, fns[f].chunk);
				}
			}
	other_forms();
	return 0;
}
