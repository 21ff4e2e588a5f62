/*
 * trace.c - the trace writer (trace.h): the CSV file ASTEAL_TRACE names,
 * a header and then one row per quantum, written by the link thread
 * (quantum.c) as it closes the quantum, flushed when the runtime stops.
 * The columns: the quantum, its start from the runtime's (time_ns) and on
 * the clock (clock_ns), the reported and the real desire, availability,
 * allotment, every worker's usage in it (work, steal, mug, allotted,
 * sleep, preempted, leave), its class, and what the estimator judged
 * (the usage and allotted time of the allotment's workers).
 */
#include "trace.h"

#include <errno.h>
#include <string.h>

/* Create the trace and write its header. */
FILE *trace_open(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		fprintf(stderr, "asteal: ASTEAL_TRACE=%s: %s\n", path, strerror(errno));
		errno = EINVAL;
		return NULL;
	}
	fprintf(f, "quantum,time_ns,desire,desire_real,availability,"
	        "allotment,work_ns,steal_ns,mug_ns,allotted_ns,class,clock_ns,"
	        "sleep_ns,preempted_ns,leave_ns,judged_usage_ns,"
	        "judged_allotted_ns\n");
	return f;
}

/* Write one quantum's row. */
void trace_write(FILE *f, const struct trace_row *r)
{
	const struct usage_sum *u = r->all, *held = r->held;

	fprintf(f, "%llu,%lld,%d,%.4f,%d,%d,%llu,%llu,%llu,%llu,%s,"
	        "%llu,%llu,%llu,%llu,%llu,%llu\n",
	        (unsigned long long)r->quantum, (long long)(r->clock_ns - r->start_ns),
	        r->desire, r->desire_real, r->availability, r->allotment,
	        (unsigned long long)u->work, (unsigned long long)u->steal,
	        (unsigned long long)u->mug, (unsigned long long)u->allotted,
	        r->cls, (unsigned long long)r->clock_ns,
	        (unsigned long long)u->sleep, (unsigned long long)u->preempted,
	        (unsigned long long)u->leave,
	        (unsigned long long)(held->work + held->mug),
	        (unsigned long long)held->allotted);
}

/* Flush the trace. */
void trace_flush(FILE *f)
{
	if (f != NULL)
		fflush(f);
}

/* Close the trace. */
void trace_close(FILE *f)
{
	if (f != NULL)
		fclose(f);
}
