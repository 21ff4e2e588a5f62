/*
 * history.c - asteald's allotment history in SQLite, its handle: opening
 * (file modes, the integrity check, a damaged file moved aside, pragmas,
 * WAL, the prepared statements), opening to read only, closing, errors,
 * and the helpers the other files use: error messages, running SQL text,
 * binding and stepping statements, the write transaction (whose commit
 * applies the row ids learnt in it), the temporary table of ids.
 * The format and the rules are described in history.h; the schema (its
 * tables, the upgrades from older versions, the version checks) is
 * histschema.c, the job rows histjob.c, the runs histrun.c, the read side
 * (queries, retention, sizes) histquery.c, and what they share (the
 * handle, the statements, the helpers) is in history_int.h.
 */
#include "history_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>

#define NS_PER_DAY (86400LL * 1000000000LL)
#define RETENTION_MAX 36500             /* days, a century */

/* A stale row's total of usage column COL: the sum over its runs and its
 * usage away (history.h). */
#define SUM_RUNS_AWAY(COL) " " COL " = (SELECT COALESCE(SUM(" COL "), 0)" \
	" FROM allotments WHERE job = jobs.id) + (SELECT COALESCE(SUM(" COL \
	"), 0) FROM away WHERE job = jobs.id)"

/* The store's statements (the read side's are histquery.c's). */
static const char *const SQL[ST_QUERY] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	/* The id is the handle's (history.h, "Job ids"). */
	[ST_JOB_INS] = "INSERT INTO jobs(id, name, uid, pid, command, start_ns,"
		" workers, time_limit_ns) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_JOB_END] = "UPDATE jobs SET end_ns = ?2,"
		" exit_status = COALESCE(?3, exit_status)"
		" WHERE id = ?1 AND end_ns IS NULL",
	/* A job's totals are the sums of its runs and of its usage away:
	 * what a write of runs (hist_acc_add) or of usage away adds to them
	 * is added in the same transaction. */
	[ST_JOB_ADD] = "UPDATE jobs SET work_ns = work_ns + ?2,"
		" steal_ns = steal_ns + ?3, mug_ns = mug_ns + ?4,"
		" sleep_ns = sleep_ns + ?5, preempted_ns = preempted_ns + ?6,"
		" allotted_ns = allotted_ns + ?7 WHERE id = ?1",
	[ST_JOB_EXIT] = "UPDATE jobs SET exit_status = ?2 WHERE id = ?1",
	[ST_JOB_GET] = "SELECT pid, end_ns IS NULL, start_ns, work_ns, steal_ns,"
		" mug_ns, sleep_ns, preempted_ns, allotted_ns FROM jobs WHERE id = ?1",
	[ST_JOB_WORKERS] = "UPDATE jobs SET workers = ?2 WHERE id = ?1",
	[ST_JOB_TIMEOUT] = "UPDATE jobs SET timed_out = 1 WHERE id = ?1",
	[ST_STALE] = "UPDATE jobs SET end_ns = ?2,"
		SUM_RUNS_AWAY("work_ns") ","
		SUM_RUNS_AWAY("steal_ns") ","
		SUM_RUNS_AWAY("mug_ns") ","
		SUM_RUNS_AWAY("sleep_ns") ","
		SUM_RUNS_AWAY("preempted_ns") ","
		SUM_RUNS_AWAY("allotted_ns")
		" WHERE end_ns IS NULL AND start_ns < ?1"
		" AND id NOT IN (SELECT id FROM temp.history_ids)",
	[ST_RUN_INS] = "INSERT INTO allotments(job, first_quantum,"
		" last_quantum, start_ns, end_ns, desire, availability,"
		" allotment, cpus, class, work_ns, steal_ns, mug_ns, sleep_ns,"
		" preempted_ns, allotted_ns, cpu_quanta)"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		" ?14, ?15, ?16, ?17)",
	/* A run of turns may lower its allotment and widen its cpus; any run
	 * takes the class last reported. */
	[ST_RUN_UPD] = "UPDATE allotments SET last_quantum = ?2, end_ns = ?3,"
		" work_ns = ?4, steal_ns = ?5, mug_ns = ?6, sleep_ns = ?7,"
		" preempted_ns = ?8, allotted_ns = ?9, allotment = ?10,"
		" availability = ?11, cpus = ?12, cpu_quanta = ?13, class = ?14"
		" WHERE id = ?1",
	[ST_SKIP_INS] = "INSERT INTO skipped(first_quantum, last_quantum,"
		" start_ns, end_ns) VALUES(?1, ?2, ?3, ?4)",
	[ST_GRANT_INS] = "INSERT INTO grants(job, quantum, at_ns, allotment,"
		" cpus) VALUES(?1, ?2, ?3, ?4, ?5)",
	[ST_AWAY_INS] = "INSERT INTO away(job, at_ns, work_ns, steal_ns, mug_ns,"
		" sleep_ns, preempted_ns, allotted_ns)"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_IDS_CLEAR] = "DELETE FROM temp.history_ids",
	[ST_IDS_ADD] = "INSERT OR IGNORE INTO temp.history_ids(id) VALUES(?1)",
};

