/*
 * testutil.h - helpers shared by the unit tests: sizes scaled down under
 * sanitizers, and waiting on a condition with a deadline (tests never sleep
 * and hope).
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qtime.h"

/* Divide a size by this under sanitizers (ASTEAL_TEST_SAN is set by
 * tests/run.sh): ASan about 3x, TSan about 10x slower. */
static inline long test_scale(long n, long asan_div, long tsan_div)
{
	const char *s = getenv("ASTEAL_TEST_SAN");

	if (s != NULL && strcmp(s, "asan") == 0)
		return n / asan_div > 0 ? n / asan_div : 1;
	if (s != NULL && strcmp(s, "tsan") == 0)
		return n / tsan_div > 0 ? n / tsan_div : 1;
	return n;
}

/* Whether this is a sanitizer build's run (smaller sizes then). */
static inline int test_sanitized(void)
{
	const char *s = getenv("ASTEAL_TEST_SAN");

	return s != NULL && *s != '\0';
}

/* Seconds on the monotonic clock. */
static inline double test_now(void)
{
	return (double)qtime_now_ns() * 1e-9;
}

/* Spin (yielding) until cond(arg) holds; 0 when it did, -1 after seconds. */
static inline int test_wait(int (*cond)(void *), void *arg, double seconds)
{
	double end = test_now() + seconds;

	while (!cond(arg)) {
		if (test_now() > end)
			return -1;
		sched_yield();
	}
	return 0;
}

/* Run child() in a forked process with its stderr captured into buf (size
 * len, NUL-terminated); returns the wait status, -1 if fork failed.
 * child() must end the process (exit, crash). */
static inline int test_in_child(void (*child)(void), char *buf, size_t len)
{
	int pipefd[2], status = -1;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pipefd[1], 2);
		child();
		_exit(99);
	}
	close(pipefd[1]);
	while (got + 1 < len &&
	       (n = read(pipefd[0], buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

#ifdef ASTEAL_H
/* A cmocka teardown: stop a runtime a failed test left running, so that
 * one failure does not cascade into the tests after it. */
static inline int test_stop_leftover(void **state)
{
	(void)state;
	if (asteal_workers() > 0)
		asteal_stop();
	return 0;
}
#endif

#endif
