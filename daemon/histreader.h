/*
 * histreader.h - the history's reader: asteald's History pages built on a
 * thread of its own, with a read-only connection of its own to the
 * history's file (history_open_reader), so that a query never holds the
 * event loop and its ticks.  The loop keeps the history's one writer: a
 * query's first page (no cursor) has it commit everything pending first
 * (history_commit), then the thread builds the page (histpage_build, in
 * one snapshot of the file), encodes its reply and hands the frame back
 * to the loop through an eventfd, where it is sent.  Meanwhile the asking connection is held
 * (conn_hold): its next requests are read once the page is sent, so
 * replies keep the order of requests.
 *
 * What a page sees: everything committed when its snapshot was taken,
 * which is at least everything up to the quantum in which its query's
 * first page was asked; by the time it is sent the loop may have ticked
 * on, so a page may be a tick or more behind the daemon (a later page of
 * the same query shows what was committed since).
 *
 * At most HISTREADER_MAX requests wait or are being built, in the order
 * they came, one page at a time; another gets Error BUSY.  A page whose
 * connection goes meanwhile is dropped (histreader_forget).  When the
 * history is in memory (":memory:", which no second connection can open),
 * or the thread cannot be had, pages are built on the loop at once, with
 * the writer's handle, as before.
 */
#ifndef ASTEAL_HISTREADER_H
#define ASTEAL_HISTREADER_H

#include <stddef.h>

#include "asteal.pb-c.h"

/* The most History requests waiting for the reader or being built. */
#define HISTREADER_MAX 64

/* The environment variable naming a test's gate: a FIFO of which the
 * reader thread reads one byte before it builds each page, so that a
 * test holds a page half built for as long as it wants (tests only). */
#define HISTREADER_GATE_ENV "ASTEALD_TEST_PAGE_GATE"

struct conn;
struct event_base;
struct history;
struct histpage_viewer;

struct histreader;

/* A reader of the history hist (the writer's handle) whose file is at
 * path, on the loop base.  It starts the thread; when it cannot
 * (":memory:", the file not readable, no thread), it builds pages on the
 * loop and says why in why (a warning, not a failure).  NULL only when
 * out of memory. */
struct histreader *histreader_create(struct event_base *base,
                                     struct history *hist, const char *path,
                                     char *why, size_t whylen);

/* Stop the thread (joined; a page half built is finished or dropped
 * first, those waiting are dropped) and free everything; the connections
 * must be gone (histreader_forget) before.  NULL is fine. */
void histreader_free(struct histreader *r);

/* Whether pages are built on a thread (0: on the loop). */
int histreader_threaded(const struct histreader *r);

/* Ask for the page rq selects for viewer v on connection c, whose reply
 * names the request being answered now (conn_reply_id): 0 when it is on
 * its way (c is held until the reply, the page or an Error, is sent; or
 * sent already when pages are built on the loop), or the error code to
 * answer with (BUSY when HISTREADER_MAX wait, INTERNAL when the pending
 * writes could not be committed) and why. */
Asteal__ErrorCode histreader_ask(struct histreader *r, struct conn *c,
                                 const Asteal__HistoryRequest *rq,
                                 const struct histpage_viewer *v, char *why,
                                 size_t whylen);

/* Connection c is going: its page, waiting or half built, is dropped. */
void histreader_forget(struct histreader *r, struct conn *c);

#endif
