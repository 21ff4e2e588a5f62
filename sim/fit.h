/*
 * fit.h - least-squares fits for the time experiments: y = sum_k c_k x_k
 * (no intercept, k <= 3) minimising the relative error sum ((y - yhat)/y)^2,
 * as the paper fits T = c1 T1/P + c_inf T_inf (section 4.2), with 95%
 * confidence intervals and R^2.
 */
#ifndef ASTEAL_SIM_FIT_H
#define ASTEAL_SIM_FIT_H

#define FIT_MAXK 3

struct fit_result {
	int n, k;
	double coef[FIT_MAXK];
	double se[FIT_MAXK];    /* standard errors */
	double ci[FIT_MAXK];    /* half-width of the 95% interval */
	double r2;              /* 1 - SS_res / SS_tot on y itself */
	double rel_rms;         /* root mean square relative error */
};

/* Fit y[i] ~ sum_k c_k x[k][i] over n points minimising relative error:
 * 0, or -1 when there are too few points or the system is singular. */
int fit_relative(const double *y, const double *const *x, int k, int n,
		 struct fit_result *out);

/* The two-sided 95% quantile of Student's t with nu degrees of freedom. */
double fit_t95(int nu);

#endif
