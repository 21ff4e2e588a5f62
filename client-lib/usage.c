/*
 * usage.c - a worker's time accounting on the wall and CPU clocks (see
 * usage.h for what each state means and how the leave window splits an
 * interval).
 *
 * Every access to the sequence-locked fields is seq_cst, so the argument
 * is the plain one: a reader that sees the same even sequence number
 * before and after its reads saw no change in between.  The worker reads
 * its CPU clock (a system call, about 0.35 us here) at state changes only:
 * a few per steal, none per task.
 */
#include "usage.h"

#include <string.h>

#include "qtime.h"

/* The leave window as read at one moment, with what earlier windows left
 * of the worker's interval in progress (see usage.h). */
struct window {
	uint64_t leave, leave_cpu, back, back_cpu;
	uint64_t tag, cut, cut_cpu, in_wall, in_cpu;
};

/* Start the accounting before the thread exists. */
void usage_init(struct usage *u, uint64_t now, int s)
{
	int k;

	atomic_store(&u->seq, 0);
	atomic_store(&u->state, s);
	atomic_store(&u->since, now);
	atomic_store(&u->since_cpu, 0);
	for (k = 0; k < WS_COUNT; k++) {
		atomic_store(&u->wall[k], 0);
		atomic_store(&u->cpu[k], 0);
	}
	atomic_store(&u->wseq, 0);
	atomic_store(&u->leave, 0);
	atomic_store(&u->leave_cpu, 0);
	atomic_store(&u->back, 0);
	atomic_store(&u->back_cpu, 0);
	atomic_store(&u->carry_tag, 0);
	atomic_store(&u->carry_cut, 0);
	atomic_store(&u->carry_cut_cpu, 0);
	atomic_store(&u->carry_in_wall, 0);
	atomic_store(&u->carry_in_cpu, 0);
	atomic_store(&u->read_until, 0);
	atomic_store(&u->attached, 0);
}

/* Record the thread's CPU clock for readers on other threads. */
void usage_attach(struct usage *u, pthread_t thread)
{
	clockid_t c;

	if (pthread_getcpuclockid(thread, &c) == 0) {
		atomic_store(&u->clock, (int)c);
		atomic_store(&u->attached, 1);
	}
}

/* The thread's CPU clock now, read from any thread; fallback when it
 * cannot be read (not started, or ended). */
static uint64_t cpu_now(struct usage *u, uint64_t fallback)
{
	uint64_t ns;

	if (!atomic_load(&u->attached) ||
	    qtime_cpu_ns((clockid_t)atomic_load(&u->clock), &ns) < 0)
		return fallback;
	return ns;
}

/* Read the leave window consistently. */
static void window_read(struct usage *u, struct window *w)
{
	uint32_t q1, q2;

	do {
		q1 = atomic_load(&u->wseq);
		w->leave = atomic_load(&u->leave);
		w->leave_cpu = atomic_load(&u->leave_cpu);
		w->back = atomic_load(&u->back);
		w->back_cpu = atomic_load(&u->back_cpu);
		w->tag = atomic_load(&u->carry_tag);
		w->cut = atomic_load(&u->carry_cut);
		w->cut_cpu = atomic_load(&u->carry_cut_cpu);
		w->in_wall = atomic_load(&u->carry_in_wall);
		w->in_cpu = atomic_load(&u->carry_in_cpu);
		q2 = atomic_load(&u->wseq);
	} while ((q1 & 1) || q1 != q2);
}

/* Change the window (the link, under park_lock: one writer at a time). */
static void window_write(struct usage *u, const struct window *w)
{
	uint32_t q = atomic_load(&u->wseq);

	atomic_store(&u->wseq, q + 1);
	atomic_store(&u->leave, w->leave);
	atomic_store(&u->leave_cpu, w->leave_cpu);
	atomic_store(&u->back, w->back);
	atomic_store(&u->back_cpu, w->back_cpu);
	atomic_store(&u->carry_tag, w->tag);
	atomic_store(&u->carry_cut, w->cut);
	atomic_store(&u->carry_cut_cpu, w->cut_cpu);
	atomic_store(&u->carry_in_wall, w->in_wall);
	atomic_store(&u->carry_in_cpu, w->in_cpu);
	atomic_store(&u->wseq, q + 2);
}

