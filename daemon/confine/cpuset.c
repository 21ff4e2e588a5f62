/*
 * cpuset.c - cgroup cpuset directories for the jobs (see cpuset.h).
 *
 * Finding the hierarchy: /proc/self/mountinfo names the mounts (type
 * cgroup2 for version 2; type cgroup with "cpuset" among the super
 * options for version 1, where "noprefix" drops the "cpuset." of the file
 * names), /proc/self/cgroup this process's cgroup in each ("0::/path" for
 * version 2, "N:cpu,cpuset:/path" for version 1); the cgroup's folder is
 * the mount point plus that path less the mount's root.
 *
 * Version 2 (Documentation/admin-guide/cgroup-v2.rst): the cpuset
 * controller must be listed in the own cgroup's cgroup.controllers (its
 * parent enabled it: delegation), and cgroup.procs, cgroup.subtree_control
 * and the folder must be writable.  A cgroup other than the root that
 * enables a controller for its children may hold no processes itself
 * ("no internal processes"), so this process first moves into the leaf
 * <own>/daemon, then writes "+cpuset" to <own>/cgroup.subtree_control and
 * to <own>/<name>/cgroup.subtree_control; the jobs' folders are
 * <own>/<name>/job-<id>.  An empty cpuset.mems inherits the parent's, so
 * only cpuset.cpus is written.  Moving a process needs write access to
 * cgroup.procs of the common ancestor of its cgroup and the target: a job
 * started outside the delegated subtree by an unprivileged daemon fails
 * (EACCES, ENOENT), which confine.c answers with sched_setaffinity.  When
 * enabling the controller fails, this process moves back (a failure after
 * that leaves it in the leaf, which is as good a place as any).
 *
 * Version 1: a cpuset's cpus and mems must be set before tasks may join,
 * and must be subsets of its parent's; a folder's cpus cannot shrink below
 * a child's.  The daemon's folder gets the release set and the own
 * cpuset's mems, every folder cpuset.sched_load_balance 0, written before
 * cpus: with 1, every write of cpuset.cpus rebuilds the kernel's
 * scheduling domains (the own cpuset's balancing, the root's by default,
 * still covers the CPUs, so load balancing goes on as before).  A folder
 * left by a previous daemon may have other CPUs; it first gets the union
 * of the old and the release set, its job folders the release set, then
 * it the release set.
 *
 * A daemon that stops (confine_free) moves the processes of jobs that
 * outlive it out of their folders into the cgroup it lives in (its own,
 * or <own>/daemon under version 2), so that it leaves no folder behind;
 * the next daemon puts a job back in a folder of its own when the job
 * reconnects, as for any new job.
 *
 * Folders of dead daemons.  Each daemon names its folder after its socket
 * (main.c), so one killed (kill -9, a crash) on a socket nobody uses again
 * would leave it for good.  A live handle holds an exclusive flock on its
 * folder (taken as soon as the folder is made, and checked to be the
 * folder still at that path: a sweeping peer may have removed it in
 * between), which the kernel drops when the daemon dies however it dies
 * (the lock is its open file's: a child forked without exec would share
 * it; asteald forks none, and the descriptor is close-on-exec).
 * Opening, a daemon removes every <own>/asteal-* folder beside its own
 * that no process holds so: its empty job folders, then it (a folder
 * whose jobs still run stays, held to their last CPUs).  A daemon started
 * inside another's job (a test, a nested service) has its folder inside
 * that job's: removing a job folder first removes the dead daemons'
 * folders in it, so that one of them left behind does not keep the job's,
 * and its daemon's, forever.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpulist.h"
#include "cpuset.h"
#include "proctree.h"
#include "why.h"

/* The most job folders of a previous daemon kept (with processes). */
#define CPUSET_LEFT_MAX 4096
/* Evicting a job's folder: the most of its cgroup.procs read at once (the
 * rest the next pass), and the passes (a process forked while its parent
 * moved stays behind, for the next). */
#define CPUSET_PROCS_MAX 65536
#define CPUSET_EVICT_PASSES 8

struct cpuset {
	int version;
	char own[PATH_MAX];     /* this process's cgroup folder */
	char home[PATH_MAX];    /* where it lives: own, or own/daemon (v2) */
	char base[PATH_MAX];    /* own/name */
	const char *pfx;        /* "cpuset." (or "" under v1 noprefix) */
	char *mems;             /* v1: the mems of each job folder */
	char *release;          /* the release set, a CPU list */
	uint64_t *left;         /* leftover job folders with processes */
	int nleft;
	int lock_fd;            /* base, flocked while the handle lives */
	int swept;              /* dead daemons' folders removed at open */
};

