/*
 * test_daemon_input.c - bad input to a real asteald (build/bin/asteald from
 * ASTEAL_TEST_BUILD, on a private socket, database and log), over the raw
 * protocol (no libasteal):
 * - bad peers: garbage, an oversize frame, an unknown message, a wrong
 *   version, a request before the handshake, a peer dying mid-frame and a
 *   peer that never reads its replies each get an Error where possible and
 *   are disconnected, while a good client connected all along is served;
 * - the old protocol: a Hello of version 1 (a JOB's or a CLIENT's) gets
 *   BAD_VERSION naming both versions ("protocol version 1, this side
 *   speaks 2"), then the end of the stream;
 * - bad quantum exchange from a job peer of 4 workers: a Feedback for a
 *   quantum that has not begun, for one that ended more than 10 s ago, a
 *   second one for the same or an earlier quantum, a desire above the
 *   workers (also negative int32s sent as 10-byte varints), desire_real
 *   NaN, infinite, negative or above the workers, usage totals that go back,
 *   and a Released for a quantum after the last tick or parked in the
 *   future: each gets Error INVALID on a connection that stays open (a
 *   later good Feedback or Released is taken without an Error), each bad
 *   Feedback is counted in Status.bad_feedbacks (and Status.feedbacks
 *   counts them all), each kind is logged once per job, a clamped desire
 *   shows as 4 in the Jobs reply, ignored usage leaves the Jobs totals at
 *   the last accepted, and a Feedback that ended less than 10 s ago is fine;
 * - desire 0 is valid: no Error, not counted as bad, the allotment drops to
 *   0 (Allot and Jobs) and a desire of 2 brings it back;
 * - handover release: a joining job is not given a CPU another job may
 *   still run on until that one says Released or a quarter quantum has
 *   passed, and every Allot of one quantum carries the same decided_ns;
 * - service to others: while one job misbehaves, a well-behaved job's
 *   desire changes are honoured (its Allots and the Jobs reply) and a
 *   client's Status answers; after a burst of 1000 bad Feedbacks (all sent,
 *   then read: 1000 Errors) the daemon is alive and still serves both.
 * Every wait is on a condition with a deadline (poll, never sleep and
 * hope); the job peers send heartbeats while they wait, as a job must.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
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

#include "exchange.h"
#include "frame.h"
#include "qtime.h"
#include "testutil.h"

static char dir[32], sock[64], logpath[64];
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

/* Start asteald in a temporary folder, its log in a file there. */
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
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	daemon_pid = fork();
	if (daemon_pid == 0) {
		int fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execl(bin, "asteald", "--foreground", "--log-level", "warn", "--socket",
		      sock, "--db", db, (char *)NULL);
		_exit(127);
	}
	return test_wait(up, NULL, 10.0);
}

/* Stop the daemon: it must exit 0 on SIGTERM (it did not crash); its log
 * goes to our stderr. */
