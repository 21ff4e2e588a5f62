/*
 * histreader.c - the history's reader (see histreader.h): a thread with
 * its own read-only connection builds History pages, one at a time, in
 * the order they were asked, encodes each as its reply's frame, and hands
 * the frame back to the event loop, which sends it.
 *
 * A request is a `struct ask`.  The loop makes it (histreader_ask), keeps
 * it in its list of asks not yet answered (`asks`, the loop's alone, with
 * each ask's connection), and queues it for the thread (`todo`, under the
 * mutex).  The thread takes it, builds its page, encodes the reply into a
 * frame of its own allocation, frees the page, queues the ask as done
 * (`done`, under the mutex) and writes the eventfd; the loop, woken,
 * takes the done asks, sends each frame to its connection if it is still
 * there, resumes the connection, frees the ask and gives the frame back
 * (`spent`, under the mutex) for the thread to free.  So the loop frees
 * nothing the thread allocated: a free into another thread's malloc arena
 * takes that arena's lock, and the thread, an ordinary one, may hold it,
 * preempted, while allocating its next page (freeing a page's 2,000
 * records on the loop made ticks up to 5-13 ms late).  An ask is the
 * loop's, then the thread's while it builds (its state under the mutex),
 * then the loop's again; only the loop touches the connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <event2/event.h>

#include "conn.h"
#include "frame.h"
#include "histpage.h"
#include "histreader.h"
#include "history.h"

/* Where an ask is: waiting for the thread, being built, built. */
enum ask_state { ASK_TODO, ASK_BUILDING, ASK_DONE };

/* A reply's frame, encoded by the thread (and freed by it). */
struct framebuf {
	struct framebuf *next;         /* in spent */
	size_t len;
	uint8_t bytes[];
};

/* One History request on its way to a page. */
struct ask {
	/* The loop's alone. */
	struct conn *conn;             /* NULL once its connection went */
	struct ask *prev, *next;       /* in the reader's asks */
	/* Under the mutex. */
	enum ask_state state;
	struct ask *qnext;             /* in todo or done */
	/* The request: written by the loop before it is queued, read by the
	 * thread. */
	uint64_t request_id;           /* the reply's Envelope.request_id */
	Asteal__HistoryRequest rq;
	Asteal__HistoryCursor after;
	struct histpage_viewer v;
	/* The reply: the thread's while it builds, then the loop's (NULL
	 * when out of memory). */
	struct framebuf *frame;
	uint64_t ids[];                /* rq.job_ids */
};

/* A queue of asks, first in first out. */
struct askq {
	struct ask *head, *tail;
};

struct histreader {
	struct event_base *base;
	struct history *hist;          /* the writer's (the loop's) */
	struct ask *asks;              /* not answered yet (the loop's) */
	int nasks;
	/* The thread's, NULL when pages are built on the loop. */
	struct history *rd;            /* its read-only connection */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct askq todo, done;        /* under mu */
	struct framebuf *spent;        /* sent, for the thread to free (mu) */
	int stop;                      /* under mu */
	int efd;                       /* written when an ask is done */
	struct event *done_ev;         /* ... which wakes the loop */
	int gate;                      /* a test's gate (HISTREADER_GATE_ENV),
	                                  or -1 */
	int stopfd;                    /* with a gate: written to stop */
};

/* Append a to q. */
static void askq_put(struct askq *q, struct ask *a)
{
	a->qnext = NULL;
	if (q->tail != NULL)
		q->tail->qnext = a;
	else
		q->head = a;
	q->tail = a;
}

/* Take q's first ask (NULL when empty). */
static struct ask *askq_take(struct askq *q)
{
	struct ask *a = q->head;

	if (a != NULL) {
		q->head = a->qnext;
		if (q->head == NULL)
			q->tail = NULL;
	}
	return a;
}

/* Take ask a out of q, wherever it is in it. */
static void askq_remove(struct askq *q, struct ask *a)
{
	struct ask **p = &q->head, *before = NULL;

	while (*p != NULL && *p != a) {
		before = *p;
		p = &(*p)->qnext;
	}
	if (*p == NULL)
		return;
	*p = a->qnext;
	if (q->tail == a)
		q->tail = before;
}

/* Free frames (a spent list). */
static void frames_free(struct framebuf *f)
{
	while (f != NULL) {
		struct framebuf *next = f->next;

		free(f);
		f = next;
	}
}

