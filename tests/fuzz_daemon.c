/*
 * fuzz_daemon.c - a fuzz harness for asteald's message handling: the
 * daemon's modules (conf, history, scheduler, control, conn, request,
 * launch) run in this process, as daemon/main.c sets them up, and each
 * input drives up to four connections to them, each one end of a
 * socketpair whose other end the control adopts (control_adopt) as a
 * peer of a uid and pid the input picks (this uid, root, or another; a
 * made-up pid, and no pidfd, so that a cancel never signals anything).
 *
 * An input is a configuration byte (handover, share, private history,
 * tight limits), then operations, up to 64:
 *   open a connection as some uid and pid;
 *   send a Hello (a valid one, JOB or CLIENT: the quick way past the
 *   handshake);
 *   send a message of any case the Envelope has, or an unknown field
 *   number, its fields protobuf-c's decoding of the input's next bytes
 *   (an empty message when they do not decode), made plausible when the
 *   input asks (the version ours, ids the daemon gave, a Feedback's
 *   quantum now and its totals growing, ...), maybe with more bytes
 *   after it in the Envelope, maybe written in two halves;
 *   write raw bytes (the connection's stream is then unpredictable);
 *   close a connection;
 *   wait for the next event of the loop, a tick (a quantum is 1 ms) if
 *   nothing else comes first.
 * After each, the event loop runs until it is quiet (EVLOOP_NONBLOCK
 * turns, the jobs read each turn with control_read_jobs, until three
 * turns in a row bring nothing and the daemon has read all that was
 * written; a bound on the turns is itself an oracle: no livelock), every
 * frame the daemon wrote is read and checked:
 * - every one decodes, and is one the peer's role may get (Welcome first,
 *   then Allot and Error for a job; replies, Ok, WaitReply and
 *   CancelRequest (to a supervisor) for a client); an Error's code is
 *   one of ErrorCode's and it says why;
 * - what a frame gets is what the protocol says (proto/README.md): a
 *   request is answered exactly once, by its reply or an Error, which
 *   names it (its Envelope.request_id), on a connection that stays; JobExit and WaitRequest at most once now (Ok
 *   and WaitReply never outnumber them); a Feedback or Released at most
 *   one Error, the connection closing only after one; a frame that does
 *   not decode, or a message the role may not send, or a bad Hello, one
 *   Error with the code due (BAD_MESSAGE, UNKNOWN_MESSAGE, UNEXPECTED,
 *   BAD_VERSION, INVALID), then the end of the stream;
 * - what the daemon says agrees with what it was told: the jobs and
 *   clients it counts (sched_njobs, control_clients, Status, a Jobs
 *   reply) are the connections that got a Welcome as such; an Allot's
 *   allotment is its CPU count, at most its availability and the job's
 *   workers, its CPUs ascending among the daemon's; a job id is never
 *   given twice; a History page holds at most the records asked for;
 * - at the end of the input every connection is closed, the daemon counts
 *   none, and it is freed: ASan's leak check covers all of it.
 * The tick timer fires when it is due: Allots may come at any time, and
 * no oracle depends on when.
 *
 * Built with -DFUZZ_STANDALONE it has a main() without libFuzzer
 * (tests/fuzzutil.h):
 *   fuzz_daemon [ITERATIONS [SEED]]   default 3000 iterations, seed 1
 *   fuzz_daemon -s DIR                write the seed inputs to DIR
 * `make fuzz` builds it with libFuzzer (proto/README.md, "Fuzzing").
 * ASTEAL_FUZZ_LOG=debug (or info, warn) shows the daemon's log.
 */
#include <errno.h>
#include <linux/sockios.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>
#include <protobuf-c/protobuf-c.h>

#include "conf.h"
#include "conn.h"
#include "control.h"
#include "exchange.h"
#include "frame.h"
#include "fuzzutil.h"
#include "history.h"
#include "log.h"
#include "scheduler.h"

#define NCONNS 4
#define MAX_OPS 64
#define MAX_IDS 32
#define PUMP_TURNS 2000                /* a loop that is never quiet fails */
#define PUMP_QUIET 3
#define FRAME_ROOM 4096

/* Where a connection is, as the daemon's frames tell. */
enum role { R_NONE, R_HELLO, R_JOB, R_CLIENT };

/* What one frame sent should get, by the time the loop is quiet. */
enum expect {
	E_NONE,        /* unpredictable (raw bytes went first) */
	E_FAIL,        /* one Error (of code want_code), then the end */
	E_WELCOME,     /* a Welcome, or Error BUSY then the end */
	E_ANSWER,      /* exactly one: the reply answer_case, or an Error */
	E_MAYBE,       /* at most one Error; the end only after it */
};

/* One connection of the harness (its end of the socketpair). */
struct hconn {
	int fd;                        /* -1: none */
	struct frame_reader *r;
	int role;                      /* enum role */
	int raw;                       /* the stream is no longer in step
	                                  with what we predict */
	int eof;                       /* the daemon closed it */
	uid_t uid;
	pid_t pid;
	int hello_role;                /* the role its Hello asked for */
	uint32_t workers;              /* a job's, from its Hello */
	uint64_t job_id;               /* a job's, from its Welcome */
	uint64_t allot_q;              /* its last Allot's quantum */
	uint64_t tot[6];               /* the Feedback totals it sent */
	int exits, waits, launched;    /* JobExits and WaitRequests not
	                                  answered yet, Launches answered */
	uint32_t hist_limit;           /* its History request's limit */
	int jobs_all;                  /* its Jobs request wants every job */
	/* During one pump: */
	int n_error, n_answer, answer_case, last_code;
	int check_id;                  /* its answer must name want_id */
	uint64_t want_id;              /* the request's Envelope.request_id */
};

/* The daemon and the harness's view of it. */
struct harness {
	struct conf conf;
	struct event_base *base;
	struct history *hist;
	struct sched *sched;
	struct control *ctl;
	struct hconn c[NCONNS];
	uint64_t ids[MAX_IDS];         /* job ids the daemon gave */
	int nids;
	uint64_t t0_ns, quantum_ns;    /* from a job's Welcome */
};

