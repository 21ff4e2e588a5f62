/*
 * taskloop.c - the taskloop construct (GOMP_taskloop, GOMP_taskloop_ull):
 * every iteration runs once under grainsize, num_tasks, neither, nogroup
 * (then taskwait), collapse(2), a negative step, unsigned long long
 * variables, if(0), final, untied, priority and taskloop simd; grainsize(g)
 * gives each task between min(g, iterations) and 2g - 1 iterations and
 * num_tasks(n) makes min(n, iterations) tasks (OpenMP's rules; a task is
 * told apart by a firstprivate flag); lastprivate and firstprivate;
 * reduction(+) and reduction(*) on the taskloop; a taskloop from every
 * thread of the team at once.
 */
#include "check.h"

#define N 1000
#define MAXTASKS 1100

static int count[N], tasks, per_task[MAXTASKS];

/* Check every iteration ran `times` times; clear. */
static void check_once(const char *name, int n, int times)
{
	for (int i = 0; i < N; i++)
		CHECK(count[i] == (i < n ? times : 0), "%s: iteration %d ran %d times", name, i,
		      count[i]);
	memset(count, 0, sizeof count);
}

/* Count the tasks and the iterations each ran (first visit claims a slot). */
static void visit(int i, int *slot)
{
	if (*slot < 0)
		*slot = ATOMIC_ADD(&tasks, 1) - 1;
	CHECK(*slot < MAXTASKS, "too many tasks");
	ATOMIC_ADD(&per_task[*slot], 1);
	ATOMIC_ADD(&count[i], 1);
}

/* grainsize(g) over n iterations: each task's share obeys OpenMP's bounds. */
static void grainsize(int n, int g)
{
	int slot = -1;

	tasks = 0;
	memset(per_task, 0, sizeof per_task);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(g) firstprivate(slot)
	for (int i = 0; i < n; i++)
		visit(i, &slot);
	check_once("taskloop grainsize", n, 1);
	int lo = g < n ? g : n;
	for (int t = 0; t < tasks; t++)
		CHECK(per_task[t] >= lo && per_task[t] < 2 * g, "taskloop grainsize(%d) over %d "
		      "iterations: a task ran %d iterations (want %d to %d)", g, n, per_task[t], lo,
		      2 * g - 1);
}

/* num_tasks(k) over n iterations: exactly min(k, n) tasks. */
static void num_tasks(int n, int k)
{
	int slot = -1;

	tasks = 0;
	memset(per_task, 0, sizeof per_task);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop num_tasks(k) firstprivate(slot)
	for (int i = 0; i < n; i++)
		visit(i, &slot);
	check_once("taskloop num_tasks", n, 1);
	CHECK(tasks == (k < n ? k : n), "taskloop num_tasks(%d) over %d iterations made %d tasks",
	      k, n, tasks);
}

/* The other forms, all checked for coverage. */
static void forms(void)
{
	int last = -1, fp = 3, bad = 0;
	static int grid[20][50];

#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop
		for (int i = 0; i < N; i++)
			ATOMIC_ADD(&count[i], 1);
#pragma omp taskloop nogroup grainsize(7)
		for (int i = 0; i < N; i++)
			ATOMIC_ADD(&count[i], 1);
#pragma omp taskwait
#pragma omp taskloop num_tasks(9)
		for (int i = N - 1; i >= 0; i -= 2)
			ATOMIC_ADD(&count[i], 1);
#pragma omp taskloop num_tasks(9)
		for (int i = N - 2; i >= 0; i -= 2)
			ATOMIC_ADD(&count[i], 1);
#pragma omp taskloop collapse(2) grainsize(30)
		for (int i = 0; i < 20; i++)
			for (int j = 0; j < 50; j++)
				ATOMIC_ADD(&grid[i][j], 1);
#pragma omp taskloop if (0) untied priority(2)
		for (int i = 0; i < N; i++)
			ATOMIC_ADD(&count[i], 1);
#pragma omp taskloop final(1) mergeable
		for (int i = 0; i < N; i++)
			ATOMIC_ADD(&count[i], 1);
#pragma omp taskloop simd grainsize(64)
		for (int i = 0; i < N; i++)
			ATOMIC_ADD(&count[i], 1);
#pragma omp taskloop lastprivate(last) firstprivate(fp) grainsize(100)
		for (int i = 0; i < N; i++) {
			if (fp != 3)
				ATOMIC_STORE(&bad, 1);
			last = i * fp;
		}
	}
	check_once("taskloop forms", N, 6);
	for (int i = 0; i < 20; i++)
		for (int j = 0; j < 50; j++)
			CHECK(grid[i][j] == 1, "taskloop collapse(2): (%d, %d) ran %d times", i, j,
			      grid[i][j]);
	CHECK(!bad, "taskloop firstprivate: a task's copy was not 3");
	CHECK(last == 3 * (N - 1), "taskloop lastprivate %d, expected %d", last, 3 * (N - 1));
}

/* unsigned long long taskloops across 2^63. */
static void ull_loop(void)
{
	unsigned long long lo = (1ULL << 63) - 500;

#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop grainsize(33)
		for (unsigned long long i = lo; i < lo + N; i++)
			ATOMIC_ADD(&count[i - lo], 1);
#pragma omp taskloop num_tasks(5)
		for (unsigned long long i = lo + N; i > lo; i -= 3)
			ATOMIC_ADD(&count[i - lo - 1], 1);
	}
	for (int i = 0; i < N; i++)
		CHECK(count[i] == 1 + ((N - 1 - i) % 3 == 0), "unsigned long long taskloop: "
		      "iteration %d ran %d times", i, count[i]);
	memset(count, 0, sizeof count);
}

/* Reductions on the taskloop. */
static void reductions(void)
{
	long sum = 7;
	double prod = 1.0;

#pragma omp parallel
#pragma omp single
#pragma omp taskloop reduction(+: sum) reduction(*: prod) grainsize(50)
	for (int i = 0; i < N; i++) {
		sum += i;
		if (i % 250 == 0)
			prod *= 3.0;
	}
	CHECK(sum == 7 + (long)N * (N - 1) / 2, "taskloop reduction(+): %ld", sum);
	CHECK(prod == 81.0, "taskloop reduction(*): %g, expected 81", prod);
}

/* A taskloop from every thread of the team. */
static void every_thread(void)
{
	int n = 0;

#pragma omp parallel
	{
#pragma omp single nowait
		n = omp_get_num_threads();
#pragma omp taskloop grainsize(100)
		for (int i = 0; i < N; i++)
			ATOMIC_ADD(&count[i], 1);
	}
	check_once("a taskloop in every thread", N, n);
}

/* All of them. */
int main(void)
{
	grainsize(N, 1);
	grainsize(N, 7);
	grainsize(N, 64);
	grainsize(N, 999);
	grainsize(10, 64);
	num_tasks(N, 1);
	num_tasks(N, 7);
	num_tasks(N, 1000);
	num_tasks(5, 64);
	forms();
	ull_loop();
	reductions();
	every_thread();
	return 0;
}
