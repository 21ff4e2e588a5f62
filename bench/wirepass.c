/*
 * wirepass.c - descriptors passed between asteal-wirefloor's two
 * processes (see wirepass.h): one byte of data carries each batch.
 */
#include "wirepass.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* Send k descriptors in one message. */
int wirepass_send(int ctl, const int *fds, int k)
{
	union {
		char buf[CMSG_SPACE(WIREPASS_BATCH * sizeof(int))];
		struct cmsghdr align;
	} u;
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m;
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = CMSG_SPACE((size_t)k * sizeof(int));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN((size_t)k * sizeof(int));
	memcpy(CMSG_DATA(c), fds, (size_t)k * sizeof(int));
	return sendmsg(ctl, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* Receive one message of descriptors. */
int wirepass_recv(int ctl, int *fds, int room)
{
	union {
		char buf[CMSG_SPACE(WIREPASS_BATCH * sizeof(int))];
		struct cmsghdr align;
	} u;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m;
	struct cmsghdr *c;
	int k;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	if (recvmsg(ctl, &m, MSG_CMSG_CLOEXEC) != 1 || (m.msg_flags & MSG_CTRUNC))
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
		return -1;
	k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
	if (k > room)
		return -1;
	memcpy(fds, CMSG_DATA(c), (size_t)k * sizeof(int));
	return k;
}
