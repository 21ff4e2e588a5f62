/*
 * work.c - worksharing constructs' shared state and the constructs that
 * need little more: the ring of work shares, single (with copyprivate),
 * sections, scope.  Loops are loop.c.
 *
 * The ring.  The threads of a team meet worksharing constructs in the same
 * order, each at its own pace (nowait lets a thread run ahead).  A
 * thread's k-th construct (ws_next) uses ring slot k mod OMP_WS_RING,
 * which holds construct k while its gen is k + 1.  The first thread to
 * reach construct k claims the slot (a CAS from the gen of construct k -
 * OMP_WS_RING, once all its threads left it, to k + 1) and sets it up; the
 * others wait until it is ready.  A thread that runs OMP_WS_RING
 * constructs ahead of the slowest waits for it to leave the slot.  Every
 * thread leaving a construct counts down the slot's `left`.
 */
#include "layer.h"

#include <stdlib.h>
#include <string.h>

#include "gomp.h"

struct ws_wait {
	struct omp_ws *ws;
	unsigned gen;
};

/* Whether slot ws can be claimed for construct gen-1 (its previous
 * construct is over) or already holds it. */
static bool ws_claimable(void *p)
{
	struct ws_wait *w = p;
	unsigned g = atomic_load_explicit(&w->ws->gen, memory_order_acquire);

	return g == w->gen ||
	       atomic_load_explicit(&w->ws->left, memory_order_acquire) == 0;
}

/* Whether the construct in ws is set up. */
static bool ws_is_ready(void *p)
{
	struct ws_wait *w = p;

	return atomic_load_explicit(&w->ws->ready, memory_order_acquire) == w->gen;
}

/* Enter the next worksharing construct (layer.h). */
struct omp_ws *omp_ws_enter(struct omp_thr *t, bool *first)
{
	struct omp_team *team = t->team;
	unsigned k, gen;
	struct omp_ws *ws;
	struct ws_wait w;

	if (team == NULL) {
		if (t->solo == NULL && (t->solo = calloc(1, sizeof(*t->solo))) == NULL)
			omp_fatal("out of memory for a worksharing construct");
		t->ws = t->solo;
		*first = true;
		return t->solo;
	}
	k = t->ws_next++;
	gen = k + 1;
	ws = &team->ws[k % OMP_WS_RING];
	w.ws = ws;
	w.gen = gen;
	t->ws = ws;
	*first = false;
	for (;;) {
		unsigned g = atomic_load_explicit(&ws->gen, memory_order_acquire);
		if (g == gen)
			break;
		if (g + OMP_WS_RING == gen || (g == 0 && gen <= OMP_WS_RING)) {
			/* The previous construct of this slot, or none: claim
			 * it once every thread has left it. */
			if (atomic_load_explicit(&ws->left, memory_order_acquire) == 0 &&
			    atomic_compare_exchange_strong(&ws->gen, &g, gen)) {
				atomic_store_explicit(&ws->left, team->n,
				                      memory_order_relaxed);
				*first = true;
				return ws;
			}
			if (atomic_load(&ws->gen) != gen)
				omp_wait(t, ws_claimable, &w, OMP_WAIT_NONE);
			continue;
		}
		omp_fatal("work share %u found construct %u in its slot", gen, g);
	}
	if (atomic_load_explicit(&ws->ready, memory_order_acquire) != gen)
		omp_wait(t, ws_is_ready, &w, OMP_WAIT_NONE);
	return ws;
}

/* The first thread set ws up (layer.h). */
void omp_ws_ready(struct omp_ws *ws)
{
	atomic_store_explicit(&ws->ready, atomic_load(&ws->gen), memory_order_release);
	if (ws->mem == NULL)
		return;
}

/* This thread is done with its innermost construct's share (layer.h). */
void omp_ws_leave(struct omp_thr *t)
{
	struct omp_ws *ws = t->ws;

	if (ws == NULL)
		return;
	t->ws = NULL;
	if (t->team == NULL || atomic_fetch_sub_explicit(&ws->left, 1,
	                                                 memory_order_acq_rel) == 1) {
		free(ws->mem);
		free(ws->dims);
		ws->mem = NULL;
		ws->memsize = 0;
		ws->dims = NULL;
		ws->doacross = NULL;
		if (t->team != NULL)
			omp_wake(t->team, 1);
	}
}

/* #pragma omp single: true for the one thread that runs it. */
OMP_API bool GOMP_single_start(void)
{
	struct omp_thr *t = omp_thr_get();
	unsigned mine;

	if (t->team == NULL)
		return true;
	omp_safepoint(t);
	mine = t->single_next++;
	return atomic_compare_exchange_strong(&t->team->single, &mine, mine + 1);
}

/* single copyprivate: NULL for the thread that runs the block, else the
 * runner's data (after it is published). */
