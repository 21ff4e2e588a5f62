/*
 * test_estimator.c - the desire estimator against the paper's Fig. 1: every
 * branch, the rounding of the reported desire, Lemma 4's bound, and bad
 * parameters.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "estimator.h"

static struct est_params params(int max)
{
	struct est_params p;

	est_params_default(&p, max);
	return p;
}

/* One quantum of length L with allotment a and usage n (time units). */
static struct est_quantum quantum(double d, int a, double n, double L)
{
	struct est_quantum q = { d, a, n, L * a };
	return q;
}

static void test_defaults(void **state)
{
	struct est_params p = params(8);
	const char *why = NULL;

	(void)state;
	assert_true(p.delta == 0.8 && p.rho == 1.5 && p.max == 8);
	assert_int_equal(est_params_check(&p, &why), 0);
	assert_true(est_initial() == 1.0);
}

/* n < delta * L * a: inefficient, desire divided by rho. */
static void test_inefficient(void **state)
{
	struct est_params p = params(16);
	struct est_quantum q = quantum(6.0, 6, 0.79 * 100 * 6, 100);
	enum est_class c = EST_NCLASSES;

	(void)state;
	assert_true(fabs(est_next(&p, &q, &c) - 4.0) < 1e-12);
	assert_int_equal(c, EST_INEFFICIENT);
	/* also when deprived: inefficiency is tested first */
	q = quantum(6.0, 2, 0.5 * 100 * 2, 100);
	assert_true(fabs(est_next(&p, &q, &c) - 4.0) < 1e-12);
	assert_int_equal(c, EST_INEFFICIENT);
}

/* Efficient and allotted the reported desire: desire times rho. */
static void test_satisfied(void **state)
{
	struct est_params p = params(16);
	struct est_quantum q = quantum(4.0, 4, 0.8 * 100 * 4, 100);  /* n = δLa */
	enum est_class c = EST_NCLASSES;

	(void)state;
	assert_true(fabs(est_next(&p, &q, &c) - 6.0) < 1e-12);
	assert_int_equal(c, EST_EFFICIENT_SATISFIED);
	/* a real desire of 2.25 is reported as 3: an allotment of 3 satisfies */
	q = quantum(2.25, 3, 300, 100);
	assert_true(fabs(est_next(&p, &q, &c) - 3.375) < 1e-12);
	assert_int_equal(c, EST_EFFICIENT_SATISFIED);
}

/* Efficient but allotted less: desire unchanged. */
static void test_deprived(void **state)
{
	struct est_params p = params(16);
	struct est_quantum q = quantum(6.0, 3, 300, 100);
	enum est_class c = EST_NCLASSES;

	(void)state;
	assert_true(fabs(est_next(&p, &q, &c) - 6.0) < 1e-12);
	assert_int_equal(c, EST_EFFICIENT_DEPRIVED);
	/* no processor at all (the job's turn did not come): deprived */
	q = quantum(6.0, 0, 0, 100);
	assert_true(fabs(est_next(&p, &q, &c) - 6.0) < 1e-12);
	assert_int_equal(c, EST_EFFICIENT_DEPRIVED);
}

/* Reported desire: ceil, at least 1, at most max. */
static void test_report(void **state)
{
	struct est_params p = params(8);

	(void)state;
	assert_int_equal(est_report(&p, 1.0), 1);
	assert_int_equal(est_report(&p, 1.0000001), 2);
	assert_int_equal(est_report(&p, 2.25), 3);
	assert_int_equal(est_report(&p, 3.0), 3);
	assert_int_equal(est_report(&p, 0.3), 1);
	assert_int_equal(est_report(&p, 7.5), 8);
	assert_int_equal(est_report(&p, 12.0), 8);
	assert_int_equal(est_report(&p, NAN), 1);
}

/* Desire never leaves [1, max]: it neither sinks below 1 after many
 * inefficient quanta nor grows past max after many satisfied ones. */
static void test_clamped(void **state)
{
	struct est_params p = params(5);
	double d = est_initial();
	int i;

	(void)state;
	for (i = 0; i < 50; i++) {
		struct est_quantum q = quantum(d, est_report(&p, d), 0, 10);
		d = est_next(&p, &q, NULL);
		assert_true(d >= 1.0);
	}
	assert_true(d == 1.0);
	for (i = 0; i < 50; i++) {
		int a = est_report(&p, d);
		struct est_quantum q = quantum(d, a, 10.0 * a, 10);
		d = est_next(&p, &q, NULL);
		assert_true(d <= 5.0);
	}
	assert_true(d == 5.0);
}

/* Lemma 4: with availability at most P in every quantum, desire stays at
 * most rho * P, whatever the usage.  Random availabilities and usages. */
