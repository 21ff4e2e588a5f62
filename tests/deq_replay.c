/*
 * deq_replay.c - check that what asteald recorded is exactly DEQ's answer:
 * replay the recorded desires of every quantum through asteald's own core
 * (daemon/core/core.h, which runs deq_allot_users, or deq_allot_changes
 * for a daemon run with --share job): the jobs present in a quantum join
 * it (a job new to the scheduler, or back after an absence, with a fresh
 * state), the jobs gone leave it, each present job says its recorded
 * desire, and the core ticks; then the allotment, availability and CPU set
 * the core gives every job are compared with the history's.
 *
 *   deq_replay DB CPULIST [user|job]
 *                              the daemon's --share (default user); exit 0
 *                              when every quantum matches; 1 with the
 *                              first mismatches; 2 on bad use
 *
 * The database must hold one daemon run (quantum numbers restart with each
 * daemon).  CPULIST is the daemon's CPUs, e.g. 0-1 (slot i is the i-th).
 * A quantum the daemon had no tick for (table skipped: it woke up late) is
 * not replayed: every job present keeps what it had, which is checked.
 * Runs are swept quantum by quantum with a cursor per job, so the cost is
 * quanta x jobs plus DEQ's own: 10,000 jobs over 1,000 quanta take seconds.
 * A run of turns (history.h: cpu_quanta above allotment x quanta) is
 * checked quantum by quantum for what it keeps: DEQ gives the job its
 * availability, the run's allotment or one more, on CPUs among the run's;
 * and at the end, the sum of what DEQ gave over the run is its
 * cpu_quanta, as it is for every run.
 *
 * Grants (table grants, none in an old database: CPUs a job holding none
 * was given at once as it joined, woke, or found free a CPU another job
 * had just left, between the tick of quantum g and the next) are checked
 * for what makes them harmless to DEQ's answers: the grant's CPUs are
 * `allotment` of the daemon's; a job that joined has no run at g or
 * before, and its first run, if it has one, starts at g + 1 (or after
 * quanta without a tick from there); any other job (it woke, or waited)
 * has a run through g and DEQ's replayed set at g gives it no CPU;
 * the CPUs are disjoint from DEQ's replayed CPU set at g of every other
 * job present at both g and g + 1 (which held its CPUs through the
 * grant: a grant uses only CPUs free then), and from those of any earlier
 * grant at g whose job has runs and had not ended by then (it held them
 * until it ended or g + 1).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core.h"
#include "cpulist.h"
#include "deq.h"

/* One recorded run of quanta. */
struct run {
	long long job, first, last;
	int desire, availability, allotment;
	long long uid;
	char cpus[64];
	long long cpu_quanta;   /* as recorded */
	long long sum;          /* DEQ's allotments over the run, replayed */
};

/* One job: its runs (a range of the sorted array), the cursor over them,
 * and its place in the core while it is present. */
struct job {
	size_t first;           /* runs[first .. end) are this job's, */
	size_t run, end;        /* the cursor at run */
	int in_core;            /* joined, and not left since */
	struct core_job cj;
};

/* One recorded grant. */
struct grant {
	long long job, quantum;
	long long at_ns;        /* when it was made */
	long long job_end_ns;   /* when its job ended (LLONG_MAX: it did not) */
	int allotment;
	char cpus[64];
	int ids[CPULIST_MAX];   /* its CPUs, parsed (n of them, -1: bad) */
	int n;
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

/* Read the grants (none in an old database) into *out, by quantum: their
 * number, or -1. */
static long load_grants(const char *path, struct grant **out)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	struct grant *g = NULL;
	size_t n = 0, cap = 0;
	char why[64];

	*out = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT g.job, g.quantum, g.allotment, g.cpus,"
	                       " g.at_ns, j.end_ns FROM grants g LEFT JOIN jobs j"
	                       " ON j.id = g.job ORDER BY g.quantum, g.at_ns", -1,
	                       &st, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return 0;               /* schema 5 or before: no such table */
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct grant *r;

