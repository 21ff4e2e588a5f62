/*
 * matmul_kernels.h - what the matmul job (jobs/matmul.c) and its OpenMP and
 * oneTBB versions share: argument parsing, the inputs, the serial kernel,
 * the split of a product that every version's recursion follows, the
 * whole recursion run serially for --serial, the check, and the driver
 * that times one product and checks it.
 *
 * This header is C11 and C++17 alike.
 */
#ifndef JOBS_MATMUL_KERNELS_H
#define JOBS_MATMUL_KERNELS_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MM_MAX 8192
#define MM_USAGE "N [--serial] [--workers W]   (1 <= N <= 8192)"
#define MM_BLOCK 32		/* serial kernel when no dimension exceeds this */
#define MM_FULL_CHECK 512	/* largest N checked against the whole product */
#define MM_SAMPLES 4096		/* entries checked one by one above that */

/* C's restrict, which C++ spells as an extension. */
#ifdef __cplusplus
#define MM_RESTRICT __restrict__
#else
#define MM_RESTRICT restrict
#endif

/* Parse "N [--serial] [--workers W]" into *c and return N; exits 2 on bad arguments. */
static inline size_t mm_parse_args(const char *name, int argc, char **argv,
                                   job_common *c)
{
	return (size_t)job_parse_size(name, MM_USAGE, argc, argv, 1, MM_MAX, c);
}

/* One product: c[m x n] += a[m x k] * b[k x n], each row-major with its leading dimension. */
struct mm_arg {
	const double *a;
	const double *b;
	double *c;
	size_t m, n, k;
	size_t lda, ldb, ldc;
};

/* How a product is split by mm_split. */
enum mm_split_kind {
	MM_LEAF,	/* small enough for the kernel */
	MM_PARALLEL,	/* two independent halves (rows or columns) */
	MM_SERIAL	/* two halves of the inner dimension, first then second */
};

/* The splitmix64 step: a well mixed 64-bit function of x. */
static inline uint64_t mm_mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* Fill the n x n matrix x with integers in [-8, 8] drawn from seed. */
static inline void mm_fill(double *x, size_t n, uint64_t seed)
{
	size_t i;

	for (i = 0; i < n * n; i++)
		x[i] = (double)(int)(mm_mix(seed + i) % 17) - 8.0;
}

/* The serial kernel: c += a * b by the i-p-j loop. */
static inline void mm_kernel(const struct mm_arg *p)
{
	size_t i, j, q;
	double aiq;

	for (i = 0; i < p->m; i++) {
		double *MM_RESTRICT ci = p->c + i * p->ldc;

		for (q = 0; q < p->k; q++) {
			const double *MM_RESTRICT bq = p->b + q * p->ldb;

			aiq = p->a[i * p->lda + q];
			for (j = 0; j < p->n; j++)
				ci[j] += aiq * bq[j];
		}
	}
}

/* Split p along its largest dimension into x and y, and say how they may run. */
static inline enum mm_split_kind mm_split(const struct mm_arg *p,
                                          struct mm_arg *x, struct mm_arg *y)
{
	size_t h;

	if (p->m <= MM_BLOCK && p->n <= MM_BLOCK && p->k <= MM_BLOCK)
		return MM_LEAF;
	*x = *p;
	*y = *p;
	if (p->m >= p->n && p->m >= p->k) {
		h = p->m / 2;
		x->m = h;
		y->m = p->m - h;
		y->a += h * p->lda;
		y->c += h * p->ldc;
		return MM_PARALLEL;
	}
	if (p->n >= p->k) {
		h = p->n / 2;
		x->n = h;
		y->n = p->n - h;
		y->b += h;
		y->c += h;
		return MM_PARALLEL;
	}
	h = p->k / 2;
	x->k = h;
	y->k = p->k - h;
	y->a += h;
	y->b += h * p->ldb;
	return MM_SERIAL;
}

