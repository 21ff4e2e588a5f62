/*
 * test_history_restart.c - asteald's history in SQLite across daemons and
 * days: a job that outlives its daemon (paused, taken back, its totals
 * added up), its usage away (outside every run, added to its totals
 * once), usage given before a job's first run kept when the job stops
 * or ends before one, history across restarts with ids never reused, reclaiming
 * and closing stale jobs, many jobs ended in a scattered order and taken
 * back in reverse, and retention (only jobs ended long enough ago, with
 * their runs, a bounded step at a time).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#define HISTUTIL_FIXTURE
#include "histutil.h"
#include "history.h"

/* A job that outlives the daemon: paused with its totals, its row left
 * open, taken back, ended: the totals of both daemons add up. */
static void test_pause(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	struct history_quantum q;
	struct rows *rs;
	int64_t a;

	a = begin(h, "a", 100, T0);
	q = quantum(T0, 0, 2, 4, 2, "0-1", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, a, &q), 0);
	assert_int_equal(history_job_pause(h, a), 0);
	assert_int_equal(history_allot(h, a, &q), -1);  /* not tracked now */
	history_close(h);
	h = open_ok(f, NULL);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 1);
	assert_int_equal(rs->job[0].end_ns, 0);     /* still running */
	assert_int_equal(rs->job[0].use[USAGE_WORK], 1000000);
	assert_int_equal(rs->nruns, 1);
	free(rs);
	/* Taken back, it adds the runs of the next daemon, and its first
	 * quantum there comes after every quantum stored. */
	assert_int_equal(history_job_reopen(h, a, 100), 0);
	q = quantum(T0, 0, 1, 4, 1, "0", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, a, &q), 0);
	assert_int_equal(history_job_end(h, a, T0 + DAY, NULL), 0);
	rs = query(h, NULL);
	assert_int_equal(rs->job[0].end_ns, T0 + DAY);
	assert_int_equal(rs->job[0].use[USAGE_WORK], 2000000);
	assert_int_equal(rs->job[0].use[USAGE_STEAL], 4000000);
	assert_int_equal(rs->job[0].use[USAGE_MUG], 6000000);
	assert_int_equal(rs->job[0].use[USAGE_ALLOTTED], 8000000);
	assert_int_equal(rs->job[0].use[USAGE_SLEEP], 1000000);
	assert_int_equal(rs->job[0].use[USAGE_PREEMPTED], 500000);
	assert_int_equal(rs->nruns, 2);
	assert_int_equal(rs->run[1].first_quantum, 1);
	free(rs);
	assert_int_equal(history_job_pause(h, a), -1);  /* ended */
	assert_int_equal(history_job_pause(NULL, a), -1);
	history_close(h);
}

/* A job's usage away: its totals as this handle knows them (its row's
 * when taken back, plus all usage given since), its usage away added
 * once to its totals as a row of away, in no run, kept on disk, gone
 * with the job at retention; bad calls refused, nothing added. */
