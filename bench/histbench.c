/*
 * histbench.c - asteal-histbench: what asteald's history costs per change,
 * without the exchange around it.  It drives the history module the way
 * the scheduler does at every tick (daemon/scheduler.c): N jobs, each
 * changing its desire with probability R per quantum (and two jobs'
 * allotments rotating every quantum, as with more jobs than CPUs), so
 * history_allot for every job that changed, history_usage for every job
 * that reported (a heartbeat every 25 quanta besides its changes),
 * history_advance and history_flush; Q quanta of L = 10 ms of quantum time,
 * as fast as the machine goes.  It prints the process's CPU time (user and
 * system) per run written and per tick, the transactions, and the
 * database's size, so that two builds of the history can be compared in
 * one sitting on a machine too noisy to time the daemon to 1%.
 *
 *   asteal-histbench --db FILE [--jobs N] [--quanta Q] [--rate R]
 *                    [--seed S] [--flush-runs K]
 *
 * --flush-runs K calls history_flush only every second of quanta or when K
 * closed runs wait (the way asteald called it before the history batched
 * its writes itself), instead of at every tick.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history.h"

#define QNS 10000000LL          /* L = 10 ms */
#define T0 1800000000000000000LL

/* The next pseudo-random number of a stream (xorshift64). */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* This process's user and system CPU seconds. */
static void cpu(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
	const char *db = NULL;
	int n = 100, i;
	long quanta = 6000;
	double rate = 1, u0, s0, u1, s1;
	uint64_t rng = 1;
	struct history *h;
	struct history_stats st;
	struct stat sb;
	char why[256];
	int64_t *id;
	int *desire, *allot;
	long runs = 0, flush_runs = 0, flushed = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--db") == 0)
			db = argv[i + 1];
		else if (strcmp(argv[i], "--jobs") == 0)
			n = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--quanta") == 0)
			quanta = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--rate") == 0)
			rate = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--seed") == 0)
			rng = strtoull(argv[i + 1], NULL, 0) | 1;
		else if (strcmp(argv[i], "--flush-runs") == 0)
			flush_runs = atol(argv[i + 1]);
		else
			break;
	}
	if (db == NULL || i != argc || n < 3 || quanta < 1 || rate < 0 || rate > 1) {
		fprintf(stderr, "usage: asteal-histbench --db FILE [--jobs N] "
		        "[--quanta Q] [--rate 0..1] [--seed S] [--flush-runs K]\n");
		return 2;
	}
	unlink(db);
	h = history_open(db, NULL, why, sizeof(why));
	id = calloc((size_t)n, sizeof(*id));
	desire = calloc((size_t)n, sizeof(*desire));
	allot = calloc((size_t)n, sizeof(*allot));
	if (h == NULL || id == NULL || desire == NULL || allot == NULL) {
		fprintf(stderr, "histbench: %s\n", h == NULL ? why : "out of memory");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct history_job j = { "bench", 0, 1000 + i, "bench", T0, 8, 0 };

		id[i] = history_job_begin(h, &j);
		desire[i] = 1;
		allot[i] = i < 2;
	}
	cpu(&u0, &s0);
	for (long q = 0; q < quanta; q++) {
		for (i = 0; i < n; i++) {
			int changed = q == 0;
			struct history_quantum hq;
			/* work, steal, mug, sleep, preempted, allotted */
			static const int64_t use[USAGE_N] = {
				9000000, 500000, 0, 400000, 100000, 10000000 };

			if ((double)(next_rand(&rng) >> 11) * 0x1p-53 < rate) {
				desire[i] = desire[i] >= 8 ? 7 : desire[i] <= 1 ? 2
				            : desire[i] + (next_rand(&rng) & 1 ? 1 : -1);
				changed = 1;
			}
			/* Two CPUs rotate among the jobs. */
			if (i == (int)(q % n) || i == (int)((q + 1) % n) ||
			    i == (int)((q + 2) % n) || i == (int)((q + n - 1) % n))
				changed = 1;
			if (changed || (q + i) % 25 == 0)
				history_usage(h, id[i], use);
			if (!changed)
				continue;
			allot[i] = i == (int)((q + 1) % n) || i == (int)((q + 2) % n);
			memset(&hq, 0, sizeof(hq));
			hq.quantum = q;
			hq.start_ns = T0 + q * QNS;
			hq.end_ns = hq.start_ns + QNS;
			hq.desire = desire[i];
			hq.availability = allot[i];
			hq.allotment = allot[i];
			hq.cpus = allot[i] ? (i == (int)((q + 1) % n) ? "0" : "1") : "";
			hq.cls = 2;
			if (history_allot(h, id[i], &hq) < 0) {
				fprintf(stderr, "histbench: %s\n", history_error(h));
				return 1;
			}
			runs++;
		}
		history_advance(h, q, T0 + (q + 1) * QNS);
		if (flush_runs > 0 && q - flushed < 100 &&
		    history_queued(h) < (size_t)flush_runs)
			continue;
		flushed = q;
		if (history_flush(h) < 0) {
			fprintf(stderr, "histbench: %s\n", history_error(h));
			return 1;
		}
	}
	cpu(&u1, &s1);
	history_stats(h, &st);
	history_close(h);
	stat(db, &sb);
	printf("jobs=%d quanta=%ld rate=%g runs=%ld user_s=%.3f sys_s=%.3f "
	       "us_per_run=%.2f us_per_tick=%.1f transactions=%lld db_bytes=%lld "
	       "share_of_core_at_L10ms=%.2f%%\n", n, quanta, rate, runs, u1 - u0,
	       s1 - s0, (u1 - u0 + s1 - s0) * 1e6 / (double)(runs ? runs : 1),
	       (u1 - u0 + s1 - s0) * 1e6 / (double)quanta,
	       (long long)st.transactions, (long long)sb.st_size,
	       100.0 * (u1 - u0 + s1 - s0) / ((double)quanta * QNS * 1e-9));
	free(id);
	free(desire);
	free(allot);
	return 0;
}
