/*
 * samples.h - the last SAMPLES_RING values of a measurement (tick time,
 * DEQ time, timer lateness, revocation latency ...), and their
 * percentiles and mean for asteald's Status.  Adding is O(1) and never
 * allocates; percentiles sort a copy, only when asked.
 */
#ifndef ASTEAL_SAMPLES_H
#define ASTEAL_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#define SAMPLES_RING 4096

struct samples {
	uint64_t v[SAMPLES_RING];
	uint64_t n;             /* added in all */
};

/* Add one value (the oldest of a full ring goes). */
void samples_add(struct samples *s, uint64_t v);

/* The values kept: min(n, SAMPLES_RING). */
size_t samples_count(const struct samples *s);

/* The p50, p99 and max of the values kept (all 0 when there are none). */
void samples_pct(const struct samples *s, uint64_t *p50, uint64_t *p99,
                 uint64_t *max);

/* The mean of the values kept (0 when there are none). */
double samples_mean(const struct samples *s);

#endif
