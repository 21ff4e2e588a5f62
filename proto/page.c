/*
 * page.c - the page a job shares with asteald (see page.h): its header,
 * each part written and read under its sequence count, and the bells.
 *
 * Memory orders.  Writer: the count goes odd (relaxed store), then a
 * release fence orders that store before the fields' stores, so that a
 * reader which sees any new field also sees an odd or newer count; the
 * fields are stored relaxed; the count goes even with a release store,
 * which orders every field before it.  Reader: an acquire load of the
 * count (fields loaded after it see at least what the writer stored
 * before making it even), relaxed loads of the fields, then an acquire
 * fence and a relaxed load of the count again: the fence orders the
 * field loads before that second load, so an unchanged even count means
 * no writer's store overlapped the copy.  (The Linux kernel's seqcount
 * and Boehm's "Can seqlocks get along with programming language memory
 * models?" argue the same pattern.)
 */
#include "page.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* The fields' loads and stores, and the fences around them.
 * ThreadSanitizer does not model fences (gcc refuses them under
 * -fsanitize=thread): there each field's store is a release and each
 * load an acquire instead, which orders the same accesses (a release
 * store comes after the odd count, an acquire load before the second
 * look at it) and is at least as strong. */
#if defined(__SANITIZE_THREAD__)
#define FIELD_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define FIELD_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define FENCE_RELEASE() ((void)0)
#define FENCE_ACQUIRE() ((void)0)
#define FENCE_FULL() ((void)0)    /* the idle words: across processes */
#else
#define FIELD_LOAD(p) LOAD(p)
#define FIELD_STORE(p, v) STORE(p, v)
#define FENCE_RELEASE() __atomic_thread_fence(__ATOMIC_RELEASE)
#define FENCE_ACQUIRE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define FENCE_FULL() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

/* Write the header. */
void page_init(struct page *pg)
{
	memset(pg, 0, sizeof(*pg));
	pg->magic = PAGE_MAGIC;
	pg->version = PAGE_VERSION;
	pg->bytes = PAGE_BYTES;
	for (int i = 0; i < PAGE_SLOTS; i++)
		pg->stop[i] = 1;        /* nothing allotted yet */
}

/* Whether the header is this layout's. */
int page_check(const struct page *pg, char *why, size_t whylen)
{
	if (LOAD(&pg->magic) != PAGE_MAGIC) {
		snprintf(why, whylen, "the page is not an asteal page");
		return -1;
	}
	if (LOAD(&pg->version) != PAGE_VERSION || LOAD(&pg->bytes) != PAGE_BYTES) {
		snprintf(why, whylen, "the page's layout is version %u of %u bytes, "
		         "not version %u of %u", LOAD(&pg->version), LOAD(&pg->bytes),
		         PAGE_VERSION, PAGE_BYTES);
		return -1;
	}
	return 0;
}

/* A double member as a word of the page: its bits. */
static uint64_t word_of_double(double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	return bits;
}

