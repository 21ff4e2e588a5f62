/*
 * loadgen.c - asteal-loadgen: a load generator for asteald.  One process
 * opens N protocol connections, each acting as a job that speaks the
 * quantum exchange as libasteal does (../shared/DESIGN.md, "One quantum,
 * on the wire"): quanta on the shared clock from the Welcome's t0 and L,
 * a Feedback at a boundary only when the job's rounded desire changed or
 * its heartbeat is due, allotments applied as they come.  One epoll loop
 * serves them all.
 *
 * Paths.  Each half of the exchange goes through the socket or through
 * the page asteald shares with each job (proto/page.h; "One quantum,
 * through a shared page"), chosen apart:
 *   --feedback message  Feedback messages, by changes and heartbeats (the
 *                       default);
 *   --feedback page     the job writes its Feedback into its page at every
 *                       boundary, as libasteal's link thread does (a
 *                       message only for a desire rising from 0);
 *   --allot message     the daemon sends Allot messages and a job that
 *                       gives CPUs up says Released (the default);
 *   --allot page        the job asks for its allotments in the page
 *                       (Hello page_allot): the daemon writes them there
 *                       and sends none.  The jobs look at their pages'
 *                       generation at every turn of the loop and at random
 *                       times in between (--page-poll-us, on average,
 *                       default L/20: the workers' safe points), take the
 *                       allotment when it moved (loadpage.c) and answer a
 *                       revocation as libasteal's last leaving worker
 *                       does: the page's parked part, then a write to the
 *                       eventfd the Welcome passed.
 * "--feedback page --allot page" is libasteal's own way; both "message",
 * the socket alone, is the way of a job that cannot use a page.
 *
 * Timers.  With --timers job (the default up to 1000 jobs) every job has
 * its own absolute timerfd on the grid t0 + q L, as a job process would;
 * with --timers shared (the default above) one timer serves them all,
 * which costs the load generator one wake-up per quantum instead of N
 * (at 10,000 jobs, a million timer reads a second would take the load
 * generator's whole core).  Either way every job acts at every boundary,
 * and a boundary the load generator was late for is skipped and counted.
 *
 * Desire.  Each job starts at desire 1 (A-STEAL's d_1, which the daemon
 * assumes); on each quantum, with probability RATE (--change-rate,
 * default 0.1) its desire takes one step up or down within [1, W], so RATE
 * is the fraction of quanta on which a job has something to say.  Usage
 * totals grow with the allotment (90% work, 10% steal of the allotted
 * time).  Each job has its own random stream (--seed).
 *
 * Checks.  Online: every allotment has allotment = number of CPUs <=
 * availability, <= W, <= P, distinct known CPU ids, a quantum not before
 * the job's last, and the decided_ns of every other one of its quantum
 * (a grant, CPUs between ticks to a job that held none, is decided
 * later); through the page, the stop words of the job's W slots agree
 * with it (1 from slot a_q on).  At every boundary the jobs' allotments
 * hold no CPU twice and sum to at most P: a "conflict" there is a
 * delivery that came late, not a wrong allotment, as is an allotment of
 * the last tick that came after the boundary ("late_allots"; the daemon
 * or the load generator ran a quantum late); both are reported apart.
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
 * when its turn's grant waited past the next tick), and every
 * desire a job sent is the recorded desire from the next quantum on, or
 * later (a Feedback that missed its tick leaves "stale" quanta, counted,
 * with the longest stretch of them), and the recorded desires follow what
 * was said in order; a desire of 0 recorded (silence: the daemon had not
 * heard the job for PROTO_SILENT_BEATS heartbeats) before the daemon shows
 * it read the job's first Feedback is the load generator's doing (every
 * job joins before any speaks), counted as "silent" quanta, and any later
 * is wrong.  A job that gives CPUs up says so at once (Released,
 * or its page's parked part), as if its leaving workers had parked (so
 * that asteald --handover release can be driven too).  Any failure is
 * "wrong" (exit status 1).  That DEQ's answers are exact is deq_replay's
 * check, on the database, after the daemon stops (bench/daemon.sh).
 *
 * Through the page a job sees only the allotment there when it looks,
 * the last of those written since its last look: the generation grows
 * by 2 with each, so the ones it never saw are counted
 * ("page_gens_missed"), and the checks hold without them.  Every
 * allotment the daemon writes of a quantum is one the history check
 * accepts as the quantum's last (the tick's answer, the free part of a
 * grant held back, a grant), so a missed one leaves the last seen to
 * check, as with messages; only what the job held before the one it sees
 * after a gap is not known, so that one may be a grant (online and in the
 * history check).  The looks come often enough (every L/20 by default)
 * that only a load generator running late misses any: at the joins, or
 * on a host too busy for it.
 *
 * Output: one line of key=value (bench/daemon.sh reads it): the daemon's
 * tick time, DEQ time and timer lateness (p50/p99/max, from its Status),
 * changes and sends per tick, ticks and skipped ticks, its user and system
 * CPU over the run (from /proc/PID/stat) as shares of one core, the load
 * generator's own CPU, Feedbacks and allotments, the host's steal over
 * the run (/proc/stat), the pages' figures (the daemon's pages written
 * and futex wakes per tick of the run, from its Status before and after;
 * the jobs' looks, generations seen and missed, torn reads), the checks,
 * and the history database's size.
 *
 *   asteal-loadgen --socket PATH --pid DAEMON_PID --jobs N --seconds S
 *                  [--workers W] [--change-rate RATE] [--timers job|shared]
 *                  [--db FILE] [--cpu CPU] [--seed N]
 *                  [--feedback message|page] [--allot message|page]
 *                  [--page-poll-us US]
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "exchange.h"
#include "frame.h"
#include "loadconn.h"
#include "loadcpu.h"
#include "loadpage.h"
#include "page.h"
#include "qtime.h"
#include "search.h"

#define CPU_IDS EXCHANGE_MAX_CPUS
#define WORDS ((int)(CPU_IDS / 64))

/* An allotment as a job learns it: from an Allot, or from its page. */
struct allot_in {
	uint64_t quantum, decided_ns;
	uint32_t allotment, availability;
	size_t ncpus;
	const uint32_t *cpus;         /* ascending */
	int gap;                      /* the page's generations before it were
	                                 not all seen: what the job held just
	                                 before is not known */
};

