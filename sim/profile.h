/*
 * profile.h - availability profiles: the processors the profile-based job
 * scheduler makes available to a job, quantum by quantum (paper, 4.1).
 *
 *   uniform    each quantum independently uniform in [1, U], U = P, or
 *              2*mean - 1 (at most P) when a mean is asked for
 *   smooth     a random walk: each quantum's change is normal with standard
 *              deviation sigma (the paper: a standard normal), reflected
 *              into [1, P]; it starts at the mean (or uniform in [1, P])
 *   practical  P minus the processors in use on a simulated cluster of C
 *              processors (C = max(P, 512) unless set) running a stream of
 *              rigid jobs: Poisson arrivals, 30% serial jobs and the rest
 *              power-of-two sizes up to C/4, log-uniform run times of 1 to
 *              1000 quanta, first-come-first-served with backfilling; at
 *              most 16 jobs wait, and a job that waited 100 quanta leaves,
 *              so the cluster forgets its past within 1100 quanta and each
 *              profile starts (after 2000 quanta of warm-up) in the steady
 *              state.  The arrival rate is calibrated (bisection on a long
 *              run) so that the mean availability is the one asked for;
 *              values above P
 *              are chopped to P, as the paper did at P = 128.  This stands
 *              in for the paper's workload-archive traces, which are not
 *              reachable offline.
 *
 *   file       read from a file (--profile-file): one availability per
 *              line, one line per quantum, in order (format below); each
 *              job starts at the first line, and a job that outlives the
 *              file goes round it again from the first line.  Values above
 *              P are chopped to P, like the practical profiles'.
 *
 * The file format, read strictly: every line is either a comment, whose
 * first character other than spaces and tabs is '#', or one whole decimal
 * number in [1, 1000000] (digits only, spaces and tabs around it allowed);
 * anything else -- an empty line, a sign, a fraction, a trailing word, a
 * value out of range, no value at all -- is refused with the line's number.
 *
 * A profile is generated lazily (as long as the job runs) and is a pure
 * function of its kind, P, mean, options and seed: two thread schedulers
 * given the same arguments see the same availabilities.
 */
#ifndef ASTEAL_SIM_PROFILE_H
#define ASTEAL_SIM_PROFILE_H

#include "rng.h"

enum prof_kind { PROF_UNIFORM, PROF_SMOOTH, PROF_PRACTICAL, PROF_FILE };

#define PROF_NBUILTIN 3        /* the generated kinds, before PROF_FILE */
#define PROF_FILE_MAX 1000000  /* the largest availability a file may give */

/* Availabilities read from a file, one per quantum. */
struct prof_trace {
	int *v;
	long n;
};

struct prof_opts {
	double smooth_sigma;   /* smooth: step deviation (default 1) */
	int cluster;           /* practical: cluster size, 0 = max(P, 512) */
	const struct prof_trace *trace;   /* file: the availabilities */
};

struct prof_cjob {
	long end;      /* running: the quantum it ends; queued: its length */
	long arr;      /* queued: the quantum it arrived */
	int size;
};

struct profile {
	enum prof_kind kind;
	int P;
	int hi;                  /* uniform: upper end */
	double cur, sigma;       /* smooth */
	struct rng_state rng;
	/* practical: the cluster */
	int C, used;
	const struct prof_trace *trace;   /* file */
	long pos;                /* file: the next line's index */
	double lambda, next_arrival;
	long q;
	struct prof_cjob *run;   /* min-heap by end */
	int nrun, caprun;
	struct prof_cjob *queue; /* FIFO ring */
	int qhead, qlen, capq;
};

/* Default options. */
void prof_opts_default(struct prof_opts *o);

/* Start a profile of the given kind for P processors with the given mean
 * availability (<= 0: the kind's natural mean; a file's is its own).
 * Returns 0, or -1 with a reason in *why. */
int prof_init(struct profile *p, enum prof_kind kind, int P, double mean,
	      const struct prof_opts *o, uint64_t seed, const char **why);

/* The availability of the next quantum, in [1, P]. */
int prof_next(struct profile *p);

/* Free a profile's memory. */
void prof_free(struct profile *p);

/* A kind's name ("uniform", "smooth", "practical", "file"). */
const char *prof_kind_name(enum prof_kind k);

/* Parse a generated kind's name: 0, or -1. */
int prof_kind_parse(const char *s, enum prof_kind *k);

/* Read a profile file (format above) into t: 0, or -1 with the reason,
 * naming the line, in err (errlen bytes). */
int prof_trace_read(const char *path, struct prof_trace *t, char *err,
		    int errlen);

/* The mean availability a job on P processors sees over the whole file. */
double prof_trace_mean(const struct prof_trace *t, int P);

/* Free a file's availabilities. */
void prof_trace_free(struct prof_trace *t);

#endif
