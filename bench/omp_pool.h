/*
 * omp_pool.h - the OpenMP versions' team: --workers threads (by default
 * OMP_NUM_THREADS when it is set, as in any OpenMP program, else all the
 * CPUs the process may run on) in every parallel region, started before the timed part, as
 * asteal_start and tbb_pool.h's arena are.  libgomp keeps the team's
 * threads between regions.
 */
#ifndef BENCH_OMP_POOL_H
#define BENCH_OMP_POOL_H

#include <omp.h>
#include <stdlib.h>

#include "common.h"

/* Size every team to c->workers (when it was 0, the default: libgomp's
 * own choice where OMP_NUM_THREADS is set, else all CPUs) and start the
 * team's threads now, unless the run is serial. */
static inline void omp_pool_start(job_common *c)
{
	const char *env = getenv("OMP_NUM_THREADS");

	if (c->workers == 0 && env != NULL && *env != '\0')
		c->workers = omp_get_max_threads();
	if (c->workers == 0)
		c->workers = omp_get_num_procs();
	omp_set_num_threads(c->workers);
	if (!c->serial) {
#pragma omp parallel
		(void)0;
	}
}

#endif
