/*
 * conn.c - a peer's connection to asteald's control socket (see conn.h).
 *
 * Bytes are framed on the connection's bufferevent, or, for a job past
 * its Hello, read straight from its socket (conn_use_job_reader): with a
 * read event of its own, or in a batch, an epoll set of jobs read all at
 * once when the owner asks (conn_batch_read), so that the daemon wakes
 * once per quantum however many jobs spoke in it; a second epoll set of
 * the same sockets wakes only for a hang-up (conn_batch_hup_fd), so that
 * a job's end is seen as it comes.  Every decoded message
 * goes to the owner's handler.  A peer that sends garbage
 * or an oversize frame gets an Error and is disconnected after it is
 * written.  After each read the owner hears how many bytes the
 * connection holds read and not yet taken (charge), and may have it
 * disconnected for them; a client's bufferevent reads no further than
 * one frame of its limit ahead of what the daemon took (read_ahead).
 * Nothing here blocks.  Sending is connsend.c's (conn_int.h
 * has the struct the two share).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "conn_int.h"
#include "fdlater.h"
#include "exchange.h"
#include "frame.h"
#include "log.h"

/* struct conn is conn_int.h's, shared with connsend.c. */

/* Jobs' connections read together. */
struct conn_batch {
	int ep;                        /* epoll: the jobs' sockets */
	int hup;                       /* epoll: the same, hang-ups only */
};

/* The whole frames one connection's input gives the loop in one turn:
 * the rest wait for its next turn, after the timers (the tick) and the
 * other connections, so that a peer's burst of requests, each cheap, can
 * hold neither the ticks nor the other peers. */
#define CONN_TURN_FRAMES 32

/* How long a frame may take to come whole after its first bytes: peers
 * write a frame at once, so one that stays partial is a peer holding the
 * daemon's memory (or a byte at a time, its time). */
#define CONN_PARTIAL_MS 3000

/* Reads of a batch per conn_batch_read: each reads every job with input
 * once (16 KiB each), so a job that floods cannot hold the loop. */
#define BATCH_ROUNDS 4
#define BATCH_EVENTS 256

static void conn_close(struct conn *c);

/* Take c's socket out of its batch's two epoll sets. */
static void batch_del(struct conn *c)
{
	epoll_ctl(c->batch->ep, EPOLL_CTL_DEL, c->fd, NULL);
	epoll_ctl(c->batch->hup, EPOLL_CTL_DEL, c->fd, NULL);
}

/* Free a connection now (its handler's gone first). */
void conn_free(struct conn *c)
{
	/* The owner forgets what c has queued with gone: no word after. */
	evbuffer_remove_cb_entry(bufferevent_get_output(c->bev), c->out_cb);
	c->h->gone(c, c->arg);
	if (c->batch != NULL && !c->closing)
		batch_del(c);
	if (c->rd != NULL)
		event_free(c->rd);
	if (c->pend != NULL)
		evbuffer_free(c->pend);
	bufferevent_setfd(c->bev, -1);          /* closed below, later */
	bufferevent_free(c->bev);
	fdlater_close(c->base, c->fd);
	event_free(c->free_ev);
	event_free(c->more_ev);
	event_free(c->partial_ev);
	event_free(c->hello_ev);
	if (c->peer.pidfd >= 0)
		close(c->peer.pidfd);
	free(c);
}

/* The deferred free of a closing connection. */
static void on_free(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_free(arg);
}

/* Mark a connection closing, the first time: it reads no more (nor does
 * what in `events`, EV_READ and maybe EV_WRITE, of its bufferevent); 1 when
 * it was not closing before. */
static int start_closing(struct conn *c, short events)
{
	if (c->closing)
		return 0;
	c->closing = 1;
	bufferevent_disable(c->bev, events);
	if (c->rd != NULL)
		event_del(c->rd);
	if (c->batch != NULL)
		batch_del(c);
	return 1;
}

/* Close a connection once what is queued to it is written (within 2 s):
 * never frees it at once, so callers may still look at it. */
static void conn_close(struct conn *c)
{
	struct timeval wt = { 2, 0 };

	if (start_closing(c, EV_READ))
		bufferevent_set_timeouts(c->bev, NULL, &wt);
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		event_active(c->free_ev, EV_TIMEOUT, 0);
}

/* Drop a connection now, whatever waits to be written to it: freed on the
 * next loop turn (callers may still look at it), its socket shut at once
 * so that the peer sees the end. */
