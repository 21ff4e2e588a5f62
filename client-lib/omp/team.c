/*
 * team.c - parallel regions: teams, their size and nesting, the master's
 * and the members' parts, the GOMP_parallel* entry points, and the thread
 * state around target regions run on the host.  The team module's other
 * files: pool.c (the pool of threads, freed teams), barrier.c (barriers,
 * cancellation), teamapi.c (the omp_* routines about teams); team_int.h
 * is what they share.
 *
 * A region, end to end.  The encountering thread (the master) resolves
 * the team size from its ICVs (omp_team_size: if/num_threads, nesting past
 * max-active-levels serialised, thread-limit, and under dyn-var or
 * ASTEAL_OMP_TEAM=allotment the job's allotment), sets up a team (members,
 * one implicit task each with its ICVs, a deque per member for this
 * nesting level), takes a slot if it holds none (slot.c), hands thread
 * numbers 1 .. n-1 to idle pool threads (made on demand) and runs its own
 * implicit task.  A pool thread wakes, takes a slot and runs its part.
 * The region ends at the end barrier, once every implicit task has
 * arrived and every task of the team has ended; the members then give
 * their slots back, count themselves done (their last touch of the team)
 * and go back to the pool, and the master, once all are done, restores
 * what it was doing and frees the team.
 */
#include "team_int.h"

#include <limits.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "gomp.h"
#include "worker.h"

/* The deque of thread t at nesting level, made on first use. */
static deque *level_deque(struct omp_thr *t, unsigned level)
{
	unsigned k = level < OMP_MAX_LEVELS ? level : OMP_MAX_LEVELS - 1;

	if (t->dqs[k] == NULL) {
		t->dqs[k] = dq_create(RT_DEQUE_LOG_SIZE);
		if (t->dqs[k] == NULL)
			omp_fatal("out of memory for a task deque");
		atomic_store(&t->dqs[k]->state, DQ_OWNED);
	}
	return t->dqs[k];
}

/* The size of a new team asked for n threads (libgomp's rules; the
 * allotment stands in for the processors dyn-var leaves free). */
unsigned omp_team_size(struct omp_thr *t, unsigned n)
{
	const struct omp_icv *icv = t->task->icv;
	unsigned active = t->team != NULL ? t->team->active_level : 0;
	unsigned max, busy, limit;

	if (n == 1)
		return 1;
	if (active >= 1 && icv->max_active_levels <= 1)
		return 1;
	if ((int)active >= icv->max_active_levels)
		return 1;
	max = n != 0 ? n : icv->nthreads;
	if (max == 0)
		max = 1;
	if ((icv->dyn || omp_g.team_policy == OMP_TEAM_ALLOTMENT) && omp_rt != NULL) {
		int a;
		pthread_mutex_lock(&omp_rt->park_lock);
		a = omp_rt->allotment;
		pthread_mutex_unlock(&omp_rt->park_lock);
		if (a < 1)
			a = 1;
		if ((unsigned)a < max)
			max = (unsigned)a;
	}
	limit = icv->thread_limit;
	if (limit != UINT_MAX) {
		busy = atomic_load(&omp_team__busy);
		if (busy >= limit)
			return 1;
		if (max > limit - busy + 1)
			max = limit - busy + 1;
	}
	return max;
}

/* Set up member i of team: its implicit task, deque and state. */
static void member_enter(struct omp_team *team, struct omp_thr *t, unsigned i)
{
	t->team = team;
	t->num = i;
	t->task = &team->implicit[i];
	t->ws_next = team->preset ? 1 : 0;
	t->single_next = 0;
	t->ws = team->preset ? &team->ws[0] : NULL;
	t->static_trip = 0;
	t->ord_own = 0;
	t->dq = team->dq[i];
	t->team_num = team->team_num;
	t->num_teams = team->num_teams;
	if (omp_g.display_affinity &&
	    (t->aff_shown[0] != team->level + 1 || t->aff_shown[1] != team->n + 1 ||
	     t->aff_shown[2] != i + 1)) {
		/* libgomp's OMP_DISPLAY_AFFINITY: a line per thread whenever its
		 * place in the teams changed. */
		t->aff_shown[0] = team->level + 1;
		t->aff_shown[1] = team->n + 1;
		t->aff_shown[2] = i + 1;
		omp_display_affinity(NULL);
	}
}

