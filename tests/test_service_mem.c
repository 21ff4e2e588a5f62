/*
 * test_service_mem.c - asteald's memory under peers that hold frames
 * begun (issue 42, item 3), on a real daemon over the raw protocol, as
 * root with uids made up for children that setuid to them:
 * - two uids each open 100 job connections that begin a 4,000-byte frame
 *   (a job's frames are at most 4 KiB) and up to 256 client connections
 *   that begin a 60 KiB one (a request's are at most 64 KiB): 15.4 MiB
 *   each, far beyond a uid's budget of buffered input; each uid is
 *   refused at its budget with a BUSY Error that names it, and keeps what
 *   it holds by finishing a frame and beginning another well within the
 *   3 s a frame may take;
 * - meanwhile a third uid's job gets its Welcome and an Allot of a CPU,
 *   and root's Status is served;
 * - the daemon's peak resident memory (VmHWM) grows by less than what the
 *   attackers began, and once they are gone its resident memory (VmRSS)
 *   falls back near where it was (freed memory given back), both judged
 *   in the normal build only: a sanitizer's allocator keeps freed memory
 *   in quarantine and its shadow to itself.
 * And a uid that asks on six connections at once and reads no reply is
 * held to its budget of replies queued (admit.h): its connections are
 * dropped with a log line, root is served, the peak memory is bounded.
 * Every wait is on a condition with a deadline.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "daemonutil.h"
#include "qtime.h"

/* The users the test makes up: two attackers and a bystander. */
#define UID_A 64971
#define UID_B 64972
#define UID_C 64973

/* Each attacker's connections: jobs with a frame of JOB_BEGUN bytes
 * begun, then clients with one of CLIENT_BEGUN bytes begun, as many as
 * the daemon keeps. */
#define ATT_JOBS 100
#define ATT_CLIENTS 256
#define JOB_BEGUN 4000
#define CLIENT_BEGUN (60 * 1024)

/* A client's frame: a StatusRequest padded with an unknown field to
 * CLIENT_BODY bytes (kept by the decoder, so the frame is a request),
 * of which CLIENT_BEGUN are sent at first and the rest when it is
 * finished. */
#define CLIENT_BODY (CLIENT_BEGUN + 64)

/* How often an attacker finishes its frames and begins new ones (a frame
 * must come whole within 3 s of its first bytes). */
#define REFRESH_MS 700

/* The most the daemon's peak memory may grow by under the attack: the
 * two budgets (a MiB each), the connections' own cost (a few KiB each,
 * a few hundred at once) and the reads in flight, with room (3.9 MB grew
 * here); the attack began 2 x 15.4 MiB of frames, which took 37 MB
 * before the budget. */
#define PEAK_GROWTH_KB (12 * 1024)

/* How far above its memory before the attack the daemon's may stay once
 * the attackers are gone: SQLite's cache of the 200 jobs' rows, the
 * allocator's own (1.0-1.4 MB here, 3.8-4.0 MB without the memory given
 * back). */
#define AFTER_GROWTH_KB 2560

static struct tdaemon d;

/* One of the daemon's /proc/PID/status values in kB (VmRSS, VmHWM), -1
 * when not read. */
static long daemon_kb(const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)d.pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == ':')
			kb = strtol(line + klen + 1, NULL, 10);
	fclose(f);
	return kb;
}

/* A varint into p: its length. */
static size_t varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
	return n;
}

/* The client's whole frame (header and CLIENT_BODY bytes of body) into
 * buf: an Envelope with an empty StatusRequest (field 20) and field 2000,
 * unknown to the daemon, padding it. */
static void client_frame(uint8_t *buf)
{
	uint8_t *b = buf + PROTO_HEADER_LEN;
	size_t n = 0, pad;

	buf[0] = (uint8_t)(CLIENT_BODY >> 24);
	buf[1] = (uint8_t)(CLIENT_BODY >> 16);
	buf[2] = (uint8_t)(CLIENT_BODY >> 8);
	buf[3] = (uint8_t)CLIENT_BODY;
	n += varint(b + n, 20u << 3 | 2);
	b[n++] = 0;
	n += varint(b + n, 2000u << 3 | 2);
	pad = CLIENT_BODY - n - 3;              /* its length takes 3 bytes */
	n += varint(b + n, pad);
	memset(b + n, 'x', pad);
	assert_int_equal(n + pad, CLIENT_BODY);
}

