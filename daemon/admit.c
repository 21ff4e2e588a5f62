/*
 * admit.c - asteald's admission policy (see admit.h).
 *
 * Each uid with a connection has its counts: connections before their
 * Hello, jobs, command-line connections, the descriptors it holds, and a
 * bucket of new job rows that refills at ADMIT_USER_JOB_RATE a second up
 * to ADMIT_USER_JOB_BURST.  A uid is kept while it holds a place or a
 * descriptor or its bucket is not full again (so that connecting one job
 * at a time does not start a fresh bucket each time), and forgotten on
 * the way by the next admit_enter.  Each connection holds a ticket: its
 * uid's counts, whether it is an admin, the place it holds and its
 * descriptors; the totals (all connections, command-line ones,
 * descriptors) are what the tickets and charges hold.
 *
 * The descriptors' room is the soft limit (read at each question: it may
 * be lowered under us) less the base the daemon held before its first
 * peer, ADMIT_FD_TRANSIENT, and the numbers fdlater.c holds until the
 * loop's next dispatch.  Admins may take all of it.  The other uids share
 * what the admins' part leaves (ADMIT_FD_ADMIN, or what admins hold when
 * more) as per-user DEQ shares the CPUs, max-min fair: a uid may grow to
 * x descriptors while x, plus each other uid's holding capped at x, plus
 * ADMIT_FD_NEWCOMER capped at x for a uid that may come next, fits in the
 * users' room.  So a uid alone takes all but a newcomer's part, uids
 * asking for more than an equal part get equal parts, and a uid holding
 * little never limits the others.  Nothing is taken back: a uid over its
 * part (it took the room while alone) keeps what it holds and gets no
 * more until it is under.
 *
 * Input (admit.h says what it is, how it is shared and why a uid past
 * its budget loses the connection that took it there) is counted per
 * ticket, per uid (admins' apart, unbounded) and in all: a uid may grow
 * while it holds at most ADMIT_USER_INPUT and the users' input in all
 * fits in ADMIT_INPUT_ROOM, less ADMIT_INPUT_NEWCOMER unless the uid held
 * none before.  Nothing here calls back into the control: it asks, this
 * answers.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "admit.h"
#include "bucket.h"
#include "conf.h"
#include "conn.h"
#include "fdlater.h"
#include "log.h"
#include "qtime.h"

/* The daemon's own descriptors when /proc/self/fd cannot be read. */
#define ADMIT_FD_BASE_GUESS 32

/* What one uid holds now (only uids with a connection or a charge have
 * one). */
struct user {
	uid_t uid;
	int pending, clients, jobs;    /* connections before their Hello,
	                                  command-line ones, jobs */
	int fds, admin_fds;            /* descriptors held: under ordinary
	                                  tickets (its fair part bounds them),
	                                  under admins' */
	long input;                    /* bytes of input its connections hold
	                                  under ordinary tickets */
	long output;                   /* bytes queued to them, likewise */
	struct bucket rows;            /* the new job rows it may make */
	struct user *next;
};

/* One connection's place. */
struct admit_ticket {
	struct user *user;             /* its uid's counts */
	int admin;                     /* root, our own uid or --admin-group:
	                                  no per-uid limits, room beyond the
	                                  total ones */
	int role;                      /* enum admit_role held, -1 none yet */
	int fds;                       /* its connection's descriptors: the
	                                  socket, and a pidfd when it has one */
	long input;                    /* bytes of input its connection holds */
	long output;                   /* bytes of replies queued to it */
};

struct admit {
	const struct conf *conf;
	struct user *users;
	int nconns, nclients;          /* places held: all, ADMIT_CLIENT */
	int conn_most;                 /* connections conf's limits allow in
	                                  all, admins' included */
	int base;                      /* descriptors the daemon held before
	                                  its first peer */
	int held, admin_held;          /* descriptors the peers hold: all,
	                                  under admins' tickets */
	long input, input_most;        /* bytes of input the connections hold
	                                  (admins' too); the most since
	                                  admit_input_held last asked */
	long users_input;              /* ... under ordinary tickets */
	long users_output;             /* bytes queued under ordinary tickets */
};

/* Whether a uid holds nothing, and its bucket is full: it may go. */
static int idle(struct user *u)
{
	if (u->pending > 0 || u->clients > 0 || u->jobs > 0 || u->fds > 0 ||
	    u->admin_fds > 0 || u->input > 0 || u->output > 0)
		return 0;
	bucket_refill(&u->rows, qtime_now_ns(), ADMIT_USER_JOB_BURST,
	              ADMIT_USER_JOB_RATE);
	return u->rows.tokens >= ADMIT_USER_JOB_BURST;
}

