/*
 * team.c - parallel regions: the pool of threads, teams and their
 * barriers, nesting, cancellation of a region, and the omp_* queries about
 * teams.
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
#include "layer.h"

#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gomp.h"
#include "qtime.h"
#include "worker.h"

struct omp_thr *omp_thr_new_pool(void);

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct omp_thr *pool_idle;             /* idle pool threads */
static _Atomic unsigned threads_busy = 1;     /* in teams, the initial thread too */
static struct omp_team *team_cache;           /* freed teams, under pool_lock */

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

/* Whether a docked pool thread must stop spinning with its slot: a team
 * came, the slot was revoked, or a thread waits for one. */
static bool undock(struct omp_thr *t)
{
	return atomic_load_explicit(&t->next_team, memory_order_acquire) != NULL ||
	       atomic_load_explicit(&t->slot->hot.flags, memory_order_relaxed) ||
	       atomic_load_explicit(&omp_slot_waiters, memory_order_relaxed) > 0;
}

/* After its region, a pool thread that still holds a slot keeps it while
 * it spins for its next team (the wait policy's time), so that a program
 * of back-to-back regions starts each without taking a slot again; the
 * first 10 us count as the region's work (no state change, which costs a
 * reading of the CPU clock, for a region that follows at once), the rest
 * as stealing.  The
 * slot goes back when the spin ends without a team, when it is revoked,
 * or when another thread waits for one. */
static void dock(struct omp_thr *t)
{
	uint64_t start = 0, limit = omp_g.wait_policy == 0 ? 0 :
	                            omp_g.wait_policy == 1 ? 100 * (uint64_t)OMP_SPIN_NS
	                                                   : OMP_SPIN_NS;
	unsigned fails = 0;

	while (!undock(t)) {
		fails++;
		for (unsigned i = 0; i < (fails < 32 ? fails : 32); i++)
			cpu_relax();
		if ((fails & 15) == 0) {
			uint64_t now = qtime_now_ns();
			if (start == 0)
				start = now;
			if (now - start >= 10000)
				omp_slot_state(t, WS_STEAL);
			if (now - start >= limit)
				break;
		}
	}
	if (atomic_load_explicit(&t->next_team, memory_order_acquire) == NULL ||
	    atomic_load_explicit(&t->slot->hot.flags, memory_order_relaxed) & RT_LEAVE)
		omp_slot_release(t);
}

/* A pool thread: run the teams it is given, forever. */
static void *pool_main(void *arg)
{
	struct omp_thr *t = arg;
	void omp_team_member(struct omp_thr *t);

	omp_self = t;
	for (;;) {
		uint32_t e = atomic_load(&t->word);
		if (t->slot != NULL)
			dock(t);
		/* Between regions, spin first (as the wait policy says): a
		 * program of many short regions then starts each without a
		 * wake-up.  It holds no processor while it waits. */
		if (atomic_load_explicit(&t->next_team, memory_order_acquire) == NULL &&
		    !omp_spin_until(&t->word, e, NULL, NULL)) {
			/* Say so before sleeping (seq_cst), so that a master
			 * that hands us a team after our last look wakes us. */
			atomic_store(&t->dozing, 1);
			if (atomic_load(&t->word) == e)
				syscall(SYS_futex, (uint32_t *)&t->word, FUTEX_WAIT_PRIVATE,
				        e, NULL, NULL, 0);
			atomic_store(&t->dozing, 0);
			continue;
		}
		if (atomic_load_explicit(&t->next_team, memory_order_acquire) != NULL)
			omp_team_member(t);
	}
	return NULL;
}

/* An idle pool thread: want if it is idle, else any, else a new one
 * (NULL when none can be made). */
static struct omp_thr *pool_get(struct omp_thr *want)
{
	struct omp_thr *t = NULL, **p;
	pthread_attr_t attr;
	int err;

	pthread_mutex_lock(&pool_lock);
	if (want != NULL && want->idle)
		for (p = &pool_idle; *p != NULL; p = &(*p)->next)
			if (*p == want) {
				t = want;
				*p = t->next;
				break;
			}
	if (t == NULL && (t = pool_idle) != NULL)
		pool_idle = t->next;
	if (t != NULL)
		t->idle = 0;
	pthread_mutex_unlock(&pool_lock);
	if (t != NULL) {
		t->next = NULL;
		return t;
	}
	t = omp_thr_new_pool();
	pthread_attr_init(&attr);
	if (omp_g.stacksize > 0)
		pthread_attr_setstacksize(&attr, omp_g.stacksize);
	err = pthread_create(&t->pt, &attr, pool_main, t);
	pthread_attr_destroy(&attr);
	if (err != 0) {
		free(t);
		return NULL;
	}
	return t;
}

