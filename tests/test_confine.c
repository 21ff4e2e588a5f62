/*
 * test_confine.c - holding jobs to their CPUs (daemon/confine.c, cpuset.c,
 * jobtime.c) and reading /proc (daemon/proctree.c):
 * - proctree's parsing on fake /proc files: a command name with spaces and
 *   parentheses, missing files, a reused pid in a children list, numbers
 *   too large, malformed lines, /proc/stat's cpuN lines;
 * - proctree_walk and friends on a real forked tree (a child and its
 *   grandchild waiting on a pipe);
 * - each mechanism (sched_setaffinity; the cgroup cpuset when one can be
 *   created, else one skip line) on a child with spinning threads: every
 *   thread's Cpus_allowed_list comes to the set, a thread started later
 *   and a thread that re-pins itself outside are put back, a thread
 *   pinned within the set stays as it is, the child uses at most ~1.1
 *   CPU-seconds a second on one CPU, confine_remove gives back the
 *   release set;
 * - cgroup folders: written at once by confine_set (the watcher moves the
 *   tree in), removed by confine_free when empty, kept with survivors and taken back or
 *   removed by the next instance;
 * - a job an unprivileged instance may not touch is "failed: ..." with
 *   one warning;
 * - confine_others: a spinner that is not a job shows on its CPU, a job's
 *   spinner does not;
 * - the watcher's samples half a quantum after a tick (confine_sample_after).
 * Every wait polls its condition (every 5 ms, so that the test itself
 * does not load the CPUs it measures) with a bound.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <grp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "confine.h"
#include "cpulist.h"
#include "log.h"
#include "proctree.h"
#include "testutil.h"

#define WHY 512
#define QUANTUM_NS 10000000ull          /* the sweep period: 10 ms */

/* What a test left behind, for the teardown: children to kill, an
 * instance to free, a /proc root to restore, a folder to remove. */
static pid_t kids[8];
static int nkids;
static struct confine *live;
static char fake_root[256];
static char cg_name[64];

/* The name the cgroup tests use (this run's own). */
static const char *name_of(void)
{
	if (cg_name[0] == '\0')
		snprintf(cg_name, sizeof(cg_name), "asteal-test-%d", (int)getpid());
	return cg_name;
}

/* Remove one file or folder (an nftw callback). */
static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Kill and reap every child a test started, free its instance. */
static int teardown(void **state)
{
	(void)state;
	confine_free(live);
	live = NULL;
	for (int i = 0; i < nkids; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	nkids = 0;
	proctree_set_root(NULL);
	if (fake_root[0] != '\0') {
		nftw(fake_root, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
		fake_root[0] = '\0';
	}
	return 0;
}

/* Sleep ms milliseconds. */
static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Poll cond(arg) every 5 ms until it holds (0) or seconds pass (-1). */
static int poll_until(int (*cond)(void *), void *arg, double seconds)
{
	double end = test_now() + seconds;

	while (!cond(arg)) {
		if (test_now() > end)
			return -1;
		nap_ms(5);
	}
	return 0;
}

/* ---- proctree on fake files ------------------------------------------- */

/* Write text to root/path, making the folders on the way. */
static void put(const char *path, const char *fmt, ...)
{
	char full[PATH_MAX];
	va_list ap;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", fake_root, path);
	for (char *p = full + strlen(fake_root) + 1; *p != '\0'; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(full, 0755);
			*p = '/';
		}
	}
	f = fopen(full, "w");
	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(f), 0);
}

/* A stat line: pid, comm, ppid, utime, stime, cutime, cstime, starttime,
 * processor (the other fields plausible numbers). */
static void put_stat(const char *path, int pid, const char *comm, int ppid,
                     const char *utime, const char *stime, int cutime,
                     int cstime, unsigned long long start, int cpu)
{
	put(path, "%d (%s) S %d %d %d 0 -1 4194560 100 0 0 0 %s %s %d %d 20 0 1 0 %llu "
	    "1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 %d 0 0 0 0 0\n",
	    pid, comm, ppid, pid, pid, utime, stime, cutime, cstime, start, cpu);
}

/* Ticks to nanoseconds at this machine's clock tick rate. */
static uint64_t ticks_ns(uint64_t t)
{
	return t * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
}

/* Compare pids, for qsort. */
static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/* Set up a fake /proc and point proctree at it. */
static void fake_proc(void)
{
	snprintf(fake_root, sizeof(fake_root), "/tmp/asteal-proc-XXXXXX");
	assert_non_null(mkdtemp(fake_root));
	/* Process 100: two threads, one named to confuse a naive parser. */
	put_stat("100/stat", 100, "a) (b c", 42, "250", "50", 7, 3, 12345, 1);
	put_stat("100/task/100/stat", 100, "a) (b c", 42, "200", "40", 0, 0, 12345, 0);
	put_stat("100/task/101/stat", 101, "x (y) ) z", 42, "50", "10", 0, 0, 12400, 1);
	put("100/task/100/children", "");
	/* 102 is 100's; 103 was, but its pid now belongs to a child of 999;
	 * 104 is gone; the last number has no separator after it. */
	put("100/task/101/children", "102 103 104");
	put_stat("102/stat", 102, "kid", 100, "1", "1", 0, 0, 13000, 0);
	put_stat("102/task/102/stat", 102, "kid", 100, "1", "1", 0, 0, 13000, 0);
	put("102/task/102/children", "");
	put_stat("103/stat", 103, "other", 999, "1", "1", 0, 0, 13001, 0);
	put("100/status", "Name:\ta) (b c\nUmask:\t0022\nState:\tS (sleeping)\n"
	    "Tgid:\t100\nNgid:\t0\nPid:\t100\nPPid:\t42\nTracerPid:\t0\n"
	    "Uid:\t1000\t1001\t1002\t1003\nGid:\t5\t5\t5\t5\n");
	put("102/status", "Name:\tkid\nPPid:\t100\n");         /* no Uid: */
	/* Too large: a number over 64 bits, and one whose nanoseconds are. */
	put_stat("200/stat", 200, "big", 1, "99999999999999999999", "0", 0, 0, 1, 0);
	put_stat("201/stat", 201, "big", 1, "18446744073709551615", "0", 0, 0, 1, 0);
	put("202/stat", "202 no parenthesis S 1 2 3\n");
	put("203/stat", "203 (short) S 1 2 3 4 5\n");
	put("stat", "cpu  1 2 3 4 5 6 7 8 0 0\n"
	    "cpu0 100 1 10 1000 5 2 3 4 0 0\n"
	    "cpu2 7 0 0 99 0 0 0 1 0 0\n"
	    "cpu3 5 5 5\n"
	    "intr 1234 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n"
	    "ctxt 99\nbtime 1700000000\nprocesses 5\n");
	proctree_set_root(fake_root);
	assert_string_equal(proctree_root(), fake_root);
}

/* Stat lines: fields counted from the last ')', times in ns, the last
 * CPU, the whole process's children's time. */
