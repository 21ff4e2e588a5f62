/*
 * exp_waste.c - `asteal-sim waste`, the paper's waste experiments (4.3).
 *
 * 1. Waste over work for delta = 0.5, 0.6, ..., 1.0: the same jobs (mostly
 *    with parallelism T1/Tinf > 5 Pbar) and profiles (a third of each kind)
 *    at every delta, against the bound of Inequality (3),
 *    (1 + rho - delta)/delta + (1 + rho)^2 / (delta (L delta - 1 - rho)),
 *    and the bound on efficient quanta, (1 - delta)/delta (paper Fig. 4).
 * 2. Waste over work against parallelism over mean availability, at
 *    delta = 0.8, for jobs of every parallelism (paper Fig. 5).
 *
 * Writes waste-delta.csv, waste-delta.svg, waste-parallelism.csv and
 * waste-parallelism.svg.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "exp.h"
#include "svg.h"

#define NDELTA 6

static const double means[] = { 8, 16, 32, 64, 128 };

struct waste_ctx {
	const struct sim_opts *o;
	int P, n;                      /* n jobs per delta */
	double work_cap;
	struct exp_job *job;           /* n for part 1, then n for part 2 */
	struct jobsched_result *res;   /* NDELTA * n, then n */
};

/* delta number k. */
static double delta_of(int k)
{
	return 0.5 + 0.1 * k;
}

/* Sample job i (part 1: parallelism > 5 mean mostly; part 2: any). */
static int sample(struct waste_ctx *c, int i, int part2)
{
	struct exp_job *j = &c->job[i];
	struct rng_state r;
	int nm = exp_means_upto(means, (int)(sizeof(means) / sizeof(means[0])), c->P);

	rng_seed(&r, rng_derive(c->o->seed, 5000 + (uint64_t)i));
	j->P = c->P;
	j->pk = exp_profile_kind(c->o, i);
	j->mean = exp_profile_mean(c->o, &r, means, nm, c->P);
	/* part 1: 5 to 100 times the mean (a tenth of the jobs below);
	 * part 2: 0.05 to 100 times */
	double lo = part2 ? -1.3 : (rng_unit(&r) < 0.1 ? 0 : log10(5.0));
	double par = j->mean * pow(10, lo + (2 - lo) * rng_unit(&r));

	if (exp_sample_job(c->o, &r, par, c->work_cap, &j->spec, &j->sz) < 0)
		return -1;
	j->prof_seed = rng_next(&r);
	j->seed = rng_next(&r);
	return 0;
}

/* Task t: part 1 runs job t % n at delta t / n; part 2 runs job n + t'. */
static int waste_one(int t, void *arg)
{
	struct waste_ctx *c = arg;

	if (t < NDELTA * c->n) {
		int i = t % c->n, k = t / c->n;

		return exp_run_job(c->o, &c->job[i], STEAL_ASTEAL, delta_of(k), &c->res[t]);
	}
	int i = c->n + (t - NDELTA * c->n);

	return exp_run_job(c->o, &c->job[i], STEAL_ASTEAL, 0.8, &c->res[t]);
}

/* The bound of Inequality (3) on waste over work. */
static double bound_total(double d, double rho, double L)
{
	return (1 + rho - d) / d + (1 + rho) * (1 + rho) / (d * (L * d - 1 - rho));
}

