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
 *      that takes a body, frame_decode must take it as the same Feedback,
 *      and whenever frame_decode reads a Feedback whose plain encoding
 *      (protobuf-c's) is that very body, the hand decoder must take it
 *      too (exchange.h promises the plain form);
 *   4. as the fields of an Allot for the daemon's hand encoder
 *      exchange_encode_allot(): its frame must be byte for byte
 *      protobuf-c's for the same Allot, and decode to the same fields
 *      (or, with a CPU id or count out of its range, it must refuse).
 * Every decoded message is encoded again, decoded again and encoded a
 * third time: the last two encodings must be identical.  Those are all
 * the hand-written codecs (exchange.c); libasteal and the command line
 * decode with protobuf-c.
 *
 * Built with -DFUZZ_STANDALONE it has a main() that needs no libFuzzer
 * (tests/fuzzutil.h: a deterministic mutation loop over valid frames of
 * many message types).
 *   fuzz_frame [ITERATIONS [SEED]]    default 200000 iterations, seed 1
 *   fuzz_frame -s DIR                 write the seed frames to DIR (a
 *                                     starting corpus for libFuzzer)
 * `make fuzz` builds it with libFuzzer (proto/README.md, "Fuzzing").  Not
 * named test_*: the Makefile would link it as a cmocka test.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "frame.h"
#include "fuzzutil.h"

/* What the inputs did (standalone statistics). */
static struct {
	unsigned long frames_ok, frames_bad, oversize, bodies_ok, bodies_bad,
		hand_ok, plain, allots, allots_refused;
} stats;

/* Stop with a message: an oracle failed. */
static void die(const char *what)
{
	fuzz_fail("fuzz_frame", what);
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

/* Whether a body is the plain form of the Feedback frame_decode read in
 * it: protobuf-c's own encoding of those fields, nothing unknown. */
static int plain_feedback(const uint8_t *body, size_t len,
			  const Asteal__Envelope *m)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Feedback fb;
	uint8_t buf[256];
	size_t n;

	if (m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_FEEDBACK ||
	    m->base.n_unknown_fields > 0 ||
	    m->feedback->base.n_unknown_fields > 0 ||
	    (m->feedback->usage != NULL &&
	     m->feedback->usage->base.n_unknown_fields > 0) ||
	    (unsigned)m->feedback->quantum_class > ASTEAL__QUANTUM_CLASS__DEPRIVED)
		return 0;
	fb = *m->feedback;
	env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
	env.feedback = &fb;
	return frame_encode(&env, buf, sizeof(buf), &n) == 0 &&
	       n - PROTO_HEADER_LEN == len &&
	       memcmp(buf + PROTO_HEADER_LEN, body, len) == 0;
}

/* The hand decoder agrees with frame_decode: on a body it takes, the same
 * Feedback; a body in the plain form, it takes. */
static void hand_feedback(const uint8_t *body, size_t len)
{
	struct exchange_feedback fb, ref;
	struct exchange_feedback_pb a, b;
	uint8_t pa[256], pb[256];
	size_t na, nb;
	Asteal__Envelope *m = frame_decode(body, len, NULL, 0);

	if (!exchange_decode_feedback(body, len, &fb)) {
		if (plain_feedback(body, len, m))
			die("the hand decoder refused a Feedback in the plain form");
		frame_free(m);
		return;
	}
	if (m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_FEEDBACK)
		die("the hand decoder took a body frame_decode refuses");
	if (plain_feedback(body, len, m))
		stats.plain++;
	exchange_feedback_from(&ref, m->feedback);
	frame_free(m);
	/* every field, whatever asteal.proto holds: both packed by protobuf-c */
	exchange_feedback_msg(&a, &fb);
	exchange_feedback_msg(&b, &ref);
	if (asteal__feedback__get_packed_size(&a.m) > sizeof(pa) ||
	    asteal__feedback__get_packed_size(&b.m) > sizeof(pb))
		die("a Feedback packs longer than any the hand decoder takes");
	na = asteal__feedback__pack(&a.m, pa);
	nb = asteal__feedback__pack(&b.m, pb);
	if (na != nb || memcmp(pa, pb, na) != 0)
		die("the hand decoder reads a Feedback otherwise than frame_decode");
	stats.hand_ok++;
}

/* The next n bytes of the input as a little-endian number (0 past its
 * end), moving *p on. */
static uint64_t take_le(const uint8_t **p, const uint8_t *end, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n && *p < end; i++)
		v |= (uint64_t)*(*p)++ << (8 * i);
	return v;
}

