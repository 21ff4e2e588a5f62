/*
 * daemonutil.h - helpers for the tests that drive a real asteald over the
 * raw protocol: start one (ASTEAL_TEST_BUILD's binary) in a temporary
 * folder with its own socket, database and log, connect to it, read its
 * frames with a deadline, count its log lines, stop it; run a function
 * as another uid.  With DAEMONUTIL_PEERS defined before it is included,
 * also the harness of the test_daemon_* programs: the daemon of the tests
 * (the group's setup and teardown) or a test's own, job and client peers
 * whose frames pump() reads (jobs sending heartbeats while they wait, as
 * a job must), their Feedbacks, Released and requests, and bounded waits
 * for what the daemon tells them.  Include after cmocka.h (failures are
 * cmocka's).
 */
#ifndef DAEMONUTIL_H
#define DAEMONUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "frame.h"
#include "testutil.h"

/* A daemon a test started. */
struct tdaemon {
	char dir[40], sock[64], db[64], log[64];
	pid_t pid;
};

/* Connect to the daemon's socket (-1 if it is not there yet). */
static inline int tdaemon_dial(const struct tdaemon *d)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->sock);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Whether the daemon accepts connections (a test_wait condition). */
static inline int tdaemon_up(void *arg)
{
	int fd = tdaemon_dial(arg);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* How long a wait may take before the test fails (sanitizers are slower). */
static inline double tdaemon_bound(void)
{
	return test_sanitized() ? 30.0 : 10.0;
}

/* Make the daemon's folder (readable by everyone: tests connect as other
 * uids too) and name its socket, database and log in it; 0 or -1. */
static inline int tdaemon_prepare(struct tdaemon *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->dir, sizeof(d->dir), "/tmp/asteal-t.XXXXXX");
	if (mkdtemp(d->dir) == NULL || chmod(d->dir, 0755) < 0)
		return -1;
	snprintf(d->sock, sizeof(d->sock), "%s/s", d->dir);
	snprintf(d->db, sizeof(d->db), "%s/h.db", d->dir);
	snprintf(d->log, sizeof(d->log), "%s/log", d->dir);
	return 0;
}

/* Run in the daemon's process just before its exec, when not NULL (a
 * test's seccomp filter, a limit): set it, start the daemon, reset it. */
static void (*tdaemon_before_exec)(void);

/* Start asteald (ASTEAL_TEST_BUILD's) in a prepared folder, with the
 * extra arguments args (NULL-terminated, may be NULL) and, when nofile >
 * 0, that descriptor limit; its log is appended to.  Again after it
 * stopped or was killed, it is a restart on the same database.  0 once
 * it accepts connections, -1 otherwise. */
