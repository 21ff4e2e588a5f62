/*
 * test_frame.c - the wire protocol's framing (proto/frame.c): every message
 * round-trips with every field set; prefixes checked before bodies; frames
 * cut anywhere, one byte at a time, or many to a read; garbage, empty and
 * unknown messages rejected without losing step; the version handshake's
 * text; the fd reader and writer over socketpairs and pipes (a writer
 * thread, nonblocking fds, EINTR, EOF inside a frame, EPIPE).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "frame.h"
#include "testutil.h"

/* ---------------------------------------------------------- samples -- */

static uint32_t cpus[] = { 0, 1, 2, 3, 6 };
static uint64_t ids[] = { 3, 17 };

/* Storage for one sample of every message. */
struct store {
	Asteal__Hello hello;
	Asteal__Welcome welcome;
	Asteal__Error error;
	Asteal__Ok ok;
	Asteal__Released released;
	Asteal__PageDeclined page_declined;
	Asteal__Feedback feedback;
	Asteal__Allot allot;
	Asteal__StatusRequest status_request;
	Asteal__Status status;
	Asteal__JobsRequest jobs_request;
	Asteal__Jobs jobs;
	Asteal__JobInfo info[2];
	Asteal__JobInfo *infop[2];
	Asteal__HistoryRequest history_request;
	Asteal__HistoryCursor cursor;
	Asteal__History history;
	Asteal__JobRecord rec;
	Asteal__JobRecord *recp[1];
	Asteal__AllotmentRecord arec[2];
	Asteal__AllotmentRecord *arecp[2];
	Asteal__CancelRequest cancel_request;
	Asteal__CancelReply cancel_reply;
	Asteal__JobExit job_exit;
	Asteal__WaitRequest wait_request;
	Asteal__WaitReply wait_reply;
	Asteal__Launch launch;
	Asteal__Launched launched;
	Asteal__Usage use[6];           /* the messages' usage, one each */
};

/* A Usage with every field set to these values. */
static Asteal__Usage *set_usage(Asteal__Usage *u, uint64_t work, uint64_t steal,
                                uint64_t mug, uint64_t sleep,
                                uint64_t preempted, uint64_t allotted)
{
	asteal__usage__init(u);
	u->work_ns = work;
	u->steal_ns = steal;
	u->mug_ns = mug;
	u->sleep_ns = sleep;
	u->preempted_ns = preempted;
	u->allotted_ns = allotted;
	return u;
}

/* A JobInfo with every field set, its usage in u. */
static void sample_info(Asteal__JobInfo *j, Asteal__Usage *u, uint64_t id)
{
	asteal__job_info__init(j);
	j->id = id;
	j->name = "fib";
	j->uid = 1000;
	j->pid = 4242;
	j->command = "fib -n 40";
	j->start_ns = 1700000000000000000ull;
	j->desire = 4;
	j->allotment = 3;
	j->availability = 3;
	j->n_cpus = 3;
	j->cpus = cpus;
	j->efficiency = 0.875;
	j->usage = set_usage(u, 111, 22, 3, 2, 2, 140);
	j->workers = 8;
	j->quantum_class = ASTEAL__QUANTUM_CLASS__DEPRIVED;
	j->unmanaged = 1;
	j->cpus_cap = 2;
	j->rigid = 1;
	j->confinement = "cgroup";
	j->cpu_ns = 99;
}

/* An AllotmentRecord with every field set, its usage in u. */
static void sample_arec(Asteal__AllotmentRecord *a, Asteal__Usage *u,
                        uint64_t job)
{
	asteal__allotment_record__init(a);
	a->job_id = job;
	a->first_quantum = 10;
	a->last_quantum = 99;
	a->start_ns = 1700000000000000000ull;
	a->end_ns = 1700000000900000000ull;
	a->desire = 5;
	a->availability = 4;
	a->allotment = 4;
	a->n_cpus = 4;
	a->cpus = cpus;
	a->usage = set_usage(u, 1, 2, 3, 5, 4, 15);
	a->quantum_class = ASTEAL__QUANTUM_CLASS__SATISFIED;
	a->cpu_quanta = 9;
}

/* Fill env with the sample of message c (every field set); 0, or -1 when
 * there is no sample for c (a message added without a test). */
static int sample_body(Asteal__Envelope *env, struct store *s,
		       Asteal__Envelope__MsgCase c);

/* A sample Envelope of case c, with a request id (every field set). */
static int sample(Asteal__Envelope *env, struct store *s,
		  Asteal__Envelope__MsgCase c)
{
	int r = sample_body(env, s, c);

	env->request_id = 0x1234567890ull;
	return r;
}

/* The message of a sample Envelope of case c, every field set; -1 for a
 * case it does not know. */
