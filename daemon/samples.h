/*
 * samples.h - the last SAMPLES_RING values of a measurement (tick time,
 * DEQ time, timer lateness, revocation latency ...), and their
 * percentiles and mean for asteald's Status.  Adding is O(1) and never
 * allocates.  Percentiles are found when asked, by selection on a copy
 * (linear: about 30 us for a full ring), and kept until the next value
 * comes, so that a flood of Status requests between two ticks costs one
 * selection per measurement, not one each.
 */
#ifndef ASTEAL_SAMPLES_H
#define ASTEAL_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#define SAMPLES_RING 4096

struct samples {
	uint64_t v[SAMPLES_RING];
	uint64_t n;             /* added in all */
	uint64_t at;            /* n + 1 when p50..max were found, else 0 */
	uint64_t p50, p99, max;
};

/* Add one value (the oldest of a full ring goes). */
void samples_add(struct samples *s, uint64_t v);

/* The values kept: min(n, SAMPLES_RING). */
size_t samples_count(const struct samples *s);

/* The p50, p99 and max of the values kept (all 0 when there are none). */
void samples_pct(struct samples *s, uint64_t *p50, uint64_t *p99,
                 uint64_t *max);

/* The mean of the values kept (0 when there are none). */
double samples_mean(const struct samples *s);

#endif
