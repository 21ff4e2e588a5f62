/*
 * test_page_hostile.c - the page a job shares with asteald (proto/page.h)
 * against jobs that cannot or will not use it as agreed, with a real
 * asteald and real libasteal jobs (build/jobs/fib).
 *
 * A page refused: a daemon whose memfd_create a seccomp filter refuses
 * makes no page, and its jobs run on messages; a job whose shared
 * mappings a seccomp filter refuses declines the page it was given
 * (PageDeclined) and still gets its allotments, as Allots (the daemon
 * sends again the grant it had written into the page); status counts
 * both (socket_jobs, pages_failed, pages_declined).
 *
 * A hostile job against the whole page (tests/pageattack.c: random bytes
 * at full speed over every part of a page_allot job's page, the daemon's
 * own part and generation included, torn counts, a desire of NaN,
 * negative or huge, usage going back, parked records of quanta that never
 * were, the eventfd signalled in a tight loop) while three fib jobs share
 * the CPUs: the daemon keeps ticking and answering status within a
 * bound, drops what no job could write with a log line per job at most,
 * ignores the rest (a job that only scribbles over the daemon's part
 * stays connected), and the fib jobs keep their allotments and complete
 * their revocations through their pages.  (bench/pagehostile.sh measures
 * their tick and revocation figures with and without the attack.)
 *
 * An eventfd signalled in a tight loop is watched at ticks
 * only until the next, with one log line (it cost the daemon, at its
 * real-time priority, a tenth of a CPU before).
 *
 * The seals: a page_allot job's page cannot shrink, grow or take more
 * seals; a job that unmaps and closes its page and eventfd stays
 * connected and served by messages, and leaves cleanly.
 *
 * Every wait is on a condition with a bound (tdaemon_bound).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemonutil.h"
#include "frame.h"
#include "page.h"
#include "pagejob.h"
#include "qtime.h"

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

static struct tdaemon d;

/* ----------------------------------------------------------- helpers -- */


/* One of dm's status counters, by its name in Asteal__Status. */
#define STATUS_FIELD(dm, field) ({ \
	Asteal__Envelope *e_; \
	uint64_t v_ = (uint64_t)tdaemon_status((dm), &e_)->field; \
	frame_free(e_); \
	v_; })

/* Whether the main daemon has ticked (a test_wait condition). */
static int has_ticked(void *arg)
{
	(void)arg;
	(void)poll(NULL, 0, 5);
	return STATUS_FIELD(&d, ticks) > 0;
}

/* Whether the main daemon's tick count passed *arg + 10 (a test_wait
 * condition). */
static int ticked_past(void *arg)
{
	(void)poll(NULL, 0, 5);
	return STATUS_FIELD(&d, ticks) > *(uint64_t *)arg + 10;
}

/* Install a seccomp filter on this thread (and what it execs) that
 * refuses syscall nr with EPERM: always when mask is 0, else when its
 * argument arg has a bit of mask.  0, or -1 (no filter here). */
static int refuse(long nr, int arg, uint32_t mask)
{
#ifdef NATIVE_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* The low half of the argument (little-endian). */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		         (uint32_t)offsetof(struct seccomp_data, args[0]) + 8u * (uint32_t)arg),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, mask != 0 ? mask : 0xffffffffu, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, mask != 0 ? SECCOMP_RET_ALLOW
		                          : (SECCOMP_RET_ERRNO | EPERM)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(f) / sizeof(f[0])), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
#else
	(void)nr;
	(void)arg;
	(void)mask;
	errno = ENOSYS;
	return -1;
#endif
}

/* The daemon's process: memfd_create refused (before its exec). */
static void refuse_memfd(void)
{
	if (refuse(SYS_memfd_create, 0, 0) < 0)
		_exit(125);
}

/* Start build/jobs/fib N as a job of dm, its output in `out`, with shared
 * mappings refused by a seccomp filter when `no_shared`: its pid. */
static pid_t fib_start(const struct tdaemon *dm, const char *n, const char *out,
                       int no_shared)
{
	const char *b = getenv("ASTEAL_TEST_BUILD");
	char bin[256];
	pid_t pid;

	snprintf(bin, sizeof(bin), "%s/jobs/fib", b ? b : "build");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 ||
		    setenv("ASTEAL_SOCKET", dm->sock, 1) < 0 ||
		    (no_shared && refuse(SYS_mmap, 3, MAP_SHARED) < 0))
			_exit(126);
		execl(bin, "fib", n, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* A child that exits within seconds: its exit status, or -1 (killed). */
static int child_wait(pid_t pid, double seconds)
{
	double end = test_now() + seconds;
	int st;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		assert_true(w >= 0);
		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (test_now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fail_msg("pid %d still running after %.1f s", (int)pid, seconds);
		}
		(void)poll(NULL, 0, 5);
	}
}