static int sample_body(Asteal__Envelope *env, struct store *s,
		       Asteal__Envelope__MsgCase c)
{
	memset(s, 0, sizeof(*s));
	asteal__envelope__init(env);
	switch (c) {
	case ASTEAL__ENVELOPE__MSG_HELLO:
		frame_hello(env, &s->hello, ASTEAL__ROLE__JOB, "fib", 8,
			    "fib -n 40", "libasteal test");
		s->hello.job_id = 17;
		s->hello.page = 1;
		s->hello.page_allot = 1;
		s->hello.usage = set_usage(&s->use[0], 11, 12, 13, 15, 16, 14);
		return 0;
	case ASTEAL__ENVELOPE__MSG_WELCOME:
		frame_welcome(env, &s->welcome, 7, 10000, 5000000000ull, cpus, 5,
			      "asteald test");
		s->welcome.heartbeat_ms = 250;
		s->welcome.offset_us = 1000;
		s->welcome.page = 1;
		return 0;
	case ASTEAL__ENVELOPE__MSG_ERROR:
		frame_error(env, &s->error, ASTEAL__ERROR_CODE__NOT_FOUND, "no job 9");
		return 0;
	case ASTEAL__ENVELOPE__MSG_OK:
		asteal__ok__init(&s->ok);
		env->ok = &s->ok;
		break;
	case ASTEAL__ENVELOPE__MSG_RELEASED:
		asteal__released__init(&s->released);
		s->released.quantum = 12345678901ull;
		s->released.parked_ns = 987654321012345ull;
		env->released = &s->released;
		break;
	case ASTEAL__ENVELOPE__MSG_PAGE_DECLINED:
		frame_page_declined(env, &s->page_declined,
		                    "mapping the page: Operation not permitted");
		return 0;
	case ASTEAL__ENVELOPE__MSG_FEEDBACK: {
		Asteal__Feedback *f = &s->feedback;

		asteal__feedback__init(f);
		f->quantum = 41;
		f->desire = 3;
		f->desire_real = 2.25;
		f->usage = set_usage(&s->use[0], 9000000, 700000, 1000, 10000000,
		                     299000, 20000000);
		f->quantum_class = ASTEAL__QUANTUM_CLASS__INEFFICIENT;
		env->feedback = f;
		break;
	}
	case ASTEAL__ENVELOPE__MSG_ALLOT:
		asteal__allot__init(&s->allot);
		s->allot.quantum = 41;
		s->allot.allotment = 2;
		s->allot.availability = 4;
		s->allot.n_cpus = 2;
		s->allot.cpus = cpus + 3;
		s->allot.decided_ns = 123456789012345ull;
		env->allot = &s->allot;
		break;
	case ASTEAL__ENVELOPE__MSG_STATUS_REQUEST:
		asteal__status_request__init(&s->status_request);
		env->status_request = &s->status_request;
		break;
	case ASTEAL__ENVELOPE__MSG_STATUS: {
		Asteal__Status *st = &s->status;
		static double others[2] = { 0.25, 0.5 };

		asteal__status__init(st);
		st->daemon_version = "asteald test";
		st->protocol_version = PROTO_VERSION;
		st->n_cpus = 5;
		st->cpus = cpus;
		st->quantum_us = 10000;
		st->jobs = 2;
		st->ticks = 100000;
		st->uptime_ns = 1000000000000ull;
		st->tick_p50_ns = 20000;
		st->tick_p99_ns = 90000;
		st->tick_max_ns = 2000000;
		st->clients = 1;
		st->t0_ns = 5000000000ull;
		st->quantum = 77;
		st->offset_us = 1000;
		st->skipped_ticks = 3;
		st->deq_p50_ns = 2000;
		st->deq_p99_ns = 5000;
		st->deq_max_ns = 9000;
		st->changes_per_tick = 2.5;
		st->sends_per_tick = 2.25;
		st->wake_p50_ns = 40000;
		st->wake_p99_ns = 80000;
		st->wake_max_ns = 300000;
		st->feedbacks = 1234;
		st->bad_feedbacks = 2;
		st->allots = 4321;
		st->silent_jobs = 1;
		st->revocations = 99;
		st->revoke_p50_ns = 30000;
		st->revoke_p99_ns = 700000;
		st->revoke_max_ns = 900000;
		st->handover = "release";
		st->share = "user";
		st->history_state = "degraded: disk full";
		st->history_pending = 12;
		st->history_dropped = 3;
		st->confine = "all";
		st->confine_how = "cgroup v1 cpuset /sys/fs/cgroup/cpuset/asteal-1";
		st->n_cpu_others = 2;
		st->cpu_others = others;
		st->grants = 5;
		st->page_jobs = 2;
		st->pages_read = 30;
		st->pages_torn = 1;
		st->page_allot_jobs = 1;
		st->pages_written = 12;
		st->futex_wakes = 7;
		st->idle_revocations = 2;
		st->socket_jobs = 3;
		st->pages_failed = 4;
		st->pages_declined = 1;
		env->status = st;
		break;
	}
	case ASTEAL__ENVELOPE__MSG_JOBS_REQUEST:
		asteal__jobs_request__init(&s->jobs_request);
		s->jobs_request.n_ids = 2;
		s->jobs_request.ids = ids;
		s->jobs_request.after = 2;
		env->jobs_request = &s->jobs_request;
		break;
	case ASTEAL__ENVELOPE__MSG_JOBS:
		asteal__jobs__init(&s->jobs);
		sample_info(&s->info[0], &s->use[0], 3);
		sample_info(&s->info[1], &s->use[1], 17);
		s->infop[0] = &s->info[0];
		s->infop[1] = &s->info[1];
		s->jobs.n_jobs = 2;
		s->jobs.jobs = s->infop;
		s->jobs.more = 1;
		env->jobs = &s->jobs;
		break;
	case ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST: {
		Asteal__HistoryRequest *h = &s->history_request;

		asteal__history_request__init(h);
		h->n_job_ids = 2;
		h->job_ids = ids;
		h->since_ns = 1;
		h->until_ns = 2;
		h->limit = 500;
		asteal__history_cursor__init(&s->cursor);
		s->cursor.job_id = 7;
		s->cursor.start_ns = 1000;
		s->cursor.run = 99;
		h->after = &s->cursor;
		h->jobs_only = 1;
		env->history_request = h;
		break;
	}
	case ASTEAL__ENVELOPE__MSG_HISTORY: {
		Asteal__JobRecord *r = &s->rec;

		asteal__job_record__init(r);
		r->id = 3;
		r->name = "uts";
		r->uid = 1000;
		r->pid = 99;
		r->command = "uts -t T3L";
		r->start_ns = 10;
		r->end_ns = 20;
		r->status_known = 1;
		r->wait_status = -1;   /* sint32: a negative one must survive */
		r->usage = set_usage(&s->use[0], 1, 2, 3, 6, 3, 15);
		r->workers = 4;
		r->time_limit_ns = 60000000000u;
		r->timeout = 1;
		s->recp[0] = r;
		sample_arec(&s->arec[0], &s->use[1], 3);
		sample_arec(&s->arec[1], &s->use[2], 3);
		s->arecp[0] = &s->arec[0];
		s->arecp[1] = &s->arec[1];
		asteal__history__init(&s->history);
		s->history.n_jobs = 1;
		s->history.jobs = s->recp;
		s->history.n_allotments = 2;
		s->history.allotments = s->arecp;
		s->history.more = 1;
		asteal__history_cursor__init(&s->cursor);
		s->cursor.job_id = 3;
		s->cursor.start_ns = 10;
		s->cursor.run = 12;
		s->history.next = &s->cursor;
		env->history = &s->history;
		break;
	}
	case ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST:
		asteal__cancel_request__init(&s->cancel_request);
		s->cancel_request.job_id = 17;
		s->cancel_request.signal = SIGKILL;
		s->cancel_request.time_limit = 1;
		env->cancel_request = &s->cancel_request;
		break;
	case ASTEAL__ENVELOPE__MSG_CANCEL_REPLY:
		asteal__cancel_reply__init(&s->cancel_reply);
		env->cancel_reply = &s->cancel_reply;
		break;
	case ASTEAL__ENVELOPE__MSG_JOB_EXIT:
		asteal__job_exit__init(&s->job_exit);
		s->job_exit.job_id = 17;
		s->job_exit.pid = 4242;
		s->job_exit.wait_status = 3 << 8;
		env->job_exit = &s->job_exit;
		break;
	case ASTEAL__ENVELOPE__MSG_WAIT_REQUEST:
		asteal__wait_request__init(&s->wait_request);
		s->wait_request.job_id = 17;
		env->wait_request = &s->wait_request;
		break;
	case ASTEAL__ENVELOPE__MSG_WAIT_REPLY:
		asteal__wait_reply__init(&s->wait_reply);
		s->wait_reply.job_id = 17;
		s->wait_reply.status_known = 1;
		s->wait_reply.wait_status = SIGKILL;
		s->wait_reply.end_ns = 1;
		s->wait_reply.timeout = 1;
		env->wait_reply = &s->wait_reply;
		break;
	case ASTEAL__ENVELOPE__MSG_LAUNCH:
		asteal__launch__init(&s->launch);
		s->launch.name = "fib";
		s->launch.command = "fib 40";
		s->launch.pid = 4242;
		s->launch.workers = 2;
		s->launch.job_id = 17;
		s->launch.cpus = 2;
		s->launch.time_limit_ns = 60000000000u;
		s->launch.ends_with_supervisor = 1;
		env->launch = &s->launch;
		break;
	case ASTEAL__ENVELOPE__MSG_LAUNCHED:
		asteal__launched__init(&s->launched);
		s->launched.job_id = 17;
		env->launched = &s->launched;
		break;
	default:
		return -1;
	}
	env->msg_case = c;
	return 0;
}

