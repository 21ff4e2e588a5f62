/*
 * test_history.c - asteald's history in SQLite: a new database's schema
 * version and WAL mode, a job's round trip, runs of unchanged quanta as
 * one row, a scripted sequence of changes, storage that does not grow with
 * time, flushes that write nothing when nothing changed (and one
 * transaction per tick when something did), open runs written
 * periodically, a flush that fails on a locked database and is retried,
 * history across restarts with ids never reused, reclaiming and closing
 * stale jobs, a newer or foreign database refused, retention, pagination,
 * filters, many jobs, a full queue, bad arguments; job totals that are
 * their runs' sums and quanta that go on after a daemon killed at any
 * point; a damaged file moved aside; a full disk, which degrades the
 * history without refusing jobs, until it catches up; and grants (CPUs
 * given as a job joined): written with their values, refused when bad,
 * upgraded into, expired with their jobs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "histutil.h"
#include "history.h"
#include "testutil.h"

/* A usage array (enum history_use): work, steal, mug, sleep, preempted,
 * allotted. */
#define USE(w, s, m, sl, p, a) ((const int64_t[HISTORY_NUSE]){ w, s, m, sl, p, a })
#define T0 1700000000000000000LL        /* a start time, ns */
#define QNS 10000000LL                  /* quantum length, 10 ms */
#define DAY (86400LL * 1000000000LL)
#define MAXROWS 4096

/* A temporary folder and the database path in it. */
struct fixture {
	char dir[64];
	char path[128];
};

/* Make a fresh temporary folder for one test. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/asteal-hist-XXXXXX");
	if (mkdtemp(f->dir) == NULL) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/history.db", f->dir);
	*state = f;
	return 0;
}

/* Remove the database files and the folder. */
static int teardown(void **state)
{
	struct fixture *f = *state;
	char p[160];

	unlink(f->path);
	snprintf(p, sizeof(p), "%s-wal", f->path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", f->path);
	unlink(p);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Open the fixture's database with these options, asserting success. */
static struct history *open_ok(struct fixture *f, const struct history_opts *o)
{
	char why[256] = "";
	struct history *h = history_open(f->path, o, why, sizeof(why));

	if (h == NULL)
		fail_msg("history_open: %s", why);
	return h;
}

/* Begin a job named name with pid, started at start_ns. */
static int64_t begin(struct history *h, const char *name, int64_t pid,
		     int64_t start_ns)
{
	struct history_job j = {
		.name = name, .uid = 1000, .pid = pid,
		.command = "fib 30", .start_ns = start_ns, .workers = 4,
	};
	int64_t id = history_job_begin(h, &j);

	assert_true(id > 0);
	return id;
}

/* Quantum number qn of a job starting at base_ns, usage 1/2/3 ms (work,
 * steal, mug), 0.5/0.25 ms (sleep, preempted), 4 ms allotted. */
static struct history_quantum quantum(int64_t base_ns, int64_t qn, int d,
				      int p, int a, const char *cpus, int cls)
{
	struct history_quantum q = {
		.quantum = qn, .start_ns = base_ns + qn * QNS,
		.end_ns = base_ns + (qn + 1) * QNS,
		.desire = d, .availability = p, .allotment = a, .cpus = cpus,
		.work_ns = 1000000, .steal_ns = 2000000, .mug_ns = 3000000,
		.cls = cls, .allotted_ns = 4000000, .sleep_ns = 500000,
		.preempted_ns = 250000,
	};

	return q;
}

/* Runs and jobs collected by a query. */
struct rows {
	int nruns, njobs;
	struct history_run run[MAXROWS];
	char cpus[MAXROWS][32];
	struct history_job_info job[64];
	char name[64][32];
};

/* Keep a run (copying its cpus). */
static int keep_run(const struct history_run *r, void *arg)
{
	struct rows *rs = arg;

	assert_true(rs->nruns < MAXROWS);
	rs->run[rs->nruns] = *r;
	snprintf(rs->cpus[rs->nruns], sizeof(rs->cpus[0]), "%s", r->cpus);
	rs->run[rs->nruns].cpus = rs->cpus[rs->nruns];
	rs->nruns++;
	return 0;
}

/* Keep a job (copying its name; the command is checked in place). */
static int keep_job(const struct history_job_info *j, void *arg)
{
	struct rows *rs = arg;

	assert_true(rs->njobs < 64);
	assert_string_equal(j->command, "fib 30");
	rs->job[rs->njobs] = *j;
	snprintf(rs->name[rs->njobs], sizeof(rs->name[0]), "%s", j->name);
	rs->job[rs->njobs].name = rs->name[rs->njobs];
	rs->job[rs->njobs].command = NULL;
	rs->njobs++;
	return 0;
}

/* Query with filter f into a fresh rows struct (caller frees). */
static struct rows *query(struct history *h, const struct history_filter *f)
{
	struct rows *rs = calloc(1, sizeof(*rs));
	int n;

	assert_non_null(rs);
	n = history_query(h, f, keep_job, keep_run, rs);
	if (n < 0)
		fail_msg("history_query: %s", history_error(h));
	assert_int_equal(n, rs->njobs + rs->nruns);
	return rs;
}

/* The history's sizes, asserting success. */
static struct history_stats stats(struct history *h)
{
	struct history_stats s;

	assert_int_equal(history_stats(h, &s), 0);
	return s;
}

/* Read an integer from the database with a separate connection. */
static int64_t peek(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v = -1;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY,
					 NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

/* Open the fixture's database again: it must still hold that many jobs
 * and be at this schema version. */
static void reopen_unchanged(struct fixture *f, int64_t jobs)
{
	struct history *h = open_ok(f, NULL);

	assert_int_equal(stats(h).jobs, jobs);
	history_close(h);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
}

/* A new database gets this schema version, WAL mode and its four
 * tables. */
static void test_create(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	sqlite3 *db;
	sqlite3_stmt *s;

	assert_int_equal(peek(f->path, "PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM sqlite_master"
			      " WHERE type = 'table' AND name IN ('jobs',"
			      " 'allotments', 'skipped', 'grants')"), 4);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 0), "wal");
	sqlite3_finalize(s);
	sqlite3_close(db);
	history_close(h);
	/* Opening it again accepts the schema as it is. */
	reopen_unchanged(f, 0);
}

/* A job's fields, end, exit status and totals come back from a query. */
static void test_job_round_trip(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	struct history_quantum q;
	struct rows *rs;
	int64_t a, b;
	int st = 3;

	a = begin(h, "fib", 4242, T0);
	b = begin(h, "sort", 4343, T0 + 5);
	assert_true(b > a);
	q = quantum(T0, 0, 1, 4, 1, "0", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, a, &q), 0);
	assert_int_equal(history_job_end(h, a, T0 + 99, &st), 0);
	/* Ending twice, or allotting after the end, is refused. */
	assert_int_equal(history_job_end(h, a, T0 + 99, &st), -1);
	assert_int_equal(history_allot(h, a, &q), -1);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 2);
	assert_int_equal(rs->job[0].id, a);
	assert_string_equal(rs->job[0].name, "fib");
	assert_int_equal(rs->job[0].uid, 1000);
	assert_int_equal(rs->job[0].pid, 4242);
	assert_int_equal(rs->job[0].start_ns, T0);
	assert_int_equal(rs->job[0].end_ns, T0 + 99);
	assert_true(rs->job[0].has_exit);
	assert_int_equal(rs->job[0].exit_status, 3);
	/* Its totals are its runs' sums. */
	assert_int_equal(rs->job[0].work_ns, 1000000);
	assert_int_equal(rs->job[0].steal_ns, 2000000);
	assert_int_equal(rs->job[0].mug_ns, 3000000);
	assert_int_equal(rs->job[0].workers, 4);
	assert_int_equal(rs->job[0].allotted_ns, 4000000);     /* its one run */
	assert_int_equal(rs->job[0].sleep_ns, 500000);
	assert_int_equal(rs->job[0].preempted_ns, 250000);
	assert_int_equal(rs->job[1].id, b);
	assert_int_equal(rs->job[1].end_ns, 0);
	assert_false(rs->job[1].has_exit);
	assert_int_equal(rs->nruns, 1);
	assert_int_equal(rs->run[0].job, a);
	assert_string_equal(rs->run[0].cpus, "0");
	assert_int_equal(rs->run[0].allotted_ns, 4000000);
	assert_int_equal(rs->run[0].sleep_ns, 500000);
	assert_int_equal(rs->run[0].preempted_ns, 250000);
	free(rs);
	/* A worker count learnt later replaces the one begun with. */
	assert_int_equal(history_job_workers(h, b, 16), 0);
	assert_int_equal(history_job_workers(h, b, -1), -1);
	/* An exit status set before the end survives an end without one. */
	assert_int_equal(history_job_set_exit(h, b, 9), 0);
	assert_int_equal(history_job_end(h, b, T0 + 100, NULL), 0);
	rs = query(h, &(struct history_filter){ .jobs = &b, .njobs = 1 });
	assert_int_equal(rs->njobs, 1);
	assert_true(rs->job[0].has_exit);
	assert_int_equal(rs->job[0].exit_status, 9);
	assert_int_equal(rs->job[0].workers, 16);
	assert_int_equal(rs->job[0].allotted_ns, 0);           /* no runs */
	free(rs);
	history_close(h);
}

