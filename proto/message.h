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

/* A Feedback (asteal.proto has the meaning of each field): the quantum
 * just closed, the desire for the next one (rounded up, and as A-STEAL
 * computed it), the usage totals since the Welcome and the closed
 * quantum's class. */
struct exchange_feedback {
	uint64_t quantum;
	uint32_t desire;
	double desire_real;
	uint64_t work_ns, steal_ns, mug_ns, allotted_ns;
	int cls;                   /* class index 0..2, -1 for none */
	uint64_t sleep_ns, preempted_ns;
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
