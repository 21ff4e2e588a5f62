/*
 * loadconn.h - asteal-loadgen's connections to asteald (bench/loadgen.c):
 * a socket that has said Hello, in a job's role or a client's; a whole
 * frame written to a nonblocking socket; and the client connection the
 * load generator asks the daemon's Status and history on, one request
 * and its reply at a time.
 */
#ifndef ASTEAL_LOADCONN_H
#define ASTEAL_LOADCONN_H

#include <stddef.h>
#include <stdint.h>

#include "asteal.pb-c.h"

/* A client connection to asteald, welcomed. */
struct loadconn;

/* Connect to the socket at path and say Hello in role, with workers and
 * the page's requests (page: a page for the Feedback; page_allot: the
 * allotments in it too): the socket, or -1 (said why) on failure. */
int loadconn_dial(const char *path, Asteal__Role role, uint32_t workers,
                  int page, int page_allot);

/* Write all of buf to the nonblocking socket fd, waiting while it is
 * full: 0, or -1 when the socket failed. */
int loadconn_send(int fd, const uint8_t *buf, size_t len);

/* Connect to the socket at path as a client and read its Welcome: the
 * connection, or NULL (said why) on failure. */
struct loadconn *loadconn_open(const char *path);

/* Send the request req and read the reply: the reply (frame_free it), or
 * NULL on failure. */
Asteal__Envelope *loadconn_ask(struct loadconn *c, Asteal__Envelope *req);

/* Ask for the daemon's Status: the reply, whose status is set (frame_free
 * it), or NULL (said why) on failure. */
Asteal__Envelope *loadconn_status(struct loadconn *c);

/* Close the connection (NULL is nothing). */
void loadconn_free(struct loadconn *c);

#endif
