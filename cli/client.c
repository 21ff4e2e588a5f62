/*
 * client.c - the command line's connection to asteald (see client.h).
 * Blocking I/O on one socket, every wait bounded by poll.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "asteal.h"
#include "cli.h"
#include "client.h"
#include "frame.h"
#include "qtime.h"

struct client {
	int fd;
	struct frame_reader *reader;
	const char *path;
	unsigned quantum_us;
	int ncpus;
	uint64_t last_id;       /* the request_id of the last request sent */
	int quiet;              /* say nothing when the daemon goes away */
};

/* Milliseconds on the monotonic clock. */
static long long mono_ms(void)
{
	return (long long)(qtime_now_ns() / 1000000u);
}

/* Connect and shake hands; quiet: say nothing when nothing answers. */
static int client_connect(const char *path, struct client **out, int quiet)
{
	struct sockaddr_un sa;
	struct client *c;
	Asteal__Envelope env, *m = NULL;
	Asteal__Hello hello;
	char why[256];
	int code, r;

	*out = NULL;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		cli_error("%s: socket path too long", path);
		return CLI_USAGE;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL || (c->reader = frame_reader_new()) == NULL) {
		free(c);
		cli_error("out of memory");
		return CLI_FAIL;
	}
	c->path = path;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path));
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		if (e == EACCES || e == EPERM) {
			cli_error("cannot reach asteald at %s: permission denied "
			          "(is your user in the socket's group?)", path);
			code = CLI_NOPERM;
		} else {
			if (!quiet)
				cli_error("cannot reach asteald at %s: %s (is it running?)", path,
			          e == ENOENT ? "no such socket" : e == ECONNREFUSED
			          ? "nothing listens there" : strerror(e));
			code = CLI_UNAVAILABLE;
		}
		client_close(c);
		return code;
	}
	frame_hello(&env, &hello, ASTEAL__ROLE__CLIENT, "asteal", 0, NULL,
	            "asteal " ASTEAL_VERSION);
	if ((code = client_send(c, &env)) != 0) {
		client_close(c);
		return code;
	}
	c->quiet = quiet;
	r = client_recv(c, &m, CLIENT_REPLY_MS);
	if (r != 1) {
		if (r == 0)
			cli_error("asteald at %s did not answer within %d s", path,
			          CLIENT_REPLY_MS / 1000);
		client_close(c);
		return r == 0 ? CLI_UNAVAILABLE : r;
	}
	if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) {
		/* A daemon stopping or too busy is one not there yet. */
		if (quiet && (m->error->code == ASTEAL__ERROR_CODE__SHUTDOWN ||
		              m->error->code == ASTEAL__ERROR_CODE__BUSY))
			code = CLI_UNAVAILABLE;
		else
			code = client_error(m->error);
	} else if (frame_check_handshake(m, ASTEAL__ENVELOPE__MSG_WELCOME, why,
	                                 sizeof(why)) < 0) {
		cli_error("asteald at %s: %s", path, why);
		code = CLI_FAIL;
	} else {
		c->quantum_us = m->welcome->quantum_us;
		c->ncpus = (int)m->welcome->n_cpus;
		code = 0;
	}
	frame_free(m);
	if (code != 0) {
		client_close(c);
		return code;
	}
	*out = c;
	return 0;
}

/* Connect and shake hands. */
int client_open(const char *path, struct client **out)
{
	return client_connect(path, out, 0);
}

/* Connect again: as client_open, but silent when nothing answers. */
int client_reopen(const char *path, struct client **out)
{
	return client_connect(path, out, 1);
}

/* Whether an exit code and the reply that came with it say the daemon
 * went away (or is stopping): then it is worth connecting again. */
int client_gone(int code, const Asteal__Envelope *m)
{
	if (m != NULL && m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR)
		return m->error->code == ASTEAL__ERROR_CODE__SHUTDOWN;
	return code == CLI_UNAVAILABLE;
}

/* Start connecting again: the first try soon. */
void client_retry_start(struct client_retry *r)
{
	r->delay_ms = CLIENT_RETRY_MIN_MS;
	r->next_ms = mono_ms() + r->delay_ms;
}

/* Milliseconds until the next try is due (0: now). */
int client_retry_due_ms(const struct client_retry *r)
{
	long long left = r->next_ms - mono_ms();

	return left > 0 ? (int)left : 0;
}

/* Try to connect again if a try is due. */
int client_retry(const char *path, struct client **out, struct client_retry *r)
{
	int code;

	*out = NULL;
	if (client_retry_due_ms(r) > 0)
		return CLI_UNAVAILABLE;
	code = client_connect(path, out, 1);
	/* Whatever failed, the next try waits (a refusal is not retried in
	 * a busy loop). */
	r->delay_ms = r->delay_ms * 2 > CLIENT_RETRY_MAX_MS
	              ? CLIENT_RETRY_MAX_MS : r->delay_ms * 2;
	r->next_ms = mono_ms() + r->delay_ms;
	return code;
}

/* Say nothing, or again say, when the daemon goes away. */
void client_set_quiet(struct client *c, int quiet)
{
	c->quiet = quiet;
}

/* The request id of the last message sent. */
uint64_t client_last_id(const struct client *c)
{
	return c->last_id;
}

