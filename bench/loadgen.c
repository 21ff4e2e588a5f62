/*
 * loadgen.c - asteal-loadgen: a load generator for asteald.  One process
 * opens N protocol connections, each acting as a job that speaks the
 * quantum exchange as libasteal does (../shared/DESIGN.md, "One quantum,
 * on the wire"): quanta on the shared clock from the Welcome's t0 and L,
 * a Feedback at a boundary only when the job's rounded desire changed or
 * its heartbeat is due, allotments applied as they come (loadjobs.c).
 * One epoll loop, here, serves them all.
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
 * is the fraction of quanta on which a job has something to say.  Each
 * job has its own random stream (--seed).
 *
 * Checks.  Every allotment is checked online as it comes, and at every
 * boundary what all the jobs hold (loadcheck.c); after the run what each
 * job got and said (loadlog.c) is checked against the daemon's own
 * history (loadhist.c).  Any failure is "wrong" (exit status 1).
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

#include "frame.h"
#include "loadcheck.h"
#include "loadconn.h"
#include "loadcpu.h"
#include "loadhist.h"
#include "loadjobs.h"
#include "page.h"
#include "qtime.h"

/* The command line. */
struct opts {
	const char *sock, *db, *timers;
	int pid, cpu;
	double seconds, poll_us;
	struct loadjobs_conf jobs;
};

/* The loop's descriptors: its epoll set and its timers.  An event's data
 * is a job's index, below the kind (1 << 32 for its timer, 2 << 32 the
 * shared timer, 3 << 32 the pages' look; 0 its socket). */
struct loop {
	int ep, n;
	struct epoll_event *evs;
	int *tfd;                 /* each job's timer (--timers job), or -1 */
	int shared_fd;            /* the shared timer, or -1 */
	int poll_fd;              /* the pages' look (--allot page), or -1 */
};

/* What the run measured, for the line. */
struct measure {
	double du0, ds0, du1, ds1;      /* the daemon's CPU, before and after */
	double l0, l1;                  /* the load generator's */
	double st0, tt0, st1, tt1;      /* the host's steal and total */
	double elapsed;
	Asteal__Status s0;              /* the daemon's counts before */
};

/* Whether a path named on the command line is the page ("page") or
 * messages ("message"); *bad set for anything else. */
static int via(const char *name, int *bad)
{
	if (strcmp(name, "page") != 0 && strcmp(name, "message") != 0)
		*bad = 1;
	return strcmp(name, "page") == 0;
}

/* Fill o from the command line: 0, or -1 (after the usage) when it is
 * wrong. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	int i, bad_mode = 0, n = 100;

	memset(o, 0, sizeof(*o));
	o->cpu = -1;
	o->seconds = 10;
	o->poll_us = -1;
	o->jobs.W = 8;
	o->jobs.rate = 0.1;
	o->jobs.seed = 1;
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--socket") == 0)
			o->sock = argv[i + 1];
		else if (strcmp(argv[i], "--pid") == 0)
			o->pid = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--jobs") == 0)
			n = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--seconds") == 0)
			o->seconds = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--workers") == 0)
			o->jobs.W = (uint32_t)atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--change-rate") == 0)
			o->jobs.rate = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--timers") == 0)
			o->timers = argv[i + 1];
		else if (strcmp(argv[i], "--db") == 0)
			o->db = argv[i + 1];
		else if (strcmp(argv[i], "--cpu") == 0)
			o->cpu = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--seed") == 0)
			o->jobs.seed = strtoull(argv[i + 1], NULL, 0);
		else if (strcmp(argv[i], "--feedback") == 0)
			o->jobs.feed_page = via(argv[i + 1], &bad_mode);
		else if (strcmp(argv[i], "--allot") == 0)
			o->jobs.allot_page = via(argv[i + 1], &bad_mode);
		else if (strcmp(argv[i], "--page-poll-us") == 0)
			o->poll_us = atof(argv[i + 1]);
		else
			break;
	}
	if (o->timers == NULL)
		o->timers = n <= 1000 ? "job" : "shared";
	o->jobs.sock = o->sock;
	o->jobs.n = n;
	if (o->sock == NULL || o->pid <= 0 || n < 1 || n > 100000 || i != argc ||
	    o->seconds <= 0 || o->jobs.W < 1 || o->jobs.W > PAGE_SLOTS ||
	    o->jobs.rate < 0 || o->jobs.rate > 1 || bad_mode ||
	    (o->poll_us != -1 && o->poll_us < 10) ||
	    (strcmp(o->timers, "job") != 0 && strcmp(o->timers, "shared") != 0)) {
		fprintf(stderr, "usage: asteal-loadgen --socket PATH --pid PID --jobs N "
		        "--seconds S [--workers W] [--change-rate 0..1] "
		        "[--timers job|shared] [--db FILE] [--cpu CPU] [--seed N] "
		        "[--feedback message|page] [--allot message|page] "
		        "[--page-poll-us US]\n");
		return -1;
	}
	return 0;
}

/* Make room for the run's descriptors (sockets, per-job timers if any,
 * the pages' eventfds if any, and a few more) and pin the process to its
 * CPU if asked: 0, or -1 (said why). */
