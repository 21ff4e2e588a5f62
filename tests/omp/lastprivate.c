/*
 * lastprivate.c - lastprivate on worksharing loops: after the loop the
 * original variable holds the value of the sequentially last iteration,
 * under static, static chunk, dynamic, guided and runtime schedules, for
 * a scalar, an array and a struct, together with firstprivate on the same
 * variable, on a loop inside a region and on a combined one;
 * lastprivate(conditional:) holds the value from the last iteration that
 * assigned it (gcc 12 merges the threads' candidates between
 * GOMP_atomic_start and GOMP_atomic_end).
 */
#include "check.h"

#define DO_PRAGMA(x) _Pragma(#x)
#define N 777

struct pair {
	long a, b;
};

/* Scalar, array, struct and firstprivate+lastprivate under schedule `...`. */
#define LAST_FN(fname, ...)                                                         \
	static void fname(const char *name)                                         \
	{                                                                           \
		int x = -1, arr[3] = { 0, 0, 0 }, fl = 100;                         \
		struct pair p = { 0, 0 };                                           \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__) lastprivate(x, arr, p) \
			  firstprivate(fl) lastprivate(fl))                         \
		for (int i = 0; i < N; i++) {                                       \
			x = i * 2;                                                  \
			arr[0] = i;                                                 \
			arr[2] = -i;                                                \
			p.a = i;                                                    \
			p.b = (long)i * i;                                          \
			fl += i;                                                    \
		}                                                                   \
		CHECK(x == 2 * (N - 1), "%s: lastprivate scalar %d, expected %d",  \
		      name, x, 2 * (N - 1));                                        \
		CHECK(arr[0] == N - 1 && arr[2] == -(N - 1), "%s: lastprivate array {%d, %d, %d}", \
		      name, arr[0], arr[1], arr[2]);                                \
		CHECK(p.a == N - 1 && p.b == (long)(N - 1) * (N - 1),               \
		      "%s: lastprivate struct {%ld, %ld}", name, p.a, p.b);         \
		CHECK(fl >= 100 + N - 1, "%s: firstprivate+lastprivate %d: the last iteration's " \
		      "copy did not start from 100", name, fl);                     \
		x = -1;                                                             \
		_Pragma("omp parallel")                                             \
		{                                                                   \
			DO_PRAGMA(omp for schedule(__VA_ARGS__) lastprivate(x))     \
			for (int i = N - 1; i >= 0; i -= 4)                         \
				x = i;                                              \
		}                                                                   \
		CHECK(x == (N - 1) % 4, "%s: lastprivate of a descending loop %d, expected %d", \
		      name, x, (N - 1) % 4);                                        \
	}

LAST_FN(l_static, static)
LAST_FN(l_static7, static, 7)
LAST_FN(l_dynamic, dynamic)
LAST_FN(l_guided, guided)
LAST_FN(l_runtime, runtime)

/* lastprivate(conditional:): the value of the last iteration that assigned it. */
static void conditional(void)
{
	int v = -1, w = -1;

#pragma omp parallel for lastprivate(conditional: v) schedule(dynamic, 3)
	for (int i = 0; i < N; i++)
		if (i % 10 == 3)
			v = i;
	CHECK(v == 773, "lastprivate(conditional:) dynamic: %d, expected 773", v);
#pragma omp parallel
	{
#pragma omp for lastprivate(conditional: w) schedule(static)
		for (int i = 0; i < N; i++)
			if (i < 50)
				w = i * 3;
	}
	CHECK(w == 147, "lastprivate(conditional:) static: %d, expected 147", w);
}

/* Every schedule, then the conditional form. */
int main(void)
{
	l_static("lastprivate schedule(static)");
	l_static7("lastprivate schedule(static,7)");
	l_dynamic("lastprivate schedule(dynamic)");
	l_guided("lastprivate schedule(guided)");
	omp_set_schedule(omp_sched_guided, 4);
	l_runtime("lastprivate schedule(runtime) guided,4");
	conditional();
	return 0;
}
