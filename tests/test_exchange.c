/*
 * test_exchange.c - the quantum exchange's hand codecs (proto/exchange.c)
 * against protobuf-c: Allot frames byte for byte on random messages, every
 * Feedback field of asteal.proto through plain C and a page, the Feedback
 * decoder field for field on random messages and on the forms it must
 * leave to frame_decode, the Usage message's fields, and the class
 * mapping.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exchange.h"
#include "frame.h"
#include "page.h"

#define RUNS 20000

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* The next pseudo-random number (xorshift64*). */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* A random value of a random magnitude, zero often (zeros are left out on
 * the wire, so they matter). */
static uint64_t rnd_value(void)
{
	unsigned bits = (unsigned)(rnd() % 65);

	if (rnd() % 4 == 0)
		return 0;
	return bits == 64 ? rnd() : rnd() & (((uint64_t)1 << bits) - 1);
}

/* Allot frames: the hand encoder writes exactly what protobuf-c writes. */
static void test_allot_bytes(void **state)
{
	static uint32_t cpus[EXCHANGE_MAX_CPUS];
	static uint8_t hand[EXCHANGE_ALLOT_MAX], ref[EXCHANGE_ALLOT_MAX + 64];
	int run;

	(void)state;
	for (run = 0; run < RUNS; run++) {
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
		Asteal__Allot m = ASTEAL__ALLOT__INIT;
		struct exchange_allot a;
		size_t n, i, len = 0;

		n = run < 10 ? (size_t)run * 113 % (EXCHANGE_MAX_CPUS + 1)
		             : (size_t)(rnd() % 5 == 0 ? rnd() % (EXCHANGE_MAX_CPUS + 1)
		                                       : rnd() % 9);
		if (run == 0)
			n = EXCHANGE_MAX_CPUS;          /* the longest frame */
		for (i = 0; i < n; i++)
			cpus[i] = (uint32_t)(run == 0 ? EXCHANGE_MAX_CPUS - 1
			                     : rnd() % EXCHANGE_MAX_CPUS);
		a.quantum = run == 0 ? UINT64_MAX : rnd_value();
		a.allotment = run == 0 ? UINT32_MAX : (uint32_t)rnd_value();
		a.availability = run == 0 ? UINT32_MAX : (uint32_t)rnd_value();
		a.cpus = cpus;
		a.ncpus = n;
		a.decided_ns = run == 0 ? UINT64_MAX : rnd_value();
		m.quantum = a.quantum;
		m.allotment = a.allotment;
		m.availability = a.availability;
		m.n_cpus = n;
		m.cpus = cpus;
		m.decided_ns = a.decided_ns;
		env.msg_case = ASTEAL__ENVELOPE__MSG_ALLOT;
		env.allot = &m;
		assert_int_equal(frame_encode(&env, ref, sizeof(ref), &len), 0);
		assert_true(len <= EXCHANGE_ALLOT_MAX);
		assert_int_equal(exchange_encode_allot(hand, &a), len);
		assert_memory_equal(hand, ref, len);
	}
}

/* The encoder refuses what the wire cannot say. */
static void test_allot_refused(void **state)
{
	static uint32_t cpus[EXCHANGE_MAX_CPUS + 1];
	uint8_t buf[EXCHANGE_ALLOT_MAX];
	struct exchange_allot a = { 1, 1, 1, cpus, 1, 0 };

	(void)state;
	cpus[0] = EXCHANGE_MAX_CPUS;                 /* an id out of range */
	assert_int_equal(exchange_encode_allot(buf, &a), 0);
	cpus[0] = 0;
	a.ncpus = EXCHANGE_MAX_CPUS + 1;             /* too many */
	assert_int_equal(exchange_encode_allot(buf, &a), 0);
}

/* A Feedback as protobuf-c packs it, from plain C, into buf (256
 * bytes): its length.  Comparing two such packings compares every field
 * the message has, whatever fields asteal.proto holds. */