/* Join dir and name into buf: 0, or -1 with ENAMETOOLONG. */
static int join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Write text to dir/file: 0, or -1 with errno and a reason. */
static int write_text(const char *dir, const char *file, const char *text,
                      char *why, size_t whylen)
{
	char path[PATH_MAX];
	size_t len = strlen(text);
	ssize_t n;
	int fd, err;

	if (join(path, sizeof(path), dir, file) < 0)
		return why_fail(why, whylen, ENAMETOOLONG, "path too long: %s/%s",
			    dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return why_fail(why, whylen, err, "open %s: %s", path, strerror(err));
	}
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	err = errno;
	close(fd);
	if (n < 0)
		return why_fail(why, whylen, err, "write '%.64s' to %s: %s", text,
			    path, strerror(err));
	if ((size_t)n != len)
		return why_fail(why, whylen, EIO, "write '%.64s' to %s: short write",
			    text, path);
	return 0;
}

/* Read dir/file (the first len - 1 bytes) into buf without its trailing
 * newline: the length, or -1 with errno. */
static ssize_t read_text(const char *dir, const char *file, char *buf,
                         size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	size_t got;

	if (join(path, sizeof(path), dir, file) < 0 ||
	    (n = proctree_read(path, buf, len)) < 0)
		return -1;
	got = (size_t)n;
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		got--;
	buf[got] = '\0';
	return (ssize_t)got;
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* Whether the comma-separated list has the item word. */
static int has_item(const char *list, const char *word, char sep)
{
	size_t wl = strlen(word);

	for (const char *p = list; p != NULL && *p != '\0';) {
		const char *end = strchr(p, sep);
		size_t il = end != NULL ? (size_t)(end - p) : strlen(p);

		if (il == wl && strncmp(p, word, wl) == 0)
			return 1;
		p = end != NULL ? end + 1 : NULL;
	}
	return 0;
}

/* The mount of the hierarchy (cgroup2; or cgroup v1 with cpuset): its
 * mount point and root into mnt and root, and whether it is mounted with
 * noprefix: 0, or -1 with a reason. */
static int find_mount(int version, char *mnt, size_t mlen, char *root,
                      size_t rlen, int *noprefix, char *why, size_t whylen)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (f == NULL)
		return why_fail(why, whylen, errno, "/proc/self/mountinfo: %s",
			    strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		char *field[6], *sep, *save = NULL, *tail, *fstype, *opts;
		int i;

		line[strcspn(line, "\n")] = '\0';
		sep = strstr(line, " - ");
		if (sep == NULL)
			continue;
		*sep = '\0';
		tail = sep + 3;
		fstype = strtok_r(tail, " ", &save);
		(void)strtok_r(NULL, " ", &save);       /* the source */
		opts = strtok_r(NULL, " ", &save);
		if (fstype == NULL)
			continue;
		if (version == 2 ? strcmp(fstype, "cgroup2") != 0 :
		    strcmp(fstype, "cgroup") != 0 || opts == NULL ||
		    !has_item(opts, "cpuset", ','))
			continue;
		save = NULL;
		for (i = 0; i < 6; i++) {
			field[i] = strtok_r(i == 0 ? line : NULL, " ", &save);
			if (field[i] == NULL)
				break;
		}
		if (i < 5)
			continue;
		unescape(field[3]);
		unescape(field[4]);
		snprintf(mnt, mlen, "%s", field[4]);
		snprintf(root, rlen, "%s", field[3]);
		*noprefix = opts != NULL && has_item(opts, "noprefix", ',');
		fclose(f);
		return 0;
	}
	fclose(f);
	if (version == 2)
		return why_fail(why, whylen, ENOENT, "no cgroup2 mount");
	return why_fail(why, whylen, ENOENT, "no cgroup v1 cpuset mount");
}

/* This process's cgroup path in the hierarchy (version 2: the "0::" line;
 * 1: the line whose controllers include cpuset): 0, or -1 with a reason. */
