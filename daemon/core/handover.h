/*
 * handover.h - the processor slots on their way from one job to another
 * (asteald --handover release): between the Allot that takes a slot from
 * a job and the Released in which that job says its leaving workers have
 * parked, the slot is still busy, and the scheduler holds back its grant
 * to another job (Arachne's core arbiter asks, then grants).  A slot is
 * also free once its job is gone, or once it has been busy longer than the
 * scheduler's bound.
 *
 * No I/O and no clock: times are given.  Jobs are opaque keys (the
 * scheduler's job pointers).  Slots are 0..P-1, as in deq.h.
 */
#ifndef ASTEAL_HANDOVER_H
#define ASTEAL_HANDOVER_H

#include <stdint.h>

#include "deq.h"

struct handover;

/* The slots of P processors, all free; NULL when out of memory. */
struct handover *handover_create(int P);

/* Free it (NULL is fine). */
void handover_free(struct handover *h);

/* Job gives up the slots of lost with its Allot of quantum q, at time now:
 * busy until its Released{q' >= q}. */
void handover_leave(struct handover *h, const void *job,
                    const struct deq_set *lost, uint64_t q, uint64_t now);

/* Job said Released{q}: the slots it gave up with Allots up to q are
 * free.  Returns how many were freed. */
int handover_released(struct handover *h, const void *job, uint64_t q);

/* Job is gone: every slot it was giving up is free; returns how many. */
int handover_gone(struct handover *h, const void *job);

/* Slots busy since before `before` are free (they waited their bound);
 * returns how many were freed. */
int handover_expire(struct handover *h, uint64_t before);

/* Whether a slot of set is busy, given up by a job other than job. */
int handover_busy(const struct handover *h, const void *job,
                  const struct deq_set *set);

/* When the longest-busy slot was given up, or 0 when none is busy. */
uint64_t handover_oldest(const struct handover *h);

#endif
