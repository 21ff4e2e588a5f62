/*
 * suspend.c - the slow paths of spawn, sync and poll, and fiber suspension
 * and resumption.
 *
 * Spawn is child-stealing: the child goes on the deque (or runs at once,
 * see asteal.h on lazy spawning) and the parent goes on.  Sync pops the
 * group's children back from the bottom and runs them; the rest were
 * stolen.  A pushed child is public (stealable) when thieves have nothing
 * else to take or asked for work, else private: the owner pops most of its
 * children back itself, and a private entry costs no fence to push or pop
 * (deque.h).  Thieves that find nothing raise the deque's want; the owner
 * publishes everything it holds at its next spawn or sync, and whenever it
 * gives the deque up.  If stolen children are still running, the syncing
 * fiber F is suspended:
 *
 *   1. If the worker's deque still holds entries (children of F's outer
 *      groups), F keeps that deque (DQ_SUSPENDED: thieves may steal from
 *      it, nobody pops) and the worker takes a fresh one.  So a deque's task
 *      entries always belong to one fiber.
 *   2. The worker switches to a loop fiber L.  Only then, on L, does it
 *      publish F as the group's waiter and add the stolen count to the
 *      group's join counter (the children subtract one each as they end).
 *      Publishing after the switch means nobody can resume F while F's
 *      registers are still being saved.
 *   3. Whoever brings the counter to zero (the last child, or L if all had
 *      already ended) pushes F on its own deque as a ready fiber, the
 *      Blumofe-Leiserson enable rule.  The worker that pops or steals that
 *      entry resumes F, adopting F's deque if it kept one; its own deque,
 *      if not empty, becomes muggable.
 */
#include "suspend.h"

#include <errno.h>
#include <sched.h>

#include "pfor.h"
#include "worker.h"

/* The worker's ready limit adapts to its thieves.  It starts at the
 * configured one; a thief that takes the last entry of the deque asks for
 * more (hungry), and the limit doubles, up to RT_READY_LIMIT_MAX; when the
 * owner has popped RT_READY_DECAY times the limit of its own entries back
 * with nobody asking, it halves again, down to the configured one.  So a
 * job whose stolen tasks are big (fib: a thief takes fib(n-1) near the
 * root) keeps a few stealable entries and runs almost every spawn as a
 * call, while one whose stolen tasks are mostly tiny (a critical UTS tree,
 * where most subtrees are single leaves) keeps enough entries that a thief
 * that comes back soon still finds older, shallower work than the owner's
 * current frame, instead of ping-ponging with the owner deep in the tree
 * (each round a suspend and a steal).  Called on the owner's slow paths
 * only: a thief's steal clears stocked, so the owner's next spawn gets
 * here. */
static void adapt_limit(struct worker *w)
{
	if (unlikely(atomic_load_explicit(&w->hungry, memory_order_relaxed))) {
		atomic_store_explicit(&w->hungry, 0, memory_order_relaxed);
		if (w->limit < RT_READY_LIMIT_MAX)
			w->limit *= 2;
		w->own_pops = 0;
	}
}

/* The owner popped one of its own entries back (adapt_limit). */
static inline void own_pop(struct worker *w)
{
	int64_t base = w->rt->ready_limit;

	if (w->limit > base && ++w->own_pops >= RT_READY_DECAY * w->limit) {
		w->limit /= 2;
		if (w->limit < base)
			w->limit = base;
		w->own_pops = 0;
	}
}

/* Push a ready fiber on the worker's deque (the enable rule). */
void suspend_make_ready(struct worker *w, fiber *f)
{
	dq_entry e = { NULL, f, NULL };

	if (dq_push((deque *)w->hot.dq, &e) < 0)
		ASTEAL_FATAL("out of memory making a fiber ready");
	worker_notify(w->rt);
}

/* Resume a ready fiber on this worker, adopting the deque it kept. */
void suspend_resume(struct worker *w, fiber *f)
{
	deque *kept = f->user;

	if (kept != NULL) {
		allot_deque_release(w->rt, (deque *)w->hot.dq);
		deque_own(w, kept);
		f->user = NULL;
	}
	w->after = AFTER_RELEASE;
	w->after_fiber = w->cur;
	worker_switch_to(w, f);
}

