/*
 * fiber.h - user-level execution contexts for stalled and preempted work.
 *
 * A fiber is a stack and a saved register set.  Stacks are reserved with
 * mmap (pages are touched only when used) and have an inaccessible guard
 * region below them, so an overflow faults instead of corrupting memory.
 * Every switch is announced to AddressSanitizer and ThreadSanitizer through
 * their fiber interfaces.  The thread's own stack is a "native" fiber that
 * can be switched away from and back to.
 */
#ifndef ASTEAL_FIBER_H
#define ASTEAL_FIBER_H

#include <stddef.h>
#include <stdint.h>

#define FIBER_GUARD_SIZE (64 * 1024)

typedef struct fiber fiber;

struct fiber {
	void *sp;                  /* saved stack pointer while switched out */
	char *map;                 /* mmap'ed region: guard, then stack */
	size_t map_size;
	char *stack_lo;            /* usable stack [stack_lo, stack_lo + stack_size) */
	size_t stack_size;
	void (*entry)(void *);     /* run on the first switch; must not return */
	void *entry_arg;
	fiber *next;               /* free-list link (owned by the user) */
	void *user;                /* the runtime's per-fiber data (its deque) */
	void *saved[3];            /* the runtime's per-fiber words while switched out */
	void *asan_fake;           /* AddressSanitizer fake-stack handle */
	void *tsan;                /* ThreadSanitizer fiber handle */
	int native;                /* the thread's own stack */
};

/* Create a fiber with a stack of stack_size bytes (rounded up to pages)
 * that runs entry(arg) when first switched to; NULL with errno set. */
fiber *fiber_create(size_t stack_size, void (*entry)(void *), void *arg);

/* Make a created fiber start over at entry(arg) on its next switch (its
 * stack is reused; whatever it was doing is forgotten). */
void fiber_reset(fiber *f, void (*entry)(void *), void *arg);

/* Free a fiber that is not running. */
void fiber_destroy(fiber *f);

/* Describe the calling thread's own stack as a fiber, to switch away from
 * and back to. */
void fiber_init_native(fiber *f);

/* Save the running context in from and run to.  Returns when some thread
 * switches back to from. */
void fiber_switch(fiber *from, fiber *to);

/* Whether addr lies in f's guard region (a stack overflow). */
int fiber_guard_hit(const fiber *f, const void *addr);

/* Fibers created and not destroyed, process-wide. */
long fiber_live(void);

/* Called by the trampoline on a fiber's first run; never returns. */
void asteal__fiber_main(void *self) __attribute__((noreturn));

/* The context switch (ctx_*.S). */
void *asteal__ctx_switch(void **save_sp, void *new_sp, void *xfer);
void asteal__ctx_trampoline(void);

#endif
