/*
 * test_deq.c - the DEQ allocator: water-filling examples, leftovers taken
 * in turns (also with more jobs than processors, and by new arrivals),
 * stable CPU sets, jobs leaving and arriving, duplicate claims, bad
 * arguments, a randomized check of every invariant (availability against a
 * rerun with the desire raised to P), fairness under churn, and speed;
 * then DEQ users first (deq_allot_users): a user's many jobs against one
 * job of another user, one job per user is flat DEQ, the invariants and
 * exact availability on random inputs, turns among users over windows,
 * bad users.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "deq.h"
#include "testutil.h"

#define MAXJ 4096

/* A small deterministic random stream (splitmix64). */
static uint64_t rnd_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A random integer in [lo, hi]. */
static int rnd_int(uint64_t *x, int lo, int hi)
{
	return lo + (int)(rnd_next(x) % (uint64_t)(hi - lo + 1));
}

/* A job array on the heap. */
static struct deq_job *jobs_new(int n)
{
	struct deq_job *j = calloc((size_t)(n > 0 ? n : 1), sizeof(*j));

	assert_non_null(j);
	return j;
}

/* Set the desires of jobs[0..n-1] (new jobs: empty sets, credit 0). */
static void set_desires(struct deq_job *jobs, int n, const int *d)
{
	for (int i = 0; i < n; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].desire = d[i];
	}
}

/* Insert a new job of desire d at index i of jobs[0..*n-1] (ids too). */
static void insert_job(struct deq_job *jobs, int *id, int *n, int i, int d,
		       int newid)
{
	memmove(&jobs[i + 1], &jobs[i], (size_t)(*n - i) * sizeof(jobs[0]));
	memset(&jobs[i], 0, sizeof(jobs[i]));
	jobs[i].desire = d;
	if (id != NULL) {
		memmove(&id[i + 1], &id[i], (size_t)(*n - i) * sizeof(id[0]));
		id[i] = newid;
	}
	(*n)++;
}

/* Remove the job at index i (ids too). */
static void remove_job(struct deq_job *jobs, int *id, int *n, int i)
{
	memmove(&jobs[i], &jobs[i + 1], (size_t)(*n - i - 1) * sizeof(jobs[0]));
	if (id != NULL)
		memmove(&id[i], &id[i + 1], (size_t)(*n - i - 1) * sizeof(id[0]));
	(*n)--;
}

/* Whether every slot of a is in b. */
static int subset(const struct deq_set *a, const struct deq_set *b)
{
	for (int w = 0; w < DEQ_MAX_PROCS / 64; w++)
		if (a->w[w] & ~b->w[w])
			return 0;
	return 1;
}

/* Assert that two sets are equal. */
#define assert_same_set(a, b) \
	assert_memory_equal((a), (b), sizeof(struct deq_set))

/* Whether a job's allotment, availability or slots differ from before. */
static int differs(const struct deq_job *a, const struct deq_job *before)
{
	return a->allotment != before->allotment ||
	       a->availability != before->availability ||
	       memcmp(&a->cpus, &before->cpus, sizeof(a->cpus)) != 0;
}

/* Check every invariant of one call: `before` is the input, `after` the
 * output of deq_allot(P, ., n, .). */
static void check_call(int P, const struct deq_job *before,
		       const struct deq_job *after, int n)
{
	struct deq_set seen, claimed;
	long want = 0, sum = 0;

	deq_set_clear(&seen);
	deq_set_clear(&claimed);
	for (int i = 0; i < n; i++) {
		const struct deq_job *a = &after[i];
		struct deq_set old;
		int c = before[i].desire < P ? before[i].desire : P;

		assert_int_equal(a->desire, before[i].desire);
		assert_int_equal(a->allotment, deq_set_count(&a->cpus));
		assert_true(a->allotment >= 0 && a->allotment <= c);
		assert_true(a->availability >= 0 && a->availability <= P);
		assert_int_equal(a->allotment, c < a->availability ?
				 c : a->availability);
		assert_true(a->credit >= 0);
		if (a->desire == 0)
			assert_int_equal(a->allotment, 0);
		/* disjoint, below P; the old set without slots a lower job
		 * claimed first */
		for (int w = 0, lo = 0; w < DEQ_MAX_PROCS / 64; w++, lo += 64) {
			uint64_t ok = P >= lo + 64 ? ~(uint64_t)0 : P <= lo ?
				0 : ((uint64_t)1 << (P - lo)) - 1;

			assert_int_equal(a->cpus.w[w] & ~ok, 0);
			assert_int_equal(seen.w[w] & a->cpus.w[w], 0);
			seen.w[w] |= a->cpus.w[w];
			old.w[w] = before[i].cpus.w[w] & ~claimed.w[w];
			claimed.w[w] |= before[i].cpus.w[w];
		}
		if (a->allotment <= deq_set_count(&old))
			assert_true(subset(&a->cpus, &old));
		else
			assert_true(subset(&old, &a->cpus));
		want += c;
		sum += a->allotment;
	}
	assert_int_equal(sum, want < P ? want : P);
}

/* Check availability against its definition: rerun with job j's desire
 * raised to P and compare j's allotment there. */
static void check_availability(int P, const struct deq_job *before,
			       const struct deq_job *after, int n, uint64_t q,
			       int j)
{
	struct deq_job *copy = jobs_new(n);

	memcpy(copy, before, (size_t)n * sizeof(*copy));
	copy[j].desire = P;
	assert_int_equal(deq_allot(P, copy, n, q), 0);
	assert_int_equal(copy[j].allotment, after[j].availability);
	free(copy);
}

/* One checked call: run, check invariants, and check availability of all
 * jobs (n small) or of `sample` random ones. */
