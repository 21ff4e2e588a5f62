/*
 * test_daemon_input.c - bad input to a real asteald (build/bin/asteald from
 * ASTEAL_TEST_BUILD, on a private socket, database and log), over the raw
 * protocol (no libasteal):
 * - bad peers: garbage, an oversize frame, an unknown message, a wrong
 *   version, a job's Hello of no workers (INVALID, as asteal.proto says),
 *   a request before the handshake, a peer dying mid-frame and a
 *   peer that never reads its replies each get an Error where possible and
 *   are disconnected, while a good client connected all along is served;
 * - the old protocols: a Hello of version 1 or 2 (a JOB's or a CLIENT's)
 *   gets BAD_VERSION naming both versions ("protocol version 1, this side
 *   speaks 3"), then the end of the stream;
 * - fields no job could send, from a job peer of 4 workers: a Feedback for
 *   a quantum that has not begun, a desire above the workers (also
 *   negative int32s sent as 10-byte varints), desire_real NaN, infinite,
 *   negative or above the workers, a class the protocol does not have,
 *   each usage total going back or beyond what the workers could use
 *   since the job joined: each gets Error INVALID naming the field and the
 *   job is dropped (the connection ends, its history row ends), counted in
 *   Status.bad_feedbacks and logged; Feedbacks at the edges of each range
 *   are taken without an Error;
 * - what a late or stopped job could send (a Feedback for a quantum that
 *   ended more than 10 s ago, a second one for the same or an earlier
 *   quantum) and a Released for a quantum after the last tick or parked
 *   in the future: each gets Error INVALID on a connection that stays open
 *   (a later good Feedback or Released is taken without an Error), is
 *   counted in Status.bad_feedbacks (Status.feedbacks counts all
 *   Feedbacks), each kind logged once per job; a Feedback that ended less
 *   than 10 s ago is fine;
 * - desire 0 is valid: no Error, not counted as bad, the allotment drops to
 *   0 (Allot and Jobs) and a desire of 2 brings it back;
 * - handover release: a joining job is not given a CPU another job may
 *   still run on until that one says Released or a quarter quantum has
 *   passed, and every Allot of one quantum carries the same decided_ns;
 * - service to others: while one job misbehaves, a well-behaved job's
 *   desire changes are honoured (its Allots and the Jobs reply) and a
 *   client's Status answers; after a burst of 1000 bad messages (all sent,
 *   then read: 1000 Errors) the daemon is alive and still serves both, and
 *   a third job dropped for a bad field gives its CPUs back;
 * - silence: a job that stops talking loses its CPUs to another job once
 *   four heartbeats are missed (not before, within a bound of quanta
 *   after), and gets them back when it speaks again;
 * - users first (as root: a second uid, 64999, from a child that connects
 *   as it): on two CPUs, one uid's 10 jobs asking for 1 CPU each leave
 *   another uid's job asking for 2 one CPU every quantum, and --share job
 *   leaves it far less; each daemon's history replays exactly through DEQ
 *   (tests/deq_replay.c) in its own mode.
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
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <cmocka.h>

#include "exchange.h"
#include "frame.h"
#include "qtime.h"
#include "daemonutil.h"
#include "testutil.h"

static struct tdaemon main_daemon, other_daemon;  /* the tests' and a
                                                     test's own */
static struct tdaemon *dm = &main_daemon;  /* the one peers dial */

/* Connect to the daemon peers dial (-1 if not there yet). */
static int dial(void)
{
	return tdaemon_dial(dm);
}

/* Start an asteald (its log at warn) with the options in extra
 * (NULL-terminated, or NULL), and make it the one peers dial: 0 once it
 * accepts connections, else -1. */
static int daemon_start(struct tdaemon *d, const char *const *extra)
{
	const char *args[24] = { "--log-level", "warn" };
	int n = 2;

	while (extra != NULL && *extra != NULL && n < 23)
		args[n++] = *extra++;
	args[n] = NULL;
	dm = d;
	return tdaemon_start(d, args, 0);
}

/* Start the daemon of the tests. */
static int setup(void **state)
{
	(void)state;
	return daemon_start(&main_daemon, NULL);
}

/* Stop it: it must exit 0 on SIGTERM; its log goes to our stderr. */
static int teardown(void **state)
{
	(void)state;
	return tdaemon_stop(&main_daemon);
}

/* How long a wait may take before the test fails (sanitizers are slower). */
static double bound(void)
{
	return tdaemon_bound();
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

/* ------------------------------------------------- peers of the exchange -- */

/* A job peer's usage totals (daemonutil.h). */
#define NTOT TDAEMON_NUSE
#define MAX_PEERS 16
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
	int quiet;                     /* sends no heartbeats (a job
	                                  stopped, or hung) */
	int welcomed, eof;
	Asteal__Envelope *reply;       /* a CLIENT's reply, for request() */
	/* From the Welcome, and when: the daemon registered the job between
	 * opened_ns and welcomed_ns (CLOCK_MONOTONIC). */
	uint64_t opened_ns, welcomed_ns;
	uint64_t id, t0, L;
	uint32_t workers, ncpus, heartbeat_ms, quantum_us;
	/* What the daemon took from this job's Feedbacks. */
	int has_q;
	uint64_t last_q;               /* the last quantum a Feedback closed */
	uint32_t desire;               /* repeated by heartbeats */
	uint64_t tot[NTOT];            /* work, steal, mug, allotted, sleep,
	                                  preempted */
	double beat;                   /* test_now() of the last Feedback taken */
	/* The first Allot, and the last. */
	uint32_t first_allotment, first_availability;
	int allots;
	uint64_t fb_ns;                /* when it last sent a Feedback */
	uint32_t allotment, availability;
	size_t allot_ncpus;
	uint64_t allot_q, decided_ns;
	uint64_t cpu_quanta;           /* CPUs held, summed over the quanta
	                                  up to allot_q, by the Allots */
	/* Errors received, oldest first. */
	struct err *errs;
	int nerrs, errhead;
};

