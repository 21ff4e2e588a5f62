/*
 * conn_int.h - what conn.c (reading, framing, closing) and connsend.c
 * (sending) share of a connection: the struct, private to the two, and
 * the drop of a peer that does not read.
 */
#ifndef ASTEAL_CONN_INT_H
#define ASTEAL_CONN_INT_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "conn.h"

struct conn {
	struct event_base *base;
	const struct conn_handler *h;  /* gets what the peer sends */
	void *arg;                     /* the handler's */
	struct bufferevent *bev;
	evutil_socket_t fd;            /* the bufferevent's socket */
	struct conn_peer peer;         /* who connected (its pidfd is ours) */
	int hello;                     /* its Hello has not come yet */
	struct event *hello_ev;        /* the Hello deadline, absolute */
	int closing;                   /* flush, then free */
	int backlog;                   /* bytes may wait in the output buffer
	                                  (set whenever some are put there;
	                                  cleared once it is seen empty) */
	struct event *free_ev;         /* frees a closing connection soon */
	struct event *more_ev;         /* takes the rest of a burst at the
	                                  loop's next turn */
	struct event *partial_ev;      /* the deadline of a frame begun */
	uint64_t frames;               /* whole frames taken so far */
	uint64_t frames_armed;         /* ... when partial_ev was armed */
	struct event *rd;              /* a job's read event
	                                  (conn_use_job_reader), NULL while
	                                  the bufferevent reads */
	struct evbuffer *pend;         /* with rd or batch: the start of a
	                                  frame, kept until the rest comes
	                                  (NULL: never) */
	struct conn_batch *batch;      /* a job read in a batch, or NULL */
	uint64_t reply_id;             /* the request being answered (its
	                                  Envelope.request_id), 0 between */
	int held;                      /* conn_hold: nothing more taken */
	size_t charged;                /* bytes read and not yet taken, as
	                                  the handler last heard (input) */
	struct evbuffer_cb_entry *out_cb; /* tells the handler of output */
	int refused;                   /* the handler refused output queued:
	                                  dropped by the sender (connsend.c) */
	char refused_why[200];
};

/* Have the owner hear of c's output as it is queued and written (the
 * handler's output; connsend.c) until conn_free removes c->out_cb: 0, or
 * -1 when out of memory. */
int conn__watch_output(struct conn *c);

/* Drop a connection now, whatever waits to be written to it: freed on the
 * next loop turn (callers may still look at it), its socket shut at once
 * so that the peer sees the end. */
void conn__drop(struct conn *c);

#endif