/* Whether field f of message m holds a value other than its default
 * (repeated: not empty), recursively for submessages; the name of the
 * first one that does not in *unset. */
static int all_set(const ProtobufCMessage *m, const char **unset)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	unsigned i;

	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		const char *p = (const char *)m + f->offset;
		static const uint8_t zero[8];
		size_t size = 4, n, k;

		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			n = *(const size_t *)((const char *)m + f->quantifier_offset);
			if (n == 0)
				goto bad;
			if (f->type == PROTOBUF_C_TYPE_MESSAGE)
				for (k = 0; k < n; k++)
					if (!all_set((*(ProtobufCMessage *const *const *)p)[k], unset))
						return 0;
			continue;
		}
		switch (f->type) {
		case PROTOBUF_C_TYPE_STRING:
			if (**(const char *const *)p == '\0')
				goto bad;
			continue;
		case PROTOBUF_C_TYPE_MESSAGE:
			if (!all_set(*(ProtobufCMessage *const *)p, unset))
				return 0;
			continue;
		case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
		case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_UINT64:
		case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
			size = 8;
			break;
		default:
			break;
		}
		if (memcmp(p, zero, size) == 0)
			goto bad;
		continue;
bad:
		*unset = f->name;
		return 0;
	}
	return 1;
}

/* frame_grow: room for one more, doubling from the first capacity. */
static void test_grow(void **state)
{
	int64_t *a = NULL;
	size_t n, cap = 0;

	(void)state;
	for (n = 0; n < 100; n++) {
		assert_int_equal(frame_grow(&a, sizeof(*a), n, &cap, 4), 0);
		assert_true(cap > n);
		a[n] = (int64_t)n;
	}
	assert_int_equal(cap, 128);     /* 4, 8, ..., 128 */
	for (n = 0; n < 100; n++)
		assert_int_equal(a[n], (int64_t)n);
	assert_int_equal(frame_grow(&a, sizeof(*a), 50, &cap, 4), 0);
	assert_int_equal(cap, 128);     /* room already: unchanged */
	free(a);
}

/* Every message of the oneof: built with every field set, encoded, peeked,
 * decoded, encoded again to the same bytes. */
