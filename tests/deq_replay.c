/*
 * deq_replay.c - check that what asteald recorded is exactly DEQ's answer:
 * replay the recorded desires of every quantum through deq_allot (the same
 * module, fed as the scheduler feeds it: the jobs present in that quantum,
 * in id order, each with the state DEQ returned for it the quantum before,
 * a fresh state for a job new to the scheduler or back after an absence)
 * and compare the allotment, availability and CPU set of every job with
 * the history's.
 *
 *   deq_replay DB CPULIST      exit 0 when every quantum matches; 1 with
 *                              the first mismatches; 2 on bad use
 *
 * The database must hold one daemon run (quantum numbers restart with each
 * daemon).  CPULIST is the daemon's CPUs, e.g. 0-1 (slot i is the i-th).
 * A quantum the daemon had no tick for (table skipped: it woke up late) is
 * not replayed: every job present keeps what it had, which is checked.
 * Runs are swept quantum by quantum with a cursor per job, so the cost is
 * quanta x jobs plus DEQ's own: 10,000 jobs over 1,000 quanta take seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cpulist.h"
#include "deq.h"

/* One recorded run of quanta. */
struct run {
	long long job, first, last;
	int desire, availability, allotment;
	char cpus[64];
};

/* One job: its runs (a range of the sorted array), the cursor over them,
 * and DEQ's state for it after the quantum it was last present in. */
struct job {
	size_t run, end;        /* runs[run .. end) are this job's, cursor at run */
	long long last_q;       /* the last quantum it was present in */
	struct deq_job d;
};

/* Order runs by job, then first quantum. */
static int by_job(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The quanta without a tick: ranges, read from the table skipped. */
struct skips {
	long long (*r)[2];
	size_t n;
};

/* Whether quantum q had no tick. */
static int skipped(const struct skips *k, long long q)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->r[i][0] <= q && q <= k->r[i][1])
			return 1;
	return 0;
}

/* Read the skipped ranges (none in an old database); 0 or -1. */
static int load_skips(const char *path, struct skips *k)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t cap = 0;

	k->r = NULL;
	k->n = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT first_quantum, last_quantum FROM skipped",
	                       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return 0;               /* schema 2: no such table */
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (k->n == cap) {
			long long (*more)[2];

			cap = cap ? 2 * cap : 16;
			more = realloc(k->r, cap * sizeof(*more));
			if (more == NULL)
				break;
			k->r = more;
		}
		k->r[k->n][0] = sqlite3_column_int64(st, 0);
		k->r[k->n++][1] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return 0;
}

/* Read every run of the database into *out; their number, or -1. */
static long load(const char *path, struct run **out, long long *qmin,
                 long long *qmax)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	struct run *runs = NULL;
	size_t n = 0, cap = 0;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT job, first_quantum, last_quantum, desire,"
	                       " availability, allotment, cpus FROM allotments",
	                       -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "deq_replay: %s: %s\n", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -1;
	}
	*qmin = -1;
	*qmax = -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct run *r;

		if (n == cap) {
			struct run *more;

			cap = cap ? 2 * cap : 1024;
			more = realloc(runs, cap * sizeof(*runs));
			if (more == NULL) {
				free(runs);
				sqlite3_finalize(st);
				sqlite3_close(db);
				return -1;
			}
			runs = more;
		}
		r = &runs[n++];
		r->job = sqlite3_column_int64(st, 0);
		r->first = sqlite3_column_int64(st, 1);
		r->last = sqlite3_column_int64(st, 2);
		r->desire = sqlite3_column_int(st, 3);
		r->availability = sqlite3_column_int(st, 4);
		r->allotment = sqlite3_column_int(st, 5);
		snprintf(r->cpus, sizeof(r->cpus), "%s",
		         (const char *)sqlite3_column_text(st, 6));
		if (*qmin < 0 || r->first < *qmin)
			*qmin = r->first;
		if (r->last > *qmax)
			*qmax = r->last;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	qsort(runs, n, sizeof(*runs), by_job);
	*out = runs;
	return (long)n;
}