static void step(int P, struct deq_job *jobs, int n, uint64_t q,
		 uint64_t *rng, int sample)
{
	struct deq_job *before = jobs_new(n);

	memcpy(before, jobs, (size_t)n * sizeof(*before));
	assert_int_equal(deq_allot(P, jobs, n, q), 0);
	check_call(P, before, jobs, n);
	if (n > 0 && n <= sample) {
		for (int j = 0; j < n; j++)
			check_availability(P, before, jobs, n, q, j);
	} else if (n > 0) {
		for (int k = 0; k < sample; k++)
			check_availability(P, before, jobs, n, q,
					   rnd_int(rng, 0, n - 1));
	}
	free(before);
}

/* Cumulative allotments of tracked jobs and, per pair, the range of their
 * difference over time: a window's difference is a difference of two
 * values in that range, so range <= 1 means every window is within 1. */
struct fair {
	int k;
	long cum[16];
	long lo[16][16], hi[16][16];
};

/* Start tracking k jobs. */
static void fair_init(struct fair *f, int k)
{
	memset(f, 0, sizeof(*f));
	f->k = k;
}

/* Add one quantum's allotments (a[0..k-1]) and check the bounds. */
static void fair_add(struct fair *f, const int *a)
{
	for (int i = 0; i < f->k; i++)
		f->cum[i] += a[i];
	for (int i = 0; i < f->k; i++) {
		for (int j = 0; j < f->k; j++) {
			long d = f->cum[i] - f->cum[j];

			if (d < f->lo[i][j])
				f->lo[i][j] = d;
			if (d > f->hi[i][j])
				f->hi[i][j] = d;
			assert_true(d <= 1 && d >= -1);
			assert_true(f->hi[i][j] - f->lo[i][j] <= 1);
		}
	}
}

/* The set helpers, including slots out of range (ignored). */
static void test_set_helpers(void **state)
{
	struct deq_set s;

	(void)state;
	deq_set_clear(&s);
	assert_int_equal(deq_set_count(&s), 0);
	deq_set_add(&s, 0);
	deq_set_add(&s, 63);
	deq_set_add(&s, 64);
	deq_set_add(&s, DEQ_MAX_PROCS - 1);
	deq_set_add(&s, 64);
	deq_set_add(&s, -1);
	deq_set_add(&s, DEQ_MAX_PROCS);
	assert_int_equal(deq_set_count(&s), 4);
	assert_true(deq_set_has(&s, 63) && deq_set_has(&s, 64));
	assert_false(deq_set_has(&s, 1));
	assert_false(deq_set_has(&s, -1));
	assert_false(deq_set_has(&s, DEQ_MAX_PROCS));
	deq_set_del(&s, 63);
	deq_set_del(&s, 5);
	deq_set_del(&s, DEQ_MAX_PROCS + 3);
	assert_false(deq_set_has(&s, 63));
	assert_int_equal(deq_set_count(&s), 3);
}

/* Run one quantum on fresh jobs and compare allotments and availability. */
static void expect(int P, int n, const int *d, const int *allot,
		   const int *avail)
{
	struct deq_job *jobs = jobs_new(n);
	uint64_t rng = 1;

	set_desires(jobs, n, d);
	step(P, jobs, n, 0, &rng, 64);
	for (int i = 0; i < n; i++) {
		assert_int_equal(jobs[i].allotment, allot[i]);
		if (avail != NULL)
			assert_int_equal(jobs[i].availability, avail[i]);
	}
	free(jobs);
}

/* Water-filling; at q = 0 with credits 0 leftovers go in index order. */
static void test_water_filling(void **state)
{
	(void)state;
	/* the unused 7 of job 0 is split: 3.5 each, the leftover to job 1;
	 * job 0 asking for 8 would face 8/3: 3 as first in turn */
	expect(8, 3, (int[]){ 1, 10, 10 }, (int[]){ 1, 4, 3 },
	       (int[]){ 3, 4, 3 });
	expect(16, 4, (int[]){ 2, 3, 20, 20 }, (int[]){ 2, 3, 6, 5 }, NULL);
	/* everyone satisfied; availability is the share at desire P */
	expect(10, 3, (int[]){ 1, 2, 3 }, (int[]){ 1, 2, 3 },
	       (int[]){ 5, 6, 7 });
	expect(12, 4, (int[]){ 100, 100, 100, 100 }, (int[]){ 3, 3, 3, 3 },
	       (int[]){ 3, 3, 3, 3 });
	expect(4, 2, (int[]){ 0, 0 }, (int[]){ 0, 0 }, (int[]){ 4, 4 });
	expect(4, 1, (int[]){ 7 }, (int[]){ 4 }, (int[]){ 4 });
	expect(6, 2, (int[]){ 3, 3 }, (int[]){ 3, 3 }, (int[]){ 3, 3 });
	/* a job asking exactly its share is satisfied, not deprived */
	expect(9, 3, (int[]){ 3, 5, 5 }, (int[]){ 3, 3, 3 }, (int[]){ 3, 3, 3 });
	/* cascade: 1 and 2 leave 13 for three; 3 leaves 10 for two */
	expect(16, 5, (int[]){ 1, 2, 3, 9, 9 }, (int[]){ 1, 2, 3, 5, 5 },
	       NULL);
}

