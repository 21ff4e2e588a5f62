/*
 * test_history_failure.c - asteald's history in SQLite when things go
 * wrong: bad arguments (-1 or NULL with a message, never a crash); job
 * totals that are their runs' sums, and quanta that go on, after a
 * daemon killed at any point; a damaged file moved aside; a full disk,
 * which degrades the history without refusing jobs until it catches up,
 * and a grant written once space returns.  (The daemon's side of these:
 * test_histfail.)
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
#include <sys/mount.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <sqlite3.h>

#define HISTUTIL_FIXTURE
#include "histutil.h"
#include "history.h"

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
	q.cls = HISTORY_CLASS_NONE - 1;
	assert_int_equal(history_allot(h, id, &q), -1);
	assert_int_equal(history_class(NULL, id, 0, HISTORY_SATISFIED), -1);
	assert_int_equal(history_class(h, id, -1, HISTORY_SATISFIED), -1);
	assert_int_equal(history_class(h, id, 0, HISTORY_CLASS_NONE), -1);
	assert_int_equal(history_class(h, id + 1, 0, HISTORY_SATISFIED), -1);
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
	assert_int_equal(rs->job[1].use[USAGE_WORK], 40 * (1000000 + 5));
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
		T(test_bad_args),
		T(test_crash_totals),
		T(test_damaged),
		T(test_full_disk),
		T(test_grant_full_disk),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
