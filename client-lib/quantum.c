/*
 * quantum.c - one quantum inside the job (../shared/DESIGN.md, "One
 * quantum, through a shared page"; the page's layout is proto/page.h):
 * its boundary, where the link thread sums the workers' accounting into
 * work, steal and mug time, computes the next desire with the estimator
 * (estimator.c) and gives asteald a Feedback, written into the page the
 * job shares with it; and the allotment the daemon writes back there,
 * applied by the workers themselves.  The desire's round trip inside the
 * job is this file; the link thread that calls its boundary, connects to
 * the daemon and reads its messages is quantumlink.c's (the two share
 * quantum_int.h).
 *
 * Quanta are global: quantum q is [t0 + q L, t0 + (q+1) L) on
 * CLOCK_MONOTONIC, with the t0 and L of the daemon's Welcome, or the
 * job's own (t0 one quantum before the runtime started, so that its first
 * quantum is 1) when it runs without one.  At each boundary the quantum
 * in progress is closed and, with a daemon, a Feedback is written into
 * the page (no system call; a desire rising from 0 is also sent), or, for
 * a job without a page, sent only when the rounded desire changed or a
 * heartbeat is due.  Without a daemon the availability is all workers, or
 * line q of the profile file ASTEAL_PROFILE (the last line repeats), and
 * the allotment min(reported desire, availability) is applied at the
 * boundary itself.  In ABP mode the desire is always the worker count (no
 * feedback); in static mode there is no link thread.
 *
 * A job with nothing to run (no root task in flight: before its first
 * asteal_run, or between calls) is idle (../shared/DESIGN.md, "DEQ,
 * exactly"): the boundary that finds no root task makes its desire 0 (a
 * Feedback, since it changed; without a daemon, allotment 0), and the
 * quanta it spends idle feed no estimate and have no class (their trace
 * rows say "idle").  The asteal_run that starts a root task while the job
 * has none wakes the link thread, which starts the job again from d_1 = 1
 * (quantum__wake_up) and says so at once, not at the next boundary
 * (without a daemon, it applies the allotment at once).  ABP mode keeps
 * its constant desire.
 *
 * The allotment through the page, one revocation end to end:
 *
 *   1. The daemon's tick decides a smaller a_q for the job: it writes the
 *      page's allot part under its count (the generation grows by 2) and
 *      sets the stop words of the slots it takes (daemon/schedtick.c).
 *   2. The worker of a slot taken reads its stop word at its next spawn
 *      or poll (asteal__stocked and asteal_poll, asteal.h), which sends
 *      it to a slow path; every slow path of spawn, sync and poll, every
 *      turn of find_work and every wake-up of a sleeper compares the
 *      generation with the one applied (quantum_page_look).  The first
 *      worker to see a new one applies it (quantum_page_apply: one applier
 *      at a time, and the generation read again under that lock, so each
 *      is applied once) through worker_allot, as the link thread applies
 *      an Allot but without its lock (the link thread takes the allotment
 *      for its accounting at the boundary); from there the leave hand-off
 *      is allot.c's (its top comment, steps 2 to 4), the allotment's
 *      quantum as the revocation's tag.
 *   3. The last leaving worker closes the revocation: quantum_page_released
 *      writes the page's parked part (the quantum, when, how many parked)
 *      and signals the eventfd the Welcome passed; the daemon's loop reads
 *      it and the hand-over goes on.  No other thread of the job is on
 *      this path: the link thread is not.
 *
 * One grant: the daemon writes a larger a_q, clears the stop words of the
 * slots it adds and rings their bells (a futex wake each).  Their parked
 * workers wait on those bells (allot_park, through quantum_page_bell); the
 * first woken applies the generation, which recalls every worker it adds.
 *
 * A parked worker's slot is idle (page.h): a revocation of slots whose
 * workers never left their park (a grant the job had not applied yet,
 * taken back) is done as the daemon writes it; the job, skipping the
 * grant's generation, would have nothing to report.  A worker that leaves
 * its park marks its slot busy, then looks at the generation.
 *
 * The OpenMP layer's hosted runtime reads the page at its scheduling
 * points (omp_safepoint), its threads waiting for a slot wait on the bell
 * of the first slot not allotted (quantum_page_wait_grant), and it marks the
 * slots no thread runs on idle (quantum_page_idle): the daemon takes those
 * without waiting for a thread to see it (page.h, "idle").
 *
 * The link thread installs the page after the handshake (and applies what
 * it holds already) and removes it when the daemon is lost or the runtime
 * stops; both under park_lock, both wake the parked workers so that they
 * wait where they now must (the page's bell, or their flags).  A removed
 * page stays mapped until the runtime ends: a worker may be between
 * reading rt->page and using it.  The link thread also looks at each
 * boundary, so that a job whose workers all sleep (on the epoch, with a
 * backstop) still applies a revocation within a quantum.
 */