static int prepare(const struct opts *o)
{
	int n = o->jobs.n;
	int files = (strcmp(o->timers, "job") == 0 ? 2 * n : n) +
	            (o->jobs.allot_page ? n : 0) + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)files) {
		rl.rlim_cur = (rlim_t)files;
		if (rl.rlim_max < rl.rlim_cur || setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			fprintf(stderr, "loadgen: %d jobs need %d files; the limit is %llu\n",
			        n, files, (unsigned long long)rl.rlim_max);
			return -1;
		}
	}
	if (o->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(o->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			perror("loadgen: --cpu");
	}
	return 0;
}

/* Arm an absolute timer on the grid, from the next boundary. */
static int arm(int fd, const struct loadjobs_grid *g, uint64_t now)
{
	struct itimerspec its;
	uint64_t next = g->t0 + ((now - g->t0) / g->L + 1) * g->L;

	its.it_value.tv_sec = (time_t)(next / 1000000000u);
	its.it_value.tv_nsec = (long)(next % 1000000000u);
	its.it_interval.tv_sec = (time_t)(g->L / 1000000000u);
	its.it_interval.tv_nsec = (long)(g->L % 1000000000u);
	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Arm the timer of the pages' next look, at the jobs' next safe point. */
static int arm_look(int fd, struct loadjobs *js)
{
	struct itimerspec its;
	uint64_t ns = loadjobs_look_in(js);

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(ns / 1000000000u);
	its.it_value.tv_nsec = (long)(ns % 1000000000u);
	return timerfd_settime(fd, 0, &its, NULL);
}

/* Watch every job's socket and wait for every Welcome (the grid comes in
 * them): 0, or -1 (said why). */
static int welcome_all(struct loop *lp, struct loadjobs *js)
{
	int welcomed = 0;

	for (int i = 0; i < lp->n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)i };

		if (epoll_ctl(lp->ep, EPOLL_CTL_ADD, loadjobs_fd(js, i), &ev) < 0) {
			perror("loadgen: epoll_ctl");
			return -1;
		}
	}
	while (welcomed < lp->n) {
		int k = epoll_wait(lp->ep, lp->evs, 2 * lp->n + 2, 10000);

		if (k <= 0) {
			fprintf(stderr, "loadgen: only %d of %d jobs welcomed\n",
			        welcomed, lp->n);
			return -1;
		}
		for (int e = 0; e < k; e++) {
			int i = (int)lp->evs[e].data.u64;
			int was = loadjobs_welcomed(js, i);

			if (loadjobs_input(js, i) < 0)
				return -1;
			welcomed += loadjobs_welcomed(js, i) && !was;
		}
		loadjobs_look(js);      /* grants at join */
	}
	return 0;
}

/* Create and arm the loop's timers from now, and add them to its set: 0,
 * or -1 (said why). */
