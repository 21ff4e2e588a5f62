/*
 * test_histfail.c - asteald's history when things go wrong (issue 16,
 * items 9 and 6), on a real daemon with `asteal run` and a real job
 * (jobs/phases):
 * - kill -9 of the daemon while a job runs: its row's totals are its
 *   runs' sums on disk at once; the next daemon takes the job back, and
 *   when it ends the totals are the sums of its runs and of its usage
 *   away (what it ran that the killed daemon had not written, said as it
 *   reconnected), and the quanta of the next daemon are stored after
 *   the last one's (the job is stopped, SIGSTOP, from just before the
 *   kill until the next daemon is up, so that it is sure to be running
 *   then however slowly the host let the test get there);
 * - a full disk (the database on a small tmpfs of the test's own, filled
 *   up; as root, else skipped): `asteal run` still runs its program, which
 *   is admitted and allotted CPUs; the log says once that the history is
 *   degraded and why, `asteal status` says so; once space returns the
 *   log says it caught up, status says ok, and the job's row and runs are
 *   on disk;
 * - a damaged history (a page in the middle overwritten): the daemon
 *   starts, says where it moved the file, the file is there with the same
 *   bytes, and `asteal run` works on the new history.
 * Every wait is on a condition with a deadline; the wait for a job's end
 * counts only time in which the job got no CPU at all, so that a loaded
 * host slows the test down without failing it.
 */
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "asteal.pb-c.h"
#include "daemonutil.h"
#include "histutil.h"
#include "history.h"
#include "proctree.h"

/* The sums of one usage column over the runs and the usage away of job
 * j. */
#define SUM_OF(COL) "COALESCE((SELECT SUM(" COL ") FROM allotments a WHERE" \
	" a.job = j.id), 0) + COALESCE((SELECT SUM(" COL ") FROM away w" \
	" WHERE w.job = j.id), 0)"

/* Jobs whose totals are not the sums of their runs and usage away, in
 * any column. */
#define BAD_TOTALS "SELECT count(*) FROM jobs j WHERE" \
	" (j.work_ns, j.steal_ns, j.mug_ns, j.allotted_ns, j.sleep_ns," \
	" j.preempted_ns) IS NOT (" SUM_OF("work_ns") ", " SUM_OF("steal_ns") \
	", " SUM_OF("mug_ns") ", " SUM_OF("allotted_ns") ", " \
	SUM_OF("sleep_ns") ", " SUM_OF("preempted_ns") ")"

/* The daemon of the test running now, stopped by the teardown. */
static struct tdaemon dmn;

/* The `asteal run` of the test running now until it was seen to end (0
 * then): the leader of a process group that holds its job too. */
static pid_t run_pid;

/* Kill the `asteal run` a failed test left running, its job with it (a
 * job left behind would load the host for the tests after it), and stop
 * the daemon. */
static int teardown(void **state)
{
	(void)state;
	if (run_pid > 0) {
		kill(-run_pid, SIGKILL);
		waitpid(run_pid, NULL, 0);
		run_pid = 0;
	}
	tdaemon_stop(&dmn);
	return 0;
}

/* One integer the query sql reads from the daemon's database (its own
 * read-only connection); -1 when there is no row or no database yet. */