/* A version 1 file (no worker counts, no allotted time) is upgraded in
 * place: its rows stay, the new columns read 0, and new rows fill them. */
static void test_upgrade_v1(void **state)
{
	struct fixture *f = *state;
	struct history_quantum q;
	struct history *h;
	struct rows *rs;
	sqlite3 *db;
	int64_t b;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
	    "PRAGMA application_id = 1095980104; PRAGMA user_version = 1;"
	    "CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
	    " name TEXT NOT NULL, uid INTEGER NOT NULL, pid INTEGER NOT NULL,"
	    " command TEXT NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER,"
	    " exit_status INTEGER, work_ns INTEGER NOT NULL DEFAULT 0,"
	    " steal_ns INTEGER NOT NULL DEFAULT 0,"
	    " mug_ns INTEGER NOT NULL DEFAULT 0);"
	    "CREATE INDEX jobs_by_end ON jobs(end_ns);"
	    "CREATE TABLE allotments (id INTEGER PRIMARY KEY,"
	    " job INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
	    " first_quantum INTEGER NOT NULL, last_quantum INTEGER NOT NULL,"
	    " start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,"
	    " desire INTEGER NOT NULL, availability INTEGER NOT NULL,"
	    " allotment INTEGER NOT NULL, cpus TEXT NOT NULL,"
	    " work_ns INTEGER NOT NULL, steal_ns INTEGER NOT NULL,"
	    " mug_ns INTEGER NOT NULL, class INTEGER NOT NULL);"
	    "CREATE INDEX allotments_by_job ON allotments(job, start_ns);"
	    "CREATE INDEX allotments_by_end ON allotments(end_ns);"
	    "INSERT INTO jobs(name, uid, pid, command, start_ns, end_ns,"
	    " work_ns) VALUES('old', 1000, 77, 'fib 30', 1000, 2000, 5);"
	    "INSERT INTO allotments(job, first_quantum, last_quantum, start_ns,"
	    " end_ns, desire, availability, allotment, cpus, work_ns,"
	    " steal_ns, mug_ns, class) VALUES(1, 0, 9, 1000, 2000, 2, 2, 2,"
	    " '0-1', 5, 0, 0, 1);", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	h = open_ok(f, NULL);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM skipped"), 0);
	/* The index no query used is gone, the one by job stays. */
	assert_int_equal(peek(f->path, "SELECT count(*) FROM sqlite_master"
			      " WHERE name = 'allotments_by_end'"), 0);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM sqlite_master"
			      " WHERE name = 'allotments_by_job'"), 1);
	b = begin(h, "new", 4242, T0);
	q = quantum(T0, 0, 1, 4, 1, "0", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, b, &q), 0);
	assert_int_equal(history_job_end(h, b, T0 + 99, NULL), 0);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 2);
	assert_string_equal(rs->job[0].name, "old");
	assert_int_equal(rs->job[0].work_ns, 5);
	assert_int_equal(rs->job[0].workers, 0);
	assert_int_equal(rs->job[0].allotted_ns, 0);
	assert_int_equal(rs->job[1].workers, 4);
	assert_int_equal(rs->job[1].allotted_ns, 4000000);
	assert_int_equal(rs->job[0].sleep_ns, 0);
	assert_int_equal(rs->job[1].sleep_ns, 500000);
	assert_int_equal(rs->job[1].preempted_ns, 250000);
	assert_int_equal(rs->nruns, 2);
	assert_string_equal(rs->run[0].cpus, "0-1");
	assert_int_equal(rs->run[0].last_quantum, 9);
	assert_int_equal(rs->run[0].allotted_ns, 0);
	assert_int_equal(rs->run[1].allotted_ns, 4000000);
	assert_int_equal(rs->run[0].preempted_ns, 0);
	assert_int_equal(rs->run[1].preempted_ns, 250000);
	free(rs);
	history_close(h);
	/* Opened again, it stays as it is. */
	reopen_unchanged(f, 2);
}

/* A version 3 file (steal with the sleep in it, no sleep nor preempted
 * time) is upgraded in place: its rows stay and read 0 for both, a job
 * it left running is taken back and adds both to its totals, and a job
 * it left running that nobody takes back is closed with the sums of its
 * runs. */
