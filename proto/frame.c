/*
 * frame.c - asteal's framing: a 4-byte big-endian length, then one packed
 * asteal.Envelope of at most PROTO_MAX_FRAME bytes.
 *
 * The core is pure (bytes in, bytes or messages out), so the daemon can
 * run it over evbuffers and the library and the command line over fds
 * (struct frame_reader, frame_write_fd).  Sizes are checked from the
 * prefix before a body is buffered; a decoded frame must hold a known
 * message.  No global state; errors are -1/NULL with errno and a reason.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "frame.h"
#include "why.h"

/* The reader's smallest buffer, and the largest it keeps once empty. */
#define READER_MIN_CAP 4096u
#define READER_KEEP_CAP (64u * 1024u)

/* A frame this small is encoded on the stack by frame_write_fd. */
#define WRITE_STACK_LEN 512u

struct frame_reader {
	uint8_t *buf;      /* bytes [start, end) are pending */
	size_t cap;
	size_t start;
	size_t end;
	int broken;        /* errno once the stream is unusable (EMSGSIZE), or 0 */
	char why[FRAME_WHY_LEN];
};

/* Read a big-endian 32-bit length. */
static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Write a frame's length prefix: body_len, big-endian. */
void frame_put_header(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The submessage the oneof of m points at, if it is of the field's type. */
static const ProtobufCMessage *envelope_body(const Asteal__Envelope *m)
{
	const ProtobufCFieldDescriptor *f;
	const ProtobufCMessage *body;

	if (m->msg_case == ASTEAL__ENVELOPE__MSG__NOT_SET)
		return NULL;
	f = protobuf_c_message_descriptor_get_field(
		&asteal__envelope__descriptor, (unsigned)m->msg_case);
	if (f == NULL || f->type != PROTOBUF_C_TYPE_MESSAGE)
		return NULL;
	body = *(const ProtobufCMessage *const *)((const char *)m + f->offset);
	if (body == NULL || body->descriptor != f->descriptor)
		return NULL;
	return body;
}

/* Check that m is an Envelope that can be packed; its body length in *n. */
static int check_outgoing(const Asteal__Envelope *m, size_t *n)
{
	const ProtobufCMessage *body;

	if (m == NULL || m->base.descriptor != &asteal__envelope__descriptor)
		return why_fail(NULL, 0, EINVAL, "not an Envelope");
	body = envelope_body(m);
	if (body == NULL || !protobuf_c_message_check(body))
		return why_fail(NULL, 0, EINVAL, "no message, or an incomplete one");
	*n = protobuf_c_message_get_packed_size(&m->base);
	if (*n > PROTO_MAX_FRAME)
		return why_fail(NULL, 0, EMSGSIZE, "too large");
	return 0;
}

/* The bytes m takes as a frame, header included; 0 if m has no message. */
size_t frame_size(const Asteal__Envelope *m)
{
	if (m == NULL || m->base.descriptor != &asteal__envelope__descriptor ||
	    envelope_body(m) == NULL)
		return 0;
	return PROTO_HEADER_LEN + protobuf_c_message_get_packed_size(&m->base);
}

/* Encode m as a length prefix and body into buf. */
int frame_encode(const Asteal__Envelope *m, uint8_t *buf, size_t cap,
		 size_t *len)
{
	size_t n = 0;

	if (len == NULL)
		return why_fail(NULL, 0, EINVAL, "no length");
	*len = 0;
	if (check_outgoing(m, &n) < 0)
		return -1;
	*len = PROTO_HEADER_LEN + n;
	if (buf == NULL || cap < *len)
		return why_fail(NULL, 0, ENOBUFS, "buffer too small");
	frame_put_header(buf, (uint32_t)n);
	if (protobuf_c_message_pack(&m->base, buf + PROTO_HEADER_LEN) != n)
		return why_fail(NULL, 0, EINVAL, "pack size mismatch");
	return 0;
}

/* Encode m as a frame into a new malloc'd buffer. */
uint8_t *frame_encode_alloc(const Asteal__Envelope *m, size_t *len)
{
	uint8_t *buf;
	size_t n = 0;

	if (len == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (check_outgoing(m, &n) < 0)
		return NULL;
	buf = malloc(PROTO_HEADER_LEN + n);
	if (buf == NULL)
		return NULL;
	if (frame_encode(m, buf, PROTO_HEADER_LEN + n, len) < 0) {
		int err = errno;

		free(buf);
		errno = err;
		return NULL;
	}
	return buf;
}

/* Whether a whole frame starts at p (reading only its prefix). */
int frame_peek(const uint8_t *p, size_t avail, size_t *frame_len)
{
	uint32_t n;

	if (frame_len == NULL || (p == NULL && avail > 0))
		return why_fail(NULL, 0, EINVAL, "peek");
	*frame_len = 0;
	if (avail < PROTO_HEADER_LEN)
		return 0;
	n = get_be32(p);
	if (n > PROTO_MAX_FRAME)
		return why_fail(NULL, 0, EMSGSIZE, "frame too large");
	*frame_len = PROTO_HEADER_LEN + (size_t)n;
	return avail >= *frame_len;
}

/* Whether m or a message in it holds an unknown field numbered 0: invalid,
 * but protobuf-c 1.4 accepts it when the tag is not minimally encoded. */
static int bad_unknown(const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	unsigned i;
	size_t k, n;

	for (k = 0; k < m->n_unknown_fields; k++)
		if (m->unknown_fields[k].tag == 0)
			return 1;
	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		const char *p = (const char *)m + f->offset;
		const char *q = (const char *)m + f->quantifier_offset;

		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			n = *(const size_t *)q;
			for (k = 0; k < n; k++)
				if (bad_unknown((*(ProtobufCMessage *const *const *)p)[k]))
					return 1;
			continue;
		}
		if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
		    *(const uint32_t *)q != f->id)
			continue;
		if (*(ProtobufCMessage *const *)p != NULL &&
		    bad_unknown(*(ProtobufCMessage *const *)p))
			return 1;
	}
	return 0;
}

