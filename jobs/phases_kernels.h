/*
 * phases_kernels.h - what the phases job (jobs/phases.c) and its OpenMP and
 * oneTBB versions share: the shape of the run and its argument parsing,
 * the unit of work and the work loop of one phase slot, the iterations
 * (each serial phase on the calling thread, each parallel phase by the
 * version's runtime), the phase log, the closed-form expected result, and
 * the driver that times one run and checks it.
 *
 * A unit is PH_UNIT_STEPS steps of a 64-bit linear congruential generator
 * from a seed that depends on (iteration, phase slot, unit).  The result is
 * the sum of every unit's output (mod 2^64).  A unit is an affine map
 * x -> M*x + A of its seed (M and A being PH_UNIT_STEPS LCG steps
 * composed), so the expected sum has a closed form, M * (sum of all seeds)
 * + (number of units) * A, which checks that every unit ran exactly once
 * without redoing the work.
 *
 * The work loop calls PH_POLL() after every unit: an includer whose
 * runtime acts at safe points in leaf code defines it before including
 * this header (phases.c: asteal_poll()); by default it does nothing.
 *
 * This header is C11 and C++17 alike.
 */
#ifndef JOBS_PHASES_KERNELS_H
#define JOBS_PHASES_KERNELS_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "qtime.h"

#ifndef PH_POLL
#define PH_POLL() ((void)0)
#endif

#define PH_USAGE "ITERATIONS [--w1 US] [--w2 US] [--h H] [--phase-log FILE] [--serial]\n" \
	"  [--workers W]\n" \
	"  ITERATIONS 1..1000000; --w1: serial units (us) per iteration, default 40000;\n" \
	"  --w2: units per parallel task, default 8000; --h: tasks per parallel phase\n" \
	"  (1..1000000), default 16; W1 and W2 in 0..10000000; --phase-log: write\n" \
	"  \"serial NS\", \"parallel NS\" as each phase starts, \"end NS\" after the last"
#define PH_MAX_ITERATIONS 1000000L
#define PH_MAX_UNITS 10000000L
#define PH_MAX_H 1000000L
#define PH_UNIT_STEPS 640	/* LCG steps in one unit: about 1 us */
#define PH_LCG_MUL UINT64_C(6364136223846793005)
#define PH_LCG_ADD UINT64_C(1442695040888963407)

/* The shape of the run. */
struct ph_params {
	long iterations;
	long w1;	/* units of each serial phase */
	long w2;	/* units of each parallel task */
	long h;		/* tasks of each parallel phase */
	FILE *log;	/* --phase-log, or NULL */
};

/* One parallel phase: the tasks of iteration `iter` write partial[task]. */
struct ph_phase {
	const struct ph_params *p;
	long iter;
	uint64_t *partial;
};

/* The whole run: its shape, scratch for the partial sums, and the result. */
struct ph_run {
	const struct ph_params *p;
	uint64_t *partial;
	uint64_t sum;
	int failed;	/* the version's runtime could not run a phase */
};

/* The splitmix64 step: a well mixed 64-bit function of x. */
static inline uint64_t ph_mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* The seed of unit `unit` of slot `slot` (0: the serial phase, 1 + t: task t) of iteration iter. */
static inline uint64_t ph_seed(long iter, long slot, long unit)
{
	return ph_mix(ph_mix(ph_mix((uint64_t)iter) + (uint64_t)slot) +
	              (uint64_t)unit);
}

/* One unit of work: PH_UNIT_STEPS dependent LCG steps from seed x. */
static inline uint64_t ph_unit(uint64_t x)
{
	int i;

	for (i = 0; i < PH_UNIT_STEPS; i++)
		x = x * PH_LCG_MUL + PH_LCG_ADD;
	return x;
}

/* Run the units of one slot of one iteration and return the sum of their outputs. */
static inline uint64_t ph_work(long iter, long slot, long units)
{
	uint64_t sum = 0;
	long u;

	for (u = 0; u < units; u++) {
		sum += ph_unit(ph_seed(iter, slot, u));
		PH_POLL();
	}
	return sum;
}

/* The body of a parallel phase (a struct ph_phase at arg): run tasks [lo, hi). */
static inline void ph_tasks(long lo, long hi, void *arg)
{
	struct ph_phase *ph = (struct ph_phase *)arg;
	long t;

	for (t = lo; t < hi; t++)
		ph->partial[t] = ph_work(ph->iter, 1 + t, ph->p->w2);
}

/* The sum of the partial sums of a parallel phase. */
static inline uint64_t ph_sum_partials(const struct ph_run *r)
{
	uint64_t sum = 0;
	long t;

	for (t = 0; t < r->p->h; t++)
		sum += r->partial[t];
	return sum;
}

/* Note the start of a phase in log, if any. */
static inline void ph_log(FILE *log, const char *what)
{
	if (log != NULL)
		fprintf(log, "%s %llu\n", what, (unsigned long long)qtime_now_ns());
}

/* A version's parallel phase: ph_tasks over [0, ph->p->h); 0, or -1 when it failed. */
typedef int ph_phase_fn(struct ph_phase *ph);

