/*
 * test_history_query.c - asteald's history in SQLite, read back: pages of
 * runs after a cursor (disjoint, in order, all of them, also while a job
 * already paged past grows), filters by job and by time, a callback that
 * stops a query, and queries that may look at a few rows at a time,
 * taken up where they stopped, selecting what one unbounded query does;
 * a window that reads neither the jobs ended before it nor a job's runs
 * before it;
 * a reader's connection beside the writer, its snapshots, and what
 * history_commit makes it see.
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

/* Fill a history with 3 jobs of 40 one-quantum runs each (every quantum
 * changes desire); ids in id[]. */
static struct history *fill(struct fixture *f, int64_t id[3])
{
	struct history *h = open_ok(f, NULL);

	for (int j = 0; j < 3; j++)
		id[j] = begin(h, "job", 1 + j, T0);
	for (int i = 0; i < 40; i++)
		for (int j = 0; j < 3; j++) {
			struct history_quantum q = quantum(
				T0 + j * 5 * QNS, i, 1 + i % 2, 4, 1, "0",
				HISTORY_DEPRIVED);

			assert_int_equal(history_allot(h, id[j], &q), 0);
		}
	assert_int_equal(history_flush(h), 0);
	return h;
}

/* The filter f moved on past the last run of page. */
static void after_last(struct history_filter *f, const struct rows *page)
{
	const struct history_run *r = &page->run[page->nruns - 1];

	f->after_job = r->job;
	f->after_start_ns = r->start_ns;
	f->after_run = r->id;
}

/* Pages of 7 runs, each after the last of the one before, are disjoint,
 * in order, and cover all 120. */
static void test_pagination(void **state)
{
	struct fixture *f = *state;
	int64_t id[3];
	struct history *h = fill(f, id);
	struct rows *all = query(h, NULL), *page;
	struct history_filter flt = { .limit = 7 };
	int seen = 0;

	assert_int_equal(all->nruns, 120);
	for (;;) {
		page = query(h, &flt);
		assert_true(page->nruns <= 7);
		for (int r = 0; r < page->nruns; r++, seen++) {
			assert_true(seen < 120);
			assert_int_equal(page->run[r].id, all->run[seen].id);
			assert_int_equal(page->run[r].job, all->run[seen].job);
			assert_int_equal(page->run[r].first_quantum,
					 all->run[seen].first_quantum);
		}
		if (page->nruns == 0) {
			free(page);
			break;
		}
		after_last(&flt, page);
		free(page);
	}
	assert_int_equal(seen, 120);
	/* Ordered by job, then time: each (job, quantum) once. */
	for (int r = 1; r < 120; r++)
		assert_true(all->run[r].job > all->run[r - 1].job ||
			    (all->run[r].job == all->run[r - 1].job &&
			     all->run[r].first_quantum ==
			     all->run[r - 1].first_quantum + 1));
	/* Jobs page by id: after the second job comes the third alone. */
	page = query(h, &(struct history_filter){ .limit = 2,
						  .after_job = id[1] });
	assert_int_equal(page->njobs, 1);
	assert_int_equal(page->job[0].id, id[2]);
	free(page);
	free(all);
	history_close(h);
}

/* Runs added to a job already paged past, between two pages (a running
 * job's new allotments), shift nothing: every run there was when paging
 * began comes exactly once, and nothing twice. */
static void test_pagination_growing(void **state)
{
	struct fixture *f = *state;
	int64_t id[3];
	struct history *h = fill(f, id);
	struct rows *all = query(h, NULL), *page;
	struct history_filter flt = { .limit = 7 };
	int64_t seen_ids[400];
	int seen = 0, orig = 0, q = 40, ahead = 0, behind = 0;

	for (;;) {
		page = query(h, &flt);
		for (int r = 0; r < page->nruns; r++) {
			for (int k = 0; k < seen; k++)
				assert_true(seen_ids[k] != page->run[r].id);
			assert_true(seen < 400);
			seen_ids[seen++] = page->run[r].id;
			if (orig < 120 && page->run[r].id == all->run[orig].id)
				orig++;
		}
		if (page->nruns == 0) {
			free(page);
			break;
		}
		after_last(&flt, page);
		free(page);
		/* For the first fifteen pages, the first job (paged past
		 * after six or seven) and the last both change desire: a run
		 * more each, seen if the job is not behind the cursor. */
		for (int k = 0; k < 3 && q < 55; k += 2) {
			struct history_quantum hq = quantum(
				T0 + k * 5 * QNS, q, 1 + q % 2, 4, 1, "0",
				HISTORY_DEPRIVED);

			assert_int_equal(history_allot(h, id[k], &hq), 0);
			if (id[k] >= flt.after_job)
				ahead++;
			else
				behind++;
		}
		q++;
		assert_int_equal(history_flush(h), 0);
	}
	assert_int_equal(orig, 120);     /* all the first ones, in order */
	assert_true(behind > 0);
	assert_int_equal(seen, 120 + ahead);    /* and the new ones ahead */
	free(all);
	history_close(h);
}

