/*
 * test_history_flush.c - asteald's history in SQLite, when it writes:
 * flushes that write nothing when nothing changed (and one transaction
 * per tick when something did), open runs written periodically, a flush
 * that fails on a locked database and is retried without duplicate rows,
 * closed runs batched into a transaction committed once a second of
 * quanta, the quanta without a tick (a version 2 file given their table;
 * ranges merged, written in and out of a batch, expired), and a full
 * queue that drops closed runs and counts them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <sqlite3.h>

#define HISTUTIL_FIXTURE
#include "histutil.h"
#include "history.h"

/* Whether two stat results show the same size and modification time. */
static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* A flush with nothing to write writes nothing; a tick with changes in
 * several jobs takes one transaction; open runs go out every
 * flush_open_ms and a second connection (a crash's survivor) sees them. */
static void test_flush_writes(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .flush_open_ms = 1000 };
	struct history *h = open_ok(f, &o);
	int64_t id[3];
	struct history_stats s0, s1;
	struct stat w0, w1;
	char wal[160];
	int i;

	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	for (int j = 0; j < 3; j++)
		id[j] = begin(h, "job", 10 + j, T0);
	/* Quanta 0..9 unchanged, then a change in every job at 10. */
	for (i = 0; i <= 10; i++)
		for (int j = 0; j < 3; j++) {
			struct history_quantum q = quantum(
				T0, i, i < 10 ? 1 : 2, 4, 1, "0",
				HISTORY_SATISFIED);

			assert_int_equal(history_allot(h, id[j], &q), 0);
		}
	s0 = stats(h);
	assert_int_equal(s0.queued_runs, 3);
	assert_int_equal(s0.open_runs, 3);
	assert_int_equal(history_flush(h), 0);
	s1 = stats(h);
	assert_int_equal(s1.transactions, s0.transactions + 1);
	assert_int_equal(s1.allotment_rows, 3);
	assert_int_equal(s1.queued_runs, 0);
	/* Nothing queued, open runs not due: nothing happens at all. */
	assert_int_equal(stat(wal, &w0), 0);
	for (i = 11; i < 50; i++) {
		for (int j = 0; j < 3; j++) {
			struct history_quantum q = quantum(
				T0, i, 2, 4, 1, "0", HISTORY_SATISFIED);

			assert_int_equal(history_allot(h, id[j], &q), 0);
		}
		assert_int_equal(history_flush(h), 0);
	}
	assert_int_equal(history_flush(h), 0);
	s0 = stats(h);
	assert_int_equal(s0.transactions, s1.transactions);
	assert_int_equal(s0.changes, s1.changes);
	assert_int_equal(stat(wal, &w1), 0);
	assert_true(same_file(&w0, &w1));
	assert_int_equal(peek(f->path, "SELECT count(*) FROM allotments"
			      " WHERE first_quantum = 10"), 0);
	/* At 1 s of quantum time the open runs are written, once. */
	for (; i < 110; i++) {
		for (int j = 0; j < 3; j++) {
			struct history_quantum q = quantum(
				T0, i, 2, 4, 1, "0", HISTORY_SATISFIED);

			assert_int_equal(history_allot(h, id[j], &q), 0);
		}
		assert_int_equal(history_flush(h), 0);
	}
	s1 = stats(h);
	assert_int_equal(s1.transactions, s0.transactions + 1);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM allotments"
			      " WHERE first_quantum = 10"), 3);
	assert_int_equal(peek(f->path, "SELECT min(last_quantum) FROM"
			      " allotments WHERE first_quantum = 10"), 99);
	assert_int_equal(history_flush(h), 0);
	assert_int_equal(stats(h).transactions, s1.transactions);
	history_close(h);
}

/* A flush that finds the database locked fails, keeps everything, and
 * the next one writes it without duplicate rows. */
