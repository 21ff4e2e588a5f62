/*
 * watch.h - `asteal jobs --watch`: the running jobs refreshed every
 * interval, on the whole terminal as top does, or as frames one after
 * another when standard output is not a terminal (watch.c).
 */
#ifndef ASTEAL_CLI_WATCH_H
#define ASTEAL_CLI_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "client.h"
#include "query.h"

/* Watch the running jobs (ids: only these, nids 0: all) that pass a's
 * filters, asking c (closed here) every interval seconds, until q, a
 * signal (SIGINT, SIGTERM, SIGHUP) or an error; the daemon going away
 * is waited out.  The exit code: CLI_OK, or another after a message. */
int watch_jobs(const struct cli *g, const struct query_args *a,
               struct client *c, const uint64_t *ids, size_t nids,
               double interval);

#endif
