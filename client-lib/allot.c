/*
 * allot.c - the allotment inside the job: the link thread applies the
 * daemon's allotments (worker_allot); a worker that lost its processor
 * hands its work over and parks (allot_park); idle workers claim deques
 * left without an owner whole (allot_mug); and the revocations are
 * measured and reported.
 *
 * The leave hand-off, end to end:
 *
 *   1. The link thread (quantum.c) calls worker_allot.  Under park_lock,
 *      each worker beyond the allotment that is not already leaving joins
 *      the revocation opened for this call, a slot of the ring revokes[]
 *      (t0 the moment the allotment was decided, tag the daemon's Allot
 *      quantum).  The link opens the worker's leave window (usage_leave,
 *      usage.h), sets RT_LEAVE in its hot.flags and then clears its
 *      stocked hint, both seq_cst: the worker sets the hint and then
 *      re-reads the flags (stock, worker.h), so one of the two sees the
 *      other, and a worker that runs its children at once as calls cannot
 *      miss the request.  Sleepers are woken to see their flags.
 *   2. The worker sees the flag at its next safe point.  Inside a task
 *      that is the slow path of spawn or sync (the cleared hint sends the
 *      next spawn there) or a poll (asteal_poll, a loop's chunk boundary):
 *      asteal__poll_slow (suspend.c) switches to a loop fiber, whose
 *      after_switch (worker.c) pushes the task's fiber at the bottom of the
 *      worker's deque, under that fiber's own children, so the deque still
 *      holds one fiber's entries only.  Between tasks it is find_work
 *      (worker.c), with no fiber to leave.
 *   3. find_work calls allot_park.  A deque that is not empty becomes
 *      muggable (allot_deque_release: its private entries made public, its
 *      state stored with release) and the worker takes a fresh one, so a
 *      parked worker never holds work.  A worker with nothing of its own
 *      mugs before it steals: one acq_rel CAS on the deque's state claims
 *      it whole, and it pops the left fiber from the bottom and resumes it
 *      on the deque that holds its children.  A thief may also steal the
 *      fiber once it is the only entry left.
 *   4. Under park_lock the worker checks the flag once more (the request
 *      may have been withdrawn meanwhile: it goes on working), marks itself
 *      parked, enters WS_PARK (its time in the leave window was leave up to
 *      here, and is parked from here) and ends its part of the revocation
 *      (worker_revoke_done).  The last worker to leave closes the
 *      revocation: a latency sample (t0 to the last departure) and, for a
 *      revocation the daemon asked for, a Released report queued in
 *      released[] for the link thread, which it wakes through an eventfd.
 *      The worker then waits on a futex on its flags.
 *   5. A recall (worker_allot, the worker again inside the allotment)
 *      closes the leave window (usage_back), clears RT_LEAVE and wakes the
 *      worker if it parked; a worker recalled before it parked ends its
 *      part of the revocation at the recall.  A worker still in allot_park,
 *      whose recall it has not woken to see, may be flagged again: it reads
 *      the flag under park_lock before it clears parked, so it stays
 *      parked, and worker_allot ends its part of the new revocation at
 *      once, as it will not call worker_revoke_done again.
 *
 * The leave window keeps the time between the request and the park (the
 * revocation latency) out of the worker's allotted time (WS_LEAVE), and a
 * parked worker recalled is allotted from the recall on (usage.h).  The
 * ring holds RT_REVOKES revocations: one still open when its slot comes
 * round again is closed then, and a worker whose revocation's slot was
 * reused leaves the new one alone (its t0 differs).
 *
 * In ABP mode nobody mugs in find_work; a worker that comes back from
 * parking takes one of the job's unowned deques at random instead.
 */
#include "allot.h"

#include <sched.h>
#include <stdlib.h>

#include "quantum.h"
#include "worker.h"

/* An empty deque for a worker whose deque left with a suspended fiber. */
deque *allot_deque_get(struct runtime *rt)
{
	deque *d;
	int n;

	pthread_mutex_lock(&rt->lock);
	d = rt->free_deques;
	if (d != NULL) {
		rt->free_deques = d->next;
		pthread_mutex_unlock(&rt->lock);
		return d;
	}
	n = atomic_load_explicit(&rt->ndeques, memory_order_relaxed);
	if (n >= RT_MAX_DEQUES || (d = dq_create(RT_DEQUE_LOG_SIZE)) == NULL) {
		pthread_mutex_unlock(&rt->lock);
		return NULL;
	}
	d->index = n;
	rt->deques[n] = d;
	/* Release: thieves that see the new count see the deque. */
	atomic_store_explicit(&rt->ndeques, n + 1, memory_order_release);
	pthread_mutex_unlock(&rt->lock);
	return d;
}

