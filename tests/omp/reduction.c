/*
 * reduction.c - the reduction clause with every built-in operator (+, -,
 * *, max, min, &&, ||, &, |, ^) on int, long, unsigned, double, on a
 * parallel, a worksharing loop (static and dynamic), a combined parallel
 * for and sections; with the original variable's value included; several
 * reductions on one construct (gcc merges them under GOMP_atomic_start);
 * an array section reduction(+: a[0:4]).  Results equal the serial ones.
 */
#include "check.h"

#define N 1000

/* Many operators on one combined loop. */
static void operators(void)
{
	long sum = 10, diff = 0;
	double dsum = 0.5, prod = 1.0;
	int mx = -5, mn = 5000, land = 1, lor = 0, band = ~0, bor = 0, bx = 0, any = 0, all = 1;
	unsigned umax = 0;

#pragma omp parallel for schedule(dynamic, 7) reduction(+: sum, dsum) reduction(-: diff) \
	reduction(*: prod) reduction(max: mx, umax) reduction(min: mn) reduction(&&: land, all) \
	reduction(||: lor, any) reduction(&: band) reduction(|: bor) reduction(^: bx)
	for (int i = 0; i < N; i++) {
		sum += i;
		dsum += 0.25;
		diff -= i;
		if (i % 100 == 0)
			prod *= 2.0;
		mx = i > mx ? i : mx;
		umax = (unsigned)i * 3u > umax ? (unsigned)i * 3u : umax;
		mn = (i + 17) < mn ? (i + 17) : mn;
		land = land && (i >= 0);
		all = all && (i != 500);
		lor = lor || (i == 999);
		any = any || (i < 0);
		band &= ~(1 << (i % 8)) | (i % 16 >= 8 ? 0 : 0xff);
		bor |= 1 << (i % 20);
		bx ^= i;
	}
	int wband = ~0, wbx = 0;
	for (int i = 0; i < N; i++) {
		wband &= ~(1 << (i % 8)) | (i % 16 >= 8 ? 0 : 0xff);
		wbx ^= i;
	}
	CHECK(sum == 10 + (long)N * (N - 1) / 2, "reduction(+) long: %ld", sum);
	CHECK(dsum == 0.5 + 0.25 * N, "reduction(+) double: %g", dsum);
	CHECK(diff == -(long)N * (N - 1) / 2, "reduction(-): %ld", diff);
	CHECK(prod == 1024.0, "reduction(*) double: %g, expected 1024", prod);
	CHECK(mx == N - 1, "reduction(max) int: %d", mx);
	CHECK(umax == 3u * (N - 1), "reduction(max) unsigned: %u", umax);
	CHECK(mn == 17, "reduction(min): %d", mn);
	CHECK(land == 1 && all == 0, "reduction(&&): %d %d, expected 1 0", land, all);
	CHECK(lor == 1 && any == 0, "reduction(||): %d %d, expected 1 0", lor, any);
	CHECK(band == wband, "reduction(&): %#x, expected %#x", band, wband);
	CHECK(bor == (1 << 20) - 1, "reduction(|): %#x", bor);
	CHECK(bx == wbx, "reduction(^): %d, expected %d", bx, wbx);
}

/* A reduction on the parallel construct itself, and on for and sections inside one. */
static void constructs(void)
{
	int threads = 0, n = omp_get_max_threads();
	long s1 = 0, s2 = 0;
	long long p = 1;

#pragma omp parallel reduction(+: threads)
	threads += 1;
	CHECK(threads == n, "reduction(+) on parallel counted %d threads, expected %d", threads, n);
#pragma omp parallel
	{
#pragma omp for reduction(+: s1) schedule(static)
		for (int i = 0; i < N; i++)
			s1 += i % 13;
#pragma omp for reduction(*: p) schedule(guided)
		for (int i = 1; i <= 40; i++)
			p *= (i % 10 == 0) ? 3 : 1;
#pragma omp sections reduction(+: s2)
		{
#pragma omp section
			s2 += 1;
#pragma omp section
			s2 += 10;
#pragma omp section
			s2 += 100;
		}
	}
	long w1 = 0;
	for (int i = 0; i < N; i++)
		w1 += i % 13;
	CHECK(s1 == w1, "for reduction(+) static: %ld, expected %ld", s1, w1);
	CHECK(p == 81, "for reduction(*) guided: %lld, expected 81", p);
	CHECK(s2 == 111, "sections reduction(+): %ld, expected 111", s2);
}

/* An array section reduction. */
static void array_section(void)
{
	long h[4] = { 1, 2, 3, 4 };

#pragma omp parallel for reduction(+: h[0:4])
	for (int i = 0; i < N; i++)
		h[i % 4] += i;
	for (int k = 0; k < 4; k++) {
		long want = k + 1;
		for (int i = k; i < N; i += 4)
			want += i;
		CHECK(h[k] == want, "reduction(+: h[0:4]): h[%d] = %ld, expected %ld", k, h[k],
		      want);
	}
}

/* All the reductions. */
int main(void)
{
	operators();
	constructs();
	array_section();
	return 0;
}
