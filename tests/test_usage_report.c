/*
 * test_usage_report.c - a job's usage end to end, on a real asteald (build/bin
 * from ASTEAL_TEST_BUILD, on a private socket and database) over the raw
 * protocol: a job peer sends Feedbacks whose totals (work, steal, mug,
 * sleep, preempted, allotted) are known, and each total comes back as
 * sent: in the Jobs reply while the job runs, in its JobRecord and summed
 * over its AllotmentRecords once it has ended, and through the command
 * line (`asteal --json jobs`, `asteal --json history`, `asteal history
 * --jobs --format csv`); the class a Feedback reports, given to the run
 * that holds the quantum it closes.  Across a restart, a job that claims
 * its id again with its usage totals since it first joined (Hello) has
 * what its history lacked of them added once, as usage away (its totals,
 * no run), and listed; one whose totals no job's workers could have used
 * is taken back all the same, nothing added, the log naming the field.
 * Every wait is on a condition with a deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "daemonutil.h"

/* Usage totals in the order work, steal, mug, allotted, sleep,
 * preempted (TDAEMON_NUSE; the allotted time is the sum of the others). */
#define NUSE TDAEMON_NUSE
static const uint64_t first[NUSE] = { 3000000, 1000000, 500000, 8000000,
                                      2000000, 1500000 };
static const uint64_t last[NUSE] = { 9000000, 2000000, 1000000, 22000000,
                                     7000000, 3000000 };

static struct tdaemon d;

/* A job peer: its connection, reader and quanta. */
struct job {
	int fd;
	struct frame_reader *r;
	uint64_t id, t0, L;
};

/* Stop the daemon a test started: it must exit 0. */
static int stop(void **state)
{
	(void)state;
	return tdaemon_stop(&d);
}

/* The quantum running now on the job's grid. */
static uint64_t quantum_now(const struct job *j)
{
	uint64_t now = qtime_now_ns();

	return now > j->t0 ? (now - j->t0) / j->L : 0;
}

/* A job and the quantum its last Feedback closed. */
struct closed {
	const struct job *j;
	uint64_t q;
};

/* Whether the quantum running now is after the one closed (arg). */
static int quantum_passed(void *arg)
{
	const struct closed *c = arg;

	return quantum_now(c->j) > c->q;
}

/* Connect a job of 2 workers, claiming id claim (0: none) with usage
 * totals tot (NULL: none), and take its Welcome. */
static void job_claim(struct job *j, uint64_t claim, const uint64_t *tot)
{
	Asteal__Envelope env, *m;
	Asteal__Hello h;
	Asteal__Usage use;

	j->fd = tdaemon_dial(&d);
	assert_true(j->fd >= 0);
	frame_hello(&env, &h, ASTEAL__ROLE__JOB, "test", 2, tdaemon_command, "test");
	h.job_id = claim;
	if (tot != NULL)
		h.usage = tdaemon_usage_msg(&use, tot);
	assert_int_equal(frame_write_fd(j->fd, &env), 0);
	j->r = frame_reader_new();
	assert_non_null(j->r);
	m = tdaemon_next(j->fd, j->r, tdaemon_bound());
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	j->id = m->welcome->job_id;
	j->t0 = m->welcome->t0_ns;
	j->L = (uint64_t)m->welcome->quantum_us * 1000;
	frame_free(m);
}

/* The ticks our daemon has run. */
static uint64_t ticks_run(void)
{
	Asteal__Envelope *m;
	uint64_t t = tdaemon_status(&d, &m)->ticks;

	frame_free(m);
	return t;
}

/* Whether our daemon has run *arg ticks. */
static int ticked(void *arg)
{
	return ticks_run() >= *(const uint64_t *)arg;
}

/* Wait for our daemon's next two ticks: a job connected before them has
 * its first run in the history (which the ticks begin), so that the
 * usage of its Feedbacks goes to a run (before any run, it would go to
 * its totals only, as usage away). */
static void two_ticks(void)
{
	uint64_t t = ticks_run() + 2;

	assert_int_equal(test_wait(ticked, &t, tdaemon_bound()), 0);
}

/* Connect a job of 2 workers and take its Welcome. */
static void job_connect(struct job *j)
{
	job_claim(j, 0, NULL);
}

/* Ask the daemon (a client connection of our own) and return the reply
 * of the wanted kind. */
static Asteal__Envelope *ask(Asteal__Envelope *req, Asteal__Envelope__MsgCase want)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m;
	int fd = tdaemon_dial(&d);

	assert_true(fd >= 0 && r != NULL);
	assert_int_equal(tdaemon_hello(fd, 0), 0);
	m = tdaemon_next(fd, r, tdaemon_bound());
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	frame_free(m);
	assert_int_equal(frame_write_fd(fd, req), 0);
	m = tdaemon_next(fd, r, tdaemon_bound());
	assert_non_null(m);
	assert_int_equal(m->msg_case, want);
	frame_reader_free(r);
	close(fd);
	return m;
}

