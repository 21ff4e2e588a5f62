/*
 * test_service_fds.c - asteald's descriptors and the pids a Launch may
 * name, on a real daemon over the raw protocol (issue 42, items 5 and 6):
 * - out of descriptors (64 of them, 100 connections) the daemon refuses
 *   what it has no room for with a BUSY Error and its accept never fails;
 *   when accept itself fails (its limit lowered under it with prlimit),
 *   and another daemon knocks on its CPUs' names meanwhile, it pauses
 *   instead of spinning (its CPU measured over windows of a second, the
 *   host's steal excused: a spin fails every window), its log stays
 *   short, and it serves again once descriptors come back;
 * - the descriptors are shared among users (as root, with uids made up
 *   for children that setuid to them): under 64 descriptors one uid's
 *   connections, and under 128 one uid's Launches (each holding a pidfd
 *   on a child of its sender), leave room for another uid; the first is
 *   refused with an Error naming its fair part, root is still served, and
 *   accept never runs out;
 * - a Launch names only its sender's own process or one it started: pid
 *   1, a root process, another uid's, one of the same uid that the sender
 *   did not start and one that does not exist are refused; the sender
 *   itself, its child and its grandchild are launched; root names any.
 * Every wait is on a condition with a deadline.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <cmocka.h>

#include "daemonutil.h"
#include "launch.h"

/* The users the tests make up. */
#define UID_A 64981
#define UID_B 64982

static struct tdaemon d;

/* Processes the children of tdaemon_as_uid name (set before they fork). */
static pid_t other_uid_pid, same_uid_pid;

/* Stop the daemon a test started: it must exit 0. */
static int stop(void **state)
{
	(void)state;
	return tdaemon_stop(&d);
}

/* Start the daemon with descriptor limit nofile and the extra arguments
 * (NULL-terminated). */
static void start(long nofile, ...)
{
	const char *args[16];
	va_list ap;
	int n = 0;

	va_start(ap, nofile);
	while (n < 15 && (args[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	args[n] = NULL;
	assert_int_equal(tdaemon_start(&d, args, nofile), 0);
}

/* Whether the test may act as other uids (root): else it is skipped. */
static void need_root(const char *what)
{
	if (geteuid() != 0) {
		print_message("skipped: %s needs root to connect as other uids "
		              "(setuid)\n", what);
		skip();
	}
}

/* A client connection once welcomed: its fd, or -1 with the refusal in
 * why ("CODE message", or "no reply" for a close without an Error).
 * Fails nothing: children of other uids call it. */
static int try_client(char *why, size_t whylen)
{
	Asteal__Envelope *m = NULL;
	int fd = tdaemon_connect(&d, 0, &m);

	snprintf(why, whylen, "no reply");
	if (fd >= 0 && m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_WELCOME) {
		frame_free(m);
		return fd;
	}
	if (m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR)
		snprintf(why, whylen, "%d %s", (int)m->error->code, m->error->message);
	frame_free(m);
	if (fd >= 0)
		close(fd);
	return -1;
}

/* A client's Status is served (0), or not (-1). */
static int status_ok(int fd)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;
	struct frame_reader *r = frame_reader_new();
	int ok;

	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	env.status_request = &sr;
	m = frame_write_fd(fd, &env) == 0 ? tdaemon_next(fd, r, tdaemon_bound()) : NULL;
	ok = m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_STATUS;
	frame_free(m);
	frame_reader_free(r);
	return ok ? 0 : -1;
}

/* Whether a fresh client gets a Status (a test_wait condition). */
static int serves(void *arg)
{
	char why[200];
	int fd = try_client(why, sizeof(why)), ok;

	(void)arg;
	ok = fd >= 0 && status_ok(fd) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Launch pid from client fd: 0 when launched, else the Error's code with
 * its message in why, or -1 for no reply. */
static int launch(int fd, pid_t pid, char *why, size_t whylen)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m = NULL;
	Asteal__Launch l = ASTEAL__LAUNCH__INIT;
	struct frame_reader *r = frame_reader_new();
	int code = -1;

	snprintf(why, whylen, "no reply");
	l.name = (char *)"fds";
	l.command = (char *)"fds";
	l.pid = pid;
	env.msg_case = ASTEAL__ENVELOPE__MSG_LAUNCH;
	env.launch = &l;
	if (r != NULL && frame_write_fd(fd, &env) == 0)
		m = tdaemon_next(fd, r, tdaemon_bound());
	if (m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_LAUNCHED) {
		code = 0;
	} else if (m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) {
		code = (int)m->error->code;
		snprintf(why, whylen, "%s", m->error->message);
	}
	frame_free(m);
	frame_reader_free(r);
	return code;
}

/* Fork a process that waits until its parent ends (then it is killed);
 * its pid, or -1. */
static pid_t idle_child(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		for (;;)
			pause();
	}
	return pid;
}

/* ------------------------------------------- out of descriptors -- */

/* A process's CPU time so far, in clock ticks (utime + stime of
 * /proc/PID/stat, or of one of its threads: /proc/PID/task/TID/stat). */
static long stat_ticks(const char *path)
{
	char buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;
	p = fgets(buf, sizeof(buf), f) != NULL ? strrchr(buf, ')') : NULL;
	fclose(f);
	/* after ")": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime */
	if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u "
	                        "%*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (long)(ut + st);
}

/* The daemon's CPU time so far, in clock ticks. */
static long daemon_ticks(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)d.pid);
	return stat_ticks(path);
}