static void test_flush_locked(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .flush_open_ms = 100, .busy_timeout_ms = 5 };
	struct history *h = open_ok(f, &o);
	int64_t id = begin(h, "job", 1, T0);
	struct rows *rs;
	sqlite3 *db;
	int i;

	for (i = 0; i < 20; i++) {
		struct history_quantum q = quantum(T0, i, 1 + i / 10, 4,
						   1, "0", HISTORY_SATISFIED);

		assert_int_equal(history_allot(h, id, &q), 0);
	}
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(history_flush(h), -1);
	assert_non_null(strstr(history_error(h), "locked"));
	assert_int_equal(history_query(h, NULL, NULL, NULL, NULL), -1);
	assert_int_equal(stats(h).queued_runs, 1);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(history_flush(h), 0);
	for (; i < 40; i++) {
		struct history_quantum q = quantum(T0, i, 2, 4, 1, "0",
						   HISTORY_SATISFIED);

		assert_int_equal(history_allot(h, id, &q), 0);
		assert_int_equal(history_flush(h), 0);
	}
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 2);
	assert_int_equal(rs->run[0].last_quantum, 9);
	assert_int_equal(rs->run[1].first_quantum, 10);
	assert_int_equal(rs->run[1].last_quantum, 39);
	free(rs);
	history_close(h);
}

/* Closed runs are written a share per flush into a transaction kept open
 * and committed once a second of quanta: 300 quanta in which 3 jobs
 * change every quantum make about 4 commits, not 300; another connection
 * sees the runs up to a second late, a query and a job's end see and
 * commit everything, and nothing is lost. */
static void test_flush_batch(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .flush_open_ms = 100000 };
	struct history *h = open_ok(f, &o);
	int64_t id[3];
	int64_t t0, seen;
	struct rows *rs;
	int i;

	for (int j = 0; j < 3; j++)
		id[j] = begin(h, "job", 20 + j, T0);
	t0 = stats(h).transactions;
	for (i = 0; i < 300; i++) {
		for (int j = 0; j < 3; j++) {
			struct history_quantum q = quantum(T0, i, 1 + i % 2, 4, 1,
							   "0", HISTORY_SATISFIED);

			assert_int_equal(history_allot(h, id[j], &q), 0);
		}
		assert_int_equal(history_flush(h), 0);
		/* On disk (another connection): at most a second behind. */
		seen = peek(f->path, "SELECT count(*) FROM allotments");
		assert_true(seen <= 3 * i);
		assert_true(seen >= 3 * (i - 100 - 1));
	}
	assert_true(stats(h).transactions - t0 <= 5);
	assert_true(stats(h).transactions - t0 >= 2);
	/* A job's end commits the batch with it. */
	assert_int_equal(history_job_end(h, id[0], T0 + 300 * QNS, NULL), 0);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM allotments"
			      " WHERE job = (SELECT min(id) FROM jobs)"), 300);
	assert_int_equal(history_advance(h, 299, T0 + 300 * QNS), 0);
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 900);
	free(rs);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM allotments"), 900);
}

/* A version 2 database gets the table of quanta without a tick, and the
 * ranges given to history_skipped are written (ranges that follow each
 * other merge), and expire with the retention. */
