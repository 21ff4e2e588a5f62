/*
 * sockwatch.c - the daemon's socket watched for its return: an inotify
 * watch on the folder of ASTEAL_SOCKET, which says when a file of the
 * socket's name is created there or moved there.  A daemon that starts
 * binds its socket (replacing a stale one: deleted, then created), so the
 * link thread (quantum.c), which polls this watch's descriptor while it
 * has no daemon, notices the daemon's return as it binds instead of at
 * its next backoff (up to 2 s later).  A socket systemd holds is never
 * created anew, but connecting to it succeeds, daemon or not.
 *
 * Best effort: without inotify, without the folder (not created yet), or
 * out of inotify instances, there is no watch and the link thread retries
 * with its backoff alone; nothing here exits or aborts.  The folder's
 * other files wake the thread too (it reads their events and finds no
 * name of interest), but only while the job has no daemon.
 */
#include "sockwatch.h"

#include <errno.h>
#include <stdalign.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

/* What a watch listens for: the name appearing, and the folder going. */
#define WATCH_EVENTS (IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | \
                      IN_MOVE_SELF | IN_ONLYDIR)

/* No watch yet. */
void sockwatch_init(struct sockwatch *w)
{
	w->fd = -1;
	w->name[0] = '\0';
}

/* Watch the folder of the socket at path. */
int sockwatch_open(struct sockwatch *w, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash != NULL ? slash + 1 : path;
	char dir[sizeof(w->name)];
	size_t dlen = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);

	if (w->fd >= 0)
		return 0;
	if (*base == '\0' || strlen(base) >= sizeof(w->name) ||
	    dlen >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (slash == NULL)
		memcpy(dir, ".", 2);
	else {
		memcpy(dir, path, dlen);
		dir[dlen] = '\0';
	}
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		return -1;
	if (inotify_add_watch(w->fd, dir, WATCH_EVENTS) < 0) {
		int e = errno;

		sockwatch_close(w);
		errno = e;
		return -1;
	}
	memcpy(w->name, base, strlen(base) + 1);
	return 0;
}

/* The descriptor to poll, -1 when not watching. */
int sockwatch_fd(const struct sockwatch *w)
{
	return w->fd;
}

/* Read the events: whether the socket's name appeared. */
int sockwatch_seen(struct sockwatch *w)
{
	alignas(struct inotify_event) char buf[4096];
	int seen = 0, gone = 0;
	ssize_t n;

	if (w->fd < 0)
		return 0;
	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const void *)p;

			if (e->mask & IN_Q_OVERFLOW)
				seen = 1;       /* lost events: it may be there */
			if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF))
				gone = 1;
			if ((e->mask & (IN_CREATE | IN_MOVED_TO)) && e->len > 0 &&
			    strcmp(e->name, w->name) == 0)
				seen = 1;
			p += sizeof(*e) + e->len;
		}
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		gone = 1;
	if (gone)
		sockwatch_close(w);     /* the next attempt watches anew */
	return seen || gone;
}

/* Stop watching. */
void sockwatch_close(struct sockwatch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
