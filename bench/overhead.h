/*
 * overhead.h - what the construct-overhead benchmarks share
 * (omp_overhead.c for OpenMP, spawncost.c for libasteal's own spawn and
 * sync): the delay body, its calibration, the clock, the choice of inner
 * repetitions, the statistics over outer repetitions and the output, so
 * that both print their costs in the same units and format.
 *
 * The method is the EPCC microbenchmarks' (syncbench, taskbench): a test
 * runs a construct INNER times around a delay body of fixed length; a
 * reference runs the same delays without the construct; the overhead of
 * one construct is (test - reference) / INNER.  Each outer repetition
 * times one test and one reference, back to back, and yields one
 * overhead; the median over the outer repetitions is the figure, their
 * interquartile range its spread.
 *
 * Output: a table on stdout (construct, overhead_us, spread_us), then one
 * line per construct for scripts (bench/omp.sh):
 *   overhead construct=NAME threads=N reps=R inner=I delay_us=D
 *            median_us=M spread_us=S min_us=A max_us=B
 *
 * C11, no OpenMP and no libasteal: each includer brings its runtime.
 */
#ifndef BENCH_OVERHEAD_H
#define BENCH_OVERHEAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The delay body's length, in microseconds (EPCC's default delay). */
#define OVH_DELAY_US 0.1
/* A test is repeated, doubling INNER, until it lasts this long (seconds). */
#define OVH_TARGET_S 0.010
/* INNER never grows past this (a construct that costs nothing). */
#define OVH_INNER_MAX (1L << 24)
/* At most this many outer repetitions. */
#define OVH_REPS_MAX 1000

/* The statistics of one construct's outer repetitions, in microseconds. */
struct ovh_stat {
	double median, spread, min, max;
};

/* Monotonic time in seconds. */
static inline double ovh_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The delay body: n dependent additions the compiler cannot remove. */
static __attribute__((noinline)) void ovh_delay(long n)
{
	long i, a = 0;

	for (i = 0; i < n; i++) {
		a += i;
		__asm__ volatile("" : "+r"(a));
	}
}

/* The iteration count of ovh_delay that lasts about us microseconds
 * (the fastest of a few timings of a long delay, so that a preempted one
 * does not count). */
static inline long ovh_calibrate(double us)
{
	const long n = 2000000;
	double best = 0;
	long iters;
	int k;

	for (k = 0; k < 5; k++) {
		double t0 = ovh_now(), t;

		ovh_delay(n);
		t = ovh_now() - t0;
		if (k == 0 || t < best)
			best = t;
	}
	iters = (long)(us * 1e-6 * (double)n / best + 0.5);
	return iters < 1 ? 1 : iters;
}

/* The fastest of three runs of test(inner, ctx), in seconds. */
static inline double ovh_fastest(double (*test)(long, void *), void *ctx,
                                 long inner)
{
	double best = test(inner, ctx);
	int k;

	for (k = 1; k < 3; k++) {
		double t = test(inner, ctx);

		if (t < best)
			best = t;
	}
	return best;
}

/* The INNER for which test(INNER, ctx) lasts at least OVH_TARGET_S,
 * doubling from unit (so a multiple of it), judged on the fastest of three
 * runs so that one preempted run does not stop the doubling early (and
 * running the construct warm). */
static inline long ovh_pick_inner(double (*test)(long, void *), void *ctx,
                                  long unit)
{
	long inner = unit;

	while (inner < OVH_INNER_MAX &&
	       ovh_fastest(test, ctx, inner) < OVH_TARGET_S)
		inner *= 2;
	return inner;
}

/* Order two doubles, for qsort. */
static int ovh_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The value at quantile q of the n sorted values v, interpolated. */
static inline double ovh_quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

/* Sort the n overheads v (microseconds) and fill *s from them. */
static inline void ovh_stats(double *v, int n, struct ovh_stat *s)
{
	qsort(v, (size_t)n, sizeof(*v), ovh_cmp);
	s->median = ovh_quantile(v, n, 0.5);
	s->spread = ovh_quantile(v, n, 0.75) - ovh_quantile(v, n, 0.25);
	s->min = v[0];
	s->max = v[n - 1];
}

/* Time one construct: reps outer repetitions of test and reference, each
 * INNER (chosen by ovh_pick_inner) constructs or delays long, and the
 * statistics of (test - reference) / (INNER * per) in microseconds, per
 * being the constructs one INNER repetition holds (per thread). */
static inline long ovh_measure(double (*test)(long, void *),
                               double (*ref)(long, void *), void *ctx,
                               long unit, double per, int reps,
                               struct ovh_stat *s)
{
	double v[OVH_REPS_MAX];
	long inner = ovh_pick_inner(test, ctx, unit);
	int r;

	for (r = 0; r < reps; r++) {
		double t = test(inner, ctx);
		double t0 = ref(inner, ctx);

		v[r] = (t - t0) * 1e6 / ((double)inner * per);
	}
	ovh_stats(v, reps, s);
	return inner;
}

/* The table's heading. */
static inline void ovh_print_head(const char *what, int threads, int reps,
                                  long delay_iters)
{
	printf("%s: %d threads, median of %d reps, delay body %.3f us (%ld iterations)\n",
	       what, threads, reps, OVH_DELAY_US, delay_iters);
	printf("%-12s %12s %10s\n", "construct", "overhead_us", "spread_us");
}

/* One row of the table. */
static inline void ovh_print_row(const char *name, const struct ovh_stat *s)
{
	printf("%-12s %12.4f %10.4f\n", name, s->median, s->spread);
	fflush(stdout);
}

/* One construct's line for scripts. */
static inline void ovh_print_line(const char *name, int threads, int reps,
                                  long inner, const struct ovh_stat *s)
{
	printf("overhead construct=%s threads=%d reps=%d inner=%ld delay_us=%.3f "
	       "median_us=%.4f spread_us=%.4f min_us=%.4f max_us=%.4f\n",
	       name, threads, reps, inner, OVH_DELAY_US, s->median, s->spread,
	       s->min, s->max);
}

/* Parse a whole decimal integer in [min, max] into *out; -1 on anything else. */
static inline int ovh_parse_int(const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return -1;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

#endif