/* Give up a deque the worker owned: free if empty, else muggable. */
void allot_deque_release(struct runtime *rt, deque *d)
{
	if (dq_size(d) == 0) {
		deque_disown(d, DQ_FREE);
		pthread_mutex_lock(&rt->lock);
		d->next = rt->free_deques;
		rt->free_deques = d;
		pthread_mutex_unlock(&rt->lock);
		return;
	}
	/* Release: a mugger that claims it (acquire CAS) sees its slots. */
	deque_disown(d, DQ_MUGGABLE);
	atomic_fetch_add_explicit(&rt->nmuggable, 1, memory_order_relaxed);
	worker_notify(rt);
}

/* Claim a muggable deque whole with one CAS and make it the worker's
 * (its old deque, empty of tasks, is released).  The scan starts at a
 * random deque, so that in ABP mode a joining worker takes one at random. */
int allot_mug(struct worker *w)
{
	struct runtime *rt = w->rt;
	int i, n = atomic_load_explicit(&rt->ndeques, memory_order_acquire);
	int start = (int)(rng_next(&w->rng) % (uint64_t)n);

	for (i = 0; i < n; i++) {
		deque *d = rt->deques[(start + i) % n];
		int s = DQ_MUGGABLE;
		if (atomic_load_explicit(&d->state, memory_order_relaxed) != DQ_MUGGABLE)
			continue;
		if (!atomic_compare_exchange_strong_explicit(&d->state, &s, DQ_OWNED,
		        memory_order_acq_rel, memory_order_relaxed))
			continue;
		atomic_fetch_sub_explicit(&rt->nmuggable, 1, memory_order_relaxed);
		allot_deque_release(rt, (deque *)w->hot.dq);
		deque_own(w, d);
		return 1;
	}
	return 0;
}

/* Record one revocation latency sample (under park_lock). */
static void latency_add(struct runtime *rt, uint64_t ns)
{
	if (rt->nlatency == rt->caplatency) {
		size_t cap = rt->caplatency ? 2 * rt->caplatency : 256;
		uint64_t *p = realloc(rt->latency, cap * sizeof(*p));
		if (p == NULL)
			return;         /* a lost sample, not a lost job */
		rt->latency = p;
		rt->caplatency = cap;
	}
	rt->latency[rt->nlatency++] = ns;
}

/* A tagged revocation finished at time at: queue it for the link thread
 * and wake it (under park_lock; a full queue drops the report, which only
 * makes the daemon wait its bound). */
static void released_add(struct runtime *rt, uint64_t tag, uint64_t at)
{
	uint64_t one = 1;

	if (rt->nreleased < RT_REVOKES) {
		rt->released[rt->nreleased].tag = tag;
		rt->released[rt->nreleased].at = at;
		rt->nreleased++;
	}
	if (rt->released_fd >= 0 && write(rt->released_fd, &one, sizeof(one)) < 0)
		return;         /* the counter is full: a wake-up is pending */
}

/* A worker asked to leave for a revocation parked (or was recalled) at
 * time now; the last one closes the revocation (under park_lock). */
static void worker_revoke_done(struct runtime *rt, struct worker *w,
                               uint64_t now)
{
	struct revoke *r;

	if (w->leave_ev < 0)
		return;         /* parked from the start: no revocation */
	r = &rt->revokes[w->leave_ev];
	w->leave_ev = -1;
	if (r->pending <= 0 || r->t0 != w->leave_t0)
		return;         /* closed early: its ring slot was reused */
	if (now > r->end)
		r->end = now;
	if (--r->pending == 0) {
		latency_add(rt, r->end - r->t0);
		if (r->tag != RT_NO_TAG && quantum_page_released(rt, r->tag, r->end) < 0)
			released_add(rt, r->tag, r->end);
	}
}

