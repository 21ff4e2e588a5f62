/*
 * test_adapt.c - A-STEAL inside libasteal: allotment changes under a
 * scripted profile with 1 ms quanta.  Every task runs exactly once while
 * workers leave at safe points and their deques are mugged; mugs and
 * revocations are seen and measured; an allotment of zero stalls the job
 * without losing it; a job with no root task in flight has desire and
 * allotment 0, and its idle quanta are judged in no class; static mode has
 * no quanta; bad settings are refused with a clear error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "asteal.h"
#include "testutil.h"

static char profile_path[64];
static char trace_path[64];

/* Write a profile file of `lines` availabilities: the n of p, repeated. */
static void write_profile(const int *p, int n, int lines)
{
	FILE *f;
	int i;

	snprintf(profile_path, sizeof(profile_path), "/tmp/asteal-test-prof.%d",
	         (int)getpid());
	f = fopen(profile_path, "w");
	assert_non_null(f);
	for (i = 0; i < lines; i++)
		fprintf(f, "%d\n", p[i % n]);
	assert_int_equal(fclose(f), 0);
}

/* Set the environment of an adaptive run: mode, 1 ms quanta, a profile. */
static void adaptive_env(const char *mode)
{
	setenv("ASTEAL_MODE", mode, 1);
	setenv("ASTEAL_QUANTUM_MS", "1", 1);
	setenv("ASTEAL_PROFILE", profile_path, 1);
}

/* Clear everything a test set, so the next one starts from defaults. */
static int clear_env(void **state)
{
	(void)state;
	test_stop_leftover(state);
	unsetenv("ASTEAL_MODE");
	unsetenv("ASTEAL_QUANTUM_MS");
	unsetenv("ASTEAL_PROFILE");
	unsetenv("ASTEAL_TRACE");
	unsetenv("ASTEAL_DELTA");
	unsetenv("ASTEAL_RHO");
	unsetenv("ASTEAL_STATS");
	if (profile_path[0])
		unlink(profile_path);
	if (trace_path[0])
		unlink(trace_path);
	return 0;
}

/* Start a runtime of w workers. */
static void start(int w)
{
	asteal_options o;

	asteal_options_init(&o);
	o.workers = w;
	assert_int_equal(asteal_start(&o), 0);
}

/* ---- every task exactly once while the allotment changes ---- */

struct hits {
	_Atomic uint8_t *count;    /* one per leaf */
	long grain;
	int spin;                  /* busy units per leaf */
};

struct part {
	struct hits *h;
	long lo, hi;
};

static void part_task(void *p);

/* Divide [lo, hi) in halves with spawn and sync; leaves count their index
 * and spin a little, polling. */
static void part_run(struct hits *h, long lo, long hi)
{
	if (hi - lo <= h->grain) {
		long i;
		for (i = lo; i < hi; i++) {
			volatile unsigned x = 0;
			int k;
			atomic_fetch_add_explicit(&h->count[i], 1, memory_order_relaxed);
			for (k = 0; k < h->spin; k++) {
				x += (unsigned)k;
				if ((k & 255) == 0)
					asteal_poll();
			}
		}
		return;
	}
	{
		struct part left = { h, lo, lo + (hi - lo) / 2 };
		asteal_group g;
		asteal_group_init(&g);
		asteal_spawn(&g, part_task, &left);
		part_run(h, left.hi, hi);
		assert_int_equal(asteal_sync(&g), 0);
	}
}

/* Task wrapper of part_run. */
static void part_task(void *p)
{
	struct part *a = p;

	part_run(a->h, a->lo, a->hi);
}

/* Run one divide-and-conquer over n leaves and check each ran once. */
static void run_once_each(long n, int spin)
{
	struct hits h = { calloc((size_t)n, 1), 4, spin };
	struct part all = { &h, 0, n };
	long i;

	assert_non_null(h.count);
	assert_int_equal(asteal_run(part_task, &all), 0);
	for (i = 0; i < n; i++)
		if (h.count[i] != 1)
			fail_msg("leaf %ld ran %d times", i, (int)h.count[i]);
	free(h.count);
}

/* With availability swinging between 4 and 1 every 2 ms, workers leave
 * in the middle of tasks; every task still runs exactly once, and (run
 * until both are seen, within a bound) deques get mugged and revocations
 * are carried out and measured. */
