/*
 * exp_timewaste.c - `asteal-sim time-waste`, the paper's time-waste
 * experiments (4.4): every job runs twice on the same practical profile
 * (--profile or --profile-file choose another; same seed: the same
 * availabilities quantum by quantum), once under
 * A-STEAL and once under ABP (always allotted all it is offered), and we
 * compare running time and waste.  Jobs aim at parallelism T1/Tinf from
 * 0.1 to 100 times the mean availability (paper Figs. 6 and 7).  Writes
 * time-waste.csv and time-waste.svg.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "exp.h"
#include "svg.h"

struct tw_ctx {
	const struct sim_opts *o;
	int P;
	double mean, work_cap;
	struct exp_job *job;
	struct jobsched_result *as, *abp;
};

/* Sample job i (even tasks) or run its ABP half (odd tasks). */
static int tw_sample(struct tw_ctx *c, int i)
{
	struct exp_job *j = &c->job[i];
	struct rng_state r;

	rng_seed(&r, rng_derive(c->o->seed, 9000 + (uint64_t)i));
	j->P = c->P;
	j->pk = c->o->popts.trace ? PROF_FILE : c->o->profile;
	j->mean = c->mean;
	double par = c->mean * pow(10, -1 + 3 * rng_unit(&r));

	if (exp_sample_job(c->o, &r, par, c->work_cap, &j->spec, &j->sz) < 0)
		return -1;
	j->prof_seed = rng_next(&r);
	j->seed = rng_next(&r);
	return 0;
}

/* Task t: run job t/2 under A-STEAL (even t) or ABP (odd t). */
static int tw_one(int t, void *arg)
{
	struct tw_ctx *c = arg;
	int i = t / 2;

	if (t % 2 == 0)
		return exp_run_job(c->o, &c->job[i], STEAL_ASTEAL, 0, &c->as[i]);
	return exp_run_job(c->o, &c->job[i], STEAL_ABP, 0, &c->abp[i]);
}

/* A summary over runs whose parallelism/pbar lies in [lo, hi). */
struct tw_sum {
	int n;
	double time_ratio, waste_ratio;     /* means */
};

/* Summarise runs with parallelism in [lo * pbar, hi * pbar). */
static void summarise(const struct tw_ctx *c, int n, double lo, double hi,
		      double lo_abs, double hi_abs, struct tw_sum *s)
{
	*s = (struct tw_sum){ 0 };
	for (int i = 0; i < n; i++) {
		const struct jobsched_result *a = &c->as[i], *b = &c->abp[i];
		double par = c->job[i].sz.work / c->job[i].sz.span;

		if (!a->finished || !b->finished)
			continue;
		if (par < lo * c->mean || par >= hi * c->mean || par < lo_abs || par >= hi_abs)
			continue;
		s->n++;
		s->time_ratio += b->T / a->T;
		s->waste_ratio += (a->steal + a->mug) / fmax(1, b->steal + b->mug);
	}
	if (s->n) {
		s->time_ratio /= s->n;
		s->waste_ratio /= s->n;
	}
}