static size_t packed_feedback(uint8_t *buf, const struct exchange_feedback *fb)
{
	struct exchange_feedback_pb m;

	exchange_feedback_msg(&m, fb);
	assert_true(asteal__feedback__get_packed_size(&m.m) <= 256);
	return asteal__feedback__pack(&m.m, buf);
}

/* Compare a hand-decoded Feedback with protobuf-c's decoding. */
static void assert_same(const struct exchange_feedback *fb, const Asteal__Feedback *m)
{
	struct exchange_feedback ref;
	uint8_t a[256], b[256];
	size_t na, nb;

	exchange_feedback_from(&ref, m);
	na = packed_feedback(a, fb);
	nb = packed_feedback(b, &ref);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
}

/* A random double: ordinary, huge, tiny, negative, NaN or infinite. */
static double rnd_double(void)
{
	uint64_t bits = rnd();
	double d;

	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return NAN;
	case 2: return -INFINITY;
	case 3: memcpy(&d, &bits, sizeof(d)); return d;
	default: return (double)(rnd() % 100000) / 1000.0;
	}
}

/* Fill every field of message m (of descriptor d, initialised) with a
 * random value, walking protobuf-c's descriptor (so a field added to
 * asteal.proto is filled too), its Usage in *u; the class is a known
 * value, an unknown one or a negative one when odd_class, else a known
 * one or unspecified. */
static void rnd_fields(ProtobufCMessage *m, Asteal__Usage *u, int odd_class)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;

	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		void *at = (char *)m + f->offset;

		switch (f->type) {
		case PROTOBUF_C_TYPE_MESSAGE:
			if (f->descriptor != &asteal__usage__descriptor)
				fail_msg("%s has a message field this test does not fill",
				         d->name);
			asteal__usage__init(u);
			rnd_fields(&u->base, NULL, odd_class);
			*(Asteal__Usage **)at = u;
			break;
		case PROTOBUF_C_TYPE_UINT64:
			*(uint64_t *)at = rnd_value();
			break;
		case PROTOBUF_C_TYPE_UINT32:
			*(uint32_t *)at = (uint32_t)rnd_value();
			break;
		case PROTOBUF_C_TYPE_DOUBLE:
			*(double *)at = rnd_double();
			break;
		case PROTOBUF_C_TYPE_ENUM:
			*(int32_t *)at = odd_class && rnd() % 3 == 0 ? (int32_t)(uint32_t)rnd()
			                 : (int32_t)(rnd() % (odd_class ? 5 : 4));
			break;
		default:
			fail_msg("field %s.%s has a type this test does not fill",
			         d->name, f->name);
		}
	}
}

/* A random Feedback message, its Usage in *u (rnd_fields). */
static void rnd_feedback(Asteal__Feedback *m, Asteal__Usage *u, int odd_class)
{
	asteal__feedback__init(m);
	rnd_fields(&m->base, u, odd_class);
}

/* Every field of asteal.proto's Feedback travels: a random message
 * through plain C (message.h's lists) and back, and through a page, packs
 * to the same bytes.  A field missing from the lists fails here. */
static void test_feedback_fields(void **state)
{
	static struct page pg;

	(void)state;
	page_init(&pg);
	for (int run = 0; run < RUNS / 10; run++) {
		Asteal__Feedback m;
		Asteal__Usage u;
		struct exchange_feedback_pb back;
		struct exchange_feedback fb, paged;
		uint8_t a[256], b[256], c[256];
		size_t na, nb, nc;

		rnd_feedback(&m, &u, 0);
		na = asteal__feedback__pack(&m, a);
		exchange_feedback_from(&fb, &m);
		exchange_feedback_msg(&back, &fb);
		nb = asteal__feedback__pack(&back.m, b);
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na);
		page_feed_write(&pg, &fb);
		assert_true(page_feed_read(&pg, &paged) > 0);
		nc = packed_feedback(c, &paged);
		assert_int_equal(na, nc);
		assert_memory_equal(a, c, na);
	}
}

/* Feedbacks protobuf-c wrote: the hand decoder takes each, with its
 * values, but for those of an unknown class, which it leaves to
 * protobuf-c. */
