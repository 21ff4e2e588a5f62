/*
 * loadjobs.c - asteal-loadgen's fake jobs (see loadjobs.h).
 *
 * A job learns the grid from its Welcome (quanta on the shared clock from
 * t0 and L, the heartbeat, P) and acts at every boundary: it closes the
 * quantum in progress, with usage totals that grow with the allotment
 * (90% work, 10% steal of the allotted time), and its desire takes, with
 * probability RATE, one step up or down within [1, W] (it starts at 1,
 * A-STEAL's d_1, which the daemon assumes; each job has its own random
 * stream).  It says its desire by a Feedback message when the rounded
 * desire changed or its heartbeat is due, or (feed_page) writes its
 * Feedback into its page at every boundary, as libasteal's link thread
 * does, with a message only for a desire rising from 0.
 *
 * Its allotments come as Allot messages or (allot_page, Hello
 * page_allot) in its page: the daemon writes them there and sends none,
 * and the job takes the allotment when the page's generation moved
 * (loadpage.c).  Each is checked (loadcheck.c) and logged (loadlog.c).  A
 * job that gives CPUs up says so at once, as if its leaving workers had
 * parked: a Released message, or as libasteal's last leaving worker does,
 * the page's parked part and a write to the eventfd the Welcome passed
 * (so that asteald --handover release can be driven too).
 *
 * Through the page a job sees only the allotment there when it looks,
 * the last of those written since its last look: the generation grows by
 * 2 with each, so the ones it never saw are counted ("page_gens_missed"),
 * and the checks hold without them.  Every allotment the daemon writes of
 * a quantum is one the history check accepts as the quantum's last (the
 * tick's answer, the free part of a grant held back, a grant), so a
 * missed one leaves the last seen to check, as with messages; only what
 * the job held before the one it sees after a gap is not known, so that
 * one may be a grant (online and in the history check).  The looks come
 * often enough (every L/20 by default) that only a load generator running
 * late misses any: at the joins, or on a host too busy for it.
 */
#include "loadjobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exchange.h"
#include "frame.h"
#include "loadconn.h"
#include "loadpage.h"
#include "page.h"
#include "qtime.h"
#include "search.h"

/* One fake job. */
struct fake {
	int fd;                   /* its socket */
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
	struct loadlog *log;
};

/* The jobs of a run. */
struct loadjobs {
	struct fake *jobs;
	struct loadjobs_conf conf;
	struct loadjobs_grid grid;
	struct loadjobs_counts counts;
	struct loadcheck *check;
	uint64_t poll_ns;         /* the pages' looks, this often on average */
	uint64_t poll_rng;        /* the looks' random stream */
};

/* The next pseudo-random number of a stream (xorshift64; never 0). */
static uint64_t next_rand(uint64_t *rng)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return *rng;
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

/* Connect the jobs and say their Hellos. */
struct loadjobs *loadjobs_create(const struct loadjobs_conf *conf,
                                 struct loadcheck *c)
{
	struct loadjobs *js = calloc(1, sizeof(*js));
	int n = conf->n;

	if (js == NULL || (js->jobs = calloc((size_t)n, sizeof(*js->jobs))) == NULL) {
		free(js);
		return NULL;
	}
	js->conf = *conf;
	js->check = c;
	js->poll_rng = conf->seed ^ 0x5bd1e9955bd1e995ull;
	for (int i = 0; i < n; i++) {
		struct fake *j = &js->jobs[i];

		j->passed[0] = j->passed[1] = -1;
		loadpage_init(&j->lp);
		j->fd = -1;
	}
	for (int i = 0; i < n; i++) {
		struct fake *j = &js->jobs[i];

		j->fd = loadconn_dial(conf->sock, ASTEAL__ROLE__JOB, conf->W,
		                      conf->feed_page, conf->allot_page);
		j->r = frame_reader_new();
		j->log = loadlog_create();
		j->desire = j->sent = 1;
		/* splitmix64 of (seed, job): distinct, nonzero streams */
		j->rng = (conf->seed + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull);
		j->rng = (j->rng ^ (j->rng >> 30)) * 0xbf58476d1ce4e5b9ull;
		j->rng = (j->rng ^ (j->rng >> 27)) * 0x94d049bb133111ebull;
		j->rng ^= j->rng >> 31;
		if (j->rng == 0)
			j->rng = 1;
		if (j->fd < 0 || j->r == NULL || j->log == NULL) {
			fprintf(stderr, "loadgen: job %d of %d could not join\n", i + 1, n);
			loadjobs_free(js);
			return NULL;
		}
	}
	return js;
}

