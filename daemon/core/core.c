/*
 * core.c - what the core decides as quanta pass (see core.h): a job's
 * desire heard, the tick (silence, the desires DEQ sees, DEQ, hand-overs,
 * deliveries, records), and how its decisions reach the jobs: allotments
 * delivered through the shell, held back while the slots they gain are
 * being handed over (handover.c) and retried as releases come or the
 * bound passes; grants of free slots between ticks, to a job that joins
 * or wakes holding none and, when slots come free, to the jobs waiting
 * for some (refill); and what follows from the free slots changing (the
 * idle jobs offered them, wake-ups, urgent reads).  Who is scheduled (the
 * jobs and users tables, silence's order, joins and leaves) is table.c's.
 *
 * A tick's cost grows with what changed, not with the jobs: DEQ's own
 * pass over every job (deq_allot_changes, which also lists the jobs whose
 * results changed), then work only for the jobs in that list and for
 * those that said something since the last tick (touched: a new desire, a
 * join, silence, a note).  Silence is found the same way: the jobs are
 * kept in order of when they were last heard, so a tick looks only at the
 * few oldest.  The history is told each job's values from the quantum
 * they changed on (record()).
 *
 * With handover, a slot DEQ moves from one job to another is granted only
 * once the job losing it released it (handover.c), or after the bound:
 * the losing job gets its allotment at once, the gaining job the slots it
 * can have now (if it loses some too) and the rest when they are free
 * (held: retried as releases come and when the hold timer fires).
 *
 * Between ticks, free slots are not left idle: a job that joins, or
 * wakes holding none, gets min(its desire, what is free) at once (a
 * grant), and slots that come free go to the jobs waiting for some, the
 * one DEQ would serve first first (refill).  A grant leaves the job's DEQ
 * state as the last tick left it, so the next tick decides as if there
 * had been no grant.
 */
#include "core_int.h"

#include <string.h>

#include "handover.h"

/* ------------------------------------------------------------ desire -- */

/* The desire DEQ sees for j. */
int core_desire(const struct core_job *j)
{
	int d;

	if (j->rigid)
		return j->cap;
	d = j->silent ? 0 : j->desire;
	return j->cap > 0 && d > j->cap ? j->cap : d;
}

/* j said its desire. */
void core_feedback(struct core *c, struct core_job *j, int desire, uint64_t now)
{
	if (j->silent) {
		j->silent = 0;
		c->nsilent--;
		core__touch(c, j);
		c->ops.voice(c->arg, j, 0);
	}
	core__heard_now(c, j, now);
	if (desire != j->desire)
		core__touch(c, j);
	j->desire = desire;
	/* Holding none, it may take free slots now. */
	if (!c->in_tick && j->touched && core__waits_for_slots(c, j))
		core__grant_soon(c, j);
}

/* -------------------------------------------------------------- tick -- */

/* Tell the history j's values from the current quantum on (once per
 * tick). */
static void record(struct core *c, struct core_job *j)
{
	const struct deq_job *d = &c->deq[j->index];
	struct core_record r;

	if (j->recorded == c->ticks)
		return;
	j->recorded = c->ticks;
	r.quantum = c->q;
	r.desire = d->desire;
	r.availability = d->availability;
	r.allotment = d->allotment;
	r.set = &d->cpus;
	r.set_changed = d->changed || c->offer < c->P;
	r.epoch = c->epoch;
	c->ops.record(c->arg, j, &r);
}

/* Only the first n slots are offered from the next tick on. */
void core_offer(struct core *c, int n)
{
	c->offer = n < 0 ? 0 : n > c->P ? c->P : n;
}

/* The slots beyond the offer leave DEQ's state; the jobs holding some are
 * told again at this tick. */
static void withdraw(struct core *c)
{
	for (int k = 0; k < c->njobs; k++) {
		struct core_job *j = c->jobs[k];
		int told = 0;

		for (int i = c->offer; i < c->P; i++) {
			deq_set_del(&c->deq[k].cpus, i);
			told |= deq_set_has(&j->sent, i);
		}
		if (told) {
			j->fresh = 1;
			core__touch(c, j);
		}
	}
}

/* The tick of quantum q begins. */
void core_tick_begin(struct core *c, uint64_t q)
{
	c->in_tick = 1;
	c->q = q;
	c->ticks++;
}

/* The tick. */
int core_tick(struct core *c, uint64_t now, uint64_t (*clock)(void),
              struct core_tick_stats *st)
{
	struct core_job *j;
	uint64_t q = c->q;
	int nc = 0, k, rc = 0;

	while (c->silence > 0 && (j = c->oldest) != NULL && j->heard + c->silence <= now) {
		core__heard_unlink(c, j);
		j->silent = 1;
		c->nsilent++;
		core__touch(c, j);
		c->ops.voice(c->arg, j, now - j->heard);
	}
	for (k = 0; k < c->ntouched; k++) {
		j = c->touched[k];
		c->deq[j->index].desire = core_desire(j);
	}
	core__users_prune(c);
	if (c->offer < c->P)
		withdraw(c);
	st->deq_ns = clock != NULL ? clock() : 0;
	if (c->njobs > 0 &&
	    (c->by_user
	     ? deq_allot_users(c->offer, c->deq, c->njobs, c->udeq, c->nusers, q,
	                       c->changed, &nc)
	     : deq_allot_changes(c->offer, c->deq, c->njobs, q, c->changed,
	                         &nc)) < 0) {
		rc = -1;
		nc = 0;
	}
	st->deq_ns = clock != NULL ? clock() - st->deq_ns : 0;
	st->changes = nc;
	/* Decided as DEQ answered: its own time is DEQ's (deq_ns), not the
	 * hand-over's that a revocation's latency measures from here. */
	now += st->deq_ns;
	c->decided = now;
	/* What each changed job gives up is busy before anyone gains it. */
	for (k = 0; c->handover != NULL && k < nc; k++) {
		struct deq_set lost;

		j = c->jobs[c->changed[k]];
		if (j->rigid)
			continue;       /* moved off as it is confined */
		lost = core__set_and(c, &j->sent, &c->deq[j->index].cpus, 1);
		handover_leave(c->handover, j, &lost, q, now);
	}
	for (k = 0; k < nc; k++)
		core__deliver(c, c->jobs[c->changed[k]], now);
	for (k = 0; k < c->ntouched; k++)
		if (c->touched[k]->fresh || c->touched[k]->granted)
			core__deliver(c, c->touched[k], now);
	/* This DEQ decided the held jobs' sets again. */
	if (c->handover != NULL)
		core__retry_held(c, now);
	for (k = 0; k < nc; k++)
		record(c, c->jobs[c->changed[k]]);
	for (k = 0; k < c->ntouched; k++) {
		c->touched[k]->touched = 0;
		record(c, c->touched[k]);
	}
	c->ntouched = 0;
	c->in_tick = 0;
	core__update_urgent(c);
	return rc;
}

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