static int teardown(void **state)
{
	int status = 0;
	char cmd[160];

	(void)state;
	kill(daemon_pid, SIGTERM);
	waitpid(daemon_pid, &status, 0);
	snprintf(cmd, sizeof(cmd), "cat %s >&2; rm -rf %s", logpath, dir);
	if (system(cmd) != 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* How long a wait may take before the test fails (sanitizers are slower). */
static double bound(void)
{
	return test_sanitized() ? 30.0 : 10.0;
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

/* Read the next message (NULL at end of stream); fails the test when none
 * comes within bound() seconds. */
static Asteal__Envelope *next(int fd, struct frame_reader *r)
{
	double end = test_now() + bound();
	Asteal__Envelope *m = NULL;

	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int got = frame_reader_next(r, &m);
		double left = end - test_now();
		ssize_t n;

		if (got == 1)
			return m;
		assert_int_equal(got, 0);
		if (left <= 0)
			fail_msg("no message nor end of stream within %.0f s", bound());
		if (poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		n = frame_reader_fill(r, fd);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return NULL;
	}
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

/* ------------------------------------------------- peers of the exchange -- */

#define MAX_PEERS 8
#define MAX_ERRORS 2048
#define NONE UINT64_MAX

/* An Error a peer received. */
struct err {
	int code;
	char msg[200];
};

/* A connection to the daemon, a JOB's or a CLIENT's, read by pump(). */
struct peer {
	int fd;
	struct frame_reader *r;
	int job;                       /* a JOB (sends heartbeats) */
	int welcomed, eof;
	Asteal__Envelope *reply;       /* a CLIENT's reply, for request() */
	/* From the Welcome. */
	uint64_t id, t0, L;
	uint32_t workers, ncpus, heartbeat_ms, quantum_us;
	/* What the daemon took from this job's Feedbacks. */
	int has_q;
	uint64_t last_q;               /* the last quantum a Feedback closed */
	uint32_t desire;               /* repeated by heartbeats */
	uint64_t tot[4];               /* work, steal, mug, allotted */
	double beat;                   /* test_now() of the last Feedback taken */
	/* The first Allot, and the last. */
	uint32_t first_allotment, first_availability;
	int allots;
	uint32_t allotment, availability;
	size_t allot_ncpus;
	uint64_t allot_q, decided_ns;
	/* Errors received, oldest first. */
	struct err *errs;
	int nerrs, errhead;
};

static struct peer *peers[MAX_PEERS];
static int npeers;
static int muted;                  /* no heartbeats */
static unsigned long fb_sent;      /* Feedbacks this test sent */
static unsigned long bad_sent;     /* ... of which bad (refused or clamped) */

/* The quantum running now on the shared clock, as p's Welcome says. */
static uint64_t qnow(const struct peer *p)
{
	uint64_t now = qtime_now_ns();

	return now > p->t0 ? (now - p->t0) / p->L : 0;
}

/* The decided_ns of the Allots of recent quanta, by quantum: every Allot
 * of one quantum must carry that quantum's tick, a grant held back for a
 * Released too. */
static struct decided {
	uint64_t t0, q, decided;
} decided_seen[64];

/* Check an Allot's decided_ns against the other Allots of its quantum. */
static void check_decided(const struct peer *p, uint64_t q, uint64_t decided)
{
	struct decided *d = &decided_seen[q % 64];

	if (d->t0 == p->t0 && d->q == q && d->decided != decided)
		fail_msg("job %" PRIu64 ": an Allot of quantum %" PRIu64 " decided "
		         "at %" PRIu64 ", another of it at %" PRIu64, p->id, q,
		         decided, d->decided);
	d->t0 = p->t0;
	d->q = q;
	d->decided = decided;
}

/* Take one message a peer received. */
static void take(struct peer *p, Asteal__Envelope *m)
{
	switch (m->msg_case) {
	case ASTEAL__ENVELOPE__MSG_WELCOME:
		assert_false(p->welcomed);
		p->welcomed = 1;
		p->id = m->welcome->job_id;
		p->t0 = m->welcome->t0_ns;
		p->quantum_us = m->welcome->quantum_us;
		p->L = (uint64_t)m->welcome->quantum_us * 1000u;
		p->ncpus = (uint32_t)m->welcome->n_cpus;
		p->heartbeat_ms = m->welcome->heartbeat_ms;
		p->beat = test_now();
		frame_free(m);
		return;
	case ASTEAL__ENVELOPE__MSG_ALLOT:
		assert_true(p->job);
		if (p->allots++ == 0) {
			p->first_allotment = m->allot->allotment;
			p->first_availability = m->allot->availability;
		}
		p->allotment = m->allot->allotment;
		p->availability = m->allot->availability;
		p->allot_ncpus = m->allot->n_cpus;
		p->allot_q = m->allot->quantum;
		p->decided_ns = m->allot->decided_ns;
		check_decided(p, p->allot_q, p->decided_ns);
		frame_free(m);
		return;
	case ASTEAL__ENVELOPE__MSG_ERROR:
		if (p->nerrs == MAX_ERRORS)
			fail_msg("more than %d Errors waiting", MAX_ERRORS);
		{
			struct err *e = &p->errs[(p->errhead + p->nerrs++) % MAX_ERRORS];

			e->code = (int)m->error->code;
			snprintf(e->msg, sizeof(e->msg), "%s", m->error->message);
		}
		frame_free(m);
		return;
	default:
		if (p->job)
			fail_msg("job %" PRIu64 " got a %s", p->id, frame_name(m));
		assert_null(p->reply);  /* one request at a time */
		p->reply = m;
	}
}

/* Read what a peer has (one read) and take its whole frames. */
static void peer_read(struct peer *p)
{
	Asteal__Envelope *m;
	ssize_t n = frame_reader_fill(p->r, p->fd);
	int got;

	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
		p->eof = 1;
	while ((got = frame_reader_next(p->r, &m)) == 1)
		take(p, m);
	assert_int_equal(got, 0);
}

/* Write a whole buffer to a peer's socket. */
static void send_all(struct peer *p, const uint8_t *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(p->fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		assert_true(n > 0);
		buf += n;
		len -= (size_t)n;
	}
}

/* Send a Feedback as given (nothing checked, nothing recorded). */
static void send_fb(struct peer *p, uint64_t q, uint32_t desire, double real,
                    const uint64_t tot[4])
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;

	fb.quantum = q;
	fb.desire = desire;
	fb.desire_real = real;
	fb.work_ns = tot[0];
	fb.steal_ns = tot[1];
	fb.mug_ns = tot[2];
	fb.allotted_ns = tot[3];
	fb.quantum_class = ASTEAL__QUANTUM_CLASS__SATISFIED;
	env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
	env.feedback = &fb;
	assert_int_equal(frame_write_fd(p->fd, &env), 0);
	fb_sent++;
}

/* Send a Feedback built by hand whose desire is d written as an int32 is
 * (a negative one as a 10-byte varint, as a sender with an int32 field
 * would write it), with p's usage totals. */
static void send_fb_int32(struct peer *p, uint64_t q, int32_t d, double real)
{
	uint8_t body[128], frame[160];
	uint64_t bits;
	size_t n = 0, len;
	Asteal__Envelope *m;
	int i;

	body[n++] = 0x08;               /* quantum */
	n += exchange_put_varint(body + n, q);
	body[n++] = 0x10;               /* desire */
	n += exchange_put_varint(body + n, (uint64_t)(int64_t)d);
	body[n++] = 0x19;               /* desire_real, fixed64 */
	memcpy(&bits, &real, sizeof(bits));
	for (i = 0; i < 8; i++)
		body[n++] = (uint8_t)(bits >> (8 * i));
	for (i = 0; i < 4; i++) {       /* work, steal, mug, allotted */
		body[n++] = (uint8_t)((4 + i) << 3);
		n += exchange_put_varint(body + n, p->tot[i]);
	}
	len = exchange_envelope(frame, ASTEAL__ENVELOPE__MSG_FEEDBACK, body, n);
	/* The bytes say what we mean: protobuf-c reads that desire. */
	m = frame_decode(frame + PROTO_HEADER_LEN, len - PROTO_HEADER_LEN, NULL, 0);
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_FEEDBACK);
	assert_int_equal(m->feedback->desire, (uint32_t)d);
	assert_int_equal(m->feedback->quantum, q);
	assert_int_equal(m->feedback->allotted_ns, p->tot[3]);
	frame_free(m);
	send_all(p, frame, len);
	fb_sent++;
}

/* Send a Released. */
static void send_released(struct peer *p, uint64_t q, uint64_t parked_ns)
{
	Asteal__Envelope env;
	Asteal__Released r;

	frame_released(&env, &r, q, parked_ns);
	assert_int_equal(frame_write_fd(p->fd, &env), 0);
}

/* The daemon took a Feedback closing q with this desire (clamped to the
 * workers): heartbeats go on from there. */
static void taken(struct peer *p, uint64_t q, uint32_t desire)
{
	p->has_q = 1;
	p->last_q = q;
	p->desire = desire < p->workers ? desire : p->workers;
	p->beat = test_now();
}

/* The quantum the next good Feedback may close now: the last one that
 * ended, if a Feedback has not closed it yet; NONE otherwise. */
static uint64_t closable(const struct peer *p)
{
	uint64_t qn = qnow(p);

	if (qn == 0 || (p->has_q && qn - 1 <= p->last_q))
		return NONE;
	return qn - 1;
}

/* Usage totals a little above p's (cumulative, as a job's are). */
static void more_usage(const struct peer *p, uint64_t tot[4])
{
	tot[0] = p->tot[0] + 3000000;
	tot[1] = p->tot[1] + 500000;
	tot[2] = p->tot[2] + 100000;
	tot[3] = p->tot[3] + 4000000;
}

/* A heartbeat from a job whose last Feedback is 0.8 periods old: its
 * desire again, closing the last quantum that ended (none if that quantum
 * is already closed: the next call sends it). */
static void beat(struct peer *p)
{
	uint64_t q, tot[4];

	if (!p->job || !p->welcomed || p->eof || muted ||
	    test_now() - p->beat < 0.8e-3 * p->heartbeat_ms ||
	    (q = closable(p)) == NONE)
		return;
	more_usage(p, tot);
	send_fb(p, q, p->desire, p->desire, tot);
	memcpy(p->tot, tot, sizeof(tot));
	taken(p, q, p->desire);
}

/* Send the jobs' heartbeats, then wait up to ms for input and take it. */
static void pump(int ms)
{
	struct pollfd pf[MAX_PEERS];
	int i, n;

	for (i = 0; i < npeers; i++)
		beat(peers[i]);
	for (i = 0; i < npeers; i++) {
		pf[i].fd = peers[i]->eof ? -1 : peers[i]->fd;
		pf[i].events = POLLIN;
		pf[i].revents = 0;
	}
	n = poll(pf, (nfds_t)npeers, ms);
	for (i = 0; n > 0 && i < npeers; i++)
		if (pf[i].revents != 0)
			peer_read(peers[i]);
}

/* Pump until cond(arg) holds: 0, or -1 after seconds. */
static int wait_for(int (*cond)(void *), void *arg, double seconds)
{
	double end = test_now() + seconds;

	for (;;) {
		pump(0);
		if (cond(arg))
			return 0;
		if (test_now() > end)
			return -1;
		pump(5);
	}
}

/* Connect a peer and get its Welcome: a JOB of `workers` workers, or a
 * CLIENT (workers 0). */
static struct peer *peer_open(const char *name, uint32_t workers)
{
	Asteal__Envelope env;
	Asteal__Hello h;
	struct peer *p = calloc(1, sizeof(*p));
	double end = test_now() + bound();

	assert_non_null(p);
	assert_true(npeers < MAX_PEERS);
	p->fd = dial();
	assert_true(p->fd >= 0);
	p->r = frame_reader_new();
	p->job = workers > 0;
	p->workers = workers;
	p->desire = 1;                  /* d_1 */
	p->errs = calloc(MAX_ERRORS, sizeof(*p->errs));
	assert_non_null(p->errs);
	peers[npeers++] = p;
	frame_hello(&env, &h, p->job ? ASTEAL__ROLE__JOB : ASTEAL__ROLE__CLIENT,
	            name, workers, "test_daemon_input", "test");
	assert_int_equal(frame_write_fd(p->fd, &env), 0);
	while (!p->welcomed) {
		assert_false(p->eof);
		if (test_now() > end)
			fail_msg("no Welcome within %.0f s", bound());
		pump(5);
	}
	if (p->job) {
		assert_true(p->id != 0);
		assert_true(p->t0 != 0 && p->L != 0);
		assert_int_equal(p->heartbeat_ms, PROTO_HEARTBEAT_MS);
	}
	return p;
}

/* Close a peer and forget it. */
static void peer_close(struct peer *p)
{
	int i;

	for (i = 0; i < npeers; i++)
		if (peers[i] == p) {
			peers[i] = peers[--npeers];
			break;
		}
	close(p->fd);
	frame_reader_free(p->r);
	frame_free(p->reply);
	free(p->errs);
	free(p);
}

/* Before each exchange test: counts from zero. */
static int reset(void **state)
{
	(void)state;
	fb_sent = bad_sent = 0;
	muted = 0;
	return 0;
}

/* After each test: close the peers it left (a failed test leaves some). */
static int close_peers(void **state)
{
	(void)state;
	while (npeers > 0)
		peer_close(peers[npeers - 1]);
	return 0;
}

/* Send a request from a client and wait for its reply (free it). */
static Asteal__Envelope *request(struct peer *c, const Asteal__Envelope *req)
{
	double end = test_now() + bound();
	Asteal__Envelope *m;

	assert_int_equal(frame_write_fd(c->fd, req), 0);
	while (c->reply == NULL) {
		if (c->eof)
			fail_msg("the daemon closed a client's connection");
		if (test_now() > end)
			fail_msg("no reply within %.0f s", bound());
		pump(5);
	}
	m = c->reply;
	c->reply = NULL;
	return m;
}

/* What the tests read of a Status. */
struct snap {
	uint64_t feedbacks, bad, allots, quantum, t0, revocations;
	uint32_t jobs, silent, quantum_us;
};

/* A client's Status, which must answer. */
static void status(struct peer *c, struct snap *s)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;

	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	env.status_request = &sr;
	m = request(c, &env);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_STATUS);
	assert_int_equal(m->status->protocol_version, PROTO_VERSION);
	s->feedbacks = m->status->feedbacks;
	s->bad = m->status->bad_feedbacks;
	s->allots = m->status->allots;
	s->quantum = m->status->quantum;
	s->t0 = m->status->t0_ns;
	s->revocations = m->status->revocations;
	s->jobs = m->status->jobs;
	s->silent = m->status->silent_jobs;
	s->quantum_us = m->status->quantum_us;
	frame_free(m);
}