static void test_feedback_random(void **state)
{
	uint8_t buf[256];
	int run, left = 0;

	(void)state;
	for (run = 0; run < RUNS; run++) {
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
		Asteal__Feedback m, *back;
		Asteal__Usage u;
		Asteal__Envelope *dec;
		struct exchange_feedback fb;
		size_t len;

		rnd_feedback(&m, &u, 1);
		env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
		env.feedback = &m;
		assert_int_equal(frame_encode(&env, buf, sizeof(buf), &len), 0);
		dec = frame_decode(buf + PROTO_HEADER_LEN, len - PROTO_HEADER_LEN, NULL, 0);
		assert_non_null(dec);
		back = dec->feedback;
		/* a class this side does not know is protobuf-c's, which keeps
		 * its value for the daemon to refuse */
		if ((uint32_t)m.quantum_class > ASTEAL__QUANTUM_CLASS__DEPRIVED) {
			assert_int_equal(exchange_decode_feedback(buf + PROTO_HEADER_LEN,
			                 len - PROTO_HEADER_LEN, &fb), 0);
			assert_int_equal(back->quantum_class, m.quantum_class);
			frame_free(dec);
			left++;
			continue;
		}
		assert_int_equal(exchange_decode_feedback(buf + PROTO_HEADER_LEN,
		                                          len - PROTO_HEADER_LEN, &fb), 1);
		assert_same(&fb, back);
		assert_int_equal(fb.quantum, m.quantum);
		assert_int_equal(fb.use.ns[USAGE_WORK], m.usage->work_ns);
		frame_free(dec);
	}
	assert_true(left > RUNS / 10 && left < RUNS / 2);   /* both kinds */
}

/* Bodies in other forms are left to frame_decode (0), which still reads
 * them; bodies that are not Feedbacks at all are left too.  The plain
 * ones (hand 1) are taken, with the values protobuf-c reads. */
