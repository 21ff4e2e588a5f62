/*
 * quantum.h - A-STEAL's quanta inside the job (see quantum.c and
 * quantumlink.c): the link thread, made from the environment's settings
 * as the runtime starts, started and stopped with it, woken when a root
 * task starts, and read for the summary (summary.c); and the allotment
 * through the page the job shares with asteald, installed and removed by
 * the link thread, looked at by every worker at its safe points, applied
 * by the first that sees a new generation, and the revocations reported
 * there (quantum.c's top comment tells the exchange end to end).
 */
#ifndef ASTEAL_QUANTUM_H
#define ASTEAL_QUANTUM_H

#include <stdint.h>

#include "estimator.h"
#include "page.h"
#include "runtime.h"
#include "usage.h"

/* What the link knows for the summary: totals over the finished quanta,
 * and the state now. */
struct quantum_totals {
	uint64_t quanta, skipped, sum_allotment;
	struct usage_sum total;        /* every worker's usage in them */
	uint64_t classes[EST_NCLASSES];
	double desire;                 /* d_q, real */
	int allotment;                 /* a_q */
	uint64_t job_id;               /* the daemon's id for us, 0 if none */
};

/* Read the mode and A-STEAL's settings from the environment into a new
 * link state; sets rt->mode and the first quantum's allotment.  -1 with a
 * message when a value is bad. */
int quantum_config(struct runtime *rt);

/* Start the link thread (nothing to do in static mode). */
int quantum_start(struct runtime *rt);

/* Stop the link thread and give every worker back. */
void quantum_stop(struct runtime *rt);

/* Free the link's state (the thread has stopped). */
void quantum_free(struct runtime *rt);

/* asteal_run started a root task while none was in flight: wake the link
 * thread. */
void quantum_root_started(struct runtime *rt);

/* Copy the link's totals into *t: 0, or -1 in static mode (no link). */
int quantum_totals(struct runtime *rt, struct quantum_totals *t);

/* The word the fast paths read when no page says stop. */
extern const _Atomic uint32_t asteal__no_stop;

/* A worker thread starts: slot is its asteal__fast.stop, pointed at its
 * stop word in the page if one is installed. */
void quantum_page_thread(struct worker *w, _Atomic(const _Atomic uint32_t *) *slot);

/* The link thread connected with a page whose allotments it reads there
 * (pg and wake are the runtime's from now on): installed, parked workers
 * moved to its bells, and its allotment applied. */
void quantum_page_install(struct runtime *rt, struct page *pg, int wake);

/* The link thread connected: the page of link l installed if it came
 * with one whose allotments the job reads there (quantum_page_install). */
struct link;
void quantum_page_link(struct runtime *rt, struct link *l);

/* The daemon is lost or the runtime stops: the page is no longer read
 * (kept mapped until quantum_page_free), parked workers wait on their flags
 * again. */
void quantum_page_remove(struct runtime *rt);

/* Apply the page's allotment if its generation is not the one applied
 * (any thread but one holding park_lock). */
void quantum_page_apply(struct runtime *rt);

/* A revocation the daemon asked for through the page is done (tag its
 * allotment's quantum, at when the last worker parked): written into the
 * page and the daemon told.  0, or -1 when the runtime has no page
 * (under park_lock). */
int quantum_page_released(struct runtime *rt, uint64_t tag, uint64_t at);

/* The page whose bell worker w is to wait on while parked, or NULL (wait
 * on its flags), and the bell's value before it looks at its conditions
 * (under park_lock). */
struct page *quantum_page_bell(struct worker *w, uint32_t *seen);

/* Slot w is idle (no thread runs there: a parked worker's; hosted, a
 * free slot or one held lazily) or not, in the page if one is installed
 * (under park_lock).  A thread that takes a slot marks it busy, then
 * looks at the generation (quantum_page_taken, quantum_page_look), for the
 * daemon may have taken it as idle already. */
void quantum_page_idle(struct runtime *rt, struct worker *w, int idle);

/* Hosted, a thread just took slot w (marked busy): whether the allotment
 * in force, the page's looked at first, takes it from the job (then the
 * thread gives it back).  Outside park_lock. */
int quantum_page_taken(struct runtime *rt, struct worker *w);

/* Hosted: wait on the private futex word own (holding e) and on the bell
 * of slot next, the first not allotted when the caller last looked (a
 * grant rings it), for at most timeout_ns; -1 when there is no page, no
 * such slot or no futex_waitv (then wait on own alone).  Outside
 * park_lock. */
int quantum_page_wait_grant(struct runtime *rt, int next,
                            const _Atomic uint32_t *own, uint32_t e,
                            uint64_t timeout_ns);

/* The runtime is being made: the applier's buffer.  0, or -1 (ENOMEM). */
int quantum_page_init(struct runtime *rt);

/* Unmap and close everything (the runtime ends). */
void quantum_page_free(struct runtime *rt);

/* A safe point's look at the allotment: a new generation in the page is
 * applied (one load when there is none). */
static inline void quantum_page_look(struct runtime *rt)
{
	struct page *pg = atomic_load_explicit(&rt->page, memory_order_acquire);

	if (pg != NULL && __builtin_expect(page_gen(pg) !=
	        atomic_load_explicit(&rt->page_gen, memory_order_relaxed), 0))
		quantum_page_apply(rt);
}

#endif