/* Whether a file holds text. */
static int file_has(const char *path, const char *text)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

/* ------------------------------------------------- the page refused -- */

/* A daemon that cannot make pages (memfd_create refused by a seccomp
 * filter): a job asking for one gets a Welcome without it and is counted
 * as a socket job; a libasteal job runs to its end on messages. */
static void test_daemon_no_memfd(void **state)
{
	struct tdaemon nd;
	struct pagejob j;
	char out[96];
	pid_t fib;

	(void)state;
#ifndef NATIVE_ARCH
	skip();
#endif
	tdaemon_before_exec = refuse_memfd;
	assert_int_equal(tdaemon_start(&nd, NULL, 0), 0);
	tdaemon_before_exec = NULL;
	pagejob_open(&nd, &j, "hostile", 2, 1, 1, 0);
	assert_int_equal(STATUS_FIELD(&nd, socket_jobs), 1);
	assert_int_equal(STATUS_FIELD(&nd, page_jobs), 0);
	assert_int_equal(STATUS_FIELD(&nd, pages_failed), 1);
	pagejob_close(&j);
	snprintf(out, sizeof(out), "%s/fib.out", nd.dir);
	fib = fib_start(&nd, "32", out, 0);
	assert_int_equal(child_wait(fib, 3 * tdaemon_bound()), 0);
	assert_true(file_has(out, "check=ok"));
	assert_int_equal(STATUS_FIELD(&nd, pages_failed), 2);
	assert_int_equal(STATUS_FIELD(&nd, pages_written), 0);
	assert_int_equal(tdaemon_log_count(&nd, "no page, it sends messages: "
	                                   "memfd_create", NULL), 2);
	assert_int_equal(tdaemon_stop(&nd), 0);
}

/* A libasteal job whose shared mappings are refused (a seccomp filter)
 * cannot map the page it is given: it declines it, and runs to its end
 * on messages, its allotments sent as Allots. */
static void test_job_no_shared_map(void **state)
{
	uint64_t declined0, allots0;
	char out[96];
	pid_t fib;

	(void)state;
#ifndef NATIVE_ARCH
	skip();
#endif
	declined0 = STATUS_FIELD(&d, pages_declined);
	allots0 = STATUS_FIELD(&d, allots);
	snprintf(out, sizeof(out), "%s/fib.out", d.dir);
	fib = fib_start(&d, "32", out, 1);
	/* Before PageDeclined it ran on nothing: never allotted, it never
	 * ended. */
	assert_int_equal(child_wait(fib, 3 * tdaemon_bound()), 0);
	assert_true(file_has(out, "check=ok"));
	assert_true(file_has(out, "the daemon's page is unusable"));
	assert_int_equal(STATUS_FIELD(&d, pages_declined), declined0 + 1);
	assert_true(STATUS_FIELD(&d, allots) > allots0);
	assert_int_equal(tdaemon_log_count(&d, "cannot use its page",
	                                   "Operation not permitted"), 1);
}

/* Whether a job's page holds an allotment (a test_wait condition). */
static int page_allotted(void *arg)
{
	struct page_allotment *a = malloc(sizeof(*a));
	int64_t gen;

	assert_non_null(a);
	(void)poll(NULL, 0, 5);
	gen = page_allot_read(((struct pagejob *)arg)->pg, a);
	free(a);
	return gen > 0;
}

/* The next Allot a raw job gets (Errors fail the test). */
static void next_allot(struct pagejob *j, uint32_t *allotment, uint64_t *q)
{
	for (;;) {
		Asteal__Envelope *m = tdaemon_next(j->fd, j->r, tdaemon_bound());

		assert_non_null(m);
		assert_int_not_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
		if (m->msg_case == ASTEAL__ENVELOPE__MSG_ALLOT) {
			*allotment = m->allot->allotment;
			*q = m->allot->quantum;
			frame_free(m);
			return;
		}
		frame_free(m);
	}
}

/* A job that declines its page after its grant was written there gets
 * that grant again as an Allot, then its next allotments as Allots; the
 * daemon counts it a socket job. */
