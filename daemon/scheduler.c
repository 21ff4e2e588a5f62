/*
 * scheduler.c - asteald's job scheduler (see scheduler.h): the job table,
 * the ticks on the shared clock, DEQ, Allot messages to the jobs that
 * changed, tick statistics and the history, jobs joining and leaving.
 * What the jobs say (Feedback, taken as it comes, and Released) is
 * schedinput.c's, what the command line sees and does schedview.c's, and
 * what the three files share is in scheduler_int.h.
 *
 * A tick's cost grows with what changed, not with the jobs: DEQ's own
 * pass over every job (deq_allot_changes, which also lists the jobs whose
 * results changed), then work only for the jobs in that list and for
 * those that said something since the last tick (s->touched: a new
 * desire, a new class, a join, silence).  Silence is found the same way:
 * the jobs are kept in order of when they were last heard, so a tick
 * looks only at the few oldest.  The history is told each job's values
 * from the quantum they changed on (history_allot), the usage as
 * Feedbacks report it (history_usage), and which quantum is over
 * (history_advance); every tick ends with history_flush, which writes a
 * share of the closed runs and commits them once a second (history.h).
 *
 * DEQ shares the CPUs among the users first (--share user, the
 * default: deq_allot_users) or among the jobs (--share job:
 * deq_allot_changes).  The users are a small table by uid, each job's DEQ
 * state naming its user's place there (deq_job.user); a user joins with
 * its first job, and leaves at the first tick after its last job left, so
 * that a user whose job is replaced between two ticks keeps its place in
 * the turns; places are renumbered only when users come and go.
 *
 * With --handover release a CPU DEQ moves from one job to another is
 * granted only once the job losing it said Released (handover.c), or
 * after a quarter of a quantum: the losing job gets its Allot at once,
 * the gaining job an Allot of the CPUs it can have now (if it loses
 * some too) and the rest when they are free.
 */
#include "scheduler_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <event2/event.h>

#include "conf.h"
#include "conn.h"
#include "cpulist.h"
#include "deq.h"
#include "exchange.h"
#include "handover.h"
#include "history.h"
#include "log.h"
#include "proto.h"
#include "qtime.h"
#include "samples.h"
#include "scheduler.h"
#include "search.h"


static void bury(struct sched *s, struct sched_job *j);

/* ------------------------------------------------------------ tables -- */

/* Unlink a job from the list by last heard. */
static void heard_unlink(struct sched *s, struct sched_job *j)
{
	if (j->older != NULL)
		j->older->newer = j->newer;
	else if (s->oldest == j)
		s->oldest = j->newer;
	if (j->newer != NULL)
		j->newer->older = j->older;
	else if (s->newest == j)
		s->newest = j->older;
	j->older = j->newer = NULL;
}

/* The job was heard now: it goes to the newest end. */
void sched__heard_now(struct sched *s, struct sched_job *j, uint64_t now)
{
	heard_unlink(s, j);
	j->heard = now;
	j->older = s->newest;
	if (s->newest != NULL)
		s->newest->newer = j;
	else
		s->oldest = j;
	s->newest = j;
}

/* The job said something DEQ or the history must see at the next tick. */
void sched__touch(struct sched *s, struct sched_job *j)
{
	if (!j->touched) {
		j->touched = 1;
		s->touched[s->ntouched++] = j;
	}
}

/* Take a job out of an array of job pointers (touched, held). */
static void drop_from(struct sched_job **arr, int *n, struct sched_job *j)
{
	for (int i = 0; i < *n; i++)
		if (arr[i] == j) {
			arr[i] = arr[--*n];
			return;
		}
}

/* Make room for one more job in every per-job array: 0, or -1. */
int sched__reserve(struct sched *s)
{
	int cap = s->cap ? 2 * s->cap : 64;
	struct sched_job **jobs, **touched, **held;
	struct deq_job *deq;
	int *changed;

	if (s->njobs < s->cap)
		return 0;
	jobs = realloc(s->jobs, (size_t)cap * sizeof(*jobs));
	if (jobs != NULL)
		s->jobs = jobs;
	deq = realloc(s->deq, (size_t)cap * sizeof(*deq));
	if (deq != NULL)
		s->deq = deq;
	changed = realloc(s->changed, (size_t)cap * sizeof(*changed));
	if (changed != NULL)
		s->changed = changed;
	touched = realloc(s->touched, (size_t)cap * sizeof(*touched));
	if (touched != NULL)
		s->touched = touched;
	held = realloc(s->held, (size_t)cap * sizeof(*held));
	if (held != NULL)
		s->held = held;
	if (jobs == NULL || deq == NULL || changed == NULL || touched == NULL ||
	    held == NULL)
		return -1;
	s->cap = cap;
	return 0;
}

