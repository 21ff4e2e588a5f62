/*
 * test_join.c - a job joining a daemon, against a stand-in daemon in the
 * test that answers the Hello and holds its Allot back: libasteal runs no
 * worker before the daemon's first Allot (a worker started on a CPU that
 * DEQ gives another job would have to be revoked there), then runs the
 * root task as soon as the Allot comes, also when the Allot comes in the
 * same read as the Welcome; a daemon that goes away before its first
 * Allot leaves the job standalone, not stuck.  With the stand-in scripted
 * by the test (it reads the job's Feedbacks and Releaseds and sends
 * Allots): a job with no root task in flight asks for nothing (desire 0)
 * and starts again from desire 1, and runs nothing while its allotment is
 * 0; a revocation that reaches a worker a recall has not yet woken is
 * released.  A quantum whose allotment fell to 0 at the Allot is not
 * judged on the sliver before it.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "asteal.h"
#include "exchange.h"
#include "frame.h"
#include "testutil.h"

#define JOB_ID 7
#define QUANTUM_US 10000
#define BOUND_S 20.0

/* The stand-in daemon's state, shared with the test. */
struct standin {
	char path[108];
	int listen_fd;
	pthread_t thread;
	atomic_int welcomed;           /* the Welcome went out */
	int with_welcome;              /* the Allot right behind the Welcome */
	int scripted;                  /* after the Welcome, the test talks */
	int fd;                        /* the job's connection (scripted) */
	uint64_t t0;                   /* the Welcome's t0 */
	atomic_int go;                 /* 1: send the Allot; 2: hang up */
	atomic_int done;               /* the thread is finishing */
};

static atomic_int started;     /* the root task ran */

/* The root task: say it ran. */
static void root(void *arg)
{
	(void)arg;
	atomic_store(&started, 1);
}

/* Run the root task (from a thread of the test, since it blocks). */
static void *runner(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)asteal_run(root, NULL);
}

/* Encode the Allot of the quantum now running (1 CPU: cpu) into buf. */
static size_t allot_now(uint8_t *buf, uint64_t t0, const uint32_t *cpu)
{
	uint64_t now = qtime_now_ns();
	struct exchange_allot a = {
		.quantum = (now - t0) / (QUANTUM_US * 1000ull),
		.allotment = 1, .availability = 1, .cpus = cpu, .ncpus = 1,
		.decided_ns = now,
	};

	return exchange_encode_allot(buf, &a);
}

/* The stand-in: accept one job, answer its Hello with a Welcome on the
 * shared clock (and the Allot in the same write, with_welcome), wait for
 * go, then send the Allot (1 CPU) and read until the job hangs up, or
 * hang up at once. */
static void *standin_main(void *arg)
{
	struct standin *s = arg;
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope env, *m = NULL;
	Asteal__Welcome w;
	uint32_t cpu = 0;
	int fd = accept(s->listen_fd, NULL, NULL);

	if (fd < 0 || r == NULL || frame_reader_read(r, fd, &m) != 1 ||
	    m->msg_case != ASTEAL__ENVELOPE__MSG_HELLO)
		goto out;
	frame_welcome(&env, &w, JOB_ID, QUANTUM_US,
	              qtime_now_ns() - QUANTUM_US * 1000ull, &cpu, 1, "test");
	w.heartbeat_ms = 250;
	if (s->scripted) {
		/* The job waits for the Welcome: nothing else was read. */
		if (frame_write_fd(fd, &env) < 0)
			goto out;
		s->fd = fd;
		s->t0 = w.t0_ns;
		fd = -1;        /* the test's now */
		atomic_store(&s->welcomed, 1);
		goto out;
	}
	if (s->with_welcome) {
		uint8_t buf[4096];
		size_t n, k;
		if (frame_encode(&env, buf, sizeof(buf), &n) < 0)
			goto out;
		k = allot_now(buf + n, w.t0_ns, &cpu);
		if (k == 0 || write(fd, buf, n + k) != (ssize_t)(n + k))
			goto out;
		atomic_store(&s->go, 1);
	} else if (frame_write_fd(fd, &env) < 0) {
		goto out;
	}
	atomic_store(&s->welcomed, 1);
	while (atomic_load(&s->go) == 0)
		usleep(1000);
	if (atomic_load(&s->go) == 1) {
		uint8_t buf[EXCHANGE_ALLOT_MAX];
		size_t len = s->with_welcome ? 0 : allot_now(buf, w.t0_ns, &cpu);
		if (!s->with_welcome &&
		    (len == 0 || write(fd, buf, len) != (ssize_t)len))
			goto out;
		for (;;) {      /* Feedbacks and Releaseds until the job ends */
			frame_free(m);
			m = NULL;
			if (frame_reader_read(r, fd, &m) != 1)
				break;
		}
	}
out:
	frame_free(m);
	frame_reader_free(r);
	if (fd >= 0)
		close(fd);
	atomic_store(&s->done, 1);
	return NULL;
}

