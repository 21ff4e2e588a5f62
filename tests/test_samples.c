/*
 * test_samples.c - daemon/samples.c: the percentiles asteald's Status
 * gives (p50, p99, max by nearest rank) agree with a full sort of the
 * values kept, for rings not yet full and full, wrapped, of random,
 * sorted, reversed, constant and few distinct values; they are found
 * again only when values came since they were last asked for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "samples.h"

static struct samples s;
static uint64_t ref[SAMPLES_RING];

/* Compare two values, for qsort. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A small deterministic generator (xorshift). */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Value number i of a kind of input. */
static uint64_t value(int kind, uint64_t i, uint64_t *x)
{
	switch (kind) {
	case 0: return rnd(x) % 1000000;
	case 1: return i;                       /* rising */
	case 2: return 1000000 - i;             /* falling */
	case 3: return 42;                      /* constant */
	default: return rnd(x) % 3;             /* few distinct */
	}
}

/* The percentiles of the ring agree with a sort of what it keeps. */
static void check(void)
{
	size_t n = samples_count(&s);
	uint64_t p50, p99, max;

	samples_pct(&s, &p50, &p99, &max);
	if (n == 0) {
		assert_true(p50 == 0 && p99 == 0 && max == 0);
		return;
	}
	memcpy(ref, s.v, n * sizeof(ref[0]));
	qsort(ref, n, sizeof(ref[0]), cmp_u64);
	assert_int_equal(p50, ref[(n - 1) / 2]);
	assert_int_equal(p99, ref[(n * 99 + 99) / 100 - 1]);
	assert_int_equal(max, ref[n - 1]);
}

/* Every kind, at counts from none to well past a full ring. */
static void test_against_sort(void **state)
{
	static const uint64_t counts[] = { 0, 1, 2, 3, 7, 99, 100, 101, 1000,
		SAMPLES_RING - 1, SAMPLES_RING, SAMPLES_RING + 1,
		3 * SAMPLES_RING + 17 };
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (int kind = 0; kind < 5; kind++)
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			memset(&s, 0, sizeof(s));
			for (uint64_t i = 0; i < counts[c]; i++)
				samples_add(&s, value(kind, i, &x));
			check();
			check();        /* kept: the same again */
		}
}

/* A value added after the percentiles were asked for is counted. */
static void test_found_again(void **state)
{
	uint64_t p50, p99, max;

	(void)state;
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 10; i++)
		samples_add(&s, 5);
	samples_pct(&s, &p50, &p99, &max);
	assert_int_equal(max, 5);
	samples_add(&s, 500);
	samples_pct(&s, &p50, &p99, &max);
	assert_int_equal(max, 500);
	assert_int_equal(p99, 500);
	assert_int_equal(p50, 5);
	check();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_sort),
		cmocka_unit_test(test_found_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
