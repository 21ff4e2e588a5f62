/*
 * tbb_phases.cpp - the phases job (jobs/phases.c) written with oneTBB, for
 * comparison: each iteration's serial phase on the thread that runs the
 * job in the arena, then the H tasks of its parallel phase by parallel_for
 * with grain 1 and the simple partitioner (a task per index, as
 * asteal_for's grain 1).  The unit of work, the check and the phase log
 * are the job's (phases_kernels.h).
 *
 *   tbb_phases ITERATIONS [--w1 US] [--w2 US] [--h H] [--phase-log FILE]
 *              [--serial] [--workers W]      (W default: all CPUs)
 */
#include <cstdio>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include "common.h"
#include "phases_kernels.h"
#include "tbb_pool.h"

#define NAME "tbb-phases"

/* A parallel phase: its h tasks by parallel_for, a task an index; in the arena. */
static int ph_phase_tbb(struct ph_phase *ph)
{
	tbb::parallel_for(
	    tbb::blocked_range<long>(0, ph->p->h, 1),
	    [ph](const tbb::blocked_range<long> &r) { ph_tasks(r.begin(), r.end(), ph); },
	    tbb::simple_partitioner());
	return 0;
}

/* The whole job, its parallel phases by parallel_for; called inside the arena. */
static void ph_parallel(struct ph_run *r)
{
	ph_iterate(r, r->p->log, ph_phase_tbb);
}

/* Parse the arguments, run the phases in a W-thread arena (or serially) and report. */
int main(int argc, char **argv)
{
	struct ph_params p;
	job_common c;

	ph_parse_args(NAME, argc, argv, &c, &p);
	tbb_pool pool(&c);
	return pool.run([&p, &c] { return ph_run_job(NAME, &p, &c, ph_parallel); });
}
