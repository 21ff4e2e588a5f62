/*
 * main.c - asteal-sim's command line: parse the subcommand and options,
 * check them, and hand over to the experiment.  Bad arguments give a clear
 * message and exit status 2; `asteal-sim --help` lists everything.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp.h"

static const char usage_text[] =
"usage: asteal-sim COMMAND [OPTIONS]\n"
"\n"
"A discrete-time simulator of two-level adaptive scheduling (A-STEAL paper,\n"
"section 4): unit-time steps, quanta of L steps, A-STEAL and ABP work\n"
"stealing, profile-based, EQ and DEQ job schedulers.  Every experiment\n"
"writes CSV files and an SVG plot under --out and ends its output with one\n"
"line of key=value figures.\n"
"\n"
"commands:\n"
"  time         many job runs; fit T ~ c1*T1/P~ + cinf*Tinf (trimmed\n"
"               availability) and T ~ c1*T1/Pbar + cinf*Tinf (paper 4.2)\n"
"  waste        waste/work for delta = 0.5..1.0, and waste against\n"
"               parallelism (paper 4.3)\n"
"  time-waste   A-STEAL against ABP on the same practical profiles\n"
"               (paper 4.4)\n"
"  utilization  jobs arriving over time on P processors: A-STEAL+DEQ\n"
"               against ABP+EQ, utilization per interval (paper 4.5)\n"
"  run          one job on one profile, with an optional per-quantum trace\n"
"\n"
"general options:\n"
"  --out DIR           output folder (default sim-out; created)\n"
"  --seed N            random seed (default 1); runs are deterministic\n"
"  --quick             small sizes (seconds)\n"
"  --threads N         run independent job runs on N threads (default 1;\n"
"                      results do not depend on N)\n"
"  --quantum L         quantum length in steps (default 200)\n"
"  --delta D           A-STEAL utilization parameter (default 0.8)\n"
"  --rho R             A-STEAL responsiveness parameter (default 1.5)\n"
"  --procs P           processors in the machine (1..1024)\n"
"  --mean-avail A      mean availability of the profiles\n"
"  --jobs N            job runs (time, waste, time-waste)\n"
"  --abp-preempted HOW ABP: the node a process was running when it was\n"
"                      preempted stays with it, and a thief whose throw\n"
"                      finds that process's deque empty yields its\n"
"                      processor to it, which resumes the node (yieldto,\n"
"                      default); the node waits for the process to be\n"
"                      scheduled again (stuck: plain yield); or it goes on\n"
"                      top of the deque, where thieves can steal it\n"
"                      (stealable)\n"
"\n"
"profiles:\n"
"  --profile KIND      uniform, smooth or practical: run and time-waste\n"
"                      (default practical); time and waste (default: a\n"
"                      third of the runs each)\n"
"  --profile-file FILE every job's profile, read from FILE: one\n"
"                      availability (a whole number >= 1) per line, one\n"
"                      line per quantum, '#' lines are comments; a job\n"
"                      starts at the first line and goes round the file\n"
"                      again if it outlives it; values above P count as P\n"
"                      (time, waste, time-waste, run, utilization)\n"
"  --smooth-sigma S    smooth profiles: deviation of a quantum's change (1)\n"
"  --cluster C         practical profiles: the simulated cluster's size\n"
"                      (default max(P, 512))\n"
"\n"
"jobs (fixed where given, sampled otherwise):\n"
"  --dag KIND          phases (paper Fig. 2), forkjoin or mixed\n"
"  --w1 N --w2 N --h N --iters N\n"
"                      phases: serial phase, parallel phase length and\n"
"                      width, iterations; --w1 and --w2 also take a range\n"
"                      LO:HI to sample from, log-uniformly (defaults\n"
"                      100:2000 and 200:4000; in a spawn loop w2 >= 4h)\n"
"  --spawn HOW         phases: spawn the h branches from a serial loop\n"
"                      (loop, default) or by binary splitting (split)\n"
"  --fj-depth N --fj-branch N --fj-work N --fj-spawn P\n"
"                      forkjoin: nesting depth, segments per procedure,\n"
"                      nodes per segment, probability a segment spawns\n"
"\n"
"run and time:\n"
"  --sched KIND        asteal or abp (default asteal)\n"
"  --trace FILE        write one CSV line per quantum to FILE\n"
"\n"
"utilization:\n"
"  --steps N           simulated steps (default 1000000; --quick 100000)\n"
"  --interarrival N    mean steps between job arrivals (default 1000)\n"
"  --dist D            parallelism/span distributions: U, HT1 or HT2 each,\n"
"                      e.g. U/U (default), HT1/HT1, HT2/U\n"
"  --interval N        steps per utilization point (default 2000)\n"
"\n"
"  -h, --help          this text\n";

/* Complain about the arguments ("what 'arg'", or just what) and exit 2. */
_Noreturn static void bad_usage(const char *what, const char *arg)
{
	if (arg)
		fprintf(stderr, "asteal-sim: %s '%s'\n", what, arg);
	else
		fprintf(stderr, "asteal-sim: %s\n", what);
	fprintf(stderr, "Try 'asteal-sim --help'.\n");
	exit(2);
}

