/*
 * wirefloor.c - asteal-wirefloor: what asteal's quantum exchange costs on
 * this machine with no scheduler behind it.  A "daemon" process and a
 * "jobs" process share N Unix stream socket pairs, one per job, and do
 * what asteald and N jobs' link threads do on the wire, system call for
 * system call, and nothing else: no protobuf, no allocator, no DEQ, no
 * history, no libevent.
 *
 *   asteal-wirefloor [--jobs N] [--seconds S] [--quantum-us L]
 *                    [--offset-us O] [--rate R] [--heartbeat-ms H]
 *                    [--rotate K] [--timer-per-job]
 *                    [--exchange changes|tick] [--seed N]
 *
 * The changes exchange (the default, what asteal does now).  Quanta are
 * global on CLOCK_MONOTONIC: quantum q is [t0 + q L, t0 + (q+1) L), and
 * nobody sends a Tick.
 *   Jobs process.  One absolute timerfd (TFD_TIMER_ABSTIME, interval L)
 *   fires at every boundary t0 + q L for all the jobs, or with
 *   --timer-per-job one timerfd per job, all armed on the same instants
 *   (each job wakes on its own, as real job processes do; it costs the
 *   jobs process an epoll event and a read per job and quantum).  At each
 *   wake-up: epoll_wait returns the timerfd(s), one read of each (an
 *   expiration count above 1 means boundaries were missed: they are
 *   skipped, not caught up), then for every job whose timer fired, one
 *   send of a 24-byte Feedback if its desire changed (probability R per
 *   quantum, its own random stream) or if its heartbeat is due (H ms of
 *   its own since its last Feedback, at the boundary nearest that, as
 *   libasteal does; the jobs start with their heartbeats spread over H,
 *   as jobs that connected at different times).  Each readable socket
 *   (an Allot) gets one recv, and nothing more is done with it.
 *   Daemon process.  epoll_wait on the N sockets and its own absolute
 *   timerfd, due at t0 + q L + O, handling what it returns in its order
 *   (readiness order, as libevent does): one recv per readable socket,
 *   taking every Feedback frame in it and noting the jobs whose desire
 *   changed (heartbeats change nothing); for the timerfd, one read of it,
 *   then one send of a 16-byte Allot to every job noted since the last
 *   tick plus K more in round robin (--rotate: the allocator's leftover
 *   rotation changes about 2P allotments a quantum when jobs outnumber
 *   the P CPUs).
 * Per quantum that is, with F = N R + (heartbeats, about N L / H) Feedbacks
 * and A = N R + K Allots: daemon F recv + A send + 1 read + the
 * epoll_waits; jobs process F send + A recv + 1 read (N with
 * --timer-per-job) + the epoll_waits.
 *
 * The tick exchange (--exchange tick, the one asteal used before, for
 * comparison).  At t0 + q L (no offset) the daemon sends every job a
 * 10-byte Tick (one send each), waits until each has answered with a
 * Feedback (epoll_wait, one recv per readable socket) or 2 ms have passed
 * since the tick, then sends every job an Allot (one send each); the jobs
 * process answers every Tick at once from one epoll loop, like
 * asteal-loadgen.  Three system calls per job per quantum on the daemon's
 * side, whatever changed.  --offset-us, --rate, --heartbeat-ms, --rotate
 * and --timer-per-job do not apply to it.
 *
 * Why a floor: both sides do only the system calls of the exchange, with
 * the smallest frames, no decoding and no work in between, so asteald and
 * libasteal cannot use less kernel time than this for the same exchange,
 * and their user time is this plus their own work.  (With the shared
 * timer the jobs side is below a real machine's, where every job is a
 * process of its own that wakes, reads its timer and sleeps again;
 * --timer-per-job comes nearer to that, still in one process.)
 *
 * Prints one line of key=value pairs: the exchange, jobs, rate, timer
 * (shared or per-job) and quanta (the daemon's ticks); the daemon
 * process's user, system and total CPU (getrusage RUSAGE_SELF) as a share
 * of one core over the run, and the jobs process's (its own getrusage,
 * reported to the daemon at the end); the tick time p50, p99 and max
 * (changes: from the daemon's wake-up on its tick timer to the last Allot
 * sent; tick: from the first Tick sent to the last Allot sent); the tick
 * timer's lateness (wake-up minus its due instant) p50, p99 and max; the
 * Feedbacks the daemon received per second; its sends per tick (changes:
 * Allots; tick: Ticks and Allots); the ticks the daemon skipped (it woke
 * a whole quantum late), and, for changes, the boundaries a job skipped
 * (mean over the jobs) or, for tick, the Feedbacks that missed the 2 ms
 * deadline.  Setup (socket pairs, epoll sets, timers) is outside the
 * measured window.  The kernel's CPU total is exact, but its split into
 * user and system is sampled at the timer tick: at a few percent of a
 * core one side often shows 0.00.
 *
 * The jobs' ends of the socket pairs go to the jobs process over a
 * control socket (SCM_RIGHTS, wirepass.c), so each process holds about N
 * descriptors (2N in the jobs process with --timer-per-job), not 2N;
 * RLIMIT_NOFILE is raised to what that needs when the hard limit (or
 * privilege) allows.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qtime.h"
#include "wirepass.h"

#define TICK_LEN 10     /* asteald's Tick frame, prefix included */
#define FEEDBACK_LEN 24 /* a Feedback frame, about */
#define ALLOT_LEN 16    /* an Allot frame with one CPU */
#define FLAG_AT 4       /* the Feedback byte that says "desire changed" */
#define DEADLINE_NS 2000000ull  /* the tick exchange's Feedback deadline */
#define START_NS 50000000ull    /* from both sides ready to t0 */
#define SPARE_FDS 16            /* stdio, epoll, timer, control, slack */
#define TAG_TIMER UINT32_MAX    /* epoll data of the shared timerfd */
#define MAX_JOBS 1000000

