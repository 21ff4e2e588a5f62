/*
 * phases.c - the synthetic job of the A-STEAL paper (its Fig. 2): a run of
 * ITERATIONS iterations, each a serial phase of W1 units of work followed
 * by a parallel phase of H tasks of W2 units each.  Its parallelism thus
 * swings between 1 and H, which is what an adaptive scheduler must follow.
 *
 * A unit is PH_UNIT_STEPS steps of a 64-bit linear congruential generator
 * (phases_kernels.h, which this job shares with its OpenMP and oneTBB
 * versions), about one microsecond of CPU on the development machine
 * (measured once, 1.55 ns a step; hard-coded so that results stay
 * deterministic).  Leaf code calls asteal_poll() after every unit.  The
 * result is the sum of every unit's output (mod 2^64), checked against
 * its closed form.
 *
 *   phases ITERATIONS [--w1 US] [--w2 US] [--h H] [--phase-log FILE]
 *          [--serial] [--workers W]
 *
 * --phase-log FILE writes one line as each phase starts, "serial NS" or
 * "parallel NS", and "end NS" after the last, NS on the quanta's clock
 * (CLOCK_MONOTONIC, proto/qtime.h), so that a test can line the phases up
 * with the quanta of an ASTEAL_TRACE.
 */
#include <stdio.h>
#include <stdlib.h>

#include "asteal.h"
#include "common.h"

#define PH_POLL() asteal_poll()
#include "phases_kernels.h"

#define NAME "phases"

/* asteal_for's parallel phase: the h tasks with grain 1. */
static int ph_phase_asteal(struct ph_phase *ph)
{
	return asteal_for(0, ph->p->h, 1, ph_tasks, ph);
}

/* The root task: each iteration's serial phase, then its h tasks by asteal_for. */
static void ph_root(void *arg)
{
	struct ph_run *r = arg;

	r->failed = ph_iterate(r, r->p->log, ph_phase_asteal) < 0;
}

/* The whole job on the runtime; exits 1 when it fails. */
static void ph_parallel(struct ph_run *r)
{
	if (asteal_run(ph_root, r) < 0 || r->failed) {
		perror(NAME ": asteal_run");
		exit(JOB_EXIT_WRONG);
	}
}

/* Parse the arguments, start the runtime, run the phases and report. */
int main(int argc, char **argv)
{
	struct ph_params p;
	job_common c;
	int rc;

	ph_parse_args(NAME, argc, argv, &c, &p);
	job_runtime_start(NAME, &c);
	rc = ph_run_job(NAME, &p, &c, ph_parallel);
	job_runtime_stop(&c);
	return rc;
}
