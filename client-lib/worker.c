/*
 * worker.c - the scheduler's loop: each worker looks for work (its own
 * deque, the roots, muggable deques, then random victims: find_work),
 * runs it on a loop fiber and sleeps when there is none for a while; the
 * pool of loop fibers, the switch between fibers, and waking sleepers.
 * The slow paths of spawn, sync and poll, and fiber suspension and
 * resumption, are in suspend.c; the allotment (leaving, parking, mugging,
 * the deque hand-over) is in allot.c; worker.h has what the three share.
 *
 * Time is accounted on state changes only (work, steal, sleep), never per
 * task.
 */
#include "worker.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "allot.h"
#include "quantum.h"
#include "suspend.h"

__thread struct asteal__hot *asteal__tls __attribute__((tls_model("initial-exec")));
const _Atomic uint32_t asteal__no_stop = 0;
__thread struct asteal__fast asteal__fast __attribute__((tls_model("initial-exec"))) =
	{ 0, ASTEAL__GROUP_OUTSIDE, &asteal__no_stop };

#if ASTEAL_TSAN
_Atomic uint64_t asteal__fence_word;
#endif

intptr_t asteal__tls_offset;

/* Record where asteal__tls sits relative to the thread pointer: the same
 * for every thread, since it is in the static TLS block. */
__attribute__((constructor)) static void tls_offset_init(void)
{
	uintptr_t tp;

#if defined(__x86_64__)
	__asm__ volatile("movq %%fs:0, %0" : "=r"(tp));
#else
	__asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
#endif
	asteal__tls_offset = (intptr_t)((uintptr_t)&asteal__tls - tp);
}

static void loop(void);

/* Print one line about a misuse of the API and fail with err. */
int worker_report_misuse(const char *call, const char *what, int err)
{
	fprintf(stderr, "asteal: %s: %s\n", call, what);
	errno = err;
	return -1;
}

/* Work was made visible (a deque went from empty to not empty, a root, a
 * muggable deque): wake a sleeper if there is one.  The fence pairs with
 * the one in sleep_until_work: either the sleeper's scan sees the new work,
 * or we see the sleeper.  Pushes on a deque whose public part already had
 * entries need no wake-up (a sleeper's scan would have seen those
 * entries), which keeps this fence off most pushes. */
void worker_notify(struct runtime *rt)
{
	FENCE_SC();
	if (atomic_load_explicit(&rt->sleepers, memory_order_relaxed) > 0) {
		atomic_fetch_add_explicit(&rt->epoch, 1, memory_order_release);
		futex_wake(&rt->epoch, 1);
	}
}

/* Wake every sleeping worker (stop). */
void worker_wake_all(struct runtime *rt)
{
	atomic_fetch_add_explicit(&rt->epoch, 1, memory_order_seq_cst);
	futex_wake(&rt->epoch, INT_MAX);
}

/* Ask worker v (unless it is w itself) for work: clear its stocked hint,
 * so that its next spawn pushes instead of running the child at once, and
 * raise its deque's want, so that it publishes its private entries at its
 * next spawn or sync (answer_thieves).  An owner whose ready limit grew
 * (adapt_limit) does not re-stock when it pops its own entries back (a
 * deque it drains itself needs no refill while nobody asks), so a thief
 * that found its deque empty, or one that is going to sleep, is what makes
 * it push again, at its next spawn.
 * Clearing the hint is always safe (it only sends a spawn to the slow
 * path); the load first keeps the owner's cache line shared while the
 * hint is already clear. */
static void request_work(struct worker *w, struct worker *v)
{
	_Atomic uint32_t *st;
	deque *d;

	if (v == NULL || v == w)
		return;
	/* Acquire: the deque as deque_own set it up. */
	d = atomic_load_explicit(&v->victim, memory_order_acquire);
	if (d != NULL && !atomic_load_explicit(&d->want, memory_order_relaxed))
		atomic_store_explicit(&d->want, 1, memory_order_relaxed);
	st = worker_stocked(v);
	if (atomic_load_explicit(st, memory_order_relaxed))
		atomic_store_explicit(st, 0, memory_order_relaxed);
}