static void test_upgrade_v3(void **state)
{
	struct fixture *f = *state;
	struct history_quantum q;
	struct history *h;
	struct rows *rs;
	sqlite3 *db;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
	    "PRAGMA application_id = 1095980104; PRAGMA user_version = 3;"
	    "CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
	    " name TEXT NOT NULL, uid INTEGER NOT NULL, pid INTEGER NOT NULL,"
	    " command TEXT NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER,"
	    " exit_status INTEGER, work_ns INTEGER NOT NULL DEFAULT 0,"
	    " steal_ns INTEGER NOT NULL DEFAULT 0,"
	    " mug_ns INTEGER NOT NULL DEFAULT 0,"
	    " workers INTEGER NOT NULL DEFAULT 0,"
	    " allotted_ns INTEGER NOT NULL DEFAULT 0);"
	    "CREATE INDEX jobs_by_end ON jobs(end_ns);"
	    "CREATE TABLE allotments (id INTEGER PRIMARY KEY,"
	    " job INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
	    " first_quantum INTEGER NOT NULL, last_quantum INTEGER NOT NULL,"
	    " start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,"
	    " desire INTEGER NOT NULL, availability INTEGER NOT NULL,"
	    " allotment INTEGER NOT NULL, cpus TEXT NOT NULL,"
	    " work_ns INTEGER NOT NULL, steal_ns INTEGER NOT NULL,"
	    " mug_ns INTEGER NOT NULL, class INTEGER NOT NULL,"
	    " allotted_ns INTEGER NOT NULL DEFAULT 0);"
	    "CREATE INDEX allotments_by_job ON allotments(job, start_ns);"
	    "CREATE TABLE skipped (first_quantum INTEGER NOT NULL,"
	    " last_quantum INTEGER NOT NULL, start_ns INTEGER NOT NULL,"
	    " end_ns INTEGER NOT NULL);"
	    "INSERT INTO jobs(name, uid, pid, command, start_ns, end_ns,"
	    " work_ns, steal_ns, mug_ns, workers, allotted_ns) VALUES"
	    " ('run', 1000, 77, 'fib 30', 1000, NULL, 5, 6, 7, 2, 18),"
	    " ('stale', 1000, 78, 'fib 30', 1000, NULL, 1, 2, 3, 2, 6);"
	    "INSERT INTO allotments(job, first_quantum, last_quantum, start_ns,"
	    " end_ns, desire, availability, allotment, cpus, work_ns,"
	    " steal_ns, mug_ns, class, allotted_ns) VALUES"
	    " (1, 0, 9, 1000, 2000, 2, 2, 2, '0-1', 5, 6, 7, 1, 18),"
	    " (2, 0, 9, 1000, 2000, 2, 2, 2, '2-3', 1, 2, 3, 1, 6);",
	    NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	h = open_ok(f, NULL);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	assert_int_equal(peek(f->path, "SELECT sum(sleep_ns + preempted_ns)"
			      " FROM jobs"), 0);
	assert_int_equal(peek(f->path, "SELECT sum(sleep_ns + preempted_ns)"
			      " FROM allotments"), 0);
	assert_int_equal(history_job_reopen(h, 1, 77), 0);
	q = quantum(T0, 0, 1, 4, 1, "0", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, 1, &q), 0);
	assert_int_equal(history_usage(h, 1, USE(0, 0, 0, 7, 3, 10)), 0);
	assert_int_equal(history_job_end(h, 1, T0 + 99, NULL), 0);
	assert_int_equal(history_close_stale(h, T0 + 100, 0), 1);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 2);
	assert_int_equal(rs->job[0].work_ns, 5 + 1000000);
	assert_int_equal(rs->job[0].steal_ns, 6 + 2000000);
	assert_int_equal(rs->job[0].sleep_ns, 500000 + 7);
	assert_int_equal(rs->job[0].preempted_ns, 250000 + 3);
	assert_int_equal(rs->job[0].allotted_ns, 18 + 4000000 + 10);
	assert_int_equal(rs->job[1].end_ns, T0 + 100);
	assert_int_equal(rs->job[1].steal_ns, 2);
	assert_int_equal(rs->job[1].sleep_ns, 0);
	assert_int_equal(rs->job[1].allotted_ns, 6);
	assert_int_equal(rs->nruns, 3);
	assert_int_equal(rs->run[0].sleep_ns, 0);
	assert_int_equal(rs->run[0].allotted_ns, 18);
	assert_int_equal(rs->run[1].sleep_ns, 500000 + 7);
	assert_int_equal(rs->run[1].preempted_ns, 250000 + 3);
	assert_int_equal(rs->run[2].preempted_ns, 0);
	free(rs);
	history_close(h);
	reopen_unchanged(f, 2);
}

/* Many quanta with the same values make one row with the right sums. */
static void test_one_row(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	int64_t id = begin(h, "fib", 1, T0);
	struct rows *rs;

	for (int i = 0; i < 1000; i++) {
		struct history_quantum q = quantum(T0, i, 4, 8, 4, "0-3",
						   HISTORY_SATISFIED);

		assert_int_equal(history_allot(h, id, &q), 0);
		assert_int_equal(history_flush(h), 0);
	}
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 1);
	assert_int_equal(rs->run[0].first_quantum, 0);
	assert_int_equal(rs->run[0].last_quantum, 999);
	assert_int_equal(rs->run[0].start_ns, T0);
	assert_int_equal(rs->run[0].end_ns, T0 + 1000 * QNS);
	assert_int_equal(rs->run[0].work_ns, 1000 * 1000000LL);
	assert_int_equal(rs->run[0].steal_ns, 1000 * 2000000LL);
	assert_int_equal(rs->run[0].mug_ns, 1000 * 3000000LL);
	assert_int_equal(rs->run[0].desire, 4);
	assert_int_equal(rs->run[0].availability, 8);
	assert_int_equal(rs->run[0].allotment, 4);
	assert_int_equal(rs->run[0].cls, HISTORY_SATISFIED);
	assert_string_equal(rs->run[0].cpus, "0-3");
	free(rs);
	assert_int_equal(stats(h).allotment_rows, 1);
	history_close(h);
}

/* A scripted 1000 quanta with 6 changes of values give exactly 7 rows (a
 * change of class ends no run: the run takes the last). */
static void test_changes(void **state)
{
	static const int at[7] = { 0, 100, 250, 400, 520, 800, 950 };
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	int64_t id = begin(h, "fib", 1, T0);
	struct history_quantum q;
	struct rows *rs;

	for (int i = 0; i < 1000; i++) {
		int d = 4, p = 8, a = 4, cls = HISTORY_SATISFIED;
		const char *cpus = "0-3";

		if (i >= 100 && i < 800)
			d = 6;          /* desire up, back down at 800 */
		if (i >= 250)
			p = 5;          /* availability */
		if (i >= 400)
			a = 5;          /* allotment */
		if (i >= 520 && i < 950)
			cpus = "0-3,6"; /* cpus, back at 950 */
		if (i >= 640)
			cls = HISTORY_DEPRIVED;
		q = quantum(T0, i, d, p, a, cpus, cls);
		assert_int_equal(history_allot(h, id, &q), 0);
		if (i % 7 == 0)
			assert_int_equal(history_flush(h), 0);
	}
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 7);
	for (int r = 0; r < 7; r++) {
		int64_t last = r < 6 ? at[r + 1] - 1 : 999;

		assert_int_equal(rs->run[r].first_quantum, at[r]);
		assert_int_equal(rs->run[r].last_quantum, last);
		assert_int_equal(rs->run[r].start_ns, T0 + at[r] * QNS);
		assert_int_equal(rs->run[r].end_ns, T0 + (last + 1) * QNS);
		assert_int_equal(rs->run[r].work_ns,
				 (last - at[r] + 1) * 1000000LL);
	}
	assert_int_equal(rs->run[1].desire, 6);
	assert_int_equal(rs->run[5].desire, 4);
	assert_string_equal(rs->run[4].cpus, "0-3,6");
	/* The class is the last reported, and does not end a run. */
	assert_int_equal(rs->run[4].cls, HISTORY_DEPRIVED);
	assert_string_equal(rs->run[6].cpus, "0-3");
	assert_int_equal(rs->run[6].cls, HISTORY_DEPRIVED);
	free(rs);
	/* Quanta nobody spoke of were unchanged: the same values after a
	 * gap extend the run over it ... */
	q = quantum(T0, 1005, 4, 5, 5, "0-3", HISTORY_DEPRIVED);
	assert_int_equal(history_allot(h, id, &q), 0);
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 7);
	assert_int_equal(rs->run[6].last_quantum, 1005);
	free(rs);
	/* ... and a change after a gap ends the run where it begins. */
	q = quantum(T0, 1010, 2, 5, 2, "0-1", HISTORY_DEPRIVED);
	assert_int_equal(history_allot(h, id, &q), 0);
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 8);
	assert_int_equal(rs->run[6].last_quantum, 1009);
	assert_int_equal(rs->run[6].end_ns, T0 + 1010 * QNS);
	assert_int_equal(rs->run[7].first_quantum, 1010);
	free(rs);
	history_close(h);
}