/* Encode the reply to request request_id: page p, or Error code with
 * why, or Error TOO_LARGE when the page would not fit a frame (never:
 * pages are cut at half of one).  NULL when out of memory. */
static struct framebuf *encode(const struct histpage *p, Asteal__ErrorCode code,
                               const char *why, uint64_t request_id)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__Error err;
	struct framebuf *f;
	char big[160];
	size_t len = 0;

	if (code == 0) {
		env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY;
		env.history = (Asteal__History *)&p->h;
	} else {
		frame_error(&env, &err, code, why);
	}
	env.request_id = request_id;
	if (frame_encode(&env, NULL, 0, &len) < 0 && errno == EMSGSIZE) {
		snprintf(big, sizeof(big), "the History reply would take %zu "
		         "bytes, above the protocol's limit of %u: ask for less",
		         frame_size(&env), PROTO_MAX_FRAME);
		frame_error(&env, &err, ASTEAL__ERROR_CODE__TOO_LARGE, big);
		env.request_id = request_id;
		frame_encode(&env, NULL, 0, &len);
	}
	f = malloc(sizeof(*f) + len);
	if (f == NULL || frame_encode(&env, f->bytes, len, &f->len) < 0) {
		free(f);
		return NULL;
	}
	f->next = NULL;
	return f;
}

/* Build the page of ask a with the handle h and encode its reply. */
static void build(struct ask *a, struct history *h)
{
	struct histpage p;
	char why[300];
	Asteal__ErrorCode code = histpage_build(&p, h, &a->rq, &a->v, why,
	                                        sizeof(why));

	a->frame = encode(&p, code, why, a->request_id);
	histpage_free(&p);
}

/* Take ask a out of the loop's list. */
static void asks_unlink(struct histreader *r, struct ask *a)
{
	if (a->prev != NULL)
		a->prev->next = a->next;
	else
		r->asks = a->next;
	if (a->next != NULL)
		a->next->prev = a->prev;
	r->nasks--;
}

/* Add one to an eventfd's counter.  It fails only when the counter is
 * full (EAGAIN), which wakes its reader all the same. */
static void kick(int fd)
{
	const uint64_t one = 1;
	ssize_t n = write(fd, &one, sizeof(one));

	(void)n;
}

/* A test's gate: wait for a byte from it, or for the stop; 0 when a byte
 * came, -1 when stopping. */
static int gate_pass(struct histreader *r)
{
	struct pollfd pf[2] = { { .fd = r->gate, .events = POLLIN },
	                        { .fd = r->stopfd, .events = POLLIN } };
	char b;

	for (;;) {
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			return -1;
		if (pf[1].revents != 0)
			return -1;
		if (pf[0].revents & (POLLERR | POLLHUP | POLLNVAL))
			return 0;       /* a broken gate lets pages through */
		if ((pf[0].revents & POLLIN) && read(r->gate, &b, 1) == 1)
			return 0;
	}
}

