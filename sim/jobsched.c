/*
 * jobsched.c - the profile-based job scheduler: one job on an availability
 * profile, with the measurements of the trim analysis (see jobsched.h).
 */
#include <string.h>

#include "jobsched.h"

/* The header line of a trace. */
void jobsched_trace_header(FILE *trace)
{
	fprintf(trace, "quantum,availability,desire,allotment,steps,work,steal,mug,class\n");
}

/* Run one job on a profile (see jobsched.h). */
int jobsched_run(const struct jobsched_cfg *cfg, const struct dag_spec *spec,
		      uint64_t seed, struct profile *prof,
		      struct jobsched_result *out, FILE *trace)
{
	struct steal_job j;
	double avail_sum = 0, acc_avail = 0, allot_sum = 0;
	enum steal_kind kind = cfg->kind;
	long L = cfg->L;

	memset(out, 0, sizeof(*out));
	if (steal_job_init(&j, kind, cfg->P, spec, seed, &cfg->est) < 0) {
		steal_job_free(&j);
		return -1;
	}
	j.abp_preempted = cfg->abp_preempted;
	while (!j.done && (double)j.clock < cfg->max_steps) {
		int p = prof_next(prof);
		int d = steal_request(&j);
		int a = d < p ? d : p;
		struct steal_stats q;

		if (steal_allot(&j, a) < 0 || steal_run(&j, L, &q) < 0)
			break;
		enum est_class cls = steal_feedback(&j, &q, a, L);

		out->quanta++;
		out->classes[cls]++;
		avail_sum += (double)p * (double)q.steps;
		allot_sum += (double)a * (double)q.steps;
		/* accounted: nonsteal usage >= delta * (steps run) * p_q */
		if ((double)(q.work + q.mug) >= cfg->est.delta * (double)q.steps * p) {
			out->accounted += (double)q.steps;
			acc_avail += (double)p * (double)q.steps;
		}
		if (trace)
			fprintf(trace, "%ld,%d,%d,%d,%ld,%lld,%lld,%lld,%s\n",
				out->quanta, p, d, a, q.steps, q.work, q.steal,
				q.mug, kind == STEAL_ASTEAL ? est_class_name(cls) : "-");
	}
	int err = j.error;

	out->finished = j.done;
	out->T = j.done ? (double)j.finish : (double)j.clock;
	out->work = (double)j.total.work;
	out->steal = (double)j.total.steal;
	out->mug = (double)j.total.mug;
	out->yields = (double)j.total.yields;
	if (j.clock > 0) {
		out->pbar = avail_sum / (double)j.clock;
		out->mean_allot = allot_sum / (double)j.clock;
	}
	if (out->accounted > 0)
		out->ptilde = acc_avail / out->accounted;
	steal_job_free(&j);
	return err ? -1 : 0;
}