void conn__drop(struct conn *c)
{
	start_closing(c, EV_READ | EV_WRITE);
	shutdown(c->fd, SHUT_RDWR);
	event_active(c->free_ev, EV_TIMEOUT, 0);
}

/* The output drained: a closing connection goes now. */
static void on_write(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	(void)bev;
	if (c->closing)
		conn_free(c);
}

/* Send an Error and close after it is written. */
void conn_fail(struct conn *c, Asteal__ErrorCode code, const char *why)
{
	Asteal__Envelope env;
	Asteal__Error err;

	log_warn("peer pid %d (uid %d): %s: disconnected", (int)c->peer.pid,
	         (int)c->peer.uid, why);
	frame_error(&env, &err, code, why);
	conn_send(c, &env);
	c->h->failed(c, c->arg);
	conn_close(c);
}

/* Whether c is a job that reads its socket itself (conn_use_job_reader). */
static int is_job(const struct conn *c)
{
	return c->rd != NULL || c->batch != NULL;
}

/* The largest frame body c may send now: a Hello's before its
 * handshake, a job's once it joined, a client's request otherwise. */
static uint32_t frame_limit(const struct conn *c)
{
	return c->hello ? PROTO_MAX_HELLO_FRAME :
	       is_job(c) ? PROTO_MAX_JOB_FRAME : PROTO_MAX_REQUEST_FRAME;
}

/* The first bytes of a frame announce one over c's limit: say so and
 * close. */
static void fail_too_large(struct conn *c, const uint8_t *hdr)
{
	char why[FRAME_WHY_LEN];

	snprintf(why, sizeof(why), "a frame of %lu bytes is over the "
	         "limit of %u%s", (unsigned long)hdr[0] << 24 | (unsigned long)hdr[1] << 16 |
	         (unsigned long)hdr[2] << 8 | hdr[3], frame_limit(c),
	         c->hello ? " before the hello" : is_job(c) ? " for a job" : "");
	conn_fail(c, ASTEAL__ERROR_CODE__TOO_LARGE, why);
}

/* Handle a frame that frame_decode turned into m (NULL: it failed, with
 * errno and the reason in why). */
static void take_message(struct conn *c, Asteal__Envelope *m, const char *why)
{
	if (m == NULL) {
		conn_fail(c, frame_error_code(errno), why);
		return;
	}
	c->h->message(c, m, c->arg);    /* may close c (freed later, not now) */
	frame_free(m);
}

/* Take the whole frames in an input buffer, CONN_TURN_FRAMES at most in
 * this turn of the loop (on_more takes the rest in the next). */
static void take_frames(struct conn *c, struct evbuffer *in)
{
	static const struct timeval next_turn = { 0, 0 };
	int taken = 0;

	while (!c->closing && !c->held) {
		uint8_t hdr[PROTO_HEADER_LEN];
		size_t avail = evbuffer_get_length(in), flen = 0;
		Asteal__Envelope *m;
		char why[FRAME_WHY_LEN];
		int r;

		evbuffer_copyout(in, hdr, avail < sizeof(hdr) ? avail : sizeof(hdr));
		r = frame_peek(hdr, avail < sizeof(hdr) ? avail : sizeof(hdr), &flen);
		if (r < 0 || (avail >= PROTO_HEADER_LEN &&
		              flen > PROTO_HEADER_LEN + frame_limit(c))) {
			fail_too_large(c, hdr);
			return;
		}
		if (avail < PROTO_HEADER_LEN || avail < flen)
			return;         /* wait for the rest */
		if (taken++ == CONN_TURN_FRAMES) {
			evtimer_add(c->more_ev, &next_turn);
			return;
		}
		m = frame_decode(evbuffer_pullup(in, (ssize_t)flen) + PROTO_HEADER_LEN,
		                 flen - PROTO_HEADER_LEN, why, sizeof(why));
		evbuffer_drain(in, flen);
		c->frames++;
		take_message(c, m, why);
	}
}

/* Where c's bytes read and not yet taken are: a job's own buffer once it
 * reads its socket itself (NULL until it keeps some), else the
 * bufferevent's input. */
static struct evbuffer *input_of(struct conn *c)
{
	return is_job(c) ? c->pend : bufferevent_get_input(c->bev);
}

/* Keep the start of a frame a job sent (n bytes at p) for its next read:
 * 0, or -1 when out of memory (the job is then disconnected). */