		if (n == cap) {
			struct grant *more;

			cap = cap ? 2 * cap : 16;
			more = realloc(g, cap * sizeof(*more));
			if (more == NULL) {
				free(g);
				sqlite3_finalize(st);
				sqlite3_close(db);
				return -1;
			}
			g = more;
		}
		r = &g[n++];
		r->job = sqlite3_column_int64(st, 0);
		r->quantum = sqlite3_column_int64(st, 1);
		r->allotment = sqlite3_column_int(st, 2);
		snprintf(r->cpus, sizeof(r->cpus), "%s",
		         (const char *)sqlite3_column_text(st, 3));
		r->n = cpulist_parse(r->cpus, r->ids, CPULIST_MAX, why, sizeof(why));
		r->at_ns = sqlite3_column_int64(st, 4);
		r->job_end_ns = sqlite3_column_type(st, 5) == SQLITE_NULL
		                ? LLONG_MAX : sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	*out = g;
	return (long)n;
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
	    sqlite3_prepare_v2(db, "SELECT a.job, a.first_quantum, a.last_quantum,"
	                       " a.desire, a.availability, a.allotment, a.cpus, j.uid,"
	                       " a.cpu_quanta"
	                       " FROM allotments a JOIN jobs j ON j.id = a.job",
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
		r->uid = sqlite3_column_int64(st, 7);
		r->cpu_quanta = sqlite3_column_int64(st, 8);
		r->sum = 0;
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

/* Whether run r took turns. */
static int turns(const struct run *r)
{
	return r->cpu_quanta != r->allotment * (r->last - r->first + 1);
}

/* Whether every CPU of list a is in list b. */
static int within(const char *a, const char *b)
{
	int x[CPULIST_MAX], y[CPULIST_MAX], n = 0, m = 0, k, i;
	char why[64];

	if (*a != '\0' && (n = cpulist_parse(a, x, CPULIST_MAX, why, sizeof(why))) < 0)
		return 0;
	if (*b != '\0' && (m = cpulist_parse(b, y, CPULIST_MAX, why, sizeof(why))) < 0)
		return 0;
	for (k = 0; k < n; k++) {
		for (i = 0; i < m && y[i] != x[k]; i++)
			;
		if (i == m)
			return 0;
	}
	return 1;
}

/* Whether DEQ's answer d (on CPUs got) is what run r keeps of it. */
static int agrees(const struct deq_job *d, const char *got, const struct run *r)
{
	if (!turns(r))
		return d->allotment == r->allotment &&
		       d->availability == r->availability &&
		       strcmp(got, r->cpus) == 0;
	return d->allotment == d->availability &&
	       (d->allotment == r->allotment || d->allotment == r->allotment + 1) &&
	       within(got, r->cpus);
}

/* Whether grant g holds CPU id c. */
static int grant_has(const struct grant *g, int c)
{
	for (int i = 0; i < g->n; i++)
		if (g->ids[i] == c)
			return 1;
	return 0;
}

/* Whether grants a and b share a CPU. */
static int grants_meet(const struct grant *a, const struct grant *b)
{
	for (int i = 0; i < a->n; i++)
		if (grant_has(b, a->ids[i]))
			return 1;
	return 0;
}

/* The job of id `job` in jobs[] (runs from first), or NULL. */
static const struct job *job_of(const struct job *jobs, size_t njobs,
                                const struct run *runs, long long job)
{
	size_t lo = 0, hi = njobs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (runs[jobs[mid].first].job < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < njobs && runs[jobs[lo].first].job == job ? &jobs[lo] : NULL;
}

/* Check what each grant says of itself and of its job's runs, and that
 * grants at the same quantum whose jobs stayed do not share a CPU
 * (everything but the other jobs' CPUs, which the sweep checks): the
 * number of mismatches printed. */
static int check_grants(const struct grant *g, size_t ng, const struct job *jobs,
                        size_t njobs, const struct run *runs,
                        const struct skips *sk, const int *cpus, int P)
{
	int bad = 0;

	for (size_t i = 0; i < ng && bad < 10; i++) {
		const struct job *j = job_of(jobs, njobs, runs, g[i].job);
		long long first = j ? runs[j->first].first : -1, q;
		int k, c;

		for (k = 0; k < g[i].n; k++) {
			for (c = 0; c < P && cpus[c] != g[i].ids[k]; c++)
				;
			if (c == P)
				break;
		}
		if (g[i].n != g[i].allotment || k < g[i].n) {
			printf("grant to job %lld at quantum %lld: '%s' is not %d of "
			       "the daemon's CPUs\n", g[i].job, g[i].quantum,
			       g[i].cpus, g[i].allotment);
			bad++;
			continue;
		}
		if (j != NULL && first <= g[i].quantum) {
			/* It woke: present through g (DEQ's set for it at g,
			 * empty, is the sweep's to check). */
			size_t r;

			for (r = j->first; r < j->end && runs[r].last < g[i].quantum; r++)
				;
			if (r == j->end || runs[r].first > g[i].quantum) {
				printf("grant to job %lld at quantum %lld: the job had "
				       "runs from quantum %lld, none through %lld\n",
				       g[i].job, g[i].quantum, first, g[i].quantum);
				bad++;
				continue;
			}
		} else if (j != NULL) {
			/* It joined: its first run starts at g + 1. */
			for (q = g[i].quantum + 1; q < first && skipped(sk, q); q++)
				;
			if (q != first) {
				printf("grant to job %lld at quantum %lld: its first "
				       "run starts at quantum %lld, not %lld\n",
				       g[i].job, g[i].quantum, first,
				       g[i].quantum + 1);
				bad++;
				continue;
			}
		}
		/* A later grant at g may reuse the CPUs of one whose job had
		 * ended by then (its end read at once, its CPUs given again). */
		for (size_t o = i + 1; j != NULL && o < ng &&
		     g[o].quantum == g[i].quantum; o++)
			if (job_of(jobs, njobs, runs, g[o].job) != NULL &&
			    g[o].job != g[i].job && grants_meet(&g[i], &g[o]) &&
			    g[i].job_end_ns > g[o].at_ns) {
				printf("grants at quantum %lld: job %lld got '%s', "
				       "job %lld '%s' before it ended\n",
				       g[i].quantum, g[i].job, g[i].cpus,
				       g[o].job, g[o].cpus);
				bad++;
			}
	}
	return bad;
}

/* Whether job j, present at quantum q, is present at q + 1 too. */
static int stays(const struct job *j, const struct run *runs, long long q)
{
	return runs[j->run].last > q ||
	       (j->run + 1 < j->end && runs[j->run + 1].first == q + 1);
}

/* Check the grants at quantum q (from g on, by quantum) against job j's
 * CPUs at q (DEQ's, ids set[0..m), got as a list): a grant to j itself
 * (it woke) wants none, one to another job none of them if j stayed
 * through it: the number of mismatches printed. */
static int grants_clash(const struct grant *g, size_t ng, const struct job *j,
                        const struct run *runs, const int *set, int m,
                        const char *got, long long q)
{
	int bad = 0;

	for (size_t i = 0; i < ng && g[i].quantum == q; i++) {
		int k;

		if (g[i].job == runs[j->run].job) {
			if (m > 0) {
				printf("grant to job %lld at quantum %lld: DEQ gave it "
				       "'%s' there already\n", g[i].job, q, got);
				bad++;
			}
			continue;
		}
		if (!stays(j, runs, q))
			continue;
		for (k = 0; k < m && !grant_has(&g[i], set[k]); k++)
			;
		if (k < m) {
			printf("grant to job %lld at quantum %lld: '%s' is not free, "
			       "job %lld held '%s' through it\n", g[i].job, q,
			       g[i].cpus, runs[j->run].job, got);
			bad++;
		}
	}
	return bad;
}

/* Order uids. */
static int by_uid(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The number of distinct uids among the jobs' runs; -1 out of memory. */
static long count_users(const struct run *runs, size_t nruns)
{
	long long *uid = malloc((nruns ? nruns : 1) * sizeof(*uid));
	long n = 0;

	if (uid == NULL)
		return -1;
	for (size_t i = 0; i < nruns; i++)
		uid[i] = runs[i].uid;
	qsort(uid, nruns, sizeof(*uid), by_uid);
	for (size_t i = 0; i < nruns; i++)
		n += i == 0 || uid[i] != uid[i - 1];
	free(uid);
	return n;
}

/* The core's effects mean nothing here (left out: the replay reads DEQ's
 * state from the core after each tick; the history is what is checked). */
static const struct core_ops replay_ops;

int main(int argc, char **argv)
{
	struct run *runs = NULL;
	struct grant *grants = NULL;
	struct skips sk;
	long long nskipped = 0;
	struct job *jobs;
	struct core *core;
	struct core_params cp;
	size_t *present;
	long nruns, ngrants, nusers;
	size_t njobs = 0, i, gi = 0;
	int cpus[CPULIST_MAX], P, bad = 0, by_user;
	long long qmin, qmax, q, checked = 0;
	char why[128];

	if (argc < 3 || argc > 4 ||
	    (argc == 4 && strcmp(argv[3], "user") != 0 && strcmp(argv[3], "job") != 0)) {
		fprintf(stderr, "usage: deq_replay DB CPULIST [user|job]\n");
		return 2;
	}
	by_user = argc < 4 || strcmp(argv[3], "user") == 0;
	P = cpulist_parse(argv[2], cpus, CPULIST_MAX, why, sizeof(why));
	if (P <= 0) {
		fprintf(stderr, "deq_replay: %s: %s\n", argv[2], why);
		return 2;
	}
	nruns = load(argv[1], &runs, &qmin, &qmax);
	if (nruns < 0 || load_skips(argv[1], &sk) < 0 ||
	    (ngrants = load_grants(argv[1], &grants)) < 0)
		return 2;
	if (nruns == 0) {
		fprintf(stderr, "deq_replay: no allotment records\n");
		return 1;
	}
	memset(&cp, 0, sizeof(cp));
	cp.P = P;
	cp.by_user = by_user;
	jobs = calloc((size_t)nruns, sizeof(*jobs));
	present = calloc((size_t)nruns, sizeof(*present));
	core = core_create(&cp, &replay_ops, NULL);
	nusers = count_users(runs, (size_t)nruns);
	if (jobs == NULL || present == NULL || core == NULL || nusers < 0)
		return 2;
	for (i = 0; i < (size_t)nruns; i++) {
		if (i == 0 || runs[i].job != runs[i - 1].job) {
			jobs[njobs].first = jobs[njobs].run = i;
			njobs++;
		}
		jobs[njobs - 1].end = i + 1;
	}
	bad = check_grants(grants, (size_t)ngrants, jobs, njobs, runs, &sk,
	                   cpus, P);
	for (q = qmin; q <= qmax && bad < 10; q++) {
		size_t n = 0, k;
		struct core_tick_stats st;

		/* The jobs present in quantum q, in id order, join the core
		 * (new, or back after an absence: a fresh state) and say their
		 * desires; the jobs gone leave it. */
		for (i = 0; i < njobs; i++) {
			struct job *j = &jobs[i];
			const struct run *r;

			while (j->run < j->end && runs[j->run].last < q)
				j->run++;
			if (j->run == j->end || runs[j->run].first > q) {
				if (j->in_core)
					core_leave(core, &j->cj, (uint64_t)q);
				j->in_core = 0;
				continue;
			}
			r = &runs[j->run];
			if (!j->in_core &&
			    core_join(core, &j->cj, (uint64_t)r->job, (uid_t)r->uid,
			              r->desire, 0, 0, (uint64_t)q) < 0)
				return 2;
			j->in_core = 1;
			core_feedback(core, &j->cj, r->desire, (uint64_t)q);
			present[n++] = i;
		}
		if (n == 0)
			continue;
		if (skipped(&sk, q)) {
			/* No tick: DEQ did not run, everyone kept what they
			 * had (their state goes on, unchanged). */
			nskipped++;
		} else {
			core_tick_begin(core, (uint64_t)q);
			if (core_tick(core, (uint64_t)q, NULL, &st) < 0) {
				fprintf(stderr, "deq_replay: quantum %lld: DEQ failed\n", q);
				return 1;
			}
		}
		while (gi < (size_t)ngrants && grants[gi].quantum < q)
			gi++;
		for (k = 0; k < n; k++) {
			struct job *j = &jobs[present[k]];
			const struct run *r = &runs[j->run];
			const struct deq_job *d = core_deq(core, &j->cj);
			int set[CPULIST_MAX], m = 0, slot;
			char got[256];

			for (slot = 0; slot < P; slot++)
				if (deq_set_has(&d->cpus, slot))
					set[m++] = cpus[slot];
			if (cpulist_format(set, m, got, sizeof(got)) < 0)
				got[0] = '\0';
			runs[j->run].sum += d->allotment;
			if (gi < (size_t)ngrants)
				bad += grants_clash(grants + gi, (size_t)ngrants - gi,
				                    j, runs, set, m, got, q);
			if (!agrees(d, got, r)) {
				printf("quantum %lld job %lld: recorded allotment %d of %d on "
				       "'%s', DEQ gives %d of %d on '%s' (desire %d)\n", q,
				       r->job, r->allotment, r->availability, r->cpus,
				       d->allotment, d->availability, got, r->desire);
				bad++;
			}
		}
		checked++;
	}
	for (i = 0; i < (size_t)nruns && bad < 10; i++)
		if (runs[i].sum != runs[i].cpu_quanta) {
			printf("job %lld quanta %lld-%lld: recorded %lld processor-quanta, "
			       "DEQ gives %lld\n", runs[i].job, runs[i].first,
			       runs[i].last, runs[i].cpu_quanta, runs[i].sum);
			bad++;
		}
	printf("%lld quanta of %zu jobs of %ld user%s replayed through the core, %s "
	       "(%lld without a tick), %ld grants: %s\n", checked, njobs, nusers,
	       nusers == 1 ? "" : "s", by_user ? "users first" : "flat", nskipped,
	       ngrants, bad ? "MISMATCH" : "every allotment, availability, CPU "
	       "set and processor-quanta total equal, every grant on free CPUs");
	free(runs);
	free(grants);
	free(sk.r);
	core_free(core);
	free(jobs);
	free(present);
	return bad ? 1 : 0;
}
