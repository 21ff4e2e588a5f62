/*
 * exp_util.c - `asteal-sim utilization`, the paper's utilization
 * experiments (4.5, Fig. 8): a stream of jobs (Poisson arrivals, mean
 * --interarrival steps) on P = 1000 processors for 10^6 steps, run once
 * under A-STEAL + DEQ and once under ABP + EQ; utilization (work cycles over
 * processor cycles) per interval of 2000 steps, and the mean completion
 * time of the jobs that finish under both.  With --profile-file, quantum q
 * offers the stream only the first p_q of the P processors (the profile's
 * availability), and utilization counts over the offered cycles.
 *
 * Each job is a phases job (Fig. 2) with span and parallelism drawn from
 * --dist PAR/SPAN, each of:
 *   U    span uniform in [1000, 99000], parallelism uniform in [1, 80]
 *   HT1  probability of x proportional to 1/x; mean 36 (parallelism, from
 *        1) or 50000 (span, from 1000)
 *   HT2  probability of x proportional to 1/sqrt(x); the same means
 * A job of span S and parallelism p iterates round(S/1000) times a serial
 * phase of 100 steps and an h-way parallel phase of 900, with h chosen so
 * that its parallelism is about p (counting the spawn loop in the span).  Writes utilization.csv and
 * utilization.svg.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exp.h"
#include "multi.h"
#include "svg.h"

enum dist { D_U, D_HT1, D_HT2 };

/* Parse one distribution name. */
static int dist_parse(const char *s, size_t len, enum dist *d)
{
	if (len == 1 && strncmp(s, "U", 1) == 0)
		*d = D_U;
	else if (len == 3 && strncmp(s, "HT1", 3) == 0)
		*d = D_HT1;
	else if (len == 3 && strncmp(s, "HT2", 3) == 0)
		*d = D_HT2;
	else
		return -1;
	return 0;
}

/* The mean of distribution d on [a, b]. */
static double dist_mean(enum dist d, double a, double b)
{
	if (d == D_HT1)
		return (b - a) / log(b / a);
	return (pow(b, 1.5) - pow(a, 1.5)) / (3 * (sqrt(b) - sqrt(a)));
}

