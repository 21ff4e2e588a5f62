/*
 * cilksort.c - Cilk's parallel merge sort (see cilksort_kernels.h) of N
 * pseudo-random 64-bit integers: a 4-way split sort whose quarters are
 * sorted in parallel and merged by a parallel divide-and-conquer merge.
 * Only the sort is timed; the check is that the output is sorted and a
 * permutation of the input.
 *
 *   cilksort N [--serial] [--workers W]      (1 <= N <= 2^28)
 */
#include <stdio.h>
#include <stdlib.h>

#include "asteal.h"
#include "cilksort_kernels.h"
#include "common.h"

#define NAME "cilksort"

/* A merge of sorted a[0..na) and b[0..nb) into dst. */
struct cs_merge_arg {
	const cs_elem *a;
	size_t na;
	const cs_elem *b;
	size_t nb;
	cs_elem *dst;
};

/* A sort of a[0..n) with scratch tmp[0..n). */
struct cs_sort_arg {
	cs_elem *a;
	cs_elem *tmp;
	size_t n;
};

/* Fill a merge argument. */
static struct cs_merge_arg cs_merge_of(const cs_elem *a, size_t na,
                                       const cs_elem *b, size_t nb,
                                       cs_elem *dst)
{
	struct cs_merge_arg m;

	m.a = a;
	m.na = na;
	m.b = b;
	m.nb = nb;
	m.dst = dst;
	return m;
}

/* The merge task: split around the longer run's middle, merge both sides in parallel. */
static void cs_merge_task(void *p)
{
	struct cs_merge_arg *m = p;
	struct cs_merge_arg lo, hi;
	asteal_group g;
	size_t ma, mb;

	if (m->na < m->nb) {
		lo = cs_merge_of(m->b, m->nb, m->a, m->na, m->dst);
		cs_merge_task(&lo);
		return;
	}
	if (m->na + m->nb < CS_MERGE_CUTOFF) {
		cs_merge_serial(m->a, m->na, m->b, m->nb, m->dst);
		return;
	}
	cs_merge_split(m->a, m->na, m->b, m->nb, m->dst, &ma, &mb);
	lo = cs_merge_of(m->a, ma, m->b, mb, m->dst);
	hi = cs_merge_of(m->a + ma + 1, m->na - ma - 1, m->b + mb, m->nb - mb,
	                 m->dst + ma + mb + 1);
	asteal_group_init(&g);
	asteal_spawn(&g, cs_merge_task, &lo);
	cs_merge_task(&hi);
	asteal_sync(&g);
}

/* The sort task: sort the four quarters, merge them pairwise, merge the halves. */
static void cs_sort_task(void *p)
{
	struct cs_sort_arg *s = p;
	struct cs_sort_arg part[4];
	struct cs_merge_arg m[2];
	size_t q = s->n / 4;
	asteal_group g;
	int i;

	if (s->n < CS_SORT_CUTOFF) {
		cs_quicksort(s->a, s->n);
		return;
	}
	for (i = 0; i < 4; i++) {
		part[i].a = s->a + (size_t)i * q;
		part[i].tmp = s->tmp + (size_t)i * q;
		part[i].n = i < 3 ? q : s->n - 3 * q;
	}
	asteal_group_init(&g);
	for (i = 0; i < 3; i++)
		asteal_spawn(&g, cs_sort_task, &part[i]);
	cs_sort_task(&part[3]);
	asteal_sync(&g);
	m[0] = cs_merge_of(s->a, q, s->a + q, q, s->tmp);
	m[1] = cs_merge_of(s->a + 2 * q, q, s->a + 3 * q, s->n - 3 * q,
	                   s->tmp + 2 * q);
	asteal_spawn(&g, cs_merge_task, &m[0]);
	cs_merge_task(&m[1]);
	asteal_sync(&g);
	m[0] = cs_merge_of(s->tmp, 2 * q, s->tmp + 2 * q, s->n - 2 * q, s->a);
	cs_merge_task(&m[0]);
}

/* Sort a[0..n) on the runtime. */
static void cs_sort_parallel(cs_elem *a, cs_elem *tmp, size_t n)
{
	struct cs_sort_arg root;

	root.a = a;
	root.tmp = tmp;
	root.n = n;
	if (asteal_run(cs_sort_task, &root) < 0) {
		perror(NAME ": asteal_run");
		exit(JOB_EXIT_WRONG);
	}
}

/* Parse the arguments, start the runtime, sort and report. */
int main(int argc, char **argv)
{
	job_common c;
	long n = cs_parse_args(NAME, argc, argv, &c);
	int rc;

	job_runtime_start(NAME, &c);
	rc = cs_run_job(NAME, n, &c, cs_sort_parallel);
	job_runtime_stop(&c);
	return rc;
}
