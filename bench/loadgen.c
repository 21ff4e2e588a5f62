/*
 * loadgen.c - asteal-loadgen: a load generator for asteald.  One process
 * opens N protocol connections, each acting as a job, and answers every
 * Tick at once with a Feedback; one epoll loop serves them all, reading
 * whatever each readable socket holds in one read and answering every Tick
 * in it before the next socket.
 *
 * Desire.  Each job starts at desire 1; on each quantum, with probability
 * RATE (--change-rate, default 0.1), its desire takes one step up or down
 * (a random direction, the only one possible at 1 or W), so a job changes
 * its desire on a fraction RATE of the quanta, about every 1/RATE quanta.
 * RATE = 1 is the worst case: every job changes every quantum.  (A real
 * A-STEAL job keeps its desire while it is efficient and deprived, the
 * usual case when jobs outnumber processors, and changes it by a factor
 * when it is inefficient or satisfied; 0.1, a change every 100 ms at
 * L = 10 ms, is a busy machine.)
 *
 * Checks, on every Allot: it is for the quantum of the job's last Tick (a
 * job that joined during a tick gets its first Allot without a Tick);
 * allotment = the number of CPUs <= availability, <= W and <= P; within a
 * quantum no CPU is given twice and the allotments sum to at most P.  Any
 * failure counts as a wrong allotment (exit status 1).  An allotment that
 * is not min(desire sent for that quantum, availability) is counted as
 * "stale": the daemon used an older desire because the Feedback was late,
 * so stale <= late_feedbacks.
 *
 * At the end it prints, on one line: the daemon's tick latency (p50, p99,
 * max, from its Status: its last 4096 ticks), the daemon's CPU use over
 * the run (utime + stime from /proc/PID/stat, all threads, as a share of
 * one core), the load generator's own CPU use, the daemon's count of late
 * feedbacks, the load generator's own view of tick latency (lg_*: from
 * reading a quantum's first Tick to reading its last Allot, for the quanta
 * where all N Allots came before the next Tick), the largest lag of an
 * Allot behind the newest Tick (in quanta) and the history database's
 * size (the main file, WAL not included; stop the daemon first for the
 * final size).
 *
 *   asteal-loadgen --socket PATH --pid DAEMON_PID --jobs N --seconds S
 *                  [--workers W] [--change-rate RATE] [--db FILE]
 *                  [--cpu CPU] [--seed N]
 *
 * --workers W (default 8) is every job's largest desire; --cpu pins the
 * load generator to one CPU (to keep it off the daemon's); --seed (default
 * 1) picks the desire walks, one stream per job.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "frame.h"
#include "qtime.h"

#define CPU_IDS 1024              /* CPU ids checked (asteald's CPULIST_MAX) */
#define QRING 256                 /* quanta checked at once */

struct fake {
	int fd;
	struct frame_reader *r;
	uint32_t desire;          /* sent with the last Feedback */
	uint64_t tick_q;          /* the quantum of the last Tick */
	uint64_t rng;             /* its own stream: its desires do not depend
	                             on the order sockets are served in */
};

/* What the Allots of one quantum added up to so far. */
struct quantum_check {
	uint64_t q;
	uint64_t sum;
	uint64_t cpus[CPU_IDS / 64];
};

/* The next pseudo-random number of a stream (xorshift64; never 0). */
static uint64_t next_rand(uint64_t *rng)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return *rng;
}

/* Seconds on the monotonic clock. */
static double now_s(void)
{
	return (double)qtime_now_ns() * 1e-9;
}

