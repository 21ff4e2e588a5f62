/*
 * claim.c - the database lock and the CPU names of one asteald (see
 * claim.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>

#include "claim.h"
#include "cpulist.h"

#define CPU_NAME "asteal/cpu/%d"        /* abstract socket per CPU */
#define KNOCKS_PER_WAKE 64              /* connections closed per wake-up */
#define KNOCK_PAUSE_MS 100              /* knocks left waiting when there
                                           is no descriptor to take them */

/* One CPU's name, held. */
struct held {
	int fd;
	struct event *ev;
};

struct claim {
	int lock_fd;                    /* the database's lock file, or -1 */
	struct held *cpus;              /* nheld of them */
	int nheld;
	struct event *resume;           /* takes knocks again after a pause */
};

/* A new claim holding nothing. */
struct claim *claim_new(void)
{
	struct claim *c = calloc(1, sizeof(*c));

	if (c != NULL)
		c->lock_fd = -1;
	return c;
}

/* The lock file's name for db: beside the file its path names after its
 * symbolic links (the folder's when the file does not exist yet), so two
 * paths to one database meet at one lock; 0, or -1 with errno. */
static int lock_path(const char *db, char *out, size_t len)
{
	char real[PATH_MAX], dir[PATH_MAX], base[PATH_MAX];
	int n;

	if (realpath(db, real) != NULL) {
		n = snprintf(out, len, "%s.lock", real);
	} else {
		if (errno != ENOENT || strlen(db) >= sizeof(dir))
			return -1;
		strcpy(dir, db);
		strcpy(base, db);
		if (realpath(dirname(dir), real) == NULL)
			return -1;
		n = snprintf(out, len, "%s/%s.lock", real, basename(base));
	}
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Lock the database for this daemon's life. */
int claim_db(struct claim *c, const char *db, char *why, size_t whylen)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[PATH_MAX + 8], pid[32];
	int fd, n;

	if (strcmp(db, ":memory:") == 0)
		return 0;
	if (lock_path(db, path, sizeof(path)) < 0) {
		snprintf(why, whylen, "cannot lock the history database %s: %s",
		         db, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == EACCES)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);  /* another's */
	if (fd < 0) {
		snprintf(why, whylen, "cannot lock the history database %s: %s: "
		         "%s", db, path, strerror(errno));
		return -1;
	}
	if (fcntl(fd, F_SETLK, &fl) < 0) {
		int e = errno;

		fl.l_type = F_WRLCK;
		if ((e == EAGAIN || e == EACCES || e == EBADF) &&
		    fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK) {
			if (fl.l_pid > 0)
				snprintf(pid, sizeof(pid), "pid %d", (int)fl.l_pid);
			else
				snprintf(pid, sizeof(pid), "pid unknown");
			snprintf(why, whylen, "the history database %s is in use by "
			         "another asteald (%s, which holds %s): one daemon "
			         "per database; stop it, or give this one another "
			         "--db", db, pid, path);
			close(fd);
			return 1;
		}
		snprintf(why, whylen, "cannot lock the history database %s: %s: "
		         "%s", db, path, strerror(e));
		close(fd);
		return -1;
	}
	/* For people: who holds it (the lock itself says so to programs). */
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* The lock holds all the same. */
	}
	c->lock_fd = fd;
	return 0;
}

/* Take knocks again after a pause. */
static void on_resume(evutil_socket_t fd, short what, void *arg)
{
	struct claim *c = arg;

	(void)fd;
	(void)what;
	for (int i = 0; i < c->nheld; i++)
		event_add(c->cpus[i].ev, NULL);
}

/* Another daemon asked who holds a CPU: accept and close (connecting told
 * it already).  With no descriptor to accept it (EMFILE ...), the knock
 * stays in the backlog and would wake the loop again at once, forever:
 * instead the names are not watched for KNOCK_PAUSE_MS. */
static void on_knock(evutil_socket_t fd, short what, void *arg)
{
	static const struct timeval pause = { 0, KNOCK_PAUSE_MS * 1000 };
	struct claim *c = arg;

	(void)what;
	for (int i = 0; i < KNOCKS_PER_WAKE; i++) {
		int s = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (s >= 0) {
			close(s);
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		    errno == ECONNABORTED)
			return;
		for (int k = 0; k < c->nheld; k++)
			event_del(c->cpus[k].ev);
		evtimer_add(c->resume, &pause);
		return;
	}
}

/* The abstract address of CPU cpu's name; its length. */
static socklen_t cpu_addr(int cpu, struct sockaddr_un *a)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, CPU_NAME, cpu);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* Who holds CPU cpu's name: 0 with its credentials, or -1. */
static int holder(int cpu, struct ucred *cr)
{
	struct sockaddr_un a;
	socklen_t alen = cpu_addr(cpu, &a), clen = sizeof(*cr);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int r = -1;

	if (s < 0)
		return -1;
	if (connect(s, (struct sockaddr *)&a, alen) == 0 &&
	    getsockopt(s, SOL_SOCKET, SO_PEERCRED, cr, &clen) == 0 && cr->pid > 0)
		r = 0;
	close(s);
	return r;
}