/* The recursion run serially (--serial). */
static inline void mm_serial(const struct mm_arg *p)
{
	struct mm_arg x, y;

	if (mm_split(p, &x, &y) == MM_LEAF) {
		mm_kernel(p);
		return;
	}
	mm_serial(&x);
	mm_serial(&y);
}

/* Entry (i, j) of a * b for n x n matrices, by one dot product. */
static inline double mm_entry(const double *a, const double *b, size_t n,
                              size_t i, size_t j)
{
	double s = 0.0;
	size_t q;

	for (q = 0; q < n; q++)
		s += a[i * n + q] * b[q * n + j];
	return s;
}

/* Whether c is exactly a * b, by the whole product (small n) or sampled entries. */
static inline int mm_check_entries(const double *a, const double *b,
                                   const double *c, size_t n)
{
	struct mm_arg ref = { a, b, NULL, n, n, n, n, n, n };
	size_t s, i, j;
	double *d;
	int ok;

	if (n > MM_FULL_CHECK) {
		for (s = 0; s < MM_SAMPLES; s++) {
			i = (size_t)(mm_mix(3 * s + 1) % n);
			j = (size_t)(mm_mix(3 * s + 2) % n);
			if (c[i * n + j] != mm_entry(a, b, n, i, j))
				return 0;
		}
		return 1;
	}
	d = (double *)calloc(n * n, sizeof(double));
	if (d == NULL)
		return 0;
	ref.c = d;
	mm_kernel(&ref);
	ok = memcmp(c, d, n * n * sizeof(double)) == 0;
	free(d);
	return ok;
}

/* The sum of every entry of the n x n matrix c (exact: all are small integers). */
static inline int64_t mm_total(const double *c, size_t n)
{
	int64_t t = 0;
	size_t i;

	for (i = 0; i < n * n; i++)
		t += (int64_t)c[i];
	return t;
}

/* The sum of every entry of a * b, from the column sums of a and row sums of b. */
static inline int64_t mm_expected_total(const double *a, const double *b,
                                        size_t n)
{
	int64_t t = 0, ca, rb;
	size_t i, q;

	for (q = 0; q < n; q++) {
		ca = 0;
		rb = 0;
		for (i = 0; i < n; i++) {
			ca += (int64_t)a[i * n + q];
			rb += (int64_t)b[q * n + i];
		}
		t += ca * rb;
	}
	return t;
}

/* A version's whole product in parallel, root->c += root->a * root->b;
 * exits 1 when its runtime fails. */
typedef void mm_par_fn(struct mm_arg *root);

/* Multiply the job's inputs of size n (by par unless c->serial), time the
 * product alone, check it, print the result line and return the exit status. */
static inline int mm_run_job(const char *name, size_t n, const job_common *c,
                             mm_par_fn *par)
{
	double *a = (double *)malloc(n * n * sizeof(double));
	double *b = (double *)malloc(n * n * sizeof(double));
	double *prod = (double *)calloc(n * n, sizeof(double));
	struct mm_arg root = { a, b, prod, n, n, n, n, n, n };
	char size[32], result[32];
	int64_t total;
	double t0, t1;
	int ok;

	if (a == NULL || b == NULL || prod == NULL) {
		fprintf(stderr, "%s: out of memory for N = %zu\n", name, n);
		exit(JOB_EXIT_WRONG);
	}
	mm_fill(a, n, UINT64_C(0xa000000000));
	mm_fill(b, n, UINT64_C(0xb000000000));
	t0 = job_now();
	if (c->serial)
		mm_serial(&root);
	else
		par(&root);
	t1 = job_now();
	total = mm_total(prod, n);
	ok = total == mm_expected_total(a, b, n) &&
	     mm_check_entries(a, b, prod, n);
	snprintf(size, sizeof(size), "%zu", n);
	snprintf(result, sizeof(result), "%" PRId64, total);
	free(a);
	free(b);
	free(prod);
	return job_report(name, size, result, c, t1 - t0, ok);
}

#endif
