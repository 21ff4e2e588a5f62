/*
 * exp_time.c - `asteal-sim time`, the paper's time experiments (4.2): many
 * A-STEAL job runs (--sched abp: ABP) on uniform, smooth and practical
 * profiles (a third each; --profile or --profile-file: one), then two
 * relative-error least-squares fits:
 *
 *   T ~ c1 * T1 / P~   + cinf * Tinf   (P~ = trimmed availability: the mean
 *                                       availability on accounted steps)
 *   T ~ c1 * T1 / Pbar + cinf * Tinf   (Pbar = mean availability)
 *
 * Jobs aim at parallelism T1/Tinf between 0.05 and 100 times the profile's
 * mean availability, so that both terms matter somewhere.  Writes
 * time-runs.csv, time-fit.svg (measured against fitted time) and
 * time-trim.svg (the paper's Fig. 3: P~ against Pbar, both over T1/Tinf).
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "exp.h"
#include "fit.h"
#include "svg.h"

static const double means[] = { 8, 16, 32, 64, 128, 256 };

struct time_ctx {
	const struct sim_opts *o;
	int P;
	double work_cap;
	struct exp_job *job;
	struct jobsched_result *res;
};

/* Sample and run job i. */
static int time_one(int i, void *arg)
{
	struct time_ctx *c = arg;
	struct exp_job *j = &c->job[i];
	struct rng_state r;
	int nm = exp_means_upto(means, (int)(sizeof(means) / sizeof(means[0])), c->P);

	rng_seed(&r, rng_derive(c->o->seed, 1000 + (uint64_t)i));
	j->P = c->P;
	j->pk = exp_profile_kind(c->o, i);
	j->mean = exp_profile_mean(c->o, &r, means, nm, c->P);
	double par = j->mean * pow(10, -1.3 + 3.3 * rng_unit(&r));

	if (exp_sample_job(c->o, &r, par, c->work_cap, &j->spec, &j->sz) < 0)
		return -1;
	j->prof_seed = rng_next(&r);
	j->seed = rng_next(&r);
	return exp_run_job(c->o, j, c->o->sched, 0, &c->res[i]);
}

/* Write the runs as CSV. */
static int write_runs(const struct sim_opts *o, const struct time_ctx *c, int n)
{
	FILE *f = exp_open(o, "time-runs.csv");
	char desc[200];

	if (f == NULL)
		return -1;
	fprintf(f, "run,profile,P,mean_target,T1,Tinf,parallelism,T,finished,pbar,ptilde,"
		"accounted_steps,work,steal,mug,quanta,job\n");
	for (int i = 0; i < n; i++) {
		const struct exp_job *j = &c->job[i];
		const struct jobsched_result *r = &c->res[i];

		dag_describe(&j->spec, desc, sizeof(desc));
		fprintf(f, "%d,%s,%d,%g,%.0f,%.0f,%.3f,%.0f,%d,%.3f,%.3f,%.0f,%.0f,%.0f,%.0f,%ld,%s\n",
			i, prof_kind_name(j->pk), j->P, j->mean, j->sz.work, j->sz.span,
			j->sz.work / j->sz.span, r->T, r->finished, r->pbar, r->ptilde,
			r->accounted, r->work, r->steal, r->mug, r->quanta, desc);
	}
	return exp_close(f, "time-runs.csv");
}

/* Fit T against T1/avail and Tinf over the runs with avail > 0. */
static int do_fit(const struct time_ctx *c, int n, int trimmed,
		  struct fit_result *fr)
{
	double *y = malloc(sizeof(double) * (size_t)(n + 1));
	double *x1 = malloc(sizeof(double) * (size_t)(n + 1));
	double *x2 = malloc(sizeof(double) * (size_t)(n + 1));
	int m = 0, rc = -1;

	if (y && x1 && x2) {
		for (int i = 0; i < n; i++) {
			const struct jobsched_result *r = &c->res[i];
			double p = trimmed ? r->ptilde : r->pbar;

			if (!r->finished || !(p > 0))
				continue;
			y[m] = r->T;
			x1[m] = c->job[i].sz.work / p;
			x2[m] = c->job[i].sz.span;
			m++;
		}
		const double *xs[2] = { x1, x2 };

		rc = fit_relative(y, xs, 2, m, fr);
	}
	free(y);
	free(x1);
	free(x2);
	return rc;
}