/* Put j at its place in id order in jobs[] and deq[] (usually the end:
 * ids grow; earlier for a job that claimed an older id), with a new DEQ
 * state of desire d_1 = 1. */
static void insert_by_id(struct sched *s, struct sched_job *j)
{
	int at = s->njobs;

	while (at > 0 && s->jobs[at - 1]->id > j->id)
		at--;
	memmove(&s->jobs[at + 1], &s->jobs[at],
	        (size_t)(s->njobs - at) * sizeof(s->jobs[0]));
	memmove(&s->deq[at + 1], &s->deq[at],
	        (size_t)(s->njobs - at) * sizeof(s->deq[0]));
	memset(&s->deq[at], 0, sizeof(s->deq[at]));
	s->deq[at].desire = 1;
	s->jobs[at] = j;
	s->njobs++;
	for (int i = at; i < s->njobs; i++)
		s->jobs[i]->index = i;
}

/* Put a new job j of user place u in the tables. */
void sched__insert(struct sched *s, struct sched_job *j, int u)
{
	insert_by_id(s, j);
	s->deq[j->index].user = u;
	s->epoch++;
}

/* Take j out of jobs[] and deq[]. */
static void remove_by_index(struct sched *s, struct sched_job *j)
{
	int at = j->index;

	memmove(&s->jobs[at], &s->jobs[at + 1],
	        (size_t)(s->njobs - at - 1) * sizeof(s->jobs[0]));
	memmove(&s->deq[at], &s->deq[at + 1],
	        (size_t)(s->njobs - at - 1) * sizeof(s->deq[0]));
	s->njobs--;
	for (int i = at; i < s->njobs; i++)
		s->jobs[i]->index = i;
	s->epoch++;
}

/* Whether users[i] sorts before the uid at key. */
static int user_below(const void *arr, size_t i, const void *key)
{
	return ((const struct sched_user *)arr)[i].uid < *(const uid_t *)key;
}

/* users[]'s place for uid: where it is, or where it would go. */
static int user_place(const struct sched *s, uid_t uid)
{
	return (int)search_first(s->users, (size_t)s->nusers, &uid, user_below);
}

/* One more job of uid: the user's place in users[] (a new user is put
 * there, and the jobs' places after it move up), or -1 when out of
 * memory. */
int sched__user_join(struct sched *s, uid_t uid)
{
	int at = user_place(s, uid);

	if (at < s->nusers && s->users[at].uid == uid) {
		s->users[at].njobs++;
		return at;
	}
	if (s->nusers == s->ucap) {
		int cap = s->ucap ? 2 * s->ucap : 8;
		struct sched_user *users = realloc(s->users, (size_t)cap * sizeof(*users));
		struct deq_user *udeq;

		if (users == NULL)
			return -1;
		s->users = users;
		udeq = realloc(s->udeq, (size_t)cap * sizeof(*udeq));
		if (udeq == NULL)
			return -1;
		s->udeq = udeq;
		s->ucap = cap;
	}
	memmove(&s->users[at + 1], &s->users[at],
	        (size_t)(s->nusers - at) * sizeof(s->users[0]));
	memmove(&s->udeq[at + 1], &s->udeq[at],
	        (size_t)(s->nusers - at) * sizeof(s->udeq[0]));
	s->users[at].uid = uid;
	s->users[at].njobs = 1;
	memset(&s->udeq[at], 0, sizeof(s->udeq[at]));
	s->nusers++;
	for (int i = 0; i < s->njobs; i++)
		if (s->deq[i].user >= at)
			s->deq[i].user++;
	return at;
}

/* Drop the users whose last job left (at a tick, before DEQ), and move
 * the jobs' places down to match. */
static void users_prune(struct sched *s)
{
	int n = 0;

	if (!s->users_gone)
		return;
	s->users_gone = 0;
	for (int u = 0; u < s->nusers; u++) {
		s->users[u].to = n;
		n += s->users[u].njobs > 0;
	}
	for (int i = 0; i < s->njobs; i++)
		s->deq[i].user = s->users[s->deq[i].user].to;
	n = 0;
	for (int u = 0; u < s->nusers; u++) {
		if (s->users[u].njobs == 0)
			continue;
		s->users[n] = s->users[u];
		s->udeq[n++] = s->udeq[u];
	}
	s->nusers = n;
}

/* One job of the user at place u left: the user goes at the next tick if
 * that was its last. */
static void user_leave(struct sched *s, int u)
{
	if (--s->users[u].njobs == 0)
		s->users_gone = 1;
}

/* Whether jobs[i] sorts before the id at key. */
static int job_below(const void *arr, size_t i, const void *key)
{
	return ((struct sched_job *const *)arr)[i]->id < *(const uint64_t *)key;
}

