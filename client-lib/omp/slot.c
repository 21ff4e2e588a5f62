/*
 * slot.c - processors for the OpenMP layer's threads: a thread runs team
 * code only while it holds a slot, one of the hosted runtime's libasteal
 * workers (runtime.h, hosted), so that no more threads run than the job is
 * allotted processors, and the slots' accounting is A-STEAL's.
 *
 * The hand-offs, all under the runtime's park_lock, which the link thread
 * also holds while it applies an allotment (allot.c, worker_allot):
 *   - acquire: a thread takes a free slot (allotted, nobody holding it:
 *     its last one first, for its CPU and cache), else queues and sleeps
 *     on its futex word until a slot is granted to it;
 *   - release: a thread that has nothing to do (wait.c), or leaves its
 *     team, gives its slot to the first waiting thread, or leaves it free;
 *     a slot the allotment took away parks (allot_slot_park), and its part
 *     of the revocation ends there;
 *   - the allotment hook (omp_slot_allot, run by whoever applies an
 *     allotment: the link thread, or with the page any thread at a
 *     scheduling point) grants the slots an allotment freed or recalled
 *     to waiting threads;
 *   - the safe point (omp_safepoint, at every scheduling point and entry
 *     point) compares the page's generation (quantum.h: a new one is
 *     applied there) and reads one word of the slot: a revoked slot is
 *     given back and another waited for, a slot whose CPU changed re-pins
 *     its holder.
 * With the page, a thread waiting for a slot also waits on the bell of the
 * first slot not allotted, which the daemon rings when it grants it; and
 * every change of a slot's holder marks in the page whether a thread runs
 * there (hold): the daemon takes a slot nobody runs on at once, so that a
 * thread that takes a slot marks it busy, then looks at the allotment
 * again (omp_slot_acquire; page.h argues the order).
 * The accounting follows the holder: the taker binds the slot's CPU clock
 * to its own (usage_rebind), the giver detaches it (usage_detach); a free
 * slot is allotted time asleep, a granted one not yet running is allotted
 * time not run (preempted), a parked one is not allotted.
 *
 * A thread waiting for a slot longer than OMP_SLOT_PATIENCE_NS runs anyway,
 * without one (overruns): the kernel then shares the job's processors, as
 * it would without the layer.  This bounds what a program whose threads
 * wait for each other outside OpenMP's synchronisation (a flag spun on)
 * can lose, where a strict hand-off would never end.
 */
#include "layer.h"

#include <limits.h>
#include <sched.h>

#include "allot.h"
#include "qtime.h"
#include "worker.h"

_Atomic int omp_slot_waiters;
static struct omp_thr *wait_head, *wait_tail;   /* under park_lock */
static struct omp_thr *nappers;                 /* under park_lock */

/* Whether slot w can be taken: allotted, and nobody holds it or its holder
 * keeps it lazily (under park_lock). */
static bool takeable(struct worker *w)
{
	return (w->holder == NULL || w->lazy) &&
	       !(atomic_load(&w->hot.flags) & RT_LEAVE);
}

/* Slot w is t's now (NULL: nobody's), lazily or not; the page says
 * whether a thread runs there (under park_lock). */
static void hold(struct worker *w, struct omp_thr *t, int lazy)
{
	w->holder = t;
	w->lazy = lazy;
	quantum_page_idle(omp_rt, w, t == NULL || lazy);
}

/* A slot to take, the preferred one first, lazily held ones last; NULL if
 * none (under park_lock). */
static struct worker *free_slot(struct runtime *rt, int prefer)
{
	int i, a = rt->allotment;
	struct worker *lazy = NULL;

	if (prefer >= 0 && prefer < a && takeable(&rt->workers[prefer]) &&
	    !rt->workers[prefer].lazy)
		return &rt->workers[prefer];
	for (i = 0; i < a; i++) {
		struct worker *w = &rt->workers[i];
		if (!takeable(w))
			continue;
		if (!w->lazy)
			return w;
		if (lazy == NULL)
			lazy = w;
	}
	return lazy;
}

/* Grant slot w to waiting thread t and wake it (under park_lock). */
static void grant(struct omp_thr *t, struct worker *w)
{
	hold(w, t, 0);
	w->parked = 0;
	t->granted = w;
	t->waiting = 0;
	atomic_fetch_sub(&omp_slot_waiters, 1);
	atomic_fetch_add(&t->word, 1);
	futex_wake(&t->word, 1);
}

/* The first waiting thread, dequeued (under park_lock). */
static struct omp_thr *dequeue(void)
{
	struct omp_thr *t = wait_head;

	if (t != NULL) {
		wait_head = t->next;
		if (wait_head == NULL)
			wait_tail = NULL;
		t->next = NULL;
	}
	return t;
}

