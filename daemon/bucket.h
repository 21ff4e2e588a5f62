/*
 * bucket.h - a token bucket, the daemon's one form of "so many at once,
 * then so many a second": room for `burst` events, refilled at `rate` a
 * second as time passes (fractions kept, so that frequent takes lose no
 * refill).  Header only; times are given (qtime_now_ns), no clock here.
 */
#ifndef ASTEAL_BUCKET_H
#define ASTEAL_BUCKET_H

#include <stdint.h>

struct bucket {
	double tokens;          /* events it may take now */
	uint64_t at;            /* when it was last refilled, 0: never */
};

/* Refill b up to now: full the first time, else rate a second since the
 * last refill, at most burst. */
static inline void bucket_refill(struct bucket *b, uint64_t now, double burst,
                                 double rate)
{
	if (b->at == 0)
		b->tokens = burst;
	else if (now > b->at)
		b->tokens += (double)(now - b->at) * 1e-9 * rate;
	if (b->tokens > burst)
		b->tokens = burst;
	b->at = now;
}

/* Take one event from b at now: 1, or 0 (nothing taken) when it is empty. */
static inline int bucket_take(struct bucket *b, uint64_t now, double burst,
                              double rate)
{
	bucket_refill(b, now, burst, rate);
	if (b->tokens < 1)
		return 0;
	b->tokens -= 1;
	return 1;
}

#endif