/* A pool thread's part of the team it was given, then back to the pool. */
void omp_team__member(struct omp_thr *t)
{
	struct omp_team *team = atomic_load_explicit(&t->next_team,
	                                             memory_order_acquire);

	atomic_store_explicit(&t->next_team, NULL, memory_order_relaxed);
	member_enter(team, t, t->next_num);
	omp_slot_acquire(t);
	omp_slot_state(t, WS_WORK);
	team->fn(team->data);
	omp_team__bar_wait(t, &team->endbar, false, OMP_WAIT_NOSLOT);
	if (t->task->dephash != NULL)
		omp_dep_free(t->task);
	t->team = NULL;
	t->task = NULL;
	t->dq = NULL;
	/* The last touch of the team: the master frees it once all are done.
	 * The slot, if still held, is kept a while (dock). */
	atomic_fetch_add_explicit(&team->done, 1, memory_order_release);
	omp_team__pool_put(t);
}

/* Start a team (layer.h). */
void omp_team_begin(const struct omp_region *r)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_task *parent = t->task;
	struct omp_team *team;
	unsigned i, level, n;
	const struct omp_icv *picv = parent->icv;

	/* flags' proc_bind is accepted: the daemon places the job. */
	n = omp_team_size(t, r->num_threads);
	if (r->count != 0 && n > r->count)
		n = r->count;
	team = omp_team__alloc(n);
	level = (t->team != NULL ? t->team->level : 0) + 1;
	team->n = n;
	team->level = level;
	team->active_level = (t->team != NULL ? t->team->active_level : 0) + (n > 1);
	team->fn = r->fn;
	team->data = r->data;
	team->reductions = r->reductions;
	team->reduction_group = NULL;
	team->preset = 0;
	atomic_store(&team->bar.arrived, 0);
	atomic_store(&team->endbar.arrived, 0);
	atomic_store(&team->done, 0);
	atomic_store(&team->single, 0);
	atomic_store(&team->cancelled, 0);
	atomic_store(&team->ws_cancelled, 0);
	atomic_store(&team->sleepers, 0);
	atomic_store(&team->norphans, 0);
	team->orphans = NULL;
	for (i = 0; i < OMP_WS_RING; i++) {
		atomic_store(&team->ws[i].gen, 0);
		atomic_store(&team->ws[i].ready, 0);
		atomic_store(&team->ws[i].left, 0);
	}
	team->prev_team = t->team;
	team->prev_num = t->num;
	team->prev_task = t->task;
	team->prev_ws_next = t->ws_next;
	team->prev_single_next = t->single_next;
	team->prev_ws = t->ws;
	team->prev_dq = t->dq;
	team->prev_trip = t->static_trip;
	team->prev_ord_lo = t->ord_lo;
	team->prev_ord_hi = t->ord_hi;
	team->prev_ord_own = t->ord_own;
	for (i = 0; i < n; i++) {
		struct omp_task *it = &team->implicit[i];
		memset(it, 0, sizeof(*it));
		it->parent = parent;
		it->team = team;
		it->kind = OMP_TASK_IMPLICIT;
		it->own_icv = *picv;
		if (level < omp_g.nthreads_len)
			it->own_icv.nthreads = omp_g.nthreads_list[level];
		if (level < omp_g.bind_len)
			it->own_icv.bind = omp_g.bind_list[level];
		it->icv = &it->own_icv;
	}
	team->team_num = t->team_num;
	team->num_teams = t->num_teams;
	team->thr[0] = t;
	team->dq[0] = level_deque(t, level);
	if (t->ncrew < n) {
		struct omp_thr **c = realloc(t->crew, n * sizeof(*c));
		if (c == NULL)
			omp_fatal("out of memory for a team of %u", n);
		memset(c + t->ncrew, 0, (n - t->ncrew) * sizeof(*c));
		t->crew = c;
		t->ncrew = n;
	}
	for (i = 1; i < n; i++) {
		struct omp_thr *p = omp_team__pool_get(t->crew[i]);
		if (p == NULL) {
			/* No thread to be had: a smaller team. */
			n = i;
			team->n = n;
			if (n == 1)
				team->active_level--;
			break;
		}
		team->thr[i] = p;
		t->crew[i] = p;
		team->dq[i] = level_deque(p, level);
	}
	atomic_fetch_add(&omp_team__busy, n - 1);
	if (r->reductions != NULL)
		omp_reduction_parallel(team, r->reductions, n);
	if (r->preset != NULL) {
		struct omp_ws *ws = &team->ws[0];
		r->preset(ws, r->preset_arg, n);
		atomic_store(&ws->left, n);
		atomic_store(&ws->gen, 1);
		atomic_store(&ws->ready, 1);
		team->preset = 1;
	}
	member_enter(team, t, 0);
	team->took_slot = omp_slot_resume(t);
	for (i = 1; i < n; i++) {
		struct omp_thr *p = team->thr[i];
		p->next_num = i;
		atomic_store_explicit(&p->next_team, team, memory_order_release);
		atomic_fetch_add(&p->word, 1);          /* seq_cst, then dozing */
		if (atomic_load(&p->dozing))
			futex_wake(&p->word, 1);
	}
	omp_slot_state(t, WS_WORK);
}

