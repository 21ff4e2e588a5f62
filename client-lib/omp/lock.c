/*
 * lock.c - OpenMP locks, critical sections and the atomic fallback, on
 * futexes, inside the storage gcc's omp.h gives them.
 *
 * A simple lock is one 32-bit word (omp_lock_t is 4 bytes, 4-aligned):
 * 0 free, 1 held, 2 held with sleepers.  Taking it spins briefly, then
 * sleeps on the futex.  A thread that sleeps gives its processor slot up
 * first (omp_slot_block: no more threads run than the job is allotted,
 * and a blocked one must not keep a processor from the others) and takes
 * one back (omp_slot_unblock) once it holds the lock.  It takes the slot
 * back only after it has the lock rather than at every wake-up: a woken
 * thread that lost the race goes straight back to sleep, and asking for a
 * slot in between would only make slots change hands for nothing; the
 * contenders it makes wait meanwhile are asleep and slot-less, so a slot
 * is soon free for it.
 *
 * A nested lock (omp_nest_lock_t: 16 bytes, 8-aligned) is a simple lock
 * word, a depth and its owner: the task that set it (omp_self->task), or
 * the thread itself for a thread that runs no task.  libgomp's older
 * OpenMP 2.5 nested lock (8 bytes, owned by a thread, kept for binaries
 * linked against libgomp before 3.0: omp_set_nest_lock@OMP_1.0) holds the
 * owner's thread id, with a waiters bit, and the depth.  lock.h explains
 * the symbol versions.
 *
 * GOMP_critical_start/end (unnamed critical) and GOMP_atomic_start/end
 * (atomics gcc cannot inline) use one process-wide lock each; a named
 * critical section keeps its lock word in the first four bytes of the
 * pointer-sized, zero-initialised word gcc passes the address of.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <omp.h>

#include "layer.h"
#include "gomp.h"
#include "lock.h"

#define LOCK_SPIN 200                  /* relax rounds before sleeping */
#define NEST25_WAITERS 0x40000000      /* above any thread id (pid_max 2^22) */

typedef _Atomic uint32_t lockword;

/* The 3.0 nested lock as it lies in omp_nest_lock_t. */
struct nest_lock {
	lockword word;
	int count;
	_Atomic(void *) owner;
};

_Static_assert(sizeof(lockword) <= sizeof(omp_lock_t)
               && alignof(lockword) <= alignof(omp_lock_t),
               "the lock word must fit omp_lock_t");
_Static_assert(sizeof(struct nest_lock) <= sizeof(omp_nest_lock_t)
               && alignof(struct nest_lock) <= alignof(omp_nest_lock_t),
               "struct nest_lock must fit omp_nest_lock_t");
_Static_assert(sizeof(lockword) <= sizeof(void *) && alignof(lockword) <= alignof(void *),
               "a named critical's lock word must fit its pointer");

/* Each on a cache line of its own (a busy critical section's line moves
 * between the threads; nothing else should move with it). */
static alignas(CACHELINE) lockword critical_word;
static alignas(CACHELINE) lockword atomic_word;

