/*
 * fit.c - relative-error least squares with confidence intervals (see
 * fit.h): the normal equations of the scaled problem 1 ~ sum_k c_k x_k/y,
 * solved by Gauss-Jordan elimination with partial pivoting.
 */
#include <math.h>
#include <string.h>

#include "fit.h"

/* The two-sided 95% quantile of Student's t (a close series for nu >= 3,
 * a table below). */
double fit_t95(int nu)
{
	static const double small[] = { 0, 12.706, 4.303, 3.182 };

	if (nu < 1)
		return NAN;
	if (nu <= 3)
		return small[nu];
	double v = nu;

	return 1.959964 + 2.372 / v + 2.82 / (v * v) + 2.55 / (v * v * v);
}

/* Invert the k x k matrix a in place: 0, or -1 when singular. */
static int invert(double a[FIT_MAXK][FIT_MAXK], int k)
{
	double inv[FIT_MAXK][FIT_MAXK] = { { 0 } };

	for (int i = 0; i < k; i++)
		inv[i][i] = 1;
	for (int c = 0; c < k; c++) {
		int p = c;

		for (int r = c + 1; r < k; r++)
			if (fabs(a[r][c]) > fabs(a[p][c]))
				p = r;
		if (fabs(a[p][c]) < 1e-300)
			return -1;
		for (int m = 0; m < k; m++) {
			double t = a[c][m];

			a[c][m] = a[p][m];
			a[p][m] = t;
			t = inv[c][m];
			inv[c][m] = inv[p][m];
			inv[p][m] = t;
		}
		double piv = a[c][c];

		for (int m = 0; m < k; m++) {
			a[c][m] /= piv;
			inv[c][m] /= piv;
		}
		for (int r = 0; r < k; r++) {
			if (r == c)
				continue;
			double f = a[r][c];

			for (int m = 0; m < k; m++) {
				a[r][m] -= f * a[c][m];
				inv[r][m] -= f * inv[c][m];
			}
		}
	}
	memcpy(a, inv, sizeof(inv));
	return 0;
}

/* Fit y ~ sum_k c_k x_k minimising relative error (see fit.h). */
int fit_relative(const double *y, const double *const *x, int k, int n,
		 struct fit_result *out)
{
	double a[FIT_MAXK][FIT_MAXK] = { { 0 } }, b[FIT_MAXK] = { 0 };
	double ss_rel = 0, ss_res = 0, ss_tot = 0, mean = 0;

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->k = k;
	if (k < 1 || k > FIT_MAXK || n <= k)
		return -1;
	for (int i = 0; i < n; i++) {
		double u[FIT_MAXK];

		if (!(y[i] > 0))
			return -1;
		for (int m = 0; m < k; m++)
			u[m] = x[m][i] / y[i];
		for (int r = 0; r < k; r++) {
			b[r] += u[r];
			for (int m = 0; m < k; m++)
				a[r][m] += u[r] * u[m];
		}
		mean += y[i];
	}
	mean /= n;
	if (invert(a, k) < 0)
		return -1;
	for (int r = 0; r < k; r++) {
		out->coef[r] = 0;
		for (int m = 0; m < k; m++)
			out->coef[r] += a[r][m] * b[m];
	}
	for (int i = 0; i < n; i++) {
		double yh = 0;

		for (int m = 0; m < k; m++)
			yh += out->coef[m] * x[m][i];
		ss_rel += (1 - yh / y[i]) * (1 - yh / y[i]);
		ss_res += (y[i] - yh) * (y[i] - yh);
		ss_tot += (y[i] - mean) * (y[i] - mean);
	}
	double s2 = ss_rel / (n - k), t = fit_t95(n - k);

	for (int r = 0; r < k; r++) {
		out->se[r] = sqrt(s2 * a[r][r]);
		out->ci[r] = t * out->se[r];
	}
	out->r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
	out->rel_rms = sqrt(ss_rel / n);
	return 0;
}