static int64_t db_int(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v = -1;

	if (sqlite3_open_v2(dmn.db, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db, 1000);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			v = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	return v;
}

/* Whether db_int(sql) > 0 (a test_wait condition). */
static int db_true(void *sql)
{
	return db_int(sql) > 0;
}

/* Whether the daemon's log has a line with text (a test_wait condition). */
static int logged(void *text)
{
	return tdaemon_log_count(&dmn, text, NULL) > 0;
}

/* Start `asteal run -- phases` (serial work then parallel: w2 sets how
 * long, about 3.4 s for 1,000,000 on 2 CPUs, 7 s of CPU) on the daemon,
 * in a process group of its own (run_pid's); its output goes to the
 * daemon's folder.  Its pid. */
static pid_t run_job(long w2)
{
	const char *b = getenv("ASTEAL_TEST_BUILD");
	char cli[256], job[256], w[32], out[96];
	pid_t pid;

	snprintf(cli, sizeof(cli), "%s/bin/asteal", b ? b : "build");
	snprintf(job, sizeof(job), "%s/jobs/phases", b ? b : "build");
	snprintf(w, sizeof(w), "%ld", w2);
	snprintf(out, sizeof(out), "%s/job.out", dmn.dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

		if (setpgid(0, 0) < 0 || fd < 0 || dup2(fd, 1) < 0 ||
		    dup2(fd, 2) < 0 || setenv("ASTEAL_SOCKET", dmn.sock, 1) < 0)
			_exit(126);
		execl(cli, "asteal", "run", "--", job, "1", "--w1", "1", "--w2", w,
		      "--h", "8", (char *)NULL);
		_exit(127);
	}
	setpgid(pid, 0);        /* as the child does: whichever comes first */
	run_pid = pid;
	return pid;
}

/* The CPU time process pid and its descendants used, the ended children
 * they waited for included (ns). */
static uint64_t tree_cpu_ns(pid_t pid)
{
	struct proctree_stat st;
	pid_t pids[64];
	uint64_t sum = 0;
	int n = proctree_walk(pid, pids, 64);

	for (int i = 0; i < n; i++)
		if (proctree_stat(pids[i], 0, &st) == 0)
			sum += st.cpu_ns + st.child_ns;
	return sum;
}

/* Wait for `asteal run` (the test's run_pid) to exit, and expect 0.  A
 * job on a loaded host gets less CPU and takes longer, which is no hang:
 * it fails only after tdaemon_bound() seconds in which its process tree
 * used no CPU at all. */
static void run_ok(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	double idle_since = test_now();
	uint64_t cpu = 0, now;
	int status;

	assert_true(fd >= 0);
	while (poll(&p, 1, 200) == 0) {
		now = tree_cpu_ns(pid);
		if (now > cpu) {
			cpu = now;
			idle_since = test_now();
		} else if (test_now() - idle_since > tdaemon_bound()) {
			close(fd);
			fail_msg("asteal run did not end: it and its job used"
			         " no CPU in %.0f s", tdaemon_bound());
		}
	}
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	run_pid = 0;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Whether process *pid is stopped (a test_wait condition). */
static int stopped(void *pid)
{
	struct proctree_stat st;

	return proctree_stat(*(pid_t *)pid, 0, &st) == 0 && st.state == 'T';
}

/* `asteal --json status`'s output, into out. */
static void status_json(char *out, size_t len)
{
	const char *b = getenv("ASTEAL_TEST_BUILD");
	char cmd[512];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "%s/bin/asteal --socket %s --json status",
		 b ? b : "build", dmn.sock);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
}

/* The number after "name": in a status's JSON. */
static unsigned long long status_num(const char *json, const char *name)
{
	char key[64];
	const char *at;

	snprintf(key, sizeof(key), "\"%s\":", name);
	at = strstr(json, key);
	assert_non_null(at);
	return strtoull(at + strlen(key), NULL, 10);
}

/* Whether `asteal status` (the table) has a line with text. */
static int status_says(const char *text)
{
	const char *b = getenv("ASTEAL_TEST_BUILD");
	char cmd[512], line[512];
	int found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s/bin/asteal --socket %s status",
		 b ? b : "build", dmn.sock);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p) != NULL)
		found |= strstr(line, text) != NULL;
	pclose(p);
	return found;
}

/* Item 9: a job's totals are its runs' sums after kill -9 of the daemon,
 * and after the next daemon took it back and it ended (its runs' and its
 * usage away's: what it ran that the killed daemon had not written, said
 * as it reconnected, issue 42 item 8); that daemon's quanta are stored
 * after the killed one's. */
