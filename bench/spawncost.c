/*
 * spawncost.c (bench) - what libasteal charges for a spawn and its sync,
 * measured as omp_overhead.c measures an OpenMP task (overhead.h): one
 * task spawns a child whose body is the tiny delay and syncs at once,
 * INNER times, less INNER delays as plain calls, over several outer
 * repetitions.  The other workers are free to steal the child, as the
 * rest of an OpenMP team is free to run the task.  bench/omp.sh sets the
 * OpenMP task's cost against this one (the layer's goal: within 2x).
 *
 *   asteal-spawncost [--workers N] [--reps R]
 *
 * N: workers (default: ASTEAL_WORKERS, else all CPUs); R: outer
 * repetitions (default 15).  Prints the construct "spawn" in
 * omp_overhead's table and line format.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "asteal.h"
#include "overhead.h"

static long delay_iters;	/* ovh_delay's argument: OVH_DELAY_US */

/* What the root task measures and what it found. */
struct spawn_run {
	int reps;
	long inner;
	struct ovh_stat st;
};

/* The child: one delay. */
static void child(void *arg)
{
	(void)arg;
	ovh_delay(delay_iters);
}

/* spawn: INNER children of one delay, each synced at once (inside a task). */
static double test_spawn(long inner, void *ctx)
{
	double t0 = ovh_now();
	long j;

	(void)ctx;
	for (j = 0; j < inner; j++) {
		asteal_group g;

		asteal_group_init(&g);
		asteal_spawn(&g, child, NULL);
		asteal_sync(&g);
	}
	return ovh_now() - t0;
}

/* The reference: INNER delays as plain calls (inside the same task). */
static double ref_calls(long inner, void *ctx)
{
	double t0 = ovh_now();
	long j;

	(void)ctx;
	for (j = 0; j < inner; j++)
		ovh_delay(delay_iters);
	return ovh_now() - t0;
}

/* The root task: time the spawn against its reference. */
static void root(void *arg)
{
	struct spawn_run *r = arg;

	r->inner = ovh_measure(test_spawn, ref_calls, NULL, 1, 1, r->reps,
	                       &r->st);
}

/* Print the usage line on stderr and exit 2. */
static void usage(void)
{
	fprintf(stderr, "usage: asteal-spawncost [--workers N] [--reps R]\n");
	exit(2);
}

/* Parse the arguments, start the runtime, time spawn and sync and print the table and the line. */
int main(int argc, char **argv)
{
	struct spawn_run r = { 15, 0, { 0, 0, 0, 0 } };
	asteal_options o;
	int i, workers = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
			if (ovh_parse_int(argv[++i], 1, 4096, &workers) < 0)
				usage();
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			if (ovh_parse_int(argv[++i], 1, OVH_REPS_MAX, &r.reps) < 0)
				usage();
		} else {
			usage();
		}
	}
	asteal_options_init(&o);
	o.workers = workers;
	if (asteal_start(&o) < 0) {
		fprintf(stderr, "asteal-spawncost: cannot start the runtime: %s\n",
		        strerror(errno));
		return 1;
	}
	delay_iters = ovh_calibrate(OVH_DELAY_US);
	ovh_print_head("asteal-spawncost", asteal_workers(), r.reps, delay_iters);
	if (asteal_run(root, &r) < 0) {
		perror("asteal-spawncost: asteal_run");
		return 1;
	}
	ovh_print_row("spawn", &r.st);
	ovh_print_line("spawn", asteal_workers(), r.reps, r.inner, &r.st);
	if (asteal_stop() < 0)
		perror("asteal-spawncost: asteal_stop");
	return 0;
}
