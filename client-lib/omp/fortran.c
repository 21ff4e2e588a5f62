/*
 * fortran.c - the Fortran spellings of the omp_* routines, as gfortran
 * calls them through libgomp's omp_lib module and omp_lib.h: the name
 * with a trailing underscore, every argument by reference, integers and
 * logicals of kind 4 (and an _8_ variant taking kind 8 where omp_lib has
 * one, clamped to int as libgomp does), characters followed by their
 * hidden lengths (size_t, after all the other arguments), results blank
 * padded rather than terminated.  Each calls the C routine (the core's
 * ones too, through gcc's <omp.h>).
 *
 * Lock kinds (gcc 12's omp_lib_kinds): omp_lock_kind is 4 and holds the
 * 4-byte omp_lock_t itself; omp_nest_lock_kind is 8, too small for the
 * 16-byte omp_nest_lock_t, so it holds a pointer to one, allocated by
 * omp_init_nest_lock and freed by omp_destroy_nest_lock; the OpenMP 2.5
 * nested lock (8 bytes) lives in it directly.  lock.h explains the two
 * symbol versions of each lock routine.
 *
 * Routines whose omp_lib interfaces are bind(c) (omp_alloc, omp_free,
 * omp_target_*, ...) need no Fortran spelling.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "layer.h"
#include "env.h"
#include "lock.h"

/* An exported routine: its prototype, then the head of its definition. */
#define FN(ret, name, params) OMP_API ret name params; OMP_API ret name params

/* A kind-8 integer as an int, saturated. */
static int to_int(int64_t v)
{
	return v > INT_MIN ? (v < INT_MAX ? (int)v : INT_MAX) : INT_MIN;
}

