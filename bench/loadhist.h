/*
 * loadhist.h - asteal-loadgen's check against the daemon's history
 * (bench/loadgen.c), after the run: what every job got and said
 * (loadlog.h) against the runs asteald recorded, read over the protocol
 * (History requests, paged by cursor).
 */
#ifndef ASTEAL_LOADHIST_H
#define ASTEAL_LOADHIST_H

#include <stdint.h>

#include "loadcheck.h"
#include "loadconn.h"
#include "loadjobs.h"

/* What the history check found. */
struct loadhist_verdict {
	uint64_t runs;                /* runs read */
	uint64_t allots_checked;      /* allotments compared with their run */
	uint64_t allots_bad;          /* ... and found wrong */
	uint64_t allots_held;         /* ... the free part of a grant held over */
	uint64_t allots_granted;      /* ... a grant kept apart from the runs */
	uint64_t allots_turns;        /* ... a quantum of a run of turns */
	uint64_t said_checked;        /* quanta whose desire was compared */
	uint64_t said_late;           /* ... stale: a Feedback missed its tick */
	uint64_t said_lag_max;        /* the longest stretch of stale quanta */
	uint64_t said_early;          /* desires read before their quantum */
	uint64_t said_bad;            /* desires recorded that were not said */
	uint64_t said_silent;         /* quanta recorded silent before the
	                                 daemon read the job's first Feedback */
};

/* Ask for the history of every job of js on the client connection conn,
 * a page at a time, and check what each job got and said against it
 * (c: when the daemon decided each quantum, the last boundary the run
 * checked); add to *v.  The number of requests whose history could not
 * be read (said why), each a wrong thing. */
int loadhist_check(const struct loadjobs *js, const struct loadcheck *c,
                   struct loadconn *conn, struct loadhist_verdict *v);

#endif
