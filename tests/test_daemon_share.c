/*
 * test_daemon_share.c - how a real asteald (build/bin/asteald from
 * ASTEAL_TEST_BUILD, on a private socket, database and log; here daemons
 * of the tests' own, on two CPUs) shares them, over the raw protocol (no
 * libasteal):
 * - users first (as root: a second uid, 64999, from a child that connects
 *   as it): on two CPUs, one uid's 10 jobs asking for 1 CPU each leave
 *   another uid's job asking for 2 one CPU every quantum, and --share job
 *   leaves it far less;
 * - grants between ticks: a job that joins, or wakes up asking for a CPU,
 *   while one is free gets it at once, and a job waiting for one gets it
 *   as soon as another job ends; otherwise at the next tick; counted in
 *   Status;
 * - last, on the tests' daemon once it has run 10 s (the tests above let
 *   that time pass), what a late or stopped job could send (a Feedback
 *   for a quantum that ended more than 10 s ago, a second one for the
 *   same or an earlier quantum): each gets Error INVALID on a connection
 *   that stays open (a later good Feedback is taken without an Error), is
 *   counted in Status.bad_feedbacks, each kind logged once per job; a
 *   Feedback that ended less than 10 s ago is fine.
 * Each daemon's history replays exactly through DEQ (tests/deq_replay.c)
 * in its own mode, its grants on CPUs free then.  Every wait is on a
 * condition with a deadline (poll, never sleep and hope); the job peers
 * (daemonutil.h) send heartbeats while they wait, as a job must.
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
#include <grp.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <cmocka.h>

#define DAEMONUTIL_PEERS
#include "daemonutil.h"
#include "frame.h"
#include "qtime.h"
#include "testutil.h"

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

/* The bad Feedbacks a late or stopped job could send (for a quantum that
 * ended more than 10 s ago, a second one for a quantum or an earlier
 * one) get Error INVALID and are ignored: the connection stays, a later
 * good Feedback is taken, Status counts them, each kind is logged once.
 * The sanitizer builds leave out the first kind, which needs the daemon
 * to have run for 10 s (a wait of that long, in a plain check of the
 * quantum's age that they have nothing to find in). */
static void test_bad_feedbacks(void **state)
{
	struct peer *c = peer_open("client", 0), *j;
	struct snap s0, sa;
	uint64_t past, q, qa, qb, at, tot[NTOT];
	int old_too = getenv("ASTEAL_TEST_SAN") == NULL;

	(void)state;
	status(c, &s0);
	past = (uint64_t)PROTO_FEEDBACK_PAST_MS * 1000000u /
	       ((uint64_t)s0.quantum_us * 1000u) + 1;
	if (old_too) {
		/* Quanta that ended more than 10 s ago exist once the daemon
		 * has run that long (its quanta start with it): wait for the
		 * clock to get there (the wait's bound is that instant plus
		 * bound()). */
		at = s0.t0 + (past + 50) * (uint64_t)s0.quantum_us * 1000u;
		assert_int_equal(wait_for(clock_at, &at, (double)(at > qtime_now_ns() ?
		                 at - qtime_now_ns() : 0) * 1e-9 + bound()), 0);
		status(c, &s0);
	}

	j = peer_open("bad", 4);
	assert_int_equal(j->t0, s0.t0);
	assert_int_equal(j->quantum_us, s0.quantum_us);
	first_allot(j);
	qa = qnow(j);
	status(c, &sa);
	qb = qnow(j);
	assert_in_range(sa.quantum, qa, qb);

	if (old_too) {
		/* A quantum that ended 5 s ago is fine. */
		q = qnow(j) - past / 2;
		more_usage(j, tot);
		send_fb(j, q, 1, 1, tot);
		memcpy(j->tot, tot, sizeof(tot));
		taken(j, q, 1);
		sync_job(j);

		/* Quanta that ended more than 10 s ago. */
		bad_fb(j, 0, 2, 2, j->tot, "which ended more than 10 s ago");
		bad_fb(j, qnow(j) - past - 20, 2, 2, j->tot,
		       "which ended more than 10 s ago");
	}
	/* The same quantum again, and an earlier one. */
	good(j, 1);
	bad_fb(j, j->last_q, 2, 2, j->tot, "a second Feedback");
	bad_fb(j, j->last_q - 1, 2, 2, j->tot, "a second Feedback");
	bad_fb(j, j->last_q - (j->last_q < 100 ? j->last_q : 100), 2, 2, j->tot,
	       "a second Feedback");

	/* Still connected: a later good Feedback is taken (no Error before
	 * the sentinel's) and its desire used. */
	good(j, 3);
	sync_job(j);
	wait_job(c, j, 3, -1);
	assert_false(j->eof);
	check_counts(c, &s0);
	assert_int_equal(log_lines(j->id, "which ended more than 10 s ago"),
	                 old_too ? 1 : 0);
	assert_int_equal(log_lines(j->id, "a second Feedback"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_share_users, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_grant_at_join, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_grant_at_wake, reset, close_peers),
		cmocka_unit_test_setup_teardown(test_grant_at_leave, reset, close_peers),
		/* last: it needs quanta that ended 10 s ago, which the tests
		 * above let pass (test_daemon_feedback.c has the others) */
		cmocka_unit_test_setup_teardown(test_bad_feedbacks, reset, close_peers),
	};

	if (sched_getaffinity(0, sizeof(start_cpus), &start_cpus) < 0)
		CPU_ZERO(&start_cpus);
	return cmocka_run_group_tests(tests, setup, teardown);
}
