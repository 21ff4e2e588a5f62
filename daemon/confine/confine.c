/*
 * confine.c - holding the jobs to their CPU sets, and measuring them (see
 * confine.h).
 *
 * Jobs live in a list (every job, the removed ones until the watcher is
 * done with them) and a hash table by id (the live ones).  The event loop
 * adds, changes and removes jobs under the mutex; only the watcher frees
 * a removed job (confine_free, after joining it, frees the rest), so the
 * watcher may keep pointers to jobs while it works without the mutex: it
 * takes the mutex to copy what it needs (root, set, flags) and again to
 * store what it found, never across a /proc walk or a system call on a
 * job's threads.
 *
 * The mechanisms:
 * - cgroup (cpuset.c): confine_set writes job-<id>/cpuset.cpus itself
 *   (about 10 us), and on its first call makes the folder (about 60 us);
 *   the watcher then walks the tree once, moving each process, the root
 *   first, before reading its children, so that whatever a process forks
 *   from then on is born in the folder (a fork and a move exclude each
 *   other in the kernel).  Moves are the watcher's because each waits for
 *   an RCU grace period (cgroup_threadgroup_rwsem): 8-15 ms measured for a
 *   move after a quiet spell, a whole quantum of the event loop.  The
 *   kernel keeps a thread's own sched_setaffinity mask across changes of
 *   its cpuset where the two overlap, so a worker libasteal pins stays
 *   pinned.  The root refused (another user's process and an
 *   unprivileged daemon: EACCES) puts the job on affinity instead, a
 *   descendant refused puts it on affinity as well.
 * - affinity: every quantum, and at once when a set changes, the watcher
 *   walks every held job's tree and gives each thread whose mask is not a
 *   subset of the set the whole set.  Before each change it checks that
 *   the set it works from is still the job's (confine_set bumps a
 *   generation), so that a worker the job pinned to a CPU just granted is
 *   not put back into the old set.  A set that grows opens nothing to the
 *   threads already within the old one (the job pins its workers to the
 *   new CPUs itself), but for a set given with CONFINE_EXACT (a job that
 *   places no thread itself): its first sweep gives every thread exactly
 *   the set.  EPERM or EINVAL fails the job.
 *
 * Pid reuse: a job's root is known by its pid and its start time (stat
 * field 22); a walk whose root no longer has that start time is dropped
 * and the job's sweeping and sampling end.  The walk checks each child's
 * parent (proctree.c).  What remains: a thread that ends between being
 * listed and its sched_setaffinity, its id reused by another process in
 * those microseconds (the pid space must wrap).  Processes that outlive
 * the root are reparented out of the tree: the affinity sweep loses them
 * (they keep the last set), a cgroup keeps holding them.
 *
 * Sampling, once a second: /proc/stat's busy time per CPU, and every job
 * thread's utime + stime and last CPU, kept by thread id and start time
 * from one sample to the next.  A thread's CPU time since the last sample
 * goes to the CPU it last ran on; a thread not seen last time counts its
 * whole time, but at most the time between the samples (exact for a new
 * thread; for the threads of a job added since, an upper bound, so
 * interference is underestimated for that one second).  A job's usage is
 * the sum over its live processes of utime + stime + cutime + cstime of
 * /proc/P/stat (ended threads and waited-for children included), kept from
 * going back (a child reaped by init, or ending between two samples with
 * its parent not waiting, takes its time along).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confine_int.h"
#include "cpulist.h"
#include "cpuset.h"
#include "jobtime.h"
#include "log.h"
#include "why.h"

/* The hash bucket of id. */
static size_t bucket(const struct confine *cf, uint64_t id)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & (cf->nbuckets - 1);
}

/* The live job id, or NULL (under mu). */
struct confine_job *confine__find(const struct confine *cf, uint64_t id)
{
	if (cf->nbuckets == 0)
		return NULL;
	for (struct confine_job *j = cf->hash[bucket(cf, id)]; j != NULL; j = j->hnext)
		if (j->id == id)
			return j;
	return NULL;
}

