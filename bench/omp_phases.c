/*
 * omp_phases.c - the phases job (jobs/phases.c) written with OpenMP, for
 * comparison: each iteration's serial phase on the thread that runs the
 * job (the team's master), then the H tasks of its parallel phase by a
 * parallel loop with schedule(dynamic, 1), a parallel region per parallel
 * phase as an ordinary OpenMP program has it.  Between regions libgomp
 * keeps its team, whose threads wait by its default policy (spin, then
 * sleep).  The unit of work, the check and the phase log are the job's
 * (phases_kernels.h).
 *
 *   omp_phases ITERATIONS [--w1 US] [--w2 US] [--h H] [--phase-log FILE]
 *              [--serial] [--workers W]      (W default: all CPUs)
 */
#include <stdio.h>

#include "common.h"
#include "omp_pool.h"
#include "phases_kernels.h"

#define NAME "omp-phases"

/* A parallel phase: the team takes its h tasks one at a time. */
static int ph_phase_omp(struct ph_phase *ph)
{
	long t, h = ph->p->h;

#pragma omp parallel for schedule(dynamic, 1)
	for (t = 0; t < h; t++)
		ph_tasks(t, t + 1, ph);
	return 0;
}

/* The whole job, its parallel phases on the team. */
static void ph_parallel(struct ph_run *r)
{
	ph_iterate(r, r->p->log, ph_phase_omp);
}

/* Parse the arguments, size and start the OpenMP team, run the phases and report. */
int main(int argc, char **argv)
{
	struct ph_params p;
	job_common c;

	ph_parse_args(NAME, argc, argv, &c, &p);
	omp_pool_start(&c);
	return ph_run_job(NAME, &p, &c, ph_parallel);
}
