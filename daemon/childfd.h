/*
 * childfd.h - a pidfd on the child of a launched job, held when the child
 * is the sender's own (the supervisor's), so that when the supervisor
 * goes while the child lives, the daemon can still signal the child and
 * learn when it exits (launch.c says when it holds and watches one);
 * and whether a Launch may name a pid at all.
 */
#ifndef ASTEAL_CHILDFD_H
#define ASTEAL_CHILDFD_H

#include <sys/types.h>

#include <event2/event.h>

/* A child's pidfd and its watch. */
struct childfd {
	int fd;                    /* -1 once the child has exited (or never) */
	struct event *ev;          /* fires when it exits (watched once its
	                              supervisor is gone) */
};

/* Whether pid is a child of parent, owned by uid. */
int childfd_is_child(pid_t pid, pid_t parent, uid_t uid);

/* The pidfd of pid, which a Launch from process sender of uid names,
 * when the sender may name it: root any pid; anyone else itself or a
 * descendant of it whose real uid is its own, read from /proc with the
 * pidfd taken first and found still live after, so that the pid cannot
 * have been reused between the check and its use.  0 with the pidfd in
 * *fd (-1 for root naming a pid that does not exist), or -1 with errno
 * (EPERM: not the sender's to name; ESRCH: no such process; EMFILE ...)
 * and the reason in why. */
int childfd_open(pid_t pid, pid_t sender, uid_t uid, int *fd, char *why,
                 size_t whylen);

/* Whether fd, a pidfd on pid, is worth holding: pid is a child of
 * sender owned by uid that has not exited (the daemon may then signal it
 * and watch for its exit once its supervisor is gone). */
int childfd_worth(int fd, pid_t pid, pid_t sender, uid_t uid);

/* Hold fd (a pidfd childfd_worth approved, or -1: none) in c. */
void childfd_hold(struct childfd *c, int fd);

/* Watch c's pidfd on base, calling exited(fd, what, arg) when the child
 * exits: 0 (also when there is no pidfd or it is watched already), or -1
 * with errno when it cannot be watched (the pidfd is then closed). */
int childfd_watch(struct childfd *c, struct event_base *base, event_callback_fn exited,
                  void *arg);

/* Close c's pidfd and its watch: now, when the loop is not running
 * (now set), else after the next dispatch of base. */
void childfd_close(struct childfd *c, struct event_base *base, int now);

/* Send sig to the child through c's pidfd: 0, or -1 with errno (ESRCH:
 * it has exited). */
int childfd_signal(const struct childfd *c, int sig);

#endif
