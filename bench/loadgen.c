/*
 * loadgen.c - asteal-loadgen: a load generator for asteald.  One process
 * opens N protocol connections, each acting as a job whose desire wanders
 * (a random walk within [1, W]); every Tick gets a Feedback at once.  It
 * checks what comes back (every quantum's allotments sum to at most P and
 * no job gets more than it asked for), and at the end prints the daemon's
 * tick latency (from its Status), the daemon's CPU use over the run (from
 * /proc/PID/stat), and the history database's size.
 *
 *   asteal-loadgen --socket PATH --pid DAEMON_PID --jobs N --seconds S
 *                  [--workers W] [--db FILE]
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"

struct fake {
	int fd;
	struct frame_reader *r;
	uint32_t desire;
	uint64_t q;               /* the quantum of the last Allot */
	uint32_t allot;
};

/* Nanoseconds on the monotonic clock. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
		return -1;
	}
	frame_hello(&env, &h, role, "loadgen", workers, "asteal-loadgen", "loadgen");
	if (frame_write_fd(fd, &env) < 0)
		return -1;
	return fd;
}

/* The daemon's CPU time in seconds (utime + stime). */
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

int main(int argc, char **argv)
{
	const char *sock = NULL, *db = NULL;
	int pid = 0, njobs = 100, i, P = 0, bad = 0;
	uint32_t W = 8;
	double seconds = 10, t0, c0, c1;
	struct fake *jobs;
	struct pollfd *pfd;
	uint64_t rng = 88172645463325252ull, allots = 0, ticks = 0;
	uint64_t cur_q = 0, sum_q = 0;

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
		else if (strcmp(argv[i], "--db") == 0)
			db = argv[i + 1];
		else
			break;
	}
	if (sock == NULL || pid <= 0 || njobs < 1 || njobs > 100000 || i != argc ||
	    seconds <= 0 || W < 1) {
		fprintf(stderr, "usage: asteal-loadgen --socket PATH --pid PID --jobs N "
		        "--seconds S [--workers W] [--db FILE]\n");
		return 2;
	}
	jobs = calloc((size_t)njobs, sizeof(*jobs));
	pfd = calloc((size_t)njobs, sizeof(*pfd));
	if (jobs == NULL || pfd == NULL)
		return 1;
	for (i = 0; i < njobs; i++) {
		jobs[i].fd = dial(sock, ASTEAL__ROLE__JOB, W);
		jobs[i].r = frame_reader_new();
		jobs[i].desire = 1;
		if (jobs[i].fd < 0 || jobs[i].r == NULL)
			return 1;
		pfd[i].fd = jobs[i].fd;
		pfd[i].events = POLLIN;
	}
	t0 = now_s();
	c0 = cpu_of(pid);
	while (now_s() - t0 < seconds) {
		if (poll(pfd, (nfds_t)njobs, 100) < 0 && errno != EINTR)
			return 1;
		for (i = 0; i < njobs; i++) {
			Asteal__Envelope *m;
			if (!(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			if (frame_reader_fill(jobs[i].r, jobs[i].fd) == 0) {
				fprintf(stderr, "loadgen: job %d: the daemon closed it\n", i);
				return 1;
			}
			while (frame_reader_next(jobs[i].r, &m) == 1) {
				if (m->msg_case == ASTEAL__ENVELOPE__MSG_WELCOME &&
				    m->welcome->n_cpus > 0)
					P = (int)m->welcome->n_cpus;
				if (m->msg_case == ASTEAL__ENVELOPE__MSG_TICK) {
					Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
					Asteal__Feedback fb = ASTEAL__FEEDBACK__INIT;
					rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
					if ((rng & 3) == 0 && jobs[i].desire < W)
						jobs[i].desire++;
					else if ((rng & 3) == 1 && jobs[i].desire > 1)
						jobs[i].desire--;
					fb.quantum = m->tick->quantum;
					fb.desire = jobs[i].desire;
					fb.desire_real = jobs[i].desire;
					fb.work_ns = 1000000;
					fb.allotted_ns = 1000000;
					fb.quantum_class = ASTEAL__QUANTUM_CLASS__SATISFIED;
					env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
					env.feedback = &fb;
					if (frame_write_fd(jobs[i].fd, &env) < 0)
						return 1;
					if (i == 0)
						ticks++;
				}
				if (m->msg_case == ASTEAL__ENVELOPE__MSG_ALLOT) {
					Asteal__Allot *a = m->allot;
					allots++;
					if (a->quantum != cur_q) {
						cur_q = a->quantum;
						sum_q = 0;
					}
					sum_q += a->allotment;
					if (a->allotment != a->n_cpus || (P > 0 && sum_q > (uint64_t)P) ||
					    a->allotment > W)
						bad++;
				}
				frame_free(m);
			}
		}
	}
	c1 = cpu_of(pid);
	{
		int fd = dial(sock, ASTEAL__ROLE__CLIENT, 0);
		struct frame_reader *r = frame_reader_new();
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m = NULL;
		Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;
		struct stat st;
		long long dbsize = -1;

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
		printf("jobs=%d seconds=%.1f ticks=%llu allots=%llu bad=%d "
		       "tick_p50_us=%.1f tick_p99_us=%.1f tick_max_us=%.1f "
		       "daemon_cpu_pct=%.2f late_feedbacks=%llu db_bytes=%lld\n",
		       njobs, now_s() - t0, (unsigned long long)ticks,
		       (unsigned long long)allots, bad, m->status->tick_p50_ns * 1e-3,
		       m->status->tick_p99_ns * 1e-3, m->status->tick_max_ns * 1e-3,
		       100.0 * (c1 - c0) / (now_s() - t0),
		       (unsigned long long)m->status->late_feedbacks, dbsize);
		frame_free(m);
		frame_reader_free(r);
		close(fd);
	}
	for (i = 0; i < njobs; i++) {
		close(jobs[i].fd);
		frame_reader_free(jobs[i].r);
	}
	free(jobs);
	free(pfd);
	return bad ? 1 : 0;
}
