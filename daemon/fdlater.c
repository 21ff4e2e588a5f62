/*
 * fdlater.c - descriptors closed after the event loop's next dispatch
 * (see fdlater.h): a connection's socket, whose events the loop deletes
 * from epoll only at its next dispatch (main.c's changelist), keeps its
 * number (held by /dev/null) until then, so that no other file opened
 * meanwhile gets it under a stale registration.
 */
#include "fdlater.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

/* Sockets closed later (fdlater_close): the numbers /dev/null holds until
 * the timer after the loop's next dispatch closes them all, or
 * fdlater_flush does (the owner, before it frees the loop, when that
 * timer may not have fired).  One event loop per process uses
 * connections at a time. */
static struct {
	struct event_base *base;       /* the loop of ev */
	struct event *ev;              /* closes them, soon */
	int *fd;
	size_t n, cap;
} later;

/* Close every number waiting. */
static void close_waiting(void)
{
	for (size_t i = 0; i < later.n; i++)
		close(later.fd[i]);
	later.n = 0;
}

/* The timer after the loop's next dispatch: close what waits. */
static void on_later(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	close_waiting();
}

/* Close the sockets still waiting, and forget the timer (the owner frees
 * its loop next). */
void fdlater_flush(void)
{
	close_waiting();
	if (later.ev != NULL)
		event_free(later.ev);
	free(later.fd);
	memset(&later, 0, sizeof(later));
}

/* Count the numbers waiting. */
int fdlater_pending(void)
{
	return (int)later.n;
}

/* Close a socket now, but free its number only after the loop's next
 * dispatch: with the epoll changelist (main.c) the deletion
 * of its events reaches epoll only then, and a number freed before could
 * be another thread's file by then (the confinement watcher opens
 * /proc's).  So /dev/null takes the number (dup3 closes the socket: the
 * peer sees the end at once) until a timer closes it.  A plain close when
 * that cannot be arranged.  (Not event_base_get_running_event to tell
 * whether the loop runs: libevent 2.1 reads a NULL pointer when no event
 * is running.  The owner calls fdlater_flush before it frees the loop.) */
void fdlater_close(struct event_base *base, int fd)
{
	/* Not 0, which libevent runs in this very turn: a timeout runs
	 * after the next dispatch. */
	static const struct timeval soon = { 0, 1 };
	int nul;

	if (later.base != base) {               /* another loop: start again */
		fdlater_flush();
		if ((later.ev = evtimer_new(base, on_later, NULL)) == NULL)
			goto now;
		later.base = base;
	}
	if (later.n == later.cap) {
		size_t cap = later.cap ? 2 * later.cap : 64;
		int *n = realloc(later.fd, cap * sizeof(*n));

		if (n == NULL)
			goto now;
		later.fd = n;
		later.cap = cap;
	}
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nul < 0 || dup3(nul, fd, O_CLOEXEC) < 0 ||
	    evtimer_add(later.ev, &soon) < 0) {
		if (nul >= 0)
			close(nul);
		goto now;
	}
	close(nul);
	later.fd[later.n++] = fd;
	return;
now:
	close(fd);
}

