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

/* Read the 8 bytes of a little-endian fixed64 at *p (before end) into
 * *bits, moving *p past them: 0, or -1 when fewer remain. */
static int get_fixed64(const uint8_t **p, const uint8_t *end, uint64_t *bits)
{
	uint64_t x = 0;
	int i;

	if (end - *p < 8)
		return -1;
	for (i = 7; i >= 0; i--)
		x = x << 8 | (*p)[i];
	*p += 8;
	*bits = x;
	return 0;
}

/* Read a Usage's body, the len bytes at *p (before end), into u (zeroed
 * first), moving *p past them: 0, or -1 when it is not in the plain form
 * (Usage's own fields, each once, in order, as varints). */
static int get_usage(const uint8_t **p, const uint8_t *end, uint64_t len,
                     Asteal__Usage *u)
{
	const uint8_t *stop;
	unsigned last = 0;
	uint64_t v;

	if (len > (uint64_t)(end - *p))
		return -1;
	stop = *p + len;
	asteal__usage__init(u);
	while (*p < stop) {
		uint8_t tag = *(*p)++;
		unsigned field = tag >> 3;

		if (tag & 0x80 || field <= last || (tag & 7) != WT_VARINT ||
		    get_varint(p, stop, &v) < 0)
			return -1;
		last = field;
		switch (field) {
#define DECODE_USAGE_(kind, member, number)                               \
		case number:                                              \
			u->member = v;                                    \
			break;
		USAGE_KINDS(DECODE_USAGE_)
		default:               /* not one of Usage's */
			return -1;
		}
	}
	return 0;
}

/* Decode a plain Feedback body, or say it is not one. */
int exchange_decode_feedback(const uint8_t *p, size_t len,
                             struct exchange_feedback *fb)
{
	const uint8_t *end = p + len;
	Asteal__Feedback m = ASTEAL__FEEDBACK__INIT;
	Asteal__Usage use;
	unsigned last = 0;
	uint64_t v;

	/* Envelope field 11, length-delimited, filling the rest. */
	if (len < 2 || *p++ != TAG(ASTEAL__ENVELOPE__MSG_FEEDBACK, WT_LEN) ||
	    get_varint(&p, end, &v) < 0 || v != (uint64_t)(end - p))
		return 0;
	while (p < end) {
		uint8_t tag = *p++;
		unsigned field = tag >> 3;

		/* One-byte tags of Feedback's own fields (message.h's lists),
		 * each once, in order, of their own wire type: anything else
		 * (unknown or repeated fields, other wire types, a class this
		 * side does not know) is protobuf-c's to judge. */
		if (tag & 0x80 || field <= last || field < 1 ||
		    field > FEEDBACK_MAX_FIELD)
			return 0;
		last = field;
		switch (field) {
#define DECODE_VARINT_(number, member)                                    \
		case number:                                              \
			if (tag != TAG(number, WT_VARINT) ||              \
			    get_varint(&p, end, &v) < 0)                  \
				return 0;                                 \
			m.member = v;                                     \
			break;
#define DECODE_FIXED64_(number, member)                                   \
		case number:                                              \
			if (tag != TAG(number, WT_FIXED64) ||             \
			    get_fixed64(&p, end, &v) < 0)                 \
				return 0;                                 \
			memcpy(&m.member, &v, sizeof(v));                 \
			break;
#define DECODE_SCALAR_(number, member, type, wire)                        \
			DECODE_##wire##_(number, member)
		FEEDBACK_SCALARS(DECODE_SCALAR_)
		case FEEDBACK_USAGE_FIELD:
			if (tag != TAG(FEEDBACK_USAGE_FIELD, WT_LEN) ||
			    get_varint(&p, end, &v) < 0 ||
			    get_usage(&p, end, v, &use) < 0)
				return 0;
			m.usage = &use;
			break;
		case FEEDBACK_CLASS_FIELD:
			if (tag != TAG(FEEDBACK_CLASS_FIELD, WT_VARINT) ||
			    get_varint(&p, end, &v) < 0 ||
			    v > ASTEAL__QUANTUM_CLASS__DEPRIVED)
				return 0;
			m.quantum_class = (Asteal__QuantumClass)v;
			break;
		default:               /* a number between the fields */
			return 0;
		}
	}
	exchange_feedback_from(fb, &m);
	return 1;
}

/* Fill a Usage message from plain C. */
void exchange_usage_msg(Asteal__Usage *m, const struct usage_totals *u)
{
	asteal__usage__init(m);
#define USAGE_TO_MSG_(kind, member, number) m->member = u->ns[USAGE_##kind];
	USAGE_KINDS(USAGE_TO_MSG_)
}

/* Fill plain C from a Usage message, or zeros from none. */
void exchange_usage_from(struct usage_totals *u, const Asteal__Usage *m)
{
	static const Asteal__Usage none = ASTEAL__USAGE__INIT;

	if (m == NULL)
		m = &none;
#define USAGE_FROM_MSG_(kind, member, number) u->ns[USAGE_##kind] = m->member;
	USAGE_KINDS(USAGE_FROM_MSG_)
}

/* Fill a Feedback message from plain C. */
void exchange_feedback_msg(struct exchange_feedback_pb *pb,
                           const struct exchange_feedback *fb)
{
	Asteal__Feedback *m = &pb->m;

	asteal__feedback__init(m);
#define TO_MSG_(number, member, type, wire) m->member = fb->member;
	FEEDBACK_SCALARS(TO_MSG_)
	m->quantum_class = exchange_class_wire(fb->cls);
	exchange_usage_msg(&pb->use, &fb->use);
	m->usage = &pb->use;
}

/* Fill plain C from a Feedback message. */
void exchange_feedback_from(struct exchange_feedback *fb, const Asteal__Feedback *m)
{
#define FROM_MSG_(number, member, type, wire) fb->member = (type)m->member;
	FEEDBACK_SCALARS(FROM_MSG_)
	exchange_usage_from(&fb->use, m->usage);
	fb->cls = exchange_class_index(m->quantum_class);
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
#define USAGE_NAME_(kind, member, number) [USAGE_##kind] = #member,
	static const char *const names[USAGE_N] = { USAGE_KINDS(USAGE_NAME_) };

	return (unsigned)k < USAGE_N ? names[k] : "?";
}
