/*
 * loadlog.h - what one asteal-loadgen job got and said (bench/loadgen.c),
 * kept for the check against the daemon's history (loadhist.c): the last
 * allotment it took of each quantum, and each desire it told the daemon
 * from the quantum it told it on.
 */
#ifndef ASTEAL_LOADLOG_H
#define ASTEAL_LOADLOG_H

#include <stddef.h>
#include <stdint.h>

/* A job's log. */
struct loadlog;

/* What a job got: its last allotment of one quantum. */
struct loadlog_got {
	uint64_t q;
	uint32_t allotment, availability;
	uint64_t cpus;            /* a hash of the CPU ids (loadlog_cpus_hash) */
	uint64_t low;             /* the ids below 64, a bit each
	                             (loadlog_cpus_low) */
	int from_none;            /* the job held no CPU before it: it may be
	                             a grant */
};

/* What a job said: a desire from quantum q on. */
struct loadlog_said {
	uint64_t q;
	uint64_t sent_ns;         /* when it was said */
	uint32_t desire;
};

/* An empty log: NULL when out of memory. */
struct loadlog *loadlog_create(void);

/* Free the log (NULL is nothing). */
void loadlog_free(struct loadlog *log);

/* The job took an allotment of quantum q on the CPU ids cpus[0..ncpus)
 * (ascending); from_none as in struct loadlog_got.  Only the last of a
 * quantum is kept: 0, or -1 out of memory (the quantum is then not
 * logged). */
int loadlog_got(struct loadlog *log, uint64_t q, uint32_t allotment,
                uint32_t availability, const uint32_t *cpus, size_t ncpus,
                int from_none);

/* The job told the daemon its desire from quantum q on: logged when it
 * is not the last desire said.  0, or -1 out of memory. */
int loadlog_said(struct loadlog *log, uint64_t q, uint32_t desire);

/* The allotments logged, in the order taken: *n of them. */
const struct loadlog_got *loadlog_gots(const struct loadlog *log, size_t *n);

/* The desires logged, in the order said: *n of them (entry k of the log's
 * desires is the array's k - 1). */
const struct loadlog_said *loadlog_saids(const struct loadlog *log, size_t *n);

/* The k-th desire said (0: the one a job starts with, 1). */
uint32_t loadlog_desire(const struct loadlog *log, size_t k);

/* The quantum from which the k-th desire holds (0 for the first). */
uint64_t loadlog_quantum(const struct loadlog *log, size_t k);

/* The quantum of the job's first Feedback, or 0 before it. */
uint64_t loadlog_spoke(const struct loadlog *log);

/* A hash of a set of CPU ids given in ascending order. */
uint64_t loadlog_cpus_hash(const uint32_t *ids, size_t n);

/* The CPU ids of a list as bits, if all are below 64; UINT64_MAX (taken
 * as unknown) if some id is 64 or more. */
uint64_t loadlog_cpus_low(const uint32_t *ids, size_t n);

#endif