/* The counts of uid, made when it has none; NULL when out of memory.
 * The only place that forgets a uid: the list holds the uids with a
 * connection, and idle ones until the next connection passes them. */
static struct user *user_get(struct admit *a, uid_t uid)
{
	struct user *u, **p = &a->users;

	/* Forget, on the way, the uids that hold nothing and whose bucket
	 * is full again. */
	while ((u = *p) != NULL) {
		if (u->uid == uid)
			return u;
		if (idle(u)) {
			*p = u->next;
			free(u);
		} else {
			p = &u->next;
		}
	}
	u = calloc(1, sizeof(*u));
	if (u == NULL)
		return NULL;
	u->uid = uid;
	u->next = a->users;
	a->users = u;
	return u;
}

/* The count a place in role takes from its uid's. */
static int *user_count(struct user *u, int role)
{
	return role == ADMIT_HELLO ? &u->pending
	     : role == ADMIT_JOB ? &u->jobs : &u->clients;
}

/* Count t's place (delta 1) or no more (delta -1): its uid's count of
 * its role, and the command-line total. */
static void count(struct admit *a, const struct admit_ticket *t, int delta)
{
	if (t->role < 0)
		return;
	*user_count(t->user, t->role) += delta;
	if (t->role == ADMIT_CLIENT)
		a->nclients += delta;
}

/* Whether the peer on fd is limited as root is: root, the daemon's own
 * uid, or a member of --admin-group (its groups as they were when it
 * connected, SO_PEERGROUPS: no lookup that could block). */
static int is_admin(const struct admit *a, int fd, const struct conn_peer *who)
{
	gid_t small[64], *g = small;
	socklen_t len = sizeof(small);
	int admin = 0;

	if (who->uid == 0 || who->uid == geteuid())
		return 1;
	if (a->conf->admin_gid < 0)
		return 0;
	if ((gid_t)a->conf->admin_gid == who->gid)
		return 1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
		if (errno != ERANGE || (g = malloc(len)) == NULL ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
			if (g != small)
				free(g);
			return 0;
		}
	}
	for (size_t i = 0; i < len / sizeof(*g); i++)
		if (g[i] == (gid_t)a->conf->admin_gid)
			admin = 1;
	if (g != small)
		free(g);
	return admin;
}

/* The counts of uid when it has them, or NULL. */
static struct user *user_find(const struct admit *a, uid_t uid)
{
	struct user *u;

	for (u = a->users; u != NULL; u = u->next)
		if (u->uid == uid)
			return u;
	return NULL;
}

/* Count n more descriptors (n < 0: fewer) held for u, under an admin's
 * ticket or not. */
static void hold(struct admit *a, struct user *u, int admin, int n)
{
	a->held += n;
	if (admin) {
		a->admin_held += n;
		if (u != NULL)
			u->admin_fds += n;
	} else if (u != NULL) {
		u->fds += n;
	}
}

/* The descriptors the peers may hold in all now: the soft limit, less
 * the daemon's base, the transient room and what fdlater holds. */
static int room(const struct admit *a)
{
	struct rlimit rl;
	long lim = 1L << 20;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)lim)
		lim = (long)rl.rlim_cur;
	lim -= (long)a->base + ADMIT_FD_TRANSIENT + fdlater_pending();
	return lim > 0 ? (int)lim : 0;
}

/* Of total, the descriptors uids that are not admins may hold: all but
 * the admins' part (what they hold, when more). */
static int users_room(const struct admit *a, int total)
{
	int admin = total / 4 < ADMIT_FD_ADMIN ? total / 4 : ADMIT_FD_ADMIN;

	if (a->admin_held > admin)
		admin = a->admin_held;
	return total > admin ? total - admin : 0;
}

/* The smaller of two counts. */
static int least(int x, int y)
{
	return x < y ? x : y;
}

/* Whether u may hold x descriptors of the users' room: max-min fairness
 * among the uids holding some and a newcomer would give it that many. */
static int fair(const struct admit *a, const struct user *u, int x, int users)
{
	int newcomer = users / 4 > ADMIT_FD_NEWCOMER ? ADMIT_FD_NEWCOMER : users / 4;
	long sum = (long)x + least(newcomer < 2 ? 2 : newcomer, x);
	const struct user *o;

	for (o = a->users; o != NULL; o = o->next)
		if (o != u)
			sum += least(o->fds, x);
	return sum <= users;
}

/* The uids that hold descriptors under ordinary tickets. */
static int holders(const struct admit *a)
{
	const struct user *o;
	int n = 0;

	for (o = a->users; o != NULL; o = o->next)
		n += o->fds > 0;
	return n;
}

/* Whether u may hold n more descriptors, under an admin's ticket or not:
 * 0, or -1 with the reason in why. */