static void test_exactly_once_with_mugs(void **state)
{
	int prof[] = { 4, 4, 1, 1 };
	asteal_summary s;
	double bound = test_sanitized() ? 60.0 : 20.0, end = test_now() + bound;
	long n = test_scale(200000, 3, 10);

	(void)state;
	/* The swings last as long as the loop below may (1 ms quanta, from
	 * the runtime's start): after the profile's end its last line
	 * repeats, and nothing would change any more. */
	write_profile(prof, 4, (int)(bound * 1000.0) + 1000);
	adaptive_env("asteal");
	start(4);
	do {
		run_once_each(n, 200);
		assert_int_equal(asteal_summary_get(&s), 0);
		/* (leaves alone can be the workers that start parked; a
		 * revocation counts once its last leaver parked) */
	} while ((s.mugs == 0 || s.leaves == 0 || s.revocations == 0) &&
	         test_now() < end);
	assert_true(s.leaves > 0);
	assert_true(s.mugs > 0);
	assert_true(s.revocations > 0);
	assert_true(s.latency_max_ns >= s.latency_p99_ns);
	assert_true(s.latency_p99_ns >= s.latency_p50_ns);
	assert_true(s.quanta > 0);
	assert_string_equal(s.mode, "asteal");
	assert_int_equal(asteal_stop(), 0);
}

/* ABP under the same profile: still exactly once; no feedback, so the
 * desire stays at the worker count. */
static void test_abp_exactly_once(void **state)
{
	int p[400], i;
	asteal_summary s;

	(void)state;
	for (i = 0; i < 400; i++)
		p[i] = (i / 2) % 2 ? 1 : 4;
	write_profile(p, 400, 400);
	adaptive_env("abp");
	start(4);
	run_once_each(test_scale(100000, 3, 10), 200);
	assert_int_equal(asteal_summary_get(&s), 0);
	assert_string_equal(s.mode, "abp");
	assert_true(s.desire == 4.0);
	assert_int_equal(s.mugs, 0);
	assert_int_equal(asteal_stop(), 0);
}

/* Availability 0 for the first quanta: nothing runs, then the job runs
 * to the end when processors come. */
static void test_zero_availability(void **state)
{
	int p[] = { 0, 0, 0, 0, 0, 2 };
	asteal_summary s;

	(void)state;
	write_profile(p, 6, 6);
	adaptive_env("asteal");
	start(2);
	run_once_each(1000, 10);
	assert_int_equal(asteal_summary_get(&s), 0);
	/* It waited until quantum 6: five quanta closed, or skipped when
	 * the link thread was late for their boundaries. */
	assert_true(s.quanta + s.skipped >= 5);
	assert_int_equal(asteal_stop(), 0);
}

/* Static mode: no quanta, every worker always allotted. */
static void test_static(void **state)
{
	asteal_summary s;
	asteal_worker_stats st[3];
	int i;

	(void)state;
	setenv("ASTEAL_MODE", "static", 1);
	start(3);
	run_once_each(20000, 50);
	assert_int_equal(asteal_summary_get(&s), 0);
	assert_string_equal(s.mode, "static");
	assert_int_equal(s.quanta, 0);
	assert_int_equal(s.allotment, 3);
	assert_int_equal(asteal_stats(st, 3), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(st[i].leaves, 0);
		assert_int_equal(st[i].park_ns, 0);
	}
	assert_int_equal(asteal_stop(), 0);
}

/* One row of the ASTEAL_TRACE file. */
struct trace_row {
	unsigned long long q, w, st, mg, al, clk, sl, pre, lv;
	long long t;
	int d, av, a;
	double dr;
	char cls[32];
};

/* Have the runtime started next write its trace to trace_path. */
static void trace_env(void)
{
	snprintf(trace_path, sizeof(trace_path), "/tmp/asteal-test-trace.%d",
	         (int)getpid());
	setenv("ASTEAL_TRACE", trace_path, 1);
}

/* Open the trace written, past its header (checked). */
static FILE *trace_open(void)
{
	char line[512];
	FILE *f = fopen(trace_path, "r");

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "quantum,time_ns,desire,desire_real,availability,"
	                    "allotment,work_ns,steal_ns,mug_ns,allotted_ns,class,"
	                    "clock_ns,sleep_ns,preempted_ns,leave_ns,judged_usage_ns,"
	                    "judged_allotted_ns\n");
	return f;
}

/* Read the next row into r, its text into line: 0 at the end. */
static int trace_next(FILE *f, char *line, size_t len, struct trace_row *r)
{
	if (fgets(line, (int)len, f) == NULL)
		return 0;
	assert_int_equal(sscanf(line, "%llu,%lld,%d,%lf,%d,%d,%llu,%llu,%llu,"
	                        "%llu,%31[a-z],%llu,%llu,%llu,%llu", &r->q, &r->t,
	                        &r->d, &r->dr, &r->av, &r->a, &r->w, &r->st, &r->mg,
	                        &r->al, r->cls, &r->clk, &r->sl, &r->pre, &r->lv), 15);
	return 1;
}

