/*
 * loop_ull.c - worksharing loops on unsigned long long variables, which
 * gcc runs through the GOMP_loop_ull_* entry points: every schedule kind
 * (static, dynamic, guided, runtime, the nonmonotonic and monotonic
 * modifiers), loops across 2^63 and up to ULLONG_MAX, counting down
 * (negative steps on an unsigned variable), empty loops, ordered loops
 * under every kind (GOMP_loop_ull_ordered_*: the ordered parts run in
 * iteration order) and doacross loops under every kind
 * (GOMP_loop_ull_doacross_*, GOMP_doacross_ull_post and _wait).  Every
 * iteration runs exactly once; the variable's final value after a loop
 * with lastprivate is the one after the last iteration.
 */
#include <limits.h>

#include "check.h"

#define DO_PRAGMA(x) _Pragma(#x)
#define N 1000
#define MAXT 64

typedef unsigned long long ull;

static int count[N];
static int disorder[MAXT];
static const char *what;

/* Record iteration k (0-based) and check the thread's order when monotonic. */
static void visit(ull k, long *last)
{
	CHECK(k < N, "%s: iteration index %llu out of range", what, k);
	ATOMIC_ADD(&count[k], 1);
	if (*last >= (long)k)
		disorder[omp_get_thread_num() % MAXT] = 1;
	*last = (long)k;
}

/* Check the loop ran `n` iterations once each (and, if monotonic, in order). */
static void check_once(ull n, int monotonic)
{
	for (ull k = 0; k < N; k++)
		CHECK(count[k] == (k < n), "%s: iteration %llu ran %d times (%llu iterations)",
		      what, k, count[k], n);
	for (int t = 0; t < MAXT; t++)
		CHECK(!monotonic || !disorder[t], "%s: thread %d out of order under a monotonic "
		      "schedule", what, t);
	memset(count, 0, sizeof count);
	memset(disorder, 0, sizeof disorder);
}

/* Upward and downward loops with schedule `...`, over [lo, lo + n * step). */
#define ULL_FN(fname, ...)                                                  \
	static void fname(ull lo, ull hi, ull step)                         \
	{                                                                   \
		_Pragma("omp parallel")                                     \
		{                                                           \
			long last = -1;                                     \
			DO_PRAGMA(omp for schedule(__VA_ARGS__))            \
			for (ull i = lo; i < hi; i += step)                 \
				visit((i - lo) / step, &last);              \
			last = -1;                                          \
			DO_PRAGMA(omp for schedule(__VA_ARGS__))            \
			for (ull i = hi; i > lo; i -= step)                 \
				visit((hi - i) / step + N / 2, &last);      \
		}                                                           \
	}

ULL_FN(u_static, static)
ULL_FN(u_static3, static, 3)
ULL_FN(u_dynamic, dynamic)
ULL_FN(u_dynamic7, dynamic, 7)
ULL_FN(u_guided, guided)
ULL_FN(u_guided2, guided, 2)
ULL_FN(u_runtime, runtime)
ULL_FN(u_auto, auto)
ULL_FN(u_ndynamic, nonmonotonic: dynamic, 3)
ULL_FN(u_nguided, nonmonotonic: guided)
ULL_FN(u_nruntime, nonmonotonic: runtime)
ULL_FN(u_mdynamic, monotonic: dynamic, 2)
ULL_FN(u_mguided, monotonic: guided)
ULL_FN(u_mruntime, monotonic: runtime)

static const struct {
	const char *name;
	void (*fn)(ull, ull, ull);
	int monotonic;
} fns[] = {
	{ "static", u_static, 1 }, { "static,3", u_static3, 1 }, { "dynamic", u_dynamic, 0 },
	{ "dynamic,7", u_dynamic7, 0 }, { "guided", u_guided, 0 }, { "guided,2", u_guided2, 0 },
	{ "runtime", u_runtime, 0 }, { "auto", u_auto, 0 },
	{ "nonmonotonic:dynamic,3", u_ndynamic, 0 }, { "nonmonotonic:guided", u_nguided, 0 },
	{ "nonmonotonic:runtime", u_nruntime, 0 }, { "monotonic:dynamic,2", u_mdynamic, 1 },
	{ "monotonic:guided", u_mguided, 1 }, { "monotonic:runtime", u_mruntime, 1 },
};

