/*
 * exp.h - what the experiments share: the command-line options, output
 * files under --out, the random job sampler, small statistics, and the
 * closing key=value line.  One exp_*.c file per experiment (paper, 4.2-4.5)
 * plus `run`, a single job for inspection.
 */
#ifndef ASTEAL_SIM_EXP_H
#define ASTEAL_SIM_EXP_H

#include <stdint.h>
#include <stdio.h>

#include "dag.h"
#include "profile.h"
#include "rng.h"
#include "jobsched.h"
#include "steal.h"

enum exp_dag { EXP_DAG_PHASES, EXP_DAG_FORKJOIN, EXP_DAG_MIXED };

struct sim_opts {
	const char *cmd;
	const char *out;          /* output folder */
	uint64_t seed;
	int quick;
	long L;                   /* quantum length, steps */
	double delta, rho;
	int procs;                /* P; 0: the experiment's default */
	double mean_avail;        /* 0: the experiment's default */
	int jobs;                 /* 0: the experiment's default */
	int threads;              /* worker threads for independent runs */
	enum steal_abp abp_preempted;  /* ABP variant (see steal.h) */
	enum prof_kind profile;
	int profile_set;
	const char *profile_file; /* read into popts.trace by main */
	struct prof_opts popts;
	enum steal_kind sched;    /* run */
	enum exp_dag dag;
	long w1, w2, h, iters;    /* phases: < 0 = sampled */
	long w1_lo, w1_hi;        /* phases: w1's sampling range */
	long w2_lo, w2_hi;        /* phases: w2's sampling range */
	int w_ranged;             /* ranges given: 1 (w1), 2 (w2) */
	int loop;                 /* phases: spawn branches in a serial loop */
	int fj_depth, fj_branch;  /* forkjoin: < 0 = sampled */
	long fj_work;
	double fj_spawn;
	const char *trace;        /* run: per-quantum CSV */
	long steps;               /* utilization: simulated steps */
	double interarrival;      /* utilization: mean steps between jobs */
	const char *dist;         /* utilization: "U/U", "HT1/HT1", ... */
	long interval;            /* utilization: steps per utilization point */
};

/* The defaults of every option. */
void exp_opts_default(struct sim_opts *o);

/* Create the output folder: 0, or -1 with a message on stderr. */
int exp_outdir(const struct sim_opts *o);

/* Open out/name for writing (message on stderr when it fails). */
FILE *exp_open(const struct sim_opts *o, const char *name);

/* The path out/name in buf. */
void exp_path(const struct sim_opts *o, const char *name, char *buf, int len);

/* Close a file opened by exp_open: 0, or -1 with a message. */
int exp_close(FILE *f, const char *name);

/* Sample a job: phases (or fork/join, per --dag) with fixed parameters
 * where the options give them; aim at parallelism `par` (<= 0: any) and
 * keep the work under work_cap.  Fills spec and its measured size; 0, or
 * -1 when out of memory. */
int exp_sample_job(const struct sim_opts *o, struct rng_state *r, double par,
		   double work_cap, struct dag_spec *spec, struct dag_size *sz);

/* The profile kind of job i of an experiment that mixes kinds: the file's
 * when there is one, else the kind --profile names, else the generated
 * kinds in turn. */
enum prof_kind exp_profile_kind(const struct sim_opts *o, int i);

/* The mean availability of job i's profile: the file's mean on P
 * processors when there is a file, else means[k] for a random k < n drawn
 * from r (capped at P). */
double exp_profile_mean(const struct sim_opts *o, struct rng_state *r,
			const double *means, int n, int P);

/* How to run job sz with thread scheduler kind on P processors, from the
 * options (quantum, delta, rho, ABP variant) and a generous step limit. */
void exp_cfg(const struct sim_opts *o, enum steal_kind kind, int P,
	     const struct dag_size *sz, struct jobsched_cfg *cfg);

/* What one job run needs: the job, the profile and the scheduler. */
struct exp_job {
	struct dag_spec spec;
	struct dag_size sz;
	enum prof_kind pk;
	int P;
	double mean;             /* profile's mean availability */
	uint64_t prof_seed, seed;
};

/* Run job j with thread scheduler kind (delta > 0 overrides --delta) on a
 * fresh profile: 0, or -1 with a message on stderr. */
int exp_run_job(const struct sim_opts *o, const struct exp_job *j,
		enum steal_kind kind, double delta, struct jobsched_result *r);

/* Mean and median of n values (sorted in place). */
/* How many of the first n of means (ascending) are at most P/2; at least 1. */
int exp_means_upto(const double *means, int n, int P);

double exp_mean(const double *v, int n);
double exp_median(double *v, int n);

/* Run fn(i, arg) for i in [0, n) on o->threads threads (results must go
 * to per-i slots, so the outcome does not depend on the thread count). */
int exp_parallel(const struct sim_opts *o, int n, int (*fn)(int, void *),
		 void *arg);

/* The experiments; each returns the process exit status. */
int exp_run(const struct sim_opts *o);

/* Fix the shape of `run`'s job where the other experiments sample it
 * (phases: w1 200, w2 800, h 64, 5 iterations; forkjoin: depth 10,
 * branch 4, work 100, spawn 0.8), before the options, which set their
 * own values or ranges over these. */
void exp_run_defaults(struct sim_opts *o);
int exp_time(const struct sim_opts *o);
int exp_waste(const struct sim_opts *o);
int exp_time_waste(const struct sim_opts *o);
int exp_utilization(const struct sim_opts *o);

#endif