/* name_: the routine name(void) returning an integer(4). */
#define GETTER(name)                                                           \
FN(int32_t, name##_, (void))                                                   \
{                                                                              \
	return name();                                                          \
}

/* name_ and name_8_: the routine name(int) taking an integer(4) or (8). */
#define SETTER(name)                                                           \
FN(void, name##_, (const int32_t *v))                                          \
{                                                                              \
	name(*v);                                                               \
}                                                                              \
FN(void, name##_8_, (const int64_t *v))                                        \
{                                                                              \
	name(to_int(*v));                                                       \
}

/* name_ and name_8_: the routine name(int) returning an integer(4),
 * given an integer(4) or (8). */
#define OF_INT(name)                                                           \
FN(int32_t, name##_, (const int32_t *v))                                       \
{                                                                              \
	return name(*v);                                                        \
}                                                                              \
FN(int32_t, name##_8_, (const int64_t *v))                                     \
{                                                                              \
	return name(to_int(*v));                                                \
}

/* Copy n ints into integer(8)s, and free them. */
static void widen(int64_t *dst, int *src, int n)
{
	for (int i = 0; i < n; i++)
		dst[i] = src[i];
	free(src);
}

/* A Fortran character argument as a C string (NULL for length 0); free
 * it with free(). */
static char *cstr(const char *s, size_t len)
{
	char *p;

	if (len == 0)
		return NULL;
	p = omp_gomp_malloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* ---- locks ---- */

/* omp_OP_lock_ (both versions): omp_lock_OP_30 on the lock that lives
 * in the integer; RET is the result's type, RETURN the word "return"
 * where there is one. */
#define LOCK_F(RET, OP, RETURN)                                                \
__attribute__((symver("omp_" #OP "_lock_@@OMP_3.0"),                           \
               symver("omp_" #OP "_lock_@OMP_1.0")))                            \
FN(RET, omp_lock_##OP##_f, (omp_lock_t *lock))                                 \
{                                                                              \
	RETURN omp_lock_##OP##_30(lock);                                        \
}

/* omp_OP_nest_lock_ (3.0): omp_nest_lock_OP_30 on the lock the integer
 * points at. */
#define NEST_LOCK_F30(RET, OP, RETURN)                                         \
__attribute__((symver("omp_" #OP "_nest_lock_@@OMP_3.0")))                     \
FN(RET, omp_nest_lock_##OP##_f30, (omp_nest_lock_t **lock))                    \
{                                                                              \
	RETURN omp_nest_lock_##OP##_30(*lock);                                  \
}

/* omp_OP_nest_lock_ (2.5): omp_nest_lock_OP_25 on the lock that lives in
 * the integer. */
#define NEST_LOCK_F25(RET, OP, RETURN)                                         \
__attribute__((symver("omp_" #OP "_nest_lock_@OMP_1.0")))                      \
FN(RET, omp_nest_lock_##OP##_f25, (omp_nest_lock_25_t *lock))                  \
{                                                                              \
	RETURN omp_nest_lock_##OP##_25(lock);                                   \
}

LOCK_F(void, init, )
LOCK_F(void, destroy, )
LOCK_F(void, set, )
LOCK_F(void, unset, )
LOCK_F(int32_t, test, return)

/* omp_init_nest_lock (3.0): the integer points at a new lock. */
__attribute__((symver("omp_init_nest_lock_@@OMP_3.0")))
FN(void, omp_nest_lock_init_f30, (omp_nest_lock_t **lock))
{
	*lock = omp_gomp_malloc(sizeof **lock);
	omp_nest_lock_init_30(*lock);
}

/* omp_destroy_nest_lock (3.0): free it and clear the integer. */
__attribute__((symver("omp_destroy_nest_lock_@@OMP_3.0")))
FN(void, omp_nest_lock_destroy_f30, (omp_nest_lock_t **lock))
{
	omp_nest_lock_destroy_30(*lock);
	free(*lock);
	*lock = NULL;
}

NEST_LOCK_F30(void, set, )
NEST_LOCK_F30(void, unset, )
NEST_LOCK_F30(int32_t, test, return) /* the new depth, or 0 */

NEST_LOCK_F25(void, init, )
NEST_LOCK_F25(void, destroy, )
NEST_LOCK_F25(void, set, )
NEST_LOCK_F25(void, unset, )
NEST_LOCK_F25(int32_t, test, return) /* the new depth, or 0 */

/* ---- threads and teams ---- */

/* omp_set_dynamic with a logical(4). */
FN(void, omp_set_dynamic_, (const int32_t *set))
{
	omp_set_dynamic(*set);
}

/* omp_set_dynamic with a logical(8). */
FN(void, omp_set_dynamic_8_, (const int64_t *set))
{
	omp_set_dynamic(*set != 0);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/* omp_set_nested with a logical(4). */
FN(void, omp_set_nested_, (const int32_t *set))
{
	omp_set_nested(*set);
}

/* omp_set_nested with a logical(8). */
FN(void, omp_set_nested_8_, (const int64_t *set))
{
	omp_set_nested(*set != 0);
}

GETTER(omp_get_nested)
#pragma GCC diagnostic pop

SETTER(omp_set_num_threads)

GETTER(omp_get_dynamic)

GETTER(omp_in_parallel)

GETTER(omp_get_max_threads)

GETTER(omp_get_num_procs)

GETTER(omp_get_num_threads)

GETTER(omp_get_thread_num)

/* omp_get_wtick. */
FN(double, omp_get_wtick_, (void))
{
	return omp_get_wtick();
}

/* omp_get_wtime. */
FN(double, omp_get_wtime_, (void))
{
	return omp_get_wtime();
}

/* omp_set_schedule with an integer(4) chunk. */
FN(void, omp_set_schedule_, (const int32_t *kind, const int32_t *chunk))
{
	omp_set_schedule((omp_sched_t)*kind, *chunk);
}

/* omp_set_schedule with an integer(8) chunk. */
FN(void, omp_set_schedule_8_, (const int32_t *kind, const int64_t *chunk))
{
	omp_set_schedule((omp_sched_t)*kind, to_int(*chunk));
}

/* omp_get_schedule into integer(4)s, without the monotonic bit (OpenMP
 * 4.5 Fortran code does not expect it, as libgomp). */
FN(void, omp_get_schedule_, (int32_t *kind, int32_t *chunk))
{
	omp_sched_t k;
	int c;

	omp_get_schedule(&k, &c);
	*kind = (int32_t)((unsigned)k & ~(unsigned)omp_sched_monotonic);
	*chunk = c;
}

/* omp_get_schedule with an integer(8) chunk. */
FN(void, omp_get_schedule_8_, (int32_t *kind, int64_t *chunk))
{
	omp_sched_t k;
	int c;

	omp_get_schedule(&k, &c);
	*kind = (int32_t)((unsigned)k & ~(unsigned)omp_sched_monotonic);
	*chunk = c;
}

GETTER(omp_get_thread_limit)

SETTER(omp_set_max_active_levels)

GETTER(omp_get_max_active_levels)

GETTER(omp_get_supported_active_levels)

GETTER(omp_get_level)

OF_INT(omp_get_ancestor_thread_num)

OF_INT(omp_get_team_size)

GETTER(omp_get_active_level)

GETTER(omp_in_final)

GETTER(omp_get_cancellation)

/* omp_fulfill_event: the handle comes by value (omp_lib's interface). */
FN(void, omp_fulfill_event_, (intptr_t event))
{
	omp_fulfill_event((omp_event_handle_t)event);
}

/* ---- teams ---- */

SETTER(omp_set_num_teams)

GETTER(omp_get_max_teams)

SETTER(omp_set_teams_thread_limit)

GETTER(omp_get_teams_thread_limit)

GETTER(omp_get_num_teams)

GETTER(omp_get_team_num)

/* ---- places ---- */

GETTER(omp_get_proc_bind)

GETTER(omp_get_num_places)

OF_INT(omp_get_place_num_procs)

/* omp_get_place_proc_ids into integer(4)s. */
FN(void, omp_get_place_proc_ids_, (const int32_t *place, int32_t *ids))
{
	omp_get_place_proc_ids(*place, (int *)ids);
}

/* omp_get_place_proc_ids into integer(8)s. */
FN(void, omp_get_place_proc_ids_8_, (const int64_t *place, int64_t *ids))
{
	int p = to_int(*place), n = omp_get_place_num_procs(p);
	int *tmp;

	if (n <= 0)
		return;
	tmp = omp_gomp_malloc((size_t)n * sizeof *tmp);
	omp_get_place_proc_ids(p, tmp);
	widen(ids, tmp, n);
}

GETTER(omp_get_place_num)

GETTER(omp_get_partition_num_places)

/* omp_get_partition_place_nums into integer(4)s. */
FN(void, omp_get_partition_place_nums_, (int32_t *nums))
{
	omp_get_partition_place_nums((int *)nums);
}

/* omp_get_partition_place_nums into integer(8)s. */
FN(void, omp_get_partition_place_nums_8_, (int64_t *nums))
{
	int n = omp_get_partition_num_places();
	int *tmp;

	if (n <= 0)
		return;
	tmp = omp_gomp_malloc((size_t)n * sizeof *tmp);
	omp_get_partition_place_nums(tmp);
	widen(nums, tmp, n);
}

/* ---- affinity format (character arguments) ---- */

/* omp_set_affinity_format: the whole character value, blanks included. */
FN(void, omp_set_affinity_format_, (const char *format, size_t format_len))
{
	char *f = cstr(format, format_len);

	omp_set_affinity_format(f != NULL ? f : "");
	free(f);
}

/* omp_get_affinity_format: the format, blank padded or truncated; its
 * length. */
FN(int32_t, omp_get_affinity_format_, (char *buffer, size_t buffer_len))
{
	const char *f = omp_g.affinity_format;
	size_t len = strlen(f);

	if (len < buffer_len) {
		memcpy(buffer, f, len);
		memset(buffer + len, ' ', buffer_len - len);
	} else {
		memcpy(buffer, f, buffer_len);
	}
	return (int32_t)len;
}

/* omp_display_affinity: an empty format means the affinity-format-var. */
FN(void, omp_display_affinity_, (const char *format, size_t format_len))
{
	char *f = cstr(format, format_len);

	omp_display_affinity(f);
	free(f);
}

/* omp_capture_affinity: the expansion, blank padded or truncated; its
 * full length. */
FN(int32_t, omp_capture_affinity_, (char *buffer, const char *format,
                                    size_t buffer_len, size_t format_len))
{
	char *f = cstr(format, format_len), *tmp = omp_gomp_malloc(buffer_len + 1);
	size_t ret;

	ret = omp_capture_affinity(tmp, buffer_len + 1, f);
	memcpy(buffer, tmp, ret < buffer_len ? ret : buffer_len);
	if (ret < buffer_len)
		memset(buffer + ret, ' ', buffer_len - ret);
	free(tmp);
	free(f);
	return (int32_t)ret;
}

/* ---- devices, pause, environment ---- */

SETTER(omp_set_default_device)

GETTER(omp_get_default_device)

GETTER(omp_get_num_devices)

GETTER(omp_is_initial_device)

GETTER(omp_get_initial_device)

GETTER(omp_get_device_num)

GETTER(omp_get_max_task_priority)

/* omp_pause_resource. */
FN(int32_t, omp_pause_resource_, (const int32_t *kind, const int32_t *dev))
{
	return omp_pause_resource((omp_pause_resource_t)*kind, *dev);
}

/* omp_pause_resource_all. */
FN(int32_t, omp_pause_resource_all_, (const int32_t *kind))
{
	return omp_pause_resource_all((omp_pause_resource_t)*kind);
}

/* omp_display_env with a logical(4). */
FN(void, omp_display_env_, (const int32_t *verbose))
{
	omp_display_env(*verbose);
}

/* omp_display_env with a logical(8). */
FN(void, omp_display_env_8_, (const int64_t *verbose))
{
	omp_display_env(*verbose != 0);
}

/* ---- allocators ---- */

/* omp_init_allocator with an integer(4) trait count; the traits are
 * laid out as C's omp_alloctrait_t (c_int key, c_intptr_t value). */
FN(intptr_t, omp_init_allocator_, (const intptr_t *memspace, const int32_t *ntraits,
                                   const omp_alloctrait_t *traits))
{
	return (intptr_t)omp_init_allocator((omp_memspace_handle_t)*memspace, *ntraits,
	                                    traits);
}

/* omp_init_allocator with an integer(8) trait count. */
FN(intptr_t, omp_init_allocator_8_, (const intptr_t *memspace, const int64_t *ntraits,
                                     const omp_alloctrait_t *traits))
{
	return (intptr_t)omp_init_allocator((omp_memspace_handle_t)*memspace,
	                                    (int)*ntraits, traits);
}

/* omp_destroy_allocator. */
FN(void, omp_destroy_allocator_, (const intptr_t *allocator))
{
	omp_destroy_allocator((omp_allocator_handle_t)*allocator);
}

/* omp_set_default_allocator. */
FN(void, omp_set_default_allocator_, (const intptr_t *allocator))
{
	omp_set_default_allocator((omp_allocator_handle_t)*allocator);
}

/* omp_get_default_allocator. */
FN(intptr_t, omp_get_default_allocator_, (void))
{
	return (intptr_t)omp_get_default_allocator();
}
