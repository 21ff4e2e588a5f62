/*
 * history.h - asteald's allotment history in SQLite (see
 * ../shared/DESIGN.md, "asteald").
 *
 * Five tables (schema version 8, kept in PRAGMA user_version; the file is
 * marked with PRAGMA application_id 0x41535448, "ASTH"; a version 1 to 7
 * file is upgraded in place when opened, its new columns 0, cpu_quanta
 * computed, its grants and usage away none):
 *
 *   jobs(id INTEGER PRIMARY KEY AUTOINCREMENT, name, uid, pid, command,
 *        start_ns, end_ns NULL while running, exit_status NULL if unknown,
 *        work_ns, steal_ns, mug_ns, workers, allotted_ns, sleep_ns,
 *        preempted_ns, time_limit_ns 0 for none, timed_out 1 once the
 *        daemon stopped the job at its time limit)
 *   allotments(id, job -> jobs.id ON DELETE CASCADE, first_quantum,
 *        last_quantum, start_ns, end_ns, desire, availability, allotment,
 *        cpus TEXT in Linux list format "0-3,6", work_ns, steal_ns, mug_ns,
 *        class, allotted_ns, sleep_ns, preempted_ns, cpu_quanta)
 *   skipped(first_quantum, last_quantum, start_ns, end_ns): quanta the
 *        daemon had no tick for (it woke up later than a whole quantum):
 *        nobody's allotment changed in them, DEQ did not run
 *   grants(job -> jobs.id ON DELETE CASCADE, quantum, at_ns, allotment,
 *        cpus): CPUs a job holding none was given at once as it joined
 *        or woke, at wall time at_ns, between the tick of `quantum` and
 *        the next: they were free then (held by no job), allotment of
 *        them (the lesser of its desire and the free ones); a grant does
 *        not feed DEQ: the tick of quantum + 1 decided the job's
 *        allotment as if there had been none (a joining job's first run
 *        starts there, unless it left before)
 *   away(job -> jobs.id ON DELETE CASCADE, at_ns, work_ns, steal_ns,
 *        mug_ns, sleep_ns, preempted_ns, allotted_ns): usage a job ran
 *        outside every run, added at wall time at_ns as it reconnected
 *        (history_away): what it said it had run under its id that its
 *        totals lacked, the time it was away from every daemon (or whose
 *        Feedback its last daemon never took or never wrote); or usage
 *        it was given before its first run when it ended, or its daemon
 *        stopped, before one (at its end, or the latest quantum's end)
 *
 * with indexes jobs(end_ns), allotments(job, start_ns), grants(job),
 * away(job) (a job's grants and usage away go with it, retention
 * included).
 * Times are nanoseconds since the Unix epoch (CLOCK_REALTIME).
 *
 * One allotments row is one *run*: consecutive quanta of one job in which
 * desire, availability, allotment and cpus stayed the same (usage is
 * summed over the run; class is that of the last of its quanta its job
 * reported, -1 for none: a job reports the class of the quantum it just
 * finished with a Feedback, on a change of desire or a heartbeat, so the
 * class is a sample and does not end runs; history_class() gives it to
 * the run that holds its quantum), or
 * a run of *turns*: consecutive quanta in which desire stayed the same,
 * the job was deprived (allotment = availability every quantum) and its
 * allotment took turns between two neighbouring values, as DEQ hands the
 * leftover processors round the deprived jobs (deq.c, "Turns"), all within
 * one *epoch* (the daemon's count of jobs that joined or left).  A run of
 * turns stores the lower value as allotment and availability, the union of
 * the CPUs it held as cpus, and, as every run does, cpu_quanta: the
 * processor-quanta it was allotted in all (the sum over its quanta of the
 * allotment; allotment x quanta for a run without turns), so that its mean
 * allotment is cpu_quanta / quanta.  Another job's change of desire that
 * moves a deprived job's share without moving it off its two values (8
 * jobs share 2 CPUs, then one of them asks for 1: the others' shares stay
 * 2/8 here, but in general they move by a fraction) does not end its run:
 * the total stays exact, its spread in time within the run is not kept.
 * Without turns, a job deprived beside more jobs than processors changed
 * its row every quantum or two (8 jobs on 2 CPUs wrote 400 rows a second,
 * about 100 MB an hour); with them it writes a row per change of its
 * desire or share.  So storage grows with the number of changes, not with
 * time.  The daemon says only what changes: history_allot() gives a
 * job's values from a quantum on (a call with the values the job has
 * already only extends its run), history_usage() adds the usage its job
 * reports to the open run, and history_advance() says which quantum is
 * over now, so that every open run lasts until then.  The module keeps
 * each running job's open run in memory; a run closes when a value
 * changes, ending where the next begins, and the closed run is queued.
 * history_flush(), which the daemon calls after every tick, writes a
 * share of the queue into a write transaction it keeps open between calls
 * (a batch), so that no call takes long, and commits it once flush_ms of
 * quantum time (a second) has passed since the last commit: a commit
 * rewrites every page the batch touched, and the runs of many jobs fall
 * on as many pages of the per-job index, so one commit a second costs far
 * less than one per share.  It does nothing at all (no disk access) when
 * nothing is queued or due.  Any other write (a job's row, a query's
 * pending writes, the retention) commits the batch first or with it.
 * Open runs are also written (inserted once, then updated in place) at
 * most every flush_open_ms of quantum time, when their job ends, before a
 * query and at close, so a crash loses at most flush_open_ms of history
 * (flush_ms of closed runs).  The "quantum time" is the end_ns of the
 * latest quantum given to history_allot() or history_advance(), so the
 * module reads no clock of its own.
 *
 * Job ids are given by the handle: at open it reads the largest id ever
 * given (the jobs table is AUTOINCREMENT, so sqlite_sequence remembers
 * ids retention deleted) and counts on from there in memory, and rows are
 * inserted with their ids; so a job gets its id even when its row cannot
 * be written yet, and ids never repeat, across restarts and retention
 * too (one handle writes a file at a time: the daemon's lock on the
 * database, claim.h, sees to it).  The daemon uses them as its job ids.  A job row stays open
 * (end_ns NULL) when the daemon stops; a job that reconnects to the next
 * daemon is taken back with history_job_reopen(), and
 * history_close_stale() closes the rows nobody reclaimed.
 *
 * The usage columns are what the jobs report (asteal.proto, Feedback):
 * work, steal and mug on the worker threads' CPU clocks, sleep and
 * preempted wall time, allotted the wall time the allotted workers held
 * their processors (the sum of the five, as the job says; version 3 and
 * earlier rows have steal with sleep in it and 0 for the new columns).
 *
 * A job's totals (work_ns, steal_ns, mug_ns, allotted_ns, sleep_ns,
 * preempted_ns) are the sums of its runs and of its rows in away: every
 * write of a run adds what it changed of the run's usage to its job's
 * totals in the same transaction, as the write of a row of away adds its
 * usage, so after any commit, and after a crash (kill -9) at any point,
 * the totals on disk agree with the runs and usage away on disk; a job
 * that outlives a daemon and is reclaimed by the next adds that daemon's
 * runs, and closing a stale row recomputes the sums (the same numbers),
 * so nothing is counted twice.  Usage reported before a job's first run
 * goes into that run.
 *
 * Quantum numbers in the history never go back across restarts, although
 * every daemon numbers its quanta from 0 on its own CLOCK_MONOTONIC t0
 * (the wire's, which a reboot resets): at open the handle reads the
 * largest quantum stored (in allotments, skipped and grants) and adds one
 * more than it, the quantum base (history_stats), to every quantum number
 * it is given; so the first quantum of this daemon is stored after every
 * quantum of the ones before, and stored numbers still differ as the
 * daemon's do.  Only a history emptied by retention (no job ended within
 * retention_days) starts from 0 again.  Quanta name an order and a length,
 * not a time: start_ns and end_ns are the times.
 *
 * Failures.  Scheduling never waits for the history: a job's row writes
 * (begin, worker count, exit status, end) go into a buffer of job writes,
 * written in order, before the runs, in the next write transaction; the
 * closed runs, skipped quanta and grants into the queue.  When a write
 * fails for any reason but another connection's lock (SQLITE_BUSY, which
 * the next flush simply retries), for instance SQLITE_FULL on a full disk
 * or SQLITE_IOERR, the transaction is rolled back, everything stays
 * pending, and the handle is *degraded* (history_health says why): then
 * nothing tries to write (no flush, no job write; history_close_stale and
 * history_expire refuse with -1) until history_retry, which the daemon
 * calls once a second, has written everything pending, a slice a call, and
 * the handle is "ok" again.  Meanwhile jobs begin (with their ids), run,
 * end and are recorded in memory, and queries answer from what is on
 * disk.  Both buffers are bounded: closed runs (and skipped quanta, and
 * grants, each) beyond max_queue are dropped, job writes beyond
 * max_job_writes are lost (a job whose row is lost is admitted all the
 * same, and nothing of it is kept), all counted in history_stats.  What is
 * still pending at history_close is lost when that last write fails.
 *
 * A damaged file is found at open: PRAGMA quick_check (every page of
 * every table and index well formed; its cost grows with the file, see
 * bench/README.md) runs before anything writes to the file; a file that
 * fails it, or is not an SQLite database at all, is closed without a
 * checkpoint and moved aside with its -wal and -shm, as they are, to
 * <path>.corrupt-<UTC time like 20260101T120000Z> (kept for whoever wants
 * to look; never written again), history_notice() says so, and a new,
 * empty history begins at path.
 *
 * The database is opened in WAL mode with synchronous=NORMAL (a commit
 * does not fsync; a power loss may lose the last commits, never corrupt),
 * foreign keys on, a page cache of 16 MiB (a second's batch of runs at a
 * hundred changes a quantum fits; in the default 2 MiB the batch spilled
 * and pages were read back) and a small busy timeout.  A database of a
 * newer schema version, or a file that is another program's database, is
 * refused (a damaged one is moved aside, above).
 *
 * Every fallible function returns -1 (NULL for history_open) and leaves a
 * message in history_error(); none aborts.  A handle is not thread-safe:
 * use it from one thread (the daemon's event loop).  Another thread reads
 * the same file through a handle of its own (history_open_reader: a second
 * connection, which SQLite's WAL lets read while the writer writes): it
 * sees what the writer has committed (history_commit commits everything
 * pending at once), each page of a query in one snapshot
 * (history_read_begin), never a write half done.  Query callbacks must
 * not call back into the module.
 */