static int keep_partial(struct conn *c, const void *p, size_t n)
{
	if ((c->pend == NULL && (c->pend = evbuffer_new()) == NULL) ||
	    evbuffer_add(c->pend, p, n) < 0) {
		log_error("out of memory reading from pid %d", (int)c->peer.pid);
		conn_fail(c, ASTEAL__ERROR_CODE__INTERNAL, "out of memory");
		return -1;
	}
	return 0;
}

/* The bytes c has read and not yet taken: a frame begun, or whole frames
 * waiting for the loop's next turn. */
static size_t unread(struct conn *c)
{
	struct evbuffer *in = input_of(c);

	return in != NULL ? evbuffer_get_length(in) : 0;
}

/* After a read: a frame left begun gets its deadline, unless one runs. */
static void watch_partial(struct conn *c)
{
	static const struct timeval late = { CONN_PARTIAL_MS / 1000,
	                                     CONN_PARTIAL_MS % 1000 * 1000 };

	if (c->closing || unread(c) == 0 || evtimer_pending(c->partial_ev, NULL))
		return;
	c->frames_armed = c->frames;
	evtimer_add(c->partial_ev, &late);
}

/* Tell the owner what c holds read and not yet taken, if that changed:
 * when it will not have c hold more (its uid's budget, admit.h), c gets
 * an Error saying why and is disconnected.  Once c is closing, what it
 * holds stays counted until it is freed (the owner forgets it then). */
static void charge(struct conn *c)
{
	size_t now;
	long delta;
	char why[200];

	if (c->closing || (now = unread(c)) == c->charged)
		return;
	delta = (long)now - (long)c->charged;
	c->charged = now;
	if (c->h->input(c, delta, why, sizeof(why), c->arg) < 0)
		conn_fail(c, ASTEAL__ERROR_CODE__BUSY, why);
}

/* After a read, or the frames of a turn taken: the owner hears what c
 * holds now, and a frame left begun gets its deadline. */
static void settle(struct conn *c)
{
	charge(c);
	watch_partial(c);
}

/* The rest of a burst, at the loop's next turn. */
static void on_more(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = input_of(c);

	(void)fd;
	(void)what;
	if (in != NULL && !c->closing) {
		take_frames(c, in);
		charge(c);
	}
}

/* A frame's deadline passed: the peer is disconnected if no frame came
 * whole since and bytes still wait; otherwise the next one is watched. */
static void on_partial_late(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
	if (c->closing || c->held || unread(c) == 0)
		return;         /* held: conn_resume watches it again */
	if (c->frames == c->frames_armed) {
		char why[64];

		snprintf(why, sizeof(why), "a frame begun %d s ago is not whole "
		         "yet", CONN_PARTIAL_MS / 1000);
		conn_fail(c, ASTEAL__ERROR_CODE__UNEXPECTED, why);
		return;
	}
	watch_partial(c);
}

/* Bytes arrived in the bufferevent's input: take every whole frame. */
static void on_read(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t left;

	take_frames(c, in);
	/* A job that just switched to its own reader (conn_use_job_reader,
	 * from its Hello) may have sent part of its next frame already: it
	 * goes on in c->pend.  (Only libevent may add to a bufferevent's
	 * input.) */
	left = evbuffer_get_length(in);
	if (is_job(c) && !c->closing && left > 0) {
		if ((c->pend == NULL && (c->pend = evbuffer_new()) == NULL) ||
		    evbuffer_remove_buffer(in, c->pend, left) != (int)left) {
			log_error("out of memory reading from pid %d", (int)c->peer.pid);
			conn_fail(c, ASTEAL__ERROR_CODE__INTERNAL, "out of memory");
		}
	}
	settle(c);
}

/* Read what a job's socket has with one recv() and take every whole frame
 * straight from it: 1 when bytes came (the connection may be closing
 * now), 0 when none were there, -1 when the peer is gone and c freed. */
