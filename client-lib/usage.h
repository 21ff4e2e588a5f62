/*
 * usage.h - a worker's time accounting: the wall time and the CPU time of
 * its thread in each state (work, steal, sleep, mug, park, leave), taken
 * only when the state changes (../shared/DESIGN.md, "A-STEAL, exactly").
 *
 * Allotted time is wall time: from the moment the allotment includes a
 * worker (its thread created, or the Allot that woke it) until it is told
 * to leave.  Usage is CPU time: what the thread actually ran while working
 * or mugging.  So an allotted worker whose thread waits for a processor
 * (preempted by another process, or not yet started) adds allotted time
 * and no usage, and the estimator sees it.
 *
 * The worker is the only writer of its state and counters (a sequence
 * lock lets any thread read them consistently and add the interval in
 * progress).  The link thread marks when the worker was told to leave and
 * when it was recalled (the leave window, under the runtime's park_lock);
 * the worker cannot know those instants itself, so both the worker, when
 * it closes an interval, and a reader, for the interval in progress, split
 * the interval at the window's edges in the same way:
 *   - in any state but park, the part inside the window is WS_LEAVE (no
 *     longer allotted: revocation latency), the rest the state itself;
 *   - parked, the part after a recall is WS_STEAL (allotted, waking up),
 *     the rest parked.
 * The window's CPU clock readings at its edges (the link reads the
 * worker thread's CPU clock) split the CPU time the same way.  A worker
 * told to leave, recalled and told again within one of its intervals (one
 * its thread did not run in, typically) has had the first window counted
 * by readers already; opening the second folds the first into a carry,
 * the part of the interval already classified, so that the split of the
 * past never changes and no counter goes back.  For the same reason a
 * worker that changes state ends its interval no earlier than the latest
 * time a reader read it up to (read_until): its thread may be preempted
 * between reading the clock and writing.
 */
#ifndef ASTEAL_USAGE_H
#define ASTEAL_USAGE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "message.h"            /* struct usage_totals, the wire's */

/* What a worker is doing.  WS_SLEEP: allotted, asleep for lack of work;
 * WS_PARK: not allotted; WS_LEAVE: told to leave, still running to its
 * next safe point (neither allotted nor parked). */
enum wstate { WS_WORK, WS_STEAL, WS_SLEEP, WS_MUG, WS_PARK, WS_LEAVE, WS_COUNT };

/* Time per state, wall and CPU (ns); counters only grow. */
struct usage_times {
	uint64_t wall[WS_COUNT];
	uint64_t cpu[WS_COUNT];
};

/* Time split as A-STEAL and the reports use it (ns).  allotted = work +
 * steal + mug + sleep + preempted exactly. */
struct usage_sum {
	uint64_t work, steal, mug;   /* CPU time in each */
	uint64_t sleep;              /* wall time asleep, allotted */
	uint64_t preempted;          /* allotted wall time not run */
	uint64_t allotted;           /* wall time allotted */
	uint64_t park, leave;        /* wall time not allotted */
};

/* One worker's accounting. */
struct usage {
	_Atomic uint32_t seq;        /* odd while the worker changes the rest */
	_Atomic int state;           /* enum wstate */
	_Atomic uint64_t since;      /* wall clock when state was entered */
	_Atomic uint64_t since_cpu;  /* the thread's CPU clock then */
	_Atomic uint64_t wall[WS_COUNT];
	_Atomic uint64_t cpu[WS_COUNT];
	/* The leave window (0: none; back 0 while open), with the thread's
	 * CPU clock at its edges; wseq is odd while the link changes it. */
	_Atomic uint32_t wseq;
	_Atomic uint64_t leave, leave_cpu, back, back_cpu;
	/* The carry: of the interval that began at carry_tag (the worker's
	 * since when the window was last opened), [carry_tag, carry_cut] is
	 * classified already, carry_in_wall of it (carry_in_cpu CPU) inside
	 * earlier windows; the window above applies from carry_cut on. */
	_Atomic uint64_t carry_tag, carry_cut, carry_cut_cpu;
	_Atomic uint64_t carry_in_wall, carry_in_cpu;
	_Atomic uint64_t read_until; /* the latest time a reader read up to */
	_Atomic int clock;           /* the thread's CPU clock (a clockid_t),
	                                once attached */
	_Atomic int attached;
};

/* Start the accounting at wall time now in state s, before the thread
 * exists (its CPU clock starts at 0). */
void usage_init(struct usage *u, uint64_t now, int s);

/* The worker's thread exists: its CPU clock can be read from elsewhere. */
void usage_attach(struct usage *u, pthread_t thread);

/* The worker enters state s at wall time now (the worker's thread only). */
void usage_enter(struct usage *u, int s, uint64_t now);

/* A processor slot's accounting changes hands (the OpenMP layer's threads
 * take and give back libasteal workers; runtime.h, hosted): the calling
 * thread, which held the slot, enters state s at now on its own clock and
 * detaches its clock, so that the slot runs up no CPU time while nobody
 * holds it. */
void usage_detach(struct usage *u, int s, uint64_t now);

/* The calling thread takes a slot its holder left: the interval that
 * ends is charged the CPU time of the clock still attached (a holder that
 * left the slot to whoever needs it, running on), none once detached (the
 * slot free or parked), and the slot's CPU clock is the caller's from now
 * on, in state s.  Also enters state s on such a slot without taking it
 * (take = 0: the link thread parking it), charged the same way. */
void usage_rebind(struct usage *u, int s, uint64_t now, int take);

/* The worker was told to leave at now (the link, under park_lock). */
void usage_leave(struct usage *u, uint64_t now);

/* The worker was recalled at now: it is allotted again (the link, under
 * park_lock; nothing when no window is open). */
void usage_back(struct usage *u, uint64_t now);

/* The times so far, the interval in progress included (any thread). */
void usage_read(struct usage *u, uint64_t now, struct usage_times *t);

/* Add to *s the time between two readings (b later than a). */
void usage_sum_add(struct usage_sum *s, const struct usage_times *a,
                   const struct usage_times *b);

/* Add sum b to sum a. */
void usage_sum_merge(struct usage_sum *a, const struct usage_sum *b);

/* A sum's usage as the daemon takes it (Feedback, Hello): work, steal,
 * mug, sleep, preempted and allotted (park and leave are in none). */
void usage_sum_totals(const struct usage_sum *s, struct usage_totals *t);

#endif