/* Whether any worker could find something to do now. */
static int work_visible(struct runtime *rt)
{
	int i, n;

	if (atomic_load_explicit(&rt->stopping, memory_order_relaxed) ||
	    atomic_load_explicit(&rt->nroots, memory_order_relaxed))
		return 1;
	n = atomic_load_explicit(&rt->ndeques, memory_order_acquire);
	for (i = 0; i < n; i++)
		if (dq_public(rt->deques[i]) > 0)
			return 1;
	return 0;
}

/* Sleep on the job's sleepers' word (holding e) and on our slot's bell in
 * the page (holding bell) at once, until either moves or the backstop
 * passes: 0, or -1 when the kernel has no futex_waitv (Linux < 5.16). */
static int sleep_on_bell(struct runtime *rt, struct worker *w, struct page *pg,
                         uint32_t e, uint32_t bell)
{
	return page_bell_wait_with(pg, w->id, bell, &rt->epoch, e,
	                           RT_SLEEP_BACKSTOP_NS);
}

/* Sleep until work may have appeared (or the runtime stops).  Wake-ups
 * come from worker_notify; the timeout is a backstop for the one race it
 * does not cover (a push that the owner saw land on a non-empty deque while
 * a thief was emptying it), after which one scan decides whether to sleep
 * on. */
static void sleep_until_work(struct worker *w)
{
	struct runtime *rt = w->rt;
	struct timespec backstop = { 0, RT_SLEEP_BACKSTOP_NS };
	int i;

	atomic_fetch_add_explicit(&rt->sleepers, 1, memory_order_seq_cst);
	/* An owner may have drained its deque and stay stocked until asked
	 * (request_work): ask every one, so that the next spawn anywhere
	 * pushes and, its deque having been empty (else our scan finds
	 * work), wakes us (worker_notify). */
	for (i = 0; i < rt->nworkers; i++)
		request_work(w, &rt->workers[i]);
	for (;;) {
		uint32_t e = atomic_load_explicit(&rt->epoch, memory_order_acquire);
		/* With the page, the daemon rings our slot's bell when it
		 * takes it: read before we look at the generation. */
		struct page *pg = atomic_load_explicit(&rt->page, memory_order_acquire);
		uint32_t bell = pg != NULL && w->id < PAGE_SLOTS ? page_bell(pg, w->id) : 0;
		FENCE_SC();
		if (work_visible(rt) || safe_point_flags(w))
			break;
		set_state(w, WS_SLEEP);
		stat_add(&w->st.sleeps, 1);
		if (pg == NULL || sleep_on_bell(rt, w, pg, e, bell) < 0)
			syscall(SYS_futex, (uint32_t *)&rt->epoch, FUTEX_WAIT_PRIVATE,
			        e, &backstop, NULL, 0);
		set_state(w, WS_STEAL);
		if (atomic_load_explicit(&rt->epoch, memory_order_acquire) != e)
			break;          /* notified */
	}
	atomic_fetch_sub_explicit(&rt->sleepers, 1, memory_order_seq_cst);
}

/* A fiber for the loop: a parked one from the worker's cache or the
 * runtime's pool, else a new one; NULL when out of memory. */
fiber *worker_fiber_get(struct worker *w)
{
	struct runtime *rt = w->rt;
	fiber *f = w->pool;

	if (f != NULL) {
		w->pool = f->next;
		w->npool--;
		return f;
	}
	pthread_mutex_lock(&rt->lock);
	f = rt->free_fibers;
	if (f != NULL)
		rt->free_fibers = f->next;
	pthread_mutex_unlock(&rt->lock);
	if (f != NULL)
		return f;
	return worker_fiber_new(rt);
}

/* Keep a parked loop fiber for reuse. */
static void fiber_put(struct worker *w, fiber *f)
{
	struct runtime *rt = w->rt;

	if (w->npool < RT_FIBER_CACHE) {
		f->next = w->pool;
		w->pool = f;
		w->npool++;
		return;
	}
	pthread_mutex_lock(&rt->lock);
	f->next = rt->free_fibers;
	rt->free_fibers = f;
	pthread_mutex_unlock(&rt->lock);
}

/* The entry of a new fiber: finish the switch that started it, then loop. */
static void loop_entry(void *arg)
{
	(void)arg;
	loop();
}

