/*
 * waits.h - the clients waiting for jobs to end: one wait per WaitRequest
 * not answered yet, which an unprivileged client could make many of, so
 * they are bounded per connection and found by job id when a job ends
 * and by connection when the client goes, neither by scanning every wait.
 * launch.c keeps them, says when a job has ended and what its reply is.
 */
#ifndef ASTEAL_WAITS_H
#define ASTEAL_WAITS_H

#include <stddef.h>
#include <stdint.h>

#include "asteal.pb-c.h"

struct conn;
struct waits_node;

/* A hash table's chains (a power of two of them, or none yet). */
struct waits_hash {
	struct waits_node **b;
	size_t n, count;
};

/* The waits, by job id, and the waiters (one per connection that waits),
 * by connection; all zero is empty. */
struct waits {
	struct waits_hash byjob;
	struct waits_hash byconn;
};

/* Free every wait and the tables (w is then empty). */
void waits_free(struct waits *w);

/* Connection c waits for job id, to be answered under request_id: 0, or
 * an error code with a reason in why (BUSY when c has most waits
 * already, INTERNAL when out of memory). */
Asteal__ErrorCode waits_add(struct waits *w, struct conn *c, uint64_t id,
                            uint64_t request_id, int most, char *why, size_t whylen);

/* Whether anyone waits for job id. */
int waits_for(const struct waits *w, uint64_t id);

/* Send rep to every client waiting for job id, and forget their waits. */
void waits_answer(struct waits *w, uint64_t id, Asteal__WaitReply *rep);

/* Connection c went: forget its waits. */
void waits_conn_gone(struct waits *w, struct conn *c);

/* Call answered(arg, id) with the job id of each wait, which returns 1
 * when it answered the waits for that job (waits_answer), else 0. */
void waits_each(struct waits *w, int (*answered)(void *arg, uint64_t id), void *arg);

#endif
