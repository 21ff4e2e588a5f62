/*
 * estimator.c - A-STEAL's desire estimator, exactly the paper's Fig. 1
 * (see estimator.h and docs/libasteal.md).
 */
#include <math.h>
#include <stddef.h>

#include "estimator.h"

/* Fill p with the paper's defaults and the given largest desire. */
void est_params_default(struct est_params *p, int max)
{
	p->delta = EST_DEFAULT_DELTA;
	p->rho = EST_DEFAULT_RHO;
	p->max = max;
}

/* Check the parameters, saying which is wrong. */
int est_params_check(const struct est_params *p, const char **why)
{
	if (!(p->delta > 0.0 && p->delta <= 1.0)) {
		*why = "delta must be in (0, 1]";
		return -1;
	}
	if (!(p->rho > 1.0 && p->rho <= 1000.0)) {
		*why = "rho must be in (1, 1000]";
		return -1;
	}
	if (p->max < 1) {
		*why = "the largest desire must be at least 1";
		return -1;
	}
	return 0;
}

/* d_1 = 1. */
double est_initial(void)
{
	return 1.0;
}

/*
 * How close a desire must be to a whole number to count as that number.  A
 * rise by rho and a fall by rho need not cancel in floating point (rho =
 * 1.2: 1 * 1.2 / 1.2 ... ends at 1.0000000000000007, which rounds up to 2),
 * and each step adds at most half an ulp of error.  Every desire the
 * estimator reaches is rho^k or max / rho^k, and a walk of either that
 * cancels out returns to its whole-numbered anchor (1 or max); below 2^20,
 * where an ulp is at most 2.3e-10, snapping to whole numbers within 1e-9
 * undoes the drift of any walk there and back, while a real desire that
 * close to a whole number, and not on it, would need a rho picked for it.
 * (The tolerance is absolute: a relative one would be coarser than the
 * spacing of rho^k among large desires.)
 */
#define EST_SNAP 1e-9

/* Keep a desire within [1, max], snapped to a whole number it is within
 * EST_SNAP of. */
static double clamp(const struct est_params *p, double d)
{
	double whole;

	if (!(d >= 1.0))        /* also catches NaN */
		return 1.0;
	if (d > (double)p->max)
		return (double)p->max;
	whole = nearbyint(d);
	if (fabs(d - whole) <= EST_SNAP)
		return whole;
	return d;
}

/* The reported desire: rounded up, within [1, max]. */
int est_report(const struct est_params *p, double desire)
{
	double d = ceil(clamp(p, desire));

	return (int)d;
}

/* One step of Fig. 1. */
double est_next(const struct est_params *p, const struct est_quantum *q,
		enum est_class *cls)
{
	double d = clamp(p, q->desire);
	enum est_class c;

	if (q->nonsteal < p->delta * q->allotted) {
		c = EST_INEFFICIENT;
		d = d / p->rho;
	} else if (q->allotment == est_report(p, d)) {
		c = EST_EFFICIENT_SATISFIED;
		d = d * p->rho;
	} else {
		c = EST_EFFICIENT_DEPRIVED;
	}
	if (cls != NULL)
		*cls = c;
	return clamp(p, d);
}

/* The class's name as traces and the history print it. */
const char *est_class_name(enum est_class cls)
{
	switch (cls) {
	case EST_INEFFICIENT:
		return "inefficient";
	case EST_EFFICIENT_SATISFIED:
		return "satisfied";
	case EST_EFFICIENT_DEPRIVED:
		return "deprived";
	default:
		return "?";
	}
}
