/*
 * jobpage.h - the page asteald shares with one job (proto/page.h): made
 * as a memfd the job can neither shrink nor grow (so that the daemon's
 * mapping never faults), mapped by the daemon, its descriptor passed
 * with the Welcome and closed then; unmapped when the job leaves.
 */
#ifndef ASTEAL_JOBPAGE_H
#define ASTEAL_JOBPAGE_H

#include <stddef.h>

#include "page.h"

struct jobpage;

/* A new page, its header written: NULL with errno and the reason in why
 * (memfd, sealing or mmap refused: the job then uses messages). */
struct jobpage *jobpage_create(char *why, size_t whylen);

/* Its descriptor, for the Welcome, until jobpage_sent; -1 after. */
int jobpage_fd(const struct jobpage *p);

/* The descriptor was passed (or will not be): close it. */
void jobpage_sent(struct jobpage *p);

/* The mapping (the job's half is the job's to write: check what it says). */
const struct page *jobpage_page(const struct jobpage *p);

/* Unmap and free (NULL is fine). */
void jobpage_free(struct jobpage *p);

#endif