#include "quantum_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "allot.h"
#include "link.h"
#include "profile.h"
#include "qtime.h"
#include "trace.h"
#include "worker.h"

/* ---------------------------------------------------------- boundary -- */

/* The desire the job reports: rounded up (the worker count in ABP mode,
 * 0 when idle). */
static int reported(const struct quantum *qt, const struct runtime *rt)
{
	if (rt->mode == RT_MODE_ABP)
		return rt->nworkers;
	return qt->idle ? 0 : est_report(&qt->est, qt->desire);
}

/* Fill a Feedback with the desire to report and the totals since the
 * Welcome; klass is the closed quantum's class, -1 for none. */
void quantum__feedback_fill(const struct runtime *rt, const struct quantum *qt,
                            struct exchange_feedback *fb, int klass)
{
	int desire = reported(qt, rt);

	fb->desire = desire < 0 ? 0 : (uint32_t)desire;
	fb->desire_real = qt->desire;
	usage_sum_totals(&qt->since, &fb->use);
	fb->cls = klass;
}

/* The allotment without a daemon, from desire and availability. */
int quantum__allotment(const struct quantum *qt, const struct runtime *rt)
{
	int want = reported(qt, rt);

	return want < qt->availability ? want : qt->availability;
}

/* Close the quantum in progress at time now: account, estimate (the next
 * desire becomes current) unless the job was idle all through it, write
 * the trace row and add to the totals; idle from now on when no root task
 * is in flight; what to report in *fb (under qt->lock). */
void quantum__close(struct runtime *rt, struct quantum *qt, uint64_t now,
                    struct exchange_feedback *fb)
{
	struct usage_sum u = { 0 }, held = { 0 };
	struct est_quantum m;
	enum est_class cls = EST_NCLASSES;
	double next = qt->desire;
	int i, busy;

	/* With the page, the workers applied the daemon's allotments
	 * (quantum.c): the one in force now is theirs. */
	if (atomic_load_explicit(&rt->page, memory_order_acquire) != NULL &&
	    atomic_load(&rt->page_gen) != 0) {
		pthread_mutex_lock(&rt->park_lock);
		qt->allotment = rt->allotment;
		pthread_mutex_unlock(&rt->park_lock);
		qt->availability = atomic_load(&rt->page_availability);
		qt->waiting = 0;
	}

	/* The estimator judges the allotment in force at the end, a_q, on
	 * what its workers (0 .. a_q - 1) did with the processors they held
	 * in the quantum; a worker that left before the end held none of
	 * a_q's.  So a quantum whose allotment fell to 0 at the Allot is
	 * not judged on the sliver before it (the paper: n < delta L 0 never
	 * holds), and a worker gained mid-quantum counts from its recall.
	 * The trace and the totals count every worker. */
	for (i = 0; i < rt->nworkers; i++) {
		struct usage_times t;
		usage_read(&rt->workers[i].usage, now, &t);
		usage_sum_add(&u, &qt->last[i], &t);
		if (i < qt->allotment)
			usage_sum_add(&held, &qt->last[i], &t);
		qt->last[i] = t;
	}
	/* Idle all through (it goes idle only here, and a root task it
	 * sees wakes it): desire 0 throughout, nothing to judge.  (A root
	 * task that ran and ended on workers not yet parked, before the
	 * thread saw it, leaves its quantum idle.) */
	busy = !qt->idle;
	if (busy) {
		m.desire = qt->desire;
		m.allotment = qt->allotment;
		m.nonsteal = (double)(held.work + held.mug);
		m.allotted = (double)held.allotted;
		next = est_next(&qt->est, &m, &cls);
	}
	if (qt->trace != NULL) {
		struct trace_row row = {
			.quantum = qt->q,
			.clock_ns = qt->t0 + qt->q * qt->length,
			.start_ns = qt->start,
			.desire = reported(qt, rt),
			.desire_real = qt->desire,
			.availability = qt->availability,
			.allotment = qt->allotment,
			.cls = busy ? est_class_name(cls) : "idle",
			.all = &u,
			.held = &held,
		};
		trace_write(qt->trace, &row);
	}
	qt->quanta++;
	qt->sum_allotment += (uint64_t)qt->allotment;
	usage_sum_merge(&qt->total, &u);
	if (busy)
		qt->classes[cls]++;
	usage_sum_merge(&qt->since, &u);
	usage_sum_merge(&qt->under_id, &u);
	if (rt->mode != RT_MODE_ABP)
		qt->desire = next;
	/* Nothing left to run: desire 0 until a root task starts. */
	if (rt->mode == RT_MODE_ASTEAL && atomic_load(&rt->running_roots) == 0) {
		qt->idle = 1;
		qt->desire = 0.0;
	}
	quantum__feedback_fill(rt, qt, fb, busy ? (int)cls : -1);
}

