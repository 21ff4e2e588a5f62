/*
 * greedy.c - a job that takes more than it asks for, for the confinement
 * test (tests/rigid.test.sh): linked with libasteal and run with one
 * worker (ASTEAL_WORKERS=1), so that it reports a desire of 1, it spins
 * two threads of its own besides its root task for SECONDS.  Held to its
 * allotment it uses one CPU; unconfined, it takes up to three.  With
 * --serial it runs no root task at all (desire 0, holding no CPU) and
 * spins on its main thread alone, as a program's serial part outside the
 * runtime does: the daemon holds it to the CPUs no job holds.
 *
 *   greedy [--serial] SECONDS
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asteal.h"
#include "qtime.h"

static uint64_t until_ns;
static atomic_ulong spins;

/* Spin until the end (a thread of its own, or the root task with polls). */
static void *spin(void *arg)
{
	unsigned long n = 0;

	while (qtime_now_ns() < until_ns) {
		for (int i = 0; i < 10000; i++)
			__asm__ volatile("" ::: "memory");
		n++;
		if (arg != NULL)
			asteal_poll();
	}
	atomic_fetch_add(&spins, n);
	return NULL;
}

/* The root task: spin, polling (a running job, desire 1). */
static void root(void *arg)
{
	(void)arg;
	spin(&until_ns);
}

/* Start the runtime, the two greedy threads and the root (or, serial,
 * spin on the main thread only); 0 when all ran. */
int main(int argc, char **argv)
{
	pthread_t t[2];
	char *end;
	double s;
	int serial = argc == 3 && strcmp(argv[1], "--serial") == 0;

	if (argc != 2 + serial || (s = strtod(argv[1 + serial], &end)) <= 0 ||
	    *end != '\0' || s > 3600) {
		fprintf(stderr, "usage: greedy [--serial] SECONDS\n");
		return 2;
	}
	if (asteal_start(NULL) < 0) {
		fprintf(stderr, "greedy: asteal_start failed\n");
		return 1;
	}
	until_ns = qtime_now_ns() + (uint64_t)(s * 1e9);
	if (serial) {
		spin(NULL);
		asteal_stop();
		printf("greedy: serial, %lu spins\n", (unsigned long)atomic_load(&spins));
		return atomic_load(&spins) > 0 ? 0 : 1;
	}
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, spin, NULL) != 0) {
			fprintf(stderr, "greedy: pthread_create failed\n");
			return 1;
		}
	if (asteal_run(root, NULL) < 0) {
		fprintf(stderr, "greedy: asteal_run failed\n");
		return 1;
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	asteal_stop();
	printf("greedy: %d worker(s), %lu spins\n", 1, (unsigned long)atomic_load(&spins));
	return atomic_load(&spins) > 0 ? 0 : 1;
}