#ifndef ASTEAL_HISTORY_H
#define ASTEAL_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "message.h"         /* enum usage_kind: a job's usage, by kind */

#define HISTORY_SCHEMA_VERSION 8

/* Opening options; a NULL pointer or a field <= 0 means the default. */
struct history_opts {
	int retention_days;    /* ended jobs older than this are deleted by
				  history_expire(); 0 = keep forever;
				  at most 36500 */
	int flush_open_ms;     /* write open runs at most this often
				  (quantum time); default 5000 */
	int flush_ms;          /* commit closed runs at most this often
				  (quantum time); default 1000 */
	int busy_timeout_ms;   /* wait this long for another writer's lock;
				  default 20 */
	size_t max_queue;      /* closed runs waiting for a flush; beyond
				  this they are dropped (counted); default
				  1048576 */
	size_t max_job_writes; /* job rows' writes waiting for the disk;
				  beyond this they are lost (counted);
				  default 65536 */
	size_t catch_up_runs;  /* closed runs one history_retry writes;
				  default 8192 */
	int group_gid;         /* > 0: the files are this group's and it
				  may read them (0640); else 0600; whatever
				  the umask, and SQLite gives the -wal and
				  -shm files the database's */
};

/* The quality of a quantum for its job (A-STEAL's feedback). */
enum history_class {
	HISTORY_CLASS_NONE = -1, /* not reported */
	HISTORY_INEFFICIENT = 0,
	HISTORY_SATISFIED = 1,  /* efficient, allotment == desire */
	HISTORY_DEPRIVED = 2,   /* efficient, allotment < desire */
};

