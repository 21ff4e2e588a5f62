/*
 * sockwatch.h - the daemon's socket watched for its return (see
 * sockwatch.c): an inotify watch on the socket's folder that says when a
 * file of the socket's name appears there, as a daemon that starts binds
 * it.  The link thread (quantum.c) polls its descriptor while it has no
 * daemon, and tries to connect at once when it says so.
 */
#ifndef ASTEAL_SOCKWATCH_H
#define ASTEAL_SOCKWATCH_H

/* A watch on one socket path; fd -1 when there is none. */
struct sockwatch {
	int fd;                         /* the inotify instance, or -1 */
	char name[108];                 /* the socket's name in its folder */
};

/* No watch yet (call before any other). */
void sockwatch_init(struct sockwatch *w);

/* Watch the folder of the socket at path (a watch already there is
 * kept): 0, or -1 with errno (no inotify, no such folder, no instance
 * left: the caller then retries with its backoff alone). */
int sockwatch_open(struct sockwatch *w, const char *path);

/* The descriptor to poll for input, -1 when not watching. */
int sockwatch_fd(const struct sockwatch *w);

/* Read what the watch says: 1 when the socket's name was created or
 * moved into the folder, or events were lost (which may hide it), or the
 * folder went away (the watch is closed then: the next sockwatch_open
 * watches anew); 0 when nothing of it. */
int sockwatch_seen(struct sockwatch *w);

/* Stop watching (nothing to do when not watching). */
void sockwatch_close(struct sockwatch *w);

#endif