/* Feed job id one quantum of a deprived job (allotment = availability a)
 * in epoch e, with no usage, then say the quantum is over. */
static void turn(struct history *h, int64_t id, int64_t qn, int d, int a,
		 const char *cpus, int64_t e)
{
	struct history_quantum q = quantum(T0, qn, d, a, a, cpus,
					   HISTORY_DEPRIVED);

	q.work_ns = q.steal_ns = q.mug_ns = q.allotted_ns = 0;
	q.sleep_ns = q.preempted_ns = 0;
	q.epoch = e;
	assert_int_equal(history_allot(h, id, &q), 0);
	assert_int_equal(history_advance(h, qn, T0 + (qn + 1) * QNS), 0);
}

/* A deprived job whose allotment takes turns between two neighbouring
 * values, fed by changes, makes one row: the lower value, all its CPUs,
 * and its processor-quanta in all; its desire, its epoch, a third value
 * or the same allotment on other CPUs end the run; the row written while
 * the run was at its higher value is lowered in place. */
static void test_turns(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .flush_open_ms = 1 };
	struct history *h = open_ok(f, &o);
	int64_t id = begin(h, "fib", 1, T0);
	int64_t qn = 0, held = 0;
	struct rows *rs;

	/* 0-99: one quantum in four on CPU 1 or 0, told only on changes;
	 * written (flush_open_ms 1) at its first quantum, allotment 1. */
	for (; qn < 100; qn++) {
		int a = qn % 4 == 0;

		if (qn == 0 || a != ((qn - 1) % 4 == 0))
			turn(h, id, qn, 2, a, a ? (qn % 8 ? "0" : "1") : "",
			     7);
		else
			assert_int_equal(history_advance(h, qn, T0 + (qn + 1)
							 * QNS), 0);
		held += a;
		assert_int_equal(history_flush(h), 0);
	}
	assert_int_equal(peek(f->path, "SELECT count(*) FROM allotments"), 1);
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 1);
	assert_int_equal(rs->run[0].first_quantum, 0);
	assert_int_equal(rs->run[0].last_quantum, 99);
	assert_int_equal(rs->run[0].allotment, 0);
	assert_int_equal(rs->run[0].availability, 0);
	assert_int_equal(rs->run[0].desire, 2);
	assert_string_equal(rs->run[0].cpus, "0-1");
	assert_int_equal(rs->run[0].cpu_quanta, held);
	free(rs);
	assert_int_equal(peek(f->path, "SELECT allotment FROM allotments"), 0);
	assert_int_equal(peek(f->path, "SELECT cpu_quanta FROM allotments"),
			 held);
	/* 100: another epoch; 105: a turn; 110: allotment 2, a third value;
	 * 120: desire 3; 130: the same allotment on another CPU; 140:
	 * allotment 3, two more; 150: 2, a turn. */
	turn(h, id, 100, 2, 1, "1", 8);
	turn(h, id, 105, 2, 0, "", 8);
	turn(h, id, 110, 2, 2, "0-1", 8);
	turn(h, id, 120, 3, 1, "0", 8);
	turn(h, id, 130, 3, 1, "2", 8);
	turn(h, id, 140, 3, 3, "0-2", 8);
	turn(h, id, 150, 3, 2, "0-1", 8);
	assert_int_equal(history_advance(h, 159, T0 + 160 * QNS), 0);
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 6);
	assert_int_equal(rs->run[1].first_quantum, 100);
	assert_int_equal(rs->run[1].last_quantum, 109);
	assert_int_equal(rs->run[1].allotment, 0);
	assert_int_equal(rs->run[1].cpu_quanta, 5);
	assert_string_equal(rs->run[1].cpus, "1");
	assert_int_equal(rs->run[2].first_quantum, 110);
	assert_int_equal(rs->run[2].cpu_quanta, 2 * 10);
	assert_int_equal(rs->run[3].desire, 3);
	assert_int_equal(rs->run[3].last_quantum, 129);
	assert_int_equal(rs->run[4].first_quantum, 130);
	assert_string_equal(rs->run[4].cpus, "2");
	assert_int_equal(rs->run[5].first_quantum, 140);
	assert_int_equal(rs->run[5].last_quantum, 159);
	assert_int_equal(rs->run[5].allotment, 2);
	assert_int_equal(rs->run[5].availability, 2);
	assert_string_equal(rs->run[5].cpus, "0-2");
	assert_int_equal(rs->run[5].cpu_quanta, 3 * 10 + 2 * 10);
	free(rs);
	history_close(h);
}

/* A version 4 file gets the runs' processor-quanta: allotment x quanta. */
static void test_upgrade_v4(void **state)
{
	struct fixture *f = *state;
	struct history *h;
	struct rows *rs;
	sqlite3 *db;

	h = open_ok(f, NULL);
	history_close(h);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
	    "CREATE TABLE a4 AS SELECT * FROM allotments;"
	    "DROP TABLE allotments;"
	    "CREATE TABLE allotments (id INTEGER PRIMARY KEY,"
	    " job INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
	    " first_quantum INTEGER NOT NULL, last_quantum INTEGER NOT NULL,"
	    " start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,"
	    " desire INTEGER NOT NULL, availability INTEGER NOT NULL,"
	    " allotment INTEGER NOT NULL, cpus TEXT NOT NULL,"
	    " work_ns INTEGER NOT NULL, steal_ns INTEGER NOT NULL,"
	    " mug_ns INTEGER NOT NULL, class INTEGER NOT NULL,"
	    " allotted_ns INTEGER NOT NULL DEFAULT 0,"
	    " sleep_ns INTEGER NOT NULL DEFAULT 0,"
	    " preempted_ns INTEGER NOT NULL DEFAULT 0);"
	    "DROP TABLE a4; DROP TABLE grants;"
	    "CREATE INDEX allotments_by_job ON allotments(job, start_ns);"
	    "INSERT INTO jobs(name, uid, pid, command, start_ns, end_ns)"
	    " VALUES ('old', 1000, 77, 'fib 30', 1000, 3000);"
	    "INSERT INTO allotments(job, first_quantum, last_quantum, start_ns,"
	    " end_ns, desire, availability, allotment, cpus, work_ns,"
	    " steal_ns, mug_ns, class, allotted_ns) VALUES"
	    " (1, 0, 9, 1000, 2000, 2, 2, 2, '0-1', 5, 6, 7, 1, 18),"
	    " (1, 10, 12, 2000, 3000, 3, 3, 3, '0-2', 5, 6, 7, 1, 18);"
	    "PRAGMA user_version = 4;",
	    NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	h = open_ok(f, NULL);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 2);
	assert_int_equal(rs->run[0].cpu_quanta, 2 * 10);
	assert_int_equal(rs->run[1].cpu_quanta, 3 * 3);
	free(rs);
	history_close(h);
}

