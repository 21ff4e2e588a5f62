/*
 * daemonutil.h - helpers for the tests that drive a real asteald over the
 * raw protocol: start one (ASTEAL_TEST_BUILD's binary) in a temporary
 * folder with its own socket, database and log, connect to it, read its
 * frames with a deadline, count its log lines, stop it.  Include after
 * cmocka.h (failures are cmocka's).
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

/* A job peer's usage totals, in the order of the Feedback's fields: work,
 * steal, mug, allotted (4-7), sleep, preempted (9, 10). */
#define TDAEMON_NUSE 6

/* Send a Feedback closing quantum q with this desire, usage totals tot
 * and class cls, as given (nothing checked); 0 or -1. */
static inline int tdaemon_feedback(int fd, uint64_t q, uint32_t desire,
                                   double real, const uint64_t tot[TDAEMON_NUSE],
                                   int cls)
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
	fb.sleep_ns = tot[4];
	fb.preempted_ns = tot[5];
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

#endif
