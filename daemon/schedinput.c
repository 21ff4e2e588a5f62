/*
 * schedinput.c - what the jobs say to asteald's job scheduler (see
 * scheduler.h): Feedback, taken as it comes for the next tick, and
 * Released, a revocation latency sample and (--handover release) CPUs
 * free at once.  Both are checked first: bad input is refused or clamped,
 * with an Error to the job and a log line the first time per job and
 * kind.  The design is described at the top of scheduler.c; what the
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
#include "handover.h"
#include "history.h"
#include "log.h"
#include "proto.h"
#include "qtime.h"
#include "samples.h"

/* Kinds of bad Feedback, each logged once per job (then only counted). */
enum { BAD_FUTURE, BAD_PAST, BAD_REPEAT, BAD_DESIRE, BAD_REAL, BAD_USAGE,
       BAD_RELEASED };

/* Refuse or correct a job's input: an Error to it, a log line the first
 * time this kind happens for this job. */
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
	s->bad++;
	if (!(j->logged & 1u << kind)) {
		j->logged |= 1u << kind;
		log_warn("job %llu pid %d: %s (said once per job)",
		         (unsigned long long)j->id, (int)j->pid, why);
	} else {
		log_debug("job %llu: %s", (unsigned long long)j->id, why);
	}
	frame_error(&env, &err, ASTEAL__ERROR_CODE__INVALID, why);
	conn_send(j->conn, &env);
}

/* The quantum running now on the shared clock. */
uint64_t sched__quantum_now(const struct sched *s, uint64_t now)
{
	return now > s->t0 ? (now - s->t0) / s->L : 0;
}

/* Take a job's Feedback. */
void sched_feedback(struct sched *s, struct sched_job *j,
                    const Asteal__Feedback *fb)
{
	struct exchange_feedback f;
	uint64_t now = qtime_now_ns(), qnow = sched__quantum_now(s, now);
	uint64_t tot[4];
	int desire;

	exchange_feedback_from(&f, fb);
	s->feedbacks++;
	if (f.quantum > qnow) {
		complain(s, j, BAD_FUTURE, "a Feedback for quantum %llu, which has "
		         "not begun (quantum %llu runs): ignored",
		         (unsigned long long)f.quantum, (unsigned long long)qnow);
		return;
	}
	if (qnow - f.quantum > s->past) {
		complain(s, j, BAD_PAST, "a Feedback for quantum %llu, which ended "
		         "more than %u s ago: ignored", (unsigned long long)f.quantum,
		         PROTO_FEEDBACK_PAST_MS / 1000);
		return;
	}
	if (f.quantum < j->closable) {
		complain(s, j, BAD_REPEAT, "a second Feedback for quantum %llu (one "
		         "per quantum): ignored", (unsigned long long)f.quantum);
		return;
	}
	j->closable = f.quantum + 1;
	desire = f.desire > (uint32_t)j->workers ? j->workers : (int)f.desire;
	if (desire != (int)f.desire)
		complain(s, j, BAD_DESIRE, "desire %u is above the job's %d "
		         "workers: taken as %d", f.desire, j->workers, desire);
	if (!isfinite(f.desire_real) || f.desire_real < 0 ||
	    f.desire_real > (double)j->workers) {
		complain(s, j, BAD_REAL, "desire_real %g is not a number from 0 to "
		         "%d: taken as %d", f.desire_real, j->workers, desire);
		f.desire_real = desire;
	}
	tot[0] = f.work_ns;
	tot[1] = f.steal_ns;
	tot[2] = f.mug_ns;
	tot[3] = f.allotted_ns;
	if (tot[0] < j->tot[0] || tot[1] < j->tot[1] || tot[2] < j->tot[2] ||
	    tot[3] < j->tot[3]) {
		complain(s, j, BAD_USAGE, "usage totals went back: ignored");
	} else {
		if (history_usage(s->hist, (int64_t)j->id,
		                  (int64_t)(tot[0] - j->tot[0]), (int64_t)(tot[1] - j->tot[1]),
		                  (int64_t)(tot[2] - j->tot[2]), (int64_t)(tot[3] - j->tot[3])) < 0)
			log_warn("history: %s", history_error(s->hist));
		memcpy(j->tot, tot, sizeof(tot));
	}
	if (j->silent) {
		j->silent = 0;
		s->nsilent--;
		sched__touch(s, j);
		log_info("job %llu '%s' speaks again", (unsigned long long)j->id,
		         j->name);
	}
	sched__heard_now(s, j, now);
	if (desire != j->desire || (f.cls >= 0 && f.cls != j->cls))
		sched__touch(s, j);
	j->desire = desire;
	j->desire_real = f.desire_real;
	if (f.cls >= 0)
		j->cls = f.cls;
}

/* Take a job's Released: a revocation latency sample, and (handover
 * release) the CPUs it gave up are free. */
void sched_released(struct sched *s, struct sched_job *j,
                    const Asteal__Released *r)
{
	uint64_t now = qtime_now_ns();

	if (r->quantum > s->q || r->parked_ns > now) {
		complain(s, j, BAD_RELEASED, "a Released for quantum %llu at %llu, "
		         "later than quantum %llu and now: ignored",
		         (unsigned long long)r->quantum,
		         (unsigned long long)r->parked_ns, (unsigned long long)s->q);
		return;
	}
	if (r->quantum == j->allot_q && r->parked_ns >= j->decided) {
		samples_add(&s->revoke, r->parked_ns - j->decided);
		s->revocations++;
	}
	/* Read as a tick begins, the grant waits for its DEQ (an Allot of
	 * quantum q carries tick q's decision). */
	if (s->handover != NULL &&
	    handover_released(s->handover, j, r->quantum) > 0 && !s->in_tick)
		sched__retry_held(s, now);
}
