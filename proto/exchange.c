/*
 * exchange.c - hand-written codecs for the quantum exchange (exchange.h).
 *
 * protobuf-c walks the message descriptors twice to encode (size, then
 * pack) and allocates to decode.  asteald encodes an Allot for every job
 * whose allotment changed and decodes every Feedback, so those two are
 * written out here for the wire format protobuf-c produces: proto3 fields
 * in field-number order, zero scalars left out, repeated scalars packed,
 * varints minimal.  The decoder takes only that plain form and leaves
 * every other body to frame_decode(), so the inputs accepted and refused,
 * and the values read, are the generic decoder's.
 */
#include "exchange.h"
#include "frame.h"

#include <stdio.h>
#include <string.h>

/* Wire types. */
#define WT_VARINT 0u
#define WT_FIXED64 1u
#define WT_LEN 2u

/* A field's tag byte (field numbers below 16 take one byte). */
#define TAG(field, wt) ((uint8_t)((field) << 3 | (wt)))

/* Append v as a varint at p: the bytes written (at most 10). */
size_t exchange_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Append a varint field unless v is 0 (proto3 leaves zeros out). */
static size_t put_field(uint8_t *p, unsigned field, uint64_t v)
{
	if (v == 0)
		return 0;
	p[0] = TAG(field, WT_VARINT);
	return 1 + exchange_put_varint(p + 1, v);
}

/* Wrap an Envelope field's body into a whole frame at buf. */
size_t exchange_envelope(uint8_t *buf, unsigned field, const uint8_t *body,
                         size_t len)
{
	size_t at = PROTO_HEADER_LEN;

	at += exchange_put_varint(buf + at, (uint64_t)field << 3 | WT_LEN);
	at += exchange_put_varint(buf + at, len);
	memcpy(buf + at, body, len);
	at += len;
	frame_put_header(buf, (uint32_t)(at - PROTO_HEADER_LEN));
	return at;
}

/* Encode an Allot frame by hand: the bytes protobuf-c writes. */
size_t exchange_encode_allot(uint8_t *buf, const struct exchange_allot *a)
{
	uint8_t body[EXCHANGE_ALLOT_MAX], packed[2 * EXCHANGE_MAX_CPUS];
	size_t bl = 0, pl = 0, i;

	if (a->ncpus > EXCHANGE_MAX_CPUS)
		return 0;
	for (i = 0; i < a->ncpus; i++) {
		if (a->cpus[i] >= EXCHANGE_MAX_CPUS)
			return 0;
		pl += exchange_put_varint(packed + pl, a->cpus[i]);
	}
	bl += put_field(body + bl, 1, a->quantum);
	bl += put_field(body + bl, 2, a->allotment);
	bl += put_field(body + bl, 3, a->availability);
	if (pl > 0) {
		body[bl++] = TAG(4, WT_LEN);
		bl += exchange_put_varint(body + bl, pl);
		memcpy(body + bl, packed, pl);
		bl += pl;
	}
	bl += put_field(body + bl, 5, a->decided_ns);
	return exchange_envelope(buf, ASTEAL__ENVELOPE__MSG_ALLOT, body, bl);
}

/* Read a varint at *p (before end) into *v, moving *p past it: 0, or -1
 * when it is longer than 10 bytes, runs past end, or is not minimal (a
 * form this decoder leaves to protobuf-c). */
