/*
 * task.c - explicit tasks on libasteal's Chase-Lev deques: creation
 * (GOMP_task), running them at scheduling points, taskwait, taskyield,
 * taskgroups, detached tasks, and the blocks tasks live in.
 *
 * Creation.  A task that must not be deferred (if(0), inside a final
 * task, outside a parallel region) runs at once on the caller's stack, as
 * an included task with a descriptor on the stack.  So does a deferrable
 * one while the caller's deque already holds its ready limit of queued
 * tasks (lazy spawning, as libasteal's spawn and libgomp's throttle):
 * thieves take the oldest entries, so a few per thread keep the team fed,
 * and most tasks cost a call.  Otherwise the task gets a block (its
 * descriptor, then its data, copied by cpyfn or memcpy), is counted in its
 * parent and taskgroup, registers its dependences (depend.c: a task with
 * unmet ones waits off the deques until its last predecessor pushes it)
 * and is pushed on the caller's deque for this team.
 *
 * Running.  Any team thread that pops or steals a task runs it on its own
 * stack, at a scheduling point (wait.c); a tied task never moves (untied
 * ones are run as tied, which OpenMP allows).  The task scheduling
 * constraints hold: a thread waiting inside a task (taskwait, a
 * taskgroup's end, a task's end, a dependence wait) starts only
 * descendants of that task, which are descendants of every task suspended
 * below it on the same stack; a task it takes that it may not run goes to
 * the team's orphans, which any thread at a barrier (or a waiting ancestor)
 * takes.  A task ends after its children (it waits for them, a scheduling
 * point), so its parent, taskgroup and dependences' table outlive it.
 */
#include "layer.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gomp.h"
#include "qtime.h"
#include "worker.h"

#define CLASS_MIN 7                    /* blocks of 128 bytes and up */
#define CLASSES 8                      /* ... to 16 KiB; larger: malloc */
#define CLASS_BIG 255
#define CACHE_MAX 64                   /* blocks a thread keeps per class */

/* A block of at least size bytes for a task (its class in *cls). */
static void *block_get(struct omp_thr *t, size_t size, unsigned *cls)
{
	unsigned k;
	void *b;

	for (k = 0; k < CLASSES && ((size_t)1 << (k + CLASS_MIN)) < size; k++)
		;
	if (k == CLASSES) {
		*cls = CLASS_BIG;
		b = malloc(size);
	} else {
		*cls = k;
		b = t->cache[k];
		if (b != NULL) {
			t->cache[k] = *(void **)b;
			t->ncache[k]--;
			return b;
		}
		b = aligned_alloc(64, (size_t)1 << (k + CLASS_MIN));
	}
	if (b == NULL)
		omp_fatal("out of memory for a task of %zu bytes", size);
	return b;
}

/* Keep a task's block for reuse by thread t (or free it). */
static void block_put(struct omp_thr *t, void *b, unsigned cls)
{
	if (cls == CLASS_BIG || t == NULL || t->ncache[cls] >= CACHE_MAX) {
		free(b);
		return;
	}
	*(void **)b = t->cache[cls];
	t->cache[cls] = b;
	t->ncache[cls]++;
}

/* The current task's ICVs, its own copy made on first change. */
struct omp_icv *omp_icv_mut(void)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_task *task = t->task;

	if (task->icv != &task->own_icv) {
		task->own_icv = *task->icv;
		task->icv = &task->own_icv;
	}
	return &task->own_icv;
}

/* Whether task is a descendant of (or is) w: its ancestors down to w's depth. */
static bool descends(const struct omp_task *task, const struct omp_task *w)
{
	for (; task != NULL && task->depth >= w->depth; task = task->parent)
		if (task == w)
			return true;
	return false;
}

/* Whether the task must not run (its region or a taskgroup around it was
 * cancelled). */
bool omp_task_cancelled(const struct omp_task *task)
{
	const struct omp_taskgroup *g;

	if (!omp_g.cancel)
		return false;
	if (atomic_load(&task->team->cancelled))
		return true;
	for (g = task->cancel_group; g != NULL; g = g->outer)
		if (atomic_load(&g->cancelled))
			return true;
	return false;
}

/* What a deque entry's fn is for a task (the entry's arg is the task; a
 * deque takes an entry whose fn is NULL for a fiber, libasteal's). */
static void task_entry(void *task)
{
	(void)task;
}

