/*
 * fuzz_frame.c - a fuzz harness for the framing module (proto/frame.c).
 *
 * LLVMFuzzerTestOneInput() takes any bytes three ways and checks that they
 * agree and never crash, leak or loop:
 *   1. as a stream, frame by frame with frame_peek() and frame_decode();
 *   2. as the same stream fed to a frame_reader in uneven chunks: the same
 *      frames must come out, accepted or refused alike;
 *   3. as one frame body for frame_decode(), whole and past 4 bytes, and
 *      for the daemon's hand decoder exchange_decode_feedback(): whenever
 *      that takes a body, frame_decode must take it as the same Feedback.
 * Every decoded message is encoded again, decoded again and encoded a
 * third time: the last two encodings must be identical.
 *
 * Built with -DFUZZ_STANDALONE it has a main() that needs no libFuzzer: a
 * deterministic mutation loop (seeded xorshift) over valid frames of many
 * message types (bit flips, byte values, truncation, length prefixes,
 * insertion, deletion, splicing).
 *   fuzz_frame [ITERATIONS [SEED]]    default 200000 iterations, seed 1
 *   fuzz_frame -s DIR                 write the seed frames to DIR (a
 *                                     starting corpus for libFuzzer)
 * Compile commands: proto/README.md.  Not named test_*: the Makefile would
 * link it as a cmocka test.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "frame.h"
#include "qtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the inputs did (standalone statistics). */
static struct {
	unsigned long frames_ok, frames_bad, oversize, bodies_ok, bodies_bad,
		hand_ok;
} stats;

/* The input being run (standalone: saved when an oracle fails). */
static const uint8_t *cur_data;
static size_t cur_size;

/* Stop with a message: an oracle failed. */
static void die(const char *what)
{
	fprintf(stderr, "fuzz_frame: %s\n", what);
#ifdef FUZZ_STANDALONE
	{
		FILE *f = fopen("fuzz_frame-crash.bin", "wb");

		if (f != NULL) {
			fwrite(cur_data, 1, cur_size, f);
			fclose(f);
			fprintf(stderr, "fuzz_frame: input (%zu bytes) saved in "
				"fuzz_frame-crash.bin\n", cur_size);
		}
	}
#endif
	abort();
}

/* Encode m, decode, encode again: the two encodings must be identical. */
static void roundtrip(const Asteal__Envelope *m)
{
	Asteal__Envelope *again;
	uint8_t *a, *b;
	size_t alen, blen;
	char why[FRAME_WHY_LEN];

	(void)frame_name(m);
	(void)frame_check_handshake(m, ASTEAL__ENVELOPE__MSG_HELLO, why, sizeof(why));
	(void)frame_check_handshake(m, ASTEAL__ENVELOPE__MSG_WELCOME, why, sizeof(why));
	a = frame_encode_alloc(m, &alen);
	if (a == NULL) {
		/* Re-encoding may grow (a 5-byte negative enum becomes 10). */
		if (errno == EMSGSIZE)
			return;
		die("a decoded message does not encode");
	}
	if (frame_size(m) != alen)
		die("frame_size disagrees with frame_encode");
	again = frame_decode(a + PROTO_HEADER_LEN, alen - PROTO_HEADER_LEN,
			     why, sizeof(why));
	if (again == NULL || again->msg_case != m->msg_case) {
		fprintf(stderr, "fuzz_frame: %s: %s\n", frame_name(m),
			again == NULL ? why : frame_name(again));
		die("an encoded message does not decode to itself");
	}
	b = frame_encode_alloc(again, &blen);
	if (b == NULL || blen != alen || memcmp(a, b, alen) != 0)
		die("encode(decode(encode(m))) differs from encode(m)");
	free(a);
	free(b);
	frame_free(again);
}

/* The hand decoder agrees with frame_decode on a body it takes. */
static void hand_feedback(const uint8_t *body, size_t len)
{
	struct exchange_feedback fb, ref;
	Asteal__Envelope *m;

	if (!exchange_decode_feedback(body, len, &fb))
		return;
	m = frame_decode(body, len, NULL, 0);
	if (m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_FEEDBACK)
		die("the hand decoder took a body frame_decode refuses");
	exchange_feedback_from(&ref, m->feedback);
	frame_free(m);
	if (memcmp(&fb.desire_real, &ref.desire_real, sizeof(double)) != 0 ||
	    fb.quantum != ref.quantum || fb.desire != ref.desire ||
	    fb.work_ns != ref.work_ns || fb.steal_ns != ref.steal_ns ||
	    fb.mug_ns != ref.mug_ns || fb.allotted_ns != ref.allotted_ns ||
	    fb.cls != ref.cls)
		die("the hand decoder reads a Feedback otherwise than frame_decode");
	stats.hand_ok++;
}