/* The input being read. */
struct input {
	const uint8_t *p, *end;
};

/* What the inputs did (standalone statistics). */
static struct {
	unsigned long inputs, ops, frames_in, welcomes, jobs, answers, errors,
		fails, allots, turns;
} stats;

/* The temporary folder for the daemon's socket, made once. */
static char tmpdir[64];

/* Stop with a message: an oracle failed. */
static void die(const char *what)
{
	fuzz_fail("fuzz_daemon", what);
}

/* Stop with a formatted message. */
__attribute__((format(printf, 1, 2)))
static void dief(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	die(buf);
}

/* The next byte of the input (0 past its end). */
static uint8_t take8(struct input *in)
{
	return in->p < in->end ? *in->p++ : 0;
}

/* The next n bytes of the input (fewer at its end): where they are. */
static const uint8_t *take(struct input *in, size_t *n)
{
	const uint8_t *p = in->p;

	if (*n > (size_t)(in->end - in->p))
		*n = (size_t)(in->end - in->p);
	in->p += *n;
	return p;
}

/* ---- the daemon's side ---- */

/* Remove the temporary folder at exit (its socket is unlinked by
 * control_free). */
static void remove_tmpdir(void)
{
	rmdir(tmpdir);
}

/* Set the daemon up as main.c does, configured by the input's first
 * byte. */
static void daemon_up(struct harness *h, unsigned cfg)
{
	char sock[128], why[512];
	char *argv[32];
	int argc = 0;

	snprintf(sock, sizeof(sock), "%s/sock", tmpdir);
	argv[argc++] = (char *)"asteald";
	argv[argc++] = (char *)"--config=/dev/null";
	argv[argc++] = (char *)"--db=:memory:";
	argv[argc++] = (char *)"--socket";
	argv[argc++] = sock;
	argv[argc++] = (char *)"--rt-priority=0";
	argv[argc++] = (char *)"--quantum-ms=1";    /* ticks come soon */
	argv[argc++] = cfg & 1 ? (char *)"--handover=release" : (char *)"--handover=immediate";
	argv[argc++] = cfg & 2 ? (char *)"--share=job" : (char *)"--share=user";
	if (cfg & 4)
		argv[argc++] = (char *)"--private-history";
	if (cfg & 8) {
		argv[argc++] = (char *)"--max-jobs=2";
		argv[argc++] = (char *)"--max-user-jobs=1";
		argv[argc++] = (char *)"--max-clients=2";
		argv[argc++] = (char *)"--max-user-clients=1";
	}
	argv[argc] = NULL;
	memset(h, 0, sizeof(*h));
	if (conf_load(&h->conf, argc, argv, why, sizeof(why)) < 0)
		dief("conf: %s", why);
	h->base = event_base_new();
	if (h->base == NULL)
		die("no event base");
	h->hist = history_open(h->conf.db, NULL, why, sizeof(why));
	if (h->hist == NULL)
		dief("history: %s", why);
	h->ctl = control_create(h->base, &h->conf, why, sizeof(why));
	if (h->ctl == NULL)
		dief("control: %s", why);
	h->sched = sched_create(h->base, &h->conf, h->hist, why, sizeof(why));
	if (h->sched == NULL)
		dief("scheduler: %s", why);
	if (control_attach(h->ctl, h->sched, h->hist) < 0)
		die("control_attach: out of memory");
	for (int i = 0; i < NCONNS; i++)
		h->c[i].fd = -1;
}

/* Free the daemon in main.c's order. */
static void daemon_down(struct harness *h)
{
	control_free(h->ctl);
	sched_free(h->sched);
	history_close(h->hist);
	event_base_free(h->base);
}

/* ---- the model ---- */

/* Connections the daemon should count in a role now. */
static int count_role(const struct harness *h, int role)
{
	int n = 0;

	for (int i = 0; i < NCONNS; i++)
		n += h->c[i].fd >= 0 && !h->c[i].eof && h->c[i].role == role;
	return n;
}

/* Remember a job id the daemon gave. */
static void add_id(struct harness *h, uint64_t id)
{
	if (h->nids < MAX_IDS)
		h->ids[h->nids++] = id;
}

/* A job id for a plausible request: one the daemon gave, or one it did
 * not (0, or the next). */
static uint64_t pick_id(const struct harness *h, uint64_t x)
{
	if (h->nids == 0 || x % 8 == 7)
		return x % 2 ? 0 : (uint64_t)h->nids + 100;
	return h->ids[x % (uint64_t)h->nids];
}

/* ---- what the daemon says ---- */

/* An Error: a code ErrorCode has and a reason. */
static void check_error(struct hconn *c, const Asteal__Error *e)
{
	if (e->code < ASTEAL__ERROR_CODE__BAD_VERSION ||
	    e->code > ASTEAL__ERROR_CODE__SHUTDOWN)
		dief("an Error with code %d", (int)e->code);
	if (e->message == NULL || e->message[0] == '\0')
		die("an Error that does not say why");
	c->n_error++;
	c->last_code = (int)e->code;
	stats.errors++;
}

/* A Welcome: the connection's role from now on. */
static void check_welcome(struct harness *h, struct hconn *c,
                          const Asteal__Welcome *w)
{
	if (c->role != R_HELLO)
		die("a Welcome after the handshake");
	if (w->version != PROTO_VERSION)
		dief("a Welcome of version %u", w->version);
	if (w->job_id != 0) {
		/* A claim may be granted an id given before (a Launch's), but
		 * two jobs connected never share one. */
		for (int i = 0; i < NCONNS; i++)
			if (h->c[i].fd >= 0 && !h->c[i].eof && h->c[i].role == R_JOB &&
			    h->c[i].job_id == w->job_id)
				dief("job id %llu given to two connected jobs",
				     (unsigned long long)w->job_id);
		add_id(h, w->job_id);
		c->job_id = w->job_id;
		h->t0_ns = w->t0_ns;
		h->quantum_ns = (uint64_t)w->quantum_us * 1000;
		c->role = R_JOB;
		stats.jobs++;
	} else {
		c->role = R_CLIENT;
	}
	if (!c->raw && c->role != c->hello_role)
		die("a Welcome for another role than the Hello asked for");
	stats.welcomes++;
}

