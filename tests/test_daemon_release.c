/*
 * test_daemon_release.c - how a real asteald (build/bin/asteald from
 * ASTEAL_TEST_BUILD, on a private socket, database and log) takes CPUs
 * back from a job, over the raw protocol (no libasteal):
 * - a Released for a quantum after the last tick or parked in the future
 *   gets Error INVALID on a connection that stays open (a later good
 *   Released is taken without an Error), logged once per job;
 * - handover release: a joining job is not given a CPU another job may
 *   still run on until that one says Released or a quarter quantum has
 *   passed, and every Allot of one quantum carries the same decided_ns;
 * - silence: a job that stops talking loses its CPUs to another job once
 *   four heartbeats are missed (not before, within a bound of quanta
 *   after), and gets them back when it speaks again.
 * Every wait is on a condition with a deadline (poll, never sleep and
 * hope); the job peers (daemonutil.h) send heartbeats while they wait, as
 * a job must.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define DAEMONUTIL_PEERS
#include "daemonutil.h"
#include "frame.h"
#include "qtime.h"
#include "testutil.h"

/* A Released for a quantum after the last tick, or parked in the future:
 * Error INVALID, ignored (no revocation sample); a good one later is
 * taken without an Error, on the same connection. */
static void test_bad_released(void **state)
{
	struct peer *c = peer_open("client", 0), *j;
	struct snap s0, s1;
	uint64_t qa, now;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	j = peer_open("released", 4);
	first_allot(j);
	sync_job(j);
	status(c, &s0);
	qa = j->allot_q;

	send_released(j, qnow(j) + 1000, qtime_now_ns());
	expect_error(j, "a Released for quantum");
	send_released(j, UINT64_MAX, qtime_now_ns());
	expect_error(j, "a Released for quantum");
	send_released(j, qa, qtime_now_ns() + 1000000000000ull);
	expect_error(j, "a Released for quantum");
	send_released(j, qa, UINT64_MAX);
	expect_error(j, "a Released for quantum");

	now = qtime_now_ns();
	assert_true(now >= j->decided_ns);
	send_released(j, qa, now);      /* good: no Error */
	sync_job(j);
	status(c, &s1);
	/* Taken as a sample, unless a later Allot came first (then it is for
	 * an old quantum: taken, not sampled). */
	if (j->allot_q == qa)
		assert_int_equal(s1.revocations - s0.revocations, 1);
	else
		assert_true(s1.revocations - s0.revocations <= 1);
	print_message("bad Released: Status.bad_feedbacks grew by %" PRIu64
	              " for 4 bad Released and 1 bad Feedback\n", s1.bad - s0.bad);
	assert_false(j->eof);
	assert_int_equal(log_lines(j->id, "a Released for quantum"), 1);
}

/* --handover release (the default): a CPU that DEQ moves from job a to a
 * joining job b is held back from b while a may still run on it, so b's
 * first Allot gives none of a's CPUs (allotment 0 of availability 1); a,
 * which never says Released, loses it in the same tick, and b gets it a
 * quarter of a quantum later.  Every grant carries its quantum's
 * decided_ns (take checks every Allot). */
static void test_handover_release(void **state)
{
	struct peer *c = peer_open("client", 0), *a, *b;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	a = peer_open("holder", 4);
	first_allot(a);
	if (a->ncpus < 2) {
		print_message("one CPU: nothing to hand over\n");
		skip();
	}
	good(a, 2);
	wait_allot(a, 2);
	b = peer_open("gainer", 4);
	first_allot(b);
	assert_int_equal(b->first_allotment, 0);
	assert_int_equal(b->first_availability, 1);
	wait_allot(b, 1);
	assert_int_equal(a->allotment, 1);
	assert_int_equal(b->allots, 2);
	print_message("a joining job got an Allot of 0 CPUs, then the CPU the "
	              "other job lost\n");
}

/* Whether job arg holds no CPU (its last Allot). */
static int holds_none(void *arg)
{
	struct peer *p = arg;

	return p->allots > 0 && p->allotment == 0;
}

/* Whether job arg holds a CPU (its last Allot). */
static int holds_some(void *arg)
{
	struct peer *p = arg;

	return p->allots > 0 && p->allotment > 0;
}

/* A job that stops talking (no Feedback, no heartbeat: stopped, or hung)
 * counts as desiring nothing once four heartbeats (1 s) have passed: its
 * Allot goes to 0 and the other job gets the CPUs, not before the second
 * is over and within a bound of quanta after it; Status counts it silent.
 * When it speaks again it counts again, and gets its share back at once. */
static void test_silent_job(void **state)
{
	struct peer *c = peer_open("client", 0), *a, *b;
	struct snap s;
	uint64_t silence, last, lost_at, q;
	uint32_t all;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	a = peer_open("silent", 4);
	b = peer_open("talker", 4);
	first_allot(a);
	first_allot(b);
	if (a->ncpus < 2) {
		print_message("one CPU: nothing to give back\n");
		skip();
	}
	all = a->ncpus < 4 ? a->ncpus : 4;
	good(a, 4);
	good(b, 4);
	assert_int_equal(wait_for(holds_some, a, bound()), 0);

	/* a stops talking. */
	a->quiet = 1;
	last = a->fb_ns;
	silence = (uint64_t)PROTO_SILENT_BEATS * a->heartbeat_ms * 1000000u;
	if (wait_for(holds_none, a, 1e-9 * (double)silence + bound()) < 0)
		fail_msg("a job silent for %.1f s still holds %u CPUs",
		         (test_now() - 1e-9 * (double)last), a->allotment);
	wait_allot(b, all);
	status(c, &s);
	assert_int_equal(s.silent, 1);
	/* Not before the silence was over: the tick of quantum q started
	 * before the next quantum's end; within half a second after it. */
	q = a->allot_q;
	lost_at = a->t0 + q * a->L;
	assert_true(a->t0 + (q + 2) * a->L > last + silence);
	print_message("a job silent: its CPU went at quantum %" PRIu64 ", %.0f "
	              "ms after its fourth heartbeat was due\n", q,
	              ((double)lost_at - (double)(last + silence)) * 1e-6);
	assert_true(lost_at <= last + silence + 500000000u ||
	            test_sanitized());
	assert_true(lost_at <= last + silence + 5000000000u);

	/* It speaks again: it counts again. */
	a->quiet = 0;
	good(a, 4);
	q = a->last_q;
	assert_int_equal(wait_for(holds_some, a, bound()), 0);
	print_message("spoke again closing quantum %" PRIu64 ": CPUs back at "
	              "quantum %" PRIu64 "\n", q, a->allot_q);
	assert_true(a->allot_q <= q + 50 || test_sanitized());
	assert_true(b->allotment < all || b->allot_q < a->allot_q);
	status(c, &s);
	assert_int_equal(s.silent, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_released, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_handover_release, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_silent_job, reset, close_peers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
