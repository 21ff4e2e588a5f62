/*
 * proctree.h - what asteald reads of /proc about the jobs' processes: a
 * process's tree of descendants, its threads, a thread's CPU time and the
 * CPU it last ran on, each CPU's busy time, a process's parent and owner.
 *
 * Every function reads files under the module's /proc root ("/proc", or
 * another directory for unit tests: proctree_set_root).  A process or
 * thread that does not exist is -1 with errno ESRCH.  Times are
 * nanoseconds, converted from clock ticks (sysconf(_SC_CLK_TCK)); a count
 * too large for 64 bits of nanoseconds is -1 with ERANGE, never a wrapped
 * number.  No function keeps state between calls but the root, so any
 * thread may call them (proctree_set_root excepted).
 */
#ifndef ASTEAL_PROCTREE_H
#define ASTEAL_PROCTREE_H

#include <stdint.h>
#include <sys/types.h>

/* One /proc/P/stat or /proc/P/task/T/stat line, the fields asteald uses. */
struct proctree_stat {
	pid_t ppid;             /* field 4: the parent process (its tgid) */
	char state;             /* field 3: R, S, Z ... */
	uint64_t cpu_ns;        /* fields 14 + 15: utime + stime */
	uint64_t child_ns;      /* fields 16 + 17: cutime + cstime, the
	                           waited-for children's (whole process only) */
	uint64_t start_ticks;   /* field 22: starttime, clock ticks after boot */
	int last_cpu;           /* field 39: processor, the CPU it last ran on */
};

/* Read files under dir instead of /proc (NULL: back to "/proc").  For unit
 * tests: call it while no other thread uses the module. */
void proctree_set_root(const char *dir);

/* The /proc root in use. */
const char *proctree_root(void);

/* The root and all its descendants, breadth first, found through
 * /proc/P/task/T/children of every thread T of each process, into
 * pids[0..max-1]: the count, or -1 with errno (ESRCH: no root; ERANGE:
 * more than max).  Processes that vanish mid-walk are skipped, and so is a
 * listed child whose parent is no longer P (a reused pid). */
int proctree_walk(pid_t root, pid_t *pids, int max);

/* proctree_walk, calling visit(pid, arg) on each process before its
 * children are read (so that whatever visit does to a process, such as
 * moving it into a cgroup, its children forked from then on inherit):
 * visit's -1 stops the walk, which returns -1 with visit's errno. */
int proctree_visit(pid_t root, pid_t *pids, int max,
                   int (*visit)(pid_t pid, void *arg), void *arg);

/* The thread ids of process pid (/proc/P/task) into tids[0..max-1]: the
 * count, or -1 with errno (ESRCH, ERANGE: more than max). */
int proctree_threads(pid_t pid, pid_t *tids, int max);

/* Thread tid of process pid: utime + stime in *cpu_ns and the CPU it last
 * ran on in *last_cpu (either may be NULL): 0, or -1 with errno. */
int proctree_thread_cpu(pid_t pid, pid_t tid, uint64_t *cpu_ns, int *last_cpu);

/* The stat line of thread tid of pid (/proc/P/task/T/stat), or of the
 * whole process when tid is 0 (/proc/P/stat: its live and ended threads,
 * and child_ns): 0, or -1 with errno (EINVAL: a malformed line). */
int proctree_stat(pid_t pid, pid_t tid, struct proctree_stat *st);

/* Each CPU's busy time (user, nice, system, irq, softirq, steal; not idle
 * or iowait) from /proc/stat's "cpuN" lines, into busy_ns[N] (0 for ids
 * without a line; ids of max or more are left out): the highest id + 1
 * (at most max), or -1 with errno. */
int proctree_cpu_busy(uint64_t *busy_ns, int max);

/* Process pid's parent and real uid (/proc/P/status, PPid: and Uid:):
 * 0, or -1 with errno. */
int proctree_parent(pid_t pid, pid_t *ppid, uid_t *uid);

/* Read file path (a small one: /proc, /sys) into buf, NUL-terminated, at
 * most len - 1 bytes: the length, or -1 with errno as open and read left
 * it.  Not confined to proctree_root. */
ssize_t proctree_read(const char *path, char *buf, size_t len);

#endif