/* A job and the usage totals a Jobs reply should list for it. */
struct says {
	uint64_t id;
	const uint64_t *tot;
};

/* Whether the Jobs reply lists the job of *arg (struct says) with its
 * totals. */
static int jobs_say(void *arg)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__JobsRequest jr = ASTEAL__JOBS_REQUEST__INIT;
	struct says *w = arg;
	uint64_t got[NUSE];
	int ok = 0;

	jr.ids = &w->id;
	jr.n_ids = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	env.jobs_request = &jr;
	m = ask(&env, ASTEAL__ENVELOPE__MSG_JOBS);
	if (m->jobs->n_jobs == 1) {
		tdaemon_usage(m->jobs->jobs[0]->usage, got);
		ok = memcmp(got, w->tot, sizeof(got)) == 0;
	}
	frame_free(m);
	return ok;
}

/* The job's history (one page: a few records): every record. */
static Asteal__Envelope *history(uint64_t *id, int jobs_only)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;

	hr.job_ids = id;
	hr.n_job_ids = 1;
	hr.jobs_only = jobs_only;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hr;
	m = ask(&env, ASTEAL__ENVELOPE__MSG_HISTORY);
	assert_false(m->history->more);
	return m;
}

/* Whether job *arg's history row has ended. */
static int row_ended(void *arg)
{
	Asteal__Envelope *m = history(arg, 1);
	int ended = m->history->n_jobs == 1 && m->history->jobs[0]->end_ns != 0;

	frame_free(m);
	return ended;
}

/* What `asteal ARGS` (the test build's, on our daemon's socket) prints,
 * into out; it must exit 0. */
static void cli(char *out, size_t len, const char *args)
{
	const char *b = getenv("ASTEAL_TEST_BUILD");
	char cmd[512];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s/bin/asteal --socket %s %s",
	         b ? b : "build", d.sock, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < len && !feof(p) && !ferror(p))
		n += fread(out + n, 1, len - 1 - n, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
}

/* The sum of the numbers after each "key": in text from at on. */
static uint64_t json_sum(const char *at, const char *key)
{
	uint64_t sum = 0;
	size_t n = strlen(key);

	while ((at = strstr(at, key)) != NULL) {
		at += n;
		sum += strtoull(at, NULL, 10);
	}
	return sum;
}

/* Job id's history: its JobRecord's totals in rec and its runs' sums in
 * runs (it has some), in the order of first and last. */
static void record_totals(uint64_t id, uint64_t rec[NUSE], uint64_t runs[NUSE])
{
	Asteal__Envelope *m = history(&id, 0);
	const Asteal__JobRecord *r;

	assert_int_equal(m->history->n_jobs, 1);
	r = m->history->jobs[0];
	tdaemon_usage(r->usage, rec);
	memset(runs, 0, NUSE * sizeof(*runs));
	assert_true(m->history->n_allotments >= 1);
	for (size_t i = 0; i < m->history->n_allotments; i++) {
		uint64_t sum[NUSE];

		tdaemon_usage(m->history->allotments[i]->usage, sum);
		for (int k = 0; k < NUSE; k++)
			runs[k] += sum[k];
	}
	frame_free(m);
}

/* Two Feedbacks with known totals: Jobs, History and the command line
 * report each total as sent, the runs' sums equal to the job's. */
