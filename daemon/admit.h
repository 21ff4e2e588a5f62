/*
 * admit.h - asteald's admission policy: who may connect to the control
 * socket and take which place (a connection before its Hello, a job, a
 * command-line client), the limits per uid and in all, the room kept for
 * admins, the rate at which a uid may make new job rows, and the
 * descriptors: every one a peer makes the daemon hold (a connection's
 * socket and pidfd, a launched child's pidfd) is counted against its uid,
 * and each uid may hold its fair part of the room the descriptor limit
 * leaves; and the input its connections make the daemon hold and the
 * replies queued to them, each within a budget per uid and a room for
 * all.  It counts the places its tickets
 * hold and knows nothing of connections beyond the peer's credentials:
 * control.c asks it before each step and tells it what was taken.
 */
#ifndef ASTEAL_ADMIT_H
#define ASTEAL_ADMIT_H

#include <stddef.h>
#include <sys/types.h>

/* Limits on peers beside conf's (docs/security.md has the table).  Root,
 * the daemon's own uid and --admin-group are "admins": no per-uid limit,
 * and room beyond the total ones, so that they can always connect. */
#define ADMIT_USER_PENDING 128          /* connections of one uid that have
                                           not said Hello yet */
#define ADMIT_ADMIN_CLIENTS 16          /* command-line connections admins
                                           may have beyond --max-clients */
#define ADMIT_USER_JOB_RATE 100         /* new job rows (jobs joining,
                                           launches) per second per uid, */
#define ADMIT_USER_JOB_BURST 200        /* ... after a burst of this many */
#define ADMIT_FD_TRANSIENT 12           /* descriptors kept free beyond
                                           those counted: a connection
                                           being accepted (its socket and
                                           pidfd), a Launch's pid being
                                           checked, /proc, cgroup and
                                           SQLite files open for a moment */
#define ADMIT_FD_ADMIN 32               /* descriptors only admins may
                                           take (a quarter of the room at
                                           most) */
#define ADMIT_FD_NEWCOMER 8             /* descriptors kept beyond every
                                           uid's fair part for a uid that
                                           comes next (a quarter of the
                                           users' room at most, 2 at least:
                                           one connection) */

/* Input: the bytes the daemon has read from a uid's connections and not
 * yet taken, frames begun and whole frames waiting for their turn of the
 * loop.  Peers write a frame at once, and the daemon takes whole frames
 * at once (a client's at most one frame ahead: it is not read further
 * while a frame's worth waits), so a uid holds more than a few KiB only
 * while its connections keep frames begun: on purpose (up to 3 s each,
 * CONN_PARTIAL_MS, then again with the next) or broken.  A uid may hold
 * ADMIT_USER_INPUT, and all users together ADMIT_INPUT_ROOM (a bound on
 * what the daemon holds for them), of which the last
 * ADMIT_INPUT_NEWCOMER is kept for uids that hold none: whatever others
 * took, a user that holds nothing can begin a frame, and uids that grow
 * together get equal parts.  (The descriptors' max-min check would add
 * nothing here: a uid holding some is held to the room less the
 * newcomers' part, which is tighter.)  A connection whose read takes its
 * uid past that is told so (Error BUSY, a log line, rate-limited as every
 * warning) and disconnected rather than throttled: a throttled connection
 * would keep what it holds and get nothing done (its frame is not whole,
 * and the rest of it would wait in its socket), where a disconnected one
 * gives its memory back at once and its program hears why; the uid's
 * other connections, and every other uid's, go on.  Admins have no
 * budget. */
#define ADMIT_USER_INPUT (1L << 20)     /* bytes of input per uid */
#define ADMIT_INPUT_ROOM (16L << 20)    /* ... of all uids but admins */
#define ADMIT_INPUT_NEWCOMER (256L << 10) /* ... of which kept for uids
                                           that hold none */

/* Output: the bytes of replies queued to a uid's connections that its
 * programs have not read.  A connection may have CONN_MAX_OUTPUT queued
 * (conn.h); a uid ADMIT_USER_OUTPUT over all its connections, and all
 * users together ADMIT_OUTPUT_ROOM: a uid that opens connections and
 * asks without reading cannot make the daemon hold its connection limit
 * times a connection's queue.  A connection whose reply would take its
 * uid past that is dropped (its queue discarded: it does not read), with
 * a log line; the uid's other connections, and other uids, go on.
 * Admins have no budget. */
