/*
 * test_daemon_feedback.c - Feedbacks no job could send, or only a late or
 * stopped one, to a real asteald (build/bin/asteald from
 * ASTEAL_TEST_BUILD, on a private socket, database and log), over the raw
 * protocol (no libasteal):
 * - fields no job could send, from a job peer of 4 workers: a Feedback for
 *   a quantum that has not begun, a desire above the workers (also
 *   negative int32s sent as 10-byte varints), desire_real NaN, infinite,
 *   negative or above the workers, a class the protocol does not have,
 *   each usage total going back or beyond what the workers could use
 *   since the job joined: each gets Error INVALID naming the field and the
 *   job is dropped (the connection ends, its history row ends), counted in
 *   Status.bad_feedbacks and logged; Feedbacks at the edges of each range
 *   are taken without an Error;
 * - desire 0 is valid: no Error, not counted as bad, the allotment drops to
 *   0 (Allot and Jobs) and a desire of 2 brings it back.
 * What a late or stopped job could send is test_daemon_share.c's last
 * test (it needs the daemon up 10 s, which the tests there let pass).
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
#include <math.h>
#include <cmocka.h>

#define DAEMONUTIL_PEERS
#include "daemonutil.h"
#include "exchange.h"
#include "frame.h"
#include "qtime.h"
#include "testutil.h"

/* Send a Feedback built by hand whose desire is d written as an int32 is
 * (a negative one as a 10-byte varint, as a sender with an int32 field
 * would write it), with p's usage totals. */
static void send_fb_int32(struct peer *p, uint64_t q, int32_t d, double real)
{
	/* Usage's fields 1 to 6: work, steal, mug, sleep, preempted, allotted */
	static const int tot_of[NTOT] = { 0, 1, 2, 4, 5, 3 };
	uint8_t body[128], use[80], frame[160];
	uint64_t bits;
	size_t n = 0, u = 0, len;
	Asteal__Envelope *m;
	int i;

	body[n++] = 0x08;               /* quantum */
	n += exchange_put_varint(body + n, q);
	body[n++] = 0x10;               /* desire */
	n += exchange_put_varint(body + n, (uint64_t)(int64_t)d);
	body[n++] = 0x19;               /* desire_real, fixed64 */
	memcpy(&bits, &real, sizeof(bits));
	for (i = 0; i < 8; i++)
		body[n++] = (uint8_t)(bits >> (8 * i));
	for (i = 0; i < NTOT; i++) {
		use[u++] = (uint8_t)((i + 1) << 3);
		u += exchange_put_varint(use + u, p->tot[tot_of[i]]);
	}
	body[n++] = (uint8_t)(FEEDBACK_USAGE_FIELD << 3 | 2);   /* usage */
	n += exchange_put_varint(body + n, u);
	memcpy(body + n, use, u);
	n += u;
	len = exchange_envelope(frame, ASTEAL__ENVELOPE__MSG_FEEDBACK, body, n);
	/* The bytes say what we mean: protobuf-c reads that desire. */
	m = frame_decode(frame + PROTO_HEADER_LEN, len - PROTO_HEADER_LEN, NULL, 0);
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_FEEDBACK);
	assert_int_equal(m->feedback->desire, (uint32_t)d);
	assert_int_equal(m->feedback->quantum, q);
	assert_non_null(m->feedback->usage);
	assert_int_equal(m->feedback->usage->allotted_ns, p->tot[3]);
	assert_int_equal(m->feedback->usage->preempted_ns, p->tot[5]);
	frame_free(m);
	send_all(p, frame, len);
	fb_sent++;
}

/* Fields no job could send, each of which drops the job. */
enum { F_FUTURE, F_DESIRE, F_DESIRE32, F_REAL, F_CLASS, F_BACK, F_BEYOND };