/* What a job got: one allotment, for the check against the history. */
struct got {
	uint64_t q;
	uint32_t allotment, availability;
	uint64_t cpus;            /* a hash of the CPU ids */
	uint64_t low;             /* the ids below 64, a bit each */
	int from_none;            /* the job held no CPU before it: it may be
	                             a grant */
};

/* What a job said: a desire from quantum q on. */
struct said {
	uint64_t q;
	uint64_t sent_ns;         /* when its Feedback was sent */
	uint32_t desire;
};

struct fake {
	int fd, tfd;              /* its socket; its own timer, or -1 */
	int passed[2];            /* the Welcome's page and eventfd, or -1 */
	struct loadpage lp;       /* its page, if it has one */
	uint32_t written;         /* the desire last written there */
	struct frame_reader *r;
	uint64_t id;              /* from the Welcome */
	int welcomed;
	uint64_t q;               /* the quantum in progress */
	uint32_t desire, sent;    /* now; what the daemon has */
	uint64_t sent_at;
	uint64_t closable;        /* its next Feedback closes this or later */
	uint64_t tot[4];          /* work, steal, mug, allotted */
	uint64_t rng;
	uint32_t allotment, availability;
	uint64_t cpus[WORDS];
	uint64_t allot_q;
	struct got *got;
	size_t ngot, capgot;
	struct said *said;
	size_t nsaid, capsaid;
	uint64_t spoke_q;         /* the quantum of its first Feedback, or 0 */
};

/* The whole run. */
struct run {
	struct fake *jobs;
	int n, P;
	uint32_t W;
	double rate;
	uint64_t t0, L, heartbeat;
	uint64_t checked_q;       /* the last boundary whose state was checked */
	uint64_t feedbacks, allots, wrong, conflicts, late_allots, skipped;
	uint64_t page_writes;     /* Feedbacks written in pages */
	int feed_page;            /* --feedback page */
	int allot_page;           /* --allot page */
	uint64_t poll_ns;         /* --page-poll-us: the jobs' look at their
	                             pages' generation, this often on average */
	uint64_t poll_rng;        /* the looks' random stream */
	uint64_t page_looks, page_gens, page_missed, page_torn, page_refused;
	uint64_t releaseds;
	uint64_t *decided;        /* per quantum from q_base: when the daemon */
	uint64_t q_base, nq;      /* decided it (an Allot's decided_ns), or 0 */
	uint8_t *decided_maybe;   /* ... as far as grants tell (decided_wrong) */
};

/* The next pseudo-random number of a stream (xorshift64; never 0). */
static uint64_t next_rand(uint64_t *rng)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return *rng;
}

/* Make room for one more element of a growing log: 0 or -1. */
static int grow(void *arr, size_t elem, size_t n, size_t *cap)
{
	return frame_grow(arr, elem, n, cap, 16);
}

/* A hash of a set of CPU ids given in ascending order (FNV-1a). */
static uint64_t cpus_hash(const uint32_t *ids, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= ids[i] + 1;
		h *= 1099511628211ull;
	}
	return h;
}

/* The CPU ids of a list as bits, if all are below 64; UINT64_MAX (taken
 * as unknown) if some id is 64 or more. */
static uint64_t cpus_low(const uint32_t *ids, size_t n)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++)
		m |= ids[i] < 64 ? (uint64_t)1 << ids[i] : UINT64_MAX;
	return m;
}

/* The next desire of a job that changes it with probability rate: one
 * step up or down within [1, W]. */
static uint32_t next_desire(uint64_t *rng, uint32_t d, uint32_t W, double rate)
{
	uint64_t x = next_rand(rng);

	if (W < 2 || (double)(x >> 11) * 0x1p-53 >= rate)
		return d;
	if (d <= 1)
		return 2;
	if (d >= W)
		return W - 1;
	return x & 1 ? d + 1 : d - 1;
}

/* The jobs' allotments at a boundary: no CPU twice, at most P in all. */
static void check_state(struct run *g)
{
	uint64_t seen[WORDS] = { 0 };
	uint64_t sum = 0;
	int bad = 0;

	for (int i = 0; i < g->n; i++) {
		struct fake *j = &g->jobs[i];

		sum += j->allotment;
		for (int w = 0; w < WORDS; w++) {
			if (seen[w] & j->cpus[w])
				bad = 1;
			seen[w] |= j->cpus[w];
		}
	}
	if (sum > (uint64_t)g->P)
		bad = 1;
	if (bad && g->conflicts++ < 5)
		fprintf(stderr, "loadgen: at boundary %llu the allotments overlap "
		        "or sum to %llu > %d\n", (unsigned long long)g->checked_q,
		        (unsigned long long)sum, g->P);
}

/* Job j told the daemon its desire from quantum q on: logged when it
 * changed (for the history check); 0, or -1 out of memory. */
static int said(struct fake *j, uint64_t q)
{
	if (j->spoke_q == 0)
		j->spoke_q = q;
	if (j->desire != j->sent) {
		if (grow(&j->said, sizeof(*j->said), j->nsaid, &j->capsaid) < 0)
			return -1;
		j->said[j->nsaid].q = q;
		j->said[j->nsaid].sent_ns = qtime_now_ns();
		j->said[j->nsaid++].desire = j->desire;
	}
	j->sent = j->desire;
	return 0;
}

/* Job j reaches the boundary that starts quantum q: close the quantum in
 * progress, maybe change desire, report when it changed or a heartbeat is
 * due. */
