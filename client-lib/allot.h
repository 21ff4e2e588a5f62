/*
 * allot.h - the allotment inside the job (see allot.c, whose top comment
 * tells the leave hand-off end to end): the link thread applies an
 * allotment (worker_allot); a worker told to leave parks (allot_park);
 * idle workers mug deques left without an owner (allot_mug); deques
 * change hands; and a hosted slot's holder gives it back.
 *
 * Self-contained (the runtime is only pointed to), so that runtime.h can
 * include it for the callers of worker_allot that include runtime.h alone.
 */
#ifndef ASTEAL_ALLOT_H
#define ASTEAL_ALLOT_H

#include <stdint.h>

#include "deque.h"

struct runtime;
struct worker;

/* Apply an allotment: workers 0 .. allotment-1 active (pinned to cpus[i]
 * when cpus is not NULL), the others told to leave; now is when it was
 * decided and tag the daemon's Allot quantum (RT_NO_TAG for none).  The
 * link thread's call; also a recall of every worker before the runtime
 * stops. */
void worker_allot(struct runtime *rt, int allotment, const int *cpus,
                  uint64_t now, uint64_t tag);

/* Hosted: the holder of slot w, told to leave, gives it back (under
 * park_lock): the slot parks and its part of the revocation ends. */
void allot_slot_park(struct worker *w);

/* Give the worker's processor back (the allotment lost it): its deque, if
 * not empty, becomes muggable, and it waits until the allotment includes
 * it again; it returns without parking when the request was withdrawn
 * meanwhile or no deque is to be had. */
void allot_park(struct worker *w);

/* Claim a muggable deque whole and make it the worker's: 1 when one was
 * mugged. */
int allot_mug(struct worker *w);

/* An empty deque for a worker whose deque left with a suspended fiber
 * (NULL when out of memory). */
deque *allot_deque_get(struct runtime *rt);

/* Give up a deque the worker owned: free if empty, else muggable. */
void allot_deque_release(struct runtime *rt, deque *d);

#endif
