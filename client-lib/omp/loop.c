/*
 * loop.c - worksharing loops: every schedule (static with and without a
 * chunk, dynamic, guided, runtime, auto; the monotonic, nonmonotonic and
 * maybe-nonmonotonic entry points), long and unsigned long long loops,
 * ordered, and gcc 9's GOMP_loop_start forms.  The loop module's other
 * files, parloop.c (the combined parallel loops) and doacross.c (doacross
 * loops), set up and hand out their loops with this file's calls
 * (loop_int.h).
 *
 * A loop is kept in its work share (work.c) as n iterations numbered from
 * 0, iteration i being start + i * incr (mod 2^64: the same arithmetic
 * serves long and unsigned long long bounds, up or down).  A thread asks
 * for its next chunk of indices [lo, hi) and gets back the bounds of the
 * first and one past the last iteration, as gcc's loop code expects:
 *  - static without a chunk: one contiguous block per thread, the first
 *    n mod nthreads threads one iteration larger (libgomp's split);
 *  - static with a chunk: chunks dealt round-robin by thread number;
 *  - dynamic: the next chunk, by one atomic add (a scheduling point: the
 *    safe point is passed at every hand-out, so a thread whose processor
 *    was taken away gives it back there);
 *  - guided: the remaining iterations over the team size, at least the
 *    chunk, by compare-and-swap.
 * Nonmonotonic schedules are run monotonic, which they allow.
 *
 * ordered: chunks pass a token on in index order; a thread may run the
 * ordered parts of its chunk [lo, hi) once the token reaches lo, and
 * passes it on (to hi) when it asks for its next chunk or has none left.
 */
#include "loop_int.h"

#include <limits.h>
#include <stdlib.h>

#include "gomp.h"

/* The number of iterations of a long loop. */
ULL omp_loop__count_long(long start, long end, long incr)
{
	if (incr > 0)
		return start < end ? ((ULL)end - (ULL)start - 1) / (ULL)incr + 1 : 0;
	if (incr < 0)
		return start > end ? ((ULL)start - (ULL)end - 1) / (0 - (ULL)incr) + 1 : 0;
	return 0;
}

/* The number of iterations of an unsigned long long loop. */
static ULL count_ull(bool up, ULL start, ULL end, ULL incr)
{
	if (up)
		return start < end && incr != 0 ? (end - start - 1) / incr + 1 : 0;
	return start > end && incr != 0 ? (start - end - 1) / (0 - incr) + 1 : 0;
}

/* Resolve a schedule: runtime takes the ICV, auto is static, a chunk below
 * 1 is the kind's default; the kind is returned, the chunk in *chunk. */
int omp_loop__resolve(unsigned sched, ULL *chunk, long given)
{
	unsigned k = sched & ~OMP_SCHED_MONOTONIC;

	if (k == OMP_SCHED_RUNTIME) {
		const struct omp_icv *icv = omp_icv();
		k = icv->sched & ~OMP_SCHED_MONOTONIC;
		given = icv->chunk;
	}
	if (k == OMP_SCHED_AUTO || k > OMP_SCHED_AUTO) {
		k = OMP_SCHED_STATIC;
		given = 0;
	}
	if (k == OMP_SCHED_STATIC)
		*chunk = given > 0 ? (ULL)given : 0;
	else
		*chunk = given > 0 ? (ULL)given : 1;
	return (int)k;
}

/* Set up ws for a loop. */
void omp_loop__init(struct omp_ws *ws, ULL start, ULL incr, ULL n, int sched,
                    ULL chunk)
{
	ws->start = start;
	ws->incr = incr;
	ws->n = n;
	ws->sched = sched;
	ws->chunk = chunk;
	atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
	atomic_store_explicit(&ws->ordered_next, 0, memory_order_relaxed);
	ws->doacross = NULL;
	ws->dims = NULL;
	ws->reductions = NULL;
}

