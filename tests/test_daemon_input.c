/*
 * test_daemon_input.c - bad input to a real asteald (build/bin/asteald from
 * ASTEAL_TEST_BUILD, on a private socket and database): garbage, an
 * oversize frame, an unknown message, a wrong version, a request before the
 * handshake, a peer dying mid-frame and a peer that never reads its
 * replies.  Each bad peer gets an Error where possible and is disconnected;
 * a good client connected all along keeps being served and the daemon
 * stays up.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <cmocka.h>

#include "frame.h"
#include "testutil.h"

static char dir[32], sock[64];
static pid_t daemon_pid;

/* Connect to the daemon's socket (-1 if not there yet). */
static int dial(void)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether the daemon accepts connections. */
static int up(void *arg)
{
	int fd = dial();

	(void)arg;
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* Start asteald in a temporary folder. */
static int setup(void **state)
{
	const char *b = getenv("ASTEAL_TEST_BUILD");
	char bin[256], db[128];

	(void)state;
	snprintf(bin, sizeof(bin), "%s/bin/asteald", b ? b : "build");
	snprintf(dir, sizeof(dir), "/tmp/asteal-input.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(sock, sizeof(sock), "%s/s", dir);
	snprintf(db, sizeof(db), "%s/h.db", dir);
	daemon_pid = fork();
	if (daemon_pid == 0) {
		execl(bin, "asteald", "--foreground", "--log-level", "warn", "--socket",
		      sock, "--db", db, (char *)NULL);
		_exit(127);
	}
	return test_wait(up, NULL, 10.0);
}

/* Stop the daemon: it must exit 0 on SIGTERM (it did not crash). */
static int teardown(void **state)
{
	int status = 0;
	char cmd[160];

	(void)state;
	kill(daemon_pid, SIGTERM);
	waitpid(daemon_pid, &status, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Send a Hello as a client with the given version. */
static void hello(int fd, uint32_t version)
{
	Asteal__Envelope env;
	Asteal__Hello h;

	frame_hello(&env, &h, ASTEAL__ROLE__CLIENT, "test", 0, "", "test");
	h.version = version;
	assert_int_equal(frame_write_fd(fd, &env), 0);
}

/* Read the next message (NULL at end of stream). */
static Asteal__Envelope *next(int fd, struct frame_reader *r)
{
	Asteal__Envelope *m = NULL;

	return frame_reader_read(r, fd, &m) == 1 ? m : NULL;
}

/* Expect an Error of the given code, then the end of the stream. */
static void expect_error_then_eof(int fd, Asteal__ErrorCode code)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m = next(fd, r);

	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
	assert_int_equal(m->error->code, code);
	assert_true(strlen(m->error->message) > 0);
	frame_free(m);
	assert_null(next(fd, r));       /* disconnected */
	frame_reader_free(r);
	close(fd);
}

/* A client that says Hello and gets its Status. */
static void status_works(int fd)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;

	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	env.status_request = &sr;
	assert_int_equal(frame_write_fd(fd, &env), 0);
	m = next(fd, r);
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_STATUS);
	assert_int_equal(m->status->protocol_version, PROTO_VERSION);
	assert_true(m->status->n_cpus >= 1);
	frame_free(m);
	frame_reader_free(r);
}

static void test_bad_peers(void **state)
{
	int good = dial(), fd;
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m;
	static const uint8_t garbage[] = { 0, 0, 0, 9, 0xff, 0xff, 0xff, 0xff, 0xff,
	                                   0xff, 0xff, 0xff, 0xff };
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff };
	static const uint8_t unknown[] = { 0, 0, 0, 3, 0xa0, 0x06, 1 };  /* field 100 */
	static const uint8_t half[] = { 0, 0, 0, 100, 1, 2, 3 };
	int i;

	(void)state;
	assert_true(good >= 0);
	hello(good, PROTO_VERSION);
	m = next(good, r);
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	frame_free(m);
	frame_reader_free(r);
	status_works(good);

	fd = dial();                    /* garbage body */
	assert_int_equal(write(fd, garbage, sizeof(garbage)), sizeof(garbage));
	expect_error_then_eof(fd, ASTEAL__ERROR_CODE__BAD_MESSAGE);
	status_works(good);

	fd = dial();                    /* oversize prefix, no body */
	assert_int_equal(write(fd, huge, sizeof(huge)), sizeof(huge));
	expect_error_then_eof(fd, ASTEAL__ERROR_CODE__TOO_LARGE);

	fd = dial();                    /* a message nobody knows */
	assert_int_equal(write(fd, unknown, sizeof(unknown)), sizeof(unknown));
	expect_error_then_eof(fd, ASTEAL__ERROR_CODE__UNKNOWN_MESSAGE);

	fd = dial();                    /* another protocol version */
	hello(fd, PROTO_VERSION + 1);
	expect_error_then_eof(fd, ASTEAL__ERROR_CODE__BAD_VERSION);

	fd = dial();                    /* a request before the handshake */
	{
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
		Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;
		env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
		env.status_request = &sr;
		assert_int_equal(frame_write_fd(fd, &env), 0);
		expect_error_then_eof(fd, ASTEAL__ERROR_CODE__UNEXPECTED);
	}

	for (i = 0; i < 20; i++) {      /* peers dying mid-frame */
		fd = dial();
		assert_int_equal(write(fd, half, sizeof(half)), sizeof(half));
		close(fd);
	}
	status_works(good);

	/* A client that asks and never reads: dropped, nobody else hurt. */
	fd = dial();
	hello(fd, PROTO_VERSION);
	{
		uint8_t buf[64];
		size_t len;
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
		Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;
		env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
		env.status_request = &sr;
		assert_int_equal(frame_encode(&env, buf, sizeof(buf), &len), 0);
		for (i = 0; i < 200000; i++)
			if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
				break;          /* the daemon dropped us */
		close(fd);
	}
	status_works(good);
	assert_int_equal(kill(daemon_pid, 0), 0);
	close(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_peers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
