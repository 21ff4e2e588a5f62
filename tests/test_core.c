/*
 * test_core.c - asteald's pure core (daemon/core/core.h), driven as
 * test_deq.c drives DEQ: a fake shell applies its effects and keeps what
 * each job was told, and every step checks the invariants (never more
 * than P slots delivered, no slot delivered to two jobs, an allotment
 * within its desire; after a tick, DEQ's own answer for the desires the
 * core should have given it).  Cases: joins and the first tick, grants to
 * a joining job and refills when a job leaves, silence and speaking
 * again, hand-overs released and expired, rigid jobs and caps, a delivery
 * that fails, many users, fewer slots offered (the simulator's profiles), and a long random run of every event in both
 * sharing modes, with and without hand-overs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core.h"
#include "deq.h"

#define MAXJ 64
#define SILENCE 100u
#define BOUND 10u

/* A job of the fake shell. */
struct tjob {
	struct core_job core;
	int live;
	int desire;                    /* what it last said */
	uint64_t heard;                /* when, as the test counts */
	struct deq_set told;           /* its last delivered allotment */
	int allots, records, grants, idles;
	int voice_silent, voice_again;
	struct core_record rec;        /* its last record */
	int fail;                      /* deliveries to it fail */
};

/* The fake shell: what the core asked for. */
struct shell {
	struct tjob jobs[MAXJ];
	int wakes, urgent, hold_asked;
	uint64_t hold_delay;
};

/* The test job of a core job. */
static struct tjob *tj(struct core_job *cj)
{
	return (struct tjob *)((char *)cj - offsetof(struct tjob, core));
}

/* Deliver: keep what the job was told. */
static int op_allot(void *arg, struct core_job *cj, const struct core_allot *a)
{
	struct tjob *j = tj(cj);

	(void)arg;
	assert_int_equal(a->allotment, deq_set_count(a->set));
	if (j->fail)
		return -1;
	j->told = *a->set;
	j->allots++;
	return 0;
}

/* Record: keep the last. */
static void op_record(void *arg, struct core_job *cj, const struct core_record *r)
{
	struct tjob *j = tj(cj);

	(void)arg;
	j->rec = *r;
	j->records++;
}

/* A grant: counted. */
static void op_grant(void *arg, struct core_job *cj, const struct deq_set *set,
                     int n, uint64_t q, uint64_t now)
{
	(void)arg;
	(void)q;
	(void)now;
	assert_int_equal(n, deq_set_count(set));
	tj(cj)->grants++;
}

/* An idle job offered the free slots: counted. */
static void op_idle(void *arg, struct core_job *cj, const struct deq_set *free)
{
	(void)arg;
	assert_true(deq_set_count(free) > 0);
	assert_int_equal(deq_set_count(&cj->sent), 0);
	tj(cj)->idles++;
}

/* Silence and speaking again: counted. */
static void op_voice(void *arg, struct core_job *cj, uint64_t quiet_ns)
{
	(void)arg;
	if (quiet_ns > 0)
		tj(cj)->voice_silent++;
	else
		tj(cj)->voice_again++;
}

/* Grants are due. */
static void op_wake(void *arg)
{
	((struct shell *)arg)->wakes++;
}

/* The hold timer. */
static void op_hold_timer(void *arg, uint64_t delay_ns)
{
	struct shell *sh = arg;

	sh->hold_asked++;
	sh->hold_delay = delay_ns;
}

/* Read as input comes, or not. */
static void op_urgent(void *arg, int on)
{
	((struct shell *)arg)->urgent = on;
}

static const struct core_ops ops = {
	.allot = op_allot, .record = op_record, .grant = op_grant,
	.idle = op_idle, .voice = op_voice, .wake = op_wake,
	.hold_timer = op_hold_timer, .urgent = op_urgent,
};

/* A core of P slots and a fresh shell. */
static struct core *make(struct shell *sh, int P, int by_user, int handover)
{
	struct core_params p = { .P = P, .by_user = by_user, .handover = handover,
	                         .silence_ns = SILENCE, .bound_ns = BOUND };
	struct core *c;