/* x kept within [lo, hi]. */
static uint64_t within(uint64_t x, uint64_t lo, uint64_t hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/* now, or the latest time a reader read the worker up to if that is later:
 * what readers counted stays as they counted it. */
static uint64_t after_readings(struct usage *u, uint64_t now)
{
	uint64_t r = atomic_load(&u->read_until);

	return now < r ? r : now;
}

/* Open the window at now.  A closed window that overlaps the worker's
 * interval in progress is folded into the carry first, so that replacing
 * it changes nothing of what that interval's past counts as. */
void usage_leave(struct usage *u, uint64_t now)
{
	uint64_t since = atomic_load(&u->since);
	uint64_t since_cpu = atomic_load(&u->since_cpu);
	struct window w, n;

	now = after_readings(u, now);
	window_read(u, &w);
	n = w;
	if (w.tag != since || w.cut < since) {
		n.tag = since;
		n.cut = since;
		n.cut_cpu = since_cpu;
		n.in_wall = n.in_cpu = 0;
	}
	if (w.leave != 0 && w.back > n.cut) {
		uint64_t lo = within(w.leave, n.cut, w.back);
		uint64_t lo_cpu = lo == n.cut ? n.cut_cpu : w.leave_cpu;
		n.in_wall += w.back - lo;
		if (w.back_cpu > lo_cpu)
			n.in_cpu += w.back_cpu - lo_cpu;
		n.cut = w.back;
		n.cut_cpu = w.back_cpu > n.cut_cpu ? w.back_cpu : n.cut_cpu;
	}
	n.leave = now > n.cut ? now : n.cut;
	n.leave_cpu = cpu_now(u, since_cpu);
	if (n.leave_cpu < n.cut_cpu)
		n.leave_cpu = n.cut_cpu;
	n.back = n.back_cpu = 0;
	window_write(u, &n);
}

/* Close the window at now, if one is open. */
void usage_back(struct usage *u, uint64_t now)
{
	struct window w;

	now = after_readings(u, now);
	window_read(u, &w);
	if (w.leave == 0 || w.back != 0)
		return;
	w.back = now > w.leave ? now : w.leave;
	w.back_cpu = cpu_now(u, atomic_load(&u->since_cpu));
	if (w.back_cpu < w.leave_cpu)
		w.back_cpu = w.leave_cpu;
	window_write(u, &w);
}

/* Add the interval [a, b] (CPU clock ca to cb) spent in state s to wall[]
 * and cpu[]: first the part the carry has already classified (when it is
 * this interval's), then the rest, split at the window's edges (usage.h). */
static void charge(uint64_t wall[WS_COUNT], uint64_t cpu[WS_COUNT], int s,
                   uint64_t a, uint64_t ca, uint64_t b, uint64_t cb,
                   const struct window *w)
{
	int in = s == WS_PARK ? WS_PARK : WS_LEAVE;
	int out = s == WS_PARK ? WS_STEAL : s;
	int before = out;               /* before the window */
	uint64_t lo, hi, clo, chi;

	if (b < a)
		b = a;
	if (cb < ca)
		cb = ca;
	if (w->tag == a && w->cut > a) {
		uint64_t cut = w->cut < b ? w->cut : b;
		uint64_t ccut = within(w->cut_cpu, ca, cb);
		uint64_t iw = w->in_wall < cut - a ? w->in_wall : cut - a;
		uint64_t ic = w->in_cpu < ccut - ca ? w->in_cpu : ccut - ca;
		wall[in] += iw;
		cpu[in] += ic;
		wall[out] += cut - a - iw;
		cpu[out] += ccut - ca - ic;
		a = cut;
		ca = ccut;
	} else if (s == WS_PARK) {
		/* Parked before the window opened (it never is, but for a
		 * window of an earlier park replaced): parked. */
		before = WS_PARK;
	}
	/* The part inside the window, [lo, hi], with its CPU readings. */
	lo = w->leave == 0 ? b : within(w->leave, a, b);
	hi = w->back == 0 ? b : within(w->back, lo, b);
	clo = lo == a ? ca : lo == b ? cb : within(w->leave_cpu, ca, cb);
	chi = hi == b ? cb : within(w->back_cpu, clo, cb);
	wall[before] += lo - a;
	cpu[before] += clo - ca;
	wall[in] += hi - lo;
	cpu[in] += chi - clo;
	wall[out] += b - hi;
	cpu[out] += cb - chi;
}

/* What enter_at does to the slot's clock (hosted slots, usage.h). */
enum { CLOCK_KEEP, CLOCK_DETACH, CLOCK_TAKE };

/* Enter state s at now, the interval that ends having run until CPU
 * reading c; the next one starts at CPU reading c_next.  With CLOCK_TAKE
 * the slot's clock becomes the calling thread's, with CLOCK_DETACH it is
 * detached, inside the same change, so that a reader never pairs one
 * thread's clock with another's readings. */
static void enter_at(struct usage *u, int s, uint64_t now, uint64_t c,
                     uint64_t c_next, int clock)
{
	uint64_t wall[WS_COUNT] = { 0 }, cpu[WS_COUNT] = { 0 };
	uint64_t since = atomic_load_explicit(&u->since, memory_order_relaxed);
	uint64_t since_cpu = atomic_load_explicit(&u->since_cpu, memory_order_relaxed);
	int old = atomic_load_explicit(&u->state, memory_order_relaxed);
	uint32_t q = atomic_load_explicit(&u->seq, memory_order_relaxed);
	struct window w;
	int k;

	if (c < since_cpu)
		c = since_cpu;
	if (clock != CLOCK_TAKE)
		c_next = c;
	atomic_store(&u->seq, q + 1);
	/* The window after the sequence number is odd: the link opens a
	 * window before it next reads us, so either its reading waits for
	 * this change or this change sees its window. */
	window_read(u, &w);
	/* A reader may have read the interval in progress up to a time
	 * later than now (this thread was preempted between reading its
	 * clock and getting here): end the interval there, so that what the
	 * reader counted stays counted as it did. */
	now = after_readings(u, now);
	charge(wall, cpu, old, since, since_cpu, now, c, &w);
	for (k = 0; k < WS_COUNT; k++) {
		if (wall[k] != 0)
			atomic_store(&u->wall[k], atomic_load_explicit(&u->wall[k],
			             memory_order_relaxed) + wall[k]);
		if (cpu[k] != 0)
			atomic_store(&u->cpu[k], atomic_load_explicit(&u->cpu[k],
			             memory_order_relaxed) + cpu[k]);
	}
	if (clock == CLOCK_DETACH) {
		atomic_store(&u->attached, 0);
	} else if (clock == CLOCK_TAKE) {
		clockid_t id;
		if (pthread_getcpuclockid(pthread_self(), &id) == 0) {
			atomic_store(&u->clock, (int)id);
			atomic_store(&u->attached, 1);
		}
	}
	atomic_store(&u->state, s);
	atomic_store(&u->since, now > since ? now : since);
	atomic_store(&u->since_cpu, c_next);
	atomic_store(&u->seq, q + 2);
}

/* The calling thread's CPU clock, or fallback when it cannot be read. */
static uint64_t own_cpu(uint64_t fallback)
{
	uint64_t c;

	return qtime_cpu_ns(CLOCK_THREAD_CPUTIME_ID, &c) < 0 ? fallback : c;
}

/* Enter state s at now: charge the interval that ends. */
void usage_enter(struct usage *u, int s, uint64_t now)
{
	uint64_t c = own_cpu(atomic_load_explicit(&u->since_cpu,
	                                          memory_order_relaxed));

	enter_at(u, s, now, c, c, CLOCK_KEEP);
}

/* The holder gives the slot up: state s from now, no clock. */
void usage_detach(struct usage *u, int s, uint64_t now)
{
	uint64_t c = own_cpu(atomic_load_explicit(&u->since_cpu,
	                                          memory_order_relaxed));

	enter_at(u, s, now, c, c, CLOCK_DETACH);
}

/* A slot its holder left enters state s: taken by the caller (take), or
 * not.  The interval that ends ran the CPU time of the clock still
 * attached (a lazy holder's, in serial code), none when detached. */
void usage_rebind(struct usage *u, int s, uint64_t now, int take)
{
	uint64_t since_cpu = atomic_load_explicit(&u->since_cpu,
	                                          memory_order_relaxed);
	uint64_t c = cpu_now(u, since_cpu);

	enter_at(u, s, now, c, take ? own_cpu(0) : c,
	         take ? CLOCK_TAKE : CLOCK_KEEP);
}

/* Read the counters and add the interval in progress, split the same way
 * as usage_enter will split it. */
void usage_read(struct usage *u, uint64_t now, struct usage_times *t)
{
	uint32_t q0, q1, q2;
	uint64_t since, since_cpu, c, r;
	struct window w;
	int k, s;

	/* Say how far we read before reading (usage_enter; seq_cst: a
	 * worker that changes state after our snapshot sees it). */
	r = atomic_load(&u->read_until);
	while (r < now && !atomic_compare_exchange_weak(&u->read_until, &r, now))
		;
	/* The thread's CPU clock once, before the snapshot (a system call;
	 * charge keeps the interval's CPU time from going negative).  A
	 * hosted slot changes clocks under the sequence number, so a reading
	 * taken across such a change is taken again. */
	do {
		q0 = atomic_load(&u->seq);
		c = cpu_now(u, 0);
		q1 = atomic_load(&u->seq);
		for (k = 0; k < WS_COUNT; k++) {
			t->wall[k] = atomic_load(&u->wall[k]);
			t->cpu[k] = atomic_load(&u->cpu[k]);
		}
		s = atomic_load(&u->state);
		since = atomic_load(&u->since);
		since_cpu = atomic_load(&u->since_cpu);
		q2 = atomic_load(&u->seq);
	} while ((q1 & 1) || q1 != q2 || q0 != q1);
	window_read(u, &w);
	if (now > since)
		charge(t->wall, t->cpu, s, since, since_cpu, now, c, &w);
}

/* The difference b - a of one counter (0 if it went back). */
static uint64_t diff(const uint64_t *a, const uint64_t *b, int k)
{
	return b[k] > a[k] ? b[k] - a[k] : 0;
}

/* Add the time between readings a and b, as A-STEAL counts it. */
void usage_sum_add(struct usage_sum *s, const struct usage_times *a,
                   const struct usage_times *b)
{
	static const int ran[] = { WS_WORK, WS_STEAL, WS_MUG };
	uint64_t *out[] = { &s->work, &s->steal, &s->mug };
	size_t i;

	for (i = 0; i < sizeof(ran) / sizeof(ran[0]); i++) {
		uint64_t wall = diff(a->wall, b->wall, ran[i]);
		uint64_t cpu = diff(a->cpu, b->cpu, ran[i]);
		if (cpu > wall)
			cpu = wall;
		*out[i] += cpu;
		s->preempted += wall - cpu;
		s->allotted += wall;
	}
	s->sleep += diff(a->wall, b->wall, WS_SLEEP);
	s->allotted += diff(a->wall, b->wall, WS_SLEEP);
	s->park += diff(a->wall, b->wall, WS_PARK);
	s->leave += diff(a->wall, b->wall, WS_LEAVE);
}

/* Add sum b to sum a. */
void usage_sum_merge(struct usage_sum *a, const struct usage_sum *b)
{
	a->work += b->work;
	a->steal += b->steal;
	a->mug += b->mug;
	a->sleep += b->sleep;
	a->preempted += b->preempted;
	a->allotted += b->allotted;
	a->park += b->park;
	a->leave += b->leave;
}

/* A sum's usage as the daemon takes it. */
void usage_sum_totals(const struct usage_sum *s, struct usage_totals *t)
{
	t->ns[USAGE_WORK] = s->work;
	t->ns[USAGE_STEAL] = s->steal;
	t->ns[USAGE_MUG] = s->mug;
	t->ns[USAGE_SLEEP] = s->sleep;
	t->ns[USAGE_PREEMPTED] = s->preempted;
	t->ns[USAGE_ALLOTTED] = s->allotted;
}