static int boundary(struct run *g, struct fake *j, uint64_t q, uint64_t now)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Feedback fb;
	struct exchange_feedback x;
	uint8_t buf[128];
	size_t len;
	uint64_t held = (uint64_t)j->allotment * g->L * (q - j->q);

	if (q <= j->q)
		return 0;
	if (q > g->checked_q) {         /* the first job here checks for all */
		g->checked_q = q;
		check_state(g);
	}
	g->skipped += q - j->q - 1;
	j->tot[0] += held / 10 * 9;
	j->tot[1] += held / 10;
	j->tot[3] += held;
	j->q = q;
	j->desire = next_desire(&j->rng, j->desire, g->W, g->rate);
	memset(&x, 0, sizeof(x));
	x.quantum = q - 1;
	x.desire = j->desire;
	x.desire_real = j->desire;
	x.use.ns[USAGE_WORK] = j->tot[0];
	x.use.ns[USAGE_STEAL] = j->tot[1];
	x.use.ns[USAGE_ALLOTTED] = j->tot[3];
	x.cls = j->allotment == j->sent ? 1 : 2;
	if (g->feed_page && j->lp.pg != NULL && q - 1 >= j->closable) {
		/* As libasteal does: every boundary into the page; a message
		 * only for a desire rising from 0. */
		int woke = j->written == 0 && j->desire > 0;

		page_feed_write(j->lp.pg, &x);
		j->written = j->desire;
		g->page_writes++;
		if (said(j, q) < 0)
			return -1;
		if (!woke)
			return 0;
	} else if (j->desire == j->sent && now - j->sent_at + g->L / 2 < g->heartbeat) {
		return 0;
	}
	if (q - 1 < j->closable)
		return 0;
	exchange_feedback_msg(&fb, &x);
	env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
	env.feedback = &fb;
	if (frame_encode(&env, buf, sizeof(buf), &len) < 0 ||
	    loadconn_send(j->fd, buf, len) < 0)
		return -1;
	if (said(j, q) < 0)
		return -1;
	j->sent_at = now;
	j->closable = q;
	g->feedbacks++;
	return 0;
}

/* Say that job j's leaving workers have parked (a fake job's do at once),
 * as libasteal does after an allotment that took CPUs away: through the
 * page's parked part and eventfd when its allotments come in the page
 * (keeping `allotment` workers), else with a Released message. */
static void send_released(struct run *g, struct fake *j, uint64_t q,
                          uint32_t allotment)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Released rel = ASTEAL__RELEASED__INIT;
	uint8_t buf[64];
	size_t len;

	if (j->lp.wake >= 0) {
		if (loadpage_parked(&j->lp, q, qtime_now_ns(), allotment < g->W
		                    ? g->W - allotment : 0) == 0)
			g->releaseds++;
		return;
	}
	rel.quantum = q;
	rel.parked_ns = qtime_now_ns();
	env.msg_case = ASTEAL__ENVELOPE__MSG_RELEASED;
	env.released = &rel;
	if (frame_encode(&env, buf, sizeof(buf), &len) == 0 &&
	    loadconn_send(j->fd, buf, len) == 0)
		g->releaseds++;
}

/* Whether an allotment of quantum q_base + k decided at dec breaks "one
 * quantum, one DEQ": every allotment of a quantum was decided at its
 * tick, but a grant (CPUs to a job that held none, between ticks; `grant`
 * says it may be one) later.  Seen in any order: while only allotments
 * that may be grants were seen of a quantum, the earliest stands for its
 * tick, tentatively. */
static int decided_wrong(struct run *g, uint64_t k, uint64_t dec, int grant)
{
	uint64_t *d = &g->decided[k];
	uint8_t *maybe = &g->decided_maybe[k];

	if (*d == 0 || (*maybe && dec < *d)) {
		*d = dec;
		*maybe = (uint8_t)grant;
		return 0;
	}
	if (dec == *d) {
		*maybe &= (uint8_t)grant;
		return 0;
	}
	return !(grant && dec > *d);
}

/* An allotment for job j: check it, apply it, log it. */
static void take_allot(struct run *g, struct fake *j, const struct allot_in *a)
{
	uint64_t cpus[WORDS] = { 0 };
	/* Whether the job held no CPU before it (it may be a grant): after
	 * generations of its page it did not see, it may have. */
	int from_none = j->allotment == 0 || a->gap;
	int wrong = a->allotment != a->ncpus || a->allotment > a->availability ||
	            a->allotment > g->W || a->allotment > (uint32_t)g->P ||
	            (j->ngot > 0 && a->quantum < j->allot_q);

	for (size_t c = 0; c < a->ncpus; c++) {
		uint32_t id = a->cpus[c];

		if (id >= CPU_IDS || (cpus[id / 64] >> (id % 64) & 1) ||
		    (c > 0 && id <= a->cpus[c - 1])) {
			wrong = 1;
			continue;
		}
		cpus[id / 64] |= (uint64_t)1 << (id % 64);
	}
	g->allots++;
	if (a->quantum >= g->q_base && a->quantum - g->q_base < g->nq &&
	    decided_wrong(g, a->quantum - g->q_base, a->decided_ns,
	                  from_none && a->allotment > 0)) {
		wrong = 1;              /* one quantum, one DEQ */
		fprintf(stderr, "loadgen: job %llu: an allotment of quantum %llu "
		        "decided at %llu, another at %llu\n",
		        (unsigned long long)j->id, (unsigned long long)a->quantum,
		        (unsigned long long)a->decided_ns,
		        (unsigned long long)g->decided[a->quantum - g->q_base]);
	}
	if (a->quantum < g->checked_q)  /* its boundary was checked already */
		g->late_allots++;
	if (wrong && g->wrong++ < 10)
		fprintf(stderr, "loadgen: job %llu: a wrong allotment: quantum "
		        "%llu, allotment %u of %zu CPUs, availability %u\n",
		        (unsigned long long)j->id, (unsigned long long)a->quantum,
		        a->allotment, a->ncpus, a->availability);
	for (int w = 0; w < WORDS; w++)
		if (j->cpus[w] & ~cpus[w]) {    /* it gave CPUs up */
			send_released(g, j, a->quantum, a->allotment);
			break;
		}
	j->allotment = a->allotment;
	j->availability = a->availability;
	memcpy(j->cpus, cpus, sizeof(cpus));
	j->allot_q = a->quantum;
	if (j->ngot > 0 && j->got[j->ngot - 1].q == a->quantum)
		j->ngot--;              /* only the last of a quantum counts */
	if (grow(&j->got, sizeof(*j->got), j->ngot, &j->capgot) < 0)
		return;
	j->got[j->ngot].from_none = from_none;
	j->got[j->ngot].q = a->quantum;
	j->got[j->ngot].allotment = a->allotment;
	j->got[j->ngot].availability = a->availability;
	j->got[j->ngot].low = cpus_low(a->cpus, a->ncpus);
	j->got[j->ngot++].cpus = cpus_hash(a->cpus, a->ncpus);
}

