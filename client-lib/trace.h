/*
 * trace.h - the quanta's trace (see trace.c): ASTEAL_TRACE names a CSV
 * file that gets one row per quantum the link thread closes.
 */
#ifndef ASTEAL_TRACE_H
#define ASTEAL_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "usage.h"

/* One closed quantum, as its row says it. */
struct trace_row {
	uint64_t quantum;
	uint64_t clock_ns;             /* when it started (CLOCK_MONOTONIC) */
	uint64_t start_ns;             /* when the runtime started */
	int desire;                    /* reported (rounded) */
	double desire_real;
	int availability, allotment;
	const char *cls;               /* its class, or "idle" */
	const struct usage_sum *all;   /* every worker's usage in it */
	const struct usage_sum *held;  /* what the estimator judged: the
	                                  workers of the allotment */
};

/* Create the trace file at path and write its header: the file, or NULL
 * with errno and a message. */
FILE *trace_open(const char *path);

/* Write one quantum's row. */
void trace_write(FILE *f, const struct trace_row *r);

/* Push the rows written so far to the file (NULL: no trace). */
void trace_flush(FILE *f);

/* Close the trace (NULL: no trace). */
void trace_close(FILE *f);

#endif
