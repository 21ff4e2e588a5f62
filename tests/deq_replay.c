/*
 * deq_replay.c - check that what asteald recorded is exactly DEQ's answer:
 * replay the recorded desires of every quantum through deq_allot (the same
 * module, fed as the scheduler feeds it: the jobs present in that quantum,
 * in id order, each with the state DEQ returned for it the quantum before)
 * and compare the allotment, availability and CPU set of every job with
 * the history's.
 *
 *   deq_replay DB CPULIST      exit 0 when every quantum matches; 1 with
 *                              the first mismatches; 2 on bad use
 *
 * The database must hold one daemon run (quantum numbers restart with each
 * daemon).  CPULIST is the daemon's CPUs, e.g. 0-1 (slot i is the i-th).
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
	char cpus[256];
};

/* A job's DEQ state between quanta. */
struct state {
	long long job;
	struct deq_job d;
	long long last_q;       /* the quantum it was last in */
};

/* Order runs by job (then first quantum). */
static int by_job(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

int main(int argc, char **argv)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	struct run *runs = NULL;
	struct state *states = NULL;
	struct deq_job *in = NULL;
	size_t nruns = 0, cap = 0, i, nstates = 0;
	int cpus[CPULIST_MAX], P, bad = 0;
	long long qmin = -1, qmax = -1, q, checked = 0;
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
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT job, first_quantum, last_quantum, desire,"
	                       " availability, allotment, cpus FROM allotments",
	                       -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "deq_replay: %s: %s\n", argv[1], sqlite3_errmsg(db));
		return 2;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct run *r;
		if (nruns == cap) {
			cap = cap ? 2 * cap : 1024;
			runs = realloc(runs, cap * sizeof(*runs));
			if (runs == NULL)
				return 2;
		}
		r = &runs[nruns++];
		r->job = sqlite3_column_int64(st, 0);
		r->first = sqlite3_column_int64(st, 1);
		r->last = sqlite3_column_int64(st, 2);
		r->desire = sqlite3_column_int(st, 3);
		r->availability = sqlite3_column_int(st, 4);
		r->allotment = sqlite3_column_int(st, 5);
		snprintf(r->cpus, sizeof(r->cpus), "%s",
		         (const char *)sqlite3_column_text(st, 6));
		if (qmin < 0 || r->first < qmin)
			qmin = r->first;
		if (r->last > qmax)
			qmax = r->last;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (nruns == 0) {
		fprintf(stderr, "deq_replay: no allotment records\n");
		return 1;
	}
	qsort(runs, nruns, sizeof(*runs), by_job);
	states = calloc(nruns, sizeof(*states));
	in = calloc(nruns, sizeof(*in));
	if (states == NULL || in == NULL)
		return 2;
	for (q = qmin; q <= qmax && bad < 10; q++) {
		size_t idx[4096];
		int n = 0, k;

		/* The jobs in quantum q, in id order (runs are sorted by job). */
		for (i = 0; i < nruns && n < 4096; i++)
			if (runs[i].first <= q && q <= runs[i].last)
				idx[n++] = i;
		if (n == 0)
			continue;
		for (k = 0; k < n; k++) {
			struct run *r = &runs[idx[k]];
			struct state *s = NULL;
			size_t j;
			for (j = 0; j < nstates; j++)
				if (states[j].job == r->job)
					s = &states[j];
			if (s == NULL || s->last_q != q - 1) {
				/* New to the scheduler (or back after an
				 * absence): DEQ's state starts afresh. */
				if (s == NULL)
					s = &states[nstates++];
				memset(s, 0, sizeof(*s));
				s->job = r->job;
			}
			s->d.desire = r->desire;
			in[k] = s->d;
		}
		if (deq_allot(P, in, n, (uint64_t)q) < 0) {
			fprintf(stderr, "deq_replay: quantum %lld: deq_allot failed\n", q);
			return 1;
		}
		for (k = 0; k < n; k++) {
			struct run *r = &runs[idx[k]];
			int set[CPULIST_MAX], m = 0, slot;
			char got[256];
			size_t j;
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
			for (j = 0; j < nstates; j++)
				if (states[j].job == r->job) {
					states[j].d = in[k];
					states[j].last_q = q;
				}
		}
		checked++;
	}
	printf("%lld quanta replayed through DEQ: %s\n", checked,
	       bad ? "MISMATCH" : "every allotment, availability and CPU set equal");
	free(runs);
	free(states);
	free(in);
	return bad ? 1 : 0;
}
