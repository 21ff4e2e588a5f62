/*
 * client.h - the command line's connection to asteald: connect, the
 * handshake as a CLIENT, one request and its reply, and what every
 * failure means as an exit code (cli.h), said in one clear line.
 */
#ifndef ASTEAL_CLI_CLIENT_H
#define ASTEAL_CLI_CLIENT_H

#include "asteal.pb-c.h"

struct client;

/* How long a reply may take (ms); a wait passes -1 (no bound). */
#define CLIENT_REPLY_MS 10000

/* Connect to the daemon at path and shake hands: 0 with *out, or an exit
 * code after a message on stderr (CLI_UNAVAILABLE when nothing answers
 * there, CLI_NOPERM when the socket's permissions refuse us). */
int client_open(const char *path, struct client **out);

/* As client_open, but without a word when nothing answers there, nor when
 * the daemon is stopping (CLI_UNAVAILABLE): for reconnecting in a loop.
 * Other failures are said.  The connection stays quiet (client_set_quiet). */
int client_reopen(const char *path, struct client **out);

/* Connecting again after the daemon went away (a restart), with
 * backoff: the first try CLIENT_RETRY_MIN_MS after client_retry_start,
 * the wait doubling up to CLIENT_RETRY_MAX_MS between tries. */
#define CLIENT_RETRY_MIN_MS 50
#define CLIENT_RETRY_MAX_MS 500
struct client_retry {
	int delay_ms;
	long long next_ms;      /* monotonic ms of the next try */
};
void client_retry_start(struct client_retry *r);

/* Milliseconds until the next try is due (0: now), for a poll timeout. */
int client_retry_due_ms(const struct client_retry *r);

/* When a try is due, connect (client_reopen): 0 with *out, CLI_UNAVAILABLE
 * while nothing answers (the next try scheduled; also before one is
 * due), or another exit code after a message (permission, a protocol
 * the daemon does not speak). */
int client_retry(const char *path, struct client **out, struct client_retry *r);

/* Quiet (1): the daemon going away or stopping (an Error SHUTDOWN) is not
 * said (CLI_UNAVAILABLE is still returned), for a caller that connects
 * again; 0: said, as by default. */
void client_set_quiet(struct client *c, int quiet);

/* Whether a failed exchange (its exit code, and the message that came
 * with it, or NULL) means the daemon went away or is stopping, so that a
 * new connection may succeed: CLI_UNAVAILABLE or an Error SHUTDOWN. */
int client_gone(int code, const Asteal__Envelope *m);

/* The request id the last message sent got (client_send), to match the
 * replies of several requests in flight with client_recv. */
uint64_t client_last_id(const struct client *c);

/* Close (NULL is fine). */
void client_close(struct client *c);

/* The socket, to poll beside other things. */
int client_fd(const struct client *c);

/* The daemon's quantum length in microseconds, and its CPUs. */
unsigned client_quantum_us(const struct client *c);
int client_ncpus(const struct client *c);

/* Send one message, numbered as the connection's next request
 * (Envelope.request_id; m's own is ignored): 0, or an exit code after a
 * message. */
int client_send(struct client *c, const Asteal__Envelope *m);

/* The reply to the last message sent, within timeout_ms (-1: no bound):
 * as client_recv, but passing over messages that answer another request
 * (a late reply to one given up on) or none; an Error that names no
 * request (about the whole connection) is returned. */
int client_reply(struct client *c, Asteal__Envelope **m, int timeout_ms);

/* The next message within timeout_ms (-1: no bound): 1 with *m (free it
 * with frame_free), 0 when the time passed, or CLI_UNAVAILABLE after a
 * message when the daemon went away or spoke nonsense (a bad frame). */
int client_recv(struct client *c, Asteal__Envelope **m, int timeout_ms);

/* Send req and read its reply (client_reply), which must be a `want` (an
 * Error reply is said and mapped to an exit code, PERMISSION to
 * CLI_NOPERM): 0 with *reply (frame_free it), or an exit code. */
int client_call(struct client *c, const Asteal__Envelope *req,
                Asteal__Envelope__MsgCase want, Asteal__Envelope **reply,
                int timeout_ms);

/* Say an Error from the daemon on stderr; its exit code. */
int client_error(const Asteal__Error *e);

#endif
