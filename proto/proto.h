/*
 * proto.h - the constants of asteal's wire protocol, shared by asteald,
 * libasteal and the `asteal` command line.  The messages themselves are in
 * asteal.proto (generated into asteal.pb-c.h); framing is frame.h.
 *
 * A frame is PROTO_HEADER_LEN bytes of big-endian length, then that many
 * bytes of one packed asteal.Envelope.  The length is at most
 * PROTO_MAX_FRAME: a reader rejects a larger prefix before it buffers the
 * body, so a peer cannot make another side allocate more than that.
 */
#ifndef ASTEAL_PROTO_H
#define ASTEAL_PROTO_H

/* The protocol version this build speaks; both sides must match exactly
 * (the handshake: Hello.version, Welcome.version).  Version 2 put the
 * quanta on the shared clock; version 3 measures a job's usage on its
 * threads' CPU clocks, with the time its workers slept (no longer part
 * of steal_ns) and were preempted apart (Feedback in asteal.proto);
 * version 4 carries a job's usage as one message, Usage, wherever it
 * goes. */
#define PROTO_VERSION 4u

/* The quantum exchange (../shared/DESIGN.md, "One quantum, through a shared page").
 * A job sends a Feedback when its rounded desire changes and at least every
 * PROTO_HEARTBEAT_MS (the daemon may say another period in its Welcome);
 * a job silent for PROTO_SILENT_BEATS periods counts as desiring nothing
 * until it speaks again.  A Feedback closing a quantum that ended more than
 * PROTO_FEEDBACK_PAST_MS ago is refused; one closing a quantum that has
 * not begun drops its job.  A job's usage totals, cumulative since its
 * Welcome, never exceed its workers times the time since then plus
 * PROTO_USAGE_SLACK_MS (its first totals may count from its last quantum
 * before it connected, up to libasteal's longest, 60 s, and its
 * handshake, 1 s): a Feedback beyond drops its job. */
#define PROTO_HEARTBEAT_MS 250u
#define PROTO_SILENT_BEATS 4u
#define PROTO_FEEDBACK_PAST_MS 10000u
#define PROTO_USAGE_SLACK_MS 62000u

/* The most job ids a HistoryRequest may name. */
#define PROTO_HISTORY_MAX_IDS 256u

/* The most job ids a JobsRequest may name. */
#define PROTO_JOBS_MAX_IDS 256u

/* The longest time limit a Launch may ask (Launch.time_limit_ns), in
 * seconds: a century. */
#define PROTO_TIME_LIMIT_MAX_S (100LL * 365 * 86400)

/* Bytes of the length prefix. */
#define PROTO_HEADER_LEN 4u

/* The largest length a prefix may announce: the packed Envelope alone,
 * without the header (1 MiB).  The biggest replies (History, Jobs) are
 * paginated by the daemon to stay below it; a Jobs reply of a few thousand
 * jobs fits. */
#define PROTO_MAX_FRAME (1024u * 1024u)

/* The largest frame a peer may send before its handshake is done: a Hello
 * is a few hundred bytes, so a peer that has not said who it is cannot
 * make the daemon hold more than this for it. */
#define PROTO_MAX_HELLO_FRAME 4096u

/* The largest frame a job sends once it joined: its messages (Feedback,
 * Released) are a few dozen bytes, so a job holds at most this much of
 * the daemon's memory in a frame it has begun. */
#define PROTO_MAX_JOB_FRAME 4096u

/* The largest request a client sends: the largest are a History or Jobs
 * request naming 256 ids and a Launch with its 256-byte command line,
 * a few KiB; replies may be up to PROTO_MAX_FRAME. */
#define PROTO_MAX_REQUEST_FRAME 65536u

/* The daemon's socket when it runs as the system service. */
#define PROTO_SOCKET_PATH "/run/asteal/asteald.sock"

/* The environment variable that names another socket (a daemon run by
 * hand, the tests); it wins over PROTO_SOCKET_PATH when set and not empty. */
#define PROTO_SOCKET_ENV "ASTEAL_SOCKET"

#endif