/* Pin a worker's thread to one CPU (or leave it where it is on failure:
 * pinning is for cache warmth, not correctness).  Every time, even to the
 * CPU it was pinned to last: the daemon's confinement may have moved the
 * thread since (a cpuset that shrank and grew back, or an affinity the
 * daemon reset), and a worker left on its job's other CPU would share it
 * with the worker pinned there. */
static void pin(struct worker *w, int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(w->thread, sizeof(set), &set) == 0)
		w->cpu = cpu;
}

/* Apply an allotment: workers 0 .. allotment-1 are active (pinned to
 * cpus[i] when cpus is not NULL), the others must leave at their next safe
 * point.  Called by the link thread, or by the worker that applies the
 * page's allotment; now is when the allotment was decided (revocation
 * latency counts from it) and tag the daemon's Allot quantum
 * (RT_NO_TAG for none), reported back when the departures are done. */
void worker_allot(struct runtime *rt, int allotment, const int *cpus,
                  uint64_t now, uint64_t tag)
{
	int i, leaving = 0, ev = -1;
	uint64_t edge;

	if (allotment < 0)
		allotment = 0;
	if (allotment > rt->nworkers)
		allotment = rt->nworkers;
	/* Pin before waking: a worker woken first runs on the CPU it last
	 * had, which may now be another job's, and there it can keep that
	 * job's leaving worker from its CPU, and this thread from pinning it,
	 * for a whole scheduler tick (seen: 2.8 ms; bench/README.md).  A
	 * hosted slot's holder pins itself (below). */
	if (cpus != NULL && !rt->hosted)
		for (i = 0; i < allotment; i++)
			pin(&rt->workers[i], cpus[i]);
	pthread_mutex_lock(&rt->park_lock);
	/* Hosted: a slot's CPU is where its holder runs; one that changed
	 * is re-pinned by its holder at its next safe point. */
	if (cpus != NULL && rt->hosted)
		for (i = 0; i < allotment; i++) {
			struct worker *w = &rt->workers[i];
			if (w->cpu == cpus[i])
				continue;
			w->cpu = cpus[i];
			if (w->holder != NULL)
				atomic_fetch_or(&w->hot.flags, RT_REPIN);
		}
	/* The leave windows start now, when the workers are told, not at
	 * the decision (now may be earlier than this thread's last reading
	 * of their accounting, which must not change: usage.h). */
	edge = qtime_now_ns();
	/* A decision time not in the last second (the daemon's word, or
	 * its page's) is not one: count from the edge. */
	if (now == 0 || now > edge || edge - now > 1000000000u)
		now = edge;
	for (i = 0; i < rt->nworkers; i++) {
		struct worker *w = &rt->workers[i];
		uint32_t f = atomic_load(&w->hot.flags);
		if (i < allotment && (f & RT_LEAVE)) {
			usage_back(&w->usage, edge);
			atomic_store(&w->hot.flags, f & ~RT_LEAVE);
			if (w->parked) {
				futex_wake(&w->hot.flags, 1);
				if (w->bell_page != NULL)
					page_ring(w->bell_page, i);
			} else  /* recalled before it left: ends its part */
				worker_revoke_done(rt, w, now);
		} else if (i >= allotment && !(f & RT_LEAVE)) {
			if (ev < 0) {
				struct revoke *r;
				ev = (int)(rt->nrevokes++ % RT_REVOKES);
				r = &rt->revokes[ev];
				if (r->pending > 0)     /* a stuck old one: close it */
					latency_add(rt, now - r->t0);
				r->t0 = r->end = now;
				r->tag = tag;
				r->pending = 0;
			}
			rt->revokes[ev].pending++;
			w->leave_ev = ev;
			w->leave_t0 = now;
			usage_leave(&w->usage, edge);
			/* Flag first, then unstock (see stock in worker.h). */
			atomic_store(&w->hot.flags, f | RT_LEAVE);
			atomic_store(worker_stocked(w), 0);
			leaving++;
			/* Hosted: a free slot has nobody to leave it, and a
			 * lazy one's holder is in serial code: it parks now
			 * (its part ends after the loop). */
			if (rt->hosted && (w->holder == NULL || w->lazy)) {
				w->holder = NULL;
				w->lazy = 0;
				w->parked = 1;
				usage_rebind(&w->usage, WS_PARK, edge, 0);
			}
		}
	}
	/* A worker still in allot_park (a recall cleared its flag, but it has
	 * not woken to see that) is flagged again above without having run: it
	 * stays parked and will not call worker_revoke_done again, so its part
	 * ends here, now.  After the loop: the revocation must not close while
	 * workers are still being added to it. */
	for (i = allotment; ev >= 0 && i < rt->nworkers; i++)
		if (rt->workers[i].leave_ev == ev && rt->workers[i].parked)
			worker_revoke_done(rt, &rt->workers[i], now);
	rt->allotment = allotment;
	pthread_mutex_unlock(&rt->park_lock);
	if (leaving > 0 && !rt->hosted)
		worker_wake_all(rt);    /* sleepers must see their flags */
	if (rt->allot_hook != NULL)
		rt->allot_hook(rt);
}

