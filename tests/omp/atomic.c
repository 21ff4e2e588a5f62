/*
 * atomic.c - the atomic construct on lock-free types (gcc inlines these;
 * no runtime call): update (x++, x--, x += v, x = x * v, x = v - x ...),
 * read, write, capture in its forms, with seq_cst, relaxed, acq_rel,
 * acquire and release, on char, short, int, long, unsigned, float and
 * double, and atomic compare (OpenMP 5.1: a maximum and a
 * compare-and-swap, with capture).  Counters incremented by every thread
 * end exact; captured values are all distinct; a release store is seen
 * with its payload by an acquire read.
 */
#include "check.h"

#define ROUNDS 5000
#define MAXT 64

/* Updates on every type from every thread. */
static void updates(void)
{
	static char c;
	static short s;
	static int i, dec;
	static long l, mul = 1;
	static unsigned u;
	static float f;
	static double d;
	int n = 0;

#pragma omp parallel
	{
#pragma omp single
		n = omp_get_num_threads();
		for (int r = 0; r < ROUNDS; r++) {
#pragma omp atomic
			c++;
#pragma omp atomic update
			s += 3;
#pragma omp atomic seq_cst
			i = i + 2;
#pragma omp atomic relaxed
			dec--;
#pragma omp atomic update acq_rel
			l -= 5;
#pragma omp atomic
			u |= 1u << (r % 32);
#pragma omp atomic
			f += 0.5f;
#pragma omp atomic
			d = d + 0.25;
		}
		if (omp_get_thread_num() < 20) {
#pragma omp atomic
			mul *= 2;
		}
	}
	long nr = (long)n * ROUNDS;
	CHECK(c == (char)nr, "atomic char++: %d, expected %d", c, (char)nr);
	CHECK(s == (short)(3 * nr), "atomic short += 3: %d", s);
	CHECK(i == 2 * nr && dec == -nr, "atomic int: %d and %d, expected %ld and %ld", i, dec,
	      2 * nr, -nr);
	CHECK(l == -5 * nr, "atomic long -= 5: %ld", l);
	CHECK(u == 0xffffffffu, "atomic unsigned |=: %#x", u);
	CHECK(f == 0.5f * (float)nr, "atomic float += 0.5: %g", (double)f);
	CHECK(d == 0.25 * (double)nr, "atomic double: %g", d);
	CHECK(mul == 1L << (n < 20 ? n : 20), "atomic long *= 2: %ld", mul);
}

/* Capture: every thread gets distinct values, in each form; read and write. */
static void captures(void)
{
	static int x, y, z = 100000, seen_x[MAXT * 400], seen_y[MAXT * 400], seen_z[MAXT * 400];
	int dup = 0;

#pragma omp parallel
	{
		for (int r = 0; r < 400; r++) {
			int v, w, nz;
#pragma omp atomic capture
			v = x++;
#pragma omp atomic capture seq_cst
			{
				w = y;
				y += 2;
			}
#pragma omp atomic capture
			{
				z--;
				nz = z;
			}
			if (v < 0 || v >= MAXT * 400 || ATOMIC_ADD(&seen_x[v], 1) != 1)
				ATOMIC_STORE(&dup, 1);
			if (w % 2 || w / 2 >= MAXT * 400 || ATOMIC_ADD(&seen_y[w / 2], 1) != 1)
				ATOMIC_STORE(&dup, 2);
			if (100000 - nz - 1 < 0 || 100000 - nz - 1 >= MAXT * 400 ||
			    ATOMIC_ADD(&seen_z[100000 - nz - 1], 1) != 1)
				ATOMIC_STORE(&dup, 3);
		}
	}
	CHECK(!dup, "atomic capture form %d handed out a value twice (or out of range)", dup);
	CHECK(y == 2 * x && z == 100000 - x, "atomic capture: %d increments, y %d, z %d", x, y, z);
	for (int k = 0; k < x; k++)
		CHECK(seen_x[k] == 1 && seen_y[k] == 1 && seen_z[k] == 1, "atomic capture: value "
		      "%d captured %d, %d, %d times", k, seen_x[k], seen_y[k], seen_z[k]);
	int wr = 0, bad = 0;
#pragma omp parallel
	{
		int rd;
#pragma omp atomic write
		wr = 7;
#pragma omp atomic read
		rd = wr;
		if (rd != 7)
			ATOMIC_STORE(&bad, 1);
	}
	CHECK(!bad && wr == 7, "atomic read after atomic write of 7: %d", wr);
}

/* atomic compare: a running maximum and a compare-and-swap claim. */
static void compare(void)
{
	static long mx = -1;
	static int owner = -1, claims = 0;

#pragma omp parallel
	{
		int me = omp_get_thread_num();
		for (long v = me; v < 10000; v += omp_get_num_threads()) {
#pragma omp atomic compare
			if (mx < v) {
				mx = v;
			}
		}
		int old;
#pragma omp atomic compare capture
		{
			old = owner;
			if (owner == -1) {
				owner = me;
			}
		}
		if (old == -1)
			ATOMIC_ADD(&claims, 1);
	}
	CHECK(mx == 9999, "atomic compare maximum: %ld, expected 9999", mx);
	CHECK(claims == 1 && owner >= 0, "atomic compare capture: %d threads claimed it, owner %d",
	      claims, owner);
}

/* A release store and an acquire read carry a payload across threads. */
static void release_acquire(void)
{
	static int payload, flag;
	int got = -1;

#pragma omp parallel num_threads(2)
	{
		if (omp_get_thread_num() == 0 || omp_get_num_threads() == 1) {
			payload = 4242;
#pragma omp atomic write release
			flag = 1;
		}
		if (omp_get_thread_num() == omp_get_num_threads() - 1) {
			int f = 0;
			double end = omp_get_wtime() + WAIT_SECONDS;
			while (!f && omp_get_wtime() < end) {
#pragma omp atomic read acquire
				f = flag;
			}
			CHECK(f, "the acquire read never saw the release store (bounded wait)");
			got = payload;
		}
	}
	CHECK(got == 4242, "payload after acquire: %d, expected 4242", got);
}

/* All of them. */
int main(void)
{
	updates();
	captures();
	compare();
	release_acquire();
	return 0;
}
