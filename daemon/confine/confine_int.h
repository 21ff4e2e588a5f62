/*
 * confine_int.h - what the files of asteald's confinement, confine.c (the
 * calls, the job table) and confwatch.c (the watcher thread), share;
 * private to them (confine.h is the interface, and no other file includes
 * this one): the instance and its jobs, and a few helpers, named
 * confine__*.  The design is described at the top of confine.c.
 */
#ifndef ASTEAL_CONFINE_INT_H
#define ASTEAL_CONFINE_INT_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "confine.h"

#define CONFINE_NS_PER_S 1000000000ull
#define CONFINE_SAMPLE_NS CONFINE_NS_PER_S   /* the usage sampling period */
#define CONFINE_SWEEP_MIN_NS 1000000ull      /* the sweep period's bounds */
#define CONFINE_SWEEP_MAX_NS CONFINE_NS_PER_S
#define CONFINE_WALK_MAX (1 << 20)           /* the most pids or tids a walk keeps */
#define CONFINE_WHY 256                      /* a job's failure reason */

/* A job: a process tree and its CPU set. */
struct confine_job {
	uint64_t id;
	pid_t root;
	uint64_t root_start;       /* the root's start time (ticks) */
	int enforce;
	int use_cg;                /* held by its cgroup folder (planned) */
	int cg_made;               /* the folder exists and has the root */
	int aff;                   /* held by sched_setaffinity */
	int move_pending;          /* the watcher moves the descendants in */
	int has_set;               /* set holds the job's CPUs, applied */
	cpu_set_t *set;
	_Atomic uint64_t gen;      /* bumped whenever set changes */
	int exact;                 /* CONFINE_EXACT: the next sweep gives
	                              every thread exactly set */
	int gone;                  /* the root ended: no sweeps, no samples */
	int failed;                /* why holds the reason */
	int warned;                /* the watcher logged the failure */
	char why[CONFINE_WHY];
	int removed;               /* confine_remove: the watcher releases it */
	int released;              /* its threads got the release set */
	uint64_t usage_ns;
	struct confine_job *hnext;        /* hash chain */
	struct confine_job *next, *prev;  /* every job */
};

struct cpuset;
struct jobtime;

struct confine {
	struct cpuset *cs;         /* NULL: affinity */
	char how[1200];
	int ncpus;                 /* managed (jobtime has them) */
	cpu_set_t *release;
	char release_list[4096];
	size_t setsize;            /* bytes of every cpu_set_t here */
	uint64_t period_ns;        /* the sweep period */
	uint64_t quantum_ns;       /* the daemon's quantum, as given */

	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* Under mu: */
	int stop, kick;
	uint64_t grid_t0;          /* the daemon's quanta start here, 0 unknown */
	struct confine_job *jobs;
	struct confine_job **hash;
	size_t nbuckets, count;
	uint64_t *left;            /* leftover job folders (cgroup) */
	int nleft;
	uint64_t sweeps;
	double *others;
	int others_ok;
	cpu_set_t *want;           /* the event loop's scratch set */

	/* The watcher's own: */
	pid_t *pids, *tids;
	int maxpids, maxtids;
	cpu_set_t *have, *tmp;
	struct jobtime *jt;
	double *share;
};

/* The live job id, or NULL (under mu). */
struct confine_job *confine__find(const struct confine *cf, uint64_t id);

/* Unlink a job from the list and free it (under mu). */
void confine__job_free(struct confine *cf, struct confine_job *j);

/* Wake the watcher (under mu). */
void confine__kick(struct confine *cf);

/* Process pid's start time + 1 (an identity that a reused pid does not
 * share), or 0 when it does not exist. */
uint64_t confine__root_start(pid_t pid);

/* The watcher thread (arg: the instance). */
void *confine__watcher(void *arg);

/* Give every thread of job j's tree the release set (confine_free, with
 * the watcher stopped). */
void confine__release(struct confine *cf, struct confine_job *j);

#endif