	memset(sh, 0, sizeof(*sh));
	c = core_create(&p, &ops, sh);
	assert_non_null(c);
	return c;
}

/* Job k joins at now. */
static struct tjob *join(struct core *c, struct shell *sh, int k, uid_t uid,
                         int cap, int rigid, uint64_t now)
{
	struct tjob *j = &sh->jobs[k];

	memset(j, 0, sizeof(*j));
	assert_int_equal(core_join(c, &j->core, (uint64_t)k + 1, uid,
	                           rigid ? cap : 1, cap, rigid, now), 0);
	j->live = 1;
	j->desire = rigid ? cap : 1;
	j->heard = now;
	return j;
}

/* Job j says desire d at now. */
static void say(struct core *c, struct tjob *j, int d, uint64_t now)
{
	core_feedback(c, &j->core, d, now);
	j->desire = d;
	j->heard = now;
}

/* Job j leaves at now. */
static void leave(struct core *c, struct tjob *j, uint64_t now)
{
	core_leave(c, &j->core, now);
	j->live = 0;
}

/* What DEQ should see for j at a tick at now: the test's own reading. */
static int expected_desire(const struct tjob *j, uint64_t now)
{
	int d;

	if (j->core.rigid)
		return j->core.cap;
	d = j->heard + SILENCE <= now ? 0 : j->desire;
	return j->core.cap > 0 && d > j->core.cap ? j->core.cap : d;
}

/* The invariants that hold after every event. */
static void check(struct core *c, struct shell *sh, int P)
{
	struct deq_set seen;
	int total = 0;

	deq_set_clear(&seen);
	for (int k = 0; k < MAXJ; k++) {
		struct tjob *j = &sh->jobs[k];

		if (!j->live)
			continue;
		assert_memory_equal(&j->told, &j->core.sent, sizeof(j->told));
		for (int w = 0; w < DEQ_MAX_PROCS / 64; w++) {
			int below = P - w * 64;   /* slots of this word below P */
			uint64_t ok = below >= 64 ? ~0ull : below <= 0 ? 0
			              : (1ull << below) - 1;

			assert_int_equal(j->told.w[w] & ~ok, 0);       /* beyond P */
			assert_int_equal(seen.w[w] & j->told.w[w], 0); /* twice */
			seen.w[w] |= j->told.w[w];
			total += __builtin_popcountll(j->told.w[w]);
		}
	}
	assert_true(total <= P);
	for (int i = 0; i < core_njobs(c); i++) {
		struct core_job *cj = core_job_at(c, i);
		const struct deq_job *d = core_deq(c, cj);

		assert_true(tj(cj)->live);
		assert_int_equal(d->allotment, deq_set_count(&d->cpus));
		assert_true(d->allotment <= d->desire);
		if (i > 0)
			assert_true(core_job_at(c, i - 1)->id < cj->id);
		assert_ptr_equal(core_find(c, cj->id), cj);
	}
}

/* A tick at q, now; with by_user == 0, its answer is checked against
 * deq_allot_changes run on the state before it with the desires the test
 * expects.  Returns how many jobs DEQ changed. */
static int tick(struct core *c, struct shell *sh, int P, int by_user,
                 uint64_t q, uint64_t now)
{
	struct deq_job before[MAXJ];
	int n = core_njobs(c), changed[MAXJ], nc = 0;
	struct core_tick_stats st;

	for (int i = 0; i < n; i++) {
		struct core_job *cj = core_job_at(c, i);

		before[i] = *core_deq(c, cj);
		before[i].desire = expected_desire(tj(cj), now);
	}
	core_tick_begin(c, q);
	assert_int_equal(core_tick(c, now, NULL, &st), 0);
	if (!by_user && n > 0) {
		assert_int_equal(deq_allot_changes(P, before, n, q, changed, &nc), 0);
		assert_int_equal(st.changes, nc);
		for (int i = 0; i < n; i++) {
			const struct deq_job *d = core_deq(c, core_job_at(c, i));

			assert_int_equal(d->desire, before[i].desire);
			assert_int_equal(d->allotment, before[i].allotment);
			assert_int_equal(d->availability, before[i].availability);
			assert_memory_equal(&d->cpus, &before[i].cpus, sizeof(d->cpus));
		}
	}
	for (int i = 0; i < n; i++) {
		struct core_job *cj = core_job_at(c, i);

		assert_int_equal(core_deq(c, cj)->desire, expected_desire(tj(cj), now));
	}
	check(c, sh, P);
	return st.changes;
}