/* What the tests read of a job in a Jobs reply. */
struct row {
	uint32_t desire, allotment, availability, workers;
	size_t ncpus;
	uint64_t tot[4];
};

/* Job id's row in a client's Jobs reply: 1, or 0 if it is not listed. */
static int job_row(struct peer *c, uint64_t id, struct row *out)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__JobsRequest jr = ASTEAL__JOBS_REQUEST__INIT;
	int found = 0;
	size_t i;

	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	env.jobs_request = &jr;
	m = request(c, &env);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_JOBS);
	for (i = 0; i < m->jobs->n_jobs; i++) {
		const Asteal__JobInfo *ji = m->jobs->jobs[i];

		if (ji->id != id)
			continue;
		out->desire = ji->desire;
		out->allotment = ji->allotment;
		out->availability = ji->availability;
		out->workers = ji->workers;
		out->ncpus = ji->n_cpus;
		out->tot[0] = ji->work_ns;
		out->tot[1] = ji->steal_ns;
		out->tot[2] = ji->mug_ns;
		out->tot[3] = ji->allotted_ns;
		found = 1;
	}
	frame_free(m);
	return found;
}

/* Wait for the next Error on job p: INVALID, its message containing
 * text; it must be the first one waiting (none came before it). */
static void expect_error(struct peer *p, const char *text)
{
	double end = test_now() + bound();
	struct err *e;

	while (p->nerrs == 0) {
		if (p->eof)
			fail_msg("job %" PRIu64 ": disconnected while waiting for an "
			         "Error \"%s\"", p->id, text);
		if (test_now() > end)
			fail_msg("job %" PRIu64 ": no Error \"%s\" within %.0f s",
			         p->id, text, bound());
		pump(5);
	}
	e = &p->errs[p->errhead];
	p->errhead = (p->errhead + 1) % MAX_ERRORS;
	p->nerrs--;
	if (e->code != ASTEAL__ERROR_CODE__INVALID || strstr(e->msg, text) == NULL)
		fail_msg("job %" PRIu64 ": Error %d \"%s\", expected INVALID \"%s\"",
		         p->id, e->code, e->msg, text);
}

