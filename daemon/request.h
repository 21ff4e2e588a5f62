/*
 * request.h - the command line's requests to asteald: Status, Jobs,
 * Cancel, History, and the supervision of the jobs it launches (Launch,
 * JobExit, WaitRequest).  control.c dispatches a client's request to the
 * function here, which answers on the same connection (or, for JobExit
 * and WaitRequest, has launch.c answer when the job ends).
 */
#ifndef ASTEAL_REQUEST_H
#define ASTEAL_REQUEST_H

#include "asteal.pb-c.h"

/* The daemon's name and version as Welcome and Status report them (with
 * ASTEAL_VERSION from asteal.h). */
#define REQUEST_DAEMON_VERSION "asteald " ASTEAL_VERSION

struct admit_ticket;
struct conn;
struct sched;
struct launch;
struct histreader;

/* Send an Error for a request that failed, keeping the connection. */
void request_error(struct conn *c, Asteal__ErrorCode code, const char *why);

/* Send the reply to a request; one that would be larger than a frame
 * (PROTO_MAX_FRAME) is replaced by an Error{TOO_LARGE} that says so. */
void request_reply(struct conn *c, const Asteal__Envelope *env);

/* A Status request. */
void request_status(struct conn *c, struct sched *s);

/* Who may see what (docs/security.md): root and the daemon's own uid see
 * everything; another user sees others' jobs without their command
 * lines, or, with --private-history (priv set), only their own jobs,
 * history and waits. */

/* A Jobs request: the connected jobs and the unmanaged launched ones. */
void request_jobs(struct conn *c, struct sched *s, struct launch *l,
                  const Asteal__JobsRequest *r, int priv);

/* A Cancel request: only the job's owner or root. */
void request_cancel(struct conn *c, struct sched *s, struct launch *l,
                    const Asteal__CancelRequest *r);

/* A History request: one page of jobs and allotment runs, asked of the
 * history's reader rd (histreader.h), which holds c until it answers. */
void request_history(struct conn *c, struct histreader *rd,
                     const Asteal__HistoryRequest *r, int priv);

/* A Launch from the peer holding ticket t (its descriptors are counted
 * against t's uid): the job's id, at once. */
void request_launch(struct conn *c, struct launch *l,
                    const struct admit_ticket *t, const Asteal__Launch *m);

/* A JobExit from a supervisor: Ok comes when the job has ended. */
void request_job_exit(struct conn *c, struct launch *l,
                      const Asteal__JobExit *m);

/* A WaitRequest: answered when the job ends. */
void request_wait(struct conn *c, struct launch *l,
                  const Asteal__WaitRequest *m, int priv);

#endif