/* Listen on a fresh socket path and start the stand-in behind it
 * (scripted: it hands the connection to the test after the Welcome). */
static void standin_start(struct standin *s, int with_welcome, int scripted)
{
	struct sockaddr_un sa;

	memset(s, 0, sizeof(*s));
	s->with_welcome = with_welcome;
	s->scripted = scripted;
	s->fd = -1;
	snprintf(s->path, sizeof(s->path), "/tmp/asteal-test-join.%d",
	         (int)getpid());
	unlink(s->path);
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(s->listen_fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, s->path, strlen(s->path) + 1);
	assert_int_equal(bind(s->listen_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(s->listen_fd, 4), 0);
	assert_int_equal(pthread_create(&s->thread, NULL, standin_main, s), 0);
	setenv("ASTEAL_SOCKET", s->path, 1);
	setenv("ASTEAL_WORKERS", "2", 1);
	setenv("ASTEAL_QUIET", "1", 1);
	atomic_store(&started, 0);
}

/* Stop the stand-in (it must have finished) and remove its socket. */
static void standin_stop(struct standin *s)
{
	pthread_join(s->thread, NULL);
	if (s->fd >= 0)
		close(s->fd);
	close(s->listen_fd);
	unlink(s->path);
	unsetenv("ASTEAL_SOCKET");
	unsetenv("ASTEAL_WORKERS");
	unsetenv("ASTEAL_QUIET");
}

static uint64_t quanta_seen;

/* The job is the stand-in's and has closed 3 quanta since quanta_seen. */
static int joined_for_a_while(void *arg)
{
	asteal_summary sum;

	(void)arg;
	if (asteal_summary_get(&sum) < 0 || sum.job_id != JOB_ID)
		return 0;
	if (quanta_seen == 0)
		quanta_seen = sum.quanta + 1;
	return sum.quanta >= quanta_seen + 3;
}

/* An int flag has become nonzero. */
static int flag_set(void *arg)
{
	return atomic_load((atomic_int *)arg) != 0;
}

/* Start the stand-in, then the runtime, which joins it; once welcomed,
 * hand the root task to a thread of the test (*t). */
static void join_and_run(struct standin *s, pthread_t *t, int with_welcome)
{
	standin_start(s, with_welcome, 0);
	assert_int_equal(asteal_start(NULL), 0);
	assert_int_equal(test_wait(flag_set, &s->welcomed, BOUND_S), 0);
	assert_int_equal(pthread_create(t, NULL, runner, NULL), 0);
}

/* The root task runs and ends well (on the test's thread t), with the
 * given allotment in force after it (-1: any); stop everything. */
static void finish(struct standin *s, pthread_t t, int allotment)
{
	asteal_summary sum;
	void *rc;

	assert_int_equal(test_wait(flag_set, &started, BOUND_S), 0);
	assert_int_equal(pthread_join(t, &rc), 0);
	assert_int_equal((int)(intptr_t)rc, 0);
	assert_int_equal(asteal_summary_get(&sum), 0);
	if (allotment >= 0)
		assert_int_equal(sum.allotment, allotment);
	assert_int_equal(asteal_stop(), 0);
	standin_stop(s);
}

/* Joined, the job runs nothing until the first Allot, then at once. */
static void test_waits_for_first_allot(void **state)
{
	struct standin s;
	asteal_summary sum;
	pthread_t t;

	(void)state;
	join_and_run(&s, &t, 0);
	quanta_seen = 0;
	assert_int_equal(test_wait(joined_for_a_while, NULL, BOUND_S), 0);
	assert_int_equal(asteal_summary_get(&sum), 0);
	assert_int_equal(sum.allotment, 0);
	assert_int_equal(atomic_load(&started), 0);   /* no worker ran it */
	atomic_store(&s.go, 1);
	finish(&s, t, 1);
}

/* An Allot that comes in the same read as the Welcome is applied (the
 * socket does not say so again, and the daemon sends no other while
 * nothing changes: such a job stayed parked for good). */
static void test_allot_with_welcome(void **state)
{
	struct standin s;
	pthread_t t;

	(void)state;
	join_and_run(&s, &t, 1);
	finish(&s, t, 1);
}

/* A daemon that hangs up before its first Allot leaves the job
 * standalone: the root task runs. */
static void test_daemon_gone_before_allot(void **state)
{
	struct standin s;
	pthread_t t;

	(void)state;
	join_and_run(&s, &t, 0);
	atomic_store(&s.go, 2);
	assert_int_equal(test_wait(flag_set, &s.done, BOUND_S), 0);
	finish(&s, t, -1);
}

/* ---- the stand-in scripted by the test ---- */

/* The test's side of a scripted stand-in: the job's connection, what the
 * job sent that the test looked past. */
struct script {
	struct standin s;
	struct frame_reader *r;
	uint64_t released[64];         /* the quanta of the Releaseds read */
	int nreleased;
};

/* The next message from the job, before the time end (test_now): 1 with
 * *m (frame_free it), 0 when none came or the job hung up. */
static int script_next(struct script *sc, Asteal__Envelope **m, double end)
{
	for (;;) {
		struct pollfd p = { .fd = sc->s.fd, .events = POLLIN };
		double left = end - test_now();
		int rc = frame_reader_next(sc->r, m);

		if (rc != 0)
			return rc > 0;
		if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0 ||
		    frame_reader_fill(sc->r, sc->s.fd) <= 0)
			return 0;
	}
}

