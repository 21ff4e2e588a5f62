/*
 * launch.h - the jobs the command line launched and supervises, and the
 * clients waiting for jobs to end.
 *
 * `asteal run` and `asteal submit` fork the job's child, send Launch and
 * get the job's id at once, before the child runs: the job exists from
 * then on (listed as unmanaged until its libasteal connects and claims
 * the id, forever if the program does not use libasteal).  The supervisor
 * reports the child's wait status with JobExit, and cancels of a
 * supervised job go through it (it signals its own child; the daemon
 * never signals a pid a message named).
 *
 * A job ends when it is not connected and either its supervisor reported
 * its exit or there is no supervisor (none ever, or it went away) and its
 * child (when the daemon holds a pidfd on it: the sender's own child) has
 * exited.  Then its history row is closed (if its connection did not
 * close it already) and every client waiting for it gets its WaitReply.
 *
 * After a restart, the supervisors of the jobs a previous daemon left
 * reconnect (Launch with job_id) or report (JobExit); for the first
 * LAUNCH_RESUME_S a WaitRequest for such a job whose exit status is not
 * known is held back instead of answered "unknown".
 *
 * The daemon stops a launched job itself at its time limit
 * (Launch.time_limit_ns: SIGTERM, then SIGKILL after --kill-wait), and
 * kills one that ends with its supervisor (Launch.ends_with_supervisor,
 * `asteal run`) when the supervisor goes before it reported the job's
 * exit (launchstop.c).
 */
#ifndef ASTEAL_LAUNCH_H
#define ASTEAL_LAUNCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "asteal.pb-c.h"

struct admit;
struct admit_ticket;
struct conn;
struct sched;
struct history;
struct launch;

/* The most launches one supervisor connection may hold. */
#define LAUNCH_MAX_PER_CONN 64

/* How long after the daemon starts it waits for the supervisors of the
 * jobs a previous daemon left (seconds); they retry at least every half
 * second (asteal(1), cli/supervise.c). */
#define LAUNCH_RESUME_S 10

struct event_base;
struct conf;

/* An empty table of launches for the scheduler and history given, its
 * pidfds, time limits and the resumption window's timer on base (NULL:
 * none of them), the pidfds it holds counted in a (NULL: not counted),
 * the kill-wait read live from conf (NULL: the default, 30 s). */
struct launch *launch_create(struct sched *s, struct history *h,
                             struct event_base *base, struct admit *a,
                             const struct conf *conf);

/* Free the table (history rows stay as they are); NULL is fine. */
void launch_free(struct launch *l);

/* A Launch from a client (uid from SO_PEERCRED, holding ticket t; NULL:
 * its pidfd not counted): 0 with the job's id in *id, or an error code
 * with a reason in why.  The pid it names must be the sender's own
 * process or a descendant of it with the sender's uid (root may name
 * any: childfd_open), else PERMISSION; with cpus, the sender's child.
 * The child's pidfd, held when it is the sender's running child, counts
 * against the uid's room for descriptors (BUSY beyond it). */
Asteal__ErrorCode launch_begin(struct launch *l, struct conn *sup, uid_t uid,
                               const struct admit_ticket *t,
                               const Asteal__Launch *m, uint64_t *id,
                               char *why, size_t whylen);

/* A job's Hello claims id from (uid, pid): 0 when granted (a launch
 * waiting for that pid, or a row a previous daemon left open with that
 * uid and pid, now taken back), -1 with a reason in why otherwise. */
int launch_claim(struct launch *l, uint64_t id, uid_t uid, pid_t pid,
                 char *why, size_t whylen);

/* A JobExit from a client: 0 (its Ok is sent when the job has ended:
 * then its history row is complete), or an error code with a reason. */
Asteal__ErrorCode launch_exit(struct launch *l, struct conn *c, uid_t uid,
                              const Asteal__JobExit *m, char *why, size_t whylen);

/* The most WaitRequests one connection may have waiting at once. */
#define LAUNCH_CONN_WAITS 64

/* A WaitRequest: the reply is sent now or when the job ends; 0, or an
 * error code (no such job, or not one of only_uid's when only_uid >= 0;
 * BUSY past LAUNCH_CONN_WAITS; out of memory) with a reason. */
Asteal__ErrorCode launch_wait(struct launch *l, struct conn *c, uint64_t id,
                              int64_t only_uid, char *why, size_t whylen);

/* A cancel of job id by uid: 1 when passed to the job's supervisor (or,
 * its supervisor gone, sent to its child by pidfd), 0 when the job is not
 * launched here (the scheduler signals it), or an error code (PERMISSION,
 * NOT_FOUND, INTERNAL) with a reason. */
int launch_cancel(struct launch *l, uint64_t id, uid_t uid, int sig,
                  char *why, size_t whylen);

/* A connection closed: its launches lose their supervisor, its waits are
 * dropped. */
void launch_conn_gone(struct launch *l, struct conn *c);

/* Job id's connection closed (its row is closed already): the job ends
 * now unless a supervisor has yet to report its exit. */
void launch_job_left(struct launch *l, uint64_t id);

/* Append the launched jobs that are not connected (unmanaged) among ids
 * (all when n == 0) to a Jobs reply filled by sched_jobs; -1 when out of
 * memory (out is then freed).  Free with sched_jobs_free. */
int launch_jobs(struct launch *l, const uint64_t *ids, size_t n, Asteal__Jobs *out);

/* Launched jobs not connected now, and waiting clients, for the status. */
int launch_unmanaged(const struct launch *l);

#endif
