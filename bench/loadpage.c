/*
 * loadpage.c - one asteal-loadgen job's page (see loadpage.h).
 *
 * The load generator's jobs have no workers: a job looks at its page's
 * generation once a turn of the load generator's loop (loadpage_moved,
 * the load a libasteal worker makes at each safe point), takes the
 * allotment when it moved (loadpage_take: copied out under the count, the
 * stop words of the job's slots with it), and when the allotment took
 * CPUs away its "workers" park at once: loadpage_parked writes the page's
 * parked part and signals the eventfd, as the last leaving worker does in
 * libasteal (quantum_page_released).  The generation grows by 2 with every
 * allotment the daemon writes, so a job that looked too late for one
 * knows how many it missed.
 */
#include "loadpage.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* No page yet. */
void loadpage_init(struct loadpage *lp)
{
	lp->pg = NULL;
	lp->wake = -1;
	lp->gen = 0;
}

/* Map the Welcome's page and keep its eventfd. */
int loadpage_map(struct loadpage *lp, int fds[2], int allot, char *why,
                 size_t whylen)
{
	void *m = fds[0] >= 0 ? mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE,
	                             MAP_SHARED, fds[0], 0) : MAP_FAILED;
	int e = errno, had = fds[0] >= 0;

	if (had)
		close(fds[0]);
	fds[0] = -1;
	if (m == MAP_FAILED) {
		snprintf(why, whylen, "mapping the page: %s",
		         had ? strerror(e) : "no page passed");
		goto fail;
	}
	if (page_check(m, why, whylen) < 0) {
		munmap(m, PAGE_BYTES);
		goto fail;
	}
	lp->pg = m;
	if (allot) {
		if (fds[1] < 0) {
			snprintf(why, whylen, "no eventfd after the page");
			goto fail;
		}
		lp->wake = fds[1];
		fds[1] = -1;
	}
	if (fds[1] >= 0)
		close(fds[1]);
	fds[1] = -1;
	return 0;
fail:
	if (fds[1] >= 0)
		close(fds[1]);
	fds[1] = -1;
	return -1;
}

/* Take the page's allotment and the job's stop words with it. */
int loadpage_take(struct loadpage *lp, int workers, struct loadpage_seen *out)
{
	int64_t gen;
	uint32_t stop[PAGE_SLOTS];

	if (lp->wake < 0)
		return 0;
	if (workers > PAGE_SLOTS)
		workers = PAGE_SLOTS;
	gen = page_allot_read(lp->pg, &out->a);
	if (gen < 0)
		return -1;
	if ((uint32_t)gen == lp->gen)
		return 0;
	/* The stop words are stored inside the count's odd window: loaded
	 * after the copy, then the count again after an acquire fence. */
	for (int i = 0; i < workers; i++)
		stop[i] = __atomic_load_n(&lp->pg->stop[i], __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&lp->pg->allot.seq, __ATOMIC_RELAXED) != (uint32_t)gen)
		return -1;
	out->gen = (uint32_t)gen;
	out->missed = ((uint32_t)gen - lp->gen) / 2 - 1;
	out->stops_bad = -1;
	for (int i = 0; i < workers && out->stops_bad < 0; i++)
		if (stop[i] != (uint32_t)(i >= out->a.allotment))
			out->stops_bad = i;
	lp->gen = (uint32_t)gen;
	return 1;
}

/* A revocation done: the parked part, then the eventfd. */
int loadpage_parked(struct loadpage *lp, uint64_t q, uint64_t at_ns,
                    uint32_t parked)
{
	uint64_t one = 1;

	if (lp->wake < 0)
		return -1;
	page_parked_write(lp->pg, q, at_ns, parked);
	/* A full counter fails: a signal is pending already. */
	if (write(lp->wake, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return -1;
	return 0;
}

/* Unmap and close. */
void loadpage_free(struct loadpage *lp)
{
	if (lp->pg != NULL)
		munmap(lp->pg, PAGE_BYTES);
	if (lp->wake >= 0)
		close(lp->wake);
	loadpage_init(lp);
}