/* Close every job. */
void loadjobs_free(struct loadjobs *js)
{
	if (js == NULL)
		return;
	for (int i = 0; i < js->conf.n; i++) {
		struct fake *j = &js->jobs[i];

		if (j->fd >= 0)
			close(j->fd);
		for (int k = 0; k < 2; k++)
			if (j->passed[k] >= 0)
				close(j->passed[k]);
		frame_reader_free(j->r);
		loadpage_free(&j->lp);
		loadlog_free(j->log);
	}
	free(js->jobs);
	free(js);
}

/* Job i's socket. */
int loadjobs_fd(const struct loadjobs *js, int i)
{
	return js->jobs[i].fd;
}

/* Job j says its desire from quantum q on: logged when it changed (for
 * the history check); 0, or -1 out of memory. */
static int said(struct fake *j, uint64_t q)
{
	if (loadlog_said(j->log, q, j->desire) < 0)
		return -1;
	j->sent = j->desire;
	return 0;
}

/* Job i at the boundary of quantum q. */
int loadjobs_boundary(struct loadjobs *js, int i, uint64_t q, uint64_t now)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	struct exchange_feedback_pb fb;
	struct exchange_feedback x;
	struct fake *j = &js->jobs[i];
	uint32_t allotment = loadcheck_allotment(js->check, i);
	uint8_t buf[128];
	size_t len;
	uint64_t held = (uint64_t)allotment * js->grid.L * (q - j->q);

	if (q <= j->q)
		return 0;
	loadcheck_boundary(js->check, q, js->grid.P);   /* the first job here
	                                                   checks for all */
	js->counts.skipped += q - j->q - 1;
	j->tot[0] += held / 10 * 9;
	j->tot[1] += held / 10;
	j->tot[3] += held;
	j->q = q;
	j->desire = next_desire(&j->rng, j->desire, js->conf.W, js->conf.rate);
	memset(&x, 0, sizeof(x));
	x.quantum = q - 1;
	x.desire = j->desire;
	x.desire_real = j->desire;
	x.use.ns[USAGE_WORK] = j->tot[0];
	x.use.ns[USAGE_STEAL] = j->tot[1];
	x.use.ns[USAGE_ALLOTTED] = j->tot[3];
	x.cls = allotment == j->sent ? 1 : 2;
	if (js->conf.feed_page && j->lp.pg != NULL && q - 1 >= j->closable) {
		/* As libasteal does: every boundary into the page; a message
		 * only for a desire rising from 0. */
		int woke = j->written == 0 && j->desire > 0;

		page_feed_write(j->lp.pg, &x);
		j->written = j->desire;
		js->counts.page_writes++;
		if (said(j, q) < 0)
			return -1;
		if (!woke)
			return 0;
	} else if (j->desire == j->sent &&
	           now - j->sent_at + js->grid.L / 2 < js->grid.heartbeat) {
		return 0;
	}
	if (q - 1 < j->closable)
		return 0;
	exchange_feedback_msg(&fb, &x);
	env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
	env.feedback = &fb.m;
	if (frame_encode(&env, buf, sizeof(buf), &len) < 0 ||
	    loadconn_send(j->fd, buf, len) < 0)
		return -1;
	if (said(j, q) < 0)
		return -1;
	j->sent_at = now;
	j->closable = q;
	js->counts.feedbacks++;
	return 0;
}

