/*
 * quantum.h - the link thread that runs A-STEAL's quanta inside the job
 * (see quantum.c): made from the environment's settings as the runtime
 * starts, started and stopped with it, woken when a root task starts, and
 * read for the summary (summary.c).
 */
#ifndef ASTEAL_QUANTUM_H
#define ASTEAL_QUANTUM_H

#include <stdint.h>

#include "estimator.h"
#include "runtime.h"
#include "usage.h"

/* What the link knows for the summary: totals over the finished quanta,
 * and the state now. */
struct quantum_totals {
	uint64_t quanta, skipped, sum_allotment;
	struct usage_sum total;        /* every worker's usage in them */
	uint64_t classes[EST_NCLASSES];
	double desire;                 /* d_q, real */
	int allotment;                 /* a_q */
	uint64_t job_id;               /* the daemon's id for us, 0 if none */
};

/* Read the mode and A-STEAL's settings from the environment into a new
 * link state; sets rt->mode and the first quantum's allotment.  -1 with a
 * message when a value is bad. */
int quantum_config(struct runtime *rt);

/* Start the link thread (nothing to do in static mode). */
int quantum_start(struct runtime *rt);

/* Stop the link thread and give every worker back. */
void quantum_stop(struct runtime *rt);

/* Free the link's state (the thread has stopped). */
void quantum_free(struct runtime *rt);

/* asteal_run started a root task while none was in flight: wake the link
 * thread. */
void quantum_root_started(struct runtime *rt);

/* Copy the link's totals into *t: 0, or -1 in static mode (no link). */
int quantum_totals(struct runtime *rt, struct quantum_totals *t);


#endif
