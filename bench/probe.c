/*
 * probe.c (bench) - how fast each CPU of this machine runs right now, and
 * how much the CPUs slow each other down.  A thread pinned to a CPU runs a
 * fixed recursion (fib(20) by plain calls: calls, returns and stack
 * traffic, the stuff of the kernels' serial leaves) and reports its wall
 * time per call: first on each CPU alone, then on all of them at once, as
 * the workers of a T2 run do.  On bare metal with a core per CPU the
 * times agree to a few per cent.  On a virtual machine whose host shares
 * its cores with other tenants they need not: here the same recursion
 * has run 2.5 times slower on one vCPU than on the other, and from one
 * round to the next, while a chain of multiplies barely moved.
 *
 * cap, the sum over the CPUs of (fastest time alone / that CPU's time
 * together), is the speedup over one worker that a perfect runtime could
 * reach on these CPUs at that moment: 2.00 for two CPUs that do not slow
 * each other.  bench/run.sh probes before every round and prints how
 * much the times varied (hostvar) beside its own, per-kernel cap.
 *
 *   asteal-probe [--iters N] [--rounds R] [--cpus C]
 *
 * runs the recursion N times (200) per CPU per phase, on the first C of
 * the CPUs this process may use (all), and prints one line per round:
 *   probe alone=A,B,... together=A,B,... spread=S cap=X
 * with each CPU's nanoseconds per call, in CPU order; spread is the
 * slowest over the fastest together.  Exit 0, 1 when a thread cannot be
 * made or pinned, 2 on bad arguments.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtime.h"

#define PROBE_FIB_N 20
#define PROBE_FIB_CALLS 21891.0      /* calls of probe_fib(PROBE_FIB_N) */

/* One pinned thread's part of a round. */
struct probe_arm {
	pthread_t thread;
	int cpu;
	long iters;
	atomic_int *go;         /* all threads start together */
	double ns;              /* the recursion's wall time per call */
	uint64_t sink;          /* the sum, so the calls are not optimised out */
};

/* Seconds on the monotonic clock. */
static double now(void)
{
	return (double)qtime_now_ns() * 1e-9;
}

/* The probe's work: a call-heavy recursion, like the kernels' serial
 * leaves (calls, returns and stack traffic, the costs that vary most when
 * the host is busy; a chain of multiplies barely moves then). */
static __attribute__((noinline)) uint64_t probe_fib(int n)
{
	if (n < 2)
		return (uint64_t)n;
	return probe_fib(n - 1) + probe_fib(n - 2);
}

/* Run the recursion on the arm's CPU once every arm is ready. */
static void *probe_run(void *p)
{
	struct probe_arm *a = p;
	volatile int fib_n = PROBE_FIB_N;
	uint64_t sum = 0;
	double t0;
	long i;

	atomic_fetch_sub(a->go, 1);
	while (atomic_load(a->go) > 0)
		;
	t0 = now();
	/* The size is read anew each time, so that the calls cannot be
	 * hoisted out of the loop as one (probe_fib is pure). */
	for (i = 0; i < a->iters; i++)
		sum += probe_fib(fib_n);
	a->ns = (now() - t0) / (double)a->iters / PROBE_FIB_CALLS * 1e9;
	a->sink = sum;
	return NULL;
}

/* Parse a positive long option value; exits 2 on a bad one. */
static long arg_long(const char *opt, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v <= 0 || errno != 0) {
		fprintf(stderr, "asteal-probe: %s wants a positive integer, "
		        "not '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

/* Run the recursion on every CPU of set at once, one arm each (*n of
 * them, in CPU order); -1 when a thread cannot be started. */
static int probe_together(const cpu_set_t *set, long iters,
                          struct probe_arm *arms, int *n)
{
	atomic_int go;
	int k = 0, cpu, e, want = CPU_COUNT(set);

	atomic_init(&go, want);
	for (cpu = 0; cpu < CPU_SETSIZE && k < want; cpu++) {
		pthread_attr_t attr;
		cpu_set_t one;

		if (!CPU_ISSET(cpu, set))
			continue;
		arms[k].cpu = cpu;
		arms[k].iters = iters;
		arms[k].go = &go;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pthread_attr_init(&attr);
		e = pthread_attr_setaffinity_np(&attr, sizeof one, &one);
		if (e == 0)
			e = pthread_create(&arms[k].thread, &attr, probe_run, &arms[k]);
		pthread_attr_destroy(&attr);
		if (e != 0) {
			fprintf(stderr, "asteal-probe: cannot start a thread on "
			        "CPU %d: %s\n", cpu, strerror(e));
			/* Release the threads already waiting, then stop. */
			atomic_store(&go, 0);
			while (k-- > 0)
				pthread_join(arms[k].thread, NULL);
			return -1;
		}
		k++;
	}
	for (e = 0; e < k; e++)
		pthread_join(arms[e].thread, NULL);
	*n = k;
	return 0;
}

/* Print a list of nanoseconds per call. */
static void probe_print(const char *label, const struct probe_arm *arms, int n)
{
	int k;

	printf(" %s=", label);
	for (k = 0; k < n; k++)
		printf("%s%.3f", k ? "," : "", arms[k].ns);
}

/* One round: each CPU of set alone, then all of them at once; print the
 * line. */
static int probe_round(const cpu_set_t *set, long iters)
{
	static struct probe_arm alone[CPU_SETSIZE], all[CPU_SETSIZE];
	double best = 0, lo = 0, hi = 0, cap = 0;
	int n = 0, k, one_n, cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		cpu_set_t one;

		if (!CPU_ISSET(cpu, set))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (probe_together(&one, iters, &alone[n], &one_n) != 0)
			return -1;
		if (n == 0 || alone[n].ns < best)
			best = alone[n].ns;
		n++;
	}
	if (probe_together(set, iters, all, &n) != 0)
		return -1;
	for (k = 0; k < n; k++) {
		if (k == 0 || all[k].ns < lo)
			lo = all[k].ns;
		if (k == 0 || all[k].ns > hi)
			hi = all[k].ns;
		cap += best / all[k].ns;
	}
	printf("probe");
	probe_print("alone", alone, n);
	probe_print("together", all, n);
	printf(" spread=%.2f cap=%.2f\n", hi / lo, cap);
	return 0;
}

int main(int argc, char **argv)
{
	long iters = 200, rounds = 1, cpus = 0, kept, r;
	cpu_set_t set;
	int i, cpu;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
			iters = arg_long("--iters", argv[++i]);
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			rounds = arg_long("--rounds", argv[++i]);
		else if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc)
			cpus = arg_long("--cpus", argv[++i]);
		else {
			fprintf(stderr, "usage: asteal-probe [--iters N] "
			        "[--rounds R] [--cpus C]\n");
			return 2;
		}
	}
	/* The CPUs this process may run on, as the jobs' workers may. */
	if (sched_getaffinity(0, sizeof set, &set) != 0) {
		perror("asteal-probe: sched_getaffinity");
		return 1;
	}
	/* Only the first C of them with --cpus (a T2 run uses two). */
	for (cpu = 0, kept = 0; cpus > 0 && cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && ++kept > cpus)
			CPU_CLR(cpu, &set);
	for (r = 0; r < rounds; r++)
		if (probe_round(&set, iters) != 0)
			return 1;
	return 0;
}
