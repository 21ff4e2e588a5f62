/*
 * schedrigid.c - the scheduler's rigid jobs and its confinement of jobs
 * (see scheduler.h; shares scheduler_int.h with scheduler.c).
 *
 * A rigid job is a program launched with `asteal run/submit --cpus N`
 * whose libasteal has not connected (a program without libasteal never
 * does): it is in the job table and in DEQ with a fixed desire of N, has
 * no connection, is never silent, and is told nothing; what DEQ allots it
 * is made real by confining its process tree to those CPUs (confine.c).
 * Its usage comes from /proc: the CPU time of its tree as work, its
 * allotment times the wall time as allotted time.  When the child's
 * libasteal connects and claims the id, the job becomes an ordinary one
 * in place (same table slot, CPUs and history run) whose desire is capped
 * at N, and it stays confined.
 *
 * Every job, rigid or not, is given to confine.c when it joins: its
 * threads' CPU time is then the job's, not interference, and it is held
 * to its CPUs when --confine says so (all jobs, or the rigid ones: those
 * launched with --cpus, connected or not).  A job allotted no CPU still
 * has processes (a cpuset cannot be empty while it holds them), and they
 * may run: a linked job with no root task runs its program's serial part
 * (reading input, checking, writing out) on its main thread, and a rigid
 * job out of its turn runs on.  So such a job is held to the CPUs no job
 * holds, while there are some, not to its last set, where it would share
 * a CPU with the job that has it now while another CPU idles; with none
 * free it keeps its last set (sched__confine_idle).
 */
#include "scheduler_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "confine.h"
#include "log.h"
#include "proto.h"
#include "qtime.h"

/* The desire DEQ sees for j. */
int sched__desire(const struct sched_job *j)
{
	int d;

	if (j->rigid)
		return j->cap;
	d = j->silent ? 0 : j->desire;
	return j->cap > 0 && d > j->cap ? j->cap : d;
}

/* Confine mode says j is held to its CPUs. */
static int enforced(const struct sched *s, const struct sched_job *j)
{
	return s->confine_mode == CONF_CONFINE_ALL ||
	       (s->confine_mode == CONF_CONFINE_RIGID && j->cap > 0);
}

/* Take the confinement of the jobs. */
void sched_set_confine(struct sched *s, struct confine *cf, int mode)
{
	s->confine = cf;
	s->confine_mode = mode;
}

/* Another job that is measured with j's process (one process can hold
 * many jobs' connections: bench/loadgen), or NULL. */
static const struct sched_job *same_process(const struct sched *s,
                                            const struct sched_job *j)
{
	for (int i = 0; i < s->njobs; i++)
		if (s->jobs[i] != j && s->jobs[i]->pid == j->pid &&
		    s->jobs[i]->confined)
			return s->jobs[i];
	return NULL;
}

/* j has joined: measured, and confined when the mode says so; not when
 * its process is another job's too (neither could be held to its own
 * CPUs, and its threads' time is measured once, as the first job's). */
void sched__confine_join(struct sched *s, struct sched_job *j)
{
	const struct sched_job *other;
	char why[200];

	if (s->confine == NULL || j->confined)
		return;
	if ((other = same_process(s, j)) != NULL) {
		log_debug("job %llu '%s': its process %d is job %llu's too: not "
		          "measured nor confined apart", (unsigned long long)j->id,
		          j->name, (int)j->pid, (unsigned long long)other->id);
		return;
	}
	if (confine_add(s->confine, j->id, j->pid, enforced(s, j), why,
	                sizeof(why)) < 0) {
		log_warn("job %llu '%s': not measured nor confined: %s",
		         (unsigned long long)j->id, j->name, why);
		return;
	}
	j->confined = 1;
}

/* Hold j to the slots of set (at least one), unless it is there;
 * flags: CONFINE_EXACT for a job that places none of its threads itself. */
