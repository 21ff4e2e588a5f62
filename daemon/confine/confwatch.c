/*
 * confwatch.c - the confinement's watcher thread (see confine.c for the
 * design): each pass moves the trees of jobs whose cgroup folders were
 * just made into them (the root first), sweeps the trees of the jobs held by affinity, and
 * releases the removed jobs; once a second it samples the jobs' CPU time
 * (jobtime.c) and removes the cgroup folders that are empty now.  It
 * passes every sweep period while a job is held by affinity, else when
 * woken (confine__kick) or for the sample.
 *
 * What a sweep costs: a walk of the tree (per process, its task folder
 * and each thread's children list, and each child's stat line), then per
 * thread one sched_getaffinity, and a sched_setaffinity for a thread that
 * is outside the set.  Measured on the 2-CPU test machine, nothing to
 * change: about 35 us a job plus 4.5-8 us a thread (a process of 400
 * threads: 1.8 ms; 100 processes of 4: 3.3 ms), so with a 10 ms quantum
 * 400 threads held by affinity take about a fifth of a CPU.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "confine_int.h"
#include "cpuset.h"
#include "jobtime.h"
#include "log.h"
#include "proctree.h"
#include "qtime.h"

/* A process's start time + 1, or 0 when it does not exist. */
uint64_t confine__root_start(pid_t pid)
{
	struct proctree_stat st;

	if (proctree_stat(pid, 0, &st) < 0)
		return 0;
	return st.start_ticks + 1;      /* 0 means none */
}

/* Walk root's tree into cf->pids, growing it, visiting each process:
 * the count, or -1 with errno (ESRCH: the root is gone, or not the job's
 * any more). */
static int walk(struct confine *cf, pid_t root, uint64_t root_start,
                int (*visit)(pid_t pid, void *arg), void *arg)
{
	for (;;) {
		int n = proctree_visit(root, cf->pids, cf->maxpids, visit, arg);

		if (n < 0 && errno == ERANGE && cf->maxpids < CONFINE_WALK_MAX) {
			pid_t *p = realloc(cf->pids, 2 * (size_t)cf->maxpids *
					   sizeof(*p));

			if (p == NULL)
				return -1;
			cf->pids = p;
			cf->maxpids *= 2;
			continue;
		}
		if (n >= 0 && confine__root_start(root) != root_start) {
			errno = ESRCH;
			return -1;
		}
		return n;
	}
}

/* Process pid's threads into cf->tids, growing it: the count, or -1. */
static int threads(struct confine *cf, pid_t pid)
{
	for (;;) {
		int n = proctree_threads(pid, cf->tids, cf->maxtids);

		if (n < 0 && errno == ERANGE && cf->maxtids < CONFINE_WALK_MAX) {
			pid_t *p = realloc(cf->tids, 2 * (size_t)cf->maxtids *
					   sizeof(*p));

			if (p == NULL)
				return -1;
			cf->tids = p;
			cf->maxtids *= 2;
			continue;
		}
		return n;
	}
}

/* What a sweep of one job came to. */
enum sweep_end { SWEEP_DONE, SWEEP_STALE, SWEEP_GONE, SWEEP_FAILED };

/* Give every thread of the tree the set want when its mask is not a
 * subset of it (exact: when it differs), unless the job's generation
 * moves past gen; a reason in why when it fails. */
static enum sweep_end sweep(struct confine *cf, struct confine_job *j, pid_t root,
                            uint64_t root_start, const cpu_set_t *want,
                            int exact, uint64_t gen, char *why, size_t whylen)
{
	size_t sz = cf->setsize;
	int n = walk(cf, root, root_start, NULL, NULL);

	if (n < 0)
		return errno == ESRCH ? SWEEP_GONE : SWEEP_DONE;
	for (int i = 0; i < n; i++) {
		int nt = threads(cf, cf->pids[i]);

		for (int t = 0; t < nt; t++) {
			pid_t tid = cf->tids[t];
			int err;

			if (sched_getaffinity(tid, sz, cf->have) < 0)
				continue;       /* ended */
			if (exact) {
				if (CPU_EQUAL_S(sz, cf->have, want))
					continue;
			} else {
				CPU_AND_S(sz, cf->tmp, cf->have, want);
				if (CPU_EQUAL_S(sz, cf->tmp, cf->have))
					continue;
			}
			if (gen != atomic_load(&j->gen))
				return SWEEP_STALE;
			if (sched_setaffinity(tid, sz, want) == 0 || errno == ESRCH)
				continue;
			err = errno;
			if (err == EPERM) {
				snprintf(why, whylen, "sched_setaffinity: %s (needs CAP_SYS_NICE)",
					 strerror(err));
			} else if (err == EINVAL) {
				snprintf(why, whylen, "sched_setaffinity: %s (thread %d's cpuset has none of the CPUs)",
					 strerror(err), (int)tid);
			} else {
				snprintf(why, whylen, "sched_setaffinity: %s", strerror(err));
			}
			return SWEEP_FAILED;
		}
	}
	return SWEEP_DONE;
}