/* Suspend the running fiber until the n stolen children of g have ended. */
static void suspend(struct worker *w, asteal_group *g, int64_t n)
{
	fiber *self = w->cur, *l;
	deque *d = (deque *)w->hot.dq, *fresh;

	/* The fiber keeps its deque even when it is empty: the worker's next
	 * deque may receive other tasks' entries (steal_more), which must
	 * never lie where this fiber's outer groups pop when it resumes. */
	fresh = allot_deque_get(w->rt);
	if (fresh == NULL)
		goto block;
	l = worker_fiber_get(w);
	if (l == NULL) {
		allot_deque_release(w->rt, fresh);
		goto block;
	}
	deque_disown(d, DQ_SUSPENDED);
	self->user = d;
	deque_own(w, fresh);
	stat_add(&w->st.suspends, 1);
	w->after = AFTER_SUSPEND;
	w->after_fiber = self;
	w->after_group = g;
	w->after_count = n;
	worker_switch_to(w, l);
	return;
block:
	/* Out of memory for a fiber or deque: wait here instead (correct,
	 * only slower: this worker does nothing meanwhile). */
	while (atomic_load_explicit(&g->join, memory_order_acquire) != -n)
		sched_yield();
}

/* The owner answers thieves: when one asked for work (want) and the deque
 * holds private entries, publish them all, and wake a sleeper if thieves
 * had nothing to take. */
static inline void answer_thieves(struct worker *w, deque *d)
{
	if (unlikely(atomic_load_explicit(&d->want, memory_order_relaxed)) &&
	    dq_private(d) > 0 && dq_expose(d) == 0)
		worker_notify(w->rt);
}

/* The chunk boundary of a loop found the stocked hint clear (a thief took
 * or asked for work, or the allotment wants the worker): pass the safe
 * point, promote a loop part when the deque is empty, and set the hint
 * again, so that the loop runs on until the next request. */
void asteal__for_poll(void)
{
	struct worker *w = worker_self();
	deque *d;

	if (unlikely(safe_point_flags(w))) {
		asteal__poll_slow();
		w = worker_self();
	}
	d = (deque *)w->hot.dq;
	answer_thieves(w, d);
	if (dq_size(d) == 0) {
		int64_t before = pfor_promote(&w->hot.loops, d);
		if (before >= 0)
			stat_add(&w->st.pushed, 1);
		if (before == 0)
			worker_notify(w->rt);
	}
	stock(w);
}

/* Spawn's slow path: push the child, or run it when there is no room. */
int asteal__spawn_slow(asteal_group *g, void (*fn)(void *), void *arg)
{
	struct worker *w = worker_self();
	int64_t before, t, size;
	int pub;
	deque *d;
	dq_entry e;

	if (w == NULL)
		return worker_report_misuse("asteal_spawn", "called outside a task "
		                            "(use asteal_run)", EPERM);
	if (g->state == ASTEAL__GROUP_OUTSIDE)
		g->state = ASTEAL__GROUP_IDLE;    /* initialised outside, used inside */
	if (g->state != ASTEAL__GROUP_IDLE && g->state != GROUP_BUSY)
		return worker_report_misuse("asteal_spawn", "group was not "
		                            "initialised with asteal_group_init", EINVAL);
	if (unlikely(safe_point_flags(w))) {
		asteal__poll_slow();
		w = worker_self();
	}
	d = (deque *)w->hot.dq;
	adapt_limit(w);
	answer_thieves(w, d);
	/* One look at the ends (the owner's own bottom and split, the
	 * thieves' top) serves every decision below. */
	t = atomic_load_explicit(&d->ends.top, memory_order_acquire);
	size = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed) - t;
	if (size >= w->limit) {
		/* Enough stealable work already: run the child now, which is
		 * always correct; set the hint again so that the next spawns
		 * take the fast path. */
		restock_at(w, size);
		fn(arg);
		return 1;
	}
	e.fn = fn;
	e.arg = arg;
	e.ctx = g;
	if (g->state == ASTEAL__GROUP_IDLE)
		group_start(g);         /* the first child */
	/* Public when thieves asked or have nothing to take (dq_push then
	 * publishes the private entries too), else private: an entry the
	 * owner pops back itself, the common case, then costs no fence. */
	pub = atomic_load_explicit(&d->want, memory_order_relaxed) ||
	      atomic_load_explicit(&d->split, memory_order_relaxed) <= t;
	before = pub ? dq_push(d, &e) : dq_push_private(d, &e);
	if (before < 0) {
		/* No memory to grow the deque: run the child now. */
		if (g->pushed == 0)
			g->state = ASTEAL__GROUP_IDLE;
		fn(arg);
		return 1;
	}
	g->pushed++;
	restock_at(w, size + 1);
	stat_add(&w->st.pushed, 1);
	/* Only a public part that was empty needs a wake-up (see
	 * worker_notify). */
	if (pub && before == 0)
		worker_notify(w->rt);
	return 0;
}

