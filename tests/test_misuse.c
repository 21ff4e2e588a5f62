/*
 * test_misuse.c - detectable misuse of the API fails with an error code and
 * a message naming the call, or (for a broken program invariant) a clear
 * crash, and never hangs: sync/spawn outside a task, a second start, stop
 * with tasks in flight or from inside a task, calls without a runtime, bad
 * options and environment, uninitialised groups, unsynced inner groups.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "asteal.h"
#include "testutil.h"

/* Start a runtime with w workers. */
static void start(int w)
{
	asteal_options o;

	asteal_options_init(&o);
	o.workers = w;
	assert_int_equal(asteal_start(&o), 0);
}

/* A task that never runs. */
static void nothing(void *p)
{
	(void)p;
}

/* Spawn and sync outside any task fail with EPERM. */
static void test_outside_task(void **state)
{
	asteal_group g;

	(void)state;
	asteal_group_init(&g);
	errno = 0;
	assert_int_equal(asteal_spawn(&g, nothing, NULL), -1);
	assert_int_equal(errno, EPERM);
	errno = 0;
	assert_int_equal(asteal_sync(&g), -1);
	assert_int_equal(errno, EPERM);
	start(2);
	assert_int_equal(asteal_sync(&g), -1);   /* still outside a task */
	assert_int_equal(errno, EPERM);
	assert_int_equal(asteal_stop(), 0);
}

