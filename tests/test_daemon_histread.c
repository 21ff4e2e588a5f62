/*
 * test_daemon_histread.c - a real asteald (build/bin/asteald from
 * ASTEAL_TEST_BUILD, on a private socket, database and log) building its
 * History pages off its event loop (daemon/histreader.c), with the
 * reader's test gate (HISTREADER_GATE_ENV: a FIFO the reader thread reads
 * a byte from before each page) holding a page half built for as long as
 * a test wants:
 * - while a page is held, the loop goes on: its ticks count on (Status
 *   from another client, counting ticks, not timing them), the asking
 *   client's next request waits, and once the page is let go the client
 *   gets the page, then the answer to its next request, in order;
 * - at most HISTREADER_MAX pages wait: one request more gets Error BUSY,
 *   the others their pages once let go; a client that leaves while its
 *   page is held costs nothing; SIGTERM while a page is held and others
 *   wait stops the daemon cleanly (exit 0, the thread joined).
 * On a daemon that builds pages on its loop, the first test fails: the
 * other client's Status is never answered while the page is held.
 * Every wait is on a condition with a deadline (poll, never sleep and
 * hope).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemonutil.h"
#include "frame.h"
#include "histreader.h"
#include "testutil.h"

/* Ticks the loop must run while a page is held. */
#define HELD_TICKS 30

/* A client's connection and its frame reader. */
struct cli {
	int fd;
	struct frame_reader *r;
};

/* The daemon of a test, started with the gate at gate_path. */
static struct tdaemon d;
static char gate_path[96];

/* Start a daemon whose reader waits at a gate (a FIFO in its folder),
 * with the extra arguments args (NULL-terminated). */
static void start_gated(const char *const *args)
{
	const char *a[16] = { "--log-level", "warn" };
	int n = 2;

	while (args != NULL && *args != NULL && n < 15)
		a[n++] = *args++;
	a[n] = NULL;
	assert_int_equal(tdaemon_prepare(&d), 0);
	snprintf(gate_path, sizeof(gate_path), "%s/gate", d.dir);
	assert_int_equal(mkfifo(gate_path, 0600), 0);
	assert_int_equal(setenv(HISTREADER_GATE_ENV, gate_path, 1), 0);
	assert_int_equal(tdaemon_launch(&d, a, 0), 0);
	unsetenv(HISTREADER_GATE_ENV);
}

/* Let n pages through the gate. */
static void open_gate(int n)
{
	int fd = open(gate_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	char b[HISTREADER_MAX * 2];

	assert_true(fd >= 0);
	assert_true(n <= (int)sizeof(b));
	memset(b, 'g', sizeof(b));
	assert_int_equal(write(fd, b, (size_t)n), n);
	close(fd);
}

/* Connect a client and take its Welcome. */
static void cli_open(struct cli *c)
{
	Asteal__Envelope *w = NULL;

	c->fd = tdaemon_connect(&d, 0, &w);
	assert_true(c->fd >= 0);
	assert_non_null(w);
	assert_int_equal(w->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	frame_free(w);
	c->r = frame_reader_new();
	assert_non_null(c->r);
}

/* Close a client. */
static void cli_close(struct cli *c)
{
	if (c->fd >= 0)
		close(c->fd);
	frame_reader_free(c->r);
	c->fd = -1;
	c->r = NULL;
}

/* Send a request with this id: a History request for every run, or a
 * Status request. */
static void send_request(struct cli *c, int history, uint64_t id)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;

	env.request_id = id;
	if (history) {
		env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
		env.history_request = &hr;
	} else {
		env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
		env.status_request = &sr;
	}
	assert_int_equal(frame_write_fd(c->fd, &env), 0);
}

/* The client's next message, which must come within the bound (NULL at
 * the end of its stream). */
static Asteal__Envelope *cli_next(struct cli *c)
{
	return tdaemon_next(c->fd, c->r, tdaemon_bound());
}

/* The client's next message if one is there now, else NULL. */
static Asteal__Envelope *cli_poll(struct cli *c)
{
	struct pollfd pf = { .fd = c->fd, .events = POLLIN };
	Asteal__Envelope *m = NULL;

	if (frame_reader_next(c->r, &m) == 1)
		return m;
	if (poll(&pf, 1, 0) == 1 && frame_reader_fill(c->r, c->fd) > 0 &&
	    frame_reader_next(c->r, &m) == 1)
		return m;
	return NULL;
}

/* Expect the client's next message: a reply of this kind to request id. */
static void expect_reply(struct cli *c, int kind, uint64_t id)
{
	Asteal__Envelope *m = cli_next(c);

	assert_non_null(m);
	if ((int)m->msg_case != kind)
		fail_msg("a %s where another reply was due%s%s", frame_name(m),
		         m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR ? ": " : "",
		         m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR
		         ? m->error->message : "");
	assert_int_equal(m->request_id, id);
	frame_free(m);
}

/* The daemon's ticks so far, from a Status the client asks for. */
static uint64_t ticks(struct cli *c)
{
	Asteal__Envelope *m;
	uint64_t t;

	send_request(c, 0, 7);
	m = cli_next(c);
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_STATUS);
	t = m->status->ticks;
	frame_free(m);
	return t;
}

/* What ticked_past waits for: client c sees the ticks reach `until`. */
struct tick_wait {
	struct cli *c;
	uint64_t until;
};