/* Create a loop fiber with the runtime's stack size. */
fiber *worker_fiber_new(struct runtime *rt)
{
	return fiber_create(rt->stack_size, loop_entry, NULL);
}

/* Take a waiting root task, if any. */
static int take_root(struct runtime *rt, dq_entry *e)
{
	struct root *r;

	pthread_mutex_lock(&rt->lock);
	r = rt->roots;
	if (r != NULL) {
		rt->roots = r->next;
		atomic_fetch_sub_explicit(&rt->nroots, 1, memory_order_relaxed);
	}
	pthread_mutex_unlock(&rt->lock);
	if (r == NULL)
		return 0;
	e->fn = r->fn;
	e->arg = r->arg;
	e->ctx = &r->g;
	return 1;
}

/* A deque to try to steal from: most often (3 in 4) the current deque of
 * another worker, where fresh work appears, else any deque of the table
 * (suspended fibers' deques, muggable ones), uniformly. */
static deque *pick_victim(struct worker *w, int n)
{
	struct runtime *rt = w->rt;
	uint64_t r = rng_next(&w->rng);

	if (rt->nworkers > 1 && (r & 3) != 0) {
		int k = (int)((r >> 2) % (uint64_t)(rt->nworkers - 1));
		if (k >= w->id)
			k++;
		/* Acquire: the deque's fields as its creator initialised
		 * them (deque_own publishes with release). */
		return atomic_load_explicit(&rt->workers[k].victim,
		                            memory_order_acquire);
	}
	return rt->deques[(r >> 2) % (uint64_t)n];
}

/* Steal-half: after taking a task from d, which showed `left` public
 * entries after it, take up to half of those as well (at most
 * RT_STEAL_BATCH in all), onto our own deque, which is empty here.  Each
 * entry is taken by a plain steal, so the deque's argument stands as it
 * is; a ready fiber is left where it is (dq_steal_task), so that a fiber
 * never resumes on a deque holding other tasks' entries above its own.
 * The entries keep their order: the oldest, on top, go to other thieves
 * first, and we pop the youngest first, as their owner would have.  On a
 * tree whose subtrees are mostly leaves (a critical UTS tree) one steal
 * then brings many subtrees' worth of work, so thieves come back far less
 * often, and every steal they skip is a refill push their victim skips.
 * Returns the number taken. */
static int64_t steal_more(struct worker *w, deque *d, int64_t left)
{
	deque *own = (deque *)w->hot.dq;
	int64_t k = left / 2, j;
	dq_entry x;

	if (k > RT_STEAL_BATCH - 1)
		k = RT_STEAL_BATCH - 1;
	if (k <= 0 || dq_reserve(own, k) < 0)
		return 0;
	for (j = 0; j < k && dq_steal_task(d, &x) > 0; j++)
		dq_push_private(own, &x);       /* cannot fail: reserved */
	if (j > 0 && dq_expose(own) == 0)
		worker_notify(w->rt);
	return j;
}

/* A steal from d took *e: take more (steal_more, not in ABP mode, whose
 * thieves take one entry), tell the victim's owner, count it, and pass a
 * wake-up on to the next sleeper when work is left. */
static void stole(struct worker *w, deque *d, const dq_entry *e)
{
	struct runtime *rt = w->rt;
	struct worker *v = atomic_load_explicit(&d->owner, memory_order_relaxed);
	int64_t left = dq_public(d), more = 0;

	if (rt->mode != RT_MODE_ABP && e->fn != NULL && left > 1) {
		more = steal_more(w, d, left);
		left -= more;
	}
	if (v != NULL) {
		/* The owner has entries fewer: let its next spawn push
		 * again. */
		atomic_store_explicit(worker_stocked(v), 0, memory_order_relaxed);
		/* We took its last entry, public or private: ask its owner
		 * for more (see adapt_limit).  An owner with private entries
		 * left has more; our next miss asks it to publish them. */
		if (dq_size(d) == 0 && rt->ready_limit < RT_READY_LIMIT_MAX)
			atomic_store_explicit(&v->hungry, 1, memory_order_relaxed);
	}
	stat_add(&w->st.steals, 1);
	stat_add(&w->st.stolen, (uint64_t)(1 + more));
	if (left > 0)
		worker_notify(rt);
}