/* Count stopping: a callback that returns nonzero ends the query. */
static int stop_at_3(const struct history_run *r, void *arg)
{
	int *n = arg;

	(void)r;
	return ++*n == 3;
}

/* Filters by job and by time select exactly the matching rows. */
static void test_filters(void **state)
{
	struct fixture *f = *state;
	int64_t id[3], since = T0 + 12 * QNS, until = T0 + 20 * QNS;
	struct history *h = fill(f, id);
	int64_t pick[2];
	struct rows *all = query(h, NULL), *rs;
	struct history_filter flt;
	int want = 0, n = 0;

	pick[0] = id[2];
	pick[1] = id[0];
	rs = query(h, &(struct history_filter){ .jobs = pick, .njobs = 2 });
	assert_int_equal(rs->njobs, 2);
	assert_int_equal(rs->nruns, 80);
	for (int r = 0; r < rs->nruns; r++)
		assert_int_not_equal(rs->run[r].job, id[1]);
	free(rs);

	for (int r = 0; r < all->nruns; r++)
		want += all->run[r].end_ns >= since &&
			all->run[r].start_ns <= until;
	flt = (struct history_filter){ .since_ns = since, .until_ns = until };
	rs = query(h, &flt);
	assert_int_equal(rs->nruns, want);
	assert_true(want > 0 && want < 120);
	for (int r = 0; r < rs->nruns; r++)
		assert_true(rs->run[r].end_ns >= since &&
			    rs->run[r].start_ns <= until);
	assert_int_equal(rs->njobs, 3);
	free(rs);
	/* Both filters; and jobs that started after the window are out. */
	flt.jobs = &id[1];
	flt.njobs = 1;
	rs = query(h, &flt);
	assert_true(rs->nruns > 0 && rs->nruns < want);
	assert_int_equal(rs->njobs, 1);
	free(rs);
	rs = query(h, &(struct history_filter){ .until_ns = T0 - 1 });
	assert_int_equal(rs->njobs, 0);
	assert_int_equal(rs->nruns, 0);
	free(rs);
	assert_int_equal(history_query(h, NULL, NULL, stop_at_3, &n), 3);
	assert_int_equal(n, 3);
	free(all);
	history_close(h);
}

/* Query f a max_scan at a time, going on from where each stopped, into
 * one rows struct: the jobs (runs == 0) or the runs; *pages counts the
 * calls.  Each call reports no more than it may look at, and each stops
 * at a place after the one it started from. */
static struct rows *query_bounded(struct history *h,
				  const struct history_filter *f, int64_t max,
				  int runs, int *pages)
{
	struct rows *rs = calloc(1, sizeof(*rs));
	struct history_filter g = *f;
	struct history_place at;
	int before, n;

	assert_non_null(rs);
	g.max_scan = max;
	g.stopped_at = &at;
	*pages = 0;
	do {
		before = runs ? rs->nruns : rs->njobs;
		n = history_query(h, &g, runs ? NULL : keep_job,
				  runs ? keep_run : NULL, rs);
		assert_int_equal(n, (runs ? rs->nruns : rs->njobs) - before);
		assert_true(n <= max);
		(*pages)++;
		assert_true(*pages < 1000);
		if (!at.stopped)
			break;
		assert_true(at.job > g.after_job ||
			    (runs && at.job == g.after_job &&
			     (at.start_ns > g.after_start_ns ||
			      (at.start_ns == g.after_start_ns &&
			       at.run > g.after_run))));
		g.after_job = at.job;
		g.after_start_ns = at.start_ns;
		g.after_run = at.run;
	} while (1);
	return rs;
}

/* A query that may look at a few rows at a time, taken up where it
 * stopped, selects exactly what one unbounded query does, for every kind
 * of filter; one that selects nothing still stops after a few rows. */