/* A new job (history_job_begin). */
struct history_job {
	const char *name;     /* not NULL */
	int64_t uid;          /* >= 0 */
	int64_t pid;          /* > 0 */
	const char *command;  /* NULL is stored as "" */
	int64_t start_ns;     /* > 0 */
	int workers;          /* >= 0, 0 = not known yet */
	int64_t time_limit_ns;  /* its wall-clock limit from start_ns, >= 0;
				   0 = none */
};

/* One job's values from a quantum on (history_allot). */
struct history_quantum {
	int64_t quantum;      /* >= 0, increasing per job */
	int64_t start_ns, end_ns;     /* 0 < start_ns <= end_ns */
	int desire, availability, allotment;    /* >= 0 */
	const char *cpus;     /* Linux list format, "" when none; not NULL */
	int64_t use[USAGE_N]; /* usage by enum usage_kind (proto/message.h),
				 each >= 0; USAGE_ALLOTTED is the time its
				 allotted workers held CPUs */
	int cls;              /* enum history_class: this quantum's, when
				 known; HISTORY_CLASS_NONE leaves the run's */
	int64_t epoch;        /* the shares' generation: runs of turns end
				 where it changes (above) */
};

/* A job as a query reports it (strings valid during the callback). */
struct history_job_info {
	int64_t id;
	const char *name;
	int64_t uid, pid;
	const char *command;
	int64_t start_ns;
	int64_t end_ns;       /* 0 while running */
	int has_exit;         /* whether exit_status is known */
	int exit_status;
	int64_t use[USAGE_N]; /* usage totals by enum usage_kind */
	int workers;          /* 0 = never known */
	int64_t time_limit_ns;  /* 0 = none */
	int timed_out;        /* stopped at its time limit */
};

