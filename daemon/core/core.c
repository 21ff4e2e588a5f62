/*
 * core.c - every decision asteald makes (see core.h): the job and user
 * tables, silence, DEQ, allotments and hand-overs, grants, records.
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
 * DEQ shares the slots among the users first (by_user: deq_allot_users)
 * or among the jobs (deq_allot_changes).  The users are a small table by
 * uid, each job's DEQ state naming its user's place there; a user joins
 * with its first job, and leaves at the first tick after its last job
 * left, so that a user whose job is replaced between two ticks keeps its
 * place in the turns; places are renumbered only when users come and go.
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

#include <stdlib.h>
#include <string.h>

#include "handover.h"
#include "search.h"

/* ------------------------------------------------------------ tables -- */

/* The desire DEQ sees for j. */
int core_desire(const struct core_job *j)
{
	int d;

	if (j->rigid)
		return j->cap;
	d = j->silent ? 0 : j->desire;
	return j->cap > 0 && d > j->cap ? j->cap : d;
}

/* Unlink a job from the list by last heard. */
static void heard_unlink(struct core *c, struct core_job *j)
{
	if (j->older != NULL)
		j->older->newer = j->newer;
	else if (c->oldest == j)
		c->oldest = j->newer;
	if (j->newer != NULL)
		j->newer->older = j->older;
	else if (c->newest == j)
		c->newest = j->older;
	j->older = j->newer = NULL;
}

/* The job was heard now: it goes to the newest end. */
static void heard_now(struct core *c, struct core_job *j, uint64_t now)
{
	heard_unlink(c, j);
	j->heard = now;
	j->older = c->newest;
	if (c->newest != NULL)
		c->newest->newer = j;
	else
		c->oldest = j;
	c->newest = j;
}

/* Something of j DEQ or the history must see at the next tick. */
void core__touch(struct core *c, struct core_job *j)
{
	if (!j->touched) {
		j->touched = 1;
		c->touched[c->ntouched++] = j;
	}
}

/* Take a job out of an array of job pointers (touched, held). */
void core__drop_from(struct core_job **arr, int *n, struct core_job *j)
{
	for (int i = 0; i < *n; i++)
		if (arr[i] == j) {
			arr[i] = arr[--*n];
			return;
		}
}

/* Make room for one more job in every per-job array. */
int core_reserve(struct core *c)
{
	int cap = c->cap ? 2 * c->cap : 64;
	struct core_job **jobs, **touched, **held;
	struct deq_job *deq;
	int *changed;

	if (c->njobs < c->cap)
		return 0;
	jobs = realloc(c->jobs, (size_t)cap * sizeof(*jobs));
	if (jobs != NULL)
		c->jobs = jobs;
	deq = realloc(c->deq, (size_t)cap * sizeof(*deq));
	if (deq != NULL)
		c->deq = deq;
	changed = realloc(c->changed, (size_t)cap * sizeof(*changed));
	if (changed != NULL)
		c->changed = changed;
	touched = realloc(c->touched, (size_t)cap * sizeof(*touched));
	if (touched != NULL)
		c->touched = touched;
	held = realloc(c->held, (size_t)cap * sizeof(*held));
	if (held != NULL)
		c->held = held;
	if (jobs == NULL || deq == NULL || changed == NULL || touched == NULL ||
	    held == NULL)
		return -1;
	c->cap = cap;
	return 0;
}

/* Put j at its place in id order in jobs[] and deq[] (usually the end:
 * ids grow; earlier for a job that claimed an older id), with a new DEQ
 * state of desire d_1 = 1, of user place u. */
static void insert_by_id(struct core *c, struct core_job *j, int u)
{
	int at = c->njobs;

	while (at > 0 && c->jobs[at - 1]->id > j->id)
		at--;
	memmove(&c->jobs[at + 1], &c->jobs[at],
	        (size_t)(c->njobs - at) * sizeof(c->jobs[0]));
	memmove(&c->deq[at + 1], &c->deq[at],
	        (size_t)(c->njobs - at) * sizeof(c->deq[0]));
	memset(&c->deq[at], 0, sizeof(c->deq[at]));
	c->deq[at].desire = 1;
	c->deq[at].user = u;
	c->jobs[at] = j;
	c->njobs++;
	for (int i = at; i < c->njobs; i++)
		c->jobs[i]->index = i;
	c->epoch++;
}

/* Take j out of jobs[] and deq[]. */
static void remove_by_index(struct core *c, struct core_job *j)
{
	int at = j->index;

	memmove(&c->jobs[at], &c->jobs[at + 1],
	        (size_t)(c->njobs - at - 1) * sizeof(c->jobs[0]));
	memmove(&c->deq[at], &c->deq[at + 1],
	        (size_t)(c->njobs - at - 1) * sizeof(c->deq[0]));
	c->njobs--;
	for (int i = at; i < c->njobs; i++)
		c->jobs[i]->index = i;
	c->epoch++;
}

