/*
 * pool.c - the pool: the layer's threads between parallel regions, and
 * the teams that ended, kept for the next region (both under one lock);
 * a file of the team module (team_int.h).
 *
 * A pool thread is made when a team needs one and none is idle
 * (omp_team__pool_get) and never ends.  Given a team, it runs its part
 * (omp_team__member, team.c) and comes back idle.  Between regions it
 * first docks: it spins for its next team with the slot it still holds
 * (dock), then spins without one (the wait policy's time), then sleeps on
 * its futex word until a master hands it a team.  A team that ended is
 * kept with its arrays and reused by the next region that fits in it.
 */
#include "team_int.h"

#include <stdlib.h>
#include <string.h>

#include "qtime.h"
#include "worker.h"

struct omp_thr *omp_thr_new_pool(void);

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct omp_thr *pool_idle;             /* idle pool threads */
_Atomic unsigned omp_team__busy = 1;          /* in teams, the initial thread too */
static struct omp_team *team_cache;           /* freed teams, under pool_lock */

/* Whether a docked pool thread must stop spinning with its slot: a team
 * came, the slot was revoked, or a thread waits for one. */
static bool undock(struct omp_thr *t)
{
	return atomic_load_explicit(&t->next_team, memory_order_acquire) != NULL ||
	       atomic_load_explicit(&t->slot->hot.flags, memory_order_relaxed) ||
	       atomic_load_explicit(&omp_slot_waiters, memory_order_relaxed) > 0;
}

/* After its region, a pool thread that still holds a slot keeps it while
 * it spins for its next team (the wait policy's time), so that a program
 * of back-to-back regions starts each without taking a slot again; the
 * first 10 us count as the region's work (no state change, which costs a
 * reading of the CPU clock, for a region that follows at once), the rest
 * as stealing.  The
 * slot goes back when the spin ends without a team, when it is revoked,
 * or when another thread waits for one. */
static void dock(struct omp_thr *t)
{
	uint64_t start = 0, limit = omp_g.wait_policy == 0 ? 0 :
	                            omp_g.wait_policy == 1 ? 100 * (uint64_t)OMP_SPIN_NS
	                                                   : OMP_SPIN_NS;
	unsigned fails = 0;

	while (!undock(t)) {
		fails++;
		for (unsigned i = 0; i < (fails < 32 ? fails : 32); i++)
			cpu_relax();
		if ((fails & 15) == 0) {
			uint64_t now = qtime_now_ns();
			if (start == 0)
				start = now;
			if (now - start >= 10000)
				omp_slot_state(t, WS_STEAL);
			if (now - start >= limit)
				break;
		}
	}
	if (atomic_load_explicit(&t->next_team, memory_order_acquire) == NULL ||
	    atomic_load_explicit(&t->slot->hot.flags, memory_order_relaxed) & RT_LEAVE)
		omp_slot_release(t);
}

/* A pool thread: run the teams it is given, forever. */
static void *pool_main(void *arg)
{
	struct omp_thr *t = arg;

	omp_self = t;
	for (;;) {
		uint32_t e = atomic_load(&t->word);
		if (t->slot != NULL)
			dock(t);
		/* Between regions, spin first (as the wait policy says): a
		 * program of many short regions then starts each without a
		 * wake-up.  It holds no processor while it waits. */
		if (atomic_load_explicit(&t->next_team, memory_order_acquire) == NULL &&
		    !omp_spin_until(&t->word, e, NULL, NULL)) {
			/* Say so before sleeping (seq_cst), so that a master
			 * that hands us a team after our last look wakes us. */
			atomic_store(&t->dozing, 1);
			if (atomic_load(&t->word) == e)
				syscall(SYS_futex, (uint32_t *)&t->word, FUTEX_WAIT_PRIVATE,
				        e, NULL, NULL, 0);
			atomic_store(&t->dozing, 0);
			continue;
		}
		if (atomic_load_explicit(&t->next_team, memory_order_acquire) != NULL)
			omp_team__member(t);
	}
	return NULL;
}

/* An idle pool thread: want if it is idle, else any, else a new one
 * (NULL when none can be made). */
struct omp_thr *omp_team__pool_get(struct omp_thr *want)
{
	struct omp_thr *t = NULL, **p;
	pthread_attr_t attr;
	int err;

	pthread_mutex_lock(&pool_lock);
	if (want != NULL && want->idle)
		for (p = &pool_idle; *p != NULL; p = &(*p)->next)
			if (*p == want) {
				t = want;
				*p = t->next;
				break;
			}
	if (t == NULL && (t = pool_idle) != NULL)
		pool_idle = t->next;
	if (t != NULL)
		t->idle = 0;
	pthread_mutex_unlock(&pool_lock);
	if (t != NULL) {
		t->next = NULL;
		return t;
	}
	t = omp_thr_new_pool();
	pthread_attr_init(&attr);
	if (omp_g.stacksize > 0)
		pthread_attr_setstacksize(&attr, omp_g.stacksize);
	err = pthread_create(&t->pt, &attr, pool_main, t);
	pthread_attr_destroy(&attr);
	if (err != 0) {
		free(t);
		return NULL;
	}
	return t;
}

/* Put a pool thread back in the idle list. */
void omp_team__pool_put(struct omp_thr *t)
{
	pthread_mutex_lock(&pool_lock);
	t->next = pool_idle;
	t->idle = 1;
	pool_idle = t;
	pthread_mutex_unlock(&pool_lock);
}

/* A team with room for n members (from the cache when one fits). */
struct omp_team *omp_team__alloc(unsigned n)
{
	struct omp_team *team, **p;

	pthread_mutex_lock(&pool_lock);
	for (p = &team_cache; *p != NULL; p = &(*p)->next_free)
		if ((*p)->capacity >= n)
			break;
	team = *p;
	if (team != NULL)
		*p = team->next_free;
	pthread_mutex_unlock(&pool_lock);
	if (team == NULL) {
		team = alloc_cl(sizeof(*team));
		if (team == NULL)
			omp_fatal("out of memory for a team");
		memset(team, 0, sizeof(*team));
		pthread_mutex_init(&team->lock, NULL);
		team->capacity = n < 4 ? 4 : n;
		team->thr = calloc(team->capacity, sizeof(*team->thr));
		team->dq = calloc(team->capacity, sizeof(*team->dq));
		team->implicit = calloc(team->capacity, sizeof(*team->implicit));
		if (team->thr == NULL || team->dq == NULL || team->implicit == NULL)
			omp_fatal("out of memory for a team of %u", n);
	}
	team->next_free = NULL;
	return team;
}

/* Keep a team that ended for the next region. */
void omp_team__free(struct omp_team *team)
{
	pthread_mutex_lock(&pool_lock);
	team->next_free = team_cache;
	team_cache = team;
	pthread_mutex_unlock(&pool_lock);
}

/* A forked child has none of its parent's threads: no pool, no teams (the
 * parent's memory for them is left as it is). */
void omp_team_fork_child(void)
{
	pthread_mutex_init(&pool_lock, NULL);
	pool_idle = NULL;
	team_cache = NULL;
	atomic_store(&omp_team__busy, 1);
}