static void test_proctree_stat_fake(void **state)
{
	struct proctree_stat st;
	uint64_t ns = 0;
	int cpu = -1;

	(void)state;
	fake_proc();
	assert_int_equal(proctree_thread_cpu(100, 101, &ns, &cpu), 0);
	assert_int_equal(ns, ticks_ns(60));
	assert_int_equal(cpu, 1);
	assert_int_equal(proctree_thread_cpu(100, 100, &ns, &cpu), 0);
	assert_int_equal(ns, ticks_ns(240));
	assert_int_equal(cpu, 0);
	assert_int_equal(proctree_stat(100, 0, &st), 0);
	assert_int_equal(st.ppid, 42);
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.cpu_ns, ticks_ns(300));
	assert_int_equal(st.child_ns, ticks_ns(10));
	assert_int_equal(st.start_ticks, 12345);
	assert_int_equal(st.last_cpu, 1);
	/* Missing: a thread, a process. */
	errno = 0;
	assert_int_equal(proctree_thread_cpu(100, 777, &ns, &cpu), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(proctree_thread_cpu(555, 555, &ns, &cpu), -1);
	assert_int_equal(errno, ESRCH);
	/* Too large, never wrapped; malformed. */
	assert_int_equal(proctree_stat(200, 0, &st), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(proctree_stat(201, 0, &st), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(proctree_stat(202, 0, &st), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(proctree_stat(203, 0, &st), -1);
	assert_int_equal(errno, EINVAL);
}

/* Threads, the walk (a reused pid and a gone one skipped), parents. */
static void test_proctree_tree_fake(void **state)
{
	pid_t pids[8], ppid = 0;
	uid_t uid = 0;
	int n;

	(void)state;
	fake_proc();
	n = proctree_threads(100, pids, 8);
	assert_int_equal(n, 2);
	qsort(pids, (size_t)n, sizeof(pid_t), cmp_pid);
	assert_int_equal(pids[0], 100);
	assert_int_equal(pids[1], 101);
	assert_int_equal(proctree_threads(100, pids, 1), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(proctree_threads(555, pids, 8), -1);
	assert_int_equal(errno, ESRCH);

	n = proctree_walk(100, pids, 8);
	assert_int_equal(n, 2);
	assert_int_equal(pids[0], 100);
	assert_int_equal(pids[1], 102);
	assert_int_equal(proctree_walk(100, pids, 1), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(proctree_walk(555, pids, 8), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(proctree_walk(102, pids, 8), 1);

	assert_int_equal(proctree_parent(100, &ppid, &uid), 0);
	assert_int_equal(ppid, 42);
	assert_int_equal(uid, 1000);
	assert_int_equal(proctree_parent(102, &ppid, &uid), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(proctree_parent(555, &ppid, &uid), -1);
	assert_int_equal(errno, ESRCH);
}

/* /proc/stat: cpuN lines only, busy without idle and iowait, gaps 0,
 * short lines, ids past max left out. */
static void test_proctree_cpu_busy_fake(void **state)
{
	uint64_t busy[8];

	(void)state;
	fake_proc();
	memset(busy, 0xff, sizeof(busy));
	assert_int_equal(proctree_cpu_busy(busy, 8), 4);
	assert_int_equal(busy[0], ticks_ns(100 + 1 + 10 + 2 + 3 + 4));
	assert_int_equal(busy[1], 0);
	assert_int_equal(busy[2], ticks_ns(8));
	assert_int_equal(busy[3], ticks_ns(15));
	assert_int_equal(busy[4], 0);
	assert_int_equal(proctree_cpu_busy(busy, 1), 1);
	assert_int_equal(busy[0], ticks_ns(120));
	put("stat", "cpu0 1 2 x\n");
	assert_int_equal(proctree_cpu_busy(busy, 8), -1);
	assert_int_equal(errno, EINVAL);
	put("stat", "cpu0 18446744073709551615 1 0 0 0 0 0 0\n");
	assert_int_equal(proctree_cpu_busy(busy, 8), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(remove(strcat(strcpy((char[PATH_MAX]){ 0 }, fake_root),
				       "/stat")), 0);
	assert_int_equal(proctree_cpu_busy(busy, 8), -1);
}

/* ---- proctree on real processes ---------------------------------------- */

/* Read exactly len bytes from fd within seconds: 0, or -1. */
static int read_bound(int fd, void *buf, size_t len, double seconds)
{
	double end = test_now() + seconds;
	size_t got = 0;

	while (got < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)((end - test_now()) * 1000);
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0)
			return -1;
		n = read(fd, (char *)buf + got, len - got);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Fork; the child runs fn(arg) and exits.  The pid is kept for the
 * teardown. */
static pid_t spawn(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	kids[nkids++] = pid;
	return pid;
}

/* Pipes of a family: the child writes its grandchild's pid to up, both
 * wait for down to close. */
struct family {
	int up[2], down[2];
};

/* The child: fork a grandchild, report it, wait; reap it. */
static void family_child(void *arg)
{
	struct family *f = arg;
	pid_t g;
	char c;

	close(f->up[0]);
	close(f->down[1]);
	g = fork();
	if (g == 0) {
		while (read(f->down[0], &c, 1) > 0)
			;
		_exit(0);
	}
	if (write(f->up[1], &g, sizeof(g)) != (ssize_t)sizeof(g))
		_exit(1);
	while (read(f->down[0], &c, 1) > 0)
		;
	waitpid(g, NULL, 0);
}

/* A real tree: the child and its grandchild, from the child and from
 * this process; threads, a thread's CPU time, parents, /proc/stat. */
static void test_proctree_real(void **state)
{
	struct family f;
	pid_t child, grand = 0, pids[4096], tids[64];
	uint64_t busy[CPULIST_MAX], ns;
	pid_t ppid;
	uid_t uid;
	int n, found = 0, cpu = -1;

	(void)state;
	assert_int_equal(pipe(f.up), 0);
	assert_int_equal(pipe(f.down), 0);
	child = spawn(family_child, &f);
	close(f.up[1]);
	close(f.down[0]);
	assert_int_equal(read_bound(f.up[0], &grand, sizeof(grand), 10), 0);
	close(f.up[0]);

	n = proctree_walk(child, pids, 4096);
	assert_int_equal(n, 2);
	assert_int_equal(pids[0], child);
	assert_int_equal(pids[1], grand);
	n = proctree_walk(getpid(), pids, 4096);
	assert_true(n >= 3);
	assert_int_equal(pids[0], getpid());
	for (int i = 1; i < n; i++) {
		if (pids[i] == child)
			found |= 1;
		if (pids[i] == grand) {
			assert_true(found & 1);         /* breadth first */
			found |= 2;
		}
	}
	assert_int_equal(found, 3);
	assert_int_equal(proctree_parent(grand, &ppid, &uid), 0);
	assert_int_equal(ppid, child);
	assert_int_equal(uid, getuid());
	/* One thread (and a sanitizer's own, under TSan). */
	n = proctree_threads(child, tids, 64);
	assert_true(n >= 1 && n <= 2);
	found = 0;
	for (int i = 0; i < n; i++)
		found |= tids[i] == child;
	assert_true(found);
	assert_int_equal(proctree_thread_cpu(getpid(), (pid_t)syscall(SYS_gettid),
					     &ns, &cpu), 0);
	assert_true(cpu >= 0 && cpu < CPULIST_MAX);
	assert_true(proctree_cpu_busy(busy, CPULIST_MAX) >= 1);

	close(f.down[1]);                       /* both end */
	assert_int_equal(waitpid(child, NULL, 0), child);
	nkids = 0;
	errno = 0;
	assert_int_equal(proctree_walk(child, pids, 4096), -1);
	assert_int_equal(errno, ESRCH);
}

/* ---- the spinning child ------------------------------------------------ */

/* The child's shared state: its threads' ids and the pin requests. */
struct spinner {
	int cmd[2], rep[2];
	_Atomic int tid[8];
	_Atomic int pin;        /* -1, or the CPU thread 0 is to pin itself to */
	_Atomic int pin_rc;
	_Atomic int nthreads;
};

static struct spinner sp;

/* A spinning thread: records its id; thread 0 pins itself on request. */
static void *spin_thread(void *arg)
{
	int me = (int)(intptr_t)arg;
	volatile unsigned long x = 0;

	atomic_store(&sp.tid[me], (int)syscall(SYS_gettid));
	for (;;) {
		int pin = me == 0 ? atomic_load(&sp.pin) : -1;

		if (pin >= 0) {
			cpu_set_t s;

			CPU_ZERO(&s);
			CPU_SET(pin, &s);
			atomic_store(&sp.pin_rc, sched_setaffinity(0, sizeof(s), &s) == 0 ? 0 : errno);
			atomic_store(&sp.pin, -1);
		}
		for (int i = 0; i < 100000; i++)
			x++;
	}
	return NULL;
}

/* Start spinning thread k, with affinity to CPUs 0-1 when wide is set. */
static void start_spinner(int k, int wide)
{
	pthread_attr_t a;
	pthread_t t;
	cpu_set_t s;

	pthread_attr_init(&a);
	if (wide) {
		CPU_ZERO(&s);
		CPU_SET(0, &s);
		CPU_SET(1, &s);
		pthread_attr_setaffinity_np(&a, sizeof(s), &s);
	}
	if (pthread_create(&t, &a, spin_thread, (void *)(intptr_t)k) != 0)
		_exit(3);
	pthread_attr_destroy(&a);
	while (atomic_load(&sp.tid[k]) == 0)
		sched_yield();
	atomic_store(&sp.nthreads, k + 1);
}

/* The child: n spinning threads; then commands: 'n' a new spinning
 * thread started with CPUs 0-1, 'p' thread 0 pins itself to CPU 0, 'q'
 * to CPU 1; each answered on rep with the thread's id and a result. */
static void spin_child(void *arg)
{
	int n = (int)(intptr_t)arg, reply[2];
	char c;

	close(sp.cmd[1]);
	close(sp.rep[0]);
	atomic_store(&sp.pin, -1);
	for (int k = 0; k < n; k++)
		start_spinner(k, 0);
	for (int k = 0; k < n; k++) {
		reply[0] = atomic_load(&sp.tid[k]);
		reply[1] = 0;
		if (write(sp.rep[1], reply, sizeof(reply)) != (ssize_t)sizeof(reply))
			_exit(2);
	}
	while (read(sp.cmd[0], &c, 1) == 1) {
		int k = atomic_load(&sp.nthreads);

		if (c == 'n') {
			start_spinner(k, 1);
			reply[0] = atomic_load(&sp.tid[k]);
			reply[1] = 0;
		} else {
			atomic_store(&sp.pin, c == 'p' ? 0 : 1);
			while (atomic_load(&sp.pin) != -1)
				sched_yield();
			reply[0] = atomic_load(&sp.tid[0]);
			reply[1] = atomic_load(&sp.pin_rc);
		}
		if (write(sp.rep[1], reply, sizeof(reply)) != (ssize_t)sizeof(reply))
			_exit(2);
	}
	_exit(0);
}

/* Start the spinning child with n threads: its pid; their ids in tids. */
static pid_t start_spin_child(int n, pid_t *tids)
{
	pid_t pid;

	memset(&sp, 0, sizeof(sp));
	assert_int_equal(pipe(sp.cmd), 0);
	assert_int_equal(pipe(sp.rep), 0);
	pid = spawn(spin_child, (void *)(intptr_t)n);
	close(sp.cmd[0]);
	close(sp.rep[1]);
	for (int k = 0; k < n; k++) {
		int reply[2];

		assert_int_equal(read_bound(sp.rep[0], reply, sizeof(reply), 10), 0);
		tids[k] = reply[0];
	}
	return pid;
}

/* Send the spinning child command c: the thread's id, its result in rc. */
static pid_t command(char c, int *rc)
{
	int reply[2];

	assert_int_equal(write(sp.cmd[1], &c, 1), 1);
	assert_int_equal(read_bound(sp.rep[0], reply, sizeof(reply), 10), 0);
	if (rc != NULL)
		*rc = reply[1];
	return reply[0];
}

/* Thread tid of pid's Cpus_allowed_list into buf ("" when gone). */
static const char *allowed_of(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[128], line[256];
	FILE *f;

	assert_true(len >= 64);
	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (f == NULL)
		return buf;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Cpus_allowed_list: %63s", buf) == 1)
			break;
	fclose(f);
	return buf;
}

/* A condition on one thread's or all of a process's threads' lists. */
struct allowed {
	pid_t pid, tid;         /* tid 0: every thread of pid */
	pid_t except;           /* a thread left out of "every" (or 0) */
	const char *want;
};

/* Whether the threads have the list wanted (a poll_until condition). */
static int allowed_is(void *arg)
{
	struct allowed *a = arg;
	pid_t tids[64];
	char buf[64];
	int n;

	if (a->tid != 0)
		return strcmp(allowed_of(a->pid, a->tid, buf, sizeof(buf)), a->want) == 0;
	n = proctree_threads(a->pid, tids, 64);
	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (tids[i] != a->except &&
		    strcmp(allowed_of(a->pid, tids[i], buf, sizeof(buf)), a->want) != 0)
			return 0;
	return 1;
}

/* Wait until the threads have list want, or fail showing what they have. */
static void expect_allowed(pid_t pid, pid_t tid, pid_t except, const char *want,
                           const char *what)
{
	struct allowed a = { pid, tid, except, want };
	pid_t tids[64];
	char buf[64], all[512] = "";
	int n;

	if (poll_until(allowed_is, &a, 5) == 0)
		return;
	n = proctree_threads(pid, tids, 64);
	for (int i = 0; i < n; i++)
		snprintf(all + strlen(all), sizeof(all) - strlen(all), " %d:%s",
			 (int)tids[i], allowed_of(pid, tids[i], buf, sizeof(buf)));
	fail_msg("%s: want %s, have%s", what, want, all);
}

/* CPU time (utime + stime) of a whole process, in seconds. */
static double proc_cpu_s(pid_t pid)
{
	struct proctree_stat st;

	assert_int_equal(proctree_stat(pid, 0, &st), 0);
	return (double)st.cpu_ns * 1e-9;
}

/* Whether CPUs 0 and 1 are both this process's (else the mechanism tests
 * skip). */
static int have_cpus_01(void)
{
	int cpus[CPULIST_MAX], n = cpulist_allowed(cpus, CPULIST_MAX), has = 0;

	for (int i = 0; i < n; i++)
		has |= cpus[i] == 0 ? 1 : cpus[i] == 1 ? 2 : 0;
	return has == 3;
}

/* This process's CPUs as a list (the release set). */
static const char *release_list(char *buf, size_t len)
{
	int cpus[CPULIST_MAX], n = cpulist_allowed(cpus, CPULIST_MAX);

	assert_true(n > 0);
	assert_true(cpulist_format(cpus, n, buf, len) > 0);
	return buf;
}

/* Read a file under a cgroup folder (without its newline) into buf. */
static const char *cg_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (f == NULL)
		return NULL;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return buf;
}

/* Whether a path exists (a poll_until condition: whether it is gone). */
static int path_gone(void *path)
{
	struct stat sb;

	return stat(path, &sb) < 0 && errno == ENOENT;
}

/* Write text into dir/file, or fail the test. */
static void cg_put(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		fail_msg("%s: %s", path, strerror(errno));
}

/* The folder of this run's instance from its how line, into buf. */
static const char *cg_base(const struct confine *cf, char *buf, size_t len)
{
	const char *p = strchr(confine_how(cf), '/');

	assert_non_null(p);
	snprintf(buf, len, "%s", p);
	return buf;
}

/* Whether the confine's sweep count reached *(uint64_t *)arg. */
static int swept_to(void *arg)
{
	return confine_sweeps(live) >= *(uint64_t *)arg;
}

/* One mechanism on a spinning child (see the file's head).  The cgroup
 * mechanism also: the folder's cpuset.cpus is the set when confine_set
 * returns; the folder goes once the child does. */
static void mechanism(enum confine_with with)
{
	static const int managed[] = { 0, 1 }, one[] = { 1 }, both[] = { 0, 1 };
	char why[WHY], buf[256], rel[256], base[PATH_MAX], job[PATH_MAX + 32];
	pid_t child, tids[3], late, t0;
	double c0, c1, w0, w1;
	uint64_t until, use0 = 0, use1 = 0;
	int rc = -1, cg = with == CONFINE_WITH_CGROUP;

	if (!have_cpus_01()) {
		printf("skip: confinement needs CPUs 0 and 1\n");
		return;
	}
	release_list(rel, sizeof(rel));
	child = start_spin_child(2, tids);
	live = confine_create(with, name_of(), managed, 2, QUANTUM_NS, why, sizeof(why));
	if (live == NULL && cg) {
		printf("skip: cgroup confinement: %s\n", why);
		return;
	}
	if (live == NULL)
		fail_msg("confine_create: %s", why);
	assert_int_equal(confine_is_cgroup(live), cg);
	if (cg) {
		assert_non_null(strstr(confine_how(live), "cgroup v"));
		assert_non_null(strstr(confine_how(live), name_of()));
		cg_base(live, base, sizeof(base));
		snprintf(job, sizeof(job), "%s/job-1", base);
	} else {
		assert_string_equal(confine_how(live), "sched_setaffinity (asked for)");
	}

	/* Held to {1}: every thread (with a cgroup: as confine_set returns). */
	assert_int_equal(confine_add(live, 1, child, 1, why, sizeof(why)), 0);
	assert_string_equal(confine_state(live, 1, buf, sizeof(buf)),
			    cg ? "cgroup" : "affinity");
	if (confine_set(live, 1, one, 1, 0, why, sizeof(why)) != 0)
		fail_msg("confine_set: %s", why);
	if (cg)
		assert_string_equal(cg_read(job, "cpuset.cpus", buf, sizeof(buf)), "1");
	expect_allowed(child, 0, 0, "1", "confined to {1}");

	/* Affinity: a sweep every quantum (10 ms; at least 5 in 300 ms). */
	if (!cg) {
		uint64_t s0 = confine_sweeps(live);

		nap_ms(300);
		if (confine_sweeps(live) < s0 + 5)
			fail_msg("%llu sweeps in 300 ms", (unsigned long long)
				 (confine_sweeps(live) - s0));
	}

	/* A thread started later with CPUs 0-1 is caught. */
	late = command('n', NULL);
	expect_allowed(child, late, 0, "1", "a later thread");

	/* Three spinning threads on one CPU: at most about one CPU-second a
	 * second (unconfined they would take two). */
	c0 = proc_cpu_s(child);
	w0 = test_now();
	nap_ms(500);
	c1 = proc_cpu_s(child);
	w1 = test_now();
	if ((c1 - c0) / (w1 - w0) > 1.1)
		fail_msg("confined child used %.2f CPU-s in %.2f s", c1 - c0, w1 - w0);

	/* Thread 0 pins itself to CPU 0: put back (a cgroup refuses it). */
	t0 = command('p', &rc);
	assert_int_equal(t0, tids[0]);
	assert_int_equal(rc, cg ? EINVAL : 0);
	expect_allowed(child, t0, 0, "1", "a thread that re-pinned itself");

	/* With {0,1}, thread 0 pinned to CPU 1 stays so across sweeps. */
	assert_int_equal(confine_set(live, 1, both, 2, 0, why, sizeof(why)), 0);
	t0 = command('q', &rc);
	assert_int_equal(rc, 0);
	if (cg) {
		assert_string_equal(cg_read(job, "cpuset.cpus", buf, sizeof(buf)), "0-1");
		expect_allowed(child, 0, t0, "0-1", "the others, {0,1}");
	} else {
		until = confine_sweeps(live) + 3;
		assert_int_equal(poll_until(swept_to, &until, 5), 0);
	}
	assert_string_equal(allowed_of(child, t0, buf, sizeof(buf)), "1");

	/* Affinity: a set that grows opens to the threads held to the old
	 * one only when given with CONFINE_EXACT (a job that places none of
	 * its threads itself), and only at its first sweep. */
	if (!cg) {
		assert_int_equal(confine_set(live, 1, one, 1, 0, why, sizeof(why)), 0);
		expect_allowed(child, 0, 0, "1", "back to {1}");
		assert_int_equal(confine_set(live, 1, both, 2, 0, why, sizeof(why)), 0);
		until = confine_sweeps(live) + 3;
		assert_int_equal(poll_until(swept_to, &until, 5), 0);
		expect_allowed(child, 0, 0, "1", "{0,1} without CONFINE_EXACT");
		assert_int_equal(confine_set(live, 1, one, 1, 0, why, sizeof(why)), 0);
		assert_int_equal(confine_set(live, 1, both, 2, CONFINE_EXACT, why,
		                             sizeof(why)), 0);
		expect_allowed(child, 0, 0, "0-1", "{0,1} with CONFINE_EXACT");
		t0 = command('q', &rc);
		assert_int_equal(rc, 0);
		until = confine_sweeps(live) + 3;
		assert_int_equal(poll_until(swept_to, &until, 5), 0);
		assert_string_equal(allowed_of(child, t0, buf, sizeof(buf)), "1");
	}

	/* The job's usage grows and never goes back. */
	assert_int_equal(confine_usage(live, 1, &use0), 0);
	assert_int_equal(confine_usage(live, 99, &use1), -1);

	/* Released: the release set (a cgroup keeps a thread's own pin). */
	confine_remove(live, 1);
	assert_string_equal(confine_state(live, 1, buf, sizeof(buf)), "");
	if (cg) {
		assert_string_equal(cg_read(job, "cpuset.cpus", buf, sizeof(buf)), rel);
		expect_allowed(child, 0, t0, rel, "released");
		assert_string_equal(allowed_of(child, t0, buf, sizeof(buf)), "1");
	} else {
		expect_allowed(child, 0, 0, rel, "released");
	}

	/* The child ends: its folder goes, then the instance's. */
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, NULL, 0), child);
	nkids = 0;
	if (cg)
		assert_int_equal(poll_until(path_gone, job, 5), 0);
	confine_free(live);
	live = NULL;
	if (cg)
		assert_true(path_gone(base));
	(void)use0;
}

/* sched_setaffinity on a spinning child. */
static void test_confine_affinity(void **state)
{
	(void)state;
	mechanism(CONFINE_WITH_AFFINITY);
}

/* The cgroup cpuset on a spinning child, when one can be made. */
static void test_confine_cgroup(void **state)
{
	(void)state;
	mechanism(CONFINE_WITH_CGROUP);
}

/* A child that spins on CPU cpu (arg). */
static void pinned_spin(void *arg)
{
	volatile unsigned long x = 0;
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET((int)(intptr_t)arg, &s);
	if (sched_setaffinity(0, sizeof(s), &s) < 0)
		_exit(2);
	for (;;)
		x++;
}

/* A child that waits to be killed. */
static void idle_child(void *arg)
{
	(void)arg;
	for (;;)
		pause();
}

/* The others' shares last read; the job's pid, and the test's own
 * measure of CPU 0 over its last second or so: busy time (/proc/stat)
 * and the job's CPU time (/proc/PID/stat), at the start of the window
 * and as rates over it. */
struct others {
	double share[2];
	int n;
	pid_t job;
	double t0, busy0, job0;     /* the window's start (s) */
	double busy_rate, job_rate; /* over the last full window */
	double job_best;            /* the largest job_rate seen */
};

/* CPU 0's busy seconds so far, from /proc/stat (-1 if unreadable). */
static double cpu0_busy(void)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	char line[256];
	FILE *f = fopen("/proc/stat", "r");
	double busy = -1;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "cpu0 %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7]) == 8) {
			/* user nice system idle iowait irq softirq steal */
			busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) /
			       (double)hz;
			break;
		}
	if (f != NULL)
		fclose(f);
	return busy;
}

/* Process pid's CPU seconds so far (utime + stime), -1 if unreadable. */
static double proc_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	double r = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f != NULL && fgets(buf, sizeof(buf), f) != NULL &&
	    (p = strrchr(buf, ')')) != NULL &&
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &ut, &st) == 2)
		r = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
	if (f != NULL)
		fclose(f);
	return r;
}

