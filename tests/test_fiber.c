/*
 * test_fiber.c - fibers: switching back and forth keeps registers and
 * floating point state, a fiber suspended on one thread resumes on another,
 * reset reuses a stack, and running into the guard page is a clear crash
 * (a message naming the overflow, then SIGSEGV), not silent corruption.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "asteal.h"
#include "fiber.h"
#include "testutil.h"

static fiber native_main;
static fiber *ping;
static fiber *return_to;
static long counter;
static double fsum;

/* Count and accumulate, switching back after every step. */
static void ping_entry(void *arg)
{
	long step = (long)arg;
	double x = 0.5;

	for (;;) {
		counter += step;
		x *= 1.5;
		fsum = x;
		fiber_switch(ping, return_to);
	}
}

/* 1000 round trips; state on both sides survives every switch. */
static void test_switch(void **state)
{
	long i;
	double y = 1.0;

	(void)state;
	fiber_init_native(&native_main);
	ping = fiber_create(64 * 1024, ping_entry, (void *)7L);
	assert_non_null(ping);
	return_to = &native_main;
	counter = 0;
	for (i = 1; i <= 1000; i++) {
		y += 0.25;
		fiber_switch(&native_main, ping);
		assert_int_equal(counter, 7 * i);
		if (i == 1)
			assert_true(fsum == 0.75);
	}
	assert_true(y == 1.0 + 0.25 * 1000);
	/* Reset: the same stack starts over at the entry. */
	fiber_reset(ping, ping_entry, (void *)1L);
	counter = 0;
	fiber_switch(&native_main, ping);
	assert_int_equal(counter, 1);
	fiber_destroy(ping);
}

static fiber *wanderer;
static pthread_t seen[2];

/* Record the thread we run on, twice, switching out in between. */
static void wander_entry(void *arg)
{
	(void)arg;
	seen[0] = pthread_self();
	fiber_switch(wanderer, return_to);
	seen[1] = pthread_self();
	fiber_switch(wanderer, return_to);
	abort();
}

/* A thread that switches into the wanderer once and returns. */
static void *visit(void *arg)
{
	fiber me;

	(void)arg;
	fiber_init_native(&me);
	return_to = &me;
	fiber_switch(&me, wanderer);
	return NULL;
}

/* Suspended on one thread, resumed on another. */
static void test_migrate(void **state)
{
	pthread_t a, b;

	(void)state;
	wanderer = fiber_create(64 * 1024, wander_entry, NULL);
	assert_non_null(wanderer);
	assert_int_equal(pthread_create(&a, NULL, visit, NULL), 0);
	pthread_join(a, NULL);
	assert_int_equal(pthread_create(&b, NULL, visit, NULL), 0);
	pthread_join(b, NULL);
	assert_true(pthread_equal(seen[0], a));
	assert_true(pthread_equal(seen[1], b));
	fiber_destroy(wanderer);
}

/* Recurse with 4 KiB frames until the stack runs out. */
static long deep(long n)
{
	volatile char frame[4096];

	frame[0] = (char)n;
	frame[4095] = (char)n;
	return n == 0 ? frame[0] : deep(n - 1) + frame[4095];
}

/* The root task of the overflow child: far deeper than 64 KiB allows. */
static void overflow_task(void *arg)
{
	*(long *)arg = deep(100000);
}

/* The overflow child: one worker, a 64 KiB stack, a task far deeper. */
static void overflow_child(void)
{
	asteal_options o;
	long r = 0;

	asteal_options_init(&o);
	o.workers = 1;
	o.stack_size = 64 * 1024;
	if (asteal_start(&o) < 0)
		_exit(3);
	asteal_run(overflow_task, &r);
	_exit(4);   /* must not get here */
}

/* In a child process: a task overflows its 64 KiB stack. */
static void test_guard_page(void **state)
{
	char buf[4096];
	int status = test_in_child(overflow_child, buf, sizeof(buf));

	(void)state;
	assert_true(status != -1);
	/* Normally the process dies of SIGSEGV; under ASan its own report
	 * follows ours and it exits non-zero. */
	if (WIFSIGNALED(status))
		assert_int_equal(WTERMSIG(status), SIGSEGV);
	else
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
		            WEXITSTATUS(status) != 4);
	if (strstr(buf, "fiber stack overflow") == NULL)
		fail_msg("no overflow message; stderr was: %s", buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_migrate),
		cmocka_unit_test(test_guard_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