int main(int argc, char **argv)
{
	struct run *runs = NULL;
	struct skips sk;
	long long nskipped = 0;
	struct job *jobs;
	struct deq_job *in;
	size_t *present;
	long nruns;
	size_t njobs = 0, i;
	int cpus[CPULIST_MAX], P, bad = 0;
	long long qmin, qmax, q, checked = 0;
	char why[128];

	if (argc != 3) {
		fprintf(stderr, "usage: deq_replay DB CPULIST\n");
		return 2;
	}
	P = cpulist_parse(argv[2], cpus, CPULIST_MAX, why, sizeof(why));
	if (P <= 0) {
		fprintf(stderr, "deq_replay: %s: %s\n", argv[2], why);
		return 2;
	}
	nruns = load(argv[1], &runs, &qmin, &qmax);
	if (nruns < 0 || load_skips(argv[1], &sk) < 0)
		return 2;
	if (nruns == 0) {
		fprintf(stderr, "deq_replay: no allotment records\n");
		return 1;
	}
	jobs = calloc((size_t)nruns, sizeof(*jobs));
	in = calloc((size_t)nruns, sizeof(*in));
	present = calloc((size_t)nruns, sizeof(*present));
	if (jobs == NULL || in == NULL || present == NULL)
		return 2;
	for (i = 0; i < (size_t)nruns; i++) {
		if (i == 0 || runs[i].job != runs[i - 1].job) {
			jobs[njobs].run = i;
			jobs[njobs].last_q = -2;
			njobs++;
		}
		jobs[njobs - 1].end = i + 1;
	}
	for (q = qmin; q <= qmax && bad < 10; q++) {
		size_t n = 0, k;

		/* The jobs present in quantum q, in id order. */
		for (i = 0; i < njobs; i++) {
			struct job *j = &jobs[i];

			while (j->run < j->end && runs[j->run].last < q)
				j->run++;
			if (j->run == j->end || runs[j->run].first > q)
				continue;
			if (j->last_q != q - 1)    /* new, or back: fresh */
				memset(&j->d, 0, sizeof(j->d));
			j->d.desire = runs[j->run].desire;
			in[n] = j->d;
			present[n++] = i;
		}
		if (n == 0)
			continue;
		if (skipped(&sk, q)) {
			/* No tick: DEQ did not run, everyone kept what they
			 * had (their state goes on, unchanged). */
			nskipped++;
		} else if (deq_allot(P, in, (int)n, (uint64_t)q) < 0) {
			fprintf(stderr, "deq_replay: quantum %lld: deq_allot failed\n", q);
			return 1;
		}
		for (k = 0; k < n; k++) {
			struct job *j = &jobs[present[k]];
			const struct run *r = &runs[j->run];
			int set[CPULIST_MAX], m = 0, slot;
			char got[256];

			for (slot = 0; slot < P; slot++)
				if (deq_set_has(&in[k].cpus, slot))
					set[m++] = cpus[slot];
			if (cpulist_format(set, m, got, sizeof(got)) < 0)
				got[0] = '\0';
			if (in[k].allotment != r->allotment ||
			    in[k].availability != r->availability ||
			    strcmp(got, r->cpus) != 0) {
				printf("quantum %lld job %lld: recorded allotment %d of %d on "
				       "'%s', DEQ gives %d of %d on '%s' (desire %d)\n", q,
				       r->job, r->allotment, r->availability, r->cpus,
				       in[k].allotment, in[k].availability, got, r->desire);
				bad++;
			}
			j->d = in[k];
			j->last_q = q;
		}
		checked++;
	}
	printf("%lld quanta of %zu jobs replayed through DEQ (%lld without a "
	       "tick): %s\n", checked, njobs, nskipped,
	       bad ? "MISMATCH" : "every allotment, availability and CPU set equal");
	free(runs);
	free(sk.r);
	free(jobs);
	free(in);
	free(present);
	return bad ? 1 : 0;
}
