/*
 * fuzzutil.h - what the two fuzz harnesses (fuzz_frame.c, fuzz_daemon.c)
 * share in their standalone form (-DFUZZ_STANDALONE, no libFuzzer): a
 * seeded generator, byte-level mutations, the seed writer, saving the
 * input that failed an oracle, and the driver's main loop.
 *
 * The loop builds each input from one to three seeds back to back, then
 * applies up to four mutations (bit flips, interesting and random bytes,
 * truncation, a 4-byte big-endian length at the start, insertion,
 * deletion, duplication), and hands it to LLVMFuzzerTestOneInput:
 *   NAME [ITERATIONS [SEED]]    default iterations per harness, seed 1
 *   NAME -s DIR                 write the seeds to DIR as seed-NN files
 *                               (a starting corpus for libFuzzer)
 *   NAME -r FILE...             run each file once as an input (the
 *                               regression inputs: tests/fuzz.test.sh)
 * Everything is deterministic for a given seed.  Include once, from the
 * harness's .c file.
 *
 * A regression input is an input that once failed (a crash, a sanitizer
 * report, an oracle: NAME-crash.bin, or libFuzzer's crash-*), kept after
 * the fix in tests/fuzz/daemon/ (fuzz_daemon's) or tests/fuzz/frame/
 * (fuzz_frame's), named for what it caught.
 */
#ifndef FUZZUTIL_H
#define FUZZUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "qtime.h"

/* The libFuzzer entry point each harness defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The largest input the standalone loop builds. */
#define FUZZ_MAX_INPUT 8192

/* The seeds a harness starts from. */
#define FUZZ_MAX_SEEDS 32
#define FUZZ_SEED_LEN 1024
struct fuzz_seeds {
	uint8_t buf[FUZZ_MAX_SEEDS][FUZZ_SEED_LEN];
	size_t len[FUZZ_MAX_SEEDS];
	int n;
};

/* The input being run, saved when an oracle fails (fuzz_fail). */
static const uint8_t *fuzz_cur_data;
static size_t fuzz_cur_size;

/* Stop with a message because an oracle failed: standalone, the input is
 * saved in NAME-crash.bin first (libFuzzer saves its own). */
static inline void fuzz_fail(const char *name, const char *what)
{
	fprintf(stderr, "%s: %s\n", name, what);
#ifdef FUZZ_STANDALONE
	{
		char path[128];
		FILE *f;

		snprintf(path, sizeof(path), "%s-crash.bin", name);
		f = fopen(path, "wb");
		if (f != NULL) {
			fwrite(fuzz_cur_data, 1, fuzz_cur_size, f);
			fclose(f);
			fprintf(stderr, "%s: input (%zu bytes) saved in %s\n",
				name, fuzz_cur_size, path);
		}
	}
#endif
	abort();
}

/* The generator: xorshift64*, seeded by fuzz_main. */
static uint64_t fuzz_rng_state = 1;

/* The next pseudo-random number. */
static inline uint64_t fuzz_rng(void)
{
	fuzz_rng_state ^= fuzz_rng_state >> 12;
	fuzz_rng_state ^= fuzz_rng_state << 25;
	fuzz_rng_state ^= fuzz_rng_state >> 27;
	return fuzz_rng_state * 2685821657736338717ull;
}

/* A pseudo-random number below n (n > 0). */
static inline size_t fuzz_below(size_t n)
{
	return (size_t)(fuzz_rng() % n);
}

/* Rewrite the 4-byte length prefix at p to an interesting value for a
 * frame of len_after bytes after it. */
