/*
 * pageattack.c - hostile jobs against asteald's pages (proto/page.h), for
 * tests/test_page_hostile.c and bench/pagehostile.sh: for SECONDS, on the
 * daemon at SOCKET,
 *
 *   steady   one job (page_allot, 4 workers) that stays connected: a
 *            process writes random bytes at full speed over every part
 *            of its page but the feed and the parked record (the header,
 *            the daemon's allot part and its generation, the stop words,
 *            the bells) and keeps the feed's count odd (torn); another
 *            signals its eventfd in a tight loop with no new record.
 *            Nothing of it is news the daemon may take, so it must be
 *            neither served nor dropped: ignored.
 *   rotating jobs one after another (page_allot, 4 workers), each with
 *            one attack until the daemon drops it or 100 ms pass: random
 *            bytes over the whole page with its eventfd signalled; a
 *            desire_real of NaN; a negative one; a huge desire; usage
 *            going backwards; a parked record naming quanta that never
 *            were, signalled in a tight loop; the feed's count torn at
 *            random while its fields change; a generation and stop words
 *            it has no business writing.
 *
 * It prints one line, "pageattack: N jobs, D dropped by the daemon, E
 * eventfd signals, W MB written; steady connected|dropped", and exits 0
 * when the steady job was still connected at the end, 1 otherwise, 2 on
 * a failure of its own (no daemon, no page).
 *
 * With PAGEATTACK_ONLY=steady or =rotating in the environment, only that
 * part runs (bench/pagehostile.sh measures each apart).
 *
 *   pageattack SOCKET SECONDS
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frame.h"
#include "page.h"
#include "qtime.h"

#define NCASES 8

/* A hostile job's connection and page. */
struct hostile {
	int fd, wake;
	struct frame_reader *r;
	struct page *pg;
	uint64_t t0, L;
};

