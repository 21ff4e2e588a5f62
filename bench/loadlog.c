/*
 * loadlog.c - what one asteal-loadgen job got and said (see loadlog.h).
 * Both logs grow as the run goes; an allotment's CPUs are kept as a hash
 * and, when every id is below 64, as bits, which is all the history check
 * compares.
 */
#include "loadlog.h"

#include <stdlib.h>

#include "frame.h"
#include "qtime.h"

/* The two logs of a job. */
struct loadlog {
	struct loadlog_got *got;
	size_t ngot, capgot;
	struct loadlog_said *said;
	size_t nsaid, capsaid;
	uint64_t spoke_q;         /* the quantum of its first Feedback, or 0 */
};

/* An empty log. */
struct loadlog *loadlog_create(void)
{
	return calloc(1, sizeof(struct loadlog));
}

/* Free the log. */
void loadlog_free(struct loadlog *log)
{
	if (log == NULL)
		return;
	free(log->got);
	free(log->said);
	free(log);
}

/* Log an allotment, in place of one of the same quantum logged last. */
int loadlog_got(struct loadlog *log, uint64_t q, uint32_t allotment,
                uint32_t availability, const uint32_t *cpus, size_t ncpus,
                int from_none)
{
	struct loadlog_got *g;

	if (log->ngot > 0 && log->got[log->ngot - 1].q == q)
		log->ngot--;            /* only the last of a quantum counts */
	if (frame_grow(&log->got, sizeof(*log->got), log->ngot, &log->capgot, 16) < 0)
		return -1;
	g = &log->got[log->ngot++];
	g->from_none = from_none;
	g->q = q;
	g->allotment = allotment;
	g->availability = availability;
	g->low = loadlog_cpus_low(cpus, ncpus);
	g->cpus = loadlog_cpus_hash(cpus, ncpus);
	return 0;
}

/* Log a desire said, when it changed. */
int loadlog_said(struct loadlog *log, uint64_t q, uint32_t desire)
{
	if (log->spoke_q == 0)
		log->spoke_q = q;
	if (desire == loadlog_desire(log, log->nsaid))
		return 0;
	if (frame_grow(&log->said, sizeof(*log->said), log->nsaid, &log->capsaid, 16) < 0)
		return -1;
	log->said[log->nsaid].q = q;
	log->said[log->nsaid].sent_ns = qtime_now_ns();
	log->said[log->nsaid++].desire = desire;
	return 0;
}

/* The allotments logged. */
const struct loadlog_got *loadlog_gots(const struct loadlog *log, size_t *n)
{
	*n = log->ngot;
	return log->got;
}

/* The desires logged. */
const struct loadlog_said *loadlog_saids(const struct loadlog *log, size_t *n)
{
	*n = log->nsaid;
	return log->said;
}

/* The k-th desire said. */
uint32_t loadlog_desire(const struct loadlog *log, size_t k)
{
	return k == 0 ? 1 : log->said[k - 1].desire;
}

/* The quantum from which the k-th desire holds. */
uint64_t loadlog_quantum(const struct loadlog *log, size_t k)
{
	return k == 0 ? 0 : log->said[k - 1].q;
}

/* The quantum of the first Feedback. */
uint64_t loadlog_spoke(const struct loadlog *log)
{
	return log->spoke_q;
}

/* FNV-1a over the ids. */
uint64_t loadlog_cpus_hash(const uint32_t *ids, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= ids[i] + 1;
		h *= 1099511628211ull;
	}
	return h;
}

/* The ids as bits below 64. */
uint64_t loadlog_cpus_low(const uint32_t *ids, size_t n)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++)
		m |= ids[i] < 64 ? (uint64_t)1 << ids[i] : UINT64_MAX;
	return m;
}