/* Connect and say Hello with role and workers; -1 on failure. */
static int dial(const char *path, Asteal__Role role, uint32_t workers)
{
	struct sockaddr_un sa;
	Asteal__Envelope env;
	Asteal__Hello h;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	frame_hello(&env, &h, role, "loadgen", workers, "asteal-loadgen", "loadgen");
	if (frame_write_fd(fd, &env) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The CPU time of process pid in seconds (utime + stime). */
static double cpu_of(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f == NULL || fgets(buf, sizeof(buf), f) == NULL) {
		if (f != NULL)
			fclose(f);
		return -1;
	}
	fclose(f);
	p = strrchr(buf, ')');
	for (i = 0; p != NULL && i < 12; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* This process's CPU time in seconds. */
static double own_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* Write all of buf to a nonblocking socket, waiting when it is full; 0 or
 * -1. */
static int send_all(int fd, const uint8_t *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = { fd, POLLOUT, 0 };
			poll(&p, 1, 1000);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
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

/* Answer Tick{q} for job j: its desire for q and a made-up usage. */
static int answer_tick(struct fake *j, uint64_t q, uint32_t W, double rate)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;
	uint8_t buf[128];
	size_t len;

	j->tick_q = q;
	j->desire = next_desire(&j->rng, j->desire, W, rate);
	fb.quantum = q;
	fb.desire = j->desire;
	fb.desire_real = j->desire;
	fb.work_ns = 1000000;
	fb.allotted_ns = 1000000;
	fb.quantum_class = ASTEAL__QUANTUM_CLASS__SATISFIED;
	env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
	env.feedback = &fb;
	if (frame_encode(&env, buf, sizeof(buf), &len) < 0)
		return -1;
	return send_all(j->fd, buf, len);
}

/* Compare two doubles, for qsort. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Connect N fake jobs, serve them for S seconds, check and report. */
int main(int argc, char **argv)
{
	const char *sock = NULL, *db = NULL;
	int pid = 0, njobs = 100, i, P = 0, cpu = -1, ep, answered_hello = 0;
	uint32_t W = 8;
	uint64_t seed = 1;
	double seconds = 10, rate = 0.1, t0, c0, c1, l0, l1, elapsed;
	struct fake *jobs;
	struct epoll_event *evs;
	static struct quantum_check ring[QRING];
	uint64_t allots = 0, ticks = 0, bad = 0, stale = 0, unchecked = 0;
	uint64_t max_lag = 0;             /* quanta between the newest Tick and an Allot read */
	/* The load generator's own view of tick latency: from the first Tick
	 * of a quantum read to its last Allot read. */
	double *lg_lat = NULL, q_first = 0;
	uint64_t lg_n = 0, lg_cap = 0, lg_q = 0, lg_allots = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--socket") == 0)
			sock = argv[i + 1];
		else if (strcmp(argv[i], "--pid") == 0)
			pid = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--jobs") == 0)
			njobs = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--seconds") == 0)
			seconds = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--workers") == 0)
			W = (uint32_t)atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--change-rate") == 0)
			rate = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--db") == 0)
			db = argv[i + 1];
		else if (strcmp(argv[i], "--cpu") == 0)
			cpu = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--seed") == 0)
			seed = strtoull(argv[i + 1], NULL, 0);
		else
			break;
	}
	if (sock == NULL || pid <= 0 || njobs < 1 || njobs > 100000 || i != argc ||
	    seconds <= 0 || W < 1 || rate < 0 || rate > 1) {
		fprintf(stderr, "usage: asteal-loadgen --socket PATH --pid PID --jobs N "
		        "--seconds S [--workers W] [--change-rate 0..1] [--db FILE] "
		        "[--cpu CPU] [--seed N]\n");
		return 2;
	}
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			perror("loadgen: --cpu");
	}
	jobs = calloc((size_t)njobs, sizeof(*jobs));
	evs = calloc((size_t)njobs, sizeof(*evs));
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (jobs == NULL || evs == NULL || ep < 0)
		return 1;
	for (i = 0; i < njobs; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

		jobs[i].fd = dial(sock, ASTEAL__ROLE__JOB, W);
		jobs[i].r = frame_reader_new();
		jobs[i].desire = 1;
		/* splitmix64 of (seed, job): distinct, nonzero streams */
		jobs[i].rng = (seed + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull);
		jobs[i].rng = (jobs[i].rng ^ (jobs[i].rng >> 30)) * 0xbf58476d1ce4e5b9ull;
		jobs[i].rng = (jobs[i].rng ^ (jobs[i].rng >> 27)) * 0x94d049bb133111ebull;
		jobs[i].rng ^= jobs[i].rng >> 31;
		if (jobs[i].rng == 0)
			jobs[i].rng = 1;
		if (jobs[i].fd < 0 || jobs[i].r == NULL)
			return 1;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, jobs[i].fd, &ev) < 0) {
			perror("loadgen: epoll_ctl");
			return 1;
		}
	}
	t0 = now_s();
	c0 = cpu_of(pid);
	l0 = own_cpu();
	while (now_s() - t0 < seconds) {
		int n = epoll_wait(ep, evs, njobs, 100), k;

		if (n < 0 && errno != EINTR) {
			perror("loadgen: epoll_wait");
			return 1;
		}
		for (k = 0; k < n; k++) {
			struct fake *j = &jobs[evs[k].data.u32];
			Asteal__Envelope *m;
			ssize_t got = frame_reader_fill(j->r, j->fd);

			if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
				fprintf(stderr, "loadgen: job %u: the daemon closed it\n",
				        evs[k].data.u32);
				return 1;
			}
			while (frame_reader_next(j->r, &m) == 1) {
				switch (m->msg_case) {
				case ASTEAL__ENVELOPE__MSG_WELCOME:
					if (m->welcome->n_cpus > 0)
						P = (int)m->welcome->n_cpus;
					answered_hello++;
					break;
				case ASTEAL__ENVELOPE__MSG_TICK:
					if (m->tick->quantum != lg_q) {
						lg_q = m->tick->quantum;
						lg_allots = 0;
						q_first = now_s();
					}
					if (answer_tick(j, m->tick->quantum, W, rate) < 0) {
						perror("loadgen: feedback");
						return 1;
					}
					if (j == jobs)
						ticks++;
					break;
				case ASTEAL__ENVELOPE__MSG_ALLOT: {
					Asteal__Allot *a = m->allot;
					struct quantum_check *qc = &ring[a->quantum % QRING];
					uint32_t want = j->desire < a->availability
					                ? j->desire : a->availability;
					int wrong = 0;
					size_t c;

					allots++;
					if (lg_q > a->quantum && lg_q - a->quantum > max_lag)
						max_lag = lg_q - a->quantum;
					if (a->quantum == lg_q && ++lg_allots == (uint64_t)njobs) {
						if (lg_n == lg_cap) {
							lg_cap = lg_cap ? 2 * lg_cap : 4096;
							lg_lat = realloc(lg_lat, lg_cap * sizeof(*lg_lat));
							if (lg_lat == NULL)
								return 1;
						}
						lg_lat[lg_n++] = now_s() - q_first;
					}
					/* A job that joined during a tick gets that
					 * quantum's Allot without its Tick. */
					if ((j->tick_q != 0 && a->quantum != j->tick_q) ||
					    a->allotment != a->n_cpus ||
					    a->allotment > a->availability || a->allotment > W ||
					    (P > 0 && a->allotment > (uint32_t)P))
						wrong = 1;
					if (a->allotment != want)
						stale++;
					if (qc->q != a->quantum) {
						if (qc->q > a->quantum) {
							unchecked++;      /* too late to check */
							goto done;
						}
						memset(qc, 0, sizeof(*qc));
						qc->q = a->quantum;
					}
					qc->sum += a->allotment;
					if (P > 0 && qc->sum > (uint64_t)P)
						wrong = 1;
					for (c = 0; c < a->n_cpus; c++) {
						uint32_t id = a->cpus[c];
						if (id >= CPU_IDS ||
						    (qc->cpus[id / 64] >> (id % 64) & 1)) {
							wrong = 1;
							continue;
						}
						qc->cpus[id / 64] |= (uint64_t)1 << (id % 64);
					}
				done:
					if (wrong && bad++ < 10)
						fprintf(stderr, "loadgen: wrong allot: quantum %llu "
						        "(tick %llu) allotment %u of %zu cpus, "
						        "availability %u\n",
						        (unsigned long long)a->quantum,
						        (unsigned long long)j->tick_q, a->allotment,
						        a->n_cpus, a->availability);
					break;
				}
				default:
					fprintf(stderr, "loadgen: unexpected %s\n", frame_name(m));
					bad++;
					break;
				}
				frame_free(m);
			}
		}
	}
	c1 = cpu_of(pid);
	l1 = own_cpu();
	elapsed = now_s() - t0;
	{
		int fd = dial(sock, ASTEAL__ROLE__CLIENT, 0);
		struct frame_reader *r = frame_reader_new();
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m = NULL;
		Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;
		struct stat st;
		long long dbsize = -1;
		double p50 = 0, p99 = 0, mx = 0;

		env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
		env.status_request = &sr;
		if (fd < 0 || frame_reader_read(r, fd, &m) != 1 ||  /* Welcome */
		    (frame_free(m), frame_write_fd(fd, &env)) < 0 ||
		    frame_reader_read(r, fd, &m) != 1 ||
		    m->msg_case != ASTEAL__ENVELOPE__MSG_STATUS) {
			fprintf(stderr, "loadgen: no status from the daemon\n");
			return 1;
		}
		if (db != NULL && stat(db, &st) == 0)
			dbsize = (long long)st.st_size;
		if (lg_n > 0) {
			qsort(lg_lat, lg_n, sizeof(*lg_lat), cmp_double);
			p50 = lg_lat[(lg_n - 1) / 2];
			p99 = lg_lat[(lg_n * 99 + 99) / 100 - 1];
			mx = lg_lat[lg_n - 1];
		}
		printf("jobs=%d seconds=%.1f change_rate=%g ticks=%llu allots=%llu "
		       "bad=%llu stale=%llu unchecked=%llu tick_p50_us=%.1f "
		       "tick_p99_us=%.1f tick_max_us=%.1f daemon_cpu_pct=%.2f "
		       "loadgen_cpu_pct=%.2f late_feedbacks=%llu lg_p50_us=%.1f "
		       "lg_p99_us=%.1f lg_max_us=%.1f lg_complete=%llu max_lag=%llu "
		       "db_bytes=%lld\n",
		       njobs, elapsed, rate, (unsigned long long)ticks,
		       (unsigned long long)allots, (unsigned long long)bad,
		       (unsigned long long)stale, (unsigned long long)unchecked,
		       m->status->tick_p50_ns * 1e-3, m->status->tick_p99_ns * 1e-3,
		       m->status->tick_max_ns * 1e-3, 100.0 * (c1 - c0) / elapsed,
		       100.0 * (l1 - l0) / elapsed,
		       (unsigned long long)m->status->late_feedbacks, p50 * 1e6,
		       p99 * 1e6, mx * 1e6, (unsigned long long)lg_n,
		       (unsigned long long)max_lag, dbsize);
		frame_free(m);
		frame_reader_free(r);
		close(fd);
	}
	if (answered_hello < njobs)
		fprintf(stderr, "loadgen: only %d of %d jobs were welcomed\n",
		        answered_hello, njobs);
	for (i = 0; i < njobs; i++) {
		close(jobs[i].fd);
		frame_reader_free(jobs[i].r);
	}
	free(jobs);
	free(evs);
	free(lg_lat);
	close(ep);
	return bad || answered_hello < njobs ? 1 : 0;
}