static inline int tdaemon_launch(struct tdaemon *d, const char *const *args,
                                 long nofile)
{
	const char *b = getenv("ASTEAL_TEST_BUILD");
	const char *argv[64];
	char bin[256];
	int n = 0;

	snprintf(bin, sizeof(bin), "%s/bin/asteald", b ? b : "build");
	argv[n++] = "asteald";
	argv[n++] = "--foreground";
	argv[n++] = "--log-level";
	argv[n++] = "info";
	argv[n++] = "--socket";
	argv[n++] = d->sock;
	argv[n++] = "--db";
	argv[n++] = d->db;
	for (int i = 0; args != NULL && args[i] != NULL && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	d->pid = fork();
	if (d->pid < 0)
		return -1;
	if (d->pid == 0) {
		int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		struct rlimit rl = { (rlim_t)nofile, (rlim_t)nofile };

		if (fd < 0 || dup2(fd, 2) < 0 ||
		    (nofile > 0 && setrlimit(RLIMIT_NOFILE, &rl) < 0))
			_exit(126);
		if (tdaemon_before_exec != NULL)
			tdaemon_before_exec();
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	return test_wait(tdaemon_up, d, tdaemon_bound());
}

/* Start asteald in a new folder with the extra arguments args (see
 * tdaemon_launch); 0 once it accepts connections, -1 otherwise. */
static inline int tdaemon_start(struct tdaemon *d, const char *const *args,
                                long nofile)
{
	if (tdaemon_prepare(d) < 0)
		return -1;
	return tdaemon_launch(d, args, nofile);
}

/* Stop the daemon: 0 when it exits 0 on SIGTERM (it did not crash). */
static inline int tdaemon_halt(struct tdaemon *d)
{
	int status = 0;

	if (d->pid <= 0)
		return 0;
	kill(d->pid, SIGTERM);
	waitpid(d->pid, &status, 0);
	d->pid = 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Show a stopped daemon's log on our stderr and remove its folder. */
static inline int tdaemon_clean(const struct tdaemon *d)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "cat %s >&2; rm -rf %s", d->log, d->dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Stop the daemon and clean up after it: 0 when it exited 0 on SIGTERM. */
static inline int tdaemon_stop(struct tdaemon *d)
{
	int halted;

	if (d->pid <= 0)
		return 0;
	halted = tdaemon_halt(d);
	return tdaemon_clean(d) == 0 && halted == 0 ? 0 : -1;
}

/* The lines of the daemon's log that contain text, and also `also`
 * unless it is NULL. */
static inline int tdaemon_log_count(const struct tdaemon *d, const char *text,
                                    const char *also)
{
	char line[4096];
	FILE *f = fopen(d->log, "r");
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, text) != NULL &&
		    (also == NULL || strstr(line, also) != NULL))
			n++;
	fclose(f);
	return n;
}

/* The command line the peers of tdaemon_connect give in their Hello. */
static const char *tdaemon_command = "test";

/* Send a Hello: a CLIENT's, or a JOB's of `workers` workers. */
static inline int tdaemon_hello(int fd, uint32_t workers)
{
	Asteal__Envelope env;
	Asteal__Hello h;

	frame_hello(&env, &h, workers > 0 ? ASTEAL__ROLE__JOB : ASTEAL__ROLE__CLIENT,
	            "test", workers, tdaemon_command, "test");
	return frame_write_fd(fd, &env);
}

/* A job peer's usage totals, in this order: work, steal, mug, allotted,
 * sleep, preempted (the order of the Feedback's fields in protocol 3). */
#define TDAEMON_NUSE 6

/* A Usage's values in tot's order (all 0 when u is NULL). */
static inline void tdaemon_usage(const Asteal__Usage *u,
                                 uint64_t tot[TDAEMON_NUSE])
{
	static const Asteal__Usage none = ASTEAL__USAGE__INIT;

	if (u == NULL)
		u = &none;
	tot[0] = u->work_ns;
	tot[1] = u->steal_ns;
	tot[2] = u->mug_ns;
	tot[3] = u->allotted_ns;
	tot[4] = u->sleep_ns;
	tot[5] = u->preempted_ns;
}

/* A Usage holding tot's values. */
static inline Asteal__Usage *tdaemon_usage_msg(Asteal__Usage *u,
                                               const uint64_t tot[TDAEMON_NUSE])
{
	asteal__usage__init(u);
	u->work_ns = tot[0];
	u->steal_ns = tot[1];
	u->mug_ns = tot[2];
	u->allotted_ns = tot[3];
	u->sleep_ns = tot[4];
	u->preempted_ns = tot[5];
	return u;
}

/* Send a Feedback closing quantum q with this desire, usage totals tot
 * and class cls, as given (nothing checked); 0 or -1. */
static inline int tdaemon_feedback(int fd, uint64_t q, uint32_t desire,
                                   double real, const uint64_t tot[TDAEMON_NUSE],
                                   int cls)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;
	Asteal__Usage use;

	fb.quantum = q;
	fb.desire = desire;
	fb.desire_real = real;
	fb.usage = tdaemon_usage_msg(&use, tot);
	fb.quantum_class = (Asteal__QuantumClass)cls;
	env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
	env.feedback = &fb;
	return frame_write_fd(fd, &env);
}

/* The next message on fd: NULL at the end of the stream (or a reset), and
 * the test fails when neither comes within seconds. */
static inline Asteal__Envelope *tdaemon_next(int fd, struct frame_reader *r,
                                             double seconds)
{
	double end = test_now() + seconds;
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
			fail_msg("no message nor end of stream within %.1f s", seconds);
		if (poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		n = frame_reader_fill(r, fd);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return NULL;
	}
}

/* Connect and say Hello (a client, or a job of `workers` workers); the
 * first reply, which the caller frees, in *reply (NULL at end of stream).
 * The fd, or -1 when the daemon is not there.  (A daemon that refuses a
 * connection may close it before the Hello is written: the write fails
 * and its Error is read all the same.) */
static inline int tdaemon_connect(const struct tdaemon *d, uint32_t workers,
                                  Asteal__Envelope **reply)
{
	struct frame_reader *r;
	int fd = tdaemon_dial(d);

	if (fd < 0)
		return -1;
	(void)tdaemon_hello(fd, workers);
	r = frame_reader_new();
	assert_non_null(r);
	*reply = tdaemon_next(fd, r, tdaemon_bound());
	frame_reader_free(r);
	return fd;
}

/* Run fn as uid in a forked child (as root: another user of the daemon);
 * the child writes one byte to ready when set up, then waits for a byte
 * on go (not its end: later children hold copies of the pipe).  The
 * child's exit status is fn's result. */