static const struct refusal {
	int kind;
	uint64_t u;             /* the value (F_BEYOND: 0 = workers' time) */
	double d;               /* desire_real */
	int k;                  /* which total (F_BACK, F_BEYOND) */
	const char *text;       /* in the Error */
} refusals[] = {
	{ F_FUTURE, 1000, 1, 0, "Feedback.quantum" },
	{ F_FUTURE, UINT64_MAX, 1, 0, "Feedback.quantum" },
	{ F_DESIRE, 5, 4, 0, "Feedback.desire 5 is above the job's 4 workers" },
	{ F_DESIRE, 1000, 4, 0, "Feedback.desire 1000 is above" },
	{ F_DESIRE32, (uint32_t)-1, 3, 0, "Feedback.desire 4294967295 is above" },
	{ F_DESIRE32, (uint32_t)INT32_MIN, 3, 0, "Feedback.desire 2147483648 is" },
	{ F_REAL, 1, NAN, 0, "Feedback.desire_real" },
	{ F_REAL, 1, INFINITY, 0, "Feedback.desire_real" },
	{ F_REAL, 1, -INFINITY, 0, "Feedback.desire_real" },
	{ F_REAL, 1, -0.5, 0, "Feedback.desire_real" },
	{ F_REAL, 4, 4.5, 0, "Feedback.desire_real 4.5" },
	{ F_REAL, 4, 1e300, 0, "Feedback.desire_real" },
	{ F_CLASS, 4, 1, 0, "Feedback.quantum_class 4 is not" },
	{ F_CLASS, 1000, 1, 0, "Feedback.quantum_class 1000" },
	{ F_CLASS, (uint32_t)-1, 1, 0, "Feedback.quantum_class -1" },
	{ F_BACK, 0, 1, 0, "Feedback.usage.work_ns went back" },
	{ F_BACK, 0, 1, 1, "Feedback.usage.steal_ns went back" },
	{ F_BACK, 0, 1, 2, "Feedback.usage.mug_ns went back" },
	{ F_BACK, 0, 1, 3, "Feedback.usage.allotted_ns went back" },
	{ F_BACK, 0, 1, 4, "Feedback.usage.sleep_ns went back" },
	{ F_BACK, 0, 1, 5, "Feedback.usage.preempted_ns went back" },
	{ F_BEYOND, UINT64_MAX, 1, 0, "Feedback.usage.work_ns 18446744073709551615 is more" },
	{ F_BEYOND, 1ull << 63, 1, 1, "Feedback.usage.steal_ns" },
	{ F_BEYOND, 0, 1, 2, "Feedback.usage.mug_ns" },
	{ F_BEYOND, 0, 1, 3, "Feedback.usage.allotted_ns" },
	{ F_BEYOND, 0, 1, 4, "Feedback.usage.sleep_ns" },
	{ F_BEYOND, 1ull << 62, 1, 5, "Feedback.usage.preempted_ns" },
};

/* Send job p the Feedback of refusal r (F_BACK: after a good one). */
static void send_refused(struct peer *p, const struct refusal *r)
{
	uint64_t q, tot[NTOT], now;

	if (r->kind == F_BACK)
		good(p, 1);
	q = r->kind == F_FUTURE ? (r->u == UINT64_MAX ? r->u : qnow(p) + r->u)
	                        : next_q(p);
	more_usage(p, tot);
	switch (r->kind) {
	case F_DESIRE32:
		send_fb_int32(p, q, (int32_t)(uint32_t)r->u, r->d);
		return;
	case F_CLASS:
		send_fb_class(p, q, 1, 1, tot, (int)(int32_t)(uint32_t)r->u);
		return;
	case F_BACK:
		tot[r->k] = p->tot[r->k] - 1;
		break;
	case F_BEYOND:
		/* past what 4 workers could use since before it connected,
		 * with the slack and 5 s more for the daemon to read it */
		now = qtime_now_ns();
		tot[r->k] = r->u ? r->u : p->workers * (now - p->opened_ns +
		            PROTO_USAGE_SLACK_MS * 1000000ull + 5000000000ull);
		break;
	}
	send_fb(p, q, r->kind == F_DESIRE ? (uint32_t)r->u : 1, r->d, tot);
}

