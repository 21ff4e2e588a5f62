/*
 * loadcheck.c - asteal-loadgen's online check (see loadcheck.h).
 *
 * Every allotment has allotment = number of CPUs <= availability, <= W,
 * <= P, distinct known CPU ids, a quantum not before the job's last, and
 * the decided_ns of every other one of its quantum (a grant, CPUs between
 * ticks to a job that held none, is decided later); through the page,
 * the stop words of the job's W slots agree with it (1 from slot a_q on;
 * loadpage.c reads them, loadjobs.c counts a wrong one here).  At every
 * boundary the jobs' allotments hold no CPU twice and sum to at most P: a
 * "conflict" there is a delivery that came late, not a wrong allotment,
 * as is an allotment of the last tick that came after the boundary
 * ("late_allots"; the daemon or the load generator ran a quantum late);
 * both are reported apart.
 */
#include "loadcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"

#define CPU_IDS EXCHANGE_MAX_CPUS
#define WORDS ((int)(CPU_IDS / 64))

/* What a job holds. */
struct held {
	uint32_t allotment;
	uint64_t cpus[WORDS];
	uint64_t q;                   /* the quantum of its last allotment */
	int any;                      /* it took one */
};

/* The check of a run. */
struct loadcheck {
	struct held *held;
	int n;
	uint32_t W;
	uint64_t checked_q;           /* the last boundary whose state was
	                                 checked */
	uint64_t *decided;            /* per quantum from q_base: when the */
	uint64_t q_base, nq;          /* daemon decided it, or 0 */
	uint8_t *decided_maybe;       /* ... as far as grants tell
	                                 (decided_wrong) */
	struct loadcheck_counts counts;
};

/* The check of n jobs holding nothing. */
struct loadcheck *loadcheck_create(int n, uint32_t W)
{
	struct loadcheck *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->held = calloc((size_t)n, sizeof(*c->held));
	if (c->held == NULL) {
		free(c);
		return NULL;
	}
	c->n = n;
	c->W = W;
	return c;
}

/* Free the check. */
void loadcheck_free(struct loadcheck *c)
{
	if (c == NULL)
		return;
	free(c->held);
	free(c->decided);
	free(c->decided_maybe);
	free(c);
}

/* The run's quanta. */
int loadcheck_start(struct loadcheck *c, uint64_t q, uint64_t nq)
{
	c->checked_q = q;
	c->q_base = q;
	c->nq = nq;
	c->decided = calloc(nq, sizeof(*c->decided));
	c->decided_maybe = calloc(nq, sizeof(*c->decided_maybe));
	return c->decided == NULL || c->decided_maybe == NULL ? -1 : 0;
}

/* Whether an allotment of quantum q_base + k decided at dec breaks "one
 * quantum, one DEQ": every allotment of a quantum was decided at its
 * tick, but a grant (CPUs to a job that held none, between ticks; `grant`
 * says it may be one) later.  Seen in any order: while only allotments
 * that may be grants were seen of a quantum, the earliest stands for its
 * tick, tentatively. */
static int decided_wrong(struct loadcheck *c, uint64_t k, uint64_t dec, int grant)
{
	uint64_t *d = &c->decided[k];
	uint8_t *maybe = &c->decided_maybe[k];

	if (*d == 0 || (*maybe && dec < *d)) {
		*d = dec;
		*maybe = (uint8_t)grant;
		return 0;
	}
	if (dec == *d) {
		*maybe &= (uint8_t)grant;
		return 0;
	}
	return !(grant && dec > *d);
}

