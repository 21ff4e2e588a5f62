/*
 * samples.c - a ring of the last values of a measurement and its
 * percentiles (see samples.h).
 */
#include "samples.h"

#include <string.h>

/* Add one value. */
void samples_add(struct samples *s, uint64_t v)
{
	s->v[s->n++ % SAMPLES_RING] = v;
}

/* The values kept. */
size_t samples_count(const struct samples *s)
{
	return s->n < SAMPLES_RING ? (size_t)s->n : SAMPLES_RING;
}

/* Put the k-th smallest of a[0..n-1] at a[k], the smaller ones before it
 * and the others after (Hoare's selection, middle pivot): linear on
 * average, and on the sorted or constant runs a ring mostly holds. */
static void select_kth(uint64_t *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint64_t pivot = a[lo + (hi - lo) / 2], t;
		size_t i = lo, j = hi;

		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

/* The p50, p99 and max of the values kept: nearest rank, found again
 * only when values came since they were last asked for. */
void samples_pct(struct samples *s, uint64_t *p50, uint64_t *p99,
                 uint64_t *max)
{
	static uint64_t a[SAMPLES_RING];        /* one event loop calls this */
	size_t n = samples_count(s), k50, k99;

	if (s->at != s->n + 1) {
		s->p50 = s->p99 = s->max = 0;
		if (n > 0) {
			k50 = (n - 1) / 2;
			k99 = (n * 99 + 99) / 100 - 1;
			memcpy(a, s->v, n * sizeof(*a));
			select_kth(a, n, k99);
			s->p99 = a[k99];
			s->max = a[k99];
			for (size_t i = k99 + 1; i < n; i++)
				if (a[i] > s->max)
					s->max = a[i];
			select_kth(a, k99 + 1, k50);
			s->p50 = a[k50];
		}
		s->at = s->n + 1;
	}
	*p50 = s->p50;
	*p99 = s->p99;
	*max = s->max;
}

/* The mean of the values kept. */
double samples_mean(const struct samples *s)
{
	size_t n = samples_count(s);
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += (double)s->v[i];
	return n > 0 ? sum / (double)n : 0;
}