/* A whole decimal integer in [lo, hi] from an option's argument. */
static long parse_long(const char *name, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < lo || v > hi) {
		char msg[160];

		snprintf(msg, sizeof(msg), "--%s wants an integer in [%ld, %ld], not",
			 name, lo, hi);
		bad_usage(msg, s);
	}
	return v;
}

/* A finite number in [lo, hi] from an option's argument. */
static double parse_double(const char *name, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !isfinite(v) || v < lo || v > hi) {
		char msg[160];

		snprintf(msg, sizeof(msg), "--%s wants a number in [%g, %g], not",
			 name, lo, hi);
		bad_usage(msg, s);
	}
	return v;
}

/* A phase length N, or a range LO:HI (lo <= LO <= HI) for the sampler:
 * 1 for a range, 0 for one value (then *plo = *phi = N). */
static int parse_len(const char *name, const char *s, long lo, long *plo,
		     long *phi)
{
	const char *colon = strchr(s, ':');
	char buf[64];

	if (colon == NULL) {
		*plo = *phi = parse_long(name, s, lo, 100000000);
		return 0;
	}
	if ((size_t)(colon - s) >= sizeof(buf))
		bad_usage("a phase length range is LO:HI, not", s);
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = '\0';
	*plo = parse_long(name, buf, lo > 1 ? lo : 1, 100000000);
	*phi = parse_long(name, colon + 1, *plo, 100000000);
	return 1;
}

enum {
	O_OUT = 256, O_SEED, O_QUICK, O_THREADS, O_QUANTUM, O_DELTA, O_RHO,
	O_PROCS, O_MEAN, O_JOBS, O_PROFILE, O_SIGMA, O_CLUSTER, O_DAG, O_W1,
	O_W2, O_H, O_ITERS, O_FJDEPTH, O_FJBRANCH, O_FJWORK, O_FJSPAWN,
	O_SCHED, O_TRACE, O_STEPS, O_INTERARRIVAL, O_DIST, O_INTERVAL,
	O_ABPSTEAL, O_SPAWN, O_PROFILE_FILE,
};