/* An Allot message for job j. */
static void take_allot_msg(struct run *g, struct fake *j, const Asteal__Allot *m)
{
	struct allot_in a;

	if (j->lp.wake >= 0 && g->wrong++ < 10)
		fprintf(stderr, "loadgen: job %llu: an Allot message, though its "
		        "allotments come in its page\n", (unsigned long long)j->id);
	a.quantum = m->quantum;
	a.decided_ns = m->decided_ns;
	a.allotment = m->allotment;
	a.availability = m->availability;
	a.ncpus = m->n_cpus;
	a.cpus = m->cpus;
	a.gap = 0;
	take_allot(g, j, &a);
}

/* Every job whose allotments come in its page looks at its generation (as
 * a worker does at each safe point) and takes the allotment when it
 * moved. */
static void look_pages(struct run *g)
{
	static struct loadpage_seen seen;       /* the loop's only */
	uint32_t ids[PAGE_SLOTS];
	struct allot_in a;

	if (!g->allot_page)
		return;
	g->page_looks++;
	for (int i = 0; i < g->n; i++) {
		struct fake *j = &g->jobs[i];
		int rc;

		if (!loadpage_moved(&j->lp))
			continue;
		rc = loadpage_take(&j->lp, (int)g->W, &seen);
		if (rc < 0)
			g->page_torn++;         /* being written: the next look */
		if (rc <= 0)
			continue;
		g->page_gens++;
		g->page_missed += seen.missed;
		if (seen.stops_bad >= 0 && g->wrong++ < 10)
			fprintf(stderr, "loadgen: job %llu: generation %u (allotment "
			        "%d) has slot %d's stop word wrong\n",
			        (unsigned long long)j->id, seen.gen,
			        seen.a.allotment, seen.stops_bad);
		for (int k = 0; k < seen.a.ncpus; k++)
			ids[k] = (uint32_t)seen.a.cpus[k];
		a.quantum = seen.a.quantum;
		a.decided_ns = seen.a.decided_ns;
		a.allotment = (uint32_t)seen.a.allotment;
		a.availability = (uint32_t)seen.a.availability;
		a.ncpus = (size_t)seen.a.ncpus;
		a.cpus = ids;
		a.gap = seen.missed > 0;
		take_allot(g, j, &a);
	}
}

/* Job j's Welcome came, with its page or without (a daemon that cannot
 * make one says so in its log: the job sends and gets messages, as
 * libasteal does, and is counted). */
static void welcome_page(struct run *g, struct fake *j, int page)
{
	char why[160];

	if (!page) {
		g->page_refused += g->feed_page || g->allot_page;
		for (int k = 0; k < 2; k++)
			if (j->passed[k] >= 0)
				close(j->passed[k]);
		j->passed[0] = j->passed[1] = -1;
		return;
	}
	if (loadpage_map(&j->lp, j->passed, g->allot_page, why, sizeof(why)) < 0) {
		fprintf(stderr, "loadgen: job %llu: its page is unusable: %s\n",
		        (unsigned long long)j->id, why);
		g->wrong++;
		return;
	}
	j->written = 1;
}

/* Read what job j's socket has: -1 when the daemon closed it. */
static int take_input(struct run *g, struct fake *j)
{
	Asteal__Envelope *m;
	ssize_t got = j->welcomed ? frame_reader_fill(j->r, j->fd)
	              : frame_reader_fill_fd(j->r, j->fd, j->passed, 2);

	if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
		fprintf(stderr, "loadgen: job %llu: the daemon closed it (%s)\n",
		        (unsigned long long)j->id, frame_reader_why(j->r));
		return -1;
	}
	while (frame_reader_next(j->r, &m) == 1) {
		switch (m->msg_case) {
		case ASTEAL__ENVELOPE__MSG_WELCOME:
			j->welcomed = 1;
			j->id = m->welcome->job_id;
			g->P = (int)m->welcome->n_cpus;
			g->t0 = m->welcome->t0_ns;
			g->L = (uint64_t)m->welcome->quantum_us * 1000u;
			g->heartbeat = (uint64_t)(m->welcome->heartbeat_ms ?
			               m->welcome->heartbeat_ms : PROTO_HEARTBEAT_MS) * 1000000u;
			welcome_page(g, j, m->welcome->page);
			break;
		case ASTEAL__ENVELOPE__MSG_ALLOT:
			take_allot_msg(g, j, m->allot);
			break;
		case ASTEAL__ENVELOPE__MSG_ERROR:
			if (g->wrong++ < 10)
				fprintf(stderr, "loadgen: job %llu: the daemon says: %s\n",
				        (unsigned long long)j->id, m->error->message);
			break;
		default:
			fprintf(stderr, "loadgen: unexpected %s\n", frame_name(m));
			g->wrong++;
			break;
		}
		frame_free(m);
	}
	return 0;
}

