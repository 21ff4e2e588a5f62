/*
 * cpuset.h - the cgroup cpuset directories asteald holds jobs in: finding
 * this process's cpuset cgroup (version 2, delegated, or the version 1
 * hierarchy), the daemon's directory <own cgroup>/<name> in it, and one
 * directory job-<id> per confined job, with its CPUs and its processes.
 * confine.c is the only user; it says when each is called.  A handle does
 * not change after cpuset_open, so any thread may call the others at
 * once (each is a few file operations).
 */
#ifndef ASTEAL_CPUSET_H
#define ASTEAL_CPUSET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cpuset;

/* Open the cpuset cgroup of version 2 or 1 for this process and create
 * (or reuse) its directory name, whose CPUs become release (a CPU list,
 * "0-3"): its job-* directories left by a previous daemon are widened to
 * release and removed when empty.  Version 2 first moves this process
 * into the leaf <own>/daemon and enables the cpuset controller for
 * <own>'s and <name>'s children.  NULL with a reason in why (which cgroup,
 * which step, the error) when the hierarchy is missing or not usable. */
struct cpuset *cpuset_open(int version, const char *name, const char *release,
                           char *why, size_t whylen);

/* Free the handle (the directories stay; see cpuset_remove). NULL is fine. */
void cpuset_close(struct cpuset *cs);

/* The daemon's directory, <mount><own cgroup>/<name>. */
const char *cpuset_path(const struct cpuset *cs);

/* 1 or 2. */
int cpuset_version(const struct cpuset *cs);

/* How many folders of dead daemons (<own>/asteal-* beside this one that
 * no live handle holds) cpuset_open removed. */
int cpuset_swept(const struct cpuset *cs);

/* The job-<id> directories a previous daemon left that still had
 * processes when this handle was opened (the others were removed): their
 * ids in ids[0..max-1], the count (at most max). */
int cpuset_leftovers(const struct cpuset *cs, uint64_t *ids, int max);

/* Make (or reuse) job-<id> with CPUs cpus (a CPU list): version 1 turns
 * its sched_load_balance off and copies the daemon directory's mems
 * first.  0, or -1 with errno and a reason. */
int cpuset_job_make(struct cpuset *cs, uint64_t id, const char *cpus,
                    char *why, size_t whylen);

/* Write job-<id>'s CPUs: 0, or -1 with errno and a reason. */
int cpuset_job_cpus(struct cpuset *cs, uint64_t id, const char *cpus,
                    char *why, size_t whylen);

/* Move process pid, all its threads, into job-<id> (cgroup.procs): 0, or
 * -1 with errno (ESRCH: no such process; EACCES, EPERM: not allowed) and
 * a reason. */
int cpuset_job_attach(struct cpuset *cs, uint64_t id, pid_t pid,
                      char *why, size_t whylen);

/* Remove job-<id> if it is empty: 0 (removed, or not there), or -1 with
 * errno (EBUSY: it still has processes). */
int cpuset_job_remove(struct cpuset *cs, uint64_t id);

/* Move job-<id>'s processes (with their threads) into the cgroup this
 * process lives in (<own>, or <own>/daemon under version 2 but at the
 * root), a few passes for those forked meanwhile, and remove job-<id>:
 * 0 (removed, or not there), or -1 with errno (a process that may not be
 * moved, or keeps forking). */
int cpuset_job_evict(struct cpuset *cs, uint64_t id);

/* Remove the daemon's directory if it is empty (no job-* left): 0, or -1
 * with errno. */
int cpuset_remove(struct cpuset *cs);

#endif