/* Put j in the hash table, growing it: 0, or -1 when out of memory. */
static int hash_add(struct confine *cf, struct confine_job *j)
{
	if (cf->count + 1 > cf->nbuckets) {
		size_t nb = cf->nbuckets ? cf->nbuckets * 2 : 64;
		struct confine_job **h = calloc(nb, sizeof(*h)), **old = cf->hash;
		size_t on = cf->nbuckets;

		if (h == NULL)
			return -1;
		cf->hash = h;
		cf->nbuckets = nb;
		for (size_t b = 0; b < on; b++) {
			struct confine_job *x = old[b], *nx;

			for (; x != NULL; x = nx) {
				size_t k = bucket(cf, x->id);

				nx = x->hnext;
				x->hnext = h[k];
				h[k] = x;
			}
		}
		free(old);
	}
	j->hnext = cf->hash[bucket(cf, j->id)];
	cf->hash[bucket(cf, j->id)] = j;
	cf->count++;
	return 0;
}

/* Take j out of the hash table. */
static void hash_del(struct confine *cf, struct confine_job *j)
{
	for (struct confine_job **p = &cf->hash[bucket(cf, j->id)]; *p != NULL;
	     p = &(*p)->hnext) {
		if (*p == j) {
			*p = j->hnext;
			cf->count--;
			return;
		}
	}
}

/* Unlink j from the job list and free it. */
void confine__job_free(struct confine *cf, struct confine_job *j)
{
	if (j->prev != NULL)
		j->prev->next = j->next;
	else
		cf->jobs = j->next;
	if (j->next != NULL)
		j->next->prev = j->prev;
	CPU_FREE(j->set);
	free(j);
}

/* Wake the watcher (under mu). */
void confine__kick(struct confine *cf)
{
	cf->kick = 1;
	pthread_cond_signal(&cf->cv);
}

/* The size of cpu_set_t that holds the kernel's mask: bytes, or 0. */
static size_t kernel_setsize(void)
{
	for (size_t bits = CPULIST_MAX; bits <= (1u << 22); bits *= 2) {
		cpu_set_t *s = CPU_ALLOC(bits);
		size_t sz = CPU_ALLOC_SIZE(bits);
		int r;

		if (s == NULL)
			return 0;
		r = sched_getaffinity(0, sz, s);
		CPU_FREE(s);
		if (r == 0)
			return sz;
		if (errno != EINVAL)
			return 0;
	}
	return 0;
}

/* Choose the mechanism and open the cgroup when there is one: 0, or -1
 * with a reason. */
static int choose(struct confine *cf, enum confine_with with, const char *name,
                  char *why, size_t whylen)
{
	char why2[512] = "", why1[512] = "";

	if (with == CONFINE_WITH_AFFINITY) {
		snprintf(cf->how, sizeof(cf->how), "sched_setaffinity (asked for)");
		return 0;
	}
	cf->cs = cpuset_open(2, name, cf->release_list, why2, sizeof(why2));
	if (cf->cs == NULL)
		cf->cs = cpuset_open(1, name, cf->release_list, why1, sizeof(why1));
	if (cf->cs != NULL) {
		snprintf(cf->how, sizeof(cf->how), "cgroup v%d cpuset %s",
			 cpuset_version(cf->cs), cpuset_path(cf->cs));
		if (cpuset_version(cf->cs) == 1 && *why2 != '\0')
			log_debug("confine: not cgroup v2: %s", why2);
		if (cpuset_swept(cf->cs) > 0)
			log_info("confine: removed the folders of %d dead daemons "
			         "beside %s", cpuset_swept(cf->cs), cpuset_path(cf->cs));
		return 0;
	}
	if (with == CONFINE_WITH_CGROUP)
		return why_fail(why, whylen, 0, "no usable cgroup cpuset: %s; %s", why2, why1);
	snprintf(cf->how, sizeof(cf->how), "sched_setaffinity (no cgroup: %s; %s)",
		 why2, why1);
	return 0;
}

/* Free cf's memory (the watcher stopped or never started, the folders
 * dealt with). */
static void free_memory(struct confine *cf)
{
	jobtime_free(cf->jt);
	free(cf->share);
	CPU_FREE(cf->release);
	CPU_FREE(cf->have);
	CPU_FREE(cf->tmp);
	CPU_FREE(cf->want);
	free(cf->hash);
	free(cf->pids);
	free(cf->tids);
	free(cf->others);
	free(cf->left);
	free(cf);
}

