/*
 * loop_int.h - what the files of the layer's worksharing loops, loop.c
 * (schedules, chunks, ordered, the loops' entry points), parloop.c (the
 * combined parallel loops) and doacross.c (doacross loops), share;
 * private to them (no other file includes this one): a loop's share set
 * up and its chunks handed out, named omp_loop__*, all in loop.c.
 */
#ifndef ASTEAL_OMP_LOOP_INT_H
#define ASTEAL_OMP_LOOP_INT_H

#include "layer.h"

#define ULL unsigned long long

/* The number of iterations of a long loop from start to end by incr. */
ULL omp_loop__count_long(long start, long end, long incr);

/* Resolve a schedule: runtime takes the ICV, auto is static, a chunk
 * below 1 (given) the kind's default; the kind, and the chunk in *chunk. */
int omp_loop__resolve(unsigned sched, ULL *chunk, long given);

/* Set up ws for a loop of n iterations (iteration i: start + i * incr)
 * of a resolved schedule. */
void omp_loop__init(struct omp_ws *ws, ULL start, ULL incr, ULL n, int sched,
                    ULL chunk);

/* Enter a loop (the calling thread's next worksharing construct), its
 * share set up by its first thread: with its shared memory (mem), its
 * task reductions, and (dims not NULL) the rows of a doacross loop over
 * ndims dimensions; the calling thread. */
struct omp_thr *omp_loop__start(ULL start, ULL incr, ULL n, unsigned sched,
                                long chunk, uintptr_t *reductions, void **mem,
                                unsigned ndims, const ULL *dims);

/* The next chunk [lo, hi) of t's loop, in iteration indices; false when
 * none is left. */
bool omp_loop__next_chunk(struct omp_thr *t, ULL *lo, ULL *hi);

#endif