static inline pid_t tdaemon_as_uid(uid_t uid, int (*fn)(int arg), int arg, int *go)
{
	int ready[2], gop[2];
	char b;
	pid_t pid;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(gop), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int rc;

		close(ready[0]);
		close(gop[1]);
		if (setgid((gid_t)uid) < 0 || setuid(uid) < 0)
			_exit(100);
		rc = fn(arg);
		if (write(ready[1], "x", 1) != 1)
			_exit(101);
		if (read(gop[0], &b, 1) != 1)
			_exit(102);
		_exit(rc);
	}
	close(ready[1]);
	close(gop[0]);
	if (read(ready[0], &b, 1) != 1) {
		int status;

		waitpid(pid, &status, 0);
		fail_msg("the child of uid %d failed: status %d", (int)uid, status);
	}
	close(ready[0]);
	*go = gop[1];
	return pid;
}

/* dm's Status, asked on a client connection of its own (the caller
 * frees *env). */
static inline Asteal__Status *tdaemon_status(const struct tdaemon *dm,
                                             Asteal__Envelope **env)
{
	Asteal__Envelope req = ASTEAL__ENVELOPE__INIT;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;
	Asteal__Envelope *w = NULL;
	struct frame_reader *r = frame_reader_new();
	int fd = tdaemon_connect(dm, 0, &w);

	assert_true(fd >= 0);
	frame_free(w);
	req.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	req.status_request = &sr;
	assert_int_equal(frame_write_fd(fd, &req), 0);
	*env = tdaemon_next(fd, r, tdaemon_bound());
	frame_reader_free(r);
	close(fd);
	assert_non_null(*env);
	assert_int_equal((*env)->msg_case, ASTEAL__ENVELOPE__MSG_STATUS);
	return (*env)->status;
}

/* Let a child of tdaemon_as_uid end: its fn's result. */
static inline int tdaemon_finish_uid(pid_t pid, int go)
{
	int status;

	assert_int_equal(write(go, "x", 1), 1);
	close(go);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* ------------------------------------ the peers of test_daemon_*.c -- */
#ifdef DAEMONUTIL_PEERS
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "qtime.h"

static struct tdaemon main_daemon, other_daemon;  /* the tests' and a
                                                     test's own */
static struct tdaemon *dm = &main_daemon;  /* the one peers dial */

/* Connect to the daemon peers dial (-1 if not there yet). */
static inline int dial(void)
{
	return tdaemon_dial(dm);
}

/* Start an asteald (its log at warn) with the options in extra
 * (NULL-terminated, or NULL), and make it the one peers dial: 0 once it
 * accepts connections, else -1. */
static inline int daemon_start(struct tdaemon *d, const char *const *extra)
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
static inline int setup(void **state)
{
	(void)state;
	return daemon_start(&main_daemon, NULL);
}

/* Stop it: it must exit 0 on SIGTERM; its log goes to our stderr. */
static inline int teardown(void **state)
{
	(void)state;
	return tdaemon_stop(&main_daemon);
}

/* How long a wait may take before the test fails (sanitizers are slower). */
static inline double bound(void)
{
	return tdaemon_bound();
}

/* A job peer's usage totals (TDAEMON_NUSE). */
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
static inline uint64_t qnow(const struct peer *p)
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
static inline void check_decided(const struct peer *p, uint64_t q,
                                 uint64_t decided, int maybe_grant)
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
static inline void take(struct peer *p, Asteal__Envelope *m)
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
static inline void peer_read(struct peer *p)
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
static inline void send_all(struct peer *p, const uint8_t *buf, size_t len)
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
static inline void send_fb_class(struct peer *p, uint64_t q, uint32_t desire,
                                 double real, const uint64_t tot[NTOT], int cls)
{
	assert_int_equal(tdaemon_feedback(p->fd, q, desire, real, tot, cls), 0);
	p->fb_ns = qtime_now_ns();
	fb_sent++;
}

/* Send a Feedback as given, of a satisfied quantum. */
static inline void send_fb(struct peer *p, uint64_t q, uint32_t desire,
                           double real, const uint64_t tot[NTOT])
{
	send_fb_class(p, q, desire, real, tot, ASTEAL__QUANTUM_CLASS__SATISFIED);
}

/* Send a Released. */
static inline void send_released(struct peer *p, uint64_t q, uint64_t parked_ns)
{
	Asteal__Envelope env;
	Asteal__Released r;

	frame_released(&env, &r, q, parked_ns);
	assert_int_equal(frame_write_fd(p->fd, &env), 0);
}

/* The daemon took a Feedback closing q with this desire (clamped to the
 * workers): heartbeats go on from there. */
static inline void taken(struct peer *p, uint64_t q, uint32_t desire)
{
	p->has_q = 1;
	p->last_q = q;
	p->desire = desire < p->workers ? desire : p->workers;
	p->beat = test_now();
}

/* The quantum the next good Feedback may close now: the last one that
 * ended, if a Feedback has not closed it yet; NONE otherwise. */
static inline uint64_t closable(const struct peer *p)
{
	uint64_t qn = qnow(p);

	if (qn == 0 || (p->has_q && qn - 1 <= p->last_q))
		return NONE;
	return qn - 1;
}

/* Usage totals a little above p's (cumulative, as a job's are). */
static inline void more_usage(const struct peer *p, uint64_t tot[NTOT])
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
static inline void beat(struct peer *p)
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
static inline void pump(int ms)
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
static inline int wait_for(int (*cond)(void *), void *arg, double seconds)
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

/* Connect a peer on fd and get its Welcome: a JOB of `workers` workers,
 * or a CLIENT (workers 0). */
static inline struct peer *peer_open_fd(const char *name, uint32_t workers,
                                        int fd)
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
	            name, workers, "test_daemon", "test");
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
static inline struct peer *peer_open(const char *name, uint32_t workers)
{
	return peer_open_fd(name, workers, dial());
}

