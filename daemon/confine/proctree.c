/*
 * proctree.c - reading /proc for asteald (see proctree.h).
 *
 * Files are read whole with open/read/close into buffers on the stack (a
 * stat line is at most a few hundred bytes; PROCTREE_LINE holds any), but
 * for the children lists, which are parsed as they are read, and
 * /proc/stat, read line by line.  The stat line's command name (field 2)
 * may hold anything, spaces and parentheses included, so fields are
 * counted from the last ')' of the line.
 *
 * The tree walk is breadth first over the pids array itself (the queue).
 * A child listed in /proc/P/task/T/children may end and its pid be reused
 * before the walk reaches it; each listed child's parent is read back from
 * its own stat line and the child is skipped unless it is P.  What
 * remains: a child reaped and its pid reused by another child of P is
 * then legitimately P's; and a pid may be reused between this check and
 * whatever the caller does with it (the whole pid space must wrap in
 * between: the callers act within microseconds).
 */
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proctree.h"

/* The longest stat or status prefix read (bytes). */
#define PROCTREE_LINE 4096

/* The /proc root (proctree_set_root). */
static char proc_root[PATH_MAX] = "/proc";

/* Point the module at dir instead of /proc. */
void proctree_set_root(const char *dir)
{
	snprintf(proc_root, sizeof(proc_root), "%s", dir != NULL ? dir : "/proc");
}

/* The /proc root in use. */
const char *proctree_root(void)
{
	return proc_root;
}

/* Format root + the rest into buf: 0, or -1 with ENAMETOOLONG. */
__attribute__((format(printf, 3, 4)))
static int proc_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, len, "%s/", proc_root);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - (size_t)n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Read a small file. */
ssize_t proctree_read(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			close(fd);
			errno = err;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

/* Read file path into buf (NUL-terminated, at most len - 1 bytes): the
 * length, or -1 with errno (ESRCH for a file that does not exist). */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	ssize_t n = proctree_read(path, buf, len);

	if (n < 0 && errno == ENOENT)
		errno = ESRCH;
	return n;
}

/* Parse the unsigned decimal at *p (digits only) into *v, moving *p past
 * it: 0, or -1 with errno (EINVAL: no digits; ERANGE: over 64 bits). */
static int parse_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s < '0' || *s > '9') {
		errno = EINVAL;
		return -1;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(*s - '0'), &x)) {
			errno = ERANGE;
			return -1;
		}
	}
	*p = s;
	*v = x;
	return 0;
}

/* Clock ticks to nanoseconds: 0, or -1 with ERANGE. */
static int ticks_to_ns(uint64_t ticks, uint64_t *ns)
{
	static _Atomic long cached;     /* read by the loop and the watcher */
	long hz = atomic_load_explicit(&cached, memory_order_relaxed);
	uint64_t whole, part;

	if (hz <= 0) {
		long h = sysconf(_SC_CLK_TCK);

		hz = h > 0 ? h : 100;
		atomic_store_explicit(&cached, hz, memory_order_relaxed);
	}
	if (__builtin_mul_overflow(ticks / (uint64_t)hz, 1000000000u, &whole)) {
		errno = ERANGE;
		return -1;
	}
	part = ticks % (uint64_t)hz * 1000000000u / (uint64_t)hz;
	if (__builtin_add_overflow(whole, part, ns)) {
		errno = ERANGE;
		return -1;
	}
	return 0;
}

/* Parse a stat line (pid (comm) state ppid ...) into st: 0, or -1 with
 * errno (EINVAL: malformed; ERANGE: a number too large). */
static int parse_stat(const char *line, struct proctree_stat *st)
{
	const char *p = strrchr(line, ')');
	uint64_t utime = 0, stime = 0, cutime = 0, cstime = 0, v;

	if (p == NULL) {
		errno = EINVAL;
		return -1;
	}
	p++;
	memset(st, 0, sizeof(*st));
	for (int field = 3; field <= 39; field++) {
		if (*p != ' ') {
			errno = EINVAL;
			return -1;
		}
		p++;
		if (field == 3) {
			if (*p == '\0' || *p == ' ' || *p == '\n') {
				errno = EINVAL;
				return -1;
			}
			st->state = *p++;
			continue;
		}
		if (field != 4 && (field < 14 || field > 17) && field != 22 &&
		    field != 39) {
			/* Skip it: a number, possibly signed. */
			if (*p == '-')
				p++;
			if (parse_u64(&p, &v) < 0 && errno == EINVAL)
				return -1;
			while (*p >= '0' && *p <= '9')
				p++;
			continue;
		}
		if (parse_u64(&p, &v) < 0)
			return -1;
		switch (field) {
		case 4:
			if (v > INT_MAX) {
				errno = ERANGE;
				return -1;
			}
			st->ppid = (pid_t)v;
			break;
		case 14: utime = v; break;
		case 15: stime = v; break;
		case 16: cutime = v; break;
		case 17: cstime = v; break;
		case 22: st->start_ticks = v; break;
		default:
			if (v > INT_MAX) {
				errno = ERANGE;
				return -1;
			}
			st->last_cpu = (int)v;
			break;
		}
	}
	if (*p != ' ' && *p != '\n' && *p != '\0') {
		errno = EINVAL;
		return -1;
	}
	if (__builtin_add_overflow(utime, stime, &v) || ticks_to_ns(v, &st->cpu_ns) < 0 ||
	    __builtin_add_overflow(cutime, cstime, &v) || ticks_to_ns(v, &st->child_ns) < 0) {
		errno = ERANGE;
		return -1;
	}
	return 0;
}