/* Send a Feedback the daemon must refuse or correct (one bad, counted),
 * and get its Error. */
static void bad_fb(struct peer *p, uint64_t q, uint32_t desire, double real,
                   const uint64_t tot[4], const char *text)
{
	send_fb(p, q, desire, real, tot);
	bad_sent++;
	expect_error(p, text);
}

/* Wait until a good Feedback can close a new quantum: that quantum. */
static uint64_t next_q(struct peer *p)
{
	double end = test_now() + bound();
	uint64_t q;

	while ((q = closable(p)) == NONE) {
		if (test_now() > end)
			fail_msg("no quantum ended within %.0f s", bound());
		pump(1);
	}
	return q;
}

/* A good Feedback: desire (in range) for the next quantum, usage grown. */
static void good(struct peer *p, uint32_t desire)
{
	uint64_t q = next_q(p), tot[4];

	more_usage(p, tot);
	send_fb(p, q, desire, desire, tot);
	memcpy(p->tot, tot, sizeof(tot));
	taken(p, q, desire);
}

/* Prove that everything job p sent so far was taken without an Error: a
 * second Feedback for its last quantum must get the first Error waiting
 * (the connection keeps its order). */
static void sync_job(struct peer *p)
{
	char text[80];

	if (!p->has_q)
		good(p, p->desire);
	snprintf(text, sizeof(text), "a second Feedback for quantum %" PRIu64,
	         p->last_q);
	bad_fb(p, p->last_q, p->desire, p->desire, p->tot, text);
}

/* Wait for the first Allot a joining job gets. */
static void first_allot(struct peer *p)
{
	double end = test_now() + bound();

	while (p->allots == 0) {
		assert_false(p->eof);
		if (test_now() > end)
			fail_msg("job %" PRIu64 ": no Allot within %.0f s of joining",
			         p->id, bound());
		pump(5);
	}
	assert_int_equal(p->allot_ncpus, p->allotment);
}

/* What the Jobs reply and a job's own Allots must say. */
struct want {
	struct peer *c, *j;
	int desire, allotment;          /* -1: any */
	void (*meanwhile)(void);        /* called at each check, or NULL */
};

/* Whether the Jobs reply shows j with the wanted desire and allotment, and
 * j's last Allot says that allotment. */
static int job_is(void *arg)
{
	struct want *w = arg;
	struct row r;

	if (w->meanwhile != NULL)
		w->meanwhile();
	if (!job_row(w->c, w->j->id, &r))
		return 0;
	if (w->desire >= 0 && r.desire != (uint32_t)w->desire)
		return 0;
	if (w->allotment < 0)
		return 1;
	return r.allotment == (uint32_t)w->allotment && r.ncpus == r.allotment &&
	       w->j->allots > 0 && w->j->allotment == (uint32_t)w->allotment &&
	       w->j->allot_ncpus == w->j->allotment;
}

/* Wait (bounded) until the Jobs reply and j's Allots show that desire
 * and allotment (-1: any). */
static void wait_job(struct peer *c, struct peer *j, int desire, int allotment)
{
	struct want w = { c, j, desire, allotment, NULL };
	struct row r;

	if (wait_for(job_is, &w, bound()) == 0)
		return;
	memset(&r, 0, sizeof(r));
	job_row(c, j->id, &r);
	fail_msg("job %" PRIu64 ": wanted desire %d allotment %d; Jobs says desire "
	         "%u allotment %u (%zu cpus), its last Allot %u (%d Allots)",
	         j->id, desire, allotment, r.desire, r.allotment, r.ncpus,
	         j->allotment, j->allots);
}