/* The next chunk [lo, hi) of t's loop; false when none is left. */
bool omp_loop__next_chunk(struct omp_thr *t, ULL *lo, ULL *hi)
{
	struct omp_ws *ws = t->ws;
	ULL n = ws->n, c = ws->chunk, cur, q;
	unsigned nthr = t->team != NULL ? t->team->n : 1;
	unsigned i = t->team != NULL ? t->num : 0;

	switch (ws->sched) {
	case OMP_SCHED_STATIC:
		if (c == 0) {
			ULL r;
			if (t->static_trip++ != 0)
				return false;
			q = n / nthr;
			r = n % nthr;
			if (i < r) {
				q++;
				r = 0;
			}
			*lo = q * i + r;
			*hi = *lo + q;
			return q > 0;
		}
		cur = t->static_trip * nthr + i;
		if (cur >= (n + c - 1) / c || (n + c - 1) < n)
			return false;
		t->static_trip++;
		*lo = cur * c;
		*hi = n - *lo > c ? *lo + c : n;
		return true;
	case OMP_SCHED_DYNAMIC:
		omp_safepoint(t);
		if (atomic_load_explicit(&ws->next, memory_order_relaxed) >= n)
			return false;
		cur = atomic_fetch_add_explicit(&ws->next, c, memory_order_relaxed);
		if (cur >= n)
			return false;
		*lo = cur;
		*hi = n - cur > c ? cur + c : n;
		return true;
	default:                /* guided */
		omp_safepoint(t);
		cur = atomic_load_explicit(&ws->next, memory_order_relaxed);
		for (;;) {
			ULL left;
			if (cur >= n)
				return false;
			left = n - cur;
			q = (left + nthr - 1) / nthr;
			if (q < c)
				q = c;
			if (q > left)
				q = left;
			if (atomic_compare_exchange_weak_explicit(&ws->next, &cur, cur + q,
			        memory_order_relaxed, memory_order_relaxed))
				break;
		}
		*lo = cur;
		*hi = cur + q;
		return true;
	}
}

/* Whether the ordered token reached t's chunk. */
static bool token_here(void *p)
{
	struct omp_thr *t = p;

	return atomic_load_explicit(&t->ws->ordered_next, memory_order_acquire) ==
	       t->ord_lo;
}

/* Pass the ordered token on past t's chunk, once it has it. */
static void token_pass(struct omp_thr *t)
{
	if (!t->ord_own)
		return;
	t->ord_own = 0;
	if (t->team == NULL)
		return;
	if (!token_here(t))
		omp_wait(t, token_here, t, OMP_WAIT_NONE);
	atomic_store_explicit(&t->ws->ordered_next, t->ord_hi, memory_order_release);
	omp_wake(t->team, 1);
}

/* The next chunk, as the bounds of its first and one past its last
 * iteration (ordered: passing the token on first); false when none. */
static bool next_bounds(struct omp_thr *t, bool ordered, ULL *istart, ULL *iend)
{
	ULL lo, hi;
	struct omp_ws *ws = t->ws;

	if (ordered)
		token_pass(t);
	if (!omp_loop__next_chunk(t, &lo, &hi))
		return false;
	if (ordered) {
		t->ord_lo = lo;
		t->ord_hi = hi;
		t->ord_own = 1;
	}
	*istart = ws->start + lo * ws->incr;
	*iend = ws->start + hi * ws->incr;
	return true;
}

/* next_bounds for a long loop. */
static bool next_long(struct omp_thr *t, bool ordered, long *istart, long *iend)
{
	ULL s, e;

	if (!next_bounds(t, ordered, &s, &e))
		return false;
	*istart = (long)s;
	*iend = (long)e;
	return true;
}

/* Shared zeroed memory of a loop (GOMP_loop_start's mem). */
static void loop_mem(struct omp_ws *ws, bool first, void **mem)
{
	if (mem == NULL)
		return;
	if (first) {
		ws->memsize = (uintptr_t)*mem;
		ws->mem = calloc(1, ws->memsize ? ws->memsize : 1);
		if (ws->mem == NULL)
			omp_fatal("out of memory for a loop's shared data");
	}
	*mem = ws->mem;
}

