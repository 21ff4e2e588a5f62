/*
 * loadhist.c - asteal-loadgen's check against the daemon's history (see
 * loadhist.h).
 *
 * After the run, against the daemon's own history (a History request
 * over the protocol, which writes what is pending first): the last
 * allotment a job got of each quantum equals the daemon's recorded
 * allotment, availability and CPUs for it (with --handover release a job
 * may get its CPUs in two steps, and when the grant waited past the next
 * tick, the quantum's last had only the free part, counted as "held
 * over"; a grant is recorded apart from the runs, and counted as
 * "granted" where the quantum's run gave the job none; a quantum of a run
 * of turns is checked as deq_replay checks it, "in turns", or held over
 * when its turn's grant waited past the next tick), and every desire a
 * job sent is the recorded desire from the next quantum on, or later (a
 * Feedback that missed its tick leaves "stale" quanta, counted, with the
 * longest stretch of them), and the recorded desires follow what was
 * said in order; a desire of 0 recorded (silence: the daemon had not
 * heard the job for PROTO_SILENT_BEATS heartbeats) before the daemon
 * shows it read the job's first Feedback is the load generator's doing
 * (every job joins before any speaks), counted as "silent" quanta, and
 * any later is wrong.  That DEQ's answers are exact is deq_replay's
 * check, on the database, after the daemon stops (bench/daemon.sh).
 */
#include "loadhist.h"

#include <stdio.h>
#include <stdlib.h>

#include "frame.h"
#include "loadlog.h"

/* Check the allotments job `id` got (its log) against its runs, ordered
 * by first quantum. */
static void check_got(uint64_t id, const struct loadlog *log,
                      Asteal__AllotmentRecord **runs, size_t n,
                      struct loadhist_verdict *v)
{
	size_t ngot, r = 0;
	const struct loadlog_got *got = loadlog_gots(log, &ngot);

	for (size_t k = 0; k < ngot; k++) {
		const struct loadlog_got *a = &got[k];
		const struct loadlog_got *nx = k + 1 < ngot ? &got[k + 1] : NULL;
		uint64_t want;

		while (r < n && runs[r]->last_quantum < a->q)
			r++;
		if (r == n || runs[r]->first_quantum > a->q)
			continue;       /* not recorded (yet): nothing to compare */
		v->allots_checked++;
		want = loadlog_cpus_hash(runs[r]->cpus, runs[r]->n_cpus);
		/* A run of turns (its cpu_quanta above allotment x quanta:
		 * DEQ's leftover CPUs taken in turns) keeps the lower
		 * allotment and every CPU used: a quantum of it got its
		 * availability, the run's allotment or one more, on CPUs
		 * among the run's (deq_replay's rule); or, with --handover
		 * release, only the free part of them when the turn's grant
		 * was held back past the next tick (counted as held over). */
		if (runs[r]->cpu_quanta != (uint64_t)runs[r]->allotment *
		    (runs[r]->last_quantum - runs[r]->first_quantum + 1)) {
			uint64_t rec = loadlog_cpus_low(runs[r]->cpus, runs[r]->n_cpus);

			if (a->allotment <= a->availability &&
			    (a->availability == runs[r]->allotment ||
			     a->availability == runs[r]->allotment + 1) &&
			    a->low != UINT64_MAX && rec != UINT64_MAX &&
			    (a->low & ~rec) == 0) {
				if (a->allotment == a->availability)
					v->allots_turns++;
				else
					v->allots_held++;
				continue;
			}
		}

		if (runs[r]->allotment != a->allotment ||
		    runs[r]->availability != a->availability ||
		    want != a->cpus) {
			/* --handover release: a grant held back past the next
			 * tick (which may have decided otherwise) leaves this
			 * quantum's last Allot with only the free part of the
			 * recorded set. */
			uint64_t rec = loadlog_cpus_low(runs[r]->cpus, runs[r]->n_cpus);

			if (a->allotment < runs[r]->allotment &&
			    a->availability == runs[r]->availability &&
			    a->low != UINT64_MAX && rec != UINT64_MAX &&
			    (a->low & ~rec) == 0) {
				v->allots_held++;
				continue;
			}
			/* A grant: CPUs given between ticks to a job that held
			 * none, kept apart from the runs (the history's grants;
			 * deq_replay checks them), while DEQ's answer for the
			 * quantum, recorded, gave it none. */
			if (a->from_none && a->allotment > 0 &&
			    runs[r]->allotment == 0) {
				v->allots_granted++;
				continue;
			}
			if (v->allots_bad++ < 5)
				fprintf(stderr, "loadgen: job %llu got allotment %u "
				        "(availability %u) for quantum %llu, the "
				        "history says %u (%u) for quanta %llu-%llu; "
				        "its next Allot: %u (%u) for quantum %lld\n",
				        (unsigned long long)id, a->allotment,
				        a->availability, (unsigned long long)a->q,
				        runs[r]->allotment, runs[r]->availability,
				        (unsigned long long)runs[r]->first_quantum,
				        (unsigned long long)runs[r]->last_quantum,
				        nx ? nx->allotment : 0, nx ? nx->availability : 0,
				        nx ? (long long)nx->q : -1LL);
		}
	}
}