static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	int i;

	for (i = 0; i < 10 && *p < end; i++) {
		uint8_t b = *(*p)++;

		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (i > 0 && b == 0)
				return -1;      /* padded */
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* Decode a plain Feedback body, or say it is not one. */
int exchange_decode_feedback(const uint8_t *p, size_t len,
                             struct exchange_feedback *fb)
{
	const uint8_t *end = p + len;
	Asteal__Feedback m = ASTEAL__FEEDBACK__INIT;
	unsigned last = 0;
	uint64_t v;

	/* Envelope field 11, length-delimited, filling the rest. */
	if (len < 2 || *p++ != TAG(ASTEAL__ENVELOPE__MSG_FEEDBACK, WT_LEN) ||
	    get_varint(&p, end, &v) < 0 || v != (uint64_t)(end - p))
		return 0;
	while (p < end) {
		uint8_t tag = *p++;
		unsigned field = tag >> 3;

		/* One-byte tags of Feedback's own fields, each once, in order:
		 * anything else (unknown or repeated fields, other wire types,
		 * a class this side does not know) is protobuf-c's to judge. */
		if (tag & 0x80 || field <= last || field < 1 || field > 10)
			return 0;
		last = field;
		if (field == 3) {
			uint64_t bits;
			int i;

			if (tag != TAG(3, WT_FIXED64) || end - p < 8)
				return 0;
			for (bits = 0, i = 7; i >= 0; i--)  /* little endian */
				bits = bits << 8 | p[i];
			memcpy(&m.desire_real, &bits, sizeof(bits));
			p += 8;
			continue;
		}
		if ((tag & 7) != WT_VARINT || get_varint(&p, end, &v) < 0)
			return 0;
		switch (field) {
		case 1: m.quantum = v; break;
		case 2: m.desire = (uint32_t)v; break;
		case 4: m.work_ns = v; break;
		case 5: m.steal_ns = v; break;
		case 6: m.mug_ns = v; break;
		case 7: m.allotted_ns = v; break;
		case 8:
			if (v > ASTEAL__QUANTUM_CLASS__DEPRIVED)
				return 0;
			m.quantum_class = (Asteal__QuantumClass)v;
			break;
		case 9: m.sleep_ns = v; break;
		default: m.preempted_ns = v; break;
		}
	}
	exchange_feedback_from(fb, &m);
	return 1;
}

/* Fill a Feedback message from plain C. */
void exchange_feedback_msg(Asteal__Feedback *m, const struct exchange_feedback *fb)
{
	asteal__feedback__init(m);
	m->quantum = fb->quantum;
	m->desire = fb->desire;
	m->desire_real = fb->desire_real;
	m->work_ns = fb->use.ns[USAGE_WORK];
	m->steal_ns = fb->use.ns[USAGE_STEAL];
	m->mug_ns = fb->use.ns[USAGE_MUG];
	m->allotted_ns = fb->use.ns[USAGE_ALLOTTED];
	m->quantum_class = exchange_class_wire(fb->cls);
	m->sleep_ns = fb->use.ns[USAGE_SLEEP];
	m->preempted_ns = fb->use.ns[USAGE_PREEMPTED];
}

/* Fill plain C from a Feedback message. */
void exchange_feedback_from(struct exchange_feedback *fb, const Asteal__Feedback *m)
{
	fb->quantum = m->quantum;
	fb->desire = m->desire;
	fb->desire_real = m->desire_real;
	fb->use.ns[USAGE_WORK] = m->work_ns;
	fb->use.ns[USAGE_STEAL] = m->steal_ns;
	fb->use.ns[USAGE_MUG] = m->mug_ns;
	fb->use.ns[USAGE_ALLOTTED] = m->allotted_ns;
	fb->cls = exchange_class_index(m->quantum_class);
	fb->use.ns[USAGE_SLEEP] = m->sleep_ns;
	fb->use.ns[USAGE_PREEMPTED] = m->preempted_ns;
}

/* Fill plain C from a Feedback message protobuf-c decoded, or say why not. */
int exchange_feedback_take(struct exchange_feedback *fb, const Asteal__Feedback *m,
                           char *why, size_t len)
{
	if ((int)m->quantum_class < ASTEAL__QUANTUM_CLASS__CLASS_UNSPECIFIED ||
	    (int)m->quantum_class > ASTEAL__QUANTUM_CLASS__DEPRIVED) {
		snprintf(why, len, "Feedback.quantum_class %d is not a class",
		         (int)m->quantum_class);
		return -1;
	}
	exchange_feedback_from(fb, m);
	return 0;
}

/* Fill a Hello's usage totals from plain C. */
void exchange_hello_usage_msg(Asteal__Hello *m, const struct usage_totals *u)
{
	m->work_ns = u->ns[USAGE_WORK];
	m->steal_ns = u->ns[USAGE_STEAL];
	m->mug_ns = u->ns[USAGE_MUG];
	m->allotted_ns = u->ns[USAGE_ALLOTTED];
	m->sleep_ns = u->ns[USAGE_SLEEP];
	m->preempted_ns = u->ns[USAGE_PREEMPTED];
}

/* Fill plain C from a Hello's usage totals. */
void exchange_hello_usage_from(struct usage_totals *u, const Asteal__Hello *m)
{
	u->ns[USAGE_WORK] = m->work_ns;
	u->ns[USAGE_STEAL] = m->steal_ns;
	u->ns[USAGE_MUG] = m->mug_ns;
	u->ns[USAGE_ALLOTTED] = m->allotted_ns;
	u->ns[USAGE_SLEEP] = m->sleep_ns;
	u->ns[USAGE_PREEMPTED] = m->preempted_ns;
}

/* A class index on the wire: index + 1 (QuantumClass's values). */
Asteal__QuantumClass exchange_class_wire(int cls)
{
	return cls >= 0 && cls <= 2 ? (Asteal__QuantumClass)(cls + 1)
	                            : ASTEAL__QUANTUM_CLASS__CLASS_UNSPECIFIED;
}

/* The class index of a wire value, -1 for none or an unknown one. */
int exchange_class_index(Asteal__QuantumClass c)
{
	return c >= ASTEAL__QUANTUM_CLASS__INEFFICIENT &&
	       c <= ASTEAL__QUANTUM_CLASS__DEPRIVED ? (int)c - 1 : -1;
}

/* The Feedback field of a kind of usage ("work_ns", ...), for messages. */
const char *exchange_usage_name(enum usage_kind k)
{
	static const char *const names[USAGE_N] = {
		[USAGE_WORK] = "work_ns", [USAGE_STEAL] = "steal_ns",
		[USAGE_MUG] = "mug_ns", [USAGE_SLEEP] = "sleep_ns",
		[USAGE_PREEMPTED] = "preempted_ns",
		[USAGE_ALLOTTED] = "allotted_ns" };

	return (unsigned)k < USAGE_N ? names[k] : "?";
}