/* Every iteration: its serial phase on the calling thread, then its
 * parallel phase by run_phase, each noted in log as it starts (NULL: no
 * log), and "end" after the last; the result in r->sum.  Returns 0, or -1
 * as soon as run_phase fails. */
static inline int ph_iterate(struct ph_run *r, FILE *log,
                             ph_phase_fn *run_phase)
{
	struct ph_phase ph = { r->p, 0, r->partial };

	r->sum = 0;
	for (ph.iter = 0; ph.iter < r->p->iterations; ph.iter++) {
		ph_log(log, "serial");
		r->sum += ph_work(ph.iter, 0, r->p->w1);
		ph_log(log, "parallel");
		if (run_phase(&ph) < 0)
			return -1;
		r->sum += ph_sum_partials(r);
	}
	ph_log(log, "end");
	return 0;
}

/* The parallel phase of --serial: the tasks one after the other. */
static inline int ph_phase_serial(struct ph_phase *ph)
{
	ph_tasks(0, ph->p->h, ph);
	return 0;
}

/* The expected result in closed form: a unit maps its seed s to M*s + A. */
static inline uint64_t ph_expected(const struct ph_params *p)
{
	uint64_t mul = 1, add = 0, seeds = 0, units;
	long iter, t, u;
	int i;

	for (i = 0; i < PH_UNIT_STEPS; i++) {
		mul *= PH_LCG_MUL;
		add = add * PH_LCG_MUL + PH_LCG_ADD;
	}
	for (iter = 0; iter < p->iterations; iter++) {
		for (u = 0; u < p->w1; u++)
			seeds += ph_seed(iter, 0, u);
		for (t = 0; t < p->h; t++)
			for (u = 0; u < p->w2; u++)
				seeds += ph_seed(iter, 1 + t, u);
	}
	units = (uint64_t)p->iterations *
	        ((uint64_t)p->w1 + (uint64_t)p->h * (uint64_t)p->w2);
	return mul * seeds + units * add;
}

/* Parse the value of the flag at argv[i] in [min, max] into *out; exits 2 when it is bad. */
static inline void ph_flag(const char *name, int argc, char **argv, int i,
                           long min, long max, long *out)
{
	if (i + 1 >= argc || job_parse_long(argv[i + 1], min, max, out) < 0)
		job_usage(name, PH_USAGE);
}

/* Parse the common flags into *c, then ITERATIONS and the job flags into *p
 * (opening the --phase-log); exits 2 when they are bad. */
static inline void ph_parse_args(const char *name, int argc, char **argv,
                                 job_common *c, struct ph_params *p)
{
	int i, have = 0;

	argc = job_parse_common(name, PH_USAGE, argc, argv, c);
	p->w1 = 40000;
	p->w2 = 8000;
	p->h = 16;
	p->log = NULL;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--w1") == 0) {
			ph_flag(name, argc, argv, i++, 0, PH_MAX_UNITS, &p->w1);
		} else if (strcmp(argv[i], "--w2") == 0) {
			ph_flag(name, argc, argv, i++, 0, PH_MAX_UNITS, &p->w2);
		} else if (strcmp(argv[i], "--h") == 0) {
			ph_flag(name, argc, argv, i++, 1, PH_MAX_H, &p->h);
		} else if (strcmp(argv[i], "--phase-log") == 0) {
			if (i + 1 >= argc || p->log != NULL)
				job_usage(name, PH_USAGE);
			p->log = fopen(argv[++i], "w");
			if (p->log == NULL) {
				perror(argv[i]);
				exit(JOB_EXIT_USAGE);
			}
		} else {
			if (have || job_parse_long(argv[i], 1, PH_MAX_ITERATIONS,
			                           &p->iterations) < 0)
				job_usage(name, PH_USAGE);
			have = 1;
		}
	}
	if (!have)
		job_usage(name, PH_USAGE);
}

/* A version's whole run in parallel: ph_iterate with its parallel phase,
 * logged in r->p->log; exits 1 when its runtime fails. */
typedef void ph_par_fn(struct ph_run *r);

/* Run the job (by par unless c->serial; --serial writes no phase log),
 * time it, check it, print the result line, close the phase log and
 * return the exit status (1 too when the log could not be written). */
static inline int ph_run_job(const char *name, const struct ph_params *p,
                             const job_common *c, ph_par_fn *par)
{
	struct ph_run r = { p, (uint64_t *)calloc((size_t)p->h, sizeof(uint64_t)), 0, 0 };
	char size[32], result[32];
	double t0, t1;
	int rc;

	if (r.partial == NULL) {
		fprintf(stderr, "%s: out of memory\n", name);
		exit(JOB_EXIT_WRONG);
	}
	t0 = job_now();
	if (c->serial)
		ph_iterate(&r, NULL, ph_phase_serial);
	else
		par(&r);
	t1 = job_now();
	snprintf(size, sizeof(size), "%ld", p->iterations);
	snprintf(result, sizeof(result), "%016" PRIx64, r.sum);
	rc = job_report(name, size, result, c, t1 - t0, r.sum == ph_expected(p));
	free(r.partial);
	if (p->log != NULL && fclose(p->log) != 0) {
		fprintf(stderr, "%s: --phase-log: %s\n", name, strerror(errno));
		rc = rc ? rc : JOB_EXIT_WRONG;
	}
	return rc;
}

#endif