static struct peer *peers[MAX_PEERS];
static int npeers;
static int muted;                  /* no heartbeats */
static unsigned long fb_sent;      /* Feedbacks this test sent */
static unsigned long bad_sent;     /* ... of which bad (refused) */

/* The quantum running now on the shared clock, as p's Welcome says. */
static uint64_t qnow(const struct peer *p)
{
	uint64_t now = qtime_now_ns();

	return now > p->t0 ? (now - p->t0) / p->L : 0;
}

/* The decided_ns of the Allots of recent quanta, by quantum: every Allot
 * of one quantum must carry that quantum's tick, a grant held back for a
 * Released too; only an Allot that gives CPUs to a job that had none may
 * be a grant (scheduler.c), decided later than the tick.  firm: an Allot
 * that cannot be a grant set `decided`; else it is the least seen. */
static struct decided {
	uint64_t t0, q, decided;
	int firm;
} decided_seen[64];

/* Check an Allot's decided_ns against the other Allots of its quantum;
 * maybe_grant when it gives CPUs to a job that held none. */
static void check_decided(const struct peer *p, uint64_t q, uint64_t decided,
                          int maybe_grant)
{
	struct decided *d = &decided_seen[q % 64];

	if (d->t0 != p->t0 || d->q != q) {
		d->t0 = p->t0;
		d->q = q;
		d->decided = decided;
		d->firm = !maybe_grant;
		return;
	}
	if (maybe_grant ? d->firm && decided < d->decided
	                : (d->firm ? decided != d->decided : decided > d->decided))
		fail_msg("job %" PRIu64 ": an Allot of quantum %" PRIu64 " decided "
		         "at %" PRIu64 ", %s at %" PRIu64, p->id, q, decided,
		         d->firm ? "its tick's" : "a grant of it", d->decided);
	if (!maybe_grant || (!d->firm && decided < d->decided)) {
		d->decided = decided;
		d->firm |= !maybe_grant;
	}
}

