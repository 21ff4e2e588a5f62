/*
 * histschema.c - asteald's history, its schema: the tables and indexes of
 * the current version (history.h), the steps that upgrade a file of an
 * older version in place, the check that a file is an asteal history a
 * writer or a reader of this version can use, and the temporary tables a
 * connection needs.  The schema version is PRAGMA user_version, the mark
 * of an asteal history PRAGMA application_id.  The format and the rules
 * are described in history.h; the handle, which calls these as it opens a
 * file, is history.c, and what they share is in history_int.h.
 *
 * An upgrade is one transaction per version, each re-reading the version
 * first: another asteald that opened the file meanwhile may have done it.
 */
#include "history_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <sqlite3.h>

#define APP_ID 0x41535448               /* "ASTH" */

/* The quanta without a tick (version 3). */
#define SKIPPED_TABLE "CREATE TABLE skipped (" \
	" first_quantum INTEGER NOT NULL, last_quantum INTEGER NOT NULL," \
	" start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL)"

/* The CPUs granted to jobs as they joined or woke (version 6), and their index
 * by job, which deleting a job (ON DELETE CASCADE) looks them up by. */
#define GRANTS_TABLE "CREATE TABLE grants (" \
	" job INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE," \
	" quantum INTEGER NOT NULL, at_ns INTEGER NOT NULL," \
	" allotment INTEGER NOT NULL, cpus TEXT NOT NULL);" \
	"CREATE INDEX grants_by_job ON grants(job)"

/* The usage jobs ran outside every run, as they reconnected (version 7),
 * and its index by job, for the same cascade. */
#define AWAY_TABLE "CREATE TABLE away (" \
	" job INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE," \
	" at_ns INTEGER NOT NULL, work_ns INTEGER NOT NULL," \
	" steal_ns INTEGER NOT NULL, mug_ns INTEGER NOT NULL," \
	" sleep_ns INTEGER NOT NULL, preempted_ns INTEGER NOT NULL," \
	" allotted_ns INTEGER NOT NULL);" \
	"CREATE INDEX away_by_job ON away(job)"

/* The schema, version 8 (see history.h); version 1 lacked the columns
 * that MIGRATE_V2 adds, version 2 the table MIGRATE_V3 adds, version 3
 * the columns MIGRATE_V4 adds, version 4 the column MIGRATE_V5 adds,
 * version 5 the table MIGRATE_V6 adds, version 6 the one MIGRATE_V7
 * adds, version 7 the columns MIGRATE_V8 adds. */
static const char SCHEMA[] =
	"CREATE TABLE jobs ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" name TEXT NOT NULL, uid INTEGER NOT NULL, pid INTEGER NOT NULL,"
	" command TEXT NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER,"
	" exit_status INTEGER, work_ns INTEGER NOT NULL DEFAULT 0,"
	" steal_ns INTEGER NOT NULL DEFAULT 0,"
	" mug_ns INTEGER NOT NULL DEFAULT 0,"
	" workers INTEGER NOT NULL DEFAULT 0,"
	" allotted_ns INTEGER NOT NULL DEFAULT 0,"
	" sleep_ns INTEGER NOT NULL DEFAULT 0,"
	" preempted_ns INTEGER NOT NULL DEFAULT 0,"
	" time_limit_ns INTEGER NOT NULL DEFAULT 0,"
	" timed_out INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX jobs_by_end ON jobs(end_ns);"
	"CREATE TABLE allotments ("
	" id INTEGER PRIMARY KEY,"
	" job INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
	" first_quantum INTEGER NOT NULL, last_quantum INTEGER NOT NULL,"
	" start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,"
	" desire INTEGER NOT NULL, availability INTEGER NOT NULL,"
	" allotment INTEGER NOT NULL, cpus TEXT NOT NULL,"
	" work_ns INTEGER NOT NULL, steal_ns INTEGER NOT NULL,"
	" mug_ns INTEGER NOT NULL, class INTEGER NOT NULL,"
	" allotted_ns INTEGER NOT NULL DEFAULT 0,"
	" sleep_ns INTEGER NOT NULL DEFAULT 0,"
	" preempted_ns INTEGER NOT NULL DEFAULT 0,"
	" cpu_quanta INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX allotments_by_job ON allotments(job, start_ns);"
	SKIPPED_TABLE ";"
	GRANTS_TABLE ";"
	AWAY_TABLE;