/* Set up a doacross loop's rows (first thread) from its dimensions. */
static void doacross_init(struct omp_ws *ws, unsigned ndims, const ULL *dims)
{
	unsigned d;

	ws->ndims = ndims;
	ws->dims = malloc(ndims * sizeof(*ws->dims));
	ws->doacross = calloc(dims[0] > 0 ? dims[0] : 1, sizeof(*ws->doacross));
	if (ws->dims == NULL || ws->doacross == NULL)
		omp_fatal("out of memory for a doacross loop");
	ws->inner = 1;
	for (d = 0; d < ndims; d++) {
		ws->dims[d] = dims[d];
		if (d > 0)
			ws->inner *= dims[d];
	}
	ws->mem = ws->doacross;         /* freed with the share */
}

/* Enter a loop of n iterations (iteration i: start + i * incr): set its
 * share up if first, with its shared memory, task reductions and (dims
 * not NULL) the rows of a doacross loop over ndims dimensions. */
struct omp_thr *omp_loop__start(ULL start, ULL incr, ULL n, unsigned sched,
                                long chunk, uintptr_t *reductions, void **mem,
                                unsigned ndims, const ULL *dims)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_ws *ws;
	bool first;
	ULL c;
	int k = omp_loop__resolve(sched, &c, chunk);

	ws = omp_ws_enter(t, &first);
	t->static_trip = 0;
	t->ord_own = 0;
	if (first) {
		omp_loop__init(ws, start, incr, n, k, c);
		if (dims != NULL)
			doacross_init(ws, ndims, dims);
	}
	loop_mem(ws, first, mem);
	if (reductions != NULL)
		omp_reduction_workshare(t, ws, reductions, first);
	if (first && t->team != NULL)
		omp_ws_ready(ws);
	return t;
}

/* Start a long loop and take its first chunk (none asked: istart NULL). */
static bool start_long(long start, long end, long incr, unsigned sched,
                       long chunk, bool ordered, long *istart, long *iend,
                       uintptr_t *reductions, void **mem)
{
	struct omp_thr *t = omp_loop__start((ULL)start, (ULL)incr,
	                                    omp_loop__count_long(start, end, incr),
	                                    sched, chunk, reductions, mem, 0, NULL);

	return istart == NULL || next_long(t, ordered, istart, iend);
}

/* Start an unsigned long long loop and take its first chunk. */
static bool start_ull(bool up, ULL start, ULL end, ULL incr, unsigned sched,
                      long chunk, bool ordered, ULL *istart, ULL *iend,
                      uintptr_t *reductions, void **mem)
{
	struct omp_thr *t = omp_loop__start(start, incr,
	                                    count_ull(up, start, end, incr),
	                                    sched, chunk, reductions, mem, 0, NULL);

	return istart == NULL || next_bounds(t, ordered, istart, iend);
}

/* The next chunk of the caller's long loop. */
static bool loop_next(bool ordered, long *istart, long *iend)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->ws != NULL && next_long(t, ordered, istart, iend);
}

/* The next chunk of the caller's unsigned long long loop. */
static bool loop_ull_next(bool ordered, ULL *istart, ULL *iend)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->ws != NULL && next_bounds(t, ordered, istart, iend);
}

/* The long entry points: one per schedule, plain and ordered. */
#define LOOP_START(name, sched, ordered)                                       \
OMP_API bool GOMP_loop_##name##_start(long start, long end, long incr,         \
                                      long chunk, long *istart, long *iend)    \
{                                                                              \
	return start_long(start, end, incr, sched, chunk, ordered, istart,      \
	                  iend, NULL, NULL);                                    \
}
#define LOOP_NEXT(name, ordered)                                               \
OMP_API bool GOMP_loop_##name##_next(long *istart, long *iend)                 \
{                                                                              \
	return loop_next(ordered, istart, iend);                                \
}
LOOP_START(static, OMP_SCHED_STATIC, false)
LOOP_START(dynamic, OMP_SCHED_DYNAMIC, false)
LOOP_START(guided, OMP_SCHED_GUIDED, false)
LOOP_START(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC, false)
LOOP_START(nonmonotonic_guided, OMP_SCHED_GUIDED, false)
LOOP_START(ordered_static, OMP_SCHED_STATIC, true)
LOOP_START(ordered_dynamic, OMP_SCHED_DYNAMIC, true)
LOOP_START(ordered_guided, OMP_SCHED_GUIDED, true)
/* The next chunk of a dynamic loop: one atomic add (the common case of
 * schedule(dynamic), kept short); any other share takes the general path. */
