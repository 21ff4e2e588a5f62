/*
 * parloop.c - the combined parallel loops (#pragma omp parallel for, gcc's
 * GOMP_parallel_loop_*): the loop's share is set up before the team
 * starts (omp_region's preset), so that every thread finds it ready as the
 * team's first worksharing construct, then each thread's part asks for
 * chunks as any loop's does (loop.c); a file of the loop module
 * (loop_int.h).
 */
#include "loop_int.h"

#include "gomp.h"

/* A combined loop, resolved before its team starts. */
struct preset_loop {
	ULL start, incr, n, chunk;
	int sched;
};

/* Set a combined loop's share up before its team starts. */
static void loop_preset(struct omp_ws *ws, void *arg, unsigned n)
{
	struct preset_loop *p = arg;

	(void)n;
	omp_loop__init(ws, p->start, p->incr, p->n, p->sched, p->chunk);
}

/* Begin a combined parallel loop's team. */
static void parallel_loop(void (*fn)(void *), void *data, unsigned nthreads,
                          long start, long end, long incr, unsigned sched,
                          long chunk, unsigned flags)
{
	struct preset_loop p;
	struct omp_region r = { fn, data, nthreads, flags, 0, NULL, loop_preset, &p };

	omp_thr_get();
	p.sched = omp_loop__resolve(sched, &p.chunk, chunk);
	p.start = (ULL)start;
	p.incr = (ULL)incr;
	p.n = omp_loop__count_long(start, end, incr);
	omp_team_begin(&r);
}

/* A combined loop of a schedule, in one call. */
#define PARALLEL_LOOP(name, sched)                                             \
OMP_API void GOMP_parallel_loop_##name(void (*fn)(void *), void *data,         \
                                       unsigned nthreads, long start, long end,\
                                       long incr, long chunk, unsigned flags)  \
{                                                                              \
	parallel_loop(fn, data, nthreads, start, end, incr, sched, chunk, flags);\
	fn(data);                                                               \
	omp_team_end();                                                         \
}
/* The older split form: the caller runs fn, then GOMP_parallel_end. */
#define PARALLEL_LOOP_START(name, sched)                                       \
OMP_API void GOMP_parallel_loop_##name##_start(void (*fn)(void *), void *data, \
                                               unsigned nthreads, long start,  \
                                               long end, long incr, long chunk)\
{                                                                              \
	parallel_loop(fn, data, nthreads, start, end, incr, sched, chunk, 0);   \
}
PARALLEL_LOOP(static, OMP_SCHED_STATIC)
PARALLEL_LOOP(dynamic, OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(guided, OMP_SCHED_GUIDED)
PARALLEL_LOOP(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(nonmonotonic_guided, OMP_SCHED_GUIDED)
PARALLEL_LOOP_START(static, OMP_SCHED_STATIC)
PARALLEL_LOOP_START(dynamic, OMP_SCHED_DYNAMIC)
PARALLEL_LOOP_START(guided, OMP_SCHED_GUIDED)

/* schedule(runtime) combined, in one call. */
#define PARALLEL_RUNTIME(name)                                                 \
OMP_API void GOMP_parallel_loop_##name(void (*fn)(void *), void *data,         \
                                       unsigned nthreads, long start, long end,\
                                       long incr, unsigned flags)              \
{                                                                              \
	parallel_loop(fn, data, nthreads, start, end, incr, OMP_SCHED_RUNTIME,  \
	              0, flags);                                                \
	fn(data);                                                               \
	omp_team_end();                                                         \
}
PARALLEL_RUNTIME(runtime)
PARALLEL_RUNTIME(nonmonotonic_runtime)
PARALLEL_RUNTIME(maybe_nonmonotonic_runtime)

/* schedule(runtime) combined, split form. */
OMP_API void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data,
                                              unsigned nthreads, long start,
                                              long end, long incr)
{
	parallel_loop(fn, data, nthreads, start, end, incr, OMP_SCHED_RUNTIME, 0, 0);
}