/* Remove t from the waiters (under park_lock). */
static void unqueue(struct omp_thr *t)
{
	struct omp_thr **p, *prev = NULL;

	for (p = &wait_head; *p != NULL; prev = *p, p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			if (wait_tail == t)
				wait_tail = prev;
			t->next = NULL;
			t->waiting = 0;
			atomic_fetch_sub(&omp_slot_waiters, 1);
			return;
		}
}

/* The sum of the safe points the slots' holders have passed (a hand-off
 * changes it too), under park_lock. */
static uint64_t holders_progress(struct runtime *rt)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < rt->nworkers; i++) {
		struct omp_thr *h = rt->workers[i].holder;
		if (h != NULL)
			sum += atomic_load_explicit(&h->progress, memory_order_relaxed) +
			       (uint64_t)(uintptr_t)h;
	}
	return sum;
}

/* Pin the calling thread to the slot's CPU if it is known and differs. */
static void pin(struct omp_thr *t, int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE || cpu == t->cpu)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0)
		t->cpu = cpu;
}

/* Allotment changes seen (under park_lock), so that a thread pinned to
 * the allotted CPUs knows when that set may have changed. */
static unsigned allot_gen;

/* The allotted slots' CPUs in *set (under park_lock); how many are known. */
static int allotted_cpus(cpu_set_t *set)
{
	int i, n = 0;

	CPU_ZERO(set);
	for (i = 0; i < omp_rt->allotment; i++) {
		int cpu = omp_rt->workers[i].cpu;
		if (cpu >= 0 && cpu < CPU_SETSIZE) {
			CPU_SET(cpu, set);
			n++;
		}
	}
	return n;
}

/* Whether t must be pinned to the allotted CPUs before it waits (under
 * park_lock; the set in *set): a thread that waits for a slot wakes where
 * it last ran, and a CPU the job lost is another job's now, where its
 * wake-up would wait behind that job's threads. */
static bool needs_allotted_pin(struct omp_thr *t, cpu_set_t *set)
{
	if (t->cpu == -1 && t->set_gen == allot_gen)
		return false;           /* pinned to the set, unchanged since */
	if (allotted_cpus(set) == 0)
		return false;           /* no CPU known: standalone */
	return !(t->cpu >= 0 && t->cpu < CPU_SETSIZE && CPU_ISSET(t->cpu, set));
}

/* Pin t to the set needs_allotted_pin gave (gen: allot_gen then). */
static void pin_set(struct omp_thr *t, const cpu_set_t *set, unsigned gen)
{
	if (pthread_setaffinity_np(pthread_self(), sizeof(*set), set) == 0) {
		t->cpu = -1;
		t->set_gen = gen;
	}
}

/* A thread that runs without a slot (out of patience) runs on the job's
 * allotted CPUs, shared with the slots' holders, not on a CPU it held
 * once that may be another job's now; nothing when none is known. */
static void pin_allotted(struct omp_thr *t)
{
	cpu_set_t set;
	unsigned gen;
	int n;

	pthread_mutex_lock(&omp_rt->park_lock);
	n = allotted_cpus(&set);
	gen = allot_gen;
	pthread_mutex_unlock(&omp_rt->park_lock);
	if (n > 0)
		pin_set(t, &set, gen);
}

/* The CPU of slot w, which its new holder is about to pin itself to: a
 * change flagged before now is taken care of by that (under park_lock,
 * as worker_allot changes both). */
static int slot_cpu(struct worker *w)
{
	atomic_fetch_and(&w->hot.flags, ~RT_REPIN);
	return w->cpu;
}

/* t now holds w: the slot's clock becomes t's, and t runs on cpu. */
static void bind(struct omp_thr *t, struct worker *w, int cpu)
{
	t->slot = w;
	t->state = WS_WORK;
	usage_rebind(&w->usage, WS_WORK, qtime_now_ns(), 1);
	pin(t, cpu);
}

/* Take a slot for t, waiting for one if none is free (omp_slot_acquire
 * checks it). */
