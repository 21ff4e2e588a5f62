/*
 * deque.c (bench) - what the owner pays to push an entry and pop it back,
 * public (plain Chase-Lev: the pop takes the seq_cst fence) against
 * private (split deque: no fence), with one public entry underneath as in
 * a running job.  No thieves: this is the owner's own cost, the one that
 * lazy spawning's pushes pay when nobody steals them.  Rounds alternate
 * the two so that a slow spell of the host hits both; the table gives
 * each one's best and the ratio.
 *
 *   asteal-dequebench [--pairs N] [--rounds R]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deque.h"
#include "qtime.h"

/* Seconds on the monotonic clock. */
static double now(void)
{
	return (double)qtime_now_ns() * 1e-9;
}

/* Push two entries (public or private) and pop them back, n times; the
 * nanoseconds per entry pushed and popped, or -1 when the deque failed. */
static double run(deque *d, long n, int private)
{
	dq_entry e = { NULL, NULL, NULL }, o;
	double t0 = now();
	long i;

	for (i = 0; i < n; i++) {
		e.arg = (void *)(uintptr_t)i;
		if (private) {
			dq_push_private(d, &e);
			dq_push_private(d, &e);
		} else {
			dq_push(d, &e);
			dq_push(d, &e);
		}
		if (!dq_pop(d, &o) || !dq_pop(d, &o) || o.arg != e.arg)
			return -1;
	}
	return (now() - t0) / (double)n / 2 * 1e9;
}

/* Parse a positive long option value; exits 2 on a bad one. */
static long arg_long(const char *opt, const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0) {
		fprintf(stderr, "asteal-dequebench: %s wants a positive integer, "
		        "not '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long pairs = 20000000, rounds = 5, r;
	double best[2] = { 1e30, 1e30 };
	dq_entry under = { NULL, NULL, NULL };
	deque *d;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--pairs") == 0 && i + 1 < argc)
			pairs = arg_long("--pairs", argv[++i]);
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			rounds = arg_long("--rounds", argv[++i]);
		else {
			fprintf(stderr, "usage: asteal-dequebench [--pairs N] "
			        "[--rounds R]\n");
			return 2;
		}
	}
	d = dq_create(8);
	if (d == NULL || dq_push(d, &under) < 0) {
		fprintf(stderr, "asteal-dequebench: out of memory\n");
		return 1;
	}
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 2; i++) {
			double ns = run(d, pairs, i);
			if (ns < 0) {
				fprintf(stderr, "asteal-dequebench: a pop "
				        "returned the wrong entry\n");
				return 1;
			}
			if (ns < best[i])
				best[i] = ns;
		}
	}
	printf("| entry | push + pop (ns, best of %ld x %ld) | vs public |\n",
	       rounds, pairs * 2);
	printf("|---|---|---|\n");
	printf("| public (fenced pop) | %.2f | 1.00 |\n", best[0]);
	printf("| private (no fence) | %.2f | %.2f |\n", best[1],
	       best[1] / best[0]);
	dq_destroy(d);
	return 0;
}