/* Send all of len bytes (the daemon reads them, or closes): 0, or -1. */
static int send_whole(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One of an attacker's connections. */
struct held {
	int fd;                        /* -1 once the daemon closed it */
	int job;
	struct frame_reader *r;
};

/* Read what a connection has, without waiting: 1 when an Error naming
 * the budget of buffered input came (the connection is then gone), -1
 * at its end, 0 otherwise. */
static int drain(struct held *h)
{
	Asteal__Envelope *m;
	int budget = 0;
	ssize_t n;
	struct pollfd pf = { .fd = h->fd, .events = POLLIN };

	if (h->fd < 0)
		return -1;
	if (poll(&pf, 1, 0) != 1)
		return 0;
	n = frame_reader_fill(h->r, h->fd);
	while (frame_reader_next(h->r, &m) == 1) {
		if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR &&
		    m->error->code == ASTEAL__ERROR_CODE__BUSY &&
		    strstr(m->error->message, "buffered input") != NULL)
			budget = 1;
		frame_free(m);
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) || budget) {
		close(h->fd);
		h->fd = -1;
		return budget ? 1 : -1;
	}
	return 0;
}

/* A connection of the attacker's, welcomed (a job, or a client), its
 * socket made non-blocking for reads: 0, or -1 when refused. */
static int held_open(struct held *h, int job)
{
	Asteal__Envelope *m = NULL;

	h->job = job;
	h->fd = tdaemon_connect(&d, job ? 1 : 0, &m);
	if (h->fd < 0 || m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_WELCOME) {
		frame_free(m);
		if (h->fd >= 0)
			close(h->fd);
		h->fd = -1;
		return -1;
	}
	frame_free(m);
	h->r = frame_reader_new();
	return h->r != NULL ? 0 : -1;
}

/* Finish the frame each of an attacker's n connections has begun (a
 * client's: a Status is asked) and begin the next, if REFRESH_MS passed
 * since *last. */
static void refresh(struct held *h, int n, const uint8_t *frame, double *last)
{
	const size_t begun = PROTO_HEADER_LEN + CLIENT_BEGUN;

	if (test_now() - *last < REFRESH_MS / 1000.0)
		return;
	*last = test_now();
	for (int i = 0; i < n; i++)
		if (!h[i].job && h[i].fd >= 0 &&
		    (send_whole(h[i].fd, frame + begun,
		                PROTO_HEADER_LEN + CLIENT_BODY - begun) < 0 ||
		     send_whole(h[i].fd, frame, begun) < 0)) {
			close(h[i].fd);
			h[i].fd = -1;
		}
}

/* The attack, as one uid: jobs and clients that begin frames, then
 * finish and begin them again every REFRESH_MS until a byte comes on go.
 * It writes one byte on ready when the daemon has refused one of them for
 * its budget (1), or gave up waiting for that (0).  Its exit status: 0
 * when at least two clients still held frames begun when go came. */
static int attack(int ready, int go)
{
	static struct held h[ATT_JOBS + ATT_CLIENTS];
	static uint8_t frame[PROTO_HEADER_LEN + CLIENT_BODY];
	static const uint8_t job_hdr[PROTO_HEADER_LEN] = { 0, 0, 0x10, 0 };
	static uint8_t job_body[JOB_BEGUN];
	double end = test_now() + 3 * tdaemon_bound(), last = test_now();
	int n = 0, refused = 0, said = 0, held = 0;
	const size_t begun = PROTO_HEADER_LEN + CLIENT_BEGUN;

	client_frame(frame);
	memset(job_body, 0x0a, sizeof(job_body));
	/* Each connection begins its frame at once; those the daemon
	 * refuses for the budget say so (their Error is read later, or now
	 * when the daemon closed before all was sent). */
	for (int i = 0; i < ATT_JOBS + ATT_CLIENTS; i++) {
		int job = i < ATT_JOBS, sent;

		if (held_open(&h[n], job) < 0)
			break;                  /* admission refused: enough */
		sent = job ? send_whole(h[n].fd, job_hdr, sizeof(job_hdr)) == 0 &&
		             send_whole(h[n].fd, job_body, sizeof(job_body)) == 0
		           : send_whole(h[n].fd, frame, begun) == 0;
		if (!sent) {
			struct pollfd pf = { .fd = h[n].fd, .events = POLLIN };

			(void)poll(&pf, 1, 1000);
			refused += drain(&h[n]) == 1;
		}
		n++;
		refresh(h, n, frame, &last);
	}
	for (;;) {
		struct pollfd pf = { .fd = go, .events = POLLIN };

		for (int i = 0; i < n; i++)
			refused += drain(&h[i]) == 1;
		if (!said && (refused > 0 || test_now() > end)) {
			uint8_t b = refused > 0;

			if (write(ready, &b, 1) != 1)
				return 90;
			said = 1;
		}
		if (poll(&pf, 1, 50) > 0)
			break;
		refresh(h, n, frame, &last);
	}
	for (int i = ATT_JOBS; i < n; i++)
		held += drain(&h[i]) == 0;
	print_message("uid %d: %d connections (%d jobs), %d refused for the "
	              "budget, %d clients held to the end\n", (int)getuid(), n,
	              n < ATT_JOBS ? n : ATT_JOBS, refused, held);
	return !said ? 91 : refused == 0 ? 92 : held < 2 ? 93 : 0;
}

