/*
 * schedtick.c - one quantum in asteald's shell (see scheduler.h): what the
 * jobs say, checked and taken as it comes (Feedback from their pages and
 * their messages, Released), the tick that runs the core on it, and the
 * allotments the core decides, delivered (into the job's page, or as an
 * Allot; the job confined to its CPUs).  The desire's round trip through
 * the daemon is this file, core/core.c and policy/deq.c (HACKING.md, "One
 * quantum, file by file").
 *
 * One tick: the timer fires for quantum q (sched__on_timer); the shell
 * reads what the jobs said since the last (control.c reads its batch of
 * messages, then every page is read here), each Feedback an event for the
 * core, then runs the core's tick, which delivers the allotments of the
 * jobs that changed (sched__op_allot) and records them; then the history
 * is told which quantum is over (history_advance) and flushed, which
 * writes a share of the closed runs and commits them once a second
 * (history.h).
 *
 * What a job says is checked first.  A field no job could send (a quantum
 * that has not begun, a desire beyond the job's workers, a desire_real
 * out of range, an unknown class, usage totals that go back or beyond
 * what the job's workers could have used) drops the job: an Error INVALID
 * naming the field, then the connection ends, and with it the job's
 * history row.  What a job that was merely late or stopped could send (a
 * Feedback for a quantum that ended long ago, a second one for a quantum)
 * and a bad Released are refused and ignored, with an Error to the job
 * and a log line the first time per job and kind.  The design is
 * described at the top of scheduler.c and core/core.h; what the
 * scheduler's files share is in scheduler_int.h.
 */
#include "scheduler_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "conn.h"
#include "exchange.h"
#include "frame.h"
#include "history.h"
#include "log.h"
#include "page.h"
#include "proto.h"
#include "qtime.h"
#include "samples.h"

/* Refused input a job may send before it is dropped: a burst, then so
 * many a second (a job that is merely late or was stopped sends a few;
 * one that sends thousands costs the daemon for nothing). */
#define SCHED_REFUSED_BURST 2048
#define SCHED_REFUSED_RATE 256

/* Kinds of bad input refused and ignored, each logged once per job (then
 * only counted). */
enum { BAD_PAST, BAD_REPEAT, BAD_RELEASED };

/* ------------------------------------------------ what the jobs say -- */

/* A field no job could send: count it, and drop the job with an Error
 * naming it (conn_fail, which logs it: the job leaves the scheduler, its
 * history row ends). */
static void drop(struct sched *s, struct sched_job *j, const char *why)
{
	s->bad++;
	conn_fail(j->conn, ASTEAL__ERROR_CODE__INVALID, why);
}

/* Refuse a job's input and ignore it: an Error to it and a log line the
 * first time this kind happens for this job; a job past its room for
 * refused input (j->refused) is dropped instead. */
__attribute__((format(printf, 4, 5)))
static void complain(struct sched *s, struct sched_job *j, int kind,
                     const char *fmt, ...)
{
	Asteal__Envelope env;
	Asteal__Error err;
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!bucket_take(&j->refused, qtime_now_ns(), SCHED_REFUSED_BURST,
	                 SCHED_REFUSED_RATE)) {
		snprintf(why, sizeof(why), "more than %d refused messages, and %d "
		         "a second after them: disconnected", SCHED_REFUSED_BURST,
		         SCHED_REFUSED_RATE);
		drop(s, j, why);
		return;
	}
	s->bad++;
	if (!(j->logged & 1u << kind)) {
		j->logged |= 1u << kind;
		log_warn("job %llu pid %d: %s (said once per job)",
		         (unsigned long long)j->core.id, (int)j->pid, why);
	} else {
		log_debug("job %llu: %s", (unsigned long long)j->core.id, why);
	}
	frame_error(&env, &err, ASTEAL__ERROR_CODE__INVALID, why);
	conn_send(j->conn, &env);
}

