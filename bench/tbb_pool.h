/*
 * tbb_pool.h - the oneTBB versions' thread pool: --workers threads (all
 * cores by default) in one arena, started before the timed part, as
 * asteal_start and the OpenMP team are.
 */
#ifndef BENCH_TBB_POOL_H
#define BENCH_TBB_POOL_H

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "common.h"

/* c->workers, set to all cores when it was 0 (the default). */
static inline int tbb_pool_workers(job_common *c)
{
	if (c->workers == 0)
		c->workers = tbb::info::default_concurrency();
	return c->workers;
}

/* At most c->workers threads, in one arena whose threads are started now
 * (unless the run is serial). */
struct tbb_pool {
	tbb::global_control limit;
	tbb::task_arena arena;
	bool serial;

	/* Limit TBB to the workers of c and start the arena's threads. */
	explicit tbb_pool(job_common *c)
	    : limit(tbb::global_control::max_allowed_parallelism,
	            (size_t)tbb_pool_workers(c)),
	      arena(c->workers), serial(c->serial != 0)
	{
		if (!serial)
			arena.execute([] { tbb::parallel_for(0, 1024, [](int) {}); });
	}

	/* f() in the arena, or on the calling thread when the run is serial. */
	template <class F> auto run(F f) -> decltype(f())
	{
		return serial ? f() : arena.execute(f);
	}
};

#endif
