/*
 * fiber.c - fiber stacks, guard pages, and sanitizer-aware switching.
 */
#include "fiber.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

#if ASTEAL_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#if ASTEAL_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif

static _Atomic long live_fibers;

/* Fibers created and not destroyed. */
long fiber_live(void)
{
	return atomic_load_explicit(&live_fibers, memory_order_relaxed);
}

/* Lay out the initial frame that asteal__ctx_switch pops: the
 * callee-saved registers, the control words, and the trampoline as return
 * address (see ctx_*.S). */
static void prepare_stack(fiber *f)
{
	uintptr_t top = ((uintptr_t)(f->stack_lo + f->stack_size)) & ~(uintptr_t)15;
	uint64_t *sp;

#if defined(__x86_64__)
	/* [control words][r15 r14 r13 r12 rbx rbp][return address]: after the
	 * final ret, rsp = top - 16, 16-byte aligned before the trampoline's
	 * call as the ABI wants. */
	sp = (uint64_t *)(top - 80);
	memset(sp, 0, 80);
	sp[0] = 0x1F80 | ((uint64_t)0x037F << 32);    /* MXCSR, x87 CW */
	sp[7] = (uint64_t)(uintptr_t)asteal__ctx_trampoline;
#elif defined(__aarch64__)
	/* A 176-byte frame: x19..x28, x29 = 0, x30 = trampoline, d8..d15, FPCR. */
	sp = (uint64_t *)(top - 176);
	memset(sp, 0, 176);
	sp[11] = (uint64_t)(uintptr_t)asteal__ctx_trampoline;
#else
#error "libasteal supports x86-64 and aarch64"
#endif
	f->sp = sp;
}

/* Create a fiber that runs entry(arg) when first switched to. */
fiber *fiber_create(size_t stack_size, void (*entry)(void *), void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	fiber *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	stack_size = (stack_size + (size_t)page - 1) & ~((size_t)page - 1);
	f->map_size = stack_size + FIBER_GUARD_SIZE;
	/* Reserve, don't commit: MAP_NORESERVE, and pages appear on first
	 * touch, so a 64 MiB reservation costs only what the stack uses. */
	f->map = mmap(NULL, f->map_size, PROT_READ | PROT_WRITE,
	              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
	              -1, 0);
	if (f->map == MAP_FAILED) {
		free(f);
		return NULL;
	}
	if (mprotect(f->map, FIBER_GUARD_SIZE, PROT_NONE) < 0) {
		int e = errno;
		munmap(f->map, f->map_size);
		free(f);
		errno = e;
		return NULL;
	}
	f->stack_lo = f->map + FIBER_GUARD_SIZE;
	f->stack_size = stack_size;
#if ASTEAL_TSAN
	f->tsan = __tsan_create_fiber(0);
#endif
	fiber_reset(f, entry, arg);
	atomic_fetch_add_explicit(&live_fibers, 1, memory_order_relaxed);
	return f;
}

/* Make f start over at entry(arg) on its next switch. */
void fiber_reset(fiber *f, void (*entry)(void *), void *arg)
{
	f->entry = entry;
	f->entry_arg = arg;
	f->asan_fake = NULL;
	prepare_stack(f);
}

/* Free a fiber that is not running. */
void fiber_destroy(fiber *f)
{
	if (f == NULL || f->native)
		return;
#if ASTEAL_TSAN
	__tsan_destroy_fiber(f->tsan);
#endif
	munmap(f->map, f->map_size);
	free(f);
	atomic_fetch_sub_explicit(&live_fibers, 1, memory_order_relaxed);
}

/* Describe the calling thread's own stack as a fiber. */
void fiber_init_native(fiber *f)
{
	pthread_attr_t attr;
	void *lo = NULL;
	size_t size = 0;

	memset(f, 0, sizeof(*f));
	f->native = 1;
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		pthread_attr_getstack(&attr, &lo, &size);
		pthread_attr_destroy(&attr);
	}
	f->stack_lo = lo;
	f->stack_size = size;
#if ASTEAL_TSAN
	f->tsan = __tsan_get_current_fiber();
#endif
}

/* Save the running context in from and run to. */
void fiber_switch(fiber *from, fiber *to)
{
#if ASTEAL_ASAN
	__sanitizer_start_switch_fiber(&from->asan_fake, to->stack_lo,
	                               to->stack_size);
#endif
#if ASTEAL_TSAN
	__tsan_switch_to_fiber(to->tsan, 0);
#endif
	asteal__ctx_switch(&from->sp, to->sp, to);
#if ASTEAL_ASAN
	__sanitizer_finish_switch_fiber(from->asan_fake, NULL, NULL);
#endif
}

/* First code a fiber runs, called by the trampoline. */
void asteal__fiber_main(void *self)
{
	fiber *f = self;

#if ASTEAL_ASAN
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
	f->entry(f->entry_arg);
	ASTEAL_FATAL("a fiber's entry function returned");
}

/* Whether addr lies in f's guard region. */
int fiber_guard_hit(const fiber *f, const void *addr)
{
	const char *a = addr;

	return f != NULL && !f->native && a >= f->map && a < f->stack_lo;
}