/* An Allot: DEQ's answer in the form the protocol promises. */
static void check_allot(const struct harness *h, struct hconn *c,
                        const Asteal__Allot *a)
{
	size_t k = 0;

	if (a->allotment != a->n_cpus)
		dief("an Allot of %u CPUs lists %zu", a->allotment, a->n_cpus);
	if (a->allotment > a->availability)
		dief("an Allot of %u CPUs above its availability %u", a->allotment,
		     a->availability);
	if (!c->raw && a->allotment > c->workers)
		dief("an Allot of %u CPUs to a job of %u workers", a->allotment,
		     c->workers);
	for (size_t i = 0; i < a->n_cpus; i++) {
		if (i > 0 && a->cpus[i] <= a->cpus[i - 1])
			die("an Allot's CPUs are not ascending");
		while (k < (size_t)h->conf.ncpus && (uint32_t)h->conf.cpus[k] < a->cpus[i])
			k++;
		if (k == (size_t)h->conf.ncpus || (uint32_t)h->conf.cpus[k] != a->cpus[i])
			dief("an Allot of CPU %u, not the daemon's", a->cpus[i]);
	}
	c->allot_q = a->quantum;
	stats.allots++;
}

/* A Jobs reply: each job once, and when the request wanted all of them,
 * as many connected ones as there are job connections the viewer may see
 * (with --private-history, only its own unless it is root or us). */
static void check_jobs(const struct harness *h, const struct hconn *c,
                       const Asteal__Jobs *j)
{
	int all = !h->conf.private_history || c->uid == 0 || c->uid == geteuid();
	size_t managed = 0;
	int want = 0;

	for (int i = 0; i < NCONNS; i++)
		want += h->c[i].fd >= 0 && !h->c[i].eof && h->c[i].role == R_JOB &&
		        (all || h->c[i].uid == c->uid);

	for (size_t i = 0; i < j->n_jobs; i++) {
		managed += !j->jobs[i]->unmanaged;
		for (size_t k = 0; k < i; k++)
			if (j->jobs[k]->id == j->jobs[i]->id)
				dief("job %llu twice in a Jobs reply",
				     (unsigned long long)j->jobs[i]->id);
	}
	if (c->jobs_all && (int)managed != want)
		dief("a Jobs reply with %zu connected jobs, not %d", managed, want);
}

/* One frame the daemon wrote to c. */
static void on_frame(struct harness *h, struct hconn *c, const Asteal__Envelope *m)
{
	int client = c->role == R_CLIENT;

	stats.frames_in++;
	if ((int)m->msg_case == c->answer_case)
		c->n_answer++;
	if (c->check_id && ((int)m->msg_case == c->answer_case ||
	    m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) &&
	    m->request_id != c->want_id)
		dief("a %s for request %llu names request %llu", frame_name(m),
		     (unsigned long long)c->want_id,
		     (unsigned long long)m->request_id);
	if (c->role == R_HELLO && m->msg_case != ASTEAL__ENVELOPE__MSG_WELCOME &&
	    m->msg_case != ASTEAL__ENVELOPE__MSG_ERROR)
		dief("a %s before the Welcome", frame_name(m));
	switch (m->msg_case) {
	case ASTEAL__ENVELOPE__MSG_WELCOME:
		check_welcome(h, c, m->welcome);
		return;
	case ASTEAL__ENVELOPE__MSG_ERROR:
		check_error(c, m->error);
		return;
	case ASTEAL__ENVELOPE__MSG_ALLOT:
		if (c->role != R_JOB)
			die("an Allot to a client");
		check_allot(h, c, m->allot);
		return;
	case ASTEAL__ENVELOPE__MSG_STATUS:
		if (client && (m->status->protocol_version != PROTO_VERSION ||
		    (int)m->status->jobs != count_role(h, R_JOB) ||
		    (int)m->status->clients != count_role(h, R_CLIENT)))
			dief("a Status of %u jobs and %u clients, not %d and %d",
			     m->status->jobs, m->status->clients,
			     count_role(h, R_JOB), count_role(h, R_CLIENT));
		break;
	case ASTEAL__ENVELOPE__MSG_JOBS:
		if (client)
			check_jobs(h, c, m->jobs);
		break;
	case ASTEAL__ENVELOPE__MSG_HISTORY:
		if (client && m->history->more && m->history->next == NULL)
			die("a History page with more and no next");
		if (client && !c->raw && c->hist_limit > 0 &&
		    (m->history->n_allotments > c->hist_limit ||
		     (m->history->n_allotments == 0 && m->history->n_jobs > c->hist_limit)))
			dief("a History page of %zu runs and %zu jobs for a limit of %u",
			     m->history->n_allotments, m->history->n_jobs, c->hist_limit);
		break;
	case ASTEAL__ENVELOPE__MSG_LAUNCHED:
		if (client && m->launched->job_id == 0)
			die("a Launched with no job id");
		if (client) {
			add_id(h, m->launched->job_id);
			c->launched++;
		}
		break;
	case ASTEAL__ENVELOPE__MSG_OK:
		if (client && !c->raw && --c->exits < 0)
			die("an Ok that no JobExit asked for");
		break;
	case ASTEAL__ENVELOPE__MSG_WAIT_REPLY:
		if (client && !c->raw && --c->waits < 0)
			die("a WaitReply that no WaitRequest asked for");
		break;
	case ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST:
		if (client && !c->raw && c->launched == 0)
			die("a CancelRequest to a client that supervises nothing");
		break;
	case ASTEAL__ENVELOPE__MSG_CANCEL_REPLY:
		break;
	default:
		dief("the daemon sent a %s", frame_name(m));
	}
	if (!client)
		dief("a %s to a job", frame_name(m));
	stats.answers++;
}