/* Three jobs join: nothing is delivered before the first tick, which
 * gives each its d_1 = 1 and records it; then their desires are DEQ's. */
static void test_join_and_tick(void **state)
{
	struct shell sh;
	struct core *c = make(&sh, 4, 0, 0);
	struct tjob *a, *b, *d;
	int was, rec, changes;

	(void)state;
	a = join(c, &sh, 0, 100, 0, 0, 0);
	b = join(c, &sh, 1, 100, 0, 0, 0);
	d = join(c, &sh, 2, 100, 0, 0, 0);
	check(c, &sh, 4);
	assert_int_equal(a->allots + b->allots + d->allots, 0);
	tick(c, &sh, 4, 0, 1, 10);
	assert_int_equal(deq_set_count(&a->told), 1);
	assert_int_equal(deq_set_count(&b->told), 1);
	assert_int_equal(deq_set_count(&d->told), 1);
	assert_int_equal(a->records, 1);
	assert_int_equal(a->rec.quantum, 1);
	assert_int_equal(a->rec.allotment, 1);
	assert_int_equal(sh.urgent, 1);         /* a slot is free */
	say(c, a, 4, 11);
	say(c, b, 4, 11);
	tick(c, &sh, 4, 0, 2, 20);
	assert_int_equal(deq_set_count(&d->told), 1);
	assert_int_equal(deq_set_count(&a->told) + deq_set_count(&b->told), 3);
	/* A tick in which nobody said anything new records and delivers to
	 * the jobs DEQ changed only (its leftover turns may move). */
	was = a->allots + b->allots + d->allots;
	rec = a->records + b->records + d->records;
	say(c, a, 4, 21);
	changes = tick(c, &sh, 4, 0, 3, 30);
	assert_int_equal(a->records + b->records + d->records - rec, changes);
	assert_int_equal(a->allots + b->allots + d->allots - was, changes);
	core_free(c);
}

/* A job joining between ticks gets min(its desire, what is free) at once
 * (a grant), recorded apart; the next tick tells it DEQ's answer.  A job
 * leaving between ticks frees its slots for a job waiting for some. */
static void test_grants_and_refill(void **state)
{
	struct shell sh;
	struct core *c = make(&sh, 4, 0, 0);
	struct tjob *a, *b, *d;

	(void)state;
	a = join(c, &sh, 0, 100, 0, 0, 0);
	core_grant_due(c, &a->core);
	core_grants(c, 1);
	assert_int_equal(a->grants, 0);         /* none before the first tick */
	tick(c, &sh, 4, 0, 1, 10);
	say(c, a, 2, 11);
	tick(c, &sh, 4, 0, 2, 20);
	assert_int_equal(deq_set_count(&a->told), 2);
	b = join(c, &sh, 1, 200, 0, 0, 21);
	sh.wakes = 0;
	core_grant_due(c, &b->core);
	assert_int_equal(sh.wakes, 1);
	core_grants(c, 22);
	assert_int_equal(b->grants, 1);
	assert_int_equal(deq_set_count(&b->told), 1);  /* its d_1 */
	assert_true(b->core.granted);
	check(c, &sh, 4);
	/* The grant is no DEQ decision: the tick delivers its answer. */
	tick(c, &sh, 4, 0, 3, 30);
	assert_false(b->core.granted);
	assert_int_equal(b->records, 1);
	/* b asks for more; a leaves: its slots go to b only at the tick
	 * (b holds some), while d, holding none and asking, is refilled. */
	say(c, b, 4, 31);
	d = join(c, &sh, 2, 300, 0, 0, 31);
	tick(c, &sh, 4, 0, 4, 40);
	say(c, d, 1, 41);
	assert_int_equal(deq_set_count(&d->told), 1);
	say(c, b, 4, 41);
	say(c, a, 0, 41);
	tick(c, &sh, 4, 0, 5, 50);
	assert_int_equal(deq_set_count(&a->told), 0);
	say(c, d, 0, 51);
	tick(c, &sh, 4, 0, 6, 60);
	assert_int_equal(deq_set_count(&d->told), 0);
	say(c, d, 2, 61);                       /* wakes holding none */
	sh.wakes = 0;
	say(c, b, 3, 61);
	core_grants(c, 62);
	/* All four are b's until the next tick: nothing free to grant. */
	leave(c, b, 63);
	assert_true(sh.wakes > 0);              /* slots came free */
	core_grants(c, 64);
	assert_int_equal(deq_set_count(&d->told), 2);
	assert_int_equal(d->grants, 1);
	check(c, &sh, 4);
	tick(c, &sh, 4, 0, 7, 70);
	core_free(c);
}