/* The stat line of a thread, or of the whole process (tid 0). */
int proctree_stat(pid_t pid, pid_t tid, struct proctree_stat *st)
{
	char path[PATH_MAX], line[PROCTREE_LINE];
	int r;

	if (tid == 0)
		r = proc_path(path, sizeof(path), "%d/stat", (int)pid);
	else
		r = proc_path(path, sizeof(path), "%d/task/%d/stat", (int)pid,
			      (int)tid);
	if (r < 0 || read_small(path, line, sizeof(line)) < 0)
		return -1;
	return parse_stat(line, st);
}

/* A thread's CPU time and last CPU. */
int proctree_thread_cpu(pid_t pid, pid_t tid, uint64_t *cpu_ns, int *last_cpu)
{
	struct proctree_stat st;

	if (proctree_stat(pid, tid, &st) < 0)
		return -1;
	if (cpu_ns != NULL)
		*cpu_ns = st.cpu_ns;
	if (last_cpu != NULL)
		*last_cpu = st.last_cpu;
	return 0;
}

/* Whether a directory entry's name is a positive decimal id; it in *id. */
static int name_is_id(const char *name, pid_t *id)
{
	uint64_t v;
	const char *p = name;

	if (parse_u64(&p, &v) < 0 || *p != '\0' || v == 0 || v > INT_MAX)
		return 0;
	*id = (pid_t)v;
	return 1;
}

/* Open process pid's task folder: a DIR, or NULL with errno (ESRCH). */
static DIR *open_tasks(pid_t pid)
{
	char path[PATH_MAX];
	DIR *d;

	if (proc_path(path, sizeof(path), "%d/task", (int)pid) < 0)
		return NULL;
	d = opendir(path);
	if (d == NULL && (errno == ENOENT || errno == ENOTDIR))
		errno = ESRCH;
	return d;
}

/* The thread ids of a process. */
int proctree_threads(pid_t pid, pid_t *tids, int max)
{
	struct dirent *e;
	DIR *d = open_tasks(pid);
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		pid_t tid;

		if (!name_is_id(e->d_name, &tid))
			continue;
		if (n >= max) {
			closedir(d);
			errno = ERANGE;
			return -1;
		}
		tids[n++] = tid;
	}
	closedir(d);
	return n;
}

/* Whether process child exists and its parent is parent. */
static int is_child_of(pid_t child, pid_t parent)
{
	struct proctree_stat st;

	return proctree_stat(child, 0, &st) == 0 && st.ppid == parent;
}

/* Append listed child v of process pid to pids (at *n of max) when its
 * parent is still pid: 0, or -1 with ERANGE. */
static int take_child(uint64_t v, pid_t pid, pid_t *pids, int *n, int max)
{
	if (v == 0 || v > INT_MAX || !is_child_of((pid_t)v, pid))
		return 0;
	if (*n >= max) {
		errno = ERANGE;
		return -1;
	}
	pids[(*n)++] = (pid_t)v;
	return 0;
}

/* Append the children thread tid of process pid lists to pids (at *n of
 * max): 0, or -1 with ERANGE; a thread that is gone lists none. */