/* Whether every member but the master has left the team. */
static bool members_done(void *p)
{
	struct omp_team *team = p;

	return atomic_load_explicit(&team->done, memory_order_acquire) >= team->n - 1;
}

/* The master's end of the region (layer.h). */
void omp_team_end(void)
{
	struct omp_thr *t = omp_self;
	struct omp_team *team = t->team;

	omp_team__bar_wait(t, &team->endbar, false,
	                   team->took_slot ? OMP_WAIT_NOSLOT : 0);
	if (t->task->dephash != NULL)
		omp_dep_free(t->task);
	/* Members leave right after the barrier; a preempted one is waited
	 * for, yielding. */
	while (!members_done(team))
		sched_yield();
	atomic_fetch_sub(&omp_team__busy, team->n - 1);
	t->team = team->prev_team;
	t->num = team->prev_num;
	t->task = team->prev_task;
	t->ws_next = team->prev_ws_next;
	t->single_next = team->prev_single_next;
	t->ws = team->prev_ws;
	t->dq = team->prev_dq;
	t->static_trip = team->prev_trip;
	t->ord_lo = team->prev_ord_lo;
	t->ord_hi = team->prev_ord_hi;
	t->ord_own = team->prev_ord_own;
	/* Back to serial code (no team, in no target region entered from
	 * inside one): it keeps the slot lazily, until needed; back to a
	 * team's code without a slot before: it keeps it, as a team thread
	 * holds one. */
	if (team->took_slot && t->team == NULL && t->target_in_team == 0)
		omp_slot_lazy(t);
	free(team->reduction_group);
	omp_team__free(team);
}

/* Enter a target region run on the host: a new initial task, in no team. */
void omp_target_enter(struct omp_thr_save *s)
{
	struct omp_thr *t = omp_thr_get();

	s->team = t->team;
	s->task = t->task;
	s->ws = t->ws;
	s->dq = t->dq;
	s->num = t->num;
	s->ws_next = t->ws_next;
	s->single_next = t->single_next;
	s->static_trip = t->static_trip;
	s->ord_lo = t->ord_lo;
	s->ord_hi = t->ord_hi;
	s->ord_own = t->ord_own;
	s->team_num = t->team_num;
	s->num_teams = t->num_teams;
	memset(&s->initial, 0, sizeof(s->initial));
	s->initial.kind = OMP_TASK_IMPLICIT;
	s->initial.icv = &omp_g.icv;
	t->team = NULL;
	t->task = &s->initial;
	t->ws = NULL;
	t->dq = NULL;
	t->num = 0;
	t->ws_next = t->single_next = 0;
	t->team_num = 0;
	t->num_teams = 1;
	if (s->team != NULL)
		t->target_in_team++;
}

/* Leave a target region run on the host: back where the thread was. */
void omp_target_leave(struct omp_thr_save *s)
{
	struct omp_thr *t = omp_self;

	if (atomic_load(&s->initial.children))
		omp_task_wait_children(t, &s->initial);
	t->team = s->team;
	t->task = s->task;
	t->ws = s->ws;
	t->dq = s->dq;
	t->num = s->num;
	t->ws_next = s->ws_next;
	t->single_next = s->single_next;
	t->static_trip = s->static_trip;
	t->ord_lo = s->ord_lo;
	t->ord_hi = s->ord_hi;
	t->ord_own = s->ord_own;
	t->team_num = s->team_num;
	t->num_teams = s->num_teams;
	if (s->team != NULL)
		t->target_in_team--;
}

/* #pragma omp parallel: run fn on a team of num_threads (0: the ICV). */
OMP_API void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                           unsigned flags)
{
	struct omp_region r = { fn, data, num_threads, flags, 0, NULL, NULL, NULL };

	omp_team_begin(&r);
	fn(data);
	omp_team_end();
}

/* The older split form: the caller runs fn between start and end. */
OMP_API void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
	struct omp_region r = { fn, data, num_threads, 0, 0, NULL, NULL, NULL };

	omp_team_begin(&r);
}

/* The end of a region begun with GOMP_parallel_start. */
OMP_API void GOMP_parallel_end(void)
{
	omp_team_end();
}

/* A region with task reductions (reduction(task:...)); returns the team size. */
OMP_API unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data,
                                          unsigned num_threads, unsigned flags)
{
	struct omp_region r = { fn, data, num_threads, flags, 0,
	                        *(uintptr_t **)data, NULL, NULL };
	unsigned n;

	omp_team_begin(&r);
	n = omp_self->team->n;
	fn(data);
	omp_team_end();
	return n;
}
