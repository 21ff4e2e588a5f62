/*
 * exp_common.c - what the experiments share (see exp.h): option defaults,
 * output files, the job sampler, statistics and a small thread pool for
 * independent runs.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exp.h"

/* The defaults of every option. */
void exp_opts_default(struct sim_opts *o)
{
	*o = (struct sim_opts){
		.out = "sim-out", .seed = 1, .L = 200,
		.delta = EST_DEFAULT_DELTA, .rho = EST_DEFAULT_RHO,
		.threads = 1, .abp_preempted = STEAL_ABP_YIELDTO, .loop = 1,
		.profile = PROF_PRACTICAL,
		.sched = STEAL_ASTEAL, .dag = EXP_DAG_PHASES,
		.w1 = -1, .w2 = -1, .h = -1, .iters = -1,
		.w1_lo = 100, .w1_hi = 2000, .w2_lo = 200, .w2_hi = 4000,
		.fj_depth = -1, .fj_branch = -1, .fj_work = -1, .fj_spawn = -1,
		.interarrival = 1000, .dist = "U/U", .interval = 2000,
	};
	prof_opts_default(&o->popts);
}

/* Create the output folder (one level; its parent must exist). */
int exp_outdir(const struct sim_opts *o)
{
	if (mkdir(o->out, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "asteal-sim: cannot create %s: %s\n", o->out, strerror(errno));
		return -1;
	}
	return 0;
}

/* The path out/name in buf. */
void exp_path(const struct sim_opts *o, const char *name, char *buf, int len)
{
	snprintf(buf, (size_t)len, "%s/%s", o->out, name);
}

/* Open out/name for writing. */
FILE *exp_open(const struct sim_opts *o, const char *name)
{
	char path[4096];
	FILE *f;

	exp_path(o, name, path, sizeof(path));
	f = fopen(path, "w");
	if (f == NULL)
		fprintf(stderr, "asteal-sim: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

/* Close a file opened by exp_open. */
int exp_close(FILE *f, const char *name)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad) {
		fprintf(stderr, "asteal-sim: error writing %s\n", name);
		return -1;
	}
	return 0;
}

/* Sample a phases job aiming at parallelism par, with fewer iterations
 * (shorter span) when the work would pass work_cap. */
static void sample_phases(const struct sim_opts *o, struct rng_state *r,
			  double par, double work_cap, struct dag_spec *spec)
{
	long w1 = o->w1 >= 0 ? o->w1 : (long)lround(rng_logu(r, (double)o->w1_lo,
							       (double)o->w1_hi));
	long w2 = o->w2 > 0 ? o->w2 : (long)lround(rng_logu(r, (double)o->w2_lo,
							    (double)o->w2_hi));
	double span = rng_logu(r, 2000, 20000);   /* "a few thousand" and up */
	long iters = o->iters > 0 ? o->iters : (long)lround(span / (double)(w1 + w2));
	long h;

	if (o->h > 0) {
		h = o->h;
	} else if (par > 0) {
		/* parallelism ~ (w1 + h w2) / (w1 + w2) */
		double hh = (par * (double)(w1 + w2) - (double)w1) / (double)w2;

		h = hh < 1 ? 1 : hh > 8192 ? 8192 : (long)lround(hh);
	} else {
		h = (long)rng_logu(r, 1, 2048);
	}
	/* a spawn loop takes at most a quarter of the parallel phase */
	if (o->loop && o->w2 <= 0 && w2 < 4 * h)
		w2 = 4 * h;
	double per_iter = (double)w1 + (double)h * (double)(w2 + 1);

	if (o->iters <= 0 && (double)iters * per_iter > work_cap)
		iters = (long)(work_cap / per_iter);
	if (iters < 1)
		iters = 1;
	dag_spec_phases(spec, w1, w2, h, iters, o->loop);
}

/* Sample a random fork/join job. */
static void sample_forkjoin(const struct sim_opts *o, struct rng_state *r,
			    double par, struct dag_spec *spec)
{
	int depth = o->fj_depth >= 0 ? o->fj_depth :
		(int)rng_range(r, 2, par > 0 ? 4 + (long)log2(par + 1) : 14);
	int branch = o->fj_branch > 0 ? o->fj_branch : (int)rng_range(r, 2, 6);
	long work = o->fj_work > 0 ? o->fj_work : (long)rng_logu(r, 10, 300);
	double spawn = o->fj_spawn >= 0 ? o->fj_spawn : 0.6 + 0.35 * rng_unit(r);

	dag_spec_forkjoin(spec, depth, branch, work, spawn, rng_next(r));
}

