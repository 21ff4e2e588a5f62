/*
 * multi.c - many jobs sharing P processors under DEQ (A-STEAL) or EQ (ABP),
 * quantum by quantum, with the utilization of every interval (see multi.h).
 * The job scheduler is asteald's own core (daemon/core/core.h): the jobs
 * join and leave it, say their desires, and take the allotments its tick
 * delivers; silence is off, and nothing joins between ticks, so no grant
 * is ever due.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "deq.h"
#include "multi.h"
#include "rng.h"

/* A job in the machine: the core's job inside it, so it never moves. */
struct live {
	struct core_job core;      /* its state in the job scheduler */
	int id;                    /* index in the arrival stream */
	double start;              /* the step it started */
	struct steal_job job;
	struct deq_set told;       /* its slots this quantum */
	int allotment;
};

/* Free a result's arrays. */
void multi_result_free(struct multi_result *r)
{
	free(r->util);
	free(r->active);
	free(r->done_at);
	memset(r, 0, sizeof(*r));
}

/* The live job of a core job. */
static struct live *live_of(struct core_job *cj)
{
	return (struct live *)((char *)cj - offsetof(struct live, core));
}

/* The core's allotment: kept for the quantum the job runs next. */
static int take_allot(void *arg, struct core_job *cj, const struct core_allot *a)
{
	struct live *l = live_of(cj);

	(void)arg;
	l->told = *a->set;
	l->allotment = a->allotment;
	return 0;
}

/* The core's other effects mean nothing here (left out: no history, no
 * grants as nothing joins between ticks, no confinement, no timers). */
static const struct core_ops sim_ops = { .allot = take_allot };

/* Hand a job the slots DEQ gave it. */
static int give_slots(struct steal_job *j, const struct deq_set *s, int P,
		      int *slots)
{
	int n = 0;

	for (int w = 0; w < (P + 63) / 64; w++) {
		uint64_t bits = s->w[w];

		while (bits) {
			int b = __builtin_ctzll(bits);

			bits &= bits - 1;
			slots[n++] = w * 64 + b;
		}
	}
	return steal_allot_slots(j, slots, n);
}

/* Simulate the stream (see multi.h). */
int multi_run(const struct multi_cfg *cfg, const struct multi_arrival *jobs,
	      int n, uint64_t seed, struct multi_result *out)
{
	long quanta = (cfg->steps + cfg->L - 1) / cfg->L;
	long per = cfg->interval / cfg->L;
	struct core_params cp = { .P = cfg->P };
	struct core *core = core_create(&cp, &sim_ops, NULL);
	struct live *lv = calloc((size_t)(n > 0 ? n : 1), sizeof(*lv));
	int *slots = malloc(sizeof(int) * (size_t)cfg->P);
	double *offered = NULL;
	int next = 0, rc = -1;

	memset(out, 0, sizeof(*out));
	if (per < 1)
		per = 1;
	out->nint = (int)((quanta + per - 1) / per);
	out->util = calloc((size_t)out->nint + 1, sizeof(double));
	offered = calloc((size_t)out->nint + 1, sizeof(double));
	out->active = calloc((size_t)out->nint + 1, sizeof(double));
	out->done_at = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
	if (!core || !lv || !slots || !offered || !out->util || !out->active ||
	    !out->done_at) {
		fprintf(stderr, "asteal-sim: out of memory\n");
		goto out;
	}
	for (int i = 0; i < n; i++)
		out->done_at[i] = -1;
	for (long q = 0; q < quanta; q++) {
		double t = (double)q * (double)cfg->L;
		int pt = (int)(q / per), nl;
		int P = cfg->prof ? prof_next(cfg->prof) : cfg->P;
		struct core_tick_stats ts;

		/* arrivals up to now join, with the desire of a job that has
		 * run nothing yet */
		while (next < n && jobs[next].time <= t) {
			struct live *l = &lv[next];

			l->id = next;
			l->start = t;
			if (steal_job_init(&l->job, cfg->kind, cfg->P, &jobs[next].spec,
					   rng_derive(seed, (uint64_t)next), &cfg->est) < 0 ||
			    core_join(core, &l->core, (uint64_t)next + 1, 0, 0, 0, 0,
			              (uint64_t)q) < 0) {
				steal_job_free(&l->job);
				fprintf(stderr, "asteal-sim: out of memory\n");
				goto out;
			}
			l->job.abp_preempted = cfg->abp_preempted;
			next++;
			out->started++;
		}
		nl = core_njobs(core);
		if (nl > out->max_active)
			out->max_active = nl;
		out->active[pt] += nl;
		offered[pt] += (double)P * (double)cfg->L;
		if (nl == 0)
			continue;
		/* the job scheduler's quantum: desires, then the core's tick */
		core_tick_begin(core, (uint64_t)q);
		for (int k = 0; k < nl; k++) {
			struct core_job *cj = core_job_at(core, k);

			core_feedback(core, cj, steal_request(&live_of(cj)->job),
			              (uint64_t)q);
		}
		core_offer(core, P);
		if (core_tick(core, (uint64_t)q, NULL, &ts) < 0) {
			fprintf(stderr, "asteal-sim: DEQ failed: %s\n", strerror(errno));
			goto out;
		}
		for (int k = 0; k < nl; k++) {
			struct live *l = live_of(core_job_at(core, k));
			struct steal_job *j = &l->job;
			struct steal_stats st;

			if (give_slots(j, &l->told, cfg->P, slots) < 0 ||
			    steal_run(j, cfg->L, &st) < 0) {
				fprintf(stderr, "asteal-sim: out of memory\n");
				goto out;
			}
			steal_feedback(j, &st, l->allotment, cfg->L);
			out->util[pt] += (double)st.work;
			out->work += (double)st.work;
			out->steal += (double)st.steal;
			out->mug += (double)st.mug;
		}
		/* finished jobs leave; their processors go back next quantum */
		for (int k = 0; k < core_njobs(core);) {
			struct live *l = live_of(core_job_at(core, k));

			if (!l->job.done) {
				k++;
				continue;
			}
			out->done_at[l->id] = l->start + (double)l->job.finish;
			out->completed++;
			core_leave(core, &l->core, (uint64_t)q);
			steal_job_free(&l->job);
		}
	}
	for (int p = 0; p < out->nint; p++) {
		long qs = (long)p * per, qe = qs + per < quanta ? qs + per : quanta;
		out->util[p] /= offered[p];
		out->active[p] /= (double)(qe - qs);
	}
	rc = 0;
out:
	for (int k = 0; core != NULL && k < core_njobs(core); k++)
		steal_job_free(&live_of(core_job_at(core, k))->job);
	core_free(core);
	free(lv);
	free(slots);
	free(offered);
	if (rc < 0)
		multi_result_free(out);
	return rc;
}