/* Read what every connection has: 1 if anything came (bytes or an end). */
static int drain(struct harness *h)
{
	int progress = 0;

	for (int i = 0; i < NCONNS; i++) {
		struct hconn *c = &h->c[i];

		while (c->fd >= 0 && !c->eof) {
			Asteal__Envelope *m;
			ssize_t n = frame_reader_fill(c->r, c->fd);
			int rc;

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			progress = 1;
			if (n < 0 && errno != ECONNRESET)
				dief("reading the daemon: %s (%s)", strerror(errno),
				     frame_reader_why(c->r));
			while ((rc = frame_reader_next(c->r, &m)) == 1) {
				on_frame(h, c, m);
				frame_free(m);
			}
			if (rc < 0)
				dief("the daemon wrote a frame that does not decode: %s",
				     frame_reader_why(c->r));
			if (n <= 0)
				c->eof = 1;
		}
	}
	return progress;
}

/* Whether the daemon has yet to read something a connection wrote. */
static int unread(const struct harness *h)
{
	for (int i = 0; i < NCONNS; i++) {
		int n = 0;

		if (h->c[i].fd >= 0 && !h->c[i].eof &&
		    ioctl(h->c[i].fd, SIOCOUTQ, &n) == 0 && n > 0)
			return 1;
	}
	return 0;
}

/* Run the daemon until it is quiet, reading what it writes; then check
 * what it counts against the model. */
static void pump(struct harness *h)
{
	int quiet = 0, turn;

	for (turn = 0; turn < PUMP_TURNS && quiet < PUMP_QUIET; turn++) {
		event_base_loop(h->base, EVLOOP_NONBLOCK);
		control_read_jobs(h->ctl);
		if (drain(h) || unread(h))
			quiet = 0;
		else
			quiet++;
	}
	stats.turns += (unsigned long)turn;
	if (quiet < PUMP_QUIET)
		dief("the daemon is not quiet after %d turns of its loop", turn);
	if (sched_njobs(h->sched) != count_role(h, R_JOB))
		dief("the scheduler counts %d jobs, not %d", sched_njobs(h->sched),
		     count_role(h, R_JOB));
	if (control_clients(h->ctl) != count_role(h, R_CLIENT))
		dief("the control counts %d clients, not %d",
		     control_clients(h->ctl), count_role(h, R_CLIENT));
}

/* ---- what the harness says ---- */