/* A job unheard for the silence desires nothing from the next tick on,
 * and is told so; it speaks again with its next Feedback. */
static void test_silence(void **state)
{
	struct shell sh;
	struct core *c = make(&sh, 2, 0, 0);
	struct tjob *a, *b;

	(void)state;
	a = join(c, &sh, 0, 100, 0, 0, 0);
	b = join(c, &sh, 1, 100, 0, 0, 0);
	tick(c, &sh, 2, 0, 1, 10);
	say(c, a, 2, 11);
	say(c, b, 2, 11);
	tick(c, &sh, 2, 0, 2, 20);
	for (uint64_t q = 3, t = 30; t < 11 + SILENCE - 20; q++, t += 10) {
		say(c, a, 2, t - 1);
		tick(c, &sh, 2, 0, q, t);
	}
	assert_int_equal(core_nsilent(c), 0);
	say(c, a, 2, 110);
	tick(c, &sh, 2, 0, 20, 11 + SILENCE);
	assert_int_equal(core_nsilent(c), 1);
	assert_true(b->core.silent);
	assert_int_equal(b->voice_silent, 1);
	assert_int_equal(deq_set_count(&b->told), 0);
	assert_int_equal(deq_set_count(&a->told), 2);
	assert_int_equal(b->rec.desire, 0);
	say(c, b, 2, 120);
	assert_int_equal(b->voice_again, 1);
	assert_int_equal(core_nsilent(c), 0);
	say(c, a, 2, 120);
	tick(c, &sh, 2, 0, 21, 130);
	assert_int_equal(deq_set_count(&b->told), 1);
	core_free(c);
}

/* With hand-overs, a slot DEQ moves is delivered to its gainer only once
 * its loser released it, or once it was busy for the bound. */
static void test_handover(void **state)
{
	struct shell sh;
	struct core *c = make(&sh, 2, 0, 1);
	struct tjob *a, *b;

	(void)state;
	a = join(c, &sh, 0, 100, 0, 0, 0);
	tick(c, &sh, 2, 0, 1, 10);
	say(c, a, 2, 11);
	tick(c, &sh, 2, 0, 2, 20);
	assert_int_equal(deq_set_count(&a->told), 2);
	b = join(c, &sh, 1, 100, 0, 0, 21);
	core_grants(c, 22);                     /* nothing free */
	assert_int_equal(b->grants, 0);
	say(c, a, 2, 25);
	tick(c, &sh, 2, 0, 3, 30);
	assert_int_equal(deq_set_count(&a->told), 1);   /* at once */
	assert_int_equal(deq_set_count(&b->told), 0);   /* held */
	assert_true(b->core.held);
	assert_int_equal(sh.hold_asked, 1);
	assert_int_equal(sh.hold_delay, BOUND);
	assert_int_equal(sh.urgent, 1);
	core_released(c, &a->core, 3, 33);
	assert_int_equal(deq_set_count(&b->told), 1);
	assert_false(b->core.held);
	assert_int_equal(b->core.allot_q, 3);
	check(c, &sh, 2);
	/* Now a gets one back from b, which never releases it. */
	say(c, b, 0, 35);
	say(c, a, 2, 35);
	tick(c, &sh, 2, 0, 4, 40);
	assert_int_equal(deq_set_count(&b->told), 0);
	assert_int_equal(deq_set_count(&a->told), 1);
	assert_true(a->core.held);
	core_hold_expired(c, 40 + BOUND / 2);
	assert_true(a->core.held);
	core_hold_expired(c, 40 + BOUND);
	assert_false(a->core.held);
	assert_int_equal(deq_set_count(&a->told), 2);
	check(c, &sh, 2);
	/* A loser that leaves frees what it was giving up. */
	say(c, b, 2, 45);
	tick(c, &sh, 2, 0, 5, 50);
	assert_true(b->core.held);
	leave(c, a, 51);
	assert_false(b->core.held);
	assert_int_equal(deq_set_count(&b->told), 1);
	check(c, &sh, 2);
	core_free(c);
}

