/*
 * test_page_allot.c - the daemon's part of the page (proto/page.h): an
 * allotment written and read back whole, its stop words and the bells of
 * the slots whose allotment changed; the job's parked record; what a
 * hostile job can write into the daemon's part clamped by the reader; a
 * reader racing the writer; a bell waking the worker waiting on it, from
 * another thread, within a bound, and waking one that waits on it and its
 * own word at once; rings that make no wake for a bell nobody waits on,
 * raced against a waiter's way into its wait, never leaving it asleep;
 * the job's idle words as the daemon reads them.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "page.h"
#include "testutil.h"

/* An allotment of n slots on CPUs 10, 11, ... for quantum q. */
static void allotment_of(struct page_allotment *a, int n, uint64_t q)
{
	memset(a, 0, sizeof(*a));
	a->quantum = q;
	a->decided_ns = q * 1000;
	a->allotment = n;
	a->availability = n + 1;
	a->ncpus = n;
	for (int i = 0; i < n; i++)
		a->cpus[i] = 10 + i;
}

/* Written, read back whole; stop words and bells follow the changes,
 * and only a bell someone waits on costs a wake. */
static void test_allot_roundtrip(void **state)
{
	static struct page pg;
	static struct page_allotment in, out;

	(void)state;
	page_init(&pg);
	assert_int_equal(page_allot_read(&pg, &out), 0);      /* never written */
	for (int i = 0; i < PAGE_SLOTS; i++)
		assert_int_equal(pg.stop[i], 1);                /* nothing allotted */
	allotment_of(&in, 3, 5);
	/* 3 rung, none woken: nobody waits on them */
	assert_int_equal(page_allot_write(&pg, 2, &in, 0), 0);
	assert_int_equal(page_gen(&pg), 2);
	assert_int_equal(page_allot_read(&pg, &out), 2);
	assert_int_equal(out.quantum, 5);
	assert_int_equal(out.decided_ns, 5000);
	assert_int_equal(out.allotment, 3);
	assert_int_equal(out.availability, 4);
	assert_int_equal(out.ncpus, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(out.cpus[i], 10 + i);
		assert_int_equal(pg.stop[i], 0);
		assert_int_equal(page_bell(&pg, i), 1);
	}
	assert_int_equal(pg.stop[3], 1);
	assert_int_equal(page_bell(&pg, 3), 0);
	/* Down to 1: slots 1 and 2 stop, and their bells ring (a sleeping
	 * worker of theirs must wake to leave); slot 0 is left alone. */
	allotment_of(&in, 1, 6);
	pg.waiting[1] = 1;              /* a thread waits on slot 1's bell */
	assert_int_equal(page_allot_write(&pg, 4, &in, 3), 1);   /* woken */
	assert_int_equal(page_allot_read(&pg, &out), 4);
	assert_int_equal(out.allotment, 1);
	assert_int_equal(pg.stop[0], 0);
	assert_int_equal(pg.stop[1], 1);
	assert_int_equal(pg.stop[2], 1);
	assert_int_equal(page_bell(&pg, 0), 1);
	assert_int_equal(page_bell(&pg, 1), 2);
	assert_int_equal(page_bell(&pg, 2), 2);
	/* The same again: nothing changes, nothing rings. */
	assert_int_equal(page_allot_write(&pg, 6, &in, 1), 0);
	assert_int_equal(page_bell(&pg, 0), 1);
}

/* What a job may write over the daemon's part reads clamped. */
static void test_allot_hostile(void **state)
{
	static struct page pg;
	static struct page_allotment out;

	(void)state;
	page_init(&pg);
	pg.allot.seq = 8;
	pg.allot.allotment = 0xffffffffu;
	pg.allot.ncpus = 1u << 30;
	pg.allot.availability = 0x80000001u;
	assert_int_equal(page_allot_read(&pg, &out), 8);
	assert_int_equal(out.allotment, PAGE_SLOTS);
	assert_int_equal(out.ncpus, PAGE_SLOTS);
	assert_true(out.availability >= 0);
	pg.allot.seq = 9;                       /* left odd: busy */
	assert_int_equal(page_allot_read(&pg, &out), -1);
}

/* The parked record, and a count left odd. */
static void test_parked(void **state)
{
	static struct page pg;
	struct page_parked p;

	(void)state;
	page_init(&pg);
	assert_int_equal(page_parked_read(&pg, &p), 0);
	page_parked_write(&pg, 41, 123456, 2);
	assert_int_equal(page_parked_read(&pg, &p), 2);
	assert_int_equal(p.quantum, 41);
	assert_int_equal(p.at_ns, 123456);
	assert_int_equal(p.parked, 2);
	pg.parked.seq = 5;
	assert_int_equal(page_parked_read(&pg, &p), -1);
}

