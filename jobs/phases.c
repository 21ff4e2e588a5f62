/*
 * phases.c - the synthetic job of the A-STEAL paper (its Fig. 2): a run of
 * ITERATIONS iterations, each a serial phase of W1 units of work followed
 * by a parallel phase of H tasks of W2 units each.  Its parallelism thus
 * swings between 1 and H, which is what an adaptive scheduler must follow.
 *
 * A unit is PH_UNIT_STEPS steps of a 64-bit linear congruential generator
 * from a seed that depends on (iteration, phase slot, unit), about one
 * microsecond of CPU on the development machine (measured once, 1.55 ns a
 * step; hard-coded so that results stay deterministic).  Leaf code calls
 * asteal_poll() after every unit.  The result is the sum of every unit's
 * output (mod 2^64).  A unit is an affine map x -> M*x + A of its seed
 * (M and A being PH_UNIT_STEPS LCG steps composed), so the expected sum
 * has a closed form, M * (sum of all seeds) + (number of units) * A, which
 * checks that every unit ran exactly once without redoing the work.
 *
 *   phases ITERATIONS [--w1 US] [--w2 US] [--h H] [--phase-log FILE]
 *          [--serial] [--workers W]
 *
 * --phase-log FILE writes one line as each phase starts, "serial NS" or
 * "parallel NS", and "end NS" after the last, NS on the quanta's clock
 * (CLOCK_MONOTONIC, proto/qtime.h), so that a test can line the phases up
 * with the quanta of an ASTEAL_TRACE.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asteal.h"
#include "common.h"
#include "qtime.h"

#define NAME "phases"
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
	int failed;	/* asteal_for failed */
};

/* The splitmix64 step: a well mixed 64-bit function of x. */
static uint64_t ph_mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* The seed of unit `unit` of slot `slot` (0: the serial phase, 1 + t: task t) of iteration iter. */
static uint64_t ph_seed(long iter, long slot, long unit)
{
	return ph_mix(ph_mix(ph_mix((uint64_t)iter) + (uint64_t)slot) +
	              (uint64_t)unit);
}

/* One unit of work: PH_UNIT_STEPS dependent LCG steps from seed x. */
static uint64_t ph_unit(uint64_t x)
{
	int i;

	for (i = 0; i < PH_UNIT_STEPS; i++)
		x = x * PH_LCG_MUL + PH_LCG_ADD;
	return x;
}

/* Run the units of one slot of one iteration and return the sum of their outputs. */
static uint64_t ph_work(long iter, long slot, long units)
{
	uint64_t sum = 0;
	long u;

	for (u = 0; u < units; u++) {
		sum += ph_unit(ph_seed(iter, slot, u));
		asteal_poll();
	}
	return sum;
}

/* The body of a parallel phase: run tasks [lo, hi). */
static void ph_tasks(long lo, long hi, void *arg)
{
	struct ph_phase *ph = arg;
	long t;

	for (t = lo; t < hi; t++)
		ph->partial[t] = ph_work(ph->iter, 1 + t, ph->p->w2);
}

/* The sum of the partial sums of a parallel phase. */
static uint64_t ph_sum_partials(const struct ph_run *r)
{
	uint64_t sum = 0;
	long t;

	for (t = 0; t < r->p->h; t++)
		sum += r->partial[t];
	return sum;
}

/* The whole job, serially (--serial). */
static void ph_serial(struct ph_run *r)
{
	struct ph_phase ph = { r->p, 0, r->partial };

	r->sum = 0;
	for (ph.iter = 0; ph.iter < r->p->iterations; ph.iter++) {
		r->sum += ph_work(ph.iter, 0, r->p->w1);
		ph_tasks(0, r->p->h, &ph);
		r->sum += ph_sum_partials(r);
	}
}

/* Note the start of a phase in the phase log, if any. */
static void ph_log(const struct ph_params *p, const char *what)
{
	if (p->log != NULL)
		fprintf(p->log, "%s %llu\n", what, (unsigned long long)qtime_now_ns());
}

