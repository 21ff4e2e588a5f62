/*
 * estimator.h - A-STEAL's desire estimator (the paper's Fig. 1) as a pure
 * module: no state of its own, no clock, no allocation.  libasteal calls it
 * once per quantum; asteal-sim links the same object.
 *
 * Desire is a real number kept within [1, max] (max = the job's worker
 * count in libasteal, P in the simulator).  What a job reports, and what
 * "satisfied" compares the allotment with, is est_report(): the desire
 * rounded up and clamped to [1, max].  A desire within 1e-9 of a whole
 * number is that number, so that a rise by rho and a fall by rho
 * cancel for every rho and the reported desire never drifts.
 */
#ifndef ASTEAL_ESTIMATOR_H
#define ASTEAL_ESTIMATOR_H

#define EST_DEFAULT_DELTA 0.8
#define EST_DEFAULT_RHO 1.5

/* The class of a finished quantum. */
enum est_class {
	EST_INEFFICIENT,
	EST_EFFICIENT_SATISFIED,
	EST_EFFICIENT_DEPRIVED,
	EST_NCLASSES
};

struct est_params {
	double delta;   /* utilization threshold, 0 < delta <= 1 */
	double rho;     /* responsiveness, rho > 1 */
	int max;        /* the largest desire (worker count, or P) */
};

/* What one quantum measured. */
struct est_quantum {
	double desire;     /* d_{q-1}, the real desire the quantum ran with */
	int allotment;     /* a_{q-1}, processors actually allotted */
	double nonsteal;   /* n_{q-1}: work + mug time over allotted workers */
	double allotted;   /* allotted time: L * a_{q-1}, or the measured sum */
};

/* Fill p with the defaults (delta 0.8, rho 1.5) and the given max. */
void est_params_default(struct est_params *p, int max);

/* Check p: returns 0, or -1 with a reason in *why (a static string). */
int est_params_check(const struct est_params *p, const char **why);

/* The first quantum's desire: d_1 = 1. */
double est_initial(void);

/* The next desire d_q after quantum q-1 (Fig. 1); its class in *cls when
 * cls is not NULL.  Inefficient: n < delta * allotted; otherwise satisfied
 * when a_{q-1} equals est_report(d_{q-1}), else deprived. */
double est_next(const struct est_params *p, const struct est_quantum *q,
		enum est_class *cls);

/* The desire a job reports: ceil(desire), at least 1, at most p->max. */
int est_report(const struct est_params *p, double desire);

/* A short name for a class ("inefficient", "satisfied", "deprived"). */
const char *est_class_name(enum est_class cls);

#endif