/* The last quantum of job's runs on disk, read with another connection. */
static int64_t last_on_disk(struct fixture *f, int64_t job)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "SELECT max(last_quantum) FROM allotments"
		 " WHERE job = %lld", (long long)job);
	return peek(f->path, sql);
}

/* Fed by changes, as the daemon feeds it: values only when they change,
 * usage as it is reported, and the quantum that is over each tick.  Open
 * runs reach the last quantum announced, in queries, when written every
 * flush_open_ms and when their job ends. */
static void test_fed_by_changes(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .flush_open_ms = 50 };
	struct history *h = open_ok(f, &o);
	int64_t a = begin(h, "a", 1, T0), b = begin(h, "b", 2, T0);
	struct history_quantum q;
	struct rows *rs;

	/* Usage reported before the first values goes to the first run. */
	assert_int_equal(history_usage(h, a, USE(5, 6, 7, 0, 0, 8)), 0);
	q = quantum(T0, 3, 1, 2, 1, "0", HISTORY_SATISFIED);
	q.work_ns = q.steal_ns = q.mug_ns = q.allotted_ns = 0;
	assert_int_equal(history_allot(h, a, &q), 0);
	assert_int_equal(history_allot(h, b, &q), 0);
	for (int64_t n = 3; n < 40; n++) {
		assert_int_equal(history_advance(h, n, T0 + (n + 1) * QNS), 0);
		assert_int_equal(history_usage(h, a, USE(1, 0, 0, 0, 0, 1)), 0);
		assert_int_equal(history_flush(h), 0);
	}
	/* Written on time (every 50 ms of quanta, QNS each): on disk. */
	assert_true(last_on_disk(f, a) >= 39 - 50000000 / QNS - 1);
	/* b changes at 40; a does not, and lasts on. */
	q = quantum(T0, 40, 2, 2, 2, "0-1", HISTORY_SATISFIED);
	q.work_ns = q.steal_ns = q.mug_ns = q.allotted_ns = 0;
	assert_int_equal(history_allot(h, b, &q), 0);
	assert_int_equal(history_advance(h, 41, T0 + 42 * QNS), 0);
	assert_int_equal(history_advance(h, 40, T0 + 41 * QNS), -1);
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 3);
	assert_int_equal(rs->run[0].job, a);
	assert_int_equal(rs->run[0].first_quantum, 3);
	assert_int_equal(rs->run[0].last_quantum, 41);
	assert_int_equal(rs->run[0].end_ns, T0 + 42 * QNS);
	assert_int_equal(rs->run[0].work_ns, 5 + 37);
	assert_int_equal(rs->run[0].allotted_ns, 8 + 37);
	assert_int_equal(rs->run[1].last_quantum, 39);
	assert_int_equal(rs->run[2].first_quantum, 40);
	assert_int_equal(rs->run[2].last_quantum, 41);
	free(rs);
	/* Its end closes a's run at the last quantum announced. */
	assert_int_equal(history_advance(h, 45, T0 + 46 * QNS), 0);
	assert_int_equal(history_job_end(h, a, T0 + 46 * QNS, NULL), 0);
	assert_int_equal(last_on_disk(f, a), 45);
	assert_int_equal(history_usage(h, a, USE(1, 1, 1, 0, 0, 1)), -1);  /* ended */
	assert_int_equal(history_usage(h, b, USE(-1, 0, 0, 0, 0, 0)), -1);
	history_close(h);
}

/* 10,000 unchanging quanta take no more room than 100 did. */
static void test_storage_flat(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	int64_t id = begin(h, "fib", 1, T0), b100 = 0, page;
	struct history_stats s;
	struct stat sb;
	struct rows *rs;

	page = peek(f->path, "PRAGMA page_size");
	for (int i = 0; i < 10000; i++) {
		struct history_quantum q = quantum(T0, i, 2, 8, 2, "4-5",
						   HISTORY_SATISFIED);

		assert_int_equal(history_allot(h, id, &q), 0);
		assert_int_equal(history_flush(h), 0);
		if (i == 99) {
			free(query(h, NULL));   /* the run is on disk */
			b100 = stats(h).db_bytes;
		}
	}
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 1);
	assert_int_equal(rs->run[0].last_quantum, 9999);
	free(rs);
	s = stats(h);
	assert_true(b100 > 0);
	assert_true(s.db_bytes <= b100 + 2 * page);
	assert_int_equal(s.allotment_rows, 1);
	history_close(h);
	/* The file itself, checkpointed at close, is as small. */
	assert_int_equal(stat(f->path, &sb), 0);
	assert_true(sb.st_size <= b100 + 2 * page);
}

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

/* Close and open again: everything is there, a running job can be taken
 * back (only with its pid, only once), the others are closed as stale, and
 * ids continue without reuse even when the last one was expired. */
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
	assert_int_equal(rs->job[0].work_ns, 1000000);
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
	assert_int_equal(rs->job[0].work_ns, 2000000);
	assert_int_equal(rs->job[0].steal_ns, 4000000);
	assert_int_equal(rs->job[0].mug_ns, 6000000);
	assert_int_equal(rs->job[0].allotted_ns, 8000000);
	assert_int_equal(rs->job[0].sleep_ns, 1000000);
	assert_int_equal(rs->job[0].preempted_ns, 500000);
	assert_int_equal(rs->nruns, 2);
	assert_int_equal(rs->run[1].first_quantum, 1);
	free(rs);
	assert_int_equal(history_job_pause(h, a), -1);  /* ended */
	assert_int_equal(history_job_pause(NULL, a), -1);
	history_close(h);
}

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
	assert_int_equal(rs->job[0].work_ns, 5 * 1000000LL);
	assert_int_equal(rs->job[0].mug_ns, 5 * 3000000LL);
	assert_int_equal(rs->job[0].sleep_ns, 5 * 500000LL);
	assert_int_equal(rs->job[0].preempted_ns, 5 * 250000LL);
	assert_int_equal(rs->job[0].allotted_ns, 5 * 4000000LL);
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
				      " ALTER TABLE jobs DROP COLUMN sleep_ns;"
				      " ALTER TABLE jobs DROP COLUMN preempted_ns;"
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

/* A version 5 file is read as it is (no grants), and upgraded to 6 when
 * a daemon opens it: its rows stay and it gets the table of grants. */
