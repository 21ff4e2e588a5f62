/*
 * test_daemon_serve.c - a real asteald (build/bin/asteald from
 * ASTEAL_TEST_BUILD, on a private socket, database and log) serving its
 * peers while others keep it busy, over the raw protocol (no libasteal):
 * - history pages cut by a cursor, read while two jobs keep changing
 *   desire: no run twice, each page going on where the one before
 *   stopped, every run written before the first page read, and a cursor
 *   out of range refused (Error INVALID);
 * - service to others: while one job misbehaves, a well-behaved job's
 *   desire changes are honoured (its Allots and the Jobs reply) and a
 *   client's Status answers; after a burst of 1000 bad messages (all sent,
 *   then read: 1000 Errors) the daemon is alive and still serves both, and
 *   a third job dropped for a bad field gives its CPUs back.
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
#include <signal.h>
#include <cmocka.h>

#define DAEMONUTIL_PEERS
#include "daemonutil.h"
#include "frame.h"
#include "qtime.h"
#include "testutil.h"

/* How many runs the history holds for the jobs of hr (one page). */
static size_t history_runs(struct peer *c, Asteal__HistoryRequest *hr)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	int64_t limit = hr->limit;
	size_t n;

	hr->limit = 10000;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = hr;
	m = request(c, &env);
	hr->limit = limit;
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HISTORY);
	assert_false(m->history->more);
	n = m->history->n_allotments;
	frame_free(m);
	return n;
}

/* History pages cut by a cursor, read while two jobs keep changing
 * desire (a run more each quantum, between pages too): no run comes
 * twice, each page goes on in the order (job, start) where the one before
 * stopped, every run written before the first page is read, and a cursor
 * out of range gets Error INVALID. */
static void test_history_pages(void **state)
{
	struct peer *c = peer_open("client", 0), *a, *b;
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__HistoryCursor after, bad = ASTEAL__HISTORY_CURSOR__INIT;
	uint64_t ids[2], seen[512][2], job = 0, start = 0;
	size_t nseen = 0, i, k;
	int pages = 0, more = 1;
	double end = test_now() + 4 * bound();

	(void)state;
	a = peer_open("pages-a", 4);
	b = peer_open("pages-b", 4);
	first_allot(a);
	first_allot(b);
	ids[0] = a->id;
	ids[1] = b->id;
	hr.job_ids = ids;
	hr.n_job_ids = 2;
	hr.limit = 3;
	/* A change of desire makes a run only if the daemon reads it before
	 * the next: one late Feedback and the one after it can fall in the
	 * same tick.  So change until the history holds 20 runs. */
	for (i = 0; history_runs(c, &hr) < 20; i++) {
		assert_true(test_now() < end);
		good(a, 1 + i % 2);
		good(b, 2 - i % 2);
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hr;
	while (more) {
		m = request(c, &env);
		assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HISTORY);
		assert_true(m->history->n_allotments <= 3);
		for (i = 0; i < m->history->n_allotments; i++) {
			const Asteal__AllotmentRecord *r = m->history->allotments[i];

			assert_true(r->job_id > job ||
			            (r->job_id == job && r->start_ns > start));
			job = r->job_id;
			start = r->start_ns;
			for (k = 0; k < nseen; k++)
				assert_false(seen[k][0] == r->job_id &&
				             seen[k][1] == r->first_quantum);
			assert_true(nseen < 512);
			seen[nseen][0] = r->job_id;
			seen[nseen++][1] = r->first_quantum;
		}
		more = frame_history_after(&hr, &after, m->history);
		if (more)
			assert_int_not_equal(m->history->n_allotments, 0);
		frame_free(m);
		assert_true(++pages < 200);
		if (pages <= 8) {       /* both jobs: a run more each */
			good(a, 1 + pages % 2);
			good(b, 2 - pages % 2);
		}
	}
	assert_true(pages > 5);
	assert_true(nseen >= 20);
	bad.job_id = UINT64_MAX;
	hr.after = &bad;
	assert_int_equal(frame_write_fd(c->fd, &env), 0);
	expect_error(c, "cursor");
}

/* What the bad job of test_others_served does at each check. */
static struct peer *villain;
static int villain_turn;

/* One more bad message from the villain, of the kinds that are refused
 * and ignored (a second Feedback for its last quantum, a Released for a
 * quantum to come), in turn, and its Error. */
static void misbehave(void)
{
	if (villain_turn++ % 2 == 0 && villain->has_q) {
		bad_fb(villain, villain->last_q, 4, 4, villain->tot,
		       "a second Feedback");
		return;
	}
	send_released(villain, qnow(villain) + 1000, qtime_now_ns());
	bad_sent++;
	expect_error(villain, "a Released for quantum");
}

/* Whether the well-behaved job has what it asked for, while the villain
 * misbehaves and a client's Status answers. */