/* Sleep while *w holds val. */
static void futex_wait(lockword *w, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

/* Wake up to n sleepers on *w. */
static void futex_wake(lockword *w, int n)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Take a free lock word; false when held. */
static inline bool word_trylock(lockword *w)
{
	uint32_t z = 0;

	return atomic_compare_exchange_strong_explicit(w, &z, 1, memory_order_acquire,
	                                               memory_order_relaxed);
}

/* The contended path: spin, then sleep without a slot until it is ours. */
static void word_lock_slow(lockword *w)
{
	struct omp_thr *t;

	for (int i = 0; i < LOCK_SPIN; i++) {
		cpu_relax();
		if (atomic_load_explicit(w, memory_order_relaxed) == 0 && word_trylock(w))
			return;
	}
	if (atomic_exchange_explicit(w, 2, memory_order_acquire) == 0)
		return;
	t = omp_self;
	if (t != NULL)
		omp_slot_block(t);
	do
		futex_wait(w, 2);
	while (atomic_exchange_explicit(w, 2, memory_order_acquire) != 0);
	if (t != NULL)
		omp_slot_unblock(t);
}

/* Take a lock word. */
static inline void word_lock(lockword *w)
{
	if (!word_trylock(w))
		word_lock_slow(w);
}

/* Release a lock word, waking one sleeper if there are any. */
static inline void word_unlock(lockword *w)
{
	if (atomic_exchange_explicit(w, 0, memory_order_release) == 2)
		futex_wake(w, 1);
}

/* The identity that owns a 3.0 nested lock: the running task, or the
 * thread when it runs none. */
static void *nest_self(void)
{
	struct omp_thr *t = omp_self;

	if (t == NULL)
		t = omp_thr_get();
	return t->task != NULL ? (void *)t->task : (void *)t;
}

/* ---- simple locks (the same for OpenMP 2.5 and 3.0) ---- */

/* omp_init_lock: a free lock. */
__attribute__((symver("omp_init_lock@@OMP_3.0"), symver("omp_init_lock@OMP_1.0")))
void omp_lock_init_30(omp_lock_t *lock)
{
	atomic_init((lockword *)lock, 0);
}

/* omp_init_lock_with_hint: the hint changes nothing here (and libgomp 12
 * does not export it: see libgomp.map). */
OMP_API void omp_init_lock_with_hint(omp_lock_t *lock, omp_sync_hint_t hint)
{
	(void)hint;
	omp_lock_init_30(lock);
}

/* omp_destroy_lock: nothing to release. */
__attribute__((symver("omp_destroy_lock@@OMP_3.0"), symver("omp_destroy_lock@OMP_1.0")))
void omp_lock_destroy_30(omp_lock_t *lock)
{
	(void)lock;
}

/* omp_set_lock: wait until the lock is ours. */
__attribute__((symver("omp_set_lock@@OMP_3.0"), symver("omp_set_lock@OMP_1.0")))
void omp_lock_set_30(omp_lock_t *lock)
{
	word_lock((lockword *)lock);
}

/* omp_unset_lock: release it. */
__attribute__((symver("omp_unset_lock@@OMP_3.0"), symver("omp_unset_lock@OMP_1.0")))
void omp_lock_unset_30(omp_lock_t *lock)
{
	word_unlock((lockword *)lock);
}

/* omp_test_lock: take it if free; 1 when taken. */
__attribute__((symver("omp_test_lock@@OMP_3.0"), symver("omp_test_lock@OMP_1.0")))
int omp_lock_test_30(omp_lock_t *lock)
{
	return word_trylock((lockword *)lock);
}

/* ---- OpenMP 3.0 nested locks: owned by a task ---- */

/* omp_init_nest_lock: free, depth 0. */
__attribute__((symver("omp_init_nest_lock@@OMP_3.0")))
void omp_nest_lock_init_30(omp_nest_lock_t *lock)
{
	struct nest_lock *l = (struct nest_lock *)lock;

	memset(lock, 0, sizeof *lock);
	atomic_init(&l->word, 0);
	atomic_init(&l->owner, NULL);
}

/* omp_init_nest_lock_with_hint: as omp_init_nest_lock (not exported). */
OMP_API void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock, omp_sync_hint_t hint)
{
	(void)hint;
	omp_nest_lock_init_30(lock);
}

/* omp_destroy_nest_lock: nothing to release. */
__attribute__((symver("omp_destroy_nest_lock@@OMP_3.0")))
void omp_nest_lock_destroy_30(omp_nest_lock_t *lock)
{
	(void)lock;
}

/* omp_set_nest_lock: one level deeper if ours, else wait for it. */
__attribute__((symver("omp_set_nest_lock@@OMP_3.0")))
void omp_nest_lock_set_30(omp_nest_lock_t *lock)
{
	struct nest_lock *l = (struct nest_lock *)lock;
	void *me = nest_self();

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != me) {
		word_lock(&l->word);
		atomic_store_explicit(&l->owner, me, memory_order_relaxed);
	}
	l->count++;
}

/* omp_unset_nest_lock: one level out; release at depth 0. */
__attribute__((symver("omp_unset_nest_lock@@OMP_3.0")))
void omp_nest_lock_unset_30(omp_nest_lock_t *lock)
{
	struct nest_lock *l = (struct nest_lock *)lock;

	if (--l->count == 0) {
		atomic_store_explicit(&l->owner, NULL, memory_order_relaxed);
		word_unlock(&l->word);
	}
}

/* omp_test_nest_lock: the new depth when it is (now) ours, else 0. */
__attribute__((symver("omp_test_nest_lock@@OMP_3.0")))
int omp_nest_lock_test_30(omp_nest_lock_t *lock)
{
	struct nest_lock *l = (struct nest_lock *)lock;
	void *me = nest_self();

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) == me)
		return ++l->count;
	if (!word_trylock(&l->word))
		return 0;
	atomic_store_explicit(&l->owner, me, memory_order_relaxed);
	l->count = 1;
	return 1;
}

/* ---- OpenMP 2.5 nested locks: owned by a thread ---- */

static __thread int tid_cache __attribute__((tls_model("initial-exec")));
static pthread_once_t tid_once = PTHREAD_ONCE_INIT;

/* After fork the child's one thread has a new id. */
static void tid_forget(void)
{
	tid_cache = 0;
}

/* Register tid_forget with fork. */
static void tid_register(void)
{
	pthread_atfork(NULL, NULL, tid_forget);
}

