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

/* The kinds of a job's usage, each in nanoseconds (asteal.proto,
 * "Usage", has their meaning): the places in struct usage_totals, and in
 * the history's arrays of usage. */
enum usage_kind {
	USAGE_WORK, USAGE_STEAL, USAGE_MUG, USAGE_SLEEP, USAGE_PREEMPTED,
	USAGE_ALLOTTED,
	USAGE_N
};

/* A job's usage totals: one type from the job's boundary to the daemon's
 * job table (the names on the wire: exchange_usage_name). */
struct usage_totals {
	uint64_t ns[USAGE_N];
};

/* The classes of a quantum (inefficient, satisfied, deprived): a class
 * index is 0 to EXCHANGE_NCLASSES - 1, or -1 for none. */
#define EXCHANGE_NCLASSES 3

/* A Feedback (asteal.proto has the meaning of each field): the quantum
 * just closed, the desire for the next one (rounded up, and as A-STEAL
 * computed it), the usage totals since the Welcome and the closed
 * quantum's class. */
struct exchange_feedback {
	uint64_t quantum;
	uint32_t desire;
	double desire_real;
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
