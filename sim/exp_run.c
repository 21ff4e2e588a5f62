/*
 * exp_run.c - `asteal-sim run`: one job on one availability profile with
 * one thread scheduler, for looking at a schedule closely (--trace writes
 * one CSV line per quantum: availability, desire, allotment, cycles, class).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exp.h"
#include "jobsched.h"

/* The job's shape where no option sets it (exp.h). */
void exp_run_defaults(struct sim_opts *o)
{
	o->w1 = 200, o->w2 = 800, o->h = 64, o->iters = 5;
	o->fj_depth = 10, o->fj_branch = 4, o->fj_work = 100, o->fj_spawn = 0.8;
}

/* Run one job and print what happened. */
int exp_run(const struct sim_opts *o)
{
	struct dag_spec spec;
	struct dag_size sz;
	struct profile prof;
	struct jobsched_result r;
	struct rng_state rng;
	const char *why;
	char desc[200];
	FILE *trace = NULL;
	int P = o->procs > 0 ? o->procs : 128;

	rng_seed(&rng, rng_derive(o->seed, 1));
	if (exp_sample_job(o, &rng, 0, INFINITY, &spec, &sz) < 0) {
		fprintf(stderr, "asteal-sim: out of memory measuring the job\n");
		return 1;
	}
	if (dag_spec_check(&spec, &why) < 0) {
		fprintf(stderr, "asteal-sim: bad job: %s\n", why);
		return 2;
	}
	if (prof_init(&prof, o->popts.trace ? PROF_FILE : o->profile, P, o->mean_avail, &o->popts,
		      rng_derive(o->seed, 2), &why) < 0) {
		fprintf(stderr, "asteal-sim: bad profile: %s\n", why);
		prof_free(&prof);
		return 2;
	}
	if (o->trace) {
		trace = fopen(o->trace, "w");
		if (trace == NULL) {
			fprintf(stderr, "asteal-sim: cannot write %s\n", o->trace);
			prof_free(&prof);
			return 1;
		}
		jobsched_trace_header(trace);
	}
	struct jobsched_cfg cfg;

	exp_cfg(o, o->sched, P, &sz, &cfg);
	int rc = jobsched_run(&cfg, &spec, rng_derive(o->seed, 3), &prof,
				   &r, trace);

	prof_free(&prof);
	if (trace && exp_close(trace, o->trace) < 0)
		return 1;
	if (rc < 0) {
		fprintf(stderr, "asteal-sim: out of memory\n");
		return 1;
	}
	dag_describe(&spec, desc, sizeof(desc));
	printf("job %s\n", desc);
	printf("sched=%s profile=%s P=%d L=%ld delta=%g rho=%g T1=%.0f Tinf=%.0f "
	       "parallelism=%.2f T=%.0f finished=%d pbar=%.2f ptilde=%.2f "
	       "mean_allot=%.2f work=%.0f steal=%.0f mug=%.0f yields=%.0f waste_over_work=%.4f "
	       "quanta=%ld inefficient=%ld satisfied=%ld deprived=%ld\n",
	       steal_kind_name(o->sched),
	       prof_kind_name(o->popts.trace ? PROF_FILE : o->profile), P, o->L,
	       o->delta, o->rho, sz.work, sz.span, sz.work / sz.span, r.T,
	       r.finished, r.pbar, r.ptilde, r.mean_allot, r.work, r.steal,
	       r.mug, r.yields, (r.steal + r.mug) / sz.work, r.quanta,
	       r.classes[EST_INEFFICIENT], r.classes[EST_EFFICIENT_SATISFIED],
	       r.classes[EST_EFFICIENT_DEPRIVED]);
	return r.finished ? 0 : 1;
}
