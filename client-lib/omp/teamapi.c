/*
 * teamapi.c - the omp_* routines about teams: the caller's thread number,
 * team sizes and nesting levels (its own and its ancestors'), and the
 * ICVs that shape the next regions and loops (nthreads-var, dyn-var,
 * nest-var, max-active-levels-var, run-sched-var; thread-limit-var and
 * cancel-var, read only).
 */
#include "layer.h"

#include <limits.h>
#include <omp.h>

/* The calling thread's number in its team. */
OMP_API int omp_get_thread_num(void)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->team != NULL ? (int)t->num : 0;
}

/* The size of the calling thread's team. */
OMP_API int omp_get_num_threads(void)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->team != NULL ? (int)t->team->n : 1;
}

/* The team size a region without num_threads would get now. */
OMP_API int omp_get_max_threads(void)
{
	const struct omp_icv *icv = omp_icv();

	return (int)icv->nthreads;
}

/* Set nthreads-var of the current task. */
OMP_API void omp_set_num_threads(int n)
{
	omp_icv_mut()->nthreads = n > 0 ? (unsigned)n : 1;
}

/* Whether the calling thread is in an active parallel region. */
OMP_API int omp_in_parallel(void)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->team != NULL && t->team->active_level > 0;
}

/* The number of nested regions around the caller. */
OMP_API int omp_get_level(void)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->team != NULL ? (int)t->team->level : 0;
}

/* The number of active nested regions around the caller. */
OMP_API int omp_get_active_level(void)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->team != NULL ? (int)t->team->active_level : 0;
}

/* The team at nesting level (NULL for level 0) and the caller's number in
 * it, walking out from the innermost; -1 for a level out of range. */
static int team_at(int level, struct omp_team **out, unsigned *num)
{
	struct omp_thr *t = omp_self;
	struct omp_team *team = t != NULL ? t->team : NULL;
	unsigned n = t != NULL ? t->num : 0;
	int cur = team != NULL ? (int)team->level : 0;

	if (level < 0 || level > cur)
		return -1;
	while (team != NULL && (int)team->level > level) {
		n = team->prev_num;
		team = team->prev_team;
	}
	*out = team;
	*num = n;
	return 0;
}

/* The caller's ancestor's thread number at a nesting level. */
OMP_API int omp_get_ancestor_thread_num(int level)
{
	struct omp_team *team;
	unsigned num;

	if (team_at(level, &team, &num) < 0)
		return -1;
	return team != NULL ? (int)num : 0;
}

/* The size of the team at a nesting level around the caller. */
OMP_API int omp_get_team_size(int level)
{
	struct omp_team *team;
	unsigned num;

	if (team_at(level, &team, &num) < 0)
		return -1;
	return team != NULL ? (int)team->n : 1;
}

/* Set dyn-var of the current task. */
OMP_API void omp_set_dynamic(int d)
{
	omp_icv_mut()->dyn = d != 0;
}

/* dyn-var of the current task. */
OMP_API int omp_get_dynamic(void)
{
	return omp_icv()->dyn;
}

/* The deprecated nest-var: max-active-levels above 1. */
OMP_API void omp_set_nested(int nested)
{
	struct omp_icv *icv = omp_icv_mut();

	if (nested)
		icv->max_active_levels = omp_g.supported_levels;
	else if (icv->max_active_levels > 1)
		icv->max_active_levels = 1;
}

/* Whether nested regions may be active. */
OMP_API int omp_get_nested(void)
{
	const struct omp_icv *icv = omp_icv();

	return icv->max_active_levels > 1 && icv->max_active_levels > omp_get_active_level();
}

/* Set run-sched-var of the current task (a chunk below 1: the kind's
 * default, 0 for static, 1 for dynamic and guided). */
OMP_API void omp_set_schedule(omp_sched_t kind, int chunk)
{
	struct omp_icv *icv = omp_icv_mut();

	switch ((unsigned)kind & ~OMP_SCHED_MONOTONIC) {
	case OMP_SCHED_STATIC:
		icv->chunk = chunk < 1 ? 0 : chunk;
		break;
	case OMP_SCHED_DYNAMIC:
	case OMP_SCHED_GUIDED:
		icv->chunk = chunk < 1 ? 1 : chunk;
		break;
	case OMP_SCHED_AUTO:
		break;
	default:
		return;
	}
	icv->sched = (unsigned)kind;
}

/* run-sched-var of the current task. */
OMP_API void omp_get_schedule(omp_sched_t *kind, int *chunk)
{
	const struct omp_icv *icv = omp_icv();

	*kind = (omp_sched_t)icv->sched;
	*chunk = icv->chunk;
}

/* Set max-active-levels-var. */
OMP_API void omp_set_max_active_levels(int n)
{
	if (n >= 0)
		omp_icv_mut()->max_active_levels =
			n > omp_g.supported_levels ? omp_g.supported_levels : n;
}

/* max-active-levels-var. */
OMP_API int omp_get_max_active_levels(void)
{
	return omp_icv()->max_active_levels;
}

/* thread-limit-var. */
OMP_API int omp_get_thread_limit(void)
{
	unsigned l = omp_icv()->thread_limit;

	return l > INT_MAX ? INT_MAX : (int)l;
}

/* cancel-var. */
OMP_API int omp_get_cancellation(void)
{
	return omp_g.cancel;
}
