/*
 * test_history_schema.c - asteald's history in SQLite, its file: a new
 * database's schema version, WAL mode and tables; older files (versions
 * 1, 3, 4, 6 and 7) upgraded in place, their rows kept and the new columns
 * and tables filled, a file of the version before read as it is; the
 * jobs' time limits and time outs written and read; a newer schema and
 * another program's database
 * refused; the modes of the database and its -wal and -shm whatever the
 * umask.  (The other test_history_* files test the rest of the module;
 * their fixture is in histutil.h.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <sqlite3.h>

#define HISTUTIL_FIXTURE
#include "histutil.h"
#include "history.h"

/* SQL that takes a current file's jobs back to before version 8 (no
 * time limits), for the tests that make an older file from a new one. */
#define BEFORE_V8 "ALTER TABLE jobs DROP COLUMN time_limit_ns;" \
	" ALTER TABLE jobs DROP COLUMN timed_out;"

/* Open the fixture's database again: it must still hold that many jobs
 * and be at this schema version. */
static void reopen_unchanged(struct fixture *f, int64_t jobs)
{
	struct history *h = open_ok(f, NULL);

	assert_int_equal(stats(h).jobs, jobs);
	history_close(h);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
}

/* A new database gets this schema version, WAL mode and its five
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
			      " 'allotments', 'skipped', 'grants', 'away')"), 5);
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
	assert_int_equal(rs->job[0].use[USAGE_WORK], 5);
	assert_int_equal(rs->job[0].workers, 0);
	assert_int_equal(rs->job[0].use[USAGE_ALLOTTED], 0);
	assert_int_equal(rs->job[1].workers, 4);
	assert_int_equal(rs->job[1].use[USAGE_ALLOTTED], 4000000);
	assert_int_equal(rs->job[0].use[USAGE_SLEEP], 0);
	assert_int_equal(rs->job[1].use[USAGE_SLEEP], 500000);
	assert_int_equal(rs->job[1].use[USAGE_PREEMPTED], 250000);
	assert_int_equal(rs->nruns, 2);
	assert_string_equal(rs->run[0].cpus, "0-1");
	assert_int_equal(rs->run[0].last_quantum, 9);
	assert_int_equal(rs->run[0].use[USAGE_ALLOTTED], 0);
	assert_int_equal(rs->run[1].use[USAGE_ALLOTTED], 4000000);
	assert_int_equal(rs->run[0].use[USAGE_PREEMPTED], 0);
	assert_int_equal(rs->run[1].use[USAGE_PREEMPTED], 250000);
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
	assert_int_equal(rs->job[0].use[USAGE_WORK], 5 + 1000000);
	assert_int_equal(rs->job[0].use[USAGE_STEAL], 6 + 2000000);
	assert_int_equal(rs->job[0].use[USAGE_SLEEP], 500000 + 7);
	assert_int_equal(rs->job[0].use[USAGE_PREEMPTED], 250000 + 3);
	assert_int_equal(rs->job[0].use[USAGE_ALLOTTED], 18 + 4000000 + 10);
	assert_int_equal(rs->job[1].end_ns, T0 + 100);
	assert_int_equal(rs->job[1].use[USAGE_STEAL], 2);
	assert_int_equal(rs->job[1].use[USAGE_SLEEP], 0);
	assert_int_equal(rs->job[1].use[USAGE_ALLOTTED], 6);
	assert_int_equal(rs->nruns, 3);
	assert_int_equal(rs->run[0].use[USAGE_SLEEP], 0);
	assert_int_equal(rs->run[0].use[USAGE_ALLOTTED], 18);
	assert_int_equal(rs->run[1].use[USAGE_SLEEP], 500000 + 7);
	assert_int_equal(rs->run[1].use[USAGE_PREEMPTED], 250000 + 3);
	assert_int_equal(rs->run[2].use[USAGE_PREEMPTED], 0);
	free(rs);
	history_close(h);
	reopen_unchanged(f, 2);
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
	    "DROP TABLE a4; DROP TABLE grants; DROP TABLE away;" BEFORE_V8
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

/* A version 6 file is older than the one before: a reader refuses it, and
 * a daemon upgrades it: its rows stay and it gets the table away, whose
 * rows add to their jobs' totals (and a stale row's recomputed totals). */
static void test_upgrade_v6(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	struct history_quantum q;
	struct history_stats s;
	const int64_t use[USAGE_N] = { 1, 2, 3, 4, 5, 6 };
	char why[256] = "";
	int64_t a, b;
	sqlite3 *db;

	a = begin(h, "a", 1, T0);
	q = quantum(T0, 0, 2, 2, 2, "0-1", HISTORY_SATISFIED);
	assert_int_equal(history_allot(h, a, &q), 0);
	assert_int_equal(history_job_end(h, a, T0 + QNS, NULL), 0);
	history_close(h);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE away;" BEFORE_V8
				      " PRAGMA user_version = 6", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_null(history_open_readonly(f->path, why, sizeof(why)));
	assert_non_null(strstr(why, "schema version 6 is older"));
	assert_int_equal(peek(f->path, "PRAGMA user_version"), 6);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM sqlite_master"
			      " WHERE name = 'away'"), 0);
	h = open_ok(f, NULL);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	assert_int_equal(history_stats(h, &s), 0);
	assert_int_equal(s.quantum_base, 1);
	assert_int_equal(peek(f->path, "SELECT count(*) FROM sqlite_master"
			      " WHERE name IN ('away', 'away_by_job')"), 2);
	assert_int_equal(stats(h).jobs, 1);
	assert_int_equal(stats(h).allotment_rows, 1);
	b = begin(h, "b", 2, T0 + 5 * QNS);
	assert_int_equal(history_away(h, b, T0 + 6 * QNS, use), 0);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT at_ns FROM away"), T0 + 6 * QNS);
	assert_int_equal(peek(f->path, "SELECT allotted_ns FROM jobs WHERE"
			      " name = 'b'"), 6);
	/* Closed as stale (its daemon gone), its totals are its runs' and
	 * its usage away's. */
	h = open_ok(f, NULL);
	assert_int_equal(history_close_stale(h, T0 + 100 * QNS, 0), 1);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT work_ns + steal_ns + mug_ns +"
			      " sleep_ns + preempted_ns + allotted_ns FROM jobs"
			      " WHERE name = 'b'"), 21);
}