/* Check an allotment, then hold it. */
int loadcheck_allot(struct loadcheck *c, int i, uint64_t id, int P,
                    const struct loadcheck_allot *a)
{
	struct held *h = &c->held[i];
	uint64_t cpus[WORDS] = { 0 };
	/* Whether the job held no CPU before it (it may be a grant): after
	 * generations of its page it did not see, it may have. */
	int from_none = h->allotment == 0 || a->gap;
	int took = from_none ? LOADCHECK_FROM_NONE : 0;
	int wrong = a->allotment != a->ncpus || a->allotment > a->availability ||
	            a->allotment > c->W || a->allotment > (uint32_t)P ||
	            (h->any && a->quantum < h->q);

	for (size_t k = 0; k < a->ncpus; k++) {
		uint32_t cpu = a->cpus[k];

		if (cpu >= CPU_IDS || (cpus[cpu / 64] >> (cpu % 64) & 1) ||
		    (k > 0 && cpu <= a->cpus[k - 1])) {
			wrong = 1;
			continue;
		}
		cpus[cpu / 64] |= (uint64_t)1 << (cpu % 64);
	}
	if (a->quantum >= c->q_base && a->quantum - c->q_base < c->nq &&
	    decided_wrong(c, a->quantum - c->q_base, a->decided_ns,
	                  from_none && a->allotment > 0)) {
		wrong = 1;              /* one quantum, one DEQ */
		fprintf(stderr, "loadgen: job %llu: an allotment of quantum %llu "
		        "decided at %llu, another at %llu\n",
		        (unsigned long long)id, (unsigned long long)a->quantum,
		        (unsigned long long)a->decided_ns,
		        (unsigned long long)c->decided[a->quantum - c->q_base]);
	}
	if (a->quantum < c->checked_q)  /* its boundary was checked already */
		c->counts.late_allots++;
	if (wrong && loadcheck_wrong(c))
		fprintf(stderr, "loadgen: job %llu: a wrong allotment: quantum "
		        "%llu, allotment %u of %zu CPUs, availability %u\n",
		        (unsigned long long)id, (unsigned long long)a->quantum,
		        a->allotment, a->ncpus, a->availability);
	for (int w = 0; w < WORDS; w++)
		if (h->cpus[w] & ~cpus[w]) {
			took |= LOADCHECK_GAVE_UP;
			break;
		}
	h->allotment = a->allotment;
	memcpy(h->cpus, cpus, sizeof(cpus));
	h->q = a->quantum;
	h->any = 1;
	return took;
}

/* The jobs' allotments at a new boundary: no CPU twice, at most P in
 * all. */
void loadcheck_boundary(struct loadcheck *c, uint64_t q, int P)
{
	uint64_t seen[WORDS] = { 0 };
	uint64_t sum = 0;
	int bad = 0;

	if (q <= c->checked_q)
		return;
	c->checked_q = q;
	for (int i = 0; i < c->n; i++) {
		const struct held *h = &c->held[i];

		sum += h->allotment;
		for (int w = 0; w < WORDS; w++) {
			if (seen[w] & h->cpus[w])
				bad = 1;
			seen[w] |= h->cpus[w];
		}
	}
	if (sum > (uint64_t)P)
		bad = 1;
	if (bad && c->counts.conflicts++ < 5)
		fprintf(stderr, "loadgen: at boundary %llu the allotments overlap "
		        "or sum to %llu > %d\n", (unsigned long long)c->checked_q,
		        (unsigned long long)sum, P);
}

/* Count one wrong thing. */
int loadcheck_wrong(struct loadcheck *c)
{
	return c->counts.wrong++ < 10;
}

/* The allotment job i holds. */
uint32_t loadcheck_allotment(const struct loadcheck *c, int i)
{
	return c->held[i].allotment;
}

/* The last boundary checked. */
uint64_t loadcheck_last(const struct loadcheck *c)
{
	return c->checked_q;
}

/* When the daemon decided quantum q. */
uint64_t loadcheck_decided(const struct loadcheck *c, uint64_t q)
{
	return q >= c->q_base && q - c->q_base < c->nq ? c->decided[q - c->q_base] : 0;
}

/* What the check counted. */
const struct loadcheck_counts *loadcheck_counts(const struct loadcheck *c)
{
	return &c->counts;
}