static int own_path(int version, char *path, size_t len, char *why,
                    size_t whylen)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (f == NULL)
		return why_fail(why, whylen, errno, "/proc/self/cgroup: %s",
			    strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c1 = strchr(line, ':'), *c2;

		if (c1 == NULL || (c2 = strchr(c1 + 1, ':')) == NULL)
			continue;
		*c1 = '\0';
		*c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (version == 2 ? strcmp(line, "0") != 0 || c2 != c1 + 1 :
		    !has_item(c1 + 1, "cpuset", ','))
			continue;
		snprintf(path, len, "%s", c2 + 1);
		fclose(f);
		return 0;
	}
	fclose(f);
	return why_fail(why, whylen, ENOENT, "no %s line in /proc/self/cgroup",
		    version == 2 ? "0::" : "cpuset");
}

/* The own cgroup's folder into cs->own: 0, or -1 with a reason. */
static int find_own(struct cpuset *cs, int *is_root, char *why, size_t whylen)
{
	char mnt[PATH_MAX], root[PATH_MAX], path[PATH_MAX];
	const char *rel;
	size_t rl;
	int noprefix = 0, n;

	if (find_mount(cs->version, mnt, sizeof(mnt), root, sizeof(root),
		       &noprefix, why, whylen) < 0 ||
	    own_path(cs->version, path, sizeof(path), why, whylen) < 0)
		return -1;
	cs->pfx = noprefix ? "" : "cpuset.";
	rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if (strncmp(path, root, rl) != 0 || (path[rl] != '/' && path[rl] != '\0'))
		return why_fail(why, whylen, ENOENT,
			    "own cgroup %s is outside the mount's root %s", path,
			    root);
	rel = path + rl;
	if (strcmp(rel, "/") == 0)
		rel = "";
	*is_root = *rel == '\0';
	n = snprintf(cs->own, sizeof(cs->own), "%s%s", mnt, rel);
	if (n < 0 || (size_t)n >= sizeof(cs->own))
		return why_fail(why, whylen, ENAMETOOLONG, "path too long: %s%s",
			    mnt, rel);
	return 0;
}

/* The name of a cpuset file ("cpus" -> "cpuset.cpus") into buf. */
static const char *cs_file(const struct cpuset *cs, const char *f, char *buf,
                           size_t len)
{
	snprintf(buf, len, "%s%s", cs->pfx, f);
	return buf;
}

/* Make folder path (an existing one is fine): 0, or -1 with a reason. */
static int make_dir(const char *path, char *why, size_t whylen)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return why_fail(why, whylen, errno, "mkdir %s: %s", path,
			    strerror(errno));
	return 0;
}

/* The folder of job id into buf: 0, or -1 with ENAMETOOLONG. */
static int job_dir(const struct cpuset *cs, uint64_t id, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/job-%llu", cs->base,
			 (unsigned long long)id);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Make the daemon's folder and hold it (an exclusive flock for the
 * handle's life), retrying when a peer sweeping dead daemons' folders
 * removed it in between: 0, or -1 with a reason. */
static int lock_base(struct cpuset *cs, char *why, size_t whylen)
{
	for (int i = 0; i < 100; i++) {
		struct stat a, b;

		if (make_dir(cs->base, why, whylen) < 0)
			return -1;
		if (cs->lock_fd < 0)
			cs->lock_fd = open(cs->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cs->lock_fd < 0) {
			if (errno == ENOENT)
				continue;
			return why_fail(why, whylen, errno, "%s: %s", cs->base,
			                strerror(errno));
		}
		if (flock(cs->lock_fd, LOCK_EX | LOCK_NB) < 0) {
			if (errno != EWOULDBLOCK)
				return why_fail(why, whylen, errno, "flock %s: %s",
				                cs->base, strerror(errno));
			usleep(1000);   /* a peer's sweep holds it a moment */
			continue;
		}
		if (fstat(cs->lock_fd, &a) == 0 && stat(cs->base, &b) == 0 &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			return 0;
		close(cs->lock_fd);     /* removed meanwhile: again */
		cs->lock_fd = -1;
	}
	return why_fail(why, whylen, EBUSY, "%s is held by another asteald "
	                "(on the same socket?)", cs->base);
}

/* How deep a dead daemon's folder may nest others (a daemon started
 * inside a job of another puts its folder in that job's). */
#define SWEEP_DEPTH 8

static int sweep_daemon(const char *path, int depth);

/* Remove a dead daemon's job folder: first the folders of dead daemons
 * started inside that job, then it (nothing when a process is still in
 * it, or in one of those). */
static void sweep_job(const char *path, int depth)
{
	char sub[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (depth < SWEEP_DEPTH && (d = opendir(path)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, "asteal-", 7) == 0 &&
			    join(sub, sizeof(sub), path, e->d_name) == 0)
				(void)sweep_daemon(sub, depth + 1);
		closedir(d);
	}
	(void)rmdir(path);
}

/* Remove the folder of a daemon, if dead (no handle holds its flock):
 * its job folders first, then it.  1 when it went. */
static int sweep_daemon(const char *path, int depth)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), gone = 0;
	char sub[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && (d = fdopendir(dup(fd))) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, "job-", 4) == 0 &&
			    join(sub, sizeof(sub), path, e->d_name) == 0)
				sweep_job(sub, depth);
		closedir(d);
		gone = rmdir(path) == 0;
	}
	close(fd);
	return gone;
}

