/*
 * loadpage.h - one asteal-loadgen job's page (bench/loadjobs.c): the page
 * asteald shares with the job (proto/page.h) mapped from the Welcome's
 * descriptors, its allotment taken when its generation moved, and a
 * revocation answered through its parked part and eventfd, as libasteal
 * does (client-lib/link.c, client-lib/quantum.c).
 */
#ifndef ASTEAL_LOADPAGE_H
#define ASTEAL_LOADPAGE_H

#include <stddef.h>
#include <stdint.h>

#include "page.h"

/* A job's page. */
struct loadpage {
	struct page *pg;               /* mapped, or NULL */
	int wake;                      /* the eventfd, when the allotments
	                                  come in the page; or -1 */
	uint32_t gen;                  /* the generation last taken (0: none) */
};

/* An allotment taken from a page. */
struct loadpage_seen {
	uint32_t gen;                  /* its generation */
	uint32_t missed;               /* generations written since the one
	                                  taken before and never seen */
	int stops_bad;                 /* the first slot of the job's whose
	                                  stop word disagrees with the
	                                  allotment, or -1 */
	struct page_allotment a;
};

/* No page yet. */
void loadpage_init(struct loadpage *lp);

/* Map the page the Welcome passed (fds[0]) and, when the job asked for its
 * allotments there (allot), keep the eventfd that followed it (fds[1]);
 * every descriptor is taken (closed or kept): 0, or -1 with why. */
int loadpage_map(struct loadpage *lp, int fds[2], int allot, char *why,
                 size_t whylen);

/* Whether the allotment's generation moved since the last taken: one
 * load, as a worker's safe point. */
static inline int loadpage_moved(const struct loadpage *lp)
{
	return lp->wake >= 0 && page_gen(lp->pg) != lp->gen;
}

/* Take the allotment in the page for a job of `workers` workers: 1 with
 * it in *out (a new generation), 0 when the generation has not moved, -1
 * when every read was torn (the daemon was writing: look again later). */
int loadpage_take(struct loadpage *lp, int workers, struct loadpage_seen *out);

/* Say that the revocation of the allotment of quantum q is done, at at_ns
 * with `parked` workers parked: the page's parked part, then the eventfd.
 * 0, or -1 when the job has no eventfd or the write failed. */
int loadpage_parked(struct loadpage *lp, uint64_t q, uint64_t at_ns,
                    uint32_t parked);

/* Unmap and close. */
void loadpage_free(struct loadpage *lp);

#endif
