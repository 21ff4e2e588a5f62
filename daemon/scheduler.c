/*
 * scheduler.c - asteald's job scheduler (see scheduler.h): the job table, the
 * quantum timer, the feedback deadline, DEQ, Allot messages, tick latency
 * and the history records.
 *
 * Feedback{q} carries the desire d_q and the usage of quantum q-1, so a
 * job's history record for quantum q-1 is completed when Feedback{q}
 * arrives (or with no usage when it does not); the record for q is kept
 * pending until then.  Nothing here blocks: history writes are batched into
 * one short transaction every SCHED_FLUSH_MS of quanta or SCHED_FLUSH_RUNS
 * closed runs (history_flush).
 *
 * The per-tick path is kept lean, since it runs for every job every
 * quantum: the Tick frame is encoded once for all jobs, an Allot is
 * encoded by hand on the stack and written at once (conn_send_frame),
 * and a job's CPU list is formatted only when its set of CPUs changed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "conf.h"
#include "conn.h"
#include "cpulist.h"
#include "deq.h"
#include "frame.h"
#include "history.h"
#include "log.h"
#include "proto.h"
#include "scheduler.h"

/* Closed history runs are written at most every SCHED_FLUSH_MS of quanta
 * (at least every quantum), or as soon as SCHED_FLUSH_RUNS of them wait.
 * Each commit writes every database page it touched, and with many jobs
 * the runs of one tick land on as many pages of the allotments_by_job
 * index, so a commit per tick wrote about a page per changed run and cost
 * several times the inserts themselves.  Batching rewrites each page once
 * per batch; the cap on runs keeps the transaction short (a few ms, after
 * the Allots are out) even when every job changes every quantum.  A query,
 * a job's end and shutdown write everything pending anyway, and a crash
 * loses at most this much of the closed runs (open runs are written every
 * 5 s, see history.h). */
#ifndef SCHED_FLUSH_MS
#define SCHED_FLUSH_MS 1000
#endif
#ifndef SCHED_FLUSH_RUNS
#define SCHED_FLUSH_RUNS 512
#endif

struct sched_job {
	uint64_t id;
	struct conn *conn;
	char name[64];
	char command[256];
	uid_t uid;
	pid_t pid;
	int workers;
	uint64_t start_ns;             /* wall clock */
	int desire;                    /* last reported, in [1, workers] */
	int answered;                  /* Feedback for the current tick came */
	struct deq_job deq;            /* DEQ state: slots held, credit */
	int allotment, availability;
	int klass;                     /* Asteal__QuantumClass of the last quantum */
	uint64_t work, steal, mug, allotted;   /* totals */
	/* The record of the last allotted quantum, completed by the next
	 * Feedback (its usage). */
	int pending;
	struct history_quantum rec;
	/* rec_cpus is the CPU list of the slots in fmt_set (valid when
	 * fmt_valid): formatted again only when the slots change. */
	char rec_cpus[CPULIST_MAX * 5];
	struct deq_set fmt_set;
	int fmt_valid;
	struct sched_job *prev, *next;
};

struct sched {
	struct event_base *base;
	const struct conf *conf;
	struct history *hist;
	struct event *tick_ev, *deadline_ev;
	int P;
	uint32_t cpus_u32[CPULIST_MAX];
	struct sched_job *head, *tail; /* in id order: DEQ's stable order */
	int njobs, clients;
	struct deq_job *deq;           /* scratch for deq_allot */
	int deq_cap;
	uint64_t q;                    /* the current quantum */
	uint64_t flushed_q;            /* the quantum of the last flush */
	uint64_t flush_every;          /* quanta between flushes, >= 1 */
	int in_tick;                   /* waiting for feedback */
	int waiting;                   /* jobs yet to answer this tick */
	uint64_t tick_sent;            /* monotonic */
	uint64_t tick_wall;            /* wall clock at the tick */
	uint64_t ticks, late;
	uint64_t started;              /* monotonic */
	uint64_t lat[SCHED_LATENCY_RING];
	size_t nlat;
};

/* Nanoseconds on a clock. */
static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Format the job's CPU slots as a Linux CPU list. */
static void format_cpus(const struct sched *s, const struct deq_set *set,
                        char *buf, size_t len)
{
	int cpus[CPULIST_MAX], n = 0, i;

	for (i = 0; i < s->P; i++)
		if (deq_set_has(set, i))
			cpus[n++] = s->conf->cpus[i];
	if (cpulist_format(cpus, n, buf, len) < 0 && len > 0)
		buf[0] = '\0';
}