/* Whether the daemon lists no job (those of earlier tests are gone). */
static int no_jobs(void *arg)
{
	struct snap s;

	status(arg, &s);
	return s.jobs == 0;
}

/* The daemon's log lines about job id that contain text. */
static int log_lines(uint64_t id, const char *text)
{
	FILE *f = fopen(logpath, "r");
	char line[1024], who[48];
	int n = 0;

	assert_non_null(f);
	snprintf(who, sizeof(who), "job %" PRIu64 " pid ", id);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, who) != NULL && strstr(line, text) != NULL)
			n++;
	fclose(f);
	return n;
}

/* Stop heartbeats, prove every job's input was read (sync_job), then
 * check the counters against what this test sent since s0. */
static void check_counts(struct peer *c, const struct snap *s0)
{
	struct snap s1;
	int i;

	muted = 1;
	for (i = 0; i < npeers; i++)
		if (peers[i]->job)
			sync_job(peers[i]);
	status(c, &s1);
	muted = 0;
	assert_int_equal(s1.bad - s0->bad, bad_sent);
	assert_int_equal(s1.feedbacks - s0->feedbacks, fb_sent);
}

/* --------------------------------------------------------------- tests -- */

/* A Hello of protocol version 1, a JOB's or a CLIENT's: BAD_VERSION naming
 * both versions, then the end of the stream. */
static void test_old_version(void **state)
{
	static const Asteal__Role roles[] = { ASTEAL__ROLE__JOB, ASTEAL__ROLE__CLIENT };
	char speaks[32];
	size_t i;

	(void)state;
	snprintf(speaks, sizeof(speaks), "speaks %u", PROTO_VERSION);
	assert_string_equal(speaks, "speaks 2");
	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		struct frame_reader *r = frame_reader_new();
		Asteal__Envelope env, *m;
		Asteal__Hello h;
		int fd = dial();

		assert_true(fd >= 0);
		frame_hello(&env, &h, roles[i], "old", roles[i] == ASTEAL__ROLE__JOB ? 4 : 0,
		            "", "libasteal 0.0");
		h.version = 1;
		assert_int_equal(frame_write_fd(fd, &env), 0);
		m = next(fd, r);
		assert_non_null(m);
		assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
		assert_int_equal(m->error->code, ASTEAL__ERROR_CODE__BAD_VERSION);
		if (strstr(m->error->message, "protocol version 1") == NULL ||
		    strstr(m->error->message, speaks) == NULL)
			fail_msg("BAD_VERSION says \"%s\"", m->error->message);
		frame_free(m);
		assert_null(next(fd, r));       /* disconnected */
		frame_reader_free(r);
		close(fd);
	}
}

/* A desire above the workers is clamped to them (the Jobs reply shows 4),
 * also when it is a negative int32 sent as a 10-byte varint; the
 * allotment stays within what 4 workers can use. */
static void test_desire_clamped(void **state)
{
	struct peer *c = peer_open("client", 0), *j;
	struct snap s0;
	uint64_t q;
	uint32_t want;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	status(c, &s0);
	j = peer_open("clamped", 4);
	first_allot(j);
	want = j->ncpus < 4 ? j->ncpus : 4;

	q = next_q(j);
	bad_fb(j, q, 1000, 3.5, j->tot, "desire 1000 is above the job's 4 workers: taken as 4");
	taken(j, q, 1000);
	assert_int_equal(j->desire, 4);
	wait_job(c, j, 4, (int)want);

	good(j, 1);
	wait_job(c, j, 1, 1);
	q = next_q(j);                  /* int32 -1: 0xffffffff */
	send_fb_int32(j, q, -1, 3.0);
	bad_sent++;
	expect_error(j, "desire 4294967295 is above the job's 4 workers: taken as 4");
	taken(j, q, 4);
	wait_job(c, j, 4, (int)want);

	good(j, 1);
	wait_job(c, j, 1, 1);
	q = next_q(j);                  /* int32 -2^31: 0x80000000 */
	send_fb_int32(j, q, INT32_MIN, 3.0);
	bad_sent++;
	expect_error(j, "desire 2147483648 is above the job's 4 workers: taken as 4");
	taken(j, q, 4);
	wait_job(c, j, 4, (int)want);

	q = next_q(j);                  /* just above */
	bad_fb(j, q, 5, 4.0, j->tot, "desire 5 is above the job's 4 workers: taken as 4");
	taken(j, q, 5);
	good(j, 4);                     /* the workers exactly: fine */
	sync_job(j);
	wait_job(c, j, 4, (int)want);
	assert_false(j->eof);
	check_counts(c, &s0);
	assert_int_equal(log_lines(j->id, "is above the job's"), 1);
}

/* Desire 0 is valid: taken without an Error nor a bad count, the
 * allotment drops to 0, and a desire of 2 brings it back. */
static void test_desire_zero(void **state)
{
	struct peer *c = peer_open("client", 0), *j;
	struct snap s0;
	uint32_t want;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	status(c, &s0);
	j = peer_open("idle", 4);
	first_allot(j);
	assert_int_equal(j->allotment, 1);      /* d_1 = 1 */
	want = j->ncpus < 2 ? j->ncpus : 2;

	good(j, 0);
	sync_job(j);                    /* no Error before the sentinel's */
	wait_job(c, j, 0, 0);
	good(j, 2);
	sync_job(j);
	wait_job(c, j, 2, (int)want);
	good(j, 0);                     /* and down again */
	wait_job(c, j, 0, 0);
	assert_false(j->eof);
	check_counts(c, &s0);           /* only the sentinels were bad */
	assert_int_equal(bad_sent, 3);
}

/* How many runs the history holds for the jobs of hr (one page). */
static size_t history_runs(struct peer *c, Asteal__HistoryRequest *hr)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	int64_t limit = hr->limit;
	size_t n;

	hr->limit = 10000;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = hr;
	m = request(c, &env);
	hr->limit = limit;
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HISTORY);
	assert_false(m->history->more);
	n = m->history->n_allotments;
	frame_free(m);
	return n;
}

