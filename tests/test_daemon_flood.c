/*
 * test_daemon_flood.c - one connection's burst of requests stalls nothing:
 * 20,000 StatusRequests written at once on one connection (by a child,
 * which then reads their answers), and all the while the daemon works
 * through them, another client's Status is answered within a bound, every
 * time, and the daemon's ticks go on (the tick count grows with the time
 * that passed).  The daemon runs 1 ms quanta, and the flood starts once
 * its measurement rings are full (4,096 ticks), as on a daemon up for a
 * while, where a Status's percentiles cost the most.  The daemon
 * takes a bounded number of frames from one connection per turn of its
 * loop (daemon/conn.c), and its Status costs microseconds (the
 * percentiles are found once per new sample, daemon/samples.c).  A Jobs
 * request names at most PROTO_JOBS_MAX_IDS ids (more is refused, as a
 * History request's); they are sorted once, so that each job looks itself
 * up by binary search, and the selection is exact whatever their order
 * and repeats.  A job that sends refused input by the thousand (one
 * Feedback for the same quantum again and again) is disconnected once
 * past its room for it (2,048, then 256 a second), with an Error that says
 * so.  A job may begin no frame over PROTO_MAX_JOB_FRAME (a client, one
 * over PROTO_MAX_REQUEST_FRAME), and any peer's frame must come whole
 * within 3 s of its first bytes: neither can hold the daemon's memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemonutil.h"
#include "proto.h"
#include "qtime.h"

enum { FLOOD = 20000, ASKS = 20, RING = 4096 };

static struct tdaemon d;
static int cl;                  /* the client that asks */
static struct frame_reader *rd; /* its reader */

/* One StatusRequest on fd and its Status: the reply, which the caller
 * frees (NULL when none came within the bound). */
static Asteal__Status *ask_status(int fd, struct frame_reader *r,
                                  Asteal__Envelope **env)
{
	Asteal__Envelope req = ASTEAL__ENVELOPE__INIT;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;

	req.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	req.status_request = &sr;
	assert_int_equal(frame_write_fd(fd, &req), 0);
	*env = tdaemon_next(fd, r, tdaemon_bound());
	if (*env == NULL || (*env)->msg_case != ASTEAL__ENVELOPE__MSG_STATUS)
		return NULL;
	return (*env)->status;
}

/* Whether the daemon ticked more than RING times (its rings are full);
 * asked every 20 ms (a test_wait condition). */
static int rings_full(void *arg)
{
	Asteal__Envelope *e;
	Asteal__Status *s;
	int full;

	(void)arg;
	(void)poll(NULL, 0, 20);
	s = ask_status(cl, rd, &e);
	assert_non_null(s);
	full = s->ticks > RING + 100;
	frame_free(e);
	return full;
}

/* Write FLOOD StatusRequests on fd as one burst, then read the answers:
 * the child's exit status is 0 when every one came. */