static int start_timers(struct loop *lp, struct loadjobs *js, int per_job,
                        uint64_t now)
{
	const struct loadjobs_grid *g = loadjobs_grid(js);

	if (per_job) {
		for (int i = 0; i < lp->n; i++) {
			struct epoll_event ev = { .events = EPOLLIN,
			                          .data.u64 = (uint64_t)1 << 32 | (uint64_t)i };
			lp->tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
			if (lp->tfd[i] < 0 || arm(lp->tfd[i], g, now) < 0 ||
			    epoll_ctl(lp->ep, EPOLL_CTL_ADD, lp->tfd[i], &ev) < 0) {
				perror("loadgen: timer");
				return -1;
			}
		}
	} else {
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)2 << 32 };
		lp->shared_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (lp->shared_fd < 0 || arm(lp->shared_fd, g, now) < 0 ||
		    epoll_ctl(lp->ep, EPOLL_CTL_ADD, lp->shared_fd, &ev) < 0) {
			perror("loadgen: timer");
			return -1;
		}
	}
	if (loadjobs_poll_ns(js) > 0) {
		/* The pages' look, besides every other wake-up. */
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)3 << 32 };

		lp->poll_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (lp->poll_fd < 0 || arm_look(lp->poll_fd, js) < 0 ||
		    epoll_ctl(lp->ep, EPOLL_CTL_ADD, lp->poll_fd, &ev) < 0) {
			perror("loadgen: the pages' timer");
			return -1;
		}
	}
	return 0;
}

/* Serve the jobs until end: their input, their pages, their boundaries.
 * 0, or -1 (said why). */
static int serve(struct loop *lp, struct loadjobs *js, uint64_t end)
{
	const struct loadjobs_grid *g = loadjobs_grid(js);

	while (qtime_now_ns() < end) {
		int k = epoll_wait(lp->ep, lp->evs, 2 * lp->n + 2, 100);

		if (k < 0 && errno != EINTR) {
			perror("loadgen: epoll_wait");
			return -1;
		}
		/* Sockets and pages first: allotments that came before a
		 * boundary apply before it. */
		for (int e = 0; e < k; e++)
			if (lp->evs[e].data.u64 >> 32 == 0 &&
			    loadjobs_input(js, (int)lp->evs[e].data.u64) < 0)
				return -1;
		loadjobs_look(js);
		for (int e = 0; e < k; e++) {
			uint64_t kind = lp->evs[e].data.u64 >> 32, x, now, q;
			int i = (int)(lp->evs[e].data.u64 & 0xffffffffu);
			int fd = kind == 1 ? lp->tfd[i] : kind == 2 ? lp->shared_fd
			         : lp->poll_fd;

			if (kind == 0 || read(fd, &x, sizeof(x)) != (ssize_t)sizeof(x))
				continue;
			if (kind == 3) {
				if (arm_look(lp->poll_fd, js) < 0) {
					perror("loadgen: the pages' timer");
					return -1;
				}
				continue;
			}
			now = qtime_now_ns();
			q = (now - g->t0) / g->L;
			if (kind == 1) {
				if (loadjobs_boundary(js, i, q, now) < 0)
					return -1;
			} else {
				for (int j = 0; j < lp->n; j++)
					if (loadjobs_boundary(js, j, q, now) < 0)
						return -1;
			}
		}
	}
	return 0;
}

/* Print the run's line from the daemon's Status after it (s), what the
 * jobs and the checks counted and what the run measured; the number of
 * wrong things in all. */