/* The Linux CPU ids of a set of slots, ascending: their count. */
static int slot_cpus(const struct sched *s, const struct deq_set *set,
                     uint32_t *ids)
{
	int n = 0, w;

	for (w = 0; w * 64 < s->P; w++) {
		uint64_t bits = set->w[w];

		while (bits != 0) {
			ids[n++] = (uint32_t)s->conf->cpus[w * 64 + __builtin_ctzll(bits)];
			bits &= bits - 1;
		}
	}
	return n;
}

/* Whether two sets hold the same of the first P slots (DEQ never sets the
 * others). */
static int same_slots(const struct sched *s, const struct deq_set *a,
                      const struct deq_set *b)
{
	return memcmp(a->w, b->w, (size_t)(s->P + 63) / 64 * sizeof(a->w[0])) == 0;
}

/* Append v as a protobuf varint at p: the bytes written (at most 10). */
static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* The longest Allot frame: prefix, envelope tag and length, three fields,
 * the cpus' tag, length and a varint per CPU. */
#define ALLOT_FRAME_MAX (PROTO_HEADER_LEN + 2 * 5 + 3 * 11 + 1 + 5 + 5 * CPULIST_MAX)

/* Encode Allot{q, allotment, availability, cpus} as a whole frame into buf
 * (room for ALLOT_FRAME_MAX bytes): its length.  This is what
 * frame_encode writes for the same message, byte for byte (proto3: fields
 * in number order, zeros left out, cpus packed), done by hand because it
 * runs for every job every quantum and protobuf-c walks the descriptors
 * twice (size, then pack). */
static size_t encode_allot(uint8_t *buf, uint64_t q, uint32_t allotment,
                           uint32_t availability, const uint32_t *cpus, int n)
{
	uint8_t body[3 * 11 + 1 + 5 + 5 * CPULIST_MAX], packed[5 * CPULIST_MAX];
	size_t bl = 0, pl = 0, at = PROTO_HEADER_LEN;
	int i;

	if (q != 0) {
		body[bl++] = 1 << 3;                    /* quantum, varint */
		bl += put_varint(body + bl, q);
	}
	if (allotment != 0) {
		body[bl++] = 2 << 3;                    /* allotment */
		bl += put_varint(body + bl, allotment);
	}
	if (availability != 0) {
		body[bl++] = 3 << 3;                    /* availability */
		bl += put_varint(body + bl, availability);
	}
	for (i = 0; i < n; i++)
		pl += put_varint(packed + pl, cpus[i]);
	if (n > 0) {
		body[bl++] = 4 << 3 | 2;                /* cpus, packed */
		bl += put_varint(body + bl, pl);
		memcpy(body + bl, packed, pl);
		bl += pl;
	}
	buf[at++] = ASTEAL__ENVELOPE__MSG_ALLOT << 3 | 2;
	at += put_varint(buf + at, bl);
	memcpy(buf + at, body, bl);
	at += bl;
	buf[0] = (uint8_t)((at - PROTO_HEADER_LEN) >> 24);
	buf[1] = (uint8_t)((at - PROTO_HEADER_LEN) >> 16);
	buf[2] = (uint8_t)((at - PROTO_HEADER_LEN) >> 8);
	buf[3] = (uint8_t)(at - PROTO_HEADER_LEN);
	return at;
}

/* Write a job's pending record (with whatever usage it has). */
static void record_pending(struct sched *s, struct sched_job *j)
{
	if (!j->pending)
		return;
	j->pending = 0;
	if (history_allot(s->hist, (int64_t)j->id, &j->rec) < 0)
		log_warn("history: job %llu quantum %llu: %s",
		         (unsigned long long)j->id,
		         (unsigned long long)j->rec.quantum, history_error(s->hist));
}

