/*
 * jobtime.c - the jobs' CPU time per CPU and the others' share (see
 * jobtime.h).
 *
 * Every round keeps each job thread's CPU time by thread id, with its
 * start time (stat field 22) so that a reused id reads as a new thread;
 * the array is sorted by id at the end of the round and searched by the
 * next.  A thread's time since the last round goes whole to the CPU it
 * last ran on (a thread that moved between CPUs within the second puts
 * some on the wrong one; the clamp to [0,1] bounds the error).  A thread
 * the last round did not see counts its whole CPU time, but at most the
 * time between the rounds: exact for a thread born since, an upper bound
 * for the threads of a job added since (its first second then
 * underestimates the others).  Busy time and thread time both come from
 * the kernel's tick-based accounting, in clock ticks (10 ms at 100 Hz),
 * so a second's share is good to about a hundredth.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "jobtime.h"
#include "proctree.h"
#include "search.h"

/* The most thread ids of one process read. */
#define JOBTIME_TIDS_MAX (1 << 20)

/* One thread's time as of a round. */
struct tsamp {
	pid_t tid;
	uint64_t start;
	uint64_t cpu_ns;
};

struct jobtime {
	int *cpus;
	int ncpus;
	uint64_t *busy_prev, *busy_now;  /* per CPU id, CPULIST_MAX */
	uint64_t *jobs_ns;               /* this round's thread deltas per CPU */
	int have_prev, ok_now;
	uint64_t prev_ns, now_ns;
	struct tsamp *prev, *cur;        /* prev sorted by tid */
	size_t nprev, ncur, capprev, capcur;
	pid_t *tids;
	int maxtids;
};

/* A sampler for the managed CPUs. */
struct jobtime *jobtime_create(const int *cpus, int ncpus)
{
	struct jobtime *jt = calloc(1, sizeof(*jt));

	if (jt == NULL)
		return NULL;
	jt->ncpus = ncpus;
	jt->cpus = malloc((size_t)(ncpus > 0 ? ncpus : 1) * sizeof(int));
	jt->busy_prev = calloc(CPULIST_MAX, sizeof(uint64_t));
	jt->busy_now = calloc(CPULIST_MAX, sizeof(uint64_t));
	jt->jobs_ns = calloc(CPULIST_MAX, sizeof(uint64_t));
	jt->maxtids = 256;
	jt->tids = malloc((size_t)jt->maxtids * sizeof(pid_t));
	if (jt->cpus == NULL || jt->busy_prev == NULL || jt->busy_now == NULL ||
	    jt->jobs_ns == NULL || jt->tids == NULL) {
		jobtime_free(jt);
		return NULL;
	}
	for (int i = 0; i < ncpus; i++)
		jt->cpus[i] = cpus[i];
	return jt;
}

/* Free it. */
void jobtime_free(struct jobtime *jt)
{
	if (jt == NULL)
		return;
	free(jt->cpus);
	free(jt->busy_prev);
	free(jt->busy_now);
	free(jt->jobs_ns);
	free(jt->prev);
	free(jt->cur);
	free(jt->tids);
	free(jt);
}

/* Begin a round. */
void jobtime_begin(struct jobtime *jt, uint64_t now_ns)
{
	jt->now_ns = now_ns;
	jt->ok_now = proctree_cpu_busy(jt->busy_now, CPULIST_MAX) >= 0;
	memset(jt->jobs_ns, 0, CPULIST_MAX * sizeof(uint64_t));
	jt->ncur = 0;
}

/* Whether prev[i] sorts before the thread id at key. */
static int tsamp_below(const void *arr, size_t i, const void *key)
{
	return ((const struct tsamp *)arr)[i].tid < *(const pid_t *)key;
}

/* The last round's sample of thread tid, or NULL. */
static const struct tsamp *prev_of(const struct jobtime *jt, pid_t tid)
{
	size_t at = search_first(jt->prev, jt->nprev, &tid, tsamp_below);

	return at < jt->nprev && jt->prev[at].tid == tid ? &jt->prev[at] : NULL;
}

