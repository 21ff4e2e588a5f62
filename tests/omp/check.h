/*
 * check.h - what the OpenMP conformance programs of tests/omp share.
 *
 *   CHECK(cond, fmt, ...)   unless cond holds, print "FAIL <test>: <message>"
 *                           on stderr and end the program with status 1
 *   fail(fmt, ...)          the same, unconditionally
 *   WAIT_UNTIL(cond, fmt, ...)
 *                           spin until cond holds; fail after WAIT_SECONDS
 *                           (a bound on a wait for another thread, never a
 *                           check of how long something took)
 *   env_long(name, &v)      1 and the value when environment variable name
 *                           holds a whole number, 0 when it is unset
 *
 * <test> is the program's source file name without its extension.  The
 * first thread to fail prints; any other that fails meanwhile waits for
 * the process to end, so that there is one line.  Plain C11 (and C++):
 * only gcc's __atomic builtins, no <stdatomic.h>.
 */
#ifndef OMP_CHECK_H
#define OMP_CHECK_H

#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The bound of every wait for another thread: far past any honest wait. */
#define WAIT_SECONDS 10.0

/* The program's name: its main source file's base name without extension. */
static inline const char *test_name(void)
{
	static char name[64];

	if (!name[0]) {
		const char *s = strrchr(__BASE_FILE__, '/');
		s = s ? s + 1 : __BASE_FILE__;
		size_t n = strcspn(s, ".");
		if (n >= sizeof name)
			n = sizeof name - 1;
		memcpy(name, s, n);
		name[n] = '\0';
	}
	return name;
}

/* Print one FAIL line on stderr and end the process with status 1. */
__attribute__((format(printf, 1, 2), noreturn))
static inline void fail(const char *fmt, ...)
{
	static int failing;
	char msg[512];
	va_list ap;

	if (__atomic_exchange_n(&failing, 1, __ATOMIC_SEQ_CST))
		for (;;)
			pause();        /* the first failing thread ends us */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "FAIL %s: %s\n", test_name(), msg);
	_Exit(1);
}

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		if (!(cond))                                                \
			fail(__VA_ARGS__);                                  \
	} while (0)

#define WAIT_UNTIL(cond, ...)                                               \
	do {                                                                \
		double wait_end_ = omp_get_wtime() + WAIT_SECONDS;          \
		while (!(cond))                                             \
			if (omp_get_wtime() > wait_end_)                    \
				fail(__VA_ARGS__);                          \
	} while (0)

/* Read a whole number from the environment: 1 if set (and valid), else 0. */
static inline int env_long(const char *name, long *v)
{
	const char *s = getenv(name);
	char *end;

	if (!s || !*s)
		return 0;
	*v = strtol(s, &end, 0);
	if (*end)
		fail("environment %s='%s' is not a number", name, s);
	return 1;
}

/* Atomic helpers on int and long, for counters shared by threads. */
#define ATOMIC_ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define ATOMIC_LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define ATOMIC_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

#endif
