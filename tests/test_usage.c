/*
 * test_usage.c - a worker's time accounting (client-lib/usage.c): a worker
 * whose thread has not started is allotted and preempted from the start;
 * the leave window splits an interval into allotted, leaving and allotted
 * again, and a parked worker recalled is allotted from the recall; the
 * CPU clock splits as the wall clock does; the sums add up; a hosted
 * slot (the OpenMP layer's) changes hands without charging one thread's
 * CPU time to an interval it did not hold the slot in.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "usage.h"

#define MS 1000000ull

/* The sum of the times of u between readings at t0 (zero) and now. */
static struct usage_sum sum_at(struct usage *u, uint64_t now)
{
	struct usage_times zero = { { 0 }, { 0 } }, t;
	struct usage_sum s = { 0 };

	usage_read(u, now, &t);
	usage_sum_add(&s, &zero, &t);
	return s;
}

/* Burn about ms milliseconds of the calling thread's CPU time. */
static void burn(unsigned ms)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull +
	         (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec < ms * MS);
}

/* A second thread takes the slot: it burns CPU time before taking it
 * (none of which may be charged to the slot), then works. */
static void *taker(void *p)
{
	struct usage *u = p;

	burn(20);
	usage_rebind(u, WS_WORK, 300 * MS, 1);
	burn(5);
	usage_enter(u, WS_STEAL, 310 * MS);
	return NULL;
}

/* A hosted slot: held and worked by this thread, given up (free: asleep,
 * no CPU time), taken by another thread that had run 20 ms of CPU time of
 * its own before: the slot is charged only what each holder ran while
 * holding it, and a parked free slot charges nothing. */
