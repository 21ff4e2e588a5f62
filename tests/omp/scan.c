/*
 * scan.c - scan reductions (reduction(inscan, ...) with the scan
 * directive; gcc 12 gets the buffers through GOMP_loop_start): inclusive
 * and exclusive prefix sums over a worksharing loop inside a region and
 * over a combined parallel for, and a prefix maximum; each element equals
 * the serial prefix.
 */
#include "check.h"

#define N 1000

static long in[N], out[N];

/* Inclusive prefix sum with a for inside a region. */
static void inclusive(void)
{
	long x = 0;

#pragma omp parallel
#pragma omp for reduction(inscan, +: x)
	for (int i = 0; i < N; i++) {
		x += in[i];
#pragma omp scan inclusive(x)
		out[i] = x;
	}
	long want = 0;
	for (int i = 0; i < N; i++) {
		want += in[i];
		CHECK(out[i] == want, "inclusive scan: out[%d] = %ld, expected %ld", i, out[i],
		      want);
	}
	CHECK(x == want, "inclusive scan: final value %ld, expected %ld", x, want);
}

/* Exclusive prefix sum with a combined parallel for. */
static void exclusive(void)
{
	long x = 100;

#pragma omp parallel for reduction(inscan, +: x)
	for (int i = 0; i < N; i++) {
		out[i] = x;
#pragma omp scan exclusive(x)
		x += in[i];
	}
	long want = 100;
	for (int i = 0; i < N; i++) {
		CHECK(out[i] == want, "exclusive scan: out[%d] = %ld, expected %ld", i, out[i],
		      want);
		want += in[i];
	}
}

/* Inclusive prefix maximum. */
static void prefix_max(void)
{
	long m = -1;

#pragma omp parallel for reduction(inscan, max: m)
	for (int i = 0; i < N; i++) {
		m = in[i] > m ? in[i] : m;
#pragma omp scan inclusive(m)
		out[i] = m;
	}
	long want = -1;
	for (int i = 0; i < N; i++) {
		want = in[i] > want ? in[i] : want;
		CHECK(out[i] == want, "prefix max: out[%d] = %ld, expected %ld", i, out[i], want);
	}
}

/* The three scans. */
int main(void)
{
	for (int i = 0; i < N; i++)
		in[i] = (i * 7919) % 1009;
	inclusive();
	exclusive();
	prefix_max();
	return 0;
}