/* The same desires every quantum: the one leftover-less job rotates. */
static void test_leftovers_rotate(void **state)
{
	struct deq_job jobs[3];
	uint64_t rng = 2;

	(void)state;
	for (int feed = 0; feed < 2; feed++) {
		int skipped[30];

		set_desires(jobs, 3, (int[]){ 10, 10, 10 });
		for (int q = 0; q < 30; q++) {
			int nskip = 0;

			if (!feed)
				for (int i = 0; i < 3; i++)
					jobs[i].credit = 0;
			step(8, jobs, 3, (uint64_t)q, &rng, 3);
			for (int i = 0; i < 3; i++) {
				assert_true(jobs[i].allotment == 2 ||
					    jobs[i].allotment == 3);
				if (jobs[i].allotment == 2) {
					skipped[q] = i;
					nskip++;
				}
			}
			assert_int_equal(nskip, 1);
			/* every three quanta, each job misses out once */
			if (q >= 2)
				assert_true(skipped[q] != skipped[q - 1] &&
					    skipped[q] != skipped[q - 2] &&
					    skipped[q - 1] != skipped[q - 2]);
		}
	}
	/* 1, 10, 10 on 8: the two deprived jobs alternate between 4 and 3 */
	set_desires(jobs, 3, (int[]){ 1, 10, 10 });
	for (int q = 0; q < 20; q++) {
		step(8, jobs, 3, (uint64_t)q, &rng, 3);
		assert_int_equal(jobs[0].allotment, 1);
		assert_int_equal(jobs[1].allotment, q % 2 == 0 ? 4 : 3);
		assert_int_equal(jobs[2].allotment, q % 2 == 0 ? 3 : 4);
	}
}

/* Fewer processors than jobs: they take turns, totals within 1 always. */
static void test_more_jobs_than_cpus(void **state)
{
	static const int shape[][2] = { { 2, 5 }, { 3, 7 }, { 1, 4 }, { 5, 16 } };
	uint64_t rng = 3;

	(void)state;
	for (size_t s = 0; s < sizeof(shape) / sizeof(shape[0]); s++) {
		int P = shape[s][0], n = shape[s][1];
		struct deq_job jobs[16];
		struct fair f;
		int a[16];

		for (int i = 0; i < n; i++) {
			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].desire = 4;
		}
		fair_init(&f, n);
		for (int q = 0; q < 1000; q++) {
			step(P, jobs, n, (uint64_t)q, &rng, q < 50 ? 16 : 0);
			for (int i = 0; i < n; i++) {
				assert_true(jobs[i].allotment <= 1);
				a[i] = jobs[i].allotment;
			}
			fair_add(&f, a);
		}
		/* and each got its share, P/n of the quanta, within 1 */
		for (int i = 0; i < n; i++)
			assert_true(labs(f.cum[i] * n - 1000L * P) <= n);
	}
}

/* A new job queues behind those waiting: no burst, no starvation, and
 * within 1 of the others from its arrival on, wherever it is inserted. */
static void test_new_job_waits(void **state)
{
	uint64_t rng = 4;

	(void)state;
	for (int at = 0; at <= 4; at += 4) {
		struct deq_job jobs[5];
		struct fair f;
		int a[5], first = -1, n;

		for (int i = 0; i < 4; i++) {
			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].desire = 4;
		}
		for (int q = 0; q < 5; q++)
			step(2, jobs, 4, (uint64_t)q, &rng, 4);
		n = 4;
		insert_job(jobs, NULL, &n, at, 4, 0);
		fair_init(&f, 5);
		for (int q = 5; q < 200; q++) {
			step(2, jobs, 5, (uint64_t)q, &rng, 5);
			for (int i = 0; i < 5; i++)
				a[i] = jobs[i].allotment;
			if (first < 0 && a[at] > 0)
				first = q - 5;
			fair_add(&f, a);
		}
		/* the four waiting jobs go first: two quanta of two turns */
		assert_int_equal(first, 2);
	}
}

/* Unchanged desires keep identical sets; shrink keeps a subset, growth
 * keeps the old slots; a job's own slots are honoured where it sits. */
static void test_stability(void **state)
{
	struct deq_job jobs[3], prev[3];
	uint64_t rng = 5;

	(void)state;
	set_desires(jobs, 3, (int[]){ 3, 5, 8 });
	step(16, jobs, 3, 0, &rng, 3);
	memcpy(prev, jobs, sizeof(jobs));
	for (int q = 1; q < 10; q++) {
		step(16, jobs, 3, (uint64_t)q, &rng, 3);
		for (int i = 0; i < 3; i++)
			assert_same_set(&jobs[i].cpus, &prev[i].cpus);
	}
	jobs[2].desire = 4;
	step(16, jobs, 3, 10, &rng, 3);
	assert_int_equal(jobs[2].allotment, 4);
	assert_true(subset(&jobs[2].cpus, &prev[2].cpus));
	assert_same_set(&jobs[0].cpus, &prev[0].cpus);
	assert_same_set(&jobs[1].cpus, &prev[1].cpus);
	memcpy(prev, jobs, sizeof(jobs));
	jobs[0].desire = 7;
	step(16, jobs, 3, 11, &rng, 3);
	assert_int_equal(jobs[0].allotment, 7);
	assert_true(subset(&prev[0].cpus, &jobs[0].cpus));
	assert_same_set(&jobs[1].cpus, &prev[1].cpus);
	assert_same_set(&jobs[2].cpus, &prev[2].cpus);

	/* a job brings its own slots: it keeps exactly those */
	set_desires(jobs, 1, (int[]){ 3 });
	deq_set_add(&jobs[0].cpus, 5);
	deq_set_add(&jobs[0].cpus, 6);
	deq_set_add(&jobs[0].cpus, 7);
	prev[0] = jobs[0];
	step(8, jobs, 1, 0, &rng, 1);
	assert_same_set(&jobs[0].cpus, &prev[0].cpus);
}