/* The two figures. */
static int write_plots(const struct sim_opts *o, const struct time_ctx *c, int n,
		       const struct fit_result *ft)
{
	double *buf = calloc((size_t)(8 * n + 8), sizeof(double));
	char path[4096];
	int rc = 0;

	if (buf == NULL)
		return -1;
	/* measured against fitted time, by profile kind */
	struct svg_plot p1 = { .title = o->sched == STEAL_ABP ?
				"ABP running time against the fitted model" :
				"A-STEAL running time against the fitted model",
			       .xlabel = "c1*T1/P~ + cinf*Tinf (fit, trimmed availability)",
			       .ylabel = "measured T (steps)", .xlog = 1, .ylog = 1 };
	double *px[4], *py[4];
	int pn[4] = { 0 };
	double lo = INFINITY, hi = 0;

	for (int k = 0; k < 4; k++) {
		px[k] = buf + (size_t)(2 * k) * (size_t)n;
		py[k] = px[k] + n;
	}
	for (int i = 0; i < n; i++) {
		const struct jobsched_result *r = &c->res[i];
		int k = c->job[i].pk;

		if (!r->finished || !(r->ptilde > 0))
			continue;
		double pred = ft->coef[0] * c->job[i].sz.work / r->ptilde +
			      ft->coef[1] * c->job[i].sz.span;

		px[k][pn[k]] = pred;
		py[k][pn[k]++] = r->T;
		lo = fmin(lo, fmin(pred, r->T));
		hi = fmax(hi, fmax(pred, r->T));
	}
	double dx[2] = { lo, hi }, dy[2] = { lo, hi };

	for (int k = 0; k < 4; k++)
		if (pn[k] > 0)
			svg_add(&p1, prof_kind_name((enum prof_kind)k), px[k], py[k],
				pn[k], SVG_POINTS);
	svg_add(&p1, "T = fit", dx, dy, 2, SVG_LINE);
	exp_path(o, "time-fit.svg", path, sizeof(path));
	if (svg_write(path, &p1) < 0)
		rc = -1;
	/* Fig. 3: trimmed against mean availability, over parallelism */
	struct svg_plot p2 = { .title = "Trimmed against mean availability (paper Fig. 3)",
			       .xlabel = "Pbar / (T1/Tinf)", .ylabel = "P~ / (T1/Tinf)",
			       .xlog = 1, .ylog = 1 };

	for (int k = 0; k < 4; k++)
		pn[k] = 0;
	lo = INFINITY;
	hi = 0;
	for (int i = 0; i < n; i++) {
		const struct jobsched_result *r = &c->res[i];
		int k = c->job[i].pk;
		double par = c->job[i].sz.work / c->job[i].sz.span;

		if (!r->finished || !(r->ptilde > 0))
			continue;
		px[k][pn[k]] = r->pbar / par;
		py[k][pn[k]++] = r->ptilde / par;
		lo = fmin(lo, fmin(r->pbar, r->ptilde) / par);
		hi = fmax(hi, fmax(r->pbar, r->ptilde) / par);
	}
	double ex[2] = { lo, hi }, ey[2] = { lo, hi };

	for (int k = 0; k < 4; k++)
		if (pn[k] > 0)
			svg_add(&p2, prof_kind_name((enum prof_kind)k), px[k], py[k],
				pn[k], SVG_POINTS);
	svg_add(&p2, "P~ = Pbar", ex, ey, 2, SVG_LINE);
	exp_path(o, "time-trim.svg", path, sizeof(path));
	if (svg_write(path, &p2) < 0)
		rc = -1;
	free(buf);
	if (rc < 0)
		fprintf(stderr, "asteal-sim: cannot write the time plots\n");
	return rc;
}

/* The time experiments (see the top of this file). */
int exp_time(const struct sim_opts *o)
{
	int n = o->jobs > 0 ? o->jobs : o->quick ? 90 : 2331;
	struct time_ctx c = { .o = o, .P = o->procs > 0 ? o->procs : 512,
			      .work_cap = o->quick ? 3e5 : 3e6 };
	struct fit_result ft, fm;
	time_t t0 = time(NULL);
	int rc = 1;

	if (exp_outdir(o) < 0)
		return 1;
	c.job = calloc((size_t)n, sizeof(*c.job));
	c.res = calloc((size_t)n, sizeof(*c.res));
	if (c.job == NULL || c.res == NULL) {
		fprintf(stderr, "asteal-sim: out of memory\n");
		goto out;
	}
	if (exp_parallel(o, n, time_one, &c) < 0 || write_runs(o, &c, n) < 0)
		goto out;
	int fin = 0, trimmed = 0;

	for (int i = 0; i < n; i++) {
		fin += c.res[i].finished;
		trimmed += c.res[i].finished && c.res[i].ptilde > 0;
	}
	if (do_fit(&c, n, 1, &ft) < 0 || do_fit(&c, n, 0, &fm) < 0) {
		fprintf(stderr, "asteal-sim: too few runs to fit (%d finished)\n", fin);
		goto out;
	}
	if (write_plots(o, &c, n, &ft) < 0)
		goto out;
	printf("time: %d %s job runs on P=%d (L=%ld, delta=%g, rho=%g), %d finished, "
	       "%d with accounted steps; %ld s\n", n,
	       o->sched == STEAL_ABP ? "ABP" : "A-STEAL", c.P, o->L, o->delta, o->rho,
	       fin, trimmed, (long)(time(NULL) - t0));
	printf("fit T ~ c1*T1/P~ + cinf*Tinf:   c1 = %.3f +- %.3f, cinf = %.3f +- %.3f, "
	       "R^2 = %.1f%% (paper: 0.960 +- 0.003, 0.812 +- 0.009, 99.4%%)\n",
	       ft.coef[0], ft.ci[0], ft.coef[1], ft.ci[1], 100 * ft.r2);
	printf("fit T ~ c1*T1/Pbar + cinf*Tinf: c1 = %.3f +- %.3f, cinf = %.3f +- %.3f, "
	       "R^2 = %.1f%% (paper: 0.992 +- 0.003, 0.911 +- 0.008, 99.4%%)\n",
	       fm.coef[0], fm.ci[0], fm.coef[1], fm.ci[1], 100 * fm.r2);
	printf("wrote %s/time-runs.csv, %s/time-fit.svg, %s/time-trim.svg\n",
	       o->out, o->out, o->out);
	printf("runs=%d fitted=%d c1=%.4f c1_ci=%.4f cinf=%.4f cinf_ci=%.4f r2=%.4f "
	       "rel_rms=%.4f c1_mean=%.4f c1_mean_ci=%.4f cinf_mean=%.4f "
	       "cinf_mean_ci=%.4f r2_mean=%.4f rel_rms_mean=%.4f\n",
	       n, ft.n, ft.coef[0], ft.ci[0], ft.coef[1], ft.ci[1], ft.r2,
	       ft.rel_rms, fm.coef[0], fm.ci[0], fm.coef[1], fm.ci[1], fm.r2,
	       fm.rel_rms);
	rc = 0;
out:
	free(c.job);
	free(c.res);
	return rc;
}