/* Whether CPU 0's others' share leaves out the job's: at most 0.3, or
 * (the host busy on CPU 0 too) what is left of its busy share without the
 * job's, the job getting a quarter of it or more (so the two differ). */
static int others_judged(const struct others *o)
{
	if (o->share[0] <= 0.3)
		return 1;
	return o->job_rate >= 0.25 &&
	       o->share[0] <= o->busy_rate - o->job_rate + 0.25 &&
	       o->share[0] <= o->busy_rate - 0.5 * o->job_rate;
}

/* Whether CPU 1 (a spinner that is no job) shows as others' and CPU 0
 * (a job's spinner) does not (a poll_until condition).  The machine may
 * be busy with other work on CPU 0, which is others' too: so CPU 0's
 * share must be what is left of its busy time without the job (within
 * 0.25: the daemon's second and the test's are not the same one), and
 * below CPU 0's busy share by most of the job's (which counting the job
 * as others would not be); or at most 0.3 when CPU 0 is quiet. */
static int others_as_expected(void *arg)
{
	struct others *o = arg;
	double now = test_now(), busy = cpu0_busy(), job = proc_cpu(o->job);

	if (o->t0 == 0 || now - o->t0 >= 1.0) {
		if (o->t0 != 0 && now > o->t0) {
			o->busy_rate = (busy - o->busy0) / (now - o->t0);
			o->job_rate = (job - o->job0) / (now - o->t0);
			if (o->job_rate > o->job_best)
				o->job_best = o->job_rate;
		}
		o->t0 = now;
		o->busy0 = busy;
		o->job0 = job;
	}
	o->n = confine_others(live, o->share, 2);
	if (o->n != 2 || o->share[1] < 0.8 || o->job_rate <= 0)
		return 0;
	return others_judged(o);
}