static int read_some(struct conn *c)
{
	uint8_t buf[16384];
	size_t at = 0;
	ssize_t n;

	n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (n <= 0) {
		/* End of stream or an error: what the bufferevent reported
		 * through on_event before. */
		if (n < 0 && !c->closing)
			log_info("peer pid %d: %s", (int)c->peer.pid,
			         evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		conn_free(c);
		return -1;
	}
	/* Bytes left from an earlier read (part of a frame) go first: then
	 * the new ones join them. */
	if (c->pend != NULL && evbuffer_get_length(c->pend) > 0) {
		if (keep_partial(c, buf, (size_t)n) == 0)
			take_frames(c, c->pend);
		return 1;
	}
	while (!c->closing) {
		struct exchange_feedback x;
		size_t flen = 0;
		int r = frame_peek(buf + at, (size_t)n - at, &flen);

		if (r < 0 || flen > PROTO_HEADER_LEN + frame_limit(c)) {
			fail_too_large(c, buf + at);
			return 1;
		}
		if (r == 0) {
			if (at < (size_t)n)
				keep_partial(c, buf + at, (size_t)n - at);
			return 1;
		}
		/* A Feedback is decoded by hand, without allocating
		 * (exchange.c), and handed over as it is; anything else is
		 * decoded by protobuf-c. */
		if (exchange_decode_feedback(buf + at + PROTO_HEADER_LEN,
		                             flen - PROTO_HEADER_LEN, &x)) {
			c->h->feedback(c, &x, c->arg);
		} else {
			char why[FRAME_WHY_LEN];
			Asteal__Envelope *m = frame_decode(buf + at + PROTO_HEADER_LEN,
			                                   flen - PROTO_HEADER_LEN, why,
			                                   sizeof(why));
			take_message(c, m, why);
		}
		c->frames++;
		at += flen;
	}
	return 1;
}

/* read_some, then a frame left begun gets its deadline: its result. */
static int read_job(struct conn *c)
{
	int r = read_some(c);

	if (r > 0)
		settle(c);
	return r;
}

/* A job's socket is readable (its own read event). */
static void on_job_readable(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	read_job(arg);
}

/* A job's Feedbacks and Releaseds are the daemon's most frequent input
 * (every change and heartbeat of every job).  The bufferevent asks the
 * kernel how much is readable (an ioctl) before every read and copies
 * through its buffer chain; a job's own reader does one recv() into the
 * stack and decodes from there.  In a batch the loop does not even wake
 * for it: its input waits in the socket until the batch is read.  The
 * bufferevent keeps writing. */
void conn_use_job_reader(struct conn *c, struct conn_batch *b)
{
	if (b != NULL) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP,
		                          .data.ptr = c };
		struct epoll_event hup = { .events = EPOLLRDHUP, .data.ptr = c };

		if (epoll_ctl(b->ep, EPOLL_CTL_ADD, c->fd, &ev) == 0) {
			if (epoll_ctl(b->hup, EPOLL_CTL_ADD, c->fd, &hup) < 0)
				log_warn("pid %d: epoll_ctl: %s; its end is seen "
				         "at ticks", (int)c->peer.pid, strerror(errno));
			c->batch = b;
			bufferevent_disable(c->bev, EV_READ);
			return;
		}
		log_warn("pid %d: epoll_ctl: %s; read on its own", (int)c->peer.pid,
		         strerror(errno));
	}
	c->rd = event_new(c->base, c->fd, EV_READ | EV_PERSIST,
	                  on_job_readable, c);
	if (c->rd == NULL || event_add(c->rd, NULL) < 0) {
		if (c->rd != NULL)
			event_free(c->rd);
		c->rd = NULL;           /* the bufferevent goes on reading */
		return;
	}
	bufferevent_disable(c->bev, EV_READ);
}

/* An empty batch; NULL (with errno) when epoll cannot be had. */
struct conn_batch *conn_batch_create(void)
{
	struct conn_batch *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return NULL;
	b->ep = epoll_create1(EPOLL_CLOEXEC);
	b->hup = b->ep < 0 ? -1 : epoll_create1(EPOLL_CLOEXEC);
	if (b->hup < 0) {
		int e = errno;

		if (b->ep >= 0)
			close(b->ep);
		free(b);
		errno = e;
		return NULL;
	}
	return b;
}

/* Free a batch (its connections must be gone); NULL is fine. */
void conn_batch_free(struct conn_batch *b)
{
	if (b == NULL)
		return;
	close(b->ep);
	close(b->hup);
	free(b);
}

/* The batch's fd: readable when one of its jobs has input. */
int conn_batch_fd(const struct conn_batch *b)
{
	return b->ep;
}

/* The batch's hang-up fd: readable when one of its jobs closed. */
int conn_batch_hup_fd(const struct conn_batch *b)
{
	return b->hup;
}

