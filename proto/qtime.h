/*
 * qtime.h - the clock every process of the machine shares: quanta are
 * defined on CLOCK_MONOTONIC, and asteald, libasteal, the command line, the
 * jobs, the tests and the benchmarks all read it here, the same way.  The
 * wall clock is for instants that are recorded or shown as dates (the
 * history's times).
 *
 * Header-only: each call is one clock_gettime, through the vDSO (no
 * system call), but for the threads' CPU clocks (qtime_cpu_ns).  Needs
 * _POSIX_C_SOURCE >= 199309L, as the whole tree is built with _GNU_SOURCE.
 */
#ifndef ASTEAL_QTIME_H
#define ASTEAL_QTIME_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on CLOCK_MONOTONIC: since an arbitrary start (boot), never
 * stepped back, and the same in every process of the machine. */
static inline uint64_t qtime_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds since the Unix epoch on CLOCK_REALTIME (which may jump when
 * the system's time is set). */
static inline uint64_t qtime_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds a thread has run, on its CPU clock c (CLOCK_THREAD_CPUTIME_ID
 * for the calling thread, pthread_getcpuclockid for another) into *ns; -1
 * when it cannot be read (the thread has ended).  Unlike the two above, a
 * system call: read it where state changes, never per task. */
static inline int qtime_cpu_ns(clockid_t c, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(c, &ts) < 0)
		return -1;
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return 0;
}

#endif