/* The connected job with this id, or NULL (binary search: id order). */
struct sched_job *sched__find(const struct sched *s, uint64_t id)
{
	size_t at = search_first(s->jobs, (size_t)s->njobs, &id, job_below);

	return at < (size_t)s->njobs && s->jobs[at]->id == id ? s->jobs[at] : NULL;
}

/* ------------------------------------------------------------ allots -- */

/* The Linux CPU ids of a set of slots, ascending: their count. */
int sched__slot_cpus(const struct sched *s, const struct deq_set *set,
                     uint32_t *ids)
{
	int n = 0, w;

	for (w = 0; w * 64 < s->P; w++) {
		uint64_t bits = set->w[w];

		while (bits != 0) {
			ids[n++] = (uint32_t)s->conf->cpus[w * 64 + __builtin_ctzll(bits)];
			bits &= bits - 1;
		}
	}
	return n;
}

/* a & b, or a & ~b (minus), over the first P slots. */
static struct deq_set set_and(const struct sched *s, const struct deq_set *a,
                              const struct deq_set *b, int minus)
{
	struct deq_set r;

	memset(&r, 0, sizeof(r));
	for (int w = 0; w * 64 < s->P; w++)
		r.w[w] = a->w[w] & (minus ? ~b->w[w] : b->w[w]);
	return r;
}

/* Whether two sets hold the same of the first P slots. */
static int same_set(const struct sched *s, const struct deq_set *a,
                    const struct deq_set *b)
{
	return memcmp(a->w, b->w, (size_t)(s->P + 63) / 64 * sizeof(a->w[0])) == 0;
}

/* Send j an Allot of the CPUs in set, for the current quantum, decided at
 * `decided`. */
static void send_allot(struct sched *s, struct sched_job *j,
                       const struct deq_set *set, uint64_t decided)
{
	uint32_t ids[CPULIST_MAX];
	uint8_t frame[EXCHANGE_ALLOT_MAX];
	struct exchange_allot a;
	size_t len;

	a.quantum = s->q;
	a.ncpus = (size_t)sched__slot_cpus(s, set, ids);
	a.cpus = ids;
	a.allotment = (uint32_t)a.ncpus;
	a.availability = (uint32_t)s->deq[j->index].availability;
	a.decided_ns = decided;
	if (j->fresh || !same_set(s, set, &j->sent))
		sched__confine_set(s, j, set);
	if (j->conn == NULL) {          /* rigid: confinement is its Allot */
		sched__rigid_usage(s, j, decided);
		j->sent = *set;
		j->allot_q = s->q;
		j->decided = decided;
		j->fresh = j->granted = 0;
		return;
	}
	len = exchange_encode_allot(frame, &a);
	if (len == 0 || conn_send_frame(j->conn, frame, len) < 0)
		return;         /* a peer going away: its end comes */
	j->sent = *set;
	j->allot_q = s->q;
	j->decided = decided;
	j->fresh = j->granted = 0;
	s->allots++;
	s->tick_sends++;
}

/* Tell j its allotment: all of it, or (handover release) the part it can
 * have now, holding back CPUs other jobs have yet to release. */
static void deliver(struct sched *s, struct sched_job *j, uint64_t decided)
{
	const struct deq_set *want = &s->deq[j->index].cpus;

	if (s->handover != NULL) {
		struct deq_set gain = set_and(s, want, &j->sent, 1);

		if (handover_busy(s->handover, j, &gain)) {
			struct deq_set keep = set_and(s, want, &j->sent, 0);

			if (!same_set(s, &keep, &j->sent) || j->fresh)
				send_allot(s, j, &keep, decided);
			if (!j->held) {
				j->held = 1;
				s->held[s->nheld++] = j;
			}
			return;
		}
	}
	if (j->held) {
		j->held = 0;
		drop_from(s->held, &s->nheld, j);
	}
	send_allot(s, j, want, decided);
}

/* Arm the timer that frees CPUs held too long, if some are held. */
static void arm_hold(struct sched *s, uint64_t now)
{
	uint64_t oldest, due;
	struct timeval tv;

	if (s->handover == NULL || s->nheld == 0)
		return;
	oldest = handover_oldest(s->handover);
	if (oldest == 0)
		oldest = now;
	due = oldest + s->bound > now ? oldest + s->bound - now : 0;
	tv.tv_sec = (time_t)(due / 1000000000u);
	tv.tv_usec = (suseconds_t)(due % 1000000000u / 1000u);
	event_add(s->hold_ev, &tv);
}

/* Give the held jobs what is free now (the sets the last tick's DEQ
 * decided); while some still wait, their losers' Released messages are
 * read as they come. */
