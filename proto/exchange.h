/*
 * exchange.h - the quantum exchange's messages as plain C, and the codecs
 * that run for them on the daemon's busy path (see exchange.c).
 *
 * The messages' types are in message.h.  The quantum exchange is Feedback (job -> daemon, when a job's rounded
 * desire changes, and as a heartbeat), Allot (daemon -> job, when a job's
 * allotment changes) and Released (job -> daemon, when the workers an
 * Allot took away have parked).  asteald encodes every Allot and decodes
 * every Feedback by hand here, without allocating; the bytes are those
 * protobuf-c writes and reads for the same messages (tests/test_exchange.c
 * checks both on random messages).  Everything else, and every input the
 * hand decoder does not recognise, goes through frame.h's generic codec.
 *
 * The class of a quantum travels as asteal.QuantumClass; in memory it is
 * an index 0..2 in the order of enum est_class and enum history_class
 * (inefficient, satisfied, deprived), or -1 for none.  exchange_class_wire
 * and exchange_class_index are the one mapping between the two.
 */
#ifndef ASTEAL_EXCHANGE_H
#define ASTEAL_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "asteal.pb-c.h"
#include "message.h"
#include "proto.h"

/* CPU ids on the wire are below this (asteald's CPULIST_MAX). */
#define EXCHANGE_MAX_CPUS 1024u

/* The longest Allot frame: the prefix, the envelope's tag and length (5),
 * four varint fields with their tags (4 x 11), the cpus' tag and length (6)
 * and a varint of at most 2 bytes per CPU id below EXCHANGE_MAX_CPUS. */
#define EXCHANGE_ALLOT_MAX (PROTO_HEADER_LEN + 6 + 4 * 11 + 6 + 2 * EXCHANGE_MAX_CPUS)

/* Append v as a protobuf varint at p (10 bytes of room): the bytes
 * written. */
size_t exchange_put_varint(uint8_t *p, uint64_t v);

/* Write a whole frame at buf: the length prefix, then an Envelope whose
 * field number field (any: its tag is a varint) holds the len bytes of
 * body (room: PROTO_HEADER_LEN + 15 + len).  Its length. */
size_t exchange_envelope(uint8_t *buf, unsigned field, const uint8_t *body,
                         size_t len);

/* Encode a as a whole frame into buf (EXCHANGE_ALLOT_MAX bytes of room):
 * its length, or 0 when a has more than EXCHANGE_MAX_CPUS CPUs or an id
 * not below EXCHANGE_MAX_CPUS. */
size_t exchange_encode_allot(uint8_t *buf, const struct exchange_allot *a);

/* Decode a frame body (after the prefix, len bytes) that is an Envelope
 * holding a Feedback in the plain form a protobuf encoder writes: 1 with
 * *fb filled, or 0 for any other body (another message, unknown fields,
 * repeated or odd encodings, a quantum_class that is not one of
 * QuantumClass's values, garbage), which the caller gives to
 * frame_decode.  When it returns 1, frame_decode would return the same
 * Feedback. */
int exchange_decode_feedback(const uint8_t *body, size_t len,
                             struct exchange_feedback *fb);

/* A Feedback message and the Usage it points at (the caller's storage). */
struct exchange_feedback_pb {
	Asteal__Feedback m;
	Asteal__Usage use;
};

/* Fill pb->m, pointing at pb->use, from fb. */
void exchange_feedback_msg(struct exchange_feedback_pb *pb,
                           const struct exchange_feedback *fb);

/* Fill fb from a decoded Feedback message. */
void exchange_feedback_from(struct exchange_feedback *fb, const Asteal__Feedback *m);

/* Fill fb from a Feedback message decoded by protobuf-c, whose class may
 * be one this side does not know: 0, or -1 with the field named in why. */
int exchange_feedback_take(struct exchange_feedback *fb, const Asteal__Feedback *m,
                           char *why, size_t len);

/* Fill a Usage message (Hello, Feedback, JobInfo, JobRecord,
 * AllotmentRecord) from u. */
void exchange_usage_msg(Asteal__Usage *m, const struct usage_totals *u);

/* Fill u from a Usage message, or with zeros when m is NULL (a message
 * without one). */
void exchange_usage_from(struct usage_totals *u, const Asteal__Usage *m);

/* The wire value of a class index (0..2; anything else is unspecified). */
Asteal__QuantumClass exchange_class_wire(int cls);

/* The Feedback field of a kind of usage ("work_ns", ...), for messages. */
const char *exchange_usage_name(enum usage_kind k);

/* The class index of a wire value: 0..2, or -1 for unspecified or a value
 * this side does not know. */
int exchange_class_index(Asteal__QuantumClass c);

#endif