static uint64_t report(const struct opts *o, const struct loadjobs *js,
                       const struct loadcheck *c, const struct loadhist_verdict *v,
                       uint64_t hist_failed, const Asteal__Status *s,
                       const struct measure *me)
{
	const struct loadjobs_counts *jc = loadjobs_counts(js);
	const struct loadcheck_counts *cc = loadcheck_counts(c);
	const Asteal__Status *s0 = &me->s0;
	double elapsed = me->elapsed, pw_tick = 0, fw_tick = 0, ticks;
	uint64_t wrong = cc->wrong + hist_failed + v->allots_bad + v->said_bad +
	                 s->bad_feedbacks;
	int n = o->jobs.n;
	struct stat sb;
	long long dbsize = -1;

	/* The pages' counts over the run, per tick of it. */
	ticks = s->ticks > s0->ticks ? (double)(s->ticks - s0->ticks) : 0;
	if (ticks > 0) {
		pw_tick = (double)(s->pages_written - s0->pages_written) / ticks;
		fw_tick = (double)(s->futex_wakes - s0->futex_wakes) / ticks;
	}
	if (o->db != NULL && stat(o->db, &sb) == 0)
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
	       n, elapsed, o->jobs.rate, o->timers, o->jobs.feed_page ? "page" : "message",
	       o->jobs.allot_page ? "page" : "message", loadjobs_grid(js)->P,
	       (unsigned long long)s->ticks,
	       (unsigned long long)s->skipped_ticks,
	       s->tick_p50_ns * 1e-3, s->tick_p99_ns * 1e-3, s->tick_max_ns * 1e-3,
	       s->deq_p50_ns * 1e-3, s->deq_p99_ns * 1e-3,
	       s->wake_p50_ns * 1e-3, s->wake_p99_ns * 1e-3, s->wake_max_ns * 1e-3,
	       s->changes_per_tick, s->sends_per_tick,
	       100.0 * (me->du1 - me->du0) / elapsed, 100.0 * (me->ds1 - me->ds0) / elapsed,
	       100.0 * (me->du1 - me->du0 + me->ds1 - me->ds0) / elapsed,
	       100.0 * (me->l1 - me->l0) / elapsed,
	       me->tt1 > me->tt0 ? 100.0 * (me->st1 - me->st0) / (me->tt1 - me->tt0) : 0.0,
	       (unsigned long long)jc->page_writes,
	       s->page_allot_jobs, (unsigned long long)jc->page_refused,
	       (double)loadjobs_poll_ns(js) * 1e-3, (unsigned long long)jc->page_looks,
	       (unsigned long long)jc->page_gens,
	       (unsigned long long)jc->page_missed,
	       (unsigned long long)jc->page_torn,
	       pw_tick, fw_tick,
	       (unsigned long long)jc->feedbacks,
	       (double)jc->feedbacks / n / elapsed,
	       (unsigned long long)s->bad_feedbacks, (unsigned long long)jc->allots,
	       (unsigned long long)jc->releaseds, s->revoke_p50_ns * 1e-3,
	       s->revoke_p99_ns * 1e-3,
	       (unsigned long long)cc->late_allots, (unsigned long long)cc->conflicts,
	       (unsigned long long)jc->skipped, (unsigned long long)v->runs,
	       (unsigned long long)v->allots_checked,
	       (unsigned long long)v->allots_bad,
	       (unsigned long long)v->allots_held,
	       (unsigned long long)v->allots_granted,
	       (unsigned long long)v->allots_turns,
	       (unsigned long long)v->said_checked,
	       (unsigned long long)v->said_late,
	       (unsigned long long)v->said_lag_max,
	       (unsigned long long)v->said_early,
	       (unsigned long long)v->said_silent,
	       (unsigned long long)v->said_bad,
	       (unsigned long long)wrong, dbsize);
	return wrong;
}

/* Close the loop's descriptors and free it. */
static void loop_free(struct loop *lp)
{
	if (lp->tfd != NULL)
		for (int i = 0; i < lp->n; i++)
			if (lp->tfd[i] >= 0)
				close(lp->tfd[i]);
	if (lp->shared_fd >= 0)
		close(lp->shared_fd);
	if (lp->poll_fd >= 0)
		close(lp->poll_fd);
	if (lp->ep >= 0)
		close(lp->ep);
	free(lp->tfd);
	free(lp->evs);
}

/* Ask the daemon for its Status on a connection of its own: the reply
 * (frame_free it), or NULL (said why). */