static void retry_held(struct sched *s, uint64_t now)
{
	for (int i = s->nheld - 1; i >= 0 && i < s->nheld; i--)
		deliver(s, s->held[i], s->decided);
	arm_hold(s, now);
	sched__update_urgent(s);
}

/* CPUs held past the bound are free: grant them. */
static void on_hold(evutil_socket_t fd, short what, void *arg)
{
	struct sched *s = arg;
	uint64_t now = qtime_now_ns();

	(void)fd;
	(void)what;
	handover_expire(s->handover, now > s->bound ? now - s->bound + 1 : 0);
	retry_held(s, now);
}

/* retry_held, unless a tick is under way: it retries once its DEQ has
 * run (a Released read as a tick begins waits for that). */
void sched__retry_held(struct sched *s, uint64_t now)
{
	if (!s->in_tick)
		retry_held(s, now);
}

/* The Linux CPU ids of a set of slots as ints (cpulist's and confine's
 * type), ascending: their count. */
int sched__slot_ints(const struct sched *s, const struct deq_set *set, int *cpus)
{
	int n = 0;

	for (int i = 0; i < s->P; i++)
		if (deq_set_has(set, i))
			cpus[n++] = s->conf->cpus[i];
	return n;
}

/* A set of slots as a Linux CPU list ("0-3,6"; empty if it does not fit),
 * for the history. */
static void slot_list(const struct sched *s, const struct deq_set *set,
                      char *buf, size_t len)
{
	int cpus[CPULIST_MAX], n = sched__slot_ints(s, set, cpus);

	if (cpulist_format(cpus, n, buf, len) < 0)
		buf[0] = '\0';
}

/* ------------------------------------------------------------ grants -- */

/* The slots that no job holds or was last told it holds (so none that a
 * job losing it has yet to give up) and that are not busy being handed
 * over. */
static struct deq_set free_slots(const struct sched *s)
{
	struct deq_set f;

	deq_set_clear(&f);
	for (int i = 0; i < s->P; i++)
		deq_set_add(&f, i);
	for (int k = 0; k < s->njobs; k++)
		for (int w = 0; w * 64 < s->P; w++)
			f.w[w] &= ~(s->deq[k].cpus.w[w] | s->jobs[k]->sent.w[w]);
	return f;
}

/* Whether j holds no CPU: none in DEQ's last answer, none it was told. */
int sched__holds_none(const struct sched *s, const struct sched_job *j)
{
	return deq_set_count(&j->sent) == 0 &&
	       deq_set_count(&s->deq[j->index].cpus) == 0;
}

/* Give j, which holds no CPU, min(its desire, what is free) of the free
 * CPUs, lowest first (where the next tick's DEQ places a job when nobody
 * else grows); none before the first tick, whose quantum a grant could
 * not name.  Its DEQ state stays what the last tick left (a new job's, or
 * allotment 0), so the next tick decides as if there had been no grant
 * (and tells the job, granted); the history keeps the grant apart. */
static void grant(struct sched *s, struct sched_job *j)
{
	struct deq_set free = free_slots(s), give;
	int want = sched__desire(j), n = 0;
	char list[CPULIST_MAX * 5];

	if (s->ticks == 0 || want < 1 || !sched__holds_none(s, j))
		return;                 /* the tick sends its Allot itself */
	deq_set_clear(&give);
	for (int i = 0; i < s->P && n < want; i++)
		if (deq_set_has(&free, i)) {
			deq_set_add(&give, i);
			n++;
		}
	if (n == 0 || (s->handover != NULL && handover_busy(s->handover, j, &give)))
		return;
	s->deq[j->index].availability = n;
	send_allot(s, j, &give, qtime_now_ns());
	if (!same_set(s, &give, &j->sent))
		return;                 /* not sent: its end comes */
	j->granted = 1;
	s->grants++;
	slot_list(s, &give, list, sizeof(list));
	if (history_grant(s->hist, (int64_t)j->id, (int64_t)s->q,
	                  (int64_t)qtime_wall_ns(), n, list) < 0)
		log_warn("history: job %llu grant: %s", (unsigned long long)j->id,
		         history_error(s->hist));
}

/* Whether j waits for CPUs a grant could give it: connected, past its
 * own grant as a new job, asking for some and holding none (one granted
 * holds its grant). */
static int waits_for_cpus(const struct sched *s, const struct sched_job *j)
{
	return !j->rigid && !j->fresh && sched__desire(j) >= 1 &&
	       sched__holds_none(s, j);
}

/* CPUs came free between ticks (a job ended: they would idle until the
 * next tick): the connected jobs that hold none and ask for some get them
 * by grants, the one DEQ would serve first (the largest credit) first,
 * until none is free or nobody waits.  A new job has its own grant; a
 * rigid job moves only at ticks. */