/* Check the desires job `id` said (its log) against its runs, quantum by
 * quantum; those said from quantum `last` on (the last boundary, whose
 * tick may not have read them before the load generator stopped) are
 * not.  The daemon holds the last desire it read, and reads a job's
 * Feedbacks in order: so each run's desire is one the job said between
 * the one the run before took and the last said by the run's first
 * quantum (a desire superseded before any tick read it may be skipped),
 * or one sent before the daemon decided that quantum when its tick ran
 * late, past the next boundaries (as Allots tell, decided_ns; without
 * one, up to the next boundary; counted as "early"); anything else is a
 * mismatch.  A quantum whose recorded desire is not the last one said by
 * then is stale (a Feedback that missed its tick); the longest stretch of
 * stale quanta is reported.  Entry 0 is the desire a job starts with
 * (1). */
static void check_said(const struct loadcheck *c, uint64_t id,
                       const struct loadlog *log,
                       Asteal__AllotmentRecord **runs, size_t n,
                       uint64_t last, struct loadhist_verdict *v)
{
	size_t nsaid, p = 0, e = 0, ahead;
	const struct loadlog_said *said = loadlog_saids(log, &nsaid);
	uint64_t streak = 0;
	int heard = 0;

	for (size_t x = 0; x < n && runs[x]->first_quantum < last; x++) {
		uint64_t fq = runs[x]->first_quantum;
		uint64_t lq = runs[x]->last_quantum < last ? runs[x]->last_quantum
		                                           : last - 1;
		uint32_t d = runs[x]->desire;
		size_t k;

		while (e < nsaid && loadlog_quantum(log, e + 1) <= fq)
			e++;
		/* Silence: the daemon counts a job it has not heard from for
		 * a while as desiring nothing, which these jobs never say.
		 * Until the daemon shows it read the job's first Feedback (a
		 * run of a desire from after it), that is the load
		 * generator's doing: all joins go first, which takes seconds
		 * at thousands of jobs on a busy host. */
		if (d == 0 && !heard) {
			v->said_silent += lq - fq + 1;
			streak = 0;
			continue;
		}
		heard |= d != 0 && loadlog_spoke(log) != 0 && fq > loadlog_spoke(log);
		for (k = e; k > p && loadlog_desire(log, k) != d; k--)
			;
		if (loadlog_desire(log, k) != d) {
			uint64_t dec = loadcheck_decided(c, fq);

			/* entry a + 1 is said[a] */
			for (ahead = e; ahead < nsaid &&
			     (dec ? said[ahead].sent_ns < dec
			          : said[ahead].q <= fq + 1); ahead++)
				;
			for (k = ahead; k > e && loadlog_desire(log, k) != d; k--)
				;
			if (k > e)
				v->said_early++;
			else
				k = p;  /* not found: the mismatch below */
		}
		if (loadlog_desire(log, k) != d) {
			if (v->said_bad++ < 5)
				fprintf(stderr, "loadgen: job %llu has desire %u "
				        "recorded from quantum %llu, which it did "
				        "not say then (it said %u from %llu, then "
				        "%u from %llu)\n",
				        (unsigned long long)id, d,
				        (unsigned long long)fq, loadlog_desire(log, e),
				        (unsigned long long)loadlog_quantum(log, e),
				        e < nsaid ? loadlog_desire(log, e + 1) : 0,
				        e < nsaid ? (unsigned long long)loadlog_quantum(log, e + 1) : 0ULL);
			streak = 0;
			continue;
		}
		p = k;
		for (uint64_t q = fq; q <= lq; q++) {
			while (e < nsaid && loadlog_quantum(log, e + 1) <= q)
				e++;
			v->said_checked++;
			if (loadlog_desire(log, e) == d) {
				streak = 0;
				continue;
			}
			v->said_late++;
			if (++streak > v->said_lag_max)
				v->said_lag_max = streak;
		}
	}
}