static void test_upgrade_v5(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	struct history_quantum q;
	struct history_stats s;
	char why[256] = "";
	int64_t a, b;
	sqlite3 *db;

	a = begin(h, "a", 1, T0);
	q = quantum(T0, 0, 2, 2, 2, "0-1", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, a, &q), 0);
	assert_int_equal(history_job_end(h, a, T0 + QNS, NULL), 0);
	history_close(h);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE grants;"
				      " PRAGMA user_version = 5", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	h = history_open_readonly(f->path, why, sizeof(why));
	if (h == NULL)
		fail_msg("history_open_readonly: %s", why);
	assert_int_equal(history_stats(h, &s), 0);
	assert_int_equal(s.jobs, 1);
	assert_int_equal(s.quantum_base, 1);
	history_close(h);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), 5);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM sqlite_master"
			      " WHERE name = 'grants'"), 0);
	h = open_ok(f, NULL);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), 6);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM sqlite_master"
			      " WHERE name IN ('grants', 'grants_by_job')"), 2);
	assert_int_equal(stats(h).jobs, 1);
	assert_int_equal(stats(h).allotment_rows, 1);
	b = begin(h, "b", 2, T0 + 5 * QNS);
	assert_int_equal(history_grant(h, b, 4, T0 + 5 * QNS, 2, "0-1"), 0);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT quantum FROM grants"), 1 + 4);
	/* A version 4 file is older than the one before: refused. */
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 4", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_null(history_open_readonly(f->path, why, sizeof(why)));
	assert_non_null(strstr(why, "schema version 4 is older"));
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

/* A newer schema and another program's database are refused. */
static void test_refused(void **state)
{
	struct fixture *f = *state;
	char why[256] = "";
	sqlite3 *db;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 7", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_null(history_open(f->path, NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "database schema version 7 is newer than"
			       " this asteald (6)"));
	unlink(f->path);

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_null(history_open(f->path, NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "not an asteal history database"));
	unlink(f->path);

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
				/* Nothing selected, yet looked at a max at a
				 * time: as many pages as it takes; a user's
				 * jobs passed over with a seek each. */
				if (i == 5 && runs)
					assert_true(pages >= 120 / (max + 1));
				if (i == 4)
					assert_true(pages <= 4);
				free(all);
				free(rs);
			}
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

/* Bad arguments give -1 (or NULL) with a message, never a crash. */
static void test_bad_args(void **state)
{
	struct fixture *f = *state;
	struct history *h;
	struct history_quantum q = quantum(T0, 0, 1, 1, 1, "0", 1);
	struct history_stats s;
	struct history_job j = { .name = "x", .pid = 1, .start_ns = T0 };
	char why[256] = "", path[200];
	int64_t id;
	int st = 0;

	assert_null(history_open(NULL, NULL, why, sizeof(why)));
	assert_true(strlen(why) > 0);
	assert_null(history_open("", NULL, NULL, 0));
	snprintf(path, sizeof(path), "%s/no/such/dir/h.db", f->dir);
	assert_null(history_open(path, NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "cannot open"));
	assert_null(history_open(f->path, &(struct history_opts){
		.retention_days = -1 }, why, sizeof(why)));
	assert_null(history_open(f->path, &(struct history_opts){
		.retention_days = 1 << 30 }, why, sizeof(why)));
	assert_non_null(strstr(why, "retention"));

	assert_int_equal(history_job_begin(NULL, &j), -1);
	assert_int_equal(history_job_end(NULL, 1, T0, &st), -1);
	assert_int_equal(history_job_set_exit(NULL, 1, 0), -1);
	assert_int_equal(history_job_reopen(NULL, 1, 1), -1);
	assert_int_equal(history_close_stale(NULL, T0, 0), -1);
	assert_int_equal(history_allot(NULL, 1, &q), -1);
	assert_int_equal(history_flush(NULL), -1);
	assert_int_equal(history_query(NULL, NULL, NULL, NULL, NULL), -1);
	assert_int_equal(history_expire(NULL, T0, 0, NULL), -1);
	assert_int_equal(history_stats(NULL, &s), -1);
	assert_non_null(history_error(NULL));
	history_close(NULL);

	h = open_ok(f, NULL);
	assert_int_equal(history_job_begin(h, NULL), -1);
	assert_int_equal(history_job_begin(h, &(struct history_job){
		.pid = 1, .start_ns = T0 }), -1);         /* no name */
	assert_int_equal(history_job_begin(h, &(struct history_job){
		.name = "x", .pid = 0, .start_ns = T0 }), -1);
	id = history_job_begin(h, &j);
	assert_true(id > 0);
	assert_int_equal(history_allot(h, id + 1, &q), -1);
	assert_non_null(strstr(history_error(h), "not running"));
	assert_int_equal(history_allot(h, id, NULL), -1);
	q.cpus = NULL;
	assert_int_equal(history_allot(h, id, &q), -1);
	q.cpus = "0";
	q.cls = 3;
	assert_int_equal(history_allot(h, id, &q), -1);
	q.cls = 1;
	q.desire = -1;
	assert_int_equal(history_allot(h, id, &q), -1);
	q.desire = 1;
	q.end_ns = q.start_ns - 1;
	assert_int_equal(history_allot(h, id, &q), -1);
	q.end_ns = q.start_ns + QNS;
	assert_int_equal(history_allot(h, id, &q), 0);
	assert_int_equal(history_allot(h, id, &q), -1);   /* same quantum */
	assert_int_equal(history_job_end(h, id + 1, T0, &st), -1);
	assert_int_equal(history_job_end(h, id, 0, &st), -1);
	assert_int_equal(history_job_set_exit(h, id + 1, 0), -1);
	assert_int_equal(history_close_stale(h, 0, 0), -1);
	assert_int_equal(history_expire(h, 0, 0, NULL), -1);
	assert_int_equal(history_stats(h, NULL), -1);
	assert_int_equal(history_query(h, &(struct history_filter){
		.njobs = 2 }, NULL, NULL, NULL), -1);
	assert_int_equal(history_query(h, &(struct history_filter){
		.limit = -1 }, NULL, NULL, NULL), -1);
	/* Nothing was recorded by the refused calls. */
	assert_int_equal(history_query(h, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(stats(h).allotment_rows, 1);
	history_close(h);
}

/* The mode and group of a file. */
static void file_mode(const char *path, mode_t *mode, gid_t *gid)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	*mode = st.st_mode & 07777;
	*gid = st.st_gid;
}

/* The database and its -wal and -shm get their modes whatever the umask:
 * 0600, or 0640 to a group; an old file's lax mode is tightened. */
static void test_file_modes(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .group_gid = 0 };
	struct history *h;
	char wal[160], shm[160];
	mode_t old = umask(0), m;
	gid_t g;
	int fd;

	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	snprintf(shm, sizeof(shm), "%s-shm", f->path);
	fd = open(f->path, O_CREAT | O_WRONLY, 0666);  /* as an old daemon left it */
	assert_true(fd >= 0);
	close(fd);
	h = history_open(f->path, &o, NULL, 0);
	assert_non_null(h);
	file_mode(f->path, &m, &g);
	assert_int_equal(m, 0600);
	file_mode(wal, &m, &g);
	assert_int_equal(m, 0600);
	file_mode(shm, &m, &g);
	assert_int_equal(m, 0600);
	history_close(h);
	if (geteuid() == 0) {
		o.group_gid = 64990;    /* root may give files to any group */
		h = history_open(f->path, &o, NULL, 0);
		assert_non_null(h);
		file_mode(f->path, &m, &g);
		assert_int_equal(m, 0640);
		assert_int_equal(g, 64990);
		history_close(h);
	} else {
		print_message("not root: the group case is not checked\n");
	}
	umask(old);
}

/* Whether every job's totals are the sums of its runs on disk, read with
 * a separate connection; the number of jobs with runs. */
