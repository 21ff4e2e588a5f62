/*
 * jobsched.h - the profile-based job scheduler: one job, run quantum by quantum
 * on a precomputed availability profile (paper, 4.1).  Each quantum q the
 * job gets a_q = min(desire, p_q) processors (ABP: a_q = p_q), runs L steps
 * (or until it finishes), and A-STEAL computes its next desire.
 *
 * The result carries what the paper's analysis measures: the running time
 * T, work, steal and mug cycles, the mean availability P-bar over the run,
 * and the trimmed availability P-tilde: the mean availability over the
 * accounted steps, those of quanta with nonsteal usage n_q >= delta * L * p_q
 * (paper, section 3 and 4.2).
 */
#ifndef ASTEAL_SIM_JOBSCHED_H
#define ASTEAL_SIM_JOBSCHED_H

#include <stdint.h>
#include <stdio.h>

#include "dag.h"
#include "profile.h"
#include "steal.h"

struct jobsched_result {
	int finished;          /* 0 when the step limit cut the run short */
	double T;              /* steps from start to the root's return */
	double work, steal, mug;
	double yields;         /* ABP yieldto: throws that yielded to a node */
	double pbar;           /* mean availability over the run */
	double ptilde;         /* mean availability on accounted steps, or 0 */
	double accounted;      /* accounted steps */
	double mean_allot;     /* mean allotment over the run */
	long quanta;
	long classes[EST_NCLASSES];
};

/* How to run a job. */
struct jobsched_cfg {
	enum steal_kind kind;      /* thread scheduler */
	int P;                     /* machine size */
	long L;                    /* quantum length */
	struct est_params est;     /* A-STEAL's delta and rho (max = P) */
	enum steal_abp abp_preempted;  /* see steal.h */
	double max_steps;          /* give up after this many steps */
};

/* Run one job (spec, thread-scheduler seed) as cfg says, availabilities
 * from `prof`, until it finishes or cfg->max_steps pass.  `trace`, when not
 * NULL, gets one CSV line per quantum.  Returns 0, or -1 when out of
 * memory. */
int jobsched_run(const struct jobsched_cfg *cfg, const struct dag_spec *spec,
		      uint64_t seed, struct profile *prof,
		      struct jobsched_result *out, FILE *trace);

/* The header line of a trace. */
void jobsched_trace_header(FILE *trace);

#endif