static void refill(struct sched *s)
{
	for (;;) {
		struct deq_set free = free_slots(s);
		struct sched_job *best = NULL;

		if (deq_set_count(&free) == 0)
			return;
		for (int k = 0; k < s->njobs; k++) {
			struct sched_job *j = s->jobs[k];

			if (!waits_for_cpus(s, j))
				continue;
			if (best == NULL ||
			    s->deq[k].credit > s->deq[best->index].credit)
				best = j;
		}
		if (best == NULL)
			return;
		sched__touch(s, best);  /* the tick tells it DEQ's answer */
		grant(s, best);
		if (!best->granted)
			return;         /* busy, or its end comes */
	}
}

/* The grants are due: the jobs' input is read first (a job that ended
 * just before another began, as a loop of runs does, has its CPUs back
 * only once its end is read), then every job that asked for a grant since
 * the last tick gets one if it still holds nothing and CPUs are free, and
 * then the jobs waiting for CPUs (refill). */
static void on_grant(evutil_socket_t fd, short what, void *arg)
{
	struct sched *s = arg;

	(void)fd;
	(void)what;
	if (s->in_tick)
		return;
	if (s->read != NULL)
		s->read(s->read_arg);
	for (int k = 0; k < s->ntouched; k++)
		if (s->touched[k]->want_grant) {
			s->touched[k]->want_grant = 0;
			grant(s, s->touched[k]);
		}
	if (s->ticks > 0)
		refill(s);
	sched__update_urgent(s);
}

/* Make j's grant due, as soon as the event loop comes back (not from
 * inside the caller, whose connection a read of the jobs could close). */
static void grant_due(struct sched *s, struct sched_job *j)
{
	j->want_grant = 1;
	event_active(s->grant_ev, EV_TIMEOUT, 0);
}

/* A job that just joined (its Welcome sent) gets min(its desire, what is
 * free) of the CPUs no job holds: those would idle until the next tick,
 * and the job would wait for it, 5 ms on average. */
void sched_job_grant(struct sched *s, struct sched_job *j)
{
	if (!j->fresh || !j->touched)
		return;
	grant_due(s, j);
}

/* A job that holds no CPU asked for some (it woke from idle, or came
 * back from silence): while CPUs are free, it gets them as a joining job
 * does, not at the next tick (read as it came: sched__update_urgent). */
void sched__job_woke(struct sched *s, struct sched_job *j)
{
	if (s->in_tick || !j->touched || !waits_for_cpus(s, j))
		return;                 /* the tick (a new job: its grant) */
	grant_due(s, j);
}

/* The free CPUs may have changed: the jobs holding none are held to
 * them (sched__confine_idle), and the jobs' input is read as it comes,
 * or only at ticks again: as it comes while a job waits for CPUs to be
 * released (--handover release), and while some CPU is free, so that a
 * job which holds none and asks gets it at once (sched__job_woke);
 * nothing else needs the daemon between ticks. */
void sched__update_urgent(struct sched *s)
{
	struct deq_set free = free_slots(s);
	struct deq_set grew = set_and(s, &free, &s->refill_free, 1);
	int on;

	/* Some CPU came free since the last look, between ticks: the jobs
	 * waiting for one may take it now (on_grant, refill). */
	s->refill_free = free;
	if (deq_set_count(&grew) > 0 && !s->in_tick && s->ticks > 0)
		event_active(s->grant_ev, EV_TIMEOUT, 0);
	sched__confine_idle(s, &free);
	if (s->urgent == NULL)
		return;
	on = s->nheld > 0 || (s->njobs > 0 && deq_set_count(&free) > 0);
	if (on != s->urgent_on) {
		s->urgent_on = on;
		s->urgent(s->read_arg, on);
	}
}

/* ----------------------------------------------------------- history -- */

/* Record j's values from the current quantum on (once per tick). */
static void record(struct sched *s, struct sched_job *j)
{
	const struct deq_job *d = &s->deq[j->index];
	struct history_quantum hq;

	if (j->recorded == s->ticks)
		return;
	j->recorded = s->ticks;
	if (d->changed)
		slot_list(s, &d->cpus, j->cpus, sizeof(j->cpus));
	memset(&hq, 0, sizeof(hq));
	hq.quantum = (int64_t)s->q;
	hq.start_ns = (int64_t)(s->t0_wall + s->q * s->L);
	hq.end_ns = hq.start_ns + (int64_t)s->L;
	hq.desire = d->desire;
	hq.availability = d->availability;
	hq.allotment = d->allotment;
	hq.cpus = j->cpus;
	hq.cls = j->cls >= 0 ? j->cls : HISTORY_DEPRIVED;
	hq.epoch = (int64_t)s->epoch;
	if (history_allot(s->hist, (int64_t)j->id, &hq) < 0)
		log_warn("history: job %llu quantum %llu: %s",
		         (unsigned long long)j->id, (unsigned long long)s->q,
		         history_error(s->hist));
}