/* Set the error message (printf-like). */
__attribute__((format(printf, 2, 3)))
void hist_seterr(struct history *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->err, sizeof(h->err), fmt, ap);
	va_end(ap);
}

/* Set the error message to what SQLite said about `what`. */
int hist_sqlerr(struct history *h, const char *what)
{
	h->rc = sqlite3_extended_errcode(h->db);
	hist_seterr(h, "%s: %s", what, sqlite3_errmsg(h->db));
	return -1;
}

/* Step a statement that returns no rows, then reset it; 0 or -1. */
int hist_step_done(struct history *h, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	if (rc != SQLITE_DONE)
		hist_sqlerr(h, what);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Run SQL text with sqlite3_exec; 0, or -1 with the message in h->err. */
int hist_exec(struct history *h, const char *sql, const char *what)
{
	char *msg = NULL;

	if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		h->rc = sqlite3_extended_errcode(h->db);
		hist_seterr(h, "%s: %s", what,
			    msg ? msg : sqlite3_errmsg(h->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Bind parameters first, first + 1, ... of s as fmt says (hist_bind). */
static sqlite3_stmt *vbind(sqlite3_stmt *s, int first, const char *fmt,
			   va_list ap)
{
	const int *p;

	for (int i = first; fmt[i - first] != '\0'; i++) {
		switch (fmt[i - first]) {
		case 'L':
			sqlite3_bind_int64(s, i, va_arg(ap, int64_t));
			break;
		case 'd':
			sqlite3_bind_int(s, i, va_arg(ap, int));
			break;
		case 'p':
			p = va_arg(ap, const int *);
			if (p != NULL)
				sqlite3_bind_int(s, i, *p);
			else
				sqlite3_bind_null(s, i);
			break;
		default:
			sqlite3_bind_text(s, i, va_arg(ap, const char *), -1,
					  SQLITE_STATIC);
		}
	}
	return s;
}

/* Bind parameters 1, 2, ... of s as fmt says, one letter each: L an
 * int64_t, d an int, p a const int * (NULL binds NULL), s a string. */
sqlite3_stmt *hist_bind(sqlite3_stmt *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vbind(s, 1, fmt, ap);
	va_end(ap);
	return s;
}

/* Bind parameters first, first + 1, ... of s as hist_bind does. */
sqlite3_stmt *hist_bind_from(sqlite3_stmt *s, int first, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vbind(s, first, fmt, ap);
	va_end(ap);
	return s;
}

/* Bind usage u (enum usage_kind) to parameters first, first + 1, ... of
 * s, in that order; returns s. */
sqlite3_stmt *hist_bind_use(sqlite3_stmt *s, int first,
			    const int64_t u[USAGE_N])
{
	for (int k = 0; k < USAGE_N; k++)
		sqlite3_bind_int64(s, first + k, u[k]);
	return s;
}

/* Put ids (n of them, or the tracked jobs' if ids is NULL) in the
 * temporary table history_ids; 0 or -1. */
int hist_fill_ids(struct history *h, const int64_t *ids, size_t n)
{
	if (hist_step_done(h, h->st[ST_IDS_CLEAR], "fill ids") < 0)
		return -1;
	if (ids == NULL)
		n = h->n;
	for (size_t i = 0; i < n; i++)
		if (hist_step_done(h, hist_bind(h->st[ST_IDS_ADD], "L",
						ids ? ids[i] : h->live[i].job),
				   "fill ids") < 0)
			return -1;
	return 0;
}

/* Whether the last error is one that trying again at once may mend. */
int hist_transient(const struct history *h)
{
	return (h->rc & 0xff) == SQLITE_BUSY || (h->rc & 0xff) == SQLITE_LOCKED;
}

/* Begin a write transaction. */
int hist_tx_begin(struct history *h)
{
	if (h->batch)
		return 0;               /* join the batch of runs open */
	return hist_step_done(h, h->st[ST_BEGIN], "begin");
}

/* Forget the row ids learnt in a transaction that failed, and roll back
 * (keeping the error message that caused it). */
void hist_tx_rollback(struct history *h)
{
	char keep[sizeof(h->err)];

	memcpy(keep, h->err, sizeof(keep));
	for (size_t i = 0; i < h->n; i++)
		h->live[i].run.pending = 0;
	for (size_t i = 0; i < h->qn; i++)
		h->q[i].run.pending = 0;
	h->acc_job = 0;         /* what it would have added to totals */
	memset(h->acc, 0, sizeof(h->acc));
	h->opsw = 0;
	h->batch = 0;           /* its runs are all queued still */
	h->qw = 0;
	h->skips_w = 0;
	h->grants_w = 0;
	if (!sqlite3_get_autocommit(h->db))
		hist_step_done(h, h->st[ST_ROLLBACK], "rollback");
	memcpy(h->err, keep, sizeof(keep));
}

/* Commit; then the queue is written and the open runs written in the
 * transaction are clean.  0, or -1 after rolling back. */
int hist_tx_commit(struct history *h)
{
	if (hist_acc_flush(h) < 0 ||
	    hist_step_done(h, h->st[ST_COMMIT], "commit") < 0) {
		hist_tx_rollback(h);
		return -1;
	}
	h->transactions++;
	/* What the transaction wrote is done: the runs queue[0..qw), the
	 * skips[0..skips_w) and the grants[0..grants_w) (all of them but
	 * after a slice of a catch-up). */
	for (size_t i = 0; i < h->qw; i++)
		free(h->q[i].run.cpus);
	if (h->qw < h->qn)
		memmove(h->q, h->q + h->qw, (h->qn - h->qw) * sizeof(*h->q));
	h->qn -= h->qw;
	h->qw = 0;
	hist_queue_done(h);
	h->batch = 0;
	h->committed_ns = h->now_ns;
	for (size_t i = 0; i < h->n; i++) {
		struct run *r = &h->live[i].run;

		if (!h->live[i].has_run || !r->pending)
			continue;
		r->rowid = r->new_rowid;
		memcpy(r->w, r->wn, sizeof(r->w));
		r->pending = 0;
		r->dirty = 0;
	}
	hist_ops_done(h);
	return 0;
}

/* Whether SQLite's last error says the file is damaged or no database. */
static int damaged(const struct history *h)
{
	return (h->rc & 0xff) == SQLITE_CORRUPT || (h->rc & 0xff) == SQLITE_NOTADB;
}

/* Check that the file is intact (PRAGMA quick_check: every page of every
 * table and index well formed, no page used twice; not the contents of
 * indexes against their tables), before anything writes to it: 0, or -1
 * with the message, and *broken set when the file is damaged (not when,
 * say, it cannot be read at all). */
static int check_intact(struct history *h, int *broken)
{
	sqlite3_stmt *s;
	const char *res;
	int rc, ok;

	if (sqlite3_prepare_v2(h->db, "PRAGMA quick_check(1)", -1, &s,
			       NULL) != SQLITE_OK) {
		hist_sqlerr(h, "check the file");
		*broken = damaged(h);
		return -1;
	}
	rc = sqlite3_step(s);
	res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
	ok = res != NULL && strcmp(res, "ok") == 0;
	if (rc != SQLITE_ROW) {
		hist_sqlerr(h, "check the file");
		*broken = damaged(h);
	} else if (!ok) {
		hist_seterr(h, "the file is damaged (quick_check: %s)",
			    res ? res : "no answer");
		*broken = 1;
	}
	sqlite3_finalize(s);
	return ok ? 0 : -1;
}

/* Read a single integer, 0 if NULL; 0 or -1. */
static int read_int(struct history *h, const char *sql, int64_t *v)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(h->db, sql, -1, &s, NULL) != SQLITE_OK)
		return hist_sqlerr(h, "read the history's extent");
	rc = sqlite3_step(s);
	*v = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	if (rc != SQLITE_ROW)
		hist_sqlerr(h, "read the history's extent");
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Learn where the history's job ids and quantum numbers go on from: the
 * next id comes after every id ever given (the AUTOINCREMENT sequence
 * remembers those retention deleted), the first quantum after every
 * quantum stored. */
static int read_extent(struct history *h)
{
	int64_t last_id, last_q;

	if (read_int(h, "SELECT max(COALESCE((SELECT seq FROM sqlite_sequence"
		     " WHERE name = 'jobs'), 0), COALESCE((SELECT max(id)"
		     " FROM jobs), 0))", &last_id) < 0 ||
	    read_int(h, "SELECT max(COALESCE((SELECT max(last_quantum) FROM"
		     " allotments), -1), COALESCE((SELECT max(last_quantum)"
		     " FROM skipped), -1), COALESCE((SELECT max(quantum)"
		     " FROM grants), -1))", &last_q) < 0)
		return -1;
	h->next_id = last_id + 1;
	h->qbase = last_q + 1;
	return 0;
}

/* Set up the connection, check the database is ours (before changing it
 * to WAL) or create the schema, prepare the statements. */
static int setup(struct history *h, const char *path, int busy_ms,
		 int *broken)
{
	int64_t v[3];
	sqlite3_stmt *s;
	int ok, memory = strcmp(path, ":memory:") == 0;

	sqlite3_extended_result_codes(h->db, 1);
	sqlite3_busy_timeout(h->db, busy_ms);
	if (hist_exec(h, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;"
		      " PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16384",
		      "configure") < 0) {
		*broken = damaged(h);
		return -1;
	}
	/* A damaged file is kept as it is, with its WAL: no checkpoint when
	 * this connection closes until it has been found intact. */
	sqlite3_db_config(h->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	if (!memory && check_intact(h, broken) < 0)
		return -1;
	sqlite3_db_config(h->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
	if (hist_schema_probe(h, v) < 0 || hist_schema_check(h, v) < 0)
		return -1;
	/* journal_mode answers with the mode now in force. */
	if (sqlite3_prepare_v2(h->db, "PRAGMA journal_mode = WAL", -1, &s,
			       NULL) != SQLITE_OK)
		return hist_sqlerr(h, "set WAL mode");
	ok = sqlite3_step(s) == SQLITE_ROW &&
	     (strcmp((const char *)sqlite3_column_text(s, 0), "wal") == 0 ||
	      memory);
	if (!ok)
		hist_sqlerr(h, "set WAL mode");
	sqlite3_finalize(s);
	if (!ok)
		return -1;
	if (hist_schema_update(h, v[0]) < 0)
		return -1;
	for (int i = 0; i < ST_COUNT; i++)
		if (sqlite3_prepare_v3(h->db, i < ST_QUERY ? SQL[i] :
				       hist_query_sql[i - ST_QUERY], -1,
				       SQLITE_PREPARE_PERSISTENT, &h->st[i],
				       NULL) != SQLITE_OK)
			return hist_sqlerr(h, "prepare");
	return read_extent(h);
}

/* Free everything of h but the database connection. */
static void free_memory(struct history *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->live[i].has_run)
			free(h->live[i].run.cpus);
	for (size_t i = 0; i < h->qn; i++)
		free(h->q[i].run.cpus);
	hist_ops_free(h);
	hist_grants_free(h);
	free(h->live);
	free(h->q);
	free(h->skips);
	free(h->ops);
}

/* Close the connection (statements first) and free h. */
static void destroy(struct history *h)
{
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(h->st[i]);
	sqlite3_close(h->db);
	free_memory(h);
	free(h);
}

/* Give the database file at path (created if missing; never through a
 * symbolic link) and any -wal and -shm beside it their owner group and
 * mode: 0, or -1 with errno. */
static int set_modes(const char *path, int gid)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	mode_t mode = gid > 0 ? 0640 : 0600;
	char p[4200];

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		int fd;

		snprintf(p, sizeof(p), "%s%s", path, suffix[i]);
		fd = open(p, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (i == 0 ? O_CREAT : 0),
		          mode);
		if (fd < 0 && i > 0 && errno == ENOENT)
			continue;
		if (fd < 0 || (gid > 0 && fchown(fd, (uid_t)-1, (gid_t)gid) < 0) ||
		    fchmod(fd, mode) < 0) {
			int e = errno;

			if (fd >= 0)
				close(fd);
			errno = e;
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* Open the connection to path and set it up: 0, or -1 with the message
 * and the connection closed, *broken set if the file is damaged. */
static int connect_db(struct history *h, const char *path, int busy_ms,
		      int *broken)
{
	int rc = sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE |
				 SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);

	*broken = 0;
	if (rc != SQLITE_OK)
		hist_seterr(h, "cannot open: %s", h->db ? sqlite3_errmsg(h->db)
						   : sqlite3_errstr(rc));
	else if (setup(h, path, busy_ms, broken) == 0)
		return 0;
	for (int i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(h->st[i]);
		h->st[i] = NULL;
	}
	sqlite3_close(h->db);
	h->db = NULL;
	return -1;
}

/* Move the damaged database at path, with its -wal and -shm, aside to
 * path.corrupt-<UTC time> (its name in aside): 0, or -1 with errno. */
static int move_aside(const char *path, char *aside, size_t len)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	char stamp[32], from[4200], to[4200];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(aside, len, "%s.corrupt-%s", path, stamp);
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(from, sizeof(from), "%s%s", path, suffix[i]);
		snprintf(to, sizeof(to), "%s%s", aside, suffix[i]);
		if (rename(from, to) < 0 && (i == 0 || errno != ENOENT))
			return -1;
	}
	return 0;
}

/* Open (creating if new) the history database at path; a damaged one is
 * moved aside and a new one begun. */
struct history *history_open(const char *path, const struct history_opts *o,
			     char *why, size_t whylen)
{
	static const struct history_opts defaults;
	int busy = o != NULL && o->busy_timeout_ms > 0 ? o->busy_timeout_ms : 20;
	char aside[4200];
	struct history *h;
	int broken;

	if (o == NULL)
		o = &defaults;
	if (path == NULL || *path == '\0' || o->retention_days < 0 ||
	    o->retention_days > RETENTION_MAX) {
		if (why != NULL && whylen > 0)
			snprintf(why, whylen, "history: %s", path == NULL ||
				 *path == '\0' ? "no database path" :
				 "retention days out of range (0 to 36500)");
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		if (why != NULL && whylen > 0)
			snprintf(why, whylen, "history: out of memory");
		return NULL;
	}
	h->now_q = -1;
	h->flush_open_ns = (int64_t)(o->flush_open_ms > 0 ? o->flush_open_ms
							  : 5000) * 1000000;
	h->flush_ns = (int64_t)(o->flush_ms > 0 ? o->flush_ms : 1000) * 1000000;
	h->committed_ns = INT64_MIN / 2;        /* the first flush commits */
	h->retention_ns = (int64_t)o->retention_days * NS_PER_DAY;
	h->qmax = o->max_queue > 0 ? o->max_queue : (size_t)1 << 20;
	h->maxops = o->max_job_writes > 0 ? o->max_job_writes : 65536;
	h->catch_up = o->catch_up_runs > 0 ? o->catch_up_runs : 8192;
	/* No allocation statistics (nobody reads them, and keeping them
	 * takes a global mutex for every malloc); refused, harmlessly, once
	 * SQLite is initialised. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (strcmp(path, ":memory:") != 0 && set_modes(path, o->group_gid) < 0) {
		if (why != NULL && whylen > 0)
			snprintf(why, whylen, "history %s: cannot open: %s", path,
			         strerror(errno));
		free(h);
		return NULL;
	}
	if (connect_db(h, path, busy, &broken) == 0)
		return h;
	if (broken) {
		/* Kept for whoever wants to look or repair, never written
		 * again; the daemon goes on with a new history. */
		snprintf(h->notice, sizeof(h->notice), "history %s is damaged"
			 " (%s): ", path, h->err);
		if (move_aside(path, aside, sizeof(aside)) < 0) {
			hist_seterr(h, "damaged, and cannot be moved aside: %s",
				    strerror(errno));
		} else {
			size_t n = strlen(h->notice);

			snprintf(h->notice + n, sizeof(h->notice) - n, "moved"
				 " aside to %s (with its -wal and -shm); a new"
				 " history begins", aside);
			if (set_modes(path, o->group_gid) < 0)
				hist_seterr(h, "cannot open: %s", strerror(errno));
			else if (connect_db(h, path, busy, &broken) == 0)
				return h;
		}
	}
	if (why != NULL && whylen > 0)
		snprintf(why, whylen, "history %s: %s", path, h->err);
	destroy(h);
	return NULL;
}

/* Change the retention (history.h). */
int history_set_retention(struct history *h, int days)
{
	if (h == NULL || days < 0 || days > RETENTION_MAX)
		return -1;
	h->retention_ns = (int64_t)days * NS_PER_DAY;
	return 0;
}

/* Write what is pending and close. */
void history_close(struct history *h)
{
	if (h == NULL)
		return;
	hist_write_pending(h, 1);
	destroy(h);
}

/* What history_open did to a damaged file ("" if nothing). */
const char *history_notice(const struct history *h)
{
	return h != NULL ? h->notice : "";
}

/* The last error's message. */
const char *history_error(const struct history *h)
{
	return h != NULL ? h->err : "no history handle";
}

/* Percent-encode path into an SQLite URI "file:..." with params; 0, or -1
 * when it does not fit. */
static int file_uri(const char *path, const char *params, char *uri,
		    size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	if (len < 6)
		return -1;
	memcpy(uri, "file:", 5);
	n = 5;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (n + 4 > len)
			return -1;
		if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20) {
			uri[n++] = '%';
			uri[n++] = hex[*p >> 4];
			uri[n++] = hex[*p & 15];
		} else {
			uri[n++] = (char)*p;
		}
	}
	if (n + strlen(params) + 1 > len)
		return -1;
	memcpy(uri + n, params, strlen(params) + 1);
	return 0;
}

