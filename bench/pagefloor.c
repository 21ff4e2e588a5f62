/*
 * pagefloor.c - asteal-pagefloor: what the quantum exchange through pages
 * costs on this machine with no scheduler behind it, the floor under
 * asteald's "page" rows in bench/daemon.sh as asteal-wirefloor is the
 * floor under its socket rows.
 *
 *   asteal-pagefloor [--jobs N] [--seconds S] [--quantum-us L]
 *                    [--offset-us O] [--rate R] [--seed N]
 *
 * A "daemon" process creates N pages as asteald does (a memfd of
 * PAGE_BYTES each, mapped shared, page_init), and a "jobs" process it
 * forks shares them.  Quanta are global on CLOCK_MONOTONIC: quantum q is
 * [t0 + q L, t0 + (q+1) L).
 *   Jobs process.  One absolute timerfd fires at every boundary t0 + q L;
 *   for every job it writes a Feedback into the job's page
 *   (page_feed_write: the quantum closed, a desire that changes with
 *   probability R per quantum, usage totals that grow), as libasteal's
 *   link thread does at its boundary, and nothing more.
 *   Daemon process.  Its own absolute timerfd, due at t0 + q L + O; at
 *   each tick it reads every page (page_feed_read, the copy under the
 *   sequence count asteald's tick makes), and for each job whose desire
 *   changed writes an allotment (page_allot_write: a new generation, the
 *   stop words and the bells of the slots that changed; nobody waits on
 *   them, so no futex wake).  No DEQ, no history, no libevent, no checks.
 * So asteald cannot spend less on the same exchange: its figures are
 * these plus its own work (the page's checks, DEQ, the history, the
 * loop).  Printed, one line of key=value: the daemon process's user,
 * system and total CPU (getrusage RUSAGE_SELF) as a share of one core
 * over the run, its tick time p50/p99/max (timer read to the last page
 * written), its timer lateness p99, pages read and written per tick.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "page.h"
#include "qtime.h"
#include "search.h"

/* The run's settings. */
struct floor_args {
	int jobs;
	double seconds, rate;
	uint64_t length_ns, offset_ns, seed;
};

/* A timerfd firing at at_ns and every length_ns after, or -1. */
static int grid_timer(uint64_t at_ns, uint64_t length_ns)
{
	struct itimerspec it;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	if (fd < 0)
		return -1;
	it.it_value.tv_sec = (time_t)(at_ns / 1000000000u);
	it.it_value.tv_nsec = (long)(at_ns % 1000000000u);
	it.it_interval.tv_sec = (time_t)(length_ns / 1000000000u);
	it.it_interval.tv_nsec = (long)(length_ns % 1000000000u);
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &it, NULL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The next pseudo-random number of *x (xorshift64*). */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1Dull;
}

/* The jobs process: a Feedback into every page at every boundary until
 * end_ns; exits. */
static void run_jobs(struct page **pg, const struct floor_args *a,
                     uint64_t t0, uint64_t end_ns)
{
	uint64_t x = a->seed | 1, q = 1, fired;
	uint32_t *desire = calloc((size_t)a->jobs, sizeof(*desire));
	int tfd = grid_timer(t0 + a->length_ns, a->length_ns);

	if (desire == NULL || tfd < 0)
		_exit(1);
	while (qtime_now_ns() < end_ns) {
		if (read(tfd, &fired, sizeof(fired)) != (ssize_t)sizeof(fired)) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		q += fired;                     /* missed boundaries: skipped */
		for (int j = 0; j < a->jobs; j++) {
			struct exchange_feedback f;

			if (desire[j] == 0 || (double)(rnd(&x) >> 11) / 9007199254740992.0 < a->rate)
				desire[j] = 1 + (uint32_t)(rnd(&x) % 8);
			memset(&f, 0, sizeof(f));
			f.quantum = q - 1;
			f.desire = desire[j];
			f.desire_real = desire[j];
			f.cls = 1;
			for (int k = 0; k < USAGE_N; k++)
				f.use.ns[k] = q * 1000u * (unsigned)(k + 1);
			page_feed_write(pg[j], &f);
		}
	}
	_exit(0);
}

/* The p-th fraction of n sorted values. */
static double pct(const uint64_t *v, size_t n, double p)
{
	return n == 0 ? 0 : (double)v[(size_t)(p * (double)(n - 1))];
}

/* Parse the command line into *a: 0, or -1 with a usage line printed. */
static int parse(int argc, char **argv, struct floor_args *a)
{
	a->jobs = 100;
	a->seconds = 10;
	a->rate = 0.1;
	a->length_ns = 10000000;
	a->offset_ns = 1000000;
	a->seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		double d = v != NULL ? strtod(v, &end) : 0;

		if (v == NULL || end == v || *end != '\0' || d < 0)
			goto usage;
		if (strcmp(argv[i], "--jobs") == 0 && d >= 1 && d <= PAGE_SLOTS * 64)
			a->jobs = (int)d;
		else if (strcmp(argv[i], "--seconds") == 0 && d > 0)
			a->seconds = d;
		else if (strcmp(argv[i], "--quantum-us") == 0 && d >= 100)
			a->length_ns = (uint64_t)(d * 1000);
		else if (strcmp(argv[i], "--offset-us") == 0)
			a->offset_ns = (uint64_t)(d * 1000);
		else if (strcmp(argv[i], "--rate") == 0 && d <= 1)
			a->rate = d;
		else if (strcmp(argv[i], "--seed") == 0)
			a->seed = (uint64_t)d;
		else
			goto usage;
		i++;
	}
	if (a->offset_ns < a->length_ns)
		return 0;
