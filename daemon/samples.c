/*
 * samples.c - a ring of the last values of a measurement and its
 * percentiles (see samples.h).
 */
#include "samples.h"

#include <stdlib.h>
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

/* Compare two values, for qsort. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The p50, p99 and max of the values kept: nearest rank. */
void samples_pct(const struct samples *s, uint64_t *p50, uint64_t *p99,
                 uint64_t *max)
{
	static uint64_t sorted[SAMPLES_RING];   /* one event loop calls this */
	size_t n = samples_count(s);

	*p50 = *p99 = *max = 0;
	if (n == 0)
		return;
	memcpy(sorted, s->v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	*p50 = sorted[(n - 1) / 2];
	*p99 = sorted[(n * 99 + 99) / 100 - 1];
	*max = sorted[n - 1];
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