/* The calling thread's kernel id (never 0). */
static int my_tid(void)
{
	if (tid_cache == 0) {
		pthread_once(&tid_once, tid_register);
		tid_cache = (int)gettid();
	}
	return tid_cache;
}

/* The owner word of a 2.5 nested lock, as a futex. */
static lockword *owner_word(omp_nest_lock_25_t *lock)
{
	return (lockword *)&lock->owner;
}

/* omp_init_nest_lock@OMP_1.0. */
__attribute__((symver("omp_init_nest_lock@OMP_1.0")))
void omp_nest_lock_init_25(omp_nest_lock_25_t *lock)
{
	atomic_init(owner_word(lock), 0);
	lock->count = 0;
}

/* omp_destroy_nest_lock@OMP_1.0: nothing to release. */
__attribute__((symver("omp_destroy_nest_lock@OMP_1.0")))
void omp_nest_lock_destroy_25(omp_nest_lock_25_t *lock)
{
	(void)lock;
}

/* omp_set_nest_lock@OMP_1.0: deeper if this thread's, else wait. */
__attribute__((symver("omp_set_nest_lock@OMP_1.0")))
void omp_nest_lock_set_25(omp_nest_lock_25_t *lock)
{
	lockword *w = owner_word(lock);
	uint32_t me = (uint32_t)my_tid(), v, mark = 0;
	struct omp_thr *t = NULL;
	int spins = 0;

	for (;;) {
		v = atomic_load_explicit(w, memory_order_relaxed);
		if (v == 0) {
			/* A thread that slept keeps the waiters bit: others may
			 * still sleep. */
			if (atomic_compare_exchange_weak_explicit(w, &v, me | mark,
			                                          memory_order_acquire,
			                                          memory_order_relaxed))
				break;
			continue;
		}
		if ((v & ~NEST25_WAITERS) == me) {
			lock->count++;
			return;
		}
		if (spins < LOCK_SPIN) {
			spins++;
			cpu_relax();
			continue;
		}
		if (!(v & NEST25_WAITERS)
		    && !atomic_compare_exchange_weak_explicit(w, &v, v | NEST25_WAITERS,
		                                              memory_order_relaxed,
		                                              memory_order_relaxed))
			continue;
		if (t == NULL && (t = omp_self) != NULL)
			omp_slot_block(t);
		futex_wait(w, v | NEST25_WAITERS);
		mark = NEST25_WAITERS;
	}
	lock->count = 1;
	if (t != NULL)
		omp_slot_unblock(t);
}

/* omp_unset_nest_lock@OMP_1.0: one level out; release at depth 0. */
__attribute__((symver("omp_unset_nest_lock@OMP_1.0")))
void omp_nest_lock_unset_25(omp_nest_lock_25_t *lock)
{
	lockword *w = owner_word(lock);

	if (--lock->count == 0
	    && (atomic_exchange_explicit(w, 0, memory_order_release) & NEST25_WAITERS))
		futex_wake(w, 1);
}

/* omp_test_nest_lock@OMP_1.0: the new depth, or 0 when another thread's. */
__attribute__((symver("omp_test_nest_lock@OMP_1.0")))
int omp_nest_lock_test_25(omp_nest_lock_25_t *lock)
{
	lockword *w = owner_word(lock);
	uint32_t me = (uint32_t)my_tid(), v = 0;

	if (atomic_compare_exchange_strong_explicit(w, &v, me, memory_order_acquire,
	                                            memory_order_relaxed)) {
		lock->count = 1;
		return 1;
	}
	if ((v & ~NEST25_WAITERS) == me)
		return ++lock->count;
	return 0;
}

/* ---- critical sections and atomics ---- */

/* GOMP_critical_start: enter the unnamed critical section. */
OMP_API void GOMP_critical_start(void)
{
	word_lock(&critical_word);
}

/* GOMP_critical_end: leave it. */
OMP_API void GOMP_critical_end(void)
{
	word_unlock(&critical_word);
}

/* GOMP_critical_name_start: enter a named critical section, whose lock
 * word is the start of the zeroed pointer gcc gives each name. */
OMP_API void GOMP_critical_name_start(void **pptr)
{
	word_lock((lockword *)pptr);
}

/* GOMP_critical_name_end: leave it. */
OMP_API void GOMP_critical_name_end(void **pptr)
{
	word_unlock((lockword *)pptr);
}

/* GOMP_atomic_start: enter the section gcc wraps atomics it cannot do
 * in hardware in. */
OMP_API void GOMP_atomic_start(void)
{
	word_lock(&atomic_word);
}

/* GOMP_atomic_end: leave it. */
OMP_API void GOMP_atomic_end(void)
{
	word_unlock(&atomic_word);
}
