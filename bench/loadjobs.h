/*
 * loadjobs.h - asteal-loadgen's fake jobs (bench/loadgen.c): N protocol
 * connections of one process, each a job that speaks the quantum
 * exchange as libasteal does, by messages or through the page asteald
 * shares with it.  The load generator's loop serves them: it hands each
 * job's input and each boundary here, and looks at the pages.
 */
#ifndef ASTEAL_LOADJOBS_H
#define ASTEAL_LOADJOBS_H

#include <stdint.h>

#include "loadcheck.h"
#include "loadlog.h"

/* The fake jobs of a run. */
struct loadjobs;

/* What every job is. */
struct loadjobs_conf {
	const char *sock;             /* the daemon's socket */
	int n;                        /* jobs */
	uint32_t W;                   /* workers of each */
	double rate;                  /* the desire's change per quantum */
	int feed_page;                /* the Feedback in the page */
	int allot_page;               /* the allotments in the page */
	uint64_t seed;                /* the jobs' random streams */
};

/* The machine and the quanta, as the Welcomes tell them. */
struct loadjobs_grid {
	int P;                        /* CPUs */
	uint64_t t0, L;               /* quantum q starts at t0 + q L (ns) */
	uint64_t heartbeat;           /* ns */
};

/* What the jobs counted. */
struct loadjobs_counts {
	uint64_t feedbacks;           /* Feedback messages sent */
	uint64_t allots;              /* allotments taken */
	uint64_t skipped;             /* boundaries the load generator missed */
	uint64_t page_writes;         /* Feedbacks written in pages */
	uint64_t page_looks;          /* looks at every page */
	uint64_t page_gens;           /* allotments taken from pages */
	uint64_t page_missed;         /* generations written, never seen */
	uint64_t page_torn;           /* looks that found a page being written */
	uint64_t page_refused;        /* jobs the daemon gave no page */
	uint64_t releaseds;           /* revocations said done */
};

/* Connect conf->n jobs and say their Hellos; each allotment they take is
 * checked by c.  The jobs, or NULL (said why) on failure. */
struct loadjobs *loadjobs_create(const struct loadjobs_conf *conf,
                                 struct loadcheck *c);

/* Close every job (NULL is nothing). */
void loadjobs_free(struct loadjobs *js);

/* Job i's socket, to watch for input. */
int loadjobs_fd(const struct loadjobs *js, int i);

/* Read what job i's socket has (its Welcome, Allots, Errors): 0, or -1
 * (said why) when the daemon closed it. */
int loadjobs_input(struct loadjobs *js, int i);

/* Whether job i's Welcome came. */
int loadjobs_welcomed(const struct loadjobs *js, int i);

/* Every job whose allotments come in its page looks at its generation, as
 * a worker does at each safe point, and takes the allotment when it
 * moved. */
void loadjobs_look(struct loadjobs *js);

/* The run starts at now: every job is in the quantum now falls in.  The
 * pages' looks come poll_us apart on average (0: L/20). */
void loadjobs_start(struct loadjobs *js, uint64_t now, double poll_us);

/* How long until the pages' next look (ns): uniform over [1/2, 3/2] of
 * the average, so that the looks do not keep one phase against the
 * daemon's ticks. */
uint64_t loadjobs_look_in(struct loadjobs *js);

/* The pages' looks' average interval (ns); 0 when no job looks. */
uint64_t loadjobs_poll_ns(const struct loadjobs *js);

/* Job i reaches the boundary that starts quantum q, at now: it closes the
 * quantum in progress, maybe changes its desire, and says so when it
 * changed or its heartbeat is due.  0, or -1 when it could not. */
int loadjobs_boundary(struct loadjobs *js, int i, uint64_t q, uint64_t now);

/* The grid, once a Welcome came. */
const struct loadjobs_grid *loadjobs_grid(const struct loadjobs *js);

/* What the jobs counted. */
const struct loadjobs_counts *loadjobs_counts(const struct loadjobs *js);

/* The number of jobs. */
int loadjobs_count(const struct loadjobs *js);

/* Job i's id, from its Welcome. */
uint64_t loadjobs_id(const struct loadjobs *js, int i);

/* The index of the job with this id, or -1. */
int loadjobs_find(const struct loadjobs *js, uint64_t id);

/* Job i's log of what it got and said. */
const struct loadlog *loadjobs_log(const struct loadjobs *js, int i);

#endif