/* What a path saw: per frame 1 decoded or 0 refused (the first 64 are
 * compared), and whether it stopped at an oversize prefix. */
struct outcome {
	int kind[64];
	int n;
	int oversize;
};

/* Record one frame's outcome. */
static void note(struct outcome *o, int kind)
{
	if (o->n < 64)
		o->kind[o->n] = kind;
	o->n++;
}

/* Path 1: walk the stream with frame_peek and frame_decode. */
static void by_peek(const uint8_t *data, size_t size, struct outcome *o)
{
	size_t at = 0, len;
	char why[FRAME_WHY_LEN];
	int rc;

	while ((rc = frame_peek(data + at, size - at, &len)) == 1) {
		Asteal__Envelope *m = frame_decode(data + at + PROTO_HEADER_LEN,
						   len - PROTO_HEADER_LEN,
						   why, sizeof(why));
		if (m != NULL) {
			stats.frames_ok++;
			roundtrip(m);
			frame_free(m);
			note(o, 1);
		} else {
			stats.frames_bad++;
			if (errno != EBADMSG && errno != ENOMSG)
				die("frame_decode failed with an unexpected errno");
			note(o, 0);
		}
		at += len;
	}
	if (rc < 0) {
		stats.oversize++;
		if (errno != EMSGSIZE)
			die("frame_peek failed with an unexpected errno");
		o->oversize = 1;
	}
}

/* Path 2: the same stream through a reader, in uneven chunks. */
static void by_reader(const uint8_t *data, size_t size, struct outcome *o)
{
	struct frame_reader *r = frame_reader_new();
	uint32_t x = (uint32_t)size * 2654435761u + 1;
	size_t at = 0, chunk;
	int rc = 0, broken = 0;

	if (r == NULL)
		die("out of memory");
	while (!broken && at < size) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		chunk = 1 + x % (x & 1 ? 7 : 1024);
		if (chunk > size - at)
			chunk = size - at;
		if (frame_reader_feed(r, data + at, chunk) < 0)
			broken = 1;   /* an oversize prefix: next() reports it */
		at += chunk;
		for (;;) {
			Asteal__Envelope *m;

			rc = frame_reader_next(r, &m);
			if (rc == 1) {
				frame_free(m);
				note(o, 1);
			} else if (rc < 0 && errno != EMSGSIZE) {
				note(o, 0);
			} else {
				break;
			}
		}
		if (rc < 0)
			broken = 1;
	}
	o->oversize = broken;
	frame_reader_free(r);
}

/* One input, three ways (the libFuzzer entry point). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome a = { { 0 }, 0, 0 }, b = { { 0 }, 0, 0 };
	Asteal__Envelope *m;
	int i;

	if (data == NULL)   /* no arithmetic on a null pointer */
		data = (const uint8_t *)"";
	cur_data = data;
	cur_size = size;
	by_peek(data, size, &a);
	by_reader(data, size, &b);
	if (a.n != b.n)
		die("the reader and frame_peek see different frame counts");
	if (a.oversize != b.oversize)
		die("the reader and frame_peek disagree on an oversize prefix");
	for (i = 0; i < a.n && i < 64; i++)
		if (a.kind[i] != b.kind[i])
			die("the reader and frame_peek disagree on a frame");

	for (i = 0; i < 2; i++) {
		/* the whole input, and the input past a (presumed) prefix */
		size_t skip = i == 0 ? 0 : PROTO_HEADER_LEN;

		if (size < skip)
			break;
		hand_feedback(data + skip, size - skip);
		m = frame_decode(data + skip, size - skip, NULL, 0);
		if (m != NULL) {
			stats.bodies_ok++;
			roundtrip(m);
			frame_free(m);
		} else {
			stats.bodies_bad++;
		}
	}
	return 0;
}

#ifdef FUZZ_STANDALONE

#define FUZZ_MAX_INPUT 8192
#define NSEEDS 13

/* The generator: xorshift64*, seeded. */
static uint64_t rng_state;

/* The next pseudo-random number. */
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/* A pseudo-random number below n (n > 0). */
static size_t below(size_t n)
{
	return (size_t)(rng() % n);
}

/* Encode env as a frame into seeds[k]; its length in lens[k]. */
static void add_seed(uint8_t seeds[][1024], size_t *lens, int k,
		     const Asteal__Envelope *env)
{
	if (frame_encode(env, seeds[k], sizeof(seeds[k]), &lens[k]) < 0)
		die("a seed does not encode");
}