#define USAGE "usage: asteal-wirefloor [--jobs N] [--seconds S] [--quantum-us L] " \
              "[--offset-us O] [--rate R] [--heartbeat-ms H] [--rotate K] " \
              "[--timer-per-job] [--exchange changes|tick] [--seed N]\n"

/* The run, as the command line set it (times in ns). */
struct opts {
	int n;                  /* jobs */
	int tick;               /* the tick exchange instead of changes */
	int timer_per_job;
	int rotate;
	double rate;
	uint64_t L, offset, heartbeat, seed;
	uint64_t quanta;        /* ticks to run */
};

/* What the jobs process tells the daemon process at its end. */
struct report {
	double user, sys;       /* CPU seconds over the run */
	uint64_t wall;          /* ns, t0 to its end */
	uint64_t skipped;       /* job-boundaries missed (changes) */
};

/* Sort helper for latencies. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile (0 < p <= 100) of n sorted values, in µs. */
static double pct_us(const uint64_t *sorted, uint64_t n, unsigned p)
{
	uint64_t k = (n * p + 99) / 100;

	return n == 0 ? 0 : (double)sorted[k > 0 ? k - 1 : 0] / 1e3;
}

/* The first pseudo-random state of job i's stream (splitmix64 of seed
 * and i, never 0), as asteal-loadgen seeds its jobs. */
static uint64_t rng_seed(uint64_t seed, int i)
{
	uint64_t z = seed + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z != 0 ? z : 1;
}

/* The next pseudo-random number of a stream (xorshift64; never 0). */
static uint64_t rng_next(uint64_t *rng)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return *rng;
}