/* The host's steal time so far, in clock ticks summed over its CPUs (the
 * eighth number of /proc/stat's "cpu" line), 0 when not told. */
static long steal_ticks(void)
{
	unsigned long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n = 0;

	if (f != NULL) {
		n = fscanf(f, "cpu %lu %lu %lu %lu %lu %lu %lu %lu", &v[0], &v[1],
		           &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
		fclose(f);
	}
	return n == 8 ? (long)v[7] : 0;
}

/* Print each of the daemon's threads' CPU time so far (which one spins,
 * when one does). */
static void print_threads(void)
{
	char path[300];
	struct dirent *e;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)d.pid);
	if ((dir = opendir(path)) == NULL)
		return;
	while ((e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)d.pid,
		         e->d_name);
		print_message("  thread %s: %ld ticks\n", e->d_name, stat_ticks(path));
	}
	closedir(dir);
}

/* Whether the daemon used at most a fifth of a CPU over the next second
 * of the wall clock, less what the host's hypervisor took of each CPU
 * (steal); a test_wait condition: a daemon that spins uses all of every
 * window it is given, however loaded the host. */
static int calm(void *arg)
{
	long hz = sysconf(_SC_CLK_TCK), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long t0 = daemon_ticks(), s0 = steal_ticks(), used;
	double w0 = test_now(), window, steal;
	int ok;

	(void)arg;
	while (test_now() - w0 < 1.0)
		poll(NULL, 0, 50);                /* the window, not a wait */
	used = daemon_ticks() - t0;
	window = test_now() - w0;
	steal = (double)(steal_ticks() - s0) / (double)hz / (double)(ncpu > 0 ? ncpu : 1);
	if (window - steal > 0.5)
		window -= steal;
	ok = (double)used / (double)hz <= window / 5;
	print_message("out of descriptors: %.0f%% of a CPU over %.2f s (host "
	              "steal %.2f s a CPU)\n", 100.0 * (double)used / (double)hz /
	              window, window, steal);
	if (!ok)
		print_threads();
	return ok;
}

/* Knock on the daemon's name for CPU 0 (claim.c's abstract socket), as
 * another asteald starting does to learn who holds it; the knock waits
 * in the name's backlog until the daemon takes it.  1 when the daemon
 * holds the name, 0 when another process does (or none). */
