/*
 * omp_overhead.c - what the OpenMP runtime charges per construct, by the
 * EPCC microbenchmarks' method (syncbench, taskbench; written here from
 * scratch, see overhead.h): a construct repeated INNER times around a
 * tiny delay body, less a reference loop of the same delays without it,
 * over several outer repetitions.  Whichever libgomp-compatible runtime
 * the dynamic linker finds serves it (bench/omp.sh runs it on libgomp,
 * LLVM's libomp and asteal's layer).
 *
 *   omp_overhead [--threads N] [--reps R] [--only NAME]
 *
 * N: team size (default: omp_get_max_threads(), OMP_NUM_THREADS or all
 * CPUs); R: outer repetitions (default 15); NAME: one construct of
 *
 *   parallel   a parallel region entered and left (reference: the delay
 *              on one thread)
 *   barrier    a barrier (reference: the team's delays without it)
 *   single     a single construct, its implied barrier included
 *   critical   a critical section, entered by every thread in turn
 *   dynamic    one chunk of a schedule(dynamic, 1) loop of 16 chunks per
 *              thread (reference: each thread's 16 delays and a barrier)
 *   task       a task made by one thread (in a single) and waited for at
 *              once with taskwait; the rest of the team is free to run it
 *   task_all   the same, every thread making its own tasks
 *
 * Each is charged per construct as one thread sees it: wall time over
 * the constructs one thread passes (for critical, over all of them, since
 * they run one at a time).
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "overhead.h"

/* Chunks per thread in one dynamic loop. */
#define DYN_CHUNKS 16

static int nthr;		/* team size */
static long delay_iters;	/* ovh_delay's argument: OVH_DELAY_US */

/* parallel: INNER regions, each thread delaying once in each. */
static double test_parallel(long inner, void *ctx)
{
	double t0 = ovh_now();
	long j;

	(void)ctx;
	for (j = 0; j < inner; j++) {
#pragma omp parallel
		ovh_delay(delay_iters);
	}
	return ovh_now() - t0;
}

/* The reference of parallel: INNER delays on this thread. */
static double ref_serial(long inner, void *ctx)
{
	double t0 = ovh_now();
	long j;

	(void)ctx;
	for (j = 0; j < inner; j++)
		ovh_delay(delay_iters);
	return ovh_now() - t0;
}

/* The team's reference: one region in which every thread delays INNER times. */
static double ref_team(long inner, void *ctx)
{
	double t0 = ovh_now();

	(void)ctx;
#pragma omp parallel
	for (long j = 0; j < inner; j++)
		ovh_delay(delay_iters);
	return ovh_now() - t0;
}

/* The reference of single, critical and task: one thread of the team
 * delays INNER times while the others wait at the single's barrier. */
static double ref_single(long inner, void *ctx)
{
	double t0 = ovh_now();

	(void)ctx;
#pragma omp parallel
#pragma omp single
	for (long j = 0; j < inner; j++)
		ovh_delay(delay_iters);
	return ovh_now() - t0;
}

/* barrier: every thread delays and meets the others, INNER times. */
static double test_barrier(long inner, void *ctx)
{
	double t0 = ovh_now();

	(void)ctx;
#pragma omp parallel
	for (long j = 0; j < inner; j++) {
		ovh_delay(delay_iters);
#pragma omp barrier
	}
	return ovh_now() - t0;
}

/* single: INNER single constructs, each one delay. */
static double test_single(long inner, void *ctx)
{
	double t0 = ovh_now();

	(void)ctx;
#pragma omp parallel
	for (long j = 0; j < inner; j++) {
#pragma omp single
		ovh_delay(delay_iters);
	}
	return ovh_now() - t0;
}

/* critical: INNER critical sections in all, each one delay, shared out
 * among the threads. */
static double test_critical(long inner, void *ctx)
{
	double t0 = ovh_now();

	(void)ctx;
#pragma omp parallel
	{
		long mine = inner / omp_get_num_threads();

		for (long j = 0; j < mine; j++) {
#pragma omp critical
			ovh_delay(delay_iters);
		}
	}
	return ovh_now() - t0;
}

/* dynamic: INNER loops of DYN_CHUNKS chunks of one delay per thread. */
static double test_dynamic(long inner, void *ctx)
{
	double t0 = ovh_now();

	(void)ctx;
#pragma omp parallel
	{
		long n = (long)omp_get_num_threads() * DYN_CHUNKS;

		for (long j = 0; j < inner; j++) {
#pragma omp for schedule(dynamic, 1)
			for (long i = 0; i < n; i++)
				ovh_delay(delay_iters);
		}
	}
	return ovh_now() - t0;
}

