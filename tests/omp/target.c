/*
 * target.c - target constructs on a machine with no offload device: they
 * run on the host (omp_is_initial_device() true inside) and give the
 * right answers: target with map(to/from/tofrom) of scalars and arrays
 * (GOMP_target_ext), target teams distribute parallel for with a
 * reduction (GOMP_teams4 inside), target parallel for, target data with
 * target update to/from inside (GOMP_target_data_ext, GOMP_target_end_data,
 * GOMP_target_update_ext), target enter data / exit data
 * (GOMP_target_enter_exit_data), a declare target function and
 * variable, target nowait with depend completed by taskwait, and
 * device(omp_get_initial_device()).
 */
#include "check.h"

#define N 1000

#pragma omp declare target
static int scale = 3;
/* A function the target regions call. */
static int triple(int v)
{
	return v * scale;
}
#pragma omp end declare target

static int a[N], b[N];

/* map clauses and the host fallback. */
static void maps(void)
{
	long sum = 0;
	int on_host = 0, out = -1;

	for (int i = 0; i < N; i++)
		a[i] = i;
#pragma omp target map(to: a) map(tofrom: sum) map(from: on_host, out)
	{
		on_host = omp_is_initial_device();
		for (int i = 0; i < N; i++)
			sum += triple(a[i]);
		out = 11;
	}
	CHECK(on_host == 1, "a target region without a device did not run on the host");
	CHECK(sum == 3L * N * (N - 1) / 2 && out == 11, "target map: sum %ld, out %d", sum, out);
}

/* The combined constructs. */
static void combined(void)
{
	long sum = 0;

#pragma omp target teams distribute parallel for map(to: a) map(from: b) reduction(+: sum)
	for (int i = 0; i < N; i++) {
		b[i] = a[i] + 1;
		sum += a[i];
	}
	CHECK(sum == (long)N * (N - 1) / 2, "target teams distribute parallel for reduction: %ld",
	      sum);
	for (int i = 0; i < N; i++)
		CHECK(b[i] == i + 1, "target teams distribute parallel for: b[%d] = %d", i, b[i]);
#pragma omp target parallel for map(tofrom: b) device(omp_get_initial_device())
	for (int i = 0; i < N; i++)
		b[i] *= 2;
	for (int i = 0; i < N; i++)
		CHECK(b[i] == 2 * (i + 1), "target parallel for: b[%d] = %d", i, b[i]);
}

/* target data with updates, and enter/exit data. */
static void data(void)
{
	int v = 1, seen = -1;

#pragma omp target data map(tofrom: v) map(to: a)
	{
#pragma omp target map(tofrom: v)
		v += 10;
		v += 100;       /* on the host; with no device host and "device" are one */
#pragma omp target update to(v)
#pragma omp target map(from: seen) map(tofrom: v)
		seen = v;
#pragma omp target update from(v)
	}
	CHECK(seen == 111 && v == 111, "target data/update: seen %d, v %d, expected 111", seen, v);

	int *p = b;
	for (int i = 0; i < N; i++)
		b[i] = 1;
#pragma omp target enter data map(to: p[0:N])
#pragma omp target map(alloc: p[0:N])
	for (int i = 0; i < N; i++)
		p[i] += i;
#pragma omp target exit data map(from: p[0:N])
	for (int i = 0; i < N; i++)
		CHECK(b[i] == 1 + i, "target enter/exit data: b[%d] = %d", i, b[i]);
}

/* target nowait with a dependence, finished by taskwait. */
static void deferred(void)
{
	int x = 0, y = -1;

#pragma omp parallel
#pragma omp single
	{
#pragma omp target nowait map(tofrom: x) depend(out: x)
		x = 42;
#pragma omp task depend(in: x) shared(x, y)
		y = x;
#pragma omp taskwait
	}
	CHECK(x == 42 && y == 42, "target nowait then a dependent task: x %d, y %d", x, y);
}

/* All of them. */
int main(void)
{
	maps();
	combined();
	data();
	deferred();
	return 0;
}
