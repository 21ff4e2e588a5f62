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
 * with frame_free), 0 when the time passed, or an exit code (> 1) after
 * a message when the daemon went away or spoke nonsense. */
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