static void test_feedback_other_forms(void **state)
{
	/* 0x5a: the Envelope's field 11 (Feedback) and the Feedback's field
	 * 11 (usage), both length-delimited; in a Usage, 0x20 is sleep_ns
	 * (4) and 0x28 preempted_ns (5) */
	static const struct {
		uint8_t b[16]; size_t n; int generic_ok, hand;
		uint64_t sleep, preempted;    /* what a taken one holds */
	} cases[] = {
		/* Feedback{quantum 5} plain, no usage: taken (the control) */
		{ { 0x5a, 0x02, 0x08, 0x05 }, 4, 1, 1, 0, 0 },
		/* quantum 5, usage {sleep_ns 3, preempted_ns 2}: taken */
		{ { 0x5a, 0x08, 0x08, 0x05, 0x5a, 0x04, 0x20, 0x03, 0x28, 0x02 },
		  10, 1, 1, 3, 2 },
		/* quantum 5, an empty usage: taken, zeros */
		{ { 0x5a, 0x04, 0x08, 0x05, 0x5a, 0x00 }, 6, 1, 1, 0, 0 },
		/* a padded varint (05 as 85 00) */
		{ { 0x5a, 0x03, 0x08, 0x85, 0x00 }, 5, 1, 0, 0, 0 },
		/* fields out of order: desire, then quantum */
		{ { 0x5a, 0x04, 0x10, 0x02, 0x08, 0x05 }, 6, 1, 0, 0, 0 },
		/* ... in the usage: preempted_ns, then sleep_ns */
		{ { 0x5a, 0x08, 0x08, 0x05, 0x5a, 0x04, 0x28, 0x02, 0x20, 0x03 },
		  10, 1, 0, 0, 0 },
		/* a field twice (protobuf-c keeps the last) */
		{ { 0x5a, 0x04, 0x08, 0x05, 0x08, 0x06 }, 6, 1, 0, 0, 0 },
		/* ... in the usage */
		{ { 0x5a, 0x08, 0x08, 0x05, 0x5a, 0x04, 0x20, 0x03, 0x20, 0x04 },
		  10, 1, 0, 0, 0 },
		/* an unknown field 15 (the last with a one-byte tag) */
		{ { 0x5a, 0x04, 0x08, 0x05, 0x78, 0x01 }, 6, 1, 0, 0, 0 },
		/* ... an unknown field 7 in the usage */
		{ { 0x5a, 0x06, 0x08, 0x05, 0x5a, 0x02, 0x38, 0x01 }, 8, 1, 0, 0, 0 },
		/* the usage as a varint, not a message */
		{ { 0x5a, 0x04, 0x08, 0x05, 0x58, 0x01 }, 6, 0, 0, 0, 0 },
		/* the usage's length past the Feedback's end */
		{ { 0x5a, 0x06, 0x08, 0x05, 0x5a, 0x05, 0x20, 0x03 }, 8, 0, 0, 0, 0 },
		/* the usage cut in a varint */
		{ { 0x5a, 0x05, 0x08, 0x05, 0x5a, 0x01, 0x20 }, 7, 0, 0, 0, 0 },
		/* quantum with the wrong wire type (fixed32) */
		{ { 0x5a, 0x05, 0x0d, 1, 2, 3, 4 }, 7, 0, 0, 0, 0 },
		/* desire_real cut short */
		{ { 0x5a, 0x05, 0x19, 1, 2, 3, 4 }, 7, 0, 0, 0, 0 },
		/* a length past the end */
		{ { 0x5a, 0x09, 0x08, 0x05 }, 4, 0, 0, 0, 0 },
		/* an Allot, not a Feedback */
		{ { 0x62, 0x02, 0x08, 0x05 }, 4, 1, 0, 0, 0 },
		/* Feedback, then an unknown envelope field */
		{ { 0x5a, 0x02, 0x08, 0x05, 0x9a, 0x06, 0x00 }, 7, 1, 0, 0, 0 },
		/* a varint of 11 bytes */
		{ { 0x5a, 0x0c, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		    0xff, 0xff, 0xff, 0x01 }, 14, 0, 0, 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct exchange_feedback fb;
		Asteal__Envelope *m = frame_decode(cases[i].b, cases[i].n, NULL, 0);
		int taken = exchange_decode_feedback(cases[i].b, cases[i].n, &fb);

		if (m == NULL && cases[i].generic_ok)
			fail_msg("case %zu: frame_decode refuses it", i);
		if (m != NULL && !cases[i].generic_ok)
			fail_msg("case %zu: frame_decode takes it", i);
		assert_int_equal(taken, cases[i].hand);
		if (taken) {
			assert_int_equal(fb.quantum, 5);
			/* a usage left out, or its fields, read as 0 */
			assert_int_equal(fb.use.ns[USAGE_SLEEP], cases[i].sleep);
			assert_int_equal(fb.use.ns[USAGE_PREEMPTED], cases[i].preempted);
			assert_int_equal(fb.use.ns[USAGE_WORK], 0);
			assert_same(&fb, m->feedback);
		}
		frame_free(m);
	}
}

/* Messages filled from plain C and back keep every field. */
static void test_feedback_msg(void **state)
{
	struct exchange_feedback a = {
		.quantum = 9, .desire = 3, .desire_real = 2.5,
		.use.ns = { [USAGE_WORK] = 10, [USAGE_STEAL] = 20, [USAGE_MUG] = 30,
		            [USAGE_ALLOTTED] = 40, [USAGE_SLEEP] = 50,
		            [USAGE_PREEMPTED] = 60 },
		.cls = 2 }, b;
	struct exchange_feedback_pb m;

	(void)state;
	exchange_feedback_msg(&m, &a);
	assert_int_equal(m.m.quantum_class, ASTEAL__QUANTUM_CLASS__DEPRIVED);
	exchange_feedback_from(&b, &m.m);
	assert_int_equal(b.quantum, a.quantum);
	assert_int_equal(b.desire, a.desire);
	assert_true(b.desire_real == a.desire_real);
	assert_ptr_equal(m.m.usage, &m.use);
	assert_int_equal(m.use.work_ns, 10);
	assert_int_equal(m.use.steal_ns, 20);
	assert_int_equal(m.use.mug_ns, 30);
	assert_int_equal(m.use.allotted_ns, 40);
	assert_int_equal(m.use.sleep_ns, 50);
	assert_int_equal(m.use.preempted_ns, 60);
	assert_memory_equal(&b.use, &a.use, sizeof(a.use));
	assert_int_equal(b.cls, 2);
}

/* A Usage message, filled from plain C and back: each kind in the field
 * of its name and number; none reads as zeros. */
static void test_usage_msg(void **state)
{
	const ProtobufCMessageDescriptor *d = &asteal__usage__descriptor;
	struct usage_totals a, b;
	Asteal__Usage m;
	const uint64_t *f[USAGE_N] = {
		[USAGE_WORK] = &m.work_ns, [USAGE_STEAL] = &m.steal_ns,
		[USAGE_MUG] = &m.mug_ns, [USAGE_SLEEP] = &m.sleep_ns,
		[USAGE_PREEMPTED] = &m.preempted_ns, [USAGE_ALLOTTED] = &m.allotted_ns };

	(void)state;
	for (int k = 0; k < USAGE_N; k++)
		a.ns[k] = 1000u * (unsigned)(k + 1);
	exchange_usage_msg(&m, &a);
	for (int k = 0; k < USAGE_N; k++)
		assert_int_equal(*f[k], a.ns[k]);
	exchange_usage_from(&b, &m);
	assert_memory_equal(&b, &a, sizeof(a));
	/* the names and numbers message.h gives are asteal.proto's */
	assert_int_equal(d->n_fields, USAGE_N);
	for (int k = 0; k < USAGE_N; k++) {
		const ProtobufCFieldDescriptor *fd =
			protobuf_c_message_descriptor_get_field_by_name(
				d, exchange_usage_name((enum usage_kind)k));

		assert_non_null(fd);
		assert_int_equal(fd->id, k + 1);
		assert_ptr_equal((const char *)&m + fd->offset, (const char *)f[k]);
	}
	exchange_usage_from(&b, NULL);
	for (int k = 0; k < USAGE_N; k++)
		assert_int_equal(b.ns[k], 0);
}

/* The class mapping: index + 1 on the wire, anything else unspecified. */
static void test_classes(void **state)
{
	(void)state;
	assert_int_equal(exchange_class_wire(0), ASTEAL__QUANTUM_CLASS__INEFFICIENT);
	assert_int_equal(exchange_class_wire(1), ASTEAL__QUANTUM_CLASS__SATISFIED);
	assert_int_equal(exchange_class_wire(2), ASTEAL__QUANTUM_CLASS__DEPRIVED);
	assert_int_equal(exchange_class_wire(-1), ASTEAL__QUANTUM_CLASS__CLASS_UNSPECIFIED);
	assert_int_equal(exchange_class_wire(3), ASTEAL__QUANTUM_CLASS__CLASS_UNSPECIFIED);
	assert_int_equal(exchange_class_index(ASTEAL__QUANTUM_CLASS__INEFFICIENT), 0);
	assert_int_equal(exchange_class_index(ASTEAL__QUANTUM_CLASS__DEPRIVED), 2);
	assert_int_equal(exchange_class_index(ASTEAL__QUANTUM_CLASS__CLASS_UNSPECIFIED), -1);
	assert_int_equal(exchange_class_index((Asteal__QuantumClass)4), -1);
	assert_int_equal(exchange_class_index((Asteal__QuantumClass)-7), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allot_bytes),
		cmocka_unit_test(test_allot_refused),
		cmocka_unit_test(test_feedback_fields),
		cmocka_unit_test(test_feedback_random),
		cmocka_unit_test(test_feedback_other_forms),
		cmocka_unit_test(test_feedback_msg),
		cmocka_unit_test(test_usage_msg),
		cmocka_unit_test(test_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
