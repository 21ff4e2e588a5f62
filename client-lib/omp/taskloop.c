/*
 * taskloop.c - #pragma omp taskloop over long and unsigned long long
 * loops: the iterations split into tasks (num_tasks, or grainsize with or
 * without strict), each created as GOMP_task would with its bounds at the
 * start of its data, inside a taskgroup unless nogroup, with taskloop
 * reductions registered on that taskgroup.
 *
 * The split, as libgomp's: n iterations into k tasks, the first n mod k
 * of them one iteration longer; grainsize g gives k = n / g tasks (at
 * least 1, so each has from g to 2g - 1 iterations), strict grainsize
 * tasks of exactly g but the last.  num_tasks defaults to the team size.
 */
#include "layer.h"

#include <string.h>

#include "gomp.h"

#define TASK_STRICT (1u << 14)         /* grainsize(strict: ...) (gcc 12) */
#define ULL unsigned long long

/* Run the taskloop over n iterations, task i's bounds from bound(). */
static void taskloop(void (*fn)(void *), void *data,
                     void (*cpyfn)(void *, void *), long arg_size,
                     long arg_align, unsigned flags, unsigned long num_tasks,
                     int priority, ULL n, ULL start, ULL step, size_t size)
{
	ULL k, div, mod, i, lo = 0;
	unsigned tflags = flags & (OMP_TASK_UNTIED | OMP_TASK_FINAL |
	                           OMP_TASK_MERGEABLE | OMP_TASK_PRIORITY);
	struct omp_thr *t = omp_thr_get();
	bool strict = (flags & OMP_TASK_GRAINSIZE) && (flags & TASK_STRICT);

	if (n == 0)
		return;
	if (flags & OMP_TASK_GRAINSIZE) {
		ULL g = num_tasks > 0 ? num_tasks : 1;
		k = strict ? (n + g - 1) / g : n / g;
		if (k < 1)
			k = 1;
	} else {
		k = num_tasks > 0 ? num_tasks : (t->team != NULL ? t->team->n : 1);
		if (k > n)
			k = n;
	}
	div = strict ? num_tasks : n / k;
	mod = strict ? 0 : n % k;
	if (!(flags & OMP_TASK_NOGROUP)) {
		GOMP_taskgroup_start();
		if (flags & OMP_TASK_REDUCTION)
			GOMP_taskgroup_reduction_register(
				*(uintptr_t **)((char *)data + 2 * size));
	}
	for (i = 0; i < k; i++) {
		ULL len = div + (i < mod ? 1 : 0), hi;
		union { long l[2]; ULL u[2]; } range;
		if (strict && lo + len > n)
			len = n - lo;
		hi = lo + len;
		if (size == sizeof(long)) {
			range.l[0] = (long)(start + lo * step);
			range.l[1] = (long)(start + hi * step);
		} else {
			range.u[0] = start + lo * step;
			range.u[1] = start + hi * step;
		}
		omp_task_create(fn, data, cpyfn, arg_size, arg_align,
		                (flags & OMP_TASK_IF) != 0, tflags, NULL, priority,
		                NULL, &range, size);
		lo = hi;
	}
	if (!(flags & OMP_TASK_NOGROUP))
		GOMP_taskgroup_end();
}

/* #pragma omp taskloop over a long loop. */
OMP_API void GOMP_taskloop(void (*fn)(void *), void *data,
                           void (*cpyfn)(void *, void *), long arg_size,
                           long arg_align, unsigned flags,
                           unsigned long num_tasks, int priority, long start,
                           long end, long step)
{
	ULL n;

	if (step > 0)
		n = start < end ? ((ULL)end - (ULL)start - 1) / (ULL)step + 1 : 0;
	else if (step < 0)
		n = start > end ? ((ULL)start - (ULL)end - 1) / (0 - (ULL)step) + 1 : 0;
	else
		n = 0;
	taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority,
	         n, (ULL)start, (ULL)step, sizeof(long));
}

/* #pragma omp taskloop over an unsigned long long loop. */
OMP_API void GOMP_taskloop_ull(void (*fn)(void *), void *data,
                               void (*cpyfn)(void *, void *), long arg_size,
                               long arg_align, unsigned flags,
                               unsigned long num_tasks, int priority,
                               ULL start, ULL end, ULL step)
{
	ULL n;

	if (flags & OMP_TASK_UP)
		n = start < end && step != 0 ? (end - start - 1) / step + 1 : 0;
	else
		n = start > end && step != 0 ? (start - end - 1) / (0 - step) + 1 : 0;
	taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority,
	         n, start, step, sizeof(ULL));
}
