/*
 * omp_pool.h - the OpenMP versions' team: --workers threads (all CPUs by
 * default) in every parallel region, started before the timed part, as
 * asteal_start and tbb_pool.h's arena are.  libgomp keeps the team's
 * threads between regions.
 */
#ifndef BENCH_OMP_POOL_H
#define BENCH_OMP_POOL_H

#include <omp.h>

#include "common.h"

/* Size every team to c->workers (all CPUs when it was 0, the default) and
 * start the team's threads now, unless the run is serial. */
static inline void omp_pool_start(job_common *c)
{
	if (c->workers == 0)
		c->workers = omp_get_num_procs();
	omp_set_num_threads(c->workers);
	if (!c->serial) {
#pragma omp parallel
		(void)0;
	}
}

#endif
