/*
 * task_reduction.c - task reductions: reduction(task, +: x) on a parallel
 * (GOMP_parallel_reductions), on a worksharing loop (GOMP_loop_start with
 * reductions, GOMP_workshare_task_reduction_unregister), on ordered,
 * doacross and unsigned long long loops (GOMP_loop_ordered_start,
 * GOMP_loop_doacross_start, GOMP_loop_ull_start, _ull_ordered_start,
 * _ull_doacross_start) and on sections (GOMP_sections2_start), with tasks
 * taking part through in_reduction;
 * taskgroup task_reduction with in_reduction tasks and taskloops
 * (GOMP_taskgroup_reduction_register, GOMP_task_reduction_remap), nested
 * taskgroups, several variables and operators at once.  Every
 * contribution counts exactly once, whichever thread runs the task.
 */
#include "check.h"

/* reduction(task, ...) on a parallel: implicit and explicit tasks add. */
static void on_parallel(void)
{
	long x = 100;
	int n = 0;

#pragma omp parallel reduction(task, +: x)
	{
#pragma omp single nowait
		n = omp_get_num_threads();
		x += 1;
		for (int t = 0; t < 20; t++) {
#pragma omp task in_reduction(+: x)
			x += 10;
		}
	}
	CHECK(x == 100 + (long)n * (1 + 200), "parallel reduction(task, +): %ld for %d threads, "
	      "expected %ld", x, n, 100 + (long)n * 201);
}

/* reduction(task, ...) on a for and on sections. */
static void on_worksharing(void)
{
	long x = 0, y = 0;

#pragma omp parallel
	{
#pragma omp for reduction(task, +: x) schedule(dynamic, 4)
		for (int i = 0; i < 100; i++) {
			x += 1;
#pragma omp task in_reduction(+: x) firstprivate(i)
			x += i;
		}
#pragma omp sections reduction(task, +: y)
		{
#pragma omp section
			{
#pragma omp task in_reduction(+: y)
				y += 1;
			}
#pragma omp section
			{
#pragma omp task in_reduction(+: y)
				y += 10;
				y += 100;
			}
		}
	}
	CHECK(x == 100 + 4950, "for reduction(task, +): %ld, expected %d", x, 100 + 4950);
	CHECK(y == 111, "sections reduction(task, +): %ld, expected 111", y);
}

/* Task reductions on ordered, doacross and unsigned long long loops, which
 * gcc starts with GOMP_loop_ordered_start, GOMP_loop_doacross_start,
 * GOMP_loop_ull_start, GOMP_loop_ull_ordered_start and
 * GOMP_loop_ull_doacross_start; the loops' own guarantees hold too. */
static void on_loop_kinds(void)
{
	long a = 0, b = 0, c = 0, d = 0, e = 0;
	int seq[100], next = 0;
	static long chain[41], uchain[41];
	unsigned long long lo = (1ULL << 63) - 50;

#pragma omp parallel
	{
#pragma omp for ordered reduction(task, +: a) schedule(dynamic, 3)
		for (int i = 0; i < 100; i++) {
#pragma omp task in_reduction(+: a) firstprivate(i)
			a += i;
#pragma omp ordered
			seq[next++] = i;
		}
#pragma omp for ordered(1) reduction(task, +: b) schedule(static)
		for (int i = 1; i <= 40; i++) {
#pragma omp ordered depend(sink: i - 1)
			chain[i] = chain[i - 1] + i;
#pragma omp ordered depend(source)
#pragma omp task in_reduction(+: b)
			b += 1;
		}
#pragma omp for reduction(task, +: c) schedule(dynamic, 7)
		for (unsigned long long u = lo; u < lo + 100; u++) {
#pragma omp task in_reduction(+: c) firstprivate(u)
			c += (long)(u - lo);
		}
#pragma omp for ordered reduction(task, +: d) schedule(guided)
		for (unsigned long long u = lo; u < lo + 100; u++) {
#pragma omp task in_reduction(+: d)
			d += 2;
#pragma omp ordered
			seq[u - lo] = -(int)(u - lo);
		}
#pragma omp for ordered(1) reduction(task, +: e) schedule(static)
		for (unsigned long long u = lo + 1; u <= lo + 40; u++) {
#pragma omp ordered depend(sink: u - 1)
			uchain[u - lo] = uchain[u - lo - 1] + 1;
#pragma omp ordered depend(source)
#pragma omp task in_reduction(+: e)
			e += 3;
		}
	}
	CHECK(a == 4950 && b == 40 && c == 4950 && d == 200 && e == 120, "task reductions on "
	      "ordered/doacross/unsigned long long loops: %ld %ld %ld %ld %ld, expected 4950 40 "
	      "4950 200 120", a, b, c, d, e);
	CHECK(next == 100, "ordered loop with a task reduction: %d ordered parts", next);
	for (int i = 0; i < 100; i++)
		CHECK(seq[i] == -i, "ordered unsigned long long loop with a task reduction: part "
		      "%d is %d", i, seq[i]);
	CHECK(chain[40] == 820 && uchain[40] == 40, "doacross loops with a task reduction: chains "
	      "end at %ld and %ld, expected 820 and 40", chain[40], uchain[40]);
}

/* taskgroup task_reduction with tasks and taskloops, nested, several operators. */
static void on_taskgroup(void)
{
	long s = 0, inner = 0;
	double p = 1.0;
	int mx = -1;

#pragma omp parallel
#pragma omp single
	{
#pragma omp taskgroup task_reduction(+: s) task_reduction(*: p) task_reduction(max: mx)
		{
			for (int t = 0; t < 50; t++) {
#pragma omp task in_reduction(+: s) in_reduction(max: mx) firstprivate(t)
				{
					s += t;
					mx = t * 2 > mx ? t * 2 : mx;
				}
			}
			for (int t = 0; t < 4; t++) {
#pragma omp task in_reduction(*: p)
				p *= 2.0;
			}
#pragma omp taskloop in_reduction(+: s) grainsize(10)
			for (int i = 0; i < 200; i++)
				s += 1;
#pragma omp task in_reduction(+: s)
			{
				/* a nested taskgroup with a reduction of its own */
#pragma omp taskgroup task_reduction(+: inner)
				{
					for (int t = 0; t < 10; t++) {
#pragma omp task in_reduction(+: inner, s)
						{
							inner += 3;
							s += 1000;
						}
					}
				}
				s += inner;
			}
		}
	}
	CHECK(inner == 30, "nested taskgroup task_reduction: %ld, expected 30", inner);
	CHECK(s == 1225 + 200 + 10000 + 30, "taskgroup task_reduction(+): %ld, expected %d", s,
	      1225 + 200 + 10000 + 30);
	CHECK(p == 16.0, "taskgroup task_reduction(*): %g, expected 16", p);
	CHECK(mx == 98, "taskgroup task_reduction(max): %d, expected 98", mx);
}

/* All four. */
int main(void)
{
	on_parallel();
	on_worksharing();
	on_loop_kinds();
	on_taskgroup();
	return 0;
}
