/*
 * scheduler.h - asteald's job scheduler: the table of running jobs and the
 * quantum exchange (../shared/DESIGN.md, "One quantum, through a shared page").
 *
 * Quanta are global: quantum q is [t0 + q L, t0 + (q+1) L) on
 * CLOCK_MONOTONIC, t0 being when the scheduler was created; jobs learn t0
 * and L in their Welcome (sched_quanta).  A job sends Feedback only when
 * its rounded desire changes, and a heartbeat with its usage totals; a
 * job silent for PROTO_SILENT_BEATS heartbeats counts as desiring nothing
 * until it speaks again.  At t0 + q L + offset the scheduler runs DEQ
 * (deq.c) over every job's last desire and sends Allot{q, allotment,
 * availability, cpus} only to the jobs whose allotment, availability or
 * CPUs changed, and to jobs that just joined; the history records each
 * job's values from the quantum they changed on.
 */
#ifndef ASTEAL_SCHEDULER_H
#define ASTEAL_SCHEDULER_H

#include <stdint.h>
#include <sys/types.h>

#include "asteal.pb-c.h"
#include "message.h"

struct event_base;
struct conf;
struct history;
struct conn;
struct confine;
struct sched;
struct sched_job;

/* Create the scheduler; its quanta start now (t0) and it ticks at once.
 * NULL with a reason in why (out of memory, no timer). */
struct sched *sched_create(struct event_base *base, const struct conf *c,
                           struct history *h, char *why, size_t whylen);

/* Stop ticking and free everything; running jobs' history rows stay open
 * (history_job_pause) for the next daemon they reconnect to. */
void sched_free(struct sched *s);

/* Call read(arg) at the start of every tick, before DEQ: it reads what
 * the jobs said since the last (control.c reads its batch of jobs); and
 * urgent(arg, 1) while the jobs must be read as their input comes (a job
 * waits for CPUs to be released, --handover release, or some CPU is free
 * for a job that wakes), then urgent(arg, 0). */
void sched_set_reader(struct sched *s, void (*read)(void *),
                      void (*urgent)(void *, int), void *arg);

/* The quanta a Welcome gives a job: t0 (CLOCK_MONOTONIC ns), the heartbeat
 * period and the offset of the ticks into each quantum. */
void sched_quanta(const struct sched *s, uint64_t *t0_ns,
                  uint32_t *heartbeat_ms, uint32_t *offset_us);

/* The most workers a job may have (Hello.workers is from 1 to this). */
#define SCHED_MAX_WORKERS 65536

/* Register a job that said Hello on conn (uid and pid from SO_PEERCRED),
 * under id_granted when its claim to an id was granted (its history row is
 * open and tracked already), else under a new id: the job, or NULL with a
 * reason in why (at the job limit, database error).  Its first Allot comes
 * at the next tick, unless sched_job_grant gives it free CPUs first. */
struct sched_job *sched_job_add(struct sched *s, struct conn *conn,
                                const Asteal__Hello *hello, uid_t uid,
                                pid_t pid, uint64_t id_granted, char *why,
                                size_t whylen);

/* Grant a job that has just joined (its Welcome sent) min(its desire,
 * what is free) of the CPUs no job holds, at once: an Allot now rather
 * than at the next tick; nothing if none is free, the job holds some
 * already, or a tick is under way. */
void sched_job_grant(struct sched *s, struct sched_job *j);

/* The job's id (also its history row). */
uint64_t sched_job_id(const struct sched_job *j);

/* The descriptors of the page made for a job whose Hello asked for one
 * (the page, then its eventfd when it reads its allotments there), to
 * pass with its Welcome, into fds: their count, 0 when it has none (it
 * sends messages). */
int sched_job_page_fds(const struct sched_job *j, int fds[2]);

/* The job cannot use the page its Welcome carried (a PageDeclined, why
 * its reason): its page is dropped, it exchanges by messages from now on,
 * and the allotment written there goes again as an Allot.  1 if it had a
 * page (its eventfd's charge is the caller's to give back), 0 if not. */
int sched_job_page_declined(struct sched *s, struct sched_job *j,
                            const char *why);

/* The Welcome went with the page (sent 1), or could not (0: the page is
 * dropped and the job sends messages, as its Welcome says). */
void sched_job_page_sent(struct sched *s, struct sched_job *j, int sent);

/* A job's connection closed: its CPUs go to the others at the next tick
 * and its history row is closed. */
void sched_job_remove(struct sched *s, struct sched_job *j);

