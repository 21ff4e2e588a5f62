/*
 * handover.c - the processor slots on their way from one job to another
 * (see handover.h).  One record per slot: the job giving it up (NULL when
 * free), the quantum of the Allot that took it, and when.  P is at most
 * DEQ_MAX_PROCS, so scanning every slot is cheap, and it happens only on
 * a change: a Released, a job gone, a bound passed.
 */
#include "handover.h"

#include <stdlib.h>

struct slot {
	const void *job;        /* giving it up, or NULL: free */
	uint64_t q;             /* the Allot that took it */
	uint64_t since;         /* when */
};

struct handover {
	int P;
	int busy;               /* slots with a job */
	struct slot slot[];
};

/* All slots free. */
struct handover *handover_create(int P)
{
	struct handover *h;

	if (P < 1 || P > DEQ_MAX_PROCS)
		return NULL;
	h = calloc(1, sizeof(*h) + (size_t)P * sizeof(h->slot[0]));
	if (h != NULL)
		h->P = P;
	return h;
}

/* Free the table. */
void handover_free(struct handover *h)
{
	free(h);
}

/* Mark the lost slots busy for job until its Released{q}. */
void handover_leave(struct handover *h, const void *job,
                    const struct deq_set *lost, uint64_t q, uint64_t now)
{
	for (int s = 0; s < h->P; s++) {
		if (!deq_set_has(lost, s))
			continue;
		if (h->slot[s].job == NULL)
			h->busy++;
		h->slot[s].job = job;
		h->slot[s].q = q;
		h->slot[s].since = now;
	}
}

/* Free slot s. */
static void release(struct handover *h, int s)
{
	h->slot[s].job = NULL;
	h->busy--;
}

/* Free the slots job gave up with Allots up to q. */
int handover_released(struct handover *h, const void *job, uint64_t q)
{
	int n = 0;

	for (int s = 0; h->busy > 0 && s < h->P; s++)
		if (h->slot[s].job == job && h->slot[s].q <= q) {
			release(h, s);
			n++;
		}
	return n;
}

/* Free every slot job was giving up. */
int handover_gone(struct handover *h, const void *job)
{
	return handover_released(h, job, UINT64_MAX);
}

/* Free the slots busy since before `before`. */
int handover_expire(struct handover *h, uint64_t before)
{
	int n = 0;

	for (int s = 0; h->busy > 0 && s < h->P; s++)
		if (h->slot[s].job != NULL && h->slot[s].since < before) {
			release(h, s);
			n++;
		}
	return n;
}

/* Whether another job is still giving up a slot of set. */
int handover_busy(const struct handover *h, const void *job,
                  const struct deq_set *set)
{
	for (int s = 0; h->busy > 0 && s < h->P; s++)
		if (h->slot[s].job != NULL && h->slot[s].job != job &&
		    deq_set_has(set, s))
			return 1;
	return 0;
}

/* When the longest-busy slot was given up (0: none is busy). */
uint64_t handover_oldest(const struct handover *h)
{
	uint64_t t = 0;

	for (int s = 0; h->busy > 0 && s < h->P; s++)
		if (h->slot[s].job != NULL && (t == 0 || h->slot[s].since < t))
			t = h->slot[s].since;
	return t;
}
