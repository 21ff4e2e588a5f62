/*
 * conn.h - one peer's connection to asteald's control socket: its
 * credentials (from SO_PEERCRED, given at creation), framing on a
 * bufferevent (or, for a job, on a read event of its own), sending, and
 * closing.  Each decoded message goes to the owner's handler; conn knows
 * nothing of what the messages mean.
 *
 * A peer that sends garbage or an oversize frame gets an Error and is
 * disconnected after it is written (conn_fail); a peer that does not read
 * is dropped when CONN_MAX_OUTPUT bytes wait for it.  The owner hears how
 * much input each connection holds and how much output waits for it (the
 * handler's input and output), and may have it disconnected for either.
 * Nothing here blocks.
 */
#ifndef ASTEAL_CONN_H
#define ASTEAL_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <event2/util.h>

#include "asteal.pb-c.h"
#include "message.h"

#define CONN_MAX_OUTPUT (8u << 20)     /* bytes queued to a peer that does
                                          not read: beyond, it is dropped */

struct event_base;
struct conn;
struct conn_batch;

/* What a connection's owner does with it; arg is the one given to
 * conn_create. */
struct conn_handler {
	/* A decoded message (m is freed after the call): the handler may
	 * fail or close c, which is then freed later, not during the call. */
	void (*message)(struct conn *c, const Asteal__Envelope *m, void *arg);
	/* A Feedback the job's reader decoded by hand (exchange.c), as
	 * plain C: the same rules as message. */
	void (*feedback)(struct conn *c, const struct exchange_feedback *fb,
	                 void *arg);
	/* c holds delta more bytes read and not yet taken (fewer when
	 * delta < 0): a frame begun, whole frames waiting for their turn.
	 * 0, or -1 with the reason in why when its owner will not have it
	 * hold them: c then gets an Error BUSY saying why and is
	 * disconnected (conn_fail).  What c holds when it is freed is the
	 * owner's to forget with gone. */
	int (*input)(struct conn *c, long delta, char *why, size_t whylen,
	             void *arg);
	/* c has delta more bytes of replies queued that its peer has not
	 * read (fewer when delta < 0: written since): 0, or -1 with the
	 * reason in why when its owner will not hold them: c is then
	 * dropped, its queue discarded (it does not read).  What c has
	 * queued when it is freed is the owner's to forget with gone.  May
	 * be NULL. */
	int (*output)(struct conn *c, long delta, char *why, size_t whylen,
	              void *arg);
	/* conn_fail disconnects the peer: its Error is queued, it is about
	 * to close. */
	void (*failed)(struct conn *c, void *arg);
	/* c is being freed (conn_free): the last call for it. */
	void (*gone)(struct conn *c, void *arg);
};

/* Who is at the other end of a connection, as the kernel said at accept
 * time (never from a message). */
struct conn_peer {
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int pidfd;         /* the connecting process, -1 when it had exited
	                      before we could take one (then it is never
	                      signalled) */
};

/* Learn who is at the other end of fd (SO_PEERCRED, and a pidfd from
 * SO_PEERPIDFD, or pidfd_open on kernels without it): 0, or -1 with a
 * reason. */
int conn_peer_of(evutil_socket_t fd, struct conn_peer *p, char *why,
                 size_t whylen);

/* A connection on the accepted socket fd from the peer p (its pidfd is
 * the connection's from now on) whose first message must come within
 * hello_ms milliseconds of now, whatever it sends before (then
 * conn_hello_done); h and arg receive what it reads.  NULL when out of
 * memory (fd and the pidfd are then left to the caller). */
struct conn *conn_create(struct event_base *base, evutil_socket_t fd,
                         const struct conn_peer *p, int hello_ms,
                         const struct conn_handler *h, void *arg);

/* Free a connection now (the handler's gone is called first). */
void conn_free(struct conn *c);

/* Send an Error, tell the handler (failed), and close after the Error is
 * written. */
void conn_fail(struct conn *c, Asteal__ErrorCode code, const char *why);

/* The peer said Hello: no more deadline for its first message. */
void conn_hello_done(struct conn *c);

/* Read a job's socket straight instead of through the bufferevent: in
 * batch b (conn_batch_read reads it), or with a read event of its own
 * when b is NULL; the bufferevent goes on reading if neither can be set
 * up. */
void conn_use_job_reader(struct conn *c, struct conn_batch *b);

/* A batch: jobs' connections read together, when the owner asks:
 * asteald reads its jobs once per tick, just before DEQ wants their
 * desires, so a quantum costs one wake-up however many jobs spoke. */

/* An empty batch; NULL (with errno) when out of memory or epoll. */
struct conn_batch *conn_batch_create(void);

/* Free a batch whose connections are gone (NULL is fine). */
void conn_batch_free(struct conn_batch *b);

/* The batch's fd: readable when one of its jobs has input (to read the
 * batch from the event loop as input comes, instead of at ticks). */
int conn_batch_fd(const struct conn_batch *b);

/* The batch's hang-up fd: readable only when one of its jobs closed its
 * end or failed (to see a job's end as it comes, and read the batch then,
 * without waking for every Feedback). */
int conn_batch_hup_fd(const struct conn_batch *b);

/* Read every job of the batch that has input now; their messages go to
 * their handlers (which may close or free them) before this returns. */
void conn_batch_read(struct conn_batch *b);

/* Queue a message to a peer; -1 when the peer is going away, or with
 * errno EMSGSIZE (nothing sent) when it is too large for a frame. */
int conn_send(struct conn *c, const Asteal__Envelope *m);

/* Say which request (its Envelope.request_id) the messages sent from now
 * on answer, 0 when they answer none: conn_send gives that id to every
 * message that has none of its own, but to Ok, WaitReply (which carry
 * the id of the request they answer, which may be an earlier one) and
 * CancelRequest (which answers nothing).  control.c sets it around a
 * request's dispatch. */
void conn_set_reply(struct conn *c, uint64_t request_id);

/* The request being answered now (conn_set_reply), 0 if none. */
uint64_t conn_reply_id(const struct conn *c);

/* Queue len bytes of whole, already encoded frames to a peer (the same
 * frame for many peers is encoded once); -1 when the peer is going away. */
int conn_send_frame(struct conn *c, const uint8_t *buf, size_t len);

/* Send a message with nfd descriptors attached (SCM_RIGHTS), now: only
 * while nothing is queued (the handshake's Welcome).  0, or -1 with errno
 * and nothing sent. */
int conn_send_fd(struct conn *c, const Asteal__Envelope *m, const int *fds,
                 int nfd);

/* Hold a client's connection: no more of its frames are taken (those
 * read stay in its buffer, the rest in its socket, and a frame begun has
 * no deadline meanwhile) until conn_resume, so that a reply answered later
 * (a History page built on another thread) comes before the replies to
 * the requests after it.  Its replies are still sent. */
void conn_hold(struct conn *c);

/* Take a held connection's frames again: those it has read already at the
 * loop's next turn, then from its socket. */
void conn_resume(struct conn *c);

/* Who is at the other end of c, as conn_peer_of said at accept. */
const struct conn_peer *conn_peer(const struct conn *c);

/* The peer's uid and pid (from SO_PEERCRED, never from a message). */
uid_t conn_uid(const struct conn *c);
pid_t conn_pid(const struct conn *c);

/* Send signal sig to the process that connected, through the pidfd taken
 * at accept time (never by its pid, which may belong to another process
 * by now): 0, or -1 with errno ESRCH when that process has exited. */
int conn_signal(const struct conn *c, int sig);

#endif
