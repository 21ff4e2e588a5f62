/*
 * histutil.h - helpers for the tests of the history, the module's
 * (test_history_*) and the daemon's (test_histfail): a small file system
 * of the test's own to fill up, a file's bytes, and a page in the middle
 * of a database overwritten with garbage.  With HISTUTIL_FIXTURE defined
 * before it is included, also the module tests' fixture: a temporary
 * folder and database per test, a job begun and a quantum made with
 * usual values, a query collecting its rows, the history's sizes, and an
 * integer read from the database with a connection of its own.  Include
 * after cmocka.h (failures are cmocka's).
 */
#ifndef HISTUTIL_H
#define HISTUTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* Mount a tmpfs of `kib` KiB on dir, in a mount namespace of this
 * process's own (its children share it); 0, or -1 with why. */
static inline int hist_tiny_fs(const char *dir, int kib, char *why, size_t len)
{
	char opts[64];

	snprintf(opts, sizeof(opts), "size=%dk,mode=0755", kib);
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, opts) < 0) {
		snprintf(why, len, "cannot mount a small tmpfs (%s): needs root"
			 " (CAP_SYS_ADMIN)", strerror(errno));
		return -1;
	}
	return 0;
}

/* Fill the file system of path with the file path; its size. */
static inline long hist_fill(const char *path)
{
	static char block[4096];
	long n = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t w;

	assert_true(fd >= 0);
	while ((w = write(fd, block, sizeof(block))) > 0)
		n += w;
	assert_int_equal(errno, ENOSPC);
	close(fd);
	return n;
}

/* The bytes of the file at path (caller frees); *len its size. */
static inline char *hist_slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Overwrite the page in the middle of the SQLite database at path (of
 * more than 10 pages; the page size is in its header) with garbage. */
static inline void hist_damage(const char *path)
{
	static unsigned char junk[65536];
	unsigned char hdr[18];
	long page, pages;
	FILE *fp = fopen(path, "r+");

	assert_non_null(fp);
	assert_int_equal(fread(hdr, 1, sizeof(hdr), fp), sizeof(hdr));
	page = hdr[16] << 8 | hdr[17];
	if (page == 1)
		page = 65536;
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	pages = ftell(fp) / page;
	assert_true(pages > 10);
	memset(junk, 0x5a, sizeof(junk));
	assert_int_equal(fseek(fp, pages / 2 * page, SEEK_SET), 0);
	assert_int_equal(fwrite(junk, 1, (size_t)page, fp), (size_t)page);
	fclose(fp);
}

/* The one file in dir (not a -wal or -shm) whose name starts with
 * prefix, into out (the test fails if there is none). */
static inline void hist_find(const char *dir, const char *prefix, char *out,
			     size_t len)
{
	char cmd[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls %s | grep '^%s' | grep -v -- '-wal$\\|-shm$'",
		 dir, prefix);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, (int)len, p));
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

/* The module tests' fixture (HISTUTIL_FIXTURE): each test gets a fresh
 * folder (setup) holding the database f->path, removed after (teardown). */
#ifdef HISTUTIL_FIXTURE
#include <stdint.h>
#include <sqlite3.h>

#include "history.h"

/* A usage array (enum usage_kind): work, steal, mug, sleep, preempted,
 * allotted. */
#define USE(w, s, m, sl, p, a) ((const int64_t[USAGE_N]){ w, s, m, sl, p, a })
#define T0 1700000000000000000LL        /* a start time, ns */
#define QNS 10000000LL                  /* quantum length, 10 ms */
#define DAY (86400LL * 1000000000LL)
#define MAXROWS 4096

/* A temporary folder and the database path in it. */
struct fixture {
	char dir[64];
	char path[128];
};

/* Make a fresh temporary folder for one test. */
static inline int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/asteal-hist-XXXXXX");
	if (mkdtemp(f->dir) == NULL) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/history.db", f->dir);
	*state = f;
	return 0;
}

/* Remove the folder and every file in it (the database, its -wal and
 * -shm, and what the history set aside as corrupt): -1, failing the
 * test, when the folder stays. */
