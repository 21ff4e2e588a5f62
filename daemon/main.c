/*
 * main.c - asteald, the job scheduler daemon: settings (conf), log, the
 * database's lock, history database, control socket, confinement and
 * scheduler, its CPUs' names (claim.h), started in that order and freed
 * in reverse; one libevent loop; SIGTERM/SIGINT stop it cleanly, SIGHUP
 * reads the settings again (reload.h: which change live); systemd hears
 * READY, RELOADING, STATUS, WATCHDOG and STOPPING through sd_notify.
 */
#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "asteal.h"
#include "claim.h"
#include "conf.h"
#include "confine.h"
#include "control.h"
#include "history.h"
#include "log.h"
#include "proto.h"
#include "qtime.h"
#include "reload.h"
#include "scheduler.h"

#define EXPIRE_INTERVAL_S 3600         /* history retention check */
#define EXPIRE_STEP 500                /* runs deleted a second while
                                          expiring (about 4 ms of the
                                          loop's time) */
#define STALE_AFTER_S 30               /* unclaimed rows of a previous run */
#define EXIT_DB_IN_USE 75              /* another daemon holds the database
                                          (EX_TEMPFAIL; asteald(8)) */
#define TRIM_PEERS 64                  /* peers gone since the most, */
#define TRIM_INPUT (1L << 20)          /* ... or bytes of input freed since
                                          the most of the last second:
                                          freed memory given back */

struct daemon {
	struct conf conf;
	struct event_base *base;
	struct history *hist;
	struct sched *sched;
	struct control *ctl;
	struct confine *confine;
	struct claim *claim;
	struct event *sigterm, *sigint, *sighup, *housekeeping, *watchdog;
	int argc;                      /* the command line, read again */
	char **argv;                   /* on every reload */
	int last_jobs;
	int most_peers;                /* peers (jobs and clients) at most
	                                  since memory was last trimmed */
	time_t started;
	int degraded;                  /* the history was, at the last look */
	int64_t dropped;               /* history writes lost, at the last look */
	int stale_done;                /* rows of a previous run closed */
	int expiring;                  /* retention has more to delete */
};

/* Nanoseconds on the wall clock, signed as the history takes them. */
static int64_t wall_ns(void)
{
	return (int64_t)qtime_wall_ns();
}

/* Run as SCHED_FIFO at priority prio (0: leave the policy alone), reset on
 * fork so that launched jobs start ordinary; describe the policy in force
 * into what.  An ordinary daemon is preempted by the very threads its
 * Allots wake and waits for a scheduler tick (4 ms at HZ=250) behind
 * another, with the rest of the tick's Allots unsent (bench/README.md,
 * "Hand-over").  Already real-time (systemd's CPUSchedulingPolicy=): kept. */
static void realtime(int prio, char *what, size_t len)
{
	struct sched_param sp = { .sched_priority = prio };
	int policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;

	if (policy == SCHED_FIFO || policy == SCHED_RR) {
		if (sched_getparam(0, &sp) < 0)
			sp.sched_priority = 0;
		snprintf(what, len, "%s %d (as started)",
		         policy == SCHED_FIFO ? "fifo" : "rr", sp.sched_priority);
		return;
	}
	if (prio == 0) {
		snprintf(what, len, "ordinary (--rt-priority 0)");
		return;
	}
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0) {
		snprintf(what, len, "ordinary (fifo %d refused: %s; ticks may wait "
		         "behind jobs' threads)", prio, strerror(errno));
		return;
	}
	snprintf(what, len, "fifo %d", prio);
}

/* SIGTERM or SIGINT: leave the loop. */
static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	(void)what;
	log_info("signal %d: stopping", (int)sig);
	sd_notify(0, "STOPPING=1");
	event_base_loopbreak(d->base);
}

/* SIGHUP: read the config file and the command line again, as at the
 * start; apply what can change live and say what cannot (reload.c).  A
 * configuration that does not load is refused whole: one error line, the
 * settings in force stay.  systemd hears RELOADING=1, then READY=1. */