/* Open the connection read-only and check that the database is ours, of
 * this schema version (no upgrade), then prepare the statements: 0, or
 * -1 with the message. */
static int connect_readonly(struct history *h, const char *path,
			    int immutable)
{
	char uri[8300];
	int64_t v[3];
	int rc;

	if (file_uri(path, immutable ? "?mode=ro&immutable=1" : "?mode=ro",
		     uri, sizeof(uri)) < 0) {
		hist_seterr(h, "path too long");
		return -1;
	}
	rc = sqlite3_open_v2(uri, &h->db, SQLITE_OPEN_READONLY |
			     SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		hist_seterr(h, "cannot open: %s", h->db ? sqlite3_errmsg(h->db)
							: sqlite3_errstr(rc));
		return -1;
	}
	sqlite3_extended_result_codes(h->db, 1);
	/* A reader waits only while another connection recovers the log. */
	sqlite3_busy_timeout(h->db, 5000);
	sqlite3_db_config(h->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	if (hist_exec(h, "PRAGMA temp_store = MEMORY", "configure") < 0 ||
	    hist_schema_probe(h, v) < 0) {
		if (damaged(h))
			hist_seterr(h, "not an SQLite database, or a damaged one"
				    " (%s)", sqlite3_errmsg(h->db));
		else if (!immutable && ((h->rc & 0xff) == SQLITE_CANTOPEN ||
					(h->rc & 0xff) == SQLITE_READONLY))
			hist_seterr(h, "cannot read its write-ahead log (%s):"
				    " that takes %s-shm readable, or the folder"
				    " writable to create it", sqlite3_errmsg(h->db),
				    path);
		return -1;
	}
	if (hist_schema_readable(h, v) < 0)
		return -1;
	if (hist_exec(h, "PRAGMA query_only = 1", "configure") < 0)
		return -1;
	/* Only the queries' statements: a reader calls nothing else. */
	for (int i = ST_Q_JOBS; i <= ST_STATS; i++) {
		if (i == ST_EXP_RUNS || i == ST_EXP_JOBS || i == ST_EXP_SKIPS)
			continue;
		/* a file of the version before has no time limits */
		if (sqlite3_prepare_v3(h->db, i == ST_Q_JOBS &&
				       v[0] < HISTORY_SCHEMA_VERSION
				       ? hist_query_jobs_before
				       : hist_query_sql[i - ST_QUERY], -1,
				       SQLITE_PREPARE_PERSISTENT, &h->st[i],
				       NULL) != SQLITE_OK)
			return hist_sqlerr(h, "prepare");
	}
	/* The next job id and quantum base (history_stats): a full look at
	 * the runs, which the daemon's reader, beside the writer that knows
	 * them, neither needs nor should make its loop wait for. */
	return h->writer_beside ? 0 : read_extent(h);
}

/* Open path read-only, through its log unless `immutable` (a file no
 * connection has open), `beside` a writer of this process or not:
 * history_open_readonly and history_open_reader. */
static struct history *open_reading(const char *path, int immutable,
				    int beside, char *why, size_t whylen)
{
	struct history *h;

	if (path == NULL || *path == '\0') {
		snprintf(why, whylen, "history: no database path");
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		snprintf(why, whylen, "history: out of memory");
		return NULL;
	}
	h->now_q = -1;
	h->flush_open_ns = h->flush_ns = INT64_MAX / 4;
	h->qmax = h->maxops = h->catch_up = 1;
	h->reader = 1;
	h->writer_beside = !immutable && beside;
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (connect_readonly(h, path, immutable) == 0)
		return h;
	snprintf(why, whylen, "history %s: %s", path, h->err);
	destroy(h);
	return NULL;
}

/* Open the history at path to read it only (history.h). */
struct history *history_open_readonly(const char *path, char *why,
				      size_t whylen)
{
	char wal[4200];
	struct stat st;
	int fd;

	if (path == NULL || *path == '\0')
		return open_reading(path, 1, 0, why, whylen);
	/* Said plainly, before SQLite's "unable to open database file".
	 * (Never in a process with a writer of the file: closing any of its
	 * descriptors drops every POSIX lock the process holds on it.) */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "history %s: cannot read: %s", path,
			 fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	/* With no -wal beside it, no connection has the file open (a WAL
	 * connection keeps its -wal until the last one closes): read it as
	 * it is, immutable, so that SQLite creates no -wal and -shm (which
	 * would be the reader's, and in the way of the daemon's).  With one,
	 * a writer may be at work: read through its log, which needs the
	 * -shm readable (or creatable). */
	snprintf(wal, sizeof(wal), "%s-wal", path);
	return open_reading(path, stat(wal, &st) < 0 && errno == ENOENT, 0,
			    why, whylen);
}

/* Open a second connection to the history a writer of this process has
 * open, to read it from another thread (history.h). */
struct history *history_open_reader(const char *path, char *why,
				    size_t whylen)
{
	/* Never immutable: the writer changes the file meanwhile.  And the
	 * file is opened by SQLite alone, which shares the writer's locks on
	 * it within the process: a descriptor of it opened and closed here
	 * would drop them all (POSIX locks are the process's), and another
	 * process's connection, closing, would think itself the last one and
	 * delete the log under the writer. */
	return open_reading(path, 0, 1, why, whylen);
}
