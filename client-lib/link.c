/*
 * link.c - libasteal's connection to asteald: connect to the Unix socket,
 * the handshake (Hello as a JOB, Welcome with the job id and the quanta on
 * the shared clock), reading Allot and Error messages, and sending Feedback
 * and Released; a page the Welcome carried that the job cannot map (a
 * seccomp filter, no memory, another layout) is declined with a
 * PageDeclined, so that the daemon sends Allots instead of writing them
 * there.  The link thread (quantum.c) owns it; nothing here exits or
 * aborts: every failure is -1 and a reason, and the caller falls back to
 * the local scheduler.
 */
#include "link.h"

#include <errno.h>
#include <stdio.h>

#ifdef ASTEAL_NO_DAEMON
/* Built without the protocol: there is never a daemon. */
struct link *link_connect(const char *path, int workers, uint64_t claim,
                          const struct usage_totals *had, char *why,
                          size_t whylen)
{
	(void)path;
	(void)workers;
	(void)claim;
	(void)had;
	snprintf(why, whylen, "libasteal was built without the daemon link");
	errno = ENOSYS;
	return NULL;
}

void link_close(struct link *l)
{
	(void)l;
}

int link_fd(const struct link *l)
{
	(void)l;
	return -1;
}

uint64_t link_job_id(const struct link *l)
{
	(void)l;
	return 0;
}

int link_next(struct link *l, struct link_msg *m, char *why, size_t whylen)
{
	(void)l;
	(void)m;
	snprintf(why, whylen, "no daemon link");
	return -1;
}

void link_quanta(const struct link *l, struct link_quanta *q)
{
	(void)l;
	q->t0_ns = q->length_ns = q->heartbeat_ns = 0;
}

int link_feedback(struct link *l, const struct exchange_feedback *fb)
{
	(void)l;
	(void)fb;
	return -1;
}

int link_released(struct link *l, uint64_t quantum, uint64_t parked_ns)
{
	(void)l;
	(void)quantum;
	(void)parked_ns;
	return -1;
}

struct page *link_page(const struct link *l)
{
	(void)l;
	return NULL;
}

int link_take_page(struct link *l, struct page **pg, int *wake)
{
	(void)l;
	(void)pg;
	(void)wake;
	return -1;
}
#else
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "asteal.h"
#include "exchange.h"
#include "frame.h"
#include "page.h"

#define LINK_HANDSHAKE_MS 1000

struct link {
	int fd;
	struct frame_reader *reader;
	uint64_t job_id;
	struct link_quanta quanta;
	struct page *page;             /* shared with the daemon, or NULL */
	int owned;                     /* the link unmaps it (not taken) */
	int wake;                      /* allotments in the page: the eventfd
	                                  the workers signal, else -1 */
};

/* Map the page the Welcome passed as fd (closed here either way): 0, or
 * -1 with the reason in why (the job then sends messages). */
static int map_page(struct link *l, int fd, char *why, size_t whylen)
{
	void *m = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	close(fd);
	if (m == MAP_FAILED) {
		snprintf(why, whylen, "mapping the page: %s", strerror(errno));
		return -1;
	}
	if (page_check(m, why, whylen) < 0) {
		munmap(m, PAGE_BYTES);
		return -1;
	}
	l->page = m;
	l->owned = 1;
	return 0;
}

/* Hand the page and its eventfd over. */
int link_take_page(struct link *l, struct page **pg, int *wake)
{
	if (l->page == NULL || l->wake < 0 || !l->owned)
		return -1;
	*pg = l->page;
	*wake = l->wake;
	l->owned = 0;
	l->wake = -1;
	return 0;
}