/* The quantum running now on the shared clock. */
uint64_t sched__quantum_now(const struct sched *s, uint64_t now)
{
	return now > s->t0 ? (now - s->t0) / s->L : 0;
}

/* The usage its workers could have used in span ns and the slack of
 * PROTO_USAGE_SLACK_MS (the last quantum before it connected, its
 * handshake): what no total of a job's may exceed. */
uint64_t sched__usage_bound(uint64_t span, int workers)
{
	uint64_t most;

	span += PROTO_USAGE_SLACK_MS * 1000000ull;
	if (__builtin_mul_overflow(span, (uint64_t)workers, &most))
		most = UINT64_MAX;
	return most;
}

/* Whether a Feedback's fields are all ones a job could send at `now`;
 * otherwise 0 with the first that is not, named, in why. */
static int fields_ok(const struct sched_job *j, const struct exchange_feedback *fb,
                     uint64_t now, char *why, size_t len)
{
	const uint64_t *tot = fb->use.ns, *had = j->tot.ns;
	uint64_t most = sched__usage_bound(now - j->joined, j->workers);

	if (fb->desire > (uint32_t)j->workers) {
		snprintf(why, len, "Feedback.desire %u is above the job's %d workers",
		         fb->desire, j->workers);
		return 0;
	}
	if (!isfinite(fb->desire_real) || fb->desire_real < 0 ||
	    fb->desire_real > (double)j->workers) {
		snprintf(why, len, "Feedback.desire_real %g is not a number from 0 "
		         "to the job's %d workers", fb->desire_real, j->workers);
		return 0;
	}
	for (int k = 0; k < USAGE_N; k++) {
		if (tot[k] < had[k]) {
			snprintf(why, len, "Feedback.usage.%s went back, from %llu to %llu "
			         "(totals since the Welcome only grow)",
			         exchange_usage_name((enum usage_kind)k),
			         (unsigned long long)had[k],
			         (unsigned long long)tot[k]);
			return 0;
		}
		if (tot[k] > most) {
			snprintf(why, len, "Feedback.usage.%s %llu is more than the job's %d "
			         "workers could use in the %.3f s since it joined",
			         exchange_usage_name((enum usage_kind)k),
			         (unsigned long long)tot[k], j->workers,
			         (double)(now - j->joined) * 1e-9);
			return 0;
		}
	}
	return 1;
}

/* A job's Feedback that is not one a job could send on the wire: counted
 * as a Feedback, and the job dropped. */
void sched_feedback_refused(struct sched *s, struct sched_job *j, const char *why)
{
	s->feedbacks++;
	drop(s, j, why);
}

/* A Feedback's fields, checked (a field no job could send drops the
 * job), taken for the next tick: its usage and its quantum's class to
 * the history, its desire to the core. */
static void take(struct sched *s, struct sched_job *j,
                 const struct exchange_feedback *f, uint64_t now)
{
	int64_t add[USAGE_N];
	char why[200];

	if (!fields_ok(j, f, now, why, sizeof(why))) {
		drop(s, j, why);
		return;                 /* j is leaving: touch nothing */
	}
	j->closable = f->quantum + 1;
	for (int k = 0; k < USAGE_N; k++)
		add[k] = (int64_t)(f->use.ns[k] - j->tot.ns[k]);
	if (history_usage(s->hist, (int64_t)j->core.id, add) < 0 ||
	    (f->cls >= 0 && history_class(s->hist, (int64_t)j->core.id,
	                                  (int64_t)f->quantum, f->cls) < 0))
		log_warn("history: %s", history_error(s->hist));
	j->tot = f->use;
	if (f->cls >= 0)
		j->cls = f->cls;
	j->desire_real = f->desire_real;
	core_feedback(s->core, &j->core, (int)f->desire, now);
}

