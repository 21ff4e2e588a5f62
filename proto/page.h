/*
 * page.h - the page a job shares with asteald (../shared/DESIGN.md, "One
 * quantum, through a shared page"): its layout and version, and the one
 * way to write and read each part of it.
 *
 * The daemon creates one page per job (a sealed memfd of PAGE_BYTES,
 * daemon/jobpage.c), writes its header, and passes it with the Welcome,
 * together with an eventfd the job signals (below); the job maps it
 * (client-lib/link.c).  Each part has one writer:
 *
 *   feed    the job's link thread: what a Feedback holds (struct
 *           exchange_feedback, proto/message.h: the quantum closed, the
 *           desire, the usage totals, the class), at every quantum
 *           boundary, with no system call; the daemon's tick copies it.
 *   parked  the job's worker that parks last in a revocation (under the
 *           job's park lock): the allotment's quantum whose revocation is
 *           done and when, and how many workers are parked; it then
 *           signals the eventfd, and the daemon's hand-over reads it.
 *   allot   the daemon, for a job whose Hello asked (page_allot): the
 *           allotment (its quantum, a_q, p_q, when decided, the CPUs of
 *           slots 0 .. a_q-1) under a count that is also the allotment's
 *           generation: it grows by 2 with every decision, and a worker
 *           compares it with the one it applied at every safe point.
 *   stop    the daemon: per worker slot, 1 while the slot is not allotted
 *           (the spawn fast path reads its own slot's word, asteal.h).
 *   bell    per worker slot, a futex word its parked worker waits on (and
 *           its sleeping one, beside the job's own word).  Its value
 *           means nothing, only its changes: the daemon rings the slots
 *           whose allotment changed, the job rings its own when it
 *           recalls a worker itself (no daemon); both with an atomic add.
 *   waiting the job, per worker slot: how many of its threads wait on
 *           the slot's bell now (each adds 1 before its futex wait and
 *           takes it back after), so that the daemon's ring makes no
 *           system call for a bell nobody waits on (page_ring).
 *   idle    the job (under its park lock), per worker slot: 1 while no
 *           thread of the job runs on the slot (a parked worker's; the
 *           OpenMP layer's free slots, and those whose holder is in
 *           serial code), else 0 (page_init's).  A revocation of idle slots only is
 *           done as the daemon writes it (page_idle_all, below): it needs
 *           the job to do nothing, for a slot whose job holds no thread
 *           there may never pass a safe point.
 *
 * What one side reads is the other's to write: the daemon checks the
 * job's parts as it checks a message (a torn read is retried a few
 * times, then skipped; every field is checked by the scheduler), and
 * keeps its own copy of what it wrote; the job clamps the allotment to
 * its workers.
 *
 * The sequence counts: the writer makes the count odd, stores the fields,
 * makes it even again (release); the reader loads it (acquire), copies
 * the fields, and loads it again after an acquire fence: equal and even,
 * the copy is whole.  Every field is stored and loaded with relaxed
 * atomic operations, so that neither side has a data race in C11's sense.
 */
#ifndef ASTEAL_PAGE_H
#define ASTEAL_PAGE_H

#include <stdint.h>

#include "message.h"

#define PAGE_MAGIC 0x31656761706c7473ull  /* "stlpage1", little-endian */
#define PAGE_VERSION 5u
#define PAGE_BYTES 20480u

/* Worker slots the page names (libasteal's most workers). */
#define PAGE_SLOTS 1024

/* Torn reads tried before a reader gives up for now. */
#define PAGE_READ_TRIES 4

/* The job's half: written by its link thread only.  word[n] holds the
 * Feedback's field number n (1 to 15), and word[PAGE_USAGE_WORD(n)] its
 * Usage's field number n (proto/message.h's lists, so that a new field
 * needs nothing here, and moves no other): an integer as it is, a
 * double's bits, the class as on the wire (index + 1, 0 for none); a
 * word no field uses stays 0, as proto3 leaves a field out. */
#define PAGE_FEED_WORDS 31
#define PAGE_USAGE_WORD(number) (15 + (number))
struct page_feed {
	uint32_t seq;                  /* odd while being written */
	uint32_t pad;
	uint64_t word[PAGE_FEED_WORDS];
};

_Static_assert(FEEDBACK_MAX_FIELD < PAGE_USAGE_WORD(1) &&
               PAGE_USAGE_WORD(USAGE_N) < PAGE_FEED_WORDS,
               "every Feedback field has its word in the page");

/* The job's revocations: written by its worker that parks last. */
struct page_parked {
	uint32_t seq;                  /* odd while being written */
	uint32_t parked;               /* workers parked now */
	uint64_t quantum;              /* the allotment whose revocation is done */
	uint64_t at_ns;                /* when its last worker parked */
};

