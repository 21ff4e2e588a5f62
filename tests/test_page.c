/*
 * test_page.c - the page a job shares with asteald (proto/page.h,
 * daemon/jobpage.c): its layout written and read back, a header that is
 * not this layout's refused, a reader racing a writer thread never
 * taking a torn copy, a count left odd read as busy; then with a real
 * asteald over the raw protocol: a job that asks for a page gets one with
 * its Welcome (SCM_RIGHTS), sealed against shrinking and growing, and a
 * Feedback written there reaches DEQ with no message; what no job could
 * write (a quantum that has not begun, a class that does not exist,
 * usage going back) drops the job with an Error naming it; a page kept
 * busy is counted torn and its job goes silent, not dropped; a job that
 * writes random bytes over its page at full speed costs the other jobs
 * nothing and the log one line; a job that does not ask gets no page.  Every wait is on a condition with a bound.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemonutil.h"
#include "frame.h"
#include "page.h"
#include "pagejob.h"
#include "qtime.h"

/* ------------------------------------------------------------ layout -- */

/* A Feedback whose every field says k. */
static void feedback_of(struct exchange_feedback *f, uint64_t k)
{
	memset(f, 0, sizeof(*f));
	f->quantum = k;
	f->desire = (uint32_t)k;
	f->desire_real = (double)k;
	f->cls = (int)(k % EXCHANGE_NCLASSES);
	for (int u = 0; u < USAGE_N; u++)
		f->use.ns[u] = k;
}

/* Written, then read back whole. */
static void test_roundtrip(void **state)
{
	static struct page pg;
	struct exchange_feedback in, out;
	char why[160];

	(void)state;
	page_init(&pg);
	assert_int_equal(page_check(&pg, why, sizeof(why)), 0);
	assert_int_equal(page_feed_read(&pg, &out), 0);    /* never written */
	assert_int_equal(out.cls, -1);
	feedback_of(&in, 7);
	in.desire_real = 2.5;
	page_feed_write(&pg, &in);
	assert_int_equal(page_feed_read(&pg, &out), 2);
	assert_int_equal(out.quantum, 7);
	assert_int_equal(out.desire, 7);
	assert_true(out.desire_real == 2.5);
	assert_int_equal(out.cls, 1);
	assert_memory_equal(&out.use, &in.use, sizeof(in.use));
}