static void test_bounded_scan(void **state)
{
	struct fixture *f = *state;
	int64_t id[3], pick[3];
	struct history *h = fill(f, id);
	struct history_filter flts[6];
	int pages;

	pick[0] = id[2];
	pick[1] = 0;                    /* no such job */
	pick[2] = id[0];
	flts[0] = (struct history_filter){ 0 };
	flts[1] = (struct history_filter){ .since_ns = T0 + 12 * QNS,
					   .until_ns = T0 + 20 * QNS };
	flts[2] = (struct history_filter){ .jobs = pick, .njobs = 3 };
	flts[3] = (struct history_filter){ .by_uid = 1, .uid = 1000 };
	flts[4] = (struct history_filter){ .by_uid = 1, .uid = 1001 };
	flts[5] = (struct history_filter){ .since_ns = T0 + 1000 * QNS };
	for (size_t i = 0; i < sizeof(flts) / sizeof(flts[0]); i++)
		for (int64_t max = 1; max <= 13; max += 6)
			for (int runs = 0; runs < 2; runs++) {
				struct rows *all = query(h, &flts[i]);
				struct rows *rs = query_bounded(h, &flts[i],
								max, runs,
								&pages);
				int n = runs ? all->nruns : all->njobs;

				assert_int_equal(runs ? rs->nruns : rs->njobs,
						 n);
				for (int r = 0; r < n; r++)
					if (runs)
						assert_int_equal(rs->run[r].id,
								 all->run[r].id);
					else
						assert_int_equal(rs->job[r].id,
								 all->job[r].id);
				/* A window past every run: the jobs (all
				 * running) selected, their runs before it
				 * passed over with a seek each, not read; a
				 * user's jobs passed over with a seek each. */
				if (i == 5 && runs)
					assert_true(pages <= 8);
				if (i == 4)
					assert_true(pages <= 4);
				free(all);
				free(rs);
			}
	history_close(h);
}

/* A window reads only what it selects: 300 jobs ended before it cost
 * nothing, a long job's runs before it one seek; bounded to 4 rows a
 * call, the query takes a few calls where reading every row took one per
 * 4 rows, and selects what one unbounded query does, which is every job
 * and run that overlaps the window. */
static void test_window_index(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	int64_t t1 = T0 + 1000 * QNS, since = t1 + 90 * QNS, id, longj, late;
	struct history_filter w = { .since_ns = since };
	struct rows *all;
	int pages, want_runs = 0;

	for (int k = 0; k < 300; k++) {
		struct history_quantum q = quantum(T0, k, 1, 2, 1, "0",
						   HISTORY_SATISFIED);

		id = begin(h, "old", 100 + k, q.start_ns);
		assert_int_equal(history_allot(h, id, &q), 0);
		assert_int_equal(history_job_end(h, id, q.end_ns, NULL), 0);
	}
	/* the long job changes desire every quantum from t1 on; the late
	 * one starts in the window */
	longj = begin(h, "long", 1, t1);
	late = begin(h, "late", 2, since + 5 * QNS);
	for (int i = 0; i < 100; i++) {
		struct history_quantum q = quantum(t1, i, 1 + i % 2, 2, 1, "0",
						   HISTORY_DEPRIVED);

		assert_int_equal(history_allot(h, longj, &q), 0);
		want_runs += q.end_ns >= since;
		if (q.start_ns >= since + 5 * QNS) {
			q.desire = 2;
			assert_int_equal(history_allot(h, late, &q), 0);
		}
	}
	assert_int_equal(history_flush(h), 0);
	all = query(h, &w);
	assert_int_equal(all->njobs, 2);
	assert_int_equal(all->job[0].id, longj);
	assert_int_equal(all->job[1].id, late);
	assert_int_equal(all->nruns, want_runs + 1);
	for (int r = 0; r < all->nruns; r++)
		assert_true(all->run[r].end_ns >= since);
	for (int runs = 0; runs < 2; runs++) {
		struct rows *rs = query_bounded(h, &w, 4, runs, &pages);

		assert_int_equal(runs ? rs->nruns : rs->njobs,
				 runs ? all->nruns : all->njobs);
		for (int r = 0; r < (runs ? rs->nruns : rs->njobs); r++)
			assert_int_equal(runs ? rs->run[r].id : rs->job[r].id,
					 runs ? all->run[r].id : all->job[r].id);
		assert_true(pages <= (runs ? all->nruns : all->njobs) / 2 + 3);
		free(rs);
	}
	/* a reader beside the writer (asteald's thread) finds the same */
	{
		char why[256] = "";
		struct history *r = history_open_reader(f->path, why, sizeof(why));
		struct rows *rs;

		if (r == NULL)
			fail_msg("history_open_reader: %s", why);
		rs = query(r, &w);
		assert_int_equal(rs->njobs, all->njobs);
		assert_int_equal(rs->nruns, all->nruns);
		free(rs);
		history_close(r);
	}
	free(all);
	/* a window after every job's end selects nothing, at once */
	assert_int_equal(history_job_end(h, longj, since + QNS, NULL), 0);
	assert_int_equal(history_job_end(h, late, since + 20 * QNS, NULL), 0);
	w.since_ns = since + 30 * QNS;
	for (int runs = 0; runs < 2; runs++) {
		struct rows *rs = query_bounded(h, &w, 1, runs, &pages);

		assert_int_equal(rs->nruns + rs->njobs, 0);
		assert_int_equal(pages, 1);
		free(rs);
	}
	history_close(h);
}