/* A rigid job's desire is its cap, it is never silent, and it becomes
 * an ordinary job capped at it when its program connects; a cap holds a
 * job's desire down. */
static void test_rigid_and_cap(void **state)
{
	struct shell sh;
	struct core *c = make(&sh, 4, 0, 0);
	struct tjob *r, *a;

	(void)state;
	r = join(c, &sh, 0, 100, 3, 1, 0);
	a = join(c, &sh, 1, 100, 0, 0, 0);
	tick(c, &sh, 4, 0, 1, 10);
	say(c, a, 4, 11);
	tick(c, &sh, 4, 0, 2, 20);
	assert_int_equal(core_deq(c, &r->core)->desire, 3);
	assert_int_equal(deq_set_count(&r->told), 2);
	tick(c, &sh, 4, 0, 3, 20 + 3 * SILENCE);    /* a goes silent, r not */
	assert_false(r->core.silent);
	assert_true(a->core.silent);
	assert_int_equal(deq_set_count(&r->told), 3);
	core_connect(c, &r->core, 20 + 3 * SILENCE + 1);
	r->desire = 1;
	r->heard = 20 + 3 * SILENCE + 1;
	assert_int_equal(core_desire(&r->core), 1);
	say(c, r, 4, 20 + 3 * SILENCE + 2);
	assert_int_equal(core_desire(&r->core), 3);
	tick(c, &sh, 4, 0, 4, 30 + 3 * SILENCE);
	assert_int_equal(deq_set_count(&r->told), 3);
	core_set_cap(c, &r->core, 1, 0);
	tick(c, &sh, 4, 0, 5, 40 + 3 * SILENCE);
	assert_int_equal(deq_set_count(&r->told), 1);
	core_free(c);
}

/* A delivery the shell could not make changes nothing of the job: its
 * slots stay what it was last told, and a grant to it is not counted. */
static void test_failed_delivery(void **state)
{
	struct shell sh;
	struct core *c = make(&sh, 2, 0, 0);
	struct tjob *a, *b;

	(void)state;
	a = join(c, &sh, 0, 100, 0, 0, 0);
	tick(c, &sh, 2, 0, 1, 10);
	b = join(c, &sh, 1, 100, 0, 0, 11);
	b->fail = 1;
	core_grant_due(c, &b->core);
	core_grants(c, 12);
	assert_int_equal(b->grants, 0);
	assert_int_equal(deq_set_count(&b->core.sent), 0);
	assert_true(b->core.fresh);
	tick(c, &sh, 2, 0, 2, 20);
	assert_int_equal(deq_set_count(&b->core.sent), 0);
	leave(c, b, 21);                        /* as the shell would */
	check(c, &sh, 2);
	assert_int_equal(deq_set_count(&a->told), 1);
	core_free(c);
}

/* Users first: one user's many jobs share what one job of another user
 * gets alone; a user whose last job left loses its place at the tick. */