/* The upper end b that gives distribution d on [a, b] the given mean. */
static double dist_upper(enum dist d, double a, double mean)
{
	double lo = a * 1.0001, hi = a * 1e7;

	for (int i = 0; i < 200; i++) {
		double mid = sqrt(lo * hi);

		if (dist_mean(d, a, mid) < mean)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(lo * hi);
}

/* One draw from distribution d: uniform on [ulo, uhi], or heavy-tailed
 * from a with the given mean. */
static double dist_draw(enum dist d, struct rng_state *r, double ulo,
			double uhi, double a, double b)
{
	double u = rng_unit(r);

	switch (d) {
	case D_U:
		return ulo + u * (uhi - ulo);
	case D_HT1:
		return a * pow(b / a, u);
	default: {
		double s = sqrt(a) + u * (sqrt(b) - sqrt(a));

		return s * s;
	}
	}
}

/* The job stream. */
static int make_stream(const struct sim_opts *o, enum dist dp, enum dist ds,
		       long steps, struct multi_arrival **out, int *nout)
{
	struct rng_state r;
	double t = 0, pb = dist_upper(dp == D_HT2 ? D_HT2 : D_HT1, 1, 36);
	double sb = dist_upper(ds == D_HT2 ? D_HT2 : D_HT1, 1000, 50000);
	int n = 0, cap = 64;
	struct multi_arrival *a = malloc(sizeof(*a) * (size_t)cap);

	if (a == NULL)
		return -1;
	rng_seed(&r, rng_derive(o->seed, 77));
	for (;;) {
		t += rng_expo(&r, o->interarrival);
		if (t >= (double)steps)
			break;
		double par = dist_draw(dp, &r, 1, 80, 1, pb);
		double span = dist_draw(ds, &r, 1000, 99000, 1000, sb);
		long iters = lround(span / 1000);
		long h = lround(o->loop ? (par * 1000 - 100) / (901 - par) :
				(par * 1000 - 100) / 900);

		if (n == cap) {
			struct multi_arrival *na = realloc(a, sizeof(*a) * (size_t)(cap *= 2));

			if (na == NULL) {
				free(a);
				return -1;
			}
			a = na;
		}
		a[n].time = t;
		dag_spec_phases(&a[n].spec, 100, 900, h < 1 ? 1 : h,
				iters < 1 ? 1 : iters, o->loop);
		n++;
	}
	*out = a;
	*nout = n;
	return 0;
}

/* Run the stream under A-STEAL+DEQ (ra) and ABP+EQ (rb), each offered
 * the --profile-file profile from its start if there is one: 0, or -1. */
static int run_both(const struct sim_opts *o, struct multi_cfg *cfg,
		    const struct multi_arrival *jobs, int n,
		    struct multi_result *ra, struct multi_result *rb)
{
	struct multi_result *res[2] = { ra, rb };
	const char *why;
	int rc = 0;

	for (int k = 0; k < 2 && rc == 0; k++) {
		struct profile prof;

		cfg->kind = k == 0 ? STEAL_ASTEAL : STEAL_ABP;
		cfg->prof = NULL;
		if (o->popts.trace) {
			if (prof_init(&prof, PROF_FILE, cfg->P, 0, &o->popts, 0, &why) < 0) {
				fprintf(stderr, "asteal-sim: profile: %s\n", why);
				return -1;
			}
			cfg->prof = &prof;
		}
		rc = multi_run(cfg, jobs, n, rng_derive(o->seed, 78 + (uint64_t)k), res[k]);
		if (cfg->prof)
			prof_free(&prof);
		cfg->prof = NULL;
	}
	if (rc < 0 && ra->util)
		multi_result_free(ra);
	return rc;
}

/* The utilization experiment (see the top of this file). */
int exp_utilization(const struct sim_opts *o)
{
	const char *slash = strchr(o->dist, '/');
	enum dist dp, ds;
	struct multi_cfg cfg = { .P = o->procs > 0 ? o->procs : 1000, .L = o->L,
				 .abp_preempted = o->abp_preempted };
	struct multi_result ra, rb;
	struct multi_arrival *jobs = NULL;
	time_t t0 = time(NULL);
	char path[4096];
	int n = 0, rc = 1;

	if (slash == NULL || dist_parse(o->dist, (size_t)(slash - o->dist), &dp) < 0 ||
	    dist_parse(slash + 1, strlen(slash + 1), &ds) < 0) {
		fprintf(stderr, "asteal-sim: --dist wants PAR/SPAN with each of U, HT1, "
			"HT2 (e.g. U/U), not '%s'\nTry 'asteal-sim --help'.\n", o->dist);
		return 2;
	}
	cfg.steps = o->steps > 0 ? o->steps : o->quick ? 100000 : 1000000;
	cfg.interval = (o->interval + o->L - 1) / o->L * o->L;
	est_params_default(&cfg.est, cfg.P);
	cfg.est.delta = o->delta;
	cfg.est.rho = o->rho;
	if (exp_outdir(o) < 0)
		return 1;
	if (make_stream(o, dp, ds, cfg.steps, &jobs, &n) < 0) {
		fprintf(stderr, "asteal-sim: out of memory\n");
		return 1;
	}
	if (run_both(o, &cfg, jobs, n, &ra, &rb) < 0) {
		free(jobs);
		return 1;
	}
	FILE *f = exp_open(o, "utilization.csv");
	double *x = malloc(sizeof(double) * (size_t)(ra.nint + 1));

	if (f == NULL || x == NULL) {
		if (f)
			fclose(f);
		goto out;
	}
	fprintf(f, "interval_start,asteal_deq_util,abp_eq_util,asteal_jobs,abp_jobs\n");
	double ua = 0, ub = 0, la = 0, lb = 0;
	int late = 0, ahead = 0, first = -1;

	for (int p = 0; p < ra.nint; p++) {
		x[p] = (double)p * (double)cfg.interval + cfg.interval / 2.0;
		fprintf(f, "%.0f,%.5f,%.5f,%.2f,%.2f\n", (double)p * (double)cfg.interval,
			ra.util[p], rb.util[p], ra.active[p], rb.active[p]);
		ua += ra.util[p];
		ub += rb.util[p];
		if (p >= ra.nint / 10) {
			la += ra.util[p];
			lb += rb.util[p];
			late++;
			ahead += ra.util[p] >= rb.util[p];
		}
		if (first < 0 && p + 5 <= ra.nint) {
			int ok = 1;

			for (int k = p; k < p + 5; k++)
				ok &= ra.util[k] >= rb.util[k];
			if (ok)
				first = p;
		}
	}
	if (exp_close(f, "utilization.csv") < 0)
		goto out;
	char title[160];

	snprintf(title, sizeof(title), "Utilization over time, P = %d, %s (paper Fig. 8)",
		 cfg.P, o->dist);
	struct svg_plot pl = { .title = title, .xlabel = "time (steps)",
			       .ylabel = "utilization", .xlog = 1, .ymin = 0, .ymax = 1 };

	svg_add(&pl, "A-STEAL + DEQ", x, ra.util, ra.nint, SVG_LINE);
	svg_add(&pl, "ABP + EQ", x, rb.util, rb.nint, SVG_LINE);
	exp_path(o, "utilization.svg", path, sizeof(path));
	if (svg_write(path, &pl) < 0) {
		fprintf(stderr, "asteal-sim: cannot write %s\n", path);
		goto out;
	}
	double ca = 0, cb = 0, oa = 0, ob = 0;
	int both = 0;

	for (int i = 0; i < n; i++) {
		if (ra.done_at[i] >= 0)
			oa += ra.done_at[i] - jobs[i].time;
		if (rb.done_at[i] >= 0)
			ob += rb.done_at[i] - jobs[i].time;
		if (ra.done_at[i] >= 0 && rb.done_at[i] >= 0) {
			ca += ra.done_at[i] - jobs[i].time;
			cb += rb.done_at[i] - jobs[i].time;
			both++;
		}
	}
	ca = both ? ca / both : NAN;
	cb = both ? cb / both : NAN;
	oa = ra.completed ? oa / ra.completed : NAN;
	ob = rb.completed ? ob / rb.completed : NAN;
	printf("utilization: %d jobs (%s) over %ld steps on P=%d (L=%ld, delta=%g, rho=%g); %ld s\n",
	       n, o->dist, cfg.steps, cfg.P, o->L, o->delta, o->rho, (long)(time(NULL) - t0));
	printf("  A-STEAL+DEQ: utilization %.3f (%.3f after the first 10%%), %d jobs done, "
	       "at most %d at once\n", ua / ra.nint, late ? la / late : NAN, ra.completed,
	       ra.max_active);
	printf("  ABP+EQ:      utilization %.3f (%.3f after the first 10%%), %d jobs done, "
	       "at most %d at once\n", ub / rb.nint, late ? lb / late : NAN, rb.completed,
	       rb.max_active);
	printf("  A-STEAL+DEQ ahead in %d of %d intervals after the first 10%%; ahead for "
	       "good (5 intervals running) from step %.0f\n", ahead, late,
	       first < 0 ? NAN : (double)first * (double)cfg.interval);
	printf("  mean completion time of the %d jobs done under both: A-STEAL+DEQ %.0f, "
	       "ABP+EQ %.0f steps\n", both, ca, cb);
	printf("  mean completion time of the jobs each finished: A-STEAL+DEQ %.0f (%d "
	       "jobs), ABP+EQ %.0f (%d jobs)\n", oa, ra.completed, ob, rb.completed);
	printf("wrote %s/utilization.csv, %s/utilization.svg\n", o->out, o->out);
	printf("jobs=%d P=%d steps=%ld asteal_util=%.4f abp_util=%.4f asteal_util_late=%.4f "
	       "abp_util_late=%.4f asteal_ahead_frac=%.4f overtake_step=%.0f "
	       "asteal_done=%d abp_done=%d asteal_mean_completion=%.0f "
	       "abp_mean_completion=%.0f asteal_mean_completion_own=%.0f "
	       "abp_mean_completion_own=%.0f\n", n, cfg.P, cfg.steps, ua / ra.nint,
	       ub / rb.nint, late ? la / late : NAN, late ? lb / late : NAN,
	       late ? (double)ahead / late : NAN,
	       first < 0 ? NAN : (double)first * (double)cfg.interval, ra.completed,
	       rb.completed, ca, cb, oa, ob);
	rc = 0;
out:
	free(x);
	free(jobs);
	multi_result_free(&ra);
	multi_result_free(&rb);
	return rc;
}