static int flood(int fd)
{
	struct frame_reader *r = frame_reader_new();
	int got = 0;
	Asteal__Envelope req = ASTEAL__ENVELOPE__INIT;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;
	uint8_t one[64], *buf;
	size_t len = 0, at = 0;

	req.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	req.status_request = &sr;
	if (frame_encode(&req, one, sizeof(one), &len) < 0)
		_exit(2);
	buf = malloc(len * FLOOD);
	if (buf == NULL)
		_exit(2);
	for (int i = 0; i < FLOOD; i++)
		memcpy(buf + (size_t)i * len, one, len);
	while (at < len * FLOOD) {
		ssize_t n = send(fd, buf + at, len * FLOOD - at, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		at += (size_t)n;
	}
	free(buf);
	while (r != NULL && got < FLOOD) {
		Asteal__Envelope *m = tdaemon_next(fd, r, tdaemon_bound());

		if (m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_STATUS) {
			frame_free(m);
			break;
		}
		frame_free(m);
		got++;
	}
	frame_reader_free(r);
	return got == FLOOD ? 0 : 1;
}

/* While one connection floods, another's Status is answered within
 * 0.5 s (2 s under the sanitizers) every time it asks (at least ASKS
 * times), and the ticks go on. */
static void test_flood_stalls_nothing(void **state)
{
	Asteal__Envelope *reply = NULL, *e0 = NULL, *e1 = NULL;
	Asteal__Status *s0, *s1;
	struct frame_reader *r = rd = frame_reader_new();
	double most = test_sanitized() ? 2.0 : 0.5, worst = 0, t0, t1;
	int fl, status = 0, asks = 0;
	pid_t writer, done = 0;

	(void)state;
	if (test_sanitized()) {         /* a claim on cost: the plain build's */
		print_message("skip: timing under a sanitizer\n");
		frame_reader_free(r);
		return;
	}
	assert_non_null(r);
	cl = tdaemon_connect(&d, 0, &reply);
	assert_true(cl >= 0);
	assert_non_null(reply);
	assert_int_equal(reply->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	frame_free(reply);
	fl = tdaemon_connect(&d, 0, &reply);
	assert_true(fl >= 0);
	assert_non_null(reply);
	frame_free(reply);
	assert_int_equal(test_wait(rings_full, NULL, 10 + 2 * tdaemon_bound()), 0);
	s0 = ask_status(cl, r, &e0);
	assert_non_null(s0);
	t0 = test_now();

	writer = fork();
	assert_true(writer >= 0);
	if (writer == 0)
		_exit(flood(fl));
	while (done == 0 || asks < ASKS) {
		double a = test_now(), took;
		Asteal__Envelope *e;

		assert_non_null(ask_status(cl, r, &e));
		took = test_now() - a;
		frame_free(e);
		if (took > worst)
			worst = took;
		asks++;
		if (done == 0)
			done = waitpid(writer, &status, WNOHANG);
		assert_true(done >= 0);
		assert_true(test_now() - t0 < 10 * tdaemon_bound());
	}
	s1 = ask_status(cl, r, &e1);
	assert_non_null(s1);
	t1 = test_now();
	print_message("a Status beside a flood of %d: the slowest of %d "
	              "answered in %.1f ms; %llu ticks in %.0f ms, %llu skipped\n",
	              FLOOD, asks, worst * 1e3,
	              (unsigned long long)(s1->ticks - s0->ticks), (t1 - t0) * 1e3,
	              (unsigned long long)(s1->skipped_ticks - s0->skipped_ticks));
	assert_true(worst <= most);
	/* A tick per quantum (1 ms) went on: at least half of those due. */
	assert_true((double)(s1->ticks - s0->ticks) >= (t1 - t0) / 0.001 / 2 - 2);
	frame_free(e0);
	frame_free(e1);
	frame_reader_free(r);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fl);
	close(cl);
}

/* A Jobs request of ids: its reply, which the caller frees. */
static Asteal__Envelope *ask_jobs(int fd, uint64_t *ids, size_t n)
{
	Asteal__Envelope req = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__JobsRequest jr = ASTEAL__JOBS_REQUEST__INIT;
	struct frame_reader *r = frame_reader_new();

	assert_non_null(r);
	jr.ids = ids;
	jr.n_ids = n;
	req.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	req.jobs_request = &jr;
	assert_int_equal(frame_write_fd(fd, &req), 0);
	m = tdaemon_next(fd, r, tdaemon_bound());
	frame_reader_free(r);
	assert_non_null(m);
	return m;
}

/* Too many ids are refused, naming the limit; the most allowed, out of
 * order and repeated, select exactly the job among them. */
static void test_jobs_ids(void **state)
{
	static uint64_t ids[PROTO_JOBS_MAX_IDS + 1];
	Asteal__Envelope *reply = NULL, *m;
	uint64_t job;
	int c, j;

	(void)state;
	c = tdaemon_connect(&d, 0, &reply);
	assert_true(c >= 0);
	frame_free(reply);
	j = tdaemon_connect(&d, 1, &reply);
	assert_true(j >= 0);
	assert_non_null(reply);
	assert_int_equal(reply->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	job = reply->welcome->job_id;
	frame_free(reply);

	for (size_t i = 0; i < PROTO_JOBS_MAX_IDS + 1; i++)
		ids[i] = job + 1000 + (i * 7919) % 4096;
	m = ask_jobs(c, ids, PROTO_JOBS_MAX_IDS + 1);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
	assert_int_equal(m->error->code, ASTEAL__ERROR_CODE__INVALID);
	assert_non_null(strstr(m->error->message, "at most"));
	frame_free(m);

	ids[17] = job;
	ids[200] = job;                         /* twice, out of order */
	m = ask_jobs(c, ids, PROTO_JOBS_MAX_IDS);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_JOBS);
	assert_int_equal(m->jobs->n_jobs, 1);
	assert_int_equal(m->jobs->jobs[0]->id, job);
	frame_free(m);
	close(j);
	close(c);
}

/* A job repeating one Feedback 6,000 times: the first is taken, about
 * 2,048 repeats (the daemon's room for refused input) are refused with an
 * Error each, then the daemon says why it gives up and closes the
 * connection. */
static void test_refused_flood(void **state)
{
	Asteal__Envelope *reply = NULL, *m;
	struct frame_reader *r = frame_reader_new();
	uint64_t tot[TDAEMON_NUSE] = { 0 }, q, t0, L;
	int j, errors = 0, dropped = 0;
	pid_t writer;

	(void)state;
	assert_non_null(r);
	j = tdaemon_connect(&d, 2, &reply);
	assert_true(j >= 0);
	assert_non_null(reply);
	assert_int_equal(reply->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	t0 = reply->welcome->t0_ns;
	L = (uint64_t)reply->welcome->quantum_us * 1000u;
	frame_free(reply);
	q = (qtime_now_ns() - t0) / L;
	/* A child writes while this process reads the Errors (a job that
	 * does not read them would be dropped as a slow reader first). */
	writer = fork();
	assert_true(writer >= 0);
	if (writer == 0) {
		for (int i = 0; i < 6000; i++)
			if (tdaemon_feedback(j, q, 1, 1.0, tot, 1) < 0)
				break;  /* closed already */
		_exit(0);
	}
	while ((m = tdaemon_next(j, r, tdaemon_bound())) != NULL) {
		if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) {
			errors++;
			if (strstr(m->error->message, "disconnected") != NULL)
				dropped = 1;
		}
		frame_free(m);
	}
	assert_int_equal(waitpid(writer, NULL, 0), writer);
	print_message("6000 repeated Feedbacks: %d Errors, then closed\n", errors);
	assert_true(dropped);
	assert_true(errors >= 2000 && errors <= 4000);
	frame_reader_free(r);
	close(j);
}

/* The next message on fd other than an Allot (a job may be given CPUs
 * first), or NULL at the end of the stream. */
static Asteal__Envelope *next_but_allots(int fd, struct frame_reader *r)
{
	Asteal__Envelope *m;

	while ((m = tdaemon_next(fd, r, tdaemon_bound() + 3)) != NULL &&
	       m->msg_case == ASTEAL__ENVELOPE__MSG_ALLOT)
		frame_free(m);
	return m;
}

/* The next message on fd other than an Allot is an Error with code and
 * text, then the stream ends. */
static void expect_end(int fd, Asteal__ErrorCode code, const char *text)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m;

	assert_non_null(r);
	m = next_but_allots(fd, r);
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
	assert_int_equal(m->error->code, code);
	if (strstr(m->error->message, text) == NULL)
		fail_msg("Error \"%s\", expected \"%s\"", m->error->message, text);
	frame_free(m);
	assert_null(next_but_allots(fd, r));
	frame_reader_free(r);
}

