/*
 * api.c - the omp_* routines about threads, ICVs and time, in C:
 * omp_get_wtime (never goes back, moves on) and omp_get_wtick;
 * omp_get_num_procs (the CPUs this process may run on, as libgomp and
 * libomp count them); omp_set_num_threads / omp_get_max_threads (and a
 * region's size after it, and inside it); omp_set_dynamic /
 * omp_get_dynamic (a team never bigger than asked with dyn-var true);
 * omp_set_max_active_levels / omp_get_max_active_levels (negative values
 * ignored, values past omp_get_supported_active_levels clamped); the
 * deprecated omp_set_nested / omp_get_nested (true: the supported levels,
 * false: 1); the
 * level routines outside any region; omp_get_thread_limit;
 * omp_set_schedule / omp_get_schedule; omp_in_final outside tasks;
 * omp_get_cancellation without OMP_CANCELLATION; omp_get_proc_bind
 * without OMP_PROC_BIND; omp_get_num_teams / omp_get_team_num outside
 * teams; omp_get_max_teams and omp_get_teams_thread_limit;
 * omp_pause_resource_all and omp_pause_resource (whatever they answer, a
 * region afterwards runs).
 */
#define _GNU_SOURCE
#include <sched.h>

#include "check.h"

/* Time: monotone, moving, a sane tick. */
static void timing(void)
{
	double t0 = omp_get_wtime(), prev = t0, tick = omp_get_wtick();

	CHECK(tick > 0.0 && tick < 0.01, "omp_get_wtick() %g", tick);
	for (int i = 0; i < 100000; i++) {
		double t = omp_get_wtime();
		CHECK(t >= prev, "omp_get_wtime() went back from %.9f to %.9f", prev, t);
		prev = t;
	}
	WAIT_UNTIL(omp_get_wtime() > t0, "omp_get_wtime() never moved from %.9f (bounded wait)",
	           t0);
}

/* Processors and threads. */
static void threads(void)
{
	cpu_set_t set;
	int procs = omp_get_num_procs(), max = omp_get_max_threads(), inner = -1, size = -1;

	CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity failed");
	CHECK(procs == CPU_COUNT(&set), "omp_get_num_procs() %d, this process may run on %d CPUs",
	      procs, CPU_COUNT(&set));
	CHECK(max >= 1, "omp_get_max_threads() %d", max);
	omp_set_num_threads(5);
	CHECK(omp_get_max_threads() == 5, "omp_get_max_threads() %d after omp_set_num_threads(5)",
	      omp_get_max_threads());
#pragma omp parallel
#pragma omp master
	{
		size = omp_get_num_threads();
		inner = omp_get_max_threads();
	}
	CHECK(size == 5, "a region after omp_set_num_threads(5) had %d threads", size);
	CHECK(inner == 5, "omp_get_max_threads() %d inside that region, expected 5 (nthreads-var "
	      "is inherited)", inner);
	omp_set_num_threads(max);
	CHECK(omp_get_max_threads() == max, "omp_get_max_threads() %d after setting it back to %d",
	      omp_get_max_threads(), max);
	CHECK(omp_get_thread_limit() >= 1, "omp_get_thread_limit() %d", omp_get_thread_limit());
}

/* dyn-var: set, read back, and a team never larger than asked. */
static void dynamic(void)
{
	int size = -1, start = omp_get_dynamic();

	CHECK(start == 0 || start == 1, "omp_get_dynamic() %d", start);
	if (!getenv("OMP_DYNAMIC"))
		CHECK(start == 0, "omp_get_dynamic() %d without OMP_DYNAMIC, expected 0", start);
	omp_set_dynamic(1);
	CHECK(omp_get_dynamic() == 1, "omp_get_dynamic() %d after omp_set_dynamic(1)",
	      omp_get_dynamic());
#pragma omp parallel num_threads(3)
#pragma omp master
	size = omp_get_num_threads();
	CHECK(size >= 1 && size <= 3, "with dyn-var true num_threads(3) gave a team of %d", size);
	omp_set_dynamic(0);
	CHECK(omp_get_dynamic() == 0, "omp_get_dynamic() %d after omp_set_dynamic(0)",
	      omp_get_dynamic());
#pragma omp parallel num_threads(3)
#pragma omp master
	size = omp_get_num_threads();
	CHECK(size == 3, "with dyn-var false num_threads(3) gave a team of %d", size);
}