/* History pages cut by a cursor, read while two jobs keep changing
 * desire (a run more each quantum, between pages too): no run comes
 * twice, each page goes on in the order (job, start) where the one before
 * stopped, every run written before the first page is read, and a cursor
 * out of range gets Error INVALID. */
static void test_history_pages(void **state)
{
	struct peer *c = peer_open("client", 0), *a, *b;
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__HistoryCursor after, bad = ASTEAL__HISTORY_CURSOR__INIT;
	uint64_t ids[2], seen[512][2], job = 0, start = 0;
	size_t nseen = 0, i, k;
	int pages = 0, more = 1;
	double end = test_now() + 4 * bound();

	(void)state;
	a = peer_open("pages-a", 4);
	b = peer_open("pages-b", 4);
	first_allot(a);
	first_allot(b);
	ids[0] = a->id;
	ids[1] = b->id;
	hr.job_ids = ids;
	hr.n_job_ids = 2;
	hr.limit = 3;
	/* A change of desire makes a run only if the daemon reads it before
	 * the next: one late Feedback and the one after it can fall in the
	 * same tick.  So change until the history holds 20 runs. */
	for (i = 0; history_runs(c, &hr) < 20; i++) {
		assert_true(test_now() < end);
		good(a, 1 + i % 2);
		good(b, 2 - i % 2);
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hr;
	while (more) {
		m = request(c, &env);
		assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HISTORY);
		assert_true(m->history->n_allotments <= 3);
		for (i = 0; i < m->history->n_allotments; i++) {
			const Asteal__AllotmentRecord *r = m->history->allotments[i];

			assert_true(r->job_id > job ||
			            (r->job_id == job && r->start_ns > start));
			job = r->job_id;
			start = r->start_ns;
			for (k = 0; k < nseen; k++)
				assert_false(seen[k][0] == r->job_id &&
				             seen[k][1] == r->first_quantum);
			assert_true(nseen < 512);
			seen[nseen][0] = r->job_id;
			seen[nseen++][1] = r->first_quantum;
		}
		more = frame_history_after(&hr, &after, m->history);
		if (more)
			assert_int_not_equal(m->history->n_allotments, 0);
		frame_free(m);
		assert_true(++pages < 200);
		if (pages <= 8) {       /* both jobs: a run more each */
			good(a, 1 + pages % 2);
			good(b, 2 - pages % 2);
		}
	}
	assert_true(pages > 5);
	assert_true(nseen >= 20);
	bad.job_id = UINT64_MAX;
	hr.after = &bad;
	assert_int_equal(frame_write_fd(c->fd, &env), 0);
	expect_error(c, "cursor");
}

/* A Released for a quantum after the last tick, or parked in the future:
 * Error INVALID, ignored (no revocation sample); a good one later is
 * taken without an Error, on the same connection. */
static void test_bad_released(void **state)
{
	struct peer *c = peer_open("client", 0), *j;
	struct snap s0, s1;
	uint64_t qa, now;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	j = peer_open("released", 4);
	first_allot(j);
	sync_job(j);
	status(c, &s0);
	qa = j->allot_q;

	send_released(j, qnow(j) + 1000, qtime_now_ns());
	expect_error(j, "a Released for quantum");
	send_released(j, UINT64_MAX, qtime_now_ns());
	expect_error(j, "a Released for quantum");
	send_released(j, qa, qtime_now_ns() + 1000000000000ull);
	expect_error(j, "a Released for quantum");
	send_released(j, qa, UINT64_MAX);
	expect_error(j, "a Released for quantum");

	now = qtime_now_ns();
	assert_true(now >= j->decided_ns);
	send_released(j, qa, now);      /* good: no Error */
	sync_job(j);
	status(c, &s1);
	/* Taken as a sample, unless a later Allot came first (then it is for
	 * an old quantum: taken, not sampled). */
	if (j->allot_q == qa)
		assert_int_equal(s1.revocations - s0.revocations, 1);
	else
		assert_true(s1.revocations - s0.revocations <= 1);
	print_message("bad Released: Status.bad_feedbacks grew by %" PRIu64
	              " for 4 bad Released and 1 bad Feedback\n", s1.bad - s0.bad);
	assert_false(j->eof);
	assert_int_equal(log_lines(j->id, "a Released for quantum"), 1);
}

/* Wait until job p's last Allot gives it n CPUs. */
static void wait_allot(struct peer *p, uint32_t n)
{
	double end = test_now() + bound();

	while (p->allots == 0 || p->allotment != n) {
		assert_false(p->eof);
		if (test_now() > end)
			fail_msg("job %" PRIu64 ": no Allot of %u CPUs within %.0f s "
			         "(it has %u)", p->id, n, bound(), p->allotment);
		pump(5);
	}
}

/* --handover release (the default): a CPU that DEQ moves from job a to a
 * joining job b is held back from b while a may still run on it, so b's
 * first Allot gives none of a's CPUs (allotment 0 of availability 1); a,
 * which never says Released, loses it in the same tick, and b gets it a
 * quarter of a quantum later.  Every grant carries its quantum's
 * decided_ns (take checks every Allot). */
static void test_handover_release(void **state)
{
	struct peer *c = peer_open("client", 0), *a, *b;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	a = peer_open("holder", 4);
	first_allot(a);
	if (a->ncpus < 2) {
		print_message("one CPU: nothing to hand over\n");
		skip();
	}
	good(a, 2);
	wait_allot(a, 2);
	b = peer_open("gainer", 4);
	first_allot(b);
	assert_int_equal(b->first_allotment, 0);
	assert_int_equal(b->first_availability, 1);
	wait_allot(b, 1);
	assert_int_equal(a->allotment, 1);
	assert_int_equal(b->allots, 2);
	print_message("a joining job got an Allot of 0 CPUs, then the CPU the "
	              "other job lost\n");
}