/* Sample a job (see exp.h). */
int exp_sample_job(const struct sim_opts *o, struct rng_state *r, double par,
		   double work_cap, struct dag_spec *spec, struct dag_size *sz)
{
	for (int tries = 0;; tries++) {
		int fj = o->dag == EXP_DAG_FORKJOIN ||
			(o->dag == EXP_DAG_MIXED && rng_unit(r) < 0.5);

		if (fj)
			sample_forkjoin(o, r, par, spec);
		else
			sample_phases(o, r, par, work_cap, spec);
		if (dag_measure(spec, sz) < 0)
			return -1;
		if (sz->work <= work_cap || tries >= 200)
			return 0;
		if (par > 0 && tries >= 20)
			par *= 0.9;     /* give up some parallelism to fit */
	}
}

/* The profile kind of job i of an experiment that mixes kinds. */
enum prof_kind exp_profile_kind(const struct sim_opts *o, int i)
{
	if (o->popts.trace)
		return PROF_FILE;
	if (o->profile_set)
		return o->profile;
	return (enum prof_kind)(i % PROF_NBUILTIN);
}

/* The mean availability of a job's profile. */
double exp_profile_mean(const struct sim_opts *o, struct rng_state *r,
			const double *means, int n, int P)
{
	if (o->popts.trace)
		return prof_trace_mean(o->popts.trace, P);
	double m = means[rng_below(r, (uint32_t)n)];

	return m > P ? P : m;
}

/* How to run a job, from the options. */
void exp_cfg(const struct sim_opts *o, enum steal_kind kind, int P,
	     const struct dag_size *sz, struct jobsched_cfg *cfg)
{
	*cfg = (struct jobsched_cfg){ .kind = kind, .P = P, .L = o->L,
				   .abp_preempted = o->abp_preempted };
	est_params_default(&cfg->est, P);
	cfg->est.delta = o->delta;
	cfg->est.rho = o->rho;
	/* ABP needs up to about P/a quanta per stuck frame: be generous */
	cfg->max_steps = 8.0 * (sz->work + (double)P * sz->span) +
			 1000.0 * (double)o->L;
}

/* Run one job on a fresh profile (see exp.h). */
int exp_run_job(const struct sim_opts *o, const struct exp_job *j,
		enum steal_kind kind, double delta, struct jobsched_result *r)
{
	struct profile prof;
	struct jobsched_cfg cfg;
	const char *why;
	int rc;

	if (prof_init(&prof, j->pk, j->P, j->mean, &o->popts, j->prof_seed, &why) < 0) {
		fprintf(stderr, "asteal-sim: profile: %s\n", why);
		prof_free(&prof);
		return -1;
	}
	exp_cfg(o, kind, j->P, &j->sz, &cfg);
	if (delta > 0)
		cfg.est.delta = delta;
	rc = jobsched_run(&cfg, &j->spec, j->seed, &prof, r, NULL);
	prof_free(&prof);
	if (rc < 0)
		fprintf(stderr, "asteal-sim: out of memory running a job\n");
	return rc;
}

/* Mean of n values. */
double exp_mean(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return n > 0 ? s / n : NAN;
}

/* Compare doubles for qsort. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n values (sorts them). */
double exp_median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct pool {
	pthread_mutex_t lock;
	int next, n, failed;
	int (*fn)(int, void *);
	void *arg;
};

/* A pool thread: take indices until none is left. */
static void *pool_main(void *p)
{
	struct pool *pl = p;

	for (;;) {
		pthread_mutex_lock(&pl->lock);
		int i = pl->failed ? pl->n : pl->next++;

		pthread_mutex_unlock(&pl->lock);
		if (i >= pl->n)
			return NULL;
		if (pl->fn(i, pl->arg) < 0) {
			pthread_mutex_lock(&pl->lock);
			pl->failed = 1;
			pthread_mutex_unlock(&pl->lock);
		}
	}
}

/* Run fn(i, arg) for every i in [0, n) on o->threads threads. */
int exp_parallel(const struct sim_opts *o, int n, int (*fn)(int, void *),
		 void *arg)
{
	struct pool pl = { .n = n, .fn = fn, .arg = arg };
	pthread_t th[64];
	int nt = o->threads < 1 ? 1 : o->threads > 64 ? 64 : o->threads, started = 0;

	if (pthread_mutex_init(&pl.lock, NULL) != 0)
		return -1;
	for (int t = 1; t < nt; t++) {
		if (pthread_create(&th[t], NULL, pool_main, &pl) != 0)
			break;
		started++;
	}
	pool_main(&pl);
	for (int t = 1; t <= started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&pl.lock);
	if (pl.failed)
		fprintf(stderr, "asteal-sim: a run failed (out of memory)\n");
	return pl.failed ? -1 : 0;
}

/* How many of the first n of means (ascending) are at most P/2; at least 1. */
int exp_means_upto(const double *means, int n, int P)
{
	int nm = 0;

	while (nm < n && means[nm] <= P / 2.0)
		nm++;
	return nm == 0 ? 1 : nm;
}
