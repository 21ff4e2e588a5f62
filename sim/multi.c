/*
 * multi.c - many jobs sharing P processors under DEQ (A-STEAL) or EQ (ABP),
 * quantum by quantum, with the utilization of every interval (see multi.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deq.h"
#include "multi.h"
#include "rng.h"

/* A job in the machine. */
struct live {
	int id;                    /* index in the arrival stream */
	double start;              /* the step it started */
	struct steal_job job;
};

/* Free a result's arrays. */
void multi_result_free(struct multi_result *r)
{
	free(r->util);
	free(r->active);
	free(r->done_at);
	memset(r, 0, sizeof(*r));
}

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

/* Take the slots from lo up to P out of a set (they are not offered). */
static void drop_slots_from(struct deq_set *s, int lo, int P)
{
	if (lo >= P)
		return;
	s->w[lo / 64] &= lo % 64 ? ~0ULL >> (64 - lo % 64) : 0;
	for (int w = lo / 64 + 1; w < (P + 63) / 64; w++)
		s->w[w] = 0;
}

/* Simulate the stream (see multi.h). */
int multi_run(const struct multi_cfg *cfg, const struct multi_arrival *jobs,
	      int n, uint64_t seed, struct multi_result *out)
{
	long quanta = (cfg->steps + cfg->L - 1) / cfg->L;
	long per = cfg->interval / cfg->L;
	struct live *lv = calloc((size_t)(n > 0 ? n : 1), sizeof(*lv));
	struct deq_job *dj = calloc((size_t)(n > 0 ? n : 1), sizeof(*dj));
	int *slots = malloc(sizeof(int) * (size_t)cfg->P);
	double *offered = NULL;
	int nl = 0, next = 0, rc = -1;

	memset(out, 0, sizeof(*out));
	if (per < 1)
		per = 1;
	out->nint = (int)((quanta + per - 1) / per);
	out->util = calloc((size_t)out->nint + 1, sizeof(double));
	offered = calloc((size_t)out->nint + 1, sizeof(double));
	out->active = calloc((size_t)out->nint + 1, sizeof(double));
	out->done_at = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
	if (!lv || !dj || !slots || !offered || !out->util || !out->active ||
	    !out->done_at) {
		fprintf(stderr, "asteal-sim: out of memory\n");
		goto out;
	}
	for (int i = 0; i < n; i++)
		out->done_at[i] = -1;
	for (long q = 0; q < quanta; q++) {
		double t = (double)q * (double)cfg->L;
		int pt = (int)(q / per);
		int P = cfg->prof ? prof_next(cfg->prof) : cfg->P;

		/* arrivals up to now join */
		while (next < n && jobs[next].time <= t) {
			struct live *l = &lv[nl];

			l->id = next;
			l->start = t;
			if (steal_job_init(&l->job, cfg->kind, cfg->P, &jobs[next].spec,
					   rng_derive(seed, (uint64_t)next), &cfg->est) < 0) {
				steal_job_free(&l->job);
				fprintf(stderr, "asteal-sim: out of memory\n");
				goto out;
			}
			l->job.abp_preempted = cfg->abp_preempted;
			dj[nl] = (struct deq_job){ .desire = 0 };
			nl++;
			next++;
			out->started++;
		}
		if (nl > out->max_active)
			out->max_active = nl;
		out->active[pt] += nl;
		offered[pt] += (double)P * (double)cfg->L;
		if (nl == 0)
			continue;
		for (int k = 0; k < nl; k++) {
			dj[k].desire = steal_request(&lv[k].job);
			drop_slots_from(&dj[k].cpus, P, cfg->P);
		}
		if (deq_allot(P, dj, nl, (uint64_t)q) < 0) {
			fprintf(stderr, "asteal-sim: deq_allot failed: %s\n", strerror(errno));
			goto out;
		}
		for (int k = 0; k < nl; k++) {
			struct steal_job *j = &lv[k].job;
			struct steal_stats st;

			if (give_slots(j, &dj[k].cpus, cfg->P, slots) < 0 ||
			    steal_run(j, cfg->L, &st) < 0) {
				fprintf(stderr, "asteal-sim: out of memory\n");
				goto out;
			}
			steal_feedback(j, &st, dj[k].allotment, cfg->L);
			out->util[pt] += (double)st.work;
			out->work += (double)st.work;
			out->steal += (double)st.steal;
			out->mug += (double)st.mug;
		}
		/* finished jobs leave; their processors go back next quantum */
		for (int k = 0; k < nl;) {
			struct steal_job *j = &lv[k].job;

			if (!j->done) {
				k++;
				continue;
			}
			out->done_at[lv[k].id] = lv[k].start + (double)j->finish;
			out->completed++;
			steal_job_free(j);
			nl--;
			if (k != nl) {
				lv[k] = lv[nl];
				dj[k] = dj[nl];
			}
		}
	}
	for (int p = 0; p < out->nint; p++) {
		long qs = (long)p * per, qe = qs + per < quanta ? qs + per : quanta;
		out->util[p] /= offered[p];
		out->active[p] /= (double)(qe - qs);
	}
	rc = 0;
out:
	for (int k = 0; k < nl; k++)
		steal_job_free(&lv[k].job);
	free(lv);
	free(dj);
	free(slots);
	free(offered);
	if (rc < 0)
		multi_result_free(out);
	return rc;
}