/* Create, choosing the mechanism; start the watcher. */
struct confine *confine_create(enum confine_with with, const char *name,
                               const int *cpus, int ncpus, uint64_t quantum_ns,
                               char *why, size_t whylen)
{
	struct confine *cf;
	int allowed[CPULIST_MAX], na, err;
	pthread_condattr_t ca;

	if (name == NULL || *name == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strlen(name) > 200) {
		why_fail(why, whylen, 0, "bad cgroup name '%.64s'", name ? name : "");
		return NULL;
	}
	if (ncpus < 1 || ncpus > CPULIST_MAX) {
		why_fail(why, whylen, 0, "no CPUs to manage");
		return NULL;
	}
	na = cpulist_allowed(allowed, CPULIST_MAX);
	if (na < 0) {
		why_fail(why, whylen, 0, "sched_getaffinity: %s", strerror(errno));
		return NULL;
	}
	cf = calloc(1, sizeof(*cf));
	if (cf == NULL) {
		why_fail(why, whylen, 0, "out of memory");
		return NULL;
	}
	cf->ncpus = ncpus;
	cf->setsize = kernel_setsize();
	cf->others = calloc((size_t)ncpus, sizeof(double));
	cf->maxpids = cf->maxtids = 256;
	cf->pids = malloc((size_t)cf->maxpids * sizeof(pid_t));
	cf->tids = malloc((size_t)cf->maxtids * sizeof(pid_t));
	if (cf->setsize != 0) {
		cf->release = CPU_ALLOC(cf->setsize * 8);
		cf->have = CPU_ALLOC(cf->setsize * 8);
		cf->tmp = CPU_ALLOC(cf->setsize * 8);
		cf->want = CPU_ALLOC(cf->setsize * 8);
	}
	cf->jt = jobtime_create(cpus, ncpus);
	cf->share = calloc((size_t)ncpus, sizeof(double));
	if (cf->others == NULL || cf->pids == NULL ||
	    cf->tids == NULL || cf->release == NULL || cf->have == NULL ||
	    cf->tmp == NULL || cf->want == NULL || cf->jt == NULL || cf->share == NULL) {
		why_fail(why, whylen, 0, cf->setsize == 0 ? "sched_getaffinity: no mask size fits" :
		     "out of memory");
		goto fail;
	}
	CPU_ZERO_S(cf->setsize, cf->release);
	for (int i = 0; i < na; i++)
		CPU_SET_S((size_t)allowed[i], cf->setsize, cf->release);
	for (int i = 0; i < ncpus; i++) {
		if (cpus[i] < 0 || cpus[i] >= CPULIST_MAX ||
		    !CPU_ISSET_S((size_t)cpus[i], cf->setsize, cf->release)) {
			why_fail(why, whylen, 0, "CPU %d is not among this process's CPUs",
			     cpus[i]);
			goto fail;
		}
	}
	if (cpulist_format(allowed, na, cf->release_list,
			   sizeof(cf->release_list)) < 0) {
		why_fail(why, whylen, 0, "release set too long to write");
		goto fail;
	}
	cf->quantum_ns = quantum_ns;
	cf->period_ns = quantum_ns < CONFINE_SWEEP_MIN_NS ? CONFINE_SWEEP_MIN_NS :
			quantum_ns > CONFINE_SWEEP_MAX_NS ? CONFINE_SWEEP_MAX_NS : quantum_ns;
	if (choose(cf, with, name, why, whylen) < 0)
		goto fail;
	if (cf->cs != NULL) {
		cf->left = malloc(4096 * sizeof(*cf->left));
		if (cf->left == NULL) {
			why_fail(why, whylen, 0, "out of memory");
			goto fail;
		}
		cf->nleft = cpuset_leftovers(cf->cs, cf->left, 4096);
		if (cf->nleft > 0)
			log_info("confine: %d job folders of a previous daemon still have processes; kept in %s",
				 cf->nleft, cpuset_path(cf->cs));
	}
	pthread_mutex_init(&cf->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&cf->cv, &ca);
	pthread_condattr_destroy(&ca);
	if ((err = pthread_create(&cf->thread, NULL, confine__watcher, cf)) != 0) {
		why_fail(why, whylen, 0, "pthread_create: %s", strerror(err));
		pthread_cond_destroy(&cf->cv);
		pthread_mutex_destroy(&cf->mu);
		goto fail;
	}
	return cf;
fail:
	if (cf->cs != NULL)
		(void)cpuset_remove(cf->cs);
	cpuset_close(cf->cs);
	free_memory(cf);
	return NULL;
}

/* Stop the watcher, release every job, move the processes of jobs that
 * outlive the daemon out of their folders (home, cpuset.h: the next
 * daemon holds them again as they reconnect), remove the folders. */