#define ADMIT_USER_OUTPUT (16L << 20)   /* bytes queued per uid */
#define ADMIT_OUTPUT_ROOM (128L << 20)  /* ... to all uids but admins */

/* The places a connection takes, each counted against its uid and in
 * all. */
enum admit_role { ADMIT_HELLO, ADMIT_JOB, ADMIT_CLIENT };

struct conf;
struct conn_peer;
struct admit;                   /* the policy, every uid's counts, totals */
struct admit_ticket;            /* one connection's place */

/* The admission for conf's limits: NULL when out of memory. */
struct admit *admit_create(const struct conf *c);

/* Count the descriptors the daemon holds before its first peer (its log,
 * database, loop, listener, timers, confinement ...: /proc/self/fd, once
 * everything is open), the base of the room; a warning when the limit
 * leaves room for few connections. */
void admit_count_base(struct admit *a);

/* Free a and every uid's counts (its tickets left first; NULL is fine). */
void admit_free(struct admit *a);

/* The ticket of a new connection from who on fd, holding no place yet
 * (whether who is an admin is settled here, from its groups as they were
 * when it connected): NULL when out of memory. */
struct admit_ticket *admit_enter(struct admit *a, int fd,
                                 const struct conn_peer *who);

/* Whether t may take one more of role's places (ADMIT_HELLO: a new
 * connection, with its descriptors): 0, or -1 with the reason in why. */
int admit_room(const struct admit *a, const struct admit_ticket *t,
               enum admit_role role, char *why, size_t whylen);

/* t takes a place in role, giving back the one it held. */
void admit_take(struct admit *a, struct admit_ticket *t, enum admit_role role);

/* Take one of t's uid's new job rows (a token bucket: ADMIT_USER_JOB_RATE
 * a second after a burst of ADMIT_USER_JOB_BURST; admins always may): 0,
 * or -1 with the reason in why. */
int admit_job_token(struct admit_ticket *t, char *why, size_t whylen);

/* t's connection is gone: its place and descriptors given back, t freed
 * (NULL is fine). */
void admit_leave(struct admit *a, struct admit_ticket *t);

/* Descriptors held for a uid beyond its connections' own (a launched
 * child's pidfd), which may outlive the connection that asked: n 0 holds
 * none. */
struct admit_charge {
	uid_t uid;
	int admin;                     /* counted as an admin's */
	int n;
};

/* Whether t's uid may hold n more descriptors (its fair part of the room,
 * or an admin's): 0, or -1 with the reason in why. */
int admit_fd_room(const struct admit *a, const struct admit_ticket *t, int n,
                  char *why, size_t whylen);

/* Charge n descriptors to t's uid, into *c (held until admit_fd_give). */
void admit_fd_take(struct admit *a, const struct admit_ticket *t, int n,
                   struct admit_charge *c);

/* Give back what *c holds (nothing when it holds none; NULL a is fine),
 * and clear it. */
void admit_fd_give(struct admit *a, struct admit_charge *c);

/* t's connection holds delta more bytes of input (fewer when delta < 0),
 * counted against its uid until admit_leave: 0, or -1 with the reason in
 * why when more takes the uid past its budget (ADMIT_USER_INPUT) or the
 * users past their room (ADMIT_INPUT_ROOM, less ADMIT_INPUT_NEWCOMER for
 * a uid that held some); admins have none. */
int admit_input(struct admit *a, struct admit_ticket *t, long delta,
                char *why, size_t whylen);

/* t's connection has delta more bytes of replies queued (fewer when
 * delta < 0), counted against its uid until admit_leave: 0, or -1 with
 * the reason in why when more takes the uid past ADMIT_USER_OUTPUT or
 * the users past ADMIT_OUTPUT_ROOM; admins have none. */
int admit_output(struct admit *a, struct admit_ticket *t, long delta,
                 char *why, size_t whylen);

/* The bytes of input every connection holds now; in *most, the most they
 * held since the last call (which starts the next such span). */
long admit_input_held(struct admit *a, long *most);

/* Command-line connections now. */
int admit_clients(const struct admit *a);

#endif