/* Earlier databases of every version had an index of the runs by end,
 * which no query used (the runs are read by job, and selected by time
 * within the job) and every insert paid for: dropped at open. */
static const char DROP_UNUSED[] = "DROP INDEX IF EXISTS allotments_by_end";

/* The temporary table of ids the statements select by (hist_fill_ids):
 * in memory, not in the file. */
static const char IDS_TABLE[] =
	"CREATE TEMP TABLE history_ids(id INTEGER PRIMARY KEY)";

/* From version 7 to 8: the jobs' time limits (none before). */
static const char MIGRATE_V8[] =
	"ALTER TABLE jobs ADD COLUMN time_limit_ns INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE jobs ADD COLUMN timed_out INTEGER NOT NULL DEFAULT 0;"
	"PRAGMA user_version = 8";

/* From version 6 to 7: the usage away (none recorded before). */
static const char MIGRATE_V7[] = AWAY_TABLE "; PRAGMA user_version = 7";

/* From version 5 to 6: the grants (none before). */
static const char MIGRATE_V6[] = GRANTS_TABLE "; PRAGMA user_version = 6";

/* From version 4 to 5: the processor-quanta of each run (runs of turns
 * came with it; every run before had its allotment throughout). */
static const char MIGRATE_V5[] =
	"ALTER TABLE allotments ADD COLUMN cpu_quanta INTEGER NOT NULL"
	" DEFAULT 0;"
	"UPDATE allotments SET cpu_quanta ="
	" allotment * (last_quantum - first_quantum + 1);"
	"PRAGMA user_version = 5";

/* From version 3 to 4: the time the jobs' workers slept and were
 * preempted (rows of before are 0: their steal_ns has the sleep in it). */
static const char MIGRATE_V4[] =
	"ALTER TABLE jobs ADD COLUMN sleep_ns INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE jobs ADD COLUMN preempted_ns INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE allotments ADD COLUMN sleep_ns INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE allotments ADD COLUMN preempted_ns INTEGER NOT NULL"
	" DEFAULT 0;"
	"PRAGMA user_version = 4";

/* From version 2 to 3: the quanta without a tick. */
static const char MIGRATE_V3[] = SKIPPED_TABLE "; PRAGMA user_version = 3";

/* From version 1 to 2: the jobs' worker counts and allotted time. */
static const char MIGRATE_V2[] =
	"ALTER TABLE jobs ADD COLUMN workers INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE jobs ADD COLUMN allotted_ns INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE allotments ADD COLUMN allotted_ns INTEGER NOT NULL"
	" DEFAULT 0;"
	"PRAGMA user_version = 2";

/* The upgrades by the version they upgrade from, one version each. */
static const char *const MIGRATE[HISTORY_SCHEMA_VERSION] = {
	[1] = MIGRATE_V2, [2] = MIGRATE_V3, [3] = MIGRATE_V4, [4] = MIGRATE_V5,
	[5] = MIGRATE_V6, [6] = MIGRATE_V7, [7] = MIGRATE_V8,
};

/* Read the schema version, the application id and the number of schema
 * objects (tables, indexes...) into v[0..2]; 0, or -1 with the message. */
int hist_schema_probe(struct history *h, int64_t v[3])
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(h->db, "SELECT v.user_version,"
			       " a.application_id, (SELECT count(*) FROM"
			       " sqlite_master) FROM pragma_user_version() v,"
			       " pragma_application_id() a", -1, &s,
			       NULL) != SQLITE_OK)
		return hist_sqlerr(h, "read schema version");
	rc = sqlite3_step(s);
	for (int i = 0; i < 3 && rc == SQLITE_ROW; i++)
		v[i] = sqlite3_column_int64(s, i);
	if (rc != SQLITE_ROW)
		hist_sqlerr(h, "read schema version");
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* In one transaction, run sql (then more, unless NULL) if the schema is
 * still at version `from`; another asteald may have moved it on meanwhile,
 * which is fine.  0, or -1 with the message. */