static void test_declined_grant(void **state)
{
	static struct page_allotment a;
	Asteal__Envelope env;
	Asteal__PageDeclined pd;
	struct pagejob j;
	uint64_t declined0, q;
	uint32_t n;

	(void)state;
	assert_int_equal(test_wait(has_ticked, NULL, tdaemon_bound()), 0);
	declined0 = STATUS_FIELD(&d, pages_declined);
	pagejob_open(&d, &j, "hostile", 2, 1, 1, 1);
	assert_int_equal(test_wait(page_allotted, &j, tdaemon_bound()), 0);
	assert_true(page_allot_read(j.pg, &a) > 0);
	assert_true(a.allotment >= 1);
	frame_page_declined(&env, &pd, "test: refused");
	assert_int_equal(frame_write_fd(j.fd, &env), 0);
	next_allot(&j, &n, &q);
	assert_int_equal(n, (uint32_t)a.allotment);
	assert_int_equal(q, a.quantum);
	assert_int_equal(STATUS_FIELD(&d, pages_declined), declined0 + 1);
	assert_int_equal(STATUS_FIELD(&d, socket_jobs), 1);
	assert_int_equal(STATUS_FIELD(&d, page_allot_jobs), 0);
	/* Declined again: nothing to decline, ignored. */
	assert_int_equal(frame_write_fd(j.fd, &env), 0);
	assert_int_equal(STATUS_FIELD(&d, pages_declined), declined0 + 1);
	pagejob_close(&j);
}

/* ------------------------------------------------- a hostile job -- */

/* How long the attack lasts. */
static double attack_seconds(void)
{
	return test_sanitized() ? 3.0 : 1.5;
}

/* The good jobs' pids, and whether each was seen allotted. */
struct good {
	pid_t pid[3];
	int seen[3];
};

/* Look at the main daemon's jobs: which good ones hold CPUs now. */
static void good_look(struct good *g)
{
	Asteal__Envelope req = ASTEAL__ENVELOPE__INIT, *e, *w = NULL;
	Asteal__JobsRequest jr = ASTEAL__JOBS_REQUEST__INIT;
	struct frame_reader *r = frame_reader_new();
	int fd = tdaemon_connect(&d, 0, &w);

	assert_true(fd >= 0);
	frame_free(w);
	req.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	req.jobs_request = &jr;
	assert_int_equal(frame_write_fd(fd, &req), 0);
	e = tdaemon_next(fd, r, tdaemon_bound());
	assert_non_null(e);
	assert_int_equal(e->msg_case, ASTEAL__ENVELOPE__MSG_JOBS);
	for (size_t i = 0; i < e->jobs->n_jobs; i++)
		for (int k = 0; k < 3; k++)
			if (e->jobs->jobs[i]->pid == g->pid[k] &&
			    e->jobs->jobs[i]->allotment > 0)
				g->seen[k] = 1;
	frame_free(e);
	frame_reader_free(r);
	close(fd);
}

/* Whether the three fib jobs read their allotments in their pages and
 * one revocation went through since *arg (a test_wait condition). */
static int good_running(void *arg)
{
	Asteal__Envelope *e;
	Asteal__Status *st;
	int yes;

	(void)poll(NULL, 0, 10);
	st = tdaemon_status(&d, &e);
	yes = st->page_allot_jobs == 3 && st->revocations > *(uint64_t *)arg;
	frame_free(e);
	return yes;
}

/* Start tests/pageattack against the main daemon for `seconds`, its
 * output in out: its pid. */