/* What the bad job of test_others_served does at each check. */
static struct peer *villain;
static int villain_turn;

/* One more bad Feedback from the villain (which has sent a good one), of
 * the kinds that leave its desire alone (refused, or taken with only
 * desire_real or usage corrected), in turn, and its Error. */
static void misbehave(void)
{
	uint64_t q, tot[4];

	switch (villain_turn++ % 4) {
	case 0:
		bad_fb(villain, qnow(villain) + 100000, 4, 4, villain->tot,
		       "which has not begun");
		return;
	case 1:
		if (villain->has_q) {
			bad_fb(villain, villain->last_q, 4, 4, villain->tot,
			       "a second Feedback");
			return;
		}
		break;
	case 2:
		q = next_q(villain);
		bad_fb(villain, q, villain->desire, NAN, villain->tot, "desire_real");
		taken(villain, q, villain->desire);
		return;
	default:
		q = next_q(villain);
		memcpy(tot, villain->tot, sizeof(tot));
		tot[0]--;
		tot[3] += 1000000;
		bad_fb(villain, q, villain->desire, villain->desire, tot,
		       "usage totals went back");
		taken(villain, q, villain->desire);
		return;
	}
	bad_fb(villain, UINT64_MAX, 0, 0, villain->tot, "which has not begun");
}

/* Whether the well-behaved job has what it asked for, while the villain
 * misbehaves and a client's Status answers. */
static int served(void *arg)
{
	struct want *w = arg;
	struct snap s;

	status(w->c, &s);
	return job_is(arg);
}

/* Other peers keep their service while a job misbehaves, and after a
 * burst of 1000 bad Feedbacks from it. */
static void test_others_served(void **state)
{
	struct peer *c = peer_open("client", 0), *g, *b;
	struct snap s0, s;
	struct row rg, rb;
	struct want w;
	uint32_t want;
	uint8_t *burst;
	size_t len = 0, cap = 64 * 1000;
	uint64_t q;
	int i;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	status(c, &s0);
	g = peer_open("good", 4);
	b = peer_open("bad", 4);
	first_allot(g);
	first_allot(b);
	want = g->ncpus < 2 ? g->ncpus : 2;
	villain = b;
	villain_turn = 0;

	/* The villain wants nothing; the good job asks for 2 and gets them
	 * while the villain sends bad Feedbacks. */
	good(b, 0);
	sync_job(b);
	wait_job(c, b, 0, 0);
	for (i = 0; i < 4; i++)         /* each kind at least once */
		misbehave();
	good(g, 2);
	w = (struct want){ c, g, 2, (int)want, misbehave };
	if (wait_for(served, &w, bound()) < 0)
		fail_msg("job %" PRIu64 " did not get its 2 CPUs while another "
		         "misbehaved", g->id);
	print_message("the good job got %u CPUs after %d bad Feedbacks\n",
	              want, villain_turn);

	/* The villain's desire of 1000 is clamped: the two share the CPUs,
	 * and the good job is told its part. */
	q = next_q(b);
	bad_fb(b, q, 1000, 4, b->tot, "taken as 4");
	taken(b, q, 4);
	{
		double end = test_now() + bound();

		for (;;) {
			misbehave();
			status(c, &s);
			if (job_row(c, g->id, &rg) && job_row(c, b->id, &rb) &&
			    rb.desire == 4 && rg.desire == 2 &&
			    (rg.allotment >= 1 || g->ncpus < 2) &&
			    rg.allotment + rb.allotment ==
			    (g->ncpus < 6 ? g->ncpus : 6) &&
			    g->allotment == rg.allotment && g->allot_ncpus == rg.allotment)
				break;
			if (test_now() > end)
				fail_msg("sharing with a clamped job: good %u/%u (Allot %u), "
				         "bad desire %u allotment %u", rg.allotment,
				         rg.desire, g->allotment, rb.desire, rb.allotment);
			pump(5);
		}
	}
	/* The villain goes back to nothing: the good job gets its 2 again. */
	good(b, 0);
	w = (struct want){ c, g, 2, (int)want, misbehave };
	assert_int_equal(wait_for(served, &w, bound()), 0);

	/* A burst: 1000 bad Feedbacks sent at once, then read. */
	burst = malloc(cap);
	assert_non_null(burst);
	for (i = 0; i < 1000; i++) {
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
		Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;
		size_t n;

		fb.quantum = i % 2 ? b->last_q : qnow(b) + 100000 + (uint64_t)i;
		fb.desire = 3;
		fb.desire_real = 3;
		env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
		env.feedback = &fb;
		assert_int_equal(frame_encode(&env, burst + len, cap - len, &n), 0);
		len += n;
	}
	send_all(b, burst, len);
	free(burst);
	fb_sent += 1000;
	bad_sent += 1000;
	for (i = 0; i < 1000; i++)
		expect_error(b, i % 2 ? "a second Feedback" : "which has not begun");
	status(c, &s);
	assert_int_equal(kill(daemon_pid, 0), 0);
	assert_false(b->eof);
	assert_false(g->eof);

	/* Both are still served. */
	good(g, 1);
	wait_job(c, g, 1, 1);
	good(b, 1);
	wait_job(c, b, 1, g->ncpus >= 2 ? 1 : -1);
	check_counts(c, &s0);
	/* Each kind is logged once for the villain, however often it came. */
	assert_int_equal(log_lines(b->id, "which has not begun"), 1);
	assert_int_equal(log_lines(b->id, "a second Feedback"), 1);
	assert_int_equal(log_lines(b->id, "desire_real"), 1);
	assert_int_equal(log_lines(b->id, "usage totals went back"), 1);
	assert_int_equal(log_lines(b->id, "is above the job's"), 1);
	assert_int_equal(log_lines(g->id, "which has not begun"), 0);
}