/* max-active-levels: set, ignored when negative, clamped to the supported. */
static void active_levels(void)
{
	int start = omp_get_max_active_levels(), sup = omp_get_supported_active_levels();

	CHECK(sup >= 1, "omp_get_supported_active_levels() %d", sup);
	CHECK(start >= 0 && start <= sup, "omp_get_max_active_levels() %d, supported %d", start,
	      sup);
	omp_set_max_active_levels(4 < sup ? 4 : sup);
	CHECK(omp_get_max_active_levels() == (4 < sup ? 4 : sup), "omp_get_max_active_levels() %d "
	      "after setting %d", omp_get_max_active_levels(), 4 < sup ? 4 : sup);
	omp_set_max_active_levels(-3);
	CHECK(omp_get_max_active_levels() == (4 < sup ? 4 : sup), "omp_set_max_active_levels(-3) "
	      "changed it to %d", omp_get_max_active_levels());
	omp_set_max_active_levels(sup + 1000);
	CHECK(omp_get_max_active_levels() <= sup + 1000 && omp_get_max_active_levels() >= sup,
	      "omp_set_max_active_levels(%d) gave %d", sup + 1000, omp_get_max_active_levels());
	omp_set_max_active_levels(start);
}

/* The deprecated omp_set_nested / omp_get_nested, which old programs still
 * call: true makes max-active-levels the supported number, false 1. */
static void nested_switch(void)
{
	int start = omp_get_max_active_levels(), sup = omp_get_supported_active_levels();

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	omp_set_nested(1);
	CHECK(omp_get_nested() == 1 && omp_get_max_active_levels() == sup, "after "
	      "omp_set_nested(1): omp_get_nested() %d, max-active-levels %d (supported %d)",
	      omp_get_nested(), omp_get_max_active_levels(), sup);
	omp_set_nested(0);
	CHECK(omp_get_nested() == 0 && omp_get_max_active_levels() == 1, "after "
	      "omp_set_nested(0): omp_get_nested() %d, max-active-levels %d", omp_get_nested(),
	      omp_get_max_active_levels());
	omp_set_max_active_levels(3 < sup ? 3 : sup);
	CHECK(omp_get_nested() == (sup > 1), "omp_get_nested() %d with max-active-levels %d",
	      omp_get_nested(), omp_get_max_active_levels());
#pragma GCC diagnostic pop
	omp_set_max_active_levels(start);
}

/* The remaining ICV readers, outside any region. */
static void outside(void)
{
	omp_sched_t kind;
	int chunk;

	CHECK(omp_get_level() == 0 && omp_get_active_level() == 0, "levels %d %d outside any "
	      "region", omp_get_level(), omp_get_active_level());
	CHECK(omp_get_ancestor_thread_num(0) == 0 && omp_get_team_size(0) == 1, "ancestor %d, "
	      "team size %d at level 0", omp_get_ancestor_thread_num(0), omp_get_team_size(0));
	CHECK(omp_in_final() == 0, "omp_in_final() %d outside tasks", omp_in_final());
	if (!getenv("OMP_CANCELLATION"))
		CHECK(omp_get_cancellation() == 0, "omp_get_cancellation() %d without "
		      "OMP_CANCELLATION", omp_get_cancellation());
	if (!getenv("OMP_PROC_BIND") && !getenv("OMP_PLACES"))
		CHECK(omp_get_proc_bind() == omp_proc_bind_false, "omp_get_proc_bind() %d without "
		      "OMP_PROC_BIND", (int)omp_get_proc_bind());
	CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0, "outside teams: %d teams, team "
	      "%d", omp_get_num_teams(), omp_get_team_num());
	CHECK(omp_get_max_teams() >= 0 && omp_get_teams_thread_limit() >= 0, "omp_get_max_teams() "
	      "%d, omp_get_teams_thread_limit() %d", omp_get_max_teams(),
	      omp_get_teams_thread_limit());
	omp_set_schedule(omp_sched_guided, 9);
	omp_get_schedule(&kind, &chunk);
	CHECK(kind == omp_sched_guided && chunk == 9, "omp_get_schedule %#x,%d after setting "
	      "guided,9", (unsigned)kind, chunk);
	omp_set_schedule((omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 2);
	omp_get_schedule(&kind, &chunk);
	CHECK(kind == (omp_sched_dynamic | omp_sched_monotonic) && chunk == 2, "omp_get_schedule "
	      "%#x,%d after setting monotonic:dynamic,2", (unsigned)kind, chunk);
}

/* omp_pause_resource_all, then a region must still run. */
static void pause_then_run(void)
{
	int sum = 0;

	(void)omp_pause_resource_all(omp_pause_soft);
	(void)omp_pause_resource(omp_pause_soft, omp_get_initial_device());
#pragma omp parallel reduction(+: sum)
	sum += 1;
	CHECK(sum == omp_get_max_threads(), "after omp_pause_resource_all a region ran %d threads "
	      "of %d", sum, omp_get_max_threads());
}

/* All of them. */
int main(void)
{
	timing();
	threads();
	dynamic();
	active_levels();
	nested_switch();
	outside();
	pause_then_run();
	return 0;
}