/* Whether job 5's usage reached *(uint64_t *)arg. */
static int used_to(void *arg)
{
	uint64_t u = 0;

	return confine_usage(live, 5, &u) == 0 && u >= *(uint64_t *)arg;
}

/* confine_others: a spinner pinned to CPU 1 that is not a job is others'
 * (>= 0.8); a job's spinner pinned to CPU 0 is not (<= 0.3), while the
 * job's usage shows it spinning. */
static void test_confine_others(void **state)
{
	static const int managed[] = { 0, 1 }, one[] = { 1 };
	struct others o;
	char why[WHY], buf[64];
	uint64_t u0 = 0, want;
	pid_t job;

	(void)state;
	if (!have_cpus_01()) {
		printf("skip: confine_others needs CPUs 0 and 1\n");
		return;
	}
	spawn(pinned_spin, (void *)(intptr_t)1);
	job = spawn(pinned_spin, (void *)(intptr_t)0);
	live = confine_create(CONFINE_WITH_AFFINITY, name_of(), managed, 2,
			      QUANTUM_NS, why, sizeof(why));
	if (live == NULL)
		fail_msg("confine_create: %s", why);
	assert_int_equal(confine_others(live, o.share, 2), 0);  /* no second yet */
	assert_int_equal(confine_add(live, 5, job, 0, why, sizeof(why)), 0);
	assert_string_equal(confine_state(live, 5, buf, sizeof(buf)), "off");
	assert_int_equal(confine_set(live, 5, one, 1, 0, why, sizeof(why)), 0);
	memset(&o, 0, sizeof(o));
	o.job = job;
	/* The job's share can be told from others' only while the job gets
	 * a quarter of CPU 0 or more: a host that left it less for the whole
	 * wait (other processes on CPU 0) cannot be judged, and is said. */
	if (poll_until(others_as_expected, &o, 20) < 0 && o.job_best < 0.25)
		printf("skip: the host left the job at most %.2f of CPU 0 in every "
		       "second of 20 s: others' share cannot be told from the job's "
		       "(CPU 0 %.2f, CPU 1 %.2f)\n", o.job_best, o.share[0], o.share[1]);
	else if (o.n != 2 || o.share[1] < 0.8 || !others_judged(&o))
		fail_msg("others' shares: CPU 0 %.2f (want <= 0.3, or what is "
			 "left of its busy share %.2f without the job's %.2f), "
			 "CPU 1 %.2f (want >= 0.8), %d CPUs", o.share[0],
			 o.busy_rate, o.job_rate, o.share[1], o.n);
	assert_int_equal(confine_usage(live, 5, &u0), 0);
	want = u0 + 400000000u;
	if (poll_until(used_to, &want, 5) < 0)
		fail_msg("the job's usage did not grow by 0.4 s from %.2f s",
			 (double)u0 * 1e-9);
	assert_string_equal(allowed_of(job, job, buf, sizeof(buf)), "0");
}