/* A job's Feedback arrived: checked, and taken for the next tick.  A
 * field no job could send (a quantum that has not begun, a desire above
 * the job's workers, a desire_real that is not a number in range, usage
 * totals going back or beyond what its workers could use) drops the job
 * (an Error naming the field, then conn_fail: j is gone or going when
 * this returns); a Feedback for a quantum that ended long ago or a second
 * one for a quantum is refused with an Error and ignored.  (An unknown
 * class never gets here: exchange_feedback_take refuses it.) */
void sched_feedback(struct sched *s, struct sched_job *j,
                    const struct exchange_feedback *f);

/* A Feedback from job j that exchange_feedback_take refused (why):
 * counted as a Feedback, and the job dropped as sched_feedback drops it. */
void sched_feedback_refused(struct sched *s, struct sched_job *j, const char *why);

/* A job's leaving workers have parked, the last at parked_ns, for its
 * allotment of quantum q (a Released, or its page's parked part). */
void sched_released(struct sched *s, struct sched_job *j, uint64_t q,
                    uint64_t parked_ns);

/* Fill a Status reply (its cpus array and strings point into s). */
void sched_status(struct sched *s, Asteal__Status *st);

/* Fill a Jobs reply for the given ids (all when n == 0); the arrays are
 * allocated: free them with sched_jobs_free.  -1 when out of memory. */
int sched_jobs(struct sched *s, const uint64_t *ids, size_t n, Asteal__Jobs *out);

/* A JobInfo with its identity filled (the strings borrowed) and room for
 * ncpus CPU ids at ->cpus, freed with free(); NULL when out of memory. */
Asteal__JobInfo *sched_info_new(uint64_t id, const char *name, uid_t uid,
                                pid_t pid, const char *command,
                                uint64_t start_ns, size_t ncpus);

/* Whether id is among the n ids, sorted ascending (any id when n == 0):
 * a Jobs request's selection, a binary search. */
int sched_id_wanted(uint64_t id, const uint64_t *ids, size_t n);

/* Free what sched_jobs allocated. */
void sched_jobs_free(Asteal__Jobs *out);

/* 0 when job id is connected (its owner in *uid, if not NULL), else -1. */
int sched_job_owner(const struct sched *s, uint64_t id, uid_t *uid);

/* Signal a running job on behalf of uid, through the pidfd its connection
 * took at accept time: 0, or an Asteal__ErrorCode with the reason in why
 * (NOT_FOUND: no such running job, or the process that connected has
 * exited (another may hold its connection, and is not signalled);
 * PERMISSION: not its owner nor root). */
int sched_cancel(struct sched *s, uint64_t id, uid_t uid, int sig,
                 char *why, size_t whylen);

/* Confine the jobs' process trees with cf (confine.h): mode is
 * CONF_CONFINE_RIGID (the jobs launched with --cpus), CONF_CONFINE_ALL or
 * CONF_CONFINE_OFF (conf.h; AUTO resolved by the caller).  cf is also what
 * measures each job's CPU time and the CPUs' use by other processes, so
 * it is given whatever the mode.  Before any job joins. */
void sched_set_confine(struct sched *s, struct confine *cf, int mode);

/* Register a rigid job: launched (`asteal run/submit --cpus N`) as job id,
 * its history row open, its child pid not connected: DEQ counts it with
 * desire cpus, and its process tree is held to what it is allotted (no
 * Allot is sent: nobody would read it).  If the child's libasteal then
 * connects and claims the id, the job becomes an ordinary job whose
 * desire is capped at cpus (sched_job_add).  0, or -1 with a reason. */
int sched_rigid_add(struct sched *s, uint64_t id, const char *name,
                    const char *command, uid_t uid, pid_t pid,
                    uint64_t start_ns, int cpus, char *why, size_t whylen);

/* A rigid job ended (launch.c closes its row): its CPUs go back at the
 * next tick.  Nothing when id is no rigid job. */
void sched_rigid_remove(struct sched *s, uint64_t id);

/* Cap connected job id's desire at cpus (its supervisor, back after a
 * daemon restart, says it was launched with --cpus): confined as a rigid
 * job is.  Nothing when id is not connected. */
void sched_set_cap(struct sched *s, uint64_t id, int cpus);

/* Whether job id is rigid (registered and not connected). */
int sched_is_rigid(const struct sched *s, uint64_t id);

/* Jobs connected now, and command-line clients (control.c counts them). */
int sched_njobs(const struct sched *s);
void sched_set_clients(struct sched *s, int clients);

#endif
