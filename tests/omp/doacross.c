/*
 * doacross.c - ordered(n) doacross loops (GOMP_loop_doacross_*_start,
 * GOMP_doacross_post and GOMP_doacross_wait): a one-dimensional chain
 * (each iteration reads what iteration i - 1 wrote, after depend(sink))
 * and a sink two back, under static, static chunk, dynamic, guided and
 * runtime schedules, counting up and down; a two-dimensional wavefront with
 * ordered(2) (sinks at (i-1, j) and (i, j-1)); sinks outside the
 * iteration space are ignored.  The results equal the serial loop's.
 */
#include "check.h"

#define DO_PRAGMA(x) _Pragma(#x)
#define N 40
#define M 8

static long a[N + 2], b[M][M];

/* The chain and a sink two back, under schedule `...`. */
#define CHAIN_FN(fname, ...)                                                \
	static void fname(const char *name)                                 \
	{                                                                   \
		a[0] = 1;                                                   \
		DO_PRAGMA(omp parallel for ordered(1) schedule(__VA_ARGS__)) \
		for (int i = 1; i < N; i++) {                               \
			_Pragma("omp ordered depend(sink: i - 1)")          \
			a[i] = a[i - 1] * 3 % 1000003 + i;                  \
			_Pragma("omp ordered depend(source)")               \
		}                                                           \
		check_chain(name, 1);                                       \
		a[N - 1] = 1;                                               \
		DO_PRAGMA(omp parallel for ordered(1) schedule(__VA_ARGS__)) \
		for (int i = N - 2; i >= 0; i--) {                          \
			_Pragma("omp ordered depend(sink: i + 1)")          \
			a[i] = a[i + 1] * 3 % 1000003 + (N - 1 - i);        \
			_Pragma("omp ordered depend(source)")               \
		}                                                           \
		check_chain(name, -1);                                      \
		a[0] = a[1] = 1;                                            \
		DO_PRAGMA(omp parallel for ordered(1) schedule(__VA_ARGS__)) \
		for (int i = 2; i < N; i++) {                               \
			_Pragma("omp ordered depend(sink: i - 2) depend(sink: i - 50)") \
			a[i] = a[i - 2] + 1;                                \
			_Pragma("omp ordered depend(source)")               \
		}                                                           \
		for (int i = 0; i < N; i++)                                 \
			CHECK(a[i] == 1 + i / 2, "%s: sink two back: a[%d] = %ld, expected %d", \
			      name, i, a[i], 1 + i / 2);                    \
	}

/* Check the chain against the serial loop (dir 1: up, -1: down). */
static void check_chain(const char *name, int dir)
{
	long v = 1;

	for (int k = 1; k < N; k++) {
		int i = dir > 0 ? k : N - 1 - k;
		v = v * 3 % 1000003 + k;
		CHECK(a[i] == v, "%s: chain %s: a[%d] = %ld, the serial loop gives %ld", name,
		      dir > 0 ? "up" : "down", i, a[i], v);
	}
}

/*
 * libgomp's GOMP_doacross_wait spins without yielding: with more threads
 * than CPUs every wait for a thread that is not running costs a time
 * slice.  The chunks are large so that the waits are few.
 */
CHAIN_FN(c_static, static)
CHAIN_FN(c_static10, static, 10)
CHAIN_FN(c_dynamic10, dynamic, 10)
CHAIN_FN(c_guided, guided, 8)
CHAIN_FN(c_runtime, runtime)

/* A two-dimensional wavefront: b[i][j] from its upper and left neighbours. */
static void wavefront(void)
{
	long want[M][M];

	for (int i = 0; i < M; i++)
		for (int j = 0; j < M; j++)
			want[i][j] = (i == 0 || j == 0) ? 1
				     : (want[i - 1][j] + want[i][j - 1]) % 1000003;
	for (int i = 0; i < M; i++)
		b[i][0] = b[0][i] = 1;
#pragma omp parallel for ordered(2) schedule(static)
	for (int i = 1; i < M; i++)
		for (int j = 1; j < M; j++) {
#pragma omp ordered depend(sink: i - 1, j) depend(sink: i, j - 1)
			b[i][j] = (b[i - 1][j] + b[i][j - 1]) % 1000003;
#pragma omp ordered depend(source)
		}
	for (int i = 0; i < M; i++)
		for (int j = 0; j < M; j++)
			CHECK(b[i][j] == want[i][j], "ordered(2) wavefront: b[%d][%d] = %ld, "
			      "expected %ld", i, j, b[i][j], want[i][j]);
}

/* Every schedule, then the wavefront. */
int main(void)
{
	c_static("doacross schedule(static)");
	c_static10("doacross schedule(static,10)");
	c_dynamic10("doacross schedule(dynamic,10)");
	c_guided("doacross schedule(guided,8)");
	omp_set_schedule(omp_sched_dynamic, 12);
	c_runtime("doacross schedule(runtime) dynamic,12");
	wavefront();
	return 0;
}
