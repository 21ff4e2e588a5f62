/*
 * pfor.c - asteal_for, the parallel loop, split on demand.  A running
 * loop's frame (struct asteal__loop in asteal.h) is linked into its
 * fiber's chain; when thieves want work and the owner's deque is empty,
 * the owner's next chunk boundary (asteal__for_poll in suspend.c) splits
 * off half of what the oldest frame has left, as one task (pfor_promote).
 * The loop itself is inline in asteal.h (asteal__for_run).
 */
/* This file defines the out-of-line asteal_for; asteal.h's inline one
 * must not be seen here. */
#define ASTEAL__FOR_OUT_OF_LINE 1
#include "pfor.h"

#include <errno.h>

#include "runtime.h"

/* Run body over [lo, hi) in parallel chunks of at most grain: the
 * out-of-line entry (for callers without the header's inline fast path,
 * a grain to choose, or a call from outside tasks). */
int asteal__for_slow(long lo, long hi, long grain,
                     void (*body)(long lo, long hi, void *arg), void *arg)
{
	return asteal_for(lo, hi, grain, body, arg);
}

/* A part split off a loop (asteal__range) run as a task by whoever took
 * it: a loop of its own, whose frame thieves can split again. */
void pfor_task(void *p)
{
	struct asteal__range *r = p;
	const struct asteal__loop *l = r->loop;

	asteal__for_run(asteal__self_exact(), r->lo, r->hi, l->grain,
	                l->body, l->arg);
}

/* Run body over [lo, hi) in parallel chunks of at most grain. */
int asteal_for(long lo, long hi, long grain,
               void (*body)(long lo, long hi, void *arg), void *arg)
{
	if (body == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (hi <= lo)
		return 0;
	if (grain <= 0) {
		long p = asteal_workers() > 0 ? asteal_workers() : 1;
		grain = (hi - lo) / (8 * p);
		if (grain < 1)
			grain = 1;
	}
	struct asteal__loop l = { .grain = grain, .body = body, .arg = arg };
	struct asteal__range r = { .lo = lo, .hi = hi, .loop = &l };

	if (asteal__self() == NULL)
		return asteal_run(pfor_task, &r);
	pfor_task(&r);
	return 0;
}

/* Promote work for thieves: split off the right half of what is left of
 * the oldest loop frame with iterations left and with room for one more
 * part, and push it (public) as a task of that frame's group.  Called
 * only when the deque is empty, so the new entry lies under no entry of an
 * inner group (a sync pops its own group's entries only).  The search
 * starts at the mark: frames outside it have no iterations left, which
 * stays true (next only grows, hi only falls), so a deep recursion is not
 * walked from the top each time.  Returns dq_push's count of public
 * entries before (0: wake a sleeper), or -1 when nothing was pushed. */
int64_t pfor_promote(struct asteal__loops *ls, deque *d)
{
	struct asteal__loop *f;
	struct asteal__range *r;
	int64_t before;
	dq_entry e;

	if (ls->inner == NULL)
		return -1;
	for (f = ls->mark != NULL ? ls->mark : ls->outer; ; f = f->inner) {
		if (f->hi > f->next &&
		    (f->g.state == ASTEAL__GROUP_IDLE || f->nsplit < ASTEAL__LOOP_SPLITS))
			break;
		if (f == ls->inner) {
			ls->mark = f;
			return -1;      /* nothing left to give */
		}
	}
	ls->mark = f;
	if (f->g.state == ASTEAL__GROUP_IDLE) {   /* its first part */
		group_start(&f->g);
		f->nsplit = 0;
	}
	r = &f->split[f->nsplit];
	r->lo = f->next + (f->hi - f->next) / 2;
	r->hi = f->hi;
	r->loop = f;
	e.fn = pfor_task;
	e.arg = r;
	e.ctx = &f->g;
	before = dq_push(d, &e);
	if (before < 0) {
		if (f->g.pushed == 0)
			f->g.state = ASTEAL__GROUP_IDLE;
		return -1;              /* no memory to grow: the loop runs on */
	}
	f->hi = r->lo;
	f->nsplit++;
	f->g.pushed++;
	return before;
}