/* Park a hosted slot its holder gives back after being told to leave. */
void allot_slot_park(struct worker *w)
{
	struct runtime *rt = w->rt;
	uint64_t now = qtime_now_ns();

	w->parked = 1;
	w->holder = NULL;
	quantum_page_idle(rt, w, 1);
	usage_detach(&w->usage, WS_PARK, now);
	stat_add(&w->st.leaves, 1);
	worker_revoke_done(rt, w, now);
}

/* Give the worker's processor back (the allotment lost it): its deque, if
 * not empty, becomes muggable and the worker takes a fresh one; then it
 * waits until the allotment includes it again.  Returns without parking
 * when the request was withdrawn meanwhile or no deque is to be had. */
void allot_park(struct worker *w)
{
	struct runtime *rt = w->rt;
	deque *d = (deque *)w->hot.dq;
	uint64_t now;

	if (dq_size(d) > 0) {
		deque *fresh = allot_deque_get(rt);
		if (fresh == NULL)
			return;         /* no memory: keep working instead */
		allot_deque_release(rt, d);
		deque_own(w, fresh);
	}
	pthread_mutex_lock(&rt->park_lock);
	if (!(atomic_load(&w->hot.flags) & RT_LEAVE) ||
	    atomic_load_explicit(&rt->stopping, memory_order_relaxed)) {
		pthread_mutex_unlock(&rt->park_lock);
		return;
	}
	now = qtime_now_ns();
	w->parked = 1;
	quantum_page_idle(rt, w, 1);       /* the daemon may take it as it is */
	set_state_at(w, WS_PARK, now);
	stat_add(&w->st.leaves, 1);
	worker_revoke_done(rt, w, now);
	/* The flag is read under park_lock before parked is cleared: a
	 * recall that cleared it and a revocation that set it again before
	 * we woke (worker_allot, under the same lock) then leave us parked,
	 * as worker_allot, seeing parked set, has already told the daemon. */
	while ((atomic_load(&w->hot.flags) & RT_LEAVE) &&
	       !atomic_load_explicit(&rt->stopping, memory_order_relaxed)) {
		/* With the page, on its bell, whose value is read here: a
		 * recall or a grant after this rings it (quantum.c). */
		uint32_t seen = 0;
		struct page *pg = quantum_page_bell(w, &seen);

		pthread_mutex_unlock(&rt->park_lock);
		if (pg == NULL)
			syscall(SYS_futex, (uint32_t *)&w->hot.flags,
			        FUTEX_WAIT_PRIVATE, RT_LEAVE, NULL, NULL, 0);
		else {
			quantum_page_look(rt);     /* a generation come meanwhile */
			if (atomic_load(&w->hot.flags) & RT_LEAVE)
				page_bell_wait(pg, w->id, seen);
		}
		pthread_mutex_lock(&rt->park_lock);
	}
	w->bell_page = NULL;
	w->parked = 0;
	quantum_page_idle(rt, w, 0);
	pthread_mutex_unlock(&rt->park_lock);
	/* Busy again, then the generation looked at (page.h, idle): an
	 * allotment that took the slot back before this thread ran again,
	 * which the daemon then took as done, is applied here, and the next
	 * safe point parks it again. */
	quantum_page_look(rt);
	set_state(w, WS_STEAL);
	/* ABP: an allotted worker takes one of the job's deques at random. */
	if (rt->mode == RT_MODE_ABP &&
	    atomic_load_explicit(&rt->nmuggable, memory_order_relaxed))
		allot_mug(w);
}