/* Forget a connection's end the daemon closed (or close ours). */
static void conn_reset(struct hconn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	frame_reader_free(c->r);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Open connection c as the peer the byte id picks. */
static void conn_open(struct harness *h, struct hconn *c, unsigned id)
{
	static const pid_t pids[] = { 4001, 4002, 4003 };
	uid_t uids[3] = { getuid(), 0, 64999 };
	struct conn_peer who;
	int sv[2];

	conn_reset(c);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		dief("socketpair: %s", strerror(errno));
	c->r = frame_reader_new();
	if (c->r == NULL)
		die("out of memory");
	c->fd = sv[0];
	c->uid = uids[id % 3];
	c->pid = pids[id / 3 % 3];
	c->role = R_HELLO;
	who.uid = c->uid;
	who.gid = getgid();
	who.pid = c->pid;
	who.pidfd = -1;                /* never signalled */
	/* Refused (the daemon's limits), it writes an Error and closes. */
	control_adopt(h->ctl, sv[1], &who);
}

/* Write len bytes to c, letting the daemon read when the socket is full;
 * a closed peer stops it. */
static void send_bytes(struct harness *h, struct hconn *c, const uint8_t *p,
                       size_t len)
{
	int stuck = 0;

	while (len > 0 && c->fd >= 0 && !c->eof) {
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return;         /* EPIPE, ECONNRESET: its end is read */
		if (++stuck > 100)
			return;         /* it reads no more: it is closing */
		event_base_loop(h->base, EVLOOP_NONBLOCK);
		control_read_jobs(h->ctl);
		drain(h);
	}
}

/* Make a Hello plausible: our version, a role, a job's workers, a claim
 * to an id the daemon gave. */
static void fix_hello(const struct harness *h, Asteal__Hello *m, unsigned flags)
{
	if (!(flags & 2))
		m->version = PROTO_VERSION;
	if ((m->role != ASTEAL__ROLE__JOB && m->role != ASTEAL__ROLE__CLIENT) &&
	    !(flags & 4))
		m->role = flags & 8 ? ASTEAL__ROLE__CLIENT : ASTEAL__ROLE__JOB;
	if (m->workers == 0 || m->workers > 64)
		m->workers = 1 + m->workers % 8;
	if (m->job_id != 0)
		m->job_id = pick_id(h, m->job_id);
}

/* Make a Feedback plausible for job c: a quantum about now, a desire
 * within its workers, totals that grow a little. */
static void fix_feedback(const struct harness *h, struct hconn *c,
                         Asteal__Feedback *m)
{
	uint64_t now = qtime_now_ns(), q = 0;

	if (h->quantum_ns > 0 && now > h->t0_ns)
		q = (now - h->t0_ns) / h->quantum_ns;
	m->quantum = q > m->quantum % 3 ? q - m->quantum % 3 : 0;
	if (c->workers > 0) {
		m->desire %= c->workers + 1;
		m->desire_real = m->desire > 0 ? m->desire - 0.5 : 0;
	}
	m->quantum_class = (Asteal__QuantumClass)((unsigned)m->quantum_class % 4);
	if (m->usage != NULL) {     /* none: the daemon takes zeros */
		Asteal__Usage *u = m->usage;
		uint64_t *tot[6] = { &u->work_ns, &u->steal_ns, &u->mug_ns,
		                     &u->allotted_ns, &u->sleep_ns, &u->preempted_ns };

		for (int k = 0; k < 6; k++) {
			c->tot[k] += *tot[k] % 100000000;
			*tot[k] = c->tot[k];
		}
	}
}

/* Make a message of Envelope field `field` plausible (flags bit 0 set):
 * ids the daemon gave, small limits, pids of our peers. */
static void fix_message(const struct harness *h, struct hconn *c, int field,
                        ProtobufCMessage *msg, unsigned flags)
{
	switch (field) {
	case ASTEAL__ENVELOPE__MSG_HELLO:
		fix_hello(h, (Asteal__Hello *)msg, flags);
		break;
	case ASTEAL__ENVELOPE__MSG_FEEDBACK:
		fix_feedback(h, c, (Asteal__Feedback *)msg);
		break;
	case ASTEAL__ENVELOPE__MSG_RELEASED: {
		Asteal__Released *r = (Asteal__Released *)msg;

		r->quantum = c->allot_q;
		r->parked_ns = qtime_now_ns();
		break;
	}
	case ASTEAL__ENVELOPE__MSG_JOBS_REQUEST: {
		Asteal__JobsRequest *r = (Asteal__JobsRequest *)msg;

		for (size_t i = 0; i < r->n_ids; i++)
			r->ids[i] = pick_id(h, r->ids[i]);
		break;
	}
	case ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST: {
		Asteal__HistoryRequest *r = (Asteal__HistoryRequest *)msg;

		for (size_t i = 0; i < r->n_job_ids; i++)
			r->job_ids[i] = pick_id(h, r->job_ids[i]);
		r->limit %= 4;
		if (!(flags & 2))
			r->since_ns = r->until_ns = 0;
		break;
	}
	case ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST: {
		Asteal__CancelRequest *r = (Asteal__CancelRequest *)msg;

		r->job_id = pick_id(h, r->job_id);
		r->signal = (int32_t)((uint32_t)r->signal % 70);
		break;
	}
	case ASTEAL__ENVELOPE__MSG_JOB_EXIT: {
		Asteal__JobExit *r = (Asteal__JobExit *)msg;

		r->job_id = r->job_id != 0 ? pick_id(h, r->job_id) : 0;
		r->pid = 4001 + (int32_t)((uint32_t)r->pid % 3);
		break;
	}
	case ASTEAL__ENVELOPE__MSG_WAIT_REQUEST: {
		Asteal__WaitRequest *r = (Asteal__WaitRequest *)msg;

		r->job_id = pick_id(h, r->job_id);
		break;
	}
	case ASTEAL__ENVELOPE__MSG_LAUNCH: {
		Asteal__Launch *r = (Asteal__Launch *)msg;

		r->pid = 4001 + (int32_t)((uint32_t)r->pid % 3);
		r->job_id = r->job_id != 0 ? pick_id(h, r->job_id) : 0;
		r->workers %= 9;
		break;
	}
	default:
		break;
	}
}

/* The Envelope fields a message may be sent in, and their types; 0 and
 * NULL: an unknown field number, its payload the input's bytes. */
static const struct {
	int field;
	const ProtobufCMessageDescriptor *d;
} kinds[] = {
	{ ASTEAL__ENVELOPE__MSG_HELLO, &asteal__hello__descriptor },
	{ ASTEAL__ENVELOPE__MSG_FEEDBACK, &asteal__feedback__descriptor },
	{ ASTEAL__ENVELOPE__MSG_RELEASED, &asteal__released__descriptor },
	{ ASTEAL__ENVELOPE__MSG_PAGE_DECLINED, &asteal__page_declined__descriptor },
	{ ASTEAL__ENVELOPE__MSG_STATUS_REQUEST, &asteal__status_request__descriptor },
	{ ASTEAL__ENVELOPE__MSG_JOBS_REQUEST, &asteal__jobs_request__descriptor },
	{ ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST, &asteal__history_request__descriptor },
	{ ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST, &asteal__cancel_request__descriptor },
	{ ASTEAL__ENVELOPE__MSG_JOB_EXIT, &asteal__job_exit__descriptor },
	{ ASTEAL__ENVELOPE__MSG_WAIT_REQUEST, &asteal__wait_request__descriptor },
	{ ASTEAL__ENVELOPE__MSG_LAUNCH, &asteal__launch__descriptor },
	{ ASTEAL__ENVELOPE__MSG_WELCOME, &asteal__welcome__descriptor },
	{ ASTEAL__ENVELOPE__MSG_ERROR, &asteal__error__descriptor },
	{ ASTEAL__ENVELOPE__MSG_OK, &asteal__ok__descriptor },
	{ ASTEAL__ENVELOPE__MSG_ALLOT, &asteal__allot__descriptor },
	{ ASTEAL__ENVELOPE__MSG_STATUS, &asteal__status__descriptor },
	{ ASTEAL__ENVELOPE__MSG_JOBS, &asteal__jobs__descriptor },
	{ ASTEAL__ENVELOPE__MSG_HISTORY, &asteal__history__descriptor },
	{ ASTEAL__ENVELOPE__MSG_CANCEL_REPLY, &asteal__cancel_reply__descriptor },
	{ ASTEAL__ENVELOPE__MSG_WAIT_REPLY, &asteal__wait_reply__descriptor },
	{ ASTEAL__ENVELOPE__MSG_LAUNCHED, &asteal__launched__descriptor },
	{ 0, NULL },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* Field numbers no message has (10 is reserved). */
static const unsigned unknown_fields[] = { 5, 9, 10, 15, 16, 19, 33, 40, 1000 };

/* What the daemon must do with the frame body (len bytes) c sends now:
 * set c's expectation, and the Error code in *code for E_FAIL. */
static int predict(struct hconn *c, const uint8_t *body, size_t len, int *code)
{
	Asteal__Envelope *m = frame_decode(body, len, NULL, 0);
	int e = E_FAIL, mc;

	c->answer_case = -1;
	c->check_id = 0;
	*code = ASTEAL__ERROR_CODE__UNEXPECTED;
	if (c->raw)
		e = E_NONE;
	else if (c->role == R_HELLO && len > PROTO_MAX_HELLO_FRAME)
		*code = ASTEAL__ERROR_CODE__TOO_LARGE;
	else if (m == NULL)
		*code = frame_error_code(errno);
	if (c->raw || m == NULL || *code == ASTEAL__ERROR_CODE__TOO_LARGE) {
		frame_free(m);
		return e;
	}
	mc = (int)m->msg_case;
	if (c->role == R_HELLO) {
		if (mc != ASTEAL__ENVELOPE__MSG_HELLO) {
			e = E_FAIL;
		} else if (m->hello->version != PROTO_VERSION) {
			*code = ASTEAL__ERROR_CODE__BAD_VERSION;
		} else if (m->hello->role == ASTEAL__ROLE__JOB &&
		           (m->hello->workers < 1 || m->hello->workers > 65536)) {
			*code = ASTEAL__ERROR_CODE__INVALID;
		} else if (m->hello->role == ASTEAL__ROLE__JOB ||
		           m->hello->role == ASTEAL__ROLE__CLIENT) {
			c->hello_role = m->hello->role == ASTEAL__ROLE__JOB ? R_JOB
			                                                   : R_CLIENT;
			c->workers = m->hello->workers;
			e = E_WELCOME;
		} else {
			*code = ASTEAL__ERROR_CODE__INVALID;
		}
	} else if (c->role == R_JOB) {
		if (mc == ASTEAL__ENVELOPE__MSG_FEEDBACK ||
		    mc == ASTEAL__ENVELOPE__MSG_RELEASED ||
		    mc == ASTEAL__ENVELOPE__MSG_PAGE_DECLINED)
			e = E_MAYBE;
	} else {
		e = E_ANSWER;
		c->hist_limit = 0;
		c->jobs_all = 0;
		c->want_id = m->request_id;
		switch (mc) {
		case ASTEAL__ENVELOPE__MSG_STATUS_REQUEST:
			c->answer_case = ASTEAL__ENVELOPE__MSG_STATUS;
			break;
		case ASTEAL__ENVELOPE__MSG_JOBS_REQUEST:
			c->answer_case = ASTEAL__ENVELOPE__MSG_JOBS;
			c->jobs_all = m->jobs_request->n_ids == 0;
			break;
		case ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST:
			c->answer_case = ASTEAL__ENVELOPE__MSG_HISTORY;
			c->hist_limit = m->history_request->limit;
			break;
		case ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST:
			c->answer_case = ASTEAL__ENVELOPE__MSG_CANCEL_REPLY;
			break;
		case ASTEAL__ENVELOPE__MSG_LAUNCH:
			c->answer_case = ASTEAL__ENVELOPE__MSG_LAUNCHED;
			break;
		case ASTEAL__ENVELOPE__MSG_JOB_EXIT:
			c->exits++;
			e = E_MAYBE;
			break;
		case ASTEAL__ENVELOPE__MSG_WAIT_REQUEST:
			c->waits++;
			e = E_MAYBE;
			break;
		default:
			e = E_FAIL;
			break;
		}
	}
	c->check_id = e == E_ANSWER && !c->raw;
	frame_free(m);
	return e;
}

/* After the loop is quiet: c got what predict said. */
static void check_outcome(struct hconn *c, int e, int code, int mc)
{
	const char *what = frame_case_name((Asteal__Envelope__MsgCase)mc);

	switch (e) {
	case E_FAIL:
		if (c->n_error != 1 || !c->eof || c->last_code != code)
			dief("a %s from a peer in role %d: %d Errors (last code %d, "
			     "not %d), %s", what, c->role, c->n_error, c->last_code,
			     code, c->eof ? "closed" : "not closed");
		stats.fails++;
		break;
	case E_WELCOME:
		if (c->eof ? c->n_error != 1 || c->last_code != ASTEAL__ERROR_CODE__BUSY
		           : c->n_error != 0 || c->role == R_HELLO)
			dief("a Hello: %d Errors (last code %d), %s", c->n_error,
			     c->last_code, c->eof ? "closed" : "not closed");
		break;
	case E_ANSWER:
		if (c->n_error + c->n_answer != 1 || c->eof)
			dief("a %s: %d answers and %d Errors, %s", what, c->n_answer,
			     c->n_error, c->eof ? "closed" : "not closed");
		break;
	case E_MAYBE:
		if (c->n_error > 1 || (c->eof && c->n_error != 1) ||
		    (c->eof && c->role == R_CLIENT))
			dief("a %s: %d Errors, %s", what, c->n_error,
			     c->eof ? "closed" : "not closed");
		if (c->n_error == 1 && mc == ASTEAL__ENVELOPE__MSG_JOB_EXIT)
			c->exits--;
		if (c->n_error == 1 && mc == ASTEAL__ENVELOPE__MSG_WAIT_REQUEST)
			c->waits--;
		break;
	default:
		break;
	}
}

/* Send c one message of the kind the input picks, its fields from the
 * input's bytes, and check what it gets. */
static void send_message(struct harness *h, struct hconn *c, struct input *in)
{
	static uint8_t frame[PROTO_HEADER_LEN + 16 + 2 * FRAME_ROOM];
	uint8_t packed[FRAME_ROOM];
	unsigned kind = take8(in) % NKINDS, flags = take8(in);
	size_t plen = take8(in), blen, flen, xlen = 0;
	const uint8_t *payload = take(in, &plen), *extra = NULL;
	int field = kinds[kind].field, e, code, mc;

	if (kinds[kind].d != NULL) {
		ProtobufCMessage *msg = protobuf_c_message_unpack(kinds[kind].d,
		                                                  NULL, plen, payload);
		if (msg == NULL)
			msg = protobuf_c_message_unpack(kinds[kind].d, NULL, 0, packed);
		if (msg == NULL)
			die("out of memory");
		if (flags & 1)
			fix_message(h, c, field, msg, flags);
		blen = protobuf_c_message_get_packed_size(msg);
		if (blen > sizeof(packed))
			dief("a %zu-byte message", blen);
		protobuf_c_message_pack(msg, packed);
		protobuf_c_message_free_unpacked(msg, NULL);
		flen = exchange_envelope(frame, (unsigned)field, packed, blen);
	} else {
		field = (int)unknown_fields[flags % (sizeof(unknown_fields) /
		                                     sizeof(unknown_fields[0]))];
		flen = exchange_envelope(frame, (unsigned)field, payload, plen);
	}
	/* More of the Envelope after the message: unknown fields, a second
	 * message (the last one counts), or garbage. */
	if (flags & 0x80) {
		xlen = take8(in) % 32;
		extra = take(in, &xlen);
		memcpy(frame + flen, extra, xlen);
		flen += xlen;
		frame_put_header(frame, (uint32_t)(flen - PROTO_HEADER_LEN));
	}
	e = predict(c, frame + PROTO_HEADER_LEN, flen - PROTO_HEADER_LEN, &code);
	{
		Asteal__Envelope *m = frame_decode(frame + PROTO_HEADER_LEN,
		                                   flen - PROTO_HEADER_LEN, NULL, 0);
		mc = m != NULL ? (int)m->msg_case : -1;
		frame_free(m);
	}
	c->n_error = c->n_answer = 0;
	c->last_code = 0;
	if (flags & 0x40 && flen > 1) {        /* in two halves */
		send_bytes(h, c, frame, flen / 2);
		pump(h);
		if (c->n_error != 0 && !c->raw)
			die("an Error for half a frame");
		send_bytes(h, c, frame + flen / 2, flen - flen / 2);
	} else {
		send_bytes(h, c, frame, flen);
	}
	pump(h);
	check_outcome(c, e, code, mc);
	c->answer_case = -1;
	c->check_id = 0;
}

/* A valid Hello, JOB or CLIENT, the quick way past the handshake. */
static void send_hello(struct harness *h, struct hconn *c, unsigned b)
{
	Asteal__Envelope env;
	Asteal__Hello hello;
	uint8_t frame[512];
	size_t flen;
	int code, e;

	frame_hello(&env, &hello, b & 1 ? ASTEAL__ROLE__CLIENT : ASTEAL__ROLE__JOB,
	            "fuzz", 1 + (b >> 1) % 8, "fuzz --daemon", "fuzz_daemon");
	if (b & 0x80 && h->nids > 0)
		hello.job_id = pick_id(h, b >> 4);
	if (frame_encode(&env, frame, sizeof(frame), &flen) < 0)
		die("a Hello does not encode");
	e = predict(c, frame + PROTO_HEADER_LEN, flen - PROTO_HEADER_LEN, &code);
	c->n_error = c->n_answer = 0;
	c->last_code = 0;
	send_bytes(h, c, frame, flen);
	pump(h);
	check_outcome(c, e, code, ASTEAL__ENVELOPE__MSG_HELLO);
}

/* One input: a daemon, the operations, every connection closed, the
 * daemon freed. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct harness h;
	struct input in = { data, data + size };
	int ops = 0;

	if (data == NULL)
		in.p = in.end = (const uint8_t *)"";
	fuzz_cur_data = data;
	fuzz_cur_size = size;
	if (tmpdir[0] == '\0') {
		const char *t = getenv("TMPDIR");

		snprintf(tmpdir, sizeof(tmpdir), "%s/fuzz_daemon.XXXXXX",
		         t != NULL && strlen(t) < 32 ? t : "/tmp");
		if (mkdtemp(tmpdir) == NULL)
			dief("mkdtemp: %s", strerror(errno));
		atexit(remove_tmpdir);
		signal(SIGPIPE, SIG_IGN);
		{
			const char *lv = getenv("ASTEAL_FUZZ_LOG");
			enum log_level level = LOG_LEVEL_ERROR;

			if (lv != NULL && log_parse_level(lv, &level) < 0)
				level = LOG_LEVEL_ERROR;
			log_init(level, 0);
		}
	}
	daemon_up(&h, take8(&in));
	stats.inputs++;
	while (in.p < in.end && ops++ < MAX_OPS) {
		unsigned op = take8(&in);
		struct hconn *c = &h.c[op >> 3 & (NCONNS - 1)];

		stats.ops++;
		if (c->eof)
			conn_reset(c);
		if ((op & 7) < 6 && (op & 7) != 0 && c->fd < 0) {
			conn_open(&h, c, op >> 5);
			pump(&h);
			if (c->eof)
				continue;       /* refused: its Error was checked */
		}
		switch (op & 7) {
		case 0:                 /* open (again) */
			conn_open(&h, c, take8(&in));
			pump(&h);
			break;
		case 5: {               /* raw bytes */
			size_t n = take8(&in);
			const uint8_t *p = take(&in, &n);

			c->raw = 1;
			send_bytes(&h, c, p, n);
			pump(&h);
			break;
		}
		case 6:                 /* close */
			if (c->fd >= 0) {
				conn_reset(c);
				pump(&h);
			}
			break;
		case 7:                 /* wait for the next tick (or any event) */
			event_base_loop(h.base, EVLOOP_ONCE);
			pump(&h);
			break;
		case 4:
			if (c->role == R_HELLO)
				send_hello(&h, c, take8(&in));
			else
				send_message(&h, c, &in);
			break;
		default:
			send_message(&h, c, &in);
			break;
		}
	}
	for (int i = 0; i < NCONNS; i++)
		conn_reset(&h.c[i]);
	pump(&h);                       /* it counts no job nor client */
	daemon_down(&h);
	return 0;
}