/* Take a job's Feedback. */
void sched_feedback(struct sched *s, struct sched_job *j,
                    const struct exchange_feedback *f)
{
	uint64_t now = qtime_now_ns(), qnow = sched__quantum_now(s, now);
	char why[200];

	s->feedbacks++;
	if (f->quantum > qnow) {
		snprintf(why, sizeof(why), "Feedback.quantum %llu has not begun "
		         "(quantum %llu runs)", (unsigned long long)f->quantum,
		         (unsigned long long)qnow);
		drop(s, j, why);
		return;
	}
	if (qnow - f->quantum > s->past) {
		complain(s, j, BAD_PAST, "a Feedback for quantum %llu, which ended "
		         "more than %u s ago: ignored", (unsigned long long)f->quantum,
		         PROTO_FEEDBACK_PAST_MS / 1000);
		return;
	}
	if (f->quantum < j->closable) {
		complain(s, j, BAD_REPEAT, "a second Feedback for quantum %llu (one "
		         "per quantum): ignored", (unsigned long long)f->quantum);
		return;
	}
	take(s, j, f, now);
}

/* Read one job's page: a new Feedback there is taken. */
static void page_read(struct sched *s, struct sched_job *j, uint64_t now)
{
	struct exchange_feedback f;
	uint64_t qnow = sched__quantum_now(s, now);
	int64_t seq = page_feed_read(jobpage_page(j->page), &f);
	char why[200];

	if (seq < 0) {
		s->pages_torn++;        /* being written each time: next tick */
		return;
	}
	if (seq == j->page_seq)
		return;                 /* nothing new */
	j->page_seq = seq;
	if (seq == 0)
		return;                 /* never written */
	s->pages_read++;
	if (f.quantum > qnow) {
		snprintf(why, sizeof(why), "page: quantum %llu has not begun "
		         "(quantum %llu runs)", (unsigned long long)f.quantum,
		         (unsigned long long)qnow);
		drop(s, j, why);
		return;
	}
	if (f.cls < -1 || f.cls >= EXCHANGE_NCLASSES) {
		snprintf(why, sizeof(why), "page: class %d is none of the %d",
		         f.cls, EXCHANGE_NCLASSES);
		drop(s, j, why);
		return;
	}
	/* A quantum taken already (a Feedback sent as a message took it) or
	 * long over (a job that was stopped) is no news. */
	if (f.quantum < j->closable || qnow - f.quantum > s->past)
		return;
	take(s, j, &f, now);
}

/* Read every page at a tick. */
void sched__pages_read(struct sched *s, uint64_t now)
{
	/* From the last: a job dropped for what its page says leaves the
	 * core's table now, moving only the jobs after it. */
	for (int i = core_njobs(s->core) - 1; i >= 0; i--) {
		struct sched_job *j;

		if (i >= core_njobs(s->core))
			continue;
		j = sched__job(core_job_at(s->core, i));
		if (j->page != NULL) {
			sched__page_wake_tick(j);
			page_read(s, j, now);   /* may drop j */
		}
	}
}

/* ----------------------------------------------------------- the tick -- */

/* One tick, for quantum s->q, its jobs read: the core's tick, then
 * the departed jobs' rows, the statistics and the history. */
static void tick(struct sched *s, uint64_t start)
{
	struct core_tick_stats st;
	struct sched_job *j;
	uint64_t end;

	s->tick_sends = 0;
	sched__shrink_done(s, NULL);    /* overdue: held to what they kept */
	if (core_tick(s->core, qtime_now_ns(), qtime_now_ns, &st) < 0)
		log_error("DEQ failed for quantum %llu: %s", (unsigned long long)s->q,
		          strerror(errno));
	samples_add(&s->deq_time, st.deq_ns);
	end = qtime_now_ns();
	/* Jobs gone as the tick read its jobs were not in this quantum:
	 * their rows end with the last (before history_advance). */
	while ((j = s->departed) != NULL) {
		s->departed = j->next_gone;
		sched__bury(s, j);
	}
	sched__rigid_usage(s, NULL, end);
	samples_add(&s->tick, end - start);
	samples_add(&s->changes, (uint64_t)st.changes);
	samples_add(&s->sends, s->tick_sends);
	if (history_advance(s->hist, (int64_t)s->q,
	                    (int64_t)(s->t0_wall + (s->q + 1) * s->L)) < 0)
		log_warn("history: %s", history_error(s->hist));
	if (history_flush(s->hist) < 0)
		log_warn("history: %s", history_error(s->hist));
}