/* Whether job *arg's history row has ended (a History request of it). */
static int row_ended(void *arg)
{
	struct peer **pp = arg;
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	uint64_t id = pp[1]->id;
	int ended;

	hr.job_ids = &id;
	hr.n_job_ids = 1;
	hr.jobs_only = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hr;
	m = request(pp[0], &env);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HISTORY);
	assert_int_equal(m->history->n_jobs, 1);
	ended = m->history->jobs[0]->end_ns != 0;
	frame_free(m);
	return ended;
}

/* Each field no job could send (a quantum that has not begun, a desire
 * above the workers, also negative int32s as 10-byte varints, a
 * desire_real that is not a number of workers, a class the protocol does
 * not have, each usage total going back or beyond what the workers could
 * use since the job joined) drops its job: Error INVALID naming the field,
 * the end of the connection, no Jobs row, its history row ended, counted
 * in Status.bad_feedbacks and logged; while Feedbacks at the edges of
 * every range (desire 0 and the workers, every class, usage within the
 * bound) are taken without an Error. */
static void test_refused_fields(void **state)
{
	struct peer *c = peer_open("client", 0), *j, *pair[2];
	struct snap s0, s1;
	struct row r;
	uint64_t q, tot[NTOT];
	size_t i;
	int cls;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	status(c, &s0);
	/* Good at the edges: no Error, the desire taken. */
	j = peer_open("edges", 4);
	first_allot(j);
	for (cls = 0; cls <= 3; cls++) {
		q = next_q(j);
		more_usage(j, tot);
		send_fb_class(j, q, (uint32_t)cls % 2 * 4, cls % 2 * 4.0, tot, cls);
		memcpy(j->tot, tot, sizeof(tot));
		taken(j, q, (uint32_t)cls % 2 * 4);
	}
	q = next_q(j);                  /* usage just within the bound */
	memcpy(tot, j->tot, sizeof(tot));
	tot[0] = tot[3] = j->workers * (qtime_now_ns() - j->welcomed_ns +
	                                (PROTO_USAGE_SLACK_MS - 1000) * 1000000ull);
	send_fb(j, q, 4, 4, tot);
	memcpy(j->tot, tot, sizeof(tot));
	taken(j, q, 4);
	sync_job(j);
	wait_job(c, j, 4, -1);
	assert_false(j->eof);
	peer_close(j);

	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *rf = &refusals[i];
		int logged = tdaemon_log_count(dm, rf->text, "disconnected");

		j = peer_open("refused", 4);
		send_refused(j, rf);
		bad_sent++;
		expect_error(j, rf->text);
		if (wait_for(at_eof, j, bound()) < 0)
			fail_msg("refusal %zu (%s): the job is still connected", i,
			         rf->text);
		pair[0] = c;
		pair[1] = j;
		assert_int_equal(wait_for(row_ended, pair, bound()), 0);
		assert_int_equal(job_row(c, j->id, &r), 0);
		assert_int_equal(tdaemon_log_count(dm, rf->text, "disconnected"), logged + 1);
		peer_close(j);
	}
	status(c, &s1);
	assert_int_equal(s1.bad - s0.bad, bad_sent);
	assert_int_equal(s1.feedbacks - s0.feedbacks, fb_sent);
	print_message("%zu refused Feedbacks: each job dropped with its field "
	              "named, its history row ended\n", i);
}

/* Desire 0 is valid: taken without an Error nor a bad count, the
 * allotment drops to 0, and a desire of 2 brings it back. */
static void test_desire_zero(void **state)
{
	struct peer *c = peer_open("client", 0), *j;
	struct snap s0;
	uint32_t want;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	status(c, &s0);
	j = peer_open("idle", 4);
	first_allot(j);
	assert_int_equal(j->allotment, 1);      /* d_1 = 1 */
	want = j->ncpus < 2 ? j->ncpus : 2;

	good(j, 0);
	sync_job(j);                    /* no Error before the sentinel's */
	wait_job(c, j, 0, 0);
	good(j, 2);
	sync_job(j);
	wait_job(c, j, 2, (int)want);
	good(j, 0);                     /* and down again */
	wait_job(c, j, 0, 0);
	assert_false(j->eof);
	check_counts(c, &s0);           /* only the sentinels were bad */
	assert_int_equal(bad_sent, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused_fields, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_desire_zero, reset, close_peers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
