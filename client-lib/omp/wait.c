/*
 * wait.c - the scheduling points' loop: a thread that waits (at a barrier,
 * a taskwait, a taskgroup's end, for a work share or the team's end) runs
 * the team's tasks meanwhile, passes the safe point (a revoked slot goes
 * back), gives its slot to a thread waiting for one as soon as it has
 * nothing to do, and sleeps after a short spin (OMP_WAIT_POLICY: none for
 * passive, longer for active), as libasteal's idle workers do.
 *
 * Sleep and wake-up.  A team's sleepers wait on one futex word, the
 * team's epoch.  A sleeper reads the epoch, announces itself (sleepers,
 * seq_cst), fences, and checks its condition and the team's queued tasks
 * once more before sleeping; whoever makes work visible (a push onto an
 * empty deque) or changes a condition (a barrier's last arrival, the last
 * child of a task ending) fences and, seeing a sleeper, bumps the epoch
 * and wakes one (work) or all (conditions).  This is the store-buffering
 * pattern on both sides: either the sleeper's check sees the change or the
 * waker sees the sleeper.  A 10 ms backstop bounds anything missed (a
 * sleeper woken for work it may not take, under the task scheduling
 * constraints, while another could have).  A sleeping thread holds no
 * slot.
 */
#include "layer.h"

#include <limits.h>
#include <sched.h>

#include "qtime.h"
#include "worker.h"

#define SLEEP_BACKSTOP_NS 10000000

/* Wake the team's sleepers: one for new work, all for a changed condition. */
void omp_wake(struct omp_team *team, int all)
{
	FENCE_SC();
	if (atomic_load_explicit(&team->sleepers, memory_order_relaxed) > 0) {
		atomic_fetch_add_explicit(&team->epoch, 1, memory_order_release);
		futex_wake(&team->epoch, all ? INT_MAX : 1);
	}
}

/* Sleep until the team's epoch moves (or the backstop), unless done, or
 * (idle: not giving way to a thread that waits for a slot) work shows up
 * first; the slot is given back meanwhile and taken again. */
static void nap(struct omp_thr *t, bool (*done)(void *), void *arg, int mode,
                bool give)
{
	struct omp_team *team = t->team;
	struct timespec backstop = { 0, SLEEP_BACKSTOP_NS };
	uint32_t e = atomic_load_explicit(&team->epoch, memory_order_acquire);

	atomic_fetch_add_explicit(&team->sleepers, 1, memory_order_seq_cst);
	FENCE_SC();
	if (!done(arg) &&
	    (give || !((mode & 0xff) == OMP_WAIT_ANY && omp_task_visible(team)))) {
		if (t->slot != NULL)
			stat_add(&t->slot->st.sleeps, 1);
		omp_slot_nap_begin(t);
		if (!done(arg))
			syscall(SYS_futex, (uint32_t *)&team->epoch, FUTEX_WAIT_PRIVATE,
			        e, &backstop, NULL, 0);
		atomic_fetch_sub_explicit(&team->sleepers, 1, memory_order_seq_cst);
		omp_slot_nap_end(t, !((mode & OMP_WAIT_NOSLOT) && done(arg)));
		return;
	}
	atomic_fetch_sub_explicit(&team->sleepers, 1, memory_order_seq_cst);
}

/* How long an idle thread spins before it sleeps (OMP_WAIT_POLICY). */
static uint64_t spin_ns(void)
{
	if (omp_g.wait_policy == 0)
		return 0;
	return omp_g.wait_policy == 1 ? 100 * (uint64_t)OMP_SPIN_NS : OMP_SPIN_NS;
}

/* Wait until done(arg), running tasks and sleeping meanwhile (layer.h).
 * The wait is accounted as stealing (not usage) from its first clock
 * reading on, after 64 tries: a wait shorter than that (most barriers of
 * a busy team) costs no reading of the thread's CPU clock, a system call
 * on each side of the state change. */
void omp_wait(struct omp_thr *t, bool (*done)(void *), void *arg, int mode)
{
	uint64_t start = 0, limit = spin_ns();
	unsigned fails = 0;
	int kind = mode & 0xff;

	for (;;) {
		if (done(arg))
			break;
		omp_safepoint(t);
		if (kind != OMP_WAIT_NONE && omp_task_find_run(t, kind)) {
			fails = 0;
			start = 0;
			continue;
		}
		/* Someone needs a processor and we have nothing to do. */
		if (t->slot != NULL &&
		    atomic_load_explicit(&omp_slot_waiters, memory_order_relaxed) > 0) {
			omp_slot_state(t, WS_STEAL);
			nap(t, done, arg, mode, true);
			continue;
		}
		fails++;
		for (unsigned i = 0; i < (fails < 32 ? fails : 32); i++)
			cpu_relax();
		if ((fails & 63) == 0 || limit == 0) {
			uint64_t now = qtime_now_ns();
			omp_slot_state(t, WS_STEAL);
			if (start == 0)
				start = now;
			if (now - start >= limit) {
				nap(t, done, arg, mode, false);
				start = 0;
				fails = 0;
			}
		}
	}
	/* A caller that gives its slot up next (NOSLOT) closes the wait's
	 * accounting with that. */
	if (!(mode & OMP_WAIT_NOSLOT))
		omp_slot_state(t, WS_WORK);
}

/* Spin for up to the wait policy's time until *word moves from e or
 * cond holds; whether it did (then no sleep is needed). */
bool omp_spin_until(_Atomic uint32_t *word, uint32_t e, bool (*cond)(void *),
                    void *arg)
{
	uint64_t start = 0, limit = spin_ns();
	unsigned fails = 0;

	while (limit > 0) {
		if (atomic_load_explicit(word, memory_order_acquire) != e ||
		    (cond != NULL && cond(arg)))
			return true;
		fails++;
		for (unsigned i = 0; i < (fails < 32 ? fails : 32); i++)
			cpu_relax();
		if ((fails & 63) == 0) {
			uint64_t now = qtime_now_ns();
			if (start == 0)
				start = now;
			else if (now - start >= limit)
				break;
		}
	}
	return false;
}