/* A run of quanta as a query reports it (cpus valid during the callback). */
struct history_run {
	int64_t id;           /* the run's number (a place in the order) */
	int64_t job;
	int64_t first_quantum, last_quantum;
	int64_t start_ns;     /* start of the first quantum */
	int64_t end_ns;       /* end of the last quantum */
	int desire, availability, allotment;
	const char *cpus;
	int64_t use[USAGE_N]; /* usage by enum usage_kind, summed over the run */
	int cls;
	int64_t cpu_quanta;   /* processor-quanta allotted in the run */
};

/* A place in a query's order: after job `job` (jobs), or after the run
 * (job, start_ns, run) (runs); stopped says a query ended there because
 * it had looked at max_scan rows. */
struct history_place {
	int stopped;
	int64_t job, start_ns, run;
};

/* What a query selects; a NULL filter selects everything.
 * Jobs: those whose lifetime [start_ns, end_ns or now] overlaps
 * [since_ns, until_ns], ordered by id.  Runs: those whose [start_ns,
 * end_ns] overlaps it, ordered by job, then start_ns, then run id: a
 * total order.  limit applies to jobs and to runs separately; a page
 * starts after a place in the order (the last row of the one before), so
 * pages are disjoint and cover everything even while runs are added.
 * The rows are read in that order and the filter applied to each, so a
 * query can stop after any row, selected or not (max_scan), and a later
 * one go on from there: the event loop is never held longer than that
 * however few rows a filter selects (a job it does not select costs one
 * seek, not a read of each of its runs).  Where a window (since_ns)
 * begins is found through the indexes, each lookup counted as a seek: a
 * query from the beginning of the order (after_job 0) starts at the
 * first job the window selects (the smallest id among the jobs that
 * ended at or after since_ns and the running ones, read from the index
 * of jobs by end over those jobs alone), and a selected job's runs that
 * end before the window are passed over with one seek (to its last run
 * that starts before since_ns: a job's runs follow each other in time,
 * unless the clock was set back across a restart of the daemon while it
 * ran).  So the jobs that ended before the window cost nothing, however
 * many, unless a job the window selects began before them (one running
 * for days): the query then reads from that job on, a row or a seek per
 * job. */