/* Say that job j's leaving workers have parked (a fake job's do at once),
 * as libasteal does after an allotment that took CPUs away: through the
 * page's parked part and eventfd when its allotments come in the page
 * (keeping `allotment` workers), else with a Released message. */
static void send_released(struct loadjobs *js, struct fake *j, uint64_t q,
                          uint32_t allotment)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Released rel = ASTEAL__RELEASED__INIT;
	uint32_t W = js->conf.W;
	uint8_t buf[64];
	size_t len;

	if (j->lp.wake >= 0) {
		if (loadpage_parked(&j->lp, q, qtime_now_ns(), allotment < W
		                    ? W - allotment : 0) == 0)
			js->counts.releaseds++;
		return;
	}
	rel.quantum = q;
	rel.parked_ns = qtime_now_ns();
	env.msg_case = ASTEAL__ENVELOPE__MSG_RELEASED;
	env.released = &rel;
	if (frame_encode(&env, buf, sizeof(buf), &len) == 0 &&
	    loadconn_send(j->fd, buf, len) == 0)
		js->counts.releaseds++;
}

/* An allotment for job i: check it, apply it, log it. */
static void take_allot(struct loadjobs *js, int i, const struct loadcheck_allot *a)
{
	struct fake *j = &js->jobs[i];
	int took = loadcheck_allot(js->check, i, j->id, js->grid.P, a);

	js->counts.allots++;
	if (took & LOADCHECK_GAVE_UP)
		send_released(js, j, a->quantum, a->allotment);
	loadlog_got(j->log, a->quantum, a->allotment, a->availability, a->cpus,
	            a->ncpus, (took & LOADCHECK_FROM_NONE) != 0);
}

/* An Allot message for job i. */
static void take_allot_msg(struct loadjobs *js, int i, const Asteal__Allot *m)
{
	struct fake *j = &js->jobs[i];
	struct loadcheck_allot a;

	if (j->lp.wake >= 0 && loadcheck_wrong(js->check))
		fprintf(stderr, "loadgen: job %llu: an Allot message, though its "
		        "allotments come in its page\n", (unsigned long long)j->id);
	a.quantum = m->quantum;
	a.decided_ns = m->decided_ns;
	a.allotment = m->allotment;
	a.availability = m->availability;
	a.ncpus = m->n_cpus;
	a.cpus = m->cpus;
	a.gap = 0;
	take_allot(js, i, &a);
}

/* Every job looks at its page. */
void loadjobs_look(struct loadjobs *js)
{
	static struct loadpage_seen seen;       /* the loop's only */
	uint32_t ids[PAGE_SLOTS];
	struct loadcheck_allot a;

	if (!js->conf.allot_page)
		return;
	js->counts.page_looks++;
	for (int i = 0; i < js->conf.n; i++) {
		struct fake *j = &js->jobs[i];
		int rc;

		if (!loadpage_moved(&j->lp))
			continue;
		rc = loadpage_take(&j->lp, (int)js->conf.W, &seen);
		if (rc < 0)
			js->counts.page_torn++; /* being written: the next look */
		if (rc <= 0)
			continue;
		js->counts.page_gens++;
		js->counts.page_missed += seen.missed;
		if (seen.stops_bad >= 0 && loadcheck_wrong(js->check))
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
		take_allot(js, i, &a);
	}
}

/* Job j's Welcome came, with its page or without (a daemon that cannot
 * make one says so in its log: the job sends and gets messages, as
 * libasteal does, and is counted). */
