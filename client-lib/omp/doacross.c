/*
 * doacross.c - doacross loops: ordered(n) with depend(sink: ...) and
 * depend(source), in long and unsigned long long, every schedule, and
 * gcc 9's forms; a file of the loop module (loop_int.h), whose share
 * holds the rows (set up with it in loop.c).
 *
 * The outermost dimension is the one scheduled; each of its
 * iterations keeps the flattened inner iteration posted last (a thread
 * runs one outer iteration's inner ones in order), and a wait for a sink
 * waits until its row has posted that far.
 */
#include "loop_int.h"

#include <limits.h>
#include <stdarg.h>

#include "gomp.h"

/* Start a doacross loop over dims[0] with the given schedule. */
static bool doacross_start(unsigned ndims, const ULL *dims, unsigned sched,
                           long chunk, ULL *lo, ULL *hi, uintptr_t *reductions,
                           void **mem)
{
	struct omp_thr *t = omp_loop__start(0, 1, dims[0], sched, chunk,
	                                    reductions, mem, ndims, dims);

	return lo == NULL || omp_loop__next_chunk(t, lo, hi);
}

/* A long doacross start with istart/iend as longs. */
static bool doacross_long(unsigned ndims, long *counts, unsigned sched,
                          long chunk, long *istart, long *iend,
                          uintptr_t *reductions, void **mem)
{
	ULL dims[ndims], lo, hi;
	unsigned d;
	bool r;

	for (d = 0; d < ndims; d++)
		dims[d] = counts[d] > 0 ? (ULL)counts[d] : 0;
	r = doacross_start(ndims, dims, sched, chunk, istart ? &lo : NULL, &hi,
	                   reductions, mem);
	if (r && istart != NULL) {
		*istart = (long)lo;
		*iend = (long)hi;
	}
	return r;
}

/* The doacross starts of a schedule, long and unsigned long long. */
#define DOACROSS(name, sched)                                                  \
OMP_API bool GOMP_loop_doacross_##name##_start(unsigned ncounts, long *counts, \
                                               long chunk, long *istart,       \
                                               long *iend)                     \
{                                                                              \
	return doacross_long(ncounts, counts, sched, chunk, istart, iend,       \
	                     NULL, NULL);                                       \
}                                                                              \
OMP_API bool GOMP_loop_ull_doacross_##name##_start(unsigned ncounts,           \
                                                   ULL *counts, ULL chunk,     \
                                                   ULL *istart, ULL *iend)     \
{                                                                              \
	return doacross_start(ncounts, counts, sched,                           \
	                      chunk > (ULL)LONG_MAX ? LONG_MAX : (long)chunk,   \
	                      istart, iend, NULL, NULL);                        \
}
DOACROSS(static, OMP_SCHED_STATIC)
DOACROSS(dynamic, OMP_SCHED_DYNAMIC)
DOACROSS(guided, OMP_SCHED_GUIDED)

/* doacross, schedule(runtime). */
OMP_API bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts,
                                              long *istart, long *iend)
{
	return doacross_long(ncounts, counts, OMP_SCHED_RUNTIME, 0, istart, iend,
	                     NULL, NULL);
}

/* doacross over unsigned long long, schedule(runtime). */
OMP_API bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, ULL *counts,
                                                  ULL *istart, ULL *iend)
{
	return doacross_start(ncounts, counts, OMP_SCHED_RUNTIME, 0, istart, iend,
	                      NULL, NULL);
}

/* gcc 9's doacross form. */
OMP_API bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched,
                                      long chunk, long *istart, long *iend,
                                      uintptr_t *reductions, void **mem)
{
	return doacross_long(ncounts, counts, (unsigned)sched, chunk, istart, iend,
	                     reductions, mem);
}

/* gcc 9's unsigned long long doacross form. */
OMP_API bool GOMP_loop_ull_doacross_start(unsigned ncounts, ULL *counts,
                                          long sched, ULL chunk, ULL *istart,
                                          ULL *iend, uintptr_t *reductions,
                                          void **mem)
{
	return doacross_start(ncounts, counts, (unsigned)sched,
	                      chunk > (ULL)LONG_MAX ? LONG_MAX : (long)chunk,
	                      istart, iend, reductions, mem);
}

/* The flattened inner iteration of a vector's dimensions 1 .. ndims-1;
 * false when one is outside its dimension (the dependence then names no
 * iteration and is ignored). */
static bool flatten(const struct omp_ws *ws, const ULL *v, ULL *flat)
{
	unsigned d;
	ULL f = 0;

	for (d = 0; d < ws->ndims; d++)
		if (v[d] >= ws->dims[d])
			return false;
	for (d = 1; d < ws->ndims; d++)
		f = f * ws->dims[d] + v[d];
	*flat = f;
	return true;
}

/* The post of an iteration vector. */
static void doacross_post(const ULL *v)
{
	struct omp_thr *t = omp_self;
	struct omp_ws *ws;
	ULL flat;

	if (t == NULL || (ws = t->ws) == NULL || ws->doacross == NULL ||
	    !flatten(ws, v, &flat))
		return;
	atomic_store_explicit(&ws->doacross[v[0]], flat + 1, memory_order_release);
	if (t->team != NULL)
		omp_wake(t->team, 1);
}

/* A sink vector waited for: its row and flattened inner iteration. */
struct sink {
	struct omp_ws *ws;
	ULL row, flat;
};

/* Whether a sink's iteration has been posted. */
static bool sink_posted(void *p)
{
	struct sink *s = p;

	return atomic_load_explicit(&s->ws->doacross[s->row], memory_order_acquire) >
	       s->flat;
}

/* The wait for a sink vector. */
static void doacross_wait(const ULL *v)
{
	struct omp_thr *t = omp_self;
	struct sink s;

	if (t == NULL || (s.ws = t->ws) == NULL || s.ws->doacross == NULL ||
	    !flatten(s.ws, v, &s.flat) || t->team == NULL)
		return;
	s.row = v[0];
	if (!sink_posted(&s))
		omp_wait(t, sink_posted, &s, OMP_WAIT_NONE);
}

/* depend(source) in a long doacross loop. */
OMP_API void GOMP_doacross_post(long *counts)
{
	struct omp_thr *t = omp_self;
	unsigned d, n = t != NULL && t->ws != NULL ? t->ws->ndims : 0;
	ULL v[n > 0 ? n : 1];

	for (d = 0; d < n; d++)
		v[d] = (ULL)counts[d];
	if (n > 0)
		doacross_post(v);
}

/* depend(source) in an unsigned long long doacross loop. */
OMP_API void GOMP_doacross_ull_post(ULL *counts)
{
	doacross_post(counts);
}

/* depend(sink: ...) in a doacross loop over T: the vector's first
 * element, then the others, variadic. */
#define DOACROSS_WAIT(name, T)                                                 \
OMP_API void name(T first, ...)                                                \
{                                                                              \
	struct omp_thr *t = omp_self;                                           \
	unsigned d, n = t != NULL && t->ws != NULL ? t->ws->ndims : 0;          \
	ULL v[n > 0 ? n : 1];                                                   \
	va_list ap;                                                             \
                                                                               \
	if (n == 0)                                                             \
		return;                                                         \
	v[0] = (ULL)first;                                                      \
	va_start(ap, first);                                                    \
	for (d = 1; d < n; d++)                                                 \
		v[d] = (ULL)va_arg(ap, T);                                      \
	va_end(ap);                                                             \
	doacross_wait(v);                                                       \
}
DOACROSS_WAIT(GOMP_doacross_wait, long)
DOACROSS_WAIT(GOMP_doacross_ull_wait, ULL)