static void test_usage_reported(void **state)
{
	static const char *const args[] = { "--quantum-ms", "10", NULL };
	static const char *const keys[NUSE] = { "\"work_ns\":\"", "\"steal_ns\":\"",
		"\"mug_ns\":\"", "\"allotted_ns\":\"", "\"sleep_ns\":\"",
		"\"preempted_ns\":\"" };
	struct job j;
	struct closed c = { &j, 0 };
	uint64_t rec[NUSE], sum[NUSE];
	static char out[65536];
	char want[256];
	const char *recs;
	int k;

	(void)state;
	assert_int_equal(tdaemon_start(&d, args, 0), 0);
	job_connect(&j);
	two_ticks();
	c.q = quantum_now(&j);
	assert_int_equal(tdaemon_feedback(j.fd, c.q, 1, 1, first,
	                 ASTEAL__QUANTUM_CLASS__SATISFIED), 0);
	assert_int_equal(test_wait(quantum_passed, &c, tdaemon_bound()), 0);
	assert_int_equal(tdaemon_feedback(j.fd, quantum_now(&j), 1, 1, last,
	                 ASTEAL__QUANTUM_CLASS__SATISFIED), 0);
	assert_int_equal(test_wait(jobs_say, &(struct says){ j.id, last },
	                           tdaemon_bound()), 0);

	/* The command line's jobs: the same totals. */
	cli(out, sizeof(out), "--json jobs");
	/* (every *_ns value a string: asteal(1), OUTPUT) */
	snprintf(want, sizeof(want), "\"work_ns\":\"%" PRIu64 "\",\"steal_ns\":\"%"
	         PRIu64 "\",\"mug_ns\":\"%" PRIu64 "\",\"sleep_ns\":\"%" PRIu64
	         "\",\"preempted_ns\":\"%" PRIu64 "\",\"allotted_ns\":\"%" PRIu64 "\"",
	         last[0], last[1], last[2], last[4], last[5], last[3]);
	if (strstr(out, want) == NULL)
		fail_msg("asteal --json jobs: no %s in %s", want, out);

	/* The job ends: its row and its runs hold the totals. */
	close(j.fd);
	frame_reader_free(j.r);
	assert_int_equal(test_wait(row_ended, &j.id, tdaemon_bound()), 0);
	record_totals(j.id, rec, sum);
	assert_memory_equal(rec, last, sizeof(rec));
	assert_memory_equal(sum, last, sizeof(sum));

	/* The command line's history: the job's totals, the runs' sums. */
	cli(out, sizeof(out), "--json history --jobs");
	if (strstr(out, want) == NULL)
		fail_msg("asteal --json history --jobs: no %s in %s", want, out);
	cli(out, sizeof(out), "--json history");
	recs = strstr(out, "\"allotments\":[");
	assert_non_null(recs);
	for (k = 0; k < NUSE; k++)
		if (json_sum(recs, keys[k]) != last[k])
			fail_msg("asteal --json history: the runs' %s add up to %" PRIu64
			         ", not %" PRIu64, keys[k], json_sum(recs, keys[k]), last[k]);
	cli(out, sizeof(out), "history --jobs --format csv");
	if (strstr(out, ",work_ns,steal_ns,mug_ns,sleep_ns,preempted_ns,workers,"
	           "allotted_ns\r\n") == NULL)
		fail_msg("asteal history --jobs --format csv: header %s", out);
	snprintf(want, sizeof(want), ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	         ",%" PRIu64 ",2,%" PRIu64 "\r\n", last[0], last[1], last[2], last[4],
	         last[5], last[3]);
	if (strstr(out, want) == NULL)
		fail_msg("asteal history --jobs --format csv: no %s in %s", want, out);
}

/* The job's next Allot of this allotment (others skipped): its quantum. */
static uint64_t allot_of(struct job *j, uint32_t allotment)
{
	for (;;) {
		Asteal__Envelope *m = tdaemon_next(j->fd, j->r, tdaemon_bound());
		uint64_t q;

		assert_non_null(m);
		if (m->msg_case == ASTEAL__ENVELOPE__MSG_ALLOT &&
		    m->allot->allotment == allotment) {
			q = m->allot->quantum;
			frame_free(m);
			return q;
		}
		frame_free(m);
	}
}

/* A Feedback's class describes the quantum it closes: it goes to the run
 * that holds that quantum, not to the run its new desire opens.  Here the
 * Feedback that raises the desire to 2 says its quantum (of desire 1) was
 * deprived, after one that said satisfied; the run of desire 2 takes only
 * the class of one of its own quanta. */
static void test_class_reported(void **state)
{
	static const char *const args[] = { "--quantum-ms", "100", NULL };
	struct job j;
	struct closed c = { &j, 0 };
	Asteal__Envelope *m;
	size_t i, seen = 0;

	(void)state;
	assert_int_equal(tdaemon_start(&d, args, 0), 0);
	job_connect(&j);
	c.q = allot_of(&j, 1);          /* its first run begins at c.q */
	assert_int_equal(test_wait(quantum_passed, &c, tdaemon_bound()), 0);
	assert_int_equal(tdaemon_feedback(j.fd, quantum_now(&j) - 1, 1, 1, first,
	                 ASTEAL__QUANTUM_CLASS__SATISFIED), 0);
	c.q = quantum_now(&j);
	assert_int_equal(test_wait(quantum_passed, &c, tdaemon_bound()), 0);
	assert_int_equal(tdaemon_feedback(j.fd, quantum_now(&j) - 1, 2, 2, first,
	                 ASTEAL__QUANTUM_CLASS__DEPRIVED), 0);
	c.q = allot_of(&j, 2);          /* the run of desire 2 */
	assert_int_equal(test_wait(quantum_passed, &c, tdaemon_bound()), 0);
	assert_int_equal(tdaemon_feedback(j.fd, quantum_now(&j) - 1, 2, 2, last,
	                 ASTEAL__QUANTUM_CLASS__INEFFICIENT), 0);
	c.q = quantum_now(&j);
	assert_int_equal(test_wait(quantum_passed, &c, tdaemon_bound()), 0);
	close(j.fd);
	frame_reader_free(j.r);
	assert_int_equal(test_wait(row_ended, &j.id, tdaemon_bound()), 0);
	m = history(&j.id, 0);
	for (i = 0; i < m->history->n_allotments; i++) {
		const Asteal__AllotmentRecord *a = m->history->allotments[i];

		if (a->desire == 1 && i + 1 < m->history->n_allotments &&
		    m->history->allotments[i + 1]->desire == 2) {
			assert_int_equal(a->quantum_class, ASTEAL__QUANTUM_CLASS__DEPRIVED);
			seen++;
		}
		if (a->desire == 2) {
			assert_int_equal(a->quantum_class, ASTEAL__QUANTUM_CLASS__INEFFICIENT);
			seen++;
		}
	}
	frame_free(m);
	assert_int_equal(seen, 2);
}