static void test_roundtrip_all(void **state)
{
	const ProtobufCMessageDescriptor *d = &asteal__envelope__descriptor;
	struct store s;
	unsigned i;

	(void)state;
	assert_true(d->n_fields >= 18);
	for (i = 0; i < d->n_fields; i++) {
		Asteal__Envelope__MsgCase c = (Asteal__Envelope__MsgCase)d->fields[i].id;
		Asteal__Envelope env, *back;
		uint8_t buf[4096], again[4096];
		size_t len, len2, flen;
		const char *unset = NULL;
		char why[FRAME_WHY_LEN];

		if (!(d->fields[i].flags & PROTOBUF_C_FIELD_FLAG_ONEOF))
			continue;       /* request_id: in every sample */
		if (sample(&env, &s, c) < 0)
			fail_msg("no sample for message %s", frame_case_name(c));
		if (!all_set(&env.base, &unset))
			fail_msg("sample %s leaves %s unset", frame_case_name(c), unset);
		assert_int_equal(frame_encode(&env, buf, sizeof(buf), &len), 0);
		assert_int_equal(len, frame_size(&env));
		assert_int_equal(frame_peek(buf, len, &flen), 1);
		assert_int_equal(flen, len);
		back = frame_decode(buf + PROTO_HEADER_LEN, len - PROTO_HEADER_LEN,
				    why, sizeof(why));
		if (back == NULL)
			fail_msg("%s: %s", frame_case_name(c), why);
		assert_int_equal(back->msg_case, c);
		assert_string_equal(frame_name(back), d->fields[i].name);
		assert_int_equal(frame_encode(back, again, sizeof(again), &len2), 0);
		assert_int_equal(len2, len);
		assert_memory_equal(again, buf, len);
		unset = NULL;
		if (!all_set(&back->base, &unset))
			fail_msg("decoded %s lost %s", frame_case_name(c), unset);
		frame_free(back);
	}
}

/* Spot checks of decoded values: strings, doubles, signed, nested. */
static void test_roundtrip_values(void **state)
{
	Asteal__Envelope env, *m;
	struct store s;
	uint8_t *buf;
	size_t len;

	(void)state;
	sample(&env, &s, ASTEAL__ENVELOPE__MSG_HISTORY);
	buf = frame_encode_alloc(&env, &len);
	assert_non_null(buf);
	m = frame_decode(buf + 4, len - 4, NULL, 0);
	assert_non_null(m);
	assert_string_equal(m->history->jobs[0]->command, "uts -t T3L");
	assert_int_equal(m->history->jobs[0]->wait_status, -1);
	assert_int_equal(m->history->allotments[1]->n_cpus, 4);
	assert_int_equal(m->history->allotments[1]->cpus[3], 3);
	assert_true(m->history->more);
	frame_free(m);
	free(buf);

	sample(&env, &s, ASTEAL__ENVELOPE__MSG_FEEDBACK);
	buf = frame_encode_alloc(&env, &len);
	assert_non_null(buf);
	m = frame_decode(buf + 4, len - 4, NULL, 0);
	assert_non_null(m);
	assert_true(m->feedback->desire_real == 2.25);
	assert_int_equal(m->feedback->quantum_class, ASTEAL__QUANTUM_CLASS__INEFFICIENT);
	frame_free(m);
	free(buf);

	/* Defaults decode as empty strings, not NULL. */
	frame_hello(&env, &s.hello, ASTEAL__ROLE__CLIENT, NULL, 0, NULL, NULL);
	buf = frame_encode_alloc(&env, &len);
	assert_non_null(buf);
	m = frame_decode(buf + 4, len - 4, NULL, 0);
	assert_non_null(m);
	assert_string_equal(m->hello->name, "");
	assert_int_equal(m->hello->role, ASTEAL__ROLE__CLIENT);
	frame_free(m);
	free(buf);
}

/* Encoding refuses what it cannot send. */
static void test_encode_errors(void **state)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Released released = ASTEAL__RELEASED__INIT;
	Asteal__Jobs jobs = ASTEAL__JOBS__INIT;
	Asteal__JobInfo info, *infop = &info;
	uint8_t buf[64];
	size_t len = 99;
	char *big;

	(void)state;
	assert_int_equal(frame_encode(&env, buf, sizeof(buf), &len), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(frame_size(&env), 0);
	assert_int_equal(frame_encode(NULL, buf, sizeof(buf), &len), -1);
	assert_int_equal(errno, EINVAL);
	env.msg_case = ASTEAL__ENVELOPE__MSG_RELEASED;   /* nothing behind it */
	assert_int_equal(frame_encode(&env, buf, sizeof(buf), &len), -1);
	assert_int_equal(errno, EINVAL);
	env.msg_case = ASTEAL__ENVELOPE__MSG_HELLO;  /* a Released as a Hello */
	env.released = &released;
	assert_int_equal(frame_encode(&env, buf, sizeof(buf), &len), -1);
	assert_int_equal(errno, EINVAL);
	assert_null(frame_encode_alloc(&env, &len));
	assert_int_equal(errno, EINVAL);

	env.msg_case = ASTEAL__ENVELOPE__MSG_RELEASED;
	released.quantum = UINT64_MAX;
	assert_int_equal(frame_encode(&env, buf, 5, &len), -1);
	assert_int_equal(errno, ENOBUFS);
	assert_int_equal(len, frame_size(&env));
	assert_int_equal(frame_encode(&env, buf, len, &len), 0);

	/* A reply above PROTO_MAX_FRAME is refused, not sent. */
	big = malloc(PROTO_MAX_FRAME + 1);
	assert_non_null(big);
	memset(big, 'x', PROTO_MAX_FRAME);
	big[PROTO_MAX_FRAME] = '\0';
	asteal__job_info__init(&info);
	info.command = big;
	jobs.n_jobs = 1;
	jobs.jobs = &infop;
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS;
	env.jobs = &jobs;
	assert_true(frame_size(&env) > PROTO_MAX_FRAME);
	assert_null(frame_encode_alloc(&env, &len));
	assert_int_equal(errno, EMSGSIZE);
	free(big);
}