/* Whether users[i] sorts before the uid at key. */
static int user_below(const void *arr, size_t i, const void *key)
{
	return ((const struct core_user *)arr)[i].uid < *(const uid_t *)key;
}

/* One more job of uid: the user's place in users[] (a new user is put
 * there, and the jobs' places after it move up), or -1 when out of
 * memory. */
static int user_join(struct core *c, uid_t uid)
{
	int at = (int)search_first(c->users, (size_t)c->nusers, &uid, user_below);

	if (at < c->nusers && c->users[at].uid == uid) {
		c->users[at].njobs++;
		return at;
	}
	if (c->nusers == c->ucap) {
		int cap = c->ucap ? 2 * c->ucap : 8;
		struct core_user *users = realloc(c->users, (size_t)cap * sizeof(*users));
		struct deq_user *udeq;

		if (users == NULL)
			return -1;
		c->users = users;
		udeq = realloc(c->udeq, (size_t)cap * sizeof(*udeq));
		if (udeq == NULL)
			return -1;
		c->udeq = udeq;
		c->ucap = cap;
	}
	memmove(&c->users[at + 1], &c->users[at],
	        (size_t)(c->nusers - at) * sizeof(c->users[0]));
	memmove(&c->udeq[at + 1], &c->udeq[at],
	        (size_t)(c->nusers - at) * sizeof(c->udeq[0]));
	c->users[at].uid = uid;
	c->users[at].njobs = 1;
	memset(&c->udeq[at], 0, sizeof(c->udeq[at]));
	c->nusers++;
	for (int i = 0; i < c->njobs; i++)
		if (c->deq[i].user >= at)
			c->deq[i].user++;
	return at;
}

/* Drop the users whose last job left (at a tick, before DEQ), and move
 * the jobs' places down to match. */
static void users_prune(struct core *c)
{
	int n = 0;

	if (!c->users_gone)
		return;
	c->users_gone = 0;
	for (int u = 0; u < c->nusers; u++) {
		c->users[u].to = n;
		n += c->users[u].njobs > 0;
	}
	for (int i = 0; i < c->njobs; i++)
		c->deq[i].user = c->users[c->deq[i].user].to;
	n = 0;
	for (int u = 0; u < c->nusers; u++) {
		if (c->users[u].njobs == 0)
			continue;
		c->users[n] = c->users[u];
		c->udeq[n++] = c->udeq[u];
	}
	c->nusers = n;
}

/* One job of the user at place u left: the user goes at the next tick if
 * that was its last. */
static void user_leave(struct core *c, int u)
{
	if (--c->users[u].njobs == 0)
		c->users_gone = 1;
}

/* Whether jobs[i] sorts before the id at key. */
static int job_below(const void *arr, size_t i, const void *key)
{
	return ((struct core_job *const *)arr)[i]->id < *(const uint64_t *)key;
}

/* The job with this id, or NULL (binary search: id order). */
struct core_job *core_find(const struct core *c, uint64_t id)
{
	size_t at = search_first(c->jobs, (size_t)c->njobs, &id, job_below);

	return at < (size_t)c->njobs && c->jobs[at]->id == id ? c->jobs[at] : NULL;
}

/* -------------------------------------------------------------- jobs -- */

/* A job joins. */
int core_join(struct core *c, struct core_job *j, uint64_t id, uid_t uid,
              int desire, int cap, int rigid, uint64_t now)
{
	int u;

	if (core_reserve(c) < 0 || (u = user_join(c, uid)) < 0)
		return -1;
	memset(j, 0, sizeof(*j));
	j->id = id;
	j->uid = uid;
	j->desire = desire;
	j->cap = cap;
	j->rigid = rigid;
	insert_by_id(c, j, u);
	if (!rigid)
		heard_now(c, j, now);
	j->fresh = 1;
	core__touch(c, j);
	return 0;
}

/* A rigid job becomes an ordinary one. */
void core_connect(struct core *c, struct core_job *j, uint64_t now)
{
	j->rigid = 0;
	j->desire = 1;                  /* d_1 */
	heard_now(c, j, now);
	j->fresh = 1;
	core__touch(c, j);
}

/* Cap j's desire. */
void core_set_cap(struct core *c, struct core_job *j, int cap, int again)
{
	j->cap = cap;
	if (again)
		j->fresh = 1;
	core__touch(c, j);
}

