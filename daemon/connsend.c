/*
 * connsend.c - sending to a peer's connection (see conn.h): a frame is
 * written straight to the socket when nothing waits before it, else
 * queued on the connection's bufferevent; a peer that does not read is
 * dropped when CONN_MAX_OUTPUT bytes would wait for it, or when its owner
 * will not hold what waits (its uid's budget: the handler's output, told
 * of every change of the queue).  Reading and closing are conn.c's
 * (conn_int.h has what the two share).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "conn_int.h"
#include "frame.h"
#include "log.h"

/* Frames up to this size are encoded on the stack and may be written at
 * once (Tick, Allot, Welcome, small replies); larger ones (History pages,
 * long Jobs lists) are encoded straight into the output buffer. */
#define SEND_STACK_FRAME 2048

/* Whether len more bytes would put more than CONN_MAX_OUTPUT in wait
 * for a peer: then it is dropped at once (its queue is discarded, not
 * flushed: it does not read). */
static int overflows(struct conn *c, struct evbuffer *out, size_t len)
{
	size_t queued = evbuffer_get_length(out);

	if (queued + len <= CONN_MAX_OUTPUT)
		return 0;
	log_warn("peer pid %d (uid %d) does not read its replies (%zu bytes "
	         "waiting): dropped", (int)c->peer.pid, (int)c->peer.uid, queued);
	conn__drop(c);
	return 1;
}

/* The output queue changed: the owner hears by how much.  A refusal is
 * kept for the sender to act on once its bytes are in (dropping the
 * connection here, inside the buffer's own operation, could not be). */
static void on_output(struct evbuffer *out, const struct evbuffer_cb_info *info,
                      void *arg)
{
	struct conn *c = arg;
	long delta = (long)info->n_added - (long)info->n_deleted;

	(void)out;
	if (delta == 0 || c->closing || c->h->output == NULL)
		return;
	if (c->h->output(c, delta, c->refused_why, sizeof(c->refused_why),
	                 c->arg) < 0)
		c->refused = 1;
}

/* Watch the output queue. */
int conn__watch_output(struct conn *c)
{
	c->out_cb = evbuffer_add_cb(bufferevent_get_output(c->bev), on_output, c);
	return c->out_cb != NULL ? 0 : -1;
}

/* Whether the owner refused what was queued: then c is dropped. */
static int refused(struct conn *c)
{
	if (!c->refused)
		return 0;
	log_warn("peer pid %d (uid %d) does not read its replies: %s; dropped",
	         (int)c->peer.pid, (int)c->peer.uid, c->refused_why);
	conn__drop(c);
	return 1;
}

/* Queue len bytes (whole frames) to a peer, written at once when nothing
 * waits before them; -1 when the peer is going away. */
int conn_send_frame(struct conn *c, const uint8_t *buf, size_t len)
{
	struct evbuffer *out;
	ssize_t n = 0;

	if (c == NULL || c->closing)
		return -1;
	/* The common case, nothing waiting, touches no buffer at all. */
	if (c->backlog || len > CONN_MAX_OUTPUT) {
		out = bufferevent_get_output(c->bev);
		if (overflows(c, out, len))
			return -1;
		c->backlog = evbuffer_get_length(out) > 0;
	}
	/* With nothing queued, write now: handing the bytes to the
	 * bufferevent would cost an epoll_ctl to watch for writability and
	 * another to stop, for every message, for a socket that almost
	 * always has room.  Whatever send() does not take (a full socket,
	 * EAGAIN) goes to the bufferevent as before; on any other error the
	 * whole frame does, so that the bufferevent meets the same error and
	 * reports it through on_event, the one place that handles it. */
	if (!c->backlog) {
		n = send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0)
			n = 0;
		if ((size_t)n == len)
			return 0;
	}
	c->backlog = 1;
	out = bufferevent_get_output(c->bev);
	if (evbuffer_add(out, buf + n, len - (size_t)n) < 0) {
		log_error("out of memory queueing %zu bytes for pid %d", len,
		          (int)c->peer.pid);
		return -1;
	}
	return refused(c) ? -1 : 0;
}

/* Send a message with a descriptor attached (SCM_RIGHTS, with its first
 * byte), now: only while nothing is queued (the handshake's Welcome);
 * what send does not take is queued.  0, or -1 with errno (nothing
 * sent). */
int conn_send_fd(struct conn *c, const Asteal__Envelope *m, const int *fds,
                 int nfd)
{
	uint8_t frame[4 * SEND_STACK_FRAME];    /* a Welcome names every CPU */
	size_t len;
	ssize_t n;

	if (c == NULL || c->closing || c->backlog) {
		errno = c != NULL && c->backlog ? EBUSY : EPIPE;
		return -1;
	}
	if (frame_encode(m, frame, sizeof(frame), &len) < 0)
		return -1;
	n = frame_send_fd(c->fd, frame, len, fds, nfd);
	if (n <= 0)
		return -1;
	if ((size_t)n == len)
		return 0;
	/* The descriptor went with the first byte: queue the rest. */
	return conn_send_frame(c, frame + n, len - (size_t)n);
}

/* Say which request the messages sent from now on answer (0: none). */
void conn_set_reply(struct conn *c, uint64_t request_id)
{
	c->reply_id = request_id;
}

/* The request being answered now, 0 if none. */
uint64_t conn_reply_id(const struct conn *c)
{
	return c->reply_id;
}

/* Queue a message to a peer; -1 when the peer is going away, or with
 * errno EMSGSIZE (and nothing sent) when it is too large for a frame. */
int conn_send(struct conn *c, const Asteal__Envelope *m)
{
	Asteal__Envelope stamped;
	struct evbuffer *out;
	struct evbuffer_iovec v;
	uint8_t small[SEND_STACK_FRAME];
	size_t len = 0;
	int err;

	if (c == NULL || c->closing) {
		errno = EPIPE;
		return -1;
	}
	/* Ok and WaitReply name the request they answer themselves (they
	 * may come while another is being answered), and a CancelRequest
	 * passed to a supervisor answers none. */
	if (c->reply_id != 0 && m->request_id == 0 &&
	    m->msg_case != ASTEAL__ENVELOPE__MSG_OK &&
	    m->msg_case != ASTEAL__ENVELOPE__MSG_WAIT_REPLY &&
	    m->msg_case != ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST) {
		stamped = *m;
		stamped.request_id = c->reply_id;
		m = &stamped;
	}
	/* Encode on the stack first: one size computation for the common
	 * small frame; ENOBUFS tells the size of a larger one. */
	if (frame_encode(m, small, sizeof(small), &len) == 0)
		return conn_send_frame(c, small, len);
	if (errno != ENOBUFS) {
		err = errno;
		if (err != EMSGSIZE)
			log_error("cannot encode a %s for pid %d", frame_name(m),
			          (int)c->peer.pid);
		errno = err;
		return -1;
	}
	out = bufferevent_get_output(c->bev);
	if (overflows(c, out, len))
		return -1;
	c->backlog = 1;
	if (evbuffer_reserve_space(out, len, &v, 1) < 1 ||
	    frame_encode(m, v.iov_base, v.iov_len, &len) < 0) {
		log_error("cannot encode a %s for pid %d", frame_name(m), (int)c->peer.pid);
		return -1;
	}
	v.iov_len = len;
	evbuffer_commit_space(out, &v, 1);
	return refused(c) ? -1 : 0;
}