/* The tick timer fired: tick for the quantum now running (a tick the
 * loop was too late for is skipped and counted). */
void sched__on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sched *s = arg;
	uint64_t n, now, q, due;

	(void)what;
	if (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		return;
	now = qtime_now_ns();
	if (now < s->t0 + s->offset)
		return;
	q = (now - s->t0 - s->offset) / s->L;
	if (s->ticks > 0 && q <= s->q)
		return;
	if (s->ticks > 0 && q > s->q + 1) {
		/* No tick in between: nobody's allotment changed there. */
		s->skipped += q - s->q - 1;
		if (history_skipped(s->hist, (int64_t)(s->q + 1), (int64_t)(q - 1),
		                    (int64_t)(s->t0_wall + (s->q + 1) * s->L),
		                    (int64_t)(s->t0_wall + q * s->L)) < 0)
			log_warn("history: %s", history_error(s->hist));
	}
	s->q = q;
	s->ticks++;
	due = s->t0 + q * s->L + s->offset;
	samples_add(&s->wake, now - due);
	/* What the jobs said since the last tick (their desires, usage,
	 * departures) is read now, in one go. */
	s->in_tick = 1;
	core_tick_begin(s->core, q);
	if (s->read != NULL)
		s->read(s->read_arg);
	sched__pages_read(s, qtime_now_ns());
	tick(s, now);
	s->in_tick = 0;
}

/* ------------------------------------------------------ the allotments -- */

/* Hold a shrinking job (or every one, j NULL) to the CPUs it kept. */
void sched__shrink_done(struct sched *s, struct sched_job *j)
{
	if (j == NULL) {
		for (int i = core_njobs(s->core) - 1; s->shrinking > 0 && i >= 0; i--)
			sched__shrink_done(s, sched__job(core_job_at(s->core, i)));
		return;
	}
	if (!j->shrinking)
		return;
	j->shrinking = 0;
	s->shrinking--;
	sched__confine_set(s, j, &j->shrink);
}

/* Deliver an allotment: confine the job to it if it moved, then an Allot
 * (a rigid job's confinement is its Allot, and its usage is taken up to
 * now with its old CPUs).  A job that only loses CPUs is held to the
 * rest once its revocation is done (sched_released) or at the hand-over's
 * bound or the next tick, whichever comes first: shrinking its cpuset
 * at once would migrate its leaving workers onto the CPUs it keeps before
 * they park, behind its other workers. */
int sched__op_allot(void *arg, struct core_job *cj, const struct core_allot *ca)
{
	struct sched *s = arg;
	struct sched_job *j = sched__job(cj);
	int moved = cj->fresh || memcmp(ca->set, &cj->sent, sizeof(cj->sent)) != 0;

	if (moved && !cj->fresh && j->conn != NULL &&
	    deq_set_count(ca->set) > 0 && deq_set_subset(ca->set, &cj->sent)) {
		j->shrink = *ca->set;
		s->shrinking += !j->shrinking;
		j->shrinking = 1;
	} else if (moved) {
		if (j->shrinking) {
			j->shrinking = 0;
			s->shrinking--;
		}
		sched__confine_set(s, j, ca->set);
	}
	if (j->conn == NULL) {
		sched__rigid_usage(s, j, ca->decided);
		return 0;
	}
	s->allots++;
	if (j->page != NULL && jobpage_allots(j->page)) {
		sched__page_allot(s, j, ca);
		return 0;
	}
	return sched__allot_send(s, j, ca);
}