/* Whether the clock has reached the instant *arg (ns, CLOCK_MONOTONIC). */
static int clock_at(void *arg)
{
	return qtime_now_ns() >= *(const uint64_t *)arg;
}

/* Every kind of bad Feedback from one job gets Error INVALID, the
 * connection stays, Status counts them, each kind is logged once. */
static void test_bad_feedbacks(void **state)
{
	static const double reals[] = { NAN, INFINITY, -INFINITY, -0.5, 4.5, 1e300 };
	struct peer *c = peer_open("client", 0), *j;
	struct snap s0, sa, sb;
	struct row r;
	uint64_t past, q, qn, qa, qb, at, tot[4], good_tot[4];
	size_t i;

	(void)state;
	status(c, &s0);
	/* Quanta that ended more than 10 s ago exist once the daemon has run
	 * that long (its quanta start with it): wait for the clock to get
	 * there (the wait's bound is that instant plus bound()). */
	past = (uint64_t)PROTO_FEEDBACK_PAST_MS * 1000000u /
	       ((uint64_t)s0.quantum_us * 1000u) + 1;
	at = s0.t0 + (past + 50) * (uint64_t)s0.quantum_us * 1000u;
	assert_int_equal(wait_for(clock_at, &at, (double)(at > qtime_now_ns() ?
	                 at - qtime_now_ns() : 0) * 1e-9 + bound()), 0);
	status(c, &s0);

	j = peer_open("bad", 4);
	assert_int_equal(j->t0, s0.t0);
	assert_int_equal(j->quantum_us, s0.quantum_us);
	first_allot(j);
	qa = qnow(j);
	status(c, &sa);
	qb = qnow(j);
	assert_in_range(sa.quantum, qa, qb);

	/* A quantum that ended 5 s ago is fine. */
	q = qnow(j) - past / 2;
	more_usage(j, tot);
	send_fb(j, q, 1, 1, tot);
	memcpy(j->tot, tot, sizeof(tot));
	taken(j, q, 1);
	sync_job(j);

	/* Quanta that have not begun. */
	qn = qnow(j);
	bad_fb(j, qn + 1000, 2, 2, j->tot, "which has not begun");
	bad_fb(j, qn + 100000, 2, 2, j->tot, "which has not begun");
	bad_fb(j, UINT64_MAX, 2, 2, j->tot, "which has not begun");
	/* Quanta that ended more than 10 s ago. */
	bad_fb(j, 0, 2, 2, j->tot, "which ended more than 10 s ago");
	bad_fb(j, qnow(j) - past - 20, 2, 2, j->tot, "which ended more than 10 s ago");
	/* The same quantum again, and an earlier one. */
	good(j, 1);
	bad_fb(j, j->last_q, 2, 2, j->tot, "a second Feedback");
	bad_fb(j, j->last_q - 1, 2, 2, j->tot, "a second Feedback");
	bad_fb(j, j->last_q - 100, 2, 2, j->tot, "a second Feedback");

	/* Desires above the workers: clamped to them. */
	q = next_q(j);
	bad_fb(j, q, 1000, 3.5, j->tot, "taken as 4");
	taken(j, q, 4);
	wait_job(c, j, 4, -1);
	q = next_q(j);
	send_fb_int32(j, q, -1, 3.0);
	bad_sent++;
	expect_error(j, "taken as 4");
	taken(j, q, 4);

	/* desire_real that is not a number of workers: replaced by desire. */
	for (i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		q = next_q(j);
		bad_fb(j, q, 3, reals[i], j->tot, "desire_real");
		taken(j, q, 3);
	}
	sync_job(j);
	wait_job(c, j, 3, -1);

	/* Usage totals going back, each of the four: ignored, the rest of
	 * the Feedback (desire 2) taken. */
	muted = 1;                      /* the totals stay those of good() */
	good(j, 3);
	memcpy(good_tot, j->tot, sizeof(good_tot));
	for (i = 0; i < 4; i++) {
		memcpy(tot, good_tot, sizeof(tot));
		tot[i] -= 1;
		tot[(i + 1) % 4] += 1000000;    /* another one going on */
		q = next_q(j);
		bad_fb(j, q, 2, 2, tot, "usage totals went back");
		taken(j, q, 2);
	}
	sync_job(j);
	assert_true(job_row(c, j->id, &r));
	muted = 0;
	assert_memory_equal(r.tot, good_tot, sizeof(good_tot));
	wait_job(c, j, 2, -1);

	/* Still connected: a later good Feedback is taken (no Error before
	 * the sentinel's) and its desire used. */
	good(j, 1);
	sync_job(j);
	wait_job(c, j, 1, -1);
	assert_false(j->eof);
	check_counts(c, &s0);

	assert_int_equal(log_lines(j->id, "which has not begun"), 1);
	assert_int_equal(log_lines(j->id, "which ended more than 10 s ago"), 1);
	assert_int_equal(log_lines(j->id, "a second Feedback"), 1);
	assert_int_equal(log_lines(j->id, "is above the job's"), 1);
	assert_int_equal(log_lines(j->id, "desire_real"), 1);
	assert_int_equal(log_lines(j->id, "usage totals went back"), 1);

	/* Two faults in one Feedback: an Error for each. */
	status(c, &sa);
	q = next_q(j);
	send_fb(j, q, 1000, NAN, j->tot);
	expect_error(j, "taken as 4");
	expect_error(j, "desire_real");
	taken(j, q, 4);
	sync_job(j);
	status(c, &sb);
	print_message("one Feedback with two faults: Status.bad_feedbacks grew by "
	              "%" PRIu64 "\n", sb.bad - sa.bad - 1);
	assert_true(sb.bad - sa.bad >= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_peers),
		cmocka_unit_test_setup_teardown(test_old_version, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_desire_clamped, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_desire_zero, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_bad_released, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_handover_release, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_history_pages, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_others_served, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_bad_feedbacks, reset, close_peers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
