/*
 * table.c - who the core schedules (see core.h): the jobs in id order
 * with their DEQ state, the users (uids) with theirs, the jobs by when
 * they were last heard (so that a tick finds the silent ones among the
 * few oldest), the events of a job's life (join, connect, cap, leave),
 * and the core's life and views.
 *
 * DEQ shares the slots among the users first (by_user: deq_allot_users)
 * or among the jobs (deq_allot_changes).  The users are a small table by
 * uid, each job's DEQ state naming its user's place there; a user joins
 * with its first job, and leaves at the first tick after its last job
 * left, so that a user whose job is replaced between two ticks keeps its
 * place in the turns; places are renumbered only when users come and go.
 */
#include "core_int.h"

#include <stdlib.h>
#include <string.h>

#include "handover.h"
#include "search.h"

/* ------------------------------------------------------------ tables -- */


/* Unlink a job from the list by last heard. */
void core__heard_unlink(struct core *c, struct core_job *j)
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
void core__heard_now(struct core *c, struct core_job *j, uint64_t now)
{
	core__heard_unlink(c, j);
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
void core__users_prune(struct core *c)
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
		core__heard_now(c, j, now);
	j->fresh = 1;
	core__touch(c, j);
	return 0;
}

/* A rigid job becomes an ordinary one. */
void core_connect(struct core *c, struct core_job *j, uint64_t now)
{
	j->rigid = 0;
	j->desire = 1;                  /* d_1 */
	core__heard_now(c, j, now);
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
		core__heard_unlink(c, j);
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
