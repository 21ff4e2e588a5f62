/*
 * atomic_lock.c - atomic updates gcc cannot do lock-free on x86-64 (no
 * 16-byte compare-and-swap without -mcx16): long double and __int128, which
 * gcc compiles to GOMP_atomic_start / GOMP_atomic_end around a plain
 * update (the runner checks with nm that the binary references
 * GOMP_atomic_start, so that this test keeps testing it).  Counters of
 * both types incremented by every thread end exact, also while other
 * threads update them from tasks, and the two types share the one lock
 * without deadlock.
 */
#include "check.h"

#define ROUNDS 3000

static long double ld;
static __int128 big;

/* Every thread adds to both many times, in a region and from tasks. */
int main(void)
{
	int n = 0;
	__int128 step = (__int128)1 << 70;

#pragma omp parallel
	{
#pragma omp single
		n = omp_get_num_threads();
		for (int r = 0; r < ROUNDS; r++) {
#pragma omp atomic
			ld += 0.5L;
#pragma omp atomic
			big += step;
		}
#pragma omp barrier
#pragma omp single
		for (int t = 0; t < 100; t++) {
#pragma omp task
			for (int r = 0; r < 10; r++) {
#pragma omp atomic
				ld -= 0.25L;
#pragma omp atomic update
				big = big - 1;
			}
		}
	}
	long double want_ld = 0.5L * n * ROUNDS - 0.25L * 1000;
	__int128 want_big = step * n * ROUNDS - 1000;
	CHECK(ld == want_ld, "atomic long double: %Lg, expected %Lg", ld, want_ld);
	CHECK(big == want_big, "atomic __int128: high %lld low %llu, expected high %lld low %llu",
	      (long long)(big >> 64), (unsigned long long)big, (long long)(want_big >> 64),
	      (unsigned long long)want_big);
	return 0;
}
