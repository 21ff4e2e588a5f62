/*
 * ordered.c - the ordered clause and construct (GOMP_loop_ordered_*_start
 * and _next, GOMP_ordered_start and _end): under static, static with a
 * chunk, dynamic, guided and runtime schedules, with positive and negative
 * steps, in a loop inside a region and in a combined parallel for, the
 * ordered parts run one at a time in iteration order while every
 * iteration runs exactly once.  Also `ordered threads` and a loop whose
 * ordered part is skipped by some iterations.
 */
#include "check.h"

#define DO_PRAGMA(x) _Pragma(#x)
#define N 500

static int seq[N], next, count[N], inside;

/* The ordered part of iteration k: alone, and after k - 1. */
static void ordered_part(int k)
{
	CHECK(ATOMIC_ADD(&inside, 1) == 1, "two ordered parts ran at once (iteration %d)", k);
	seq[next++] = k;
	ATOMIC_ADD(&inside, -1);
}

/* Check the parts ran in order, the iterations once each; clear. */
static void check_seq(const char *name, int n, int every)
{
	int want = 0;

	for (int k = 0; k < n; k++)
		CHECK(count[k] == 1, "%s: iteration %d ran %d times", name, k, count[k]);
	for (int k = 0; k < n; k += every)
		CHECK(seq[want++] == k, "%s: ordered part %d was iteration %d, expected %d", name,
		      want - 1, seq[want - 1], k);
	CHECK(next == want, "%s: %d ordered parts ran, expected %d", name, next, want);
	memset(count, 0, sizeof count);
	next = 0;
}

#define ORDERED_FN(fname, ...)                                              \
	static void fname(const char *name)                                 \
	{                                                                   \
		_Pragma("omp parallel")                                     \
		{                                                           \
			DO_PRAGMA(omp for ordered schedule(__VA_ARGS__))    \
			for (int i = 0; i < N; i++) {                       \
				ATOMIC_ADD(&count[i], 1);                   \
				_Pragma("omp ordered")                      \
				ordered_part(i);                            \
			}                                                   \
		}                                                           \
		check_seq(name, N, 1);                                      \
		DO_PRAGMA(omp parallel for ordered schedule(__VA_ARGS__))   \
		for (int i = 3 * N - 3; i >= 0; i -= 3) {                   \
			ATOMIC_ADD(&count[(3 * N - 3 - i) / 3], 1);         \
			_Pragma("omp ordered threads")                      \
			ordered_part((3 * N - 3 - i) / 3);                  \
		}                                                           \
		check_seq(name, N, 1);                                      \
		DO_PRAGMA(omp parallel for ordered schedule(__VA_ARGS__))   \
		for (int i = 0; i < N; i++) {                               \
			ATOMIC_ADD(&count[i], 1);                           \
			if (i % 3 == 0) {                                   \
				_Pragma("omp ordered")                      \
				ordered_part(i);                            \
			}                                                   \
		}                                                           \
		check_seq(name, N, 3);                                      \
	}

ORDERED_FN(o_static, static)
ORDERED_FN(o_static5, static, 5)
ORDERED_FN(o_dynamic, dynamic)
ORDERED_FN(o_dynamic4, dynamic, 4)
ORDERED_FN(o_guided, guided)
ORDERED_FN(o_guided3, guided, 3)
ORDERED_FN(o_runtime, runtime)
ORDERED_FN(o_mdynamic, monotonic: dynamic, 2)

/* Every schedule. */
int main(void)
{
	o_static("ordered schedule(static)");
	o_static5("ordered schedule(static,5)");
	o_dynamic("ordered schedule(dynamic)");
	o_dynamic4("ordered schedule(dynamic,4)");
	o_guided("ordered schedule(guided)");
	o_guided3("ordered schedule(guided,3)");
	omp_set_schedule(omp_sched_dynamic, 3);
	o_runtime("ordered schedule(runtime) dynamic,3");
	omp_set_schedule(omp_sched_static, 2);
	o_runtime("ordered schedule(runtime) static,2");
	o_mdynamic("ordered schedule(monotonic:dynamic,2)");
	return 0;
}