static void test_away(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .retention_days = 7 };
	struct history *h = open_ok(f, &o);
	const int64_t w[USAGE_N] = { 7, 6, 5, 4, 3, 25 }, bad[USAGE_N] = { -1 };
	int64_t a, start, use[USAGE_N], want[USAGE_N], runs[USAGE_N] = { 0 };
	struct history_quantum q;
	struct rows *rs;

	a = begin(h, "a", 100, T0);
	q = quantum(T0, 0, 2, 4, 2, "0-1", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, a, &q), 0);
	assert_int_equal(history_usage(h, a, w), 0);
	for (int k = 0; k < USAGE_N; k++)
		want[k] = q.use[k] + w[k];
	assert_int_equal(history_job_usage(h, a, &start, use), 0);
	assert_int_equal(start, T0);
	assert_memory_equal(use, want, sizeof(want));
	assert_int_equal(history_job_pause(h, a), 0);
	assert_int_equal(history_job_usage(h, a, &start, use), -1);
	history_close(h);

	/* Taken back by the next daemon: its row's totals, then its usage
	 * away added once (bad calls add nothing). */
	h = open_ok(f, &o);
	assert_int_equal(history_job_reopen(h, a, 100), 0);
	memset(use, 0, sizeof(use));
	assert_int_equal(history_job_usage(h, a, &start, use), 0);
	assert_int_equal(start, T0);
	assert_memory_equal(use, want, sizeof(want));
	assert_int_equal(history_away(h, a, T0 + DAY, w), 0);
	assert_int_equal(history_away(h, a, T0 + DAY, bad), -1);
	assert_int_equal(history_away(h, a, 0, w), -1);
	assert_int_equal(history_away(h, 12345, T0 + DAY, w), -1);
	assert_int_equal(history_away(NULL, a, T0 + DAY, w), -1);
	for (int k = 0; k < USAGE_N; k++) {
		runs[k] = want[k];
		want[k] += w[k];
	}
	assert_int_equal(history_job_usage(h, a, &start, use), 0);
	assert_memory_equal(use, want, sizeof(want));
	assert_int_equal(history_job_end(h, a, T0 + 2 * DAY, NULL), 0);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 1);
	assert_memory_equal(rs->job[0].use, want, sizeof(want));
	assert_int_equal(rs->nruns, 1);      /* the away is in no run */
	assert_int_equal(rs->run[0].use[USAGE_WORK], runs[USAGE_WORK]);
	assert_int_equal(rs->run[0].use[USAGE_ALLOTTED], runs[USAGE_ALLOTTED]);
	free(rs);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM away"), 1);
	assert_int_equal(peek(f->path, "SELECT at_ns FROM away"), T0 + DAY);

	/* Retention: its usage away goes with the job. */
	h = open_ok(f, &o);
	assert_true(history_expire(h, T0 + 20 * DAY, 0, NULL) > 0);
	assert_int_equal(stats(h).jobs, 0);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM away"), 0);
}

/* Usage given before a job's first run (its Feedback came before the tick
 * that records it) is in its totals when its daemon stops or it ends
 * before any run: a row of away, at the latest quantum's end or its end;
 * given once it has a run, it is the run's. */
static void test_usage_before_run(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .retention_days = 7 };
	struct history *h = open_ok(f, &o);
	const int64_t w[USAGE_N] = { 7, 6, 5, 4, 3, 25 };
	int64_t a, b, c, start, use[USAGE_N];
	struct history_quantum q;
	struct rows *rs;

	a = begin(h, "a", 100, T0);         /* paused before a run */
	b = begin(h, "b", 101, T0);         /* ended before a run */
	c = begin(h, "c", 102, T0);         /* given usage, then a run */
	assert_int_equal(history_usage(h, a, w), 0);
	assert_int_equal(history_usage(h, b, w), 0);
	assert_int_equal(history_usage(h, c, w), 0);
	q = quantum(T0, 3, 2, 4, 2, "0-1", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, c, &q), 0);
	assert_int_equal(history_job_pause(h, a), 0);
	assert_int_equal(history_job_end(h, b, T0 + DAY, NULL), 0);
	assert_int_equal(history_job_end(h, c, T0 + DAY, NULL), 0);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM away"), 2);
	assert_int_equal(peek(f->path, "SELECT at_ns FROM away WHERE job = 1"),
	                 T0 + 4 * QNS);      /* the end of c's quantum 3 */
	assert_int_equal(peek(f->path, "SELECT at_ns FROM away WHERE job = 2"),
	                 T0 + DAY);

	h = open_ok(f, &o);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 3);
	assert_memory_equal(rs->job[0].use, w, sizeof(w));
	assert_memory_equal(rs->job[1].use, w, sizeof(w));
	for (int k = 0; k < USAGE_N; k++)       /* c: its run has both */
		assert_int_equal(rs->job[2].use[k], q.use[k] + w[k]);
	assert_int_equal(rs->nruns, 1);
	assert_int_equal(rs->run[0].job, c);
	assert_int_equal(rs->run[0].use[USAGE_WORK], q.use[USAGE_WORK] + w[USAGE_WORK]);
	free(rs);
	/* a, taken back, knows it too */
	assert_int_equal(history_job_reopen(h, a, 100), 0);
	assert_int_equal(history_job_usage(h, a, &start, use), 0);
	assert_memory_equal(use, w, sizeof(w));
	history_close(h);
}