/* Check the job with this id against its runs, if it is one of js's. */
static void check_job(const struct loadjobs *js, const struct loadcheck *c,
                      uint64_t id, Asteal__AllotmentRecord **runs, size_t n,
                      struct loadhist_verdict *v)
{
	int i = loadjobs_find(js, id);

	if (i < 0)
		return;
	check_got(id, loadjobs_log(js, i), runs, n, v);
	check_said(c, id, loadjobs_log(js, i), runs, n, loadcheck_last(c), v);
}

/* Page through the history of the n jobs of js from `first` (at most
 * PROTO_HISTORY_MAX_IDS) and check them: 0, or -1 when the history
 * cannot be read. */
static int check_some(const struct loadjobs *js, const struct loadcheck *c,
                      int first, int n, struct loadconn *conn,
                      struct loadhist_verdict *v)
{
	Asteal__Envelope req = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__HistoryCursor after = ASTEAL__HISTORY_CURSOR__INIT;
	Asteal__AllotmentRecord **runs = NULL;
	size_t nruns = 0, cap = 0;
	uint64_t cur = 0;
	uint64_t ids[PROTO_HISTORY_MAX_IDS];

	for (int i = 0; i < n; i++)
		ids[i] = loadjobs_id(js, first + i);
	hr.job_ids = ids;
	hr.n_job_ids = (size_t)n;
	req.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	req.history_request = &hr;
	/* Runs come by job, then time: check each job when its last is in.
	 * Pages are kept until then (a job's runs may span pages). */
	Asteal__Envelope **pages = NULL;
	size_t npages = 0, cappages = 0;
	int more = 1, rc = 0;

	while (more) {
		m = loadconn_ask(conn, &req);
		if (m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_HISTORY) {
			fprintf(stderr, "loadgen: no history from the daemon%s%s\n",
			        m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR ? ": " : "",
			        m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR
			        ? m->error->message : "");
			frame_free(m);
			rc = -1;
			break;
		}
		more = frame_history_after(&hr, &after, m->history);
		for (size_t k = 0; k < m->history->n_allotments; k++) {
			Asteal__AllotmentRecord *a = m->history->allotments[k];

			if (a->job_id != cur && nruns > 0) {
				check_job(js, c, cur, runs, nruns, v);
				nruns = 0;
			}
			cur = a->job_id;
			if (frame_grow(&runs, sizeof(*runs), nruns, &cap, 16) < 0) {
				rc = -1;
				break;
			}
			runs[nruns++] = a;
			v->runs++;
		}
		if (frame_grow(&pages, sizeof(*pages), npages, &cappages, 16) < 0) {
			frame_free(m);
			rc = -1;
			break;
		}
		pages[npages++] = m;
		if (m->history->n_allotments == 0)
			break;
	}
	if (rc == 0 && nruns > 0)
		check_job(js, c, cur, runs, nruns, v);
	for (size_t k = 0; k < npages; k++)
		frame_free(pages[k]);
	free(pages);
	free(runs);
	return rc;
}

/* Check every job, PROTO_HISTORY_MAX_IDS a request. */
int loadhist_check(const struct loadjobs *js, const struct loadcheck *c,
                   struct loadconn *conn, struct loadhist_verdict *v)
{
	int n = loadjobs_count(js), failed = 0;

	for (int i = 0; i < n; i += (int)PROTO_HISTORY_MAX_IDS)
		if (check_some(js, c, i, n - i < (int)PROTO_HISTORY_MAX_IDS
		               ? n - i : (int)PROTO_HISTORY_MAX_IDS, conn, v) < 0)
			failed++;
	return failed;
}