/* Unpack a frame body into an Envelope holding a known message. */
Asteal__Envelope *frame_decode(const uint8_t *body, size_t len, char *why,
			       size_t whylen)
{
	Asteal__Envelope *m;

	if (body == NULL && len > 0) {
		why_fail(why, whylen, EINVAL, "no body to decode");
		return NULL;
	}
	if (len > PROTO_MAX_FRAME) {
		why_fail(why, whylen, EMSGSIZE, "frame of %zu bytes is above the maximum (%u)",
		     len, PROTO_MAX_FRAME);
		return NULL;
	}
	if (len == 0) {
		why_fail(why, whylen, ENOMSG, "unknown message: empty frame");
		return NULL;
	}
	m = asteal__envelope__unpack(NULL, len, body);
	if (m != NULL && bad_unknown(&m->base)) {
		asteal__envelope__free_unpacked(m, NULL);
		m = NULL;
	}
	if (m == NULL) {
		why_fail(why, whylen, EBADMSG, "malformed message (%zu bytes)", len);
		return NULL;
	}
	if (envelope_body(m) == NULL) {
		if (m->base.n_unknown_fields > 0)
			why_fail(why, whylen, ENOMSG, "unknown message (field %u)",
			     (unsigned)m->base.unknown_fields[0].tag);
		else
			why_fail(why, whylen, ENOMSG, "unknown message: none in the frame");
		asteal__envelope__free_unpacked(m, NULL);
		return NULL;
	}
	return m;
}

/* Free an Envelope that frame_decode (or a reader) returned. */
void frame_free(Asteal__Envelope *m)
{
	if (m != NULL)
		asteal__envelope__free_unpacked(m, NULL);
}

/* Make room for one more element in a growing array. */
int frame_grow(void *arr, size_t elem, size_t n, size_t *cap, size_t first)
{
	size_t c = *cap ? 2 * *cap : first;
	void *a;

	if (n < *cap)
		return 0;
	a = realloc(*(void **)arr, c * elem);
	if (a == NULL) {
		errno = ENOMEM;
		return -1;
	}
	*(void **)arr = a;
	*cap = c;
	return 0;
}