/* Arm an absolute timer on the grid, from the next boundary. */
static int arm(int fd, const struct run *g, uint64_t now)
{
	struct itimerspec its;
	uint64_t next = g->t0 + ((now - g->t0) / g->L + 1) * g->L;

	its.it_value.tv_sec = (time_t)(next / 1000000000u);
	its.it_value.tv_nsec = (long)(next % 1000000000u);
	its.it_interval.tv_sec = (time_t)(g->L / 1000000000u);
	its.it_interval.tv_nsec = (long)(g->L % 1000000000u);
	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Arm the timer of the pages' next look: the jobs' safe points, at random
 * times (uniform over [1/2, 3/2] of --page-poll-us from now), so that the
 * looks do not keep one phase against the daemon's ticks. */
static int arm_look(int fd, struct run *g)
{
	struct itimerspec its;
	uint64_t ns = g->poll_ns / 2 + next_rand(&g->poll_rng) % (g->poll_ns + 1);

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(ns / 1000000000u);
	its.it_value.tv_nsec = (long)(ns % 1000000000u);
	return timerfd_settime(fd, 0, &its, NULL);
}

/* Whether jobs[i] sorts before the id at key. */
static int fake_below(const void *arr, size_t i, const void *key)
{
	return ((const struct fake *)arr)[i].id < *(const uint64_t *)key;
}

/* The job with this id, or NULL (ids grow with the index). */
static struct fake *by_id(struct run *g, uint64_t id)
{
	size_t at = search_first(g->jobs, (size_t)g->n, &id, fake_below);

	return at < (size_t)g->n && g->jobs[at].id == id ? &g->jobs[at] : NULL;
}

/* What the history check found. */
struct verdict {
	uint64_t runs, allots_checked, allots_bad, allots_held, allots_granted;
	uint64_t allots_turns;
	uint64_t said_checked, said_late,
	         said_lag_max, said_early, said_bad, said_silent;
};

/* The k-th desire job j said (0: the one it starts with). */
static uint32_t said_desire(const struct fake *j, size_t k)
{
	return k == 0 ? 1 : j->said[k - 1].desire;
}

/* The quantum from which the k-th desire holds. */
static uint64_t said_quantum(const struct fake *j, size_t k)
{
	return k == 0 ? 0 : j->said[k - 1].q;
}

/* Check one job's log against its runs (ordered by first quantum); the
 * desires said from quantum `last` on (the last boundary, whose tick may
 * not have read them before the load generator stopped) are not. */
static void check_job(const struct run *g, struct fake *j,
                      Asteal__AllotmentRecord **runs, size_t n, uint64_t last,
                      struct verdict *v)
{
	size_t r = 0;

	for (size_t k = 0; k < j->ngot; k++) {
		const struct got *a = &j->got[k];
		const struct got *nx = k + 1 < j->ngot ? &j->got[k + 1] : NULL;
		uint64_t want;

		while (r < n && runs[r]->last_quantum < a->q)
			r++;
		if (r == n || runs[r]->first_quantum > a->q)
			continue;       /* not recorded (yet): nothing to compare */
		v->allots_checked++;
		want = cpus_hash(runs[r]->cpus, runs[r]->n_cpus);
		/* A run of turns (its cpu_quanta above allotment x quanta:
		 * DEQ's leftover CPUs taken in turns) keeps the lower
		 * allotment and every CPU used: a quantum of it got its
		 * availability, the run's allotment or one more, on CPUs
		 * among the run's (deq_replay's rule); or, with --handover
		 * release, only the free part of them when the turn's grant
		 * was held back past the next tick (counted as held over). */
		if (runs[r]->cpu_quanta != (uint64_t)runs[r]->allotment *
		    (runs[r]->last_quantum - runs[r]->first_quantum + 1)) {
			uint64_t rec = cpus_low(runs[r]->cpus, runs[r]->n_cpus);

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
			uint64_t rec = cpus_low(runs[r]->cpus, runs[r]->n_cpus);

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
				        (unsigned long long)j->id, a->allotment,
				        a->availability, (unsigned long long)a->q,
				        runs[r]->allotment, runs[r]->availability,
				        (unsigned long long)runs[r]->first_quantum,
				        (unsigned long long)runs[r]->last_quantum,
				        nx ? nx->allotment : 0, nx ? nx->availability : 0,
				        nx ? (long long)nx->q : -1LL);
		}
	}
	/* Desires, quantum by quantum.  The daemon holds the last desire it
	 * read, and reads a job's Feedbacks in order: so each run's desire is
	 * one the job said between the one the run before took and the last
	 * said by the run's first quantum (a desire superseded before any
	 * tick read it may be skipped), or one sent before the daemon
	 * decided that quantum when its tick ran late, past the next
	 * boundaries (as Allots tell, decided_ns; without one, up to the
	 * next boundary; counted as "early"); anything else is a mismatch.  A quantum whose
	 * recorded desire is not the last one said by then is stale (a
	 * Feedback that missed its tick); the longest stretch of stale quanta
	 * is reported.  Entry 0 is the desire a job starts with (1).  Quanta
	 * from `last` on are not looked at. */
	size_t p = 0, e = 0, ahead;
	uint64_t streak = 0;
	int heard = 0;

	for (size_t x = 0; x < n && runs[x]->first_quantum < last; x++) {
		uint64_t fq = runs[x]->first_quantum;
		uint64_t lq = runs[x]->last_quantum < last ? runs[x]->last_quantum
		                                           : last - 1;
		uint32_t d = runs[x]->desire;
		size_t k;

		while (e < j->nsaid && said_quantum(j, e + 1) <= fq)
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
		heard |= d != 0 && j->spoke_q != 0 && fq > j->spoke_q;
		for (k = e; k > p && said_desire(j, k) != d; k--)
			;
		if (said_desire(j, k) != d) {
			uint64_t dec = fq >= g->q_base && fq - g->q_base < g->nq
			               ? g->decided[fq - g->q_base] : 0;

			/* entry a + 1 is said[a] */
			for (ahead = e; ahead < j->nsaid &&
			     (dec ? j->said[ahead].sent_ns < dec
			          : j->said[ahead].q <= fq + 1); ahead++)
				;
			for (k = ahead; k > e && said_desire(j, k) != d; k--)
				;
			if (k > e)
				v->said_early++;
			else
				k = p;  /* not found: the mismatch below */
		}
		if (said_desire(j, k) != d) {
			if (v->said_bad++ < 5)
				fprintf(stderr, "loadgen: job %llu has desire %u "
				        "recorded from quantum %llu, which it did "
				        "not say then (it said %u from %llu, then "
				        "%u from %llu)\n",
				        (unsigned long long)j->id, d,
				        (unsigned long long)fq, said_desire(j, e),
				        (unsigned long long)said_quantum(j, e),
				        e < j->nsaid ? said_desire(j, e + 1) : 0,
				        e < j->nsaid ? (unsigned long long)said_quantum(j, e + 1) : 0ULL);
			streak = 0;
			continue;
		}
		p = k;
		for (uint64_t q = fq; q <= lq; q++) {
			while (e < j->nsaid && said_quantum(j, e + 1) <= q)
				e++;
			v->said_checked++;
			if (said_desire(j, e) == d) {
				streak = 0;
				continue;
			}
			v->said_late++;
			if (++streak > v->said_lag_max)
				v->said_lag_max = streak;
		}
	}
}

