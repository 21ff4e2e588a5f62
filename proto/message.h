/*
 * message.h - the quantum exchange's messages as plain C, one type per
 * message for both sides: the job fills a struct exchange_feedback at its
 * quantum boundary (client-lib/quantum.c) and hands it to its link
 * (client-lib/link.c); the daemon decodes the same struct from the wire
 * (exchange.c) and hands it to its scheduler.  No protobuf here, so that
 * code that only builds or reads messages does not depend on the
 * generated code; exchange.h holds the codecs.
 */
#ifndef ASTEAL_MESSAGE_H
#define ASTEAL_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

/*
 * A Feedback's fields, each written down once, here: the codecs
 * (exchange.c: protobuf-c's message both ways and the hand decoder), the
 * page's copy of a Feedback (page.c) and the tests that compare them walk
 * these lists, so a new field is a line here, its field in asteal.proto
 * (same name and number), the job filling it and the daemon checking it;
 * a new kind of usage likewise, in message Usage.
 *
 * FEEDBACK_SCALARS(X): X(number, member, C type, wire type) for each field
 * kept as a member of struct exchange_feedback of the same name; wire type
 * VARINT (an unsigned integer) or FIXED64 (a double).
 *
 * USAGE_KINDS(X): X(KIND, name, number) for each kind of a job's usage, in
 * nanoseconds, kept in use.ns[USAGE_KIND]: its field's name and number
 * in message Usage (asteal.proto has their meaning), which Feedback
 * (field FEEDBACK_USAGE_FIELD), Hello, JobInfo, JobRecord and
 * AllotmentRecord hold.  The order is the order of the history's columns
 * and of Usage's numbers: a new kind goes last.
 *
 * The class of the closed quantum, field FEEDBACK_CLASS_FIELD, is the one
 * field with a mapping of its own (exchange.h).
 */
#define FEEDBACK_SCALARS(X)                              \
	X(1, quantum, uint64_t, VARINT)                  \
	X(2, desire, uint32_t, VARINT)                   \
	X(3, desire_real, double, FIXED64)

#define USAGE_KINDS(X)                                   \
	X(WORK, work_ns, 1)                              \
	X(STEAL, steal_ns, 2)                            \
	X(MUG, mug_ns, 3)                                \
	X(SLEEP, sleep_ns, 4)                            \
	X(PREEMPTED, preempted_ns, 5)                    \
	X(ALLOTTED, allotted_ns, 6)

#define FEEDBACK_CLASS_FIELD 8
#define FEEDBACK_USAGE_FIELD 11

/* The kinds of a job's usage: the places in struct usage_totals, and in
 * the history's arrays of usage. */
enum usage_kind {
#define USAGE_ENUM_(kind, name, number) USAGE_##kind,
	USAGE_KINDS(USAGE_ENUM_)
#undef USAGE_ENUM_
	USAGE_N
};

/* Usage's field numbers are the kinds' places plus one (and so the page's
 * words for them are PAGE_USAGE_WORD(1) to PAGE_USAGE_WORD(USAGE_N),
 * page.h). */
#define USAGE_NUMBER_CHECK_(kind, name, number)                         \
	_Static_assert(USAGE_##kind + 1 == (number),                     \
	               "Usage." #name "'s number is its kind's place + 1");
USAGE_KINDS(USAGE_NUMBER_CHECK_)
#undef USAGE_NUMBER_CHECK_

/* A job's usage totals: one type from the job's boundary to the daemon's
 * job table (the names on the wire: exchange_usage_name). */
struct usage_totals {
	uint64_t ns[USAGE_N];
};

/* The highest Feedback field number: the size of a union of one char
 * array per field, each as long as its number. */
union feedback_numbers_ {
#define FEEDBACK_NUMBER_(number, ...) char f##number[number];
	FEEDBACK_SCALARS(FEEDBACK_NUMBER_)
#undef FEEDBACK_NUMBER_
	char f_class[FEEDBACK_CLASS_FIELD];
	char f_usage[FEEDBACK_USAGE_FIELD];
};
#define FEEDBACK_MAX_FIELD sizeof(union feedback_numbers_)

/* The classes of a quantum (inefficient, satisfied, deprived): a class
 * index is 0 to EXCHANGE_NCLASSES - 1, or -1 for none. */
#define EXCHANGE_NCLASSES 3

/* A Feedback (asteal.proto has the meaning of each field): the quantum
 * just closed, the desire for the next one (rounded up, and as A-STEAL
 * computed it), the usage totals since the Welcome and the closed
 * quantum's class. */
struct exchange_feedback {
#define FEEDBACK_MEMBER_(number, member, type, wire) type member;
	FEEDBACK_SCALARS(FEEDBACK_MEMBER_)
#undef FEEDBACK_MEMBER_
	struct usage_totals use;
	int cls;                   /* class index 0..2, -1 for none */
};

/* An Allot; cpus points at ncpus ids, each below EXCHANGE_MAX_CPUS. */
struct exchange_allot {
	uint64_t quantum;
	uint32_t allotment, availability;
	const uint32_t *cpus;
	size_t ncpus;
	uint64_t decided_ns;
};

#endif