/* Start twice, stop twice, run with no runtime. */
static void test_lifecycle(void **state)
{
	int x = 0;

	(void)state;
	errno = 0;
	assert_int_equal(asteal_stop(), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(asteal_run(nothing, &x), -1);
	assert_int_equal(errno, ESRCH);
	start(1);
	assert_int_equal(asteal_start(NULL), -1);
	assert_int_equal(errno, EALREADY);
	assert_int_equal(asteal_workers(), 1);
	assert_int_equal(asteal_stop(), 0);
	assert_int_equal(asteal_stop(), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(asteal_workers(), 0);
	/* A runtime can be started again after a stop. */
	start(2);
	assert_int_equal(asteal_stop(), 0);
}

/* asteal_stop from inside a task. */
static void stop_inside(void *p)
{
	int *r = p;

	errno = 0;
	r[0] = asteal_stop();
	r[1] = errno;
}

/* Stop from inside a task is refused with EBUSY. */
static void test_stop_inside(void **state)
{
	int r[2] = { 0, 0 };

	(void)state;
	start(2);
	assert_int_equal(asteal_run(stop_inside, r), 0);
	assert_int_equal(r[0], -1);
	assert_int_equal(r[1], EBUSY);
	assert_int_equal(asteal_stop(), 0);
}

static _Atomic int root_started, root_release;

/* A root task that holds on until released. */
static void held_root(void *p)
{
	(void)p;
	atomic_store(&root_started, 1);
	while (!atomic_load(&root_release))
		sched_yield();
}

/* A thread running held_root. */
static void *root_thread(void *p)
{
	(void)p;
	asteal_run(held_root, NULL);
	return NULL;
}

/* Whether held_root has started. */
static int started(void *p)
{
	(void)p;
	return atomic_load(&root_started);
}

/* Stop while a root task runs: EBUSY; after it ends, stop works. */
static void test_stop_busy(void **state)
{
	pthread_t t;

	(void)state;
	start(2);
	assert_int_equal(pthread_create(&t, NULL, root_thread, NULL), 0);
	assert_int_equal(test_wait(started, NULL, 10.0), 0);
	errno = 0;
	assert_int_equal(asteal_stop(), -1);
	assert_int_equal(errno, EBUSY);
	atomic_store(&root_release, 1);
	pthread_join(t, NULL);
	assert_int_equal(asteal_stop(), 0);
}

/* Start with one environment variable set to a value; returns start's
 * result and leaves errno. */
static int start_with_env(const char *name, const char *value)
{
	int r;

	setenv(name, value, 1);
	r = asteal_start(NULL);
	unsetenv(name);
	if (r == 0)
		asteal_stop();
	return r;
}

/* Bad options and environment values: EINVAL, nothing started. */
static void test_bad_config(void **state)
{
	asteal_options o;

	(void)state;
	asteal_options_init(&o);
	o.workers = -1;
	errno = 0;
	assert_int_equal(asteal_start(&o), -1);
	assert_int_equal(errno, EINVAL);
	o.workers = 1;
	o.stack_size = 100;
	assert_int_equal(asteal_start(&o), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(start_with_env("ASTEAL_WORKERS", "abc"), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(start_with_env("ASTEAL_WORKERS", "0"), -1);
	assert_int_equal(start_with_env("ASTEAL_WORKERS", "100000"), -1);
	assert_int_equal(start_with_env("ASTEAL_STACK_SIZE", "12Q"), -1);
	assert_int_equal(start_with_env("ASTEAL_STACK_SIZE", "1K"), -1);
	assert_int_equal(start_with_env("ASTEAL_READY_LIMIT", "-3"), -1);
	assert_int_equal(asteal_workers(), 0);
	/* Good values work. */
	assert_int_equal(start_with_env("ASTEAL_WORKERS", "3"), 0);
	assert_int_equal(start_with_env("ASTEAL_STACK_SIZE", "1M"), 0);
}

/* Sync and spawn on a group never initialised. */
static void bad_group(void *p)
{
	int *r = p;
	asteal_group g;

	memset(&g, 0, sizeof(g));
	g.pushed = 1;
	r[0] = asteal_sync(&g);
	r[1] = errno;
	r[2] = asteal_spawn(&g, nothing, NULL);
	r[3] = errno;
}

/* An uninitialised group is refused with EINVAL. */
static void test_bad_group(void **state)
{
	int r[4] = { 0, 0, 0, 0 };

	(void)state;
	start(1);
	assert_int_equal(asteal_run(bad_group, r), 0);
	assert_int_equal(r[0], -1);
	assert_int_equal(r[1], EINVAL);
	/* The worker's deque is empty, so the spawn would push: it must
	 * refuse a group it cannot trust.  (A spawn that runs its child at
	 * once because the deque is stocked never touches the group.) */
	assert_int_equal(r[2], -1);
	assert_int_equal(r[3], EINVAL);
	assert_int_equal(asteal_stop(), 0);
}

/* A task that leaves an inner group unsynced, then syncs the outer one. */
static void unsynced(void *p)
{
	asteal_group outer, inner;
	int x = 0;

	(void)p;
	asteal_group_init(&outer);
	asteal_group_init(&inner);
	asteal_spawn(&outer, nothing, &x);
	asteal_spawn(&inner, nothing, &x);
	asteal_sync(&outer);   /* the inner child is still below ours */
}

/* The child: push every spawn, then sync the groups out of order. */
static void unsynced_child(void)
{
	asteal_options o;

	asteal_options_init(&o);
	o.workers = 1;
	o.ready_limit = 0;    /* push every spawn */
	if (asteal_start(&o) < 0)
		_exit(3);
	asteal_run(unsynced, NULL);
	_exit(4);
}

/* Syncing groups out of order is a clear crash naming the mistake. */
static void test_unsynced_inner(void **state)
{
	char buf[4096];
	int status = test_in_child(unsynced_child, buf, sizeof(buf));

	(void)state;
	assert_true(status != -1);
	assert_true(WIFSIGNALED(status) || (WIFEXITED(status) &&
	            WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 4));
	if (strstr(buf, "asteal_sync") == NULL ||
	    strstr(buf, "innermost first") == NULL)
		fail_msg("no clear message; stderr was: %s", buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_outside_task, test_stop_leftover),
		cmocka_unit_test_teardown(test_lifecycle, test_stop_leftover),
		cmocka_unit_test_teardown(test_stop_inside, test_stop_leftover),
		cmocka_unit_test_teardown(test_stop_busy, test_stop_leftover),
		cmocka_unit_test_teardown(test_bad_config, test_stop_leftover),
		cmocka_unit_test_teardown(test_bad_group, test_stop_leftover),
		cmocka_unit_test_teardown(test_unsynced_inner, test_stop_leftover),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