/* -------------------------------------------------------------- tick -- */

/* One tick, for quantum s->q, starting at `start`: silence, DEQ, Allots
 * to the changed jobs, history. */
static void tick(struct sched *s, uint64_t start)
{
	struct sched_job *j;
	uint64_t t, end;
	int nc = 0, k;

	s->tick_sends = 0;
	while ((j = s->oldest) != NULL && j->heard + s->silence <= start) {
		heard_unlink(s, j);
		j->silent = 1;
		s->nsilent++;
		sched__touch(s, j);
		log_info("job %llu '%s' silent for %llu ms: desires nothing until "
		         "it speaks again", (unsigned long long)j->id, j->name,
		         (unsigned long long)((start - j->heard) / 1000000u));
	}
	for (k = 0; k < s->ntouched; k++) {
		j = s->touched[k];
		s->deq[j->index].desire = sched__desire(j);
	}
	users_prune(s);
	t = s->decided = qtime_now_ns();
	if (s->njobs > 0 &&
	    (s->conf->share == CONF_SHARE_USER
	     ? deq_allot_users(s->P, s->deq, s->njobs, s->udeq, s->nusers, s->q,
	                       s->changed, &nc)
	     : deq_allot_changes(s->P, s->deq, s->njobs, s->q, s->changed,
	                         &nc)) < 0) {
		log_error("DEQ failed for quantum %llu: %s", (unsigned long long)s->q,
		          strerror(errno));
		nc = 0;
	}
	samples_add(&s->deq_time, qtime_now_ns() - t);
	/* What each changed job gives up is busy before anyone gains it. */
	for (k = 0; s->handover != NULL && k < nc; k++) {
		struct deq_set lost;

		j = s->jobs[s->changed[k]];
		if (j->conn == NULL)
			continue;       /* rigid: moved off as it is confined */
		lost = set_and(s, &j->sent, &s->deq[j->index].cpus, 1);
		handover_leave(s->handover, j, &lost, s->q, t);
	}
	/* Decided when DEQ ran, on what the tick had read. */
	for (k = 0; k < nc; k++)
		deliver(s, s->jobs[s->changed[k]], t);
	for (k = 0; k < s->ntouched; k++)
		if (s->touched[k]->fresh || s->touched[k]->granted)
			deliver(s, s->touched[k], t);
	/* This DEQ decided the held jobs' sets again: a grant in this
	 * quantum says so (an Allot of quantum q carries tick q's time). */
	if (s->handover != NULL)
		retry_held(s, start);
	end = qtime_now_ns();
	/* The Allots are out: now the history. */
	for (k = 0; k < nc; k++)
		record(s, s->jobs[s->changed[k]]);
	for (k = 0; k < s->ntouched; k++) {
		s->touched[k]->touched = 0;
		record(s, s->touched[k]);
	}
	s->ntouched = 0;
	/* Jobs gone as the tick read its jobs were not in this quantum:
	 * their rows end with the last (before history_advance). */
	while ((j = s->departed) != NULL) {
		s->departed = j->older;
		bury(s, j);
	}
	sched__rigid_usage(s, NULL, end);
	samples_add(&s->tick, end - start);
	samples_add(&s->changes, (uint64_t)nc);
	samples_add(&s->sends, s->tick_sends);
	if (history_advance(s->hist, (int64_t)s->q,
	                    (int64_t)(s->t0_wall + (s->q + 1) * s->L)) < 0)
		log_warn("history: %s", history_error(s->hist));
	if (history_flush(s->hist) < 0)
		log_warn("history: %s", history_error(s->hist));
}

/* The tick timer fired: tick for the quantum now running (a tick the
 * loop was too late for is skipped and counted). */
static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sched *s = arg;
	uint64_t n, now, q, due;

	(void)what;
	if (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		return;
	now = qtime_now_ns();
	if (now < s->t0 + s->offset)
		return;
	q = (now - s->t0 - s->offset) / s->L;
	if (s->ticks > 0 && q <= s->q)
		return;
	if (s->ticks > 0 && q > s->q + 1) {
		/* No tick in between: nobody's allotment changed there. */
		s->skipped += q - s->q - 1;
		if (history_skipped(s->hist, (int64_t)(s->q + 1), (int64_t)(q - 1),
		                    (int64_t)(s->t0_wall + (s->q + 1) * s->L),
		                    (int64_t)(s->t0_wall + q * s->L)) < 0)
			log_warn("history: %s", history_error(s->hist));
	}
	s->q = q;
	s->ticks++;
	due = s->t0 + q * s->L + s->offset;
	samples_add(&s->wake, now - due);
	/* What the jobs said since the last tick (their desires, usage,
	 * departures) is read now, in one go. */
	s->in_tick = 1;
	if (s->read != NULL)
		s->read(s->read_arg);
	tick(s, now);
	s->in_tick = 0;
	sched__update_urgent(s);
}