static int fd_room(const struct admit *a, const struct user *u, int admin,
                   int n, char *why, size_t whylen)
{
	int total = room(a), users = users_room(a, total);

	if (admin ? a->held + n > total
	          : a->held - a->admin_held + n > users) {
		snprintf(why, whylen, "asteald holds %d descriptors for its peers, "
		         "all that its limit leaves%s (ulimit -n, LimitNOFILE=)",
		         a->held, admin ? "" : " to users");
		return -1;
	}
	if (!admin && !fair(a, u, u->fds + n, users)) {
		int others = holders(a) - (u->fds > 0);

		snprintf(why, whylen, "uid %d holds %d of the %d descriptors for "
		         "users, its fair part (%d other uid%s hold%s some; room "
		         "is kept for one more)", (int)u->uid, u->fds, users,
		         others, others == 1 ? "" : "s", others == 1 ? "s" : "");
		return -1;
	}
	return 0;
}

/* Count the descriptors open now (/proc/self/fd, less the one reading
 * it): the daemon's own, before its first peer. */
void admit_count_base(struct admit *a)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0, total;

	if (d == NULL) {
		log_warn("/proc/self/fd: %s: counting %d descriptors as the "
		         "daemon's own", strerror(errno), ADMIT_FD_BASE_GUESS);
		a->base = ADMIT_FD_BASE_GUESS;
	} else {
		while ((e = readdir(d)) != NULL)
			n += e->d_name[0] != '.';
		closedir(d);
		a->base = n - 1 - a->held - fdlater_pending();
	}
	total = room(a);
	if (total / 2 < 64)
		log_warn("room for %d connections only (%d descriptors beyond the "
		         "daemon's own %d): raise the limit (ulimit -n, "
		         "LimitNOFILE=)", total / 2, total, a->base);
}

/* Make the admission for conf's limits. */
struct admit *admit_create(const struct conf *c)
{
	struct admit *a = calloc(1, sizeof(*a));

	if (a == NULL)
		return NULL;
	a->conf = c;
	a->conn_most = c->max_jobs + c->max_clients + ADMIT_ADMIN_CLIENTS +
	               ADMIT_USER_PENDING;
	a->base = ADMIT_FD_BASE_GUESS;          /* until admit_count_base */
	return a;
}

/* Free the admission and every uid's counts. */
void admit_free(struct admit *a)
{
	if (a == NULL)
		return;
	while (a->users != NULL) {      /* the ones whose buckets refill */
		struct user *u = a->users;

		a->users = u->next;
		free(u);
	}
	free(a);
}

/* Give a new connection its ticket, holding no place yet. */
struct admit_ticket *admit_enter(struct admit *a, int fd,
                                 const struct conn_peer *who)
{
	struct admit_ticket *t = calloc(1, sizeof(*t));

	if (t == NULL || (t->user = user_get(a, who->uid)) == NULL) {
		free(t);
		return NULL;
	}
	t->admin = is_admin(a, fd, who);
	t->role = -1;
	t->fds = 1 + (who->pidfd >= 0);
	return t;
}

/* Say whether t may take one more of role's places. */
int admit_room(const struct admit *a, const struct admit_ticket *t,
               enum admit_role role, char *why, size_t whylen)
{
	int extra = t->admin ? ADMIT_ADMIN_CLIENTS : 0;
	const struct user *u = t->user;

	if (role == ADMIT_HELLO) {
		if (a->nconns >= a->conn_most - ADMIT_ADMIN_CLIENTS + extra) {
			snprintf(why, whylen, "asteald has %d connections, as many as "
			         "its limits allow", a->nconns);
			return -1;
		}
		if (!t->admin && u->pending >= ADMIT_USER_PENDING) {
			snprintf(why, whylen, "uid %d has %d connections that have "
			         "not said hello", (int)u->uid, u->pending);
			return -1;
		}
		return fd_room(a, u, t->admin, t->fds, why, whylen);
	} else if (role == ADMIT_CLIENT) {
		if (a->nclients >= a->conf->max_clients +
		                   (t->admin ? ADMIT_ADMIN_CLIENTS : 0)) {
			snprintf(why, whylen, "too many clients (--max-clients %d)",
			         a->conf->max_clients);
			return -1;
		}
		if (!t->admin && u->clients >= a->conf->max_user_clients) {
			snprintf(why, whylen, "uid %d has %d command-line connections "
			         "(--max-user-clients)", (int)u->uid, u->clients);
			return -1;
		}
	} else if (!t->admin && u->jobs >= a->conf->max_user_jobs) {
		snprintf(why, whylen, "uid %d has %d jobs (--max-user-jobs)",
		         (int)u->uid, u->jobs);
		return -1;
	}
	return 0;
}

