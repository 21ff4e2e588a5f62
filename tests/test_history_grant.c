/*
 * test_history_grant.c - asteald's history in SQLite, grants (CPUs given
 * to a job between ticks, as it joined): written with their values, on
 * the base of the runs, after a flush a lock held back, and counted in
 * the next daemon's base; refused when bad, dropped and counted past a
 * full queue; expired with their jobs.  (Upgraded into:
 * test_history_schema; on a full disk: test_history_failure.)
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

/* The cpus of job's one grant, read with another connection, into buf. */
static void grant_cpus(struct fixture *f, int64_t job, char *buf, size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *s;

	buf[0] = '\0';
	assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY,
					 NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT cpus FROM grants"
					    " WHERE job = ?1", -1, &s, NULL),
			 SQLITE_OK);
	sqlite3_bind_int64(s, 1, job);
	if (sqlite3_step(s) == SQLITE_ROW)
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	sqlite3_close(db);
}

/* A grant is written with its values, its quantum on the base of the
 * runs (the job's first run starts at the next quantum), after a flush
 * that failed on another connection's lock exactly once, and its quantum
 * counts for the next daemon's base. */
static void test_grant(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .busy_timeout_ms = 5 };
	struct history *h = open_ok(f, &o);
	struct history_quantum q;
	int64_t a, b, base, c;
	char sql[160], cpus[32];
	sqlite3 *db;

	/* A first daemon's quanta 0..9, so that the next has a base. */
	a = begin(h, "a", 1, T0);
	for (int i = 0; i < 10; i++) {
		q = quantum(T0, i, 1, 2, 1, "0", HISTORY_SATISFIED);
		assert_int_equal(history_allot(h, a, &q), 0);
	}
	assert_int_equal(history_job_end(h, a, T0 + 10 * QNS, NULL), 0);
	history_close(h);
	h = open_ok(f, &o);
	base = stats(h).quantum_base;
	assert_int_equal(base, 10);
	/* b runs on CPU 0 from quantum 0; c joins after the tick of 3 and
	 * is granted the free CPUs 1-2, then allotted from quantum 4. */
	b = begin(h, "b", 2, T0 + 100 * QNS);
	c = begin(h, "c", 3, T0 + 103 * QNS);
	for (int i = 0; i < 4; i++) {
		q = quantum(T0 + 100 * QNS, i, 1, 3, 1, "0", HISTORY_SATISFIED);
		assert_int_equal(history_allot(h, b, &q), 0);
	}
	assert_int_equal(history_grant(h, c, 3, T0 + 103 * QNS + 5, 2, "1-2"), 0);
	q = quantum(T0 + 100 * QNS, 4, 2, 2, 2, "1-2", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, c, &q), 0);
	/* Queued: on disk only after a flush, which the lock holds back. */
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 0);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(history_flush(h), -1);
	assert_non_null(strstr(history_error(h), "locked"));
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 0);
	assert_int_equal(history_flush(h), 0);
	assert_int_equal(history_flush(h), 0);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 1);
	snprintf(sql, sizeof(sql), "SELECT quantum FROM grants WHERE job = %lld",
		 (long long)c);
	assert_int_equal(peek(f->path, sql), base + 3);
	snprintf(sql, sizeof(sql), "SELECT at_ns FROM grants WHERE job = %lld",
		 (long long)c);
	assert_int_equal(peek(f->path, sql), T0 + 103 * QNS + 5);
	snprintf(sql, sizeof(sql), "SELECT allotment FROM grants WHERE job ="
		 " %lld", (long long)c);
	assert_int_equal(peek(f->path, sql), 2);
	grant_cpus(f, c, cpus, sizeof(cpus));
	assert_string_equal(cpus, "1-2");
	/* The job's first run starts at the quantum after the grant's. */
	history_close(h);
	snprintf(sql, sizeof(sql), "SELECT min(first_quantum) FROM allotments"
		 " WHERE job = %lld", (long long)c);
	assert_int_equal(peek(f->path, sql), base + 4);
	/* A grant at the latest quantum, after every run, still puts the
	 * next daemon's quanta after it. */
	h = open_ok(f, &o);
	base = stats(h).quantum_base;
	c = begin(h, "d", 4, T0 + 200 * QNS);
	assert_int_equal(history_grant(h, c, 50, T0 + 250 * QNS, 1, "3"), 0);
	assert_int_equal(history_job_end(h, c, T0 + 250 * QNS + 9, NULL), 0);
	history_close(h);
	h = open_ok(f, &o);
	assert_int_equal(stats(h).quantum_base, base + 51);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 2);
}

