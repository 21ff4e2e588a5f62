/*
 * test_admit.c - daemon/admit.c's budgets of buffered input and of
 * replies queued (test_output), without a
 * daemon: tickets of made-up uids (none of them root or ours, so none an
 * admin) charge bytes as a connection's reads would, and the answers are
 * checked against the rule admit.h states: a uid may hold ADMIT_USER_INPUT,
 * all users ADMIT_INPUT_ROOM, of which ADMIT_INPUT_NEWCOMER is kept for
 * uids that hold none; uids growing together get equal parts; what a
 * ticket held goes back when it leaves; admins are not limited.  (test_service_mem drives the same
 * rule through a real asteald.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "admit.h"
#include "conf.h"
#include "conn.h"

/* Uids for the tickets: far from root's and ours. */
#define UID0 70000

/* The bytes a connection's read adds in test_fair_parts. */
#define STEP 4096

static struct conf conf;

/* A ticket of uid holding a connection before its Hello (pidfd -1:
 * not an admin unless uid is root or ours). */
static struct admit_ticket *ticket(struct admit *a, uid_t uid)
{
	struct conn_peer who = { .uid = uid, .gid = uid, .pid = 1, .pidfd = -1 };
	struct admit_ticket *t = admit_enter(a, -1, &who);

	assert_non_null(t);
	admit_take(a, t, ADMIT_HELLO);
	return t;
}

/* The admission for the default settings. */
static struct admit *admission(void)
{
	char *argv[] = { (char *)"asteald", (char *)"--config=/dev/null", NULL };
	char why[200];
	struct admit *a;

	assert_int_equal(conf_load(&conf, 2, argv, why, sizeof(why)), 0);
	a = admit_create(&conf);
	assert_non_null(a);
	return a;
}

/* One uid alone: up to ADMIT_USER_INPUT over its connections, refused one
 * byte past it with the reason; what leaves goes back. */
static void test_user_budget(void **state)
{
	struct admit *a = admission();
	struct admit_ticket *t1 = ticket(a, UID0), *t2 = ticket(a, UID0);
	char why[300] = "";
	long most;

	(void)state;
	assert_int_equal(admit_input(a, t1, ADMIT_USER_INPUT / 2, why, sizeof(why)), 0);
	assert_int_equal(admit_input(a, t2, ADMIT_USER_INPUT / 2, why, sizeof(why)), 0);
	assert_int_equal(admit_input(a, t2, 1, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "buffered input"));
	assert_non_null(strstr(why, "over its budget"));
	print_message("%s\n", why);
	/* Less is always taken (the connection's frames were taken). */
	assert_int_equal(admit_input(a, t2, -100, NULL, 0), 0);
	assert_int_equal(admit_input_held(a, &most), ADMIT_USER_INPUT - 99);
	assert_int_equal(most, ADMIT_USER_INPUT + 1);
	admit_leave(a, t2);
	assert_int_equal(admit_input_held(a, &most), ADMIT_USER_INPUT / 2);
	assert_int_equal(most, ADMIT_USER_INPUT - 99);
	assert_int_equal(admit_input(a, t1, ADMIT_USER_INPUT / 2, why, sizeof(why)), 0);
	admit_leave(a, t1);
	assert_int_equal(admit_input_held(a, &most), 0);
	admit_free(a);
}

/* Whether a uid growing from x - STEP to x is let, as admit.h states
 * it, while the other users hold `others` in all: x at most
 * ADMIT_USER_INPUT, and the users' input within ADMIT_INPUT_ROOM, less
 * ADMIT_INPUT_NEWCOMER unless the uid held none. */
static int allowed(long x, long others)
{
	return x <= ADMIT_USER_INPUT &&
	       others + x <= ADMIT_INPUT_ROOM - (x > STEP ? ADMIT_INPUT_NEWCOMER : 0);
}

/* Many uids, one after another, each opening connections that hold 4 KiB
 * each until one is refused (and leaves, as the daemon disconnects it):
 * each gets exactly what the rule allows, the first ones their whole
 * budget, the later ones what the room has left, and every one at least
 * a frame begun (the newcomers' part); the users' input never passes the
 * room; admins are not limited; once the others are gone a uid may take
 * its whole budget again. */