/* The target of the unprivileged instance (a root process). */
static pid_t target;

/* In a child: drop to nobody, hold the root's process by affinity, and
 * expect "failed: ..." (exit 0, else the number of the step that went
 * wrong; stderr has the log). */
static void unprivileged(void)
{
	static const int managed[] = { 0, 1 }, one[] = { 1 }, zero[] = { 0 };
	const char *eperm = "sched_setaffinity: Operation not permitted (needs CAP_SYS_NICE)";
	char why[WHY], buf[WHY];
	struct confine *cf;
	double end;

	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	    setresuid(65534, 65534, 65534) < 0)
		_exit(10);
	log_init(LOG_LEVEL_WARN, 0);
	cf = confine_create(CONFINE_WITH_AFFINITY, "asteal-test-nobody", managed, 2,
			    QUANTUM_NS, why, sizeof(why));
	if (cf == NULL)
		_exit(11);
	if (confine_add(cf, 9, target, 1, why, sizeof(why)) < 0 ||
	    confine_set(cf, 9, one, 1, 0, why, sizeof(why)) < 0)
		_exit(12);
	end = test_now() + 5;
	while (strncmp(confine_state(cf, 9, buf, sizeof(buf)), "failed: ", 8) != 0) {
		if (test_now() > end)
			_exit(13);
		nap_ms(5);
	}
	if (strcmp(buf + 8, eperm) != 0)
		_exit(14);
	if (confine_set(cf, 9, zero, 1, 0, why, sizeof(why)) != -1 ||
	    strcmp(why, eperm) != 0)
		_exit(15);
	confine_free(cf);
	_exit(0);
}