/* The thread: build the asks' pages one at a time, in order. */
static void *reader_main(void *arg)
{
	struct histreader *r = arg;
	struct sched_param sp = { .sched_priority = 0 };

	/* An ordinary thread: the loop may be real-time (--rt-priority), and
	 * a page must neither wait for it nor keep it or the jobs waiting. */
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	pthread_setname_np(pthread_self(), "asteald-hist");
	pthread_mutex_lock(&r->mu);
	for (;;) {
		struct framebuf *spent;
		struct ask *a;

		while (!r->stop && r->todo.head == NULL && r->spent == NULL)
			pthread_cond_wait(&r->cv, &r->mu);
		spent = r->spent;
		r->spent = NULL;
		a = r->stop ? NULL : askq_take(&r->todo);
		if (a != NULL)
			a->state = ASK_BUILDING;
		pthread_mutex_unlock(&r->mu);
		frames_free(spent);
		if (a == NULL) {
			pthread_mutex_lock(&r->mu);
			if (r->stop)
				break;
			continue;
		}
		if (r->gate >= 0 && gate_pass(r) < 0) {
			pthread_mutex_lock(&r->mu);
			break;          /* stopping: the loop frees it */
		}
		build(a, r->rd);
		pthread_mutex_lock(&r->mu);
		a->state = ASK_DONE;
		askq_put(&r->done, a);
		pthread_mutex_unlock(&r->mu);
		kick(r->efd);
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* Send a reply's frame to its connection (if it is still there; an Error
 * when there is no frame, out of memory) and take the connection's
 * requests again. */
static void answer(struct conn *c, const struct framebuf *f,
                   uint64_t request_id)
{
	Asteal__Envelope env;
	Asteal__Error err;

	if (c == NULL)
		return;
	if (f != NULL) {
		conn_send_frame(c, f->bytes, f->len);
	} else {
		frame_error(&env, &err, ASTEAL__ERROR_CODE__INTERNAL,
		            "out of memory");
		env.request_id = request_id;
		conn_send(c, &env);
	}
	conn_resume(c);
}

/* The eventfd: pages are done; answer them, in order. */
static void on_done(evutil_socket_t fd, short what, void *arg)
{
	struct histreader *r = arg;
	struct framebuf *spent = NULL;
	struct askq done;
	struct ask *a;
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	pthread_mutex_lock(&r->mu);
	done = r->done;
	r->done.head = r->done.tail = NULL;
	pthread_mutex_unlock(&r->mu);
	while ((a = askq_take(&done)) != NULL) {
		asks_unlink(r, a);
		answer(a->conn, a->frame, a->request_id);
		if (a->frame != NULL) {
			a->frame->next = spent;
			spent = a->frame;
		}
		free(a);
	}
	if (spent == NULL)
		return;
	pthread_mutex_lock(&r->mu);
	while (spent != NULL) {
		struct framebuf *f = spent;

		spent = f->next;
		f->next = r->spent;
		r->spent = f;
	}
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

/* Open the test's gate named by HISTREADER_GATE_ENV, if any: 0, or -1
 * with why. */
static int gate_open(struct histreader *r, char *why, size_t whylen)
{
	const char *path = getenv(HISTREADER_GATE_ENV);

	if (path == NULL || *path == '\0')
		return 0;
	/* Read and write: the open never waits for a writer, and the FIFO
	 * never reads as ended when the test's writer closes. */
	r->gate = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	r->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->gate < 0 || r->stopfd < 0) {
		snprintf(why, whylen, "%s %s: %s", HISTREADER_GATE_ENV, path,
		         strerror(errno));
		return -1;
	}
	return 0;
}

/* Close what start_thread opened; the thread is not running. */
static void thread_parts_free(struct histreader *r)
{
	if (r->done_ev != NULL)
		event_free(r->done_ev);
	r->done_ev = NULL;
	if (r->efd >= 0)
		close(r->efd);
	if (r->gate >= 0)
		close(r->gate);
	if (r->stopfd >= 0)
		close(r->stopfd);
	r->efd = r->gate = r->stopfd = -1;
	history_close(r->rd);
	r->rd = NULL;
}

/* Open the read-only connection, the eventfd and its event, and start the
 * thread: 0, or -1 with why (nothing left open). */
static int start_thread(struct histreader *r, const char *path, char *why,
                        size_t whylen)
{
	int err;

	if (path == NULL || strcmp(path, ":memory:") == 0) {
		snprintf(why, whylen, "a history in memory has no second "
		         "connection");
		return -1;
	}
	r->rd = history_open_reader(path, why, whylen);
	if (r->rd == NULL)
		return -1;
	r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->efd < 0) {
		snprintf(why, whylen, "eventfd: %s", strerror(errno));
		goto fail;
	}
	r->done_ev = event_new(r->base, r->efd, EV_READ | EV_PERSIST, on_done, r);
	if (r->done_ev == NULL || event_add(r->done_ev, NULL) < 0) {
		snprintf(why, whylen, "cannot watch its eventfd");
		goto fail;
	}
	if (gate_open(r, why, whylen) < 0)
		goto fail;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if ((err = pthread_create(&r->thread, NULL, reader_main, r)) != 0) {
		snprintf(why, whylen, "pthread_create: %s", strerror(err));
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		goto fail;
	}
	return 0;
fail:
	thread_parts_free(r);
	return -1;
}

/* A reader; pages on a thread when one can be had. */
struct histreader *histreader_create(struct event_base *base,
                                     struct history *hist, const char *path,
                                     char *why, size_t whylen)
{
	struct histreader *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->base = base;
	r->hist = hist;
	r->efd = r->gate = r->stopfd = -1;
	if (why != NULL && whylen > 0)
		*why = '\0';
	(void)start_thread(r, path, why, whylen);
	return r;
}