static int totals_are_runs(const char *path)
{
	/* Jobs whose totals differ from their runs' sums in any column. */
	int64_t bad = peek(path, "SELECT count(*) FROM jobs j WHERE"
			   " (j.work_ns, j.steal_ns, j.mug_ns, j.allotted_ns,"
			   " j.sleep_ns, j.preempted_ns) IS NOT"
			   " (SELECT COALESCE(SUM(work_ns), 0), COALESCE(SUM(steal_ns),"
			   " 0), COALESCE(SUM(mug_ns), 0), COALESCE(SUM(allotted_ns), 0),"
			   " COALESCE(SUM(sleep_ns), 0), COALESCE(SUM(preempted_ns), 0)"
			   " FROM allotments a WHERE a.job = j.id)");

	assert_int_equal(bad, 0);
	return (int)peek(path, "SELECT count(DISTINCT job) FROM allotments");
}

/* A daemon's life until it is killed: two jobs, changes every third
 * quantum, usage reported between, flushes every quantum (open runs
 * written every 50 ms, closed ones committed every 30 ms), then _exit
 * with nothing closed: a batch may be open, runs unwritten. */
static void crash_child(const char *path, int quanta, int64_t base_ns)
{
	struct history_opts o = { .flush_open_ms = 50, .flush_ms = 30 };
	struct history *h = history_open(path, &o, NULL, 0);
	int64_t id[2];

	if (h == NULL)
		_exit(2);
	for (int k = 0; k < 2; k++) {
		struct history_job j = {
			.name = "c", .uid = 1000, .pid = 100 + k,
			.command = "fib 30", .start_ns = base_ns, .workers = 4,
		};

		id[k] = history_job_begin(h, &j);
	}
	for (int i = 0; i < quanta; i++) {
		for (int k = 0; k < 2; k++) {
			struct history_quantum q = quantum(base_ns, i, 1 + (i / 3 + k) % 3,
							   4, 1 + (i / 3) % 2, "0",
							   HISTORY_SATISFIED);

			if (history_allot(h, id[k], &q) < 0 ||
			    history_usage(h, id[k], USE(7, 11, 13, 5, 3, 17)) < 0)
				_exit(3);
		}
		if (history_advance(h, i, base_ns + (i + 1) * QNS) < 0 ||
		    history_flush(h) < 0)
			_exit(4);
	}
	_exit(0);
}

/* Fork crash_child and wait for it to exit 0. */
static void crash(const char *path, int quanta, int64_t base_ns)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		crash_child(path, quanta, base_ns);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Issue 16, item 9: after a daemon is killed (a child that _exits
 * without closing), every job's totals are the sums of its runs on disk,
 * whatever point it died at; closing the rows nobody reclaimed, or a job
 * reclaimed and ended by the next daemon, counts nothing twice; and the
 * next daemon's quanta (numbered from 0 again on its own clock) are
 * stored after every quantum stored before. */
static void test_crash_totals(void **state)
{
	struct fixture *f = *state;
	struct history_quantum q;
	struct history *h;
	struct rows *rs;
	int64_t last, a = 1;

	for (int life = 0; life < 4; life++) {
		crash(f->path, 7 + 100 * life, T0 + life * DAY / 10);
		assert_int_equal(totals_are_runs(f->path), 2 * (life + 1));
	}
	last = peek(f->path, "SELECT max(last_quantum) FROM allotments");
	assert_true(last >= 306 && last <= 306 * 4 + 3);
	h = open_ok(f, NULL);
	assert_int_equal(stats(h).quantum_base, last + 1);
	/* The first job of the last life is reclaimed and goes on from its
	 * quantum 0 here, the other is closed as stale. */
	a = peek(f->path, "SELECT min(id) FROM jobs WHERE pid = 100 AND id >"
		 " (SELECT max(id) - 2 FROM jobs)");
	assert_int_equal(history_job_reopen(h, a, 100), 0);
	q = quantum(T0 + DAY, 0, 5, 4, 4, "0-3", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, a, &q), 0);
	assert_int_equal(history_usage(h, a, USE(1, 2, 3, 0, 0, 4)), 0);
	assert_int_equal(history_close_stale(h, T0 + DAY, 0), 7);
	assert_int_equal(history_job_end(h, a, T0 + DAY + QNS, NULL), 0);
	rs = query(h, &(struct history_filter){ .jobs = &a, .njobs = 1 });
	assert_int_equal(rs->run[rs->nruns - 1].first_quantum, last + 1);
	for (int i = 0; i + 1 < rs->nruns; i++)
		assert_true(rs->run[i].last_quantum < last + 1);
	assert_int_equal(rs->job[0].end_ns, T0 + DAY + QNS);
	free(rs);
	history_close(h);
	totals_are_runs(f->path);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM jobs WHERE end_ns"
			      " IS NULL"), 0);
	/* The quanta of each life come after the last's, in order of time. */
	assert_int_equal(peek(f->path, "SELECT count(*) FROM allotments a"
			      " JOIN allotments b ON a.start_ns < b.start_ns"
			      " AND a.first_quantum >= b.first_quantum"), 0);
}

/* Open the fixture's damaged database: it is moved aside with the same
 * bytes, the notice names where, and a new, empty history works. */