/* Counts the lines of text that have needle. */
static int count_lines(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* An unprivileged instance may not touch root's process: the job is
 * "failed: sched_setaffinity: ... (needs CAP_SYS_NICE)", confine_set says
 * so, the log says so once, and the process is as it was. */
static void test_confine_failed(void **state)
{
	char log[8192], before[64], after[64];
	int status;

	(void)state;
	if (geteuid() != 0) {
		printf("skip: the failed-job test drops from root to nobody\n");
		return;
	}
	if (!have_cpus_01()) {
		printf("skip: confinement needs CPUs 0 and 1\n");
		return;
	}
	target = spawn(idle_child, NULL);
	allowed_of(target, target, before, sizeof(before));
	status = test_in_child(unprivileged, log, sizeof(log));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("the unprivileged instance: status %#x, log: %s", status, log);
	assert_int_equal(count_lines(log, "warning: confine: job 9: sched_setaffinity: "
				     "Operation not permitted"), 1);
	assert_string_equal(allowed_of(target, target, after, sizeof(after)), before);
}

/* The folder prepared for the unprivileged cgroup instance. */
static char nobody_base[PATH_MAX];

/* In a child: drop to nobody and use the cgroup folder root delegated
 * (chowned) to it: root's process is refused by the cgroup, put on
 * affinity, which fails; the child's own process is held by the cgroup
 * (exit 0, else the number of the step that went wrong). */
static void unprivileged_cgroup(void)
{
	static const int managed[] = { 0, 1 }, one[] = { 1 };
	const char *eperm = "failed: sched_setaffinity: Operation not permitted (needs CAP_SYS_NICE)";
	char why[WHY], buf[WHY], name[128];
	struct confine *cf;
	pid_t mine;
	double end;

	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	    setresuid(65534, 65534, 65534) < 0)
		_exit(20);
	log_init(LOG_LEVEL_INFO, 0);
	mine = fork();
	if (mine == 0)
		idle_child(NULL);
	snprintf(name, sizeof(name), "%s", strrchr(nobody_base, '/') + 1);
	cf = confine_create(CONFINE_WITH_CGROUP, name, managed, 2, QUANTUM_NS,
			    why, sizeof(why));
	if (cf == NULL) {
		fprintf(stderr, "confine_create: %s\n", why);
		_exit(21);
	}
	if (confine_add(cf, 9, target, 1, why, sizeof(why)) < 0 ||
	    confine_set(cf, 9, one, 1, 0, why, sizeof(why)) < 0 ||
	    confine_add(cf, 10, mine, 1, why, sizeof(why)) < 0 ||
	    confine_set(cf, 10, one, 1, 0, why, sizeof(why)) < 0)
		_exit(22);
	end = test_now() + 5;
	while (strncmp(confine_state(cf, 9, buf, sizeof(buf)), "failed: ", 8) != 0 ||
	       strcmp(allowed_of(mine, mine, buf, sizeof(buf)), "1") != 0) {
		if (test_now() > end)
			_exit(23);
		nap_ms(5);
	}
	if (strcmp(confine_state(cf, 9, buf, sizeof(buf)), eperm) != 0)
		_exit(24);
	if (strcmp(confine_state(cf, 10, buf, sizeof(buf)), "cgroup") != 0)
		_exit(25);
	kill(mine, SIGKILL);
	waitpid(mine, NULL, 0);
	confine_free(cf);
	_exit(0);
}

/* A cgroup folder delegated to an unprivileged instance: a process of
 * another user is refused by the cgroup (cgroup.procs: EACCES), the job
 * goes to affinity ("held by sched_setaffinity instead", once) and fails
 * there ("failed: ..."); a process of its own user is held by the cgroup. */
static void test_confine_cgroup_refused(void **state)
{
	static const int managed[] = { 0, 1 };
	char why[WHY], log[8192], path[PATH_MAX + 300], before[64], after[64];
	struct dirent *e;
	int status;
	DIR *d;

	(void)state;
	if (geteuid() != 0 || !have_cpus_01()) {
		printf("skip: the refused-cgroup test needs root and CPUs 0 and 1\n");
		return;
	}
	/* Where this run's folder goes: made by a root instance, then
	 * again by hand and handed to nobody. */
	live = confine_create(CONFINE_WITH_CGROUP, name_of(), managed, 2, QUANTUM_NS,
			      why, sizeof(why));
	if (live == NULL) {
		printf("skip: cgroup confinement: %s\n", why);
		return;
	}
	cg_base(live, nobody_base, sizeof(nobody_base));
	confine_free(live);
	live = NULL;
	assert_int_equal(mkdir(nobody_base, 0755), 0);
	d = opendir(nobody_base);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", nobody_base, e->d_name);
		if (strcmp(e->d_name, "..") != 0)
			assert_int_equal(chown(path, 65534, 65534), 0);
	}
	closedir(d);
	target = spawn(idle_child, NULL);
	allowed_of(target, target, before, sizeof(before));
	status = test_in_child(unprivileged_cgroup, log, sizeof(log));
	(void)rmdir(nobody_base);       /* nobody may not remove it */
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("the unprivileged cgroup instance: status %#x, log: %s",
			 status, log);
	assert_int_equal(count_lines(log, "info: confine: job 9: write '"), 1);
	assert_int_equal(count_lines(log, "held by sched_setaffinity instead"), 1);
	assert_int_equal(count_lines(log, "warning: confine: job 9: sched_setaffinity: "
				     "Operation not permitted"), 1);
	assert_true(path_gone(nobody_base));
	assert_string_equal(allowed_of(target, target, after, sizeof(after)), before);
}

/* A live cgroup instance of this run's name on CPUs 0-1 (in live), its
 * folder and how it holds jobs: 1, or 0 after saying why the test skips. */
static int cg_live(char *base, size_t blen, char *how, size_t hlen)
{
	static const int managed[] = { 0, 1 };
	char why[WHY];

	if (!have_cpus_01()) {
		printf("skip: confinement needs CPUs 0 and 1\n");
		return 0;
	}
	live = confine_create(CONFINE_WITH_CGROUP, name_of(), managed, 2,
			      QUANTUM_NS, why, sizeof(why));
	if (live == NULL) {
		printf("skip: cgroup confinement: %s\n", why);
		return 0;
	}
	cg_base(live, base, blen);
	snprintf(how, hlen, "%s", confine_how(live));
	return 1;
}

/* The jobs of the instance the leftovers test kills (killed_instance). */
static pid_t left_a, left_b;

/* In a child: an instance holding job 7 (left_a) to CPU 1 and job 8
 * (left_b) to CPU 0, gone without confine_free as a daemon killed with -9
 * goes; exit 0 once both are held, else 1 with a line on stderr. */
