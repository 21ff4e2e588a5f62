/*
 * profile.c - asteal-profile: write an availability profile for libasteal's
 * local scheduler (ASTEAL_PROFILE) or the simulator, one integer per line,
 * one line per quantum, as in the A-STEAL paper's section 4.2:
 *
 *   uniform  availability drawn uniformly from [min, max] every quantum
 *   smooth   the change from one quantum to the next is a standard normal
 *            draw (times --step), rounded, kept within [min, max]
 *   constant every quantum max
 *   square   max for --period quanta, then min for --period quanta, ...
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print the usage on f. */
static void usage(FILE *f)
{
	fprintf(f,
	    "usage: asteal-profile uniform|smooth|constant|square --max P\n"
	    "         [--min M] [--quanta N] [--seed S] [--step X] [--period K]\n"
	    "  One availability per line, one line per quantum, on stdout.\n"
	    "  --max P     the largest availability (required, 1..1000000)\n"
	    "  --min M     the smallest (default 1; 0 allowed, but never on the\n"
	    "              last line, which holds from there on: it is --max)\n"
	    "  --quanta N  lines to write (default 1000)\n"
	    "  --seed S    random seed (default 1): the same seed, the same profile\n"
	    "  --step X    smooth: standard deviation of a change (default 1)\n"
	    "  --period K  square: quanta per half period (default 10)\n");
}

/* xorshift64*: the generator (deterministic for a seed). */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* A uniform real in (0, 1). */
static double next_unit(uint64_t *s)
{
	return ((double)(next_u64(s) >> 11) + 0.5) / 9007199254740992.0;
}

/* A standard normal draw (Box-Muller). */
static double next_normal(uint64_t *s)
{
	double u = next_unit(s), v = next_unit(s);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* Parse a whole decimal number in [lo, hi] or fail. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	long max = -1, min = 1, quanta = 1000, seed = 1, period = 10, q, cur;
	double step = 1.0;
	const char *kind;
	uint64_t rng;
	int i;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	kind = argv[1];
	if (strcmp(kind, "uniform") != 0 && strcmp(kind, "smooth") != 0 &&
	    strcmp(kind, "constant") != 0 && strcmp(kind, "square") != 0) {
		fprintf(stderr, "asteal-profile: unknown kind '%s'\n", kind);
		usage(stderr);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = val == NULL;
		if (!bad && strcmp(opt, "--max") == 0)
			bad = parse_long(val, 1, 1000000, &max);
		else if (!bad && strcmp(opt, "--min") == 0)
			bad = parse_long(val, 0, 1000000, &min);
		else if (!bad && strcmp(opt, "--quanta") == 0)
			bad = parse_long(val, 1, 100000000, &quanta);
		else if (!bad && strcmp(opt, "--seed") == 0)
			bad = parse_long(val, 0, INT64_MAX, &seed);
		else if (!bad && strcmp(opt, "--period") == 0)
			bad = parse_long(val, 1, 100000000, &period);
		else if (!bad && strcmp(opt, "--step") == 0) {
			char *end;
			step = strtod(val, &end);
			bad = end == val || *end != '\0' || !(step > 0 && step < 1e6);
		} else {
			fprintf(stderr, "asteal-profile: unknown option '%s'\n", opt);
			usage(stderr);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "asteal-profile: %s: missing or bad value\n", opt);
			return 2;
		}
		i++;
	}
	if (max < 1 || min > max) {
		fprintf(stderr, "asteal-profile: --max is required, at least 1 and "
		        ">= --min\n");
		return 2;
	}
	rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)seed;
	if (rng == 0)
		rng = 1;
	cur = (min + max + 1) / 2;
	for (q = 0; q < quanta; q++) {
		long p;
		if (kind[0] == 'u') {
			p = min + (long)(next_u64(&rng) % (uint64_t)(max - min + 1));
		} else if (kind[0] == 's' && kind[1] == 'm') {
			cur += lround(step * next_normal(&rng));
			cur = cur < min ? min : cur > max ? max : cur;
			p = cur;
		} else if (kind[0] == 'c') {
			p = max;
		} else {
			p = (q / period) % 2 == 0 ? max : min;
		}
		/* The last line holds for the rest of the job's life:
		 * libasteal refuses a profile that ends in 0. */
		if (q == quanta - 1 && p == 0)
			p = max;
		if (printf("%ld\n", p) < 0) {
			perror("asteal-profile: stdout");
			return 1;
		}
	}
	if (fflush(stdout) != 0) {
		perror("asteal-profile: stdout");
		return 1;
	}
	return 0;
}