/* The next Feedback from the job (Releaseds before it are kept in sc):
 * 0 with *fb, -1 when none came before the time end. */
static int next_feedback(struct script *sc, struct exchange_feedback *fb,
                         double end)
{
	Asteal__Envelope *m;

	while (script_next(sc, &m, end)) {
		int kind = m->msg_case;
		if (kind == ASTEAL__ENVELOPE__MSG_FEEDBACK)
			exchange_feedback_from(fb, m->feedback);
		else if (kind == ASTEAL__ENVELOPE__MSG_RELEASED &&
		         sc->nreleased < 64)
			sc->released[sc->nreleased++] = m->released->quantum;
		frame_free(m);
		if (kind == ASTEAL__ENVELOPE__MSG_FEEDBACK)
			return 0;
	}
	return -1;
}

/* The first Feedback whose desire is (equal) or is not (!equal) `desire`,
 * within BOUND_S: 0 with *fb, -1 when none came. */
static int feedback_where(struct script *sc, uint32_t desire, int equal,
                          struct exchange_feedback *fb)
{
	double end = test_now() + BOUND_S;

	while (next_feedback(sc, fb, end) == 0)
		if ((fb->desire == desire) == equal)
			return 0;
	return -1;
}

/* Whether a Released for the Allot of quantum q came within BOUND_S
 * (reading what the job sends, Feedbacks included). */
static int released(struct script *sc, uint64_t q)
{
	struct exchange_feedback fb;
	double end = test_now() + BOUND_S;
	int i;

	do {
		for (i = 0; i < sc->nreleased; i++)
			if (sc->released[i] == q)
				return 1;
	} while (next_feedback(sc, &fb, end) == 0);
	return 0;
}

/* Send the job n Allots (allotment a[i] of its 2 workers, on CPU 0) in
 * one write, all of the quantum now running; returns that quantum. */
static uint64_t send_allots(struct script *sc, const uint32_t *a, int n)
{
	static const uint32_t cpus[2] = { 0, 0 };
	uint8_t buf[4 * EXCHANGE_ALLOT_MAX];
	uint64_t now = qtime_now_ns(), q = (now - sc->s.t0) / (QUANTUM_US * 1000ull);
	size_t len = 0;
	int i;

	assert_true(n <= 4);
	for (i = 0; i < n; i++) {
		struct exchange_allot x = {
			.quantum = q, .allotment = a[i], .availability = a[i],
			.cpus = cpus, .ncpus = a[i], .decided_ns = now,
		};
		size_t k = exchange_encode_allot(buf + len, &x);
		assert_true(k > 0);
		len += k;
	}
	assert_int_equal(write(sc->s.fd, buf, len), (ssize_t)len);
	return q;
}

/* Start a scripted stand-in, then the runtime (2 workers), which joins it. */
static void script_start(struct script *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->r = frame_reader_new();
	assert_non_null(sc->r);
	standin_start(&sc->s, 0, 1);
	assert_int_equal(asteal_start(NULL), 0);
	assert_int_equal(test_wait(flag_set, &sc->s.welcomed, BOUND_S), 0);
	assert_true(sc->s.fd >= 0);
}

/* Stop the runtime and the scripted stand-in. */
static void script_stop(struct script *sc)
{
	assert_int_equal(asteal_stop(), 0);
	standin_stop(&sc->s);
	frame_reader_free(sc->r);
}