/* A job that leaves frees its slots; one that arrives gets free ones. */
static void test_leave_arrive(void **state)
{
	struct deq_job jobs[3];
	struct deq_set a_old;
	uint64_t rng = 6;

	(void)state;
	set_desires(jobs, 2, (int[]){ 4, 4 });
	step(8, jobs, 2, 0, &rng, 2);
	a_old = jobs[0].cpus;
	/* job 1 leaves, a newcomer asking for everything arrives */
	memset(&jobs[1], 0, sizeof(jobs[1]));
	jobs[1].desire = 8;
	step(8, jobs, 2, 1, &rng, 2);
	assert_int_equal(jobs[0].allotment, 4);
	assert_int_equal(jobs[1].allotment, 4);
	assert_same_set(&jobs[0].cpus, &a_old);
	/* job 0 leaves (job 1 moves down), two newcomers */
	jobs[0] = jobs[1];
	a_old = jobs[0].cpus;
	memset(&jobs[1], 0, sizeof(jobs[1]));
	memset(&jobs[2], 0, sizeof(jobs[2]));
	jobs[1].desire = 1;
	jobs[2].desire = 2;
	step(8, jobs, 3, 2, &rng, 3);
	assert_int_equal(jobs[0].allotment, 5);
	assert_true(subset(&a_old, &jobs[0].cpus));
	assert_int_equal(jobs[1].allotment, 1);
	assert_int_equal(jobs[2].allotment, 2);
}

/* A slot claimed twice stays with the lower-indexed job. */
static void test_duplicate_claims(void **state)
{
	struct deq_job jobs[2];
	uint64_t rng = 7;

	(void)state;
	set_desires(jobs, 2, (int[]){ 2, 2 });
	deq_set_add(&jobs[0].cpus, 0);
	deq_set_add(&jobs[0].cpus, 1);
	deq_set_add(&jobs[1].cpus, 1);
	deq_set_add(&jobs[1].cpus, 2);
	step(8, jobs, 2, 0, &rng, 2);
	assert_true(deq_set_has(&jobs[0].cpus, 0) &&
		    deq_set_has(&jobs[0].cpus, 1));
	assert_true(deq_set_has(&jobs[1].cpus, 2));
	assert_false(deq_set_has(&jobs[1].cpus, 1));
	assert_int_equal(jobs[1].allotment, 2);
}

/* Expect EINVAL and the jobs untouched. */
static void expect_einval(int P, struct deq_job *jobs, int n)
{
	struct deq_job copy[2];

	if (jobs != NULL && n > 0)
		memcpy(copy, jobs, (size_t)n * sizeof(copy[0]));
	errno = 0;
	assert_int_equal(deq_allot(P, jobs, n, 0), -1);
	assert_int_equal(errno, EINVAL);
	if (jobs != NULL && n > 0)
		assert_memory_equal(copy, jobs, (size_t)n * sizeof(copy[0]));
}

/* Bad arguments fail with EINVAL and change nothing; edge cases pass. */
static void test_bad_args(void **state)
{
	struct deq_job jobs[2];

	(void)state;
	set_desires(jobs, 2, (int[]){ 1, 1 });
	expect_einval(0, jobs, 2);
	expect_einval(-3, jobs, 2);
	expect_einval(DEQ_MAX_PROCS + 1, jobs, 2);
	expect_einval(4, jobs, -1);
	expect_einval(4, NULL, 1);
	jobs[1].desire = -1;
	expect_einval(4, jobs, 2);
	jobs[1].desire = 1;
	deq_set_add(&jobs[1].cpus, 8);
	expect_einval(8, jobs, 2);
	expect_einval(1, jobs, 2);
	assert_int_equal(deq_allot(9, jobs, 2, 0), 0);
	deq_set_clear(&jobs[0].cpus);
	deq_set_add(&jobs[0].cpus, 200);
	expect_einval(100, jobs, 1);
	/* the edges that are fine */
	assert_int_equal(deq_allot(4, NULL, 0, 0), 0);
	assert_int_equal(deq_allot(DEQ_MAX_PROCS, jobs, 1, 0), 0);
	assert_int_equal(jobs[0].allotment, 1);
	assert_int_equal(deq_allot(1, jobs, 0, 0), 0);
}

/* Between quanta: a tenth of the desires move (up to P + 3), a hundredth
 * of the credits become garbage. */
static void stir(struct deq_job *jobs, int n, int P, uint64_t *rng)
{
	for (int i = 0; i < n; i++) {
		int r = rnd_int(rng, 0, 99);

		if (r < 10)
			jobs[i].desire = rnd_int(rng, 0, P + 3);
		else if (r == 10)
			jobs[i].credit = (int64_t)rnd_next(rng);
	}
}

/* Random scenarios fed back quantum after quantum, with churn, garbage
 * credits and overlapping input sets: every invariant, every call. */
static void test_random(void **state)
{
	struct deq_job *jobs = jobs_new(MAXJ);
	int scenarios = (int)test_scale(400, 3, 10);
	uint64_t rng = 8;

	(void)state;
	for (int sc = 0; sc < scenarios; sc++) {
		int big = rnd_int(&rng, 0, 3) == 0;
		int P = big ? rnd_int(&rng, 65, 1000) : rnd_int(&rng, 1, 64);
		int nmax = 2 * P + 3 < 300 ? 2 * P + 3 : 300;
		int n = rnd_int(&rng, 0, nmax);
		uint64_t q = rnd_next(&rng) % 1000;

		for (int i = 0; i < n; i++) {
			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].desire = rnd_int(&rng, 0, P + 3);
			if (rnd_int(&rng, 0, 9) == 0)   /* stray claims */
				deq_set_add(&jobs[i].cpus,
					    rnd_int(&rng, 0, P - 1));
		}
		for (int t = 0; t < 30; t++, q++) {
			step(P, jobs, n, q, &rng, n <= 12 ? 12 : 2);
			stir(jobs, n, P, &rng);
			if (n > 0 && rnd_int(&rng, 0, 3) == 0)
				remove_job(jobs, NULL, &n,
					   rnd_int(&rng, 0, n - 1));
			if (n < nmax && rnd_int(&rng, 0, 3) == 0)
				insert_job(jobs, NULL, &n, rnd_int(&rng, 0, n),
					   rnd_int(&rng, 0, P + 3), 0);
		}
	}
	free(jobs);
}

