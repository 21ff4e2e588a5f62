/*
 * link.h - libasteal's connection to asteald (see link.c).  Plain C types
 * only (a Feedback is proto/message.h's, as the daemon's), so that the rest
 * of the library does not depend on the protocol's generated code (a build
 * with -DASTEAL_NO_DAEMON has no link at all).
 */
#ifndef ASTEAL_LINK_H
#define ASTEAL_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "message.h"            /* struct exchange_feedback */

#define LINK_MAX_CPUS 1024

struct page;

struct link;

/* What the daemon said in its Welcome: the quanta on the shared clock. */
struct link_quanta {
	uint64_t t0_ns;                /* quantum q is [t0 + q L, t0 + (q+1) L) */
	uint64_t length_ns;            /* L */
	uint64_t heartbeat_ns;         /* a Feedback at least this often */
};

/* What the daemon sent. */
struct link_msg {
	enum { LINK_ALLOT, LINK_ERROR, LINK_OTHER } kind;
	uint64_t quantum;              /* LINK_ALLOT: from this quantum on */
	int allotment, availability;
	int ncpus;
	int cpus[LINK_MAX_CPUS];
	uint64_t decided_ns;           /* when DEQ decided (CLOCK_MONOTONIC) */
	char text[160];                /* LINK_ERROR: the daemon's words */
};

/* Connect to the daemon at path and register as a job of `workers`
 * workers, claiming the id claim (0: none; see Hello.job_id in
 * proto/asteal.proto) with its usage totals under that id `had` (all 0
 * but when it claims its own id again: Hello.usage), asking to read
 * its allotments in the page when allot is set: the link, or NULL with
 * errno and a reason in why. */
struct link *link_connect(const char *path, int workers, uint64_t claim,
                          const struct usage_totals *had, char *why,
                          size_t whylen);

/* The page and the eventfd of a link whose allotments come through its
 * page (0), or -1 (none: they come as messages).  The caller owns them
 * from now on (it unmaps and closes them: workers may read the page
 * after the link is closed); the link goes on writing its Feedback
 * there. */
int link_take_page(struct link *l, struct page **pg, int *wake);

/* Close and free (NULL is fine). */
void link_close(struct link *l);

/* The fd to poll for input. */
int link_fd(const struct link *l);

/* The job id the daemon gave us. */
uint64_t link_job_id(const struct link *l);

/* The daemon's quanta (from its Welcome). */
void link_quanta(const struct link *l, struct link_quanta *q);

/* The next message: 1 with *m filled, 0 when nothing more now, -1 when the
 * daemon went away (why says how). */
int link_next(struct link *l, struct link_msg *m, char *why, size_t whylen);

/* Send a Feedback as a message without blocking; -1 when it cannot go
 * now. */
int link_feedback(struct link *l, const struct exchange_feedback *fb);

/* The page the link shares with the daemon, mapped when the Welcome
 * brought one (the job writes its Feedback there: page_feed_write), or
 * NULL. */
struct page;
struct page *link_page(const struct link *l);

/* Say that the workers the Allot of quantum q took away have parked, the
 * last at parked_ns; -1 when it cannot go now. */
int link_released(struct link *l, uint64_t quantum, uint64_t parked_ns);

#endif