static inline bool dynamic_next(long *istart, long *iend)
{
	struct omp_thr *t = omp_self;
	struct omp_ws *ws;
	ULL lo, c;

	if (t == NULL || (ws = t->ws) == NULL || ws->sched != OMP_SCHED_DYNAMIC)
		return loop_next(false, istart, iend);
	omp_safepoint(t);
	c = ws->chunk;
	lo = atomic_fetch_add_explicit(&ws->next, c, memory_order_relaxed);
	if (lo >= ws->n)
		return false;
	*istart = (long)(ws->start + lo * ws->incr);
	*iend = (long)(ws->start + (ws->n - lo > c ? lo + c : ws->n) * ws->incr);
	return true;
}

/* schedule(dynamic) and schedule(nonmonotonic: dynamic): the next chunk. */
OMP_API bool GOMP_loop_dynamic_next(long *istart, long *iend)
{
	return dynamic_next(istart, iend);
}

/* The same, for gcc's nonmonotonic entry point. */
OMP_API bool GOMP_loop_nonmonotonic_dynamic_next(long *istart, long *iend)
{
	return dynamic_next(istart, iend);
}

LOOP_NEXT(static, false)
LOOP_NEXT(guided, false)
LOOP_NEXT(runtime, false)
LOOP_NEXT(nonmonotonic_guided, false)
LOOP_NEXT(nonmonotonic_runtime, false)
LOOP_NEXT(maybe_nonmonotonic_runtime, false)
LOOP_NEXT(ordered_static, true)
LOOP_NEXT(ordered_dynamic, true)
LOOP_NEXT(ordered_guided, true)
LOOP_NEXT(ordered_runtime, true)

/* schedule(runtime), plain and ordered. */
#define LOOP_RUNTIME(name, ordered)                                            \
OMP_API bool GOMP_loop_##name##_start(long start, long end, long incr,         \
                                      long *istart, long *iend)                \
{                                                                              \
	return start_long(start, end, incr, OMP_SCHED_RUNTIME, 0, ordered,      \
	                  istart, iend, NULL, NULL);                            \
}
LOOP_RUNTIME(runtime, false)
LOOP_RUNTIME(nonmonotonic_runtime, false)
LOOP_RUNTIME(maybe_nonmonotonic_runtime, false)
LOOP_RUNTIME(ordered_runtime, true)

/* gcc 9's form: any schedule, task reductions and shared memory. */
OMP_API bool GOMP_loop_start(long start, long end, long incr, long sched,
                             long chunk, long *istart, long *iend,
                             uintptr_t *reductions, void **mem)
{
	return start_long(start, end, incr, (unsigned)sched, chunk, false, istart,
	                  iend, reductions, mem);
}

/* gcc 9's ordered form. */
OMP_API bool GOMP_loop_ordered_start(long start, long end, long incr, long sched,
                                     long chunk, long *istart, long *iend,
                                     uintptr_t *reductions, void **mem)
{
	return start_long(start, end, incr, (unsigned)sched, chunk, true, istart,
	                  iend, reductions, mem);
}