/* Whether tasks created now by task would be cancelled: its region, or a
 * taskgroup around the creation, was cancelled. */
bool omp_creation_cancelled(const struct omp_task *task)
{
	const struct omp_taskgroup *g;

	if (task->team != NULL && atomic_load(&task->team->cancelled))
		return true;
	g = task->taskgroup != NULL ? task->taskgroup : task->cancel_group;
	for (; g != NULL; g = g->outer)
		if (atomic_load(&g->cancelled))
			return true;
	return false;
}

/* Make a ready deferred task runnable on t's deque (at once when the deque
 * cannot take it), waking a sleeper when the deque was empty. */
void omp_task_push(struct omp_thr *t, struct omp_task *task)
{
	dq_entry e = { task_entry, task, NULL };
	struct omp_team *team = task->team;
	int64_t before;

	if (t->team != team || t->dq == NULL) {
		/* A foreign thread (omp_fulfill_event): the team's orphans. */
		pthread_mutex_lock(&team->lock);
		task->next = team->orphans;
		team->orphans = task;
		atomic_fetch_add(&team->norphans, 1);
		pthread_mutex_unlock(&team->lock);
		omp_wake(team, 0);
		return;
	}
	before = dq_push(t->dq, &e);
	if (before < 0) {
		omp_task_run(t, task);          /* no memory for the deque */
		return;
	}
	if (t->slot != NULL)
		stat_add(&t->slot->st.pushed, 1);
	if (before == 0)
		omp_wake(team, 0);
}

/* Put a task taken where it may not run on the team's orphans. */
static void orphan(struct omp_team *team, struct omp_task *task)
{
	pthread_mutex_lock(&team->lock);
	task->next = team->orphans;
	team->orphans = task;
	atomic_fetch_add(&team->norphans, 1);
	pthread_mutex_unlock(&team->lock);
}

/* Take an orphan descending from w (any, for w NULL). */
static struct omp_task *take_orphan(struct omp_team *team, const struct omp_task *w)
{
	struct omp_task **p, *task = NULL;

	pthread_mutex_lock(&team->lock);
	for (p = &team->orphans; *p != NULL; p = &(*p)->next)
		if (w == NULL || descends(*p, w)) {
			task = *p;
			*p = task->next;
			atomic_fetch_sub(&team->norphans, 1);
			break;
		}
	pthread_mutex_unlock(&team->lock);
	return task;
}

/* Whether anything is queued in the team for anyone. */
bool omp_task_visible(struct omp_team *team)
{
	unsigned i;

	if (atomic_load_explicit(&team->norphans, memory_order_relaxed) > 0)
		return true;
	for (i = 0; i < team->n; i++)
		if (dq_public(team->dq[i]) > 0)
			return true;
	return false;
}

/* Find a task t may run now and run it (layer.h). */
int omp_task_find_run(struct omp_thr *t, int mode)
{
	struct omp_team *team = t->team;
	struct omp_task *w = mode == OMP_WAIT_TIED ? t->task : NULL;
	struct omp_task *task = NULL;
	dq_entry e;

	if (team == NULL)
		return 0;
	if (dq_size(t->dq) > 0 && dq_pop(t->dq, &e)) {
		task = e.arg;
		if (w != NULL && !descends(task, w)) {
			orphan(team, task);
			task = NULL;
		}
	}
	if (task == NULL && atomic_load_explicit(&team->norphans, memory_order_relaxed))
		task = take_orphan(team, w);
	if (task == NULL && team->n > 1) {
		unsigned k = (unsigned)(rng_next(&t->rng) % (team->n - 1));
		if (k >= t->num)
			k++;
		if (dq_public(team->dq[k]) == 0)
			return 0;
		if (t->slot != NULL)
			stat_add(&t->slot->st.steal_attempts, 1);
		if (dq_steal(team->dq[k], &e) > 0) {
			if (t->slot != NULL) {
				stat_add(&t->slot->st.steals, 1);
				stat_add(&t->slot->st.stolen, 1);
			}
			task = e.arg;
			if (w != NULL && !descends(task, w)) {
				orphan(team, task);
				task = NULL;
			}
		}
	}
	if (task == NULL)
		return 0;
	omp_task_run(t, task);
	return 1;
}