static int knock(void)
{
	struct sockaddr_un a;
	struct ucred cr;
	socklen_t clen = sizeof(cr), alen;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int ours = 0, n;

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "asteal/cpu/0");
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	if (s >= 0 && connect(s, (struct sockaddr *)&a, alen) == 0 &&
	    getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &clen) == 0)
		ours = cr.pid == d.pid;
	if (s >= 0)
		close(s);
	return ours;
}

/* Set the daemon's soft descriptor limit (prlimit; the hard one stays,
 * so that no privilege is needed to raise it again). */
static void daemon_nofile(long n)
{
	struct rlimit rl;

	assert_int_equal(prlimit(d.pid, RLIMIT_NOFILE, NULL, &rl), 0);
	rl.rlim_cur = (rlim_t)n;
	assert_int_equal(prlimit(d.pid, RLIMIT_NOFILE, &rl, NULL), 0);
}

/* Out of descriptors, the daemon refuses clearly, pauses, and recovers. */
static void test_descriptors(void **state)
{
	enum { N = 100 };
	int fds[N], refused = 0, welcomed = 0, lines;

	(void)state;
	/* A network namespace of our own (root), so that the daemon holds
	 * its CPUs' names, which other daemons on the host would hold
	 * first otherwise (abstract sockets are per namespace). */
	if (geteuid() == 0 && unshare(CLONE_NEWNET) < 0)
		print_message("unshare(CLONE_NEWNET): %s\n", strerror(errno));
	start(64, (const char *)NULL);
	for (int i = 0; i < N; i++) {
		Asteal__Envelope *m = NULL;

		fds[i] = tdaemon_connect(&d, 0, &m);
		assert_true(fds[i] >= 0);
		assert_non_null(m);
		if (m->msg_case == ASTEAL__ENVELOPE__MSG_WELCOME) {
			welcomed++;
		} else {
			assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
			assert_int_equal(m->error->code, ASTEAL__ERROR_CODE__BUSY);
			refused++;
		}
		frame_free(m);
	}
	print_message("64 descriptors: %d connections welcomed, %d refused\n",
	              welcomed, refused);
	assert_true(welcomed >= 8 && refused >= N - 20);
	/* Refused at admission, with room left to say so: accept never
	 * failed. */
	assert_int_equal(tdaemon_log_count(&d, "Too many open files", NULL), 0);
	for (int i = 0; i < N; i++)
		close(fds[i]);
	assert_int_equal(test_wait(serves, NULL, tdaemon_bound()), 0);

	/* accept() itself failing: the limit lowered under the daemon. */
	lines = tdaemon_log_count(&d, "accept", NULL);
	daemon_nofile(8);
	for (int i = 0; i < 20; i++)
		fds[i] = tdaemon_dial(&d);
	/* Another daemon starting meanwhile knocks on our CPUs' names: a
	 * knock the daemon has no descriptor to take must not spin it. */
	if (!knock())
		print_message("CPU 0's name is another process's: no knock\n");
	assert_int_equal(test_wait(calm, NULL, tdaemon_bound()), 0);
	lines = tdaemon_log_count(&d, "accept", NULL) - lines;
	print_message("out of descriptors: %d log lines on accept\n", lines);
	assert_true(lines >= 1 && lines <= 40);
	daemon_nofile(64);
	for (int i = 0; i < 20; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	assert_int_equal(test_wait(serves, NULL, tdaemon_bound()), 0);
}

/* ------------------------------------- shared among users -- */

/* As UID_A: client connections until one is refused, which must be for
 * the descriptors with a BUSY Error (not a bare close), after at least
 * four; 0 when so.  They stay open until the process ends. */
static int user_connections(int most)
{
	char why[200];
	int n = 0;

	while (n < most && try_client(why, sizeof(why)) >= 0)
		n++;
	print_message("uid %d: %d connections, then refused: %s\n", UID_A, n, why);
	if (n == most)
		return 2;
	if (n < 4)
		return 3;
	return atoi(why) == ASTEAL__ERROR_CODE__BUSY &&
	       strstr(why, "descriptors") != NULL ? 0 : 4;
}

/* As UID_B, after UID_A took what it could: n client connections, each
 * served; 0 when so. */
static int user_few(int n)
{
	char why[200];

	for (int i = 0; i < n; i++) {
		int fd = try_client(why, sizeof(why));

		if (fd < 0) {
			print_message("uid %d: connection %d refused: %s\n", UID_B,
			              i + 1, why);
			return 10 + i;
		}
		if (status_ok(fd) < 0)
			return 5;
	}
	return 0;
}

/* UID_A takes what it can with hog(most), refused in the end; then
 * UID_B's few(n) succeeds, root is served from its own reserve, and the
 * daemon never ran out of descriptors. */
static void share(int (*hog)(int most), int most, int (*few)(int n), int n)
{
	pid_t a, b;
	int ga, gb, fd;
	char why[200];

	a = tdaemon_as_uid(UID_A, hog, most, &ga);
	b = tdaemon_as_uid(UID_B, few, n, &gb);
	assert_int_equal(tdaemon_finish_uid(b, gb), 0);
	fd = try_client(why, sizeof(why));
	if (fd < 0)
		fail_msg("root refused: %s", why);
	assert_int_equal(status_ok(fd), 0);
	close(fd);
	assert_int_equal(tdaemon_finish_uid(a, ga), 0);
	assert_int_equal(tdaemon_log_count(&d, "Too many open files", NULL), 0);
	assert_true(tdaemon_log_count(&d, "its fair part", NULL) >= 1);
}

/* One uid's connections leave room for another's (64 descriptors). */
static void test_share_connections(void **state)
{
	(void)state;
	need_root("sharing the descriptors");
	start(64, "--max-user-clients", "64", (const char *)NULL);
	share(user_connections, 64, user_few, 2);
}

/* As UID_A: three client connections launching children of this process
 * (the daemon holds a pidfd on each) in turn until a Launch is refused,
 * which must be BUSY for the descriptors, after at least 16; 0 when so.
 * The connections and children stay until the process ends. */
static int user_launches(int most)
{
	char why[200];
	int fd[3], n = 0, code = 0;

	for (int i = 0; i < 3; i++)
		if ((fd[i] = try_client(why, sizeof(why))) < 0)
			return 10 + i;
	while (n < most) {
		pid_t child = idle_child();

		if (child < 0)
			return 5;
		if ((code = launch(fd[n % 3], child, why, sizeof(why))) != 0)
			break;
		n++;
	}
	print_message("uid %d: %d launches, then: %s\n", UID_A, n, why);
	if (n == most)
		return 2;
	if (n < 16)
		return 3;
	return code == ASTEAL__ERROR_CODE__BUSY &&
	       strstr(why, "descriptors") != NULL ? 0 : 4;
}

/* As UID_B: a client connection launching n children; 0 when each is
 * launched. */
static int user_few_launches(int n)
{
	char why[200];
	int fd = try_client(why, sizeof(why)), code;

	if (fd < 0) {
		print_message("uid %d: refused: %s\n", UID_B, why);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		pid_t child = idle_child();

		if (child < 0)
			return 3;
		if ((code = launch(fd, child, why, sizeof(why))) != 0) {
			print_message("uid %d: launch %d refused: %s\n", UID_B, i + 1,
			              why);
			return 10 + i;
		}
	}
	return 0;
}

/* One uid's Launches, a pidfd each, leave room for another's (128
 * descriptors). */
static void test_share_launches(void **state)
{
	(void)state;
	need_root("sharing the descriptors");
	start(128, (const char *)NULL);
	share(user_launches, 3 * LAUNCH_MAX_PER_CONN, user_few_launches, 2);
}

/* ------------------------------------ what a Launch may name -- */

/* Launch pid from fd expecting code (0: launched); 0 when so, else
 * says what came. */
static int expect_launch(int fd, pid_t pid, int code, const char *what)
{
	char why[200];
	int got = launch(fd, pid, why, sizeof(why));

	if (got == code)
		return 0;
	print_message("launch of %s (pid %d): %d '%s', expected %d\n", what,
	              (int)pid, got, got == 0 ? "" : why, code);
	return -1;
}

/* A grandchild of this process (through an idle child, which prints its
 * pid on a pipe): its pid, or -1. */
static pid_t grandchild(void)
{
	int p[2];
	pid_t pid, g = -1;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		pid_t gc;

		close(p[0]);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
			_exit(1);
		gc = idle_child();
		if (write(p[1], &gc, sizeof(gc)) != (ssize_t)sizeof(gc))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &g, sizeof(g)) != (ssize_t)sizeof(g))
		g = -1;
	close(p[0]);
	return g;
}