/* ----------------------------------------------------- life and death -- */

/* Create the scheduler: its quanta start now. */
struct sched *sched_create(struct event_base *base, const struct conf *c,
                           struct history *h, char *why, size_t whylen)
{
	struct sched *s = calloc(1, sizeof(*s));
	struct itimerspec its;
	uint64_t first;

	if (s == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	s->base = base;
	s->conf = c;
	s->hist = h;
	s->P = c->ncpus;
	for (int i = 0; i < c->ncpus; i++)
		s->cpus_u32[i] = (uint32_t)c->cpus[i];
	s->L = (uint64_t)c->quantum_us * 1000u;
	s->offset = (uint64_t)c->offset_us * 1000u;
	s->silence = (uint64_t)PROTO_SILENT_BEATS * PROTO_HEARTBEAT_MS * 1000000u;
	s->bound = s->L / 4;
	s->past = (uint64_t)PROTO_FEEDBACK_PAST_MS * 1000000u / s->L + 1;
	s->t0 = s->started = qtime_now_ns();
	s->t0_wall = qtime_wall_ns();
	s->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->timer_fd < 0) {
		snprintf(why, whylen, "timerfd: %s", strerror(errno));
		free(s);
		return NULL;
	}
	if (c->handover == CONF_HANDOVER_RELEASE &&
	    (s->handover = handover_create(s->P)) == NULL)
		goto nomem;
	s->timer_ev = event_new(base, s->timer_fd, EV_READ | EV_PERSIST, on_timer, s);
	s->hold_ev = evtimer_new(base, on_hold, s);
	s->grant_ev = evtimer_new(base, on_grant, s);
	if (s->timer_ev == NULL || s->hold_ev == NULL || s->grant_ev == NULL ||
	    sched__reserve(s) < 0)
		goto nomem;
	/* Tick q at t0 + q L + offset: absolute, so it never drifts. */
	first = s->t0 + s->offset;
	its.it_value.tv_sec = (time_t)(first / 1000000000u);
	its.it_value.tv_nsec = (long)(first % 1000000000u);
	its.it_interval.tv_sec = (time_t)(s->L / 1000000000u);
	its.it_interval.tv_nsec = (long)(s->L % 1000000000u);
	if (timerfd_settime(s->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ||
	    event_add(s->timer_ev, NULL) < 0) {
		snprintf(why, whylen, "cannot start the tick timer: %s", strerror(errno));
		sched_free(s);
		return NULL;
	}
	return s;
nomem:
	snprintf(why, whylen, "out of memory");
	sched_free(s);
	return NULL;
}

/* Close a job's history row (its totals are its runs', written with them). */
static void close_row(struct sched *s, struct sched_job *j)
{
	if (history_job_end(s->hist, (int64_t)j->id, (int64_t)qtime_wall_ns(),
	                    NULL) < 0)
		log_warn("history: closing job %llu: %s", (unsigned long long)j->id,
		         history_error(s->hist));
}

/* Stop ticking and free everything (running jobs' rows stay open). */
void sched_free(struct sched *s)
{
	if (s == NULL)
		return;
	/* The jobs outlive us: their rows stay open for the next daemon,
	 * which they reconnect to, claiming their ids. */
	for (int i = 0; i < s->njobs; i++) {
		struct sched_job *j = s->jobs[i];

		if (history_job_pause(s->hist, (int64_t)j->id) < 0)
			log_warn("history: job %llu: %s", (unsigned long long)j->id,
			         history_error(s->hist));
		free(j);
	}
	if (s->hist != NULL)
		history_flush(s->hist);
	if (s->timer_ev != NULL)
		event_free(s->timer_ev);
	if (s->hold_ev != NULL)
		event_free(s->hold_ev);
	if (s->grant_ev != NULL)
		event_free(s->grant_ev);
	if (s->timer_fd >= 0)
		close(s->timer_fd);
	handover_free(s->handover);
	free(s->jobs);
	free(s->deq);
	free(s->changed);
	free(s->users);
	free(s->udeq);
	free(s->touched);
	free(s->held);
	free(s);
}

/* Read the jobs at every tick with read(arg). */
void sched_set_reader(struct sched *s, void (*read)(void *),
                      void (*urgent)(void *, int), void *arg)
{
	s->read = read;
	s->urgent = urgent;
	s->read_arg = arg;
}

/* The quanta a Welcome gives a job. */
void sched_quanta(const struct sched *s, uint64_t *t0_ns,
                  uint32_t *heartbeat_ms, uint32_t *offset_us)
{
	*t0_ns = s->t0;
	*heartbeat_ms = PROTO_HEARTBEAT_MS;
	*offset_us = (uint32_t)(s->offset / 1000u);
}

/* Register a job. */
struct sched_job *sched_job_add(struct sched *s, struct conn *conn,
                                const Asteal__Hello *hello, uid_t uid,
                                pid_t pid, uint64_t id_granted, char *why,
                                size_t whylen)
{
	struct sched_job *j;
	struct history_job hj;
	int64_t id;
	int u;

	if (hello->workers < 1 || hello->workers > SCHED_MAX_WORKERS) {
		snprintf(why, whylen, "workers must be from 1 to %d, not %u",
		         SCHED_MAX_WORKERS, hello->workers);
		return NULL;
	}
	/* A rigid job's child connecting: the same job, now adaptive. */
	if (id_granted && (j = sched__find(s, id_granted)) != NULL && j->rigid &&
	    j->uid == uid && j->pid == pid)
		return sched__rigid_connect(s, j, conn, hello);
	if (s->njobs >= s->conf->max_jobs) {
		snprintf(why, whylen, "at the limit of %d jobs", s->conf->max_jobs);
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL || sched__reserve(s) < 0 || (u = sched__user_join(s, uid)) < 0) {
		free(j);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	snprintf(j->name, sizeof(j->name), "%s", hello->name ? hello->name : "");
	snprintf(j->command, sizeof(j->command), "%s",
	         hello->command ? hello->command : "");
	j->conn = conn;
	j->uid = uid;
	j->pid = pid;
	j->workers = (int)hello->workers;
	j->start_ns = qtime_wall_ns();
	j->desire = 1;                  /* d_1 */
	j->desire_real = 1;
	j->cls = -1;
	memset(&hj, 0, sizeof(hj));
	hj.name = j->name;
	hj.command = j->command;
	hj.uid = (int64_t)uid;
	hj.pid = (int64_t)pid;
	hj.start_ns = (int64_t)j->start_ns;
	hj.workers = j->workers;
	id = id_granted ? (int64_t)id_granted : history_job_begin(s->hist, &hj);
	if (id <= 0) {
		snprintf(why, whylen, "history: %s", history_error(s->hist));
		user_leave(s, u);
		free(j);
		return NULL;
	}
	/* A launched or reconnecting job's row was begun without it. */
	if (id_granted && history_job_workers(s->hist, id, j->workers) < 0)
		log_warn("history: job %lld: %s", (long long)id,
		         history_error(s->hist));
	j->id = (uint64_t)id;
	sched__insert(s, j, u);
	j->joined = qtime_now_ns();
	sched__heard_now(s, j, j->joined);
	j->fresh = 1;                   /* an Allot at the next tick, or a
	                                   grant after its Welcome */
	sched__touch(s, j);
	sched__confine_join(s, j);
	log_info("job %llu '%s' %s: uid %d pid %d, %d workers",
	         (unsigned long long)j->id, j->name, id_granted ? "connected"
	         : "registered", (int)uid, (int)pid, j->workers);
	return j;
}

/* The job's id. */
uint64_t sched_job_id(const struct sched_job *j)
{
	return j->id;
}

/* A job gone: close its row (unless launch.c keeps it) and free it. */
static void bury(struct sched *s, struct sched_job *j)
{
	if (!j->keep_row)
		close_row(s, j);
	if (history_flush(s->hist) < 0)
		log_warn("history: %s", history_error(s->hist));
	free(j);
}

/* Remove a job whose connection closed. */
void sched_job_remove(struct sched *s, struct sched_job *j)
{
	if (j->rigid)
		;                        /* never heard: sched_rigid_remove */
	else if (!j->silent)
		heard_unlink(s, j);
	else
		s->nsilent--;
	sched__confine_leave(s, j);
	if (j->touched)
		drop_from(s->touched, &s->ntouched, j);
	if (j->held)
		drop_from(s->held, &s->nheld, j);
	user_leave(s, s->deq[j->index].user);
	remove_by_index(s, j);
	log_info("job %llu '%s' left: its %d CPUs go back at %s tick",
	         (unsigned long long)j->id, j->name, deq_set_count(&j->sent),
	         s->in_tick ? "this" : "the next");
	if (s->handover != NULL && handover_gone(s->handover, j) > 0)
		sched__retry_held(s, qtime_now_ns());
	if (s->in_tick) {                /* its row waits for the Allots */
		j->older = s->departed;
		s->departed = j;
		return;
	}
	bury(s, j);
	sched__update_urgent(s);         /* its CPUs may be free now */
}