/* Close a job's connection (its row ends, as the job has). */
static void job_close(struct job *j)
{
	close(j->fd);
	frame_reader_free(j->r);
}

/* Across a restart: a job that claims its id again with its usage totals
 * since it first joined (last) has what its history lacked (last - first)
 * added, once, as usage away: listed at once, in its record's totals and
 * in none of its runs; one that claims with totals its 2 workers could
 * not have used is taken back all the same, nothing added, and the log
 * says so naming the field and the job. */
static void test_usage_away(void **state)
{
	static const char *const args[] = { "--quantum-ms", "10", NULL };
	static const uint64_t absurd[NUSE] = { 1000000000000000000ull, 1, 1, 3,
	                                       0, 0 };
	struct job a, b, a2, b2;
	uint64_t rec[NUSE], runs[NUSE];
	char who[64];

	(void)state;
	assert_int_equal(tdaemon_start(&d, args, 0), 0);
	job_connect(&a);
	job_connect(&b);
	two_ticks();
	assert_int_equal(tdaemon_feedback(a.fd, quantum_now(&a), 1, 1, first,
	                 ASTEAL__QUANTUM_CLASS__SATISFIED), 0);
	assert_int_equal(tdaemon_feedback(b.fd, quantum_now(&b), 1, 1, first,
	                 ASTEAL__QUANTUM_CLASS__SATISFIED), 0);
	assert_int_equal(test_wait(jobs_say, &(struct says){ a.id, first },
	                           tdaemon_bound()), 0);
	assert_int_equal(test_wait(jobs_say, &(struct says){ b.id, first },
	                           tdaemon_bound()), 0);
	/* The daemon stops under them (their rows stay open); the next one
	 * takes their claims. */
	assert_int_equal(tdaemon_halt(&d), 0);
	job_close(&a);
	job_close(&b);
	assert_int_equal(tdaemon_launch(&d, args, 0), 0);
	job_claim(&a2, a.id, last);
	assert_int_equal(a2.id, a.id);
	job_claim(&b2, b.id, absurd);
	assert_int_equal(b2.id, b.id);
	assert_int_equal(test_wait(jobs_say, &(struct says){ a.id, last },
	                           tdaemon_bound()), 0);
	assert_int_equal(test_wait(jobs_say, &(struct says){ b.id, first },
	                           tdaemon_bound()), 0);
	snprintf(who, sizeof(who), "job %" PRIu64 " pid %d:", b.id, (int)getpid());
	assert_int_equal(tdaemon_log_count(&d, "Hello.usage.work_ns 1000000000000000000 is "
	                                   "more than its 2 workers", who), 1);
	snprintf(who, sizeof(who), "job %" PRIu64 " 'test':", a.id);
	assert_int_equal(tdaemon_log_count(&d, "while no daemon had it", who), 1);

	/* Ended: the records hold it, the runs do not. */
	job_close(&a2);
	job_close(&b2);
	assert_int_equal(test_wait(row_ended, &a.id, tdaemon_bound()), 0);
	assert_int_equal(test_wait(row_ended, &b.id, tdaemon_bound()), 0);
	record_totals(a.id, rec, runs);
	assert_memory_equal(rec, last, sizeof(rec));
	assert_memory_equal(runs, first, sizeof(runs));
	record_totals(b.id, rec, runs);
	assert_memory_equal(rec, first, sizeof(rec));
	assert_memory_equal(runs, first, sizeof(runs));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_usage_reported, stop),
		cmocka_unit_test_teardown(test_class_reported, stop),
		cmocka_unit_test_teardown(test_usage_away, stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
