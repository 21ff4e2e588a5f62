/*
 * rng.h - the simulator's random numbers: splitmix64 for seeding and
 * xoshiro256** for streams, as small inline functions.  Every random choice
 * in asteal-sim comes from an rng_state seeded from the user's --seed, so a
 * run is a pure function of its arguments.
 */
#ifndef ASTEAL_SIM_RNG_H
#define ASTEAL_SIM_RNG_H

#include <math.h>
#include <stdint.h>

struct rng_state {
	uint64_t s[4];
};

/* One step of splitmix64: a well-mixed 64-bit value from a counter. */
static inline uint64_t rng_mix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A seed for sub-stream `index` of `seed` (runs, jobs, profiles). */
static inline uint64_t rng_derive(uint64_t seed, uint64_t index)
{
	uint64_t x = seed ^ (index * 0xd1b54a32d192ed03ULL);

	rng_mix(&x);
	return rng_mix(&x);
}

/* Seed a stream. */
static inline void rng_seed(struct rng_state *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = rng_mix(&x);
}

/* Rotate left. */
static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* The next 64 random bits (xoshiro256**). */
static inline uint64_t rng_next(struct rng_state *r)
{
	uint64_t *s = r->s;
	uint64_t res = rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return res;
}

/* A uniform integer in [0, n), n >= 1 (multiply-shift, negligible bias). */
static inline uint32_t rng_below(struct rng_state *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* A uniform integer in [lo, hi]. */
static inline long rng_range(struct rng_state *r, long lo, long hi)
{
	return lo + (long)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* A uniform double in [0, 1). */
static inline double rng_unit(struct rng_state *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* A log-uniform double in [lo, hi], lo > 0. */
static inline double rng_logu(struct rng_state *r, double lo, double hi)
{
	return lo * exp(rng_unit(r) * log(hi / lo));
}

/* A standard normal deviate (Box-Muller). */
static inline double rng_normal(struct rng_state *r)
{
	double u = 1.0 - rng_unit(r), v = rng_unit(r);

	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* An exponential deviate with the given mean. */
static inline double rng_expo(struct rng_state *r, double mean)
{
	return -mean * log(1.0 - rng_unit(r));
}

#endif