static void test_kill9(void **state)
{
	int64_t last_q, job;
	int status;
	pid_t run, pid;

	(void)state;
	assert_int_equal(tdaemon_start(&dmn, NULL, 0), 0);
	run = run_job(1000000);
	/* Its open run reaches the disk within 5 s of quanta (flush_open_ms),
	 * closed ones within a second: its first, of desire 1, closes as
	 * its parallel phase begins. */
	if (test_wait(db_true, "SELECT count(*) FROM allotments",
	              tdaemon_bound()) < 0) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "cat %s/job.out >&2", dmn.dir);
		(void)system(cmd);
		fail_msg("no runs on disk");
	}
	/* The job stays where it is until the next daemon is up: what it has
	 * left to run is then the same however long the host took to get
	 * there. */
	pid = (pid_t)db_int("SELECT pid FROM jobs");
	assert_true(pid > 0);
	assert_int_equal(kill(pid, SIGSTOP), 0);
	assert_int_equal(test_wait(stopped, &pid, tdaemon_bound()), 0);
	kill(dmn.pid, SIGKILL);
	assert_int_equal(waitpid(dmn.pid, &status, 0), dmn.pid);
	dmn.pid = 0;
	assert_true(WIFSIGNALED(status));
	job = db_int("SELECT max(id) FROM jobs");
	assert_true(db_int("SELECT work_ns + allotted_ns FROM jobs") > 0);
	assert_int_equal(db_int(BAD_TOTALS), 0);
	last_q = db_int("SELECT max(last_quantum) FROM allotments");
	assert_int_equal(db_int("SELECT count(*) FROM jobs WHERE end_ns IS NULL"), 1);
	/* The next daemon: the job comes back under its id and ends. */
	assert_int_equal(tdaemon_launch(&dmn, NULL, 0), 0);
	assert_int_equal(kill(pid, SIGCONT), 0);
	run_ok(run);
	assert_int_equal(test_wait(db_true, "SELECT count(*) = 1 FROM jobs"
	                           " WHERE end_ns IS NOT NULL", tdaemon_bound()), 0);
	assert_int_equal(db_int("SELECT max(id) FROM jobs"), job);
	assert_int_equal(db_int("SELECT count(*) FROM jobs"), 1);
	assert_int_equal(db_int(BAD_TOTALS), 0);
	assert_int_equal(db_int("SELECT count(*) FROM away WHERE allotted_ns > 0"), 1);
	assert_true(db_int("SELECT max(last_quantum) FROM allotments") > last_q);
	/* In the order of time, quanta never go back. */
	assert_int_equal(db_int("SELECT count(*) FROM allotments a JOIN allotments"
	                        " b ON a.start_ns < b.start_ns AND a.first_quantum"
	                        " > b.first_quantum"), 0);
	assert_int_equal(tdaemon_log_count(&dmn, "'phases' connected", NULL), 2);
}

/* Item 6: on a full disk a job still runs and is scheduled; the history
 * is degraded (said once), and catches up when space returns. */