/* Read every job of the batch that has input now, and take its frames. */
void conn_batch_read(struct conn_batch *b)
{
	struct epoll_event evs[BATCH_EVENTS];

	for (int round = 0; round < BATCH_ROUNDS; round++) {
		int n = epoll_wait(b->ep, evs, BATCH_EVENTS, 0);

		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			/* A job that spoke and then closed (it ended, or was
			 * killed) leaves both in its socket: its end is read
			 * now too, so that it leaves this tick's DEQ. */
			if (read_job(c) > 0 && !c->closing &&
			    (evs[i].events & (EPOLLHUP | EPOLLRDHUP)))
				read_job(c);
		}
		if (n < BATCH_EVENTS)
			return;
	}
}

/* The peer closed, failed or timed out. */
static void on_event(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	(void)bev;
	if (what & BEV_EVENT_TIMEOUT)
		log_warn("peer pid %d (uid %d): does not read its error: dropped",
		         (int)c->peer.pid, (int)c->peer.uid);
	else if ((what & BEV_EVENT_ERROR) && !c->closing)
		log_info("peer pid %d: %s", (int)c->peer.pid,
		         evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
	conn_free(c);
}

/* The bufferevent reads no more once a frame of c's limit waits in its
 * input (then again as the frames are taken): a peer that sends faster
 * than the daemon takes its frames (CONN_TURN_FRAMES a turn) is slowed,
 * the rest waiting in its socket, instead of making the daemon hold all
 * it sent. */
static void read_ahead(struct conn *c)
{
	bufferevent_setwatermark(c->bev, EV_READ, 0,
	                         PROTO_HEADER_LEN + frame_limit(c));
}

/* The Hello deadline passed: the peer is disconnected, whatever it sent
 * meanwhile (each byte does not buy it more time). */
static void on_hello_late(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
	if (!c->hello || c->closing)
		return;
	conn_fail(c, ASTEAL__ERROR_CODE__UNEXPECTED, "no hello in time");
}

/* A new connection, waiting for its first message. */
struct conn *conn_create(struct event_base *base, evutil_socket_t fd,
                         const struct conn_peer *p, int hello_ms,
                         const struct conn_handler *h, void *arg)
{
	struct timeval hello = { hello_ms / 1000, (hello_ms % 1000) * 1000 };
	struct conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->free_ev = event_new(base, -1, 0, on_free, c);
	c->hello_ev = evtimer_new(base, on_hello_late, c);
	c->more_ev = evtimer_new(base, on_more, c);
	c->partial_ev = evtimer_new(base, on_partial_late, c);
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	c->h = h;
	c->arg = arg;
	if (c->free_ev == NULL || c->hello_ev == NULL || c->more_ev == NULL ||
	    c->partial_ev == NULL || c->bev == NULL || conn__watch_output(c) < 0 ||
	    evtimer_add(c->hello_ev, &hello) < 0) {
		if (c->bev != NULL) {
			bufferevent_setfd(c->bev, -1);  /* fd stays the caller's */
			bufferevent_free(c->bev);
		}
		if (c->hello_ev != NULL)
			event_free(c->hello_ev);
		if (c->free_ev != NULL)
			event_free(c->free_ev);
		if (c->more_ev != NULL)
			event_free(c->more_ev);
		if (c->partial_ev != NULL)
			event_free(c->partial_ev);
		free(c);
		return NULL;
	}
	c->base = base;
	c->fd = fd;
	c->peer = *p;
	c->hello = 1;
	bufferevent_setcb(c->bev, on_read, on_write, on_event, c);
	read_ahead(c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	return c;
}

/* Take nothing more from a client until conn_resume. */
void conn_hold(struct conn *c)
{
	c->held = 1;
	bufferevent_disable(c->bev, EV_READ);
}

/* Take a held client's requests again, those read already first. */
void conn_resume(struct conn *c)
{
	static const struct timeval next_turn = { 0, 0 };

	if (c->held && !c->closing) {
		bufferevent_enable(c->bev, EV_READ);
		if (unread(c) > 0)
			evtimer_add(c->more_ev, &next_turn);
		watch_partial(c);
	}
	c->held = 0;
}

/* The handshake is over: no more deadline. */
void conn_hello_done(struct conn *c)
{
	c->hello = 0;
	evtimer_del(c->hello_ev);
	read_ahead(c);
}

/* Who is at the other end (connpeer.c answers from it). */
const struct conn_peer *conn_peer(const struct conn *c)
{
	return &c->peer;
}
