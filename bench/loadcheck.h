/*
 * loadcheck.h - asteal-loadgen's online check (bench/loadgen.c): every
 * allotment a job takes, and at every boundary what all the jobs hold,
 * against what DEQ may answer.  It keeps what each job holds, when the
 * daemon decided each quantum (an allotment's decided_ns), and the run's
 * count of wrong things, which every part of the load generator adds to.
 */
#ifndef ASTEAL_LOADCHECK_H
#define ASTEAL_LOADCHECK_H

#include <stddef.h>
#include <stdint.h>

/* The check of one run's jobs. */
struct loadcheck;

/* An allotment as a job learns it: from an Allot, or from its page. */
struct loadcheck_allot {
	uint64_t quantum, decided_ns;
	uint32_t allotment, availability;
	size_t ncpus;
	const uint32_t *cpus;         /* ascending */
	int gap;                      /* the page's generations before it were
	                                 not all seen: what the job held just
	                                 before is not known */
};

/* What loadcheck_allot says of an allotment taken (bits). */
enum {
	LOADCHECK_GAVE_UP = 1,        /* the job gave CPUs up: it says so */
	LOADCHECK_FROM_NONE = 2,      /* it held none before (or may have):
	                                 the allotment may be a grant */
};

/* What the check counted. */
struct loadcheck_counts {
	uint64_t wrong;               /* wrong things, of every part */
	uint64_t conflicts;           /* boundaries whose allotments overlapped
	                                 or summed above P */
	uint64_t late_allots;         /* allotments of a quantum whose boundary
	                                 was checked already */
};

/* The check of n jobs of W workers each, holding nothing: NULL when out
 * of memory. */
struct loadcheck *loadcheck_create(int n, uint32_t W);

/* Free the check (NULL is nothing). */
void loadcheck_free(struct loadcheck *c);

/* The run starts at quantum q and lasts at most nq quanta: boundaries
 * from q on are checked, and the decided_ns of allotments of quanta
 * q..q+nq-1 compared.  0, or -1 out of memory. */
int loadcheck_start(struct loadcheck *c, uint64_t q, uint64_t nq);

/* Job i (its id for the messages) took allotment a on a machine of P
 * CPUs: check it (a wrong one is counted and said), then hold it.  Its
 * LOADCHECK_* bits. */
int loadcheck_allot(struct loadcheck *c, int i, uint64_t id, int P,
                    const struct loadcheck_allot *a);

/* The first job reached the boundary that starts quantum q: check what
 * the jobs hold once per boundary, no CPU twice and at most P in all. */
void loadcheck_boundary(struct loadcheck *c, uint64_t q, int P);

/* Count one wrong thing: whether it is among the first ten, to be said. */
int loadcheck_wrong(struct loadcheck *c);

/* The allotment job i holds. */
uint32_t loadcheck_allotment(const struct loadcheck *c, int i);

/* The last boundary checked: the quantum it starts. */
uint64_t loadcheck_last(const struct loadcheck *c);

/* When the daemon decided quantum q, as its allotments told (decided_ns),
 * or 0 when none told it or q is outside the run. */
uint64_t loadcheck_decided(const struct loadcheck *c, uint64_t q);

/* What the check counted. */
const struct loadcheck_counts *loadcheck_counts(const struct loadcheck *c);

#endif