static void killed_instance(void)
{
	static const int managed[] = { 0, 1 }, one[] = { 1 }, zero[] = { 0 };
	struct allowed a7 = { left_a, left_a, 0, "1" }, b8 = { left_b, left_b, 0, "0" };
	char why[WHY];
	struct confine *cf = confine_create(CONFINE_WITH_CGROUP, name_of(),
					    managed, 2, QUANTUM_NS, why, sizeof(why));

	if (cf == NULL || confine_add(cf, 7, left_a, 1, why, sizeof(why)) < 0 ||
	    confine_add(cf, 8, left_b, 1, why, sizeof(why)) < 0 ||
	    confine_set(cf, 7, one, 1, 0, why, sizeof(why)) < 0 ||
	    confine_set(cf, 8, zero, 1, 0, why, sizeof(why)) < 0) {
		fprintf(stderr, "the instance to kill: %s\n", why);
		_exit(1);
	}
	if (poll_until(allowed_is, &a7, 5) < 0 || poll_until(allowed_is, &b8, 5) < 0) {
		fprintf(stderr, "the instance to kill did not hold its jobs\n");
		_exit(1);
	}
	_exit(0);
}

/* Job folders with survivors of a killed instance stay; the next instance
 * of the same name widens them to the release set, takes one back (job 7,
 * held at once: its process is in the folder) and removes the other (job
 * 8) once its process is gone.  An instance that stops (confine_free)
 * with job 7 still running moves its process out and leaves no folder;
 * the instance after it holds the job again by moving it back in. */
static void test_confine_cgroup_leftovers(void **state)
{
	static const int managed[] = { 0, 1 }, one[] = { 1 }, zero[] = { 0 };
	char why[WHY], buf[256], rel[256], base[PATH_MAX], how[1024], log[512];
	char job7[PATH_MAX + 32], job8[PATH_MAX + 32];
	pid_t a, b;
	int status;

	(void)state;
	/* The children first: forked later, they would share the handle's
	 * flock on its folder (cpuset.c), and keep it past confine_free. */
	release_list(rel, sizeof(rel));
	a = spawn(idle_child, NULL);
	b = spawn(idle_child, NULL);
	if (!cg_live(base, sizeof(base), how, sizeof(how)))
		return;
	confine_free(live);             /* no jobs: it only told the folder */
	live = NULL;
	assert_true(path_gone(base));
	snprintf(job7, sizeof(job7), "%s/job-7", base);
	snprintf(job8, sizeof(job8), "%s/job-8", base);
	left_a = a;
	left_b = b;
	status = test_in_child(killed_instance, log, sizeof(log));
	if (status != 0)
		fail_msg("the instance to kill: status %#x, log: %s", status, log);
	assert_string_equal(cg_read(job7, "cpuset.cpus", buf, sizeof(buf)), "1");
	assert_string_equal(cg_read(job8, "cpuset.cpus", buf, sizeof(buf)), "0");

	live = confine_create(CONFINE_WITH_CGROUP, name_of(), managed, 2,
			      QUANTUM_NS, why, sizeof(why));
	if (live == NULL)
		fail_msg("confine_create again: %s", why);
	assert_string_equal(confine_how(live), how);
	assert_string_equal(cg_read(job7, "cpuset.cpus", buf, sizeof(buf)), rel);
	assert_string_equal(cg_read(job8, "cpuset.cpus", buf, sizeof(buf)), rel);
	assert_string_equal(allowed_of(a, a, buf, sizeof(buf)), rel);
	assert_int_equal(confine_add(live, 7, a, 1, why, sizeof(why)), 0);
	/* Its process is in the folder already: held at once. */
	assert_int_equal(confine_set(live, 7, zero, 1, 0, why, sizeof(why)), 0);
	assert_string_equal(cg_read(job7, "cpuset.cpus", buf, sizeof(buf)), "0");
	assert_string_equal(allowed_of(a, a, buf, sizeof(buf)), "0");

	kill(b, SIGKILL);
	assert_int_equal(waitpid(b, NULL, 0), b);
	assert_int_equal(poll_until(path_gone, job8, 5), 0);
	assert_false(path_gone(job7));

	/* Stopped with job 7 running: no folder left, the job let go. */
	confine_free(live);
	live = NULL;
	assert_true(path_gone(job7));
	assert_true(path_gone(base));
	assert_int_equal(kill(a, 0), 0);
	assert_string_equal(allowed_of(a, a, buf, sizeof(buf)), rel);

	/* The next instance holds it again as the job comes back. */
	live = confine_create(CONFINE_WITH_CGROUP, name_of(), managed, 2,
			      QUANTUM_NS, why, sizeof(why));
	if (live == NULL)
		fail_msg("confine_create a third time: %s", why);
	assert_int_equal(confine_add(live, 7, a, 1, why, sizeof(why)), 0);
	assert_int_equal(confine_set(live, 7, one, 1, 0, why, sizeof(why)), 0);
	expect_allowed(a, a, 0, "1", "job 7 held again");
	confine_remove(live, 7);
	kill(a, SIGKILL);
	assert_int_equal(waitpid(a, NULL, 0), a);
	nkids = 0;
	assert_int_equal(poll_until(path_gone, job7, 5), 0);
	confine_free(live);
	live = NULL;
	assert_true(path_gone(base));
}

/* A daemon killed with -9 leaves its folder behind; the next instance
 * (another name: another socket) removes it, its empty job folders with
 * it (and in one of them the folder of a dead daemon started inside that
 * job, which before kept the job folder and its daemon's for good), and
 * keeps a folder a live instance holds (flock, as cpuset.c's handles do)
 * and one whose job folder still has a process. */
