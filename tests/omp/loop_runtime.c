/*
 * loop_runtime.c - schedule(runtime) loops driven by omp_set_schedule:
 * every kind (static with and without a chunk, dynamic, guided, auto, and
 * the monotonic modifier) under the three runtime clauses gcc compiles
 * differently (plain runtime: GOMP_loop_maybe_nonmonotonic_runtime_*;
 * monotonic:runtime: GOMP_loop_runtime_*; nonmonotonic:runtime:
 * GOMP_loop_nonmonotonic_runtime_*).  omp_get_schedule returns what was
 * set (a chunk below 1 reads back as 0 for static, 1 for dynamic and
 * guided); every iteration runs once; a static chunk maps round-robin by
 * thread number; monotonic runs keep each thread's iterations in order.
 * (OMP_SCHEDULE is the runner's business: env.c.)
 */
#include "loop_sched.h"

/* Plain runtime. */
static void l_runtime(struct run *r)
{
	long last = LONG_MIN;
#pragma omp for schedule(runtime)
	for (long i = r->lo; i < r->hi; i += r->step)
		run_visit(r, i, &last);
}

/* monotonic:runtime. */
static void l_mruntime(struct run *r)
{
	long last = LONG_MIN;
#pragma omp for schedule(monotonic: runtime)
	for (long i = r->lo; i < r->hi; i += r->step)
		run_visit(r, i, &last);
}

/* nonmonotonic:runtime. */
static void l_nruntime(struct run *r)
{
	long last = LONG_MIN;
#pragma omp for schedule(nonmonotonic: runtime)
	for (long i = r->lo; i < r->hi; i += r->step)
		run_visit(r, i, &last);
}

static const struct {
	omp_sched_t kind;
	int chunk;
} settings[] = {
	{ omp_sched_static, 0 }, { omp_sched_static, 1 }, { omp_sched_static, 4 },
	{ omp_sched_dynamic, 0 }, { omp_sched_dynamic, 3 }, { omp_sched_guided, 0 },
	{ omp_sched_guided, 5 }, { omp_sched_auto, 0 },
	{ omp_sched_dynamic | omp_sched_monotonic, 2 },
	{ omp_sched_guided | omp_sched_monotonic, 0 },
	{ omp_sched_static | omp_sched_monotonic, 3 },
};

static struct run r;

/* One loop of clause `clause` (0 plain, 1 monotonic, 2 nonmonotonic) over [lo, hi). */
static void one(int clause, omp_sched_t kind, int chunk, long lo, long hi, long step)
{
	static const char *clauses[] = { "runtime", "monotonic:runtime", "nonmonotonic:runtime" };
	omp_sched_t base = (omp_sched_t)(kind & ~omp_sched_monotonic);
	char name[96];

	snprintf(name, sizeof name,
		 "schedule(%s) with omp_set_schedule(%#x, %d) [%ld, %ld) step %ld",
		 clauses[clause], (unsigned)kind, chunk, lo, hi, step);
	run_reset(&r, name, lo, hi, step);
#pragma omp parallel
	{
		run_team(&r);
		if (clause == 0)
			l_runtime(&r);
		else if (clause == 1)
			l_mruntime(&r);
		else
			l_nruntime(&r);
	}
	run_check_once(&r);
	if (clause == 1 || (kind & omp_sched_monotonic) ||
	    (clause == 0 && base == omp_sched_static))
		run_check_monotonic(&r);
	if (base == omp_sched_static && chunk > 0 && clause != 2 && run_iterations(&r))
		run_check_static_chunk(&r, chunk);
	if (base == omp_sched_static && chunk == 0 && clause != 2)
		run_check_static_blocks(&r);
}

/* Every setting under every runtime clause, over a few loop spaces. */
int main(void)
{
	for (size_t s = 0; s < sizeof settings / sizeof settings[0]; s++) {
		omp_sched_t kind = settings[s].kind, got;
		omp_sched_t base = (omp_sched_t)(kind & ~omp_sched_monotonic);
		int chunk = settings[s].chunk, gotc;

		omp_set_schedule(kind, chunk);
		omp_get_schedule(&got, &gotc);
		CHECK(got == kind, "omp_get_schedule kind %#x after setting %#x", (unsigned)got,
		      (unsigned)kind);
		if (base != omp_sched_auto) {
			int want = chunk >= 1 ? chunk : base == omp_sched_static ? 0 : 1;
			CHECK(gotc == want, "omp_get_schedule chunk %d after setting %#x, %d: "
			      "expected %d", gotc, (unsigned)kind, chunk, want);
		}
		for (int clause = 0; clause < 3; clause++) {
			one(clause, kind, chunk, 0, 1000, 1);
			one(clause, kind, chunk, 3, 4, 1);
			one(clause, kind, chunk, 0, 0, 1);
			one(clause, kind, chunk, -100, 101, 7);
		}
	}
	return 0;
}