/* Find the next thing to run: own deque, roots, muggable deques (not in
 * ABP mode), then random victims; sleeps when there is nothing for a while,
 * parks when the allotment lost the worker.  Returns 0 only when the
 * runtime stops. */
static int find_work(struct worker *w, dq_entry *e)
{
	struct runtime *rt = w->rt;
	uint64_t start = 0;
	unsigned fails = 0;
	int abp = rt->mode == RT_MODE_ABP;
	/* Our own deque comes first, unless we were asked to leave.  It may
	 * hold the fiber we just left at a safe point (AFTER_PARK: at the
	 * bottom, on its own children), a fiber made ready (complete) or tasks
	 * a steal brought (steal_more).  Before we take anything from anywhere
	 * else, the deque must be popped (flag clear) or given up whole by
	 * allot_park (flag set): a root, a stolen task or a stolen fiber run on
	 * it would go on top of those entries, and a fiber resumed there that
	 * keeps no deque (one stolen after it left at a safe point) pops them
	 * in the sync of a group whose children were stolen ("found a child of
	 * another group").  The loop reads the flag again, and a recall
	 * (worker_allot) may clear it in between: `asked` remembers that the
	 * pop was skipped, and the loop makes it up when the request was
	 * withdrawn.  The relaxed reads are enough: only we push on our deque,
	 * so nothing can appear on it between them (thieves only take), and a
	 * stale flag only moves the leave to the next read, as at any safe
	 * point. */
	int asked = atomic_load_explicit(&w->hot.flags, memory_order_relaxed) != 0;

	if (!asked && dq_pop((deque *)w->hot.dq, e))
		return 1;
	set_state(w, WS_STEAL);
	for (;;) {
		int n;
		if (atomic_load_explicit(&rt->stopping, memory_order_relaxed))
			return 0;
		if (unlikely(safe_point_flags(w))) {
			asked = 0;
			allot_park(w);
			/* Our own deque may hold entries: the one allot_park
			 * kept for want of a fresh deque, or one it mugged
			 * (ABP). */
			if (dq_pop((deque *)w->hot.dq, e))
				break;
			continue;
		}
		if (unlikely(asked)) {
			/* The request was withdrawn: the pop skipped above. */
			asked = 0;
			if (dq_pop((deque *)w->hot.dq, e))
				break;
		}
		if (atomic_load_explicit(&rt->nroots, memory_order_relaxed) &&
		    take_root(rt, e))
			break;
		if (!abp && atomic_load_explicit(&rt->nmuggable, memory_order_relaxed)) {
			int got;
			set_state(w, WS_MUG);
			got = allot_mug(w);
			if (got)
				stat_add(&w->st.mugs, 1);
			got = got && dq_pop((deque *)w->hot.dq, e);
			if (got)
				break;
			set_state(w, WS_STEAL);
		}
		n = atomic_load_explicit(&rt->ndeques, memory_order_acquire);
		if (n > 1) {
			deque *d = pick_victim(w, n);
			if (&d->ends != w->hot.dq) {
				int r = dq_steal(d, e);
				stat_add(&w->st.steal_attempts, 1);
				if (r == 0)     /* empty: ask its owner to push */
					request_work(w, atomic_load_explicit(
					    &d->owner, memory_order_relaxed));
				if (r > 0) {
					stole(w, d, e);
					break;
				}
				if (r < 0)
					continue;   /* contended: there is work */
			}
		}
		/* Back off a little more after each miss (ABP's thieves
		 * yield the processor instead), then sleep. */
		fails++;
		if (abp)
			sched_yield();
		else
			for (unsigned i = 0; i < (fails < 32 ? fails : 32); i++)
				cpu_relax();
		if ((fails & 63) == 0) {
			uint64_t t = qtime_now_ns();
			if (start == 0)
				start = t;
			else if (t - start > RT_SPIN_NS) {
				sleep_until_work(w);
				start = 0;
				fails = 0;
			}
		}
	}
	set_state(w, WS_WORK);
	restock(w);
	return 1;
}