/* A pid that names no process now (a child that exited, reaped). */
static pid_t gone_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

/* As UID_A: what it may name and may not; 0 when each answer is right,
 * else the number of the first wrong one. */
static int user_names(int unused)
{
	const int no = ASTEAL__ERROR_CODE__PERMISSION;
	char why[200];
	int fd = try_client(why, sizeof(why)), gone;

	(void)unused;
	if (fd < 0)
		return 1;
	if (expect_launch(fd, 1, no, "init") < 0)
		return 2;
	if (expect_launch(fd, getppid(), no, "root's test") < 0)
		return 3;
	if (expect_launch(fd, other_uid_pid, no, "another uid's") < 0)
		return 4;
	if (expect_launch(fd, same_uid_pid, no, "the same uid's, not started "
	                  "by the sender") < 0)
		return 5;
	gone = launch(fd, gone_pid(), why, sizeof(why));
	if (gone != ASTEAL__ERROR_CODE__NOT_FOUND && gone != no) {
		print_message("launch of a pid that has gone: %d %s\n", gone, why);
		return 6;
	}
	if (expect_launch(fd, getpid(), 0, "the sender itself") < 0)
		return 7;
	if (expect_launch(fd, idle_child(), 0, "a child") < 0)
		return 8;
	if (expect_launch(fd, grandchild(), 0, "a grandchild") < 0)
		return 9;
	return 0;
}