static struct page race_pg;
static int race_stop;

/* The writer: allotment k of k % 7 slots for quantum k, generation 2k. */
static void *race_writer(void *arg)
{
	static struct page_allotment a;
	int before = 0;

	(void)arg;
	for (uint64_t k = 1; !__atomic_load_n(&race_stop, __ATOMIC_RELAXED); k++) {
		allotment_of(&a, (int)(k % 7), k);
		page_allot_write(&race_pg, (uint32_t)(2 * k), &a, before);
		before = a.allotment;
	}
	return NULL;
}

/* A reader racing the writer: every copy it takes is one allotment. */
static void test_allot_race(void **state)
{
	static struct page_allotment a;
	pthread_t t;
	int whole = 0;

	(void)state;
	page_init(&race_pg);
	race_stop = 0;
	assert_int_equal(pthread_create(&t, NULL, race_writer, NULL), 0);
	for (double end = test_now() + 10; whole < 2000 && test_now() < end;) {
		int64_t gen = page_allot_read(&race_pg, &a);

		if (gen <= 0)
			continue;
		whole++;
		assert_int_equal((uint64_t)gen, 2 * a.quantum & 0xffffffffu);
		assert_int_equal(a.allotment, (int)(a.quantum % 7));
		assert_int_equal(a.ncpus, a.allotment);
		assert_int_equal(a.decided_ns, a.quantum * 1000);
		for (int i = 0; i < a.ncpus; i++)
			assert_int_equal(a.cpus[i], 10 + i);
	}
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	assert_int_equal(whole, 2000);
}

static struct page bell_pg;
static int bell_woken;