static int add_children(pid_t pid, pid_t tid, pid_t *pids, int *n, int max)
{
	char path[PATH_MAX], buf[512];
	uint64_t v = 0;
	int fd, digits = 0, r = 0;
	ssize_t got;

	if (proc_path(path, sizeof(path), "%d/task/%d/children", (int)pid,
		      (int)tid) < 0)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* "123 456 " in as many reads as it takes; a number may straddle. */
	while (r == 0) {
		got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got && r == 0; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				if (v < INT_MAX)
					v = v * 10 + (uint64_t)(buf[i] - '0');
				digits = 1;
			} else if (digits) {
				r = take_child(v, pid, pids, n, max);
				v = 0;
				digits = 0;
			}
		}
	}
	if (r == 0 && digits)
		r = take_child(v, pid, pids, n, max);
	close(fd);
	if (r < 0)
		errno = ERANGE;
	return r;
}

/* The tree under root, visiting each process before reading its
 * children. */
int proctree_visit(pid_t root, pid_t *pids, int max,
                   int (*visit)(pid_t pid, void *arg), void *arg)
{
	int n = 1;

	if (max < 1) {
		errno = ERANGE;
		return -1;
	}
	pids[0] = root;
	for (int i = 0; i < n; i++) {
		struct dirent *e;
		DIR *d = open_tasks(pids[i]);

		if (d == NULL) {
			if (i == 0)
				return -1;      /* errno: ESRCH */
			continue;               /* vanished mid-walk */
		}
		if (visit != NULL && visit(pids[i], arg) < 0) {
			int err = errno;

			closedir(d);
			errno = err;
			return -1;
		}
		while ((e = readdir(d)) != NULL) {
			pid_t tid;

			if (!name_is_id(e->d_name, &tid))
				continue;
			if (add_children(pids[i], tid, pids, &n, max) < 0) {
				closedir(d);
				errno = ERANGE;
				return -1;
			}
		}
		closedir(d);
	}
	return n;
}

/* The tree under root. */
int proctree_walk(pid_t root, pid_t *pids, int max)
{
	return proctree_visit(root, pids, max, NULL, NULL);
}

/* Each CPU's busy time from /proc/stat. */
int proctree_cpu_busy(uint64_t *busy_ns, int max)
{
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	int top = 0, err = 0;
	FILE *f;

	if (proc_path(path, sizeof(path), "stat") < 0)
		return -1;
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	for (int c = 0; c < max; c++)
		busy_ns[c] = 0;
	while (getline(&line, &cap, f) > 0) {
		const char *p = line + 3;
		uint64_t id, v[8] = { 0 }, busy = 0;

		if (strncmp(line, "cpu", 3) != 0 || *p < '0' || *p > '9')
			continue;
		if (parse_u64(&p, &id) < 0 || *p != ' ') {
			err = errno == ERANGE ? ERANGE : EINVAL;
			break;
		}
		for (int k = 0; k < 8; k++) {
			while (*p == ' ')
				p++;
			if (*p == '\n' || *p == '\0')
				break;          /* an older kernel: fewer fields */
			if (parse_u64(&p, &v[k]) < 0) {
				err = errno;
				break;
			}
		}
		if (err != 0)
			break;
		/* user nice system idle iowait irq softirq steal */
		if (__builtin_add_overflow(v[0], v[1], &busy) ||
		    __builtin_add_overflow(busy, v[2], &busy) ||
		    __builtin_add_overflow(busy, v[5], &busy) ||
		    __builtin_add_overflow(busy, v[6], &busy) ||
		    __builtin_add_overflow(busy, v[7], &busy)) {
			err = ERANGE;
			break;
		}
		if (id >= (uint64_t)max)
			continue;
		if (ticks_to_ns(busy, &busy_ns[id]) < 0) {
			err = ERANGE;
			break;
		}
		if ((int)id + 1 > top)
			top = (int)id + 1;
	}
	free(line);
	fclose(f);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return top;
}

/* Process pid's parent and real uid. */
int proctree_parent(pid_t pid, pid_t *ppid, uid_t *uid)
{
	char path[PATH_MAX], buf[PROCTREE_LINE];
	const char *p;
	uint64_t pp, u;

	if (proc_path(path, sizeof(path), "%d/status", (int)pid) < 0 ||
	    read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nPPid:");
	if (p == NULL) {
		errno = EINVAL;
		return -1;
	}
	p += 6;
	while (*p == ' ' || *p == '\t')
		p++;
	if (parse_u64(&p, &pp) < 0)
		return -1;
	p = strstr(buf, "\nUid:");
	if (p == NULL) {
		errno = EINVAL;
		return -1;
	}
	p += 5;
	while (*p == ' ' || *p == '\t')
		p++;
	if (parse_u64(&p, &u) < 0)
		return -1;
	if (pp > INT_MAX || u > UINT32_MAX - 1) {
		errno = ERANGE;
		return -1;
	}
	*ppid = (pid_t)pp;
	*uid = (uid_t)u;
	return 0;
}