static void test_skipped(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .retention_days = 1 };
	struct history *h = open_ok(f, NULL);
	sqlite3 *db;

	history_close(h);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE skipped; DROP TABLE grants;"
				      " DROP TABLE away;"
				      " ALTER TABLE jobs DROP COLUMN sleep_ns;"
				      " ALTER TABLE jobs DROP COLUMN preempted_ns;"
				      " ALTER TABLE jobs DROP COLUMN time_limit_ns;"
				      " ALTER TABLE jobs DROP COLUMN timed_out;"
				      " ALTER TABLE allotments DROP COLUMN sleep_ns;"
				      " ALTER TABLE allotments DROP COLUMN"
				      " preempted_ns; ALTER TABLE allotments DROP"
				      " COLUMN cpu_quanta; PRAGMA user_version = 2",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	h = open_ok(f, &o);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	assert_int_equal(history_skipped(h, 10, 11, T0 + 10 * QNS, T0 + 12 * QNS), 0);
	assert_int_equal(history_skipped(h, 12, 12, T0 + 12 * QNS, T0 + 13 * QNS), 0);
	assert_int_equal(history_skipped(h, 20, 25, T0 + 20 * QNS, T0 + 26 * QNS), 0);
	assert_int_equal(history_skipped(h, 5, 4, T0, T0), -1);
	assert_int_equal(history_skipped(h, 5, 6, T0, T0 - 1), -1);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM skipped"), 0);
	assert_int_equal(history_flush(h), 0);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM skipped"), 2);
	assert_int_equal(peek(f->path, "SELECT last_quantum FROM skipped"
			      " WHERE first_quantum = 10"), 12);
	assert_int_equal(peek(f->path, "SELECT sum(last_quantum - first_quantum"
			      " + 1) FROM skipped"), 9);
	/* Two days later the retention takes them. */
	assert_true(history_expire(h, T0 + 2 * 86400LL * 1000000000LL, 0, NULL) >= 2);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM skipped"), 0);
	history_close(h);
}

/* Quanta without a tick that come while a batch is open, after others
 * were written into it, are written too (and one that follows a written
 * range does not change it behind the batch's back). */
static void test_skipped_batch(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .flush_open_ms = 100000 };
	struct history *h = open_ok(f, &o);

	assert_int_equal(history_skipped(h, 20, 20, T0 + 20 * QNS, T0 + 21 * QNS), 0);
	assert_int_equal(history_advance(h, 29, T0 + 30 * QNS), 0);
	assert_int_equal(history_flush(h), 0);          /* commits at once */
	assert_int_equal(peek(f->path, "SELECT count(*) FROM skipped"), 1);
	assert_int_equal(history_skipped(h, 31, 32, T0 + 31 * QNS, T0 + 33 * QNS), 0);
	assert_int_equal(history_advance(h, 32, T0 + 33 * QNS), 0);
	assert_int_equal(history_flush(h), 0);          /* into the batch */
	assert_int_equal(history_skipped(h, 33, 35, T0 + 33 * QNS, T0 + 36 * QNS), 0);
	assert_int_equal(history_skipped(h, 38, 38, T0 + 38 * QNS, T0 + 39 * QNS), 0);
	assert_int_equal(history_advance(h, 39, T0 + 40 * QNS), 0);
	assert_int_equal(history_flush(h), 0);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM skipped"), 1);
	/* A second of quanta later the batch is committed, all of it. */
	assert_int_equal(history_advance(h, 200, T0 + 201 * QNS), 0);
	assert_int_equal(history_flush(h), 0);
	assert_int_equal(peek(f->path, "SELECT sum(last_quantum - first_quantum"
			      " + 1) FROM skipped"), 7);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM skipped"
			      " WHERE first_quantum = 31 AND last_quantum = 32"), 1);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM skipped"), 4);
}

/* A full queue drops closed runs, says so, and counts them. */
static void test_queue_full(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .max_queue = 4 };
	struct history *h = open_ok(f, &o);
	int64_t id = begin(h, "job", 1, T0);
	int fails = 0;
	struct rows *rs;

	for (int i = 0; i < 10; i++) {
		struct history_quantum q = quantum(T0, i, 1 + i % 2, 4, 1, "0",
						   1);

		fails += history_allot(h, id, &q) < 0;
	}
	/* Runs 0..8 closed: 4 queued, 5 dropped; run 9 is open. */
	assert_int_equal(fails, 5);
	assert_non_null(strstr(history_error(h), "queue full"));
	assert_int_equal(stats(h).dropped, 5);
	assert_int_equal(stats(h).queued_runs, 4);
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 5);
	assert_int_equal(rs->run[4].first_quantum, 9);
	free(rs);
	history_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
		T(test_flush_writes),
		T(test_flush_locked),
		T(test_flush_batch),
		T(test_skipped),
		T(test_skipped_batch),
		T(test_queue_full),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