/* xorshift64: the next random word. */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Connect as a page_allot job and map its page: 0, or -1. */
static int hostile_open(const char *path, struct hostile *h)
{
	struct sockaddr_un sa;
	Asteal__Envelope env, *m = NULL;
	Asteal__Hello hello;
	int passed[2] = { -1, -1 };
	uint64_t end = qtime_now_ns() + 5000000000ull;

	memset(h, 0, sizeof(*h));
	h->wake = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	h->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	h->r = frame_reader_new();
	if (h->fd < 0 || h->r == NULL ||
	    connect(h->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	frame_hello(&env, &hello, ASTEAL__ROLE__JOB, "pageattack", 4, "pageattack",
	            "pageattack");
	hello.page = 1;
	hello.page_allot = 1;
	if (frame_write_fd(h->fd, &env) < 0)
		return -1;
	while (frame_reader_next(h->r, &m) == 0) {
		struct pollfd pf = { .fd = h->fd, .events = POLLIN };

		if (qtime_now_ns() > end)
			return -1;
		if (poll(&pf, 1, 100) > 0 &&
		    frame_reader_fill_fd(h->r, h->fd, passed, 2) <= 0)
			return -1;
	}
	if (m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_WELCOME ||
	    !m->welcome->page || passed[0] < 0 || passed[1] < 0) {
		frame_free(m);
		return -1;
	}
	h->t0 = m->welcome->t0_ns;
	h->L = (uint64_t)m->welcome->quantum_us * 1000u;
	frame_free(m);
	h->wake = passed[1];
	h->pg = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, passed[0], 0);
	close(passed[0]);
	if (h->pg == MAP_FAILED) {
		h->pg = NULL;
		return -1;
	}
	return 0;
}

/* Close it. */
static void hostile_close(struct hostile *h)
{
	if (h->pg != NULL)
		munmap(h->pg, PAGE_BYTES);
	if (h->wake >= 0)
		close(h->wake);
	if (h->fd >= 0)
		close(h->fd);
	frame_reader_free(h->r);
}

/* Read what the daemon sent: 1 while connected, 0 once it closed. */
static int hostile_alive(struct hostile *h)
{
	struct pollfd pf = { .fd = h->fd, .events = POLLIN };
	char buf[4096];

	while (poll(&pf, 1, 0) > 0) {
		ssize_t n = recv(h->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return 0;
		if (n < 0)
			break;
	}
	return 1;
}

/* The quantum before the one running now. */
static uint64_t last_q(const struct hostile *h)
{
	uint64_t now = qtime_now_ns(), q = now > h->t0 ? (now - h->t0) / h->L : 0;

	return q > 0 ? q - 1 : 0;
}

/* A Feedback closing the last quantum, every usage total u. */
static void feed(struct hostile *h, uint32_t desire, double real, uint64_t u)
{
	struct exchange_feedback f;

	memset(&f, 0, sizeof(f));
	f.quantum = last_q(h);
	f.desire = desire;
	f.desire_real = real;
	f.cls = 0;
	for (int k = 0; k < USAGE_N; k++)
		f.use.ns[k] = u;
	page_feed_write(h->pg, &f);
}

/* Signal the eventfd once; the count of signals. */
static uint64_t ring(struct hostile *h)
{
	uint64_t one = 1;

	return write(h->wake, &one, sizeof(one)) == (ssize_t)sizeof(one);
}

/* One step of attack k on h (x: the random state): the bytes written. */
static uint64_t step(struct hostile *h, int k, uint64_t *x, uint64_t *signals)
{
	volatile uint64_t *w = (volatile uint64_t *)(void *)h->pg;
	volatile uint32_t *seq = &h->pg->feed.seq;

	switch (k) {
	case 0:                         /* random bytes everywhere */
		for (int i = 0; i < 256; i++) {
			uint64_t v = rnd(x);

			w[v % (PAGE_BYTES / 8)] = v;
		}
		*signals += ring(h);
		return 256 * 8;
	case 1:
		feed(h, 1, NAN, 0);
		return sizeof(h->pg->feed);
	case 2:
		feed(h, 1, -1.0, 0);
		return sizeof(h->pg->feed);
	case 3:
		feed(h, UINT32_MAX, 1e300, 0);
		return sizeof(h->pg->feed);
	case 4:                         /* usage going back a quantum later */
		feed(h, 1, 1.0, last_q(h) % 2 == 0 ? 1000000 : 10);
		return sizeof(h->pg->feed);
	case 5:                         /* a revocation of a quantum to come */
		page_parked_write(h->pg, last_q(h) + 1000000 + (rnd(x) & 0xffff),
		                  qtime_now_ns(), 1);
		*signals += ring(h);
		return sizeof(h->pg->parked);
	case 6:                         /* torn counts, fields changing */
		*seq = (uint32_t)rnd(x);
		for (size_t i = 1; i < sizeof(h->pg->feed) / 8; i++)
			w[offsetof(struct page, feed) / 8 + i] = rnd(x);
		return sizeof(h->pg->feed);
	default:                        /* the daemon's own generation */
		h->pg->allot.seq = (uint32_t)rnd(x);
		h->pg->allot.allotment = (uint32_t)rnd(x);
		for (int i = 0; i < PAGE_SLOTS; i++)
			h->pg->stop[i] = 0;
		return sizeof(h->pg->allot) + sizeof(h->pg->stop);
	}
}

/* The steady job's writer: everything but the feed and the parked record,
 * the feed's count odd, until the deadline. */
static void steady_write(struct hostile *h, uint64_t until)
{
	volatile uint64_t *w = (volatile uint64_t *)(void *)h->pg;
	size_t lo = offsetof(struct page, feed) / 8;
	size_t hi = (offsetof(struct page, parked) + sizeof(struct page_parked) + 7) / 8;
	uint64_t x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull | 1;

	while (qtime_now_ns() < until) {
		for (int i = 0; i < 4096; i++) {
			uint64_t v = rnd(&x);
			size_t at = v % (PAGE_BYTES / 8);

			if (at >= lo && at < hi)
				continue;
			w[at] = v;
		}
		__atomic_store_n(&h->pg->feed.seq, 1, __ATOMIC_RELAXED);
	}
}

/* The steady job, as a child: 0 when it is still connected at the end. */
static int steady(const char *path, uint64_t until)
{
	struct hostile h;
	pid_t ringer, writer;
	int alive = 1;

	if (hostile_open(path, &h) < 0)
		return 2;
	__atomic_store_n(&h.pg->feed.seq, 1, __ATOMIC_RELAXED);
	ringer = fork();
	if (ringer == 0) {
		uint64_t n = 0;

		while (qtime_now_ns() < until)
			n += ring(&h);
		_exit(0);
	}
	writer = fork();
	if (writer == 0) {
		steady_write(&h, until);
		_exit(0);
	}
	while (qtime_now_ns() < until && (alive = hostile_alive(&h)))
		(void)poll(NULL, 0, 10);
	if (ringer > 0)
		waitpid(ringer, NULL, 0);
	if (writer > 0)
		waitpid(writer, NULL, 0);
	alive = alive && hostile_alive(&h);
	hostile_close(&h);
	return alive ? 0 : 1;
}

int main(int argc, char **argv)
{
	uint64_t until, jobs = 0, dropped = 0, signals = 0, bytes = 0;
	uint64_t x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull | 1;
	const char *only;
	pid_t st;
	int status = 0, k = 0;

	if (argc != 3 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: pageattack SOCKET SECONDS\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	until = qtime_now_ns() + (uint64_t)(atof(argv[2]) * 1e9);
	only = getenv("PAGEATTACK_ONLY");
	st = only != NULL && strcmp(only, "rotating") == 0 ? 0 : fork();
	if (st < 0)
		return 2;
	if (st == 0 && (only == NULL || strcmp(only, "rotating") != 0))
		_exit(steady(argv[1], until));
	while ((only == NULL || strcmp(only, "steady") != 0) &&
	       qtime_now_ns() < until) {
		struct hostile h;
		uint64_t end = qtime_now_ns() + 100000000ull, n = 0;
		int alive = 1;

		if (hostile_open(argv[1], &h) < 0) {
			hostile_close(&h);
			fprintf(stderr, "pageattack: no job with a page at %s\n", argv[1]);
			if (st > 0) {
				kill(st, SIGKILL);
				waitpid(st, NULL, 0);
			}
			return 2;
		}
		jobs++;
		while (qtime_now_ns() < end && qtime_now_ns() < until) {
			bytes += step(&h, k, &x, &signals);
			if ((++n & 255) == 0 && !(alive = hostile_alive(&h)))
				break;
		}
		dropped += !hostile_alive(&h) || !alive;
		hostile_close(&h);
		k = (k + 1) % NCASES;
	}
	if (st > 0)
		waitpid(st, &status, 0);
	printf("pageattack: %llu jobs, %llu dropped by the daemon, %llu eventfd "
	       "signals, %.1f MB written; steady %s\n", (unsigned long long)jobs,
	       (unsigned long long)dropped, (unsigned long long)signals,
	       (double)bytes / 1e6,
	       WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "connected"
	       : "dropped");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
