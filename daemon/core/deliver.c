/*
 * deliver.c - how the core's decisions reach the jobs (see core.h and
 * core.c): allotments delivered through the shell, held back while the
 * slots they gain are being handed over (handover.c) and retried as
 * releases come or the bound passes; grants of free slots between ticks,
 * to a job that joins or wakes holding none and, when slots come free, to
 * the jobs waiting for some (refill); and what follows from the free
 * slots changing (the idle jobs offered them, wake-ups, urgent reads).
 */
#include "core_int.h"

#include <string.h>

#include "handover.h"

/* ------------------------------------------------------------- sets -- */

/* a & b, or a & ~b (minus), over the first P slots. */
struct deq_set core__set_and(const struct core *c, const struct deq_set *a,
                              const struct deq_set *b, int minus)
{
	struct deq_set r;

	memset(&r, 0, sizeof(r));
	for (int w = 0; w * 64 < c->P; w++)
		r.w[w] = a->w[w] & (minus ? ~b->w[w] : b->w[w]);
	return r;
}

/* Whether two sets hold the same of the first P slots. */
static int same_set(const struct core *c, const struct deq_set *a,
                    const struct deq_set *b)
{
	return memcmp(a->w, b->w, (size_t)(c->P + 63) / 64 * sizeof(a->w[0])) == 0;
}

/* The slots that no job holds or was last told it holds (so none that a
 * job losing it has yet to give up). */
static struct deq_set free_slots(const struct core *c)
{
	struct deq_set f;

	deq_set_clear(&f);
	for (int i = 0; i < c->offer; i++)
		deq_set_add(&f, i);
	for (int k = 0; k < c->njobs; k++)
		for (int w = 0; w * 64 < c->P; w++)
			f.w[w] &= ~(c->deq[k].cpus.w[w] | c->jobs[k]->sent.w[w]);
	return f;
}

/* Whether j holds no slot. */
int core_holds_none(const struct core *c, const struct core_job *j)
{
	return deq_set_count(&j->sent) == 0 &&
	       deq_set_count(&c->deq[j->index].cpus) == 0;
}

/* ------------------------------------------------------------ allots -- */

/* Deliver j the slots of set, for the current quantum, decided at
 * `decided`: 0, or -1 when the shell could not. */
static int send_allot(struct core *c, struct core_job *j,
                      const struct deq_set *set, uint64_t decided)
{
	struct core_allot a;

	a.set = set;
	a.allotment = deq_set_count(set);
	a.availability = c->deq[j->index].availability;
	a.quantum = c->q;
	a.decided = decided;
	if (c->ops.allot(c->arg, j, &a) < 0)
		return -1;
	if (a.allotment == 0)
		c->idle_dirty = 1;      /* it may go to the free slots */
	j->sent = *set;
	j->allot_q = c->q;
	j->decided = decided;
	j->fresh = j->granted = 0;
	return 0;
}

/* Tell j its allotment: all of it, or (handover) the part it can have
 * now, holding back slots other jobs have yet to release. */
void core__deliver(struct core *c, struct core_job *j, uint64_t decided)
{
	const struct deq_set *want = &c->deq[j->index].cpus;

	if (c->handover != NULL) {
		struct deq_set gain = core__set_and(c, want, &j->sent, 1);

		if (handover_busy(c->handover, j, &gain)) {
			struct deq_set keep = core__set_and(c, want, &j->sent, 0);

			if (!same_set(c, &keep, &j->sent) || j->fresh)
				send_allot(c, j, &keep, decided);
			if (!j->held) {
				j->held = 1;
				c->held[c->nheld++] = j;
			}
			return;
		}
	}
	if (j->held) {
		j->held = 0;
		core__drop_from(c->held, &c->nheld, j);
	}
	send_allot(c, j, want, decided);
}

/* Ask for the hold timer, if some job waits for held slots. */
static void arm_hold(struct core *c, uint64_t now)
{
	uint64_t oldest;

	if (c->handover == NULL || c->nheld == 0)
		return;
	oldest = handover_oldest(c->handover);
	if (oldest == 0)
		oldest = now;
	c->ops.hold_timer(c->arg, oldest + c->bound > now ? oldest + c->bound - now : 0);
}

/* Give the held jobs what is free now (the sets the last tick's DEQ
 * decided). */
void core__retry_held(struct core *c, uint64_t now)
{
	for (int i = c->nheld - 1; i >= 0 && i < c->nheld; i--)
		core__deliver(c, c->held[i], c->decided);
	arm_hold(c, now);
	core__update_urgent(c);
}

/* retry_held, unless a tick is under way: it retries once its DEQ ran. */
void core__retry_held_soon(struct core *c, uint64_t now)
{
	if (!c->in_tick)
		core__retry_held(c, now);
}