/* Every schedule over spaces across 2^63, near ULLONG_MAX and empty. */
static void schedules(void)
{
	static const ull spaces[][3] = {
		{ (1ULL << 63) - 200, (1ULL << 63) + 200, 1 },  /* 400 up, 400 down */
		{ ULLONG_MAX - 3 * 300, ULLONG_MAX, 3 },        /* 300 and 300 */
		{ 0, 499, 1 },
		{ 10, 10, 1 },                                  /* empty */
		{ 20, 10, 1 },                                  /* empty */
	};
	char name[128];

	for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++)
		for (size_t s = 0; s < sizeof spaces / sizeof spaces[0]; s++) {
			ull lo = spaces[s][0], hi = spaces[s][1], step = spaces[s][2];
			ull n = hi > lo ? (hi - lo + step - 1) / step : 0;

			snprintf(name, sizeof name,
				 "schedule(%s) unsigned long long [%llu, %llu) step %llu",
				 fns[f].name, lo, hi, step);
			what = name;
			fns[f].fn(lo, hi, step);
			/* The up loop fills [0, n), the down loop [N/2, N/2 + n). */
			for (ull k = 0; k < N; k++) {
				int want = (k < n) + (k >= N / 2 && k < N / 2 + n);
				CHECK(count[k] == want, "%s: iteration slot %llu ran %d times, "
				      "expected %d", name, k, count[k], want);
				count[k] = 0;
			}
			for (int t = 0; t < MAXT; t++)
				CHECK(!fns[f].monotonic || !disorder[t], "%s: thread %d out of "
				      "order", name, t);
			memset(disorder, 0, sizeof disorder);
		}
}

static ull seq[N], next;
static long chain[N + 1];

/* An ordered loop under schedule `...`: the ordered parts in iteration order. */
#define ORDERED_FN(fname, ...)                                              \
	static void fname(void)                                             \
	{                                                                   \
		ull lo = (1ULL << 63) - 100;                                \
		next = 0;                                                   \
		_Pragma("omp parallel")                                     \
		{                                                           \
			long last = -1;                                     \
			DO_PRAGMA(omp for ordered schedule(__VA_ARGS__))    \
			for (ull i = lo; i < lo + 300; i++) {               \
				visit(i - lo, &last);                       \
				_Pragma("omp ordered")                      \
				seq[next++] = i - lo;                       \
			}                                                   \
		}                                                           \
	}

/* A doacross chain under schedule `...` (large chunks: libgomp spins in
 * GOMP_doacross_ull_wait); the bound lo + 40 + 1 must not wrap. */
#define DOACROSS_FN(fname, ...)                                             \
	static void fname(void)                                             \
	{                                                                   \
		ull lo = ULLONG_MAX - 41;                                   \
		chain[0] = 5;                                               \
		DO_PRAGMA(omp parallel for ordered(1) schedule(__VA_ARGS__)) \
		for (ull i = lo + 1; i <= lo + 40; i++) {                   \
			_Pragma("omp ordered depend(sink: i - 1)")          \
			chain[i - lo] = chain[i - lo - 1] + (long)(i - lo); \
			_Pragma("omp ordered depend(source)")               \
		}                                                           \
	}

ORDERED_FN(o_static, static)
ORDERED_FN(o_dynamic, dynamic, 3)
ORDERED_FN(o_guided, guided)
ORDERED_FN(o_runtime, runtime)
DOACROSS_FN(d_static, static)
DOACROSS_FN(d_dynamic, dynamic, 10)
DOACROSS_FN(d_guided, guided, 10)
DOACROSS_FN(d_runtime, runtime)

/* Ordered loops (GOMP_loop_ull_ordered_*) and doacross loops
 * (GOMP_loop_ull_doacross_*, GOMP_doacross_ull_post and _wait), every kind. */
static void ordered_and_doacross(void)
{
	static const struct {
		const char *name;
		void (*ordered)(void), (*doacross)(void);
	} kinds[] = {
		{ "static", o_static, d_static }, { "dynamic", o_dynamic, d_dynamic },
		{ "guided", o_guided, d_guided }, { "runtime (dynamic,10)", o_runtime, d_runtime },
	};
	char name[96];

	omp_set_schedule(omp_sched_dynamic, 10);
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		snprintf(name, sizeof name, "ordered schedule(%s) unsigned long long",
			 kinds[k].name);
		what = name;
		kinds[k].ordered();
		check_once(300, 0);
		CHECK(next == 300, "%s: %llu ordered parts ran, expected 300", what, next);
		for (ull i = 0; i < 300; i++)
			CHECK(seq[i] == i, "%s: ordered part %llu was iteration %llu", what, i,
			      seq[i]);
		kinds[k].doacross();
		for (ull i = 1; i <= 40; i++)
			CHECK(chain[i] == chain[i - 1] + (long)i, "doacross schedule(%s) unsigned "
			      "long long: chain[%llu] = %ld, chain[%llu] = %ld", kinds[k].name, i,
			      chain[i], i - 1, chain[i - 1]);
		memset(chain, 0, sizeof chain);
	}
}

/* lastprivate of the unsigned variable itself. */
static void last_value(void)
{
	ull i = 0, lo = (1ULL << 63) - 10;

#pragma omp parallel for lastprivate(i) schedule(guided)
	for (i = lo; i < lo + 21; i += 2)
		;
	CHECK(i == lo + 22, "lastprivate unsigned long long loop variable %llu, expected %llu", i,
	      lo + 22);
}

/* Run them all. */
int main(void)
{
	schedules();
	ordered_and_doacross();
	last_value();
	return 0;
}