/* Close and open again: everything is there, a running job can be taken
 * back (only with its pid, only once), the others are closed as stale, and
 * ids continue without reuse even when the last one was expired. */
static void test_restart(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .retention_days = 7 };
	struct history *h = open_ok(f, &o);
	int64_t a, b, c, d, e, g, now = T0 + 30 * DAY;
	struct history_quantum q;
	struct rows *rs;

	a = begin(h, "a", 100, T0);
	b = begin(h, "b", 200, T0);
	c = begin(h, "c", 300, now - DAY);
	d = begin(h, "d", 400, now - DAY);
	for (int i = 0; i < 5; i++) {
		q = quantum(T0, i, 1 + i % 2, 4, 1 + i % 2, "1",
			    HISTORY_SATISFIED);
		assert_int_equal(history_allot(h, a, &q), 0);
		assert_int_equal(history_allot(h, c, &q), 0);
		assert_int_equal(history_allot(h, d, &q), 0);
	}
	assert_int_equal(history_job_end(h, a, T0 + DAY, NULL), 0);
	assert_int_equal(history_job_end(h, b, T0 + DAY, NULL), 0);
	history_close(h);           /* c and d are left running */

	h = open_ok(f, &o);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 4);
	assert_int_equal(rs->nruns, 15);
	assert_int_equal(rs->job[2].end_ns, 0);
	assert_int_equal(rs->run[4].last_quantum, 4);
	free(rs);
	q = quantum(T0, 10, 1, 4, 1, "1", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, c, &q), -1);
	assert_int_equal(history_job_reopen(h, c, 999), -1);
	assert_int_equal(history_job_reopen(h, a, 100), -1);    /* ended */
	assert_int_equal(history_job_reopen(h, 12345, 100), -1);
	assert_int_equal(history_job_reopen(h, c, 300), 0);
	assert_int_equal(history_job_reopen(h, c, 300), -1);
	assert_int_equal(history_allot(h, c, &q), 0);
	/* d is not reclaimed: too young for a two-day cutoff, closed with
	 * no cutoff, once; its totals are the sums of its runs. */
	assert_int_equal(history_close_stale(h, now, 2 * DAY), 0);
	assert_int_equal(history_close_stale(h, now, 0), 1);
	assert_int_equal(history_close_stale(h, now, 0), 0);
	rs = query(h, &(struct history_filter){ .jobs = &d, .njobs = 1 });
	assert_int_equal(rs->job[0].end_ns, now);
	assert_false(rs->job[0].has_exit);
	assert_int_equal(rs->job[0].use[USAGE_WORK], 5 * 1000000LL);
	assert_int_equal(rs->job[0].use[USAGE_MUG], 5 * 3000000LL);
	assert_int_equal(rs->job[0].use[USAGE_SLEEP], 5 * 500000LL);
	assert_int_equal(rs->job[0].use[USAGE_PREEMPTED], 5 * 250000LL);
	assert_int_equal(rs->job[0].use[USAGE_ALLOTTED], 5 * 4000000LL);
	free(rs);
	/* g, the highest id, expires with a and b; no id is given again. */
	g = begin(h, "g", 600, T0);
	assert_int_equal(history_job_end(h, g, T0 + DAY, NULL), 0);
	assert_int_equal(history_job_end(h, c, now, NULL), 0);
	assert_int_equal(history_expire(h, now, 0, NULL), 3 + 5);  /* a, b, g, a's runs */
	history_close(h);
	h = open_ok(f, &o);
	e = begin(h, "e", 500, now);
	assert_true(e > g);
	assert_int_equal(stats(h).jobs, 3);         /* c, d, e */
	history_close(h);
}

/* Retention deletes only jobs ended long enough ago, and their runs, a
 * bounded step at a time if asked. */
