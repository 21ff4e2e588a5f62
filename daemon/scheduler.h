/*
 * scheduler.h - asteald's job scheduler: the table of running jobs and the
 * quantum exchange.  Every quantum it sends Tick{q} to every job, collects
 * Feedback (desire and the last quantum's usage) until every job answered
 * or a deadline passed (a late job keeps its last desire), runs DEQ
 * (deq.c), sends each job Allot{q, allotment, availability, cpus} and
 * records the quantum in the history.
 */
#ifndef ASTEAL_SCHEDULER_H
#define ASTEAL_SCHEDULER_H

#include <stdint.h>
#include <sys/types.h>

#include "asteal.pb-c.h"

struct event_base;
struct conf;
struct history;
struct conn;
struct sched;
struct sched_job;

/* Tick latency samples kept for the status (a ring). */
#define SCHED_LATENCY_RING 4096

/* Create the scheduler; it starts ticking at once. */
struct sched *sched_create(struct event_base *base, const struct conf *c,
                           struct history *h);

/* Stop ticking and free everything; running jobs' history rows stay open
 * (history_job_pause) for the next daemon they reconnect to. */
void sched_free(struct sched *s);

/* Register a job that said Hello on conn (uid and pid from SO_PEERCRED),
 * under id_granted when its claim to an id was granted (its history row is
 * open and tracked already), else under a new id: the job, or NULL with a
 * reason in why (at the job limit, database error). */
struct sched_job *sched_job_add(struct sched *s, struct conn *conn,
                                const Asteal__Hello *hello, uid_t uid,
                                pid_t pid, uint64_t id_granted, char *why,
                                size_t whylen);

/* The job's id (also its history row). */
uint64_t sched_job_id(const struct sched_job *j);

/* A job's connection closed: its CPUs go back at the next tick and its
 * history row is closed. */
void sched_job_remove(struct sched *s, struct sched_job *j);

/* A job's Feedback arrived. */
void sched_feedback(struct sched *s, struct sched_job *j,
                    const Asteal__Feedback *fb);

/* Fill a Status reply (its cpus array points into s). */
void sched_status(struct sched *s, Asteal__Status *st);

/* Fill a Jobs reply for the given ids (all when n == 0); the arrays are
 * allocated: free them with sched_jobs_free.  -1 when out of memory. */
int sched_jobs(struct sched *s, const uint64_t *ids, size_t n, Asteal__Jobs *out);

/* A JobInfo with its identity filled (the strings borrowed) and room for
 * ncpus CPU ids at ->cpus, freed with free(); NULL when out of memory. */
Asteal__JobInfo *sched_info_new(uint64_t id, const char *name, uid_t uid,
                                pid_t pid, const char *command,
                                uint64_t start_ns, size_t ncpus);

/* Whether id is among the n ids (any id when n == 0): a Jobs request's
 * selection. */
int sched_id_wanted(uint64_t id, const uint64_t *ids, size_t n);

/* Free what sched_jobs allocated. */
void sched_jobs_free(Asteal__Jobs *out);

/* 0 when job id is connected (its owner in *uid, if not NULL), else -1. */
int sched_job_owner(const struct sched *s, uint64_t id, uid_t *uid);

/* Signal a running job on behalf of uid: 0, or -1 with errno ESRCH (no
 * such running job), EPERM (not its owner nor root) or what kill says. */
int sched_cancel(struct sched *s, uint64_t id, uid_t uid, int sig);

/* Jobs connected now, and command-line clients (control.c counts them). */
int sched_njobs(const struct sched *s);
void sched_set_clients(struct sched *s, int clients);

#endif