/* j left. */
void core_leave(struct core *c, struct core_job *j, uint64_t now)
{
	if (j->rigid)
		;                       /* never heard */
	else if (!j->silent)
		heard_unlink(c, j);
	else
		c->nsilent--;
	if (j->touched)
		core__drop_from(c->touched, &c->ntouched, j);
	if (j->held)
		core__drop_from(c->held, &c->nheld, j);
	user_leave(c, c->deq[j->index].user);
	remove_by_index(c, j);
	if (c->handover != NULL && handover_gone(c->handover, j) > 0)
		core__retry_held_soon(c, now);
	if (!c->in_tick)
		core__update_urgent(c);         /* its slots may be free now */
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
	heard_now(c, j, now);
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
		heard_unlink(c, j);
		j->silent = 1;
		c->nsilent++;
		core__touch(c, j);
		c->ops.voice(c->arg, j, now - j->heard);
	}
	for (k = 0; k < c->ntouched; k++) {
		j = c->touched[k];
		c->deq[j->index].desire = core_desire(j);
	}
	users_prune(c);
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

/* ------------------------------------------------------ life, views -- */

/* The effects a shell leaves out (NULL in its core_ops): delivered,
 * recorded, granted, offered... by doing nothing. */
static int none_allot(void *arg, struct core_job *j, const struct core_allot *a)
{
	(void)arg;
	(void)j;
	(void)a;
	return 0;
}

/* See none_allot. */
static void none_record(void *arg, struct core_job *j, const struct core_record *r)
{
	(void)arg;
	(void)j;
	(void)r;
}

/* See none_allot. */
static void none_grant(void *arg, struct core_job *j, const struct deq_set *set,
                       int n, uint64_t q, uint64_t now)
{
	(void)arg;
	(void)j;
	(void)set;
	(void)n;
	(void)q;
	(void)now;
}

/* See none_allot. */
static void none_idle(void *arg, struct core_job *j, const struct deq_set *free)
{
	(void)arg;
	(void)j;
	(void)free;
}

/* See none_allot. */
static void none_voice(void *arg, struct core_job *j, uint64_t quiet_ns)
{
	(void)arg;
	(void)j;
	(void)quiet_ns;
}

/* See none_allot. */
static void none_wake(void *arg)
{
	(void)arg;
}

/* See none_allot. */
static void none_timer(void *arg, uint64_t delay_ns)
{
	(void)arg;
	(void)delay_ns;
}

/* See none_allot. */
static void none_urgent(void *arg, int on)
{
	(void)arg;
	(void)on;
}

/* The core, with no job. */
struct core *core_create(const struct core_params *p, const struct core_ops *ops,
                         void *arg)
{
	struct core *c;

	if (p->P < 1 || p->P > DEQ_MAX_PROCS)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->P = c->offer = p->P;
	c->by_user = p->by_user;
	c->silence = p->silence_ns;
	c->bound = p->bound_ns;
	c->ops = *ops;
	c->ops.allot = ops->allot ? ops->allot : none_allot;
	c->ops.record = ops->record ? ops->record : none_record;
	c->ops.grant = ops->grant ? ops->grant : none_grant;
	c->ops.idle = ops->idle ? ops->idle : none_idle;
	c->ops.voice = ops->voice ? ops->voice : none_voice;
	c->ops.wake = ops->wake ? ops->wake : none_wake;
	c->ops.hold_timer = ops->hold_timer ? ops->hold_timer : none_timer;
	c->ops.urgent = ops->urgent ? ops->urgent : none_urgent;
	c->arg = arg;
	if ((p->handover && (c->handover = handover_create(c->P)) == NULL) ||
	    core_reserve(c) < 0) {
		core_free(c);
		return NULL;
	}
	return c;
}

/* Free the core. */
void core_free(struct core *c)
{
	if (c == NULL)
		return;
	handover_free(c->handover);
	free(c->jobs);
	free(c->deq);
	free(c->changed);
	free(c->users);
	free(c->udeq);
	free(c->touched);
	free(c->held);
	free(c);
}

/* Jobs, in id order. */
int core_njobs(const struct core *c)
{
	return c->njobs;
}

/* The i-th job in id order. */
struct core_job *core_job_at(const struct core *c, int i)
{
	return c->jobs[i];
}

/* DEQ's state for j. */
const struct deq_job *core_deq(const struct core *c, const struct core_job *j)
{
	return &c->deq[j->index];
}

/* Silent jobs now. */
int core_nsilent(const struct core *c)
{
	return c->nsilent;
}

/* Ticks run. */
uint64_t core_ticks(const struct core *c)
{
	return c->ticks;
}

/* The last tick's quantum. */
uint64_t core_quantum(const struct core *c)
{
	return c->q;
}