/* Remove the folders dead daemons left beside this one (see the top of
 * this file): every <own>/asteal-* that no handle holds, its empty job
 * folders first (and in them, the folders of dead daemons started inside
 * those jobs); counted in cs->swept. */
static void sweep_abandoned(struct cpuset *cs, const char *name)
{
	DIR *d = opendir(cs->own);
	char path[PATH_MAX];
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "asteal-", 7) == 0 &&
		    strcmp(e->d_name, name) != 0 &&
		    join(path, sizeof(path), cs->own, e->d_name) == 0)
			cs->swept += sweep_daemon(path, 0);
	closedir(d);
}

/* Version 2: check delegation, move into <own>/daemon, enable cpuset for
 * the children of <own> and of <own>/<name>: 0, or -1 with a reason. */
static int open_v2(struct cpuset *cs, int is_root, char *why, size_t whylen)
{
	char buf[4096], path[PATH_MAX], leaf[PATH_MAX], pid[32];

	if (read_text(cs->own, "cgroup.controllers", buf, sizeof(buf)) < 0)
		return why_fail(why, whylen, errno, "%s/cgroup.controllers: %s",
			    cs->own, strerror(errno));
	if (!has_item(buf, "cpuset", ' '))
		return why_fail(why, whylen, ENOENT,
			    "no cpuset controller in %s (cgroup.controllers: %s)",
			    cs->own, *buf != '\0' ? buf : "none");
	if (access(cs->own, W_OK) < 0 ||
	    join(path, sizeof(path), cs->own, "cgroup.subtree_control") < 0 ||
	    access(path, W_OK) < 0 ||
	    join(path, sizeof(path), cs->own, "cgroup.procs") < 0 ||
	    access(path, W_OK) < 0)
		return why_fail(why, whylen, errno, "%s not writable (not delegated): %s",
			    cs->own, strerror(errno));
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (!is_root) {
		if (join(leaf, sizeof(leaf), cs->own, "daemon") < 0)
			return why_fail(why, whylen, ENAMETOOLONG, "path too long");
		if (make_dir(leaf, why, whylen) < 0 ||
		    write_text(leaf, "cgroup.procs", pid, why, whylen) < 0)
			return -1;
		memcpy(cs->home, leaf, sizeof(cs->home));
	}
	if (write_text(cs->own, "cgroup.subtree_control", "+cpuset", why,
		       whylen) < 0) {
		int err = errno;

		if (!is_root) {         /* back where it was */
			(void)write_text(cs->own, "cgroup.procs", pid, NULL, 0);
			(void)rmdir(leaf);
		}
		if (err == EBUSY && why != NULL)
			snprintf(why + strlen(why), whylen - strlen(why),
				 " (processes other than this one in %s?)",
				 cs->own);
		errno = err;
		return -1;
	}
	if (lock_base(cs, why, whylen) < 0 ||
	    write_text(cs->base, "cgroup.subtree_control", "+cpuset", why,
		       whylen) < 0 ||
	    write_text(cs->base, "cpuset.cpus", cs->release, why, whylen) < 0)
		return -1;
	return 0;
}

/* The union of CPU lists a and b into out (len bytes): 0, or -1. */
static int list_union(const char *a, const char *b, char *out, size_t len)
{
	int *cpus = malloc(2 * CPULIST_MAX * sizeof(int));
	int n, m, r;

	if (cpus == NULL)
		return -1;
	n = cpulist_parse(a, cpus, CPULIST_MAX, NULL, 0);
	m = cpulist_parse(b, cpus + (n > 0 ? n : 0), CPULIST_MAX, NULL, 0);
	r = cpulist_format(cpus, (n > 0 ? n : 0) + (m > 0 ? m : 0), out, len);
	free(cpus);
	return r < 0 ? -1 : 0;
}

