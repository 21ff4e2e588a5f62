/*
 * multi.h - the multi-job schedulers of the utilization experiment (paper
 * 4.5): jobs arrive over time on a machine of P processors; every quantum
 * the job scheduler divides the processors among the jobs present with
 * asteald's own core and DEQ allocator (daemon/core/core.h, policy/deq.h:
 * the same code asteald runs):
 *
 *   DEQ  (with A-STEAL)  each job asks for its A-STEAL desire; DEQ gives
 *                        equal shares but no job more than it asked for.
 *   EQ   (with ABP)      each job asks for all P processors, so DEQ's
 *                        answer is plain equipartitioning.
 *
 * With a profile, quantum q's allocator shares only the first p_q slots
 * (the profile's availability: the rest of the machine is busy elsewhere),
 * and utilization counts work over the processors the profile offered.
 * Processors are slots 0..P-1 and keep their identity: under DEQ a job's
 * processor whose slot stays keeps its deque.  Each job then runs L steps
 * on its slots (see steal.h).  A job that arrives during a quantum starts
 * at the next one; a job that finishes during a quantum releases its
 * processors at the next one (the paper's model: reallocation only between
 * quanta).
 */
#ifndef ASTEAL_SIM_MULTI_H
#define ASTEAL_SIM_MULTI_H

#include <stdint.h>

#include "dag.h"
#include "estimator.h"
#include "profile.h"
#include "steal.h"

struct multi_cfg {
	enum steal_kind kind;      /* A-STEAL (with DEQ) or ABP (with EQ) */
	int P;                     /* processors, 1..1024 */
	long L;                    /* quantum length */
	struct est_params est;     /* A-STEAL's delta and rho */
	enum steal_abp abp_preempted;  /* see steal.h */
	long steps;                /* simulated steps */
	long interval;             /* steps per utilization point (k * L) */
	struct profile *prof;      /* processors offered per quantum, or
				      NULL: all P */
};

/* A job of the stream. */
struct multi_arrival {
	double time;               /* arrival step */
	struct dag_spec spec;
};

struct multi_result {
	int nint;                  /* utilization points */
	double *util;              /* work cycles / offered cycles, per point */
	double *active;            /* mean jobs present, per point */
	double *done_at;           /* per job: completion step, or -1 */
	double work, steal, mug;   /* cycles over the whole run */
	int completed, started;
	int max_active;
};

/* Simulate the stream (n jobs, sorted by arrival) as cfg says.  Returns 0,
 * or -1 with a message on stderr (out of memory, allocator failure). */
int multi_run(const struct multi_cfg *cfg, const struct multi_arrival *jobs,
	      int n, uint64_t seed, struct multi_result *out);

/* Free a result's arrays. */
void multi_result_free(struct multi_result *r);

#endif