/* An attacker running as another uid. */
struct attacker {
	pid_t pid;
	int ready, go;                 /* our ends of its pipes */
};

/* Start attack() as uid, and wait (bounded) until it says it was
 * refused for its budget. */
static void attacker_start(struct attacker *a, uid_t uid)
{
	int ready[2], go[2];
	struct pollfd pf;
	uint8_t b = 0;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	a->pid = fork();
	assert_true(a->pid >= 0);
	if (a->pid == 0) {
		close(ready[0]);
		close(go[1]);
		if (setgid((gid_t)uid) < 0 || setuid(uid) < 0)
			_exit(100);
		_exit(attack(ready[1], go[0]));
	}
	close(ready[1]);
	close(go[0]);
	a->ready = ready[0];
	a->go = go[1];
	pf.fd = a->ready;
	pf.events = POLLIN;
	if (poll(&pf, 1, (int)(4 * tdaemon_bound() * 1000)) != 1 ||
	    read(a->ready, &b, 1) != 1)
		fail_msg("uid %d's attack did not begin", (int)uid);
	if (b != 1) {
		print_message("asteald's memory: %ld kB (peak %ld kB)\n",
		              daemon_kb("VmRSS"), daemon_kb("VmHWM"));
		fail_msg("uid %d: none of its connections was refused for the "
		         "budget of buffered input", (int)uid);
	}
}

/* End an attacker: its exit status (0: it held frames begun to the
 * end). */
static int attacker_stop(struct attacker *a)
{
	int status;

	assert_int_equal(write(a->go, "x", 1), 1);
	close(a->go);
	close(a->ready);
	assert_int_equal(waitpid(a->pid, &status, 0), a->pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* As the bystander: a job that gets its Welcome, then sends its
 * heartbeats (desire 1) until an Allot gives it a CPU; 0 when so.
 * Fails nothing (it runs in a child): its status says what went wrong. */
static int bystander(int unused)
{
	struct frame_reader *r = frame_reader_new();
	uint64_t t0 = 0, L = 0, last_q = 0, tot[TDAEMON_NUSE] = { 0 };
	double end = test_now() + tdaemon_bound(), start = test_now(), beat = 0;
	int fd = tdaemon_dial(&d), welcomed = 0, cpus = 0;

	(void)unused;
	if (fd < 0 || r == NULL || tdaemon_hello(fd, 1) < 0)
		return 1;
	while (cpus == 0) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		Asteal__Envelope *m;
		ssize_t n;

		if (test_now() > end)
			return welcomed ? 3 : 2;
		if (poll(&pf, 1, 20) > 0) {
			n = frame_reader_fill(r, fd);
			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				return 4;
		}
		while (frame_reader_next(r, &m) == 1) {
			if (m->msg_case == ASTEAL__ENVELOPE__MSG_WELCOME) {
				welcomed = 1;
				t0 = m->welcome->t0_ns;
				L = (uint64_t)m->welcome->quantum_us * 1000u;
			} else if (m->msg_case == ASTEAL__ENVELOPE__MSG_ALLOT &&
			           m->allot->allotment > 0 &&
			           m->allot->n_cpus == m->allot->allotment) {
				cpus = (int)m->allot->allotment;
			} else if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) {
				print_message("bystander: Error %s\n", m->error->message);
				frame_free(m);
				return 5;
			}
			frame_free(m);
		}
		/* A heartbeat closing the last quantum that ended, every
		 * 100 ms, so that its desire stays 1. */
		if (welcomed && L > 0 && test_now() - beat > 0.1) {
			uint64_t now = qtime_now_ns();
			uint64_t q = now > t0 ? (now - t0) / L : 0;

			if (q > 0 && q - 1 > last_q) {
				for (int k = 0; k < TDAEMON_NUSE; k++)
					tot[k] += 100000;
				if (tdaemon_feedback(fd, q - 1, 1, 1.0, tot,
				                     ASTEAL__QUANTUM_CLASS__SATISFIED) < 0)
					return 6;
				last_q = q - 1;
			}
			beat = test_now();
		}
	}
	print_message("bystander (uid %d): welcomed, then %d CPU after %.2f s\n",
	              (int)getuid(), cpus, test_now() - start);
	frame_reader_free(r);
	close(fd);
	return 0;
}

