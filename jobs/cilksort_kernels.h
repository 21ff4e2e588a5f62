/*
 * cilksort_kernels.h - what the cilksort job and its OpenMP and oneTBB
 * versions share: argument parsing, the input, the serial kernels (quick
 * sort, insertion sort, merge), the whole algorithm run serially for
 * --serial, and the driver that times one sort and checks it.
 *
 * The algorithm is Cilk's cilksort: split the array in four quarters, sort
 * them in parallel, merge them pairwise into the scratch array in
 * parallel, and merge the two halves back.  A merge of two sorted runs
 * takes the middle element of the longer run, finds where it goes in the
 * shorter one by binary search, puts it in its final place, and merges the
 * two sides in parallel.  Below CS_SORT_CUTOFF elements a quarter is sorted
 * by quick sort, and below CS_MERGE_CUTOFF elements a merge is serial.
 *
 * This header is C11 and C++17 alike.
 */
#ifndef JOBS_CILKSORT_KERNELS_H
#define JOBS_CILKSORT_KERNELS_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define CS_MAX ((long)1 << 28)	/* elements; two arrays of 2 GiB each */
#define CS_USAGE "N [--serial] [--workers W]   (1 <= N <= 268435456 elements)"
#define CS_SORT_CUTOFF 2048	/* sort serially below this many elements */
#define CS_MERGE_CUTOFF 2048	/* merge serially below this many elements */
#define CS_INSERTION_CUTOFF 20	/* quick sort hands over to insertion sort */
#define CS_SEED UINT64_C(0x63696c6b)

typedef int64_t cs_elem;

/* The order-independent summary of a multiset of elements. */
struct cs_print {
	uint64_t sum;	/* sum of a hash of every element */
	uint64_t xor_;	/* xor of every element */
};

/* Parse "N [--serial] [--workers W]" into *c and return N; exits 2 on bad arguments. */
static inline long cs_parse_args(const char *name, int argc, char **argv,
                                 job_common *c)
{
	return job_parse_size(name, CS_USAGE, argc, argv, 1, CS_MAX, c);
}

/* The splitmix64 step: a well mixed 64-bit function of x. */
static inline uint64_t cs_mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* Fill a[0..n) with the job's fixed pseudo-random input. */
static inline void cs_fill(cs_elem *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		a[i] = (cs_elem)cs_mix(CS_SEED + i);
}

/* The summary of a[0..n), equal for any permutation of it. */
static inline struct cs_print cs_fingerprint(const cs_elem *a, size_t n)
{
	struct cs_print p = { 0, 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		p.sum += cs_mix((uint64_t)a[i]);
		p.xor_ ^= (uint64_t)a[i];
	}
	return p;
}

/* Whether a[0..n) is in nondecreasing order. */
static inline int cs_is_sorted(const cs_elem *a, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return 0;
	return 1;
}