/* ------------------------------------------------------ partial input -- */

/* Encode sample c into buf; its frame length. */
static size_t encode_sample(Asteal__Envelope__MsgCase c, uint8_t *buf, size_t cap)
{
	Asteal__Envelope env;
	struct store s;
	size_t len;

	assert_int_equal(sample(&env, &s, c), 0);
	assert_int_equal(frame_encode(&env, buf, cap, &len), 0);
	return len;
}

/* frame_peek wants exactly the whole frame, and knows its length from
 * the prefix on. */
static void test_peek_prefixes(void **state)
{
	uint8_t buf[4096];
	size_t len = encode_sample(ASTEAL__ENVELOPE__MSG_JOBS, buf, sizeof(buf));
	size_t avail, flen;

	(void)state;
	assert_int_equal(frame_peek(NULL, 0, &flen), 0);
	for (avail = 0; avail <= len; avail++) {
		assert_int_equal(frame_peek(buf, avail, &flen), avail == len);
		assert_int_equal(flen, avail < PROTO_HEADER_LEN ? 0 : len);
	}
}

/* The reader, fed one byte at a time, returns the frame with the last. */
static void test_reader_byte_at_a_time(void **state)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m;
	uint8_t buf[4096];
	size_t len = encode_sample(ASTEAL__ENVELOPE__MSG_HISTORY, buf, sizeof(buf));
	size_t i;

	(void)state;
	assert_non_null(r);
	for (i = 0; i < len; i++) {
		assert_int_equal(frame_reader_next(r, &m), 0);
		assert_null(m);
		assert_int_equal(frame_reader_feed(r, buf + i, 1), 0);
		assert_int_equal(frame_reader_pending(r), i + 1);
	}
	assert_int_equal(frame_reader_next(r, &m), 1);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HISTORY);
	frame_free(m);
	assert_int_equal(frame_reader_next(r, &m), 0);
	assert_int_equal(frame_reader_pending(r), 0);
	frame_reader_free(r);
}

/* Three frames in one stream, cut in two at every point, and all at once. */
static void test_reader_splits(void **state)
{
	static const Asteal__Envelope__MsgCase order[3] = {
		ASTEAL__ENVELOPE__MSG_RELEASED, ASTEAL__ENVELOPE__MSG_ALLOT,
		ASTEAL__ENVELOPE__MSG_WELCOME,
	};
	uint8_t buf[4096];
	size_t len = 0, cut;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		len += encode_sample(order[i], buf + len, sizeof(buf) - len);
	for (cut = 0; cut <= len; cut++) {
		struct frame_reader *r = frame_reader_new();
		Asteal__Envelope *m;
		int got = 0, rc;

		assert_non_null(r);
		assert_int_equal(frame_reader_feed(r, buf, cut), 0);
		while ((rc = frame_reader_next(r, &m)) == 1) {
			assert_int_equal(m->msg_case, order[got++]);
			frame_free(m);
		}
		assert_int_equal(rc, 0);
		assert_int_equal(frame_reader_feed(r, buf + cut, len - cut), 0);
		while ((rc = frame_reader_next(r, &m)) == 1) {
			assert_int_equal(m->msg_case, order[got++]);
			frame_free(m);
		}
		assert_int_equal(rc, 0);
		assert_int_equal(got, 3);
		assert_int_equal(frame_reader_pending(r), 0);
		frame_reader_free(r);
	}
}

/* ------------------------------------------------------------ bad input -- */

/* A prefix above the maximum is refused by itself: no body needed. */
static void test_oversize_prefix(void **state)
{
	uint8_t pre[4] = { 0x00, 0x10, 0x00, 0x01 };  /* 1 MiB + 1 */
	uint8_t max[4] = { 0x00, 0x10, 0x00, 0x00 };  /* 1 MiB */
	uint8_t huge[4] = { 0xff, 0xff, 0xff, 0xff };
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m;
	size_t flen = 7;

	(void)state;
	assert_int_equal(frame_peek(pre, 4, &flen), -1);
	assert_int_equal(errno, EMSGSIZE);
	assert_int_equal(flen, 0);
	assert_int_equal(frame_peek(huge, 4, &flen), -1);
	assert_int_equal(frame_peek(max, 4, &flen), 0);
	assert_int_equal(flen, PROTO_HEADER_LEN + PROTO_MAX_FRAME);
	assert_null(frame_decode(pre, PROTO_MAX_FRAME + 1u, NULL, 0));
	assert_int_equal(errno, EMSGSIZE);

	assert_int_equal(frame_reader_feed(r, pre, 3), 0);
	assert_int_equal(frame_reader_feed(r, pre + 3, 1), -1);
	assert_int_equal(errno, EMSGSIZE);
	assert_int_equal(frame_reader_next(r, &m), -1);
	assert_int_equal(errno, EMSGSIZE);
	assert_null(m);
	assert_non_null(strstr(frame_reader_why(r), "above the maximum"));
	assert_int_equal(frame_reader_feed(r, pre, 1), -1);  /* stays broken */
	assert_int_equal(errno, EMSGSIZE);
	frame_reader_free(r);
}