/* The field name of a message case, from the generated descriptor. */
const char *frame_case_name(Asteal__Envelope__MsgCase c)
{
	const ProtobufCFieldDescriptor *f;

	if (c == ASTEAL__ENVELOPE__MSG__NOT_SET)
		return "none";
	f = protobuf_c_message_descriptor_get_field(
		&asteal__envelope__descriptor, (unsigned)c);
	return f != NULL ? f->name : "unknown";
}

/* The name of the message m holds. */
const char *frame_name(const Asteal__Envelope *m)
{
	return m != NULL ? frame_case_name(m->msg_case) : "none";
}

/* Map an errno from this module to the Error code that answers it. */
Asteal__ErrorCode frame_error_code(int err)
{
	switch (err) {
	case EMSGSIZE:
		return ASTEAL__ERROR_CODE__TOO_LARGE;
	case EBADMSG:
		return ASTEAL__ERROR_CODE__BAD_MESSAGE;
	case ENOMSG:
		return ASTEAL__ERROR_CODE__UNKNOWN_MESSAGE;
	case EPROTONOSUPPORT:
		return ASTEAL__ERROR_CODE__BAD_VERSION;
	case EPROTO:
		return ASTEAL__ERROR_CODE__UNEXPECTED;
	case EPERM:
	case EACCES:
		return ASTEAL__ERROR_CODE__PERMISSION;
	case ESRCH:
	case ENOENT:
		return ASTEAL__ERROR_CODE__NOT_FOUND;
	case EINVAL:
		return ASTEAL__ERROR_CODE__INVALID;
	default:
		return ASTEAL__ERROR_CODE__INTERNAL;
	}
}

/* Fill a Hello envelope in the caller's storage. */
void frame_hello(Asteal__Envelope *env, Asteal__Hello *hello,
		 Asteal__Role role, const char *name, uint32_t workers,
		 const char *command, const char *program_version)
{
	asteal__envelope__init(env);
	asteal__hello__init(hello);
	hello->version = PROTO_VERSION;
	hello->role = role;
	if (name != NULL)
		hello->name = (char *)name;
	hello->workers = workers;
	if (command != NULL)
		hello->command = (char *)command;
	if (program_version != NULL)
		hello->program_version = (char *)program_version;
	env->msg_case = ASTEAL__ENVELOPE__MSG_HELLO;
	env->hello = hello;
}

/* Fill a Welcome envelope in the caller's storage. */
void frame_welcome(Asteal__Envelope *env, Asteal__Welcome *welcome,
		   uint64_t job_id, uint32_t quantum_us, uint64_t t0_ns,
		   const uint32_t *cpus, size_t ncpus, const char *daemon_version)
{
	asteal__envelope__init(env);
	asteal__welcome__init(welcome);
	welcome->version = PROTO_VERSION;
	if (daemon_version != NULL)
		welcome->daemon_version = (char *)daemon_version;
	welcome->job_id = job_id;
	welcome->quantum_us = quantum_us;
	welcome->t0_ns = t0_ns;
	welcome->n_cpus = cpus != NULL ? ncpus : 0;
	welcome->cpus = (uint32_t *)cpus;
	env->msg_case = ASTEAL__ENVELOPE__MSG_WELCOME;
	env->welcome = welcome;
}

/* Fill a Released envelope in the caller's storage. */
void frame_released(Asteal__Envelope *env, Asteal__Released *r,
		    uint64_t quantum, uint64_t parked_ns)
{
	asteal__envelope__init(env);
	asteal__released__init(r);
	r->quantum = quantum;
	r->parked_ns = parked_ns;
	env->msg_case = ASTEAL__ENVELOPE__MSG_RELEASED;
	env->released = r;
}

/* Fill a PageDeclined envelope in the caller's storage. */
void frame_page_declined(Asteal__Envelope *env, Asteal__PageDeclined *d,
			 const char *why)
{
	asteal__envelope__init(env);
	asteal__page_declined__init(d);
	d->why = (char *)why;
	env->msg_case = ASTEAL__ENVELOPE__MSG_PAGE_DECLINED;
	env->page_declined = d;
}