static void take(struct omp_thr *t)
{
	struct runtime *rt = omp_rt;
	struct worker *w;
	uint32_t e;
	uint64_t deadline, progress;
	int next;

	if (t->slot != NULL)
		return;
	pthread_mutex_lock(&rt->park_lock);
	w = free_slot(rt, t->last_slot);
	if (w != NULL) {
		int cpu;
		hold(w, t, 0);
		w->parked = 0;
		cpu = slot_cpu(w);
		pthread_mutex_unlock(&rt->park_lock);
		bind(t, w, cpu);
		return;
	}
	t->granted = NULL;
	t->waiting = 1;
	t->next = NULL;
	if (wait_tail != NULL)
		wait_tail->next = t;
	else
		wait_head = t;
	wait_tail = t;
	atomic_fetch_add(&omp_slot_waiters, 1);
	e = atomic_load(&t->word);
	next = rt->allotment;
	{
		cpu_set_t set;
		unsigned gen = allot_gen;
		bool repin = needs_allotted_pin(t, &set);
		pthread_mutex_unlock(&rt->park_lock);
		if (repin)
			pin_set(t, &set, gen);
	}
	deadline = qtime_now_ns() + OMP_SLOT_PATIENCE_NS;
	pthread_mutex_lock(&rt->park_lock);
	progress = holders_progress(rt);
	pthread_mutex_unlock(&rt->park_lock);
	for (;;) {
		uint64_t now = qtime_now_ns();
		struct timespec ts;
		if (atomic_load(&t->word) == e && now < deadline) {
			/* With the page, also on the bell a grant rings: no
			 * thread of the job may be there to apply it. */
			if (quantum_page_wait_grant(rt, next, &t->word, e,
			                            deadline - now) == 0)
				continue;
			ts.tv_sec = (time_t)((deadline - now) / 1000000000u);
			ts.tv_nsec = (long)((deadline - now) % 1000000000u);
			syscall(SYS_futex, (uint32_t *)&t->word, FUTEX_WAIT_PRIVATE, e,
			        &ts, NULL, 0);
			continue;
		}
		int cpu = -1;
		pthread_mutex_lock(&rt->park_lock);
		w = t->granted;
		/* Out of patience only while the slots' holders pass no safe
		 * point: holders that go on through OpenMP's entry points will
		 * come to wait, and give their slot. */
		if (w == NULL && now >= deadline) {
			uint64_t p = holders_progress(rt);
			if (p != progress) {
				progress = p;
				deadline = now + OMP_SLOT_PATIENCE_NS;
			}
		}
		if (w == NULL && now >= deadline)
			unqueue(t);
		if (w != NULL)
			cpu = slot_cpu(w);
		e = atomic_load(&t->word);
		next = rt->allotment;
		pthread_mutex_unlock(&rt->park_lock);
		if (w != NULL) {
			t->granted = NULL;
			bind(t, w, cpu);
			return;
		}
		if (now >= deadline) {
			t->overruns++;
			pin_allotted(t);
			return;         /* run without a slot (see the top) */
		}
	}
}

/* Take a slot for t, waiting for one if none is free: one the allotment
 * in force leaves the job (the page's may have taken it while it was
 * idle, before anyone applied it) is given back and another taken. */
void omp_slot_acquire(struct omp_thr *t)
{
	take(t);
	while (t->slot != NULL && quantum_page_taken(omp_rt, t->slot)) {
		omp_slot_release(t);
		take(t);
	}
}

/* Give t's slot back: parked if revoked, else to a waiter, else free. */
void omp_slot_release(struct omp_thr *t)
{
	struct runtime *rt = omp_rt;
	struct worker *w = t->slot;
	struct omp_thr *next;

	if (w == NULL)
		return;
	pthread_mutex_lock(&rt->park_lock);
	t->slot = NULL;
	t->last_slot = w->id;
	if (atomic_load(&w->hot.flags) & RT_LEAVE) {
		allot_slot_park(w);
	} else if ((next = dequeue()) != NULL) {
		usage_detach(&w->usage, WS_STEAL, qtime_now_ns());
		grant(next, w);
	} else {
		usage_detach(&w->usage, WS_SLEEP, qtime_now_ns());
		hold(w, NULL, 0);
	}
	pthread_mutex_unlock(&rt->park_lock);
}

/* The allotment changed (link thread): grant free slots to waiters, and
 * if some are still free, wake the teams of napping threads (each
 * napper's team lives while it naps, and it naps under park_lock's
 * watch: it leaves the list under the lock before it leaves its team). */
void omp_slot_allot(struct runtime *rt)
{
	struct worker *w;
	struct omp_thr *t;

	pthread_mutex_lock(&rt->park_lock);
	allot_gen++;
	while (wait_head != NULL && (w = free_slot(rt, -1)) != NULL)
		grant(dequeue(), w);
	if (free_slot(rt, -1) != NULL)
		for (t = nappers; t != NULL; t = t->nap_next) {
			atomic_fetch_add(&t->team->epoch, 1);
			futex_wake(&t->team->epoch, INT_MAX);
		}
	pthread_mutex_unlock(&rt->park_lock);
}

/* A forked child has none of its parent's threads: nobody waits or naps. */
void omp_slot_fork_child(void)
{
	wait_head = wait_tail = NULL;
	nappers = NULL;
	atomic_store(&omp_slot_waiters, 0);
	allot_gen = 0;
}

/* t begins a nap: its slot goes back, and it joins the nappers. */
void omp_slot_nap_begin(struct omp_thr *t)
{
	omp_slot_release(t);
	pthread_mutex_lock(&omp_rt->park_lock);
	t->napping = 1;
	t->nap_next = nappers;
	nappers = t;
	pthread_mutex_unlock(&omp_rt->park_lock);
}