/* What moving a tree's processes into a job's folder met. */
struct move_ctx {
	struct confine *cf;
	uint64_t id;
	pid_t root;
	uint64_t root_start;
	int err;                   /* the first refusal's errno, or 0 */
	int root_refused;          /* the refusal was the root's */
	char why[CONFINE_WHY];
};

/* Move process pid into the job's folder (a proctree_visit callback):
 * the root first, which must still be the job's and be let in (else -1,
 * ending the walk); then each descendant, a refusal noted. */
static int move_one(pid_t pid, void *arg)
{
	struct move_ctx *m = arg;
	char why[CONFINE_WHY];

	if (pid == m->root && confine__root_start(pid) != m->root_start) {
		errno = ESRCH;
		return -1;
	}
	if (cpuset_job_attach(m->cf->cs, m->id, pid, why, sizeof(why)) == 0)
		return 0;
	if (errno == ESRCH)
		return pid == m->root ? -1 : 0;
	if (m->err == 0) {
		m->err = errno;
		snprintf(m->why, sizeof(m->why), "%s", why);
	}
	if (pid != m->root)
		return 0;
	m->root_refused = 1;
	return -1;
}

/* One job's work for a pass, copied under mu. */
struct task {
	struct confine_job *j;
	uint64_t id;
	pid_t root;
	uint64_t root_start;
	uint64_t gen;
	int move, sweep, release, release_aff, exact;
	cpu_set_t *set;            /* a copy of the job's set (sweep) */
};

/* Copy the work of this pass into a fresh array (under mu): its length
 * in *n, NULL when there is none or no memory. */
static struct task *tasks_of(struct confine *cf, int *n)
{
	struct task *tk = NULL;
	int cap = 0;

	*n = 0;
	for (struct confine_job *j = cf->jobs; j != NULL; j = j->next) {
		struct task t = { .j = j, .id = j->id, .root = j->root,
		                  .root_start = j->root_start,
		                  .gen = atomic_load(&j->gen) };
		int live = j->enforce && !j->gone && !j->failed;

		if (j->removed) {
			if (j->released)
				continue;
			t.release = 1;
			t.release_aff = live && j->aff && j->has_set;
		} else {
			t.move = live && j->cg_made && j->move_pending;
			t.sweep = live && j->aff && j->has_set;
			t.exact = j->exact;
			if (!t.move && !t.sweep)
				continue;
		}
		if (*n == cap) {
			struct task *x;

			cap = cap ? 2 * cap : 16;
			x = realloc(tk, (size_t)cap * sizeof(*x));
			if (x == NULL)
				break;
			tk = x;
		}
		if (t.sweep) {
			t.set = CPU_ALLOC(cf->setsize * 8);
			if (t.set == NULL)
				continue;
			memcpy(t.set, j->set, cf->setsize);
		}
		tk[(*n)++] = t;
	}
	return tk;
}

/* Note job j's failure, logging it once (under mu). */
static void job_failed(struct confine_job *j, const char *why)
{
	j->failed = 1;
	snprintf(j->why, sizeof(j->why), "%s", why);
	if (!j->warned) {
		j->warned = 1;
		log_warn("confine: job %llu: %s", (unsigned long long)j->id, why);
	}
}

/* One pass: move descendants into new folders, sweep the jobs held by
 * affinity, release the removed jobs.  Whether any job was swept. */