void confine_free(struct confine *cf)
{
	if (cf == NULL)
		return;
	pthread_mutex_lock(&cf->mu);
	cf->stop = 1;
	pthread_cond_signal(&cf->cv);
	pthread_mutex_unlock(&cf->mu);
	pthread_join(cf->thread, NULL);
	while (cf->jobs != NULL) {
		struct confine_job *j = cf->jobs;

		if (j->cg_made) {
			if (!j->released)
				(void)cpuset_job_cpus(cf->cs, j->id, cf->release_list,
						      NULL, 0);
			(void)cpuset_job_evict(cf->cs, j->id);
		}
		if (j->aff && !j->released && j->enforce && !j->gone && !j->failed)
			confine__release(cf, j);
		confine__job_free(cf, j);
	}
	if (cf->cs != NULL) {
		for (int i = 0; i < cf->nleft; i++)
			(void)cpuset_job_evict(cf->cs, cf->left[i]);
		(void)cpuset_remove(cf->cs);
		cpuset_close(cf->cs);
	}
	pthread_cond_destroy(&cf->cv);
	pthread_mutex_destroy(&cf->mu);
	free_memory(cf);
}

/* The mechanism, in words. */
const char *confine_how(const struct confine *cf)
{
	return cf->how;
}

/* Keep the samples away from the ticks, at t0_ns and every quantum after. */
void confine_grid(struct confine *cf, uint64_t t0_ns)
{
	if (cf == NULL)
		return;
	pthread_mutex_lock(&cf->mu);
	cf->grid_t0 = t0_ns;
	cf->kick = 1;
	pthread_cond_signal(&cf->cv);
	pthread_mutex_unlock(&cf->mu);
}

/* Whether the mechanism is a cgroup. */
int confine_is_cgroup(const struct confine *cf)
{
	return cf->cs != NULL;
}

/* A new job. */
int confine_add(struct confine *cf, uint64_t id, pid_t pid, int enforce,
                char *why, size_t whylen)
{
	struct confine_job *j;
	uint64_t start;

	if (pid <= 0)
		return why_fail(why, whylen, 0, "job %llu: bad pid %d",
			    (unsigned long long)id, (int)pid);
	start = confine__root_start(pid);
	pthread_mutex_lock(&cf->mu);
	if (confine__find(cf, id) != NULL) {
		pthread_mutex_unlock(&cf->mu);
		return why_fail(why, whylen, 0, "job %llu is confined already",
			    (unsigned long long)id);
	}
	j = calloc(1, sizeof(*j));
	if (j != NULL) {
		j->id = id;
		j->set = CPU_ALLOC(cf->setsize * 8);
	}
	if (j == NULL || j->set == NULL || hash_add(cf, j) < 0) {
		if (j != NULL)
			CPU_FREE(j->set);
		free(j);
		pthread_mutex_unlock(&cf->mu);
		return why_fail(why, whylen, 0, "out of memory");
	}
	j->root = pid;
	j->root_start = start;
	j->gone = start == 0;
	j->enforce = enforce != 0;
	j->use_cg = j->enforce && cf->cs != NULL;
	j->aff = j->enforce && cf->cs == NULL;
	atomic_init(&j->gen, 0);
	j->next = cf->jobs;
	if (cf->jobs != NULL)
		cf->jobs->prev = j;
	cf->jobs = j;
	pthread_mutex_unlock(&cf->mu);
	return 0;
}

/* Job j's set is want from now (exact: every thread gets it at the next
 * sweep); the watcher sweeps or moves what it needs to (under mu). */
static void set_to(struct confine *cf, struct confine_job *j, const cpu_set_t *want,
                   int exact)
{
	memcpy(j->set, want, cf->setsize);
	j->has_set = 1;
	j->exact = exact;
	atomic_fetch_add(&j->gen, 1);
	if (j->aff || j->move_pending)
		confine__kick(cf);
}