static inline int teardown(void **state)
{
	struct fixture *f = *state;
	DIR *d = opendir(f->dir);
	struct dirent *e;
	char p[PATH_MAX];
	int r;

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", f->dir, e->d_name);
		unlink(p);
	}
	if (d != NULL)
		closedir(d);
	r = rmdir(f->dir);
	if (r < 0)
		fprintf(stderr, "teardown: %s stays: %s\n", f->dir, strerror(errno));
	free(f);
	return r < 0 ? -1 : 0;
}

/* Open the fixture's database with these options, asserting success. */
static inline struct history *open_ok(struct fixture *f,
				      const struct history_opts *o)
{
	char why[256] = "";
	struct history *h = history_open(f->path, o, why, sizeof(why));

	if (h == NULL)
		fail_msg("history_open: %s", why);
	return h;
}

/* Begin a job named name with pid, started at start_ns. */
static inline int64_t begin(struct history *h, const char *name,
			    int64_t pid, int64_t start_ns)
{
	struct history_job j = {
		.name = name, .uid = 1000, .pid = pid,
		.command = "fib 30", .start_ns = start_ns, .workers = 4,
	};
	int64_t id = history_job_begin(h, &j);

	assert_true(id > 0);
	return id;
}

/* Quantum number qn of a job starting at base_ns, usage 1/2/3 ms (work,
 * steal, mug), 0.5/0.25 ms (sleep, preempted), 4 ms allotted. */
static inline struct history_quantum quantum(int64_t base_ns, int64_t qn,
					     int d, int p, int a,
					     const char *cpus, int cls)
{
	struct history_quantum q = {
		.quantum = qn, .start_ns = base_ns + qn * QNS,
		.end_ns = base_ns + (qn + 1) * QNS,
		.desire = d, .availability = p, .allotment = a, .cpus = cpus,
		.use = { [USAGE_WORK] = 1000000, [USAGE_STEAL] = 2000000,
		         [USAGE_MUG] = 3000000, [USAGE_ALLOTTED] = 4000000,
		         [USAGE_SLEEP] = 500000, [USAGE_PREEMPTED] = 250000 },
		.cls = cls,
	};

	return q;
}

/* Runs and jobs collected by a query. */
struct rows {
	int nruns, njobs;
	struct history_run run[MAXROWS];
	char cpus[MAXROWS][32];
	struct history_job_info job[64];
	char name[64][32];
};

/* Keep a run (copying its cpus). */
static inline int keep_run(const struct history_run *r, void *arg)
{
	struct rows *rs = arg;

	assert_true(rs->nruns < MAXROWS);
	rs->run[rs->nruns] = *r;
	snprintf(rs->cpus[rs->nruns], sizeof(rs->cpus[0]), "%s", r->cpus);
	rs->run[rs->nruns].cpus = rs->cpus[rs->nruns];
	rs->nruns++;
	return 0;
}

/* Keep a job (copying its name; the command is checked in place). */
static inline int keep_job(const struct history_job_info *j, void *arg)
{
	struct rows *rs = arg;

	assert_true(rs->njobs < 64);
	assert_string_equal(j->command, "fib 30");
	rs->job[rs->njobs] = *j;
	snprintf(rs->name[rs->njobs], sizeof(rs->name[0]), "%s", j->name);
	rs->job[rs->njobs].name = rs->name[rs->njobs];
	rs->job[rs->njobs].command = NULL;
	rs->njobs++;
	return 0;
}

/* Query with filter f into a fresh rows struct (caller frees). */
static inline struct rows *query(struct history *h,
				 const struct history_filter *f)
{
	struct rows *rs = calloc(1, sizeof(*rs));
	int n;

	assert_non_null(rs);
	n = history_query(h, f, keep_job, keep_run, rs);
	if (n < 0)
		fail_msg("history_query: %s", history_error(h));
	assert_int_equal(n, rs->njobs + rs->nruns);
	return rs;
}

/* The history's sizes, asserting success. */
static inline struct history_stats stats(struct history *h)
{
	struct history_stats s;

	assert_int_equal(history_stats(h, &s), 0);
	return s;
}

/* Read an integer from the database with a separate connection. */
static inline int64_t peek(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v = -1;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY,
					 NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

#endif /* HISTUTIL_FIXTURE */

#endif