OMP_API void *GOMP_single_copy_start(void)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_ws *ws;
	void *data;
	bool first;

	if (t->team == NULL)
		return NULL;
	ws = omp_ws_enter(t, &first);
	if (first) {
		ws->copy = NULL;
		omp_ws_ready(ws);
		return NULL;
	}
	omp_barrier(t, false);
	data = ws->copy;
	omp_ws_leave(t);
	return data;
}

/* The runner of a copyprivate single publishes its data (every thread
 * then copies it, and gcc's barrier after the copies keeps it alive). */
OMP_API void GOMP_single_copy_end(void *data)
{
	struct omp_thr *t = omp_self;

	if (t == NULL || t->team == NULL)
		return;
	t->ws->copy = data;
	omp_barrier(t, false);
	omp_ws_leave(t);
}

/* Hand out the next section number, 0 when none are left. */
static unsigned sections_next(struct omp_thr *t)
{
	struct omp_ws *ws = t->ws;
	unsigned long long i;

	omp_safepoint(t);
	if (atomic_load_explicit(&ws->next, memory_order_relaxed) >= ws->n)
		return 0;
	i = atomic_fetch_add_explicit(&ws->next, 1, memory_order_relaxed);
	return i < ws->n ? (unsigned)i + 1 : 0;
}

/* Set up ws for count sections. */
static void sections_init(struct omp_ws *ws, unsigned count)
{
	atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
	ws->n = count;
	ws->start = 1;
	ws->incr = 1;
	ws->chunk = 1;
	ws->sched = OMP_SCHED_DYNAMIC;
	ws->reductions = NULL;
}


/* sections with task reductions or lastprivate(conditional) memory. */
OMP_API unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions,
                                      void **mem)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_ws *ws;
	bool first;

	ws = omp_ws_enter(t, &first);
	if (first) {
		sections_init(ws, count);
		if (mem != NULL) {
			ws->memsize = (uintptr_t)*mem;
			ws->mem = calloc(1, ws->memsize ? ws->memsize : 1);
			if (ws->mem == NULL)
				omp_fatal("out of memory for a sections construct");
		}
		if (reductions != NULL)
			omp_reduction_workshare(t, ws, reductions, true);
		omp_ws_ready(ws);
	} else if (reductions != NULL) {
		omp_reduction_workshare(t, ws, reductions, false);
	}
	if (mem != NULL)
		*mem = ws->mem;
	return sections_next(t);
}

/* #pragma omp sections: the first section number for this thread. */
OMP_API unsigned GOMP_sections_start(unsigned count)
{
	return GOMP_sections2_start(count, NULL, NULL);
}

/* The next section number for this thread, 0 when none are left. */
OMP_API unsigned GOMP_sections_next(void)
{
	struct omp_thr *t = omp_self;

	if (t == NULL || t->ws == NULL)
		return 0;
	return sections_next(t);
}

/* Set up the team's first share for count sections (before the start). */
static void sections_preset(struct omp_ws *ws, void *arg, unsigned n)
{
	(void)n;
	sections_init(ws, *(unsigned *)arg);
}

/* #pragma omp parallel sections, split form. */
OMP_API void GOMP_parallel_sections_start(void (*fn)(void *), void *data,
                                          unsigned num_threads, unsigned count)
{
	struct omp_region r = { fn, data, num_threads, 0, count, NULL,
	                        sections_preset, &count };

	omp_team_begin(&r);
}

/* #pragma omp parallel sections. */
OMP_API void GOMP_parallel_sections(void (*fn)(void *), void *data,
                                    unsigned num_threads, unsigned count,
                                    unsigned flags)
{
	struct omp_region r = { fn, data, num_threads, flags, count, NULL,
	                        sections_preset, &count };

	omp_team_begin(&r);
	fn(data);
	omp_team_end();
}

/* The end of sections, with its barrier. */
OMP_API void GOMP_sections_end(void)
{
	struct omp_thr *t = omp_self;

	if (t == NULL)
		return;
	omp_ws_leave(t);
	if (t->team != NULL)
		omp_barrier(t, false);
}

/* The end of sections, cancellable: true when the region was cancelled. */
OMP_API bool GOMP_sections_end_cancel(void)
{
	struct omp_thr *t = omp_self;

	if (t == NULL)
		return false;
	omp_ws_leave(t);
	return t->team != NULL && omp_barrier(t, true);
}

/* The end of sections nowait. */
OMP_API void GOMP_sections_end_nowait(void)
{
	struct omp_thr *t = omp_self;

	if (t != NULL)
		omp_ws_leave(t);
}

/* #pragma omp scope with task reductions (5.1): a construct of its own. */
OMP_API void GOMP_scope_start(uintptr_t *reductions)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_ws *ws;
	bool first;

	if (reductions == NULL)
		return;
	ws = omp_ws_enter(t, &first);
	omp_reduction_workshare(t, ws, reductions, first);
	if (first)
		omp_ws_ready(ws);
	omp_ws_leave(t);
}