/* Send every job its allotment for quantum q and record the quantum. */
static void complete_tick(struct sched *s)
{
	struct sched_job *j;
	uint64_t now;
	int n = 0, i;

	if (!s->in_tick)
		return;
	s->in_tick = 0;
	event_del(s->deadline_ev);
	if (s->njobs > s->deq_cap) {
		int cap = s->njobs * 2;
		struct deq_job *d = realloc(s->deq, (size_t)cap * sizeof(*d));
		if (d == NULL) {
			log_error("out of memory for %d jobs: quantum %llu not allotted",
			          s->njobs, (unsigned long long)s->q);
			return;
		}
		s->deq = d;
		s->deq_cap = cap;
	}
	for (j = s->head; j != NULL; j = j->next) {
		if (!j->answered) {
			s->late++;
			log_debug("job %llu late for quantum %llu: keeps desire %d",
			          (unsigned long long)j->id, (unsigned long long)s->q,
			          j->desire);
			record_pending(s, j);   /* its usage never came */
		}
		j->deq.desire = j->desire;
		s->deq[n++] = j->deq;
	}
	if (n > 0 && deq_allot(s->P, s->deq, n, s->q) < 0) {
		log_error("DEQ failed for quantum %llu: %s", (unsigned long long)s->q,
		          strerror(errno));
		return;
	}
	i = 0;
	for (j = s->head; j != NULL; j = j->next, i++) {
		uint32_t ids[CPULIST_MAX];
		uint8_t frame[ALLOT_FRAME_MAX];
		int nids;

		j->deq = s->deq[i];
		j->allotment = j->deq.allotment;
		j->availability = j->deq.availability;
		nids = slot_cpus(s, &j->deq.cpus, ids);
		if (!j->fmt_valid || !same_slots(s, &j->fmt_set, &j->deq.cpus)) {
			format_cpus(s, &j->deq.cpus, j->rec_cpus, sizeof(j->rec_cpus));
			j->fmt_set = j->deq.cpus;
			j->fmt_valid = 1;
		}
		conn_send_frame(j->conn, frame,
		                encode_allot(frame, s->q, (uint32_t)j->allotment,
		                             (uint32_t)j->availability, ids, nids));
		/* The quantum's record, completed by the next Feedback. */
		j->pending = 1;
		j->rec.quantum = (int64_t)s->q;
		j->rec.cpus = j->rec_cpus;
		j->rec.start_ns = (int64_t)s->tick_wall;
		j->rec.end_ns = (int64_t)s->tick_wall + (int64_t)s->conf->quantum_us * 1000;
		j->rec.desire = j->desire;
		j->rec.availability = j->availability;
		j->rec.allotment = j->allotment;
		j->rec.work_ns = j->rec.steal_ns = j->rec.mug_ns = 0;
		j->rec.allotted_ns = 0;
		j->rec.cls = j->klass > 0 ? j->klass - 1 : HISTORY_DEPRIVED;
	}
	now = clock_ns(CLOCK_MONOTONIC);
	s->lat[s->nlat++ % SCHED_LATENCY_RING] = now - s->tick_sent;
	if (s->q - s->flushed_q >= s->flush_every ||
	    history_queued(s->hist) >= SCHED_FLUSH_RUNS) {
		s->flushed_q = s->q;
		if (history_flush(s->hist) < 0)
			log_warn("history: %s", history_error(s->hist));
	}
}

/* The feedback deadline passed: late jobs keep their last desire. */
static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	complete_tick(arg);
}

/* A quantum begins: tick every job. */
static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct sched *s = arg;
	struct sched_job *j;
	struct timeval dl;

	(void)fd;
	(void)what;
	if (s->in_tick)         /* the deadline is shorter than a quantum */
		complete_tick(s);
	s->q++;
	s->ticks++;
	s->tick_sent = clock_ns(CLOCK_MONOTONIC);
	s->tick_wall = clock_ns(CLOCK_REALTIME);
	s->in_tick = 1;
	s->waiting = 0;
	if (s->head != NULL) {
		/* Tick{q} is the same frame for every job: encode it once. */
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
		Asteal__Tick t = ASTEAL__TICK__INIT;
		uint8_t frame[64];
		size_t len;

		t.quantum = s->q;
		env.msg_case = ASTEAL__ENVELOPE__MSG_TICK;
		env.tick = &t;
		if (frame_encode(&env, frame, sizeof(frame), &len) < 0) {
			log_error("cannot encode tick %llu: %s",
			          (unsigned long long)s->q, strerror(errno));
			len = 0;
		}
		for (j = s->head; j != NULL; j = j->next) {
			j->answered = 0;
			s->waiting++;
			if (len > 0)
				conn_send_frame(j->conn, frame, len);
		}
	}
	if (s->waiting == 0) {
		complete_tick(s);
		return;
	}
	dl.tv_sec = s->conf->deadline_us / 1000000;
	dl.tv_usec = s->conf->deadline_us % 1000000;
	event_add(s->deadline_ev, &dl);
}

