/*
 * quantum_int.h - what the two files of libasteal's quanta share, private
 * to them (quantum.h is the interface): quantum.c (one quantum: its
 * boundary, its Feedback, its allotment through the page) and
 * quantumlink.c (the link thread: its state, its loop, its connection to
 * the daemon).
 */
#ifndef ASTEAL_QUANTUM_INT_H
#define ASTEAL_QUANTUM_INT_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "estimator.h"
#include "message.h"            /* struct exchange_feedback */
#include "profile.h"
#include "quantum.h"
#include "settings.h"
#include "sockwatch.h"
#include "usage.h"

struct link;

struct quantum {
	struct runtime *rt;
	struct est_params est;
	struct profile profile;          /* ASTEAL_PROFILE, or none */
	FILE *trace;                     /* ASTEAL_TRACE, or NULL */

	char socket[SETTINGS_SOCKET_MAX]; /* the daemon's socket, "" for none */
	struct link *link;               /* connected to the daemon, or NULL */
	uint64_t claim;                  /* the id to claim when connecting:
	                                    ASTEAL_JOB_ID, then the last one */
	uint64_t retry_at, retry_ns;     /* next connection attempt, backoff */
	struct sockwatch watch;          /* the socket's folder, watched while
	                                    there is no daemon (sockwatch.c) */
	int quiet;                       /* no log lines (ASTEAL_QUIET) */
	int timer_fd;                    /* fires at every boundary t0 + q L */
	uint64_t heartbeat;              /* a Feedback at least this often (ns) */
	int sent_desire;                 /* the desire the daemon has, -1 none */
	uint64_t sent_at;                /* when it was sent */
	uint64_t closable;               /* the next Feedback closes this or later */
	uint32_t page_written;           /* the desire last written into the
	                                    link's page (1, d_1, as it is made) */
	struct usage_sum since;          /* usage since the daemon's Welcome */
	uint64_t id_joined;              /* the id under_id counts for, 0 none */
	struct usage_sum under_id;       /* usage since it first joined under
	                                    that id: its Hello's when it claims
	                                    the id again (its time away) */
	uint64_t errors;                 /* Errors the daemon sent */
	int waiting;                     /* joining: the daemon's first Allot decides */

	pthread_t thread;
	int running;
	int stop_pipe[2];                /* written to stop the link thread */
	pthread_mutex_t lock;            /* guards everything below */
	uint64_t start;                  /* when the runtime started */
	uint64_t t0, length;             /* the grid: quantum q starts at t0 + q L */
	uint64_t q;                      /* the quantum in progress */
	uint64_t job_id;                 /* the daemon's id for us, 0 if none */
	double desire;                   /* d_q, real (0 when idle) */
	int idle;                        /* no root task in flight: desire 0 */
	int availability, allotment;     /* p_q, a_q */
	struct usage_times *last;        /* each worker's accounting so far */
	/* Totals over finished quanta. */
	uint64_t quanta, skipped, sum_allotment;
	struct usage_sum total;
	uint64_t classes[EST_NCLASSES];
};

/* Defined in quantum.c. */

/* The allotment without a daemon, from desire and availability. */
int quantum__allotment(const struct quantum *qt, const struct runtime *rt);

/* Fill a Feedback with the desire to report and the totals since the
 * Welcome; klass is the closed quantum's class, -1 for none. */
void quantum__feedback_fill(const struct runtime *rt, const struct quantum *qt,
                            struct exchange_feedback *fb, int klass);

/* Close the quantum in progress at time now: account, estimate, write the
 * trace row, add to the totals; what to report in *fb (under qt->lock). */
void quantum__close(struct runtime *rt, struct quantum *qt, uint64_t now,
                    struct exchange_feedback *fb);

/* Give the daemon a Feedback closing quantum closed: into the page at
 * every boundary, or, without a page, sent when the reported desire
 * changed, a heartbeat is due, or force is set. */
void quantum__report(struct quantum *qt, struct exchange_feedback *fb,
                     uint64_t closed, uint64_t now, int force);

/* Without a daemon: the availability of the quantum in progress, and the
 * allotment from it, applied at time now (under qt->lock). */
void quantum__allot_alone(struct runtime *rt, struct quantum *qt, uint64_t now);

/* A root task is in flight while the job is idle: start again from
 * d_1 = 1; 1 when it did (under qt->lock). */
int quantum__wake_up(struct runtime *rt, struct quantum *qt, uint64_t now);

/* A boundary passed (the timer fired): close the quantum in progress,
 * open the one now running, report. */
void quantum__boundary(struct runtime *rt, struct quantum *qt);

/* Defined in quantumlink.c. */

/* The daemon went away: keep the allotment and the grid, schedule
 * locally, retry. */
void quantum__lost_daemon(struct quantum *qt, uint64_t now, const char *why);

#endif