/* Run the action the switching fiber left for us. */
static void after_switch(struct worker *w)
{
	int kind = w->after;

	w->after = AFTER_NONE;
	if (kind == AFTER_RELEASE) {
		fiber_put(w, w->after_fiber);
	} else if (kind == AFTER_PARK) {
		/* The fiber that left at a safe point goes to the bottom of the
		 * deque its tasks are on, for a mugger (or ourselves) to resume. */
		dq_entry e = { NULL, w->after_fiber, NULL };
		if (dq_push((deque *)w->hot.dq, &e) < 0)
			ASTEAL_FATAL("out of memory leaving a fiber on its deque");
	} else if (kind == AFTER_SUSPEND) {
		asteal_group *g = w->after_group;
		int64_t n = w->after_count;
		fiber *f = w->after_fiber;
		g->waiter = f;
		/* acq_rel: release publishes the waiter to the last child; acquire
		 * sees the results of children that already ended. */
		if (atomic_fetch_add_explicit(&g->join, n, memory_order_acq_rel) + n == 0)
			suspend_make_ready(w, f);
	}
}

_Static_assert(sizeof(struct asteal__loops) == sizeof(((fiber *)0)->saved),
               "a fiber saves its loop frames in fiber.saved");

/* Run fiber `to` on this worker; returns when some worker resumes us.  The
 * worker's loop frames (hot.loops) are the running fiber's: they go with
 * the fiber that leaves and come from the one that arrives. */
void worker_switch_to(struct worker *w, fiber *to)
{
	fiber *from = w->cur;

	memcpy(from->saved, &w->hot.loops, sizeof(w->hot.loops));
	memcpy(&w->hot.loops, to->saved, sizeof(w->hot.loops));
	w->cur = to;
	fiber_switch(from, to);
	after_switch(worker_self());
}

/* A child that was not run by its group's sync has ended: count it, and
 * make the waiting parent ready if it was the last. */
static void complete(struct worker *w, asteal_group *g)
{
	if (g->state == GROUP_ROOT) {
		struct root *r = (struct root *)g;
		/* The root is no longer in flight from now, not from when its
		 * caller's thread next runs (a preempted caller kept the job
		 * busy with nothing to run: asleep, inefficient quanta).
		 * Before done: once done, the caller may stop the runtime. */
		atomic_fetch_sub(&w->rt->running_roots, 1);
		atomic_store_explicit(&r->done, 1, memory_order_release);
		futex_wake(&r->done, INT_MAX);
		return;
	}
	/* acq_rel: release hands our results to the parent; acquire sees the
	 * waiter the parent published.  Only the last child (1 -> 0) may touch
	 * g afterwards: the parent stays suspended until it is made ready. */
	if (atomic_fetch_sub_explicit(&g->join, 1, memory_order_acq_rel) == 1)
		suspend_make_ready(w, g->waiter);
}

/* The scheduling loop every loop fiber runs. */
static void loop(void)
{
	after_switch(worker_self());
	for (;;) {
		struct worker *w = worker_self();
		dq_entry e;

		if (!find_work(w, &e)) {
			/* Stopping: hand this fiber back and return to the
			 * thread's own stack. */
			w->after = AFTER_RELEASE;
			w->after_fiber = w->cur;
			worker_switch_to(w, &w->native);
			continue;
		}
		if (e.fn == NULL) {
			suspend_resume(w, e.arg);
			continue;
		}
		stat_add(&w->st.tasks, 1);
		e.fn(e.arg);
		complete(worker_self(), e.ctx);
	}
}

/* A worker thread: run loop fibers until the runtime stops. */
void *worker_main(void *arg)
{
	struct worker *w = arg;
	stack_t ss = { .ss_sp = w->altstack, .ss_size = 64 * 1024, .ss_flags = 0 };
	stack_t off = { .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
	fiber *f;

	asteal__tls = &w->hot;
	asteal__fast.group = ASTEAL__GROUP_IDLE;
	atomic_store(&w->stocked, &asteal__fast.stocked);
	quantum_page_thread(w, &asteal__fast.stop);
	if (w->altstack != NULL)
		sigaltstack(&ss, NULL);
	fiber_init_native(&w->native);
	f = w->cur;                     /* a fiber made by asteal_start */
	w->cur = &w->native;
	worker_switch_to(w, f);
	set_state(w, WS_STEAL);
	if (w->altstack != NULL)
		sigaltstack(&off, NULL);
	return NULL;
}