/* Fill an Error envelope in the caller's storage. */
void frame_error(Asteal__Envelope *env, Asteal__Error *err,
		 Asteal__ErrorCode code, const char *text)
{
	asteal__envelope__init(env);
	asteal__error__init(err);
	err->code = code;
	if (text != NULL)
		err->message = (char *)text;
	env->msg_case = ASTEAL__ENVELOPE__MSG_ERROR;
	env->error = err;
}

/* Compare the peer's protocol version with ours. */
int frame_check_version(uint32_t peer, char *why, size_t whylen)
{
	if (peer == PROTO_VERSION)
		return 0;
	if (peer == 0)
		return why_fail(why, whylen, EPROTONOSUPPORT,
			    "no protocol version from the peer, this side speaks %u",
			    PROTO_VERSION);
	return why_fail(why, whylen, EPROTONOSUPPORT,
		    "protocol version %u, this side speaks %u", (unsigned)peer,
		    PROTO_VERSION);
}

/* Check that m is the expected handshake message, in our version. */
int frame_check_handshake(const Asteal__Envelope *m,
			  Asteal__Envelope__MsgCase want, char *why,
			  size_t whylen)
{
	if (want != ASTEAL__ENVELOPE__MSG_HELLO &&
	    want != ASTEAL__ENVELOPE__MSG_WELCOME)
		return why_fail(why, whylen, EINVAL, "%s is not a handshake message",
			    frame_case_name(want));
	if (m == NULL || m->msg_case != want || envelope_body(m) == NULL)
		return why_fail(why, whylen, EPROTO, "expected %s first, got %s",
			    frame_case_name(want), frame_name(m));
	return frame_check_version(want == ASTEAL__ENVELOPE__MSG_HELLO ?
				   m->hello->version : m->welcome->version,
				   why, whylen);
}

/* Move a history request on to the page after this one. */
int frame_history_after(Asteal__HistoryRequest *req,
			Asteal__HistoryCursor *keep,
			const Asteal__History *page)
{
	const Asteal__HistoryCursor *n = page->next, *a = req->after;

	/* A page may hold no records (the daemon looks at a bounded number
	 * of rows per page), but its `next` must move on: one that does not
	 * could ask for the same page for ever. */
	if (!page->more || n == NULL)
		return 0;
	if (a != NULL && (req->jobs_only ? n->job_id <= a->job_id :
			  n->job_id < a->job_id || (n->job_id == a->job_id &&
			  (n->start_ns < a->start_ns || (n->start_ns == a->start_ns
			  && n->run <= a->run)))))
		return 0;
	asteal__history_cursor__init(keep);
	keep->job_id = page->next->job_id;
	keep->start_ns = page->next->start_ns;
	keep->run = page->next->run;
	req->after = keep;
	return 1;
}

/* A new empty reader. */
struct frame_reader *frame_reader_new(void)
{
	return calloc(1, sizeof(struct frame_reader));
}

/* Free a reader and its buffer. */
void frame_reader_free(struct frame_reader *r)
{
	if (r != NULL) {
		free(r->buf);
		free(r);
	}
}

/* Make room for at least room more bytes after the pending ones. */
static int reader_reserve(struct frame_reader *r, size_t room)
{
	size_t pending = r->end - r->start, cap = r->cap;
	uint8_t *p;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, pending);
		r->start = 0;
		r->end = pending;
	}
	if (room > SIZE_MAX - pending)
		return why_fail(r->why, sizeof(r->why), ENOMEM, "out of memory");
	if (cap - pending >= room)
		return 0;
	if (cap < READER_MIN_CAP)
		cap = READER_MIN_CAP;
	while (cap - pending < room)
		cap = cap > SIZE_MAX / 2 ? pending + room : cap * 2;
	p = realloc(r->buf, cap);
	if (p == NULL)
		return why_fail(r->why, sizeof(r->why), ENOMEM, "out of memory");
	r->buf = p;
	r->cap = cap;
	return 0;
}

/* Check the prefix of the first pending frame; its whole length in *len
 * (0 while the prefix is incomplete).  -1 and r broken if oversize. */