/* The time-waste experiment (see the top of this file). */
int exp_time_waste(const struct sim_opts *o)
{
	int n = o->jobs > 0 ? o->jobs : o->quick ? 16 : 378;
	struct tw_ctx c = { .o = o, .P = o->procs > 0 ? o->procs : 512,
			    .mean = o->popts.trace ? prof_trace_mean(o->popts.trace,
					o->procs > 0 ? o->procs : 512) :
				    o->mean_avail > 0 ? o->mean_avail : 30,
			    .work_cap = o->quick ? 3e5 : 3e6 };
	double *x = NULL, *yt = NULL, *yw = NULL, *tr = NULL, *wr = NULL;
	time_t t0 = time(NULL);
	char path[4096], desc[200];
	FILE *f;
	int rc = 1, m = 0, unfinished = 0;

	if (c.mean > c.P) {
		fprintf(stderr, "asteal-sim: --mean-avail must not exceed --procs\n");
		return 2;
	}
	if (exp_outdir(o) < 0)
		return 1;
	c.job = calloc((size_t)n, sizeof(*c.job));
	c.as = calloc((size_t)n, sizeof(*c.as));
	c.abp = calloc((size_t)n, sizeof(*c.abp));
	x = calloc((size_t)n, sizeof(double));
	yt = calloc((size_t)n, sizeof(double));
	yw = calloc((size_t)n, sizeof(double));
	tr = calloc((size_t)n, sizeof(double));
	wr = calloc((size_t)n, sizeof(double));
	if (!c.job || !c.as || !c.abp || !x || !yt || !yw || !tr || !wr) {
		fprintf(stderr, "asteal-sim: out of memory\n");
		goto out;
	}
	for (int i = 0; i < n; i++)
		if (tw_sample(&c, i) < 0) {
			fprintf(stderr, "asteal-sim: out of memory\n");
			goto out;
		}
	if (exp_parallel(o, 2 * n, tw_one, &c) < 0)
		goto out;
	if ((f = exp_open(o, "time-waste.csv")) == NULL)
		goto out;
	fprintf(f, "run,P,mean_target,T1,Tinf,parallelism,asteal_T,abp_T,asteal_waste,"
		"abp_waste,asteal_pbar,abp_pbar,asteal_mean_allot,abp_mean_allot,"
		"abp_time_over_asteal,asteal_waste_over_abp,finished,job\n");
	for (int i = 0; i < n; i++) {
		const struct jobsched_result *a = &c.as[i], *b = &c.abp[i];
		const struct exp_job *j = &c.job[i];
		double par = j->sz.work / j->sz.span;
		double wa = a->steal + a->mug, wb = b->steal + b->mug;
		int fin = a->finished && b->finished;

		dag_describe(&j->spec, desc, sizeof(desc));
		fprintf(f, "%d,%d,%g,%.0f,%.0f,%.3f,%.0f,%.0f,%.0f,%.0f,%.3f,%.3f,%.3f,%.3f,"
			"%.4f,%.5f,%d,%s\n", i, c.P, c.mean, j->sz.work, j->sz.span, par,
			a->T, b->T, wa, wb, a->pbar, b->pbar, a->mean_allot, b->mean_allot,
			b->T / a->T, wa / fmax(1, wb), fin, desc);
		if (!fin) {
			unfinished++;
			continue;
		}
		x[m] = c.mean / par;
		yt[m] = b->T / a->T;
		yw[m] = wa / fmax(1, wb);
		tr[m] = yt[m];
		wr[m] = yw[m];
		m++;
	}
	if (exp_close(f, "time-waste.csv") < 0)
		goto out;
	char title[160];

	snprintf(title, sizeof(title), "A-STEAL against ABP, P = %d, mean availability %g",
		 c.P, c.mean);
	struct svg_plot p = { .title = title, .xlabel = "Pbar / (T1/Tinf)",
			      .ylabel = "ratio", .xlog = 1, .ylog = 1 };

	svg_add(&p, "time: ABP / A-STEAL", x, yt, m, SVG_POINTS);
	svg_add(&p, "waste: A-STEAL / ABP", x, yw, m, SVG_POINTS);
	exp_path(o, "time-waste.svg", path, sizeof(path));
	if (svg_write(path, &p) < 0) {
		fprintf(stderr, "asteal-sim: cannot write %s\n", path);
		goto out;
	}
	if (m == 0) {
		fprintf(stderr, "asteal-sim: no run finished under both schedulers\n");
		goto out;
	}
	struct tw_sum all, low, mid, high;

	summarise(&c, n, 0, INFINITY, 0, INFINITY, &all);
	summarise(&c, n, 0, 1, 0, INFINITY, &low);
	summarise(&c, n, 1, INFINITY, 0, c.P, &mid);
	summarise(&c, n, 0, INFINITY, c.P, INFINITY, &high);
	double tmed = exp_median(tr, m), wmed = exp_median(wr, m);

	printf("time-waste: %d jobs, each under A-STEAL and ABP on the same %s "
	       "profile, P=%d, mean availability %g (L=%ld, delta=%g, rho=%g, ABP "
	       "preempted nodes %s); %ld s\n",
	       n, prof_kind_name(c.job[0].pk), c.P, c.mean, o->L, o->delta, o->rho,
	       steal_abp_name(o->abp_preempted),
	       (long)(time(NULL) - t0));
	printf("  all jobs:               ABP time / A-STEAL %.3f (median %.3f), "
	       "A-STEAL waste / ABP %.4f (median %.4f)\n", all.time_ratio, tmed,
	       all.waste_ratio, wmed);
	printf("  parallelism < Pbar:     %.3f, %.4f (%d jobs)\n", low.time_ratio,
	       low.waste_ratio, low.n);
	printf("  Pbar <= parallelism < P: %.3f, %.4f (%d jobs)\n", mid.time_ratio,
	       mid.waste_ratio, mid.n);
	printf("  parallelism >= P:       %.3f, %.4f (%d jobs)\n", high.time_ratio,
	       high.waste_ratio, high.n);
	if (unfinished)
		printf("  %d runs hit the step limit and are left out\n", unfinished);
	printf("wrote %s/time-waste.csv, %s/time-waste.svg\n", o->out, o->out);
	printf("jobs=%d compared=%d P=%d mean_avail=%g abp_time_over_asteal=%.4f "
	       "abp_time_over_asteal_median=%.4f asteal_waste_over_abp=%.4f "
	       "asteal_waste_over_abp_median=%.4f time_ratio_low_par=%.4f "
	       "time_ratio_mid_par=%.4f time_ratio_high_par=%.4f\n", n, m, c.P,
	       c.mean, all.time_ratio, tmed, all.waste_ratio, wmed,
	       low.n ? low.time_ratio : NAN, mid.n ? mid.time_ratio : NAN,
	       high.n ? high.time_ratio : NAN);
	rc = 0;
out:
	free(c.job);
	free(c.as);
	free(c.abp);
	free(x);
	free(yt);
	free(yw);
	free(tr);
	free(wr);
	return rc;
}