/* Give the daemon a Feedback closing quantum closed: written into the
 * page it shares with the job at every boundary (no system call), or,
 * without a page, sent when the reported desire changed, a heartbeat is
 * due, or force is set. */
void quantum__report(struct quantum *qt, struct exchange_feedback *fb,
                     uint64_t closed, uint64_t now, int force)
{
	struct page *pg;
	int rising;

	if (qt->link == NULL)
		return;
	pg = link_page(qt->link);
	/* A heartbeat goes at the boundary nearest its period; through a
	 * page, every boundary's Feedback is written (it costs nothing). */
	if (!force && pg == NULL && (int)fb->desire == qt->sent_desire &&
	    now - qt->sent_at + qt->length / 2 < qt->heartbeat)
		return;
	if (closed < qt->closable)
		return;         /* one Feedback per quantum at most */
	fb->quantum = closed;
	/* A desire rising from 0 also goes as a message, at once: the
	 * daemon may grant free CPUs before its next tick. */
	rising = qt->page_written == 0 && fb->desire > 0;
	if (pg != NULL) {
		page_feed_write(pg, fb);
		qt->page_written = fb->desire;
	}
	if ((pg == NULL || rising) && link_feedback(qt->link, fb) < 0) {
		quantum__lost_daemon(qt, now, "it does not read");
		return;
	}
	qt->sent_desire = (int)fb->desire;
	qt->sent_at = now;
	qt->closable = closed + 1;
}

/* Without a daemon: the availability of the quantum in progress, and the
 * allotment from it, applied at time now (under qt->lock). */
void quantum__allot_alone(struct runtime *rt, struct quantum *qt, uint64_t now)
{
	qt->waiting = 0;
	qt->availability = profile_availability(&qt->profile, rt->nworkers, qt->q);
	qt->allotment = quantum__allotment(qt, rt);
	worker_allot(rt, qt->allotment, NULL, now, RT_NO_TAG);
}

/* A root task is in flight while the job is idle: start again from
 * d_1 = 1 (and, without a daemon, take the allotment for it now).  1 when
 * it did (under qt->lock). */
int quantum__wake_up(struct runtime *rt, struct quantum *qt, uint64_t now)
{
	if (!qt->idle || atomic_load(&rt->running_roots) == 0)
		return 0;
	qt->idle = 0;
	qt->desire = est_initial();
	if (qt->link == NULL)
		quantum__allot_alone(rt, qt, now);
	return 1;
}

/* A boundary passed (the timer fired): close the quantum in progress,
 * open the one now running, report. */
