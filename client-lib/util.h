/*
 * util.h - small helpers shared by libasteal's modules: assertion and
 * fatal-error macros that name file and line, branch hints, sanitizer
 * detection, and a CPU relax hint for spin loops.  (The clock is
 * proto/qtime.h's.)
 */
#ifndef ASTEAL_UTIL_H
#define ASTEAL_UTIL_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define CACHELINE 64
#define ALIGNED_CL __attribute__((aligned(CACHELINE)))

/* A broken invariant of the runtime itself or of the calling program that
 * leaves memory in an unknown state: say where, and abort. */
#define ASTEAL_FATAL(...)                                                  \
	do {                                                               \
		fprintf(stderr, "asteal: fatal (%s:%d): ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                              \
		fputc('\n', stderr);                                       \
		abort();                                                   \
	} while (0)

#define ASTEAL_ASSERT(cond)                                                \
	do {                                                               \
		if (unlikely(!(cond)))                                     \
			ASTEAL_FATAL("assertion failed: %s", #cond);       \
	} while (0)

#if defined(__SANITIZE_ADDRESS__)
#define ASTEAL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASTEAL_ASAN 1
#endif
#endif
#ifndef ASTEAL_ASAN
#define ASTEAL_ASAN 0
#endif

#if defined(__SANITIZE_THREAD__)
#define ASTEAL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ASTEAL_TSAN 1
#endif
#endif
#ifndef ASTEAL_TSAN
#define ASTEAL_TSAN 0
#endif

/* A sequentially consistent fence.  ThreadSanitizer does not model fences
 * (and gcc rejects them under -fsanitize=thread), so there every fence is
 * an RMW on one shared word instead: all fenced code paths then meet on that
 * word in a total order, which is at least as strong, and TSan sees the
 * synchronisation. */
#if ASTEAL_TSAN
extern _Atomic uint64_t asteal__fence_word;
#define FENCE_SC() \
	((void)atomic_fetch_add_explicit(&asteal__fence_word, 0, memory_order_seq_cst))
#else
#define FENCE_SC() atomic_thread_fence(memory_order_seq_cst)
#endif

/* Cache-line aligned, zeroed memory (C11 aligned_alloc wants the size a
 * multiple of the alignment); free it with free().  NULL when out of memory. */
static inline void *alloc_cl(size_t size)
{
	size_t rounded = (size + CACHELINE - 1) & ~(size_t)(CACHELINE - 1);
	void *p = aligned_alloc(CACHELINE, rounded);

	if (p != NULL)
		__builtin_memset(p, 0, rounded);
	return p;
}

/* Tell the CPU we are spinning. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* xorshift64*: a fast per-worker generator for victim selection. */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

#endif