/* The hold timer fired: slots busy past the bound are free. */
void core_hold_expired(struct core *c, uint64_t now)
{
	if (c->handover == NULL)
		return;
	handover_expire(c->handover, now > c->bound ? now - c->bound + 1 : 0);
	core__retry_held(c, now);
}

/* j released the slots it gave up with allotments up to quantum q. */
void core_released(struct core *c, struct core_job *j, uint64_t q, uint64_t now)
{
	if (c->handover != NULL && handover_released(c->handover, j, q) > 0)
		core__retry_held_soon(c, now);
}

/* ------------------------------------------------------------ grants -- */

/* Give j, which holds no slot, min(its desire, what is free) of the free
 * slots, lowest first (where the next tick's DEQ places a job when nobody
 * else grows); none before the first tick, whose quantum a grant could
 * not name.  Its DEQ state keeps what the last tick left but for the
 * availability it is told. */
static void grant(struct core *c, struct core_job *j, uint64_t now)
{
	struct deq_set free = free_slots(c), give;
	int want = core_desire(j), n = 0;

	if (c->ticks == 0 || want < 1 || !core_holds_none(c, j))
		return;                 /* the tick sends its allotment */
	deq_set_clear(&give);
	for (int i = 0; i < c->P && n < want; i++)
		if (deq_set_has(&free, i)) {
			deq_set_add(&give, i);
			n++;
		}
	if (n == 0 || (c->handover != NULL && handover_busy(c->handover, j, &give)))
		return;
	c->deq[j->index].availability = n;
	if (send_allot(c, j, &give, now) < 0)
		return;                 /* not delivered: its leave comes */
	j->granted = 1;
	c->ops.grant(c->arg, j, &give, n, c->q, now);
}

/* Whether j waits for slots a grant could give it: not rigid, past its
 * own grant as a new job, asking for some and holding none. */
int core__waits_for_slots(const struct core *c, const struct core_job *j)
{
	return !j->rigid && !j->fresh && core_desire(j) >= 1 &&
	       core_holds_none(c, j);
}

/* Slots came free between ticks: the jobs that hold none and ask for
 * some get them by grants, the one DEQ would serve first (the largest
 * credit) first, until none is free or nobody waits. */
static void refill(struct core *c, uint64_t now)
{
	for (;;) {
		struct deq_set free = free_slots(c);
		struct core_job *best = NULL;

		if (deq_set_count(&free) == 0)
			return;
		for (int k = 0; k < c->njobs; k++) {
			struct core_job *j = c->jobs[k];

			if (!core__waits_for_slots(c, j))
				continue;
			if (best == NULL ||
			    c->deq[k].credit > c->deq[best->index].credit)
				best = j;
		}
		if (best == NULL)
			return;
		core__touch(c, best);         /* the tick tells it DEQ's answer */
		grant(c, best, now);
		if (!best->granted)
			return;         /* busy, or not delivered */
	}
}

/* The grants that are due, then refills. */
void core_grants(struct core *c, uint64_t now)
{
	if (c->in_tick)
		return;
	for (int k = 0; k < c->ntouched; k++)
		if (c->touched[k]->want_grant) {
			c->touched[k]->want_grant = 0;
			grant(c, c->touched[k], now);
		}
	if (c->ticks > 0)
		refill(c, now);
	core__update_urgent(c);
}

/* Make j's grant due, once the shell's loop comes back to it. */
void core__grant_soon(struct core *c, struct core_job *j)
{
	j->want_grant = 1;
	c->ops.wake(c->arg);
}

/* A job that just joined gets its grant as soon as the shell can. */
void core_grant_due(struct core *c, struct core_job *j)
{
	if (j->fresh && j->touched)
		core__grant_soon(c, j);
}

/* The free slots may have changed: the jobs holding none may be held to
 * them (idle), a slot that came free between ticks wakes the grants, and
 * the shell reads the jobs as their input comes while a job waits for
 * slots to be released or some slot is free. */
void core__update_urgent(struct core *c)
{
	struct deq_set free = free_slots(c);
	struct deq_set grew = core__set_and(c, &free, &c->refill_free, 1);
	int on;

	c->refill_free = free;
	if (deq_set_count(&grew) > 0 && !c->in_tick && c->ticks > 0)
		c->ops.wake(c->arg);
	if (deq_set_count(&free) > 0 &&
	    (c->idle_dirty || !same_set(c, &free, &c->idle_free))) {
		c->idle_free = free;
		c->idle_dirty = 0;
		for (int k = 0; k < c->njobs; k++)
			if (core_holds_none(c, c->jobs[k]))
				c->ops.idle(c->arg, c->jobs[k], &free);
	}
	on = c->nheld > 0 || (c->njobs > 0 && deq_set_count(&free) > 0);
	if (on != c->urgent_on) {
		c->urgent_on = on;
		c->ops.urgent(c->arg, on);
	}
}
