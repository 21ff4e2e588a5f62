/*
 * confine.h - holding asteald's jobs to the CPUs the scheduler gives them,
 * and measuring what they and everything else use of each CPU.
 *
 * A job is a process tree (a root pid and its descendants).  Its CPU set
 * is enforced either with a cgroup cpuset folder per job (version 2
 * delegated to the daemon, or the version 1 hierarchy), written at once
 * when the set changes, or with sched_setaffinity on every thread of the
 * tree, applied and re-applied by a watcher thread every quantum.  The
 * watcher also samples, once a second, every job's CPU time (usage) and
 * how much of each managed CPU anything else used (interference).
 * confine.c has the details.
 *
 * Threads: one thread (the daemon's event loop) calls everything here;
 * the watcher thread, started by confine_create and joined by
 * confine_free, shares the state under a mutex.
 */
#ifndef ASTEAL_CONFINE_H
#define ASTEAL_CONFINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct confine;

enum confine_with { CONFINE_WITH_AUTO, CONFINE_WITH_CGROUP, CONFINE_WITH_AFFINITY };

/* Create: choose the mechanism per `with` (AUTO: a cgroup v2 cpuset
 * delegated to this process's own cgroup, else the cgroup v1 cpuset
 * hierarchy when writable, else sched_setaffinity; CGROUP: fail with a
 * clear reason when neither cgroup works; AFFINITY: affinity only).
 * `name` (e.g. "asteal-1a2b3c4d", chosen by the caller from its socket
 * path, so two daemons on one machine do not collide and a restarted
 * daemon finds its own) names the folder holding the jobs' cgroups.
 * cpus/ncpus: the CPUs the daemon manages; the release set is the
 * daemon's own affinity at create time (cpulist_allowed).  quantum_ns: the
 * affinity sweep period (held between 1 ms and 1 s).  Starts one watcher
 * thread.  NULL and a reason in why on failure. */
struct confine *confine_create(enum confine_with with, const char *name,
                               const int *cpus, int ncpus, uint64_t quantum_ns,
                               char *why, size_t whylen);

/* The daemon ticks at t0_ns (CLOCK_MONOTONIC) and every quantum after:
 * the watcher's samples, which walk /proc for a few hundred microseconds
 * a second, fall half a quantum after a tick instead of beside it, where a job's
 * worker on its way to park would wait for them (bench/README.md,
 * "Hand-over"). */
void confine_grid(struct confine *cf, uint64_t t0_ns);

/* The watcher's next sample after now, for ticks at ticks_ns and every
 * quantum_ns after: half a quantum after a tick, every whole number of
 * quanta nearest a second (at least one); without ticks (0), a second
 * after now. */
uint64_t confine_sample_after(uint64_t ticks_ns, uint64_t quantum_ns, uint64_t now);

/* Stop the watcher; release every job (its processes may run anywhere in
 * the release set again) and remove the cgroup folders left empty (those
 * with survivors stay for the next daemon, which releases or reuses them:
 * job-<id>).  NULL is fine. */
void confine_free(struct confine *cf);

/* A human line on the mechanism: "cgroup v1 cpuset
 * /sys/fs/cgroup/cpuset/asteal-1a2b3c4d", "cgroup v2 cpuset
 * /sys/fs/cgroup/...", "sched_setaffinity (no cgroup: <why each cgroup
 * was not usable>)". */
const char *confine_how(const struct confine *cf);

/* Whether the mechanism is a cgroup. */
int confine_is_cgroup(const struct confine *cf);

/* Job id's process tree, rooted at pid, is a job's from now: its threads'
 * CPU time counts as the job's (not as interference, confine_others), and
 * when enforce is set it is held to the sets confine_set gives.  -1 with
 * a reason (out of memory, duplicate id). */
int confine_add(struct confine *cf, uint64_t id, pid_t pid, int enforce,
                char *why, size_t whylen);

/* Job id's CPU set is now cpus[0..n-1] (Linux ids, n >= 1, all in the
 * release set).  With a cgroup this writes cpuset.cpus now, synchronously
 * (the first call creates job-<id> with its mems and the set; the watcher
 * then moves the root and the descendants in, at once: a move waits for
 * an RCU grace period in the kernel, 8-15 ms, too long for the tick, and
 * until then the job may use the whole release set, as before), so that
 * when the caller then tells the job its new CPUs, a set that grew is
 * already open to it.  With affinity, the watcher applies it at once and
 * then every quantum: every thread of the tree whose affinity is not a
 * subset of the set gets the whole set (threads already within it are
 * left alone).  With CONFINE_EXACT in flags (a job that places none of
 * its threads itself: a program without libasteal, or a linked job
 * holding no CPU, whose workers are parked), the first sweep of the set
 * gives every thread that is not allowed exactly the set the whole set,
 * so that a set that grows opens to the threads held to the old one; the
 * sweeps after it are as usual.  (A cgroup needs no flag: the kernel
 * gives a new cpuset to every thread, bar a thread's own pin within it.)
 * Nothing when the job is not enforced.  0, or -1 with a reason (the
 * caller logs it once per job).  Cheap: no /proc walk. */
#define CONFINE_EXACT 1u
int confine_set(struct confine *cf, uint64_t id, const int *cpus, int n,
                unsigned flags, char *why, size_t whylen);

/* Job id has left: its tree may use the whole release set again (cgroup:
 * its folder's cpuset.cpus becomes the release set now, and the watcher
 * removes the folder once it is empty; affinity: the watcher gives the
 * threads the release set once). */
void confine_remove(struct confine *cf, uint64_t id);

/* Job id's confinement for listings, copied into buf: "cgroup",
 * "affinity", "off" (not enforced), "failed: <why>" (e.g.
 * "sched_setaffinity: Operation not permitted (needs CAP_SYS_NICE)"), ""
 * for an unknown id.  Returns buf. */
const char *confine_state(struct confine *cf, uint64_t id, char *buf, size_t len);

/* Job id's CPU time so far (every thread of its tree, ended ones
 * included, and the children its processes waited for), never going
 * back, as of the watcher's last sample: 0, or -1 for an unknown id. */
int confine_usage(struct confine *cf, uint64_t id, uint64_t *cpu_ns);

/* Per managed CPU (in the order given to confine_create), the share of it
 * (0..1) that anything other than the jobs' threads used over the last
 * sampled second: /proc/stat busy time of that CPU minus the CPU time of
 * the jobs' threads attributed to the CPU each last ran on, clamped to
 * [0,1], into share[0..ncpus-1].  Returns ncpus, or 0 before the first
 * full second. */
int confine_others(struct confine *cf, double *share, int ncpus);

/* How many affinity sweeps the watcher has finished (each goes over every
 * job held by affinity once); for tests and status. */
uint64_t confine_sweeps(struct confine *cf);

#endif