/* A parked worker: waits on slot 3's bell until it moves. */
static void *bell_waiter(void *arg)
{
	uint32_t seen = *(uint32_t *)arg;

	while (page_bell(&bell_pg, 3) == seen)
		page_bell_wait(&bell_pg, 3, seen);
	__atomic_store_n(&bell_woken, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A ring wakes the waiter, within a bound. */
static void test_bell(void **state)
{
	pthread_t t;
	uint32_t seen;
	double end;

	(void)state;
	page_init(&bell_pg);
	seen = page_bell(&bell_pg, 3);
	assert_int_equal(pthread_create(&t, NULL, bell_waiter, &seen), 0);
	page_ring(&bell_pg, 3);
	for (end = test_now() + 10; !__atomic_load_n(&bell_woken, __ATOMIC_ACQUIRE) &&
	     test_now() < end;)
		;
	assert_int_equal(__atomic_load_n(&bell_woken, __ATOMIC_ACQUIRE), 1);
	pthread_join(t, NULL);
	assert_int_equal(bell_pg.waiting[3], 0);        /* counted out again */
	page_ring(&bell_pg, -1);                /* out of range: ignored */
	page_ring(&bell_pg, PAGE_SLOTS);
}

#define BELL_ROUNDS 20000

static struct page race_bell_pg;
static int race_ready, race_done;  /* rounds the waiter has begun, ended */

/* A worker parking BELL_ROUNDS times on slot 2's bell: each round reads
 * the bell, says so, and waits until it moves, after a pause of its own
 * that puts its way into the wait anywhere beside the ring. */
static void *race_bell_waiter(void *arg)
{
	(void)arg;
	for (int i = 1; i <= BELL_ROUNDS; i++) {
		uint32_t seen = page_bell(&race_bell_pg, 2);

		__atomic_store_n(&race_ready, i, __ATOMIC_SEQ_CST);
		/* a pause of 0 to about 20 µs on the way into the wait */
		for (volatile int k = (i * 104729) % 20000; k > 0; k--)
			;
		while (page_bell(&race_bell_pg, 2) == seen)
			page_bell_wait(&race_bell_pg, 2, seen);
		__atomic_store_n(&race_done, i, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* A ring skipped for want of a counted waiter never leaves one asleep:
 * rings racing a waiter's way into its wait, BELL_ROUNDS times, each
 * answered within a bound (a lost wake-up would leave the waiter asleep
 * for good). */
static void test_bell_race(void **state)
{
	pthread_t t;
	int woke = 0;

	(void)state;
	page_init(&race_bell_pg);
	assert_int_equal(pthread_create(&t, NULL, race_bell_waiter, NULL), 0);
	for (int i = 1; i <= BELL_ROUNDS; i++) {
		double end = test_now() + 10;

		while (__atomic_load_n(&race_ready, __ATOMIC_SEQ_CST) < i)
			;
		/* a pause of 0 to about 20 µs: the waiter may be anywhere
		 * on its way into the wait, or asleep */
		for (volatile int k = (i * 7919) % 20000; k > 0; k--)
			;
		woke += page_ring(&race_bell_pg, 2);
		while (__atomic_load_n(&race_done, __ATOMIC_ACQUIRE) < i &&
		       test_now() < end)
			;
		if (__atomic_load_n(&race_done, __ATOMIC_ACQUIRE) < i)
			fail_msg("round %d: the waiter slept through its ring", i);
	}
	pthread_join(t, NULL);
	assert_int_equal(race_bell_pg.waiting[2], 0);
	/* Some rings found the waiter asleep, counted, and woke it. */
	assert_true(woke > 0);
}

/* The idle words: all of a range, none when one is busy or the range is
 * empty; out of range ignored. */
static void test_idle(void **state)
{
	static struct page pg;

	(void)state;
	page_init(&pg);
	assert_false(page_idle_all(&pg, 1, 3));         /* busy until said */
	page_idle_write(&pg, 1, 1);
	assert_false(page_idle_all(&pg, 1, 3));
	page_idle_write(&pg, 2, 7);                     /* any nonzero: idle */
	assert_true(page_idle_all(&pg, 1, 3));
	assert_false(page_idle_all(&pg, 0, 3));
	assert_false(page_idle_all(&pg, 2, 2));         /* nothing revoked */
	page_idle_write(&pg, 2, 0);
	assert_false(page_idle_all(&pg, 1, 3));
	page_idle_write(&pg, PAGE_SLOTS - 1, 1);
	assert_true(page_idle_all(&pg, PAGE_SLOTS - 1, PAGE_SLOTS + 5));
	page_idle_write(&pg, -1, 1);                    /* ignored */
	page_idle_write(&pg, PAGE_SLOTS, 1);
	assert_true(page_idle_all(&pg, -3, 0) == 0);
}

static struct page with_pg;
static _Atomic uint32_t with_own;
static _Atomic int with_done;
static uint32_t with_seen, with_e;       /* read before the thread starts */

/* Waits on slot 5's bell and on with_own at once, until either moves
 * from what they held before it started. */
static void *with_waiter(void *arg)
{
	uint32_t seen = with_seen, e = with_e;

	(void)arg;
	while (page_bell(&with_pg, 5) == seen && atomic_load(&with_own) == e)
		if (page_bell_wait_with(&with_pg, 5, seen, &with_own, e,
		                        10000000000ull) < 0) {
			atomic_store(&with_done, -1);   /* no futex_waitv */
			return NULL;
		}
	atomic_store(&with_done, 1);
	return NULL;
}

/* Whether the waiter is done (a test_wait condition). */
static int with_finished(void *arg)
{
	(void)arg;
	return atomic_load(&with_done) != 0;
}

/* page_bell_wait_with wakes at a ring of the bell, and at a change of the
 * job's own word with its private wake; it times out. */
static void test_bell_with(void **state)
{
	pthread_t t;
	uint32_t e;
	double start;

	(void)state;
	page_init(&with_pg);
	for (int how = 0; how < 2; how++) {
		atomic_store(&with_done, 0);
		with_seen = page_bell(&with_pg, 5);
		with_e = atomic_load(&with_own);
		assert_int_equal(pthread_create(&t, NULL, with_waiter, NULL), 0);
		if (how == 0)
			page_ring(&with_pg, 5);
		else {
			atomic_fetch_add(&with_own, 1);
			syscall(SYS_futex, (uint32_t *)&with_own, FUTEX_WAKE_PRIVATE,
			        1, NULL, NULL, 0);
		}
		assert_int_equal(test_wait(with_finished, NULL, 10), 0);
		pthread_join(t, NULL);
		if (atomic_load(&with_done) < 0) {
			skip();         /* Linux < 5.16: the callers wait on own */
			return;
		}
	}
	e = atomic_load(&with_own);
	start = test_now();
	assert_int_equal(page_bell_wait_with(&with_pg, 5, page_bell(&with_pg, 5),
	                                     &with_own, e, 20000000), 0);
	assert_true(test_now() - start < 5);            /* it timed out */
	assert_int_equal(page_bell_wait_with(&with_pg, PAGE_SLOTS, 0, &with_own,
	                                     e, 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allot_roundtrip),
		cmocka_unit_test(test_allot_hostile),
		cmocka_unit_test(test_parked),
		cmocka_unit_test(test_allot_race),
		cmocka_unit_test(test_bell),
		cmocka_unit_test(test_bell_race),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_bell_with),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
