/*
 * control.h - asteald's control socket: the listening Unix socket (bound
 * here, or passed by systemd), accepting connections, each peer's
 * credentials (SO_PEERCRED), the handshake, and dispatching jobs' messages
 * to the scheduler and the command line's requests to request.h.  A
 * connection itself (framing, sending, closing) is conn.h; who may
 * connect, in which role, and how fast a uid may make jobs is admit.h.
 */
#ifndef ASTEAL_CONTROL_H
#define ASTEAL_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "asteal.pb-c.h"

struct event_base;
struct conf;
struct sched;
struct history;
struct control;
struct conn_peer;

/* Listen on the configured socket (or systemd's): the control, or NULL
 * with a reason in why (a live daemon owns the path, bind failed, ...). */
struct control *control_create(struct event_base *base, const struct conf *c,
                               char *why, size_t whylen);

/* Connect the control to the scheduler and history it serves; -1 when
 * out of memory. */
int control_attach(struct control *ctl, struct sched *s, struct history *h);

/* Take a connection from the peer who on fd, a nonblocking stream socket
 * (on_accept's, after conn_peer_of; the fuzz harness hands over one end
 * of a socketpair, tests/fuzz_daemon.c): 0, it waits for its Hello now,
 * or -1, refused (an Error sent if the socket takes it at once, fd and
 * who's pidfd closed). */
int control_adopt(struct control *ctl, int fd, const struct conn_peer *who);

/* Read every job's input now, as each tick does before DEQ (the fuzz
 * harness, so as not to wait a quantum for its jobs to be heard). */
void control_read_jobs(struct control *ctl);

/* Close every connection and the listener (unlinking a socket we bound);
 * jobs are left to sched_free, which keeps their rows open. */
void control_free(struct control *ctl);

/* Command-line connections now. */
int control_clients(const struct control *ctl);

/* The bytes of input the peers make the daemon hold now (frames begun,
 * frames waiting for their turn); in *most, the most they held since the
 * last call. */
long control_input(struct control *ctl, long *most);

#endif
