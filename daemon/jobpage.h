/*
 * jobpage.h - the page asteald shares with one job (proto/page.h): made
 * as a memfd the job can neither shrink nor grow (so that the daemon's
 * mapping never faults), mapped by the daemon, its descriptor passed
 * with the Welcome and closed then; unmapped when the job leaves.  A job
 * that reads its allotments in the page also gets an eventfd, which its
 * last leaving worker signals when a revocation is done.
 */
#ifndef ASTEAL_JOBPAGE_H
#define ASTEAL_JOBPAGE_H

#include <stddef.h>

#include "page.h"

struct jobpage;

/* A new page, its header written, with an eventfd when allot is set:
 * NULL with errno and the reason in why (memfd, sealing, mmap or eventfd
 * refused: the job then uses messages). */
struct jobpage *jobpage_create(int allot, char *why, size_t whylen);

/* The descriptors for the Welcome (the page, then the eventfd if any)
 * into fds[0..1], until jobpage_sent: their count, 0 after. */
int jobpage_fds(const struct jobpage *p, int fds[2]);

/* The descriptors were passed (or will not be): close the page's; the
 * daemon keeps its end of the eventfd. */
void jobpage_sent(struct jobpage *p);

/* The eventfd the job signals, or -1 (no allotments in the page). */
int jobpage_wake_fd(const struct jobpage *p);

/* The eventfd, now the caller's to close (jobpage_free will not), or -1:
 * for a caller whose event loop must see its events deleted first. */
int jobpage_take_wake(struct jobpage *p);

/* The mapping.  The job's parts are the job's to write: check what they
 * say; the daemon's parts may have been overwritten by the job: never
 * read them back. */
struct page *jobpage_page(const struct jobpage *p);

/* Whether the job reads its allotments in the page. */
int jobpage_allots(const struct jobpage *p);

/* Unmap, close and free (NULL is fine). */
void jobpage_free(struct jobpage *p);

#endif