/* The reference of dynamic: each thread's share of the delays and the
 * loop's closing barrier, INNER times. */
static double ref_dynamic(long inner, void *ctx)
{
	double t0 = ovh_now();

	(void)ctx;
#pragma omp parallel
	for (long j = 0; j < inner; j++) {
		for (long i = 0; i < DYN_CHUNKS; i++)
			ovh_delay(delay_iters);
#pragma omp barrier
	}
	return ovh_now() - t0;
}

/* task: one thread makes INNER tasks of one delay, each waited for at once. */
static double test_task(long inner, void *ctx)
{
	double t0 = ovh_now();

	(void)ctx;
#pragma omp parallel
#pragma omp single
	for (long j = 0; j < inner; j++) {
#pragma omp task
		ovh_delay(delay_iters);
#pragma omp taskwait
	}
	return ovh_now() - t0;
}

/* task_all: every thread makes INNER tasks of one delay, each waited for at once. */
static double test_task_all(long inner, void *ctx)
{
	double t0 = ovh_now();

	(void)ctx;
#pragma omp parallel
	for (long j = 0; j < inner; j++) {
#pragma omp task
		ovh_delay(delay_iters);
#pragma omp taskwait
	}
	return ovh_now() - t0;
}

/* One construct: its name, test, reference and the constructs one INNER
 * repetition charges (per thread; critical's INNER counts them all). */
struct construct {
	const char *name;
	double (*test)(long, void *);
	double (*ref)(long, void *);
	double per;
};

static const struct construct constructs[] = {
	{ "parallel", test_parallel, ref_serial, 1 },
	{ "barrier", test_barrier, ref_team, 1 },
	{ "single", test_single, ref_single, 1 },
	{ "critical", test_critical, ref_single, 1 },
	{ "dynamic", test_dynamic, ref_dynamic, DYN_CHUNKS },
	{ "task", test_task, ref_single, 1 },
	{ "task_all", test_task_all, ref_team, 1 },
};
#define NCONSTRUCTS (sizeof(constructs) / sizeof(constructs[0]))

/* Print the usage line on stderr and exit 2. */
static void usage(void)
{
	size_t i;

	fprintf(stderr, "usage: omp_overhead [--threads N] [--reps R] [--only NAME]\n"
	        "  NAME:");
	for (i = 0; i < NCONSTRUCTS; i++)
		fprintf(stderr, " %s", constructs[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

/* Parse the arguments, time each construct asked for and print the table and the lines. */
int main(int argc, char **argv)
{
	struct ovh_stat st[NCONSTRUCTS];
	long inner[NCONSTRUCTS];
	const char *only = NULL;
	int reps = 15, i, found = 0;
	size_t c;

	nthr = omp_get_max_threads();
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
			if (ovh_parse_int(argv[++i], 1, 4096, &nthr) < 0)
				usage();
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			if (ovh_parse_int(argv[++i], 1, OVH_REPS_MAX, &reps) < 0)
				usage();
		} else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
			only = argv[++i];
		} else {
			usage();
		}
	}
	for (c = 0; c < NCONSTRUCTS; c++)
		if (only == NULL || strcmp(only, constructs[c].name) == 0)
			found = 1;
	if (!found)
		usage();
	omp_set_dynamic(0);
	omp_set_num_threads(nthr);
#pragma omp parallel
	(void)0;	/* start the team's threads */
	delay_iters = ovh_calibrate(OVH_DELAY_US);
	ovh_print_head("omp_overhead", nthr, reps, delay_iters);
	for (c = 0; c < NCONSTRUCTS; c++) {
		const struct construct *k = &constructs[c];

		if (only != NULL && strcmp(only, k->name) != 0)
			continue;
		/* critical hands INNER out among the threads: a multiple of them. */
		inner[c] = ovh_measure(k->test, k->ref, NULL, nthr, k->per,
		                       reps, &st[c]);
		ovh_print_row(k->name, &st[c]);
	}
	for (c = 0; c < NCONSTRUCTS; c++)
		if (only == NULL || strcmp(only, constructs[c].name) == 0)
			ovh_print_line(constructs[c].name, nthr, reps, inner[c],
			               &st[c]);
	return 0;
}