/* Whether pages are built on a thread. */
int histreader_threaded(const struct histreader *r)
{
	return r != NULL && r->rd != NULL;
}

/* Stop the thread, drop what waits, free everything. */
void histreader_free(struct histreader *r)
{
	if (r == NULL)
		return;
	if (r->rd != NULL) {
		pthread_mutex_lock(&r->mu);
		r->stop = 1;
		pthread_cond_signal(&r->cv);
		pthread_mutex_unlock(&r->mu);
		if (r->stopfd >= 0)
			kick(r->stopfd);        /* a gate's wait ends too */
		pthread_join(r->thread, NULL);
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		thread_parts_free(r);
		frames_free(r->spent);
	}
	/* Every ask is the loop's now, wherever it was. */
	while (r->asks != NULL) {
		struct ask *a = r->asks;

		asks_unlink(r, a);
		free(a->frame);
		free(a);
	}
	free(r);
}

/* Copy request rq into a new ask for connection c (NULL when out of
 * memory). */
static struct ask *ask_new(struct conn *c, const Asteal__HistoryRequest *rq,
                           const struct histpage_viewer *v)
{
	struct ask *a = calloc(1, sizeof(*a) + rq->n_job_ids * sizeof(uint64_t));

	if (a == NULL)
		return NULL;
	a->conn = c;
	a->request_id = conn_reply_id(c);
	a->rq = *rq;
	a->rq.base.unknown_fields = NULL;
	a->rq.base.n_unknown_fields = 0;
	a->rq.job_ids = a->ids;
	if (rq->n_job_ids > 0)
		memcpy(a->ids, rq->job_ids, rq->n_job_ids * sizeof(uint64_t));
	if (rq->after != NULL) {
		a->after = *rq->after;
		a->after.base.unknown_fields = NULL;
		a->after.base.n_unknown_fields = 0;
		a->rq.after = &a->after;
	}
	a->v = *v;
	return a;
}


/* Ask for a page: queued for the thread (c held), or built now. */
Asteal__ErrorCode histreader_ask(struct histreader *r, struct conn *c,
                                 const Asteal__HistoryRequest *rq,
                                 const struct histpage_viewer *v, char *why,
                                 size_t whylen)
{
	struct ask *a;

	if (r->rd != NULL && r->nasks >= HISTREADER_MAX) {
		snprintf(why, whylen, "%d history pages are being built for "
		         "others: try again", HISTREADER_MAX);
		return ASTEAL__ERROR_CODE__BUSY;
	}
	/* A query's first page sees every run and job up to now: what is
	 * pending is committed first (the writer stays on the loop); later
	 * pages see what was committed since. */
	if (r->rd != NULL && rq->after == NULL && history_commit(r->hist) < 0) {
		snprintf(why, whylen, "%s", history_error(r->hist));
		return ASTEAL__ERROR_CODE__INTERNAL;
	}
	if ((a = ask_new(c, rq, v)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return ASTEAL__ERROR_CODE__INTERNAL;
	}
	if (r->rd == NULL) {
		/* No thread: the page now, on the loop, with the writer. */
		build(a, r->hist);
		answer(c, a->frame, a->request_id);
		free(a->frame);
		free(a);
		return 0;
	}
	a->next = r->asks;
	if (r->asks != NULL)
		r->asks->prev = a;
	r->asks = a;
	r->nasks++;
	conn_hold(c);
	pthread_mutex_lock(&r->mu);
	a->state = ASK_TODO;
	askq_put(&r->todo, a);
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return 0;
}

/* Connection c is going: drop its page. */
void histreader_forget(struct histreader *r, struct conn *c)
{
	struct ask *a, *next;

	if (r == NULL)
		return;
	for (a = r->asks; a != NULL; a = next) {
		next = a->next;
		if (a->conn != c)
			continue;
		a->conn = NULL;
		/* Not begun: out of the queue at once, its place freed. */
		pthread_mutex_lock(&r->mu);
		if (a->state == ASK_TODO)
			askq_remove(&r->todo, a);
		else
			a = NULL;       /* the thread's: dropped when done */
		pthread_mutex_unlock(&r->mu);
		if (a != NULL) {
			asks_unlink(r, a);
			free(a);        /* no frame yet */
		}
	}
}