/* Read a whole number in [lo, hi] from s; 0 on success, -1 otherwise. */
static int arg_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0' || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Read a real number in [lo, hi] from s; 0 on success, -1 otherwise. */
static int arg_real(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

/* Fill o from the command line; -1 on a bad argument (after a message). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	uint64_t v, quantum_us = 10000, heartbeat_ms = 250, offset_us = UINT64_MAX;
	double seconds = 10;
	int i;

	memset(o, 0, sizeof(*o));
	o->n = 100;
	o->rate = 0.1;
	o->rotate = 4;
	o->seed = 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0, takes = 1;

		if (strcmp(a, "--jobs") == 0) {
			bad = arg_u64(val, 1, MAX_JOBS, &v);
			o->n = (int)v;
		} else if (strcmp(a, "--seconds") == 0)
			bad = arg_real(val, 0.001, 1e6, &seconds);
		else if (strcmp(a, "--quantum-us") == 0)
			bad = arg_u64(val, 100, 60000000, &quantum_us);
		else if (strcmp(a, "--offset-us") == 0)
			bad = arg_u64(val, 0, 60000000, &offset_us);
		else if (strcmp(a, "--rate") == 0)
			bad = arg_real(val, 0, 1, &o->rate);
		else if (strcmp(a, "--heartbeat-ms") == 0)
			bad = arg_u64(val, 1, 3600000, &heartbeat_ms);
		else if (strcmp(a, "--rotate") == 0) {
			bad = arg_u64(val, 0, MAX_JOBS, &v);
			o->rotate = (int)v;
		} else if (strcmp(a, "--seed") == 0)
			bad = arg_u64(val, 0, UINT64_MAX, &o->seed);
		else if (strcmp(a, "--exchange") == 0) {
			bad = val == NULL || (strcmp(val, "changes") != 0 &&
			                      strcmp(val, "tick") != 0);
			o->tick = !bad && strcmp(val, "tick") == 0;
		} else if (strcmp(a, "--timer-per-job") == 0) {
			o->timer_per_job = 1;
			takes = 0;
		} else {
			fprintf(stderr, "asteal-wirefloor: unknown argument %s\n", a);
			return -1;
		}
		if (bad) {
			fprintf(stderr, "asteal-wirefloor: bad value for %s: %s\n", a,
			        val != NULL ? val : "(none)");
			return -1;
		}
		i += takes;
	}
	o->L = quantum_us * 1000u;
	o->offset = offset_us == UINT64_MAX ? o->L / 10 : offset_us * 1000u;
	if (o->offset >= o->L) {
		fprintf(stderr, "asteal-wirefloor: --offset-us must be below "
		        "--quantum-us\n");
		return -1;
	}
	if (o->tick)
		o->offset = 0;
	o->heartbeat = heartbeat_ms * 1000000u;
	o->quanta = (uint64_t)(seconds * 1e9 / (double)o->L);
	if (o->quanta < 1)
		o->quanta = 1;
	return 0;
}

/* Make room for need descriptors in each process: raise the soft limit
 * of RLIMIT_NOFILE, and the hard one when privileged; -1 with a message
 * when neither can be. */
static int raise_nofile(rlim_t need, int n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		perror("asteal-wirefloor: getrlimit(RLIMIT_NOFILE)");
		return -1;
	}
	if (rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = need;
	if (rl.rlim_max < need) {
		rlim_t hard = rl.rlim_max;

		rl.rlim_max = need;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			fprintf(stderr, "asteal-wirefloor: %d jobs need %llu file "
			        "descriptors in one process, but the hard limit "
			        "(RLIMIT_NOFILE) is %llu and cannot be raised (%s): "
			        "raise it (ulimit -Hn) or use fewer jobs\n", n,
			        (unsigned long long)need, (unsigned long long)hard,
			        strerror(errno));
			return -1;
		}
		return 0;
	}
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		perror("asteal-wirefloor: setrlimit(RLIMIT_NOFILE)");
		return -1;
	}
	return 0;
}