static void test_retention(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .retention_days = 7 };
	struct history *h = open_ok(f, &o);
	int64_t now = T0 + 40 * DAY, id[3];
	int64_t ends[3] = { now - 10 * DAY, now - DAY, 0 };
	struct history_stats s;
	struct rows *rs;
	int done;

	for (int j = 0; j < 3; j++) {
		id[j] = begin(h, "job", 1 + j, T0 + j);
		for (int i = 0; i < 3 - (j == 1); i++) {
			struct history_quantum q = quantum(T0, i, 1 + i, 9,
							   1 + i, "0-8", 1);

			assert_int_equal(history_allot(h, id[j], &q), 0);
		}
		if (ends[j])
			assert_int_equal(history_job_end(h, id[j], ends[j],
							 NULL), 0);
	}
	free(query(h, NULL));
	assert_int_equal(stats(h).allotment_rows, 8);
	/* A step of 2 runs at a time: the job goes with its last run. */
	assert_int_equal(history_expire(h, now, 2, &done), 2);
	assert_false(done);
	assert_int_equal(stats(h).jobs, 3);
	assert_int_equal(stats(h).allotment_rows, 6);
	assert_int_equal(history_expire(h, now, 2, &done), 1 + 1);
	assert_true(done);
	assert_int_equal(history_expire(h, now, 0, &done), 0);
	assert_true(done);
	s = stats(h);
	assert_int_equal(s.jobs, 2);
	assert_int_equal(s.running_jobs, 1);
	assert_int_equal(s.allotment_rows, 5);
	rs = query(h, NULL);
	assert_int_equal(rs->job[0].id, id[1]);
	for (int r = 0; r < rs->nruns; r++)
		assert_int_not_equal(rs->run[r].job, id[0]);
	free(rs);
	history_close(h);

	/* Without retention nothing goes. */
	h = open_ok(f, NULL);
	assert_int_equal(history_expire(h, now + 1000 * DAY, 0, NULL), 0);
	assert_int_equal(stats(h).jobs, 2);
	history_close(h);
}

/* Many jobs: tracked, ended in a scattered order, left running across a
 * restart and taken back in reverse order; each keeps its own runs. */
static void test_many_jobs(void **state)
{
	enum { N = 200 };
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	int64_t id[N];
	int ended[N] = { 0 }, runs[N] = { 0 }, nended = 0;
	struct rows *rs;

	for (int j = 0; j < N; j++)
		id[j] = begin(h, "job", 1000 + j, T0);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < N; j++) {
			struct history_quantum q = quantum(
				T0, i, 1 + (i + j) % 2, 4, 1, "0", 1);

			assert_int_equal(history_allot(h, id[j], &q), 0);
		}
	for (int j = 0; j < N; j++) {
		int k = (j * 7) % N;        /* a scattered order */

		if (k % 3 != 0)
			continue;
		assert_int_equal(history_job_end(h, id[k], T0 + DAY, NULL), 0);
		ended[k] = 1;
		nended++;
	}
	assert_int_equal(stats(h).live_jobs, N - nended);
	history_close(h);

	h = open_ok(f, NULL);
	for (int j = N - 1; j >= 0; j--)
		assert_int_equal(history_job_reopen(h, id[j], 1000 + j),
				 ended[j] ? -1 : 0);
	for (int j = 0; j < N; j++) {
		struct history_quantum q = quantum(T0, 10, 3, 4, 3, "0-2", 1);

		assert_int_equal(history_allot(h, id[j], &q), ended[j] ? -1 : 0);
	}
	assert_int_equal(history_close_stale(h, T0 + DAY, 0), 0);
	rs = calloc(1, sizeof(*rs));
	assert_non_null(rs);
	assert_int_equal(history_query(h, NULL, NULL, keep_run, rs),
			 3 * N + N - nended);
	assert_int_equal(stats(h).jobs, N);
	assert_int_equal(stats(h).running_jobs, N - nended);
	for (int r = 0; r < rs->nruns; r++)
		runs[rs->run[r].job - id[0]]++;
	for (int j = 0; j < N; j++)
		assert_int_equal(runs[j], ended[j] ? 3 : 4);
	free(rs);
	history_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
		T(test_pause),
		T(test_away),
		T(test_usage_before_run),
		T(test_restart),
		T(test_retention),
		T(test_many_jobs),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