/* Move t into a place in role (counts move with it). */
void admit_take(struct admit *a, struct admit_ticket *t, enum admit_role role)
{
	if (t->role < 0) {
		a->nconns++;
		hold(a, t->user, t->admin, t->fds);
	}
	count(a, t, -1);
	t->role = (int)role;
	count(a, t, 1);
}

/* Take a new job row from t's uid's bucket, unless it is empty. */
int admit_job_token(struct admit_ticket *t, char *why, size_t whylen)
{
	struct user *u = t->user;

	if (t->admin)
		return 0;
	if (!bucket_take(&u->rows, qtime_now_ns(), ADMIT_USER_JOB_BURST,
	                 ADMIT_USER_JOB_RATE)) {
		snprintf(why, whylen, "uid %d starts jobs faster than %d a second",
		         (int)u->uid, ADMIT_USER_JOB_RATE);
		return -1;
	}
	return 0;
}

/* Give back t's place and descriptors and free it (its uid stays until
 * it is idle). */
void admit_leave(struct admit *a, struct admit_ticket *t)
{
	if (t == NULL)
		return;
	if (t->role >= 0) {
		a->nconns--;
		hold(a, t->user, t->admin, -t->fds);
	}
	count(a, t, -1);
	admit_input(a, t, -t->input, NULL, 0);
	admit_output(a, t, -t->output, NULL, 0);
	free(t);
}

/* Count the bytes of input t's connection holds beyond what it held,
 * against its uid's budget and the users' room. */
int admit_input(struct admit *a, struct admit_ticket *t, long delta,
                char *why, size_t whylen)
{
	struct user *u = t->user;
	long room = ADMIT_INPUT_ROOM;

	t->input += delta;
	a->input += delta;
	if (a->input > a->input_most)
		a->input_most = a->input;
	if (t->admin)
		return 0;
	u->input += delta;
	a->users_input += delta;
	if (delta <= 0)
		return 0;
	if (u->input > ADMIT_USER_INPUT) {
		snprintf(why, whylen, "uid %d holds %ld bytes of buffered input "
		         "(frames begun and not sent whole), over its budget of "
		         "%ld", (int)u->uid, u->input, ADMIT_USER_INPUT);
		return -1;
	}
	if (u->input > delta)           /* it held some: not a newcomer */
		room -= ADMIT_INPUT_NEWCOMER;
	if (a->users_input > room) {
		snprintf(why, whylen, "uid %d holds %ld bytes of buffered input, "
		         "and users %ld in all: all their room of %ld (the last "
		         "%ld kept for users that held none)", (int)u->uid, u->input,
		         a->users_input, ADMIT_INPUT_ROOM, ADMIT_INPUT_NEWCOMER);
		return -1;
	}
	return 0;
}

/* Count the bytes queued to t's connection beyond what it had, against
 * its uid's budget and the users' room. */
int admit_output(struct admit *a, struct admit_ticket *t, long delta,
                 char *why, size_t whylen)
{
	struct user *u = t->user;

	t->output += delta;
	if (t->admin)
		return 0;
	u->output += delta;
	a->users_output += delta;
	if (delta <= 0)
		return 0;
	if (u->output > ADMIT_USER_OUTPUT) {
		snprintf(why, whylen, "uid %d has %ld bytes of replies waiting to "
		         "be read, over its budget of %ld", (int)u->uid, u->output,
		         ADMIT_USER_OUTPUT);
		return -1;
	}
	if (a->users_output > ADMIT_OUTPUT_ROOM) {
		snprintf(why, whylen, "uid %d has %ld bytes of replies waiting to "
		         "be read, and users %ld in all: all their room of %ld",
		         (int)u->uid, u->output, a->users_output, ADMIT_OUTPUT_ROOM);
		return -1;
	}
	return 0;
}

/* The bytes of input held now, and the most since the last call. */
long admit_input_held(struct admit *a, long *most)
{
	*most = a->input_most;
	a->input_most = a->input;
	return a->input;
}

/* Count the command-line connections now. */
int admit_clients(const struct admit *a)
{
	return a->nclients;
}

/* Say whether t's uid may hold n more descriptors. */
int admit_fd_room(const struct admit *a, const struct admit_ticket *t, int n,
                  char *why, size_t whylen)
{
	return fd_room(a, t->user, t->admin, n, why, whylen);
}

/* Charge n descriptors to t's uid. */
void admit_fd_take(struct admit *a, const struct admit_ticket *t, int n,
                   struct admit_charge *c)
{
	hold(a, t->user, t->admin, n);
	c->uid = t->user->uid;
	c->admin = t->admin;
	c->n = n;
}

/* Give back a charge's descriptors. */
void admit_fd_give(struct admit *a, struct admit_charge *c)
{
	if (a != NULL && c->n != 0)
		hold(a, user_find(a, c->uid), c->admin, -c->n);
	c->n = 0;
}