/* Arm a timerfd on the absolute grid first + k L; -1 on failure. */
static int arm(int fd, uint64_t first, uint64_t L)
{
	struct itimerspec its;

	its.it_value.tv_sec = (time_t)(first / 1000000000u);
	its.it_value.tv_nsec = (long)(first % 1000000000u);
	its.it_interval.tv_sec = (time_t)(L / 1000000000u);
	its.it_interval.tv_nsec = (long)(L % 1000000000u);
	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* CPU seconds between two getrusage samples. */
static void cpu_between(const struct rusage *a, const struct rusage *b,
                        double *user, double *sys)
{
	*user = (double)(b->ru_utime.tv_sec - a->ru_utime.tv_sec) +
	        (double)(b->ru_utime.tv_usec - a->ru_utime.tv_usec) / 1e6;
	*sys = (double)(b->ru_stime.tv_sec - a->ru_stime.tv_sec) +
	       (double)(b->ru_stime.tv_usec - a->ru_stime.tv_usec) / 1e6;
}

/* Say what failed in the jobs process and end it. */
static void jobs_fail(const char *what)
{
	fprintf(stderr, "asteal-wirefloor: jobs process: %s: %s\n", what,
	        strerror(errno));
	_exit(1);
}

/* The jobs process: take the jobs' sockets, say ready, learn t0, play the
 * jobs until quantum quanta + 1 begins, report and exit. */
static void run_jobs(int ctl, const struct opts *o)
{
	int n = o->n, ntimers = o->tick ? 0 : o->timer_per_job ? n : 1;
	int cap = n + ntimers, *fds = calloc((size_t)n, sizeof(*fds));
	int *tfds = calloc((size_t)(ntimers > 0 ? ntimers : 1), sizeof(*tfds));
	uint64_t *rng = calloc((size_t)n, sizeof(*rng));
	int64_t *last = calloc((size_t)n, sizeof(*last));
	struct epoll_event *evs = calloc((size_t)cap, sizeof(*evs));
	uint8_t buf[4096], fb_change[FEEDBACK_LEN] = { 0 }, fb_beat[FEEDBACK_LEN] = { 0 };
	uint64_t t0, end, hb_quanta, now;
	struct rusage r0, r1;
	struct report rep;
	int ep = epoll_create1(EPOLL_CLOEXEC), i, got, stop = 0;

	if (fds == NULL || tfds == NULL || rng == NULL || last == NULL ||
	    evs == NULL)
		jobs_fail("out of memory");
	if (ep < 0)
		jobs_fail("epoll_create1");
	for (i = 0; i < n; i += got)
		if ((got = wirepass_recv(ctl, fds + i, n - i)) <= 0)
			jobs_fail("receiving the sockets");
	fb_change[3] = fb_beat[3] = FEEDBACK_LEN - 4;
	fb_change[FLAG_AT] = 1;
	hb_quanta = (o->heartbeat + o->L - 1) / o->L;
	for (i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) < 0)
			jobs_fail("epoll_ctl");
		rng[i] = rng_seed(o->seed, i);
		/* heartbeats spread, as of jobs that came at different times */
		last[i] = -(int64_t)(rng_next(&rng[i]) % hb_quanta);
	}
	for (i = 0; i < ntimers; i++) {
		struct epoll_event ev = { .events = EPOLLIN };

		ev.data.u32 = o->timer_per_job ? (uint32_t)(n + i) : TAG_TIMER;
		tfds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (tfds[i] < 0)
			jobs_fail("timerfd_create");
		if (epoll_ctl(ep, EPOLL_CTL_ADD, tfds[i], &ev) < 0)
			jobs_fail("epoll_ctl");
	}
	if (send(ctl, "r", 1, MSG_NOSIGNAL) != 1)
		jobs_fail("saying ready");
	if (recv(ctl, &t0, sizeof(t0), 0) != (ssize_t)sizeof(t0))
		_exit(1);       /* the daemon process gave up */
	for (i = 0; i < ntimers; i++)
		if (arm(tfds[i], t0 + o->L, o->L) < 0)
			jobs_fail("timerfd_settime");
	end = t0 + (o->quanta + 1) * o->L;
	memset(&rep, 0, sizeof(rep));
	getrusage(RUSAGE_SELF, &r0);
	while (!stop && (now = qtime_now_ns()) < end) {
		int timeout = (int)((end - now + 999999) / 1000000), k, e;

		k = epoll_wait(ep, evs, cap, timeout);
		if (k < 0 && errno != EINTR)
			jobs_fail("epoll_wait");
		for (e = 0; e < k; e++) {
			uint32_t u = evs[e].data.u32;
			uint64_t x;
			int64_t q;
			int j, lo, hi;

			if (u < (uint32_t)n) {
				ssize_t r = recv(fds[u], buf, sizeof(buf), MSG_DONTWAIT);

				if (r == 0)
					stop = 1;       /* the daemon process ended */
				/* A Tick is the only message shorter than an Allot. */
				else if (r > 0 && o->tick && (r % ALLOT_LEN) != 0)
					send(fds[u], fb_change, sizeof(fb_change),
					     MSG_DONTWAIT | MSG_NOSIGNAL);
				continue;
			}
			if (read(u == TAG_TIMER ? tfds[0] : tfds[u - (uint32_t)n], &x,
			         sizeof(x)) != (ssize_t)sizeof(x))
				continue;
			rep.skipped += (x - 1) * (u == TAG_TIMER ? (uint64_t)n : 1);
			now = qtime_now_ns();
			q = (int64_t)((now - t0) / o->L);
			if (q > (int64_t)o->quanta) {
				stop = 1;
				continue;
			}
			lo = u == TAG_TIMER ? 0 : (int)(u - (uint32_t)n);
			hi = u == TAG_TIMER ? n : lo + 1;
			for (j = lo; j < hi; j++) {
				/* uniform in [0, 1) below rate: the desire changed */
				int changed = (double)(rng_next(&rng[j]) >> 11) * 0x1.0p-53 < o->rate;

				/* a heartbeat goes at the boundary nearest its period */
				if (!changed &&
				    (uint64_t)(q - last[j]) * o->L + o->L / 2 < o->heartbeat)
					continue;
				send(fds[j], changed ? fb_change : fb_beat, FEEDBACK_LEN,
				     MSG_DONTWAIT | MSG_NOSIGNAL);
				last[j] = q;
			}
		}
	}
	getrusage(RUSAGE_SELF, &r1);
	now = qtime_now_ns();
	cpu_between(&r0, &r1, &rep.user, &rep.sys);
	rep.wall = now > t0 ? now - t0 : 1;
	if (send(ctl, &rep, sizeof(rep), MSG_NOSIGNAL) != (ssize_t)sizeof(rep))
		jobs_fail("reporting");
	_exit(0);
}

