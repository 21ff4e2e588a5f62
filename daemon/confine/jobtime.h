/*
 * jobtime.h - what the jobs' threads, and everything else, use of each
 * CPU.  A round reads /proc/stat's busy time per CPU, then the CPU time of
 * every thread of the jobs' trees with the CPU it last ran on; from one
 * round to the next, a CPU's busy time less the jobs' threads' time
 * attributed to it is what others used of it.  confine.c runs a round
 * once a second on its watcher thread; a handle belongs to one thread.
 */
#ifndef ASTEAL_JOBTIME_H
#define ASTEAL_JOBTIME_H

#include <stdint.h>
#include <sys/types.h>

struct jobtime;

/* A sampler for the managed CPUs cpus[0..ncpus-1]; NULL when out of
 * memory. */
struct jobtime *jobtime_create(const int *cpus, int ncpus);

/* Free it. NULL is fine. */
void jobtime_free(struct jobtime *jt);

/* Begin a round taken at now_ns (CLOCK_MONOTONIC): reads /proc/stat. */
void jobtime_begin(struct jobtime *jt, uint64_t now_ns);

/* Add one job's processes pids[0..n-1] (its tree) to the round: their
 * threads' time since the last round goes to the CPU each last ran on,
 * and the tree's CPU time so far (utime + stime + cutime + cstime of each
 * live process: its ended threads and waited-for children included) is
 * *total_ns. */
void jobtime_add(struct jobtime *jt, const pid_t *pids, int n,
                 uint64_t *total_ns);

/* End the round: the share (0..1) of each managed CPU, in the order given
 * to jobtime_create, that others used since the last round, into
 * share[0..ncpus-1].  Returns ncpus, or 0 when there is no last round to
 * compare with (the first round, or /proc/stat unreadable). */
int jobtime_end(struct jobtime *jt, double *share);

#endif
