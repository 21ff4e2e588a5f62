/*
 * childfd.c - a launched job's child's pidfd (see childfd.h).
 *
 * A Launch's pid is checked through a pidfd taken before /proc is read,
 * and found live after: whatever /proc said was of the process the pidfd
 * holds.  The pidfd is held only when the child is the sender's own and
 * has not exited: then it names a process that was the sender's child
 * while it was open (the pid was not reused between).  A pidfd whose event was
 * deleted is closed only after the loop has applied the deletion, since
 * asteald's epoll changelist applies it at the next dispatch, and an fd
 * closed before would be another's by then.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "childfd.h"
#include "fdlater.h"
#include "proctree.h"
#include "why.h"

/* The generations between a Launch's sender and a pid it may name. */
#define CHILDFD_MAX_DEPTH 64

/* Whether pid is a child of parent, owned by uid. */
int childfd_is_child(pid_t pid, pid_t parent, uid_t uid)
{
	pid_t ppid;
	uid_t owner;

	return proctree_parent(pid, &ppid, &owner) == 0 && ppid == parent &&
	       owner == uid;
}

/* Whether pid is sender or a descendant of it (within
 * CHILDFD_MAX_DEPTH generations). */
static int descends(pid_t pid, pid_t sender)
{
	pid_t ppid;
	uid_t owner;

	for (int depth = 0; depth <= CHILDFD_MAX_DEPTH; depth++) {
		if (pid == sender)
			return 1;
		if (pid <= 1 || proctree_parent(pid, &ppid, &owner) < 0)
			return 0;
		pid = ppid;
	}
	return 0;
}

/* Open the pidfd of a pid a Launch names, when its sender may name it. */
int childfd_open(pid_t pid, pid_t sender, uid_t uid, int *fd, char *why,
                 size_t whylen)
{
	pid_t ppid;
	uid_t owner;
	int err;

	*fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (uid == 0) {                 /* root names any pid */
		if (*fd < 0 && errno != ESRCH)
			return why_fail(why, whylen, errno, "launch: pid %d: "
			                "pidfd: %s", (int)pid, strerror(errno));
		return 0;
	}
	if (*fd < 0)
		return why_fail(why, whylen, errno, "launch: pid %d: %s", (int)pid,
		                errno == ESRCH ? "no such process" : strerror(errno));
	if (proctree_parent(pid, &ppid, &owner) < 0) {
		err = errno;
		snprintf(why, whylen, "launch: pid %d: %s", (int)pid,
		         err == ENOENT || err == ESRCH ? "no such process"
		         : strerror(err));
		if (err == ENOENT)
			err = ESRCH;
		goto refused;
	}
	if (owner != uid || !descends(pid, sender)) {
		err = EPERM;
		snprintf(why, whylen, "launch: pid %d is not a process of the "
		         "sender (pid %d, uid %d) or one it started", (int)pid,
		         (int)sender, (int)uid);
		goto refused;
	}
	/* Still the process the pidfd holds: what /proc said was its own. */
	if (syscall(SYS_pidfd_send_signal, *fd, 0, NULL, 0) < 0 &&
	    errno != EPERM) {
		err = ESRCH;
		snprintf(why, whylen, "launch: pid %d has exited", (int)pid);
		goto refused;
	}
	return 0;
refused:
	close(*fd);
	*fd = -1;
	errno = err;
	return -1;
}

/* Whether a pidfd names a running child of the sender. */
int childfd_worth(int fd, pid_t pid, pid_t sender, uid_t uid)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return fd >= 0 && childfd_is_child(pid, sender, uid) && poll(&p, 1, 0) == 0;
}

/* Hold a pidfd on the launched child. */
void childfd_hold(struct childfd *c, int fd)
{
	c->fd = fd;
	c->ev = NULL;
}

/* Watch the child's pidfd for its exit. */
int childfd_watch(struct childfd *c, struct event_base *base, event_callback_fn exited,
                  void *arg)
{
	int err;

	if (c->fd < 0 || c->ev != NULL)
		return 0;
	c->ev = event_new(base, c->fd, EV_READ, exited, arg);
	if (c->ev == NULL || event_add(c->ev, NULL) < 0) {
		err = errno;
		if (c->ev != NULL)
			event_free(c->ev);
		c->ev = NULL;
		close(c->fd);
		c->fd = -1;
		errno = err;
		return -1;
	}
	return 0;
}

/* Close the pidfd and its watch: a watched one once the loop has applied
 * its event's deletion (fdlater), unless now. */
void childfd_close(struct childfd *c, struct event_base *base, int now)
{
	int watched = c->ev != NULL;

	if (c->ev != NULL)
		event_free(c->ev);
	c->ev = NULL;
	if (c->fd >= 0 && (now || !watched))
		close(c->fd);
	else if (c->fd >= 0)
		fdlater_close(base, c->fd);
	c->fd = -1;
}

/* Send sig to the child through its pidfd. */
int childfd_signal(const struct childfd *c, int sig)
{
	return syscall(SYS_pidfd_send_signal, c->fd, sig, NULL, 0) < 0 ? -1 : 0;
}