/* Create the scheduler and start its quantum timer. */
struct sched *sched_create(struct event_base *base, const struct conf *c,
                           struct history *h)
{
	struct sched *s = calloc(1, sizeof(*s));
	struct timeval tv;
	int i;

	if (s == NULL)
		return NULL;
	s->base = base;
	s->conf = c;
	s->hist = h;
	s->P = c->ncpus;
	for (i = 0; i < c->ncpus; i++)
		s->cpus_u32[i] = (uint32_t)c->cpus[i];
	s->started = clock_ns(CLOCK_MONOTONIC);
	s->flush_every = (uint64_t)SCHED_FLUSH_MS * 1000 / (uint64_t)c->quantum_us;
	if (s->flush_every < 1)
		s->flush_every = 1;
	s->tick_ev = event_new(base, -1, EV_PERSIST, on_tick, s);
	s->deadline_ev = evtimer_new(base, on_deadline, s);
	if (s->tick_ev == NULL || s->deadline_ev == NULL) {
		sched_free(s);
		return NULL;
	}
	tv.tv_sec = c->quantum_us / 1000000;
	tv.tv_usec = c->quantum_us % 1000000;
	event_add(s->tick_ev, &tv);
	return s;
}

/* Close a job's history row with its totals. */
static void close_row(struct sched *s, struct sched_job *j)
{
	record_pending(s, j);
	if (history_job_end(s->hist, (int64_t)j->id,
	                    (int64_t)clock_ns(CLOCK_REALTIME), NULL, (int64_t)j->work,
	                    (int64_t)j->steal, (int64_t)j->mug) < 0)
		log_warn("history: closing job %llu: %s", (unsigned long long)j->id,
		         history_error(s->hist));
}

/* Stop ticking and free everything (running jobs' rows stay open). */
void sched_free(struct sched *s)
{
	struct sched_job *j, *next;

	if (s == NULL)
		return;
	/* The jobs outlive us: their rows stay open for the next daemon,
	 * which they reconnect to, claiming their ids. */
	for (j = s->head; j != NULL; j = next) {
		next = j->next;
		record_pending(s, j);
		if (history_job_pause(s->hist, (int64_t)j->id, (int64_t)j->work,
		                      (int64_t)j->steal, (int64_t)j->mug) < 0)
			log_warn("history: job %llu: %s", (unsigned long long)j->id,
			         history_error(s->hist));
		free(j);
	}
	if (s->hist != NULL)
		history_flush(s->hist);
	if (s->tick_ev != NULL)
		event_free(s->tick_ev);
	if (s->deadline_ev != NULL)
		event_free(s->deadline_ev);
	free(s->deq);
	free(s);
}

/* Put j in the job list in id order, DEQ's stable order: usually at the
 * tail (new ids grow), earlier for a job that claimed an older id (launched
 * before it connected, or back after a daemon restart). */
static void insert_by_id(struct sched *s, struct sched_job *j)
{
	struct sched_job *after = s->tail;

	while (after != NULL && after->id > j->id)
		after = after->prev;
	j->prev = after;
	j->next = after != NULL ? after->next : s->head;
	if (j->next != NULL)
		j->next->prev = j;
	else
		s->tail = j;
	if (after != NULL)
		after->next = j;
	else
		s->head = j;
}