static void test_confine_cgroup_abandoned(void **state)
{
	static const int managed[] = { 0, 1 };
	char why[WHY], base[PATH_MAX], own[PATH_MAX], dead[PATH_MAX + 32];
	char held[PATH_MAX + 32], busy[PATH_MAX + 32], sub[PATH_MAX + 64];
	char pid[32], how[1024];
	int fd;
	pid_t a;

	(void)state;
	if (!cg_live(base, sizeof(base), how, sizeof(how)))
		return;
	confine_free(live);
	live = NULL;
	snprintf(own, sizeof(own), "%s", base);
	*strrchr(own, '/') = '\0';
	/* A dead daemon's folder with two empty job folders. */
	snprintf(dead, sizeof(dead), "%s/asteal-d%07x", own, (unsigned)getpid());
	assert_int_equal(mkdir(dead, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/job-7", dead);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/job-8", dead);
	assert_int_equal(mkdir(sub, 0755), 0);
	/* In job-8, the folder of a dead daemon started inside that job,
	 * with a job folder of its own. */
	snprintf(sub, sizeof(sub), "%s/job-8/asteal-n%07x", dead, (unsigned)getpid());
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/job-8/asteal-n%07x/job-1", dead, (unsigned)getpid());
	assert_int_equal(mkdir(sub, 0755), 0);
	/* A live one's, held as a handle holds it. */
	snprintf(held, sizeof(held), "%s/asteal-e%07x", own, (unsigned)getpid());
	assert_int_equal(mkdir(held, 0755), 0);
	fd = open(held, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	/* A dead one's whose job still runs. */
	snprintf(busy, sizeof(busy), "%s/asteal-f%07x", own, (unsigned)getpid());
	assert_int_equal(mkdir(busy, 0755), 0);
	assert_int_equal(mkdir(strcat(strcpy(sub, busy), "/job-9"), 0755), 0);
	a = spawn(idle_child, NULL);
	if (strstr(how, "cgroup v1") != NULL) {
		cg_put(busy, "cpuset.cpus", "0");
		cg_put(busy, "cpuset.mems", cg_read(own, "cpuset.mems", why, sizeof(why)));
		cg_put(sub, "cpuset.cpus", "0");
		cg_put(sub, "cpuset.mems", cg_read(own, "cpuset.mems", why, sizeof(why)));
	}
	snprintf(pid, sizeof(pid), "%d", (int)a);
	cg_put(sub, "cgroup.procs", pid);

	live = confine_create(CONFINE_WITH_CGROUP, name_of(), managed, 2,
			      QUANTUM_NS, why, sizeof(why));
	if (live == NULL)
		fail_msg("confine_create again: %s", why);
	assert_true(path_gone(dead));
	assert_false(path_gone(held));
	assert_false(path_gone(sub));           /* its process runs */

	kill(a, SIGKILL);
	assert_int_equal(waitpid(a, NULL, 0), a);
	nkids = 0;
	close(fd);
	assert_int_equal(rmdir(held), 0);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(busy), 0);
}

/* confine_set wakes the watcher: with a sweep period of a second, each of
 * three changes shows within 0.5 s. */
static void test_confine_kick(void **state)
{
	static const int managed[] = { 0, 1 }, sets[3][1] = { { 0 }, { 1 }, { 0 } };
	static const char *lists[3] = { "0", "1", "0" };
	char why[WHY];
	pid_t pid;

	(void)state;
	if (!have_cpus_01()) {
		printf("skip: confinement needs CPUs 0 and 1\n");
		return;
	}
	pid = spawn(idle_child, NULL);
	live = confine_create(CONFINE_WITH_AFFINITY, name_of(), managed, 2,
			      1000000000u, why, sizeof(why));
	assert_non_null(live);
	assert_int_equal(confine_add(live, 4, pid, 1, why, sizeof(why)), 0);
	for (int i = 0; i < 3; i++) {
		struct allowed a = { pid, pid, 0, lists[i] };

		assert_int_equal(confine_set(live, 4, sets[i], 1, 0, why, sizeof(why)), 0);
		if (poll_until(allowed_is, &a, 0.5) < 0)
			fail_msg("set %d (%s) not applied within 0.5 s", i, lists[i]);
	}
}

/* The calls' refusals and edge cases on an affinity instance. */
static void test_confine_api(void **state)
{
	static const int managed[] = { 0 }, zero[] = { 0 }, far[] = { 1023 };
	char why[WHY], buf[256];
	uint64_t u = 1;
	pid_t gone;

	(void)state;
	gone = spawn(idle_child, NULL);
	kill(gone, SIGKILL);
	assert_int_equal(waitpid(gone, NULL, 0), gone);
	nkids = 0;
	confine_free(NULL);
	assert_null(confine_create(CONFINE_WITH_AFFINITY, "a/b", managed, 1,
				   QUANTUM_NS, why, sizeof(why)));
	assert_non_null(strstr(why, "bad cgroup name"));
	assert_null(confine_create(CONFINE_WITH_AFFINITY, "x", far, 1,
				   QUANTUM_NS, why, sizeof(why)));
	assert_non_null(strstr(why, "CPU 1023"));
	live = confine_create(CONFINE_WITH_AFFINITY, name_of(), managed, 1,
			      QUANTUM_NS, why, sizeof(why));
	assert_non_null(live);
	assert_int_equal(confine_is_cgroup(live), 0);

	assert_int_equal(confine_add(live, 1, getpid(), 1, why, sizeof(why)), 0);
	assert_int_equal(confine_add(live, 1, getpid(), 1, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "already"));
	assert_int_equal(confine_set(live, 1, far, 1, 0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "CPU 1023 is not in the release set"));
	assert_int_equal(confine_set(live, 2, zero, 1, 0, why, sizeof(why)), -1);
	assert_string_equal(confine_state(live, 2, buf, sizeof(buf)), "");
	assert_int_equal(confine_usage(live, 2, &u), -1);
	confine_remove(live, 2);                /* unknown: nothing */

	/* A job whose root is gone: accepted, nothing to hold, state kept. */
	assert_int_equal(confine_add(live, 3, gone, 1, why, sizeof(why)), 0);
	assert_int_equal(confine_set(live, 3, zero, 1, 0, why, sizeof(why)), 0);
	assert_string_equal(confine_state(live, 3, buf, sizeof(buf)), "affinity");
	assert_int_equal(confine_usage(live, 3, &u), 0);
	assert_int_equal(u, 0);
	confine_remove(live, 1);
	confine_remove(live, 3);
	assert_string_equal(confine_state(live, 1, buf, sizeof(buf)), "");
	/* Re-added after removal: a new job. */
	assert_int_equal(confine_add(live, 1, getpid(), 0, why, sizeof(why)), 0);
	assert_string_equal(confine_state(live, 1, buf, sizeof(buf)), "off");
}

/* The watcher's samples fall half a quantum after a tick, about a
 * second apart in whole quanta, whatever the quantum; a second apart
 * without ticks. */
static void test_sample_grid(void **state)
{
	static const uint64_t quanta[] = { 10000000, 7000000, 1000000,
	                                   3000000000ull, 333333 };
	const uint64_t t0 = 5000000000ull, s = 1000000000ull;

	(void)state;
	assert_int_equal(confine_sample_after(0, 10000000, 123), 123 + s);
	for (size_t i = 0; i < sizeof(quanta) / sizeof(quanta[0]); i++) {
		uint64_t L = quanta[i], now = 0, at, last = 0;

		assert_int_equal(confine_sample_after(t0, L, now), t0 + L / 2);
		for (int n = 0; n < 50; n++) {
			now += L / 3 + 12345 * (uint64_t)n + s / 7;
			at = confine_sample_after(t0, L, t0 + now);
			assert_true(at > t0 + now);
			assert_int_equal((at - t0 - L / 2) % L, 0);   /* mid-quantum */
			/* at most one period ahead: a second in whole quanta */
			assert_true(at - (t0 + now) <= (L > s ? L : s + L / 2));
			if (last != 0 && at != last)
				assert_int_equal((at - last) % L, 0);
			last = at;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_grid),
		cmocka_unit_test_teardown(test_proctree_stat_fake, teardown),
		cmocka_unit_test_teardown(test_proctree_tree_fake, teardown),
		cmocka_unit_test_teardown(test_proctree_cpu_busy_fake, teardown),
		cmocka_unit_test_teardown(test_proctree_real, teardown),
		cmocka_unit_test_teardown(test_confine_affinity, teardown),
		cmocka_unit_test_teardown(test_confine_cgroup, teardown),
		cmocka_unit_test_teardown(test_confine_cgroup_leftovers, teardown),
		cmocka_unit_test_teardown(test_confine_cgroup_abandoned, teardown),
		cmocka_unit_test_teardown(test_confine_others, teardown),
		cmocka_unit_test_teardown(test_confine_failed, teardown),
		cmocka_unit_test_teardown(test_confine_cgroup_refused, teardown),
		cmocka_unit_test_teardown(test_confine_kick, teardown),
		cmocka_unit_test_teardown(test_confine_api, teardown),
	};

	log_init(LOG_LEVEL_WARN, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