#ifdef FUZZ_STANDALONE

/* Append an operation's bytes to a seed being built. */
static void put(uint8_t *buf, size_t *n, const void *p, size_t len)
{
	memcpy(buf + *n, p, len);
	*n += len;
}

/* Append a message op: conn k sends field's message, packed from msg,
 * with flags. */
static void put_msg(uint8_t *buf, size_t *n, int k, int field,
                    const ProtobufCMessage *msg, unsigned flags)
{
	uint8_t b[3];
	size_t kind = 0;

	while (kinds[kind].field != field)
		kind++;
	b[0] = (uint8_t)(1 | k << 3);
	b[1] = (uint8_t)kind;
	b[2] = (uint8_t)flags;
	put(buf, n, b, 3);
	b[0] = (uint8_t)protobuf_c_message_get_packed_size(msg);
	put(buf, n, b, 1);
	*n += protobuf_c_message_pack(msg, buf + *n);
}

/* Seeds: a job's life (Hello, Feedbacks, Released), a client's every
 * request, a supervisor launching a job that then connects, claims its
 * id and is waited for, cancelled and reported, three jobs of two uids
 * and a client asking about them, bad peers. */
static void make_seeds(struct fuzz_seeds *s)
{
	uint8_t buf[FUZZ_SEED_LEN];
	size_t n;
	Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;
	Asteal__Usage use = ASTEAL__USAGE__INIT;
	Asteal__Released rel = ASTEAL__RELEASED__INIT;
	Asteal__StatusRequest st = ASTEAL__STATUS_REQUEST__INIT;
	Asteal__JobsRequest jr = ASTEAL__JOBS_REQUEST__INIT;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__CancelRequest cr = ASTEAL__CANCEL_REQUEST__INIT;
	Asteal__JobExit ex = ASTEAL__JOB_EXIT__INIT;
	Asteal__WaitRequest wr = ASTEAL__WAIT_REQUEST__INIT;
	Asteal__Launch la = ASTEAL__LAUNCH__INIT;
	Asteal__Hello hello = ASTEAL__HELLO__INIT;
	static const uint8_t bad[] = { 0, 0x02, 0x00, 0x00, 0xff, 0xff };

	fb.quantum = 1;
	fb.desire = 2;
	fb.desire_real = 1.5;
	use.work_ns = 1000;
	fb.usage = &use;
	fb.quantum_class = ASTEAL__QUANTUM_CLASS__DEPRIVED;
	/* a job, and a client asking everything */
	n = 0;
	put(buf, &n, "\x00\x04\x06\x0c\x01", 5);   /* cfg; hello job 4 workers on 0; hello client on 1 */
	put_msg(buf, &n, 0, ASTEAL__ENVELOPE__MSG_FEEDBACK, &fb.base, 1);
	put_msg(buf, &n, 0, ASTEAL__ENVELOPE__MSG_RELEASED, &rel.base, 1);
	put_msg(buf, &n, 1, ASTEAL__ENVELOPE__MSG_STATUS_REQUEST, &st.base, 1);
	put_msg(buf, &n, 1, ASTEAL__ENVELOPE__MSG_JOBS_REQUEST, &jr.base, 1);
	put_msg(buf, &n, 1, ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST, &hr.base, 1);
	cr.job_id = 1;
	put_msg(buf, &n, 1, ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST, &cr.base, 1);
	put_msg(buf, &n, 0, ASTEAL__ENVELOPE__MSG_FEEDBACK, &fb.base, 1);
	fuzz_seed_add(s, buf, n);
	/* a supervisor launches, the job claims its id, a client waits */
	n = 0;
	put(buf, &n, "\x01\x04\x01", 3);
	la.name = (char *)"fib";
	la.command = (char *)"fib 30";
	la.pid = 0;                                 /* 4001: the claimer's */
	put_msg(buf, &n, 0, ASTEAL__ENVELOPE__MSG_LAUNCH, &la.base, 1);
	put(buf, &n, "\x0c\x81\x14\x03", 4);        /* conn 1: a job claiming an id; conn 2: a client */
	wr.job_id = 1;
	put_msg(buf, &n, 2, ASTEAL__ENVELOPE__MSG_WAIT_REQUEST, &wr.base, 1);
	cr.job_id = 1;
	put_msg(buf, &n, 2, ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST, &cr.base, 1);
	hr.jobs_only = 1;
	hr.limit = 1;
	put_msg(buf, &n, 2, ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST, &hr.base, 1);
	put(buf, &n, "\x0e", 1);                    /* the job goes */
	ex.job_id = 1;
	ex.wait_status = 256;
	put_msg(buf, &n, 0, ASTEAL__ENVELOPE__MSG_JOB_EXIT, &ex.base, 1);
	put_msg(buf, &n, 2, ASTEAL__ENVELOPE__MSG_JOBS_REQUEST, &jr.base, 1);
	fuzz_seed_add(s, buf, n);
	/* three jobs of two uids, a tick, and a client asking about them */
	n = 0;
	put(buf, &n, "\x02\x04\x04\x2c\x02\x54\x06\x07\x1c\x01", 10);
	put_msg(buf, &n, 3, ASTEAL__ENVELOPE__MSG_STATUS_REQUEST, &st.base, 1);
	put_msg(buf, &n, 3, ASTEAL__ENVELOPE__MSG_JOBS_REQUEST, &jr.base, 1);
	put_msg(buf, &n, 1, ASTEAL__ENVELOPE__MSG_FEEDBACK, &fb.base, 1);
	put(buf, &n, "\x07", 1);
	put_msg(buf, &n, 1, ASTEAL__ENVELOPE__MSG_RELEASED, &rel.base, 1);
	put_msg(buf, &n, 3, ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST, &hr.base, 1);
	fuzz_seed_add(s, buf, n);
	/* bad peers: a Hello of another version, raw bytes, an unknown
	 * message, a Feedback from a client, a job's second Hello */
	n = 0;
	put(buf, &n, "\x0c", 1);
	hello.version = 1;
	hello.role = ASTEAL__ROLE__JOB;
	hello.workers = 2;
	put_msg(buf, &n, 0, ASTEAL__ENVELOPE__MSG_HELLO, &hello.base, 0);
	put(buf, &n, "\x0d\x06", 2);
	put(buf, &n, bad, sizeof(bad));
	put(buf, &n, "\x11\x14\x00\x03\x01\x02\x03", 7);   /* conn 2: unknown field 5 */
	put(buf, &n, "\x1c\x01", 2);
	put_msg(buf, &n, 3, ASTEAL__ENVELOPE__MSG_FEEDBACK, &fb.base, 0);
	put(buf, &n, "\x04\x02", 2);
	hello.version = PROTO_VERSION;
	put_msg(buf, &n, 0, ASTEAL__ENVELOPE__MSG_HELLO, &hello.base, 0);
	fuzz_seed_add(s, buf, n);
}

/* What the inputs did. */
static void report(unsigned long iters, double secs)
{
	printf("%lu inputs in %.2f s: %lu operations, %lu loop turns; "
	       "%lu frames from the daemon: %lu Welcomes (%lu jobs), "
	       "%lu replies, %lu Errors, %lu Allots; %lu peers failed as "
	       "predicted\n", iters, secs, stats.ops, stats.turns,
	       stats.frames_in, stats.welcomes, stats.jobs, stats.answers,
	       stats.errors, stats.allots, stats.fails);
}

/* The standalone mutation loop, or the seed writer (-s DIR). */
int main(int argc, char **argv)
{
	return fuzz_main(argc, argv, make_seeds, 3000, report);
}

#endif
