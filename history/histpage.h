/*
 * histpage.h - one page of the allotment history as the protocol's History
 * message, built from a history handle for a HistoryRequest.  asteald
 * answers a client's History request with it (request.c), and `asteal
 * history --db FILE` reads a history file without a daemon through it
 * (cli/histdb.c), so both give the same pages.
 *
 * A page holds the jobs the request selects (jobs_only), or a page of
 * allotment runs and the jobs they name; it is cut at the request's limit
 * (HISTPAGE_DEFAULT when 0, at most HISTPAGE_MAX_LIMIT), where its
 * frame would grow past half of PROTO_MAX_FRAME, or after HISTPAGE_SCAN
 * rows looked at, selected or not (so a request takes a bounded time:
 * asteald builds its pages on a thread of its own, daemon/histreader.c,
 * and each one holds that thread and its snapshot a bounded time); a cut
 * page says `more` and where to go on.  A page's queries read one
 * snapshot of the file (history_read_begin), whoever writes it meanwhile.
 */
#ifndef ASTEAL_HISTPAGE_H
#define ASTEAL_HISTPAGE_H

#include <stddef.h>
#include <stdint.h>

#include "asteal.pb-c.h"

#define HISTPAGE_DEFAULT 2000          /* records per page when not asked */
#define HISTPAGE_MAX_LIMIT 100000      /* the most records a page holds */
/* The most history rows one page looks at, selected or not. */
#define HISTPAGE_SCAN 2048
/* The most job rows a page of runs looks at for jobs with no run in its
 * id range (histpage.c, runless). */
#define HISTPAGE_RUNLESS_SCAN 256

struct history;

/* Whose page it is: who sees which jobs and command lines
 * (docs/security.md). */
struct histpage_viewer {
	int64_t uid;          /* the asker */
	int sees_all;         /* root or the daemon's uid: every command line */
	int only_own;         /* only the asker's jobs (--private-history) */
};

/* A page under construction, then built: `h` is the reply. */
struct histpage {
	Asteal__History h;
	size_t capj, capa;
	size_t bytes;         /* a running estimate of the frame size */
	int full;             /* cut here: the frame is half full */
	int jobs_only;        /* a page of jobs (else of runs) */
	int64_t *ids;         /* the jobs the page's runs name */
	size_t nids, capi;
	int64_t run[2];       /* the last two runs' numbers, last first */
	Asteal__HistoryCursor next;
	int64_t viewer;       /* whose command lines it shows; -1: everyone's */
	int oom;              /* -1: a record could not be allocated */
};

/* Build into p the page that r asks of hist for viewer v: 0, or the
 * protocol's error code (INVALID for a bad request, INTERNAL when the
 * history failed) with the reason in why.  Either way histpage_free(p)
 * frees what p holds.  It touches nothing but p, hist, r and v: another
 * thread may build a page on a handle of its own. */
Asteal__ErrorCode histpage_build(struct histpage *p, struct history *hist,
                                 const Asteal__HistoryRequest *r,
                                 const struct histpage_viewer *v,
                                 char *why, size_t whylen);

/* Free what a page holds (p itself is the caller's). */
void histpage_free(struct histpage *p);

#endif