static inline void fuzz_mutate_prefix(uint8_t *p, size_t len_after)
{
	uint32_t v;

	switch (fuzz_below(6)) {
	case 0: v = (uint32_t)len_after + 1; break;
	case 1: v = len_after > 0 ? (uint32_t)len_after - 1 : 0; break;
	case 2: v = 0; break;
	case 3: v = PROTO_MAX_FRAME; break;
	case 4: v = PROTO_MAX_FRAME + 1 + (uint32_t)fuzz_below(3); break;
	default: v = (uint32_t)fuzz_rng(); break;
	}
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Apply one random mutation to buf (*len bytes, room for FUZZ_MAX_INPUT). */
static inline void fuzz_mutate(uint8_t *buf, size_t *len)
{
	static const uint8_t interesting[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x0a, 0x08, 0x12 };
	size_t n = *len, at, k;

	switch (fuzz_below(8)) {
	case 0:   /* flip a bit */
		if (n > 0)
			buf[fuzz_below(n)] ^= (uint8_t)(1u << fuzz_below(8));
		break;
	case 1:   /* an interesting byte */
		if (n > 0)
			buf[fuzz_below(n)] = interesting[fuzz_below(sizeof(interesting))];
		break;
	case 2:   /* a random byte */
		if (n > 0)
			buf[fuzz_below(n)] = (uint8_t)fuzz_rng();
		break;
	case 3:   /* truncate */
		*len = fuzz_below(n + 1);
		break;
	case 4:   /* the first frame's length prefix */
		if (n >= PROTO_HEADER_LEN)
			fuzz_mutate_prefix(buf, n - PROTO_HEADER_LEN);
		break;
	case 5:   /* insert random bytes */
		k = 1 + fuzz_below(16);
		if (n + k <= FUZZ_MAX_INPUT) {
			size_t j;

			at = fuzz_below(n + 1);
			memmove(buf + at + k, buf + at, n - at);
			for (j = 0; j < k; j++)
				buf[at + j] = (uint8_t)fuzz_rng();
			*len = n + k;
		}
		break;
	case 6:   /* delete a range */
		if (n > 0) {
			at = fuzz_below(n);
			k = 1 + fuzz_below(n - at);
			memmove(buf + at, buf + at + k, n - at - k);
			*len = n - k;
		}
		break;
	default:  /* duplicate a range at the end */
		if (n > 0) {
			at = fuzz_below(n);
			k = 1 + fuzz_below(n - at);
			if (n + k <= FUZZ_MAX_INPUT) {
				memcpy(buf + n, buf + at, k);
				*len = n + k;
			}
		}
		break;
	}
}

/* Add n bytes at p as the next seed (the harness's seeds fit: abort
 * otherwise). */
static inline void fuzz_seed_add(struct fuzz_seeds *s, const void *p, size_t n)
{
	if (s->n >= FUZZ_MAX_SEEDS || n > FUZZ_SEED_LEN)
		abort();
	memcpy(s->buf[s->n], p, n);
	s->len[s->n++] = n;
}

/* Write the seeds to dir as seed-NN files: 0, or 1 with the reason said. */
static inline int fuzz_write_seeds(const char *dir, const struct fuzz_seeds *s)
{
	char path[4096];
	int k;

	for (k = 0; k < s->n; k++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/seed-%02d", dir, k);
		f = fopen(path, "wb");
		if (f == NULL || fwrite(s->buf[k], 1, s->len[k], f) != s->len[k] ||
		    fclose(f) != 0) {
			perror(path);
			return 1;
		}
	}
	return 0;
}

/* Run each of the n files at paths once as an input, then
 * report(inputs, seconds taken): 0, or 1 when a file cannot be read or is
 * larger than an input may be. */
static inline int fuzz_replay(int n, char **paths,
			      void (*report)(unsigned long, double))
{
	static uint8_t buf[FUZZ_MAX_INPUT + 1];
	uint64_t t0 = qtime_now_ns();
	int k;

	for (k = 0; k < n; k++) {
		FILE *f = fopen(paths[k], "rb");
		size_t len;

		if (f == NULL) {
			perror(paths[k]);
			return 1;
		}
		len = fread(buf, 1, sizeof(buf), f);
		if (ferror(f) || len > FUZZ_MAX_INPUT) {
			fprintf(stderr, "%s: unreadable, or more than %d bytes\n",
				paths[k], FUZZ_MAX_INPUT);
			fclose(f);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		printf("%s (%zu bytes): passed\n", paths[k], len);
	}
	report((unsigned long)n, (double)(qtime_now_ns() - t0) * 1e-9);
	return 0;
}

/* The standalone driver, a harness's main(): the seed writer (-s DIR),
 * the regression inputs (-r FILE...), or argv's first number of inputs
 * (else iters) made from the seeds make_seeds gives by the mutation
 * loop, seeded by argv's second number (else 1), then report(inputs,
 * seconds taken).  The exit status. */
static inline int fuzz_main(int argc, char **argv,
			    void (*make_seeds)(struct fuzz_seeds *),
			    unsigned long iters,
			    void (*report)(unsigned long, double))
{
	static struct fuzz_seeds s;
	static uint8_t buf[FUZZ_MAX_INPUT];
	uint64_t t0;
	unsigned long i;

	make_seeds(&s);
	if (argc == 3 && strcmp(argv[1], "-s") == 0)
		return fuzz_write_seeds(argv[2], &s);
	if (argc >= 2 && strcmp(argv[1], "-r") == 0)
		return fuzz_replay(argc - 2, argv + 2, report);
	if (argc > 1)
		iters = strtoul(argv[1], NULL, 0);
	fuzz_rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	if (fuzz_rng_state == 0)
		fuzz_rng_state = 1;
	t0 = qtime_now_ns();
	for (i = 0; i < iters; i++) {
		size_t len = 0;
		int k, nmut;

		for (k = 1 + (int)fuzz_below(3); k > 0; k--) {
			int pick = (int)fuzz_below((size_t)s.n);

			memcpy(buf + len, s.buf[pick], s.len[pick]);
			len += s.len[pick];
		}
		for (nmut = (int)fuzz_below(5); nmut > 0; nmut--)
			fuzz_mutate(buf, &len);
		LLVMFuzzerTestOneInput(buf, len);
	}
	report(iters, (double)(qtime_now_ns() - t0) * 1e-9);
	return 0;
}

#endif