/* The daemon's allotment: written by its loop only. */
struct page_allot {
	uint32_t seq;                  /* the generation; odd while written */
	uint32_t allotment;            /* a_q: slots 0 .. a_q-1 run */
	uint32_t availability;         /* p_q */
	uint32_t ncpus;                /* CPUs named below (a_q, or 0) */
	uint64_t quantum;              /* the quantum it applies to */
	uint64_t decided_ns;           /* when it was decided (shared clock) */
	uint16_t cpus[PAGE_SLOTS];     /* slot i's CPU */
};

/* What a reader copies out of the allotment. */
struct page_allotment {
	uint64_t quantum, decided_ns;
	int allotment, availability, ncpus;
	int cpus[PAGE_SLOTS];
};

/* The page: a header the daemon writes before passing it, then each
 * part on its own cache lines. */
struct page {
	uint64_t magic;                /* PAGE_MAGIC */
	uint32_t version;              /* PAGE_VERSION */
	uint32_t bytes;                /* PAGE_BYTES */
	uint8_t pad0[48];
	struct page_feed feed __attribute__((aligned(64)));
	struct page_parked parked __attribute__((aligned(64)));
	struct page_allot allot __attribute__((aligned(64)));
	uint32_t stop[PAGE_SLOTS] __attribute__((aligned(64)));
	uint32_t bell[PAGE_SLOTS] __attribute__((aligned(64)));
	uint16_t waiting[PAGE_SLOTS] __attribute__((aligned(64)));
	uint32_t idle[PAGE_SLOTS] __attribute__((aligned(64)));
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

/* Write the revocation of the allotment of quantum q done at at_ns, with
 * parked workers parked now (the job, under its park lock). */
void page_parked_write(struct page *pg, uint64_t q, uint64_t at_ns,
                       uint32_t parked);

/* Copy the revocation record out: its count (even), or -1 when every
 * read was torn (the daemon; the contents are the job's: check them). */
int64_t page_parked_read(const struct page *pg, struct page_parked *out);

/* Write an allotment as generation gen (even, above the last; the
 * daemon, which keeps its own count), the stop words of the slots between
 * before (the allotment it wrote last) and this one, and ring the bells
 * of those slots (a parked worker waits on its own; so does a sleeping
 * one, beside its job's sleepers' word): the futex wakes done. */
int page_allot_write(struct page *pg, uint32_t gen,
                     const struct page_allotment *a, int before);

/* The allotment's generation now (a worker's safe point: one load). */
static inline uint32_t page_gen(const struct page *pg)
{
	return __atomic_load_n(&pg->allot.seq, __ATOMIC_ACQUIRE);
}

/* Copy the allotment out into *a, clamped to PAGE_SLOTS: its generation
 * (even), or -1 when every read was torn (the job). */
int64_t page_allot_read(const struct page *pg, struct page_allotment *a);

/* Ring slot i's bell: an atomic add, then a futex wake of its waiter
 * when its waiting count says it has one: 1 when it made the wake, 0
 * when nobody waited. */
int page_ring(struct page *pg, int slot);

/* Wait on slot i's bell while it still holds seen (what the waiter read
 * before it last checked its conditions); returns at a ring, a signal,
 * or at once when it moved. */
void page_bell_wait(struct page *pg, int slot, uint32_t seen);

/* Wait on slot i's bell (holding seen) and on the job's own private
 * futex word own (a uint32_t, holding e) at once, for at most timeout_ns: 0 at a
 * ring, a change, a signal or the timeout, or -1 when the kernel has no
 * futex_waitv (Linux < 5.16; the caller waits on its own word alone). */
int page_bell_wait_with(struct page *pg, int slot, uint32_t seen,
                        const void *own, uint32_t e,
                        uint64_t timeout_ns);

/* Mark slot i idle or not (the job, under its park lock), with a full
 * fence after the store: a thread that takes a slot marks it busy, then
 * compares the generation; the daemon writes the generation, then reads
 * the idle words (page_idle_all): one of the two sees the other. */
void page_idle_write(struct page *pg, int slot, int idle);

/* Whether every slot of lo .. hi-1 is idle, read after a full fence (the
 * daemon, after writing a revocation of those slots). */
int page_idle_all(const struct page *pg, int lo, int hi);

/* Slot i's bell now (acquire), for page_bell_wait. */
static inline uint32_t page_bell(const struct page *pg, int slot)
{
	return __atomic_load_n(&pg->bell[slot], __ATOMIC_ACQUIRE);
}

#endif