static void test_users(void **state)
{
	struct shell sh;
	struct core *c = make(&sh, 4, 1, 0);
	struct tjob *lone;
	int many = 0;

	(void)state;
	for (int k = 0; k < 6; k++)
		join(c, &sh, k, 500, 0, 0, 0);
	lone = join(c, &sh, 6, 600, 0, 0, 0);
	tick(c, &sh, 4, 1, 1, 10);
	for (int k = 0; k < 7; k++)
		say(c, &sh.jobs[k], 4, 11);
	tick(c, &sh, 4, 1, 2, 20);
	assert_int_equal(deq_set_count(&lone->told), 2);
	for (int k = 0; k < 6; k++)
		many += deq_set_count(&sh.jobs[k].told);
	assert_int_equal(many, 2);
	leave(c, lone, 21);
	for (int k = 0; k < 6; k++)
		say(c, &sh.jobs[k], 4, 21);
	tick(c, &sh, 4, 1, 3, 30);
	many = 0;
	for (int k = 0; k < 6; k++)
		many += deq_set_count(&sh.jobs[k].told);
	assert_int_equal(many, 4);
	core_free(c);
}

/* Per-user totals: a deprived user has no fewer slots than any other
 * user less one, and then every slot is allotted. */
static void check_users(struct core *c, int P)
{
	uid_t uid[MAXJ];
	int got[MAXJ], want[MAXJ], nu = 0, total = 0, deprived = 0;

	for (int i = 0; i < core_njobs(c); i++) {
		struct core_job *cj = core_job_at(c, i);
		const struct deq_job *d = core_deq(c, cj);
		int u = 0;

		while (u < nu && uid[u] != cj->uid)
			u++;
		if (u == nu) {
			uid[nu] = cj->uid;
			got[nu] = want[nu] = 0;
			nu++;
		}
		got[u] += d->allotment;
		want[u] += d->desire < P ? d->desire : P;
		total += d->allotment;
	}
	for (int u = 0; u < nu; u++) {
		if (got[u] >= (want[u] < P ? want[u] : P))
			continue;
		deprived = 1;
		for (int v = 0; v < nu; v++)
			assert_true(got[u] >= got[v] - 1);
	}
	if (deprived)
		assert_int_equal(total, P);
}

/* splitmix64. */
static uint64_t rnd(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* How many of the shell's jobs are live. */
static int live_jobs(const struct shell *sh)
{
	int live = 0;

	for (int i = 0; i < MAXJ; i++)
		live += sh->jobs[i].live;
	return live;
}

/* Every event at random, invariants after each. */
static void random_run(int P, int by_user, int handover, uint64_t seed)
{
	struct shell sh;
	struct core *c = make(&sh, P, by_user, handover);
	uint64_t x = seed, now = 0, q = 0;

	for (int step = 0; step < 4000; step++) {
		int k = (int)(rnd(&x) % MAXJ), what = (int)(rnd(&x) % 100);
		struct tjob *j = &sh.jobs[k];

		now += rnd(&x) % 4;
		if (what < 15 && !j->live && core_njobs(c) < 40) {
			int rigid = rnd(&x) % 8 == 0;

			join(c, &sh, k, (uid_t)(rnd(&x) % 5), rigid || rnd(&x) % 6 == 0
			     ? 1 + (int)(rnd(&x) % (unsigned)P) : 0, rigid, now);
			if (rnd(&x) % 2)
				core_grant_due(c, &j->core);
		} else if (what < 22 && j->live) {
			leave(c, j, now);
		} else if (what < 60 && j->live && !j->core.rigid) {
			say(c, j, (int)(rnd(&x) % (unsigned)(P + 3)), now);
		} else if (what < 64 && j->live && j->core.rigid) {
			core_connect(c, &j->core, now);
			j->desire = 1;
			j->heard = now;
		} else if (what < 70 && handover) {
			for (int i = 0; i < core_njobs(c); i++)
				if (rnd(&x) % 2)
					core_released(c, core_job_at(c, i), q, now);
		} else if (what < 73 && handover) {
			core_hold_expired(c, now);
		} else if (what < 80 && sh.wakes > 0) {
			sh.wakes = 0;
			core_grants(c, now);
		} else if (what >= 80) {
			now += rnd(&x) % 8 == 0 ? SILENCE : 10;
			tick(c, &sh, P, by_user, ++q, now);
			if (by_user)
				check_users(c, P);
		}
		check(c, &sh, P);
		assert_int_equal(core_njobs(c), live_jobs(&sh));
	}
	core_free(c);
}

/* The random runs: by jobs and by users, with and without hand-overs. */
static void test_random(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		random_run(4, 0, 0, seed);
		random_run(3, 1, 0, seed);
		random_run(4, 0, 1, seed);
		random_run(5, 1, 1, seed);
		random_run(70, 1, 1, seed);
	}
}

