/*
 * reduction.c - task reductions: taskgroup task_reduction, reduction with
 * the task modifier on parallel and worksharing constructs, in_reduction,
 * and taskloop reductions.  gcc does the arithmetic; the runtime gives each
 * team thread a zeroed private copy of every list item and maps an item's
 * address to the calling thread's copy (GOMP_task_reduction_remap).
 *
 * gcc's description of a reduction set (libgomp's layout; each word a
 * uintptr_t): d[0] the number of items, d[1] the bytes of one thread's
 * copies, d[2] their alignment (on return: the array of all threads'
 * copies), d[3] the allocator, d[4] the next set (older ones chain on),
 * d[5] the runtime's (here: nonzero marks the chain's newest set), d[6]
 * the end of the array, then per item: its address, its offset in a
 * thread's copies, and a word for the runtime.  A taskgroup keeps the
 * newest set; nested taskgroups inherit it, and register theirs in front.
 */
#include "layer.h"

#include <stdlib.h>
#include <string.h>

#include "gomp.h"

/* Allocate and chain the sets of data for n threads in front of old (orig:
 * a set another thread of a worksharing construct registered, whose
 * memory this one shares). */
static void reg(uintptr_t *data, uintptr_t *old, uintptr_t *orig, unsigned n)
{
	uintptr_t *d = data;

	for (;;) {
		if (orig != NULL) {
			d[2] = orig[2];
			d[6] = orig[6];
			orig = (uintptr_t *)orig[4];
		} else {
			size_t sz = d[1] * n, align = d[2] < sizeof(void *) ? sizeof(void *) : d[2];
			void *p = aligned_alloc(align, (sz + align - 1) / align * align);
			if (p == NULL)
				omp_fatal("out of memory for task reductions");
			memset(p, 0, sz);
			d[2] = (uintptr_t)p;
			d[6] = d[2] + sz;
		}
		d[5] = 0;
		if (d[4] == 0) {
			d[4] = (uintptr_t)old;
			break;
		}
		d = (uintptr_t *)d[4];
	}
	data[5] = 1;
}

/* The taskgroup whose reductions the current task sees. */
static struct omp_taskgroup *current_group(struct omp_thr *t)
{
	struct omp_task *task = t->task;

	return task->taskgroup != NULL ? task->taskgroup : task->cancel_group;
}

/* #pragma omp taskgroup task_reduction(...): register the set. */
OMP_API void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_taskgroup *g = t->task->taskgroup;
	unsigned n = t->team != NULL ? t->team->n : 1;

	if (g == NULL)
		omp_fatal("GOMP_taskgroup_reduction_register outside a taskgroup");
	reg(data, g->reductions, NULL, n);
	g->reductions = data;
}

/* Free the copies of a set registered by a taskgroup (after gcc combined
 * them). */
OMP_API void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
	uintptr_t *d = data;

	do {
		free((void *)d[2]);
		d = (uintptr_t *)d[4];
	} while (d != NULL && !d[5]);
}

/* Map ptrs[i] (an item's address, or an address in some thread's copies)
 * to the calling thread's copy; for i < cntorig also give the item's
 * original address in ptrs[cnt + i]. */
OMP_API void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_taskgroup *g = current_group(t);
	uintptr_t *data = g != NULL ? g->reductions : NULL;
	unsigned id = t->team != NULL ? t->num : 0;
	size_t i, j;

	for (i = 0; i < cnt; i++) {
		uintptr_t p = (uintptr_t)ptrs[i], *d;
		int found = 0;
		for (d = data; d != NULL && !found; d = (uintptr_t *)d[4]) {
			for (j = 0; j < d[0]; j++)
				if (d[7 + 3 * j] == p) {
					ptrs[i] = (void *)(d[2] + id * d[1] + d[8 + 3 * j]);
					if (i < cntorig)
						ptrs[cnt + i] = (void *)p;
					found = 1;
					break;
				}
		}
		for (d = data; d != NULL && !found; d = (uintptr_t *)d[4]) {
			uintptr_t off;
			if (p < d[2] || p >= d[6])
				continue;
			off = (p - d[2]) % d[1];
			ptrs[i] = (void *)(d[2] + id * d[1] + off);
			if (i < cntorig)
				for (j = 0; j < d[0]; j++)
					if (d[8 + 3 * j] == off)
						ptrs[cnt + i] = (void *)d[7 + 3 * j];
			found = 1;
		}
		if (!found)
			omp_fatal("no task_reduction or reduction with the task "
			          "modifier matches %p", ptrs[i]);
	}
}

/* A parallel region with reduction(task: ...): its implicit tasks share a
 * taskgroup holding the set (layer.h). */
void omp_reduction_parallel(struct omp_team *team, uintptr_t *data, unsigned n)
{
	struct omp_taskgroup *g = calloc(1, sizeof(*g));
	unsigned i;

	if (g == NULL)
		omp_fatal("out of memory for task reductions");
	reg(data, NULL, NULL, n);
	g->reductions = data;
	for (i = 0; i < n; i++)
		team->implicit[i].taskgroup = g;
	team->reduction_group = g;
}

/* A worksharing construct with reduction(task: ...): each thread's
 * taskgroup, sharing the first thread's copies (first: this thread set
 * the construct up). */
void omp_reduction_workshare(struct omp_thr *t, struct omp_ws *ws,
                             uintptr_t *data, bool first)
{
	unsigned n = t->team != NULL ? t->team->n : 1;
	struct omp_taskgroup *g;

	GOMP_taskgroup_start();
	g = t->task->taskgroup;
	g->workshare = 1;
	if (first) {
		reg(data, g->reductions, NULL, n);
		if (ws != NULL)
			ws->reductions = data;
	} else {
		reg(data, g->reductions, ws->reductions, n);
	}
	g->reductions = data;
}

/* The end of a worksharing construct's task reductions: the taskgroup's
 * end, the copies freed by thread 0 after gcc combined them, and the
 * construct's barrier unless it was cancelled. */
OMP_API void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_taskgroup *g = t->task->taskgroup;
	uintptr_t *data = g != NULL ? g->reductions : NULL;

	GOMP_taskgroup_end();
	if (data != NULL && (t->team == NULL || t->num == 0))
		GOMP_taskgroup_reduction_unregister(data);
	if (!cancelled && t->team != NULL)
		omp_barrier(t, false);
}