/* Put a pool thread back in the idle list. */
static void pool_put(struct omp_thr *t)
{
	pthread_mutex_lock(&pool_lock);
	t->next = pool_idle;
	t->idle = 1;
	pool_idle = t;
	pthread_mutex_unlock(&pool_lock);
}

/* A team with room for n members (from the cache when one fits). */
static struct omp_team *team_alloc(unsigned n)
{
	struct omp_team *team, **p;

	pthread_mutex_lock(&pool_lock);
	for (p = &team_cache; *p != NULL; p = &(*p)->next_free)
		if ((*p)->capacity >= n)
			break;
	team = *p;
	if (team != NULL)
		*p = team->next_free;
	pthread_mutex_unlock(&pool_lock);
	if (team == NULL) {
		team = alloc_cl(sizeof(*team));
		if (team == NULL)
			omp_fatal("out of memory for a team");
		memset(team, 0, sizeof(*team));
		pthread_mutex_init(&team->lock, NULL);
		team->capacity = n < 4 ? 4 : n;
		team->thr = calloc(team->capacity, sizeof(*team->thr));
		team->dq = calloc(team->capacity, sizeof(*team->dq));
		team->implicit = calloc(team->capacity, sizeof(*team->implicit));
		if (team->thr == NULL || team->dq == NULL || team->implicit == NULL)
			omp_fatal("out of memory for a team of %u", n);
	}
	team->next_free = NULL;
	return team;
}

/* Keep a team that ended for the next region. */
static void team_free(struct omp_team *team)
{
	pthread_mutex_lock(&pool_lock);
	team->next_free = team_cache;
	team_cache = team;
	pthread_mutex_unlock(&pool_lock);
}

/* A forked child has none of its parent's threads: no pool, no teams (the
 * parent's memory for them is left as it is). */
void omp_team_fork_child(void)
{
	pthread_mutex_init(&pool_lock, NULL);
	pool_idle = NULL;
	team_cache = NULL;
	atomic_store(&threads_busy, 1);
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
		busy = atomic_load(&threads_busy);
		if (busy >= limit)
			return 1;
		if (max > limit - busy + 1)
			max = limit - busy + 1;
	}
	return max;
}

/* Whether a barrier's generation moved (or, cancellable, the region was
 * cancelled). */
struct bar_wait {
	struct omp_barrier *bar;
	unsigned gen;
	struct omp_team *team;
	bool cancellable;
};

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
static bool bar_wait(struct omp_thr *t, struct omp_barrier *bar, bool cancellable,
                     int noslot)
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
	return bar_wait(t, &t->team->bar, cancellable, 0);
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
void omp_team_member(struct omp_thr *t);
void omp_team_member(struct omp_thr *t)
{
	struct omp_team *team = atomic_load_explicit(&t->next_team,
	                                             memory_order_acquire);

	atomic_store_explicit(&t->next_team, NULL, memory_order_relaxed);
	member_enter(team, t, t->next_num);
	omp_slot_acquire(t);
	omp_slot_state(t, WS_WORK);
	team->fn(team->data);
	bar_wait(t, &team->endbar, false, OMP_WAIT_NOSLOT);
	if (t->task->dephash != NULL)
		omp_dep_free(t->task);
	t->team = NULL;
	t->task = NULL;
	t->dq = NULL;
	/* The last touch of the team: the master frees it once all are done.
	 * The slot, if still held, is kept a while (dock). */
	atomic_fetch_add_explicit(&team->done, 1, memory_order_release);
	pool_put(t);
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
	team = team_alloc(n);
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
		struct omp_thr *p = pool_get(t->crew[i]);
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
	atomic_fetch_add(&threads_busy, n - 1);
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

	bar_wait(t, &team->endbar, false, team->took_slot ? OMP_WAIT_NOSLOT : 0);
	if (t->task->dephash != NULL)
		omp_dep_free(t->task);
	/* Members leave right after the barrier; a preempted one is waited
	 * for, yielding. */
	while (!members_done(team))
		sched_yield();
	atomic_fetch_sub(&threads_busy, team->n - 1);
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
	team_free(team);
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

/* ---- the omp_* queries about teams ---- */

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