/* Take one message a peer received. */
static void take(struct peer *p, Asteal__Envelope *m)
{
	int maybe_grant;

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
		p->welcomed_ns = qtime_now_ns();
		frame_free(m);
		return;
	case ASTEAL__ENVELOPE__MSG_ALLOT:
		assert_true(p->job);
		maybe_grant = (p->allots == 0 || p->allotment == 0) &&
		              m->allot->allotment > 0;
		if (p->allots > 0 && m->allot->quantum > p->allot_q)
			p->cpu_quanta += (uint64_t)p->allotment *
			                 (m->allot->quantum - p->allot_q);
		if (p->allots++ == 0) {
			p->first_allotment = m->allot->allotment;
			p->first_availability = m->allot->availability;
		}
		p->allotment = m->allot->allotment;
		p->availability = m->allot->availability;
		p->allot_ncpus = m->allot->n_cpus;
		p->allot_q = m->allot->quantum;
		p->decided_ns = m->allot->decided_ns;
		check_decided(p, p->allot_q, p->decided_ns, maybe_grant);
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

/* Send a Feedback of class cls as given (nothing checked, nothing
 * recorded). */
static void send_fb_class(struct peer *p, uint64_t q, uint32_t desire,
                          double real, const uint64_t tot[NTOT], int cls)
{
	assert_int_equal(tdaemon_feedback(p->fd, q, desire, real, tot, cls), 0);
	p->fb_ns = qtime_now_ns();
	fb_sent++;
}

/* Send a Feedback as given, of a satisfied quantum. */
static void send_fb(struct peer *p, uint64_t q, uint32_t desire, double real,
                    const uint64_t tot[NTOT])
{
	send_fb_class(p, q, desire, real, tot, ASTEAL__QUANTUM_CLASS__SATISFIED);
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
	for (i = 0; i < NTOT; i++) {    /* fields 4-7, then 9 and 10 */
		body[n++] = (uint8_t)((i < 4 ? 4 + i : 5 + i) << 3);
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
	assert_int_equal(m->feedback->preempted_ns, p->tot[5]);
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
static void more_usage(const struct peer *p, uint64_t tot[NTOT])
{
	tot[0] = p->tot[0] + 3000000;
	tot[1] = p->tot[1] + 500000;
	tot[2] = p->tot[2] + 100000;
	tot[3] = p->tot[3] + 4000000;
	tot[4] = p->tot[4] + 250000;
	tot[5] = p->tot[5] + 50000;
}

/* A heartbeat from a job whose last Feedback is 0.8 periods old: its
 * desire again, closing the last quantum that ended (none if that quantum
 * is already closed: the next call sends it). */
static void beat(struct peer *p)
{
	uint64_t q, tot[NTOT];

	if (!p->job || !p->welcomed || p->eof || muted || p->quiet ||
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

/* A connection to the daemon made by a child running as uid (gid the
 * same), so that the daemon's SO_PEERCRED says uid: the child connects
 * and hands us the socket (SCM_RIGHTS).  Needs root. */
static int dial_as(uid_t uid)
{
	int sv[2], fd = -1, status = 0;
	char byte = 0, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr mh;
	struct pollfd pf;
	struct cmsghdr *cm;
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0 ||
		    (fd = dial()) < 0)
			_exit(1);
		memset(&mh, 0, sizeof(mh));
		memset(ctl, 0, sizeof(ctl));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		_exit(sendmsg(sv[1], &mh, 0) == 1 ? 0 : 2);
	}
	close(sv[1]);
	pf.fd = sv[0];
	pf.events = POLLIN;
	assert_int_equal(poll(&pf, 1, (int)(bound() * 1000)), 1);
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl;
	mh.msg_controllen = sizeof(ctl);
	if (recvmsg(sv[0], &mh, MSG_CMSG_CLOEXEC) == 1 &&
	    (cm = CMSG_FIRSTHDR(&mh)) != NULL && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	close(sv[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(fd >= 0);
	return fd;
}

/* Connect a peer on fd and get its Welcome: a JOB of `workers` workers,
 * or a CLIENT (workers 0). */
static struct peer *peer_open_fd(const char *name, uint32_t workers, int fd)
{
	Asteal__Envelope env;
	Asteal__Hello h;
	struct peer *p = calloc(1, sizeof(*p));
	double end = test_now() + bound();

	assert_non_null(p);
	assert_true(npeers < MAX_PEERS);
	p->fd = fd;
	p->opened_ns = qtime_now_ns();
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

/* Connect a peer (ours, root's when we are root) and get its Welcome. */
static struct peer *peer_open(const char *name, uint32_t workers)
{
	return peer_open_fd(name, workers, dial());
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

/* Close every peer. */
static void peers_close(void)
{
	while (npeers > 0)
		peer_close(peers[npeers - 1]);
}

/* After each test: close the peers it left (a failed test leaves some),
 * and stop a daemon of its own that it left running. */
static int close_peers(void **state)
{
	(void)state;
	peers_close();
	dm = &main_daemon;
	if (other_daemon.pid > 0)
		tdaemon_stop(&other_daemon);
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
	uint64_t feedbacks, bad, allots, quantum, t0, revocations, grants;
	uint32_t jobs, silent, quantum_us;
	char share[8];
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
	s->grants = m->status->grants;
	s->quantum = m->status->quantum;
	s->t0 = m->status->t0_ns;
	s->revocations = m->status->revocations;
	s->jobs = m->status->jobs;
	s->silent = m->status->silent_jobs;
	s->quantum_us = m->status->quantum_us;
	snprintf(s->share, sizeof(s->share), "%s", m->status->share);
	frame_free(m);
}

/* What the tests read of a job in a Jobs reply. */
struct row {
	uint32_t desire, allotment, availability, workers;
	size_t ncpus;
	uint64_t tot[NTOT];
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
		out->tot[4] = ji->sleep_ns;
		out->tot[5] = ji->preempted_ns;
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
                   const uint64_t tot[NTOT], const char *text)
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
	uint64_t q = next_q(p), tot[NTOT];

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
	char who[48];

	snprintf(who, sizeof(who), "job %" PRIu64 " pid ", id);
	return tdaemon_log_count(dm, who, text);
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

/* A Hello of protocol version 1 (Ticks) or 2 (usage on the wall clock,
 * sleep in steal_ns), a JOB's or a CLIENT's: BAD_VERSION naming both
 * versions, then the end of the stream. */
static void test_old_version(void **state)
{
	static const Asteal__Role roles[] = { ASTEAL__ROLE__JOB, ASTEAL__ROLE__CLIENT };
	char speaks[32], old[32];
	size_t i;

	(void)state;
	snprintf(speaks, sizeof(speaks), "speaks %u", PROTO_VERSION);
	assert_string_equal(speaks, "speaks 3");
	for (i = 0; i < 2 * sizeof(roles) / sizeof(roles[0]); i++) {
		struct frame_reader *r = frame_reader_new();
		Asteal__Role role = roles[i % 2];
		Asteal__Envelope env, *m;
		Asteal__Hello h;
		int fd = dial();

		assert_true(fd >= 0);
		frame_hello(&env, &h, role, "old", role == ASTEAL__ROLE__JOB ? 4 : 0,
		            "", "libasteal 0.0");
		h.version = 1 + (uint32_t)(i / 2);
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

/* Fields no job could send, each of which drops the job. */
enum { F_FUTURE, F_DESIRE, F_DESIRE32, F_REAL, F_CLASS, F_BACK, F_BEYOND };

static const struct refusal {
	int kind;
	uint64_t u;             /* the value (F_BEYOND: 0 = workers' time) */
	double d;               /* desire_real */
	int k;                  /* which total (F_BACK, F_BEYOND) */
	const char *text;       /* in the Error */
} refusals[] = {
	{ F_FUTURE, 1000, 1, 0, "Feedback.quantum" },
	{ F_FUTURE, UINT64_MAX, 1, 0, "Feedback.quantum" },
	{ F_DESIRE, 5, 4, 0, "Feedback.desire 5 is above the job's 4 workers" },
	{ F_DESIRE, 1000, 4, 0, "Feedback.desire 1000 is above" },
	{ F_DESIRE32, (uint32_t)-1, 3, 0, "Feedback.desire 4294967295 is above" },
	{ F_DESIRE32, (uint32_t)INT32_MIN, 3, 0, "Feedback.desire 2147483648 is" },
	{ F_REAL, 1, NAN, 0, "Feedback.desire_real" },
	{ F_REAL, 1, INFINITY, 0, "Feedback.desire_real" },
	{ F_REAL, 1, -INFINITY, 0, "Feedback.desire_real" },
	{ F_REAL, 1, -0.5, 0, "Feedback.desire_real" },
	{ F_REAL, 4, 4.5, 0, "Feedback.desire_real 4.5" },
	{ F_REAL, 4, 1e300, 0, "Feedback.desire_real" },
	{ F_CLASS, 4, 1, 0, "Feedback.quantum_class 4 is not" },
	{ F_CLASS, 1000, 1, 0, "Feedback.quantum_class 1000" },
	{ F_CLASS, (uint32_t)-1, 1, 0, "Feedback.quantum_class -1" },
	{ F_BACK, 0, 1, 0, "Feedback.work_ns went back" },
	{ F_BACK, 0, 1, 1, "Feedback.steal_ns went back" },
	{ F_BACK, 0, 1, 2, "Feedback.mug_ns went back" },
	{ F_BACK, 0, 1, 3, "Feedback.allotted_ns went back" },
	{ F_BACK, 0, 1, 4, "Feedback.sleep_ns went back" },
	{ F_BACK, 0, 1, 5, "Feedback.preempted_ns went back" },
	{ F_BEYOND, UINT64_MAX, 1, 0, "Feedback.work_ns 18446744073709551615 is more" },
	{ F_BEYOND, 1ull << 63, 1, 1, "Feedback.steal_ns" },
	{ F_BEYOND, 0, 1, 2, "Feedback.mug_ns" },
	{ F_BEYOND, 0, 1, 3, "Feedback.allotted_ns" },
	{ F_BEYOND, 0, 1, 4, "Feedback.sleep_ns" },
	{ F_BEYOND, 1ull << 62, 1, 5, "Feedback.preempted_ns" },
};

/* Send job p the Feedback of refusal r (F_BACK: after a good one). */
static void send_refused(struct peer *p, const struct refusal *r)
{
	uint64_t q, tot[NTOT], now;

	if (r->kind == F_BACK)
		good(p, 1);
	q = r->kind == F_FUTURE ? (r->u == UINT64_MAX ? r->u : qnow(p) + r->u)
	                        : next_q(p);
	more_usage(p, tot);
	switch (r->kind) {
	case F_DESIRE32:
		send_fb_int32(p, q, (int32_t)(uint32_t)r->u, r->d);
		return;
	case F_CLASS:
		send_fb_class(p, q, 1, 1, tot, (int)(int32_t)(uint32_t)r->u);
		return;
	case F_BACK:
		tot[r->k] = p->tot[r->k] - 1;
		break;
	case F_BEYOND:
		/* past what 4 workers could use since before it connected,
		 * with the slack and 5 s more for the daemon to read it */
		now = qtime_now_ns();
		tot[r->k] = r->u ? r->u : p->workers * (now - p->opened_ns +
		            PROTO_USAGE_SLACK_MS * 1000000ull + 5000000000ull);
		break;
	}
	send_fb(p, q, r->kind == F_DESIRE ? (uint32_t)r->u : 1, r->d, tot);
}

/* Whether job *arg's history row has ended (a History request of it). */
static int row_ended(void *arg)
{
	struct peer **pp = arg;
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	uint64_t id = pp[1]->id;
	int ended;

	hr.job_ids = &id;
	hr.n_job_ids = 1;
	hr.jobs_only = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hr;
	m = request(pp[0], &env);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HISTORY);
	assert_int_equal(m->history->n_jobs, 1);
	ended = m->history->jobs[0]->end_ns != 0;
	frame_free(m);
	return ended;
}

/* Whether peer arg's connection has ended. */
static int at_eof(void *arg)
{
	return ((struct peer *)arg)->eof;
}

/* Each field no job could send (a quantum that has not begun, a desire
 * above the workers, also negative int32s as 10-byte varints, a
 * desire_real that is not a number of workers, a class the protocol does
 * not have, each usage total going back or beyond what the workers could
 * use since the job joined) drops its job: Error INVALID naming the field,
 * the end of the connection, no Jobs row, its history row ended, counted
 * in Status.bad_feedbacks and logged; while Feedbacks at the edges of
 * every range (desire 0 and the workers, every class, usage within the
 * bound) are taken without an Error. */
static void test_refused_fields(void **state)
{
	struct peer *c = peer_open("client", 0), *j, *pair[2];
	struct snap s0, s1;
	struct row r;
	uint64_t q, tot[NTOT];
	size_t i;
	int cls;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	status(c, &s0);
	/* Good at the edges: no Error, the desire taken. */
	j = peer_open("edges", 4);
	first_allot(j);
	for (cls = 0; cls <= 3; cls++) {
		q = next_q(j);
		more_usage(j, tot);
		send_fb_class(j, q, (uint32_t)cls % 2 * 4, cls % 2 * 4.0, tot, cls);
		memcpy(j->tot, tot, sizeof(tot));
		taken(j, q, (uint32_t)cls % 2 * 4);
	}
	q = next_q(j);                  /* usage just within the bound */
	memcpy(tot, j->tot, sizeof(tot));
	tot[0] = tot[3] = j->workers * (qtime_now_ns() - j->welcomed_ns +
	                                (PROTO_USAGE_SLACK_MS - 1000) * 1000000ull);
	send_fb(j, q, 4, 4, tot);
	memcpy(j->tot, tot, sizeof(tot));
	taken(j, q, 4);
	sync_job(j);
	wait_job(c, j, 4, -1);
	assert_false(j->eof);
	peer_close(j);

	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *rf = &refusals[i];
		int logged = tdaemon_log_count(dm, rf->text, "disconnected");

		j = peer_open("refused", 4);
		send_refused(j, rf);
		bad_sent++;
		expect_error(j, rf->text);
		if (wait_for(at_eof, j, bound()) < 0)
			fail_msg("refusal %zu (%s): the job is still connected", i,
			         rf->text);
		pair[0] = c;
		pair[1] = j;
		assert_int_equal(wait_for(row_ended, pair, bound()), 0);
		assert_int_equal(job_row(c, j->id, &r), 0);
		assert_int_equal(tdaemon_log_count(dm, rf->text, "disconnected"), logged + 1);
		peer_close(j);
	}
	status(c, &s1);
	assert_int_equal(s1.bad - s0.bad, bad_sent);
	assert_int_equal(s1.feedbacks - s0.feedbacks, fb_sent);
	print_message("%zu refused Feedbacks: each job dropped with its field "
	              "named, its history row ended\n", i);
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

/* One more bad message from the villain, of the kinds that are refused
 * and ignored (a second Feedback for its last quantum, a Released for a
 * quantum to come), in turn, and its Error. */
static void misbehave(void)
{
	if (villain_turn++ % 2 == 0 && villain->has_q) {
		bad_fb(villain, villain->last_q, 4, 4, villain->tot,
		       "a second Feedback");
		return;
	}
	send_released(villain, qnow(villain) + 1000, qtime_now_ns());
	bad_sent++;
	expect_error(villain, "a Released for quantum");
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

/* Whether job g (arg[1]) and job b (arg[2]) share the CPUs as desires 2
 * and 4 must, as the Jobs reply (client arg[0]) and g's Allot say. */
static int shared(void *arg)
{
	struct peer **p = arg;
	struct row rg, rb;
	uint32_t n = p[1]->ncpus;

	misbehave();
	return job_row(p[0], p[1]->id, &rg) && job_row(p[0], p[2]->id, &rb) &&
	       rb.desire == 4 && rg.desire == 2 && (rg.allotment >= 1 || n < 2) &&
	       rg.allotment + rb.allotment == (n < 6 ? n : 6) &&
	       p[1]->allotment == rg.allotment && p[1]->allot_ncpus == rg.allotment;
}

/* Other peers keep their service while a job misbehaves, after a burst
 * of 1000 bad messages from it, and when another job is dropped for a
 * field no job could send. */
static void test_others_served(void **state)
{
	struct peer *c = peer_open("client", 0), *g, *b, *d, *trio[3];
	struct snap s0, s;
	struct want w;
	uint32_t want;
	uint8_t *burst;
	size_t len = 0, cap = 64 * 1000;
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
	 * while the villain sends bad messages. */
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
	print_message("the good job got %u CPUs after %d bad messages\n",
	              want, villain_turn);

	/* The villain asks for 4: the two share the CPUs, and the good job is
	 * told its part. */
	good(b, 4);
	trio[0] = c;
	trio[1] = g;
	trio[2] = b;
	if (wait_for(shared, trio, bound()) < 0)
		fail_msg("sharing: the good job has %u CPUs", g->allotment);
	/* The villain goes back to nothing: the good job gets its 2 again. */
	good(b, 0);
	w = (struct want){ c, g, 2, (int)want, misbehave };
	assert_int_equal(wait_for(served, &w, bound()), 0);

	/* A burst: 1000 bad messages sent at once, then read. */
	burst = malloc(cap);
	assert_non_null(burst);
	for (i = 0; i < 1000; i++) {
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
		Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;
		Asteal__Released rel;
		size_t n;

		if (i % 2) {
			fb.quantum = b->last_q;
			fb.desire = 3;
			fb.desire_real = 3;
			env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
			env.feedback = &fb;
			fb_sent++;
		} else {
			frame_released(&env, &rel, qnow(b) + 100000 + (uint64_t)i,
			               qtime_now_ns());
		}
		assert_int_equal(frame_encode(&env, burst + len, cap - len, &n), 0);
		len += n;
	}
	send_all(b, burst, len);
	free(burst);
	bad_sent += 1000;
	for (i = 0; i < 1000; i++)
		expect_error(b, i % 2 ? "a second Feedback" : "a Released for quantum");
	status(c, &s);
	assert_int_equal(kill(dm->pid, 0), 0);
	assert_false(b->eof);
	assert_false(g->eof);

	/* A third job asks for everything, then says what no job could: it
	 * is dropped, and the good job has its CPU back. */
	d = peer_open("dropped", 4);
	first_allot(d);
	good(d, 4);
	good(g, 1);
	send_fb(d, next_q(d), 1000, 4, d->tot);
	bad_sent++;
	expect_error(d, "Feedback.desire 1000");
	assert_int_equal(wait_for(at_eof, d, bound()), 0);
	peer_close(d);

	/* Both others are still served. */
	wait_job(c, g, 1, 1);
	good(b, 1);
	wait_job(c, b, 1, g->ncpus >= 2 ? 1 : -1);
	check_counts(c, &s0);
	/* Each kind is logged once for the villain, however often it came. */
	assert_int_equal(log_lines(b->id, "a second Feedback"), 1);
	assert_int_equal(log_lines(b->id, "a Released for quantum"), 1);
	assert_int_equal(log_lines(g->id, "a Released for quantum"), 0);
}

/* Whether job arg holds no CPU (its last Allot). */
static int holds_none(void *arg)
{
	struct peer *p = arg;

	return p->allots > 0 && p->allotment == 0;
}

/* Whether job arg holds a CPU (its last Allot). */
static int holds_some(void *arg)
{
	struct peer *p = arg;

	return p->allots > 0 && p->allotment > 0;
}

/* A job that stops talking (no Feedback, no heartbeat: stopped, or hung)
 * counts as desiring nothing once four heartbeats (1 s) have passed: its
 * Allot goes to 0 and the other job gets the CPUs, not before the second
 * is over and within a bound of quanta after it; Status counts it silent.
 * When it speaks again it counts again, and gets its share back at once. */
static void test_silent_job(void **state)
{
	struct peer *c = peer_open("client", 0), *a, *b;
	struct snap s;
	uint64_t silence, last, lost_at, q;
	uint32_t all;

	(void)state;
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	a = peer_open("silent", 4);
	b = peer_open("talker", 4);
	first_allot(a);
	first_allot(b);
	if (a->ncpus < 2) {
		print_message("one CPU: nothing to give back\n");
		skip();
	}
	all = a->ncpus < 4 ? a->ncpus : 4;
	good(a, 4);
	good(b, 4);
	assert_int_equal(wait_for(holds_some, a, bound()), 0);

	/* a stops talking. */
	a->quiet = 1;
	last = a->fb_ns;
	silence = (uint64_t)PROTO_SILENT_BEATS * a->heartbeat_ms * 1000000u;
	if (wait_for(holds_none, a, 1e-9 * (double)silence + bound()) < 0)
		fail_msg("a job silent for %.1f s still holds %u CPUs",
		         (test_now() - 1e-9 * (double)last), a->allotment);
	wait_allot(b, all);
	status(c, &s);
	assert_int_equal(s.silent, 1);
	/* Not before the silence was over: the tick of quantum q started
	 * before the next quantum's end; within half a second after it. */
	q = a->allot_q;
	lost_at = a->t0 + q * a->L;
	assert_true(a->t0 + (q + 2) * a->L > last + silence);
	print_message("a job silent: its CPU went at quantum %" PRIu64 ", %.0f "
	              "ms after its fourth heartbeat was due\n", q,
	              ((double)lost_at - (double)(last + silence)) * 1e-6);
	assert_true(lost_at <= last + silence + 500000000u ||
	            test_sanitized());
	assert_true(lost_at <= last + silence + 5000000000u);

	/* It speaks again: it counts again. */
	a->quiet = 0;
	good(a, 4);
	q = a->last_q;
	assert_int_equal(wait_for(holds_some, a, bound()), 0);
	print_message("spoke again closing quantum %" PRIu64 ": CPUs back at "
	              "quantum %" PRIu64 "\n", q, a->allot_q);
	assert_true(a->allot_q <= q + 50 || test_sanitized());
	assert_true(b->allotment < all || b->allot_q < a->allot_q);
	status(c, &s);
	assert_int_equal(s.silent, 0);
}

/* The CPUs this process could run on as it started (main): the daemons
 * of the tests confine the jobs they see, and the peers of this process
 * are jobs, so its own mask may have shrunk since. */
static cpu_set_t start_cpus;

/* The first two CPUs this process could run on as it started, as a list
 * ("0,1"), and its mask back to those (daemons started next inherit it):
 * 0, or -1 when there are fewer. */
static int two_cpus(char *list, size_t len)
{
	cpu_set_t set = start_cpus;
	int found[2], n = 0;
	struct peer *c = peer_open("client", 0);

	/* The tests' daemon has let go of this process's jobs. */
	assert_int_equal(wait_for(no_jobs, c, bound()), 0);
	peer_close(c);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return -1;
	for (int i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &set))
			found[n++] = i;
	if (n < 2)
		return -1;
	snprintf(list, len, "%d,%d", found[0], found[1]);
	return 0;
}

/* CPUs job p held over the quanta before q, by its Allots. */
static uint64_t held_until(const struct peer *p, uint64_t q)
{
	return p->cpu_quanta + (q > p->allot_q ? (uint64_t)p->allotment *
	                        (q - p->allot_q) : 0);
}

/* Whether the clock has reached the quantum *arg (on peers[1]'s grid). */
static int quantum_at(void *arg)
{
	return qnow(peers[1]) >= *(const uint64_t *)arg;
}

/* Whether every job peer's desire shows in the Jobs reply (client
 * peers[0]), the lone job (arg) with 2, and (users first) holding 1. */
static int desires_in(void *arg)
{
	struct peer *x = arg;
	struct row r;

	for (int i = 1; i < npeers; i++)
		if (!job_row(peers[0], peers[i]->id, &r) ||
		    r.desire != (peers[i] == x ? 2u : 1u))
			return 0;
	return 1;
}

/* Run deq_replay over a stopped daemon's history: its exit status. */
static int replay(const struct tdaemon *d, const char *cpus, const char *share)
{
	const char *b = getenv("ASTEAL_TEST_BUILD");
	char cmd[512];
	int st;

	snprintf(cmd, sizeof(cmd), "%s/tests/deq_replay %s %s %s >&2",
	         b ? b : "build", d->db, cpus, share);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Users first: on two CPUs, one uid's 10 jobs each asking for 1 CPU and
 * another uid's job asking for 2: the lone job holds 1 CPU every quantum
 * once the desires are in (its Allots over a window of 100 quanta), and
 * with --share job it gets far less (flat DEQ: 2 CPUs among 11 jobs).
 * Status says the mode; each daemon's history replays exactly through
 * DEQ in its mode, and the flat one does not replay users first.  The
 * second uid is 64999, a child connecting as it (root only). */
static void test_share_users(void **state)
{
	static const char *const modes[] = { "user", "job" };
	struct tdaemon *d = &other_daemon;
	char cpus[32];
	double got[2];

	(void)state;
	if (geteuid() != 0) {
		print_message("test_share_users: skipped: not root, so no second "
		              "uid to connect as\n");
		skip();
	}
	if (two_cpus(cpus, sizeof(cpus)) < 0) {
		print_message("test_share_users: skipped: fewer than 2 CPUs\n");
		skip();
	}
	for (int m = 0; m < 2; m++) {
		const char *extra[] = { "--cpus", cpus, "--share", modes[m],
		                        "--confine", "off", NULL };
		struct peer *c, *x;
		struct snap s;
		uint64_t qa, qb, xa, allots;

		assert_int_equal(daemon_start(d, extra), 0);
		c = peer_open("client", 0);
		status(c, &s);
		assert_string_equal(s.share, modes[m]);
		for (int i = 0; i < 10; i++)
			peer_open("many", 1);
		x = peer_open_fd("lone", 2, dial_as(64999));
		for (int i = 1; i < npeers; i++) {
			first_allot(peers[i]);
			good(peers[i], peers[i] == x ? 2 : 1);
		}
		assert_int_equal(wait_for(desires_in, x, bound()), 0);
		if (m == 0)
			wait_allot(x, 1);
		/* A window of 100 quanta from the next one. */
		qa = qnow(x) + 1;
		qb = qa + 100;
		assert_int_equal(wait_for(quantum_at, &qa, bound()), 0);
		xa = held_until(x, qa);
		allots = (uint64_t)x->allots;
		assert_int_equal(wait_for(quantum_at, &qb, bound()), 0);
		got[m] = (double)(held_until(x, qb) - xa) / (double)(qb - qa);
		print_message("--share %s: the lone job of uid 64999 held %.2f CPUs "
		              "on average over quanta %" PRIu64 "-%" PRIu64 " beside "
		              "10 jobs of uid %d (%d Allots to it)\n", modes[m],
		              got[m], qa, qb - 1, (int)geteuid(),
		              (int)((uint64_t)x->allots - allots));
		if (m == 0) {
			assert_int_equal(x->allots, allots);    /* no change */
			assert_int_equal(x->allotment, 1);
		}
		peers_close();
		dm = &main_daemon;
		assert_int_equal(tdaemon_halt(d), 0);
		assert_int_equal(replay(d, cpus, modes[m]), 0);
		if (m == 1)             /* not what users first gives */
			assert_int_equal(replay(d, cpus, "user"), 1);
		assert_int_equal(tdaemon_clean(d), 0);
	}
	assert_true(got[0] == 1.0);
	assert_true(got[1] < 0.5);
}

/* Whether the clock has reached the instant *arg (ns, CLOCK_MONOTONIC). */
static int clock_at(void *arg)
{
	return qtime_now_ns() >= *(const uint64_t *)arg;
}

/* The bad Feedbacks a late or stopped job could send (for a quantum that
 * ended more than 10 s ago, a second one for a quantum or an earlier
 * one) get Error INVALID and are ignored: the connection stays, a later
 * good Feedback is taken, Status counts them, each kind is logged once. */
static void test_bad_feedbacks(void **state)
{
	struct peer *c = peer_open("client", 0), *j;
	struct snap s0, sa;
	uint64_t past, q, qa, qb, at, tot[NTOT];

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

	/* Quanta that ended more than 10 s ago. */
	bad_fb(j, 0, 2, 2, j->tot, "which ended more than 10 s ago");
	bad_fb(j, qnow(j) - past - 20, 2, 2, j->tot, "which ended more than 10 s ago");
	/* The same quantum again, and an earlier one. */
	good(j, 1);
	bad_fb(j, j->last_q, 2, 2, j->tot, "a second Feedback");
	bad_fb(j, j->last_q - 1, 2, 2, j->tot, "a second Feedback");
	bad_fb(j, j->last_q - 100, 2, 2, j->tot, "a second Feedback");

	/* Still connected: a later good Feedback is taken (no Error before
	 * the sentinel's) and its desire used. */
	good(j, 3);
	sync_job(j);
	wait_job(c, j, 3, -1);
	assert_false(j->eof);
	check_counts(c, &s0);
	assert_int_equal(log_lines(j->id, "which ended more than 10 s ago"), 1);
	assert_int_equal(log_lines(j->id, "a second Feedback"), 1);
}

/* The instant `after` past the tick of the quantum after the one now
 * running, on p's grid: wait for it, and say which quantum that tick was
 * for. */
static uint64_t after_next_tick(const struct peer *p, uint64_t offset,
                                uint64_t after)
{
	uint64_t q = qnow(p) + 1, at = p->t0 + q * p->L + offset + after;

	assert_int_equal(wait_for(clock_at, &at, 2e-9 * (double)p->L + bound()), 0);
	return q;
}

/* Start the grant tests' daemon d on two CPUs (their list in cpus, len
 * bytes), no confinement, quanta of quantum_ms, CPUs handed over as
 * `handover` says (NULL: the default); the test is skipped on fewer than
 * 2 CPUs. */
static void grant_daemon_start(struct tdaemon *d, char *cpus, size_t len,
                               const char *quantum_ms, const char *handover)
{
	const char *extra[] = { "--cpus", cpus, "--quantum-ms", quantum_ms,
	                        "--confine", "off", handover ? "--handover" : NULL,
	                        handover, NULL };

	if (two_cpus(cpus, len) < 0) {
		print_message("skipped: fewer than 2 CPUs\n");
		skip();
	}
	assert_int_equal(daemon_start(d, extra), 0);
}

/* Close the peers, stop the grant tests' daemon d and replay its history
 * (DEQ's answers, and its grants on free CPUs). */
static void grant_daemon_end(struct tdaemon *d, const char *cpus)
{
	peers_close();
	dm = &main_daemon;
	assert_int_equal(tdaemon_halt(d), 0);
	assert_int_equal(replay(d, cpus, "user"), 0);
	assert_int_equal(tdaemon_clean(d), 0);
}

/* A job that joins while CPUs are free gets them at once, by a grant:
 * its first Allot is decided as it joins, long before the next tick, and
 * counted in Status; a job that joins while none is free gets its first
 * Allot at the tick.  On a daemon of two CPUs and 500 ms quanta, joins
 * made 50 ms after a tick (400 ms before the next); the history it wrote
 * replays through DEQ (grants do not feed it) and its grants took only
 * CPUs free then (deq_replay). */
static void test_grant_at_join(void **state)
{
	struct tdaemon *d = &other_daemon;
	char cpus[32];
	const uint64_t ms = 1000000u, offset = 50 * ms;
	struct peer *c, *a, *b, *x;
	struct snap s0, s;
	uint64_t q;

	(void)state;
	grant_daemon_start(d, cpus, sizeof(cpus), "500", NULL);
	c = peer_open("client", 0);
	a = peer_open("a", 1);
	first_allot(a);                 /* a grant, or the first tick's */
	assert_int_equal(a->allotment, 1);
	status(c, &s0);
	/* b joins between ticks, with one CPU free: a grant. */
	q = after_next_tick(a, offset, 50 * ms);
	b = peer_open("b", 2);
	first_allot(b);
	assert_int_equal(b->allotment, 1);              /* d_1 = 1 */
	assert_int_equal(b->allot_q, q);
	assert_true(b->decided_ns >= b->opened_ns);
	assert_true(b->decided_ns < b->t0 + (q + 1) * b->L + offset);
	status(c, &s);
	assert_int_equal(s.grants, s0.grants + 1);
	/* a, b ask for 1 each: none free; x waits for the tick. */
	good(a, 1);
	good(b, 1);
	q = after_next_tick(a, offset, 50 * ms);
	x = peer_open("x", 1);
	first_allot(x);
	assert_true(x->decided_ns >= x->t0 + (q + 1) * x->L + offset);
	assert_true(x->allot_q >= q + 1);
	status(c, &s);
	assert_int_equal(s.grants, s0.grants + 1);
	grant_daemon_end(d, cpus);
}

/* A Feedback of that desire closing the quantum now running (as
 * libasteal's wake-up does when the last one is closed already). */
static void wake(struct peer *p, uint32_t desire)
{
	uint64_t q = qnow(p), tot[NTOT];

	assert_true(!p->has_q || q > p->last_q);
	more_usage(p, tot);
	send_fb(p, q, desire, desire, tot);
	memcpy(p->tot, tot, sizeof(tot));
	taken(p, q, desire);
}

/* What allotted_again waits for: p's Allots past n. */
struct more_allots {
	struct peer *p;
	int n;
};

/* Whether p got an Allot since the count was taken. */
static int allotted_again(void *arg)
{
	struct more_allots *m = arg;

	assert_false(m->p->eof);
	return m->p->allots > m->n;
}

/* Wake p (desire 1) `after` past the next tick: the quantum it wakes in,
 * once its next Allot came; *sent_ns when the Feedback went. */
static uint64_t wake_and_wait(struct peer *p, uint64_t offset, uint64_t after,
                              uint64_t *sent_ns)
{
	struct more_allots m = { p, 0 };
	uint64_t q = after_next_tick(p, offset, after);

	m.n = p->allots;
	*sent_ns = qtime_now_ns();
	wake(p, 1);
	assert_int_equal(wait_for(allotted_again, &m, 2e-9 * (double)p->L + bound()), 0);
	assert_int_equal(p->allotment, 1);
	return q;
}

/* A job that holds no CPU (idle: desire 0) and asks for one while a CPU
 * is free gets it at once, by a grant decided as its Feedback came,
 * counted in Status; while none is free, at the next tick.  On a daemon
 * of two CPUs and 300 ms quanta, wake-ups sent 30 ms after a tick (240
 * ms before the next; 300 ms quanta keep the heartbeats, at most one a
 * quantum, well inside the 1 s silence); the history replays and its
 * grant took a CPU free then from a job DEQ gave none (deq_replay). */
static void test_grant_at_wake(void **state)
{
	struct tdaemon *d = &other_daemon;
	char cpus[32];
	const uint64_t ms = 1000000u, offset = 30 * ms;
	struct peer *c, *a, *b;
	struct snap s0, s;
	uint64_t q, sent;

	(void)state;
	grant_daemon_start(d, cpus, sizeof(cpus), "300", NULL);
	c = peer_open("client", 0);
	a = peer_open("a", 2);
	b = peer_open("b", 2);
	first_allot(a);
	first_allot(b);
	/* a idle, b on one CPU: the other is free. */
	good(a, 0);
	good(b, 1);
	wait_job(c, a, 0, 0);
	wait_job(c, b, 1, 1);
	status(c, &s0);
	q = wake_and_wait(a, offset, 30 * ms, &sent);
	assert_int_equal(a->allot_q, q);
	assert_true(a->decided_ns >= sent);
	assert_true(a->decided_ns < a->t0 + (q + 1) * a->L + offset);
	status(c, &s);
	assert_int_equal(s.grants, s0.grants + 1);
	wait_job(c, a, 1, 1);           /* DEQ's answer at the tick */
	/* a idle again, b on both CPUs: none free, a waits for the tick. */
	good(a, 0);
	good(b, 2);
	wait_job(c, a, 0, 0);
	wait_job(c, b, 2, 2);
	q = wake_and_wait(a, offset, 30 * ms, &sent);
	assert_true(a->allot_q >= q + 1);
	assert_true(a->decided_ns >= a->t0 + (q + 1) * a->L + offset);
	status(c, &s);
	assert_int_equal(s.grants, s0.grants + 1);
	grant_daemon_end(d, cpus);
}

/* Among ps[0..n), the one DEQ gave no CPU in the quantum running now and
 * one it gave a CPU, by the Jobs reply of client c (all asking for 1). */
static void holders(struct peer *c, struct peer **ps, int n, struct peer **none,
                    struct peer **one)
{
	struct row r;

	*none = *one = NULL;
	for (int i = 0; i < n; i++) {
		assert_int_equal(job_row(c, ps[i]->id, &r), 1);
		if (r.desire == 1 && r.allotment == 0 && *none == NULL)
			*none = ps[i];
		else if (r.allotment == 1 && *one == NULL)
			*one = ps[i];
	}
}

/* A job that ends between ticks gives its CPU back at once (its hang-up
 * is read as it comes, not at the next tick), and a job waiting for one
 * (it asks, DEQ gave it none) gets it by a grant within that quantum,
 * counted in Status.  On a daemon of two CPUs, 500 ms quanta and CPUs
 * handed over at once (nothing else makes it read its jobs), three
 * jobs asking for one CPU each take turns for the two; 100 ms after a
 * tick the one without a CPU is found and one with a CPU closes (found
 * again a quantum later if that tick came while looking); the history
 * replays, and the grant took a CPU free then (deq_replay). */
static void test_grant_at_leave(void **state)
{
	struct tdaemon *d = &other_daemon;
	char cpus[32];
	const uint64_t ms = 1000000u, offset = 50 * ms;
	const char *names[] = { "a", "b", "x" };
	struct peer *c, *p[3], *w = NULL, *h = NULL;
	struct more_allots m;
	struct snap s0, s;
	uint64_t q = 0;

	(void)state;
	grant_daemon_start(d, cpus, sizeof(cpus), "500", "immediate");
	c = peer_open("client", 0);
	for (int i = 0; i < 3; i++) {
		p[i] = peer_open(names[i], 1);
		first_allot(p[i]);
	}
	for (int i = 0; i < 3; i++)
		good(p[i], 1);
	for (int tries = 0; tries < 4 && (w == NULL || h == NULL); tries++) {
		q = after_next_tick(p[0], offset, 50 * ms);
		holders(c, p, 3, &w, &h);
		if (qnow(p[0]) != q)
			w = h = NULL;   /* the next tick came while looking */
	}
	assert_non_null(w);
	assert_non_null(h);
	status(c, &s0);
	m.p = w;
	m.n = w->allots;
	peer_close(h);
	assert_int_equal(wait_for(allotted_again, &m, 2e-9 * (double)w->L + bound()), 0);
	assert_int_equal(w->allotment, 1);
	assert_int_equal(w->allot_q, q);
	assert_true(w->decided_ns < w->t0 + (q + 1) * w->L + offset);
	status(c, &s);
	assert_int_equal(s.grants, s0.grants + 1);
	grant_daemon_end(d, cpus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_peers),
		cmocka_unit_test_setup_teardown(test_old_version, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_refused_fields, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_desire_zero, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_bad_released, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_handover_release, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_history_pages, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_others_served, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_silent_job, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_share_users, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_bad_feedbacks, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_grant_at_join, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_grant_at_wake, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_grant_at_leave, reset, close_peers),
	};

	if (sched_getaffinity(0, sizeof(start_cpus), &start_cpus) < 0)
		CPU_ZERO(&start_cpus);
	return cmocka_run_group_tests(tests, setup, teardown);
}
