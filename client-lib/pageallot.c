/*
 * pageallot.c - the allotment through the page the job shares with
 * asteald (../shared/DESIGN.md, "One quantum, through a shared page";
 * the layout is proto/page.h), inside the job.
 *
 * One revocation, end to end:
 *
 *   1. The daemon's tick decides a smaller a_q for the job: it writes the
 *      page's allot part under its count (the generation grows by 2) and
 *      sets the stop words of the slots it takes (daemon/schedpage.c).
 *   2. The worker of a slot taken reads its stop word at its next spawn
 *      or poll (asteal__stocked and asteal_poll, asteal.h), which sends
 *      it to a slow path; every slow path of spawn, sync and poll, every
 *      turn of find_work and every wake-up of a sleeper compares the
 *      generation with the one applied (pageallot_look).  The first
 *      worker to see a new one applies it (pageallot_apply: one applier
 *      at a time, and the generation read again under that lock, so each
 *      is applied once) through worker_allot, as the link thread applies
 *      an Allot but without its lock (the link thread takes the allotment
 *      for its accounting at the boundary); from there the leave hand-off
 *      is allot.c's (its top comment, steps 2 to 4), the allotment's
 *      quantum as the revocation's tag.
 *   3. The last leaving worker closes the revocation: pageallot_released
 *      writes the page's parked part (the quantum, when, how many parked)
 *      and signals the eventfd the Welcome passed; the daemon's loop reads
 *      it and the hand-over goes on.  No other thread of the job is on
 *      this path: the link thread is not.
 *
 * One grant: the daemon writes a larger a_q, clears the stop words of the
 * slots it adds and rings their bells (a futex wake each).  Their parked
 * workers wait on those bells (allot_park, through pageallot_bell); the
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
 * of the first slot not allotted (pageallot_wait_grant), and it marks the
 * slots no thread runs on idle (pageallot_idle): the daemon takes those
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
#include "pageallot.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "link.h"
#include "worker.h"

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
void pageallot_thread(struct worker *w, _Atomic(const _Atomic uint32_t *) *slot)
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
void pageallot_install(struct runtime *rt, struct page *pg, int wake)
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
	pageallot_apply(rt);
}

/* Install the page of a link that has one. */
void pageallot_link(struct runtime *rt, struct link *l)
{
	struct page *pg;
	int wake;

	if (link_take_page(l, &pg, &wake) == 0)
		pageallot_install(rt, pg, wake);
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
void pageallot_remove(struct runtime *rt)
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
void pageallot_apply(struct runtime *rt)
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
int pageallot_released(struct runtime *rt, uint64_t tag, uint64_t at)
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
void pageallot_idle(struct runtime *rt, struct worker *w, int idle)
{
	struct page *pg = atomic_load_explicit(&rt->page, memory_order_relaxed);

	if (pg != NULL)
		page_idle_write(pg, w->id, idle);
}

/* Whether a slot just taken is taken from the job. */
int pageallot_taken(struct runtime *rt, struct worker *w)
{
	/* page_idle_write's fence orders the busy mark before this look at
	 * the generation, as the daemon's orders its generation before its
	 * look at the idle words (page.h): a revocation it did not see the
	 * mark for is seen here. */
	pageallot_look(rt);
	return (atomic_load_explicit(&w->hot.flags, memory_order_acquire) &
	        RT_LEAVE) != 0;
}

/* Wait for a grant (or own's change). */
int pageallot_wait_grant(struct runtime *rt, int next,
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
	pageallot_look(rt);             /* a generation come meanwhile */
	if (atomic_load_explicit(own, memory_order_acquire) != e)
		return 0;
	return page_bell_wait_with(pg, next, seen, own, e, timeout_ns);
}

/* The bell a parked worker waits on. */
struct page *pageallot_bell(struct worker *w, uint32_t *seen)
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
void pageallot_free(struct runtime *rt)
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
int pageallot_init(struct runtime *rt)
{
	rt->page_wake = -1;
	rt->page_buf = malloc(sizeof(*rt->page_buf));
	return rt->page_buf != NULL ? 0 : -1;
}