/* t's nap is over: it leaves the nappers and (acquire) takes a slot. */
void omp_slot_nap_end(struct omp_thr *t, bool acquire)
{
	struct omp_thr **p;

	pthread_mutex_lock(&omp_rt->park_lock);
	for (p = &nappers; *p != NULL; p = &(*p)->nap_next)
		if (*p == t) {
			*p = t->nap_next;
			break;
		}
	t->napping = 0;
	pthread_mutex_unlock(&omp_rt->park_lock);
	if (acquire)
		omp_slot_acquire(t);
}

/* The safe point's slow path. */
void omp_slot_check(struct omp_thr *t)
{
	struct worker *w = t->slot;
	uint32_t f;

	/* Outside teams (a construct met in serial code) a slot is held
	 * lazily, and may be another thread's by now: nothing to do. */
	if (t->team == NULL)
		return;
	if (w == NULL) {
		/* A thread that ran out of patience takes one as soon as
		 * one is free. */
		if (omp_rt != NULL) {
			int cpu = -1;
			pthread_mutex_lock(&omp_rt->park_lock);
			w = wait_head == NULL ? free_slot(omp_rt, -1) : NULL;
			if (w != NULL) {
				hold(w, t, 0);
				w->parked = 0;
				cpu = slot_cpu(w);
			}
			pthread_mutex_unlock(&omp_rt->park_lock);
			if (w != NULL) {
				bind(t, w, cpu);
				if (quantum_page_taken(omp_rt, w))
					omp_slot_release(t);
			}
		}
		return;
	}
	f = atomic_load_explicit(&w->hot.flags, memory_order_acquire);
	if (f & RT_LEAVE) {
		omp_slot_release(t);
		omp_slot_acquire(t);
		return;
	}
	if (f & RT_REPIN) {
		int cpu;
		pthread_mutex_lock(&omp_rt->park_lock);
		cpu = slot_cpu(w);
		pthread_mutex_unlock(&omp_rt->park_lock);
		pin(t, cpu);
	}
}

/* t leaves its team's code for serial code: it keeps its slot lazily, no
 * accounting change (serial code is work, as a libasteal root task's),
 * until a revocation parks it or a thread that waits takes it. */
void omp_slot_lazy(struct omp_thr *t)
{
	struct worker *w = t->slot;

	if (w == NULL)
		return;
	omp_slot_state(t, WS_WORK);
	quantum_page_look(omp_rt);         /* a revocation: parked, not lazy */
	pthread_mutex_lock(&omp_rt->park_lock);
	if (atomic_load(&w->hot.flags) & RT_LEAVE) {
		t->slot = NULL;
		t->last_slot = w->id;
		allot_slot_park(w);
	} else if (wait_head != NULL) {
		struct omp_thr *next = dequeue();
		t->slot = NULL;
		t->last_slot = w->id;
		usage_detach(&w->usage, WS_STEAL, qtime_now_ns());
		grant(next, w);
	} else {
		hold(w, t, 1);
	}
	pthread_mutex_unlock(&omp_rt->park_lock);
}

/* t starts a region: the slot it holds stays its own (a lazy one, if not
 * taken or parked meanwhile, becomes active again), else it takes one as
 * any thread does.  Whether it held none actively before (then it gives
 * it back, lazily, at the region's end). */
bool omp_slot_resume(struct omp_thr *t)
{
	struct worker *w = t->slot;
	bool took = true;

	if (w != NULL) {
		pthread_mutex_lock(&omp_rt->park_lock);
		if (w->holder == t) {
			took = w->lazy != 0;
			hold(w, t, 0);
		} else {
			w = NULL;
		}
		pthread_mutex_unlock(&omp_rt->park_lock);
		if (w != NULL && quantum_page_taken(omp_rt, w)) {
			omp_slot_release(t);    /* taken while lazy */
			omp_slot_acquire(t);
		}
		if (w != NULL)
			return took;
		/* Taken or parked meanwhile: its accounting is not ours. */
		t->slot = NULL;
		t->state = -1;
	}
	omp_slot_acquire(t);
	return true;
}

/* t blocks outside the layer's waits: its slot goes to whoever needs it. */
void omp_slot_block(struct omp_thr *t)
{
	if (t != NULL && t->team != NULL)
		omp_slot_release(t);
}

/* t is back from blocking: a slot again (inside a team). */
void omp_slot_unblock(struct omp_thr *t)
{
	if (t != NULL && t->team != NULL)
		omp_slot_acquire(t);
}

/* Enter accounting state s on the slot t holds. */
void omp_slot_state(struct omp_thr *t, int s)
{
	if (t->state == s || t->slot == NULL)
		return;
	t->state = s;
	usage_enter(&t->slot->usage, s, qtime_now_ns());
}