/* A deferred task is over: its dependences, taskgroup, block and parent. */
static void task_finish(struct omp_thr *t, struct omp_task *task)
{
	struct omp_team *team = task->team;
	struct omp_task *parent = task->parent;
	struct omp_taskgroup *g = task->in_group;

	if (task->dep != NULL)
		omp_dep_done(t, task);
	if (task->dephash != NULL)
		omp_dep_free(task);
	if (g != NULL && atomic_fetch_sub_explicit(&g->count, 1,
	                                           memory_order_acq_rel) == 1)
		omp_wake(team, 1);
	block_put(t, task, task->size_class);
	/* The last touch of the parent: once its count is 0 it may end. */
	if (atomic_fetch_sub_explicit(&parent->children, 1, memory_order_acq_rel) == 1)
		omp_wake(team, 1);
}

/* Whether a task's children have all ended. */
static bool no_children(void *p)
{
	struct omp_task *task = p;

	return atomic_load_explicit(&task->children, memory_order_acquire) == 0;
}

/* Wait (tied) until task's children have ended. */
void omp_task_wait_children(struct omp_thr *t, struct omp_task *task)
{
	if (t->team == NULL) {
		/* No team: children ran at once; nothing to wait for. */
		return;
	}
	omp_wait(t, no_children, task, OMP_WAIT_TIED);
}

/* Run a deferred task on t (layer.h). */
void omp_task_run(struct omp_thr *t, struct omp_task *task)
{
	struct omp_task *prev = t->task;

	omp_slot_state(t, WS_WORK);
	if (t->slot != NULL)
		stat_add(&t->slot->st.tasks, 1);
	t->task = task;
	if (!omp_task_cancelled(task))
		task->fn(task->data);
	if (atomic_load_explicit(&task->children, memory_order_acquire))
		omp_task_wait_children(t, task);
	t->task = prev;
	if (task->detach &&
	    !(atomic_fetch_or(&task->detach_state, 1) & 2))
		return;         /* omp_fulfill_event finishes it */
	task_finish(t, task);
}

/* Set up the descriptor of an included task of parent (run at once on
 * the caller's stack), with what its descendants and the omp_* calls in
 * it read. */
static inline void included_init(struct omp_task *inc, struct omp_task *parent,
                                 struct omp_team *team, bool final, bool detach)
{
	inc->parent = parent;
	inc->team = team;
	atomic_init(&inc->children, 0);
	inc->taskgroup = NULL;
	inc->in_group = NULL;
	inc->cancel_group = parent->taskgroup != NULL ? parent->taskgroup
	                                              : parent->cancel_group;
	inc->icv = parent->icv;
	inc->depth = parent->depth + 1;
	inc->kind = OMP_TASK_INCLUDED;
	inc->final = final;
	inc->detach = detach;
	inc->dephash = NULL;
	inc->dep = NULL;
}

/* Whether a detached included task was fulfilled. */
static bool fulfilled(void *p)
{
	struct omp_task *task = p;

	return atomic_load(&task->detach_state) & 2;
}

/* Whether t's deque holds its ready limit of queued tasks. */
static inline bool stocked(struct omp_thr *t)
{
	deque *d = t->dq;
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed);
	int64_t top = atomic_load_explicit(&d->ends.top, memory_order_relaxed);

	return b - top >= t->limit;
}

/* Create a task (GOMP_task's arguments; range, when not NULL, is the two
 * range_size-byte bounds a taskloop's task finds at the start of its data,
 * written after the copy). */