static void test_slot_hand_off(void **state)
{
	struct usage u;
	struct usage_times t;
	pthread_t th;

	(void)state;
	usage_init(&u, 100 * MS, WS_PARK);
	usage_rebind(&u, WS_WORK, 100 * MS, 1);
	burn(5);
	usage_detach(&u, WS_SLEEP, 200 * MS);
	burn(10);               /* after giving it up: not the slot's */
	usage_read(&u, 250 * MS, &t);
	assert_true(t.cpu[WS_WORK] >= 4 * MS && t.cpu[WS_WORK] < 9 * MS);
	assert_int_equal(t.wall[WS_SLEEP], 50 * MS);
	assert_int_equal(t.cpu[WS_SLEEP], 0);
	assert_int_equal(pthread_create(&th, NULL, taker, &u), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	usage_read(&u, 320 * MS, &t);
	assert_int_equal(t.wall[WS_SLEEP], 100 * MS);
	assert_int_equal(t.cpu[WS_SLEEP], 0);
	assert_int_equal(t.wall[WS_WORK], 100 * MS + 10 * MS);
	/* the holders' 5 + 5 ms, not the taker's 20 ms before it held it */
	assert_true(t.cpu[WS_WORK] >= 9 * MS && t.cpu[WS_WORK] < 18 * MS);
	/* the link parks it while nobody holds it: no CPU time either,
	 * but for what the taker ran after entering STEAL: its return and
	 * its thread's exit, until the kernel forgets its clock (a few
	 * microseconds; 75 us once on a loaded host), which may fall in
	 * the STEAL interval or the parked one. */
	usage_rebind(&u, WS_PARK, 330 * MS, 0);
	usage_read(&u, 340 * MS, &t);
	assert_int_equal(t.wall[WS_STEAL], 20 * MS);
	assert_true(t.cpu[WS_STEAL] < 2 * MS);
	assert_int_equal(t.wall[WS_PARK], 10 * MS);
	assert_true(t.cpu[WS_PARK] < 2 * MS);
}

/* A worker allotted from its creation whose thread never ran: all its
 * time is allotted and preempted, none of it usage. */
static void test_not_started(void **state)
{
	struct usage u;
	struct usage_times t;
	struct usage_sum s;

	(void)state;
	usage_init(&u, 100 * MS, WS_STEAL);
	usage_read(&u, 130 * MS, &t);
	assert_int_equal(t.wall[WS_STEAL], 30 * MS);
	assert_int_equal(t.cpu[WS_STEAL], 0);
	s = sum_at(&u, 130 * MS);
	assert_int_equal(s.allotted, 30 * MS);
	assert_int_equal(s.preempted, 30 * MS);
	assert_int_equal(s.work + s.steal + s.mug + s.sleep, 0);
}

/* Told to leave at 110 ms, recalled at 120 ms, in one working interval:
 * 10 ms leaving, the rest work; nothing of the window is allotted. */
static void test_window_splits(void **state)
{
	struct usage u;
	struct usage_times t;
	struct usage_sum s;

	(void)state;
	usage_init(&u, 100 * MS, WS_WORK);
	usage_leave(&u, 110 * MS);
	usage_read(&u, 115 * MS, &t);
	assert_int_equal(t.wall[WS_WORK], 10 * MS);
	assert_int_equal(t.wall[WS_LEAVE], 5 * MS);
	usage_back(&u, 120 * MS);
	usage_back(&u, 125 * MS);       /* no window open: nothing */
	usage_read(&u, 130 * MS, &t);
	assert_int_equal(t.wall[WS_WORK], 20 * MS);
	assert_int_equal(t.wall[WS_LEAVE], 10 * MS);
	s = sum_at(&u, 130 * MS);
	assert_int_equal(s.allotted, 20 * MS);
	assert_int_equal(s.leave, 10 * MS);
}

/* The worker's own state changes split the same way as a reader does: the
 * counters after usage_enter equal what a reader saw just before. */
static void test_enter_matches_read(void **state)
{
	struct usage u;
	struct usage_times before, after;
	uint64_t now;
	int k;

	(void)state;
	now = 1000 * MS;
	usage_init(&u, now, WS_WORK);
	usage_leave(&u, now + 3 * MS);
	usage_read(&u, now + 8 * MS, &before);
	usage_enter(&u, WS_PARK, now + 8 * MS);
	usage_read(&u, now + 8 * MS, &after);
	for (k = 0; k < WS_COUNT; k++)
		assert_int_equal(before.wall[k], after.wall[k]);
	assert_int_equal(after.wall[WS_WORK], 3 * MS);
	assert_int_equal(after.wall[WS_LEAVE], 5 * MS);
	/* The CPU this thread ran goes to the interval it was read in. */
	assert_true(after.cpu[WS_LEAVE] >= before.cpu[WS_LEAVE]);
}

/* Parked, then recalled while still parked: allotted (waking up, steal
 * with no CPU: preempted) from the recall. */
static void test_parked_recalled(void **state)
{
	struct usage u;
	struct usage_times t;
	struct usage_sum s;
	uint64_t now = 2000 * MS;

	(void)state;
	usage_init(&u, now, WS_STEAL);
	usage_leave(&u, now + 1 * MS);
	usage_enter(&u, WS_PARK, now + 2 * MS);
	usage_read(&u, now + 6 * MS, &t);
	assert_int_equal(t.wall[WS_PARK], 4 * MS);
	usage_back(&u, now + 6 * MS);
	usage_read(&u, now + 9 * MS, &t);
	assert_int_equal(t.wall[WS_STEAL], 1 * MS + 3 * MS);
	assert_int_equal(t.wall[WS_LEAVE], 1 * MS);
	assert_int_equal(t.wall[WS_PARK], 4 * MS);
	/* Woken and running: the wait until it ran stays allotted. */
	usage_enter(&u, WS_STEAL, now + 9 * MS);
	s = sum_at(&u, now + 9 * MS);
	assert_int_equal(s.allotted, 4 * MS);
	assert_int_equal(s.park, 4 * MS);
	assert_int_equal(s.leave, 1 * MS);
}

/* Every counter of b is at least a's: readings never go back. */
static void assert_grew(const struct usage_times *a, const struct usage_times *b)
{
	int k;

	for (k = 0; k < WS_COUNT; k++) {
		assert_true(b->wall[k] >= a->wall[k]);
		assert_true(b->cpu[k] >= a->cpu[k]);
	}
}

/* Told to leave, recalled, told again and recalled again, all within one
 * interval of the worker (its thread did not run: no safe point, no state
 * change): each window stays counted as leaving, and a reader's counters
 * never go back from one reading to the next (a replaced window used to
 * turn back into work, counted twice as allotted). */
static void test_windows_replaced(void **state)
{
	struct usage u;
	struct usage_times t1, t2, t3, t4;
	struct usage_sum s;

	(void)state;
	usage_init(&u, 100 * MS, WS_WORK);
	usage_leave(&u, 110 * MS);
	usage_read(&u, 115 * MS, &t1);
	usage_back(&u, 120 * MS);
	usage_read(&u, 125 * MS, &t2);
	assert_grew(&t1, &t2);
	usage_leave(&u, 130 * MS);
	usage_read(&u, 135 * MS, &t3);
	assert_grew(&t2, &t3);
	usage_back(&u, 140 * MS);
	usage_read(&u, 150 * MS, &t4);
	assert_grew(&t3, &t4);
	assert_int_equal(t4.wall[WS_WORK], 30 * MS);
	assert_int_equal(t4.wall[WS_LEAVE], 20 * MS);
	s = sum_at(&u, 150 * MS);
	assert_int_equal(s.allotted, 30 * MS);
}

/* The same while parked (recalled but not yet running, then told to leave
 * again): the time between a recall and the next leave is allotted
 * (waking), the rest parked, and nothing goes back. */
static void test_parked_windows_replaced(void **state)
{
	struct usage u;
	struct usage_times t1, t2, t3;
	uint64_t now = 3000 * MS;

	(void)state;
	usage_init(&u, now, WS_STEAL);
	usage_leave(&u, now + 10 * MS);
	usage_enter(&u, WS_PARK, now + 20 * MS);
	usage_back(&u, now + 30 * MS);
	usage_read(&u, now + 35 * MS, &t1);
	usage_leave(&u, now + 40 * MS);
	usage_read(&u, now + 45 * MS, &t2);
	assert_grew(&t1, &t2);
	usage_back(&u, now + 50 * MS);
	usage_read(&u, now + 60 * MS, &t3);
	assert_grew(&t2, &t3);
	assert_int_equal(t3.wall[WS_PARK], 20 * MS);
	assert_int_equal(t3.wall[WS_STEAL], 30 * MS);
	assert_int_equal(t3.wall[WS_LEAVE], 10 * MS);
}

/* A worker preempted between reading the clock (120 ms) and recording its
 * change to sleep, while a reader read it up to 150 ms as stealing: the
 * change counts from 150 ms, so the reader's 50 ms of stealing are not
 * also counted as sleep. */
static void test_late_change(void **state)
{
	struct usage u;
	struct usage_times t1, t2;
	uint64_t now = 4000 * MS;

	(void)state;
	usage_init(&u, now, WS_STEAL);
	usage_read(&u, now + 50 * MS, &t1);
	usage_enter(&u, WS_SLEEP, now + 20 * MS);
	usage_read(&u, now + 60 * MS, &t2);
	assert_grew(&t1, &t2);
	assert_int_equal(t2.wall[WS_STEAL], 50 * MS);
	assert_int_equal(t2.wall[WS_SLEEP], 10 * MS);
}

/* A window edge given earlier than a reading already taken (the daemon's
 * decision time, when the link thread read the workers first) starts at
 * that reading instead: what was counted stays counted, and a worker
 * parked from its creation is allotted only from its recall. */
static void test_edge_not_before_reading(void **state)
{
	struct usage u;
	struct usage_times t1, t2;
	uint64_t now = 5000 * MS;

	(void)state;
	usage_init(&u, now, WS_PARK);
	usage_leave(&u, now);
	usage_read(&u, now + 10 * MS, &t1);
	assert_int_equal(t1.wall[WS_PARK], 10 * MS);
	assert_int_equal(t1.wall[WS_LEAVE], 0);
	usage_back(&u, now + 2 * MS);
	usage_read(&u, now + 11 * MS, &t2);
	assert_grew(&t1, &t2);
	assert_int_equal(t2.wall[WS_PARK], 10 * MS);
	assert_int_equal(t2.wall[WS_STEAL], 1 * MS);
}

/* CPU time is split at the window's CPU readings and never exceeds wall
 * time in the sums; allotted = work + steal + mug + sleep + preempted. */
static void test_sum_identity(void **state)
{
	struct usage_times a = { { 0 }, { 0 } }, b = { { 0 }, { 0 } };
	struct usage_sum s = { 0 };

	(void)state;
	b.wall[WS_WORK] = 10 * MS, b.cpu[WS_WORK] = 7 * MS;
	b.wall[WS_STEAL] = 2 * MS, b.cpu[WS_STEAL] = 3 * MS;  /* clock skew */
	b.wall[WS_MUG] = 1 * MS, b.cpu[WS_MUG] = 1 * MS;
	b.wall[WS_SLEEP] = 4 * MS, b.cpu[WS_SLEEP] = 0;
	b.wall[WS_PARK] = 5 * MS;
	b.wall[WS_LEAVE] = 6 * MS, b.cpu[WS_LEAVE] = 6 * MS;
	usage_sum_add(&s, &a, &b);
	assert_int_equal(s.work, 7 * MS);
	assert_int_equal(s.steal, 2 * MS);
	assert_int_equal(s.mug, 1 * MS);
	assert_int_equal(s.sleep, 4 * MS);
	assert_int_equal(s.preempted, 3 * MS);
	assert_int_equal(s.allotted, 17 * MS);
	assert_int_equal(s.allotted, s.work + s.steal + s.mug + s.sleep + s.preempted);
	assert_int_equal(s.park, 5 * MS);
	assert_int_equal(s.leave, 6 * MS);
	/* Differences that go back (a reset base above) count as 0. */
	s = (struct usage_sum){ 0 };
	usage_sum_add(&s, &b, &a);
	assert_int_equal(s.allotted, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_started),
		cmocka_unit_test(test_window_splits),
		cmocka_unit_test(test_enter_matches_read),
		cmocka_unit_test(test_parked_recalled),
		cmocka_unit_test(test_windows_replaced),
		cmocka_unit_test(test_parked_windows_replaced),
		cmocka_unit_test(test_late_change),
		cmocka_unit_test(test_edge_not_before_reading),
		cmocka_unit_test(test_sum_identity),
		cmocka_unit_test(test_slot_hand_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
