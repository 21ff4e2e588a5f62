/*
 * loadconn.c - asteal-loadgen's connections to asteald (see loadconn.h).
 * The jobs' sockets are nonblocking once welcomed, so a frame is written
 * whole with a short poll when the socket's buffer is full; the client
 * connection blocks, one request and its reply at a time.
 */
#include "loadconn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "frame.h"

/* A client connection: its socket and its reader. */
struct loadconn {
	int fd;
	struct frame_reader *r;
};

/* Connect and say Hello with role and workers. */
int loadconn_dial(const char *path, Asteal__Role role, uint32_t workers,
                  int page, int page_allot)
{
	struct sockaddr_un sa;
	Asteal__Envelope env;
	Asteal__Hello h;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	frame_hello(&env, &h, role, "loadgen", workers, "asteal-loadgen", "loadgen");
	h.page = page || page_allot;
	h.page_allot = page_allot;
	if (frame_write_fd(fd, &env) < 0) {
		perror("loadgen: sending a hello");
		close(fd);
		return -1;
	}
	return fd;
}

/* Write all of buf, polling for room while the socket is full. */
int loadconn_send(int fd, const uint8_t *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = { fd, POLLOUT, 0 };
			poll(&p, 1, 1000);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Connect as a client and take the Welcome. */
struct loadconn *loadconn_open(const char *path)
{
	struct loadconn *c = calloc(1, sizeof(*c));
	Asteal__Envelope *m = NULL;

	if (c == NULL) {
		fprintf(stderr, "loadgen: out of memory\n");
		return NULL;
	}
	c->fd = loadconn_dial(path, ASTEAL__ROLE__CLIENT, 0, 0, 0);
	c->r = frame_reader_new();
	if (c->fd < 0 || c->r == NULL || frame_reader_read(c->r, c->fd, &m) != 1) {
		fprintf(stderr, "loadgen: no welcome for the status\n");
		loadconn_free(c);
		return NULL;
	}
	frame_free(m);          /* the Welcome */
	return c;
}

/* Send a request and read the reply. */
Asteal__Envelope *loadconn_ask(struct loadconn *c, Asteal__Envelope *req)
{
	Asteal__Envelope *m = NULL;

	if (frame_write_fd(c->fd, req) < 0 || frame_reader_read(c->r, c->fd, &m) != 1)
		return NULL;
	return m;
}

/* Ask for the Status. */
Asteal__Envelope *loadconn_status(struct loadconn *c)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;

	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	env.status_request = &sr;
	m = loadconn_ask(c, &env);
	if (m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_STATUS) {
		fprintf(stderr, "loadgen: no status from the daemon\n");
		frame_free(m);
		return NULL;
	}
	return m;
}

/* Close the client connection. */
void loadconn_free(struct loadconn *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	frame_reader_free(c->r);
	free(c);
}
