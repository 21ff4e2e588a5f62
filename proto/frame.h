/*
 * frame.h - the one framing module of asteal's protocol: a 4-byte
 * big-endian length, then one packed asteal.Envelope (proto.h).
 *
 * Used three ways, all through the same pure functions:
 * - asteald (libevent): frame_peek() on the first bytes of an evbuffer,
 *   frame_decode() on the pulled-up body, frame_size()/frame_encode() into
 *   a reserved evbuffer space (see proto/README.md);
 * - libasteal's link thread and the command line (fds): a frame_reader
 *   (fill from the fd, then next() frame by frame) and frame_write_fd().
 *
 * Fallible functions return -1 (or NULL) with errno set, and where they
 * take a why buffer, a one-line reason in it:
 *   EMSGSIZE         a length above PROTO_MAX_FRAME (frame_error_code: TOO_LARGE)
 *   EBADMSG          a body that does not decode (BAD_MESSAGE)
 *   ENOMSG           a body with no known message in it (UNKNOWN_MESSAGE)
 *   EPROTONOSUPPORT  another protocol version (BAD_VERSION)
 *   EPROTO           end of stream in the middle of a frame, or a handshake
 *                    that is not one (UNEXPECTED)
 *   EINVAL           a bad argument, e.g. an Envelope with no message set
 * Nothing here aborts on bad input or keeps global state.  Decoded
 * Envelopes are allocated with malloc and freed with frame_free().
 */
#ifndef ASTEAL_FRAME_H
#define ASTEAL_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "asteal.pb-c.h"
#include "proto.h"

/* A reason buffer large enough for every message this module writes. */
#define FRAME_WHY_LEN 128

/* ---- encoding ---- */

/* The bytes m takes as a frame (header included); 0 if m has no message. */
size_t frame_size(const Asteal__Envelope *m);

/* Encode m as a frame into buf (cap bytes); its length in *len.  -1 with
 * EINVAL (no message set, missing submessage), EMSGSIZE (body above
 * PROTO_MAX_FRAME) or ENOBUFS (cap too small; *len still says how much). */
int frame_encode(const Asteal__Envelope *m, uint8_t *buf, size_t cap,
		 size_t *len);

/* Encode m as a frame into a malloc'd buffer (free() it); NULL with errno
 * as frame_encode. */
uint8_t *frame_encode_alloc(const Asteal__Envelope *m, size_t *len);

/* Write a frame's PROTO_HEADER_LEN-byte length prefix at p, for a body
 * of v bytes (for frames encoded by hand, exchange.c). */
void frame_put_header(uint8_t *p, uint32_t v);

/* ---- decoding ---- */

/* Look at the start of a byte stream (avail bytes there, of which only the
 * first min(avail, PROTO_HEADER_LEN) are read): 1 if a whole frame is
 * there, 0 if more bytes are needed, -1 (EMSGSIZE) if the prefix announces
 * a body above PROTO_MAX_FRAME.  Once the prefix is there, *frame_len is
 * the whole frame's length (header + body), even when returning 0. */
int frame_peek(const uint8_t *p, size_t avail, size_t *frame_len);

/* Decode a frame's body (after the prefix; len bytes): the Envelope, or
 * NULL with errno EBADMSG/ENOMSG/EMSGSIZE and a reason in why (whylen
 * bytes; why may be NULL). */
Asteal__Envelope *frame_decode(const uint8_t *body, size_t len, char *why,
			       size_t whylen);

/* Free a decoded Envelope (NULL is fine); never one built by hand. */
void frame_free(Asteal__Envelope *m);

/* Make room for one more element of elem bytes in the array *arr, which
 * holds n of *cap (a repeated field being filled, or a page being
 * gathered): the capacity doubles, starting at first.  0, or -1 (ENOMEM;
 * the array is unchanged). */
int frame_grow(void *arr, size_t elem, size_t n, size_t *cap, size_t first);

/* The name of a message case, e.g. "feedback"; "unknown" if none. */
const char *frame_case_name(Asteal__Envelope__MsgCase c);

/* The name of the message in m, e.g. "hello"; "none" for NULL. */
const char *frame_name(const Asteal__Envelope *m);

/* The Error code that answers a failure with errno err (TOO_LARGE for
 * EMSGSIZE, ...; INTERNAL for anything else). */
Asteal__ErrorCode frame_error_code(int err);

/* ---- handshake ---- */

/* Fill env and hello (the caller's storage, no allocation) as the peer's
 * first message; the strings are borrowed, may be NULL, not copied. */
void frame_hello(Asteal__Envelope *env, Asteal__Hello *hello,
		 Asteal__Role role, const char *name, uint32_t workers,
		 const char *command, const char *program_version);

/* Fill env and welcome (the caller's storage) as the daemon's answer, with
 * the quanta's origin t0_ns (CLOCK_MONOTONIC) and length; cpus (ncpus ids)
 * and the string are borrowed.  heartbeat_ms and offset_us are left 0. */