static void hold(struct sched *s, struct sched_job *j, const struct deq_set *set,
                 unsigned flags)
{
	int cpus[CPULIST_MAX], n;
	char why[200];

	if (memcmp(set, &j->hold, sizeof(*set)) == 0)
		return;
	n = sched__slot_ints(s, set, cpus);
	if (confine_set(s->confine, j->id, cpus, n, flags, why, sizeof(why)) < 0) {
		if (!(j->logged & SCHED_LOGGED_CONFINE)) {
			j->logged |= SCHED_LOGGED_CONFINE;
			log_warn("job %llu '%s' cannot be held to its CPUs: %s",
			         (unsigned long long)j->id, j->name, why);
		}
		return;
	}
	j->hold = *set;
}

/* j's CPUs are the slots of set: hold it to them (a set of none: see
 * sched__confine_idle). */
void sched__confine_set(struct sched *s, struct sched_job *j,
                        const struct deq_set *set)
{
	if (!j->confined || !enforced(s, j))
		return;
	if (deq_set_count(set) == 0)
		s->idle_dirty = 1;
	else
		hold(s, j, set, j->conn == NULL ? CONFINE_EXACT : 0);
}

/* The jobs that hold no CPU go to the free ones, if any: called wherever
 * the free set may have changed; a pass over the jobs only when it did,
 * or when a held job came to hold none. */
void sched__confine_idle(struct sched *s, const struct deq_set *free)
{
	if (s->confine == NULL || deq_set_count(free) == 0 ||
	    (!s->idle_dirty && memcmp(free, &s->idle_free, sizeof(*free)) == 0))
		return;
	s->idle_free = *free;
	s->idle_dirty = 0;
	for (int k = 0; k < s->njobs; k++) {
		struct sched_job *j = s->jobs[k];

		if (j->confined && enforced(s, j) && sched__holds_none(s, j))
			hold(s, j, free, CONFINE_EXACT);
	}
}

/* j leaves: its process tree is free again. */
void sched__confine_leave(struct sched *s, struct sched_job *j)
{
	if (j->confined)
		confine_remove(s->confine, j->id);
	j->confined = 0;
	deq_set_clear(&j->hold);
}