/* Sort a[0..n) by insertion. */
static inline void cs_insertion_sort(cs_elem *a, size_t n)
{
	size_t i, j;
	cs_elem v;

	for (i = 1; i < n; i++) {
		v = a[i];
		for (j = i; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/* The median of three values. */
static inline cs_elem cs_median3(cs_elem x, cs_elem y, cs_elem z)
{
	if (x < y)
		return y < z ? y : (x < z ? z : x);
	return x < z ? x : (y < z ? z : y);
}

/* Split a[0..n) around a median-of-three pivot; returns k with a[0..k) <= a[k..n), 0 < k < n. */
static inline size_t cs_partition(cs_elem *a, size_t n)
{
	cs_elem pivot = cs_median3(a[0], a[n / 2], a[n - 1]), t;
	size_t i = 0, j = n - 1;

	for (;;) {
		while (a[i] < pivot)
			i++;
		while (a[j] > pivot)
			j--;
		if (i >= j)
			return j + 1 < n ? j + 1 : j;
		t = a[i];
		a[i] = a[j];
		a[j] = t;
		i++;
		j--;
	}
}

/* Sort a[0..n) by quick sort: recurse on the smaller side, loop on the larger. */
static inline void cs_quicksort(cs_elem *a, size_t n)
{
	size_t k;

	while (n > CS_INSERTION_CUTOFF) {
		k = cs_partition(a, n);
		if (k < n - k) {
			cs_quicksort(a, k);
			a += k;
			n -= k;
		} else {
			cs_quicksort(a + k, n - k);
			n = k;
		}
	}
	cs_insertion_sort(a, n);
}

/* The number of elements of sorted b[0..n) that are less than key. */
static inline size_t cs_lower_bound(const cs_elem *b, size_t n, cs_elem key)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (b[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Merge sorted a[0..na) and b[0..nb) into dst by the plain two-finger loop. */
static inline void cs_merge_serial(const cs_elem *a, size_t na,
                                   const cs_elem *b, size_t nb, cs_elem *dst)
{
	size_t i = 0, j = 0;

	while (i < na && j < nb)
		*dst++ = b[j] < a[i] ? b[j++] : a[i++];
	while (i < na)
		*dst++ = a[i++];
	while (j < nb)
		*dst++ = b[j++];
}

/* The split of a merge: a's middle element goes to dst[*ma + *mb]. */
static inline void cs_merge_split(const cs_elem *a, size_t na,
                                  const cs_elem *b, size_t nb, cs_elem *dst,
                                  size_t *ma, size_t *mb)
{
	*ma = na / 2;
	*mb = cs_lower_bound(b, nb, a[*ma]);
	dst[*ma + *mb] = a[*ma];
}

/* The divide-and-conquer merge of the parallel versions, run serially. */
static inline void cs_merge_rec(const cs_elem *a, size_t na, const cs_elem *b,
                                size_t nb, cs_elem *dst)
{
	size_t ma, mb;

	if (na < nb) {
		cs_merge_rec(b, nb, a, na, dst);
		return;
	}
	if (na + nb < CS_MERGE_CUTOFF) {
		cs_merge_serial(a, na, b, nb, dst);
		return;
	}
	cs_merge_split(a, na, b, nb, dst, &ma, &mb);
	cs_merge_rec(a, ma, b, mb, dst);
	cs_merge_rec(a + ma + 1, na - ma - 1, b + mb, nb - mb, dst + ma + mb + 1);
}

/* Cilksort of a[0..n) with scratch tmp[0..n), run serially (--serial). */
static inline void cs_sort_serial(cs_elem *a, cs_elem *tmp, size_t n)
{
	size_t q = n / 4;

	if (n < CS_SORT_CUTOFF) {
		cs_quicksort(a, n);
		return;
	}
	cs_sort_serial(a, tmp, q);
	cs_sort_serial(a + q, tmp + q, q);
	cs_sort_serial(a + 2 * q, tmp + 2 * q, q);
	cs_sort_serial(a + 3 * q, tmp + 3 * q, n - 3 * q);
	cs_merge_rec(a, q, a + q, q, tmp);
	cs_merge_rec(a + 2 * q, q, a + 3 * q, n - 3 * q, tmp + 2 * q);
	cs_merge_rec(tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
}

/* A parallel cilksort of a[0..n) with scratch tmp[0..n). */
typedef void cs_sort_fn(cs_elem *a, cs_elem *tmp, size_t n);

/* Sort the job's input of n elements (par_sort unless c->serial), time the
 * sort alone, check it, print the result line and return the exit status. */
static inline int cs_run_job(const char *name, long n, const job_common *c,
                             cs_sort_fn *par_sort)
{
	cs_elem *a = (cs_elem *)malloc((size_t)n * sizeof(cs_elem));
	cs_elem *tmp = (cs_elem *)malloc((size_t)n * sizeof(cs_elem));
	struct cs_print before, after;
	char size[32], result[40];
	double t0, t1;
	int ok;

	if (a == NULL || tmp == NULL) {
		fprintf(stderr, "%s: out of memory for %ld elements\n", name, n);
		exit(JOB_EXIT_WRONG);
	}
	cs_fill(a, (size_t)n);
	before = cs_fingerprint(a, (size_t)n);
	t0 = job_now();
	if (c->serial)
		cs_sort_serial(a, tmp, (size_t)n);
	else
		par_sort(a, tmp, (size_t)n);
	t1 = job_now();
	after = cs_fingerprint(a, (size_t)n);
	ok = cs_is_sorted(a, (size_t)n) && before.sum == after.sum &&
	     before.xor_ == after.xor_;
	snprintf(size, sizeof(size), "%ld", n);
	snprintf(result, sizeof(result), "%016" PRIx64, after.sum ^ after.xor_);
	free(a);
	free(tmp);
	return job_report(name, size, result, c, t1 - t0, ok);
}

#endif