void omp_task_create(void (*fn)(void *), void *data,
                     void (*cpyfn)(void *, void *), long arg_size,
                     long arg_align, bool if_clause, unsigned flags,
                     void **depend, int priority, void *detach,
                     const void *range, size_t range_size)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_task *parent = t->task, *task;
	struct omp_team *team = t->team;
	size_t size;
	char *arg;

	(void)priority;         /* a hint; the deques have no priorities */
	if (omp_g.cancel && team != NULL && omp_creation_cancelled(parent))
		return;
	if (arg_align < 1)
		arg_align = 1;
	if (team == NULL || !if_clause || parent->final ||
	    (!(flags & (OMP_TASK_DEPEND | OMP_TASK_DETACH)) &&
	     (team->n == 1 || stocked(t)))) {
		struct omp_task inc;
		if (team != NULL)
			omp_safepoint(t);
		if ((flags & OMP_TASK_DEPEND) && parent->dephash != NULL)
			omp_dep_wait(t, depend);
		included_init(&inc, parent, team,
		              parent->final || (flags & OMP_TASK_FINAL) != 0,
		              (flags & OMP_TASK_DETACH) != 0);
		inc.untied = 0;
		atomic_init(&inc.detach_state, 0);
		inc.reductions = NULL;
		if (inc.detach) {
			*(void **)detach = &inc;
			if (data != NULL && cpyfn == NULL)
				*(void **)data = &inc;
		}
		t->task = &inc;
		if (cpyfn != NULL || range != NULL) {
			char buf[arg_size + arg_align - 1];
			arg = (char *)(((uintptr_t)buf + (uintptr_t)arg_align - 1) &
			               ~(uintptr_t)(arg_align - 1));
			if (cpyfn != NULL)
				cpyfn(arg, data);
			else if (arg_size > 0)
				memcpy(arg, data, (size_t)arg_size);
			if (range != NULL)
				memcpy(arg, range, 2 * range_size);
			fn(arg);
		} else {
			fn(data);
		}
		if (inc.detach && !fulfilled(&inc)) {
			if (team != NULL)
				omp_wait(t, fulfilled, &inc, OMP_WAIT_TIED);
			else
				while (!fulfilled(&inc))
					sched_yield();
		}
		if (atomic_load_explicit(&inc.children, memory_order_acquire))
			omp_task_wait_children(t, &inc);
		if (inc.dephash != NULL)
			omp_dep_free(&inc);
		t->task = parent;
		return;
	}
	omp_safepoint(t);
	size = sizeof(*task) + (size_t)arg_size + (size_t)arg_align - 1;
	{
		unsigned cls;
		task = block_get(t, size, &cls);
		task->size_class = cls;
	}
	arg = (char *)(((uintptr_t)(task + 1) + (uintptr_t)arg_align - 1) &
	               ~(uintptr_t)(arg_align - 1));
	task->parent = parent;
	task->team = team;
	atomic_init(&task->children, 0);
	task->taskgroup = NULL;
	task->in_group = parent->taskgroup;
	task->cancel_group = parent->taskgroup != NULL ? parent->taskgroup
	                                               : parent->cancel_group;
	task->icv = parent->icv;
	task->depth = parent->depth + 1;
	task->kind = OMP_TASK_EXPLICIT;
	task->final = (flags & OMP_TASK_FINAL) != 0;
	task->untied = (flags & OMP_TASK_UNTIED) != 0;
	task->detach = (flags & OMP_TASK_DETACH) != 0;
	atomic_init(&task->detach_state, 0);
	task->dephash = NULL;
	task->dep = NULL;
	task->reductions = NULL;
	task->fn = fn;
	task->data = arg;
	if (task->detach)
		*(void **)detach = task;
	if (cpyfn != NULL) {
		t->task = task;
		cpyfn(arg, data);
		t->task = parent;
	} else if (arg_size > 0) {
		memcpy(arg, data, (size_t)arg_size);
	}
	if (task->detach && data != NULL && cpyfn == NULL)
		*(void **)arg = task;
	if (range != NULL)
		memcpy(arg, range, 2 * range_size);
	/* Counted where its creation is (taskgroup and parent) before anyone
	 * can run it. */
	if (task->in_group != NULL)
		atomic_fetch_add_explicit(&task->in_group->count, 1,
		                          memory_order_relaxed);
	atomic_fetch_add_explicit(&parent->children, 1, memory_order_relaxed);
	if ((flags & OMP_TASK_DEPEND) && omp_dep_add(parent, task, depend) > 0)
		return;         /* its last predecessor pushes it */
	omp_task_push(t, task);
}

/* Run fn(data) at once as an included task of parent on t: the common
 * spawn of a busy thread (no copy function, dependences or detach), kept
 * to the fields its descendants and the omp_* calls in it read. */
static void run_included(struct omp_thr *t, struct omp_task *parent,
                         void (*fn)(void *), void *data, unsigned flags)
{
	struct omp_task inc;

	included_init(&inc, parent, t->team, (flags & OMP_TASK_FINAL) != 0, 0);
	omp_safepoint(t);
	t->task = &inc;
	fn(data);
	if (atomic_load_explicit(&inc.children, memory_order_acquire))
		omp_task_wait_children(t, &inc);
	if (inc.dephash != NULL)
		omp_dep_free(&inc);
	t->task = parent;
}