#define NS 1000000000LL                 /* a second, ns */

/* Begin a job named name with a time limit. */
static int64_t begin_limited(struct history *h, const char *name,
			     int64_t limit_ns)
{
	struct history_job j = {
		.name = name, .uid = 1000, .pid = 7, .command = "fib 30",
		.start_ns = T0, .workers = 4, .time_limit_ns = limit_ns,
	};
	int64_t id = history_job_begin(h, &j);

	assert_true(id > 0);
	return id;
}

/* A job's time limit is written with its row, its time out after, before
 * or after its end; the query reports both. */
static void test_time_limit(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	int64_t a, b, c;
	struct rows *rs;

	a = begin_limited(h, "a", 60 * NS);
	b = begin_limited(h, "b", 0);
	c = begin_limited(h, "c", 2 * NS);
	assert_int_equal(history_job_timeout(h, a), 0);
	assert_int_equal(history_job_end(h, a, T0 + NS, NULL), 0);
	assert_int_equal(history_job_end(h, c, T0 + NS, NULL), 0);
	assert_int_equal(history_job_timeout(h, c), 0);   /* after the end */
	assert_int_equal(history_job_timeout(h, 999), -1);
	assert_int_equal(history_job_begin(h, &(struct history_job){
		.name = "x", .pid = 1, .start_ns = T0, .time_limit_ns = -1 }), -1);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 3);
	assert_int_equal(rs->job[0].id, a);
	assert_int_equal(rs->job[0].time_limit_ns, 60 * NS);
	assert_int_equal(rs->job[0].timed_out, 1);
	assert_int_equal(rs->job[1].time_limit_ns, 0);
	assert_int_equal(rs->job[1].timed_out, 0);
	assert_int_equal(rs->job[2].time_limit_ns, 2 * NS);
	assert_int_equal(rs->job[2].timed_out, 1);
	free(rs);
	history_close(h);
	assert_int_equal(peek(f->path, "SELECT time_limit_ns FROM jobs WHERE"
			      " name = 'c'"), 2 * NS);
	(void)b;
}

/* A version 7 file (no time limits) is read as it is, its jobs without a
 * limit, and upgraded to 8 when a daemon opens it: its rows stay, their
 * limits 0, and new rows have theirs. */
static void test_upgrade_v7(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	char why[256] = "";
	struct rows *rs;
	int64_t b;
	sqlite3 *db;

	begin(h, "a", 1, T0);
	history_close(h);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, BEFORE_V8 " PRAGMA user_version = 7",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	h = history_open_readonly(f->path, why, sizeof(why));
	if (h == NULL)
		fail_msg("history_open_readonly: %s", why);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 1);
	assert_int_equal(rs->job[0].time_limit_ns, 0);
	assert_int_equal(rs->job[0].timed_out, 0);
	free(rs);
	history_close(h);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), 7);
	h = open_ok(f, NULL);
	assert_int_equal(peek(f->path, "PRAGMA user_version"), 8);
	b = begin_limited(h, "b", 5 * NS);
	assert_int_equal(history_job_timeout(h, b), 0);
	rs = query(h, NULL);
	assert_int_equal(rs->njobs, 2);
	assert_int_equal(rs->job[0].time_limit_ns, 0);
	assert_int_equal(rs->job[0].timed_out, 0);
	assert_int_equal(rs->job[1].time_limit_ns, 5 * NS);
	assert_int_equal(rs->job[1].timed_out, 1);
	free(rs);
	history_close(h);
	/* A version 6 file is older than the one before: refused. */
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 6", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_null(history_open_readonly(f->path, why, sizeof(why)));
	assert_non_null(strstr(why, "schema version 6 is older"));
}

/* A newer schema and another program's database are refused. */
static void test_refused(void **state)
{
	struct fixture *f = *state;
	char why[256] = "";
	sqlite3 *db;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 9", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_null(history_open(f->path, NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "database schema version 9 is newer than"
			       " this asteald (8)"));
	unlink(f->path);

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_null(history_open(f->path, NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "not an asteal history database"));
	unlink(f->path);

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

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
		T(test_create),
		T(test_upgrade_v1),
		T(test_upgrade_v3),
		T(test_upgrade_v4),
		T(test_upgrade_v6),
		T(test_upgrade_v7),
		T(test_time_limit),
		T(test_refused),
		T(test_file_modes),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