/* Valid frames of most message types, with nonzero fields. */
static void make_seeds(uint8_t seeds[][1024], size_t *lens)
{
	static uint32_t cpus[] = { 0, 1, 2, 3, 6, 7, 64, 1023 };
	static uint64_t ids[] = { 1, 2, 300 };
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Hello hello;
	Asteal__Welcome welcome;
	Asteal__Error err;
	Asteal__Released rel = ASTEAL__RELEASED__INIT;
	Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;
	Asteal__Allot allot = ASTEAL__ALLOT__INIT;
	Asteal__Status st = ASTEAL__STATUS__INIT;
	Asteal__JobInfo info = ASTEAL__JOB_INFO__INIT, *infop[2] = { &info, &info };
	Asteal__Jobs jobs = ASTEAL__JOBS__INIT;
	Asteal__HistoryRequest hreq = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__JobRecord rec = ASTEAL__JOB_RECORD__INIT, *recp = &rec;
	Asteal__AllotmentRecord ar = ASTEAL__ALLOTMENT_RECORD__INIT,
		*arp[3] = { &ar, &ar, &ar };
	Asteal__History hist = ASTEAL__HISTORY__INIT;
	Asteal__JobExit ex = ASTEAL__JOB_EXIT__INIT;
	Asteal__WaitReply wr = ASTEAL__WAIT_REPLY__INIT;
	Asteal__Launch la = ASTEAL__LAUNCH__INIT;

	frame_hello(&env, &hello, ASTEAL__ROLE__JOB, "fib", 8, "fib -n 30", "fuzz");
	add_seed(seeds, lens, 0, &env);
	frame_welcome(&env, &welcome, 42, 10000, 77000000000ull, cpus, 8,
		      "asteald fuzz");
	welcome.heartbeat_ms = 250;
	add_seed(seeds, lens, 1, &env);
	frame_error(&env, &err, ASTEAL__ERROR_CODE__BAD_VERSION, "protocol version 2");
	add_seed(seeds, lens, 2, &env);
	rel.quantum = 123456789;
	rel.parked_ns = 77000123456ull;
	env.msg_case = ASTEAL__ENVELOPE__MSG_RELEASED;
	env.released = &rel;
	add_seed(seeds, lens, 3, &env);
	fb.quantum = 7;
	fb.desire = 3;
	fb.desire_real = 2.5;
	fb.work_ns = 9000000;
	fb.steal_ns = 100;
	fb.mug_ns = 10;
	fb.allotted_ns = 10000000;
	fb.quantum_class = ASTEAL__QUANTUM_CLASS__SATISFIED;
	env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
	env.feedback = &fb;
	add_seed(seeds, lens, 4, &env);
	allot.quantum = 7;
	allot.allotment = 3;
	allot.availability = 4;
	allot.n_cpus = 3;
	allot.cpus = cpus;
	allot.decided_ns = 77001000000ull;
	env.msg_case = ASTEAL__ENVELOPE__MSG_ALLOT;
	env.allot = &allot;
	add_seed(seeds, lens, 5, &env);
	st.daemon_version = "asteald";
	st.protocol_version = PROTO_VERSION;
	st.n_cpus = 8;
	st.cpus = cpus;
	st.ticks = 1000;
	st.tick_p99_ns = 50000;
	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS;
	env.status = &st;
	add_seed(seeds, lens, 6, &env);
	info.id = 5;
	info.name = "nqueens";
	info.pid = 77;
	info.n_cpus = 2;
	info.cpus = cpus + 4;
	info.efficiency = 0.5;
	jobs.n_jobs = 2;
	jobs.jobs = infop;
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS;
	env.jobs = &jobs;
	add_seed(seeds, lens, 7, &env);
	hreq.n_job_ids = 3;
	hreq.job_ids = ids;
	hreq.limit = 100;
	hreq.jobs_only = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hreq;
	add_seed(seeds, lens, 8, &env);
	rec.id = 5;
	rec.command = "uts";
	rec.status_known = 1;
	rec.wait_status = -9;
	ar.job_id = 5;
	ar.last_quantum = 99;
	ar.n_cpus = 5;
	ar.cpus = cpus + 3;
	ar.quantum_class = ASTEAL__QUANTUM_CLASS__DEPRIVED;
	hist.n_jobs = 1;
	hist.jobs = &recp;
	hist.n_allotments = 3;
	hist.allotments = arp;
	hist.more = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY;
	env.history = &hist;
	add_seed(seeds, lens, 9, &env);
	ex.pid = 1234;
	ex.wait_status = 256;
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOB_EXIT;
	env.job_exit = &ex;
	add_seed(seeds, lens, 10, &env);
	wr.job_id = 5;
	wr.status_known = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_WAIT_REPLY;
	env.wait_reply = &wr;
	add_seed(seeds, lens, 11, &env);
	la.name = "fib";
	la.command = "fib 40";
	la.pid = 4321;
	la.job_id = 9;
	env.msg_case = ASTEAL__ENVELOPE__MSG_LAUNCH;
	env.launch = &la;
	add_seed(seeds, lens, 12, &env);
}