/* A word of the page as a double member. */
static double double_of_word(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* A Feedback member as a word of the page, and back: a double's bits, an
 * integer as it is (narrowed on assignment, as protobuf-c narrows a
 * varint). */
#define TO_WORD(x) _Generic((x), double: word_of_double(x), default: (uint64_t)(x))
#define OF_WORD(x, w) _Generic((x), double: double_of_word(w), default: (w))

/* Write a Feedback into the job's half, field by field (message.h). */
void page_feed_write(struct page *pg, const struct exchange_feedback *f)
{
	struct page_feed *pf = &pg->feed;
	uint32_t s = LOAD(&pf->seq);
	uint64_t cls = (uint64_t)((int64_t)f->cls + 1);   /* as on the wire */

	STORE(&pf->seq, s + 1);
	FENCE_RELEASE();
#define PUT_SCALAR_(number, member, type, wire) \
	FIELD_STORE(&pf->word[number], TO_WORD(f->member));
#define PUT_USAGE_(kind, member, number) \
	FIELD_STORE(&pf->word[PAGE_USAGE_WORD(number)], f->use.ns[USAGE_##kind]);
	FEEDBACK_SCALARS(PUT_SCALAR_)
	USAGE_KINDS(PUT_USAGE_)
	FIELD_STORE(&pf->word[FEEDBACK_CLASS_FIELD], cls);
	__atomic_store_n(&pf->seq, s + 2, __ATOMIC_RELEASE);
}

/* Copy the job's half out. */
int64_t page_feed_read(const struct page *pg, struct exchange_feedback *f)
{
	const struct page_feed *pf = &pg->feed;

	for (int t = 0; t < PAGE_READ_TRIES; t++) {
		uint32_t s = __atomic_load_n(&pf->seq, __ATOMIC_ACQUIRE);
		uint64_t cls;

		if (s & 1)
			continue;
#define GET_SCALAR_(number, member, type, wire) \
		f->member = (type)OF_WORD(f->member, FIELD_LOAD(&pf->word[number]));
#define GET_USAGE_(kind, member, number) \
		f->use.ns[USAGE_##kind] = FIELD_LOAD(&pf->word[PAGE_USAGE_WORD(number)]);
		FEEDBACK_SCALARS(GET_SCALAR_)
		USAGE_KINDS(GET_USAGE_)
		cls = FIELD_LOAD(&pf->word[FEEDBACK_CLASS_FIELD]);
		FENCE_ACQUIRE();
		if (LOAD(&pf->seq) != s)
			continue;
		/* Beyond the classes: an index the daemon refuses. */
		f->cls = cls <= (uint64_t)INT_MAX ? (int)cls - 1 : INT_MAX;
		return s;
	}
	return -1;
}

/* Write the revocation record. */
void page_parked_write(struct page *pg, uint64_t q, uint64_t at_ns,
                       uint32_t parked)
{
	struct page_parked *pp = &pg->parked;
	uint32_t s = LOAD(&pp->seq);

	STORE(&pp->seq, s + 1);
	FENCE_RELEASE();
	FIELD_STORE(&pp->parked, parked);
	FIELD_STORE(&pp->quantum, q);
	FIELD_STORE(&pp->at_ns, at_ns);
	__atomic_store_n(&pp->seq, s + 2, __ATOMIC_RELEASE);
}

/* Copy the revocation record out. */
int64_t page_parked_read(const struct page *pg, struct page_parked *out)
{
	const struct page_parked *pp = &pg->parked;

	for (int t = 0; t < PAGE_READ_TRIES; t++) {
		uint32_t s = __atomic_load_n(&pp->seq, __ATOMIC_ACQUIRE);

		if (s & 1)
			continue;
		out->parked = FIELD_LOAD(&pp->parked);
		out->quantum = FIELD_LOAD(&pp->quantum);
		out->at_ns = FIELD_LOAD(&pp->at_ns);
		FENCE_ACQUIRE();
		if (LOAD(&pp->seq) != s)
			continue;
		out->seq = s;
		return s;
	}
	return -1;
}

/* Write an allotment, its stop words, and ring the slots it adds.  The
 * stop words change inside the count's odd window, so that a worker that
 * sees its stop word set and then the generation (acquire) finds it moved
 * or odd: either way it looks again. */
int page_allot_write(struct page *pg, uint32_t gen,
                     const struct page_allotment *a, int before)
{
	struct page_allot *pa = &pg->allot;
	int n = a->allotment < 0 ? 0 : a->allotment > PAGE_SLOTS ? PAGE_SLOTS
	        : a->allotment;
	int nc = a->ncpus < 0 ? 0 : a->ncpus > PAGE_SLOTS ? PAGE_SLOTS : a->ncpus;
	int lo, hi, wakes = 0;

	if (before < 0)
		before = 0;
	if (before > PAGE_SLOTS)
		before = PAGE_SLOTS;
	STORE(&pa->seq, gen - 1);
	FENCE_RELEASE();
	FIELD_STORE(&pa->allotment, (uint32_t)n);
	FIELD_STORE(&pa->availability, (uint32_t)a->availability);
	FIELD_STORE(&pa->ncpus, (uint32_t)nc);
	FIELD_STORE(&pa->quantum, a->quantum);
	FIELD_STORE(&pa->decided_ns, a->decided_ns);
	for (int i = 0; i < nc; i++)
		FIELD_STORE(&pa->cpus[i], (uint16_t)a->cpus[i]);
	lo = n < before ? n : before;
	hi = n < before ? before : n;
	for (int i = lo; i < hi; i++)
		FIELD_STORE(&pg->stop[i], (uint32_t)(i >= n));
	__atomic_store_n(&pa->seq, gen, __ATOMIC_RELEASE);
	/* Both ways: a slot added wakes its parked worker, a slot taken its
	 * sleeping one (which then sees the generation and leaves). */
	for (int i = lo; i < hi; i++)
		wakes += page_ring(pg, i);
	return wakes;
}

/* Copy the allotment out. */
int64_t page_allot_read(const struct page *pg, struct page_allotment *a)
{
	const struct page_allot *pa = &pg->allot;

	for (int t = 0; t < PAGE_READ_TRIES; t++) {
		uint32_t s = __atomic_load_n(&pa->seq, __ATOMIC_ACQUIRE);
		uint32_t n, nc;

		if (s & 1)
			continue;
		n = FIELD_LOAD(&pa->allotment);
		nc = FIELD_LOAD(&pa->ncpus);
		a->allotment = n > PAGE_SLOTS ? PAGE_SLOTS : (int)n;
		a->availability = (int)(FIELD_LOAD(&pa->availability) & 0x7fffffff);
		a->ncpus = nc > PAGE_SLOTS ? PAGE_SLOTS : (int)nc;
		a->quantum = FIELD_LOAD(&pa->quantum);
		a->decided_ns = FIELD_LOAD(&pa->decided_ns);
		for (int i = 0; i < a->ncpus; i++)
			a->cpus[i] = FIELD_LOAD(&pa->cpus[i]);
		FENCE_ACQUIRE();
		if (LOAD(&pa->seq) != s)
			continue;
		return s;
	}
	return -1;
}

/* Ring a bell.  Not private: the page is shared between processes.
 *
 * The wake is skipped when the slot's waiting count is 0.  The waiter
 * adds to the count (a sequentially consistent read-modify-write, a full
 * barrier), then its futex wait compares the bell; the ringer adds to the
 * bell (also a full barrier), then loads the count.  In the single order
 * of those operations either the ringer's load comes after the waiter's
 * add (it sees a waiter and wakes it), or the waiter's add, and with it
 * the kernel's comparison, comes after the ringer's add to the bell (the
 * bell has moved: the wait returns at once).  No waiter sleeps through a
 * ring.  A job that lies in its counts only makes the daemon wake in vain
 * or its own threads sleep to their timeout. */
int page_ring(struct page *pg, int slot)
{
	if (slot < 0 || slot >= PAGE_SLOTS)
		return 0;
	__atomic_fetch_add(&pg->bell[slot], 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&pg->waiting[slot], __ATOMIC_SEQ_CST) == 0)
		return 0;
	(void)syscall(SYS_futex, &pg->bell[slot], FUTEX_WAKE, 1, NULL, NULL, 0);
	return 1;
}

/* Count a waiter on a bell in (by +1) or out (by -1). */
static void waiting_add(struct page *pg, int slot, int by)
{
	if (by > 0)
		__atomic_fetch_add(&pg->waiting[slot], 1, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_sub(&pg->waiting[slot], 1, __ATOMIC_SEQ_CST);
}

/* Wait on a bell and the job's own word. */
int page_bell_wait_with(struct page *pg, int slot, uint32_t seen,
                        const void *own, uint32_t e,
                        uint64_t timeout_ns)
{
	static _Atomic int missing;
	struct futex_waitv v[2];
	struct timespec until;

	if (slot < 0 || slot >= PAGE_SLOTS ||
	    atomic_load_explicit(&missing, memory_order_relaxed))
		return -1;
	memset(v, 0, sizeof(v));
	v[0].val = e;
	v[0].uaddr = (uintptr_t)own;
	v[0].flags = FUTEX_32 | FUTEX_PRIVATE_FLAG;
	v[1].val = seen;
	v[1].uaddr = (uintptr_t)&pg->bell[slot];
	v[1].flags = FUTEX_32;          /* shared with the daemon */
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(timeout_ns / 1000000000u);
	until.tv_nsec += (long)(timeout_ns % 1000000000u);
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	waiting_add(pg, slot, 1);
	if (syscall(SYS_futex_waitv, v, 2, 0, &until, CLOCK_MONOTONIC) < 0 &&
	    errno == ENOSYS) {
		waiting_add(pg, slot, -1);
		atomic_store_explicit(&missing, 1, memory_order_relaxed);
		return -1;
	}
	waiting_add(pg, slot, -1);
	return 0;
}

/* Mark a slot idle or busy. */
void page_idle_write(struct page *pg, int slot, int idle)
{
	if (slot < 0 || slot >= PAGE_SLOTS)
		return;
	__atomic_store_n(&pg->idle[slot], (uint32_t)(idle != 0), __ATOMIC_SEQ_CST);
	FENCE_FULL();
}

/* Whether the slots are all idle. */
int page_idle_all(const struct page *pg, int lo, int hi)
{
	if (lo < 0)
		lo = 0;
	if (hi > PAGE_SLOTS)
		hi = PAGE_SLOTS;
	FENCE_FULL();
	for (int i = lo; i < hi; i++)
		if (__atomic_load_n(&pg->idle[i], __ATOMIC_SEQ_CST) != 1)
			return 0;
	return lo < hi;
}

/* Wait on a bell. */
void page_bell_wait(struct page *pg, int slot, uint32_t seen)
{
	if (slot < 0 || slot >= PAGE_SLOTS)
		return;
	waiting_add(pg, slot, 1);
	(void)syscall(SYS_futex, &pg->bell[slot], FUTEX_WAIT, seen, NULL, NULL, 0);
	waiting_add(pg, slot, -1);
}