/* A job announcing a frame over its limit is refused at once; a client
 * that begins a frame and stops is disconnected after 3 s. */
static void test_frame_limits(void **state)
{
	static const uint8_t big[] = { 0, 1, 0x86, 0xa0, 0x0a };  /* 100,000 */
	static const uint8_t begun[] = { 0, 0, 0, 100, 0x0a, 0, 0, 0 };
	Asteal__Envelope *reply = NULL;
	double t;
	int j, c;

	(void)state;
	j = tdaemon_connect(&d, 1, &reply);
	assert_true(j >= 0);
	assert_non_null(reply);
	assert_int_equal(reply->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	frame_free(reply);
	assert_int_equal(send(j, big, sizeof(big), MSG_NOSIGNAL), (ssize_t)sizeof(big));
	expect_end(j, ASTEAL__ERROR_CODE__TOO_LARGE, "for a job");
	close(j);

	c = tdaemon_connect(&d, 0, &reply);
	assert_true(c >= 0);
	frame_free(reply);
	t = test_now();
	assert_int_equal(send(c, begun, sizeof(begun), MSG_NOSIGNAL),
	                 (ssize_t)sizeof(begun));
	expect_end(c, ASTEAL__ERROR_CODE__UNEXPECTED, "not whole");
	print_message("a frame begun and left: disconnected after %.1f s\n",
	              test_now() - t);
	assert_true(test_now() - t >= 2.5);
	close(c);
}

/* Start the daemon of the test. */
static int setup(void **state)
{
	static const char *const args[] = { "--log-level", "warn",
		"--quantum-ms", "1", NULL };

	(void)state;
	return tdaemon_start(&d, args, 0);
}

/* Stop it: it must exit 0 on SIGTERM. */
static int teardown(void **state)
{
	(void)state;
	return tdaemon_stop(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_flood_stalls_nothing, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_jobs_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_limits, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