/* Empty, garbage and unknown bodies are refused; the stream keeps step. */
static void test_bad_bodies(void **state)
{
	static const uint8_t garbage[][6] = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },  /* bad tag, endless varint */
		{ 0x0a, 0x05, 0x01, 0, 0, 0 },          /* hello, length past the end */
		{ 0x08, 0x80, 0x80, 0x80, 0x80, 0x80 },  /* hello as a varint, cut */
		{ 0x0a, 0x02, 0x08, 0x80, 0, 0 },        /* hello with a cut varint */
	};
	static const size_t glen[] = { 6, 3, 6, 4 };
	/* Field number 0 with a padded tag (80 00), beside a Released and
	 * inside one: protobuf-c accepts it, frame_decode must not. */
	static const uint8_t field0[] = { 0x6a, 0x02, 0x08, 0x05, 0x80, 0x00, 0x00 };
	static const uint8_t field0_in[] = { 0x6a, 0x05, 0x08, 0x05, 0x80, 0x00, 0x00 };
	/* Field 99, length-delimited and empty: a message from the future. */
	static const uint8_t unknown[] = { 0x9a, 0x06, 0x00 };
	/* A frame of it, an empty frame, then a good Released{5}. */
	static const uint8_t stream[] = {
		0, 0, 0, 3, 0x9a, 0x06, 0x00,
		0, 0, 0, 0,
		0, 0, 0, 4, 0x6a, 0x02, 0x08, 0x05,
	};
	struct frame_reader *r = frame_reader_new();
	char why[FRAME_WHY_LEN];
	Asteal__Envelope *m;
	size_t i;

	(void)state;
	assert_null(frame_decode(garbage[0], 0, why, sizeof(why)));
	assert_int_equal(errno, ENOMSG);
	assert_non_null(strstr(why, "unknown message"));
	for (i = 0; i < sizeof(glen) / sizeof(glen[0]); i++) {
		assert_null(frame_decode(garbage[i], glen[i], why, sizeof(why)));
		assert_int_equal(errno, EBADMSG);
		assert_non_null(strstr(why, "malformed"));
		assert_int_equal(frame_error_code(errno), ASTEAL__ERROR_CODE__BAD_MESSAGE);
	}
	assert_null(frame_decode(field0, sizeof(field0), why, sizeof(why)));
	assert_int_equal(errno, EBADMSG);
	assert_null(frame_decode(field0_in, sizeof(field0_in), why, sizeof(why)));
	assert_int_equal(errno, EBADMSG);
	assert_null(frame_decode(unknown, sizeof(unknown), why, sizeof(why)));
	assert_int_equal(errno, ENOMSG);
	assert_string_equal(why, "unknown message (field 99)");
	assert_int_equal(frame_error_code(errno), ASTEAL__ERROR_CODE__UNKNOWN_MESSAGE);
	assert_null(frame_decode(NULL, 3, NULL, 0));  /* no why buffer: fine */

	assert_int_equal(frame_reader_feed(r, stream, sizeof(stream)), 0);
	assert_int_equal(frame_reader_next(r, &m), -1);
	assert_int_equal(errno, ENOMSG);
	assert_string_equal(frame_reader_why(r), "unknown message (field 99)");
	assert_int_equal(frame_reader_next(r, &m), -1);
	assert_int_equal(errno, ENOMSG);
	assert_int_equal(frame_reader_next(r, &m), 1);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_RELEASED);
	assert_int_equal(m->released->quantum, 5);
	frame_free(m);
	frame_reader_free(r);
}

/* A known message next to an unknown field (a newer peer) is accepted. */
static void test_unknown_field_beside_known(void **state)
{
	static const uint8_t body[] = { 0x6a, 0x02, 0x08, 0x05, 0x9a, 0x06, 0x00 };
	Asteal__Envelope *m = frame_decode(body, sizeof(body), NULL, 0);

	(void)state;
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_RELEASED);
	frame_free(m);
}

/* -------------------------------------------------------------- handshake -- */