/* The trace has the header and one row per finished quantum, whose
 * allotment is min(desire, availability). */
static void test_trace(void **state)
{
	int p[] = { 3, 1, 2, 3, 0, 3, 2 };
	char line[512];
	struct trace_row r;
	FILE *f;
	long rows = 0;
	unsigned long long prev_q = 0, prev_clk = 0;
	long long prev_t = 0;
	asteal_summary s;

	(void)state;
	write_profile(p, 7, 7);
	trace_env();
	adaptive_env("asteal");
	start(3);
	run_once_each(test_scale(100000, 3, 10), 300);
	assert_int_equal(asteal_summary_get(&s), 0);
	assert_int_equal(asteal_stop(), 0);
	f = trace_open();
	while (trace_next(f, line, sizeof(line), &r)) {
		rows++;
		/* Quanta rise from 1 (a boundary the link thread was late
		 * for is skipped), on the grid of the runtime's start. */
		assert_true(rows == 1 ? r.q == 1 : r.q > prev_q);
		assert_true(rows == 1 ? r.t == 0 : r.t > prev_t);
		if (rows > 1)
			assert_int_equal(r.clk - prev_clk,
			                 (unsigned long long)(r.t - prev_t));
		prev_q = r.q;
		prev_t = r.t;
		prev_clk = r.clk;
		assert_int_equal(r.av, p[r.q - 1 < 7 ? r.q - 1 : 6]);
		assert_int_equal(r.a, r.d < r.av ? r.d : r.av);
		if (strcmp(r.cls, "idle") == 0) {
			/* no root task in flight (after the run): nothing asked */
			assert_int_equal(r.d, 0);
			assert_true(r.dr == 0.0);
		} else {
			assert_true(r.d >= 1 && r.d <= 3);
			assert_true(r.dr >= 1.0 && r.dr <= 3.0 &&
			            r.d == (int)r.dr + (r.dr > (int)r.dr));
		}
		assert_int_equal(r.al, r.w + r.st + r.mg + r.sl + r.pre);
	}
	fclose(f);
	assert_true(rows >= (long)s.quanta && rows > 0);
}

/* The summary's quanta have reached *(uint64_t *)arg. */
static int quanta_reached(void *arg)
{
	asteal_summary s;

	return asteal_summary_get(&s) == 0 && s.quanta >= *(uint64_t *)arg;
}

/* The job is idle: desire 0, allotment 0. */
static int idle_now(void *arg)
{
	asteal_summary s;

	(void)arg;
	return asteal_summary_get(&s) == 0 && s.desire == 0.0 && s.allotment == 0;
}

/* The quanta the summary gives a class. */
static uint64_t judged(const asteal_summary *s)
{
	return s->inefficient + s->satisfied + s->deprived;
}

/* Without a daemon, a job with no root task in flight (before its first
 * asteal_run, between calls) has desire 0 and allotment 0, whatever the
 * profile offers; its idle quanta are judged in no class (not
 * inefficient) and its trace rows say "idle"; a root task starts it
 * again from desire 1, at once. */
static void test_idle_between_runs(void **state)
{
	int prof[] = { 2 };
	double bound = test_sanitized() ? 60.0 : 20.0;
	long n = test_scale(100000, 3, 10), rows = 0, idle = 0, starts = 0;
	asteal_summary s;
	uint64_t want, before;
	char line[512], prev[32] = "idle";
	struct trace_row r;
	FILE *f;

	(void)state;
	write_profile(prof, 1, 1);
	trace_env();
	adaptive_env("asteal");
	start(2);
	/* Before the first asteal_run. */
	want = 3;
	assert_int_equal(test_wait(quanta_reached, &want, bound), 0);
	assert_int_equal(asteal_summary_get(&s), 0);
	assert_true(s.desire == 0.0);
	assert_int_equal(s.allotment, 0);
	assert_int_equal(judged(&s), 0);
	run_once_each(n, 50);
	/* After it: idle at a boundary, and idle quanta judged in no class. */
	assert_int_equal(test_wait(idle_now, NULL, bound), 0);
	assert_int_equal(asteal_summary_get(&s), 0);
	before = judged(&s);
	assert_true(before > 0);
	want = s.quanta + 3;
	assert_int_equal(test_wait(quanta_reached, &want, bound), 0);
	assert_int_equal(asteal_summary_get(&s), 0);
	assert_int_equal(judged(&s), before);
	assert_true(s.desire == 0.0);
	assert_int_equal(s.allotment, 0);
	run_once_each(n, 50);
	assert_int_equal(asteal_stop(), 0);
	/* The trace: idle rows ask for nothing and get nothing; the row of
	 * a quantum a root task started in, after idle ones, says 1 (d_1). */
	f = trace_open();
	while (trace_next(f, line, sizeof(line), &r)) {
		rows++;
		if (r.av != 2)
			fail_msg("trace row %s", line);
		if (strcmp(r.cls, "idle") == 0) {
			idle++;
			if (r.d != 0 || r.dr != 0.0 || r.a != 0)
				fail_msg("idle trace row %s", line);
		} else {
			if (r.d < 1 || r.d > 2 || r.a != r.d)
				fail_msg("trace row %s", line);
			if (strcmp(prev, "idle") == 0) {
				starts++;
				if (r.d != 1 || r.dr != 1.0)
					fail_msg("trace row after idle ones %s", line);
			}
		}
		snprintf(prev, sizeof(prev), "%s", r.cls);
	}
	fclose(f);
	assert_true(idle >= 6);         /* 3 before the first run, 3 between */
	assert_int_equal(starts, 2);
	assert_true(rows > idle);
}