struct history_filter {
	const int64_t *jobs;  /* job ids; njobs == 0 = all jobs */
	size_t njobs;
	int64_t since_ns;     /* 0 = from the beginning */
	int64_t until_ns;     /* 0 = open end */
	int64_t limit;        /* 0 = no limit */
	int64_t after_job;    /* jobs: ids above this; runs: after ... */
	int64_t after_start_ns;  /* ... (after_job, after_start_ns, after_run) */
	int64_t after_run;
	int by_uid;           /* only uid's jobs and their runs (memset 0:
	                         every user's) */
	int64_t uid;
	int64_t max_scan;     /* look at no more than about this many rows
				 (and seeks), selected or not, then stop
				 (0 = no bound): a query's time is bounded
				 whatever it selects */
	struct history_place *stopped_at;  /* if not NULL: where the query
				 stopped for max_scan (stopped = 1; go on
				 after it), or stopped = 0 */
};

/* Callbacks of history_query(): return 0 to go on, nonzero to stop. */
typedef int (*history_job_cb)(const struct history_job_info *j, void *arg);
typedef int (*history_run_cb)(const struct history_run *r, void *arg);

/* Sizes, for the daemon's status and the benchmarks.  Counts are of what
 * is on disk (call history_flush() first to include the queue). */
struct history_stats {
	int64_t jobs;            /* rows in jobs */
	int64_t running_jobs;    /* of which end_ns is NULL */
	int64_t allotment_rows;  /* rows in allotments */
	int64_t db_bytes;        /* page_count * page_size */
	int64_t live_jobs;       /* jobs this handle tracks (begun/reopened) */
	int64_t open_runs;       /* runs open in memory */
	int64_t queued_runs;     /* closed runs waiting for a flush */
	int64_t transactions;    /* write transactions this handle made */
	int64_t changes;         /* rows this connection changed in total */
	int64_t dropped;         /* closed runs lost to a full queue */
	int64_t job_writes;      /* job rows' writes waiting for the disk */
	int64_t job_writes_dropped;  /* ... lost to a full buffer */
	int degraded;            /* writes fail (history_health says why) */
	int64_t quantum_base;    /* added to the daemon's quantum numbers */
};

struct history;

/* Open (creating the file and schema if new) the history at path; NULL on
 * failure with the reason in why (which may be NULL). */
struct history *history_open(const char *path, const struct history_opts *o,
			     char *why, size_t whylen);

/* Open the history at path to read it only, for queries (history_query,
 * history_stats) without a daemon: never written, upgraded, moved aside or
 * checkpointed, whether an asteald writes it meanwhile or none runs.  A
 * file with a -wal beside it is read through its log, which takes the -shm
 * readable (SQLite reads it read-only when it may not write it) or the
 * folder writable (to create it); one without is read as it is (SQLite's
 * immutable mode), so that no -wal and -shm appear.  NULL with the reason
 * in why for a missing or unreadable file, one that is no SQLite database
 * or not a history, and a schema version other than this one or the one
 * before (an older file is not upgraded; a version 7 file is read as it
 * is: it lacks only the jobs' time limits, which its jobs report as none,
 * never timed out).  Only
 * history_query, history_stats, history_read_begin and history_read_end,
 * history_error and history_close may be called on it. */
struct history *history_open_readonly(const char *path, char *why,
				      size_t whylen);

/* Open a second connection to the history at path, which a writer of
 * this process (history_open) has open, to read it from another thread
 * while the writer writes: as history_open_readonly, but always through
 * the write-ahead log (never as an immutable file), and without reading
 * the next job id and quantum base (history_stats reports 0 for them).
 * It sees what the writer has committed, nothing pending.  NULL with the
 * reason in why. */
struct history *history_open_reader(const char *path, char *why,
				    size_t whylen);

/* Write what is pending (queued and open runs) and close; NULL is a no-op. */
void history_close(struct history *h);

/* The last error's message. */
const char *history_error(const struct history *h);

/* What history_open did to a damaged file, to be logged ("" if
 * nothing): where it was moved. */
const char *history_notice(const struct history *h);

/* The history's health, from memory (no disk access): for the daemon's
 * status and log. */
struct history_health {
	int degraded;
	char state[300];        /* "ok", or "degraded: " and why */
	int64_t pending;        /* job writes and closed runs waiting */
	int64_t dropped;        /* closed runs and job writes lost */
};

/* Fill out (a NULL h is "degraded: no history"). */
void history_health(const struct history *h, struct history_health *out);