/* Send an allotment to a job as an Allot message: 0, or -1 (a peer
 * going away: its end comes). */
int sched__allot_send(struct sched *s, struct sched_job *j,
                      const struct core_allot *ca)
{
	uint32_t ids[CPULIST_MAX];
	uint8_t frame[EXCHANGE_ALLOT_MAX];
	struct exchange_allot a;
	size_t len;

	a.quantum = ca->quantum;
	a.ncpus = (size_t)sched__slot_cpus(s, ca->set, ids);
	a.cpus = ids;
	a.allotment = (uint32_t)a.ncpus;
	a.availability = (uint32_t)ca->availability;
	a.decided_ns = ca->decided;
	len = exchange_encode_allot(frame, &a);
	if (len == 0 || conn_send_frame(j->conn, frame, len) < 0)
		return -1;      /* a peer going away: its end comes */
	s->tick_sends++;
	return 0;
}

/* Write an allotment into a job's page: its slots' CPUs, a new
 * generation, the stop words that changed, the bells of the slots it
 * adds. */
void sched__page_allot(struct sched *s, struct sched_job *j,
                       const struct core_allot *ca)
{
	static struct page_allotment a;         /* the loop's only */
	uint32_t ids[CPULIST_MAX];
	int n = sched__slot_cpus(s, ca->set, ids);

	a.quantum = ca->quantum;
	a.decided_ns = ca->decided;
	a.allotment = n;
	a.availability = ca->availability;
	a.ncpus = n;
	for (int i = 0; i < n; i++)
		a.cpus[i] = (int)ids[i];
	j->page_gen += 2;
	s->futex_wakes += (uint64_t)page_allot_write(jobpage_page(j->page),
	                                             j->page_gen, &a,
	                                             j->page_allotted);
	if (n < j->page_allotted &&
	    page_idle_all(jobpage_page(j->page), n, j->page_allotted)) {
		j->idle_q = ca->quantum;
		j->idle_at = qtime_now_ns();
		j->idle_pending = 1;
		event_active(j->wake_ev, EV_READ, 1);
	}
	j->page_allotted = n;
	s->pages_written++;
}

/* -------------------------------------------------------- the releases -- */

/* A revocation longer than this is logged (debug). */
#define SCHED_REVOKE_LONG_NS 250000u

/* Take a job's Released: a revocation latency sample, and (handover
 * release) the CPUs it gave up are free. */
void sched_released(struct sched *s, struct sched_job *j, uint64_t q,
                    uint64_t parked_ns)
{
	uint64_t now = qtime_now_ns();

	if (q > s->q || parked_ns > now) {
		complain(s, j, BAD_RELEASED, "a Released for quantum %llu at %llu, "
		         "later than quantum %llu and now: ignored",
		         (unsigned long long)q, (unsigned long long)parked_ns,
		         (unsigned long long)s->q);
		return;
	}
	if (q == j->core.allot_q && parked_ns >= j->core.decided) {
		samples_add(&s->revoke, parked_ns - j->core.decided);
		s->revocations++;
		/* A long one, with its span on the shared clock, to put
		 * beside a trace of the CPUs (bench/README.md, "Hand-over"). */
		if (parked_ns - j->core.decided > SCHED_REVOKE_LONG_NS)
			log_debug("job %llu: revocation of quantum %llu took %llu "
			          "us: decided %llu, parked %llu (CLOCK_MONOTONIC ns)",
			          (unsigned long long)j->core.id,
			          (unsigned long long)q,
			          (unsigned long long)(parked_ns - j->core.decided) / 1000,
			          (unsigned long long)j->core.decided,
			          (unsigned long long)parked_ns);
	}
	/* Read as a tick begins, the grant waits for its DEQ (an Allot of
	 * quantum q carries tick q's decision). */
	if (q == j->core.allot_q)
		sched__shrink_done(s, j);
	core_released(s->core, &j->core, q, now);
}