/* deq_allot_changes lists exactly the jobs whose allotment, availability
 * or slots differ from before the call, each once, and gives the same
 * answer as deq_allot; stray and duplicate claims, joins, leaves and
 * desire changes included. */
static void test_changes_listed(void **state)
{
	struct deq_job *jobs = jobs_new(MAXJ), *before = jobs_new(MAXJ),
		*plain = jobs_new(MAXJ);
	int *changed = calloc(MAXJ, sizeof(int));
	unsigned char *seen = calloc(MAXJ, 1);
	uint64_t rng = 11;
	long listed = 0, calls = 0;

	(void)state;
	assert_non_null(changed);
	assert_non_null(seen);
	for (int sc = 0; sc < 200; sc++) {
		int P = rnd_int(&rng, 1, sc % 4 == 0 ? 300 : 16);
		int n = rnd_int(&rng, 0, 3 * P + 2 < 400 ? 3 * P + 2 : 400);

		for (int i = 0; i < n; i++) {
			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].desire = rnd_int(&rng, 0, P + 2);
			if (rnd_int(&rng, 0, 5) == 0)   /* stray claims */
				deq_set_add(&jobs[i].cpus, rnd_int(&rng, 0, P - 1));
		}
		for (int t = 0; t < 20; t++) {
			int nc = -1;

			memcpy(before, jobs, (size_t)n * sizeof(*jobs));
			memcpy(plain, jobs, (size_t)n * sizeof(*jobs));
			assert_int_equal(deq_allot_changes(P, jobs, n, (uint64_t)t,
							   changed, &nc), 0);
			assert_int_equal(deq_allot(P, plain, n, (uint64_t)t), 0);
			calls++;
			memset(seen, 0, (size_t)n);
			for (int k = 0; k < nc; k++) {
				assert_true(changed[k] >= 0 && changed[k] < n);
				assert_int_equal(seen[changed[k]], 0);
				seen[changed[k]] = 1;
			}
			listed += nc;
			for (int i = 0; i < n; i++) {
				int diff = differs(&jobs[i], &before[i]);

				assert_int_equal(jobs[i].changed, diff);
				assert_int_equal(seen[i], diff);
				assert_int_equal(jobs[i].allotment, plain[i].allotment);
				assert_int_equal(jobs[i].availability, plain[i].availability);
				assert_memory_equal(&jobs[i].cpus, &plain[i].cpus,
						    sizeof(jobs[i].cpus));
				assert_int_equal(jobs[i].credit, plain[i].credit);
			}
			for (int i = 0; i < n; i++)     /* some desires move */
				if (rnd_int(&rng, 0, 9) == 0)
					jobs[i].desire = rnd_int(&rng, 0, P + 2);
			if (n > 0 && rnd_int(&rng, 0, 4) == 0)
				remove_job(jobs, NULL, &n, rnd_int(&rng, 0, n - 1));
			if (n < 400 && rnd_int(&rng, 0, 4) == 0)
				insert_job(jobs, NULL, &n, rnd_int(&rng, 0, n),
					   rnd_int(&rng, 0, P + 2), 0);
			if (n > 1 && rnd_int(&rng, 0, 9) == 0)  /* a duplicate claim */
				deq_set_add(&jobs[rnd_int(&rng, 1, n - 1)].cpus,
					    rnd_int(&rng, 0, P - 1));
		}
	}
	/* Not vacuous: changes were listed, and fewer than all jobs. */
	assert_true(listed > 0);
	printf("%ld calls, %ld changes listed\n", calls, listed);
	free(seen);
	free(changed);
	free(plain);
	free(before);
	free(jobs);
}

/* Jobs that always ask for at least P stay within one processor-quantum
 * of each other over every window, while other jobs come, go and change. */
static void test_fairness_under_churn(void **state)
{
	struct deq_job *jobs = jobs_new(64);
	int runs = (int)test_scale(60, 3, 10);
	uint64_t rng = 9;

	(void)state;
	for (int run = 0; run < runs; run++) {
		int P = rnd_int(&rng, 1, 24), g = rnd_int(&rng, 2, 8);
		int n = g, id[64], a[16];
		struct fair f;

		for (int i = 0; i < n; i++) {
			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].desire = P + rnd_int(&rng, 0, 3);
			id[i] = i;
		}
		fair_init(&f, g);
		for (int q = 0; q < 400; q++) {
			step(P, jobs, n, (uint64_t)q, &rng, 0);
			for (int i = 0; i < n; i++)
				if (id[i] < g)
					a[id[i]] = jobs[i].allotment;
			fair_add(&f, a);
			for (int i = 0; i < n; i++) {
				if (id[i] < g)
					jobs[i].desire = P + rnd_int(&rng, 0, 3);
				else if (rnd_int(&rng, 0, 4) == 0)
					jobs[i].desire = rnd_int(&rng, 0, P);
			}
			if (n < 64 && rnd_int(&rng, 0, 2) == 0)
				insert_job(jobs, id, &n, rnd_int(&rng, 0, n),
					   rnd_int(&rng, 0, P + 2), 1000 + q);
			if (n > g && rnd_int(&rng, 0, 2) == 0) {
				int i = rnd_int(&rng, 0, n - 1);

				if (id[i] >= g)
					remove_job(jobs, id, &n, i);
			}
		}
	}
	free(jobs);
}

/* 1000 jobs on 1000 processors for 1000 quanta, fed back, with desires
 * changing: well under a second (the bound asserted is generous). */