/* Sync's slow path: run the children still on our deque, then wait for the
 * stolen ones. */
int asteal__sync_slow(asteal_group *g)
{
	struct worker *w = worker_self();
	int64_t stolen;

	if (w == NULL)
		return worker_report_misuse("asteal_sync", "called outside a task "
		                            "(use asteal_run)", EPERM);
	if (g->state == ASTEAL__GROUP_OUTSIDE || g->state == ASTEAL__GROUP_IDLE) {
		/* Initialised outside a task, synced inside one: fine. */
		g->state = ASTEAL__GROUP_IDLE;
		return 0;
	}
	if (g->state != GROUP_BUSY)
		return worker_report_misuse("asteal_sync", "group was not "
		                            "initialised with asteal_group_init", EINVAL);
	if (unlikely(safe_point_flags(w))) {
		asteal__poll_slow();
		w = worker_self();
	}
	while (g->pushed > 0) {
		deque *d = (deque *)w->hot.dq;
		dq_entry e;
		answer_thieves(w, d);
		if (!dq_pop(d, &e))
			break;          /* the rest were stolen */
		if (e.ctx != g && e.fn == pfor_task) {
			/* A part promoted off an outer loop (pfor_promote pushes
			 * only on an empty deque, so everything of ours that
			 * was older is gone, stolen): put it back. */
			if (dq_push(d, &e) < 0)
				ASTEAL_FATAL("out of memory putting a loop part back");
			break;
		}
		if (e.ctx != g) {
			/* Else only entries of an inner group can be below
			 * ours: an inner group was left unsynced. */
			ASTEAL_FATAL("asteal_sync: found a child of another group "
			             "on the deque; groups must be synced innermost "
			             "first, before their function returns");
		}
		g->pushed--;
		own_pop(w);
		/* At the configured limit, taking an entry back lets the next
		 * spawn push again (a few stealable tasks, kept fresh: fib).
		 * Above it (thieves were hungry, see adapt_limit) it does not:
		 * the deque keeps its older entries, and a refill waits for a
		 * thief to steal or to ask (request_work).  Re-stocking there
		 * pushed and popped back nearly every spawn of a deep tree. */
		if (w->limit <= w->rt->ready_limit)
			restock(w);
		stat_add(&w->st.tasks, 1);
		e.fn(e.arg);
		w = worker_self();
	}
	stolen = g->pushed;
	g->pushed = 0;
	if (stolen != 0 &&
	    atomic_load_explicit(&g->join, memory_order_acquire) != -stolen)
		suspend(w, g, stolen);
	/* Every child has ended (the stolen ones counted down join, which we
	 * read with acquire, after their last read of the group); ready the
	 * group for reuse. */
	g->state = ASTEAL__GROUP_IDLE;
	return 0;
}

/* Poll's slow path, the safe point of spawn, sync and poll: when the
 * allotment lost this worker, leave the running fiber at the bottom of the
 * worker's deque and go park (find_work does, on a loop fiber); the fiber
 * goes on when a worker that mugs the deque, or steals the fiber, resumes
 * it. */
void asteal__poll_slow(void)
{
	struct worker *w = worker_self();
	fiber *l;

	if (w == NULL)
		return;
	quantum_page_look(w->rt);
	if (!(atomic_load(&w->hot.flags) & RT_LEAVE))
		return;
	l = worker_fiber_get(w);
	if (l == NULL)
		return;                 /* no memory: leave at a later point */
	w->after = AFTER_PARK;
	w->after_fiber = w->cur;
	worker_switch_to(w, l);
}