/* Register a job. */
struct sched_job *sched_job_add(struct sched *s, struct conn *conn,
                                const Asteal__Hello *hello, uid_t uid,
                                pid_t pid, uint64_t id_granted, char *why,
                                size_t whylen)
{
	struct sched_job *j;
	struct history_job hj;
	int64_t id;

	if (s->njobs >= s->conf->max_jobs) {
		snprintf(why, whylen, "at the limit of %d jobs", s->conf->max_jobs);
		return NULL;
	}
	if (hello->workers < 1 || hello->workers > 65536) {
		snprintf(why, whylen, "workers must be from 1 to 65536, not %u",
		         hello->workers);
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	snprintf(j->name, sizeof(j->name), "%s", hello->name ? hello->name : "");
	snprintf(j->command, sizeof(j->command), "%s",
	         hello->command ? hello->command : "");
	j->conn = conn;
	j->uid = uid;
	j->pid = pid;
	j->workers = (int)hello->workers;
	j->start_ns = clock_ns(CLOCK_REALTIME);
	j->desire = 1;                  /* d_1 */
	j->answered = 1;                /* nothing asked yet */
	j->klass = ASTEAL__QUANTUM_CLASS__CLASS_UNSPECIFIED;
	memset(&hj, 0, sizeof(hj));
	hj.name = j->name;
	hj.command = j->command;
	hj.uid = (int64_t)uid;
	hj.pid = (int64_t)pid;
	hj.start_ns = (int64_t)j->start_ns;
	hj.workers = j->workers;
	id = id_granted ? (int64_t)id_granted : history_job_begin(s->hist, &hj);
	if (id <= 0) {
		snprintf(why, whylen, "history: %s", history_error(s->hist));
		free(j);
		return NULL;
	}
	/* A launched or reconnecting job's row was begun without it. */
	if (id_granted && history_job_workers(s->hist, id, j->workers) < 0)
		log_warn("history: job %lld: %s", (long long)id,
		         history_error(s->hist));
	j->id = (uint64_t)id;
	insert_by_id(s, j);
	s->njobs++;
	log_info("job %llu '%s' %s: uid %d pid %d, %d workers",
	         (unsigned long long)j->id, j->name, id_granted ? "connected"
	         : "registered", (int)uid, (int)pid, j->workers);
	return j;
}

/* The job's id. */
uint64_t sched_job_id(const struct sched_job *j)
{
	return j->id;
}

/* Remove a job whose connection closed. */
void sched_job_remove(struct sched *s, struct sched_job *j)
{
	if (j->prev != NULL)
		j->prev->next = j->next;
	else
		s->head = j->next;
	if (j->next != NULL)
		j->next->prev = j->prev;
	else
		s->tail = j->prev;
	s->njobs--;
	if (s->in_tick && !j->answered && --s->waiting == 0)
		complete_tick(s);
	close_row(s, j);
	if (history_flush(s->hist) < 0)
		log_warn("history: %s", history_error(s->hist));
	log_info("job %llu '%s' left: its %d CPUs go back at the next tick",
	         (unsigned long long)j->id, j->name, j->allotment);
	free(j);
}

/* Take a job's Feedback for the current quantum. */
void sched_feedback(struct sched *s, struct sched_job *j,
                    const Asteal__Feedback *fb)
{
	if (!s->in_tick || fb->quantum != s->q || j->answered) {
		log_debug("job %llu: feedback for quantum %llu ignored (now %llu)",
		          (unsigned long long)j->id, (unsigned long long)fb->quantum,
		          (unsigned long long)s->q);
		return;
	}
	j->answered = 1;
	j->desire = fb->desire < 1 ? 1 : fb->desire > (uint32_t)j->workers
	                                     ? j->workers : (int)fb->desire;
	j->klass = fb->quantum_class;
	j->work += fb->work_ns;
	j->steal += fb->steal_ns;
	j->mug += fb->mug_ns;
	j->allotted += fb->allotted_ns;
	if (j->pending) {
		j->rec.work_ns = (int64_t)fb->work_ns;
		j->rec.steal_ns = (int64_t)fb->steal_ns;
		j->rec.mug_ns = (int64_t)fb->mug_ns;
		j->rec.allotted_ns = (int64_t)fb->allotted_ns;
		if (fb->quantum_class > 0 && fb->quantum_class <= 3)
			j->rec.cls = (int)fb->quantum_class - 1;
		record_pending(s, j);
	}
	if (--s->waiting == 0)
		complete_tick(s);
}

/* Compare two latencies, for qsort. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Fill a Status reply. */
void sched_status(struct sched *s, Asteal__Status *st)
{
	size_t n = s->nlat < SCHED_LATENCY_RING ? s->nlat : SCHED_LATENCY_RING;
	static uint64_t sorted[SCHED_LATENCY_RING];

	st->protocol_version = PROTO_VERSION;
	st->cpus = s->cpus_u32;
	st->n_cpus = (size_t)s->P;
	st->quantum_us = (uint32_t)s->conf->quantum_us;
	st->jobs = (uint32_t)s->njobs;
	st->ticks = s->ticks;
	st->uptime_ns = clock_ns(CLOCK_MONOTONIC) - s->started;
	st->clients = (uint32_t)s->clients;
	st->late_feedbacks = s->late;
	if (n > 0) {
		memcpy(sorted, s->lat, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_u64);
		st->tick_p50_ns = sorted[(n - 1) / 2];
		st->tick_p99_ns = sorted[(n * 99 + 99) / 100 - 1];
		st->tick_max_ns = sorted[n - 1];
	}
}

/* Whether id is among ids (all when n == 0). */
int sched_id_wanted(uint64_t id, const uint64_t *ids, size_t n)
{
	size_t i;

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* A JobInfo with its identity filled (the strings borrowed) and room for
 * ncpus CPU ids after it, freed with free(); NULL when out of memory. */
Asteal__JobInfo *sched_info_new(uint64_t id, const char *name, uid_t uid,
                                pid_t pid, const char *command,
                                uint64_t start_ns, size_t ncpus)
{
	Asteal__JobInfo *ji = calloc(1, sizeof(*ji) + ncpus * sizeof(uint32_t));

	if (ji == NULL)
		return NULL;
	asteal__job_info__init(ji);
	ji->id = id;
	ji->name = (char *)name;
	ji->uid = (uint32_t)uid;
	ji->pid = pid;
	ji->command = (char *)command;
	ji->start_ns = start_ns;
	ji->cpus = (uint32_t *)(ji + 1);
	return ji;
}

/* Fill a Jobs reply. */
int sched_jobs(struct sched *s, const uint64_t *ids, size_t n, Asteal__Jobs *out)
{
	struct sched_job *j;
	size_t k = 0;

	asteal__jobs__init(out);
	if (s->njobs == 0)
		return 0;
	out->jobs = calloc((size_t)s->njobs, sizeof(*out->jobs));
	if (out->jobs == NULL)
		return -1;
	for (j = s->head; j != NULL; j = j->next) {
		Asteal__JobInfo *ji;
		if (!sched_id_wanted(j->id, ids, n))
			continue;
		ji = sched_info_new(j->id, j->name, j->uid, j->pid, j->command,
		                    j->start_ns, CPULIST_MAX);
		if (ji == NULL) {
			out->n_jobs = k;
			sched_jobs_free(out);
			return -1;
		}
		ji->desire = (uint32_t)j->desire;
		ji->allotment = (uint32_t)j->allotment;
		ji->availability = (uint32_t)j->availability;
		ji->n_cpus = (size_t)slot_cpus(s, &j->deq.cpus, ji->cpus);
		ji->efficiency = j->allotted ? (double)(j->work + j->mug) / (double)j->allotted : 0;
		ji->work_ns = j->work;
		ji->steal_ns = j->steal;
		ji->mug_ns = j->mug;
		ji->allotted_ns = j->allotted;
		ji->workers = (uint32_t)j->workers;
		ji->quantum_class = j->klass;
		out->jobs[k++] = ji;
	}
	out->n_jobs = k;
	return 0;
}

/* Free what sched_jobs allocated. */
void sched_jobs_free(Asteal__Jobs *out)
{
	size_t i;

	for (i = 0; i < out->n_jobs; i++)
		free(out->jobs[i]);
	free(out->jobs);
	out->jobs = NULL;
	out->n_jobs = 0;
}

/* Whether job id is connected, and its owner. */
int sched_job_owner(const struct sched *s, uint64_t id, uid_t *uid)
{
	const struct sched_job *j;

	for (j = s->head; j != NULL; j = j->next)
		if (j->id == id) {
			if (uid != NULL)
				*uid = j->uid;
			return 0;
		}
	return -1;
}

/* Signal a running job on behalf of uid. */
int sched_cancel(struct sched *s, uint64_t id, uid_t uid, int sig)
{
	struct sched_job *j;

	for (j = s->head; j != NULL; j = j->next)
		if (j->id == id)
			break;
	if (j == NULL) {
		errno = ESRCH;
		return -1;
	}
	if (uid != 0 && uid != j->uid) {
		errno = EPERM;
		return -1;
	}
	if (kill(j->pid, sig) < 0)
		return -1;
	log_info("job %llu: signal %d sent for uid %d", (unsigned long long)id,
	         sig, (int)uid);
	return 0;
}

/* Jobs connected now. */
int sched_njobs(const struct sched *s)
{
	return s->njobs;
}

/* Command-line clients connected now. */
void sched_set_clients(struct sched *s, int clients)
{
	s->clients = clients;
}