static int pass(struct confine *cf)
{
	struct task *tk;
	int n, swept = 0;

	pthread_mutex_lock(&cf->mu);
	tk = tasks_of(cf, &n);
	pthread_mutex_unlock(&cf->mu);
	for (int i = 0; i < n; i++) {
		struct task *t = &tk[i];
		struct confine_job *j = t->j;
		char why[CONFINE_WHY];
		enum sweep_end e = SWEEP_DONE;

		if (t->move) {
			struct move_ctx m = { .cf = cf, .id = t->id, .root = t->root,
			                      .root_start = t->root_start };
			int r = walk(cf, t->root, t->root_start, move_one, &m);
			int err = errno;

			pthread_mutex_lock(&cf->mu);
			j->move_pending = 0;
			if (r < 0 && m.root_refused) {
				/* The whole job on affinity; its folder goes. */
				log_info("confine: job %llu: %s; held by sched_setaffinity instead",
					 (unsigned long long)t->id, m.why);
				(void)cpuset_job_remove(cf->cs, t->id);
				j->use_cg = 0;
				j->cg_made = 0;
				j->aff = 1;
				confine__kick(cf);
			} else if (r < 0 && err == ESRCH) {
				j->gone = 1;
			} else if (m.err != 0 && !j->aff) {
				log_info("confine: job %llu: %s; held by sched_setaffinity as well",
					 (unsigned long long)t->id, m.why);
				j->aff = 1;
				confine__kick(cf);
			}
			pthread_mutex_unlock(&cf->mu);
		}
		if (t->sweep) {
			e = sweep(cf, j, t->root, t->root_start, t->set, t->exact,
				  t->gen, why, sizeof(why));
			swept = 1;
			pthread_mutex_lock(&cf->mu);
			if (e == SWEEP_DONE && t->exact && atomic_load(&j->gen) == t->gen)
				j->exact = 0;   /* given exactly once */
			if (e == SWEEP_GONE)
				j->gone = 1;
			else if (e == SWEEP_FAILED)
				job_failed(j, why);
			else if (e == SWEEP_STALE)
				confine__kick(cf);
			pthread_mutex_unlock(&cf->mu);
		}
		if (t->release_aff)
			(void)sweep(cf, j, t->root, t->root_start, cf->release, 1,
				    t->gen, why, sizeof(why));
		if (t->release) {
			pthread_mutex_lock(&cf->mu);
			j->released = 1;
			if (!j->cg_made)
				confine__job_free(cf, j);
			pthread_mutex_unlock(&cf->mu);
		}
		CPU_FREE(t->set);
	}
	free(tk);
	if (swept) {
		pthread_mutex_lock(&cf->mu);
		cf->sweeps++;
		pthread_mutex_unlock(&cf->mu);
	}
	return swept;
}

/* Remove the folders of released jobs and leftovers that are empty now,
 * but those of a live job of the same id (under mu, so that such a job
 * cannot come between the check and the removal). */
static void tidy_folders(struct confine *cf)
{
	struct confine_job *j, *nx;

	if (cf->cs == NULL)
		return;
	for (j = cf->jobs; j != NULL; j = nx) {
		nx = j->next;
		if (j->removed && j->released && confine__find(cf, j->id) == NULL &&
		    cpuset_job_remove(cf->cs, j->id) == 0)
			confine__job_free(cf, j);
	}
	for (int i = 0; i < cf->nleft;) {
		if (confine__find(cf, cf->left[i]) == NULL &&
		    cpuset_job_remove(cf->cs, cf->left[i]) == 0)
			cf->left[i] = cf->left[--cf->nleft];
		else
			i++;
	}
}

/* A job as the sampler sees it. */
struct sampled {
	struct confine_job *j;
	pid_t root;
	uint64_t root_start;
	int gone, ok;
	uint64_t total;
};