/* Page through the history of jobs[0..n) (at most PROTO_HISTORY_MAX_IDS)
 * and check what they got and said against it: 0, or -1 when the history
 * cannot be read. */
static int check_history(struct run *g, const struct fake *jobs, int n,
                         struct loadconn *conn, struct verdict *v)
{
	Asteal__Envelope req = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__HistoryCursor after = ASTEAL__HISTORY_CURSOR__INIT;
	Asteal__AllotmentRecord **runs = NULL;
	size_t nruns = 0, cap = 0;
	uint64_t cur = 0;
	uint64_t ids[PROTO_HISTORY_MAX_IDS];

	for (int i = 0; i < n; i++)
		ids[i] = jobs[i].id;
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
				struct fake *j = by_id(g, cur);
				if (j != NULL)
					check_job(g, j, runs, nruns, g->checked_q, v);
				nruns = 0;
			}
			cur = a->job_id;
			if (grow(&runs, sizeof(*runs), nruns, &cap) < 0) {
				rc = -1;
				break;
			}
			runs[nruns++] = a;
			v->runs++;
		}
		if (grow(&pages, sizeof(*pages), npages, &cappages) < 0) {
			frame_free(m);
			rc = -1;
			break;
		}
		pages[npages++] = m;
		if (m->history->n_allotments == 0)
			break;
	}
	if (rc == 0 && nruns > 0) {
		struct fake *j = by_id(g, cur);
		if (j != NULL)
			check_job(g, j, runs, nruns, g->checked_q, v);
	}
	for (size_t k = 0; k < npages; k++)
		frame_free(pages[k]);
	free(pages);
	free(runs);
	return rc;
}

/* Whether a path named on the command line is the page ("page") or
 * messages ("message"); *bad set for anything else. */
static int via(const char *name, int *bad)
{
	if (strcmp(name, "page") != 0 && strcmp(name, "message") != 0)
		*bad = 1;
	return strcmp(name, "page") == 0;
}