static Asteal__Envelope *status_now(const char *sock)
{
	struct loadconn *conn = loadconn_open(sock);
	Asteal__Envelope *m = conn != NULL ? loadconn_status(conn) : NULL;

	loadconn_free(conn);
	return m;
}

/* Join the jobs, serve them for the run, check what they got and said
 * against the history, and print the line: 0, 1 when anything was wrong
 * or failed. */
static int run(const struct opts *o, struct loop *lp, struct loadjobs *js,
               struct loadcheck *c)
{
	struct loadhist_verdict v;
	struct measure me;
	struct loadconn *conn;
	Asteal__Envelope *m;
	const struct loadjobs_grid *g = loadjobs_grid(js);
	uint64_t start, hist_failed, wrong;

	memset(&v, 0, sizeof(v));
	memset(&me, 0, sizeof(me));
	if (welcome_all(lp, js) < 0)
		return 1;
	if ((m = status_now(o->sock)) == NULL)
		return 1;
	me.s0.ticks = m->status->ticks;         /* the daemon's counts before */
	me.s0.pages_written = m->status->pages_written;
	me.s0.futex_wakes = m->status->futex_wakes;
	frame_free(m);
	start = qtime_now_ns();
	loadjobs_start(js, start, o->poll_us);
	if (loadcheck_start(c, (start - g->t0) / g->L,
	                    (uint64_t)(o->seconds * 1e9) / g->L + 16) < 0) {
		fprintf(stderr, "loadgen: out of memory\n");
		return 1;
	}
	if (start_timers(lp, js, strcmp(o->timers, "job") == 0, start) < 0)
		return 1;
	if (loadcpu_of(o->pid, &me.du0, &me.ds0) < 0) {
		fprintf(stderr, "loadgen: no process %d\n", o->pid);
		return 1;
	}
	me.l0 = loadcpu_own();
	loadcpu_steal(&me.st0, &me.tt0);
	if (serve(lp, js, start + (uint64_t)(o->seconds * 1e9)) < 0)
		return 1;
	if (loadcpu_of(o->pid, &me.du1, &me.ds1) < 0) {
		fprintf(stderr, "loadgen: the daemon (pid %d) died\n", o->pid);
		return 1;
	}
	me.l1 = loadcpu_own();
	loadcpu_steal(&me.st1, &me.tt1);
	me.elapsed = (double)(qtime_now_ns() - start) * 1e-9;
	if ((conn = loadconn_open(o->sock)) == NULL)
		return 1;
	if ((m = loadconn_status(conn)) == NULL) {
		loadconn_free(conn);
		return 1;
	}
	hist_failed = (uint64_t)loadhist_check(js, c, conn, &v);
	wrong = report(o, js, c, &v, hist_failed, m->status, &me);
	frame_free(m);
	loadconn_free(conn);
	return wrong ? 1 : 0;
}

/* Connect N fake jobs, serve them for S seconds, check and report. */
int main(int argc, char **argv)
{
	struct opts o;
	struct loop lp;
	struct loadjobs *js = NULL;
	struct loadcheck *c = NULL;
	int rc = 1;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	if (prepare(&o) < 0)
		return 1;
	memset(&lp, 0, sizeof(lp));
	lp.n = o.jobs.n;
	lp.shared_fd = lp.poll_fd = -1;
	lp.evs = calloc((size_t)(2 * lp.n + 2), sizeof(*lp.evs));
	lp.tfd = calloc((size_t)lp.n, sizeof(*lp.tfd));
	lp.ep = epoll_create1(EPOLL_CLOEXEC);
	if (lp.tfd != NULL)
		for (int i = 0; i < lp.n; i++)
			lp.tfd[i] = -1;
	c = loadcheck_create(lp.n, o.jobs.W);
	if (lp.evs != NULL && lp.tfd != NULL && lp.ep >= 0 && c != NULL &&
	    (js = loadjobs_create(&o.jobs, c)) != NULL)
		rc = run(&o, &lp, js, c);
	loadjobs_free(js);
	loadcheck_free(c);
	loop_free(&lp);
	return rc;
}