/* A root task with nothing to do. */
static void nothing(void *arg)
{
	(void)arg;
}

/* In a child (no cmocka asserts here: exit codes), with the parent's
 * environment: start, wait for idle quanta, run, stop. */
static void stats_child(void)
{
	asteal_options o;
	uint64_t want = 3;

	asteal_options_init(&o);
	o.workers = 2;
	if (asteal_start(&o) < 0)
		exit(2);
	if (test_wait(quanta_reached, &want, 60.0) < 0 ||
	    asteal_run(nothing, NULL) < 0)
		exit(3);
	exit(asteal_stop() == 0 ? 0 : 4);
}

/* ASTEAL_STATS says how many quanta the job spent idle (in no class). */
static void test_stats_idle(void **state)
{
	char buf[8192];
	const char *l;
	unsigned long long quanta = 0, idle = 0;
	int prof[] = { 2 }, status;

	(void)state;
	write_profile(prof, 1, 1);
	adaptive_env("asteal");
	setenv("ASTEAL_STATS", "1", 1);
	status = test_in_child(stats_child, buf, sizeof(buf));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	l = strstr(buf, "asteal: mode=asteal");
	assert_non_null(l);
	l = strstr(l, " quanta=");
	assert_non_null(l);
	assert_int_equal(sscanf(l, " quanta=%llu idle=%llu", &quanta, &idle), 2);
	assert_true(idle >= 3 && idle < quanta);
}

/* Bad settings: asteal_start fails with EINVAL, nothing keeps running. */
static void test_bad_settings(void **state)
{
	static const char *const bad[][2] = {
		{ "ASTEAL_MODE", "fast" },
		{ "ASTEAL_DELTA", "1.5" },
		{ "ASTEAL_DELTA", "x" },
		{ "ASTEAL_RHO", "1" },
		{ "ASTEAL_QUANTUM_MS", "0" },
		{ "ASTEAL_QUANTUM_MS", "10ms" },
		{ "ASTEAL_PROFILE", "/nonexistent/profile" },
		{ "ASTEAL_TRACE", "/nonexistent/dir/trace.csv" },
	};
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(bad[i][0], bad[i][1], 1);
		errno = 0;
		assert_int_equal(asteal_start(NULL), -1);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(asteal_workers(), 0);
		unsetenv(bad[i][0]);
	}
	/* a profile with a bad line */
	snprintf(profile_path, sizeof(profile_path), "/tmp/asteal-test-prof.%d",
	         (int)getpid());
	f = fopen(profile_path, "w");
	assert_non_null(f);
	fputs("2\n# a comment\n3\nlots\n", f);
	fclose(f);
	setenv("ASTEAL_PROFILE", profile_path, 1);
	assert_int_equal(asteal_start(NULL), -1);
	assert_int_equal(errno, EINVAL);
	/* a profile whose last availability, which holds for ever, is 0 */
	f = fopen(profile_path, "w");
	assert_non_null(f);
	fputs("2\n1\n0\n", f);
	fclose(f);
	assert_int_equal(asteal_start(NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(asteal_workers(), 0);
	unlink(profile_path);
	unsetenv("ASTEAL_PROFILE");
	/* and the defaults still start */
	assert_int_equal(asteal_start(NULL), 0);
	assert_int_equal(asteal_stop(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_exactly_once_with_mugs, clear_env),
		cmocka_unit_test_teardown(test_abp_exactly_once, clear_env),
		cmocka_unit_test_teardown(test_zero_availability, clear_env),
		cmocka_unit_test_teardown(test_static, clear_env),
		cmocka_unit_test_teardown(test_trace, clear_env),
		cmocka_unit_test_teardown(test_idle_between_runs, clear_env),
		cmocka_unit_test_teardown(test_stats_idle, clear_env),
		cmocka_unit_test_teardown(test_bad_settings, clear_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