static void on_reload(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	struct reload_result r;
	struct conf *next;
	char why[1024];

	(void)sig;
	(void)what;
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
	           (unsigned long long)(qtime_now_ns() / 1000));
	log_info("signal %d: reloading the settings", SIGHUP);
	next = malloc(sizeof(*next));          /* 8 KiB of paths and CPUs */
	if (next == NULL) {
		log_error("reload refused: out of memory; the settings in "
		          "force stay");
	} else if (conf_load(next, d->argc, d->argv, why, sizeof(why)) < 0) {
		log_error("reload refused: %s; the settings in force stay", why);
	} else {
		reload_apply(&d->conf, next, d->hist, &r);
		if (r.retention_changed)
			d->expiring = 1;       /* the new retention, step by step */
	}
	free(next);
	sd_notify(0, "READY=1");
}

/* Once a second: while the history is degraded, try to write what waits;
 * say when it became degraded, and why, when it caught up, and when
 * writes were lost to its full buffers (each once, not every tick). */
static void history_check(struct daemon *d)
{
	struct history_health hh;

	history_retry(d->hist);
	history_health(d->hist, &hh);
	if (hh.degraded && !d->degraded)
		log_error("history %s (%lld writes wait; scheduling goes on, "
		          "retrying every second)", hh.state, (long long)hh.pending);
	else if (!hh.degraded && d->degraded)
		log_info("history caught up");
	if (hh.dropped > d->dropped)
		log_warn("history: %lld more writes lost to a full buffer (%lld "
		          "in all)", (long long)(hh.dropped - d->dropped),
		          (long long)hh.dropped);
	d->degraded = hh.degraded;
	d->dropped = hh.dropped;
}

/* Once a second: say what the log held back; tell systemd the job count
 * when it changed; give freed memory back after a flood; close rows
 * left by a previous run that nobody reclaimed; expire old history hourly,
 * a step a second until done. */
static void on_housekeeping(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	static int ticks;
	int jobs = sched_njobs(d->sched), done = 1, peers;
	long input, most_input;

	(void)fd;
	(void)what;
	log_flush();
	if (jobs != d->last_jobs) {
		sd_notifyf(0, "STATUS=%d job%s running", jobs, jobs == 1 ? "" : "s");
		d->last_jobs = jobs;
	}
	/* Many peers gone since the most (a flood of connections that
	 * ended), or much of the input they held freed (frames begun, then
	 * ended or dropped): what their buffers took goes back to the
	 * system, once a second at most (malloc_trim walks the heap). */
	peers = jobs + control_clients(d->ctl);
	input = control_input(d->ctl, &most_input);
	if (peers > d->most_peers)
		d->most_peers = peers;
	if (peers + TRIM_PEERS < d->most_peers || input + TRIM_INPUT <= most_input) {
		malloc_trim(0);
		d->most_peers = peers;
	}
	ticks++;
	/* Retention: hourly, a step a second until done (after a catch-up
	 * if the history is degraded then). */
	if (ticks % EXPIRE_INTERVAL_S == 0)
		d->expiring = 1;
	history_check(d);
	if (d->degraded)
		return;                 /* what writes waits for the catch-up */
	/* Tried again each second until it succeeds (another writer). */
	if (!d->stale_done && ticks >= STALE_AFTER_S) {
		if (history_close_stale(d->hist, wall_ns(),
		                        (int64_t)STALE_AFTER_S * 1000000000) < 0)
			log_warn("history: %s", history_error(d->hist));
		else
			d->stale_done = 1;
	}
	if (d->expiring &&
	    history_expire(d->hist, wall_ns(), EXPIRE_STEP, &done) < 0) {
		log_warn("history: %s", history_error(d->hist));
		done = 1;
	}
	d->expiring = !done;
}

/* The systemd watchdog's keep-alive. */
static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	sd_notify(0, "WATCHDOG=1");
}

/* The name of this daemon's cgroup directory: "asteal-" and a hash of its
 * socket's path, so that two daemons of one machine keep apart and a
 * daemon restarted on the same socket finds its jobs' cgroups again. */
static void confine_name(const char *socket, char *buf, size_t len)
{
	uint32_t h = 2166136261u;               /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)socket; *p; p++)
		h = (h ^ *p) * 16777619u;
	snprintf(buf, len, "asteal-%08x", (unsigned)h);
}

/* Set up confinement (--confine, --confine-with): 0, or -1 with a reason
 * (--confine-with cgroup and no cgroup to manage). */