/* The daemon process's state over a run. */
struct daemon {
	const struct opts *o;
	int *fds, ep, tfd, cap;
	struct epoll_event *evs;
	uint8_t *off;           /* each stream's position in its Feedback frame */
	uint8_t *noted;         /* changes: an Allot is due at the next tick;
	                           tick: answered the current Tick */
	int *list, nlist, rr;   /* the jobs noted, the rotation's next job */
	uint64_t t0, q;         /* the last tick's quantum */
	uint64_t *lat, *wake, nt;       /* per tick */
	uint64_t feedbacks, sends, skipped, late, failed;
};

/* Die with a message from the daemon process. */
static void daemon_fail(const char *what)
{
	fprintf(stderr, "asteal-wirefloor: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One recv from job j's socket: count its Feedback frames and, for the
 * changes exchange, note j when one says its desire changed; the number
 * of frames it completed. */
static uint64_t take_feedback(struct daemon *d, int j)
{
	uint8_t buf[4096];
	ssize_t got = recv(d->fds[j], buf, sizeof(buf), MSG_DONTWAIT);
	uint64_t frames;
	ssize_t p;

	if (got == 0) {
		fprintf(stderr, "asteal-wirefloor: the jobs process hung up\n");
		exit(1);
	}
	if (got < 0) {
		if (errno != EAGAIN && errno != EINTR)
			daemon_fail("recv");
		return 0;
	}
	for (p = (FLAG_AT + FEEDBACK_LEN - d->off[j]) % FEEDBACK_LEN; p < got;
	     p += FEEDBACK_LEN)
		if (buf[p] != 0 && !d->o->tick && !d->noted[j]) {
			d->noted[j] = 1;
			d->list[d->nlist++] = j;
		}
	frames = ((uint64_t)d->off[j] + (uint64_t)got) / FEEDBACK_LEN;
	d->off[j] = (uint8_t)(((uint64_t)d->off[j] + (uint64_t)got) % FEEDBACK_LEN);
	d->feedbacks += frames;
	return frames;
}

/* Send one frame to job j without blocking, counting it (and a failure). */
static void put(struct daemon *d, int j, const uint8_t *frame, size_t len)
{
	d->sends++;
	if (send(d->fds[j], frame, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len)
		d->failed++;
}

/* The tick timer woke the daemon at wake: which quantum's tick is due,
 * or 0 when none is (a spurious wake-up); counts skipped ticks and the
 * timer's lateness. */
static uint64_t tick_due(struct daemon *d, uint64_t wake)
{
	uint64_t x, q, start = d->t0 + d->o->offset;

	if (read(d->tfd, &x, sizeof(x)) != (ssize_t)sizeof(x) || wake < start + d->o->L)
		return 0;
	q = (wake - start) / d->o->L;
	if (q <= d->q)
		return 0;
	d->skipped += q - d->q - 1;
	d->q = q;
	d->wake[d->nt] = wake - (start + q * d->o->L);
	return q;
}

/* A tick of the changes exchange: an Allot to every job noted since the
 * last tick and to the next K of the rotation. */
static void tick_changes(struct daemon *d, uint64_t wake)
{
	static const uint8_t allot[ALLOT_LEN] = { 0, 0, 0, ALLOT_LEN - 4 };
	int k, n = d->o->n, rot = d->o->rotate < n ? d->o->rotate : n;

	if (tick_due(d, wake) == 0)
		return;
	for (k = 0; k < rot; k++) {
		int j = d->rr;

		d->rr = d->rr + 1 < n ? d->rr + 1 : 0;
		if (!d->noted[j]) {
			d->noted[j] = 1;
			d->list[d->nlist++] = j;
		}
	}
	for (k = 0; k < d->nlist; k++) {
		put(d, d->list[k], allot, sizeof(allot));
		d->noted[d->list[k]] = 0;
	}
	d->nlist = 0;
	d->lat[d->nt++] = qtime_now_ns() - wake;
}

/* A tick of the tick exchange: a Tick to every job, their Feedbacks until
 * all came or the deadline (or the next tick) is there, an Allot to
 * every job. */
static void tick_all(struct daemon *d, uint64_t wake)
{
	static const uint8_t tick[TICK_LEN] = { 0, 0, 0, TICK_LEN - 4 };
	static const uint8_t allot[ALLOT_LEN] = { 0, 0, 0, ALLOT_LEN - 4 };
	uint64_t start, deadline, now;
	int j, n = d->o->n, waiting = n, next_tick = 0;

	if (tick_due(d, wake) == 0)
		return;
	start = qtime_now_ns();
	deadline = start + DEADLINE_NS;
	memset(d->noted, 0, (size_t)n);
	for (j = 0; j < n; j++)
		put(d, j, tick, sizeof(tick));
	while (waiting > 0 && !next_tick && (now = qtime_now_ns()) < deadline) {
		int timeout = (int)((deadline - now + 999999) / 1000000), k, e;

		k = epoll_wait(d->ep, d->evs, d->cap, timeout);
		if (k < 0 && errno != EINTR)
			daemon_fail("epoll_wait");
		for (e = 0; e < k; e++) {
			uint32_t u = d->evs[e].data.u32;

			if (u == TAG_TIMER)
				next_tick = 1;  /* the deadline is past a quantum */
			else if (take_feedback(d, (int)u) > 0 && !d->noted[u]) {
				d->noted[u] = 1;
				waiting--;
			}
		}
	}
	d->late += (uint64_t)waiting;
	for (j = 0; j < n; j++)
		put(d, j, allot, sizeof(allot));
	d->lat[d->nt++] = qtime_now_ns() - start;
}

/* The daemon process's loop: read Feedbacks as they come, tick on the
 * timer, until quantum quanta's tick is done. */
static void run_daemon(struct daemon *d)
{
	while (d->q < d->o->quanta) {
		int k = epoll_wait(d->ep, d->evs, d->cap, -1), e;
		uint64_t wake = qtime_now_ns();

		if (k < 0 && errno != EINTR)
			daemon_fail("epoll_wait");
		/* In epoll's order (readiness), as libevent runs them. */
		for (e = 0; e < k; e++) {
			uint32_t u = d->evs[e].data.u32;

			if (u != TAG_TIMER)
				take_feedback(d, (int)u);
			else if (d->o->tick)
				tick_all(d, wake);
			else
				tick_changes(d, wake);
		}
	}
}

/* Set up both sides, run the exchange for the quanta asked, print the line. */
int main(int argc, char **argv)
{
	struct opts o;
	struct daemon d;
	struct report rep;
	struct rusage r0, r1;
	int ctl[2], i, k, status;
	rlim_t need_daemon, need_jobs;
	pid_t child;
	uint64_t end;
	double wall, ut, st;
	char ready;

	if (parse_args(argc, argv, &o) < 0) {
		fputs(USAGE, stderr);
		return 2;
	}
	need_daemon = (rlim_t)o.n + 2 * WIREPASS_BATCH + SPARE_FDS;
	need_jobs = (rlim_t)o.n * (o.timer_per_job && !o.tick ? 2 : 1) + SPARE_FDS;
	if (raise_nofile(need_daemon > need_jobs ? need_daemon : need_jobs, o.n) < 0)
		return 1;
	memset(&d, 0, sizeof(d));
	d.o = &o;
	d.cap = o.n + 1;
	d.fds = calloc((size_t)o.n, sizeof(*d.fds));
	d.evs = calloc((size_t)d.cap, sizeof(*d.evs));
	d.off = calloc((size_t)o.n, 1);
	d.noted = calloc((size_t)o.n, 1);
	d.list = calloc((size_t)o.n, sizeof(*d.list));
	d.lat = calloc(o.quanta + 1, sizeof(*d.lat));
	d.wake = calloc(o.quanta + 1, sizeof(*d.wake));
	if (d.fds == NULL || d.evs == NULL || d.off == NULL || d.noted == NULL ||
	    d.list == NULL || d.lat == NULL || d.wake == NULL) {
		fprintf(stderr, "asteal-wirefloor: out of memory\n");
		return 1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl) < 0)
		daemon_fail("socketpair (control)");
	fflush(stdout);
	child = fork();
	if (child < 0)
		daemon_fail("fork");
	if (child == 0) {
		close(ctl[0]);
		run_jobs(ctl[1], &o);
	}
	close(ctl[1]);
	/* The jobs' ends go over in batches and are closed here at once. */
	for (i = 0; i < o.n; i += k) {
		int theirs[WIREPASS_BATCH], j;

		k = o.n - i < WIREPASS_BATCH ? o.n - i : WIREPASS_BATCH;
		for (j = 0; j < k; j++) {
			int sv[2];

			if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
				daemon_fail("socketpair");
			d.fds[i + j] = sv[0];
			theirs[j] = sv[1];
		}
		if (wirepass_send(ctl[0], theirs, k) < 0)
			daemon_fail("passing the sockets to the jobs process");
		for (j = 0; j < k; j++)
			close(theirs[j]);
	}
	d.ep = epoll_create1(EPOLL_CLOEXEC);
	d.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d.ep < 0 || d.tfd < 0)
		daemon_fail(d.ep < 0 ? "epoll_create1" : "timerfd_create");
	for (i = 0; i <= o.n; i++) {
		struct epoll_event ev = { .events = EPOLLIN };

		ev.data.u32 = i < o.n ? (uint32_t)i : TAG_TIMER;
		if (epoll_ctl(d.ep, EPOLL_CTL_ADD, i < o.n ? d.fds[i] : d.tfd, &ev) < 0)
			daemon_fail("epoll_ctl");
	}
	if (recv(ctl[0], &ready, 1, 0) != 1) {
		fprintf(stderr, "asteal-wirefloor: the jobs process failed to start\n");
		waitpid(child, NULL, 0);
		return 1;
	}
	d.t0 = qtime_now_ns() + START_NS;
	if (send(ctl[0], &d.t0, sizeof(d.t0), MSG_NOSIGNAL) != (ssize_t)sizeof(d.t0))
		daemon_fail("starting the jobs process");
	if (arm(d.tfd, d.t0 + o.L + o.offset, o.L) < 0)
		daemon_fail("timerfd_settime");
	getrusage(RUSAGE_SELF, &r0);
	run_daemon(&d);
	getrusage(RUSAGE_SELF, &r1);
	end = qtime_now_ns();
	if (recv(ctl[0], &rep, sizeof(rep), 0) != (ssize_t)sizeof(rep)) {
		fprintf(stderr, "asteal-wirefloor: the jobs process did not report\n");
		return 1;
	}
	for (i = 0; i < o.n; i++)
		close(d.fds[i]);
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "asteal-wirefloor: the jobs process failed\n");
		return 1;
	}
	if (d.failed > 0)
		fprintf(stderr, "asteal-wirefloor: %llu sends did not go through "
		        "(a socket buffer was full)\n", (unsigned long long)d.failed);
	wall = (double)(end - d.t0) / 1e9;
	cpu_between(&r0, &r1, &ut, &st);
	qsort(d.lat, d.nt, sizeof(*d.lat), cmp_u64);
	qsort(d.wake, d.nt, sizeof(*d.wake), cmp_u64);
	printf("exchange=%s jobs=%d ", o.tick ? "tick" : "changes", o.n);
	if (!o.tick)
		printf("rate=%g timer=%s ", o.rate, o.timer_per_job ? "per-job" : "shared");
	printf("quanta=%llu user_pct=%.2f sys_pct=%.2f cpu_pct=%.2f "
	       "jobs_user_pct=%.2f jobs_sys_pct=%.2f jobs_cpu_pct=%.2f "
	       "tick_p50_us=%.1f tick_p99_us=%.1f tick_max_us=%.1f "
	       "wake_p50_us=%.1f wake_p99_us=%.1f wake_max_us=%.1f "
	       "feedbacks_per_s=%.0f sends_per_tick=%.1f skipped=%llu ",
	       (unsigned long long)d.nt, 100 * ut / wall, 100 * st / wall,
	       100 * (ut + st) / wall, 100 * rep.user / ((double)rep.wall / 1e9),
	       100 * rep.sys / ((double)rep.wall / 1e9),
	       100 * (rep.user + rep.sys) / ((double)rep.wall / 1e9),
	       pct_us(d.lat, d.nt, 50), pct_us(d.lat, d.nt, 99),
	       pct_us(d.lat, d.nt, 100), pct_us(d.wake, d.nt, 50),
	       pct_us(d.wake, d.nt, 99), pct_us(d.wake, d.nt, 100),
	       (double)d.feedbacks / wall,
	       d.nt > 0 ? (double)d.sends / (double)d.nt : 0,
	       (unsigned long long)d.skipped);
	if (o.tick)
		printf("late=%llu\n", (unsigned long long)d.late);
	else
		printf("jobs_skipped=%.1f\n", (double)rep.skipped / o.n);
	return 0;
}