/* Bad grants (an unknown or ended job, allotment < 1, NULL or bad cpus,
 * cpus that are not the allotment, a negative quantum or a bad time) are
 * refused with a message and write nothing; beyond max_queue grants are
 * dropped, counted. */
static void test_grant_bad(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .max_queue = 16 };
	struct history *h = open_ok(f, &o);
	int64_t a = begin(h, "a", 1, T0), gone = begin(h, "gone", 2, T0);
	int i;

	assert_int_equal(history_job_end(h, gone, T0 + 5, NULL), 0);
	assert_int_equal(history_grant(h, a + 100, 0, T0, 1, "0"), -1);
	assert_non_null(strstr(history_error(h), "not running here"));
	assert_int_equal(history_grant(h, gone, 0, T0, 1, "0"), -1);
	assert_non_null(strstr(history_error(h), "not running here"));
	assert_int_equal(history_grant(h, a, 0, T0, 0, ""), -1);
	assert_non_null(strstr(history_error(h), "allotment below 1"));
	assert_int_equal(history_grant(h, a, 0, T0, -2, "0"), -1);
	assert_non_null(strstr(history_error(h), "allotment below 1"));
	assert_int_equal(history_grant(h, a, 0, T0, 1, NULL), -1);
	assert_non_null(strstr(history_error(h), "NULL cpus"));
	assert_int_equal(history_grant(h, a, -1, T0, 1, "0"), -1);
	assert_non_null(strstr(history_error(h), "bad quantum"));
	assert_int_equal(history_grant(h, a, 0, 0, 1, "0"), -1);
	assert_non_null(strstr(history_error(h), "bad quantum or time"));
	assert_int_equal(history_grant(h, a, 0, T0, 1, "zero"), -1);
	assert_non_null(strstr(history_error(h), "cpus 'zero'"));
	assert_int_equal(history_grant(h, a, 0, T0, 1, "0-1"), -1);
	assert_non_null(strstr(history_error(h), "are 2 CPUs, not the"
			       " allotment 1"));
	assert_int_equal(history_grant(NULL, a, 0, T0, 1, "0"), -1);
	assert_int_equal(history_flush(h), 0);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 0);
	/* A full queue drops the grant and says so. */
	for (i = 0; i < 16; i++)
		assert_int_equal(history_grant(h, a, i, T0 + i, 1, "0"), 0);
	assert_int_equal(history_grant(h, a, i, T0 + i, 1, "0"), -1);
	assert_non_null(strstr(history_error(h), "queue full"));
	assert_int_equal(stats(h).dropped, 1);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 16);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants WHERE"
			      " job != (SELECT id FROM jobs WHERE name = 'a')"), 0);
}

/* Retention takes a job's grants with it (one with runs, one that left
 * before its first tick), and leaves a running job's. */
static void test_grant_expire(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .retention_days = 1 };
	struct history *h = open_ok(f, &o);
	struct history_quantum q;
	int64_t a, b, c;
	char sql[96];

	a = begin(h, "a", 1, T0);
	b = begin(h, "b", 2, T0);
	c = begin(h, "c", 3, T0);
	assert_int_equal(history_grant(h, a, 0, T0 + 1, 1, "0"), 0);
	assert_int_equal(history_grant(h, b, 0, T0 + 2, 1, "1"), 0);
	assert_int_equal(history_grant(h, c, 0, T0 + 3, 1, "2"), 0);
	assert_int_equal(history_job_end(h, b, T0 + 4, NULL), 0);
	for (int i = 1; i < 4; i++) {
		q = quantum(T0, i, 1, 3, 1, "0", HISTORY_SATISFIED);
		assert_int_equal(history_allot(h, a, &q), 0);
		q = quantum(T0, i, 1, 3, 1, "2", HISTORY_SATISFIED);
		assert_int_equal(history_allot(h, c, &q), 0);
	}
	assert_int_equal(history_job_end(h, a, T0 + 4 * QNS, NULL), 0);
	assert_int_equal(history_flush(h), 0);
	free(query(h, NULL));
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 3);
	assert_true(history_expire(h, T0 + 2 * DAY, 0, NULL) >= 2 + 1);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 1);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM grants WHERE job ="
		 " %lld", (long long)c);
	assert_int_equal(peek(f->path, sql), 1);
	assert_int_equal(stats(h).jobs, 1);
	history_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
		T(test_grant),
		T(test_grant_bad),
		T(test_grant_expire),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