/* Process pid's threads into jt->tids, growing it: the count, or -1. */
static int threads_of(struct jobtime *jt, pid_t pid)
{
	for (;;) {
		int n = proctree_threads(pid, jt->tids, jt->maxtids);

		if (n < 0 && errno == ERANGE && jt->maxtids < JOBTIME_TIDS_MAX) {
			pid_t *p = realloc(jt->tids, 2 * (size_t)jt->maxtids *
					   sizeof(*p));

			if (p == NULL)
				return -1;
			jt->tids = p;
			jt->maxtids *= 2;
			continue;
		}
		return n;
	}
}

/* Keep thread sample s for the next round: 0, or -1 out of memory. */
static int keep(struct jobtime *jt, const struct tsamp *s)
{
	if (jt->ncur == jt->capcur) {
		size_t cap = jt->capcur ? 2 * jt->capcur : 256;
		struct tsamp *c = realloc(jt->cur, cap * sizeof(*c));

		if (c == NULL)
			return -1;
		jt->cur = c;
		jt->capcur = cap;
	}
	jt->cur[jt->ncur++] = *s;
	return 0;
}

/* Add one job's processes to the round. */
void jobtime_add(struct jobtime *jt, const pid_t *pids, int n,
                 uint64_t *total_ns)
{
	uint64_t elapsed = jt->have_prev ? jt->now_ns - jt->prev_ns : 0;

	*total_ns = 0;
	for (int i = 0; i < n; i++) {
		struct proctree_stat st;
		int nt;

		if (proctree_stat(pids[i], 0, &st) < 0)
			continue;               /* ended */
		*total_ns += st.cpu_ns + st.child_ns;
		nt = threads_of(jt, pids[i]);
		for (int t = 0; t < nt; t++) {
			struct tsamp s = { .tid = jt->tids[t] };
			const struct tsamp *p;
			uint64_t d;

			if (proctree_stat(pids[i], s.tid, &st) < 0)
				continue;
			s.start = st.start_ticks;
			s.cpu_ns = st.cpu_ns;
			p = prev_of(jt, s.tid);
			if (p != NULL && p->start == s.start)
				d = s.cpu_ns >= p->cpu_ns ? s.cpu_ns - p->cpu_ns : 0;
			else
				d = s.cpu_ns < elapsed ? s.cpu_ns : elapsed;
			if (st.last_cpu >= 0 && st.last_cpu < CPULIST_MAX)
				jt->jobs_ns[st.last_cpu] += d;
			(void)keep(jt, &s);
		}
	}
}

/* Compare two thread samples by id, for qsort. */
static int cmp_tid(const void *a, const void *b)
{
	pid_t x = ((const struct tsamp *)a)->tid, y = ((const struct tsamp *)b)->tid;

	return x < y ? -1 : x > y;
}

/* End the round. */
int jobtime_end(struct jobtime *jt, double *share)
{
	int n = 0;

	if (jt->ok_now && jt->have_prev && jt->now_ns > jt->prev_ns) {
		double elapsed = (double)(jt->now_ns - jt->prev_ns);

		for (int i = 0; i < jt->ncpus; i++) {
			int c = jt->cpus[i];
			uint64_t busy = jt->busy_now[c] > jt->busy_prev[c] ?
					jt->busy_now[c] - jt->busy_prev[c] : 0;
			double s = ((double)busy - (double)jt->jobs_ns[c]) / elapsed;

			share[i] = s < 0 ? 0 : s > 1 ? 1 : s;
		}
		n = jt->ncpus;
	}
	if (jt->ok_now) {
		uint64_t *b = jt->busy_prev;
		struct tsamp *t = jt->prev;
		size_t cap = jt->capprev;

		jt->busy_prev = jt->busy_now;
		jt->busy_now = b;
		if (jt->ncur > 0)
			qsort(jt->cur, jt->ncur, sizeof(*jt->cur), cmp_tid);
		jt->prev = jt->cur;
		jt->nprev = jt->ncur;
		jt->capprev = jt->capcur;
		jt->cur = t;
		jt->capcur = cap;
		jt->ncur = 0;
		jt->prev_ns = jt->now_ns;
	}
	jt->have_prev = jt->ok_now;
	return n;
}