static void test_room(void **state)
{
	enum { N = 24, MOST = 300 };
	static struct admit_ticket *t[N][MOST];
	struct admit *a = admission();
	struct admit_ticket *root, *again;
	long held[N], total = 0, most;
	char why[300];
	int n[N], full = 0, room = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		held[i] = 0;
		for (n[i] = 0; n[i] < MOST; n[i]++) {
			t[i][n[i]] = ticket(a, UID0 + (uid_t)i);
			if (admit_input(a, t[i][n[i]], STEP, why, sizeof(why)) < 0) {
				admit_leave(a, t[i][n[i]]);
				break;
			}
			held[i] += STEP;
		}
		assert_true(n[i] < MOST);
		assert_true(held[i] >= STEP);           /* a frame begun */
		assert_true(allowed(held[i], total));
		assert_false(allowed(held[i] + STEP, total));
		full += held[i] == ADMIT_USER_INPUT;
		room += strstr(why, "all their room") != NULL;
		if (i == 0 || held[i] != ADMIT_USER_INPUT)
			print_message("uid %d: %ld bytes, then: %s\n", UID0 + i,
			              held[i], why);
		total += held[i];
	}
	print_message("%d uids held their whole budget, %d what the room had "
	              "left\n", full, room);
	assert_int_equal(full, (ADMIT_INPUT_ROOM - ADMIT_INPUT_NEWCOMER) /
	                       ADMIT_USER_INPUT);
	assert_int_equal(room, N - full);
	assert_true(total <= ADMIT_INPUT_ROOM);
	assert_int_equal(admit_input_held(a, &most), total);

	/* An admin is limited by none of it. */
	root = ticket(a, 0);
	assert_int_equal(admit_input(a, root, 4 * ADMIT_INPUT_ROOM, why,
	                             sizeof(why)), 0);
	admit_leave(a, root);
	/* The others gone, the last uid takes its whole budget. */
	for (int i = 0; i < N - 1; i++)
		for (int j = 0; j < n[i]; j++)
			admit_leave(a, t[i][j]);
	again = ticket(a, UID0 + N - 1);
	assert_int_equal(admit_input(a, again, ADMIT_USER_INPUT - held[N - 1],
	                             why, sizeof(why)), 0);
	admit_leave(a, again);
	for (int j = 0; j < n[N - 1]; j++)
		admit_leave(a, t[N - 1][j]);
	assert_int_equal(admit_input_held(a, &most), 0);
	admit_free(a);
}

/* Many uids growing together, 4 KiB each in turn, until none may grow:
 * they hold equal parts of the room (within a read), and a uid that
 * holds none may still begin a frame. */
static void test_equal_parts(void **state)
{
	enum { N = 24 };
	struct admit *a = admission();
	struct admit_ticket *t[N], *late;
	long held[N], least = -1, most_held = 0, most;
	char why[300];

	(void)state;
	for (int i = 0; i < N; i++) {
		t[i] = ticket(a, UID0 + (uid_t)i);
		held[i] = 0;
	}
	for (int grew = 1; grew;) {
		grew = 0;
		for (int i = 0; i < N; i++) {
			if (admit_input(a, t[i], STEP, why, sizeof(why)) == 0) {
				held[i] += STEP;
				grew = 1;
			} else {
				admit_input(a, t[i], -STEP, NULL, 0);
			}
		}
	}
	for (int i = 0; i < N; i++) {
		if (least < 0 || held[i] < least)
			least = held[i];
		if (held[i] > most_held)
			most_held = held[i];
	}
	print_message("%d uids growing together: %ld to %ld bytes each\n", N,
	              least, most_held);
	assert_true(most_held - least <= STEP);
	assert_true(least * N >= ADMIT_INPUT_ROOM - ADMIT_INPUT_NEWCOMER - N * STEP);
	late = ticket(a, UID0 + N);
	assert_int_equal(admit_input(a, late, STEP, why, sizeof(why)), 0);
	assert_int_equal(admit_input(a, late, STEP, why, sizeof(why)), -1);
	admit_leave(a, late);
	for (int i = 0; i < N; i++)
		admit_leave(a, t[i]);
	assert_int_equal(admit_input_held(a, &most), 0);
	admit_free(a);
}

/* Replies queued: a uid up to ADMIT_USER_OUTPUT over its connections,
 * refused one byte past with the reason, room again once some are read
 * or a connection leaves; the users all up to ADMIT_OUTPUT_ROOM; a uid
 * that holds none is not kept (admit_leave of its last ticket frees it:
 * ASan's leak check would say otherwise). */
static void test_output(void **state)
{
	struct admit *a = admission();
	struct admit_ticket *t1 = ticket(a, UID0), *t2 = ticket(a, UID0);
	struct admit_ticket *many[ADMIT_OUTPUT_ROOM / ADMIT_USER_OUTPUT + 1];
	char why[300] = "";
	size_t i;

	(void)state;
	assert_int_equal(admit_output(a, t1, ADMIT_USER_OUTPUT / 2, why, sizeof(why)), 0);
	assert_int_equal(admit_output(a, t2, ADMIT_USER_OUTPUT / 2, why, sizeof(why)), 0);
	assert_int_equal(admit_output(a, t2, 1, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "replies waiting"));
	assert_non_null(strstr(why, "over its budget"));
	assert_int_equal(admit_output(a, t2, -4097, NULL, 0), 0);   /* read */
	assert_int_equal(admit_output(a, t2, 4096, why, sizeof(why)), 0);
	admit_leave(a, t2);
	assert_int_equal(admit_output(a, t1, ADMIT_USER_OUTPUT / 2, why, sizeof(why)), 0);
	admit_leave(a, t1);
	/* Uids each at their budget fill the users' room; the next is
	 * refused there, though within its own budget. */
	for (i = 0; i < sizeof(many) / sizeof(many[0]); i++) {
		many[i] = ticket(a, UID0 + 1 + (uid_t)i);
		assert_int_equal(admit_output(a, many[i], ADMIT_USER_OUTPUT, why,
		                              sizeof(why)),
		                 i < ADMIT_OUTPUT_ROOM / ADMIT_USER_OUTPUT ? 0 : -1);
	}
	assert_non_null(strstr(why, "all their room"));
	for (i = 0; i < sizeof(many) / sizeof(many[0]); i++)
		admit_leave(a, many[i]);
	admit_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_budget),
		cmocka_unit_test(test_room),
		cmocka_unit_test(test_equal_parts),
		cmocka_unit_test(test_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