static void test_lemma4(void **state)
{
	const int P = 7;
	struct est_params p = params(1000);   /* no clamp at P: the lemma's */
	uint64_t x = 88172645463325252ull;
	double d = est_initial();
	int i;

	(void)state;
	for (i = 0; i < 100000; i++) {
		int avail, a;
		double n;
		struct est_quantum q;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		avail = 1 + (int)(x % P);
		a = est_report(&p, d) < avail ? est_report(&p, d) : avail;
		n = (double)((x >> 20) % 101) / 100.0 * 10.0 * a;
		q = quantum(d, a, n, 10);
		d = est_next(&p, &q, NULL);
		assert_true(d <= p.rho * P + 1e-9);
		assert_true(d >= 1.0);
	}
}

static const double rhos[] = { 1.2, 1.3, 1.5, 1.7, 2.0 };

/* One quantum that raises the desire (efficient, allotted what it
 * reports) or lowers it (inefficient). */
static double step(const struct est_params *p, double d, int up)
{
	int a = est_report(p, d);
	struct est_quantum q = quantum(d, a, up ? 10.0 * a : 0.0, 10);
	enum est_class c = EST_NCLASSES;
	double next = est_next(p, &q, &c);

	assert_int_equal(c, up ? EST_EFFICIENT_SATISFIED : EST_INEFFICIENT);
	return next;
}

/* k rises by rho and k falls end exactly where they started, from 1 and
 * from max, for every rho: a job then allotted 1 is satisfied, not
 * deprived for ever (rho 1.2 used to end at 1.0000000000000007). */
static void test_no_drift(void **state)
{
	size_t r;

	(void)state;
	for (r = 0; r < sizeof rhos / sizeof rhos[0]; r++) {
		struct est_params p = params(4096);
		int k, i;

		p.rho = rhos[r];
		for (k = 1; pow(p.rho, k) < (double)p.max; k++) {
			double d = est_initial();
			struct est_quantum q;
			enum est_class c = EST_NCLASSES;

			for (i = 0; i < k; i++)
				d = step(&p, d, 1);
			for (i = 0; i < k; i++)
				d = step(&p, d, 0);
			assert_true(d == 1.0);
			assert_int_equal(est_report(&p, d), 1);
			q = quantum(d, 1, 10.0, 10);
			est_next(&p, &q, &c);
			assert_int_equal(c, EST_EFFICIENT_SATISFIED);
		}
		p.max = 48;
		for (k = 1; k < 12; k++) {
			double d = 48.0;

			for (i = 0; i < k; i++)
				d = step(&p, d, 0);
			for (i = 0; i < k; i++)
				d = step(&p, d, 1);
			assert_true(d == 48.0);
		}
	}
}

/* Long random walks of rises and falls: the reported desire after any
 * number of steps is that of rho^k for the net number k of rises, and
 * back at k = 0 the desire is exactly 1. */
static void test_random_walk(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t r;

	(void)state;
	for (r = 0; r < sizeof rhos / sizeof rhos[0]; r++) {
		struct est_params p = params(4096);
		double d = est_initial();
		int k = 0, kmax = 0, i;

		p.rho = rhos[r];
		while (pow(p.rho, kmax + 1) < (double)p.max)
			kmax++;
		kmax = kmax < 12 ? kmax : 12;
		for (i = 0; i < 1000000; i++) {
			int up;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			up = k == 0 ? 1 : k == kmax ? 0 : (int)(x >> 63);
			d = step(&p, d, up);
			k += up ? 1 : -1;
			if (k == 0)
				assert_true(d == 1.0);
			assert_int_equal(est_report(&p, d),
			                 (int)ceil(pow(p.rho, k)));
		}
	}
}

static void test_bad_params(void **state)
{
	struct est_params p = params(4);
	const char *why = NULL;

	(void)state;
	p.delta = 0.0;
	assert_int_equal(est_params_check(&p, &why), -1);
	assert_non_null(why);
	p = params(4);
	p.delta = 1.5;
	assert_int_equal(est_params_check(&p, &why), -1);
	p = params(4);
	p.rho = 1.0;
	assert_int_equal(est_params_check(&p, &why), -1);
	p = params(4);
	p.rho = NAN;
	assert_int_equal(est_params_check(&p, &why), -1);
	p = params(0);
	assert_int_equal(est_params_check(&p, &why), -1);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(est_class_name(EST_INEFFICIENT), "inefficient");
	assert_string_equal(est_class_name(EST_EFFICIENT_SATISFIED), "satisfied");
	assert_string_equal(est_class_name(EST_EFFICIENT_DEPRIVED), "deprived");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_inefficient),
		cmocka_unit_test(test_satisfied),
		cmocka_unit_test(test_deprived),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_clamped),
		cmocka_unit_test(test_lemma4),
		cmocka_unit_test(test_no_drift),
		cmocka_unit_test(test_random_walk),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
