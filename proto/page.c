/*
 * page.c - the page a job shares with asteald (see page.h): its header,
 * and the job's half written and read under its sequence count.
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

#include <stdio.h>
#include <string.h>

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
#else
#define FIELD_LOAD(p) LOAD(p)
#define FIELD_STORE(p, v) STORE(p, v)
#define FENCE_RELEASE() __atomic_thread_fence(__ATOMIC_RELEASE)
#define FENCE_ACQUIRE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

/* Write the header. */
void page_init(struct page *pg)
{
	memset(pg, 0, sizeof(*pg));
	pg->magic = PAGE_MAGIC;
	pg->version = PAGE_VERSION;
	pg->bytes = PAGE_BYTES;
	pg->feed.cls = -1;
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

/* Write a Feedback into the job's half. */
void page_feed_write(struct page *pg, const struct exchange_feedback *f)
{
	struct page_feed *pf = &pg->feed;
	uint32_t s = LOAD(&pf->seq);
	uint64_t bits;

	STORE(&pf->seq, s + 1);
	FENCE_RELEASE();
	memcpy(&bits, &f->desire_real, sizeof(bits));
	FIELD_STORE(&pf->desire, f->desire);
	FIELD_STORE(&pf->quantum, f->quantum);
	FIELD_STORE(&pf->desire_real, bits);
	FIELD_STORE(&pf->cls, (int32_t)f->cls);
	for (int k = 0; k < USAGE_N; k++)
		FIELD_STORE(&pf->use[k], f->use.ns[k]);
	__atomic_store_n(&pf->seq, s + 2, __ATOMIC_RELEASE);
}

/* Copy the job's half out. */
int64_t page_feed_read(const struct page *pg, struct exchange_feedback *f)
{
	const struct page_feed *pf = &pg->feed;

	for (int t = 0; t < PAGE_READ_TRIES; t++) {
		uint32_t s = __atomic_load_n(&pf->seq, __ATOMIC_ACQUIRE);
		uint64_t bits;

		if (s & 1)
			continue;
		f->desire = FIELD_LOAD(&pf->desire);
		f->quantum = FIELD_LOAD(&pf->quantum);
		bits = FIELD_LOAD(&pf->desire_real);
		f->cls = FIELD_LOAD(&pf->cls);
		for (int k = 0; k < USAGE_N; k++)
			f->use.ns[k] = FIELD_LOAD(&pf->use[k]);
		FENCE_ACQUIRE();
		if (LOAD(&pf->seq) != s)
			continue;
		memcpy(&f->desire_real, &bits, sizeof(bits));
		return s;
	}
	return -1;
}
