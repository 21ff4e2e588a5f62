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
 * A profile is generated lazily (as long as the job runs) and is a pure
 * function of its kind, P, mean, options and seed: two thread schedulers
 * given the same arguments see the same availabilities.
 */
#ifndef ASTEAL_SIM_PROFILE_H
#define ASTEAL_SIM_PROFILE_H

#include "rng.h"

enum prof_kind { PROF_UNIFORM, PROF_SMOOTH, PROF_PRACTICAL, PROF_NKINDS };

struct prof_opts {
	double smooth_sigma;   /* smooth: step deviation (default 1) */
	int cluster;           /* practical: cluster size, 0 = max(P, 512) */
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
 * availability (<= 0: the kind's natural mean).  Returns 0, or -1 with a
 * reason in *why. */
int prof_init(struct profile *p, enum prof_kind kind, int P, double mean,
	      const struct prof_opts *o, uint64_t seed, const char **why);

/* The availability of the next quantum, in [1, P]. */
int prof_next(struct profile *p);

/* Free a profile's memory. */
void prof_free(struct profile *p);

/* A kind's name ("uniform", "smooth", "practical"). */
const char *prof_kind_name(enum prof_kind k);

/* Parse a kind's name: 0, or -1. */
int prof_kind_parse(const char *s, enum prof_kind *k);

#endif