static pid_t attack_start(double seconds, const char *out)
{
	const char *b = getenv("ASTEAL_TEST_BUILD");
	char bin[256], secs[32];
	pid_t pid;

	snprintf(bin, sizeof(bin), "%s/tests/pageattack", b ? b : "build");
	snprintf(secs, sizeof(secs), "%.1f", seconds);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execl(bin, "pageattack", d.sock, secs, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* The whole page attacked while three fib jobs share the CPUs. */
static void test_hostile_whole_page(void **state)
{
	struct good g;
	char out[96], text[512];
	uint64_t revs0, ticks0, revs1, ticks1, jobs = 0, dropped = 0;
	int warn0, warn1, st, rounds = 0;
	double slowest = 0, secs = attack_seconds();
	pid_t attacker;
	FILE *f;

	(void)state;
	memset(&g, 0, sizeof(g));
	revs0 = STATUS_FIELD(&d, revocations);
	for (int k = 0; k < 3; k++) {
		snprintf(out, sizeof(out), "%s/good%d.out", d.dir, k);
		g.pid[k] = fib_start(&d, "45", out, 0);
	}
	assert_int_equal(test_wait(good_running, &revs0, 3 * tdaemon_bound()), 0);
	revs0 = STATUS_FIELD(&d, revocations);
	ticks0 = STATUS_FIELD(&d, ticks);
	warn0 = tdaemon_log_count(&d, "warning", NULL);
	snprintf(out, sizeof(out), "%s/attack.out", d.dir);
	attacker = attack_start(secs, out);
	/* Status answers, and the good jobs hold CPUs in turn, throughout. */
	for (;;) {
		double t = test_now();
		pid_t w;

		good_look(&g);
		t = test_now() - t;
		slowest = t > slowest ? t : slowest;
		rounds++;
		w = waitpid(attacker, &st, WNOHANG);
		assert_true(w >= 0);
		if (w == attacker)
			break;
		assert_true(rounds < 100000);
		(void)poll(NULL, 0, 20);
	}
	revs1 = STATUS_FIELD(&d, revocations);
	ticks1 = STATUS_FIELD(&d, ticks);
	warn1 = tdaemon_log_count(&d, "warning", NULL);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(waitpid(g.pid[k], NULL, WNOHANG), 0);  /* still runs */
		kill(g.pid[k], SIGKILL);
		waitpid(g.pid[k], NULL, 0);
	}
	f = fopen(out, "r");
	assert_non_null(f);
	text[0] = '\0';
	(void)!fgets(text, sizeof(text), f);
	fclose(f);
	print_message("%s  status and jobs answered %d times, the slowest in %.1f ms; "
	              "%llu ticks, %llu revocations, %d warnings\n", text, rounds,
	              slowest * 1e3, (unsigned long long)(ticks1 - ticks0),
	              (unsigned long long)(revs1 - revs0), warn1 - warn0);
	/* The job that only scribbled over the daemon's part stayed. */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(sscanf(text, "pageattack: %llu jobs, %llu dropped",
	                        (unsigned long long *)&jobs,
	                        (unsigned long long *)&dropped), 2);
	assert_true(jobs >= 8);                 /* every attack ran */
	assert_true(dropped >= 3);              /* NaN, negative, huge at least */
	/* The daemon: ticking (half its quanta at least), answering within a
	 * second, a log line per hostile job at most (and one for a refused
	 * revocation record before the drop). */
	assert_true(ticks1 - ticks0 >= (uint64_t)(secs * 50));
	assert_true(slowest < 1.0);
	assert_true(warn1 - warn0 <= (int)(2 * jobs + 2));
	/* The good jobs: each held CPUs, revocations went through. */
	for (int k = 0; k < 3; k++)
		assert_int_equal(g.seen[k], 1);
	assert_true(revs1 - revs0 >= 2);
}

static int storm_fd, storm_lines;

/* Signal storm_fd a thousand times, one by one; whether the daemon said
 * it reads it at ticks only now (a test_wait condition). */
static int storm(void *arg)
{
	uint64_t one = 1;

	(void)arg;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(write(storm_fd, &one, sizeof(one)), (ssize_t)sizeof(one));
		if (i % 50 == 0)
			sched_yield();
	}
	return tdaemon_log_count(&d, "read at ticks only", NULL) > storm_lines;
}

/* An eventfd signalled in a tight loop with nothing new: the daemon stops
 * watching it until the next tick, with one log line; the job stays, and
 * a record written after is still read (here refused: an Error). */
static void test_eventfd_storm(void **state)
{
	uint64_t one = 1, now;
	int lines0 = tdaemon_log_count(&d, "read at ticks only", NULL);
	Asteal__Envelope *m;
	struct pagejob j;

	(void)state;
	pagejob_open(&d, &j, "hostile", 2, 1, 1, 1);
	storm_fd = j.wake;
	storm_lines = lines0;
	assert_int_equal(test_wait(storm, NULL, tdaemon_bound()), 0);
	assert_int_equal(tdaemon_log_count(&d, "read at ticks only", NULL), lines0 + 1);
	now = (qtime_now_ns() - j.t0) / j.L;
	page_parked_write(j.pg, now + 1000, qtime_now_ns(), 1);
	assert_int_equal(write(j.wake, &one, sizeof(one)), (ssize_t)sizeof(one));
	m = tdaemon_next(j.fd, j.r, tdaemon_bound());
	while (m != NULL && m->msg_case != ASTEAL__ENVELOPE__MSG_ERROR) {
		frame_free(m);
		m = tdaemon_next(j.fd, j.r, tdaemon_bound());
	}
	assert_non_null(m);
	assert_non_null(strstr(m->error->message, "a Released for quantum"));
	frame_free(m);
	assert_int_equal(tdaemon_log_count(&d, "read at ticks only", NULL), lines0 + 1);
	pagejob_close(&j);
}