/* Version 1: the daemon's folder with load balancing off, the own mems
 * and the release set (widened first when a previous daemon's folder had
 * others): 0, or -1 with a reason. */
static int open_v1(struct cpuset *cs, char *why, size_t whylen)
{
	char f[64], buf[8192], old[8192];

	if (read_text(cs->own, cs_file(cs, "mems", f, sizeof(f)), buf,
		      sizeof(buf)) < 0)
		return why_fail(why, whylen, errno, "%s/%s: %s", cs->own, f,
			    strerror(errno));
	if (*buf == '\0')
		return why_fail(why, whylen, ENOENT, "%s/%s is empty", cs->own, f);
	cs->mems = strdup(buf);
	if (cs->mems == NULL)
		return why_fail(why, whylen, ENOMEM, "out of memory");
	if (lock_base(cs, why, whylen) < 0 ||
	    write_text(cs->base, cs_file(cs, "sched_load_balance", f, sizeof(f)),
		       "0", why, whylen) < 0 ||
	    write_text(cs->base, cs_file(cs, "mems", f, sizeof(f)), cs->mems,
		       why, whylen) < 0)
		return -1;
	if (read_text(cs->base, cs_file(cs, "cpus", f, sizeof(f)), old,
		      sizeof(old)) > 0 &&
	    list_union(old, cs->release, buf, sizeof(buf)) == 0 &&
	    strcmp(buf, old) != 0 &&
	    write_text(cs->base, f, buf, why, whylen) < 0)
		return -1;
	return 0;
}

/* Widen the job folders a previous daemon left to the release set and
 * remove the empty ones; keep the ids of the others. */
static void sweep_leftovers(struct cpuset *cs)
{
	struct dirent *e;
	DIR *d = opendir(cs->base);

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		unsigned long long id;
		char tail;

		if (sscanf(e->d_name, "job-%llu%c", &id, &tail) != 1)
			continue;
		(void)cpuset_job_cpus(cs, id, cs->release, NULL, 0);
		if (cpuset_job_remove(cs, id) == 0)
			continue;
		if (cs->left == NULL)
			cs->left = malloc(CPUSET_LEFT_MAX * sizeof(*cs->left));
		if (cs->left != NULL && cs->nleft < CPUSET_LEFT_MAX)
			cs->left[cs->nleft++] = id;
	}
	closedir(d);
}

/* Open the hierarchy and the daemon's folder in it. */
struct cpuset *cpuset_open(int version, const char *name, const char *release,
                           char *why, size_t whylen)
{
	struct cpuset *cs = calloc(1, sizeof(*cs));
	char msg[512] = "out of memory", f[64];
	int is_root = 0, r = -1;

	if (cs != NULL)
		cs->lock_fd = -1;
	if (cs != NULL && (cs->release = strdup(release)) != NULL) {
		cs->version = version;
		cs->pfx = "cpuset.";
		r = find_own(cs, &is_root, msg, sizeof(msg));
		if (r == 0)
			memcpy(cs->home, cs->own, sizeof(cs->home));
		if (r == 0 && join(cs->base, sizeof(cs->base), cs->own, name) < 0)
			r = why_fail(msg, sizeof(msg), ENAMETOOLONG, "path too long");
		if (r == 0 && version == 2)
			r = open_v2(cs, is_root, msg, sizeof(msg));
		if (r == 0 && version == 1)
			r = open_v1(cs, msg, sizeof(msg));
		if (r == 0) {
			sweep_leftovers(cs);
			sweep_abandoned(cs, name);
		}
		if (r == 0 && version == 1)
			r = write_text(cs->base, cs_file(cs, "cpus", f, sizeof(f)),
				       cs->release, msg, sizeof(msg));
	}
	if (r < 0) {
		if (why != NULL && whylen > 0)
			snprintf(why, whylen, "cgroup v%d: %s", version, msg);
		cpuset_close(cs);
		return NULL;
	}
	return cs;
}

/* Free the handle. */
void cpuset_close(struct cpuset *cs)
{
	if (cs == NULL)
		return;
	if (cs->lock_fd >= 0)
		close(cs->lock_fd);
	free(cs->mems);
	free(cs->release);
	free(cs->left);
	free(cs);
}