static void test_speed(void **state)
{
	int quanta = (int)test_scale(1000, 3, 10), n = 1000, P = 1000;
	struct deq_job *jobs = jobs_new(n);
	uint64_t rng = 10;
	double t0, dt;
	long total = 0;

	(void)state;
	for (int i = 0; i < n; i++)
		jobs[i].desire = rnd_int(&rng, 0, 3);
	t0 = test_now();
	for (int q = 0; q < quanta; q++) {
		assert_int_equal(deq_allot(P, jobs, n, (uint64_t)q), 0);
		for (int i = 0; i < n; i++) {
			total += jobs[i].allotment;
			if (rnd_int(&rng, 0, 9) == 0)
				jobs[i].desire = rnd_int(&rng, 0, 3) *
						 rnd_int(&rng, 1, 4);
		}
	}
	dt = test_now() - t0;
	printf("deq_allot: %d jobs on P=%d, %d quanta: %.3f s (%.1f us/call)\n",
	       n, P, quanta, dt, dt * 1e6 / quanta);
	assert_true(total > 0);
	if (!test_sanitized())
		assert_true(dt < 5.0);
	/* the large-n path (keys on the heap) works too */
	free(jobs);
	jobs = jobs_new(3000);
	for (int i = 0; i < 3000; i++)
		jobs[i].desire = 1;
	assert_int_equal(deq_allot(P, jobs, 3000, 7), 0);
	total = 0;
	for (int i = 0; i < 3000; i++)
		total += jobs[i].allotment;
	assert_int_equal(total, P);
	free(jobs);
}

/* ------------------------------------------------------ users first -- */

/* Users on the heap (credit 0: new users). */
static struct deq_user *users_new(int n)
{
	struct deq_user *u = calloc((size_t)(n > 0 ? n : 1), sizeof(*u));

	assert_non_null(u);
	return u;
}

/* Check availability against its definition for users first: rerun with
 * job j's desire raised to P (same users' and jobs' credits, same q). */
static void check_user_availability(int P, const struct deq_job *before,
				    const struct deq_user *ubefore,
				    const struct deq_job *after, int n,
				    int nusers, uint64_t q, int j)
{
	struct deq_job *copy = jobs_new(n);
	struct deq_user *ucopy = users_new(nusers);

	memcpy(copy, before, (size_t)n * sizeof(*copy));
	memcpy(ucopy, ubefore, (size_t)nusers * sizeof(*ucopy));
	copy[j].desire = P;
	assert_int_equal(deq_allot_users(P, copy, n, ucopy, nusers, q, NULL,
					 NULL), 0);
	assert_int_equal(copy[j].allotment, after[j].availability);
	free(ucopy);
	free(copy);
}

/* One checked users-first call: run (listing the changes), check every
 * job invariant as for flat DEQ, the users' outputs, the list of changed
 * jobs, and the availability of all jobs (n <= sample) or of `sample`
 * random ones by brute force. */
static void ustep(int P, struct deq_job *jobs, int n, struct deq_user *users,
		  int nusers, uint64_t q, uint64_t *rng, int sample)
{
	struct deq_job *before = jobs_new(n);
	struct deq_user *ubefore = users_new(nusers);
	long *sum = calloc((size_t)(nusers > 0 ? nusers : 1), sizeof(long));
	int *changed = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
	int nc = -1, listed = 0;

	assert_non_null(sum);
	assert_non_null(changed);
	memcpy(before, jobs, (size_t)n * sizeof(*before));
	memcpy(ubefore, users, (size_t)nusers * sizeof(*ubefore));
	assert_int_equal(deq_allot_users(P, jobs, n, users, nusers, q, changed,
					 &nc), 0);
	check_call(P, before, jobs, n);
	for (int i = 0; i < n; i++) {
		int diff = differs(&jobs[i], &before[i]);

		assert_int_equal(jobs[i].changed, diff);
		listed += diff;
		assert_int_equal(jobs[i].user, before[i].user);
		sum[jobs[i].user] += before[i].desire < P ? before[i].desire : P;
	}
	assert_int_equal(nc, listed);
	for (int k = 0; k < nc; k++)
		assert_true(jobs[changed[k]].changed);
	for (int u = 0; u < nusers; u++) {
		long got = 0;

		for (int i = 0; i < n; i++)
			if (jobs[i].user == u)
				got += jobs[i].allotment;
		assert_int_equal(users[u].desire, sum[u] < P ? sum[u] : P);
		assert_int_equal(users[u].allotment, got);
		assert_int_equal(users[u].allotment,
				 users[u].desire < users[u].availability ?
				 users[u].desire : users[u].availability);
		assert_true(users[u].credit >= 0);
	}
	if (n > 0 && n <= sample) {
		for (int j = 0; j < n; j++)
			check_user_availability(P, before, ubefore, jobs, n,
						nusers, q, j);
	} else if (n > 0) {
		for (int k = 0; k < sample; k++)
			check_user_availability(P, before, ubefore, jobs, n,
						nusers, q, rnd_int(rng, 0, n - 1));
	}
	free(changed);
	free(sum);
	free(ubefore);
	free(before);
}

/* Jobs of desire `many_d` for user 0 (`many` of them) and one job of
 * desire `one_d` for user 1, on P processors for `quanta` quanta: user 1
 * gets `want` every quantum, and user 0's jobs take turns (totals within
 * one of each other over the whole run). */
static void many_against_one(int P, int many, int many_d, int one_d,
			     int want, int quanta)
{
	struct deq_job *jobs = jobs_new(many + 1);
	struct deq_user users[2];
	long total[64] = { 0 }, lo = 0, hi = 0;
	uint64_t rng = 12;

	assert_true(many < 64);
	memset(users, 0, sizeof(users));
	for (int i = 0; i < many; i++)
		jobs[i].desire = many_d;
	jobs[many].desire = one_d;
	jobs[many].user = 1;
	for (int q = 0; q < quanta; q++) {
		ustep(P, jobs, many + 1, users, 2, (uint64_t)q, &rng, 4);
		assert_int_equal(jobs[many].allotment, want);
		assert_int_equal(users[1].allotment, want);
		assert_int_equal(users[0].allotment, P - want);
		for (int i = 0; i < many; i++)
			total[i] += jobs[i].allotment;
	}
	for (int i = 0; i < many; i++) {
		lo = i == 0 || total[i] < lo ? total[i] : lo;
		hi = i == 0 || total[i] > hi ? total[i] : hi;
	}
	assert_true(hi - lo <= 1);
	free(jobs);
}