/* The hand Allot encoder agrees with protobuf-c on an Allot made of the
 * input's bytes: byte for byte, and decoded back to the same fields. */
static void hand_allot(const uint8_t *data, size_t size)
{
	static uint8_t hand[EXCHANGE_ALLOT_MAX + 64], ref[EXCHANGE_ALLOT_MAX + 4096];
	static uint32_t cpus[EXCHANGE_MAX_CPUS + 8];
	const uint8_t *p = data, *end = data + size;
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__Allot al = ASTEAL__ALLOT__INIT;
	struct exchange_allot a;
	size_t hl, rl, i;
	unsigned flags = (unsigned)take_le(&p, end, 1);
	int bad = 0, width = 1 + (int)(flags & 7);
	int wild = flags & 0x80;   /* CPU counts and ids out of range too */

	a.quantum = take_le(&p, end, width);
	a.allotment = (uint32_t)take_le(&p, end, 2);
	a.availability = (uint32_t)take_le(&p, end, 2);
	a.decided_ns = take_le(&p, end, width);
	a.ncpus = (size_t)(take_le(&p, end, 2) % (wild ? EXCHANGE_MAX_CPUS + 8 : 65));
	for (i = 0; i < a.ncpus; i++) {
		cpus[i] = (uint32_t)take_le(&p, end, 2) & (wild ? 0x7ff : 0x3ff);
		bad |= cpus[i] >= EXCHANGE_MAX_CPUS;
	}
	bad |= a.ncpus > EXCHANGE_MAX_CPUS;
	a.cpus = cpus;
	hl = exchange_encode_allot(hand, &a);
	if (bad) {
		if (hl != 0)
			die("the hand Allot encoder took a CPU out of its range");
		stats.allots_refused++;
		return;
	}
	if (hl == 0)
		die("the hand Allot encoder refused an Allot in its range");
	al.quantum = a.quantum;
	al.allotment = a.allotment;
	al.availability = a.availability;
	al.n_cpus = a.ncpus;
	al.cpus = cpus;
	al.decided_ns = a.decided_ns;
	env.msg_case = ASTEAL__ENVELOPE__MSG_ALLOT;
	env.allot = &al;
	if (frame_encode(&env, ref, sizeof(ref), &rl) < 0)
		die("an Allot does not encode");
	if (hl != rl || memcmp(hand, ref, rl) != 0)
		die("the hand Allot encoder writes other bytes than protobuf-c");
	m = frame_decode(hand + PROTO_HEADER_LEN, hl - PROTO_HEADER_LEN, NULL, 0);
	if (m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_ALLOT ||
	    m->allot->quantum != a.quantum || m->allot->allotment != a.allotment ||
	    m->allot->availability != a.availability ||
	    m->allot->decided_ns != a.decided_ns || m->allot->n_cpus != a.ncpus ||
	    (a.ncpus > 0 && memcmp(m->allot->cpus, cpus, a.ncpus * sizeof(*cpus)) != 0))
		die("a hand-encoded Allot decodes to other fields");
	frame_free(m);
	stats.allots++;
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
	fuzz_cur_data = data;
	fuzz_cur_size = size;
	hand_allot(data, size);
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

/* Encode env as a frame, the next seed. */
static void add_seed(struct fuzz_seeds *s, const Asteal__Envelope *env)
{
	uint8_t buf[FUZZ_SEED_LEN];
	size_t len;

	if (frame_encode(env, buf, sizeof(buf), &len) < 0)
		die("a seed does not encode");
	fuzz_seed_add(s, buf, len);
}

/* Valid frames of most message types, with nonzero fields. */
static void make_seeds(struct fuzz_seeds *s)
{
	static uint32_t cpus[] = { 0, 1, 2, 3, 6, 7, 64, 1023 };
	static uint64_t ids[] = { 1, 2, 300 };
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Hello hello;
	Asteal__Welcome welcome;
	Asteal__Error err;
	Asteal__Released rel = ASTEAL__RELEASED__INIT;
	Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;
	Asteal__Usage use = ASTEAL__USAGE__INIT;
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
	add_seed(s, &env);
	frame_welcome(&env, &welcome, 42, 10000, 77000000000ull, cpus, 8,
		      "asteald fuzz");
	welcome.heartbeat_ms = 250;
	add_seed(s, &env);
	frame_error(&env, &err, ASTEAL__ERROR_CODE__BAD_VERSION, "protocol version 2");
	add_seed(s, &env);
	rel.quantum = 123456789;
	rel.parked_ns = 77000123456ull;
	env.msg_case = ASTEAL__ENVELOPE__MSG_RELEASED;
	env.released = &rel;
	add_seed(s, &env);
	fb.quantum = 7;
	fb.desire = 3;
	fb.desire_real = 2.5;
	use.work_ns = 9000000;
	use.steal_ns = 100;
	use.mug_ns = 10;
	use.allotted_ns = 10000000;
	use.sleep_ns = 800000;
	use.preempted_ns = 99890;
	fb.usage = &use;
	fb.quantum_class = ASTEAL__QUANTUM_CLASS__SATISFIED;
	env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
	env.feedback = &fb;
	add_seed(s, &env);
	allot.quantum = 7;
	allot.allotment = 3;
	allot.availability = 4;
	allot.n_cpus = 3;
	allot.cpus = cpus;
	allot.decided_ns = 77001000000ull;
	env.msg_case = ASTEAL__ENVELOPE__MSG_ALLOT;
	env.allot = &allot;
	add_seed(s, &env);
	st.daemon_version = "asteald";
	st.protocol_version = PROTO_VERSION;
	st.n_cpus = 8;
	st.cpus = cpus;
	st.ticks = 1000;
	st.tick_p99_ns = 50000;
	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS;
	env.status = &st;
	add_seed(s, &env);
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
	add_seed(s, &env);
	hreq.n_job_ids = 3;
	hreq.job_ids = ids;
	hreq.limit = 100;
	hreq.jobs_only = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hreq;
	add_seed(s, &env);
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
	add_seed(s, &env);
	ex.pid = 1234;
	ex.wait_status = 256;
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOB_EXIT;
	env.job_exit = &ex;
	add_seed(s, &env);
	wr.job_id = 5;
	wr.status_known = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_WAIT_REPLY;
	env.wait_reply = &wr;
	add_seed(s, &env);
	la.name = "fib";
	la.command = "fib 40";
	la.pid = 4321;
	la.job_id = 9;
	env.msg_case = ASTEAL__ENVELOPE__MSG_LAUNCH;
	env.launch = &la;
	add_seed(s, &env);
}

/* What the inputs did. */
static void report(unsigned long iters, double secs)
{
	printf("%lu inputs in %.2f s: frames %lu decoded, %lu refused, "
	       "%lu oversize prefixes; as bodies %lu decoded, "
	       "%lu refused; %lu Feedbacks hand-decoded (%lu plain); "
	       "%lu Allots hand-encoded, %lu refused\n", iters, secs,
	       stats.frames_ok, stats.frames_bad, stats.oversize,
	       stats.bodies_ok, stats.bodies_bad, stats.hand_ok, stats.plain,
	       stats.allots, stats.allots_refused);
}

/* The standalone mutation loop, or the seed writer (-s DIR). */
int main(int argc, char **argv)
{
	return fuzz_main(argc, argv, make_seeds, 200000, report);
}

#endif