/* The version check's text, the handshake check, message names. */
static void test_version(void **state)
{
	Asteal__Envelope env;
	struct store s;
	char why[FRAME_WHY_LEN];

	(void)state;
	assert_int_equal(frame_check_version(PROTO_VERSION, why, sizeof(why)), 0);
	assert_int_equal(frame_check_version(1, why, sizeof(why)), -1);
	assert_int_equal(errno, EPROTONOSUPPORT);
	assert_string_equal(why, "protocol version 1, this side speaks 4");
	assert_int_equal(frame_error_code(errno), ASTEAL__ERROR_CODE__BAD_VERSION);
	assert_int_equal(frame_check_version(0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no protocol version"));
	assert_int_equal(frame_check_version(2, NULL, 0), -1);  /* usage before 3 */
	assert_int_equal(frame_check_version(3, NULL, 0), -1);  /* usage unnested */
	assert_int_equal(frame_check_version(5, NULL, 0), -1);

	sample(&env, &s, ASTEAL__ENVELOPE__MSG_HELLO);
	assert_int_equal(frame_check_handshake(&env, ASTEAL__ENVELOPE__MSG_HELLO,
					       why, sizeof(why)), 0);
	s.hello.version = 5;
	assert_int_equal(frame_check_handshake(&env, ASTEAL__ENVELOPE__MSG_HELLO,
					       why, sizeof(why)), -1);
	assert_string_equal(why, "protocol version 5, this side speaks 4");
	assert_int_equal(frame_check_handshake(&env, ASTEAL__ENVELOPE__MSG_WELCOME,
					       why, sizeof(why)), -1);
	assert_int_equal(errno, EPROTO);
	assert_string_equal(why, "expected welcome first, got hello");
	assert_int_equal(frame_check_handshake(NULL, ASTEAL__ENVELOPE__MSG_HELLO,
					       why, sizeof(why)), -1);
	assert_int_equal(frame_check_handshake(&env, ASTEAL__ENVELOPE__MSG_RELEASED,
					       why, sizeof(why)), -1);
	assert_int_equal(errno, EINVAL);

	sample(&env, &s, ASTEAL__ENVELOPE__MSG_WELCOME);
	assert_int_equal(frame_check_handshake(&env, ASTEAL__ENVELOPE__MSG_WELCOME,
					       why, sizeof(why)), 0);
	assert_string_equal(frame_case_name(ASTEAL__ENVELOPE__MSG__NOT_SET), "none");
	assert_string_equal(frame_case_name((Asteal__Envelope__MsgCase)99), "unknown");
	assert_string_equal(frame_name(NULL), "none");
}

/* -------------------------------------------------------------- fds -- */

#define THREAD_FRAMES 200

/* The writer thread, on a nonblocking fd: Hello, THREAD_FRAMES Released, a
 * History larger than a socket buffer (partial writes, EAGAIN and poll),
 * a final Released; then it closes. */
static void *writer_main(void *arg)
{
	int fd = *(int *)arg;
	Asteal__Envelope env;
	struct store s;
	Asteal__AllotmentRecord **many;
	size_t i, n = 15000;
	int ok = fcntl(fd, F_SETFL, O_NONBLOCK) == 0;

	sample(&env, &s, ASTEAL__ENVELOPE__MSG_HELLO);
	ok &= frame_write_fd(fd, &env) == 0;
	for (i = 1; i <= THREAD_FRAMES; i++) {
		sample(&env, &s, ASTEAL__ENVELOPE__MSG_RELEASED);
		s.released.quantum = i;
		ok &= frame_write_fd(fd, &env) == 0;
	}
	sample(&env, &s, ASTEAL__ENVELOPE__MSG_HISTORY);
	many = malloc(n * sizeof(*many));
	for (i = 0; many != NULL && i < n; i++)
		many[i] = &s.arec[i % 2];
	s.history.n_allotments = n;
	s.history.allotments = many;
	ok &= many != NULL && frame_write_fd(fd, &env) == 0;
	free(many);
	sample(&env, &s, ASTEAL__ENVELOPE__MSG_RELEASED);
	s.released.quantum = 0;
	ok &= frame_write_fd(fd, &env) == 0;
	close(fd);
	return ok ? arg : NULL;
}

/* A writer thread and a blocking reader over a socketpair. */
static void test_fd_thread(void **state)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m;
	pthread_t t;
	void *ret;
	int sv[2], rc;
	uint64_t want = 1;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(pthread_create(&t, NULL, writer_main, &sv[1]), 0);
	assert_int_equal(frame_reader_read(r, sv[0], &m), 1);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HELLO);
	frame_free(m);
	for (; want <= THREAD_FRAMES; want++) {
		assert_int_equal(frame_reader_read(r, sv[0], &m), 1);
		assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_RELEASED);
		assert_int_equal(m->released->quantum, want);
		frame_free(m);
	}
	rc = frame_reader_read(r, sv[0], &m);
	if (rc != 1)
		fail_msg("history: %s", frame_reader_why(r));
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HISTORY);
	assert_int_equal(m->history->n_allotments, 15000);
	assert_int_equal(m->history->allotments[14999]->last_quantum, 99);
	frame_free(m);
	assert_int_equal(frame_reader_read(r, sv[0], &m), 1);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_RELEASED);
	frame_free(m);
	assert_int_equal(frame_reader_read(r, sv[0], &m), 0);  /* clean EOF */
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_non_null(ret);
	close(sv[0]);
	frame_reader_free(r);
}

/* A nonblocking reader: EAGAIN when dry, a frame written in two halves,
 * then byte by byte through the fd. */
static void test_fd_nonblocking(void **state)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m;
	uint8_t buf[4096];
	size_t len = encode_sample(ASTEAL__ENVELOPE__MSG_FEEDBACK, buf, sizeof(buf)), i;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(frame_reader_fill(r, sv[0]), -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	assert_int_equal(write(sv[1], buf, 5), 5);
	assert_int_equal(frame_reader_fill(r, sv[0]), 5);
	assert_int_equal(frame_reader_next(r, &m), 0);
	assert_int_equal(frame_reader_fill(r, sv[0]), -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	assert_int_equal(write(sv[1], buf + 5, len - 5), (ssize_t)(len - 5));
	assert_int_equal(frame_reader_fill(r, sv[0]), (ssize_t)(len - 5));
	assert_int_equal(frame_reader_next(r, &m), 1);
	assert_true(m->feedback->desire_real == 2.25);
	frame_free(m);

	for (i = 0; i < len; i++) {
		assert_int_equal(frame_reader_next(r, &m), 0);
		assert_int_equal(write(sv[1], buf + i, 1), 1);
		assert_int_equal(frame_reader_fill(r, sv[0]), 1);
	}
	assert_int_equal(frame_reader_next(r, &m), 1);
	frame_free(m);
	close(sv[1]);
	assert_int_equal(frame_reader_fill(r, sv[0]), 0);
	close(sv[0]);
	frame_reader_free(r);
}

/* End of stream inside a frame (header or body) is an error that says so;
 * a frame already whole before it is still delivered. */
static void test_fd_eof_mid_frame(void **state)
{
	uint8_t buf[4096];
	size_t len = encode_sample(ASTEAL__ENVELOPE__MSG_STATUS, buf, sizeof(buf));
	size_t cuts[] = { 2, 10 }, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct frame_reader *r = frame_reader_new();
		Asteal__Envelope *m;
		char want[FRAME_WHY_LEN];
		int sv[2];

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		assert_int_equal(write(sv[1], buf, len), (ssize_t)len);
		assert_int_equal(write(sv[1], buf, cuts[k]), (ssize_t)cuts[k]);
		close(sv[1]);
		assert_int_equal(frame_reader_fill(r, sv[0]), (ssize_t)(len + cuts[k]));
		assert_int_equal(frame_reader_fill(r, sv[0]), -1);
		assert_int_equal(errno, EPROTO);
		snprintf(want, sizeof(want),
			 "end of stream in the middle of a frame (%zu of %zu bytes)",
			 cuts[k], k == 0 ? (size_t)PROTO_HEADER_LEN : len);
		assert_string_equal(frame_reader_why(r), want);
		assert_int_equal(frame_reader_next(r, &m), 1);
		assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_STATUS);
		frame_free(m);
		assert_int_equal(frame_reader_next(r, &m), 0);
		assert_int_equal(frame_reader_read(r, sv[0], &m), -1);
		assert_int_equal(errno, EPROTO);
		close(sv[0]);
		frame_reader_free(r);
	}
}