static int reader_check(struct frame_reader *r, size_t *len)
{
	const uint8_t *p = r->buf != NULL ? r->buf + r->start : NULL;

	*len = 0;
	if (r->broken)
		return why_fail(NULL, 0, r->broken, "broken");
	if (frame_peek(p, r->end - r->start, len) < 0 && p != NULL) {
		r->broken = EMSGSIZE;
		return why_fail(r->why, sizeof(r->why), EMSGSIZE,
			    "frame of %u bytes is above the maximum (%u)",
			    (unsigned)get_be32(p), PROTO_MAX_FRAME);
	}
	return 0;
}

/* Whether the pending bytes end in a partial frame; *have, *want say how
 * much of it there is and how long it is (PROTO_HEADER_LEN if unknown). */
static int reader_partial(const struct frame_reader *r, size_t *have,
			  size_t *want)
{
	size_t at = r->start, len = 0;

	while (at < r->end) {
		if (frame_peek(r->buf + at, r->end - at, &len) != 1) {
			*have = r->end - at;
			*want = len > 0 ? len : PROTO_HEADER_LEN;
			return 1;
		}
		at += len;
	}
	return 0;
}

/* Room for the descriptors a message passes (four: more are closed). */
union fd_room {
	char buf[CMSG_SPACE(4 * sizeof(int))];
	struct cmsghdr align;
};

/* A msghdr of one buffer and the room for descriptors. */
static void msg_of(struct msghdr *mh, struct iovec *iov, void *buf, size_t len,
                   union fd_room *room)
{
	memset(mh, 0, sizeof(*mh));
	memset(room, 0, sizeof(*room));
	iov->iov_base = buf;
	iov->iov_len = len;
	mh->msg_iov = iov;
	mh->msg_iovlen = 1;
	mh->msg_control = room->buf;
	mh->msg_controllen = sizeof(room->buf);
}