/* The job's command line from /proc/self/cmdline, spaces between words. */
static void read_command(char *buf, size_t len)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, i;

	buf[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (i = 0; i < n - 1; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
}

/* The job's name: ASTEAL_JOB_NAME, else the program's short name. */
static void job_name(char *buf, size_t len)
{
	const char *e = getenv("ASTEAL_JOB_NAME");
	extern char *program_invocation_short_name;

	snprintf(buf, len, "%s", e != NULL && *e != '\0' ? e
	         : program_invocation_short_name);
}

/* Connect to path and register as a job with the given worker count,
 * claiming an id with its usage under it. */
struct link *link_connect(const char *path, int workers, uint64_t claim,
                          const struct usage_totals *had, char *why,
                          size_t whylen)
{
	struct sockaddr_un sa;
	struct link *l;
	Asteal__Envelope env, *m = NULL;
	Asteal__Hello hello;
	Asteal__Usage used;
	char name[64], command[256];
	struct pollfd p;
	int r, passed[2] = { -1, -1 };

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(why, whylen, "%s: path too long", path);
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (l == NULL || (l->reader = frame_reader_new()) == NULL) {
		free(l);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	l->wake = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path));
	l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l->fd < 0 || connect(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	job_name(name, sizeof(name));
	read_command(command, sizeof(command));
	frame_hello(&env, &hello, ASTEAL__ROLE__JOB, name, (uint32_t)workers,
	            command, "libasteal " ASTEAL_VERSION);
	hello.job_id = claim;
	if (claim != 0) {               /* its totals go with its claim */
		exchange_usage_msg(&used, had);
		hello.usage = &used;
	}
	hello.page = getenv("ASTEAL_NO_PAGE") == NULL;
	hello.page_allot = hello.page;  /* the page carries both halves */
	if (frame_write_fd(l->fd, &env) < 0) {
		snprintf(why, whylen, "%s: sending hello: %s", path, strerror(errno));
		goto fail;
	}
	/* The Welcome, within a bound: a hung daemon is no daemon. */
	fcntl(l->fd, F_SETFL, fcntl(l->fd, F_GETFL) | O_NONBLOCK);
	for (;;) {
		r = frame_reader_next(l->reader, &m);
		if (r != 0)
			break;
		p.fd = l->fd;
		p.events = POLLIN;
		if (poll(&p, 1, LINK_HANDSHAKE_MS) <= 0) {
			snprintf(why, whylen, "%s: no welcome within %d ms", path,
			         LINK_HANDSHAKE_MS);
			goto fail;
		}
		if (frame_reader_fill_fd(l->reader, l->fd, passed, 2) <= 0 &&
		    errno != EAGAIN && errno != EINTR) {
			snprintf(why, whylen, "%s: %s", path, errno == 0 ? "closed"
			         : strerror(errno));
			goto fail;
		}
	}
	if (r < 0) {
		snprintf(why, whylen, "%s: %s", path, frame_reader_why(l->reader));
		goto fail;
	}
	if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) {
		snprintf(why, whylen, "%s: refused: %s", path,
		         m->error->message ? m->error->message : "?");
		goto fail;
	}
	if (frame_check_handshake(m, ASTEAL__ENVELOPE__MSG_WELCOME, why, whylen) < 0)
		goto fail;
	if (m->welcome->quantum_us == 0) {
		snprintf(why, whylen, "%s: the welcome has no quantum length", path);
		errno = EPROTO;
		goto fail;
	}
	if (m->welcome->page && passed[0] >= 0) {
		char pwhy[160];

		if (map_page(l, passed[0], pwhy, sizeof(pwhy)) < 0) {
			Asteal__Envelope d;
			Asteal__PageDeclined pd;

			/* The daemon must know, or it would write the job's
			 * allotments where the job never reads them. */
			frame_page_declined(&d, &pd, pwhy);
			fprintf(stderr, "libasteal: %s: the daemon's page is "
			        "unusable, sending messages: %s\n", path, pwhy);
			if (frame_write_fd(l->fd, &d) < 0) {
				snprintf(why, whylen, "%s: declining the page: %s",
				         path, strerror(errno));
				goto fail;
			}
		} else if (hello.page_allot && passed[1] >= 0) {
			l->wake = passed[1];
			passed[1] = -1;
		}
		passed[0] = -1;
	}
	if (passed[1] >= 0)
		close(passed[1]);
	passed[1] = -1;
	l->job_id = m->welcome->job_id;
	l->quanta.t0_ns = m->welcome->t0_ns;
	l->quanta.length_ns = (uint64_t)m->welcome->quantum_us * 1000u;
	l->quanta.heartbeat_ns = (uint64_t)(m->welcome->heartbeat_ms != 0
	                         ? m->welcome->heartbeat_ms : PROTO_HEARTBEAT_MS) * 1000000u;
	frame_free(m);
	return l;
fail:
	{
		int e = errno;
		for (int k = 0; k < 2; k++)
			if (passed[k] >= 0)
				close(passed[k]);
		frame_free(m);
		link_close(l);
		errno = e;
	}
	return NULL;
}