static int served(void *arg)
{
	struct want *w = arg;
	struct snap s;

	status(w->c, &s);
	return job_is(arg);
}

/* Whether job g (arg[1]) and job b (arg[2]) share the CPUs as desires 2
 * and 4 must, as the Jobs reply (client arg[0]) and g's Allot say. */
static int shared(void *arg)
{
	struct peer **p = arg;
	struct row rg = { 0 }, rb = { 0 };   /* job_row sets them when found */
	uint32_t n = p[1]->ncpus;

	misbehave();
	return job_row(p[0], p[1]->id, &rg) && job_row(p[0], p[2]->id, &rb) &&
	       rb.desire == 4 && rg.desire == 2 && (rg.allotment >= 1 || n < 2) &&
	       rg.allotment + rb.allotment == (n < 6 ? n : 6) &&
	       p[1]->allotment == rg.allotment && p[1]->allot_ncpus == rg.allotment;
}

/* Other peers keep their service while a job misbehaves, after a burst
 * of 1000 bad messages from it, and when another job is dropped for a
 * field no job could send. */
static void test_others_served(void **state)
{
	struct peer *c = peer_open("client", 0), *g, *b, *d, *trio[3];
	struct snap s0, s;
	struct want w;
	uint32_t want;
	uint8_t *burst;
	size_t len = 0, cap = 64 * 1000;
	int i;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	status(c, &s0);
	g = peer_open("good", 4);
	b = peer_open("bad", 4);
	first_allot(g);
	first_allot(b);
	want = g->ncpus < 2 ? g->ncpus : 2;
	villain = b;
	villain_turn = 0;

	/* The villain wants nothing; the good job asks for 2 and gets them
	 * while the villain sends bad messages. */
	good(b, 0);
	sync_job(b);
	wait_job(c, b, 0, 0);
	for (i = 0; i < 4; i++)         /* each kind at least once */
		misbehave();
	good(g, 2);
	w = (struct want){ c, g, 2, (int)want, misbehave };
	if (wait_for(served, &w, bound()) < 0)
		fail_msg("job %" PRIu64 " did not get its 2 CPUs while another "
		         "misbehaved", g->id);
	print_message("the good job got %u CPUs after %d bad messages\n",
	              want, villain_turn);

	/* The villain asks for 4: the two share the CPUs, and the good job is
	 * told its part. */
	good(b, 4);
	trio[0] = c;
	trio[1] = g;
	trio[2] = b;
	if (wait_for(shared, trio, bound()) < 0)
		fail_msg("sharing: the good job has %u CPUs", g->allotment);
	/* The villain goes back to nothing: the good job gets its 2 again. */
	good(b, 0);
	w = (struct want){ c, g, 2, (int)want, misbehave };
	assert_int_equal(wait_for(served, &w, bound()), 0);

	/* A burst: 1000 bad messages sent at once, then read. */
	burst = malloc(cap);
	assert_non_null(burst);
	for (i = 0; i < 1000; i++) {
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
		Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;
		Asteal__Released rel;
		size_t n;

		if (i % 2) {
			fb.quantum = b->last_q;
			fb.desire = 3;
			fb.desire_real = 3;
			env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
			env.feedback = &fb;
			fb_sent++;
		} else {
			frame_released(&env, &rel, qnow(b) + 100000 + (uint64_t)i,
			               qtime_now_ns());
		}
		assert_int_equal(frame_encode(&env, burst + len, cap - len, &n), 0);
		len += n;
	}
	send_all(b, burst, len);
	free(burst);
	bad_sent += 1000;
	for (i = 0; i < 1000; i++)
		expect_error(b, i % 2 ? "a second Feedback" : "a Released for quantum");
	status(c, &s);
	assert_int_equal(kill(dm->pid, 0), 0);
	assert_false(b->eof);
	assert_false(g->eof);

	/* A third job asks for everything, then says what no job could: it
	 * is dropped, and the good job has its CPU back. */
	d = peer_open("dropped", 4);
	first_allot(d);
	good(d, 4);
	good(g, 1);
	send_fb(d, next_q(d), 1000, 4, d->tot);
	bad_sent++;
	expect_error(d, "Feedback.desire 1000");
	assert_int_equal(wait_for(at_eof, d, bound()), 0);
	peer_close(d);

	/* Both others are still served. */
	wait_job(c, g, 1, 1);
	good(b, 1);
	wait_job(c, b, 1, g->ncpus >= 2 ? 1 : -1);
	check_counts(c, &s0);
	/* Each kind is logged once for the villain, however often it came. */
	assert_int_equal(log_lines(b->id, "a second Feedback"), 1);
	assert_int_equal(log_lines(b->id, "a Released for quantum"), 1);
	assert_int_equal(log_lines(g->id, "a Released for quantum"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_history_pages, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_others_served, reset, close_peers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