static void expect_moved_aside(struct fixture *f)
{
	char name[128], aside[256];
	size_t n0, n1;
	char *before = hist_slurp(f->path, &n0), *after;
	struct history *h = open_ok(f, NULL);

	assert_non_null(strstr(history_notice(h), "is damaged"));
	hist_find(f->dir, "history.db.corrupt-", name, sizeof(name));
	snprintf(aside, sizeof(aside), "%s/%s", f->dir, name);
	assert_non_null(strstr(history_notice(h), aside));
	after = hist_slurp(aside, &n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	free(before);
	free(after);
	assert_int_equal(stats(h).jobs, 0);
	assert_true(begin(h, "new", 1, T0) > 0);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM jobs"), 1);
	unlink(aside);
}

/* Issue 16, item 6: a file that is not a database, and a history whose
 * page in the middle was overwritten with garbage, are found at open
 * (PRAGMA quick_check), moved aside intact, and a new history begins; an
 * intact history says nothing. */
static void test_damaged(void **state)
{
	struct fixture *f = *state;
	struct history *h;
	int64_t id[20];
	FILE *fp;

	fp = fopen(f->path, "w");
	assert_non_null(fp);
	for (int i = 0; i < 300; i++)
		fputs("this is not a database. ", fp);
	fclose(fp);
	expect_moved_aside(f);

	h = open_ok(f, NULL);
	assert_string_equal(history_notice(h), "");
	for (int k = 0; k < 20; k++)
		id[k] = begin(h, "j", 100 + k, T0);
	for (int i = 0; i < 400; i++)
		for (int k = 0; k < 20; k++) {
			struct history_quantum q = quantum(T0, i, 1 + i % 2, 4,
							   1 + i % 2, "0-1", 1);

			assert_int_equal(history_allot(h, id[k], &q), 0);
		}
	history_close(h);
	hist_damage(f->path);
	expect_moved_aside(f);
}

/* Issue 16, item 6, the module's part: on a full file system (a small
 * tmpfs filled up) jobs still begin, get ids that never repeat, end, and
 * their quanta are recorded; the history says it is degraded, and why,
 * keeps what failed pending (job writes counted, and past their bound
 * lost, counted), answers queries from the disk, and writes nothing until
 * history_retry, which catches up once space returns: then the rows are
 * there, with totals that are their runs' sums. */
static void test_full_disk(void **state)
{
	struct fixture *f = *state;
	struct history_opts o = { .max_job_writes = 4, .catch_up_runs = 4 };
	char why[256], filler[128];
	int slices = 0;
	struct history_health hh;
	int64_t a, b, c, d, g, e, t;
	struct history_stats st;
	struct history *h;
	struct rows *rs;

	if (hist_tiny_fs(f->dir, 512, why, sizeof(why)) < 0) {
		printf("test_full_disk skipped: %s\n", why);
		skip();
	}
	h = open_ok(f, &o);
	a = begin(h, "a", 100, T0);
	snprintf(filler, sizeof(filler), "%s/filler", f->dir);
	assert_true(hist_fill(filler) > 0);
	b = begin(h, "b", 101, T0);
	c = begin(h, "c", 102, T0);
	d = begin(h, "d", 103, T0);
	assert_true(a < b && b < c && c < d);
	for (int i = 0; i < 40; i++) {
		struct history_quantum q = quantum(T0, i, 1 + i / 4 % 2, 4,
						   1 + i / 4 % 2, "0", 1);

		assert_int_equal(history_allot(h, a, &q), 0);
		assert_int_equal(history_allot(h, b, &q), 0);
		assert_int_equal(history_usage(h, b, USE(5, 0, 0, 0, 0, 5)), 0);
		if (i == 5 || i == 20)      /* grants, written once, later */
			assert_int_equal(history_grant(h, i == 5 ? c : d, i,
						       T0 + i * QNS + 1, 1,
						       i == 5 ? "1" : "2"), 0);
		assert_int_equal(history_advance(h, i, T0 + (i + 1) * QNS), 0);
		assert_int_equal(history_flush(h), 0);
	}
	history_health(h, &hh);
	if (!hh.degraded || strstr(hh.state, "degraded: ") != hh.state ||
	    strstr(hh.state, "full") == NULL)
		fail_msg("state: %s", hh.state);
	assert_int_equal(history_job_end(h, b, T0 + DAY, NULL), 0);
	/* The fifth job write is past the bound: g is admitted all the same,
	 * with its own id, and nothing of it is kept. */
	g = begin(h, "g", 104, T0);
	assert_true(g > d);
	st = stats(h);
	assert_int_equal(st.degraded, 1);
	assert_int_equal(st.job_writes, 4);
	assert_int_equal(st.job_writes_dropped, 1);
	history_health(h, &hh);
	assert_true(hh.pending >= 4 + 18);          /* job writes, closed runs */
	{
		struct history_quantum q = quantum(T0, 40, 1, 4, 1, "0", 1);

		assert_int_equal(history_allot(h, g, &q), 0);
		assert_int_equal(history_grant(h, g, 40, T0 + 40 * QNS, 1,
					       "3"), 0);
	}
	rs = query(h, NULL);                /* from the disk: a alone */
	assert_int_equal(rs->njobs, 1);
	assert_int_equal(rs->job[0].id, a);
	free(rs);
	assert_int_equal(history_retry(h), -1);
	assert_int_equal(history_expire(h, T0, 0, NULL), 0);     /* retention off */
	assert_int_equal(history_close_stale(h, T0 + DAY, 0), -1);
	/* Space returns: caught up 4 runs a call (the job writes with the
	 * first), still degraded in between. */
	assert_int_equal(unlink(filler), 0);
	while (history_retry(h) == 1) {
		history_health(h, &hh);
		if (!hh.degraded || strstr(hh.state, "catching up") == NULL)
			fail_msg("state while catching up: %s", hh.state);
		assert_int_equal(stats(h).job_writes, 0);
		assert_true(++slices < 20);
	}
	assert_true(slices >= 18 / 4);
	history_health(h, &hh);
	assert_string_equal(hh.state, "ok");
	assert_int_equal(hh.pending, 0);
	assert_int_equal(hh.dropped, 1);
	/* The grants of c and d, once each; none of g, whose row was lost. */
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 2);
	assert_int_equal(peek(f->path, "SELECT count(DISTINCT job) FROM grants"
			      " WHERE (cpus = '1' AND quantum = 5) OR"
			      " (cpus = '2' AND quantum = 20)"), 2);
	st = stats(h);
	assert_int_equal(st.job_writes, 0);
	assert_int_equal(st.degraded, 0);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 4);             /* a, b, c, d: not g */
	assert_int_equal(rs->job[1].id, b);
	assert_int_equal(rs->job[1].end_ns, T0 + DAY);
	assert_int_equal(rs->job[1].work_ns, 40 * (1000000 + 5));
	assert_int_equal(rs->nruns, 20);            /* a's 10, b's 10 */
	free(rs);
	e = begin(h, "e", 105, T0);
	assert_true(e > g);
	history_close(h);
	t = totals_are_runs(f->path);
	assert_int_equal(t, 2);
	assert_int_equal(umount2(f->dir, MNT_DETACH), 0);
}

/* A grant written into a transaction that fails (a full disk at the
 * commit) stays queued, and is written once when space returns. */
static void test_grant_full_disk(void **state)
{
	struct fixture *f = *state;
	struct history_quantum q;
	char why[256], filler[128];
	struct history *h;
	int64_t a;

	if (hist_tiny_fs(f->dir, 512, why, sizeof(why)) < 0) {
		printf("test_grant_full_disk skipped: %s\n", why);
		skip();
	}
	h = open_ok(f, NULL);
	a = begin(h, "a", 100, T0);
	q = quantum(T0, 0, 1, 4, 1, "0", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, a, &q), 0);
	assert_int_equal(history_flush(h), 0);
	snprintf(filler, sizeof(filler), "%s/filler", f->dir);
	assert_true(hist_fill(filler) > 0);
	assert_int_equal(history_grant(h, a, 0, T0 + 1, 2, "1-2"), 0);
	assert_int_equal(history_advance(h, 200, T0 + 201 * QNS), 0);
	assert_int_equal(history_flush(h), 0);          /* and degraded */
	assert_int_equal(stats(h).degraded, 1);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 0);
	assert_int_equal(unlink(filler), 0);
	assert_int_equal(history_retry(h), 0);
	assert_int_equal(stats(h).degraded, 0);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"
			      " WHERE cpus = '1-2'"), 1);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM grants"), 1);
	assert_int_equal(umount2(f->dir, MNT_DETACH), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
		T(test_create),
		T(test_job_round_trip),
		T(test_upgrade_v1),
		T(test_upgrade_v3),
		T(test_one_row),
		T(test_changes),
		T(test_turns),
		T(test_upgrade_v4),
		T(test_fed_by_changes),
		T(test_storage_flat),
		T(test_flush_writes),
		T(test_flush_locked),
		T(test_flush_batch),
		T(test_pause),
		T(test_restart),
		T(test_skipped),
		T(test_skipped_batch),
		T(test_grant),
		T(test_grant_bad),
		T(test_upgrade_v5),
		T(test_grant_expire),
		T(test_refused),
		T(test_retention),
		T(test_pagination),
		T(test_pagination_growing),
		T(test_filters),
		T(test_bounded_scan),
		T(test_many_jobs),
		T(test_queue_full),
		T(test_bad_args),
		T(test_file_modes),
		T(test_crash_totals),
		T(test_damaged),
		T(test_full_disk),
		T(test_grant_full_disk),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