static int confine_start(struct daemon *d, char *why, size_t whylen)
{
	static const enum confine_with with[] = {
		[CONF_CONFINE_WITH_AUTO] = CONFINE_WITH_AUTO,
		[CONF_CONFINE_WITH_CGROUP] = CONFINE_WITH_CGROUP,
		[CONF_CONFINE_WITH_AFFINITY] = CONFINE_WITH_AFFINITY,
	};
	char name[32];
	int mode = d->conf.confine;
	uint64_t t0;
	uint32_t heartbeat_ms, offset_us;

	confine_name(d->conf.socket, name, sizeof(name));
	d->confine = confine_create(with[d->conf.confine_with], name,
	                            d->conf.cpus, d->conf.ncpus,
	                            (uint64_t)d->conf.quantum_us * 1000u, why,
	                            whylen);
	if (d->confine == NULL)
		return -1;
	if (mode == CONF_CONFINE_AUTO)
		mode = confine_is_cgroup(d->confine) ? CONF_CONFINE_ALL
		                                     : CONF_CONFINE_RIGID;
	sched_set_confine(d->sched, d->confine, mode);
	sched_quanta(d->sched, &t0, &heartbeat_ms, &offset_us);
	confine_grid(d->confine, t0 + (uint64_t)offset_us * 1000u);   /* ticks */
	log_info("confinement: %s jobs, by %s", mode == CONF_CONFINE_ALL ? "all"
	         : mode == CONF_CONFINE_RIGID ? "rigid" : "no",
	         confine_how(d->confine));
	return 0;
}

/* Free everything in reverse order of creation. */
static void daemon_free(struct daemon *d)
{
	int r = 0;

	control_free(d->ctl);
	sched_free(d->sched);
	confine_free(d->confine);

	/* A history catching up writes the rest now (the last chance). */
	while (d->hist != NULL && (r = history_retry(d->hist)) == 1)
		;
	if (r < 0) {
		struct history_health hh;

		history_health(d->hist, &hh);
		log_error("history %s: %lld writes waiting are lost", hh.state,
		          (long long)hh.pending);
	}
	history_close(d->hist);
	claim_free(d->claim);          /* the database's lock, after its last write */
	if (d->sigterm != NULL)
		event_free(d->sigterm);
	if (d->sigint != NULL)
		event_free(d->sigint);
	if (d->sighup != NULL)
		event_free(d->sighup);
	if (d->housekeeping != NULL)
		event_free(d->housekeeping);
	if (d->watchdog != NULL)
		event_free(d->watchdog);
	if (d->base != NULL)
		event_base_free(d->base);
}