/* Waits for go, for other_uid_pid and same_uid_pid. */
static int idle_user(int unused)
{
	(void)unused;
	return 0;
}

/* A Launch names only a process of its sender's or one it started; root
 * names any. */
static void test_launch_names(void **state)
{
	pid_t a, b, b2;
	int ga, gb, gb2, fd;
	char why[200];

	(void)state;
	need_root("naming others' pids");
	start(0, (const char *)NULL);
	b = tdaemon_as_uid(UID_B, idle_user, 0, &gb);
	b2 = tdaemon_as_uid(UID_A, idle_user, 0, &gb2);
	other_uid_pid = b;
	same_uid_pid = b2;
	a = tdaemon_as_uid(UID_A, user_names, 0, &ga);
	assert_int_equal(tdaemon_finish_uid(a, ga), 0);
	fd = try_client(why, sizeof(why));
	assert_true(fd >= 0);
	assert_int_equal(expect_launch(fd, 1, 0, "init, by root"), 0);
	assert_int_equal(expect_launch(fd, b, 0, "another uid's, by root"), 0);
	close(fd);
	assert_int_equal(tdaemon_finish_uid(b, gb), 0);
	assert_int_equal(tdaemon_finish_uid(b2, gb2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_descriptors, stop),
		cmocka_unit_test_teardown(test_share_connections, stop),
		cmocka_unit_test_teardown(test_share_launches, stop),
		cmocka_unit_test_teardown(test_launch_names, stop),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
