/*
 * page.h - the page a job shares with asteald (../shared/DESIGN.md, "One
 * quantum, through a shared page"): its layout and version, and the one
 * way to write and read each half of it.
 *
 * The daemon creates one page per job (a sealed memfd of PAGE_BYTES,
 * daemon/jobpage.c), writes its header, and passes it with the Welcome;
 * the job maps it (client-lib/link.c).  Each half has one writer.  The
 * job's half, the feed, holds what a Feedback holds (struct
 * exchange_feedback, proto/message.h: the quantum closed, the desire,
 * the usage totals, the class), written at every quantum boundary under a
 * sequence count with no system call; the daemon's tick copies it out
 * under the same count.  What the daemon reads is the job's to write: it
 * checks it as it checks a message (a torn read is retried a few times,
 * then skipped for that tick; every field is checked by the scheduler).
 *
 * The sequence count: the writer makes it odd, stores the fields, makes
 * it even again (release); the reader loads it (acquire), copies the
 * fields, and loads it again after an acquire fence: equal and even, the
 * copy is whole.  Every field is stored and loaded with relaxed atomic
 * operations, so that neither side has a data race in C11's sense.
 */
#ifndef ASTEAL_PAGE_H
#define ASTEAL_PAGE_H

#include <stdint.h>

#include "message.h"

#define PAGE_MAGIC 0x31656761706c7473ull  /* "stlpage1", little-endian */
#define PAGE_VERSION 1u
#define PAGE_BYTES 4096u

/* Torn reads tried before a reader gives up for now. */
#define PAGE_READ_TRIES 4

/* The job's half: written by its link thread only. */
struct page_feed {
	uint32_t seq;                  /* odd while being written */
	uint32_t desire;
	uint64_t quantum;              /* the quantum this desire closes */
	uint64_t desire_real;          /* a double's bits */
	int32_t cls;                   /* class index, -1 none */
	uint32_t pad;
	uint64_t use[USAGE_N];         /* usage totals since the Welcome */
};

/* The page: a header the daemon writes before passing it, then each
 * half on its own cache lines. */
struct page {
	uint64_t magic;                /* PAGE_MAGIC */
	uint32_t version;              /* PAGE_VERSION */
	uint32_t bytes;                /* PAGE_BYTES */
	uint8_t pad0[48];
	struct page_feed feed __attribute__((aligned(64)));
};

_Static_assert(sizeof(struct page) <= PAGE_BYTES, "the page fits its bytes");

/* Write the page's header (the daemon, before passing it). */
void page_init(struct page *pg);

/* Whether a mapped page's header is this layout's: 0, or -1 with the
 * reason in why (the job, before using it). */
int page_check(const struct page *pg, char *why, size_t whylen);

/* Write a Feedback into the job's half (the job's link thread). */
void page_feed_write(struct page *pg, const struct exchange_feedback *f);

/* Copy the job's half out into *f: its sequence count (even), or -1
 * when every one of PAGE_READ_TRIES reads was torn (the daemon).  The
 * contents are the job's: check them. */
int64_t page_feed_read(const struct page *pg, struct exchange_feedback *f);

#endif