/* Whether root's fresh client gets a Status. */
static int root_served(void)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m = NULL;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;
	struct frame_reader *r = frame_reader_new();
	int fd = tdaemon_connect(&d, 0, &m), ok = 0;

	if (fd >= 0 && m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_WELCOME) {
		frame_free(m);
		env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
		env.status_request = &sr;
		m = frame_write_fd(fd, &env) == 0 ? tdaemon_next(fd, r, tdaemon_bound())
		                                  : NULL;
		ok = m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_STATUS;
	}
	frame_free(m);
	frame_reader_free(r);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Whether the daemon's resident memory is back under *arg kB and stays
 * within 64 kB of that over the next 0.2 s (a test_wait condition: memory
 * given back comes in steps). */
static int rss_under(void *arg)
{
	long kb = daemon_kb("VmRSS"), again;

	if (kb < 0 || kb > *(long *)arg)
		return 0;
	poll(NULL, 0, 200);
	again = daemon_kb("VmRSS");
	return again >= 0 && again <= *(long *)arg && labs(again - kb) <= 64;
}

/* Skip a test that needs root (to connect as other uids: setuid). */
static void need_root(void)
{
	print_message("skipped: the attack needs root to connect as other "
	              "uids (setuid)\n");
	skip();
}

/* Two uids holding frames begun get no more than their budgets, a third
 * is served meanwhile, and the memory comes back once they are gone. */
static void test_frames_begun(void **state)
{
	static const char *const args[] = { "--log-level", "warn",
		"--max-user-clients", "256", "--max-clients", "600", NULL };
	struct attacker a, b;
	long before, hwm, during, after, limit;
	int go, status, lines, back;
	pid_t c;
	double t;

	(void)state;
	if (geteuid() != 0) {
		need_root();
		return;
	}
	assert_int_equal(tdaemon_start(&d, args, 4096), 0);
	assert_true(root_served());
	before = daemon_kb("VmRSS");
	assert_true(before > 0);

	attacker_start(&a, UID_A);
	attacker_start(&b, UID_B);
	during = daemon_kb("VmRSS");
	c = tdaemon_as_uid(UID_C, bystander, 0, &go);
	assert_int_equal(tdaemon_finish_uid(c, go), 0);
	assert_true(root_served());
	hwm = daemon_kb("VmHWM");
	status = attacker_stop(&a);
	assert_int_equal(status, 0);
	status = attacker_stop(&b);
	assert_int_equal(status, 0);

	t = test_now();
	limit = before + AFTER_GROWTH_KB;
	back = test_sanitized() ? 0 : test_wait(rss_under, &limit, tdaemon_bound());
	after = daemon_kb("VmRSS");
	print_message("asteald's memory: %.1f MB before, %.1f MB while two uids "
	              "held frames begun (peak %.1f MB), %.1f MB %.1f s after "
	              "they left\n", before / 1024.0, during / 1024.0,
	              hwm / 1024.0, after / 1024.0, test_now() - t);
	if (test_sanitized()) {
		print_message("memory not judged under a sanitizer\n");
	} else {
		assert_true(hwm - before <= PEAK_GROWTH_KB);
		assert_int_equal(back, 0);
	}
	/* Logged (each attacker was told: its status), limited as alike
	 * warnings are. */
	lines = tdaemon_log_count(&d, "bytes of buffered input", NULL);
	print_message("%d log lines of the budget\n", lines);
	assert_true(lines >= 1 && lines <= 100);
	assert_true(root_served());
}

