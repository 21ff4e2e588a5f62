/*
 * loop_bounds.c - the shapes of canonical loops, under static, dynamic,
 * guided and runtime schedules: negative steps (i--, i -= 3), steps
 * greater than one, a step held in a variable, <=, >= and != tests, empty
 * loops (the body never runs), one-iteration loops, int bounds at INT_MIN
 * and INT_MAX, long long and unsigned int variables, and a pointer as the
 * loop variable.  Each iteration runs exactly once and lastprivate
 * leaves the variable's value after the last iteration.
 */
#include <limits.h>

#include "check.h"

#define DO_PRAGMA(x) _Pragma(#x)
#define N 1200

static int count[N];
static const char *what;

/* Record iteration k. */
static void hit(long k)
{
	CHECK(k >= 0 && k < N, "%s: iteration index %ld out of range", what, k);
	ATOMIC_ADD(&count[k], 1);
}

/* Check iterations [0, n) ran once each and none beyond; clear the record. */
static void expect(long n)
{
	for (long k = 0; k < N; k++)
		CHECK(count[k] == (k < n), "%s: iteration %ld ran %d times (%ld iterations)", what,
		      k, count[k], n);
	memset(count, 0, sizeof count);
}

/* Every loop shape under schedule `...`. */
#define SHAPES_FN(fname, ...)                                                           \
	static void fname(const char *sched)                                            \
	{                                                                               \
		char name[128];                                                         \
		int i, last;                                                            \
		long long ll;                                                           \
		unsigned u;                                                             \
		int step = 3, down = -4;                                                \
		static char buf[N];                                                     \
		what = name;                                                            \
		snprintf(name, sizeof name, "schedule(%s) for (i = 999; i >= 0; i--)", sched); \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__)) \
		for (i = 999; i >= 0; i--)                                              \
			hit(999 - i);                                                   \
		expect(1000);                                                           \
		snprintf(name, sizeof name, "schedule(%s) for (i = 100; i > -200; i -= 3)",        \
			 sched);                                                        \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__) lastprivate(last))     \
		for (i = 100; i > -200; i -= 3) {                                       \
			hit((100 - i) / 3);                                             \
			last = i;                                                       \
		}                                                                       \
		expect(100);                                                            \
		CHECK(last == -197, "%s: lastprivate %d, expected -197", name, last);   \
		snprintf(name, sizeof name, "schedule(%s) for (i = -7; i <= 50; i += step)", \
			 sched);                                                        \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__) lastprivate(i))        \
		for (i = -7; i <= 50; i += step)                                        \
			hit((i + 7) / 3);                                               \
		expect(20);                                                             \
		CHECK(i == 53, "%s: loop variable %d after the loop, expected 53", name, i); \
		snprintf(name, sizeof name, "schedule(%s) for (i = 40; i >= 1; i += down)",        \
			 sched);                                                        \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (i = 40; i >= 1; i += down)                                         \
			hit((40 - i) / 4);                                              \
		expect(10);                                                             \
		snprintf(name, sizeof name, "schedule(%s) for (i = 0; i != 500; i++)", sched); \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (i = 0; i != 500; i++)                                              \
			hit(i);                                                         \
		expect(500);                                                            \
		snprintf(name, sizeof name, "schedule(%s) for (i = 10; i != 0; i--)", sched); \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (i = 10; i != 0; i--)                                               \
			hit(i - 1);                                                     \
		expect(10);                                                             \
		snprintf(name, sizeof name, "schedule(%s) empty loops", sched);         \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (i = 0; i < 0; i++)                                                 \
			hit(i);                                                         \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (i = 5; i > 5; i--)                                                 \
			hit(i);                                                         \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (i = 10; i <= 3; i += 2)                                            \
			hit(i);                                                         \
		expect(0);                                                              \
		snprintf(name, sizeof name, "schedule(%s) one iteration", sched);       \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (i = 7; i < 8; i++)                                                 \
			hit(i - 7);                                                     \
		expect(1);                                                              \
		snprintf(name, sizeof name, "schedule(%s) int bounds at INT_MAX", sched); \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (i = INT_MAX - 300; i < INT_MAX; i++)                               \
			hit(i - (INT_MAX - 300));                                       \
		expect(300);                                                            \
		snprintf(name, sizeof name, "schedule(%s) int bounds at INT_MIN", sched); \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (i = INT_MIN + 300; i > INT_MIN; i--)                               \
			hit(INT_MIN + 300 - i);                                         \
		expect(300);                                                            \
		snprintf(name, sizeof name, "schedule(%s) long long across 2^40", sched); \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (ll = (1LL << 40) + 500; ll > (1LL << 40) - 500; ll -= 2)           \
			hit((long)(((1LL << 40) + 500 - ll) / 2));                      \
		expect(500);                                                            \
		snprintf(name, sizeof name, "schedule(%s) unsigned int", sched);        \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (u = UINT_MAX - 1000; u < UINT_MAX; u++)                            \
			hit((long)(u - (UINT_MAX - 1000)));                             \
		expect(1000);                                                           \
		snprintf(name, sizeof name, "schedule(%s) pointer loop variable", sched); \
		DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                       \
		for (char *p = buf + N - 1; p >= buf; p -= 5)                           \
			hit((buf + N - 1 - p) / 5);                                     \
		expect(N / 5);                                                          \
	}

SHAPES_FN(shapes_static, static)
SHAPES_FN(shapes_static2, static, 2)
SHAPES_FN(shapes_dynamic, dynamic, 3)
SHAPES_FN(shapes_guided, guided)
SHAPES_FN(shapes_runtime, runtime)

/* Every shape under every schedule kind. */
int main(void)
{
	shapes_static("static");
	shapes_static2("static,2");
	shapes_dynamic("dynamic,3");
	shapes_guided("guided");
	omp_set_schedule(omp_sched_dynamic, 2);
	shapes_runtime("runtime dynamic,2");
	omp_set_schedule(omp_sched_guided, 1);
	shapes_runtime("runtime guided");
	omp_set_schedule(omp_sched_static, 5);
	shapes_runtime("runtime static,5");
	return 0;
}
