/*
 * schedinput.c - what the jobs say to asteald's job scheduler (see
 * scheduler.h): Feedback, taken as it comes for the next tick, and
 * Released, a revocation latency sample and (--handover release) CPUs
 * free at once.  Both are checked first.  A field no job could send (a
 * quantum that has not begun, a desire beyond the job's workers, a
 * desire_real out of range, an unknown class, usage totals that go back or
 * beyond what the job's workers could have used) drops the job: an Error
 * INVALID naming the field, then the connection ends, and with it the
 * job's history row.  What a job that was merely late or stopped could
 * send (a Feedback for a quantum that ended long ago, a second one for a
 * quantum) and a bad Released are refused and ignored, with an Error to
 * the job and a log line the first time per job and kind.  A job that
 * claims its id again as it reconnects says in its Hello its usage totals
 * since it first joined under that id; what its history lacks of them is
 * its time away, added to its history once, within the same bound as a
 * Feedback's totals (its workers, since its row began).  The design is
 * described at the top of scheduler.c and core/core.h; what the
 * scheduler's files share is in scheduler_int.h.
 */
#include "scheduler_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conn.h"
#include "exchange.h"
#include "frame.h"
#include "history.h"
#include "log.h"
#include "proto.h"
#include "page.h"
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
static uint64_t usage_bound(uint64_t span, int workers)
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
	uint64_t most = usage_bound(now - j->joined, j->workers);

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
			snprintf(why, len, "Feedback.%s went back, from %llu to %llu "
			         "(totals since the Welcome only grow)",
			         exchange_usage_name((enum usage_kind)k),
			         (unsigned long long)had[k],
			         (unsigned long long)tot[k]);
			return 0;
		}
		if (tot[k] > most) {
			snprintf(why, len, "Feedback.%s %llu is more than the job's %d "
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

/* j claimed its id: its usage before this connection, and its time away
 * into the history (scheduler_int.h). */
void sched__claim_usage(struct sched *s, struct sched_job *j,
                        const Asteal__Hello *hello)
{
	struct usage_totals said;
	int64_t start, had[USAGE_N], away[USAGE_N];
	uint64_t now = qtime_wall_ns(), most, span;
	int any = 0, more = 0;

	exchange_hello_usage_from(&said, hello);
	for (int k = 0; k < USAGE_N; k++)
		any |= said.ns[k] != 0;
	if (history_job_usage(s->hist, (int64_t)j->core.id, &start, had) < 0) {
		if (any)
			log_warn("job %llu: its time away is not counted: history: %s",
			         (unsigned long long)j->core.id, history_error(s->hist));
		return;
	}
	for (int k = 0; k < USAGE_N; k++)
		j->before.ns[k] = (uint64_t)had[k];
	span = now > (uint64_t)start ? now - (uint64_t)start : 0;
	most = usage_bound(span, j->workers);
	for (int k = 0; k < USAGE_N && any; k++) {
		if (said.ns[k] > most || said.ns[k] > (uint64_t)INT64_MAX) {
			log_warn("job %llu pid %d: Hello.%s %llu is more than its %d "
			         "workers could use in the %.3f s since its row began: "
			         "its time away is not counted",
			         (unsigned long long)j->core.id, (int)j->pid,
			         exchange_usage_name((enum usage_kind)k),
			         (unsigned long long)said.ns[k], j->workers,
			         (double)span * 1e-9);
			return;
		}
		away[k] = (int64_t)said.ns[k] > had[k] ? (int64_t)said.ns[k] - had[k] : 0;
		more |= away[k] != 0;
	}
	if (!more)
		return;
	if (history_away(s->hist, (int64_t)j->core.id, (int64_t)now, away) < 0) {
		log_warn("job %llu: its time away is not counted: history: %s",
		         (unsigned long long)j->core.id, history_error(s->hist));
		return;
	}
	for (int k = 0; k < USAGE_N; k++)
		j->before.ns[k] += (uint64_t)away[k];
	log_info("job %llu '%s': %.3f s allotted, %.3f s of work while no daemon "
	         "had it, added to its history", (unsigned long long)j->core.id,
	         j->name, (double)away[USAGE_ALLOTTED] * 1e-9,
	         (double)away[USAGE_WORK] * 1e-9);
}

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
