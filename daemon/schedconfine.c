/*
 * schedconfine.c - the scheduler's confinement of jobs and the usage of
 * its rigid jobs (see scheduler.h; shares scheduler_int.h with
 * scheduler.c, which calls it, never the other way round).
 *
 * A rigid job is a program launched with `asteal run/submit --cpus N`
 * whose libasteal has not connected (a program without libasteal never
 * does; scheduler.c registers it): it is in the core with a fixed desire
 * of N, has no connection, is never silent, and is told nothing; what DEQ
 * allots it is made real by confining its process tree to those CPUs
 * (confine.c).  Its usage comes from /proc: the CPU time of its tree as
 * work, its allotment times the wall time as allotted time.
 *
 * Every job, rigid or not, is given to confine.c when it joins: its
 * threads' CPU time is then the job's, not interference, and it is held
 * to its CPUs when --confine says so (all jobs, or the rigid ones: those
 * launched with --cpus, connected or not).  A job allotted no CPU still
 * has processes (a cpuset cannot be empty while it holds them), and they
 * may run: a linked job with no root task runs its program's serial part
 * (reading input, checking, writing out) on its main thread, and a rigid
 * job out of its turn runs on.  So such a job is held to the CPUs no job
 * holds, while there are some (the core offers them: op_idle), not to its
 * last set, where it would share a CPU with the job that has it now while
 * another CPU idles; with none free it keeps its last set.
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

/* Whether the confine mode holds j to its CPUs. */
int sched__enforced(const struct sched *s, const struct sched_job *j)
{
	return s->confine_mode == CONF_CONFINE_ALL ||
	       (s->confine_mode == CONF_CONFINE_RIGID && j->core.cap > 0);
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
	for (int i = 0; i < core_njobs(s->core); i++) {
		const struct sched_job *o = sched__job(core_job_at(s->core, i));

		if (o != j && o->pid == j->pid && o->confined)
			return o;
	}
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
		          "measured nor confined apart", (unsigned long long)j->core.id,
		          j->name, (int)j->pid, (unsigned long long)other->core.id);
		return;
	}
	if (confine_add(s->confine, j->core.id, j->pid, sched__enforced(s, j), why,
	                sizeof(why)) < 0) {
		log_warn("job %llu '%s': not measured nor confined: %s",
		         (unsigned long long)j->core.id, j->name, why);
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
	if (confine_set(s->confine, j->core.id, cpus, n, flags, why, sizeof(why)) < 0) {
		if (!(j->logged & SCHED_LOGGED_CONFINE)) {
			j->logged |= SCHED_LOGGED_CONFINE;
			log_warn("job %llu '%s' cannot be held to its CPUs: %s",
			         (unsigned long long)j->core.id, j->name, why);
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
	if (j->confined && sched__enforced(s, j) && deq_set_count(set) > 0)
		hold(s, j, set, j->conn == NULL ? CONFINE_EXACT : 0);
}

/* j holds no CPU: it goes to the free ones (the core says which, when
 * they or the jobs holding none changed). */
void sched__confine_idle(struct sched *s, struct sched_job *j,
                         const struct deq_set *free)
{
	if (j->confined && sched__enforced(s, j))
		hold(s, j, free, CONFINE_EXACT);
}

/* j leaves: its process tree is free again. */
void sched__confine_leave(struct sched *s, struct sched_job *j)
{
	if (j->confined)
		confine_remove(s->confine, j->core.id);
	j->confined = 0;
	deq_set_clear(&j->hold);
}

/* Usage of one rigid job up to now. */
static void usage_of(struct sched *s, struct sched_job *j, uint64_t now)
{
	int64_t add[USAGE_N];
	uint64_t cpu;

	memset(add, 0, sizeof(add));
	if (j->confined && confine_usage(s->confine, j->core.id, &cpu) == 0 &&
	    cpu > j->tot.ns[USAGE_WORK]) {
		add[USAGE_WORK] = (int64_t)(cpu - j->tot.ns[USAGE_WORK]);
		j->tot.ns[USAGE_WORK] = cpu;
	}
	if (now > j->usage_at) {
		add[USAGE_ALLOTTED] = (int64_t)((now - j->usage_at) *
		                        (uint64_t)deq_set_count(&j->core.sent));
		j->tot.ns[USAGE_ALLOTTED] += (uint64_t)add[USAGE_ALLOTTED];
		j->usage_at = now;
	}
	if ((add[USAGE_WORK] != 0 || add[USAGE_ALLOTTED] != 0) &&
	    history_usage(s->hist, (int64_t)j->core.id, add) < 0)
		log_warn("history: %s", history_error(s->hist));
}

/* The rigid jobs' usage, about every heartbeat, or j's now. */
void sched__rigid_usage(struct sched *s, struct sched_job *j, uint64_t now)
{
	if (j != NULL) {
		if (j->core.rigid)
			usage_of(s, j, now);
		return;
	}
	if (now < s->rigid_usage_at + PROTO_HEARTBEAT_MS * 1000000ull)
		return;
	s->rigid_usage_at = now;
	for (j = s->rigids; j != NULL; j = j->next_rigid)
		usage_of(s, j, now);
}

