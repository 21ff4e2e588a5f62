/*
 * gomp.h - the GOMP_* entry points gcc 12 emits calls to, as the layer
 * defines them (written from gcc's libgomp_g.h: the argument lists are
 * libgomp's ABI).  The omp_* API's prototypes come from gcc's own omp.h.
 * Each is exported by libgomp.map under libgomp's version node.
 */
#ifndef ASTEAL_OMP_GOMP_H
#define ASTEAL_OMP_GOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OMP_ULL unsigned long long

/* barriers, critical, atomic */
void GOMP_barrier(void);
bool GOMP_barrier_cancel(void);
void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_critical_name_start(void **);
void GOMP_critical_name_end(void **);
void GOMP_atomic_start(void);
void GOMP_atomic_end(void);

/* worksharing loops, long */
bool GOMP_loop_static_start(long, long, long, long, long *, long *);
bool GOMP_loop_dynamic_start(long, long, long, long, long *, long *);
bool GOMP_loop_guided_start(long, long, long, long, long *, long *);
bool GOMP_loop_runtime_start(long, long, long, long *, long *);
bool GOMP_loop_nonmonotonic_dynamic_start(long, long, long, long, long *, long *);
bool GOMP_loop_nonmonotonic_guided_start(long, long, long, long, long *, long *);
bool GOMP_loop_nonmonotonic_runtime_start(long, long, long, long *, long *);
bool GOMP_loop_maybe_nonmonotonic_runtime_start(long, long, long, long *, long *);
bool GOMP_loop_start(long, long, long, long, long, long *, long *, uintptr_t *, void **);
bool GOMP_loop_ordered_static_start(long, long, long, long, long *, long *);
bool GOMP_loop_ordered_dynamic_start(long, long, long, long, long *, long *);
bool GOMP_loop_ordered_guided_start(long, long, long, long, long *, long *);
bool GOMP_loop_ordered_runtime_start(long, long, long, long *, long *);
bool GOMP_loop_ordered_start(long, long, long, long, long, long *, long *, uintptr_t *, void **);
bool GOMP_loop_static_next(long *, long *);
bool GOMP_loop_dynamic_next(long *, long *);
bool GOMP_loop_guided_next(long *, long *);
bool GOMP_loop_runtime_next(long *, long *);
bool GOMP_loop_nonmonotonic_dynamic_next(long *, long *);
bool GOMP_loop_nonmonotonic_guided_next(long *, long *);
bool GOMP_loop_nonmonotonic_runtime_next(long *, long *);
bool GOMP_loop_maybe_nonmonotonic_runtime_next(long *, long *);
bool GOMP_loop_ordered_static_next(long *, long *);
bool GOMP_loop_ordered_dynamic_next(long *, long *);
bool GOMP_loop_ordered_guided_next(long *, long *);
bool GOMP_loop_ordered_runtime_next(long *, long *);
bool GOMP_loop_doacross_static_start(unsigned, long *, long, long *, long *);
bool GOMP_loop_doacross_dynamic_start(unsigned, long *, long, long *, long *);
bool GOMP_loop_doacross_guided_start(unsigned, long *, long, long *, long *);
bool GOMP_loop_doacross_runtime_start(unsigned, long *, long *, long *);
bool GOMP_loop_doacross_start(unsigned, long *, long, long, long *, long *, uintptr_t *, void **);
void GOMP_parallel_loop_static_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_dynamic_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_guided_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_runtime_start(void (*)(void *), void *, unsigned, long, long, long);
void GOMP_parallel_loop_static(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_dynamic(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_guided(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_runtime(void (*)(void *), void *, unsigned, long, long, long, unsigned);
void GOMP_parallel_loop_nonmonotonic_dynamic(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_nonmonotonic_guided(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_nonmonotonic_runtime(void (*)(void *), void *, unsigned, long, long, long, unsigned);
void GOMP_parallel_loop_maybe_nonmonotonic_runtime(void (*)(void *), void *, unsigned, long, long, long, unsigned);
void GOMP_loop_end(void);
void GOMP_loop_end_nowait(void);
bool GOMP_loop_end_cancel(void);

/* worksharing loops, unsigned long long */
bool GOMP_loop_ull_static_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_dynamic_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_guided_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_runtime_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_nonmonotonic_dynamic_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_nonmonotonic_guided_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_nonmonotonic_runtime_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_maybe_nonmonotonic_runtime_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, long, OMP_ULL, OMP_ULL *, OMP_ULL *, uintptr_t *, void **);
bool GOMP_loop_ull_ordered_static_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_ordered_dynamic_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_ordered_guided_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_ordered_runtime_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_ordered_start(bool, OMP_ULL, OMP_ULL, OMP_ULL, long, OMP_ULL, OMP_ULL *, OMP_ULL *, uintptr_t *, void **);
bool GOMP_loop_ull_static_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_dynamic_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_guided_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_runtime_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_nonmonotonic_dynamic_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_nonmonotonic_guided_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_nonmonotonic_runtime_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_maybe_nonmonotonic_runtime_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_ordered_static_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_ordered_dynamic_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_ordered_guided_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_ordered_runtime_next(OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_doacross_static_start(unsigned, OMP_ULL *, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_doacross_dynamic_start(unsigned, OMP_ULL *, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_doacross_guided_start(unsigned, OMP_ULL *, OMP_ULL, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_doacross_runtime_start(unsigned, OMP_ULL *, OMP_ULL *, OMP_ULL *);
bool GOMP_loop_ull_doacross_start(unsigned, OMP_ULL *, long, OMP_ULL, OMP_ULL *, OMP_ULL *, uintptr_t *, void **);

/* ordered and doacross */
void GOMP_ordered_start(void);
void GOMP_ordered_end(void);
void GOMP_doacross_post(long *);
void GOMP_doacross_wait(long, ...);
void GOMP_doacross_ull_post(OMP_ULL *);
void GOMP_doacross_ull_wait(OMP_ULL, ...);

/* parallel regions and cancellation */
void GOMP_parallel_start(void (*)(void *), void *, unsigned);
void GOMP_parallel_end(void);
void GOMP_parallel(void (*)(void *), void *, unsigned, unsigned);
unsigned GOMP_parallel_reductions(void (*)(void *), void *, unsigned, unsigned);
bool GOMP_cancel(int, bool);
bool GOMP_cancellation_point(int);

/* tasks */
void GOMP_task(void (*)(void *), void *, void (*)(void *, void *), long, long,
               bool, unsigned, void **, int, void *);
void GOMP_taskloop(void (*)(void *), void *, void (*)(void *, void *), long,
                   long, unsigned, unsigned long, int, long, long, long);
void GOMP_taskloop_ull(void (*)(void *), void *, void (*)(void *, void *),
                       long, long, unsigned, unsigned long, int, OMP_ULL,
                       OMP_ULL, OMP_ULL);
void GOMP_taskwait(void);
void GOMP_taskwait_depend(void **);
void GOMP_taskyield(void);
void GOMP_taskgroup_start(void);
void GOMP_taskgroup_end(void);
void GOMP_taskgroup_reduction_register(uintptr_t *);
void GOMP_taskgroup_reduction_unregister(uintptr_t *);
void GOMP_task_reduction_remap(size_t, size_t, void **);
void GOMP_workshare_task_reduction_unregister(bool);

/* sections and single */
unsigned GOMP_sections_start(unsigned);
unsigned GOMP_sections2_start(unsigned, uintptr_t *, void **);
unsigned GOMP_sections_next(void);
void GOMP_parallel_sections_start(void (*)(void *), void *, unsigned, unsigned);
void GOMP_parallel_sections(void (*)(void *), void *, unsigned, unsigned, unsigned);
void GOMP_sections_end(void);
void GOMP_sections_end_nowait(void);
bool GOMP_sections_end_cancel(void);
bool GOMP_single_start(void);
void *GOMP_single_copy_start(void);
void GOMP_single_copy_end(void *);
void GOMP_scope_start(uintptr_t *);

/* target (host fallback), teams */
void GOMP_target(int, void (*)(void *), const void *, size_t, void **, size_t *, unsigned char *);
void GOMP_target_ext(int, void (*)(void *), size_t, void **, size_t *, unsigned short *, unsigned int, void **, void **);
void GOMP_target_data(int, const void *, size_t, void **, size_t *, unsigned char *);
void GOMP_target_data_ext(int, size_t, void **, size_t *, unsigned short *);
void GOMP_target_end_data(void);
void GOMP_target_update(int, const void *, size_t, void **, size_t *, unsigned char *);
void GOMP_target_update_ext(int, size_t, void **, size_t *, unsigned short *, unsigned int, void **);
void GOMP_target_enter_exit_data(int, size_t, void **, size_t *, unsigned short *, unsigned int, void **);
void GOMP_teams(unsigned int, unsigned int);
void GOMP_teams_reg(void (*)(void *), void *, unsigned, unsigned, unsigned);
bool GOMP_teams4(unsigned int, unsigned int, unsigned int, bool);
void GOMP_offload_register(const void *, int, const void *);
void GOMP_offload_unregister(const void *, int, const void *);
void GOMP_offload_register_ver(unsigned, const void *, int, const void *);
void GOMP_offload_unregister_ver(unsigned, const void *, int, const void *);

/* allocation, error directive */
void *GOMP_alloc(size_t, size_t, uintptr_t);
void GOMP_free(void *, uintptr_t);
void GOMP_error(const char *, size_t);
void GOMP_warning(const char *, size_t);

#endif