/* Close the connection and free the link (NULL is fine). */
void link_close(struct link *l)
{
	if (l == NULL)
		return;
	if (l->fd >= 0)
		close(l->fd);
	if (l->page != NULL && l->owned)
		munmap(l->page, PAGE_BYTES);
	if (l->wake >= 0)
		close(l->wake);
	frame_reader_free(l->reader);
	free(l);
}

/* The fd to poll for input. */
int link_fd(const struct link *l)
{
	return l->fd;
}

/* The job id the daemon gave us. */
uint64_t link_job_id(const struct link *l)
{
	return l->job_id;
}

/* The daemon's quanta. */
void link_quanta(const struct link *l, struct link_quanta *q)
{
	*q = l->quanta;
}

/* Translate a message into plain C. */
static void translate(const Asteal__Envelope *e, struct link_msg *m)
{
	size_t i;

	m->kind = LINK_OTHER;
	if (e->msg_case == ASTEAL__ENVELOPE__MSG_ALLOT) {
		m->kind = LINK_ALLOT;
		m->quantum = e->allot->quantum;
		m->allotment = e->allot->allotment > LINK_MAX_CPUS ? LINK_MAX_CPUS
		               : (int)e->allot->allotment;
		m->availability = e->allot->availability > LINK_MAX_CPUS ? LINK_MAX_CPUS
		                  : (int)e->allot->availability;
		m->decided_ns = e->allot->decided_ns;
		m->ncpus = 0;
		for (i = 0; i < e->allot->n_cpus && i < LINK_MAX_CPUS; i++)
			m->cpus[m->ncpus++] = (int)e->allot->cpus[i];
	} else if (e->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) {
		m->kind = LINK_ERROR;
		snprintf(m->text, sizeof(m->text), "%s", e->error->message);
	}
}

/* Read what arrived and return the next message: 1 with *m, 0 when nothing
 * more is there now, -1 when the daemon went away or broke the protocol (a
 * reason in why). */
int link_next(struct link *l, struct link_msg *m, char *why, size_t whylen)
{
	for (;;) {
		Asteal__Envelope *e;
		ssize_t n;
		int r = frame_reader_next(l->reader, &e);

		if (r > 0) {
			translate(e, m);
			frame_free(e);
			return 1;
		}
		if (r < 0) {
			if (errno == EBADMSG || errno == ENOMSG)
				continue;       /* skipped: the stream is in step */
			snprintf(why, whylen, "%s", frame_reader_why(l->reader));
			return -1;
		}
		n = frame_reader_fill(l->reader, l->fd);
		if (n > 0)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		snprintf(why, whylen, "%s", n == 0 ? "the daemon closed the connection"
		         : strerror(errno));
		return -1;
	}
}

/* Send one small message without blocking: -1 when it cannot go now (the
 * daemon does not read: the caller treats it as gone). */
static int send_now(struct link *l, const Asteal__Envelope *env)
{
	uint8_t buf[256];
	size_t len;

	if (frame_encode(env, buf, sizeof(buf), &len) < 0)
		return -1;
	return send(l->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len
	       ? 0 : -1;
}

/* The page shared with the daemon, or NULL. */
struct page *link_page(const struct link *l)
{
	return l->page;
}

/* Send a Feedback as a message without blocking. */
int link_feedback(struct link *l, const struct exchange_feedback *f)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	struct exchange_feedback_pb fb;

	exchange_feedback_msg(&fb, f);
	env.msg_case = ASTEAL__ENVELOPE__MSG_FEEDBACK;
	env.feedback = &fb.m;
	return send_now(l, &env);
}

/* Send a Released without blocking. */
int link_released(struct link *l, uint64_t quantum, uint64_t parked_ns)
{
	Asteal__Envelope env;
	Asteal__Released r;

	frame_released(&env, &r, quantum, parked_ns);
	return send_now(l, &env);
}
#endif