static const struct option long_opts[] = {
	{ "out", required_argument, NULL, O_OUT },
	{ "seed", required_argument, NULL, O_SEED },
	{ "quick", no_argument, NULL, O_QUICK },
	{ "threads", required_argument, NULL, O_THREADS },
	{ "quantum", required_argument, NULL, O_QUANTUM },
	{ "delta", required_argument, NULL, O_DELTA },
	{ "rho", required_argument, NULL, O_RHO },
	{ "procs", required_argument, NULL, O_PROCS },
	{ "mean-avail", required_argument, NULL, O_MEAN },
	{ "jobs", required_argument, NULL, O_JOBS },
	{ "profile", required_argument, NULL, O_PROFILE },
	{ "smooth-sigma", required_argument, NULL, O_SIGMA },
	{ "cluster", required_argument, NULL, O_CLUSTER },
	{ "dag", required_argument, NULL, O_DAG },
	{ "w1", required_argument, NULL, O_W1 },
	{ "w2", required_argument, NULL, O_W2 },
	{ "h", required_argument, NULL, O_H },
	{ "iters", required_argument, NULL, O_ITERS },
	{ "fj-depth", required_argument, NULL, O_FJDEPTH },
	{ "fj-branch", required_argument, NULL, O_FJBRANCH },
	{ "fj-work", required_argument, NULL, O_FJWORK },
	{ "fj-spawn", required_argument, NULL, O_FJSPAWN },
	{ "sched", required_argument, NULL, O_SCHED },
	{ "trace", required_argument, NULL, O_TRACE },
	{ "steps", required_argument, NULL, O_STEPS },
	{ "interarrival", required_argument, NULL, O_INTERARRIVAL },
	{ "dist", required_argument, NULL, O_DIST },
	{ "interval", required_argument, NULL, O_INTERVAL },
	{ "abp-preempted", required_argument, NULL, O_ABPSTEAL },
	{ "spawn", required_argument, NULL, O_SPAWN },
	{ "profile-file", required_argument, NULL, O_PROFILE_FILE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Apply one parsed option. */
static void set_option(struct sim_opts *o, int c, const char *a)
{
	switch (c) {
	case O_OUT:
		if (*a == '\0')
			bad_usage("--out wants a folder", NULL);
		o->out = a;
		break;
	case O_SEED:
		o->seed = (uint64_t)parse_long("seed", a, 0, 0x7fffffffffffffffL);
		break;
	case O_QUICK:
		o->quick = 1;
		break;
	case O_THREADS:
		o->threads = (int)parse_long("threads", a, 1, 64);
		break;
	case O_QUANTUM:
		o->L = parse_long("quantum", a, 1, 1000000);
		break;
	case O_DELTA:
		o->delta = parse_double("delta", a, 0.01, 1.0);
		break;
	case O_RHO:
		o->rho = parse_double("rho", a, 1.001, 1000);
		break;
	case O_PROCS:
		o->procs = (int)parse_long("procs", a, 1, 1024);
		break;
	case O_MEAN:
		o->mean_avail = parse_double("mean-avail", a, 1, 1024);
		break;
	case O_JOBS:
		o->jobs = (int)parse_long("jobs", a, 1, 1000000);
		break;
	case O_PROFILE:
		if (prof_kind_parse(a, &o->profile) < 0)
			bad_usage("--profile wants uniform, smooth or practical, not", a);
		o->profile_set = 1;
		break;
	case O_PROFILE_FILE:
		if (*a == '\0')
			bad_usage("--profile-file wants a file", NULL);
		o->profile_file = a;
		break;
	case O_SIGMA:
		o->popts.smooth_sigma = parse_double("smooth-sigma", a, 0, 1e6);
		break;
	case O_CLUSTER:
		o->popts.cluster = (int)parse_long("cluster", a, 1, 1000000);
		break;
	case O_DAG:
		if (strcmp(a, "phases") == 0)
			o->dag = EXP_DAG_PHASES;
		else if (strcmp(a, "forkjoin") == 0)
			o->dag = EXP_DAG_FORKJOIN;
		else if (strcmp(a, "mixed") == 0)
			o->dag = EXP_DAG_MIXED;
		else
			bad_usage("--dag wants phases, forkjoin or mixed, not", a);
		break;
	case O_W1:
		if (parse_len("w1", a, 0, &o->w1_lo, &o->w1_hi)) {
			o->w1 = -1;
			o->w_ranged |= 1;
		} else {
			o->w1 = o->w1_lo;
			o->w_ranged &= ~1;
		}
		break;
	case O_W2:
		if (parse_len("w2", a, 1, &o->w2_lo, &o->w2_hi)) {
			o->w2 = -1;
			o->w_ranged |= 2;
		} else {
			o->w2 = o->w2_lo;
			o->w_ranged &= ~2;
		}
		break;
	case O_H:
		o->h = parse_long("h", a, 1, 1000000);
		break;
	case O_ITERS:
		o->iters = parse_long("iters", a, 1, 1000000);
		break;
	case O_FJDEPTH:
		o->fj_depth = (int)parse_long("fj-depth", a, 0, 40);
		break;
	case O_FJBRANCH:
		o->fj_branch = (int)parse_long("fj-branch", a, 1, 64);
		break;
	case O_FJWORK:
		o->fj_work = parse_long("fj-work", a, 1, 100000000);
		break;
	case O_FJSPAWN:
		o->fj_spawn = parse_double("fj-spawn", a, 0, 1);
		break;
	case O_SCHED:
		if (strcmp(a, "asteal") == 0)
			o->sched = STEAL_ASTEAL;
		else if (strcmp(a, "abp") == 0)
			o->sched = STEAL_ABP;
		else
			bad_usage("--sched wants asteal or abp, not", a);
		break;
	case O_SPAWN:
		if (strcmp(a, "split") == 0)
			o->loop = 0;
		else if (strcmp(a, "loop") == 0)
			o->loop = 1;
		else
			bad_usage("--spawn wants split or loop, not", a);
		break;
	case O_ABPSTEAL:
		if (steal_abp_parse(a, &o->abp_preempted) < 0)
			bad_usage("--abp-preempted wants stealable, stuck or yieldto, not", a);
		break;
	case O_TRACE:
		o->trace = a;
		break;
	case O_STEPS:
		o->steps = parse_long("steps", a, 1, 1000000000L);
		break;
	case O_INTERARRIVAL:
		o->interarrival = parse_double("interarrival", a, 1, 1e9);
		break;
	case O_DIST:
		o->dist = a;
		break;
	case O_INTERVAL:
		o->interval = parse_long("interval", a, 1, 1000000000L);
		break;
	default:
		exit(2);   /* getopt has printed the problem */
	}
}

/* Read --profile-file into trace for every profile of the run: 0, or -1
 * after saying why (a bad file, or options it excludes). */
static int load_profile(struct sim_opts *o, struct prof_trace *trace)
{
	char err[4200];

	if (o->profile_set || o->mean_avail > 0) {
		fprintf(stderr, "asteal-sim: --profile-file gives the profile and its "
			"mean: no --profile or --mean-avail with it\n");
		return -1;
	}
	if (prof_trace_read(o->profile_file, trace, err, sizeof(err)) < 0) {
		fprintf(stderr, "asteal-sim: --profile-file %s\n", err);
		return -1;
	}
	o->popts.trace = trace;
	return 0;
}

/* Parse the command line, run the subcommand, return the exit status. */
int main(int argc, char **argv)
{
	struct sim_opts o;
	struct prof_trace trace = { 0 };
	int c, rc;

	exp_opts_default(&o);
	if (argc < 2) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		fputs(usage_text, stdout);
		return 0;
	}
	o.cmd = argv[1];
	if (o.cmd[0] == '-')
		bad_usage("the first argument must be a command, not", o.cmd);
	if (strcmp(o.cmd, "run") == 0)
		exp_run_defaults(&o);
	opterr = 0;
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if (c == '?') {
			bad_usage("unknown option, or one missing its value:",
				  argv[optind - 1]);
		}
		set_option(&o, c, optarg);
	}
	if (optind < argc)
		bad_usage("unexpected argument", argv[optind]);
	if (o.profile_file && load_profile(&o, &trace) < 0)
		return 2;
	if (strcmp(o.cmd, "time") == 0)
		rc = exp_time(&o);
	else if (strcmp(o.cmd, "waste") == 0)
		rc = exp_waste(&o);
	else if (strcmp(o.cmd, "time-waste") == 0)
		rc = exp_time_waste(&o);
	else if (strcmp(o.cmd, "utilization") == 0)
		rc = exp_utilization(&o);
	else if (strcmp(o.cmd, "run") == 0)
		rc = exp_run(&o);
	else
		bad_usage("unknown command (time, waste, time-waste, utilization, run):", o.cmd);
	prof_trace_free(&trace);
	return rc;
}