/* A user's many jobs take no more than an equal user share: 30 jobs of
 * desire 1 against one job of desire 2 on 2 processors leave that job 1
 * every quantum (flat DEQ gives it about 2 in 31); against desire 8 on 8,
 * 4. */
static void test_users_many_jobs(void **state)
{
	struct deq_job jobs[31];
	long flat = 0;

	(void)state;
	many_against_one(2, 30, 1, 2, 1, 300);
	many_against_one(8, 30, 1, 8, 4, 300);
	many_against_one(8, 30, 3, 2, 2, 100);  /* asks less than its share */
	/* the same jobs under flat DEQ, for contrast */
	memset(jobs, 0, sizeof(jobs));
	for (int i = 0; i < 30; i++)
		jobs[i].desire = 1;
	jobs[30].desire = 2;
	for (int q = 0; q < 310; q++) {
		assert_int_equal(deq_allot(2, jobs, 31, (uint64_t)q), 0);
		flat += jobs[30].allotment;
	}
	printf("30 jobs of one user against 1 of another on P=2, 310 quanta: "
	       "the lone job gets 1 every quantum users first, %ld in all "
	       "flat\n", flat);
	assert_true(flat <= 40);
}

/* With one job per user, users first is flat DEQ: the same allotments,
 * availabilities and slots, quantum after quantum, with churn. */
static void test_users_one_job_each(void **state)
{
	struct deq_job *jobs = jobs_new(200), *flat = jobs_new(200);
	struct deq_user *users = users_new(200);
	uint64_t rng = 13;

	(void)state;
	for (int sc = 0; sc < 100; sc++) {
		int P = rnd_int(&rng, 1, sc % 5 == 0 ? 200 : 16);
		int n = rnd_int(&rng, 0, 3 * P < 200 ? 3 * P : 200);

		for (int i = 0; i < n; i++) {
			memset(&jobs[i], 0, sizeof(jobs[i]));
			memset(&users[i], 0, sizeof(users[i]));
			jobs[i].desire = rnd_int(&rng, 0, P + 2);
			jobs[i].user = i;
		}
		memcpy(flat, jobs, (size_t)n * sizeof(*jobs));
		for (int t = 0; t < 30; t++) {
			uint64_t q = (uint64_t)(sc * 30 + t);

			assert_int_equal(deq_allot_users(P, jobs, n, users, n, q,
							 NULL, NULL), 0);
			assert_int_equal(deq_allot(P, flat, n, q), 0);
			for (int i = 0; i < n; i++) {
				assert_int_equal(jobs[i].allotment, flat[i].allotment);
				assert_int_equal(jobs[i].availability,
						 flat[i].availability);
				assert_same_set(&jobs[i].cpus, &flat[i].cpus);
				assert_int_equal(users[i].credit, flat[i].credit);
			}
			for (int i = 0; i < n; i++)
				if (rnd_int(&rng, 0, 4) == 0)
					flat[i].desire = jobs[i].desire =
						rnd_int(&rng, 0, P + 2);
		}
	}
	free(users);
	free(flat);
	free(jobs);
}

/* Random users and jobs fed back quantum after quantum, with churn and
 * garbage credits: every invariant and exact availability, every call. */
static void test_users_random(void **state)
{
	struct deq_job *jobs = jobs_new(400);
	struct deq_user *users = users_new(80);
	int scenarios = (int)test_scale(300, 3, 10);
	uint64_t rng = 14;

	(void)state;
	for (int sc = 0; sc < scenarios; sc++) {
		int P = rnd_int(&rng, 1, sc % 4 == 0 ? 300 : 16);
		int nusers = rnd_int(&rng, 1, sc % 3 == 0 ? 80 : 6);
		int nmax = 3 * P + 3 < 400 ? 3 * P + 3 : 400;
		int n = rnd_int(&rng, 0, nmax);
		uint64_t q = rnd_next(&rng) % 1000;

		memset(users, 0, (size_t)nusers * sizeof(*users));
		for (int i = 0; i < n; i++) {
			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].desire = rnd_int(&rng, 0, P + 3);
			jobs[i].user = rnd_int(&rng, 0, nusers - 1);
			if (rnd_int(&rng, 0, 9) == 0)   /* stray claims */
				deq_set_add(&jobs[i].cpus, rnd_int(&rng, 0, P - 1));
		}
		for (int t = 0; t < 20; t++, q++) {
			ustep(P, jobs, n, users, nusers, q, &rng, n <= 12 ? 12 : 3);
			stir(jobs, n, P, &rng);
			if (rnd_int(&rng, 0, 19) == 0)
				users[rnd_int(&rng, 0, nusers - 1)].credit =
					(int64_t)rnd_next(&rng);
			if (n > 0 && rnd_int(&rng, 0, 3) == 0)
				remove_job(jobs, NULL, &n, rnd_int(&rng, 0, n - 1));
			if (n < nmax && rnd_int(&rng, 0, 3) == 0) {
				int at = rnd_int(&rng, 0, n);

				insert_job(jobs, NULL, &n, at,
					   rnd_int(&rng, 0, P + 3), 0);
				jobs[at].user = rnd_int(&rng, 0, nusers - 1);
			}
		}
	}
	free(users);
	free(jobs);
}

/* More users than processors, each wanting more than it gets (its jobs'
 * desires change, its demand stays unmet), beside users that come and go
 * with small demands: the hungry users' totals stay within one
 * processor-quantum of each other over every window, and so do the
 * totals of each hungry user's jobs (their turns survive the quanta
 * their user gets nothing). */