/* The unsigned long long entry points. */
#define ULL_START(name, sched, ordered)                                        \
OMP_API bool GOMP_loop_ull_##name##_start(bool up, ULL start, ULL end,         \
                                          ULL incr, ULL chunk, ULL *istart,    \
                                          ULL *iend)                           \
{                                                                              \
	return start_ull(up, start, end, incr, sched,                           \
	                 chunk > (ULL)LONG_MAX ? LONG_MAX : (long)chunk, ordered,\
	                 istart, iend, NULL, NULL);                             \
}
#define ULL_NEXT(name, ordered)                                                \
OMP_API bool GOMP_loop_ull_##name##_next(ULL *istart, ULL *iend)               \
{                                                                              \
	return loop_ull_next(ordered, istart, iend);                            \
}
#define ULL_RUNTIME(name, ordered)                                             \
OMP_API bool GOMP_loop_ull_##name##_start(bool up, ULL start, ULL end,         \
                                          ULL incr, ULL *istart, ULL *iend)    \
{                                                                              \
	return start_ull(up, start, end, incr, OMP_SCHED_RUNTIME, 0, ordered,   \
	                 istart, iend, NULL, NULL);                             \
}
ULL_START(static, OMP_SCHED_STATIC, false)
ULL_START(dynamic, OMP_SCHED_DYNAMIC, false)
ULL_START(guided, OMP_SCHED_GUIDED, false)
ULL_START(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC, false)
ULL_START(nonmonotonic_guided, OMP_SCHED_GUIDED, false)
ULL_START(ordered_static, OMP_SCHED_STATIC, true)
ULL_START(ordered_dynamic, OMP_SCHED_DYNAMIC, true)
ULL_START(ordered_guided, OMP_SCHED_GUIDED, true)
ULL_RUNTIME(runtime, false)
ULL_RUNTIME(nonmonotonic_runtime, false)
ULL_RUNTIME(maybe_nonmonotonic_runtime, false)
ULL_RUNTIME(ordered_runtime, true)
ULL_NEXT(static, false)
ULL_NEXT(dynamic, false)
ULL_NEXT(guided, false)
ULL_NEXT(runtime, false)
ULL_NEXT(nonmonotonic_dynamic, false)
ULL_NEXT(nonmonotonic_guided, false)
ULL_NEXT(nonmonotonic_runtime, false)
ULL_NEXT(maybe_nonmonotonic_runtime, false)
ULL_NEXT(ordered_static, true)
ULL_NEXT(ordered_dynamic, true)
ULL_NEXT(ordered_guided, true)
ULL_NEXT(ordered_runtime, true)

/* gcc 9's unsigned long long form. */
OMP_API bool GOMP_loop_ull_start(bool up, ULL start, ULL end, ULL incr,
                                 long sched, ULL chunk, ULL *istart, ULL *iend,
                                 uintptr_t *reductions, void **mem)
{
	return start_ull(up, start, end, incr, (unsigned)sched,
	                 chunk > (ULL)LONG_MAX ? LONG_MAX : (long)chunk, false,
	                 istart, iend, reductions, mem);
}

/* gcc 9's unsigned long long ordered form. */
OMP_API bool GOMP_loop_ull_ordered_start(bool up, ULL start, ULL end, ULL incr,
                                         long sched, ULL chunk, ULL *istart,
                                         ULL *iend, uintptr_t *reductions,
                                         void **mem)
{
	return start_ull(up, start, end, incr, (unsigned)sched,
	                 chunk > (ULL)LONG_MAX ? LONG_MAX : (long)chunk, true,
	                 istart, iend, reductions, mem);
}

/* The caller's part of its loop is over: the ordered token passed on, the
 * share left; its thread, NULL when none. */
static struct omp_thr *loop_leave(void)
{
	struct omp_thr *t = omp_self;

	if (t != NULL) {
		token_pass(t);
		omp_ws_leave(t);
	}
	return t;
}

/* The end of a loop, with its barrier. */
OMP_API void GOMP_loop_end(void)
{
	struct omp_thr *t = loop_leave();

	if (t != NULL && t->team != NULL)
		omp_barrier(t, false);
}

/* The end of a loop, cancellable: true when the region was cancelled. */
OMP_API bool GOMP_loop_end_cancel(void)
{
	struct omp_thr *t = loop_leave();

	return t != NULL && t->team != NULL && omp_barrier(t, true);
}

/* The end of a loop nowait. */
OMP_API void GOMP_loop_end_nowait(void)
{
	loop_leave();
}

/* #pragma omp ordered: wait for the token to reach this chunk. */
OMP_API void GOMP_ordered_start(void)
{
	struct omp_thr *t = omp_self;

	if (t == NULL || t->team == NULL || t->ws == NULL || !t->ord_own)
		return;
	if (!token_here(t))
		omp_wait(t, token_here, t, OMP_WAIT_NONE);
}

/* The end of an ordered part: the token moves on with the chunk. */
OMP_API void GOMP_ordered_end(void)
{
}