void quantum__boundary(struct runtime *rt, struct quantum *qt)
{
	struct exchange_feedback fb = { 0 };
	uint64_t n, now, q;

	if (read(qt->timer_fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		return;         /* not due after all (the grid changed) */
	/* A workers' job applies the page's allotments; one whose workers
	 * all sleep, here (quantum.c). */
	quantum_page_look(rt);
	now = qtime_now_ns();
	pthread_mutex_lock(&qt->lock);
	q = now > qt->t0 ? (now - qt->t0) / qt->length : 0;
	if (q <= qt->q) {
		pthread_mutex_unlock(&qt->lock);
		return;         /* the grid moved back: nothing ended */
	}
	quantum__wake_up(rt, qt, now);   /* a root task the thread has not seen yet */
	quantum__close(rt, qt, now, &fb);
	qt->skipped += q - qt->q - 1;
	qt->q = q;
	if (qt->link == NULL)
		quantum__allot_alone(rt, qt, now);
	pthread_mutex_unlock(&qt->lock);
	quantum__report(qt, &fb, q - 1, now, 0);
}

/* ------------------------------------------------------------- page -- */

/* Point every worker's stop word at pg's (or at asteal__no_stop), the
 * running threads' thread-local too (under park_lock). */
static void point_stops(struct runtime *rt, struct page *pg)
{
	for (int i = 0; i < rt->nworkers; i++) {
		struct worker *w = &rt->workers[i];
		_Atomic(const _Atomic uint32_t *) *slot = atomic_load(&w->stop);

		w->stop_word = pg != NULL && i < PAGE_SLOTS
		               ? (const _Atomic uint32_t *)&pg->stop[i] : &asteal__no_stop;
		if (slot != NULL)
			atomic_store(slot, w->stop_word);
	}
}

/* A worker thread starts: its stop pointer. */
void quantum_page_thread(struct worker *w, _Atomic(const _Atomic uint32_t *) *slot)
{
	pthread_mutex_lock(&w->rt->park_lock);
	atomic_store(slot, w->stop_word);
	atomic_store(&w->stop, slot);
	pthread_mutex_unlock(&w->rt->park_lock);
}

/* Wake every parked worker wherever it waits, so that it waits again
 * where it now must (under park_lock). */
static void wake_parked(struct runtime *rt)
{
	for (int i = 0; i < rt->nworkers; i++) {
		struct worker *w = &rt->workers[i];

		if (!w->parked)
			continue;
		futex_wake(&w->hot.flags, 1);
		if (w->bell_page != NULL)
			page_ring(w->bell_page, i);
	}
}

/* Mark in pg which slots run no thread now (under park_lock): a parked
 * worker's; hosted, a free slot's or a lazily held one's. */
static void mark_idle(struct runtime *rt, struct page *pg)
{
	for (int i = 0; i < rt->nworkers && i < PAGE_SLOTS; i++) {
		struct worker *w = &rt->workers[i];

		page_idle_write(pg, i, rt->hosted ? w->holder == NULL || w->lazy
		                                  : w->parked != 0);
	}
}

/* Install the page. */
void quantum_page_install(struct runtime *rt, struct page *pg, int wake)
{
	pthread_mutex_lock(&rt->park_lock);
	if (rt->page_wake >= 0)
		close(rt->page_wake);
	rt->page_wake = wake;
	atomic_store(&rt->page_gen, 0);
	mark_idle(rt, pg);
	atomic_store_explicit(&rt->page, pg, memory_order_release);
	point_stops(rt, pg);
	wake_parked(rt);
	pthread_mutex_unlock(&rt->park_lock);
	quantum_page_apply(rt);
}

/* Install the page of a link that has one. */
void quantum_page_link(struct runtime *rt, struct link *l)
{
	struct page *pg;
	int wake;

	if (link_take_page(l, &pg, &wake) == 0)
		quantum_page_install(rt, pg, wake);
}

/* Keep a page mapped until the runtime ends (under park_lock); when too
 * many daemons were lost, the oldest goes (long past any reader). */
static void retire(struct runtime *rt, struct page *pg)
{
	if (rt->nretired == RT_PAGES_KEPT) {
		munmap(rt->retired[0], PAGE_BYTES);
		memmove(&rt->retired[0], &rt->retired[1],
		        (RT_PAGES_KEPT - 1) * sizeof(rt->retired[0]));
		rt->nretired--;
	}
	rt->retired[rt->nretired++] = pg;
}

/* Remove the page. */
void quantum_page_remove(struct runtime *rt)
{
	struct page *pg;

	pthread_mutex_lock(&rt->park_lock);
	pg = atomic_load(&rt->page);
	if (pg != NULL) {
		atomic_store(&rt->page, NULL);
		point_stops(rt, NULL);
		wake_parked(rt);
		retire(rt, pg);
	}
	if (rt->page_wake >= 0)
		close(rt->page_wake);
	rt->page_wake = -1;
	pthread_mutex_unlock(&rt->park_lock);
}

/* Apply the page's allotment (worker_allot takes a decision time that
 * is not one as now). */
void quantum_page_apply(struct runtime *rt)
{
	struct page_allotment *a = rt->page_buf;
	struct page *pg;
	int64_t gen;

	/* Another applier at work applies the newest it reads; a
	 * generation it missed is seen at the next safe point. */
	if (pthread_mutex_trylock(&rt->page_apply) != 0)
		return;
	pg = atomic_load_explicit(&rt->page, memory_order_acquire);
	if (pg != NULL && a != NULL && (gen = page_allot_read(pg, a)) >= 0 &&
	    (uint32_t)gen != atomic_load(&rt->page_gen)) {
		int n = a->allotment > rt->nworkers ? rt->nworkers : a->allotment;

		atomic_store(&rt->page_gen, (uint32_t)gen);
		if (gen != 0) {         /* 0: nothing written yet */
			atomic_store(&rt->page_availability, a->availability);
			worker_allot(rt, n, a->ncpus >= n ? a->cpus : NULL,
			             a->decided_ns, a->quantum);
		}
	}
	pthread_mutex_unlock(&rt->page_apply);
}

/* A revocation through the page is done. */
int quantum_page_released(struct runtime *rt, uint64_t tag, uint64_t at)
{
	struct page *pg = atomic_load(&rt->page);
	uint64_t one = 1;
	uint32_t parked = 0;

	if (pg == NULL || rt->page_wake < 0)
		return -1;
	for (int i = 0; i < rt->nworkers; i++)
		parked += rt->workers[i].parked != 0;
	page_parked_write(pg, tag, at, parked);
	/* A full counter fails: a signal is pending already. */
	(void)!write(rt->page_wake, &one, sizeof(one));
	return 0;
}

/* Mark a slot idle or busy. */
void quantum_page_idle(struct runtime *rt, struct worker *w, int idle)
{
	struct page *pg = atomic_load_explicit(&rt->page, memory_order_relaxed);

	if (pg != NULL)
		page_idle_write(pg, w->id, idle);
}

/* Whether a slot just taken is taken from the job. */
int quantum_page_taken(struct runtime *rt, struct worker *w)
{
	/* page_idle_write's fence orders the busy mark before this look at
	 * the generation, as the daemon's orders its generation before its
	 * look at the idle words (page.h): a revocation it did not see the
	 * mark for is seen here. */
	quantum_page_look(rt);
	return (atomic_load_explicit(&w->hot.flags, memory_order_acquire) &
	        RT_LEAVE) != 0;
}

/* Wait for a grant (or own's change). */
int quantum_page_wait_grant(struct runtime *rt, int next,
                            const _Atomic uint32_t *own, uint32_t e,
                            uint64_t timeout_ns)
{
	struct page *pg = atomic_load_explicit(&rt->page, memory_order_acquire);
	uint32_t seen;

	if (pg == NULL || next < 0)
		return -1;
	if (next >= rt->nworkers || next >= PAGE_SLOTS)
		return -1;              /* every slot allotted: no grant comes */
	seen = page_bell(pg, next);
	quantum_page_look(rt);             /* a generation come meanwhile */
	if (atomic_load_explicit(own, memory_order_acquire) != e)
		return 0;
	return page_bell_wait_with(pg, next, seen, own, e, timeout_ns);
}

/* The bell a parked worker waits on. */
struct page *quantum_page_bell(struct worker *w, uint32_t *seen)
{
	struct page *pg = atomic_load(&w->rt->page);

	if (pg != NULL && w->id >= PAGE_SLOTS)
		pg = NULL;
	w->bell_page = pg;
	if (pg != NULL)
		*seen = page_bell(pg, w->id);
	return pg;
}

/* Unmap and close everything. */
void quantum_page_free(struct runtime *rt)
{
	struct page *pg = atomic_load(&rt->page);

	if (pg != NULL)
		munmap(pg, PAGE_BYTES);
	atomic_store(&rt->page, NULL);
	for (int i = 0; i < rt->nretired; i++)
		munmap(rt->retired[i], PAGE_BYTES);
	rt->nretired = 0;
	if (rt->page_wake >= 0)
		close(rt->page_wake);
	rt->page_wake = -1;
	free(rt->page_buf);
	rt->page_buf = NULL;
}

/* The applier's buffer (the runtime is being made). */
int quantum_page_init(struct runtime *rt)
{
	rt->page_wake = -1;
	rt->page_buf = malloc(sizeof(*rt->page_buf));
	return rt->page_buf != NULL ? 0 : -1;
}