/* The root task: each iteration's serial phase, then its h tasks by asteal_for with grain 1. */
static void ph_root(void *arg)
{
	struct ph_run *r = arg;
	struct ph_phase ph = { r->p, 0, r->partial };

	r->sum = 0;
	for (ph.iter = 0; ph.iter < r->p->iterations; ph.iter++) {
		ph_log(r->p, "serial");
		r->sum += ph_work(ph.iter, 0, r->p->w1);
		ph_log(r->p, "parallel");
		if (asteal_for(0, r->p->h, 1, ph_tasks, &ph) < 0) {
			r->failed = 1;
			return;
		}
		r->sum += ph_sum_partials(r);
	}
	ph_log(r->p, "end");
}

/* The expected result in closed form: a unit maps its seed s to M*s + A. */
static uint64_t ph_expected(const struct ph_params *p)
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
static void ph_flag(int argc, char **argv, int i, long min, long max,
                    long *out)
{
	if (i + 1 >= argc || job_parse_long(argv[i + 1], min, max, out) < 0)
		job_usage(NAME, PH_USAGE);
}

/* Parse ITERATIONS and the job flags (after the common ones) into *p; exits 2 when they are bad. */
static void ph_parse(int argc, char **argv, struct ph_params *p)
{
	int i, have = 0;

	p->w1 = 40000;
	p->w2 = 8000;
	p->h = 16;
	p->log = NULL;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--w1") == 0) {
			ph_flag(argc, argv, i++, 0, PH_MAX_UNITS, &p->w1);
		} else if (strcmp(argv[i], "--w2") == 0) {
			ph_flag(argc, argv, i++, 0, PH_MAX_UNITS, &p->w2);
		} else if (strcmp(argv[i], "--h") == 0) {
			ph_flag(argc, argv, i++, 1, PH_MAX_H, &p->h);
		} else if (strcmp(argv[i], "--phase-log") == 0) {
			if (i + 1 >= argc || p->log != NULL)
				job_usage(NAME, PH_USAGE);
			p->log = fopen(argv[++i], "w");
			if (p->log == NULL) {
				perror(argv[i]);
				exit(JOB_EXIT_USAGE);
			}
		} else {
			if (have || job_parse_long(argv[i], 1, PH_MAX_ITERATIONS,
			                           &p->iterations) < 0)
				job_usage(NAME, PH_USAGE);
			have = 1;
		}
	}
	if (!have)
		job_usage(NAME, PH_USAGE);
}

/* Run the job in the mode of c, time it, check it, report it and return the exit status. */
static int ph_main(const struct ph_params *p, job_common *c)
{
	struct ph_run r = { p, calloc((size_t)p->h, sizeof(uint64_t)), 0, 0 };
	char size[32], result[32];
	double t0, t1;
	int rc;

	if (r.partial == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		exit(JOB_EXIT_WRONG);
	}
	t0 = job_now();
	if (c->serial)
		ph_serial(&r);
	else if (asteal_run(ph_root, &r) < 0 || r.failed) {
		perror(NAME ": asteal_run");
		exit(JOB_EXIT_WRONG);
	}
	t1 = job_now();
	snprintf(size, sizeof(size), "%ld", p->iterations);
	snprintf(result, sizeof(result), "%016" PRIx64, r.sum);
	rc = job_report(NAME, size, result, c, t1 - t0, r.sum == ph_expected(p));
	free(r.partial);
	return rc;
}

/* Parse the arguments, start the runtime, run the phases and report. */
int main(int argc, char **argv)
{
	struct ph_params p;
	job_common c;
	int rc;

	argc = job_parse_common(NAME, PH_USAGE, argc, argv, &c);
	ph_parse(argc, argv, &p);
	job_runtime_start(NAME, &c);
	rc = ph_main(&p, &c);
	job_runtime_stop(&c);
	if (p.log != NULL && fclose(p.log) != 0) {
		perror(NAME ": --phase-log");
		rc = rc ? rc : JOB_EXIT_WRONG;
	}
	return rc;
}
