/*
 * histdb.c - `asteal history --db FILE` (see histdb.h): the history file
 * opened read-only (history/history.c, history_open_readonly), each
 * request answered by the history library's page builder (history/histpage.c)
 * as the file's owner would see it, and the page passed through the
 * protocol's encoding and decoding (proto/frame.c), so that the caller
 * gets and frees exactly what a daemon's reply would give it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "frame.h"
#include "histdb.h"
#include "histpage.h"
#include "history.h"

struct histdb {
	struct history *hist;
	const char *path;
};

/* Open the history file at path to read: 0, or the exit code after a
 * message (CLI_NOPERM when the file may not be read, as asteal(1) says). */
int histdb_open(const char *path, struct histdb **out)
{
	struct histdb *d;
	char why[600];

	*out = NULL;
	if (access(path, R_OK) < 0 && (errno == EACCES || errno == EPERM)) {
		cli_error("history %s: %s", path, strerror(errno));
		return CLI_NOPERM;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	d->hist = history_open_readonly(path, why, sizeof(why));
	if (d->hist == NULL) {
		cli_error("%s", why);
		free(d);
		return CLI_FAIL;
	}
	d->path = path;
	*out = d;
	return 0;
}

/* Close. */
void histdb_close(struct histdb *d)
{
	if (d == NULL)
		return;
	history_close(d->hist);
	free(d);
}

/* Encode env as a frame and decode it again into *out: 0, or -1. */
static int round_trip(const Asteal__Envelope *env, Asteal__Envelope **out)
{
	struct frame_reader *rd = frame_reader_new();
	size_t len;
	uint8_t *buf = frame_encode_alloc(env, &len);
	int r = -1;

	*out = NULL;
	if (rd != NULL && buf != NULL && frame_reader_feed(rd, buf, len) == 0 &&
	    frame_reader_next(rd, out) == 1)
		r = 0;
	free(buf);
	frame_reader_free(rd);
	return r;
}

/* Answer a HistoryRequest from the file. */
int histdb_call(struct histdb *d, const Asteal__Envelope *req,
                Asteal__Envelope **reply)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	struct histpage p;
	/* Whoever may read the file sees all of it, as its owner would. */
	struct histpage_viewer v = { (int64_t)getuid(), 1, 0 };
	Asteal__ErrorCode e;
	char why[300];
	int r;

	*reply = NULL;
	if (req->msg_case != ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST) {
		cli_error("%s: only history requests are read from a file",
		          d->path);
		return CLI_FAIL;
	}
	e = histpage_build(&p, d->hist, req->history_request, &v, why, sizeof(why));
	if (e != 0) {
		histpage_free(&p);
		cli_error("history %s: %s", d->path, why);
		return CLI_FAIL;
	}
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY;
	env.history = &p.h;
	r = round_trip(&env, reply);
	histpage_free(&p);
	if (r < 0) {
		cli_error("history %s: a page could not be encoded (out of memory?)",
		          d->path);
		return CLI_FAIL;
	}
	return 0;
}