/* Send len bytes on socket sock now with descriptors fds attached. */
ssize_t frame_send_fd(int sock, const void *buf, size_t len, const int *fds,
                      int nfd)
{
	union fd_room room;
	struct msghdr mh;
	struct cmsghdr *cm;
	struct iovec iov;

	if (nfd < 1 || nfd > FRAME_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	msg_of(&mh, &iov, (void *)buf, len, &room);
	mh.msg_controllen = CMSG_SPACE((size_t)nfd * sizeof(int));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN((size_t)nfd * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, (size_t)nfd * sizeof(int));
	return sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* One recvmsg from socket fd into buf, taking the descriptors passed with
 * the bytes (SCM_RIGHTS) into the first npassed entries of passed that
 * hold -1, in order (any other is closed). */
static ssize_t recv_fd(int fd, uint8_t *buf, size_t len, int *passed,
                       int npassed)
{
	union fd_room room;
	struct msghdr mh;
	struct cmsghdr *cm;
	struct iovec iov;
	ssize_t n;

	msg_of(&mh, &iov, buf, len, &room);
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return n;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k, nfd;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (k = 0; k < nfd; k++) {
			int got;

			int at = 0;

			memcpy(&got, CMSG_DATA(cm) + k * sizeof(int), sizeof(int));
			while (at < npassed && passed[at] >= 0)
				at++;
			if (at < npassed)
				passed[at] = got;
			else
				close(got);
		}
	}
	return n;
}

/* Do one read() from fd into the reader. */
ssize_t frame_reader_fill(struct frame_reader *r, int fd)
{
	return frame_reader_fill_fd(r, fd, NULL, 0);
}

/* Do one read from fd into the reader, taking a passed descriptor. */
ssize_t frame_reader_fill_fd(struct frame_reader *r, int fd, int *passed,
                             int npassed)
{
	size_t need = 0, have = 0, want = 0;
	ssize_t n;

	if (r == NULL)
		return why_fail(NULL, 0, EINVAL, "no reader");
	if (reader_check(r, &need) < 0)
		return -1;
	if (reader_reserve(r, need > r->end - r->start ?
			   need - (r->end - r->start) : 1) < 0)
		return -1;
	if (r->cap - r->end < READER_MIN_CAP / 2 &&
	    reader_reserve(r, READER_MIN_CAP) < 0)
		return -1;
	n = passed != NULL ? recv_fd(fd, r->buf + r->end, r->cap - r->end, passed,
	                             npassed)
	                   : read(fd, r->buf + r->end, r->cap - r->end);
	if (n > 0) {
		r->end += (size_t)n;
		return n;
	}
	if (n == 0) {
		if (!reader_partial(r, &have, &want))
			return 0;
		return why_fail(r->why, sizeof(r->why), EPROTO,
			    "end of stream in the middle of a frame (%zu of %zu bytes)",
			    have, want);
	}
	if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
		return -1;
	return why_fail(r->why, sizeof(r->why), errno, "read: %s", strerror(errno));
}

/* Append bytes from memory to the reader. */
int frame_reader_feed(struct frame_reader *r, const void *p, size_t n)
{
	size_t len;

	if (r == NULL || (p == NULL && n > 0))
		return why_fail(NULL, 0, EINVAL, "feed");
	if (reader_check(r, &len) < 0)
		return -1;
	if (n == 0)
		return 0;
	if (reader_reserve(r, n) < 0)
		return -1;
	memcpy(r->buf + r->end, p, n);
	r->end += n;
	return reader_check(r, &len);
}

/* Take the next whole frame out of the reader. */
int frame_reader_next(struct frame_reader *r, Asteal__Envelope **msg)
{
	size_t len;
	int err;

	if (r == NULL || msg == NULL)
		return why_fail(NULL, 0, EINVAL, "next");
	*msg = NULL;
	if (reader_check(r, &len) < 0)
		return -1;
	if (len == 0 || r->end - r->start < len)
		return 0;
	*msg = frame_decode(r->buf + r->start + PROTO_HEADER_LEN,
			    len - PROTO_HEADER_LEN, r->why, sizeof(r->why));
	err = errno;
	r->start += len;
	if (r->start == r->end) {
		r->start = r->end = 0;
		if (r->cap > READER_KEEP_CAP) {
			free(r->buf);
			r->buf = NULL;
			r->cap = 0;
		}
	}
	if (*msg == NULL)
		return why_fail(NULL, 0, err, "decode");
	return 1;
}

/* Bytes buffered in the reader and not yet returned. */
size_t frame_reader_pending(const struct frame_reader *r)
{
	return r != NULL ? r->end - r->start : 0;
}

/* The reader's last reason. */
const char *frame_reader_why(const struct frame_reader *r)
{
	return r != NULL ? r->why : "no reader";
}

/* Wait until fd is ready for events (retrying EINTR). */
static int wait_fd(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events, .revents = 0 };

	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* Block until the next frame arrives on fd. */
int frame_reader_read(struct frame_reader *r, int fd, Asteal__Envelope **msg)
{
	ssize_t n;
	int rc;

	for (;;) {
		rc = frame_reader_next(r, msg);
		if (rc != 0)
			return rc;
		n = frame_reader_fill(r, fd);
		if (n > 0)
			continue;
		if (n == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if (wait_fd(fd, POLLIN) < 0)
			return why_fail(r->why, sizeof(r->why), errno, "poll: %s",
				    strerror(errno));
	}
}

/* Write all n bytes of p to fd. */
static int write_all(int fd, const uint8_t *p, size_t n)
{
	int is_socket = 1;
	ssize_t w;

	while (n > 0) {
		if (is_socket)
			w = send(fd, p, n, MSG_NOSIGNAL);
		else
			w = write(fd, p, n);
		if (w < 0 && is_socket && errno == ENOTSOCK) {
			is_socket = 0;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (wait_fd(fd, POLLOUT) < 0)
				return -1;
			continue;
		}
		if (w < 0)
			return -1;
		if (w == 0)
			return why_fail(NULL, 0, EIO, "write returned 0");
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Encode m and write the whole frame to fd. */
int frame_write_fd(int fd, const Asteal__Envelope *m)
{
	uint8_t small[WRITE_STACK_LEN], *buf = small;
	size_t len;
	int rc, err;

	if (frame_encode(m, small, sizeof(small), &len) < 0) {
		if (errno != ENOBUFS)
			return -1;
		buf = frame_encode_alloc(m, &len);
		if (buf == NULL)
			return -1;
	}
	rc = write_all(fd, buf, len);
	err = errno;
	if (buf != small)
		free(buf);
	errno = err;
	return rc;
}