/* Fewer slots offered: DEQ shares the first n only, and a job holding a
 * slot beyond them is told again. */
static void test_offer(void **state)
{
	struct shell sh;
	struct core *c = make(&sh, 4, 0, 0);
	struct tjob *a, *b;

	(void)state;
	a = join(c, &sh, 0, 100, 0, 0, 0);
	b = join(c, &sh, 1, 100, 0, 0, 0);
	tick(c, &sh, 4, 0, 1, 10);
	say(c, a, 4, 11);
	say(c, b, 4, 11);
	tick(c, &sh, 4, 0, 2, 20);
	assert_int_equal(deq_set_count(&a->told) + deq_set_count(&b->told), 4);
	core_offer(c, 2);
	say(c, a, 4, 21);
	say(c, b, 4, 21);
	core_tick_begin(c, 3);
	{
		struct core_tick_stats st;

		assert_int_equal(core_tick(c, 30, NULL, &st), 0);
	}
	check(c, &sh, 2);
	assert_int_equal(deq_set_count(&a->told), 1);
	assert_int_equal(deq_set_count(&b->told), 1);
	core_offer(c, 4);
	say(c, a, 4, 31);
	say(c, b, 4, 31);
	tick(c, &sh, 4, 0, 4, 40);
	assert_int_equal(deq_set_count(&a->told), 2);
	assert_int_equal(deq_set_count(&b->told), 2);
	core_free(c);
}

/* A shell that leaves every effect out still gets DEQ's answers. */
static void test_no_ops(void **state)
{
	static const struct core_ops none;
	struct core_params p = { .P = 2, .handover = 1, .silence_ns = SILENCE };
	struct core *c = core_create(&p, &none, NULL);
	struct core_job a, b;
	struct core_tick_stats st;

	(void)state;
	assert_non_null(c);
	assert_int_equal(core_join(c, &a, 1, 0, 1, 0, 0, 0), 0);
	assert_int_equal(core_join(c, &b, 2, 0, 1, 0, 0, 0), 0);
	core_grant_due(c, &b);
	core_tick_begin(c, 1);
	assert_int_equal(core_tick(c, 10, NULL, &st), 0);
	core_feedback(c, &a, 2, 11);
	core_leave(c, &b, 12);
	core_grants(c, 13);
	core_tick_begin(c, 2);
	assert_int_equal(core_tick(c, 20, NULL, &st), 0);
	assert_int_equal(core_deq(c, &a)->allotment, 2);
	assert_int_equal(deq_set_count(&a.sent), 2);
	core_free(c);
}

/* Bad parameters: no core. */
static void test_bad_params(void **state)
{
	struct core_params p = { .P = 0 };

	(void)state;
	assert_null(core_create(&p, &ops, NULL));
	p.P = DEQ_MAX_PROCS + 1;
	assert_null(core_create(&p, &ops, NULL));
	core_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_and_tick),
		cmocka_unit_test(test_grants_and_refill),
		cmocka_unit_test(test_silence),
		cmocka_unit_test(test_handover),
		cmocka_unit_test(test_rigid_and_cap),
		cmocka_unit_test(test_failed_delivery),
		cmocka_unit_test(test_users),
		cmocka_unit_test(test_offer),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_no_ops),
		cmocka_unit_test(test_bad_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
