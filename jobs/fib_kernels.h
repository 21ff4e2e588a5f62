/*
 * fib_kernels.h - what the fib job and its OpenMP and oneTBB versions share:
 * argument parsing, the plain recursive fib of --serial, and the iterative
 * fib that checks every result.
 */
#ifndef JOBS_FIB_KERNELS_H
#define JOBS_FIB_KERNELS_H

#include <stdint.h>

#include "common.h"

#define FIB_MAX 92	/* fib(92) is the largest that fits in int64_t */
#define FIB_USAGE "N [--serial] [--workers W]   (0 <= N <= 92)"

/* Parse "N [--serial] [--workers W]" into *c and return N; exits 2 on bad arguments. */
static inline int fib_parse_args(const char *name, int argc, char **argv,
                                 job_common *c)
{
	return (int)job_parse_size(name, FIB_USAGE, argc, argv, 0, FIB_MAX, c);
}

/* The plain doubly recursive fib, the --serial baseline. */
static inline uint64_t fib_serial(int n)
{
	if (n < 2)
		return (uint64_t)n;
	return fib_serial(n - 1) + fib_serial(n - 2);
}

/* fib(n) by iteration, the reference every run is checked against. */
static inline uint64_t fib_iterative(int n)
{
	uint64_t a = 0, b = 1, t;
	int i;

	for (i = 0; i < n; i++) {
		t = a + b;
		a = b;
		b = t;
	}
	return a;
}

#endif
