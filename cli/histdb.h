/*
 * histdb.h - `asteal history --db FILE`: the history read from its file,
 * without a daemon (read-only: the file is never written), in the same
 * pages asteald would send (history/histpage.c builds both), so that the
 * past stays queryable while the service is down.
 */
#ifndef ASTEAL_CLI_HISTDB_H
#define ASTEAL_CLI_HISTDB_H

#include "asteal.pb-c.h"

struct histdb;

/* Open the history file at path to read: 0 with *out, or an exit code
 * after a message: CLI_NOPERM for a file this user may not read, else
 * CLI_FAIL (a missing file, not an asteal history, another schema
 * version). */
int histdb_open(const char *path, struct histdb **out);

/* Close (NULL is fine). */
void histdb_close(struct histdb *d);

/* Answer req, a HistoryRequest, as asteald would, with every job and
 * command line the file holds: 0 with *reply (an Envelope with a History;
 * frame_free it), or CLI_FAIL after a message. */
int histdb_call(struct histdb *d, const Asteal__Envelope *req,
                Asteal__Envelope **reply);

#endif