/* Close a peer and forget it. */
static inline void peer_close(struct peer *p)
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
static inline int reset(void **state)
{
	(void)state;
	fb_sent = bad_sent = 0;
	muted = 0;
	return 0;
}

/* Close every peer. */
static inline void peers_close(void)
{
	while (npeers > 0)
		peer_close(peers[npeers - 1]);
}

/* After each test: close the peers it left (a failed test leaves some),
 * and stop a daemon of its own that it left running. */
static inline int close_peers(void **state)
{
	(void)state;
	peers_close();
	dm = &main_daemon;
	if (other_daemon.pid > 0)
		tdaemon_stop(&other_daemon);
	return 0;
}

/* Send a request from a client and wait for its reply (free it). */
static inline Asteal__Envelope *request(struct peer *c,
                                        const Asteal__Envelope *req)
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
static inline void status(struct peer *c, struct snap *s)
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
static inline int job_row(struct peer *c, uint64_t id, struct row *out)
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
		assert_non_null(ji->usage);
		tdaemon_usage(ji->usage, out->tot);
		found = 1;
	}
	frame_free(m);
	return found;
}

/* Wait for the next Error on job p: INVALID, its message containing
 * text; it must be the first one waiting (none came before it). */
static inline void expect_error(struct peer *p, const char *text)
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
static inline void bad_fb(struct peer *p, uint64_t q, uint32_t desire,
                          double real, const uint64_t tot[NTOT],
                          const char *text)
{
	send_fb(p, q, desire, real, tot);
	bad_sent++;
	expect_error(p, text);
}

/* Wait until a good Feedback can close a new quantum: that quantum. */
static inline uint64_t next_q(struct peer *p)
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
static inline void good(struct peer *p, uint32_t desire)
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
static inline void sync_job(struct peer *p)
{
	char text[80];

	if (!p->has_q)
		good(p, p->desire);
	snprintf(text, sizeof(text), "a second Feedback for quantum %" PRIu64,
	         p->last_q);
	bad_fb(p, p->last_q, p->desire, p->desire, p->tot, text);
}

/* Wait for the first Allot a joining job gets. */
static inline void first_allot(struct peer *p)
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
static inline int job_is(void *arg)
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
static inline void wait_job(struct peer *c, struct peer *j, int desire,
                            int allotment)
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
static inline int no_jobs(void *arg)
{
	struct snap s;

	status(arg, &s);
	return s.jobs == 0;
}

/* The daemon's log lines about job id that contain text. */
static inline int log_lines(uint64_t id, const char *text)
{
	char who[48];

	snprintf(who, sizeof(who), "job %" PRIu64 " pid ", id);
	return tdaemon_log_count(dm, who, text);
}

/* Stop heartbeats, prove every job's input was read (sync_job), then
 * check the counters against what this test sent since s0. */
static inline void check_counts(struct peer *c, const struct snap *s0)
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

/* Whether peer arg's connection has ended. */
static inline int at_eof(void *arg)
{
	return ((struct peer *)arg)->eof;
}

/* Wait until job p's last Allot gives it n CPUs. */
static inline void wait_allot(struct peer *p, uint32_t n)
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

/* Whether the clock has reached the instant *arg (ns, CLOCK_MONOTONIC). */
static inline int clock_at(void *arg)
{
	return qtime_now_ns() >= *(const uint64_t *)arg;
}

#endif /* DAEMONUTIL_PEERS */

#endif
