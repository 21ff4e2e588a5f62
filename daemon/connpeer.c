/*
 * connpeer.c - who is at the other end of a connection's socket (see
 * conn.h, conn_peer_of): the uid, gid and pid the kernel saw at connect
 * (SO_PEERCRED), never what a message says, and a pidfd for that very
 * process, so that a signal can never reach another process that reused
 * its pid; the peer's uid and pid, and the signal, for a connection
 * (conn_uid, conn_pid, conn_signal).  The connection itself is conn.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "conn.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77                /* Linux 6.5; older headers lack it */
#endif

/* Learn who is at the other end of fd, with a pidfd for its process. */
int conn_peer_of(evutil_socket_t fd, struct conn_peer *p, char *why,
                 size_t whylen)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int pidfd = -1;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		snprintf(why, whylen, "SO_PEERCRED: %s", strerror(errno));
		return -1;
	}
	p->uid = cred.uid;
	p->gid = cred.gid;
	p->pid = cred.pid;
	/* The kernel's pidfd for the process that connected is the one that
	 * cannot name another process; pidfd_open by pid (older kernels)
	 * could, if the peer died and its pid was reused between connect
	 * and here, a window of microseconds.  A peer gone already gets
	 * none and is never signalled. */
	len = sizeof(pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0) {
		pidfd = -1;
		if (errno == ENOPROTOOPT || errno == EINVAL)
			pidfd = (int)syscall(SYS_pidfd_open, cred.pid, 0);
	}
	if (pidfd < 0 && (errno == EMFILE || errno == ENFILE)) {
		snprintf(why, whylen, "pidfd: %s", strerror(errno));
		return -1;
	}
	p->pidfd = pidfd;               /* close-on-exec, as every pidfd */
	return 0;
}

/* Signal the process that connected, through its pidfd. */
int conn_signal(const struct conn *c, int sig)
{
	const struct conn_peer *p = conn_peer(c);

	if (p->pidfd < 0) {
		errno = ESRCH;
		return -1;
	}
	return (int)syscall(SYS_pidfd_send_signal, p->pidfd, sig, NULL, 0);
}

/* The peer's uid. */
uid_t conn_uid(const struct conn *c)
{
	return conn_peer(c)->uid;
}

/* The peer's pid. */
pid_t conn_pid(const struct conn *c)
{
	return conn_peer(c)->pid;
}
