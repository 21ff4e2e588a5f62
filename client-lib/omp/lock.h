/*
 * lock.h - the OpenMP lock routines under their internal names.
 *
 * libgomp exports each lock routine twice: the OpenMP 3.0 one as the
 * default version (omp_set_nest_lock@@OMP_3.0) and the OpenMP 2.5 one for
 * binaries linked before 2008 (omp_set_nest_lock@OMP_1.0).  The two
 * differ for nested locks only: 3.0's is owned by a task and is 16 bytes
 * (gcc's omp_nest_lock_t), 2.5's by a thread and is 8 bytes.  Both
 * versions are made by symver attributes on the functions below (lock.c),
 * so neither has the plain name; fortran.c calls these names.  Their
 * visibility is default (a versioned alias of a hidden symbol would not
 * be exported) and libgomp.map's "local: *" hides the names themselves.
 */
#ifndef ASTEAL_OMP_LOCK_H
#define ASTEAL_OMP_LOCK_H

#include <omp.h>

#include "layer.h"

/* The OpenMP 2.5 nested lock: owning thread's id (with a waiters bit)
 * and depth. */
typedef struct {
	int owner;
	int count;
} omp_nest_lock_25_t;

OMP_API void omp_lock_init_30(omp_lock_t *lock);
OMP_API void omp_lock_destroy_30(omp_lock_t *lock);
OMP_API void omp_lock_set_30(omp_lock_t *lock);
OMP_API void omp_lock_unset_30(omp_lock_t *lock);
OMP_API int omp_lock_test_30(omp_lock_t *lock);
OMP_API void omp_nest_lock_init_30(omp_nest_lock_t *lock);
OMP_API void omp_nest_lock_destroy_30(omp_nest_lock_t *lock);
OMP_API void omp_nest_lock_set_30(omp_nest_lock_t *lock);
OMP_API void omp_nest_lock_unset_30(omp_nest_lock_t *lock);
OMP_API int omp_nest_lock_test_30(omp_nest_lock_t *lock);

OMP_API void omp_nest_lock_init_25(omp_nest_lock_25_t *lock);
OMP_API void omp_nest_lock_destroy_25(omp_nest_lock_25_t *lock);
OMP_API void omp_nest_lock_set_25(omp_nest_lock_25_t *lock);
OMP_API void omp_nest_lock_unset_25(omp_nest_lock_25_t *lock);
OMP_API int omp_nest_lock_test_25(omp_nest_lock_25_t *lock);

#endif