/* ----------------------------------------------------------- seals -- */

/* Whether the main daemon has no page job left (a test_wait condition). */
static int no_page_jobs(void *arg)
{
	(void)arg;
	(void)poll(NULL, 0, 5);
	return STATUS_FIELD(&d, page_jobs) == 0 && STATUS_FIELD(&d, jobs) == 0;
}

/* Whether the newest job's desire is 2 (a test_wait condition). */
static int desire_2(void *arg)
{
	Asteal__Envelope req = ASTEAL__ENVELOPE__INIT, *e, *w = NULL;
	Asteal__JobsRequest jr = ASTEAL__JOBS_REQUEST__INIT;
	struct frame_reader *r = frame_reader_new();
	int fd = tdaemon_connect(&d, 0, &w), yes = 0;

	(void)arg;
	(void)poll(NULL, 0, 5);
	assert_true(fd >= 0);
	frame_free(w);
	req.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	req.jobs_request = &jr;
	assert_int_equal(frame_write_fd(fd, &req), 0);
	e = tdaemon_next(fd, r, tdaemon_bound());
	assert_non_null(e);
	for (size_t i = 0; i < e->jobs->n_jobs; i++)
		yes |= e->jobs->jobs[i]->desire == 2;
	frame_free(e);
	frame_reader_free(r);
	close(fd);
	return yes;
}

/* A page_allot job's page holds its size and seals; the job unmaps it and
 * closes its descriptors: the daemon goes on, takes its Feedback messages,
 * and drops its page when it leaves. */
static void test_seals(void **state)
{
	static const uint64_t tot[TDAEMON_NUSE];
	struct pagejob j;
	uint64_t ticks0, q;

	(void)state;
	assert_int_equal(test_wait(no_page_jobs, NULL, tdaemon_bound()), 0);
	pagejob_open(&d, &j, "hostile", 2, 1, 1, 1);
	assert_int_equal(ftruncate(j.pfd, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(j.pfd, 2 * PAGE_BYTES), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(fallocate(j.pfd, 0, 0, 2 * PAGE_BYTES), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(fcntl(j.pfd, F_ADD_SEALS, F_SEAL_WRITE), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(fcntl(j.pfd, F_GET_SEALS) & (F_SEAL_SHRINK | F_SEAL_GROW |
	                                               F_SEAL_SEAL),
	                 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	/* Gone from the job's side: unmapped, closed. */
	assert_int_equal(munmap(j.pg, PAGE_BYTES), 0);
	j.pg = NULL;
	close(j.pfd);
	close(j.wake);
	j.pfd = j.wake = -1;
	ticks0 = STATUS_FIELD(&d, ticks);
	q = (qtime_now_ns() - j.t0) / j.L;
	assert_int_equal(tdaemon_feedback(j.fd, q - 1, 2, 2.0, tot, 1), 0);
	assert_int_equal(test_wait(desire_2, NULL, tdaemon_bound()), 0);
	assert_int_equal(test_wait(ticked_past, &ticks0, tdaemon_bound()), 0);
	assert_int_equal(STATUS_FIELD(&d, page_allot_jobs), 1);
	pagejob_close(&j);
	assert_int_equal(test_wait(no_page_jobs, NULL, tdaemon_bound()), 0);
	assert_int_equal(STATUS_FIELD(&d, page_allot_jobs), 0);
}

/* Start the daemon of the group. */
static int setup(void **state)
{
	(void)state;
	return tdaemon_start(&d, NULL, 0);
}

/* Stop it: it must not have crashed. */
static int teardown(void **state)
{
	(void)state;
	return tdaemon_stop(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_daemon_no_memfd),
		cmocka_unit_test(test_job_no_shared_map),
		cmocka_unit_test(test_declined_grant),
		cmocka_unit_test(test_seals),
		cmocka_unit_test(test_eventfd_storm),
		cmocka_unit_test(test_hostile_whole_page),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
