/*
 * quantum.c - A-STEAL's quanta inside the job: the link thread that, at the
 * end of every quantum, sums the workers' accounting into work, steal and
 * mug time, computes the next desire with the estimator (estimator.c),
 * learns the availability, applies the allotment (worker_allot) and writes
 * a trace row; the configuration from the environment; and the summary
 * printed at stop.
 *
 * Without a daemon the availability is all workers, or line q of the
 * profile file ASTEAL_PROFILE (the last line repeats).  The allotment is
 * min(reported desire, availability); in ABP mode the desire is always the
 * worker count (no feedback); in static mode there is no link thread.
 */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "estimator.h"
#include "link.h"
#include "proto.h"
#include "qtime.h"

#define Q_DEFAULT_MS 10.0
#define Q_RETRY_MIN_NS 100000000ull     /* reconnect backoff: 0.1 s ... */
#define Q_RETRY_MAX_NS 2000000000ull    /* ... doubling up to 2 s */
#define Q_MAX_PROFILE (1 << 24)      /* lines of a profile file */

struct quantum {
	struct est_params est;
	uint64_t length;                 /* L in ns */
	int *profile;                    /* availability per quantum, or NULL */
	size_t nprofile;
	FILE *trace;                     /* ASTEAL_TRACE, or NULL */

	char socket[108];                /* the daemon's socket, "" for none */
	struct link *link;               /* connected to the daemon, or NULL */
	uint64_t job_id;                 /* the daemon's id for us, 0 if none */
	uint64_t claim;                  /* the id to claim when connecting:
	                                    ASTEAL_JOB_ID, then the last one */
	uint64_t retry_at, retry_ns;     /* next connection attempt, backoff */
	int quiet;                       /* no log lines (ASTEAL_QUIET) */

	pthread_t thread;
	int running;
	int stop_pipe[2];                /* written to stop the link thread */
	pthread_mutex_t lock;            /* guards everything below */
	uint64_t t0;                     /* when the runtime started */
	uint64_t qstart;                 /* when the current quantum started */
	uint64_t q;                      /* the current quantum, from 1 */
	double desire;                   /* d_q, real */
	int availability, allotment;     /* p_q, a_q */
	uint64_t (*last)[WS_COUNT];      /* each worker's accounting so far */
	/* Totals over finished quanta. */
	uint64_t quanta, sum_allotment, work, steal, mug, allotted;
	uint64_t classes[EST_NCLASSES];
};

static const char *const mode_names[] = { "asteal", "abp", "static" };

/* Read an environment variable as a real number in [lo, hi]: 1 when set
 * and valid, 0 when unset, -1 with a message when invalid. */
static int env_real(const char *name, double lo, double hi, double *out)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= lo && v <= hi)) {
		fprintf(stderr, "asteal: %s=%s: expected a number from %g to %g\n",
		        name, s, lo, hi);
		errno = EINVAL;
		return -1;
	}
	*out = v;
	return 1;
}

/* Read a profile: one availability (an integer >= 0) per line; blank lines
 * and lines starting with # are skipped.  -1 with a message on error. */