/* The prefix alone, read from an fd, makes the reader refuse the frame
 * and read no more. */
static void test_fd_oversize(void **state)
{
	static const uint8_t pre[4] = { 0x01, 0x00, 0x00, 0x00 };  /* 16 MiB */
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[1], pre, 4), 4);
	assert_int_equal(frame_reader_fill(r, sv[0]), 4);
	assert_int_equal(frame_reader_next(r, &m), -1);
	assert_int_equal(errno, EMSGSIZE);
	assert_int_equal(frame_error_code(errno), ASTEAL__ERROR_CODE__TOO_LARGE);
	assert_int_equal(write(sv[1], "body", 4), 4);
	assert_int_equal(frame_reader_fill(r, sv[0]), -1);
	assert_int_equal(errno, EMSGSIZE);
	assert_int_equal(frame_reader_pending(r), 4);  /* the body was not read */
	close(sv[0]);
	close(sv[1]);
	frame_reader_free(r);
}

/* Writing to a closed peer is EPIPE, not SIGPIPE; writing to a pipe (not
 * a socket) works. */
static void test_write_fd(void **state)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope env, *m;
	struct store s;
	int sv[2], p[2];

	(void)state;
	sample(&env, &s, ASTEAL__ENVELOPE__MSG_ALLOT);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[0]);
	assert_int_equal(frame_write_fd(sv[1], &env), -1);
	assert_int_equal(errno, EPIPE);
	close(sv[1]);
	assert_int_equal(frame_write_fd(-1, &env), -1);
	assert_int_equal(errno, EBADF);

	assert_int_equal(pipe(p), 0);
	assert_int_equal(frame_write_fd(p[1], &env), 0);
	close(p[1]);
	assert_int_equal(frame_reader_read(r, p[0], &m), 1);
	assert_int_equal(m->allot->n_cpus, 2);
	assert_int_equal(m->allot->cpus[1], 6);
	frame_free(m);
	assert_int_equal(frame_reader_read(r, p[0], &m), 0);
	close(p[0]);
	frame_reader_free(r);
}

struct intr {
	int fd;
	int result;            /* errno of the interrupted fill, once known */
	volatile int done;     /* set by the reader thread (read with atomics) */
};

/* A signal handler that does nothing (installed without SA_RESTART). */
static void on_usr1(int sig)
{
	(void)sig;
}

/* The reader thread: block in fill until a signal interrupts it. */
static void *intr_main(void *arg)
{
	struct intr *in = arg;
	struct frame_reader *r = frame_reader_new();
	ssize_t n;

	n = frame_reader_fill(r, in->fd);
	in->result = n < 0 ? errno : 0;
	frame_reader_free(r);
	__atomic_store_n(&in->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether the reader thread is back. */
static int intr_done(void *arg)
{
	struct intr *in = arg;

	if (__atomic_load_n(&in->done, __ATOMIC_ACQUIRE))
		return 1;
	return 0;
}

/* A signal (no SA_RESTART) interrupting a blocked fill gives EINTR. */
static void test_fd_eintr(void **state)
{
	struct sigaction sa, old;
	struct intr in = { -1, -1, 0 };
	pthread_t t;
	double end;
	int sv[2];

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	in.fd = sv[0];
	assert_int_equal(pthread_create(&t, NULL, intr_main, &in), 0);
	/* A signal that lands before read() blocks is simply handled; keep
	 * signalling until one interrupts the read. */
	end = test_now() + 30;
	while (!intr_done(&in) && test_now() < end) {
		pthread_kill(t, SIGUSR1);
		test_wait(intr_done, &in, 0.001);
	}
	if (!intr_done(&in))
		assert_int_equal(write(sv[1], "x", 1), 1);  /* unblock, then fail */
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(in.result, EINTR);
	assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
	close(sv[0]);
	close(sv[1]);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_all),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_roundtrip_values),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_peek_prefixes),
		cmocka_unit_test(test_reader_byte_at_a_time),
		cmocka_unit_test(test_reader_splits),
		cmocka_unit_test(test_oversize_prefix),
		cmocka_unit_test(test_bad_bodies),
		cmocka_unit_test(test_unknown_field_beside_known),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_fd_thread),
		cmocka_unit_test(test_fd_nonblocking),
		cmocka_unit_test(test_fd_eof_mid_frame),
		cmocka_unit_test(test_fd_oversize),
		cmocka_unit_test(test_write_fd),
		cmocka_unit_test(test_fd_eintr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