static int schema_change(struct history *h, int64_t from, const char *sql,
			 const char *more, const char *what)
{
	int64_t v[3];

	if (hist_exec(h, "BEGIN IMMEDIATE", what) < 0)
		return -1;
	if (hist_schema_probe(h, v) < 0)
		goto fail;
	if (v[0] == from && (hist_exec(h, sql, what) < 0 ||
			     (more != NULL && hist_exec(h, more, what) < 0)))
		goto fail;
	if (hist_exec(h, "COMMIT", what) < 0)
		goto fail;
	return 0;
fail:
	if (!sqlite3_get_autocommit(h->db))
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Create the current schema in an empty database; 0 or -1. */
static int create_schema(struct history *h)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d;"
		 " PRAGMA application_id = %d", HISTORY_SCHEMA_VERSION, APP_ID);
	return schema_change(h, 0, SCHEMA, sql, "create schema");
}

/* Say that the file is not an asteal history, from what hist_schema_probe
 * read into v; returns -1. */
static int not_ours(struct history *h, const int64_t v[3])
{
	hist_seterr(h, "not an asteal history database (schema version"
		    " %" PRId64 ", application_id %" PRId64 ", %" PRId64
		    " objects)", v[0], v[1], v[2]);
	return -1;
}

/* Check, from what hist_schema_probe read into v, that a writer may use
 * the file: empty, or an asteal history no newer than this version; 0, or
 * -1 with the message. */
int hist_schema_check(struct history *h, const int64_t v[3])
{
	if (v[0] > HISTORY_SCHEMA_VERSION) {
		hist_seterr(h, "database schema version %" PRId64 " is newer"
			    " than this asteald (%d)", v[0],
			    HISTORY_SCHEMA_VERSION);
		return -1;
	}
	if ((v[0] == 0 && v[2] != 0) || (v[0] != 0 && v[1] != APP_ID))
		return not_ours(h, v);
	return 0;
}

/* Bring the schema of a file at `version` (0: empty) to the current one,
 * a version at a time, drop the unused index, and create the temporary
 * table of ids; 0, or -1 with the message. */
int hist_schema_update(struct history *h, int64_t version)
{
	char what[64];

	if (version == 0 && create_schema(h) < 0)
		return -1;
	for (int64_t from = version; from >= 1 &&
	     from < HISTORY_SCHEMA_VERSION; from++) {
		snprintf(what, sizeof(what), "upgrade schema to version %d",
			 (int)from + 1);
		if (schema_change(h, from, MIGRATE[from], NULL, what) < 0)
			return -1;
	}
	if (version != 0 && hist_exec(h, DROP_UNUSED, "drop an unused index") < 0)
		return -1;
	return hist_exec(h, IDS_TABLE, "create temporary table");
}

/* Check, from what hist_schema_probe read into v, that a reader of this
 * version can read the file as it is (it never upgrades: a version 7 file
 * lacks only the jobs' time limits, which its reader's query of jobs,
 * hist_query_jobs_before, reads as none), and create the temporary table
 * of ids; 0, or -1 with the message. */
int hist_schema_readable(struct history *h, const int64_t v[3])
{
	if (v[0] > HISTORY_SCHEMA_VERSION) {
		hist_seterr(h, "its schema version %" PRId64 " is newer than"
			    " this asteal's (%d): read it with the asteal of"
			    " the asteald that wrote it", v[0],
			    HISTORY_SCHEMA_VERSION);
		return -1;
	}
	if (v[0] == 0 || v[1] != APP_ID)
		return not_ours(h, v);
	if (v[0] < HISTORY_SCHEMA_VERSION - 1) {
		hist_seterr(h, "its schema version %" PRId64 " is older than"
			    " this asteal's (%d), and reading never upgrades"
			    " it: an asteald of this version does when it"
			    " opens the file", v[0], HISTORY_SCHEMA_VERSION);
		return -1;
	}
	/* The temporary table lives in memory, not in the file. */
	return hist_exec(h, IDS_TABLE, "create temporary table");
}
