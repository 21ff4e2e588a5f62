/*
 * loop_schedule.c - worksharing loops inside a parallel region under every
 * schedule clause: static with and without a chunk, dynamic, guided
 * (with and without a chunk), auto, and the monotonic and nonmonotonic
 * modifiers.  Every iteration runs exactly once, at loop sizes from 0 to
 * more than 1000 and with lower bounds and steps other than 0 and 1; static
 * with a chunk hands chunks out round-robin by thread number; static
 * without a chunk gives each thread one block, the same one in two loops
 * of the same size (what nowait relies on); monotonic schedules run each
 * thread's iterations in increasing order.  gcc calls GOMP_loop_*_start,
 * GOMP_loop_*_next and GOMP_loop_end for the dynamic kinds.
 */
#include "loop_sched.h"

/* One function per schedule clause: an orphaned loop over r's space. */
#define SCHEDULE_FN(fname, ...)                                             \
	static void fname(struct run *r)                                    \
	{                                                                   \
		long last = LONG_MIN;                                       \
		DO_PRAGMA(omp for schedule(__VA_ARGS__))                    \
		for (long i = r->lo; i < r->hi; i += r->step)               \
			run_visit(r, i, &last);                             \
	}

SCHEDULE_FN(s_static, static)
SCHEDULE_FN(s_static1, static, 1)
SCHEDULE_FN(s_static3, static, 3)
SCHEDULE_FN(s_mstatic2, monotonic: static, 2)
SCHEDULE_FN(s_dynamic, dynamic)
SCHEDULE_FN(s_dynamic5, dynamic, 5)
SCHEDULE_FN(s_guided, guided)
SCHEDULE_FN(s_guided7, guided, 7)
SCHEDULE_FN(s_auto, auto)
SCHEDULE_FN(s_mdynamic, monotonic: dynamic)
SCHEDULE_FN(s_mdynamic4, monotonic: dynamic, 4)
SCHEDULE_FN(s_mguided, monotonic: guided)
SCHEDULE_FN(s_mguided3, monotonic: guided, 3)
SCHEDULE_FN(s_ndynamic, nonmonotonic: dynamic)
SCHEDULE_FN(s_ndynamic6, nonmonotonic: dynamic, 6)
SCHEDULE_FN(s_nguided, nonmonotonic: guided)
SCHEDULE_FN(s_nguided2, nonmonotonic: guided, 2)

struct sched {
	const char *name;
	void (*fn)(struct run *);
	long chunk;             /* static chunk to check the mapping of; 0: none */
	int monotonic;
	int static_blocks;
};

static const struct sched scheds[] = {
	{ "static", s_static, 0, 1, 1 },
	{ "static,1", s_static1, 1, 1, 0 },
	{ "static,3", s_static3, 3, 1, 0 },
	{ "monotonic:static,2", s_mstatic2, 2, 1, 0 },
	{ "dynamic", s_dynamic, 0, 0, 0 },
	{ "dynamic,5", s_dynamic5, 0, 0, 0 },
	{ "guided", s_guided, 0, 0, 0 },
	{ "guided,7", s_guided7, 0, 0, 0 },
	{ "auto", s_auto, 0, 0, 0 },
	{ "monotonic:dynamic", s_mdynamic, 0, 1, 0 },
	{ "monotonic:dynamic,4", s_mdynamic4, 0, 1, 0 },
	{ "monotonic:guided", s_mguided, 0, 1, 0 },
	{ "monotonic:guided,3", s_mguided3, 0, 1, 0 },
	{ "nonmonotonic:dynamic", s_ndynamic, 0, 0, 0 },
	{ "nonmonotonic:dynamic,6", s_ndynamic6, 0, 0, 0 },
	{ "nonmonotonic:guided", s_nguided, 0, 0, 0 },
	{ "nonmonotonic:guided,2", s_nguided2, 0, 0, 0 },
};

/* The loop spaces each schedule runs: sizes 0, 1, fewer than the team, many. */
static const long spaces[][3] = {
	{ 0, 1000, 1 }, { 0, 0, 1 }, { 5, 3, 1 }, { 0, 1, 1 }, { 0, 3, 1 },
	{ -50, 50, 1 }, { 7, 1007, 3 }, { 0, 17, 5 },
};

static struct run r1, r2;

/* Run schedule s over every space, in the current team. */
static void run_sched(const struct sched *s)
{
	char name[96];

	for (size_t k = 0; k < sizeof spaces / sizeof spaces[0]; k++) {
		snprintf(name, sizeof name, "schedule(%s) [%ld, %ld) step %ld", s->name,
			 spaces[k][0], spaces[k][1], spaces[k][2]);
		run_reset(&r1, name, spaces[k][0], spaces[k][1], spaces[k][2]);
		run_reset(&r2, name, spaces[k][0], spaces[k][1], spaces[k][2]);
#pragma omp parallel
		{
			run_team(&r1);
			s->fn(&r1);
			s->fn(&r2);
		}
		run_check_once(&r1);
		run_check_once(&r2);
		if (s->monotonic)
			run_check_monotonic(&r1);
		if (run_iterations(&r1) == 0)
			continue;
		CHECK(r1.nthreads == omp_get_max_threads(), "%s: team of %d, expected %d", name,
		      r1.nthreads, omp_get_max_threads());
		if (s->chunk)
			run_check_static_chunk(&r1, s->chunk);
		if (s->static_blocks) {
			run_check_static_blocks(&r1);
			for (long i = 0; i < run_iterations(&r1); i++)
				CHECK(r1.owner[i] == r2.owner[i], "%s: iteration %ld ran on "
				      "thread %d, then on %d in a second loop of the same size",
				      name, i, r1.owner[i], r2.owner[i]);
		}
	}
}

/* Every schedule, at the environment's team size and at 3 threads. */
int main(void)
{
	int max = omp_get_max_threads();

	for (size_t s = 0; s < sizeof scheds / sizeof scheds[0]; s++)
		run_sched(&scheds[s]);
	omp_set_num_threads(3);
	for (size_t s = 0; s < sizeof scheds / sizeof scheds[0]; s++)
		run_sched(&scheds[s]);
	omp_set_num_threads(max);
	return 0;
}