/* Whether the daemon has ticked up to w->until (a test_wait condition). */
static int ticked_past(void *arg)
{
	struct tick_wait *w = arg;

	return ticks(w->c) >= w->until;
}

/* Whether the daemon (d.pid) has exited, 0 (a test_wait condition);
 * *status gets its wait status. */
static int exited(void *arg)
{
	int *status = arg;
	pid_t p = waitpid(d.pid, status, WNOHANG);

	assert_true(p >= 0);
	return p == d.pid;
}

/* While a page is held half built, the loop ticks on and serves another
 * client; the asking client's next request waits behind its page, and
 * both come, in order, once the page is let go. */
static void test_ticks_while_page_held(void **state)
{
	struct cli a, b;
	struct tick_wait w;
	Asteal__Envelope *m;

	(void)state;
	start_gated(NULL);
	cli_open(&a);
	cli_open(&b);
	send_request(&a, 1, 1);         /* held at the gate */
	send_request(&a, 0, 2);         /* waits behind it */
	w.c = &b;
	w.until = ticks(&b) + HELD_TICKS;
	if (test_wait(ticked_past, &w, tdaemon_bound()) < 0)
		fail_msg("the daemon did not tick %d times while a page was held",
		         HELD_TICKS);
	/* Nothing for a yet: its page is held, its Status not read. */
	m = cli_poll(&a);
	if (m != NULL)
		fail_msg("a %s came while the page was held", frame_name(m));
	open_gate(1);
	expect_reply(&a, ASTEAL__ENVELOPE__MSG_HISTORY, 1);
	expect_reply(&a, ASTEAL__ENVELOPE__MSG_STATUS, 2);
	/* The next page goes through too, the gate letting it. */
	send_request(&a, 1, 3);
	open_gate(1);
	expect_reply(&a, ASTEAL__ENVELOPE__MSG_HISTORY, 3);
	cli_close(&a);
	cli_close(&b);
	assert_int_equal(tdaemon_stop(&d), 0);
}

/* At most HISTREADER_MAX pages wait: one more request gets BUSY and the
 * others their pages once let go; a client that leaves while its page is
 * held, and SIGTERM while a page is held and others wait, are clean. */
static void test_bound_and_stop(void **state)
{
	static const char *const args[] = { "--max-user-clients", "200",
	                                    "--max-clients", "200", NULL };
	struct cli c[HISTREADER_MAX + 1], e, late;
	double end;
	int i, busy = -1, status = -1;

	(void)state;
	start_gated(args);
	for (i = 0; i <= HISTREADER_MAX; i++) {
		cli_open(&c[i]);
		send_request(&c[i], 1, 10 + (uint64_t)i);
	}
	/* The daemon takes them in any order: whichever comes last of the
	 * HISTREADER_MAX + 1 is refused. */
	end = test_now() + tdaemon_bound();
	while (busy < 0) {
		for (i = 0; i <= HISTREADER_MAX && busy < 0; i++) {
			Asteal__Envelope *m = cli_poll(&c[i]);

			if (m == NULL)
				continue;
			if (m->msg_case != ASTEAL__ENVELOPE__MSG_ERROR ||
			    m->error->code != ASTEAL__ERROR_CODE__BUSY)
				fail_msg("a %s while the pages were held", frame_name(m));
			assert_int_equal(m->request_id, 10 + (uint64_t)i);
			busy = i;
			frame_free(m);
		}
		if (busy < 0 && test_now() > end)
			fail_msg("no BUSY for request %d", HISTREADER_MAX + 1);
		if (busy < 0)
			sched_yield();
	}
	open_gate(HISTREADER_MAX);
	for (i = 0; i <= HISTREADER_MAX; i++)
		if (i != busy)
			expect_reply(&c[i], ASTEAL__ENVELOPE__MSG_HISTORY,
			             10 + (uint64_t)i);
	for (i = 0; i <= HISTREADER_MAX; i++)
		cli_close(&c[i]);

	/* A client that leaves while its page is held: the page goes
	 * nowhere, and the next client is served. */
	cli_open(&e);
	send_request(&e, 1, 100);
	cli_close(&e);
	open_gate(1);
	cli_open(&e);
	send_request(&e, 1, 101);
	open_gate(1);
	expect_reply(&e, ASTEAL__ENVELOPE__MSG_HISTORY, 101);

	/* SIGTERM while e's page is held and late's waits: a clean stop. */
	cli_open(&late);
	send_request(&e, 1, 102);
	send_request(&late, 1, 103);
	assert_int_equal(kill(d.pid, SIGTERM), 0);
	if (test_wait(exited, &status, tdaemon_bound()) < 0)
		fail_msg("the daemon did not stop on SIGTERM while a page was held");
	d.pid = 0;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_null(cli_next(&e));      /* closed, its page dropped */
	cli_close(&e);
	cli_close(&late);
	assert_int_equal(tdaemon_clean(&d), 0);
}

/* After each test: a daemon a failed test left is stopped, killed if it
 * does not stop (a loop held by a page never reads SIGTERM). */
static int stop_left(void **state)
{
	int status;

	(void)state;
	if (d.pid <= 0)
		return 0;
	kill(d.pid, SIGTERM);
	if (test_wait(exited, &status, tdaemon_bound()) < 0) {
		kill(d.pid, SIGKILL);
		waitpid(d.pid, &status, 0);
	}
	d.pid = 0;
	tdaemon_clean(&d);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_ticks_while_page_held, stop_left),
		cmocka_unit_test_teardown(test_bound_and_stop, stop_left),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
