/*
 * query_cols.c - the columns of `asteal jobs` and `asteal history` (see
 * query.h): one table of every column either shows (its header, its CSV
 * and JSON key, its alignment, how its value is written), the cells of a
 * row made from values by that table, the cells and JSON members of a
 * job both commands write alike, and the rows printed as a table of the
 * chosen columns (query_print).
 *
 * A command fills a row by column (query_num, query_text, ...), and the
 * column's kind writes the value for people or raw for CSV; what only
 * one command shows in its own way (EFF, CAP, a mean ALLOT, ...) it
 * writes itself with query_text.  A column -o gave a width (NAME%N) is
 * that wide in an aligned table (table_set_width); on a terminal too
 * narrow for the table, the columns of long text (NAME, COMMAND, CPUS,
 * STATUS) give way (table_set_shrink).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "query.h"
#include "table.h"

const struct query_col query_cols[QC_NCOLS] = {
	[QC_ID] = { "ID", "id", 1, QF_UINT },
	[QC_JOB] = { "JOB", "job_id", 1, QF_UINT },
	[QC_NAME] = { "NAME", "name", 0, QF_TEXT, 1 },
	[QC_USER] = { "USER", "user", 0, QF_USER },
	[QC_UID] = { "UID", "uid", 1, QF_UINT },
	[QC_PID] = { "PID", "pid", 1, QF_INT },
	[QC_COMMAND] = { "COMMAND", "command", 0, QF_TEXT, 1 },
	[QC_STATE] = { "STATE", "state", 0, QF_TEXT },
	[QC_START] = { "START", "start_ns", 0, QF_TIME },
	[QC_END] = { "END", "end_ns", 0, QF_TIME },
	[QC_START_MS] = { "START", "start_ns", 0, QF_TIME_MS },
	[QC_END_MS] = { "END", "end_ns", 0, QF_TIME_MS },
	[QC_AGE] = { "AGE", "age_ns", 1, QF_DURATION },
	[QC_ELAPSED] = { "ELAPSED", "elapsed_ns", 1, QF_DURATION },
	[QC_DURATION] = { "DURATION", "duration_ns", 1, QF_DURATION },
	[QC_FIRST] = { "FIRST", "first_quantum", 1, QF_UINT },
	[QC_LAST] = { "LAST", "last_quantum", 1, QF_UINT },
	[QC_DESIRE] = { "DESIRE", "desire", 1, QF_UINT },
	[QC_AVAIL] = { "AVAIL", "availability", 1, QF_UINT },
	[QC_ALLOT] = { "ALLOT", "allotment", 1, QF_UINT },
	[QC_CPUS] = { "CPUS", "cpus", 0, QF_CPUS, 1 },
	[QC_CAP] = { "CAP", "cpus_cap", 0, QF_TEXT },
	[QC_RIGID] = { "RIGID", "rigid", 0, QF_BOOL },
	[QC_HELD] = { "HELD", "confinement", 0, QF_TEXT },
	[QC_WORKERS] = { "WORKERS", "workers", 1, QF_UINT },
	[QC_EFF] = { "EFF", "efficiency", 1, QF_TEXT },
	[QC_CLASS] = { "CLASS", "quantum_class", 0, QF_CLASS },
	[QC_STATUS] = { "STATUS", "status", 0, QF_TEXT, 1 },
	[QC_KNOWN] = { "KNOWN", "status_known", 0, QF_BOOL },
	[QC_WSTATUS] = { "WSTATUS", "wait_status", 1, QF_INT },
	[QC_WORK] = { "WORK", "work_ns", 1, QF_DURATION },
	[QC_STEAL] = { "STEAL", "steal_ns", 1, QF_DURATION },
	[QC_MUG] = { "MUG", "mug_ns", 1, QF_DURATION },
	[QC_SLEEP] = { "SLEEP", "sleep_ns", 1, QF_DURATION },
	[QC_PREEMPTED] = { "PREEMPTED", "preempted_ns", 1, QF_DURATION },
	[QC_ALLOTTED] = { "ALLOTTED", "allotted_ns", 1, QF_DURATION },
	[QC_CPUTIME] = { "CPUTIME", "cpu_ns", 1, QF_DURATION },
	[QC_CPUQ] = { "CPUQ", "cpu_quanta", 1, QF_UINT },
	[QC_TIMELIMIT] = { "TIMELIMIT", "time_limit_ns", 1, QF_DURATION },
};

/* Start a row with no values. */
void query_cells_start(struct query_cells *r, int raw)
{
	int k;

	r->raw = raw;
	for (k = 0; k < QC_NCOLS; k++)
		r->cell[k] = NULL;
}