/* Connect N fake jobs, serve them for S seconds, check and report. */
int main(int argc, char **argv)
{
	const char *sock = NULL, *db = NULL, *timers = NULL;
	int pid = 0, n = 100, i, cpu = -1, ep, shared_fd = -1, poll_fd = -1;
	int welcomed = 0, bad_mode = 0;
	double poll_us = -1;
	uint64_t seed = 1, start, end, q;
	double seconds = 10, du0, ds0, du1, ds1, l0, l1, st0, tt0, st1, tt1, elapsed;
	double pw_tick = 0, fw_tick = 0;
	Asteal__Status s0 = ASTEAL__STATUS__INIT;
	struct run g;
	struct epoll_event *evs;
	struct rlimit rl;
	struct verdict v;

	memset(&g, 0, sizeof(g));
	memset(&v, 0, sizeof(v));
	g.W = 8;
	g.rate = 0.1;
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--socket") == 0)
			sock = argv[i + 1];
		else if (strcmp(argv[i], "--pid") == 0)
			pid = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--jobs") == 0)
			n = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--seconds") == 0)
			seconds = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--workers") == 0)
			g.W = (uint32_t)atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--change-rate") == 0)
			g.rate = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--timers") == 0)
			timers = argv[i + 1];
		else if (strcmp(argv[i], "--db") == 0)
			db = argv[i + 1];
		else if (strcmp(argv[i], "--cpu") == 0)
			cpu = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--seed") == 0)
			seed = strtoull(argv[i + 1], NULL, 0);
		else if (strcmp(argv[i], "--feedback") == 0)
			g.feed_page = via(argv[i + 1], &bad_mode);
		else if (strcmp(argv[i], "--allot") == 0)
			g.allot_page = via(argv[i + 1], &bad_mode);
		else if (strcmp(argv[i], "--page-poll-us") == 0)
			poll_us = atof(argv[i + 1]);
		else
			break;
	}
	if (timers == NULL)
		timers = n <= 1000 ? "job" : "shared";
	if (sock == NULL || pid <= 0 || n < 1 || n > 100000 || i != argc ||
	    seconds <= 0 || g.W < 1 || g.W > PAGE_SLOTS || g.rate < 0 ||
	    g.rate > 1 || bad_mode || (poll_us != -1 && poll_us < 10) ||
	    (strcmp(timers, "job") != 0 && strcmp(timers, "shared") != 0)) {
		fprintf(stderr, "usage: asteal-loadgen --socket PATH --pid PID --jobs N "
		        "--seconds S [--workers W] [--change-rate 0..1] "
		        "[--timers job|shared] [--db FILE] [--cpu CPU] [--seed N] "
		        "[--feedback message|page] [--allot message|page] "
		        "[--page-poll-us US]\n");
		return 2;
	}
	g.n = n;
	/* Sockets, per-job timers (if any), the pages' eventfds (if any),
	 * and a few more. */
	int files = (strcmp(timers, "job") == 0 ? 2 * n : n) +
	            (g.allot_page ? n : 0) + 64;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)files) {
		rl.rlim_cur = (rlim_t)files;
		if (rl.rlim_max < rl.rlim_cur || setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			fprintf(stderr, "loadgen: %d jobs need %d files; the limit is %llu\n",
			        n, files, (unsigned long long)rl.rlim_max);
			return 1;
		}
	}
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			perror("loadgen: --cpu");
	}
	g.jobs = calloc((size_t)n, sizeof(*g.jobs));
	evs = calloc((size_t)(2 * n + 2), sizeof(*evs));
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (g.jobs == NULL || evs == NULL || ep < 0)
		return 1;
	for (i = 0; i < n; i++) {
		struct fake *j = &g.jobs[i];
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)i };

		j->passed[0] = j->passed[1] = -1;
		loadpage_init(&j->lp);
		j->fd = loadconn_dial(sock, ASTEAL__ROLE__JOB, g.W, g.feed_page, g.allot_page);
		j->tfd = -1;
		j->r = frame_reader_new();
		j->desire = j->sent = 1;
		/* splitmix64 of (seed, job): distinct, nonzero streams */
		j->rng = (seed + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull);
		j->rng = (j->rng ^ (j->rng >> 30)) * 0xbf58476d1ce4e5b9ull;
		j->rng = (j->rng ^ (j->rng >> 27)) * 0x94d049bb133111ebull;
		j->rng ^= j->rng >> 31;
		if (j->rng == 0)
			j->rng = 1;
		if (j->fd < 0 || j->r == NULL) {
			fprintf(stderr, "loadgen: job %d of %d could not join\n", i + 1, n);
			return 1;
		}
		if (epoll_ctl(ep, EPOLL_CTL_ADD, j->fd, &ev) < 0) {
			perror("loadgen: epoll_ctl");
			return 1;
		}
	}
	/* Every Welcome first: the grid comes in them. */
	while (welcomed < n) {
		int k = epoll_wait(ep, evs, 2 * n + 2, 10000);

		if (k <= 0) {
			fprintf(stderr, "loadgen: only %d of %d jobs welcomed\n", welcomed, n);
			return 1;
		}
		for (int e = 0; e < k; e++) {
			struct fake *j = &g.jobs[evs[e].data.u64];
			int was = j->welcomed;

			if (take_input(&g, j) < 0)
				return 1;
			welcomed += j->welcomed && !was;
		}
		look_pages(&g);         /* grants at join */
	}
	{
		/* The daemon's counts before the run. */
		struct loadconn *conn = loadconn_open(sock);
		Asteal__Envelope *m = conn != NULL ? loadconn_status(conn) : NULL;

		if (m == NULL)
			return 1;
		s0.ticks = m->status->ticks;
		s0.pages_written = m->status->pages_written;
		s0.futex_wakes = m->status->futex_wakes;
		frame_free(m);
		loadconn_free(conn);
	}
	start = qtime_now_ns();
	for (i = 0; i < n; i++) {
		struct fake *j = &g.jobs[i];

		j->q = (start - g.t0) / g.L;
		j->sent_at = start;
	}
	g.checked_q = (start - g.t0) / g.L;
	g.q_base = g.checked_q;
	g.nq = (uint64_t)seconds * 1000000000u / g.L + 16;
	g.decided = calloc(g.nq, sizeof(*g.decided));
	g.decided_maybe = calloc(g.nq, sizeof(*g.decided_maybe));
	if (g.decided == NULL || g.decided_maybe == NULL) {
		fprintf(stderr, "loadgen: out of memory\n");
		return 1;
	}
	if (strcmp(timers, "job") == 0) {
		for (i = 0; i < n; i++) {
			struct epoll_event ev = { .events = EPOLLIN,
			                          .data.u64 = (uint64_t)1 << 32 | (uint64_t)i };
			g.jobs[i].tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
			if (g.jobs[i].tfd < 0 || arm(g.jobs[i].tfd, &g, start) < 0 ||
			    epoll_ctl(ep, EPOLL_CTL_ADD, g.jobs[i].tfd, &ev) < 0) {
				perror("loadgen: timer");
				return 1;
			}
		}
	} else {
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)2 << 32 };
		shared_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (shared_fd < 0 || arm(shared_fd, &g, start) < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, shared_fd, &ev) < 0) {
			perror("loadgen: timer");
			return 1;
		}
	}
	if (g.allot_page) {
		/* The pages' look, besides every other wake-up. */
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)3 << 32 };

		g.poll_ns = poll_us > 0 ? (uint64_t)(poll_us * 1e3) : g.L / 20;
		g.poll_rng = seed ^ 0x5bd1e9955bd1e995ull;
		poll_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (poll_fd < 0 || arm_look(poll_fd, &g) < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, poll_fd, &ev) < 0) {
			perror("loadgen: the pages' timer");
			return 1;
		}
	}
	if (loadcpu_of(pid, &du0, &ds0) < 0) {
		fprintf(stderr, "loadgen: no process %d\n", pid);
		return 1;
	}
	l0 = loadcpu_own();
	loadcpu_steal(&st0, &tt0);
	end = start + (uint64_t)(seconds * 1e9);
	while (qtime_now_ns() < end) {
		int k = epoll_wait(ep, evs, 2 * n + 2, 100);

		if (k < 0 && errno != EINTR) {
			perror("loadgen: epoll_wait");
			return 1;
		}
		/* Sockets and pages first: allotments that came before a
		 * boundary apply before it. */
		for (int e = 0; e < k; e++)
			if (evs[e].data.u64 >> 32 == 0 &&
			    take_input(&g, &g.jobs[evs[e].data.u64]) < 0)
				return 1;
		look_pages(&g);
		for (int e = 0; e < k; e++) {
			uint64_t kind = evs[e].data.u64 >> 32, x, now;
			int fd = kind == 1 ? g.jobs[evs[e].data.u64 & 0xffffffffu].tfd
			         : kind == 2 ? shared_fd : poll_fd;

			if (kind == 0 || read(fd, &x, sizeof(x)) != (ssize_t)sizeof(x))
				continue;
			if (kind == 3) {
				if (arm_look(poll_fd, &g) < 0) {
					perror("loadgen: the pages' timer");
					return 1;
				}
				continue;
			}
			now = qtime_now_ns();
			q = (now - g.t0) / g.L;
			if (kind == 1) {
				if (boundary(&g, &g.jobs[evs[e].data.u64 & 0xffffffffu], q, now) < 0)
					return 1;
			} else {
				for (i = 0; i < n; i++)
					if (boundary(&g, &g.jobs[i], q, now) < 0)
						return 1;
			}
		}
	}
	if (loadcpu_of(pid, &du1, &ds1) < 0) {
		fprintf(stderr, "loadgen: the daemon (pid %d) died\n", pid);
		return 1;
	}
	l1 = loadcpu_own();
	loadcpu_steal(&st1, &tt1);
	elapsed = (double)(qtime_now_ns() - start) * 1e-9;
	{
		struct loadconn *conn = loadconn_open(sock);
		Asteal__Envelope *m = conn != NULL ? loadconn_status(conn) : NULL;
		const Asteal__Status *s;
		struct stat sb;
		long long dbsize = -1;
		double ticks;

		if (m == NULL)
			return 1;
		s = m->status;
		/* The pages' counts over the run, per tick of it. */
		ticks = s->ticks > s0.ticks ? (double)(s->ticks - s0.ticks) : 0;
		if (ticks > 0) {
			pw_tick = (double)(s->pages_written - s0.pages_written) / ticks;
			fw_tick = (double)(s->futex_wakes - s0.futex_wakes) / ticks;
		}
		for (i = 0; i < n; i += (int)PROTO_HISTORY_MAX_IDS)
			if (check_history(&g, g.jobs + i, n - i < (int)PROTO_HISTORY_MAX_IDS
			                  ? n - i : (int)PROTO_HISTORY_MAX_IDS, conn, &v) < 0)
				g.wrong++;
		if (db != NULL && stat(db, &sb) == 0)
			dbsize = (long long)sb.st_size;
		printf("jobs=%d seconds=%.1f change_rate=%g timers=%s feedback=%s "
		       "allot=%s P=%d ticks=%llu "
		       "skipped_ticks=%llu tick_p50_us=%.1f tick_p99_us=%.1f "
		       "tick_max_us=%.1f deq_p50_us=%.1f deq_p99_us=%.1f "
		       "wake_p50_us=%.1f wake_p99_us=%.1f wake_max_us=%.1f "
		       "changes_per_tick=%.2f sends_per_tick=%.2f "
		       "daemon_user_pct=%.2f daemon_sys_pct=%.2f daemon_cpu_pct=%.2f "
		       "loadgen_cpu_pct=%.2f steal_pct=%.1f page_writes=%llu "
		       "page_allot_jobs=%u page_refused=%llu page_poll_us=%.0f "
		       "page_looks=%llu page_gens=%llu page_gens_missed=%llu "
		       "page_torn=%llu pages_written_per_tick=%.2f "
		       "futex_wakes_per_tick=%.2f feedbacks=%llu "
		       "feedbacks_per_job_s=%.2f bad_feedbacks=%llu allots=%llu "
		       "releaseds=%llu revoke_p50_us=%.1f revoke_p99_us=%.1f "
		       "late_allots=%llu conflicts=%llu loadgen_skipped=%llu runs=%llu "
		       "allots_checked=%llu allots_mismatched=%llu allots_held_over=%llu "
		       "allots_granted=%llu allots_in_turns=%llu "
		       "desire_quanta=%llu desire_stale_quanta=%llu desire_stale_max=%llu "
		       "desires_early=%llu desire_silent_quanta=%llu "
		       "desires_mismatched=%llu "
		       "wrong=%llu db_bytes=%lld\n",
		       n, elapsed, g.rate, timers, g.feed_page ? "page" : "message",
		       g.allot_page ? "page" : "message", g.P, (unsigned long long)s->ticks,
		       (unsigned long long)s->skipped_ticks,
		       s->tick_p50_ns * 1e-3, s->tick_p99_ns * 1e-3, s->tick_max_ns * 1e-3,
		       s->deq_p50_ns * 1e-3, s->deq_p99_ns * 1e-3,
		       s->wake_p50_ns * 1e-3, s->wake_p99_ns * 1e-3, s->wake_max_ns * 1e-3,
		       s->changes_per_tick, s->sends_per_tick,
		       100.0 * (du1 - du0) / elapsed, 100.0 * (ds1 - ds0) / elapsed,
		       100.0 * (du1 - du0 + ds1 - ds0) / elapsed,
		       100.0 * (l1 - l0) / elapsed,
		       tt1 > tt0 ? 100.0 * (st1 - st0) / (tt1 - tt0) : 0.0,
		       (unsigned long long)g.page_writes,
		       s->page_allot_jobs, (unsigned long long)g.page_refused,
		       (double)g.poll_ns * 1e-3, (unsigned long long)g.page_looks,
		       (unsigned long long)g.page_gens,
		       (unsigned long long)g.page_missed,
		       (unsigned long long)g.page_torn,
		       pw_tick, fw_tick,
		       (unsigned long long)g.feedbacks,
		       (double)g.feedbacks / n / elapsed,
		       (unsigned long long)s->bad_feedbacks, (unsigned long long)g.allots,
		       (unsigned long long)g.releaseds, s->revoke_p50_ns * 1e-3,
		       s->revoke_p99_ns * 1e-3,
		       (unsigned long long)g.late_allots, (unsigned long long)g.conflicts,
		       (unsigned long long)g.skipped, (unsigned long long)v.runs,
		       (unsigned long long)v.allots_checked,
		       (unsigned long long)v.allots_bad,
		       (unsigned long long)v.allots_held,
		       (unsigned long long)v.allots_granted,
		       (unsigned long long)v.allots_turns,
		       (unsigned long long)v.said_checked,
		       (unsigned long long)v.said_late,
		       (unsigned long long)v.said_lag_max,
		       (unsigned long long)v.said_early,
		       (unsigned long long)v.said_silent,
		       (unsigned long long)v.said_bad,
		       (unsigned long long)(g.wrong + v.allots_bad +
		                            v.said_bad + s->bad_feedbacks),
		       dbsize);
		g.wrong += v.allots_bad + v.said_bad + s->bad_feedbacks;
		frame_free(m);
		loadconn_free(conn);
	}
	for (i = 0; i < n; i++) {
		close(g.jobs[i].fd);
		if (g.jobs[i].tfd >= 0)
			close(g.jobs[i].tfd);
		frame_reader_free(g.jobs[i].r);
		loadpage_free(&g.jobs[i].lp);
		free(g.jobs[i].got);
		free(g.jobs[i].said);
	}
	if (shared_fd >= 0)
		close(shared_fd);
	if (poll_fd >= 0)
		close(poll_fd);
	free(g.decided);
	free(g.decided_maybe);
	free(g.jobs);
	free(evs);
	close(ep);
	return g.wrong ? 1 : 0;
}