static atomic_int hold;        /* the held root spins while this is 1 */

/* A root task that says it ran, then spins (polling) while hold is 1. */
static void held_root(void *arg)
{
	(void)arg;
	atomic_store(&started, 1);
	while (atomic_load(&hold))
		asteal_poll();
}

/* Run held_root (from a thread of the test). */
static void *held_runner(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)asteal_run(held_root, NULL);
}

/* The job's worker 1 has parked at least once. */
static int worker1_parked(void *arg)
{
	asteal_worker_stats st[2];

	(void)arg;
	return asteal_stats(st, 2) == 2 && st[1].leaves > 0;
}

/* A job with no root task in flight asks for nothing: desire 0 before its
 * first asteal_run (said at its first boundary, not as it joins) and after
 * it; a root task makes it ask for 1 again (not the desire its last one
 * reached), and while its allotment is 0 no worker runs it. */
static void test_nothing_to_run(void **state)
{
	static const uint32_t zero = 0, one = 1, two = 2;
	struct exchange_feedback fb;
	struct script sc;
	asteal_summary sum;
	uint64_t q;
	pthread_t t;
	void *rc;

	(void)state;
	script_start(&sc);
	/* Joined with nothing to run: desire 0, and the daemon allots 0.
	 * The first boundary says it, not the join: a Feedback as it joined
	 * would close the quantum before (quantum 0: the Welcome's t0 is one
	 * quantum back), so that a root task starting at once would have to
	 * close the quantum running, and the boundary ending it could not
	 * say the desire the root task grew to. */
	assert_int_equal(next_feedback(&sc, &fb, test_now() + BOUND_S), 0);
	assert_int_equal(fb.desire, 0);
	assert_true(fb.quantum >= 1);
	send_allots(&sc, &zero, 1);
	/* A root task: desire 1, and nothing runs it while the allotment is 0. */
	atomic_store(&started, 0);
	atomic_store(&hold, 1);
	assert_int_equal(pthread_create(&t, NULL, held_runner, NULL), 0);
	assert_int_equal(feedback_where(&sc, 0, 0, &fb), 0);
	assert_int_equal(fb.desire, 1);
	assert_int_equal(atomic_load(&started), 0);
	/* Allotted 1, it runs, efficient and satisfied: its desire rises. */
	send_allots(&sc, &one, 1);
	assert_int_equal(test_wait(flag_set, &started, BOUND_S), 0);
	assert_int_equal(feedback_where(&sc, 1, 0, &fb), 0);
	assert_int_equal(fb.desire, 2);
	send_allots(&sc, &two, 1);
	/* The root task ends: desire 0. */
	atomic_store(&hold, 0);
	assert_int_equal(pthread_join(t, &rc), 0);
	assert_int_equal((int)(intptr_t)rc, 0);
	assert_int_equal(feedback_where(&sc, 0, 1, &fb), 0);
	assert_true(fb.desire_real == 0.0);
	/* Allotted 0: both workers park (the Released says the last did). */
	q = send_allots(&sc, &zero, 1);
	assert_true(released(&sc, q));
	assert_int_equal(asteal_summary_get(&sum), 0);
	assert_int_equal(sum.allotment, 0);
	assert_true(sum.desire == 0.0);
	/* Another root task: desire 1 again (d_1), not the 2 of the last. */
	atomic_store(&started, 0);
	assert_int_equal(pthread_create(&t, NULL, runner, NULL), 0);
	assert_int_equal(feedback_where(&sc, 0, 0, &fb), 0);
	assert_int_equal(fb.desire, 1);
	/* Parked, no worker runs it, for quanta on end. */
	quanta_seen = 0;
	assert_int_equal(test_wait(joined_for_a_while, NULL, BOUND_S), 0);
	assert_int_equal(atomic_load(&started), 0);
	/* Allotted 1: it runs. */
	send_allots(&sc, &one, 1);
	assert_int_equal(test_wait(flag_set, &started, BOUND_S), 0);
	assert_int_equal(pthread_join(t, &rc), 0);
	assert_int_equal((int)(intptr_t)rc, 0);
	script_stop(&sc);
}

/* A worker that a recall woke but that has not run yet (still parked) is
 * taken away again by the next Allot: that revocation ends (the daemon
 * gets its Released), it does not wait for a departure that already
 * happened. */