/* While degraded, try to write what is pending, a slice at a time (the
 * job writes and catch_up_runs closed runs in one transaction, so that
 * no call holds the caller long, however much waits; meant to be called
 * about once a second): 0 when the history is not degraded (now), 1 when
 * a slice was written and more waits (still degraded, "catching up"),
 * -1 when the write failed. */
int history_retry(struct history *h);

/* Record a new job (its row written now in a short transaction with
 * whatever is pending, or kept pending: see "Failures") and start
 * tracking it; returns its id (> 0), or -1 on bad arguments or when out
 * of memory. */
int64_t history_job_begin(struct history *h, const struct history_job *j);

/* End a running job: its open run (or, with none, the usage it was given
 * as a row of away at end_ns), the queue and its row's end_ns and exit
 * status (NULL: unknown, keeps one set earlier) are written in one
 * transaction (or kept pending, see "Failures"); -1 if the job is
 * unknown or already ended. */
int history_job_end(struct history *h, int64_t id, int64_t end_ns,
		    const int *exit_status);

/* The daemon stops while job id runs: write its open run (or, with none,
 * the usage it was given as a row of away at the latest quantum's end)
 * and the queue, stop tracking it, and leave the row open for
 * history_job_reopen(); -1 if it is not tracked. */
int history_job_pause(struct history *h, int64_t id);

/* Set a job's exit status (from a supervising command line, before or
 * after the end; a job write); -1 if there is no such job, or the buffer
 * of job writes is full. */
int history_job_set_exit(struct history *h, int64_t id, int status);

/* Mark a job as timed out: the daemon stopped it at its time limit
 * (before or after its end; a job write); -1 if there is no such job, or
 * the buffer of job writes is full. */
int history_job_timeout(struct history *h, int64_t id);

/* Take back a job left running by a previous daemon, which reconnects
 * with this pid: 0 if its row exists, is not ended, has that pid and is
 * not tracked already; then history_allot() accepts it again. */
int history_job_reopen(struct history *h, int64_t id, int64_t pid);

/* A tracked job's row start (wall time) in *start_ns and its totals as
 * this handle knows them in use[USAGE_WORK] ...: its row's on disk when
 * it was reopened (0 when begun here), plus all the usage this handle
 * was given for it since (history_allot, history_usage, history_away),
 * whether written yet or not.  -1 if it is not tracked, or nothing of it
 * is kept (its row was lost to a full buffer). */
int history_job_usage(struct history *h, int64_t id, int64_t *start_ns,
		      int64_t use[USAGE_N]);

/* Add usage (use[USAGE_WORK] ..., each >= 0) that tracked job id ran
 * outside every run to its totals, as a row of table away at wall time
 * at_ns: a job write (written in order before the runs, or kept pending:
 * see "Failures").  -1 on bad arguments, an unknown job, or a full buffer
 * of job writes (nothing added). */
int history_away(struct history *h, int64_t id, int64_t at_ns,
		 const int64_t use[USAGE_N]);

/* Set a job's worker count (a job the command line launched is recorded
 * before its library says how many workers it has; a job write); -1 if
 * there is no such job, or the buffer of job writes is full. */
int history_job_workers(struct history *h, int64_t id, int workers);

/* Close the job rows left open that nobody reopened and that started
 * before now_ns - older_than_ns: end_ns = now_ns, exit status unknown,
 * totals summed from their runs.  Returns the number closed, or -1 (also
 * while degraded). */
int history_close_stale(struct history *h, int64_t now_ns,
			int64_t older_than_ns);

/* Record a tracked job's values from quantum q->quantum on, with the
 * usage of that quantum (in memory: with the values of its open run it
 * extends the run to q's end; otherwise the open run, which lasted until
 * q began, goes to the queue and q opens a new one).  -1 on bad arguments
 * (nothing changed then), or if the queue was full (the closed run was
 * dropped; the quantum is recorded). */
int history_allot(struct history *h, int64_t job_id,
		  const struct history_quantum *q);

/* The class a tracked job reported for its quantum `quantum`, given to
 * its open run when that run holds the quantum (begun at or before it):
 * a class that comes after its run closed belongs to no other run and is
 * dropped (0 all the same).  -1 for an unknown job or a bad class. */
int history_class(struct history *h, int64_t job_id, int64_t quantum,
		  int cls);