/* The runs a query of h reports. */
static int runs_of(struct history *h)
{
	struct rows *rs = query(h, NULL);
	int n = rs->nruns;

	free(rs);
	return n;
}

/* Another process (the sqlite3 shell) opens path read-write, reads, and
 * closes: were it the file's last connection (no lock of this process's
 * on it), it would checkpoint the log and delete it under the writer;
 * beside a writer, the log stays. */
static void third_comes_and_goes(const char *path)
{
	char cmd[300], wal[160];

	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'SELECT count(*) FROM jobs'"
		 " >/dev/null", path);
	assert_int_equal(system(cmd), 0);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (access(wal, F_OK) < 0)
		fail_msg("%s is gone: the writer's locks were dropped", wal);
}

/* A reader's connection beside the writer (history_open_reader, as
 * asteald's reader thread has): it sees what the writer committed, all of
 * it once history_commit has written what was pending, and within a
 * snapshot (history_read_begin) one state however the writer goes on;
 * on a writer's handle the snapshot is a no-op, on a reader's the commit. */
static void test_reader(void **state)
{
	struct fixture *f = *state;
	int64_t id[3];
	struct history *h = fill(f, id), *r;
	char why[256] = "";
	int n0, n1, q = 40;

	r = history_open_reader(f->path, why, sizeof(why));
	if (r == NULL)
		fail_msg("history_open_reader: %s", why);
	/* Opening it left the writer's locks alone (closing any descriptor
	 * of the file drops every POSIX lock the process holds on it): a
	 * third connection that comes and goes finds the writer there, and
	 * leaves its log where it is. */
	third_comes_and_goes(f->path);
	assert_int_equal(history_commit(h), 0);
	n0 = runs_of(r);
	assert_int_equal(n0, runs_of(h));       /* open runs included */
	/* Runs closed and queued: not on disk yet, then committed. */
	for (; q < 45; q++) {
		struct history_quantum hq = quantum(T0, q, 1 + q % 2, 4, 1, "0",
						    HISTORY_DEPRIVED);

		assert_int_equal(history_allot(h, id[0], &hq), 0);
	}
	assert_int_equal(runs_of(r), n0);
	assert_int_equal(history_commit(h), 0);
	n1 = runs_of(r);
	assert_int_equal(n1, n0 + 5);
	assert_int_equal(n1, runs_of(h));
	/* A snapshot holds one state across queries. */
	assert_int_equal(history_read_begin(r), 0);
	assert_int_equal(history_read_begin(r), 0);     /* already */
	assert_int_equal(runs_of(r), n1);
	for (; q < 48; q++) {
		struct history_quantum hq = quantum(T0, q, 1 + q % 2, 4, 1, "0",
						    HISTORY_DEPRIVED);

		assert_int_equal(history_allot(h, id[0], &hq), 0);
	}
	assert_int_equal(history_commit(h), 0);
	assert_int_equal(runs_of(r), n1);
	history_read_end(r);
	history_read_end(r);                            /* none: nothing */
	assert_int_equal(runs_of(r), n1 + 3);
	/* The writer's snapshot is a no-op; the reader has nothing to
	 * commit. */
	assert_int_equal(history_read_begin(h), 0);
	assert_int_equal(runs_of(h), n1 + 3);
	history_read_end(h);
	assert_int_equal(history_commit(r), 0);
	/* No path, no reader. */
	assert_null(history_open_reader(NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "no database path"));
	history_close(r);
	history_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
		T(test_pagination),
		T(test_pagination_growing),
		T(test_filters),
		T(test_bounded_scan),
		T(test_window_index),
		T(test_reader),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