/* Sample the jobs' CPU time and the others' share of each CPU. */
static void sample(struct confine *cf)
{
	struct sampled *s = NULL;
	int n = 0, cap = 0, k;

	pthread_mutex_lock(&cf->mu);
	for (struct confine_job *j = cf->jobs; j != NULL; j = j->next) {
		if (j->removed || j->gone)
			continue;
		if (n == cap) {
			struct sampled *x;

			cap = cap ? 2 * cap : 16;
			x = realloc(s, (size_t)cap * sizeof(*x));
			if (x == NULL)
				break;
			s = x;
		}
		s[n++] = (struct sampled){ .j = j, .root = j->root,
		                           .root_start = j->root_start };
	}
	pthread_mutex_unlock(&cf->mu);
	jobtime_begin(cf->jt, qtime_now_ns());
	for (int i = 0; i < n; i++) {
		int m = walk(cf, s[i].root, s[i].root_start, NULL, NULL);

		if (m < 0) {
			s[i].gone = errno == ESRCH;
			continue;
		}
		jobtime_add(cf->jt, cf->pids, m, &s[i].total);
		s[i].ok = 1;
	}
	k = jobtime_end(cf->jt, cf->share);
	pthread_mutex_lock(&cf->mu);
	for (int i = 0; i < n; i++) {
		struct confine_job *j = s[i].j;

		if (s[i].gone)
			j->gone = 1;
		if (s[i].ok && s[i].total > j->usage_ns)
			j->usage_ns = s[i].total;
	}
	if (k > 0) {
		memcpy(cf->others, cf->share, (size_t)k * sizeof(*cf->others));
		cf->others_ok = 1;
	}
	pthread_mutex_unlock(&cf->mu);
	free(s);
}

/* The first instant of the sampling grid after now. */
uint64_t confine_sample_after(uint64_t ticks_ns, uint64_t quantum_ns, uint64_t now)
{
	uint64_t L = quantum_ns, every, k;

	if (ticks_ns == 0 || L == 0)
		return now + CONFINE_SAMPLE_NS;
	if (now < ticks_ns + L / 2)
		return ticks_ns + L / 2;
	every = (CONFINE_SAMPLE_NS + L / 2) / L * L;
	if (every == 0)
		every = L;
	k = (now - ticks_ns - L / 2) / every + 1;
	return ticks_ns + L / 2 + k * every;
}

/* The watcher: passes every quantum (or when kicked) while a job is held
 * by affinity, else when kicked; a sample and a tidy every second,
 * between ticks once the daemon's grid is known. */
void *confine__watcher(void *arg)
{
	struct confine *cf = arg;
	uint64_t next_sample = qtime_now_ns(), grid = 0;
	struct sched_param sp = { .sched_priority = 0 };

	/* An ordinary thread: the daemon may be real-time (asteald
	 * --rt-priority), and /proc walks must not preempt the jobs. */
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	pthread_mutex_lock(&cf->mu);
	while (!cf->stop) {
		uint64_t now, until;
		struct timespec ts;
		int swept;

		cf->kick = 0;
		pthread_mutex_unlock(&cf->mu);
		swept = pass(cf);
		now = qtime_now_ns();
		if (now >= next_sample) {
			sample(cf);
			pthread_mutex_lock(&cf->mu);
			tidy_folders(cf);
			next_sample = confine_sample_after(cf->grid_t0, cf->quantum_ns,
			                                   qtime_now_ns());
			pthread_mutex_unlock(&cf->mu);
		}
		pthread_mutex_lock(&cf->mu);
		if (cf->grid_t0 != grid) {      /* the grid just came */
			grid = cf->grid_t0;
			next_sample = confine_sample_after(cf->grid_t0, cf->quantum_ns, now);
		}
		until = next_sample;
		if (swept && now + cf->period_ns < until)
			until = now + cf->period_ns;
		ts.tv_sec = (time_t)(until / CONFINE_NS_PER_S);
		ts.tv_nsec = (long)(until % CONFINE_NS_PER_S);
		while (!cf->stop && !cf->kick && qtime_now_ns() < until)
			if (pthread_cond_timedwait(&cf->cv, &cf->mu, &ts) == ETIMEDOUT)
				break;
	}
	pthread_mutex_unlock(&cf->mu);
	return NULL;
}

/* Give every thread of job j's tree the release set. */
void confine__release(struct confine *cf, struct confine_job *j)
{
	char why[CONFINE_WHY];

	(void)sweep(cf, j, j->root, j->root_start, cf->release, 1,
		    atomic_load(&j->gen), why, sizeof(why));
}