/* A header that is not this layout's is refused, with the reason. */
static void test_check(void **state)
{
	static struct page pg;
	char why[160];

	(void)state;
	page_init(&pg);
	pg.magic ^= 1;
	assert_int_equal(page_check(&pg, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not an asteal page"));
	page_init(&pg);
	pg.version = PAGE_VERSION + 1;
	assert_int_equal(page_check(&pg, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "version"));
}

static struct page race_pg;
static volatile int race_stop;

/* The writer: every field of Feedback k says k, k = 1, 2, ... */
static void *race_writer(void *arg)
{
	struct exchange_feedback f;

	(void)arg;
	for (uint64_t k = 1; !__atomic_load_n(&race_stop, __ATOMIC_RELAXED); k++) {
		feedback_of(&f, k);
		page_feed_write(&race_pg, &f);
	}
	return NULL;
}

/* A reader racing the writer: every copy it takes is one Feedback. */
static void test_race(void **state)
{
	pthread_t t;
	int whole = 0;

	(void)state;
	page_init(&race_pg);
	race_stop = 0;
	assert_int_equal(pthread_create(&t, NULL, race_writer, NULL), 0);
	/* Until 2,000 whole copies, or 10 s (a host too loaded for both
	 * threads to run at once gives whole copies all the more). */
	for (double end = test_now() + 10; whole < 2000 && test_now() < end;) {
		struct exchange_feedback f;

		if (page_feed_read(&race_pg, &f) <= 0)
			continue;
		whole++;
		assert_int_equal(f.desire, (uint32_t)f.quantum);
		assert_true(f.desire_real == (double)f.quantum);
		assert_int_equal(f.cls, (int)(f.quantum % EXCHANGE_NCLASSES));
		for (int u = 0; u < USAGE_N; u++)
			assert_int_equal(f.use.ns[u], f.quantum);
	}
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	assert_int_equal(whole, 2000);
}

/* A count left odd (a writer stopped halfway) reads as busy. */
static void test_busy(void **state)
{
	static struct page pg;
	struct exchange_feedback f;

	(void)state;
	page_init(&pg);
	pg.feed.seq = 3;
	assert_int_equal(page_feed_read(&pg, &f), -1);
}

/* ------------------------------------------------------ with asteald -- */

static struct tdaemon d;


/* Start the daemon. */
static int setup(void **state)
{
	(void)state;
	return tdaemon_start(&d, NULL, 0);
}

/* Stop it: it must not have crashed. */
static int teardown(void **state)
{
	(void)state;
	return tdaemon_stop(&d);
}

/* The quantum running now on the job's grid. */
static uint64_t pjob_q(const struct pagejob *j)
{
	uint64_t now = qtime_now_ns();

	return now > j->t0 ? (now - j->t0) / j->L : 0;
}

/* Write a Feedback closing the quantum before this one, with desire d
 * and every usage total u. */
static void pjob_write(struct pagejob *j, uint32_t desire, uint64_t u, int cls)
{
	struct exchange_feedback f;

	memset(&f, 0, sizeof(f));
	f.quantum = pjob_q(j) > 0 ? pjob_q(j) - 1 : 0;
	f.desire = desire;
	f.desire_real = desire;
	f.cls = cls;
	for (int k = 0; k < USAGE_N; k++)
		f.use.ns[k] = u;
	page_feed_write(j->pg, &f);
}


/* The desire DEQ sees for job id (a Jobs request), -1 if it is gone. */
static int desire_of(uint64_t id)
{
	Asteal__Envelope req = ASTEAL__ENVELOPE__INIT, *e, *w = NULL;
	Asteal__JobsRequest jr = ASTEAL__JOBS_REQUEST__INIT;
	struct frame_reader *r = frame_reader_new();
	int fd = tdaemon_connect(&d, 0, &w), got = -1;

	assert_true(fd >= 0);
	frame_free(w);
	jr.ids = &id;
	jr.n_ids = 1;
	req.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	req.jobs_request = &jr;
	assert_int_equal(frame_write_fd(fd, &req), 0);
	e = tdaemon_next(fd, r, tdaemon_bound());
	assert_non_null(e);
	assert_int_equal(e->msg_case, ASTEAL__ENVELOPE__MSG_JOBS);
	if (e->jobs->n_jobs == 1)
		got = (int)e->jobs->jobs[0]->desire;
	frame_free(e);
	frame_reader_free(r);
	close(fd);
	return got;
}

/* The highest job id the daemon has (its newest job). */
static uint64_t newest_id(void)
{
	Asteal__Envelope req = ASTEAL__ENVELOPE__INIT, *e, *w = NULL;
	Asteal__JobsRequest jr = ASTEAL__JOBS_REQUEST__INIT;
	struct frame_reader *r = frame_reader_new();
	int fd = tdaemon_connect(&d, 0, &w);
	uint64_t id = 0;

	assert_true(fd >= 0);
	frame_free(w);
	req.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	req.jobs_request = &jr;
	assert_int_equal(frame_write_fd(fd, &req), 0);
	e = tdaemon_next(fd, r, tdaemon_bound());
	assert_non_null(e);
	for (size_t i = 0; i < e->jobs->n_jobs; i++)
		if (e->jobs->jobs[i]->id > id)
			id = e->jobs->jobs[i]->id;
	frame_free(e);
	frame_reader_free(r);
	close(fd);
	return id;
}

/* Whether job *arg's desire is 3 now (a test_wait condition). */
static int desire_is_3(void *arg)
{
	(void)poll(NULL, 0, 10);
	return desire_of(*(uint64_t *)arg) == 3;
}

/* A page, sealed; a Feedback written there reaches DEQ with no message. */
static void test_page_taken(void **state)
{
	Asteal__Envelope *e;
	Asteal__Status *s;
	struct pagejob j;
	uint64_t id, read0, msgs0;

	(void)state;
	s = tdaemon_status(&d, &e);
	read0 = s->pages_read;
	msgs0 = s->feedbacks;
	frame_free(e);
	pagejob_open(&d, &j, "pagetest", 4, 1, 0, 1);
	id = newest_id();
	assert_int_equal(ftruncate(j.pfd, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(j.pfd, 2 * PAGE_BYTES), -1);
	assert_int_equal(errno, EPERM);
	pjob_write(&j, 3, 0, 1);
	assert_int_equal(test_wait(desire_is_3, &id, tdaemon_bound()), 0);
	s = tdaemon_status(&d, &e);
	assert_int_equal(s->page_jobs, 1);
	assert_true(s->pages_read > read0);
	assert_int_equal(s->feedbacks, msgs0);
	frame_free(e);
	pagejob_close(&j);
}

/* The Error a dropped job gets, then the end of its stream: its text. */
static char *dropped(struct pagejob *j)
{
	Asteal__Envelope *m;
	static char text[256];

	text[0] = '\0';
	while ((m = tdaemon_next(j->fd, j->r, tdaemon_bound())) != NULL) {
		if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) {
			assert_int_equal(m->error->code, ASTEAL__ERROR_CODE__INVALID);
			snprintf(text, sizeof(text), "%s", m->error->message);
		}
		frame_free(m);
	}
	return text;
}

/* Whether the daemon read a page with news since *arg (a test_wait
 * condition). */
static int read_since(void *arg)
{
	Asteal__Envelope *e;
	int yes;

	(void)poll(NULL, 0, 5);
	yes = tdaemon_status(&d, &e)->pages_read > *(uint64_t *)arg;
	frame_free(e);
	return yes;
}

/* What no job could write drops the job, the field named. */
static void test_page_refused(void **state)
{
	struct exchange_feedback f;
	Asteal__Envelope *e;
	uint64_t read0;
	struct pagejob j;

	(void)state;
	pagejob_open(&d, &j, "pagetest", 4, 1, 0, 1);
	memset(&f, 0, sizeof(f));
	f.quantum = pjob_q(&j) + 1000;
	f.desire = 1;
	f.cls = -1;
	page_feed_write(j.pg, &f);
	assert_non_null(strstr(dropped(&j), "page: quantum"));
	pagejob_close(&j);

	pagejob_open(&d, &j, "pagetest", 4, 1, 0, 1);
	pjob_write(&j, 1, 0, 7);
	assert_non_null(strstr(dropped(&j), "page: class 7"));
	pagejob_close(&j);

	pagejob_open(&d, &j, "pagetest", 4, 1, 0, 1);
	read0 = tdaemon_status(&d, &e)->pages_read;
	frame_free(e);
	pjob_write(&j, 1, 1000, 0);
	assert_int_equal(test_wait(read_since, &read0, tdaemon_bound()), 0);
	{
		uint64_t q = pjob_q(&j);    /* the next quantum, then back */

		while (pjob_q(&j) == q)
			(void)poll(NULL, 0, 1);
	}
	pjob_write(&j, 1, 10, 0);
	assert_non_null(strstr(dropped(&j), "went back"));
	pagejob_close(&j);
}

/* Whether the daemon counts a page torn and a job silent now. */
static int torn_and_silent(void *arg)
{
	Asteal__Envelope *e;
	Asteal__Status *s;
	int yes;

	(void)poll(NULL, 0, 20);
	s = tdaemon_status(&d, &e);
	yes = s->pages_torn > *(uint64_t *)arg && s->silent_jobs >= 1;
	frame_free(e);
	return yes;
}

/* A page kept busy is counted torn; its job, unheard, goes silent and
 * stays connected. */
static void test_page_busy(void **state)
{
	Asteal__Envelope *e;
	struct pagejob j;
	uint64_t torn0;
	struct pollfd pf;

	(void)state;
	torn0 = tdaemon_status(&d, &e)->pages_torn;
	frame_free(e);
	pagejob_open(&d, &j, "pagetest", 4, 1, 0, 1);
	__atomic_store_n(&j.pg->feed.seq, 1, __ATOMIC_RELEASE);
	assert_int_equal(test_wait(torn_and_silent, &torn0, 5 * tdaemon_bound()), 0);
	/* Allots may have come; no Error, and the stream goes on. */
	pf.fd = j.fd;
	pf.events = POLLIN;
	while (poll(&pf, 1, 0) > 0) {
		Asteal__Envelope *m;

		assert_true(frame_reader_fill(j.r, j.fd) > 0);
		while (frame_reader_next(j.r, &m) == 1) {
			assert_int_not_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
			frame_free(m);
		}
	}
	pagejob_close(&j);
}

/* Whether the daemon's tick count passed *arg (a test_wait condition). */
static int ticked_past(void *arg)
{
	Asteal__Envelope *e;
	int yes;

	(void)poll(NULL, 0, 5);
	yes = tdaemon_status(&d, &e)->ticks > *(uint64_t *)arg;
	frame_free(e);
	return yes;
}

/* A hostile job writes random bytes over its page at full speed (from a
 * child that shares the mapping) while another job writes its desire:
 * the daemon keeps ticking and answering, the other job's desire is
 * taken, and the hostile one is dropped with one log line at most. */
static void test_page_hostile(void **state)
{
	struct pagejob bad, good;
	Asteal__Envelope *e;
	uint64_t ticks, goodid;
	pid_t writer;
	int lines = tdaemon_log_count(&d, "page:", NULL);

	(void)state;
	pagejob_open(&d, &bad, "pagetest", 4, 1, 0, 1);
	pagejob_open(&d, &good, "pagetest", 4, 1, 0, 1);
	goodid = newest_id();
	writer = fork();
	assert_true(writer >= 0);
	if (writer == 0) {
		uint64_t x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
		volatile uint64_t *w = (volatile uint64_t *)(void *)&bad.pg->feed;

		for (;;) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w[x % (sizeof(bad.pg->feed) / sizeof(uint64_t))] = x;
		}
	}
	ticks = tdaemon_status(&d, &e)->ticks;
	frame_free(e);
	pjob_write(&good, 3, 0, 1);
	assert_int_equal(test_wait(desire_is_3, &goodid, tdaemon_bound()), 0);
	ticks += 50;                    /* half a second of quanta */
	assert_int_equal(test_wait(ticked_past, &ticks, 5 * tdaemon_bound()), 0);
	kill(writer, SIGKILL);
	assert_int_equal(waitpid(writer, NULL, 0), writer);
	assert_int_equal(desire_of(goodid), 3);
	assert_true(tdaemon_log_count(&d, "page:", NULL) <= lines + 1);
	pagejob_close(&bad);
	pagejob_close(&good);
}

/* A job that does not ask gets no page. */
static void test_no_page(void **state)
{
	struct pagejob j;

	(void)state;
	pagejob_open(&d, &j, "pagetest", 4, 0, 0, 0);
	pagejob_close(&j);
}

int main(void)
{
	const struct CMUnitTest layout[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_race),
		cmocka_unit_test(test_busy),
	};
	const struct CMUnitTest daemon[] = {
		cmocka_unit_test(test_page_taken),
		cmocka_unit_test(test_page_refused),
		cmocka_unit_test(test_page_busy),
		cmocka_unit_test(test_page_hostile),
		cmocka_unit_test(test_no_page),
	};
	int failed = cmocka_run_group_tests_name("layout", layout, NULL, NULL);

	return failed + cmocka_run_group_tests_name("daemon", daemon, setup, teardown);
}