/* #pragma omp task. */
OMP_API void GOMP_task(void (*fn)(void *), void *data,
                       void (*cpyfn)(void *, void *), long arg_size,
                       long arg_align, bool if_clause, unsigned flags,
                       void **depend, int priority, void *detach)
{
	struct omp_thr *t = omp_thr_get();

	/* The fast path: a busy thread's plain task runs at once (a team of
	 * one thread is always busy: nobody could take a queued task). */
	if (__builtin_expect(cpyfn == NULL && if_clause && t->team != NULL &&
	                     !(flags & (OMP_TASK_DEPEND | OMP_TASK_DETACH)) &&
	                     !omp_g.cancel && !t->task->final &&
	                     (t->team->n == 1 || stocked(t)), 1)) {
		run_included(t, t->task, fn, data, flags);
		return;
	}
	omp_task_create(fn, data, cpyfn, arg_size, arg_align, if_clause, flags,
	                depend, priority, detach, NULL, 0);
}

/* #pragma omp taskwait. */
OMP_API void GOMP_taskwait(void)
{
	struct omp_thr *t = omp_self;

	if (t == NULL || t->task == NULL ||
	    atomic_load_explicit(&t->task->children, memory_order_acquire) == 0)
		return;
	omp_task_wait_children(t, t->task);
}

/* #pragma omp taskwait depend(...): wait for the sibling tasks these
 * dependences name. */
OMP_API void GOMP_taskwait_depend(void **depend)
{
	struct omp_thr *t = omp_self;

	if (t == NULL || t->task == NULL || t->task->dephash == NULL)
		return;
	omp_dep_wait(t, depend);
}

/* #pragma omp taskyield: a safe point, where a thread that holds a slot
 * others wait for lets the first of them run (a thread that spins on
 * taskyield waiting for another thread of its team, with fewer
 * processors than threads, would otherwise keep that thread waiting). */
OMP_API void GOMP_taskyield(void)
{
	struct omp_thr *t = omp_self;

	if (t == NULL || t->team == NULL)
		return;
	omp_safepoint(t);
	if (t->slot != NULL &&
	    atomic_load_explicit(&omp_slot_waiters, memory_order_relaxed) > 0) {
		omp_slot_release(t);
		omp_slot_acquire(t);
	}
}

/* #pragma omp taskgroup: a group whose end waits for the tasks created in it. */
OMP_API void GOMP_taskgroup_start(void)
{
	struct omp_thr *t = omp_thr_get();
	struct omp_task *task = t->task;
	struct omp_taskgroup *g = malloc(sizeof(*g));

	if (g == NULL)
		omp_fatal("out of memory for a taskgroup");
	g->prev = task->taskgroup;
	g->outer = task->taskgroup != NULL ? task->taskgroup : task->cancel_group;
	atomic_init(&g->count, 0);
	atomic_init(&g->cancelled, 0);
	g->reductions = g->outer != NULL ? g->outer->reductions : NULL;
	g->workshare = 0;
	task->taskgroup = g;
}

/* Whether a taskgroup's tasks have all ended. */
static bool group_done(void *p)
{
	struct omp_taskgroup *g = p;

	return atomic_load_explicit(&g->count, memory_order_acquire) == 0;
}

/* The end of a taskgroup: wait for its tasks (and so their descendants). */
OMP_API void GOMP_taskgroup_end(void)
{
	struct omp_thr *t = omp_self;
	struct omp_task *task;
	struct omp_taskgroup *g;

	if (t == NULL || (g = (task = t->task)->taskgroup) == NULL)
		return;
	if (atomic_load_explicit(&g->count, memory_order_acquire)) {
		if (t->team != NULL)
			omp_wait(t, group_done, g, OMP_WAIT_TIED);
	}
	task->taskgroup = g->prev;
	free(g);
}

/* Whether the current task is final. */
OMP_API int omp_in_final(void)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->task != NULL && t->task->final;
}

/* A detached task's event happened: it completes (now, if its body ended). */
OMP_API void omp_fulfill_event(omp_event_handle_t event)
{
	struct omp_task *task = (struct omp_task *)(uintptr_t)event;
	int old;

	if (task == NULL)
		return;
	old = atomic_fetch_or(&task->detach_state, 2);
	if (task->kind == OMP_TASK_INCLUDED) {
		if (task->team != NULL)
			omp_wake(task->team, 1);
		return;
	}
	if (old & 1)
		task_finish(omp_self, task);
}