/* Hold CPU cpu's name: 1 when held now, 0 when another holds it, -1 on
 * another failure. */
static int hold(struct claim *c, struct event_base *base, int cpu)
{
	struct sockaddr_un a;
	socklen_t alen = cpu_addr(cpu, &a);
	struct held *h = &c->cpus[c->nheld];
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -1;
	if (bind(s, (struct sockaddr *)&a, alen) < 0) {
		int e = errno;

		close(s);
		return e == EADDRINUSE ? 0 : -1;
	}
	h->ev = listen(s, 64) == 0 ?
		event_new(base, s, EV_READ | EV_PERSIST, on_knock, c) : NULL;
	if (h->ev == NULL || event_add(h->ev, NULL) < 0) {
		if (h->ev != NULL)
			event_free(h->ev);
		close(s);
		return -1;
	}
	h->fd = s;
	c->nheld++;
	return 1;
}

/* A process's command line, spaces between its arguments, into buf. */
static void cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	if (n <= 0) {
		snprintf(buf, len, "command line unknown");
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
}

/* Add to warn the CPUs others (in other[0..n) by holder, holders in pid)
 * hold, one clause per holder. */
static void say_others(const int *other, const pid_t *by, const uid_t *uid,
                       int n, char *warn, size_t warnlen)
{
	int done[CPULIST_MAX], list[CPULIST_MAX];
	char cpus[256], cmd[200], who[260];
	size_t off = 0;

	memset(done, 0, sizeof(done[0]) * (size_t)n);
	for (int i = 0; i < n; i++) {
		int k = 0;

		if (done[i])
			continue;
		for (int j = i; j < n; j++)
			if (!done[j] && by[j] == by[i]) {
				list[k++] = other[j];
				done[j] = 1;
			}
		cpulist_format(list, k, cpus, sizeof(cpus));
		if (by[i] > 0) {
			cmdline(by[i], cmd, sizeof(cmd));
			snprintf(who, sizeof(who), "pid %d, uid %u: %s", (int)by[i],
			         (unsigned)uid[i], cmd);
		} else {
			snprintf(who, sizeof(who), "holder unknown");
		}
		if (off < warnlen)
			off += (size_t)snprintf(warn + off, warnlen - off,
			        "%s%s %s %s managed by another asteald too (%s)",
			        off ? "; " : "", k > 1 ? "CPUs" : "CPU", cpus,
			        k > 1 ? "are" : "is", who);
	}
	if (off < warnlen)
		snprintf(warn + off, warnlen - off, ": both allot them, so their "
		         "jobs contend; give each daemon its own CPUs (--cpus)");
}

/* Claim the CPUs, saying which another daemon claimed already. */
int claim_cpus(struct claim *c, struct event_base *base, const int *cpus,
	       int n, char *warn, size_t warnlen)
{
	int *other;
	pid_t *by;
	uid_t *uid;
	int nother = 0, failed = 0, r;
	struct held *more;

	*warn = '\0';
	if (n <= 0)
		return 0;
	more = realloc(c->cpus, (size_t)(c->nheld + n) * sizeof(*more));
	other = malloc((size_t)n * sizeof(*other));
	by = malloc((size_t)n * sizeof(*by));
	uid = malloc((size_t)n * sizeof(*uid));
	if (more != NULL)
		c->cpus = more;
	if (c->resume == NULL)
		c->resume = evtimer_new(base, on_resume, c);
	if (more == NULL || other == NULL || by == NULL || uid == NULL ||
	    c->resume == NULL) {
		free(other);
		free(by);
		free(uid);
		snprintf(warn, warnlen, "cannot tell whether another daemon "
		         "manages these CPUs: out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		struct ucred cr;

		r = hold(c, base, cpus[i]);
		if (r < 0) {
			failed = errno;
		} else if (r == 0) {
			by[nother] = holder(cpus[i], &cr) == 0 ? cr.pid : 0;
			uid[nother] = by[nother] > 0 ? cr.uid : 0;
			other[nother++] = cpus[i];
		}
	}
	if (nother > 0)
		say_others(other, by, uid, nother, warn, warnlen);
	else if (failed != 0)
		snprintf(warn, warnlen, "cannot tell whether another daemon "
		         "manages these CPUs: %s", strerror(failed));
	free(other);
	free(by);
	free(uid);
	return nother > 0 ? nother : failed != 0 ? -1 : 0;
}

/* Release everything. */
void claim_free(struct claim *c)
{
	if (c == NULL)
		return;
	for (int i = 0; i < c->nheld; i++) {
		event_free(c->cpus[i].ev);
		close(c->cpus[i].fd);
	}
	if (c->resume != NULL)
		event_free(c->resume);
	free(c->cpus);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	free(c);
}