/* Register a rigid job. */
int sched_rigid_add(struct sched *s, uint64_t id, const char *name,
                    const char *command, uid_t uid, pid_t pid,
                    uint64_t start_ns, int cpus, char *why, size_t whylen)
{
	struct sched_job *j;
	int u;

	if (cpus < 1 || cpus > SCHED_MAX_WORKERS) {
		snprintf(why, whylen, "--cpus must be from 1 to %d, not %d",
		         SCHED_MAX_WORKERS, cpus);
		return -1;
	}
	if (s->njobs >= s->conf->max_jobs) {
		snprintf(why, whylen, "at the limit of %d jobs", s->conf->max_jobs);
		return -1;
	}
	if (sched__find(s, id) != NULL) {
		snprintf(why, whylen, "job %llu is scheduled already",
		         (unsigned long long)id);
		return -1;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL || sched__reserve(s) < 0 || (u = sched__user_join(s, uid)) < 0) {
		free(j);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	snprintf(j->name, sizeof(j->name), "%s", name);
	snprintf(j->command, sizeof(j->command), "%s", command);
	j->id = id;
	j->uid = uid;
	j->pid = pid;
	j->workers = cpus;
	j->start_ns = start_ns;
	j->rigid = 1;
	j->cap = cpus;
	j->desire = cpus;
	j->desire_real = cpus;
	j->cls = -1;
	j->joined = j->usage_at = qtime_now_ns();
	sched__insert(s, j, u);
	j->next_rigid = s->rigids;
	s->rigids = j;
	j->fresh = 1;
	sched__touch(s, j);
	sched__confine_join(s, j);
	sched_job_grant(s, j);
	log_info("job %llu '%s' is rigid: %d CPUs, uid %d pid %d",
	         (unsigned long long)id, j->name, cpus, (int)uid, (int)pid);
	return 0;
}

/* Take j off the list of rigid jobs. */
static void unlist(struct sched *s, struct sched_job *j)
{
	struct sched_job **p;

	for (p = &s->rigids; *p != NULL; p = &(*p)->next_rigid)
		if (*p == j) {
			*p = j->next_rigid;
			break;
		}
	j->next_rigid = NULL;
}

/* A rigid job's connection claims it. */
struct sched_job *sched__rigid_connect(struct sched *s, struct sched_job *j,
                                       struct conn *conn,
                                       const Asteal__Hello *hello)
{
	uint64_t now = qtime_now_ns();

	sched__rigid_usage(s, j, now);
	unlist(s, j);
	j->rigid = 0;
	j->conn = conn;
	j->workers = (int)hello->workers;
	j->desire = 1;                  /* d_1 */
	j->desire_real = 1;
	j->cls = -1;
	j->closable = 0;
	/* The Feedback totals count from its Welcome. */
	memset(&j->tot, 0, sizeof(j->tot));
	j->joined = now;
	sched__heard_now(s, j, now);
	j->fresh = 1;
	sched__touch(s, j);
	if (history_job_workers(s->hist, (int64_t)j->id, j->workers) < 0)
		log_warn("history: job %lld: %s", (long long)j->id,
		         history_error(s->hist));
	log_info("job %llu '%s' connected: %d workers, desire capped at %d CPUs",
	         (unsigned long long)j->id, j->name, j->workers, j->cap);
	return j;
}

/* Usage of one rigid job up to now. */
static void usage_of(struct sched *s, struct sched_job *j, uint64_t now)
{
	int64_t add[USAGE_N];
	uint64_t cpu;

	memset(add, 0, sizeof(add));
	if (j->confined && confine_usage(s->confine, j->id, &cpu) == 0 &&
	    cpu > j->tot.ns[USAGE_WORK]) {
		add[USAGE_WORK] = (int64_t)(cpu - j->tot.ns[USAGE_WORK]);
		j->tot.ns[USAGE_WORK] = cpu;
	}
	if (now > j->usage_at) {
		add[USAGE_ALLOTTED] = (int64_t)((now - j->usage_at) *
		                        (uint64_t)deq_set_count(&j->sent));
		j->tot.ns[USAGE_ALLOTTED] += (uint64_t)add[USAGE_ALLOTTED];
		j->usage_at = now;
	}
	if ((add[USAGE_WORK] != 0 || add[USAGE_ALLOTTED] != 0) &&
	    history_usage(s->hist, (int64_t)j->id, add) < 0)
		log_warn("history: %s", history_error(s->hist));
}

/* The rigid jobs' usage, about every heartbeat, or j's now. */
void sched__rigid_usage(struct sched *s, struct sched_job *j, uint64_t now)
{
	if (j != NULL) {
		if (j->rigid)
			usage_of(s, j, now);
		return;
	}
	if (now < s->rigid_usage_at + PROTO_HEARTBEAT_MS * 1000000ull)
		return;
	s->rigid_usage_at = now;
	for (j = s->rigids; j != NULL; j = j->next_rigid)
		usage_of(s, j, now);
}

/* A rigid job ended. */
void sched_rigid_remove(struct sched *s, uint64_t id)
{
	struct sched_job *j = sched__find(s, id);

	if (j == NULL || !j->rigid)
		return;
	sched__rigid_usage(s, j, qtime_now_ns());
	unlist(s, j);
	j->keep_row = 1;
	sched_job_remove(s, j);
}

/* Cap a connected job's desire. */
void sched_set_cap(struct sched *s, uint64_t id, int cpus)
{
	struct sched_job *j = sched__find(s, id);
	int was;

	if (j == NULL || j->rigid || cpus <= 0 || j->cap == cpus)
		return;
	was = enforced(s, j);
	j->cap = cpus;
	if (enforced(s, j) != was) {    /* confine_add again, enforcing */
		sched__confine_leave(s, j);
		sched__confine_join(s, j);
		j->fresh = 1;           /* its CPUs again: confined then */
	}
	sched__touch(s, j);
	log_info("job %llu '%s': desire capped at %d CPUs",
	         (unsigned long long)id, j->name, cpus);
}

/* Whether job id is rigid. */
int sched_is_rigid(const struct sched *s, uint64_t id)
{
	const struct sched_job *j = sched__find(s, id);

	return j != NULL && j->rigid;
}
