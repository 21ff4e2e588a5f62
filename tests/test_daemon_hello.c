/*
 * test_daemon_hello.c - bad peers of a real asteald (build/bin/asteald
 * from ASTEAL_TEST_BUILD, on a private socket, database and log), over the
 * raw protocol (no libasteal), before or at the handshake:
 * - bad peers: garbage, an oversize frame, an unknown message, a wrong
 *   version, a job's Hello of no workers (INVALID, as asteal.proto says),
 *   a request before the handshake, a peer dying mid-frame and a
 *   peer that never reads its replies each get an Error where possible and
 *   are disconnected, while a good client connected all along is served;
 * - the old protocols: a Hello of version 1, 2 or 3 (a JOB's or a
 *   CLIENT's; version 3's with its usage totals in the fields 9 to 14 it
 *   had) gets BAD_VERSION naming both versions ("protocol version 1, this
 *   side speaks 4"), then the end of the stream.
 * The other test_daemon_* files test what joined peers send (their
 * harness is in daemonutil.h).  Every wait is on a condition with a
 * deadline (poll, never sleep and hope).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#define DAEMONUTIL_PEERS
#include "daemonutil.h"
#include "frame.h"
#include "qtime.h"
#include "testutil.h"

/* Send a Hello as a client with the given version. */
static void hello(int fd, uint32_t version)
{
	Asteal__Envelope env;
	Asteal__Hello h;

	frame_hello(&env, &h, ASTEAL__ROLE__CLIENT, "test", 0, "", "test");
	h.version = version;
	assert_int_equal(frame_write_fd(fd, &env), 0);
}

/* Read the next message (NULL at end of stream); fails the test when none
 * comes within bound() seconds. */
static Asteal__Envelope *next(int fd, struct frame_reader *r)
{
	return tdaemon_next(fd, r, bound());
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

/* Bad peers, each disconnected, while a good client keeps its service. */
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

	fd = dial();                    /* a job of no workers: INVALID, as
	                                   asteal.proto says (it was BUSY) */
	{
		Asteal__Envelope env;
		Asteal__Hello h;

		frame_hello(&env, &h, ASTEAL__ROLE__JOB, "none", 0, "", "test");
		assert_int_equal(frame_write_fd(fd, &env), 0);
		expect_error_then_eof(fd, ASTEAL__ERROR_CODE__INVALID);
	}

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
	assert_int_equal(kill(dm->pid, 0), 0);
	close(good);
}

/* A Hello of protocol version 1 (Ticks), 2 (usage on the wall clock,
 * sleep in steal_ns) or 3 (usage totals field by field, 9 to 14, where
 * version 4 has none), a JOB's or a CLIENT's: BAD_VERSION naming both
 * versions, then the end of the stream. */
static void test_old_version(void **state)
{
	static const Asteal__Role roles[] = { ASTEAL__ROLE__JOB, ASTEAL__ROLE__CLIENT };
	static uint8_t one = 1;
	ProtobufCMessageUnknownField v3[6];
	char speaks[32], old[32];
	size_t i;

	(void)state;
	snprintf(speaks, sizeof(speaks), "speaks %u", PROTO_VERSION);
	assert_string_equal(speaks, "speaks 4");
	for (i = 0; i < 6; i++)         /* work_ns = 9 ... preempted_ns = 14: 1 */
		v3[i] = (ProtobufCMessageUnknownField){
			(uint32_t)(9 + i), PROTOBUF_C_WIRE_TYPE_VARINT, 1, &one };
	for (i = 0; i < 3 * sizeof(roles) / sizeof(roles[0]); i++) {
		struct frame_reader *r = frame_reader_new();
		Asteal__Role role = roles[i % 2];
		Asteal__Envelope env, *m;
		Asteal__Hello h;
		int fd = dial();

		assert_true(fd >= 0);
		frame_hello(&env, &h, role, "old", role == ASTEAL__ROLE__JOB ? 4 : 0,
		            "", "libasteal 0.0");
		h.version = 1 + (uint32_t)(i / 2);
		if (h.version == 3) {
			h.base.n_unknown_fields = 6;
			h.base.unknown_fields = v3;
		}
		snprintf(old, sizeof(old), "protocol version %u", h.version);
		assert_int_equal(frame_write_fd(fd, &env), 0);
		m = next(fd, r);
		assert_non_null(m);
		assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
		assert_int_equal(m->error->code, ASTEAL__ERROR_CODE__BAD_VERSION);
		if (strstr(m->error->message, old) == NULL ||
		    strstr(m->error->message, speaks) == NULL)
			fail_msg("BAD_VERSION says \"%s\"", m->error->message);
		frame_free(m);
		assert_null(next(fd, r));       /* disconnected */
		frame_reader_free(r);
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_peers),
		cmocka_unit_test_setup_teardown(test_old_version, reset, close_peers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
