/*
 * admit.c - asteald's admission policy (see admit.h).
 *
 * Each uid with a connection has its counts: connections before their
 * Hello, jobs, command-line connections, and a bucket of new job rows
 * that refills at ADMIT_USER_JOB_RATE a second up to
 * ADMIT_USER_JOB_BURST.  A uid is kept while it holds a place or its
 * bucket is not full again (so that connecting one job at a time does
 * not start a fresh bucket each time), and forgotten on the way by the
 * next admit_enter.  Each connection holds a ticket: its uid's counts,
 * whether it is an admin, and the place it holds; the totals (all
 * connections, command-line ones) are the places the tickets hold.  How
 * many connections there may be in all comes from our descriptors, the
 * last of them kept for admins.  Nothing here calls back into the
 * control: it asks, this answers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "admit.h"
#include "bucket.h"
#include "conf.h"
#include "conn.h"
#include "log.h"
#include "qtime.h"

/* What one uid holds now (only uids with a connection have one). */
struct user {
	uid_t uid;
	int pending, clients, jobs;    /* connections before their Hello,
	                                  command-line ones, jobs */
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
};

struct admit {
	const struct conf *conf;
	struct user *users;
	int nconns, nclients;          /* places held: all, ADMIT_CLIENT */
	int conn_cap;                  /* connections our descriptors allow */
	int admin_room;                /* of which only admins may take the
	                                  last ones */
};

/* Whether a uid holds nothing, and its bucket is full: it may go. */
static int idle(struct user *u)
{
	if (u->pending > 0 || u->clients > 0 || u->jobs > 0)
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

/* Size how many connections our descriptors allow (each takes its socket
 * and a pidfd), and the last of them kept for admins. */
static void size_conn_cap(struct admit *a)
{
	long most = (long)a->conf->max_jobs + a->conf->max_clients +
	            ADMIT_ADMIN_CLIENTS + 16;
	struct rlimit rl;
	long fds = 1L << 20;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)fds)
		fds = (long)rl.rlim_cur;
	fds = (fds - ADMIT_FD_RESERVE) / 2;
	if (fds > most)
		fds = most;
	a->conn_cap = fds < 2 ? 2 : (int)fds;
	a->admin_room = a->conn_cap / 4 < ADMIT_ADMIN_CLIENTS
	              ? a->conn_cap / 4 : ADMIT_ADMIN_CLIENTS;
	if (fds < 64)
		log_warn("room for %d connections only (%ld descriptors): raise "
		         "the limit (ulimit -n, LimitNOFILE=)", a->conn_cap,
		         2 * fds + ADMIT_FD_RESERVE);
}

/* Make the admission for conf's limits. */
struct admit *admit_create(const struct conf *c)
{
	struct admit *a = calloc(1, sizeof(*a));

	if (a == NULL)
		return NULL;
	a->conf = c;
	size_conn_cap(a);
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
	return t;
}

/* Say whether t may take one more of role's places. */
int admit_room(const struct admit *a, const struct admit_ticket *t,
               enum admit_role role, char *why, size_t whylen)
{
	int extra = t->admin ? a->admin_room : 0;
	const struct user *u = t->user;

	if (role == ADMIT_HELLO) {
		if (a->nconns >= a->conn_cap - a->admin_room + extra) {
			snprintf(why, whylen, "asteald has %d connections, as many as "
			         "it has room for", a->nconns);
			return -1;
		}
		if (!t->admin && u->pending >= ADMIT_USER_PENDING) {
			snprintf(why, whylen, "uid %d has %d connections that have "
			         "not said hello", (int)u->uid, u->pending);
			return -1;
		}
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
	if (t->role < 0)
		a->nconns++;
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

/* Give back t's place and free it (its uid stays until it is idle). */
void admit_leave(struct admit *a, struct admit_ticket *t)
{
	if (t == NULL)
		return;
	if (t->role >= 0)
		a->nconns--;
	count(a, t, -1);
	free(t);
}

/* Count the command-line connections now. */
int admit_clients(const struct admit *a)
{
	return a->nclients;
}
