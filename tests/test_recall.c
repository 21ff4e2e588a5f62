/*
 * test_recall.c - leave requests withdrawn as soon as they are seen.  A
 * driver thread tells workers to leave and recalls them in a tight loop
 * (worker_allot, the link thread's own call; the runtime runs in static
 * mode, so no link thread competes with it) while fork/join trees run.
 *
 * A worker that saw the request as it came to look for work (find_work)
 * skipped the pop of its own deque for it; when the recall had cleared
 * the flag by its next look, it went on to steal with the fiber it had
 * just left at a safe point, and that fiber's children, still on its
 * deque.  What it took ran on top of them, and a fiber resumed there that
 * kept no deque (one stolen after it left at a safe point) popped the
 * left fiber in the sync of a group whose children had been stolen:
 * "asteal_sync: found a child of another group on the deque".
 *
 * Besides that fatal error, every task checks as it starts that its
 * worker's deque holds no fiber entry: a task starts on an empty deque,
 * or on tasks (a batch a steal brought, the rest of a mugged deque), never
 * on a fiber that waits to be resumed (runtime.h).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "asteal.h"
#include "fib_kernels.h"       /* fib_iterative, the reference */
#include "allot.h"
#include "runtime.h"
#include "testutil.h"

/* Tasks that found a fiber entry on their worker's deque as they started. */
static _Atomic long violations;

/* Count a fiber entry (fn == NULL) on the calling worker's deque.  Only
 * the owner writes slots, and the caller runs on the owner, so the slots
 * from top (read first) to bottom are entries that were on the deque. */
static void check_deque(void)
{
	struct worker *w = worker_self();
	deque *d = (deque *)w->hot.dq;
	int64_t t = atomic_load_explicit(&d->ends.top, memory_order_acquire);
	int64_t b = atomic_load_explicit(&d->ends.bottom, memory_order_relaxed);
	dq_array *a = atomic_load_explicit(&d->array, memory_order_relaxed);
	int64_t i;

	for (i = t; i < b; i++) {
		dq_entry e;
		dq_slot_get(a, i, &e);
		if (e.fn == NULL) {
			atomic_fetch_add(&violations, 1);
			return;
		}
	}
}

struct fib_arg {
	long n, r;
};

static void fib_task(void *p);

/* Parallel fib: spawn fib(n-1), compute fib(n-2), sync. */
static long pfib(long n)
{
	struct fib_arg a = { n - 1, 0 };
	asteal_group g;
	long y;

	if (n < 2)
		return n;
	asteal_group_init(&g);
	asteal_spawn(&g, fib_task, &a);
	y = pfib(n - 2);
	asteal_sync(&g);
	return a.r + y;
}

/* Task wrapper of pfib: checks the deque it starts on first. */
static void fib_task(void *p)
{
	struct fib_arg *a = p;

	check_deque();
	a->r = pfib(a->n);
}

/* The runtime, as a task sees it. */
static struct runtime *_Atomic the_rt;

/* Record the runtime the task runs in (a root task run once). */
static void grab_rt(void *p)
{
	(void)p;
	atomic_store(&the_rt, worker_self()->rt);
}

/* The driver: allotment lo, then every worker, over and over, until told
 * to stop; then every worker, so that none stays parked. */
struct driver {
	struct runtime *rt;
	int lo;
	_Atomic int stop;
	_Atomic long rounds;
};

/* The driving thread: flip the allotment until told to stop. */
static void *drive(void *p)
{
	struct driver *dr = p;
	int all = dr->rt->nworkers;

	while (!atomic_load(&dr->stop)) {
		worker_allot(dr->rt, dr->lo, NULL, qtime_now_ns(), RT_NO_TAG);
		worker_allot(dr->rt, all, NULL, qtime_now_ns(), RT_NO_TAG);
		atomic_fetch_add_explicit(&dr->rounds, 1, memory_order_relaxed);
	}
	worker_allot(dr->rt, all, NULL, qtime_now_ns(), RT_NO_TAG);
	return NULL;
}

/* Sum of one statistic over all workers. */
static uint64_t stat_sum(size_t offset)
{
	asteal_worker_stats st[8];
	int i, n = asteal_stats(st, 8);
	uint64_t s = 0;

	for (i = 0; i < n; i++)
		s += *(uint64_t *)((char *)&st[i] + offset);
	return s;
}

/* Run fib trees with `workers` workers while the driver moves the
 * allotment between lo and all of them, until `leaves` workers have left
 * or `seconds` have passed. */
static void recall_storm(int workers, int lo, int ready_limit, long n,
                         uint64_t leaves, double seconds)
{
	asteal_options o;
	struct driver dr = { .lo = lo };
	pthread_t th;
	double end;
	long runs = 0;

	asteal_options_init(&o);
	o.workers = workers;
	o.ready_limit = ready_limit;
	assert_int_equal(asteal_start(&o), 0);
	assert_int_equal(asteal_run(grab_rt, NULL), 0);
	dr.rt = atomic_load(&the_rt);
	assert_non_null(dr.rt);
	atomic_store(&violations, 0);
	assert_int_equal(pthread_create(&th, NULL, drive, &dr), 0);
	end = test_now() + seconds;
	do {
		struct fib_arg a = { n, 0 };
		assert_int_equal(asteal_run(fib_task, &a), 0);
		assert_int_equal(a.r, (long)fib_iterative(n));
		runs++;
	} while (stat_sum(offsetof(asteal_worker_stats, leaves)) < leaves &&
	         test_now() < end);
	atomic_store(&dr.stop, 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	fprintf(stderr, "workers %d, allotment %d..%d: %ld runs, %ld rounds, "
	        "%llu leaves, %llu mugs, %llu steals, %ld violations\n",
	        workers, lo, workers, runs, atomic_load(&dr.rounds),
	        (unsigned long long)stat_sum(offsetof(asteal_worker_stats, leaves)),
	        (unsigned long long)stat_sum(offsetof(asteal_worker_stats, mugs)),
	        (unsigned long long)stat_sum(offsetof(asteal_worker_stats, steals)),
	        atomic_load(&violations));
	assert_int_equal(atomic_load(&violations), 0);
	/* The leave path was exercised. */
	assert_true(stat_sum(offsetof(asteal_worker_stats, leaves)) > 0);
	assert_int_equal(asteal_stop(), 0);
}

/* Two workers, the second told to leave and recalled.  Before the fix
 * (find_work), every run of this file failed: 20 of 20 in the plain
 * build, 10 of 10 under ASan and under TSan, most within 2 s.  3 s, or
 * 4,000 leaves, whichever comes first. */
static void test_recall_two(void **state)
{
	(void)state;
	recall_storm(2, 1, 0, 22, 4000, 3.0);
}

/* Four workers, two of them leaving: more muggers, and more thieves of
 * left fibers. */
static void test_recall_four(void **state)
{
	(void)state;
	recall_storm(4, 2, 0, 22, 4000, 3.0);
}

/* Run the cases. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_recall_two, test_stop_leftover),
		cmocka_unit_test_teardown(test_recall_four, test_stop_leftover),
	};

	/* No link thread: the driver alone moves the allotment. */
	setenv("ASTEAL_MODE", "static", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