static void test_revoke_before_woken(void **state)
{
	static const uint32_t one = 1, up_down[2] = { 2, 1 };
	struct script sc;
	uint64_t q;

	(void)state;
	script_start(&sc);
	send_allots(&sc, &one, 1);
	/* Worker 1, outside the allotment from the start, has parked. */
	assert_int_equal(test_wait(worker1_parked, NULL, BOUND_S), 0);
	/* Recalled and taken away again in the same read: the link thread
	 * applies both before worker 1 can wake. */
	q = send_allots(&sc, up_down, 2);
	assert_true(released(&sc, q));
	script_stop(&sc);
}

static atomic_int asleep;      /* the held root sleeps instead of spinning */

/* A root task that says it ran, then, while hold is 1, spins (polling)
 * or, while asleep is 1, sleeps in the kernel: its worker is allotted and
 * working but not running, preempted time to the accounting. */
static void napping_root(void *arg)
{
	(void)arg;
	atomic_store(&started, 1);
	while (atomic_load(&hold)) {
		if (atomic_load(&asleep))
			usleep(200);
		asteal_poll();
	}
}

/* Run napping_root (from a thread of the test). */
static void *napping_runner(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)asteal_run(napping_root, NULL);
}

/* The estimator judges the allotment in force at a quantum's end on what
 * the workers of that allotment did (DESIGN.md, "A-STEAL, exactly"): a
 * quantum whose allotment fell to 0 at the Allot is not judged on the
 * sliver of the old allotment before it, even one its worker did not run
 * in (here it slept), while a whole quantum of that is inefficient.  The
 * trace shows what was judged. */
static void test_judged_allotment(void **state)
{
	static const uint32_t zero = 0, one = 1;
	char path[64], line[512];
	struct script sc;
	pthread_t t;
	void *rc;
	FILE *f;
	int slivers = 0, whole = 0, prev_a = -1;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/asteal-test-join-trace.%d", (int)getpid());
	setenv("ASTEAL_TRACE", path, 1);
	script_start(&sc);
	unsetenv("ASTEAL_TRACE");
	atomic_store(&started, 0);
	atomic_store(&hold, 1);
	atomic_store(&asleep, 1);
	assert_int_equal(pthread_create(&t, NULL, napping_runner, NULL), 0);
	/* Three times: a whole quantum asleep at allotment 1, then the
	 * allotment taken away a quantum later, after a sliver asleep. */
	for (int i = 0; i < 3; i++) {
		send_allots(&sc, &one, 1);
		quanta_seen = 0;
		assert_int_equal(test_wait(joined_for_a_while, NULL, BOUND_S), 0);
		send_allots(&sc, &zero, 1);
		quanta_seen = 0;
		assert_int_equal(test_wait(joined_for_a_while, NULL, BOUND_S), 0);
	}
	atomic_store(&hold, 0);
	send_allots(&sc, &one, 1);
	assert_int_equal(pthread_join(t, &rc), 0);
	assert_int_equal((int)(intptr_t)rc, 0);
	script_stop(&sc);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long c[17] = { 0 };
		char cls[32];
		int n = sscanf(line, "%llu,%llu,%llu,%*f,%llu,%llu,%llu,%llu,%llu,"
		               "%llu,%31[a-z],%llu,%llu,%llu,%llu,%llu,%llu",
		               &c[0], &c[1], &c[2], &c[4], &c[5], &c[6], &c[7], &c[8],
		               &c[9], cls, &c[11], &c[12], &c[13], &c[14], &c[15],
		               &c[16]);
		assert_int_equal(n, 16);
		if (strcmp(cls, "idle") != 0 && c[5] == 0 && prev_a == 1 &&
		    c[9] > 0) {
			/* The sliver: held, not judged. */
			assert_int_equal(c[16], 0);
			assert_int_equal(c[15], 0);
			assert_string_equal(cls, "deprived");
			slivers++;
		} else if (c[5] == 1 && prev_a == 1 && c[9] > 5000000 &&
		           c[13] > c[9] / 2) {
			/* A whole quantum held and not run: judged so. */
			assert_int_equal(c[16], c[9]);
			assert_string_equal(cls, "inefficient");
			whole++;
		}
		prev_a = (int)c[5];
	}
	fclose(f);
	unlink(path);
	assert_true(slivers >= 1);
	assert_true(whole >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_waits_for_first_allot, test_stop_leftover),
		cmocka_unit_test_teardown(test_allot_with_welcome, test_stop_leftover),
		cmocka_unit_test_teardown(test_daemon_gone_before_allot, test_stop_leftover),
		cmocka_unit_test_teardown(test_nothing_to_run, test_stop_leftover),
		cmocka_unit_test_teardown(test_revoke_before_woken, test_stop_leftover),
		cmocka_unit_test_teardown(test_judged_allotment, test_stop_leftover),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