static int read_profile(struct quantum *qt, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[128];
	size_t cap = 0, lineno = 0;

	if (f == NULL) {
		fprintf(stderr, "asteal: ASTEAL_PROFILE=%s: %s\n", path, strerror(errno));
		errno = EINVAL;
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *end;
		long v;

		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
			continue;
		errno = 0;
		v = strtol(p, &end, 10);
		while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
			end++;
		if (errno != 0 || end == p || *end != '\0' || v < 0 ||
		    v > RT_MAX_WORKERS || qt->nprofile >= Q_MAX_PROFILE) {
			fprintf(stderr, "asteal: ASTEAL_PROFILE=%s:%zu: expected one "
			        "availability (0 to %d) per line\n", path, lineno,
			        RT_MAX_WORKERS);
			fclose(f);
			errno = EINVAL;
			return -1;
		}
		if (qt->nprofile == cap) {
			int *n = realloc(qt->profile, (cap ? 2 * cap : 256) * sizeof(int));
			if (n == NULL) {
				fclose(f);
				errno = ENOMEM;
				return -1;
			}
			qt->profile = n;
			cap = cap ? 2 * cap : 256;
		}
		qt->profile[qt->nprofile++] = (int)v;
	}
	fclose(f);
	if (qt->nprofile == 0) {
		fprintf(stderr, "asteal: ASTEAL_PROFILE=%s: no availability in it\n", path);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Free the link's state (the thread has stopped). */
void quantum_free(struct runtime *rt)
{
	struct quantum *qt = rt->quantum;

	if (qt == NULL)
		return;
	if (qt->trace != NULL)
		fclose(qt->trace);
	link_close(qt->link);
	if (qt->stop_pipe[0] >= 0) {
		close(qt->stop_pipe[0]);
		close(qt->stop_pipe[1]);
	}
	pthread_mutex_destroy(&qt->lock);
	free(qt->profile);
	free(qt->last);
	free(qt);
	rt->quantum = NULL;
}

/* The availability of quantum q (from 1). */
static int availability(const struct quantum *qt, const struct runtime *rt,
                        uint64_t q)
{
	int p;

	if (qt->profile == NULL)
		return rt->nworkers;
	p = qt->profile[q - 1 < qt->nprofile ? q - 1 : qt->nprofile - 1];
	return p;
}

/* The allotment of the current quantum, from desire and availability. */
static int allotment(const struct quantum *qt, const struct runtime *rt)
{
	int want = rt->mode == RT_MODE_ABP ? rt->nworkers
	                                   : est_report(&qt->est, qt->desire);

	return want < qt->availability ? want : qt->availability;
}

/* Read the mode and A-STEAL's settings from the environment into a new
 * link state; sets rt->mode and the first quantum's allotment.  -1 with a
 * message when a value is bad. */
int quantum_config(struct runtime *rt)
{
	const char *mode = getenv("ASTEAL_MODE");
	const char *profile = getenv("ASTEAL_PROFILE");
	const char *trace = getenv("ASTEAL_TRACE");
	const char *sock = getenv(PROTO_SOCKET_ENV);
	const char *quiet = getenv("ASTEAL_QUIET");
	const char *why;
	struct quantum *qt;
	double ms = Q_DEFAULT_MS;

	rt->mode = RT_MODE_ASTEAL;
	if (mode != NULL && *mode != '\0') {
		int m;
		for (m = 0; m <= RT_MODE_STATIC; m++)
			if (strcmp(mode, mode_names[m]) == 0)
				break;
		if (m > RT_MODE_STATIC) {
			fprintf(stderr, "asteal: ASTEAL_MODE=%s: expected asteal, abp "
			        "or static\n", mode);
			errno = EINVAL;
			return -1;
		}
		rt->mode = m;
	}
	rt->allotment = rt->nworkers;
	if (rt->mode == RT_MODE_STATIC)
		return 0;
	qt = calloc(1, sizeof(*qt));
	if (qt == NULL) {
		errno = ENOMEM;
		return -1;
	}
	rt->quantum = qt;
	qt->stop_pipe[0] = qt->stop_pipe[1] = -1;
	pthread_mutex_init(&qt->lock, NULL);
	if (pipe2(qt->stop_pipe, O_CLOEXEC) < 0) {
		qt->stop_pipe[0] = qt->stop_pipe[1] = -1;
		goto fail;
	}
	est_params_default(&qt->est, rt->nworkers);
	if (env_real("ASTEAL_DELTA", 0.0, 1.0, &qt->est.delta) < 0 ||
	    env_real("ASTEAL_RHO", 1.0, 1000.0, &qt->est.rho) < 0 ||
	    env_real("ASTEAL_QUANTUM_MS", 0.05, 60000.0, &ms) < 0)
		goto fail;
	if (est_params_check(&qt->est, &why) < 0) {
		fprintf(stderr, "asteal: ASTEAL_DELTA/ASTEAL_RHO: %s\n", why);
		errno = EINVAL;
		goto fail;
	}
	qt->length = (uint64_t)(ms * 1e6);
	if (profile != NULL && *profile != '\0' && read_profile(qt, profile) < 0)
		goto fail;
	/* The daemon: ASTEAL_SOCKET, else the system socket; none with a
	 * scripted profile (the profile is the job scheduler then) or when
	 * ASTEAL_SOCKET is "none". */
	if (qt->profile == NULL && !(sock != NULL && strcmp(sock, "none") == 0)) {
		if (sock == NULL || *sock == '\0')
			sock = PROTO_SOCKET_PATH;
		if (strlen(sock) >= sizeof(qt->socket)) {
			fprintf(stderr, "asteal: %s=%s: path too long\n", PROTO_SOCKET_ENV, sock);
			errno = EINVAL;
			goto fail;
		}
		snprintf(qt->socket, sizeof(qt->socket), "%s", sock);
		/* Launched by `asteal run`/`submit`: claim the id it made. */
		const char *id = getenv("ASTEAL_JOB_ID");
		if (id != NULL && *id != '\0') {
			char *end;
			errno = 0;
			qt->claim = strtoull(id, &end, 10);
			if (errno != 0 || *end != '\0')
				qt->claim = 0;  /* not ours to judge: register anew */
		}
	}
	qt->quiet = quiet != NULL && *quiet != '\0' && strcmp(quiet, "0") != 0;
	qt->retry_ns = Q_RETRY_MIN_NS;
	qt->last = calloc((size_t)rt->nworkers, sizeof(*qt->last));
	if (qt->last == NULL) {
		errno = ENOMEM;
		goto fail;
	}
	if (trace != NULL && *trace != '\0') {
		qt->trace = fopen(trace, "w");
		if (qt->trace == NULL) {
			fprintf(stderr, "asteal: ASTEAL_TRACE=%s: %s\n", trace,
			        strerror(errno));
			errno = EINVAL;
			goto fail;
		}
		fprintf(qt->trace, "quantum,time_ns,desire,desire_real,availability,"
		        "allotment,work_ns,steal_ns,mug_ns,allotted_ns,class\n");
	}
	qt->q = 1;
	qt->desire = rt->mode == RT_MODE_ABP ? rt->nworkers : est_initial();
	qt->availability = availability(qt, rt, 1);
	rt->allotment = allotment(qt, rt);
	qt->allotment = rt->allotment;
	return 0;
fail:
	quantum_free(rt);
	return -1;
}

/* Close the current quantum at time now: account, estimate (the next
 * desire becomes current), write the trace row and add to the totals; the
 * quantum's usage in *fb (under qt->lock). */
static void quantum_close(struct runtime *rt, struct quantum *qt, uint64_t now,
                          struct link_feedback *fb)
{
	uint64_t work = 0, steal = 0, mug = 0, allotted;
	struct est_quantum m;
	enum est_class cls;
	double next;
	int i, k;

	for (i = 0; i < rt->nworkers; i++) {
		uint64_t ns[WS_COUNT], d[WS_COUNT];
		worker_accounting(&rt->workers[i], now, ns);
		for (k = 0; k < WS_COUNT; k++) {
			d[k] = ns[k] >= qt->last[i][k] ? ns[k] - qt->last[i][k] : 0;
			qt->last[i][k] = ns[k];
		}
		work += d[WS_WORK];
		steal += d[WS_STEAL] + d[WS_SLEEP];
		mug += d[WS_MUG];
	}
	allotted = work + steal + mug;
	m.desire = qt->desire;
	m.allotment = qt->allotment;
	m.nonsteal = (double)(work + mug);
	m.allotted = (double)allotted;
	next = est_next(&qt->est, &m, &cls);
	if (qt->trace != NULL)
		fprintf(qt->trace, "%llu,%llu,%d,%.4f,%d,%d,%llu,%llu,%llu,%llu,%s\n",
		        (unsigned long long)qt->q,
		        (unsigned long long)(qt->qstart - qt->t0),
		        rt->mode == RT_MODE_ABP ? rt->nworkers
		                                : est_report(&qt->est, qt->desire),
		        qt->desire, qt->availability, qt->allotment,
		        (unsigned long long)work, (unsigned long long)steal,
		        (unsigned long long)mug, (unsigned long long)allotted,
		        est_class_name(cls));
	qt->quanta++;
	qt->sum_allotment += (uint64_t)qt->allotment;
	qt->work += work;
	qt->steal += steal;
	qt->mug += mug;
	qt->allotted += allotted;
	qt->classes[cls]++;
	if (rt->mode != RT_MODE_ABP)
		qt->desire = next;
	if (fb != NULL) {
		fb->desire = rt->mode == RT_MODE_ABP ? rt->nworkers
		                                     : est_report(&qt->est, qt->desire);
		fb->desire_real = qt->desire;
		fb->work_ns = work;
		fb->steal_ns = steal;
		fb->mug_ns = mug;
		fb->allotted_ns = allotted;
		fb->klass = cls;
	}
}

/* Open the next quantum at time now with the given availability and
 * allotment (pinning to cpus when not NULL) (under qt->lock). */
static void quantum_open(struct runtime *rt, struct quantum *qt, uint64_t now,
                         int avail, int allot, const int *cpus)
{
	qt->q++;
	qt->qstart = now;
	qt->availability = avail;
	qt->allotment = allot < 0 ? 0 : allot > rt->nworkers ? rt->nworkers : allot;
	worker_allot(rt, qt->allotment, cpus, now);
}

/* One local quantum boundary: close, then open with the profile's (or all
 * workers') availability. */
static void quantum_local(struct runtime *rt, struct quantum *qt, uint64_t now)
{
	quantum_close(rt, qt, now, NULL);
	qt->availability = availability(qt, rt, qt->q + 1);
	quantum_open(rt, qt, now, qt->availability, allotment(qt, rt), NULL);
}

/* Say one line on stderr about the link (unless ASTEAL_QUIET). */
static void say(const struct quantum *qt, const char *what, const char *why)
{
	if (!qt->quiet)
		fprintf(stderr, "asteal: %s (%s)\n", what, why);
}

/* Try the daemon when it is time to; on success the daemon drives the
 * quanta from its next Tick. */
static void try_connect(struct runtime *rt, struct quantum *qt, uint64_t now)
{
	char why[256];

	if (qt->socket[0] == '\0' || qt->link != NULL || now < qt->retry_at)
		return;
	qt->link = link_connect(qt->socket, rt->nworkers, qt->claim, why, sizeof(why));
	if (qt->link == NULL) {
		qt->retry_at = now + qt->retry_ns;
		qt->retry_ns = qt->retry_ns * 2 > Q_RETRY_MAX_NS ? Q_RETRY_MAX_NS
		                                                 : qt->retry_ns * 2;
		if (errno == ENOSYS)
			qt->socket[0] = '\0';  /* built without the link */
		if (errno == ENOENT || errno == ECONNREFUSED || errno == ENOSYS)
			return;         /* no daemon: standalone, quietly */
		say(qt, "daemon unusable: running standalone", why);
		return;
	}
	qt->retry_ns = Q_RETRY_MIN_NS;
	qt->claim = link_job_id(qt->link);     /* ours again after a restart */
	pthread_mutex_lock(&qt->lock);
	qt->job_id = link_job_id(qt->link);
	pthread_mutex_unlock(&qt->lock);
}

/* The daemon went away: keep what we have, schedule locally, retry. */
static void lost_daemon(struct quantum *qt, uint64_t now, const char *why)
{
	say(qt, "lost the daemon: running standalone, will reconnect", why);
	link_close(qt->link);
	qt->link = NULL;
	qt->retry_at = now + qt->retry_ns;
	pthread_mutex_lock(&qt->lock);
	qt->job_id = 0;
	pthread_mutex_unlock(&qt->lock);
}

/* Handle what the daemon sent: Tick closes a quantum and answers with
 * Feedback; Allot opens the next one. */
static void from_daemon(struct runtime *rt, struct quantum *qt)
{
	static struct link_msg m;       /* only the link thread is here */
	char why[160];
	int r;

	while ((r = link_next(qt->link, &m, why, sizeof(why))) > 0) {
		uint64_t now = qtime_now_ns();
		if (m.kind == LINK_TICK) {
			struct link_feedback fb;
			pthread_mutex_lock(&qt->lock);
			quantum_close(rt, qt, now, &fb);
			pthread_mutex_unlock(&qt->lock);
			fb.quantum = m.quantum;
			if (link_feedback(qt->link, &fb) < 0) {
				lost_daemon(qt, now, "it does not read");
				return;
			}
		} else if (m.kind == LINK_ALLOT) {
			pthread_mutex_lock(&qt->lock);
			quantum_open(rt, qt, now, m.availability, m.allotment,
			             m.ncpus >= m.allotment ? m.cpus : NULL);
			pthread_mutex_unlock(&qt->lock);
		}
	}
	if (r < 0)
		lost_daemon(qt, qtime_now_ns(), why);
}

/* The link thread: the daemon's ticks when connected, else local quanta
 * every L; reconnects with backoff; ends when the stop pipe is written. */
static void *link_main(void *arg)
{
	struct runtime *rt = arg;
	struct quantum *qt = rt->quantum;
	uint64_t next = qt->qstart + qt->length;

	for (;;) {
		uint64_t now = qtime_now_ns(), wake;
		struct pollfd p[2];
		int n = 1, timeout;

		try_connect(rt, qt, now);
		if (qt->link == NULL && now >= next) {
			pthread_mutex_lock(&qt->lock);
			quantum_local(rt, qt, now);
			pthread_mutex_unlock(&qt->lock);
			next += qt->length;
			if (next <= now)        /* fell behind: no burst of quanta */
				next = now + qt->length;
		}
		p[0].fd = qt->stop_pipe[0];
		p[0].events = POLLIN;
		if (qt->link != NULL) {
			p[1].fd = link_fd(qt->link);
			p[1].events = POLLIN;
			n = 2;
			wake = now + Q_RETRY_MAX_NS;    /* the daemon ticks us */
			next = now + qt->length;        /* if it goes away */
		} else {
			wake = next;
			if (qt->socket[0] != '\0' && qt->retry_at < wake)
				wake = qt->retry_at > now ? qt->retry_at : now;
		}
		timeout = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		if (poll(p, (nfds_t)n, timeout) < 0 && errno != EINTR)
			continue;
		if (p[0].revents)
			break;
		if (n == 2 && p[1].revents)
			from_daemon(rt, qt);
	}
	return NULL;
}

/* Start the link thread (nothing to do in static mode). */
int quantum_start(struct runtime *rt)
{
	struct quantum *qt = rt->quantum;
	int err;

	if (qt == NULL)
		return 0;
	qt->t0 = qt->qstart = qtime_now_ns();
	try_connect(rt, qt, qt->t0);    /* join the daemon from the start */
	err = pthread_create(&qt->thread, NULL, link_main, rt);
	if (err != 0) {
		errno = err;
		return -1;
	}
	qt->running = 1;
	return 0;
}

/* Stop the link thread and give every worker back (they must see the
 * runtime stop), flushing the trace. */
void quantum_stop(struct runtime *rt)
{
	struct quantum *qt = rt->quantum;

	if (qt != NULL && qt->running) {
		char c = 1;
		while (write(qt->stop_pipe[1], &c, 1) < 0 && errno == EINTR)
			;
		pthread_join(qt->thread, NULL);
		link_close(qt->link);           /* the daemon closes our row */
		qt->link = NULL;
		qt->running = 0;
		if (qt->trace != NULL)
			fflush(qt->trace);
	}
	worker_allot(rt, rt->nworkers, NULL, qtime_now_ns());
}

/* Compare two latencies, for qsort. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Fill the job-wide summary (see asteal_summary in asteal.h). */
void quantum_summary(struct runtime *rt, asteal_summary *s)
{
	struct quantum *qt = rt->quantum;
	uint64_t *lat = NULL;
	size_t n;
	int i;

	memset(s, 0, sizeof(*s));
	s->mode = mode_names[rt->mode];
	s->workers = rt->nworkers;
	for (i = 0; i < rt->nworkers; i++) {
		s->mugs += atomic_load(&rt->workers[i].st.mugs);
		s->leaves += atomic_load(&rt->workers[i].st.leaves);
	}
	if (qt != NULL) {
		pthread_mutex_lock(&qt->lock);
		s->quanta = qt->quanta;
		s->mean_allotment = qt->quanta ? (double)qt->sum_allotment / qt->quanta : 0;
		s->work_ns = qt->work;
		s->steal_ns = qt->steal;
		s->mug_ns = qt->mug;
		s->allotted_ns = qt->allotted;
		s->desire = qt->desire;
		s->allotment = qt->allotment;
		s->job_id = qt->job_id;
		s->inefficient = qt->classes[EST_INEFFICIENT];
		s->satisfied = qt->classes[EST_EFFICIENT_SATISFIED];
		s->deprived = qt->classes[EST_EFFICIENT_DEPRIVED];
		pthread_mutex_unlock(&qt->lock);
	} else {                /* static: no quanta, the workers' totals */
		uint64_t now = qtime_now_ns(), ns[WS_COUNT];
		for (i = 0; i < rt->nworkers; i++) {
			worker_accounting(&rt->workers[i], now, ns);
			s->work_ns += ns[WS_WORK];
			s->steal_ns += ns[WS_STEAL] + ns[WS_SLEEP];
			s->mug_ns += ns[WS_MUG];
		}
		s->allotted_ns = s->work_ns + s->steal_ns + s->mug_ns;
		s->allotment = rt->nworkers;
		s->mean_allotment = rt->nworkers;
		s->desire = rt->nworkers;
	}
	pthread_mutex_lock(&rt->park_lock);
	n = rt->nlatency;
	if (n > 0 && (lat = malloc(n * sizeof(*lat))) != NULL)
		memcpy(lat, rt->latency, n * sizeof(*lat));
	pthread_mutex_unlock(&rt->park_lock);
	if (lat != NULL) {
		qsort(lat, n, sizeof(*lat), cmp_u64);
		s->revocations = n;
		s->latency_p50_ns = lat[(n - 1) / 2];
		s->latency_p99_ns = lat[(size_t)ceil(0.99 * (double)n) - 1];
		s->latency_max_ns = lat[n - 1];
		free(lat);
	}
}

/* ASTEAL_STATS=1: the job's summary on stderr, as the runtime stops. */
void quantum_print_summary(struct runtime *rt)
{
	asteal_summary s;
	const char *e = getenv("ASTEAL_STATS");

	if (e == NULL || *e == '\0' || strcmp(e, "0") == 0)
		return;
	quantum_summary(rt, &s);
	fprintf(stderr, "asteal: mode=%s workers=%d quanta=%llu mean_allotment=%.2f "
	        "work_s=%.3f waste=%.1f%% (steal %.3f s, mug %.3f s) mugs=%llu "
	        "revocations=%llu latency_us p50=%.1f p99=%.1f max=%.1f\n",
	        s.mode, s.workers, (unsigned long long)s.quanta, s.mean_allotment,
	        s.work_ns * 1e-9,
	        s.work_ns ? 100.0 * (double)(s.steal_ns + s.mug_ns) / (double)s.work_ns : 0.0,
	        s.steal_ns * 1e-9, s.mug_ns * 1e-9, (unsigned long long)s.mugs,
	        (unsigned long long)s.revocations, s.latency_p50_ns * 1e-3,
	        s.latency_p99_ns * 1e-3, s.latency_max_ns * 1e-3);
}