void frame_welcome(Asteal__Envelope *env, Asteal__Welcome *welcome,
		   uint64_t job_id, uint32_t quantum_us, uint64_t t0_ns,
		   const uint32_t *cpus, size_t ncpus, const char *daemon_version);

/* Fill env and r (the caller's storage) as a Released: the leaving
 * workers of the Allot of quantum parked, the last at parked_ns. */
void frame_released(Asteal__Envelope *env, Asteal__Released *r,
		    uint64_t quantum, uint64_t parked_ns);

/* Fill env and d (the caller's storage) as a PageDeclined: the job
 * cannot use the page its Welcome carried, for the reason why (borrowed). */
void frame_page_declined(Asteal__Envelope *env, Asteal__PageDeclined *d,
			 const char *why);

/* Fill env and err (the caller's storage) as an Error; text is borrowed. */
void frame_error(Asteal__Envelope *env, Asteal__Error *err,
		 Asteal__ErrorCode code, const char *text);

/* 0 if the peer's version is PROTO_VERSION; else -1 (EPROTONOSUPPORT) and
 * "protocol version 2, this side speaks 1" in why. */
int frame_check_version(uint32_t peer, char *why, size_t whylen);

/* 0 if m is the handshake message want (HELLO or WELCOME) with our
 * version; else -1 (EPROTO: another message, EPROTONOSUPPORT: another
 * version) with the reason in why. */
int frame_check_handshake(const Asteal__Envelope *m,
			  Asteal__Envelope__MsgCase want, char *why,
			  size_t whylen);

/* ---- history pages ---- */

/* Point req at the page after page: 1 if there is one (page's cursor is
 * copied into keep, the caller's storage, which req then points to), 0 if
 * page was the last, or its cursor does not move on from req's (a page may
 * hold no records and still have more after it). */
int frame_history_after(Asteal__HistoryRequest *req,
			Asteal__HistoryCursor *keep,
			const Asteal__History *page);

/* ---- file descriptors ---- */

struct frame_reader;

/* A reader for one stream, empty; NULL (ENOMEM) if out of memory. */
struct frame_reader *frame_reader_new(void);

/* Free r and whatever it buffers (NULL is fine). */
void frame_reader_free(struct frame_reader *r);

/* Read what fd has now (one read call) into r.  Returns the bytes read
 * (> 0); 0 at end of stream on a frame boundary; -1 with errno EAGAIN (a
 * nonblocking fd has nothing now: poll, then fill again), EINTR (a signal
 * came first; nothing read), EPROTO (end of stream in the middle of a
 * frame), EMSGSIZE (a buffered prefix is too large: nothing more is read)
 * or read()'s own. */
ssize_t frame_reader_fill(struct frame_reader *r, int fd);

/* frame_reader_fill from socket fd with recvmsg, taking the descriptors
 * passed with the bytes (SCM_RIGHTS; opened close-on-exec) into the
 * entries of passed[0 .. npassed-1] that are -1, in order; any other
 * passed descriptor is closed. */
ssize_t frame_reader_fill_fd(struct frame_reader *r, int fd, int *passed,
                             int npassed);

/* The most descriptors one frame passes. */
#define FRAME_MAX_FDS 4

/* Send len bytes on socket sock now, without blocking, with nfd (1 to
 * FRAME_MAX_FDS) descriptors attached (SCM_RIGHTS, with the first byte):
 * what sendmsg returns. */
ssize_t frame_send_fd(int sock, const void *buf, size_t len, const int *fds,
                      int nfd);

/* Append n bytes from memory to r, as fill would (for callers that read
 * themselves, and the fuzzer); 0, or -1 (ENOMEM, or EMSGSIZE after a bad
 * prefix). */
int frame_reader_feed(struct frame_reader *r, const void *p, size_t n);

/* The next whole frame: 1 and the Envelope in *msg (frame_free it), 0 if
 * more bytes are needed, -1 if the frame is bad: EBADMSG or ENOMSG (the
 * frame is skipped, the stream stays in step: the caller may answer with
 * an Error and go on) or EMSGSIZE (the stream is unusable from here). */
int frame_reader_next(struct frame_reader *r, Asteal__Envelope **msg);

/* Bytes buffered and not yet returned as frames. */
size_t frame_reader_pending(const struct frame_reader *r);

/* The reason of r's last failure ("" if none). */
const char *frame_reader_why(const struct frame_reader *r);

/* Block until the next frame from fd (fill and next, retrying EINTR and
 * polling a nonblocking fd): 1 with *msg, 0 at end of stream on a frame
 * boundary, -1 with errno (and frame_reader_why) otherwise. */
int frame_reader_read(struct frame_reader *r, int fd, Asteal__Envelope **msg);

/* Write m to fd as one whole frame: retries partial writes and EINTR, and
 * polls when a nonblocking fd is full, so it blocks until done (meant for
 * blocking fds: not the daemon's event loop).  Sockets are written with
 * MSG_NOSIGNAL (a closed peer gives EPIPE, not SIGPIPE).  0, or -1 with
 * errno as frame_encode or write(). */
int frame_write_fd(int fd, const Asteal__Envelope *m);

#endif
