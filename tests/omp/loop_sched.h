/*
 * loop_sched.h - what the worksharing-loop programs share: a loop's
 * iteration space, a record of which thread ran each iteration and in what
 * order, and the checks on it (each iteration exactly once; the static
 * mappings OpenMP prescribes; increasing order on each thread for
 * monotonic schedules).
 */
#ifndef OMP_LOOP_SCHED_H
#define OMP_LOOP_SCHED_H

#include <limits.h>

#include "check.h"

#define DO_PRAGMA(x) _Pragma(#x)
#define MAXN 2000
#define MAXT 64

/* One loop: `for (i = lo; i < hi; i += step)` and what its run recorded. */
struct run {
	const char *name;
	long lo, hi, step;
	int count[MAXN];        /* times each iteration ran */
	int owner[MAXN];        /* the thread that ran it */
	int disorder[MAXT];     /* a thread saw an iteration below a previous one */
	int nthreads;
};

/* The number of iterations of r. */
static inline long run_iterations(const struct run *r)
{
	return r->hi > r->lo ? (r->hi - r->lo + r->step - 1) / r->step : 0;
}

/* Set r up for a new loop (outside the region, or by one thread). */
static inline void run_reset(struct run *r, const char *name, long lo, long hi, long step)
{
	memset(r, 0, sizeof *r);
	r->name = name;
	r->lo = lo;
	r->hi = hi;
	r->step = step;
	CHECK(run_iterations(r) <= MAXN, "%s: too many iterations", name);
}

/* Record that the calling thread ran iteration i; *last is its previous one. */
static inline void run_visit(struct run *r, long i, long *last)
{
	long k = (i - r->lo) / r->step;
	int me = omp_get_thread_num();

	CHECK(k >= 0 && k < run_iterations(r) && (i - r->lo) % r->step == 0, "%s: iteration %ld "
	      "is not in the loop [%ld, %ld) step %ld", r->name, i, r->lo, r->hi, r->step);
	ATOMIC_ADD(&r->count[k], 1);
	r->owner[k] = me;
	if (*last != LONG_MIN && i <= *last && me < MAXT)
		r->disorder[me] = 1;
	*last = i;
}

/* Record the team's size (any thread of the team may call it). */
static inline void run_team(struct run *r)
{
	ATOMIC_STORE(&r->nthreads, omp_get_num_threads());
}

/* After the loop: every iteration ran exactly once. */
static inline void run_check_once(const struct run *r)
{
	for (long k = 0; k < run_iterations(r); k++)
		CHECK(r->count[k] == 1, "%s: iteration %ld of %ld ran %d times", r->name, k,
		      run_iterations(r), r->count[k]);
}

/* After a monotonic loop: each thread ran its iterations in increasing order. */
static inline void run_check_monotonic(const struct run *r)
{
	for (int t = 0; t < MAXT; t++)
		CHECK(!r->disorder[t], "%s: thread %d ran its iterations out of order under a "
		      "monotonic schedule", r->name, t);
}

/* After a static loop with chunk c: chunks went round-robin by thread number. */
static inline void run_check_static_chunk(const struct run *r, long c)
{
	int n = r->nthreads;

	for (long k = 0; k < run_iterations(r); k++)
		CHECK(r->owner[k] == (k / c) % n, "%s: iteration %ld ran on thread %d, static "
		      "chunk %ld of a team of %d gives it to thread %ld", r->name, k, r->owner[k],
		      c, n, (k / c) % n);
}

/* After a static loop without chunk: one contiguous block per thread at most. */
static inline void run_check_static_blocks(const struct run *r)
{
	int seen[MAXT] = { 0 };
	long n = run_iterations(r);

	for (long k = 0; k < n; k++) {
		int t = r->owner[k];
		if (k > 0 && r->owner[k - 1] == t)
			continue;
		CHECK(t >= 0 && t < MAXT && !seen[t], "%s: thread %d got more than one block of a "
		      "static schedule without chunk (iteration %ld)", r->name, t, k);
		seen[t] = 1;
	}
}

#endif
