/*
 * wirefloor.c - asteal-wirefloor: what DESIGN.md's quantum exchange costs
 * on this machine with no scheduler behind it.  A "daemon" process and a
 * "jobs" process share N Unix stream socket pairs.  Every quantum the
 * daemon side does what asteald does, system call for system call: it
 * sends each job a Tick frame (one send each), collects one Feedback frame
 * from each (epoll_wait, then one recv per readable socket), and sends each
 * an Allot frame (one send each); the jobs side answers every Tick at once
 * from one epoll loop, like asteal-loadgen.  Nothing else happens: no
 * protobuf, no DEQ, no history, no libevent.  So its CPU use and latency
 * are the floor under any daemon that speaks this exchange over Unix
 * stream sockets, and asteald's figures can be read against it.
 *
 *   asteal-wirefloor [--jobs N] [--seconds S] [--quantum-us L] [--no-tick]
 *
 * --no-tick measures the exchange DESIGN.md does not use, for comparison:
 * no Tick; each job sends its Feedback for the next quantum as soon as an
 * Allot arrives (as if on its own quantum timer), and at each tick the
 * daemon side reads the Feedbacks waiting and sends the Allots: two
 * system calls per job per quantum instead of three.
 *
 * Prints one line: quanta, the daemon side's user and system CPU as a
 * share of one core, and the exchange's latency (first Tick sent to last
 * Allot sent) p50, p99 and max.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qtime.h"

#define TICK_LEN 10     /* asteald's Tick frame, prefix included */
#define FEEDBACK_LEN 24 /* a loadgen Feedback frame, about */
#define ALLOT_LEN 16    /* an Allot frame with one CPU */

/* Sort helper for latencies. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The jobs side: answer every Tick (with --no-tick every Allot) with a
 * Feedback, until EOF. */
static void run_jobs(int *fds, int n, int no_tick)
{
	struct epoll_event *evs = calloc((size_t)n, sizeof(*evs));
	uint8_t buf[4096], fb[FEEDBACK_LEN] = { 0 };
	int ep = epoll_create1(0), i, open = n;

	if (evs == NULL || ep < 0)
		_exit(1);
	for (i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) < 0)
			_exit(1);
	}
	while (open > 0) {
		int k = epoll_wait(ep, evs, n, -1), e;

		for (e = 0; e < k; e++) {
			int fd = fds[evs[e].data.u32];
			ssize_t got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

			if (got == 0) {
				epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
				open--;
				continue;
			}
			/* A Tick is the only message shorter than an Allot. */
			if (got > 0 && (no_tick || (got % ALLOT_LEN) != 0))
				send(fd, fb, sizeof(fb), MSG_DONTWAIT | MSG_NOSIGNAL);
		}
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int n = 100, i, ep, no_tick = 0;
	double seconds = 10;
	long quantum_us = 10000;
	int (*sv)[2];
	int *jobfds;
	pid_t child;
	uint64_t *lat, nq = 0, cap, next;
	struct epoll_event *evs;
	struct rusage r0, r1;
	uint8_t tick[TICK_LEN] = { 0 }, allot[ALLOT_LEN] = { 0 }, buf[256];
	double wall, ut, st;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (strcmp(argv[i], "--quantum-us") == 0 && i + 1 < argc)
			quantum_us = atol(argv[++i]);
		else if (strcmp(argv[i], "--no-tick") == 0)
			no_tick = 1;
		else {
			fprintf(stderr, "usage: asteal-wirefloor [--jobs N] [--seconds S] "
			        "[--quantum-us L] [--no-tick]\n");
			return 2;
		}
	}
	if (n < 1 || seconds <= 0 || quantum_us < 100) {
		fprintf(stderr, "asteal-wirefloor: bad arguments\n");
		return 2;
	}
	sv = calloc((size_t)n, sizeof(*sv));
	jobfds = calloc((size_t)n, sizeof(*jobfds));
	evs = calloc((size_t)n, sizeof(*evs));
	cap = (uint64_t)(seconds * 1e6 / (double)quantum_us) + 2;
	lat = calloc(cap, sizeof(*lat));
	if (sv == NULL || jobfds == NULL || evs == NULL || lat == NULL)
		return 1;
	for (i = 0; i < n; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv[i]) < 0) {
			perror("asteal-wirefloor: socketpair");
			return 1;
		}
		jobfds[i] = sv[i][1];
	}
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		for (i = 0; i < n; i++)
			close(sv[i][0]);
		run_jobs(jobfds, n, no_tick);
	}
	for (i = 0; i < n; i++)
		close(sv[i][1]);
	ep = epoll_create1(0);
	for (i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

		epoll_ctl(ep, EPOLL_CTL_ADD, sv[i][0], &ev);
	}
	tick[3] = TICK_LEN - 4;
	allot[3] = ALLOT_LEN - 4;
	getrusage(RUSAGE_SELF, &r0);
	next = qtime_now_ns();
	wall = (double)next;
	while (nq < cap - 1 && (double)(next - (uint64_t)wall) < seconds * 1e9) {
		uint64_t t0, t;
		int waiting = n;
		struct timespec ts;

		next += (uint64_t)quantum_us * 1000;
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		t0 = qtime_now_ns();
		for (i = 0; i < n && !no_tick; i++)
			send(sv[i][0], tick, sizeof(tick), MSG_DONTWAIT | MSG_NOSIGNAL);
		while (waiting > 0) {
			int k = epoll_wait(ep, evs, n, no_tick ? 0 : 2), e;

			if (k == 0)
				break;          /* the 2 ms deadline, as asteald's */
			for (e = 0; e < k; e++)
				if (recv(sv[evs[e].data.u32][0], buf, sizeof(buf),
				         MSG_DONTWAIT) > 0)
					waiting--;
		}
		for (i = 0; i < n; i++)
			send(sv[i][0], allot, sizeof(allot), MSG_DONTWAIT | MSG_NOSIGNAL);
		t = qtime_now_ns();
		lat[nq++] = t - t0;
	}
	getrusage(RUSAGE_SELF, &r1);
	wall = ((double)qtime_now_ns() - wall) / 1e9;
	for (i = 0; i < n; i++)
		close(sv[i][0]);
	waitpid(child, NULL, 0);
	ut = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
	     (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6;
	st = (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
	     (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
	qsort(lat, nq, sizeof(*lat), cmp_u64);
	printf("exchange=%s jobs=%d quanta=%llu user_pct=%.2f sys_pct=%.2f cpu_pct=%.2f "
	       "p50_us=%.1f p99_us=%.1f max_us=%.1f\n",
	       no_tick ? "no-tick" : "tick", n, (unsigned long long)nq, 100 * ut / wall, 100 * st / wall,
	       100 * (ut + st) / wall, (double)lat[nq / 2] / 1e3,
	       (double)lat[nq * 99 / 100] / 1e3, (double)lat[nq - 1] / 1e3);
	return 0;
}
