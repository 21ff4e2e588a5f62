/*
 * childfd.c - a launched job's child's pidfd (see childfd.h).
 *
 * The pidfd is held only when the child is the sender's own and has not
 * exited: then it names a process that was the sender's child while it
 * was open (the pid was not reused between).  A pidfd whose event was
 * deleted is closed only after the loop has applied the deletion, since
 * asteald's epoll changelist applies it at the next dispatch, and an fd
 * closed before would be another's by then.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "childfd.h"
#include "fdlater.h"
#include "proctree.h"
#include "why.h"


/* Whether pid is a child of parent, owned by uid. */
int childfd_is_child(pid_t pid, pid_t parent, uid_t uid)
{
	pid_t ppid;
	uid_t owner;

	return proctree_parent(pid, &ppid, &owner) == 0 && ppid == parent &&
	       owner == uid;
}

/* Open the pidfd of a pid a Launch names. */
int childfd_open(pid_t pid, pid_t sender, uid_t uid, int *fd, char *why,
                 size_t whylen)
{
	(void)sender;
	(void)uid;
	*fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (*fd < 0 && errno != ESRCH)
		return why_fail(why, whylen, errno, "launch: pid %d: pidfd: %s",
		                (int)pid, strerror(errno));
	return 0;
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