/* The unread replies' attack: UNREAD_CONNS clients, each asking for
 * UNREAD_ASKS Statuses at once and reading none. */
#define UNREAD_CONNS 6
#define UNREAD_ASKS 25000

/* The most the daemon's peak memory may grow by under it: the uid's
 * budget of replies queued (16 MiB) and what the connections cost, with
 * room; without the budget each connection queues 8 MiB (48 MiB). */
#define UNREAD_GROWTH_KB (30 * 1024)

/* As the attacker: open the clients, ask, read nothing; 0 once the daemon
 * has dropped at least one of them (its end shut: POLLRDHUP), within a
 * bound.  Its connections stay open until the test lets it end. */
static int ask_unread(int unused)
{
	static const uint8_t ask[PROTO_HEADER_LEN + 3] = { 0, 0, 0, 3, 20u << 3 | 2, 0x01, 0 };
	static uint8_t asks[UNREAD_ASKS * sizeof(ask)];
	int fds[UNREAD_CONNS], n = 0, dropped = 0;
	double end = test_now() + 4 * tdaemon_bound();

	(void)unused;
	/* field 20 is a two-byte tag: 0xa2 0x01 */
	for (size_t i = 0; i < UNREAD_ASKS; i++) {
		memcpy(asks + i * sizeof(ask), ask, sizeof(ask));
		asks[i * sizeof(ask) + PROTO_HEADER_LEN] = 0xa2;
	}
	for (int i = 0; i < UNREAD_CONNS; i++) {
		Asteal__Envelope *m = NULL;
		int fd = tdaemon_connect(&d, 0, &m);
		int ok = fd >= 0 && m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_WELCOME;

		frame_free(m);
		if (!ok)
			return 10;
		fds[n++] = fd;
		(void)send_whole(fd, asks, sizeof(asks));
	}
	while (!dropped && test_now() < end) {
		struct pollfd pf[UNREAD_CONNS];

		for (int i = 0; i < n; i++)
			pf[i] = (struct pollfd){ .fd = fds[i], .events = POLLRDHUP };
		if (poll(pf, (nfds_t)n, 100) > 0)
			for (int i = 0; i < n; i++)
				dropped += (pf[i].revents & (POLLRDHUP | POLLHUP)) != 0;
	}
	print_message("uid %d: %d of %d connections dropped\n", (int)getuid(),
	              dropped, n);
	return dropped > 0 ? 0 : 11;
}

/* A uid that asks on many connections and reads no reply makes the
 * daemon hold no more than its budget of replies: connections dropped
 * with a log line that says why, root served meanwhile, the peak memory
 * bounded (normal build). */
static void test_replies_unread(void **state)
{
	static const char *const args[] = { "--log-level", "warn", NULL };
	long before, hwm;
	int go, lines;
	pid_t c;

	(void)state;
	if (geteuid() != 0) {
		need_root();
		return;
	}
	assert_int_equal(tdaemon_start(&d, args, 4096), 0);
	assert_true(root_served());
	before = daemon_kb("VmRSS");
	c = tdaemon_as_uid(UID_A, ask_unread, 0, &go);
	assert_true(root_served());
	hwm = daemon_kb("VmHWM");
	lines = tdaemon_log_count(&d, "does not read its replies: uid", NULL);
	print_message("asteald's memory: %.1f MB before, peak %.1f MB; %d log "
	              "lines of the budget\n", before / 1024.0, hwm / 1024.0, lines);
	assert_int_equal(tdaemon_finish_uid(c, go), 0);
	assert_true(lines >= 1);
	assert_true(tdaemon_log_count(&d, "over its budget", NULL) >= 1);
	if (!test_sanitized())
		assert_true(hwm - before <= UNREAD_GROWTH_KB);
	assert_true(root_served());
}

/* Stop the daemon: it must exit 0. */
static int stop(void **state)
{
	(void)state;
	return tdaemon_stop(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_frames_begun, stop),
		cmocka_unit_test_teardown(test_replies_unread, stop),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