usage:
	fprintf(stderr, "usage: asteal-pagefloor [--jobs N] [--seconds S] "
	        "[--quantum-us L] [--offset-us O] [--rate R] [--seed N]\n");
	return -1;
}

/* Map n fresh pages, as asteald makes them: NULL on failure. */
static struct page **make_pages(int n)
{
	struct page **pg = calloc((size_t)n, sizeof(*pg));

	for (int j = 0; pg != NULL && j < n; j++) {
		int fd = memfd_create("asteal-pagefloor", MFD_CLOEXEC);

		if (fd < 0 || ftruncate(fd, PAGE_BYTES) < 0)
			return NULL;
		pg[j] = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (pg[j] == MAP_FAILED)
			return NULL;
		page_init(pg[j]);
	}
	return pg;
}

/* The daemon process's ticks, then the figures. */
int main(int argc, char **argv)
{
	struct floor_args a;
	struct page **pg;
	struct page_allotment *al;
	uint64_t t0, end, fired, *ticks, *late, nticks = 0, read_n = 0, written = 0;
	int64_t *seen;
	uint32_t *gen, *had;
	size_t cap;
	struct rusage r0, r1;
	pid_t jobs;
	int tfd, status;

	if (parse(argc, argv, &a) < 0)
		return 2;
	pg = make_pages(a.jobs);
	cap = (size_t)(a.seconds * 1e9 / (double)a.length_ns) + 16;
	ticks = calloc(cap, sizeof(*ticks));
	late = calloc(cap, sizeof(*late));
	seen = calloc((size_t)a.jobs, sizeof(*seen));
	gen = calloc((size_t)a.jobs, sizeof(*gen));
	had = calloc((size_t)a.jobs, sizeof(*had));
	al = calloc(1, sizeof(*al));
	if (pg == NULL || ticks == NULL || late == NULL || seen == NULL ||
	    gen == NULL || had == NULL || al == NULL) {
		perror("asteal-pagefloor: setting up");
		return 1;
	}
	t0 = qtime_now_ns() + 50000000;                /* both start on the grid */
	end = t0 + (uint64_t)(a.seconds * 1e9);
	if ((jobs = fork()) < 0) {
		perror("asteal-pagefloor: fork");
		return 1;
	}
	if (jobs == 0)
		run_jobs(pg, &a, t0, end);
	tfd = grid_timer(t0 + a.length_ns + a.offset_ns, a.length_ns);
	if (tfd < 0) {
		perror("asteal-pagefloor: timerfd");
		kill(jobs, SIGKILL);
		return 1;
	}
	getrusage(RUSAGE_SELF, &r0);
	for (uint64_t due = t0 + a.length_ns + a.offset_ns; qtime_now_ns() < end;) {
		uint64_t begun;

		if (read(tfd, &fired, sizeof(fired)) != (ssize_t)sizeof(fired))
			continue;
		begun = qtime_now_ns();
		due += (fired - 1) * a.length_ns;
		for (int j = 0; j < a.jobs; j++) {
			struct exchange_feedback f;
			int64_t s = page_feed_read(pg[j], &f);

			if (s <= 0 || s == seen[j])
				continue;
			seen[j] = s;
			read_n++;
			if (f.desire == had[j])
				continue;
			al->quantum = f.quantum + 1;
			al->allotment = (int)(f.desire < 2 ? f.desire : 2);
			al->availability = 2;
			al->ncpus = al->allotment;
			for (int i = 0; i < al->ncpus; i++)
				al->cpus[i] = i;
			al->decided_ns = begun;
			gen[j] += 2;
			page_allot_write(pg[j], gen[j], al, (int)(had[j] < 2 ? had[j] : 2));
			had[j] = f.desire;
			written++;
		}
		if (nticks < cap) {
			late[nticks] = begun > due ? begun - due : 0;
			ticks[nticks++] = qtime_now_ns() - begun;
		}
		due += a.length_ns;
	}
	getrusage(RUSAGE_SELF, &r1);
	waitpid(jobs, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "asteal-pagefloor: the jobs process failed\n");
		return 1;
	}
	{
		double user = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) * 1e6 +
		              (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec);
		double sys = (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e6 +
		             (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
		double span = a.seconds * 1e6, n = nticks > 0 ? (double)nticks : 1;

		qsort(ticks, nticks, sizeof(*ticks), search_cmp_u64);
		qsort(late, nticks, sizeof(*late), search_cmp_u64);
		printf("jobs=%d ticks=%llu user_pct=%.2f sys_pct=%.2f cpu_pct=%.2f "
		       "tick_p50_us=%.1f tick_p99_us=%.1f tick_max_us=%.1f "
		       "wake_p99_us=%.1f pages_read_per_tick=%.2f sends_per_tick=%.2f\n",
		       a.jobs, (unsigned long long)nticks, 100 * user / span,
		       100 * sys / span, 100 * (user + sys) / span,
		       pct(ticks, nticks, 0.5) / 1e3, pct(ticks, nticks, 0.99) / 1e3,
		       nticks ? (double)ticks[nticks - 1] / 1e3 : 0,
		       pct(late, nticks, 0.99) / 1e3, (double)read_n / n,
		       (double)written / n);
	}
	return 0;
}