static void welcome_page(struct loadjobs *js, struct fake *j, int page)
{
	char why[160];

	if (!page) {
		js->counts.page_refused += js->conf.feed_page || js->conf.allot_page;
		for (int k = 0; k < 2; k++)
			if (j->passed[k] >= 0)
				close(j->passed[k]);
		j->passed[0] = j->passed[1] = -1;
		return;
	}
	if (loadpage_map(&j->lp, j->passed, js->conf.allot_page, why, sizeof(why)) < 0) {
		fprintf(stderr, "loadgen: job %llu: its page is unusable: %s\n",
		        (unsigned long long)j->id, why);
		loadcheck_wrong(js->check);
		return;
	}
	j->written = 1;
}

/* Read what job i's socket has. */
int loadjobs_input(struct loadjobs *js, int i)
{
	struct fake *j = &js->jobs[i];
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
			js->grid.P = (int)m->welcome->n_cpus;
			js->grid.t0 = m->welcome->t0_ns;
			js->grid.L = (uint64_t)m->welcome->quantum_us * 1000u;
			js->grid.heartbeat = (uint64_t)(m->welcome->heartbeat_ms ?
			                     m->welcome->heartbeat_ms : PROTO_HEARTBEAT_MS) * 1000000u;
			welcome_page(js, j, m->welcome->page);
			break;
		case ASTEAL__ENVELOPE__MSG_ALLOT:
			take_allot_msg(js, i, m->allot);
			break;
		case ASTEAL__ENVELOPE__MSG_ERROR:
			if (loadcheck_wrong(js->check))
				fprintf(stderr, "loadgen: job %llu: the daemon says: %s\n",
				        (unsigned long long)j->id, m->error->message);
			break;
		default:
			fprintf(stderr, "loadgen: unexpected %s\n", frame_name(m));
			loadcheck_wrong(js->check);
			break;
		}
		frame_free(m);
	}
	return 0;
}

/* Whether job i was welcomed. */
int loadjobs_welcomed(const struct loadjobs *js, int i)
{
	return js->jobs[i].welcomed;
}

/* The run starts. */
void loadjobs_start(struct loadjobs *js, uint64_t now, double poll_us)
{
	for (int i = 0; i < js->conf.n; i++) {
		js->jobs[i].q = (now - js->grid.t0) / js->grid.L;
		js->jobs[i].sent_at = now;
	}
	if (js->conf.allot_page)
		js->poll_ns = poll_us > 0 ? (uint64_t)(poll_us * 1e3) : js->grid.L / 20;
}

/* The time to the pages' next look. */
uint64_t loadjobs_look_in(struct loadjobs *js)
{
	return js->poll_ns / 2 + next_rand(&js->poll_rng) % (js->poll_ns + 1);
}

/* The looks' average interval. */
uint64_t loadjobs_poll_ns(const struct loadjobs *js)
{
	return js->poll_ns;
}

/* The grid. */
const struct loadjobs_grid *loadjobs_grid(const struct loadjobs *js)
{
	return &js->grid;
}

/* What the jobs counted. */
const struct loadjobs_counts *loadjobs_counts(const struct loadjobs *js)
{
	return &js->counts;
}

/* The number of jobs. */
int loadjobs_count(const struct loadjobs *js)
{
	return js->conf.n;
}

/* Job i's id. */
uint64_t loadjobs_id(const struct loadjobs *js, int i)
{
	return js->jobs[i].id;
}

/* Whether jobs[i] sorts before the id at key. */
static int fake_below(const void *arr, size_t i, const void *key)
{
	return ((const struct fake *)arr)[i].id < *(const uint64_t *)key;
}

/* The job with this id (ids grow with the index). */
int loadjobs_find(const struct loadjobs *js, uint64_t id)
{
	size_t at = search_first(js->jobs, (size_t)js->conf.n, &id, fake_below);

	return at < (size_t)js->conf.n && js->jobs[at].id == id ? (int)at : -1;
}

/* Job i's log. */
const struct loadlog *loadjobs_log(const struct loadjobs *js, int i)
{
	return js->jobs[i].log;
}