/* Write a number by its column's kind. */
void query_num(struct query_cells *r, int col, uint64_t v)
{
	char *buf = r->v[col];
	size_t len = sizeof(r->v[col]);

	switch (query_cols[col].fmt) {
	case QF_USER:
		r->cell[col] = fmt_user((uint32_t)v, buf, len);
		return;
	case QF_TIME:
		r->cell[col] = r->raw ? fmt_u64(buf, len, v) : fmt_time(buf, len, v);
		return;
	case QF_TIME_MS:
		r->cell[col] = r->raw ? fmt_u64(buf, len, v) : fmt_time_ms(buf, len, v);
		return;
	case QF_DURATION:
		r->cell[col] = r->raw ? fmt_u64(buf, len, v) : fmt_duration(buf, len, v);
		return;
	case QF_BOOL:
		r->cell[col] = v ? (r->raw ? "1" : "yes") : (r->raw ? "0" : "no");
		return;
	case QF_CLASS:
		r->cell[col] = query_class_name((Asteal__QuantumClass)v);
		return;
	default:
		r->cell[col] = fmt_u64(buf, len, v);
		return;
	}
}

/* Write numbers by their columns' kinds. */
void query_nums(struct query_cells *r, const struct query_val *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		query_num(r, v[i].col, v[i].v);
}

/* Write a signed number. */
void query_int(struct query_cells *r, int col, int v)
{
	snprintf(r->v[col], sizeof(r->v[col]), "%d", v);
	r->cell[col] = r->v[col];
}

/* A string as it is. */
void query_text(struct query_cells *r, int col, const char *s)
{
	r->cell[col] = s;
}

/* A CPU list. */
void query_cpus(struct query_cells *r, int col, const uint32_t *cpus, size_t n)
{
	r->cell[col] = n > 0 ? fmt_cpus(r->cpus, sizeof(r->cpus), cpus, n) : NULL;
}

/* The six usage columns. */
void query_usage(struct query_cells *r, const Asteal__Usage *u)
{
	struct usage_totals t;

	exchange_usage_from(&t, u);
	const struct query_val v[] = { { QC_WORK, t.ns[USAGE_WORK] },
		{ QC_STEAL, t.ns[USAGE_STEAL] }, { QC_MUG, t.ns[USAGE_MUG] },
		{ QC_SLEEP, t.ns[USAGE_SLEEP] },
		{ QC_PREEMPTED, t.ns[USAGE_PREEMPTED] },
		{ QC_ALLOTTED, t.ns[USAGE_ALLOTTED] } };

	query_nums(r, v, sizeof(v) / sizeof(v[0]));
}

/* Who a job is and when it started, as cells. */
void query_job_cells(struct query_cells *r, const struct query_job *j)
{
	const struct query_val v[] = { { QC_ID, j->id }, { QC_USER, j->uid },
		{ QC_UID, j->uid }, { QC_START, j->start_ns } };

	query_nums(r, v, sizeof(v) / sizeof(v[0]));
	query_text(r, QC_NAME, j->name);
	query_text(r, QC_COMMAND, j->command);
	query_text(r, QC_STATE, j->state);
	query_int(r, QC_PID, j->pid);
}

/* Who a job is and when it started, as JSON members. */
void query_job_json(struct json *w, const struct query_job *j)
{
	char user[64];

	json_uint(w, "id", j->id);
	json_str(w, "name", j->name);
	json_uint(w, "uid", j->uid);
	json_str(w, "user", fmt_user(j->uid, user, sizeof(user)));
	json_int(w, "pid", j->pid);
	json_str(w, "command", j->command);
	json_str(w, "state", j->state);
	json_instant(w, "start", j->start_ns);
}

/* A table with the chosen columns, and when aligned their widths and
 * which give way on a narrow terminal. */
static struct table *new_table(const struct query_args *a)
{
	const char *hdr[QUERY_MAX_COLS];
	char names[QUERY_MAX_COLS][32];
	struct table *t;
	int i;

	for (i = 0; i < a->ncols; i++) {
		const struct query_col *c = &query_cols[a->cols[i]];
		if (a->style == TABLE_CSV)
			hdr[i] = c->key;
		else {
			snprintf(names[i], sizeof(names[i]), "%s%s", c->right ? ">" : "",
			         c->name);
			hdr[i] = names[i];
		}
	}
	t = table_new(hdr, a->ncols);
	for (i = 0; t != NULL && a->style == TABLE_ALIGNED && i < a->ncols; i++) {
		table_set_width(t, i, a->widths[i]);
		if (query_cols[a->cols[i]].shrink)
			table_set_shrink(t, i, TABLE_SHRINK_CUT);
	}
	return t;
}

/* Add the chosen cells of a row: 0, or -1 when out of memory. */
static int add_row(struct table *t, const struct query_args *a,
               const struct query_cells *r)
{
	const char *row[QUERY_MAX_COLS];
	int i;

	for (i = 0; i < a->ncols; i++)
		row[i] = r->cell[a->cols[i]];
	return table_add(t, row);
}

/* Print a query's rows as a table (query.h). */
int query_print(FILE *f, const struct query_args *a, size_t n,
                query_cells_fn *cells, const void *ctx)
{
	struct table *t = new_table(a);
	struct query_cells *r = malloc(sizeof(*r));
	size_t i;
	int rc = -1;

	if (t == NULL || r == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		cells(ctx, i, a->style == TABLE_CSV, r);
		if (add_row(t, a, r) < 0)
			goto out;
	}
	rc = table_write(t, f, a->style, a->header);
out:
	free(r);
	table_free(t);
	return rc;
}