/* Add usage (use[USAGE_WORK] ..., each >= 0) to a tracked job's open
 * run, or to the run it opens next when it has none yet; -1 for an
 * unknown job or bad usage. */
int history_usage(struct history *h, int64_t job_id,
		  const int64_t use[USAGE_N]);

/* Quanta first..last (from start_ns to end_ns) had no tick: queued like
 * closed runs (ranges that follow each other merge); -1 on bad arguments
 * or a full queue. */
int history_skipped(struct history *h, int64_t first, int64_t last,
		    int64_t start_ns, int64_t end_ns);

/* Job job_id was granted `allotment` free CPUs (cpus, Linux list
 * format) at wall time at_ns, as it joined or woke, between the tick of
 * quantum `quantum` and the next: queued like closed runs, written
 * with them; -1 on bad arguments, an unknown job or a full queue. */
int history_grant(struct history *h, int64_t job_id, int64_t quantum,
		  int64_t at_ns, int allotment, const char *cpus);

/* Quantum `quantum`, ending at end_ns, is over: every open run has lasted
 * (unchanged) until then; written so when open runs are next written.
 * Quanta must not go back; -1 if they do. */
int history_advance(struct history *h, int64_t quantum, int64_t end_ns);

/* The closed runs waiting for a flush (0 for NULL); reads nothing. */
size_t history_queued(const struct history *h);

/* Write closed runs: a share of the queue (at most 1024) into a write
 * transaction kept open between calls, committed (with the rest of the
 * queue) once flush_ms of quantum time has passed since the last commit,
 * when too many wait, or with the open runs when flush_open_ms has
 * passed; pending job writes are written at once.  0 without touching
 * the disk when nothing is queued or due, or while degraded.  Meant to be
 * called every tick, after the Allots.  On failure everything stays
 * pending: -1 if another connection's lock was to blame (the next call
 * tries again), else 0 and the handle is degraded (see "Failures"). */
int history_flush(struct history *h);

/* Report the selected jobs to jcb and runs to rcb (either may be NULL),
 * after writing everything pending (while degraded: what is on disk
 * already); returns the number of rows reported,
 * or -1. */
int history_query(struct history *h, const struct history_filter *f,
		  history_job_cb jcb, history_run_cb rcb, void *arg);

/* Write everything pending (job writes, the queue, the batch, the open
 * runs) and commit, as history_query does before it reads, so that a
 * reader on another connection (history_open_reader) sees it all; nothing
 * when nothing is pending, and nothing on a reader's handle or while
 * degraded (what is on disk is all there is).  0, or -1 when another
 * connection's lock was to blame (everything stays pending; a lasting
 * failure degrades the handle and returns 0, see "Failures"). */
int history_commit(struct history *h);

/* On a reader's handle (history_open_readonly, history_open_reader): hold
 * one snapshot of the file, the same for every query until
 * history_read_end, so that the queries of one page see one state however
 * the writer goes on meanwhile (a read transaction: WAL keeps the pages
 * it needs).  On a writer's handle, a no-op: its queries see its own
 * writes.  0, or -1 with the message. */
int history_read_begin(struct history *h);

/* Let go of the snapshot history_read_begin took (nothing if none). */
void history_read_end(struct history *h);

/* Delete the jobs that ended more than retention_days before now_ns and
 * their runs (runs in batches of short transactions), at most max_runs
 * runs in this call (0: all of them): *done (may be NULL) says whether
 * all is deleted, else a later call goes on (the jobs go with their last
 * runs), so that the daemon deletes a step at a time and never holds its
 * loop long.  Returns the number of rows deleted (jobs + runs), 0 when
 * retention is off, or -1 (also while degraded). */
int64_t history_expire(struct history *h, int64_t now_ns, int64_t max_runs,
		       int *done);

/* Change the retention (asteald's reload): ended jobs older than days
 * (0: keep forever; at most 36500) go at the next history_expire.
 * Returns 0, or -1 when days is out of range. */
int history_set_retention(struct history *h, int days);

/* Fill s (see struct history_stats; counting rows reads the tables). */
int history_stats(struct history *h, struct history_stats *s);

#endif