/* The daemon's folder. */
const char *cpuset_path(const struct cpuset *cs)
{
	return cs->base;
}

/* 1 or 2. */
int cpuset_version(const struct cpuset *cs)
{
	return cs->version;
}

/* How many folders of dead daemons cpuset_open removed. */
int cpuset_swept(const struct cpuset *cs)
{
	return cs->swept;
}

/* The leftover job folders with processes. */
int cpuset_leftovers(const struct cpuset *cs, uint64_t *ids, int max)
{
	int n = cs->nleft < max ? cs->nleft : max;

	for (int i = 0; i < n; i++)
		ids[i] = cs->left[i];
	return n;
}

/* Make (or reuse) job id's folder with CPUs cpus. */
int cpuset_job_make(struct cpuset *cs, uint64_t id, const char *cpus,
                    char *why, size_t whylen)
{
	char dir[PATH_MAX], f[64];

	if (job_dir(cs, id, dir, sizeof(dir)) < 0)
		return why_fail(why, whylen, ENAMETOOLONG, "path too long");
	if (make_dir(dir, why, whylen) < 0)
		return -1;
	if (cs->version == 1 &&
	    (write_text(dir, cs_file(cs, "sched_load_balance", f, sizeof(f)),
			"0", why, whylen) < 0 ||
	     write_text(dir, cs_file(cs, "mems", f, sizeof(f)), cs->mems, why,
			whylen) < 0))
		return -1;
	return cpuset_job_cpus(cs, id, cpus, why, whylen);
}

/* Write job id's CPUs. */
int cpuset_job_cpus(struct cpuset *cs, uint64_t id, const char *cpus,
                    char *why, size_t whylen)
{
	char dir[PATH_MAX], f[64];

	if (job_dir(cs, id, dir, sizeof(dir)) < 0)
		return why_fail(why, whylen, ENAMETOOLONG, "path too long");
	return write_text(dir, cs_file(cs, "cpus", f, sizeof(f)), cpus, why,
			  whylen);
}

/* Move process pid into job id's folder. */
int cpuset_job_attach(struct cpuset *cs, uint64_t id, pid_t pid,
                      char *why, size_t whylen)
{
	char dir[PATH_MAX], text[32];

	if (job_dir(cs, id, dir, sizeof(dir)) < 0)
		return why_fail(why, whylen, ENAMETOOLONG, "path too long");
	snprintf(text, sizeof(text), "%d", (int)pid);
	return write_text(dir, "cgroup.procs", text, why, whylen);
}

/* Remove job id's folder if empty. */
int cpuset_job_remove(struct cpuset *cs, uint64_t id)
{
	char dir[PATH_MAX];

	if (job_dir(cs, id, dir, sizeof(dir)) < 0)
		return -1;
	if (rmdir(dir) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

/* Move job id's processes home and remove its folder (cpuset.h). */
int cpuset_job_evict(struct cpuset *cs, uint64_t id)
{
	char dir[PATH_MAX], *procs;
	int err = 0;

	if (job_dir(cs, id, dir, sizeof(dir)) < 0)
		return -1;
	procs = malloc(CPUSET_PROCS_MAX);
	if (procs == NULL)
		return -1;
	for (int pass = 0; pass < CPUSET_EVICT_PASSES; pass++) {
		char *at, *end;

		if (cpuset_job_remove(cs, id) == 0) {
			free(procs);
			return 0;
		}
		err = errno;
		if (read_text(dir, "cgroup.procs", procs, CPUSET_PROCS_MAX) < 0) {
			err = errno;
			break;
		}
		for (at = procs; *at != '\0'; at = end) {
			size_t n = strcspn(at, "\n");

			end = at + n + (at[n] == '\n');
			at[n] = '\0';
			/* gone meanwhile (ESRCH) is as good as moved */
			if (*at != '\0' &&
			    write_text(cs->home, "cgroup.procs", at, NULL, 0) < 0 &&
			    errno != ESRCH)
				err = errno;
		}
	}
	free(procs);
	if (cpuset_job_remove(cs, id) == 0)
		return 0;
	errno = err != 0 ? err : EBUSY;
	return -1;
}

/* Remove the daemon's folder if empty. */
int cpuset_remove(struct cpuset *cs)
{
	if (rmdir(cs->base) < 0 && errno != ENOENT)
		return -1;
	return 0;
}