static void test_full_disk(void **state)
{
	char why[256], fs[48], filler[96], json[8192];
	unsigned long long allots;

	(void)state;
	assert_int_equal(tdaemon_prepare(&dmn), 0);
	snprintf(fs, sizeof(fs), "%s/fs", dmn.dir);
	assert_int_equal(mkdir(fs, 0755), 0);
	if (hist_tiny_fs(fs, 1024, why, sizeof(why)) < 0) {
		printf("test_full_disk skipped: %s\n", why);
		tdaemon_clean(&dmn);
		memset(&dmn, 0, sizeof(dmn));
		skip();
	}
	snprintf(dmn.db, sizeof(dmn.db), "%s/h.db", fs);
	assert_int_equal(tdaemon_launch(&dmn, NULL, 0), 0);
	snprintf(filler, sizeof(filler), "%s/filler", fs);
	assert_true(hist_fill(filler) > 0);
	status_json(json, sizeof(json));
	allots = status_num(json, "allots");
	assert_non_null(strstr(json, "\"history_state\":\"ok\""));

	run_ok(run_job(300000));
	assert_int_equal(test_wait(logged, "history degraded: ", tdaemon_bound()), 0);
	assert_int_equal(tdaemon_log_count(&dmn, "history degraded: ", NULL), 1);
	assert_int_equal(tdaemon_log_count(&dmn, "history degraded: ", "full"), 1);
	assert_int_equal(tdaemon_log_count(&dmn, "'phases' connected", NULL), 1);
	status_json(json, sizeof(json));
	assert_true(status_num(json, "allots") > allots);
	assert_non_null(strstr(json, "\"history_state\":\"degraded: "));
	assert_true(status_num(json, "history_pending") > 0);
	assert_true(status_says("degraded: "));
	assert_int_equal(db_int("SELECT count(*) FROM jobs"), 0);

	/* Space returns. */
	assert_int_equal(unlink(filler), 0);
	assert_int_equal(test_wait(logged, "history caught up", tdaemon_bound()), 0);
	assert_true(status_says("history:        ok; 0 waiting, 0 lost"));
	assert_int_equal(db_int("SELECT count(*) FROM jobs WHERE name = 'phases'"
	                        " AND end_ns IS NOT NULL AND exit_status = 0"), 1);
	assert_true(db_int("SELECT count(*) FROM allotments") > 0);
	assert_int_equal(db_int(BAD_TOTALS), 0);
	assert_int_equal(tdaemon_log_count(&dmn, "history degraded: ", NULL), 1);
	assert_int_equal(tdaemon_halt(&dmn), 0);
	assert_int_equal(umount2(fs, MNT_DETACH), 0);
	assert_int_equal(tdaemon_clean(&dmn), 0);
}

/* Item 6: a damaged history is moved aside intact at start, and the
 * daemon serves on a new one. */
static void test_damaged(void **state)
{
	char name[96], aside[160];
	struct history *h;
	int64_t id[20];
	size_t n0, n1;
	char *before, *after;

	(void)state;
	assert_int_equal(tdaemon_prepare(&dmn), 0);
	h = history_open(dmn.db, NULL, NULL, 0);
	assert_non_null(h);
	for (int k = 0; k < 20; k++) {
		struct history_job j = {
			.name = "old", .uid = 0, .pid = 100 + k, .command = "x",
			.start_ns = 1, .workers = 2,
		};

		id[k] = history_job_begin(h, &j);
	}
	for (int i = 0; i < 400; i++)
		for (int k = 0; k < 20; k++) {
			struct history_quantum q = {
				.quantum = i, .start_ns = 1 + i, .end_ns = 2 + i,
				.desire = 1 + i % 2, .allotment = 1, .cpus = "0",
			};

			assert_int_equal(history_allot(h, id[k], &q), 0);
		}
	history_close(h);
	hist_damage(dmn.db);
	before = hist_slurp(dmn.db, &n0);

	assert_int_equal(tdaemon_launch(&dmn, NULL, 0), 0);
	assert_int_equal(tdaemon_log_count(&dmn, "is damaged", "moved aside to"), 1);
	hist_find(dmn.dir, "h.db.corrupt-", name, sizeof(name));
	snprintf(aside, sizeof(aside), "%s/%s", dmn.dir, name);
	assert_int_equal(tdaemon_log_count(&dmn, aside, NULL), 1);
	after = hist_slurp(aside, &n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	free(before);
	free(after);
	run_ok(run_job(100000));
	assert_int_equal(test_wait(db_true, "SELECT count(*) = 1 FROM jobs"
	                           " WHERE end_ns IS NOT NULL", tdaemon_bound()), 0);
	assert_int_equal(db_int("SELECT count(*) FROM jobs"), 1);
	assert_int_equal(tdaemon_stop(&dmn), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_kill9, teardown),
		cmocka_unit_test_teardown(test_full_disk, teardown),
		cmocka_unit_test_teardown(test_damaged, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