int main(int argc, char **argv)
{
	static struct daemon d;
	char why[1024];
	struct history_opts ho;
	struct timeval second = { 1, 0 };
	uint64_t wd_usec = 0;
	char cpus[256], policy[160];
	int r;

	if (conf_load(&d.conf, argc, argv, why, sizeof(why)) < 0) {
		fprintf(stderr, "asteald: %s\n(asteald --help lists the options)\n", why);
		return 2;
	}
	if (d.conf.show_help) {
		fputs(conf_usage(), stdout);
		return 0;
	}
	if (d.conf.show_version) {
		printf("asteald %s (protocol %u)\n", ASTEAL_VERSION, PROTO_VERSION);
		return 0;
	}
	log_init(d.conf.log_level, d.conf.foreground);
	log_route_libevent();
	signal(SIGPIPE, SIG_IGN);
	/* A file size limit fails the history's writes (EFBIG), which the
	 * history survives (degraded), rather than killing the daemon. */
	signal(SIGXFSZ, SIG_IGN);
	realtime(d.conf.rt_priority, policy, sizeof(policy));
	{
		/* Coalesce the add/del of write interest that every reply to
		 * every job causes into one epoll_ctl per loop turn. */
		struct event_config *cfg = event_config_new();
		if (cfg != NULL)
			event_config_set_flag(cfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
		d.base = cfg != NULL ? event_base_new_with_config(cfg) : NULL;
		if (cfg != NULL)
			event_config_free(cfg);
	}
	if (d.base == NULL) {
		log_error("cannot create the event loop");
		return 1;
	}
	/* SIGTERM and SIGINT caught from here on: one that comes while the
	 * daemon starts (its socket may already take connections) stops it
	 * cleanly once its loop runs, instead of killing it half made; a
	 * SIGHUP then reloads once the loop runs. */
	d.argc = argc;
	d.argv = argv;
	d.sigterm = evsignal_new(d.base, SIGTERM, on_signal, &d);
	d.sigint = evsignal_new(d.base, SIGINT, on_signal, &d);
	d.sighup = evsignal_new(d.base, SIGHUP, on_reload, &d);
	if (d.sigterm == NULL || d.sigint == NULL || d.sighup == NULL ||
	    event_add(d.sigterm, NULL) < 0 || event_add(d.sigint, NULL) < 0 ||
	    event_add(d.sighup, NULL) < 0) {
		log_error("cannot set up signals");
		daemon_free(&d);
		return 1;
	}
	/* One daemon per database, before anything opens it. */
	d.claim = claim_new();
	if (d.claim == NULL) {
		log_error("out of memory");
		daemon_free(&d);
		return 1;
	}
	if ((r = claim_db(d.claim, d.conf.db, why, sizeof(why))) != 0) {
		log_error("%s", why);
		daemon_free(&d);
		return r > 0 ? EXIT_DB_IN_USE : 1;
	}
	memset(&ho, 0, sizeof(ho));
	ho.retention_days = d.conf.retention_days;
	ho.group_gid = d.conf.admin_gid;
	d.hist = history_open(d.conf.db, &ho, why, sizeof(why));
	if (d.hist == NULL) {
		log_error("history database %s: %s", d.conf.db, why);
		daemon_free(&d);
		return 1;
	}
	if (*history_notice(d.hist) != '\0')
		log_error("%s", history_notice(d.hist));
	if (history_expire(d.hist, wall_ns(), 0, NULL) < 0)
		log_warn("history: %s", history_error(d.hist));
	d.ctl = control_create(d.base, &d.conf, why, sizeof(why));
	if (d.ctl == NULL) {
		log_error("%s", why);
		daemon_free(&d);
		return 1;
	}
	d.sched = sched_create(d.base, &d.conf, d.hist, why, sizeof(why));
	if (d.sched == NULL) {
		log_error("cannot create the scheduler: %s", why);
		daemon_free(&d);
		return 1;
	}
	if (confine_start(&d, why, sizeof(why)) < 0) {
		log_error("confinement: %s", why);
		daemon_free(&d);
		return 1;
	}
	/* Another daemon on some of these CPUs: said, not refused. */
	r = claim_cpus(d.claim, d.base, d.conf.cpus, d.conf.ncpus, why, sizeof(why));
	if (r > 0)
		log_warn("%s", why);
	else if (r < 0)
		log_info("%s", why);
	if (control_attach(d.ctl, d.sched, d.hist) < 0) {
		log_error("cannot set up the control socket: out of memory");
		daemon_free(&d);
		return 1;
	}
	d.housekeeping = event_new(d.base, -1, EV_PERSIST, on_housekeeping, &d);
	if (d.housekeeping == NULL || event_add(d.housekeeping, &second) < 0) {
		log_error("cannot set up the timers");
		daemon_free(&d);
		return 1;
	}
	if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec > 0) {
		struct timeval half = { (time_t)(wd_usec / 2000000),
		                        (suseconds_t)(wd_usec / 2 % 1000000) };
		d.watchdog = event_new(d.base, -1, EV_PERSIST, on_watchdog, &d);
		if (d.watchdog != NULL)
			event_add(d.watchdog, &half);
	}
	cpulist_format(d.conf.cpus, d.conf.ncpus, cpus, sizeof(cpus));
	log_info("asteald %s: CPUs %s, quantum %.3g ms, ticks %.3g ms into it, "
	         "share %s, handover %s, scheduling %s, history %s", ASTEAL_VERSION,
	         cpus, d.conf.quantum_us / 1000.0, d.conf.offset_us / 1000.0,
	         conf_share_name(d.conf.share), conf_handover_name(d.conf.handover),
	         policy, d.conf.db);
	sd_notify(0, "READY=1\nSTATUS=0 jobs running");
	event_base_dispatch(d.base);
	daemon_free(&d);
	log_info("stopped");
	return 0;
}