/* Rewrite the length prefix at p (4 bytes) to an interesting value. */
static void mutate_prefix(uint8_t *p, size_t len_after)
{
	uint32_t v;

	switch (below(6)) {
	case 0: v = (uint32_t)len_after + 1; break;
	case 1: v = len_after > 0 ? (uint32_t)len_after - 1 : 0; break;
	case 2: v = 0; break;
	case 3: v = PROTO_MAX_FRAME; break;
	case 4: v = PROTO_MAX_FRAME + 1 + (uint32_t)below(3); break;
	default: v = (uint32_t)rng(); break;
	}
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Apply one random mutation to buf (*len bytes, room for FUZZ_MAX_INPUT). */
static void mutate(uint8_t *buf, size_t *len)
{
	static const uint8_t interesting[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x0a, 0x08, 0x12 };
	size_t n = *len, at, k;

	switch (below(8)) {
	case 0:   /* flip a bit */
		if (n > 0)
			buf[below(n)] ^= (uint8_t)(1u << below(8));
		break;
	case 1:   /* an interesting byte */
		if (n > 0)
			buf[below(n)] = interesting[below(sizeof(interesting))];
		break;
	case 2:   /* a random byte */
		if (n > 0)
			buf[below(n)] = (uint8_t)rng();
		break;
	case 3:   /* truncate */
		*len = below(n + 1);
		break;
	case 4:   /* the first frame's length prefix */
		if (n >= PROTO_HEADER_LEN)
			mutate_prefix(buf, n - PROTO_HEADER_LEN);
		break;
	case 5:   /* insert random bytes */
		k = 1 + below(16);
		if (n + k <= FUZZ_MAX_INPUT) {
			size_t j;

			at = below(n + 1);
			memmove(buf + at + k, buf + at, n - at);
			for (j = 0; j < k; j++)
				buf[at + j] = (uint8_t)rng();
			*len = n + k;
		}
		break;
	case 6:   /* delete a range */
		if (n > 0) {
			at = below(n);
			k = 1 + below(n - at);
			memmove(buf + at, buf + at + k, n - at - k);
			*len = n - k;
		}
		break;
	default:  /* duplicate a range at the end */
		if (n > 0) {
			at = below(n);
			k = 1 + below(n - at);
			if (n + k <= FUZZ_MAX_INPUT) {
				memcpy(buf + n, buf + at, k);
				*len = n + k;
			}
		}
		break;
	}
}

/* Write the seeds to dir as seed-NN files. */
static int write_seeds(const char *dir, uint8_t seeds[][1024], const size_t *lens)
{
	char path[4096];
	int k;

	for (k = 0; k < NSEEDS; k++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/seed-%02d", dir, k);
		f = fopen(path, "wb");
		if (f == NULL || fwrite(seeds[k], 1, lens[k], f) != lens[k] ||
		    fclose(f) != 0) {
			perror(path);
			return 1;
		}
	}
	return 0;
}

/* The standalone mutation loop, or the seed writer (-s DIR). */
int main(int argc, char **argv)
{
	static uint8_t seeds[NSEEDS][1024], buf[FUZZ_MAX_INPUT];
	size_t lens[NSEEDS], len;
	unsigned long iters = 200000, i;
	uint64_t t0, t1;
	int k, nmut;

	make_seeds(seeds, lens);
	if (argc == 3 && strcmp(argv[1], "-s") == 0)
		return write_seeds(argv[2], seeds, lens);
	if (argc > 1)
		iters = strtoul(argv[1], NULL, 0);
	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	if (rng_state == 0)
		rng_state = 1;
	t0 = qtime_now_ns();
	for (i = 0; i < iters; i++) {
		/* One to three seed frames back to back, then mutations. */
		len = 0;
		for (k = 1 + (int)below(3); k > 0; k--) {
			int s = (int)below(NSEEDS);

			memcpy(buf + len, seeds[s], lens[s]);
			len += lens[s];
		}
		for (nmut = (int)below(5); nmut > 0; nmut--)
			mutate(buf, &len);
		LLVMFuzzerTestOneInput(buf, len);
	}
	t1 = qtime_now_ns();
	printf("%lu inputs in %.2f s: frames %lu decoded, %lu refused, "
	       "%lu oversize prefixes; as bodies %lu decoded, "
	       "%lu refused; %lu Feedbacks hand-decoded\n", iters,
	       (double)(t1 - t0) * 1e-9,
	       stats.frames_ok, stats.frames_bad, stats.oversize,
	       stats.bodies_ok, stats.bodies_bad, stats.hand_ok);
	return 0;
}

#endif