/* The waste experiments (see the top of this file). */
int exp_waste(const struct sim_opts *o)
{
	int n = o->jobs > 0 ? o->jobs : o->quick ? 24 : 300;
	struct waste_ctx c = { .o = o, .P = o->procs > 0 ? o->procs : 512, .n = n,
			       .work_cap = o->quick ? 1e6 : 3e6 };
	double mean[NDELTA], mx[NDELTA], btot[NDELTA], beff[NDELTA], dl[NDELTA];
	double *px = NULL, *py = NULL;
	time_t t0 = time(NULL);
	char path[4096];
	FILE *f;
	int rc = 1;

	if (exp_outdir(o) < 0)
		return 1;
	c.job = calloc((size_t)(2 * n), sizeof(*c.job));
	c.res = calloc((size_t)((NDELTA + 1) * n), sizeof(*c.res));
	px = calloc((size_t)n, sizeof(double));
	py = calloc((size_t)n, sizeof(double));
	if (!c.job || !c.res || !px || !py) {
		fprintf(stderr, "asteal-sim: out of memory\n");
		goto out;
	}
	for (int i = 0; i < 2 * n; i++)
		if (sample(&c, i, i >= n) < 0) {
			fprintf(stderr, "asteal-sim: out of memory\n");
			goto out;
		}
	if (exp_parallel(o, (NDELTA + 1) * n, waste_one, &c) < 0)
		goto out;
	/* part 1 */
	if ((f = exp_open(o, "waste-delta.csv")) == NULL)
		goto out;
	fprintf(f, "delta,runs,mean_waste_over_work,max_waste_over_work,"
		"bound_total,bound_efficient\n");
	for (int k = 0; k < NDELTA; k++) {
		double s = 0, m = 0, d = delta_of(k);
		int cnt = 0;

		for (int i = 0; i < n; i++) {
			const struct jobsched_result *r = &c.res[k * n + i];
			double w = (r->steal + r->mug) / c.job[i].sz.work;

			if (!r->finished)
				continue;
			s += w;
			m = fmax(m, w);
			cnt++;
		}
		dl[k] = d;
		mean[k] = cnt ? s / cnt : NAN;
		mx[k] = m;
		btot[k] = bound_total(d, o->rho, (double)o->L);
		beff[k] = (1 - d) / d;
		fprintf(f, "%.1f,%d,%.5f,%.5f,%.5f,%.5f\n", d, cnt, mean[k], mx[k],
			btot[k], beff[k]);
	}
	if (exp_close(f, "waste-delta.csv") < 0)
		goto out;
	struct svg_plot p1 = { .title = "Waste over work against delta (paper Fig. 4)",
			       .xlabel = "utilization parameter delta",
			       .ylabel = "waste / work" };

	svg_add(&p1, "bound, Inequality (3)", dl, btot, NDELTA, SVG_LINEPOINTS);
	svg_add(&p1, "bound on efficient quanta", dl, beff, NDELTA, SVG_LINEPOINTS);
	svg_add(&p1, "observed (mean)", dl, mean, NDELTA, SVG_LINEPOINTS);
	exp_path(o, "waste-delta.svg", path, sizeof(path));
	if (svg_write(path, &p1) < 0) {
		fprintf(stderr, "asteal-sim: cannot write %s\n", path);
		goto out;
	}
	/* part 2 */
	if ((f = exp_open(o, "waste-parallelism.csv")) == NULL)
		goto out;
	fprintf(f, "run,profile,parallelism,pbar,parallelism_over_pbar,waste_over_work\n");
	double hs = 0, ls = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	int hn = 0, ln = 0, m = 0;

	for (int i = 0; i < n; i++) {
		const struct jobsched_result *r = &c.res[NDELTA * n + i];
		const struct exp_job *j = &c.job[n + i];
		double par = j->sz.work / j->sz.span, w = (r->steal + r->mug) / j->sz.work;

		if (!r->finished || !(r->pbar > 0))
			continue;
		double x = par / r->pbar;

		fprintf(f, "%d,%s,%.3f,%.3f,%.4f,%.5f\n", i, prof_kind_name(j->pk),
			par, r->pbar, x, w);
		px[m] = x;
		py[m] = w;
		m++;
		if (x > 10) {
			hs += w;
			hn++;
		} else if (x < 1) {
			ls += w;
			ln++;
		}
		if (w > 0) {
			sx += log(x);
			sy += log(w);
			sxx += log(x) * log(x);
			sxy += log(x) * log(w);
		}
	}
	if (exp_close(f, "waste-parallelism.csv") < 0)
		goto out;
	struct svg_plot p2 = { .title = "Waste over work against parallelism (paper Fig. 5)",
			       .xlabel = "(T1/Tinf) / Pbar", .ylabel = "waste / work",
			       .xlog = 1, .ylog = 1 };

	svg_add(&p2, "A-STEAL, delta = 0.8", px, py, m, SVG_POINTS);
	exp_path(o, "waste-parallelism.svg", path, sizeof(path));
	if (svg_write(path, &p2) < 0) {
		fprintf(stderr, "asteal-sim: cannot write %s\n", path);
		goto out;
	}
	double slope = m > 1 ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : NAN;
	double lo = INFINITY, hi = 0;

	for (int k = 0; k < NDELTA; k++) {
		lo = fmin(lo, mean[k]);
		hi = fmax(hi, mean[k]);
	}
	printf("waste: %d jobs x %d deltas + %d jobs against parallelism, P=%d "
	       "(L=%ld, rho=%g); %ld s\n", n, NDELTA, n, c.P, o->L, o->rho,
	       (long)(time(NULL) - t0));
	for (int k = 0; k < NDELTA; k++)
		printf("  delta=%.1f  waste/work mean %.4f max %.4f  (bound %.3f, "
		       "efficient-quanta bound %.3f)\n", dl[k], mean[k], mx[k],
		       btot[k], beff[k]);
	printf("  waste/work: %.4f for parallelism > 10 Pbar (%d jobs), %.4f below "
	       "Pbar (%d jobs); log-log slope %.3f (paper: under 0.1, falling "
	       "with parallelism)\n", hn ? hs / hn : NAN, hn, ln ? ls / ln : NAN,
	       ln, slope);
	printf("wrote %s/waste-delta.csv, %s/waste-delta.svg, %s/waste-parallelism.csv, "
	       "%s/waste-parallelism.svg\n", o->out, o->out, o->out, o->out);
	printf("jobs=%d", n);
	for (int k = 0; k < NDELTA; k++)
		printf(" waste_d%.1f=%.4f", dl[k], mean[k]);
	printf(" waste_min=%.4f waste_max=%.4f waste_high_par=%.4f waste_low_par=%.4f "
	       "waste_par_slope=%.4f\n", lo, hi, hn ? hs / hn : NAN,
	       ln ? ls / ln : NAN, slope);
	rc = 0;
out:
	free(c.job);
	free(c.res);
	free(px);
	free(py);
	return rc;
}