/* Close. */
void client_close(struct client *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	frame_reader_free(c->reader);
	free(c);
}

/* The socket. */
int client_fd(const struct client *c)
{
	return c->fd;
}

/* The quantum length. */
unsigned client_quantum_us(const struct client *c)
{
	return c->quantum_us;
}

/* The number of CPUs the daemon manages. */
int client_ncpus(const struct client *c)
{
	return c->ncpus;
}

/* Send one message, numbered. */
int client_send(struct client *c, const Asteal__Envelope *m)
{
	Asteal__Envelope numbered = *m;

	numbered.request_id = ++c->last_id;
	if (frame_write_fd(c->fd, &numbered) < 0) {
		if (c->quiet && (errno == EPIPE || errno == ECONNRESET))
			return CLI_UNAVAILABLE;
		cli_error("asteald at %s: sending a %s: %s", c->path, frame_name(m),
		          errno == EPIPE || errno == ECONNRESET ? "the daemon went away"
		          : strerror(errno));
		return errno == EPIPE || errno == ECONNRESET ? CLI_UNAVAILABLE : CLI_FAIL;
	}
	return 0;
}

/* The next message within a bound. */
int client_recv(struct client *c, Asteal__Envelope **m, int timeout_ms)
{
	long long deadline = timeout_ms < 0 ? 0 : mono_ms() + timeout_ms;
	struct pollfd p;
	ssize_t n;
	int r;

	for (;;) {
		r = frame_reader_next(c->reader, m);
		if (r > 0)
			return 1;
		if (r < 0) {
			/* no asteald to talk to there: never CLI_FAIL, which
			 * is 1, a message's return */
			cli_error("asteald at %s sent a bad frame: %s", c->path,
			          frame_reader_why(c->reader));
			return CLI_UNAVAILABLE;
		}
		p.fd = c->fd;
		p.events = POLLIN;
		p.revents = 0;
		r = poll(&p, 1, timeout_ms < 0 ? -1 : (int)(deadline - mono_ms() > 0
		                                     ? deadline - mono_ms() : 0));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cli_error("poll: %s", strerror(errno));
			return CLI_UNAVAILABLE;
		}
		if (r == 0)
			return 0;
		n = frame_reader_fill(c->reader, c->fd);
		if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN)))
			continue;
		if (!c->quiet)
			cli_error("asteald at %s went away%s%s", c->path,
			          n == 0 ? "" : ": ", n == 0 ? "" : strerror(errno));
		return CLI_UNAVAILABLE;
	}
}

/* The reply to the last request sent within a bound. */
int client_reply(struct client *c, Asteal__Envelope **m, int timeout_ms)
{
	long long deadline = timeout_ms < 0 ? 0 : mono_ms() + timeout_ms;
	long long left;
	int r;

	for (;;) {
		left = deadline - mono_ms();
		r = client_recv(c, m, timeout_ms < 0 ? -1 : left > 0 ? (int)left : 0);
		if (r != 1)
			return r;
		/* The answer, or an Error about the whole connection (the
		 * daemon stopping, refusing the connection). */
		if ((*m)->request_id == c->last_id ||
		    ((*m)->request_id == 0 &&
		     (*m)->msg_case == ASTEAL__ENVELOPE__MSG_ERROR))
			return 1;
		/* A late answer to a request given up on, or a message that
		 * answers nothing. */
		frame_free(*m);
		*m = NULL;
	}
}

/* Say an Error. */
int client_error(const Asteal__Error *e)
{
	const char *msg = e->message != NULL && *e->message ? e->message : "refused";

	switch (e->code) {
	case ASTEAL__ERROR_CODE__PERMISSION:
		cli_error("permission denied: %s", msg);
		return CLI_NOPERM;
	case ASTEAL__ERROR_CODE__BAD_VERSION:
		cli_error("asteald speaks another protocol: %s", msg);
		return CLI_UNAVAILABLE;
	case ASTEAL__ERROR_CODE__BUSY:
	case ASTEAL__ERROR_CODE__SHUTDOWN:
		cli_error("asteald: %s", msg);
		return CLI_UNAVAILABLE;
	default:
		cli_error("%s", msg);
		return CLI_FAIL;
	}
}

/* One request, one reply. */
int client_call(struct client *c, const Asteal__Envelope *req,
                Asteal__Envelope__MsgCase want, Asteal__Envelope **reply,
                int timeout_ms)
{
	Asteal__Envelope *m = NULL;
	int r;

	*reply = NULL;
	if ((r = client_send(c, req)) != 0)
		return r;
	for (;;) {
		r = client_reply(c, &m, timeout_ms);
		if (r == 0) {
			cli_error("asteald at %s did not answer a %s within %d s", c->path,
			          frame_name(req), timeout_ms / 1000);
			return CLI_FAIL;
		}
		if (r != 1)
			return r;
		if (m->msg_case == want) {
			*reply = m;
			return 0;
		}
		if (c->quiet && client_gone(0, m)) {
			frame_free(m);  /* stopping: not said when quiet */
			return CLI_UNAVAILABLE;
		}
		if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) {
			r = client_error(m->error);
			frame_free(m);
			return r;
		}
		cli_error("asteald at %s answered a %s with a %s", c->path,
		          frame_name(req), frame_name(m));
		frame_free(m);
		return CLI_FAIL;
	}
}