/* Job id's CPU set from now. */
int confine_set(struct confine *cf, uint64_t id, const int *cpus, int n,
                unsigned flags, char *why, size_t whylen)
{
	int exact = (flags & CONFINE_EXACT) != 0;
	char list[4096];
	size_t sz = cf->setsize;
	cpu_set_t *want = cf->want;
	struct confine_job *j;
	int made, r;

	CPU_ZERO_S(sz, want);
	for (int i = 0; i < n; i++) {
		if (cpus[i] < 0 || cpus[i] >= CPULIST_MAX ||
		    !CPU_ISSET_S((size_t)cpus[i], sz, cf->release))
			return why_fail(why, whylen, 0, "CPU %d is not in the release set %s",
				    cpus[i], cf->release_list);
		CPU_SET_S((size_t)cpus[i], sz, want);
	}
	if (n < 1 || cpulist_format(cpus, n, list, sizeof(list)) < 0)
		return why_fail(why, whylen, 0, "bad CPU set (%d CPUs)", n);
	pthread_mutex_lock(&cf->mu);
	j = confine__find(cf, id);
	if (j == NULL || j->failed) {
		r = j == NULL ? why_fail(why, whylen, 0, "no job %llu", (unsigned long long)id) :
		    why_fail(why, whylen, 0, "%s", j->why);
		pthread_mutex_unlock(&cf->mu);
		return r;
	}
	if (!j->enforce || j->gone || (j->has_set && CPU_EQUAL_S(sz, want, j->set))) {
		pthread_mutex_unlock(&cf->mu);
		return 0;
	}
	if (!j->use_cg) {
		/* Affinity alone: the watcher applies it, now. */
		set_to(cf, j, want, exact);
		pthread_mutex_unlock(&cf->mu);
		return 0;
	}
	made = j->cg_made;
	pthread_mutex_unlock(&cf->mu);

	if (made) {
		/* The folder's CPUs, now; on failure the old set stays, and
		 * the next call with another set tries again.  The watcher
		 * may have put the job on affinity meanwhile (its root was
		 * refused) and removed the folder: then affinity takes it. */
		r = cpuset_job_cpus(cf->cs, id, list, why, whylen);
		pthread_mutex_lock(&cf->mu);
		if (r == 0 || !j->use_cg) {
			set_to(cf, j, want, exact);
			r = 0;
		}
		pthread_mutex_unlock(&cf->mu);
		return r;
	}
	/* The first set: the folder with the set (a previous daemon's, with
	 * the job's processes, is fine); the watcher moves the tree in. */
	if (cpuset_job_make(cf->cs, id, list, why, whylen) < 0) {
		(void)cpuset_job_remove(cf->cs, id);    /* if empty */
		return -1;
	}
	pthread_mutex_lock(&cf->mu);
	j->cg_made = 1;
	j->move_pending = 1;
	set_to(cf, j, want, exact);
	pthread_mutex_unlock(&cf->mu);
	return 0;
}

/* Job id has left: release it. */
void confine_remove(struct confine *cf, uint64_t id)
{
	struct confine_job *j;
	int made;

	pthread_mutex_lock(&cf->mu);
	j = confine__find(cf, id);
	if (j == NULL) {
		pthread_mutex_unlock(&cf->mu);
		return;
	}
	hash_del(cf, j);
	j->removed = 1;
	made = j->cg_made;
	confine__kick(cf);
	pthread_mutex_unlock(&cf->mu);
	/* The watcher may remove the folder meanwhile; then this fails. */
	if (made)
		(void)cpuset_job_cpus(cf->cs, id, cf->release_list, NULL, 0);
}

/* Job id's confinement, in words. */
const char *confine_state(struct confine *cf, uint64_t id, char *buf, size_t len)
{
	struct confine_job *j;

	if (len == 0)
		return buf;
	pthread_mutex_lock(&cf->mu);
	j = confine__find(cf, id);
	if (j == NULL)
		snprintf(buf, len, "%s", "");
	else if (!j->enforce)
		snprintf(buf, len, "off");
	else if (j->failed)
		snprintf(buf, len, "failed: %s", j->why);
	else
		snprintf(buf, len, "%s", j->aff ? "affinity" : "cgroup");
	pthread_mutex_unlock(&cf->mu);
	return buf;
}

/* Job id's CPU time as of the last sample. */
int confine_usage(struct confine *cf, uint64_t id, uint64_t *cpu_ns)
{
	struct confine_job *j;

	pthread_mutex_lock(&cf->mu);
	j = confine__find(cf, id);
	if (j != NULL)
		*cpu_ns = j->usage_ns;
	pthread_mutex_unlock(&cf->mu);
	return j != NULL ? 0 : -1;
}

/* The share of each managed CPU others used over the last second. */
int confine_others(struct confine *cf, double *share, int ncpus)
{
	int n = 0;

	pthread_mutex_lock(&cf->mu);
	if (cf->others_ok) {
		n = ncpus < cf->ncpus ? ncpus : cf->ncpus;
		memcpy(share, cf->others, (size_t)n * sizeof(*share));
	}
	pthread_mutex_unlock(&cf->mu);
	return n;
}

/* The number of affinity sweeps done. */
uint64_t confine_sweeps(struct confine *cf)
{
	uint64_t n;

	pthread_mutex_lock(&cf->mu);
	n = cf->sweeps;
	pthread_mutex_unlock(&cf->mu);
	return n;
}
