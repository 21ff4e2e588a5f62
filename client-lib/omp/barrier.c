/*
 * barrier.c - a team's barriers, and cancellation: of a region, of its
 * worksharing constructs, of a taskgroup; a file of the team module
 * (team_int.h).
 *
 * Barriers.  Arrivals count up; the last one resets the count and bumps
 * the generation.  A thread first waits for its implicit task's children
 * (running any of the team's tasks: an implicit task at a barrier is
 * exempt from the task scheduling constraints), then arrives, then runs
 * tasks until the generation moves.  Since every task ends only after its
 * children, all implicit tasks arriving with no children left means every
 * task of the team has ended.  The region's end has a barrier of its own,
 * so that a cancelled region (whose threads leave cancellable barriers
 * early, their arrivals uncounted) still ends cleanly.
 */
#include "team_int.h"

#include "gomp.h"

/* What a thread waits for at a barrier. */
struct bar_wait {
	struct omp_barrier *bar;
	unsigned gen;
	struct omp_team *team;
	bool cancellable;
};

/* Whether a barrier's generation moved (or, cancellable, the region was
 * cancelled). */
static bool bar_passed(void *p)
{
	struct bar_wait *b = p;

	return atomic_load_explicit(&b->bar->gen, memory_order_acquire) != b->gen ||
	       (b->cancellable && atomic_load(&b->team->cancelled));
}

/* Whether a task's children have all ended. */
static bool no_children(void *p)
{
	struct omp_task *task = p;

	return atomic_load_explicit(&task->children, memory_order_acquire) == 0;
}

/* Wait at barrier bar of t's team (noslot: the caller runs nothing after
 * it and needs no slot back). */
bool omp_team__bar_wait(struct omp_thr *t, struct omp_barrier *bar,
                        bool cancellable, int noslot)
{
	struct omp_team *team = t->team;
	struct bar_wait b = { bar, 0, team, cancellable };

	if (atomic_load_explicit(&t->task->children, memory_order_acquire))
		omp_wait(t, no_children, t->task, OMP_WAIT_ANY);
	if (team->n == 1)
		return cancellable && atomic_load(&team->cancelled);
	b.gen = atomic_load_explicit(&bar->gen, memory_order_acquire);
	if (atomic_fetch_add_explicit(&bar->arrived, 1, memory_order_acq_rel) ==
	    team->n - 1) {
		atomic_store_explicit(&bar->arrived, 0, memory_order_relaxed);
		/* What a cancelled worksharing construct left is over. */
		atomic_store_explicit(&team->ws_cancelled, 0, memory_order_relaxed);
		atomic_store_explicit(&bar->gen, b.gen + 1, memory_order_release);
		omp_wake(team, 1);
	} else {
		omp_wait(t, bar_passed, &b, OMP_WAIT_ANY | noslot);
	}
	return cancellable && atomic_load(&team->cancelled);
}

/* Wait at the team's barrier (layer.h). */
bool omp_barrier(struct omp_thr *t, bool cancellable)
{
	if (t->team == NULL) {
		if (atomic_load(&t->task->children))
			omp_task_wait_children(t, t->task);
		return false;
	}
	omp_safepoint(t);
	return omp_team__bar_wait(t, &t->team->bar, cancellable, 0);
}

/* #pragma omp barrier. */
OMP_API void GOMP_barrier(void)
{
	struct omp_thr *t = omp_self;

	if (t != NULL)
		omp_barrier(t, false);
}

/* A barrier in a region that may be cancelled: true when it was. */
OMP_API bool GOMP_barrier_cancel(void)
{
	struct omp_thr *t = omp_self;

	return t != NULL && omp_barrier(t, true);
}

/* #pragma omp cancellation point. */
OMP_API bool GOMP_cancellation_point(int which)
{
	struct omp_thr *t = omp_self;

	if (!omp_g.cancel || t == NULL)
		return false;
	if (t->team != NULL && atomic_load(&t->team->cancelled))
		return true;
	if (which & (OMP_CANCEL_LOOP | OMP_CANCEL_SECTIONS))
		return t->team != NULL && atomic_load(&t->team->ws_cancelled);
	if (which & OMP_CANCEL_TASKGROUP)
		return omp_creation_cancelled(t->task);
	return false;
}

/* #pragma omp cancel: activate it (do_cancel) or just test it. */
OMP_API bool GOMP_cancel(int which, bool do_cancel)
{
	struct omp_thr *t = omp_self;

	if (!omp_g.cancel || t == NULL)
		return false;
	if (!do_cancel)
		return GOMP_cancellation_point(which);
	if (which & (OMP_CANCEL_LOOP | OMP_CANCEL_SECTIONS)) {
		if (t->team != NULL)
			atomic_store(&t->team->ws_cancelled, 1);
		return true;
	}
	if (which & OMP_CANCEL_TASKGROUP) {
		struct omp_taskgroup *g = t->task->taskgroup != NULL
		                          ? t->task->taskgroup : t->task->cancel_group;
		if (g != NULL)
			atomic_store(&g->cancelled, 1);
		return true;
	}
	if (t->team != NULL) {
		atomic_store(&t->team->cancelled, 1);
		omp_wake(t->team, 1);
	}
	return true;
}
