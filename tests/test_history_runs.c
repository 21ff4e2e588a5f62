/*
 * test_history_runs.c - asteald's history in SQLite, what it records: a
 * job's round trip (its fields, end, exit status, workers and totals),
 * runs of unchanged quanta as one row, a scripted sequence of changes as
 * exactly its rows, a deprived job's allotment taking turns between two
 * values as one row, a class given to the run that holds its quantum
 * (none when no quantum of it was reported), runs fed by changes as the
 * daemon feeds them (open
 * ones reaching the last quantum announced), and storage that does not
 * grow with time.
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
	assert_int_equal(rs->job[0].use[USAGE_WORK], 1000000);
	assert_int_equal(rs->job[0].use[USAGE_STEAL], 2000000);
	assert_int_equal(rs->job[0].use[USAGE_MUG], 3000000);
	assert_int_equal(rs->job[0].workers, 4);
	assert_int_equal(rs->job[0].use[USAGE_ALLOTTED], 4000000);     /* its one run */
	assert_int_equal(rs->job[0].use[USAGE_SLEEP], 500000);
	assert_int_equal(rs->job[0].use[USAGE_PREEMPTED], 250000);
	assert_int_equal(rs->job[1].id, b);
	assert_int_equal(rs->job[1].end_ns, 0);
	assert_false(rs->job[1].has_exit);
	assert_int_equal(rs->nruns, 1);
	assert_int_equal(rs->run[0].job, a);
	assert_string_equal(rs->run[0].cpus, "0");
	assert_int_equal(rs->run[0].use[USAGE_ALLOTTED], 4000000);
	assert_int_equal(rs->run[0].use[USAGE_SLEEP], 500000);
	assert_int_equal(rs->run[0].use[USAGE_PREEMPTED], 250000);
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
	assert_int_equal(rs->job[0].use[USAGE_ALLOTTED], 0);           /* no runs */
	free(rs);
	history_close(h);
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
	assert_int_equal(rs->run[0].use[USAGE_WORK], 1000 * 1000000LL);
	assert_int_equal(rs->run[0].use[USAGE_STEAL], 1000 * 2000000LL);
	assert_int_equal(rs->run[0].use[USAGE_MUG], 1000 * 3000000LL);
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
		assert_int_equal(rs->run[r].use[USAGE_WORK],
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

	q.use[USAGE_WORK] = q.use[USAGE_STEAL] = q.use[USAGE_MUG] = q.use[USAGE_ALLOTTED] = 0;
	q.use[USAGE_SLEEP] = q.use[USAGE_PREEMPTED] = 0;
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
	q.use[USAGE_WORK] = q.use[USAGE_STEAL] = q.use[USAGE_MUG] = q.use[USAGE_ALLOTTED] = 0;
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
	q.use[USAGE_WORK] = q.use[USAGE_STEAL] = q.use[USAGE_MUG] = q.use[USAGE_ALLOTTED] = 0;
	assert_int_equal(history_allot(h, b, &q), 0);
	assert_int_equal(history_advance(h, 41, T0 + 42 * QNS), 0);
	assert_int_equal(history_advance(h, 40, T0 + 41 * QNS), -1);
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 3);
	assert_int_equal(rs->run[0].job, a);
	assert_int_equal(rs->run[0].first_quantum, 3);
	assert_int_equal(rs->run[0].last_quantum, 41);
	assert_int_equal(rs->run[0].end_ns, T0 + 42 * QNS);
	assert_int_equal(rs->run[0].use[USAGE_WORK], 5 + 37);
	assert_int_equal(rs->run[0].use[USAGE_ALLOTTED], 8 + 37);
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

/* A class reported for a quantum goes to the run that holds that
 * quantum: a run with none reported has none (HISTORY_CLASS_NONE), a
 * later quantum's class replaces an earlier one's, and one for a quantum
 * of a run already closed is dropped rather than given to the next. */
static void test_class_of_its_quantum(void **state)
{
	struct fixture *f = *state;
	struct history *h = open_ok(f, NULL);
	int64_t id = begin(h, "fib", 1, T0);
	struct history_quantum q;
	struct rows *rs;

	/* quanta 0-4: desire 1, allotment 1; 5-9: desire 2, allotment 1 */
	for (int i = 0; i < 10; i++) {
		q = quantum(T0, i, i < 5 ? 1 : 2, 2, 1, "0", HISTORY_CLASS_NONE);
		assert_int_equal(history_allot(h, id, &q), 0);
		if (i == 2)
			assert_int_equal(history_class(h, id, 1, HISTORY_INEFFICIENT), 0);
		if (i == 4)     /* the Feedback that raised the desire */
			assert_int_equal(history_class(h, id, 4, HISTORY_SATISFIED), 0);
		if (i == 6) {   /* a late one, for quantum 4: dropped */
			assert_int_equal(history_class(h, id, 4, HISTORY_INEFFICIENT), 0);
			assert_int_equal(history_class(h, id, 5, HISTORY_DEPRIVED), 0);
		}
	}
	q = quantum(T0, 10, 1, 2, 1, "0", HISTORY_CLASS_NONE);
	assert_int_equal(history_allot(h, id, &q), 0);
	assert_int_equal(history_class(h, id, 10, 5), -1);
	assert_int_equal(history_class(h, id + 1, 10, HISTORY_DEPRIVED), -1);
	rs = query(h, NULL);
	assert_int_equal(rs->nruns, 3);
	assert_int_equal(rs->run[0].last_quantum, 4);
	assert_int_equal(rs->run[0].cls, HISTORY_SATISFIED);
	assert_int_equal(rs->run[1].desire, 2);
	assert_int_equal(rs->run[1].cls, HISTORY_DEPRIVED);
	assert_int_equal(rs->run[2].cls, HISTORY_CLASS_NONE);
	free(rs);
	history_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
		T(test_job_round_trip),
		T(test_one_row),
		T(test_changes),
		T(test_turns),
		T(test_class_of_its_quantum),
		T(test_fed_by_changes),
		T(test_storage_flat),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