static void test_users_take_turns(void **state)
{
	struct deq_job *jobs = jobs_new(64);
	struct deq_user users[12];
	int runs = (int)test_scale(40, 3, 10);
	uint64_t rng = 15;

	(void)state;
	for (int run = 0; run < runs; run++) {
		int P = rnd_int(&rng, 1, 5), g = rnd_int(&rng, P + 1, 8);
		int n = 0, a[32], first[9];
		struct fair f, fj[8];

		memset(users, 0, sizeof(users));
		for (int u = 0; u < g; u++) {           /* the hungry users */
			int k = rnd_int(&rng, 1, 5);

			first[u] = n;
			first[u + 1] = n + k;

			for (int i = 0; i < k; i++, n++) {
				memset(&jobs[n], 0, sizeof(jobs[n]));
				jobs[n].user = u;
				jobs[n].desire = rnd_int(&rng, 1, 2);
			}
		}
		for (; n < 40; n++) {                   /* the others */
			memset(&jobs[n], 0, sizeof(jobs[n]));
			jobs[n].user = rnd_int(&rng, g, 11);
		}
		fair_init(&f, g);
		for (int u = 0; u < g; u++)
			fair_init(&fj[u], first[u + 1] - first[u]);
		for (int q = 0; q < 300; q++) {
			ustep(P, jobs, n, users, 12, (uint64_t)q, &rng, 0);
			for (int u = 0; u < g; u++) {
				assert_true(users[u].allotment <= 1);
				a[u] = users[u].allotment;
				for (int i = first[u]; i < first[u + 1]; i++)
					a[16 + i - first[u]] = jobs[i].allotment;
				fair_add(&fj[u], a + 16);
			}
			fair_add(&f, a);
			for (int i = 0; i < n; i++) {
				if (jobs[i].user < g)   /* unmet: >= 1 each */
					jobs[i].desire = rnd_int(&rng, 1, 2);
				else if (rnd_int(&rng, 0, 5) == 0)
					jobs[i].desire = rnd_int(&rng, 0, 1);
			}
		}
	}
	free(jobs);
}

/* Bad users fail with EINVAL and change nothing. */
static void test_users_bad_args(void **state)
{
	struct deq_job jobs[2], copy[2];
	struct deq_user users[2], ucopy[2];

	(void)state;
	set_desires(jobs, 2, (int[]){ 1, 1 });
	memset(users, 0, sizeof(users));
	for (int k = 0; k < 5; k++) {
		int n = 2, nusers = 2;
		struct deq_user *u = users;

		switch (k) {
		case 0: jobs[1].user = 2; break;        /* beyond nusers */
		case 1: jobs[1].user = -1; break;
		case 2: nusers = -1; break;
		case 3: u = NULL; break;
		case 4: nusers = 0; break;              /* jobs, no users */
		}
		memcpy(copy, jobs, sizeof(jobs));
		memcpy(ucopy, users, sizeof(users));
		errno = 0;
		assert_int_equal(deq_allot_users(4, jobs, n, u, nusers, 0, NULL,
						 NULL), -1);
		assert_int_equal(errno, EINVAL);
		assert_memory_equal(copy, jobs, sizeof(jobs));
		assert_memory_equal(ucopy, users, sizeof(users));
		jobs[1].user = 0;
	}
	jobs[0].desire = -1;                    /* deq_allot's cases too */
	errno = 0;
	assert_int_equal(deq_allot_users(4, jobs, 2, users, 2, 0, NULL, NULL), -1);
	assert_int_equal(errno, EINVAL);
	/* the edges that are fine: no jobs, users without jobs */
	assert_int_equal(deq_allot_users(4, NULL, 0, NULL, 0, 0, NULL, NULL), 0);
	assert_int_equal(deq_allot_users(4, NULL, 0, users, 2, 0, NULL, NULL), 0);
	assert_int_equal(users[0].allotment, 0);
	assert_int_equal(users[0].availability, 4);
}

/* Many users and jobs: the heap path (beyond 64 users, 2048 jobs). */
static void test_users_large(void **state)
{
	int n = 3000, nusers = 100, P = 256;
	struct deq_job *jobs = jobs_new(n);
	struct deq_user *users = users_new(nusers);
	long total = 0;

	(void)state;
	for (int i = 0; i < n; i++) {
		jobs[i].desire = 1 + i % 3;
		jobs[i].user = i % nusers;
	}
	for (int q = 0; q < 10; q++) {
		assert_int_equal(deq_allot_users(P, jobs, n, users, nusers,
						 (uint64_t)q, NULL, NULL), 0);
		for (int u = 0; u < nusers; u++)
			assert_true(users[u].allotment == P / nusers ||
				    users[u].allotment == P / nusers + 1);
	}
	for (int i = 0; i < n; i++)
		total += jobs[i].allotment;
	assert_int_equal(total, P);
	free(users);
	free(jobs);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_helpers),
		cmocka_unit_test(test_water_filling),
		cmocka_unit_test(test_leftovers_rotate),
		cmocka_unit_test(test_more_jobs_than_cpus),
		cmocka_unit_test(test_new_job_waits),
		cmocka_unit_test(test_stability),
		cmocka_unit_test(test_leave_arrive),
		cmocka_unit_test(test_duplicate_claims),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_changes_listed),
		cmocka_unit_test(test_fairness_under_churn),
		cmocka_unit_test(test_speed),
		cmocka_unit_test(test_users_many_jobs),
		cmocka_unit_test(test_users_one_job_each),
		cmocka_unit_test(test_users_random),
		cmocka_unit_test(test_users_take_turns),
		cmocka_unit_test(test_users_bad_args),
		cmocka_unit_test(test_users_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
