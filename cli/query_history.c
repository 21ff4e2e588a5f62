/*
 * query_history.c - `asteal history`: allotment records or jobs, every
 * page of them, as a table, JSON or CSV, and an SVG chart with --plot.
 *
 * Output: aligned tables for people (columns chosen with -o), '|'-
 * separated with --parsable, CSV, or one JSON document.  In JSON and CSV,
 * keys and columns are the protocol's field names in snake_case; instants
 * and durations are ns (*_ns: strings in JSON, asteal(1) OUTPUT), and JSON
 * adds instants as ISO 8601 UTC strings (the same key without _ns); CSV
 * has an empty field where JSON has null.  Quantum classes are the words
 * inefficient, satisfied and deprived; job states are running, completed,
 * failed, killed, unknown and timeout.  hist_get is the one place the history is
 * read, from the daemon or, with --db, from the file (histdb.c).
 *
 * As sacct: the period asked for is today (from local midnight) unless
 * -S, -E or job ids say otherwise, and the rows come oldest first (jobs
 * by start, records by start; hist_order), the last --limit of them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "client.h"
#include "frame.h"
#include "histdb.h"
#include "plot.h"
#include "qtime.h"
#include "query.h"
#include "record.h"
#include "search.h"
#include "table.h"

/* Every page of a history query and the records they hold. */
struct hist {
	Asteal__Envelope **pages;
	size_t npages, cap;
	const Asteal__JobRecord **jobs;             /* by id, no repeats */
	size_t njobs, capj;
	const Asteal__AllotmentRecord **recs;       /* in the daemon's order,
	                                               then in time's (hist_order) */
	size_t nrecs, capr;
	const Asteal__JobRecord **shown;            /* the jobs printed, in
	                                               time's order (hist_order) */
	size_t nshown;
};

/* Order JobRecord pointers by id. */
static int cmp_jobrec(const void *a, const void *b)
{
	const Asteal__JobRecord *x = *(const Asteal__JobRecord *const *)a;
	const Asteal__JobRecord *y = *(const Asteal__JobRecord *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Free what hist_fetch collected. */
static void hist_free(struct hist *h)
{
	size_t i;

	for (i = 0; i < h->npages; i++)
		frame_free(h->pages[i]);
	free(h->pages);
	free(h->jobs);
	free(h->recs);
	free(h->shown);
	memset(h, 0, sizeof(*h));
}

/* Fetch every page of a history query into h (jobs_only: jobs, else
 * allotment records and their jobs) from the daemon, or from the file
 * when db is not NULL (--db): 0, or an exit code. */
static int hist_fetch(struct client *c, struct histdb *db,
                      const uint64_t *ids, size_t nids,
                      uint64_t since, uint64_t until, int jobs_only,
                      struct hist *h)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__HistoryRequest req = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__HistoryCursor after = ASTEAL__HISTORY_CURSOR__INIT;
	const Asteal__History *p;
	size_t i, k;
	int r;

	req.job_ids = (uint64_t *)ids;
	req.n_job_ids = nids;
	req.since_ns = since;
	req.until_ns = until;
	req.jobs_only = jobs_only;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &req;
	for (;;) {
		if ((r = db != NULL ? histdb_call(db, &env, &m)
		               : client_call(c, &env, ASTEAL__ENVELOPE__MSG_HISTORY, &m,
		                             CLIENT_REPLY_MS)) != 0)
			return r;
		if (frame_grow(&h->pages, sizeof(*h->pages), h->npages, &h->cap, 64) < 0) {
			frame_free(m);
			goto oom;
		}
		h->pages[h->npages++] = m;
		p = m->history;
		for (i = 0; i < p->n_jobs; i++) {
			if (frame_grow(&h->jobs, sizeof(*h->jobs), h->njobs, &h->capj, 64) < 0)
				goto oom;
			h->jobs[h->njobs++] = p->jobs[i];
		}
		for (i = 0; i < p->n_allotments && !jobs_only; i++) {
			if (frame_grow(&h->recs, sizeof(*h->recs), h->nrecs, &h->capr, 64) < 0)
				goto oom;
			h->recs[h->nrecs++] = p->allotments[i];
		}
		if (!p->more)
			break;
		if (!frame_history_after(&req, &after, p)) {
			cli_error("asteald sent a history page with more to follow "
			          "but no place after this one to go on from");
			return CLI_FAIL;
		}
	}
	/* each page names the jobs of its records: keep one of each */
	if (h->njobs > 1)
		qsort(h->jobs, h->njobs, sizeof(*h->jobs), cmp_jobrec);
	for (i = k = 0; i < h->njobs; i++)
		if (k == 0 || h->jobs[k - 1]->id != h->jobs[i]->id)
			h->jobs[k++] = h->jobs[i];
	h->njobs = k;
	return 0;
oom:
	cli_error("out of memory");
	return CLI_FAIL;
}

/* Whether jobs[i] sorts before the id at key. */
static int record_below(const void *arr, size_t i, const void *key)
{
	return ((const Asteal__JobRecord *const *)arr)[i]->id < *(const uint64_t *)key;
}

/* The job with id in h, or NULL. */
static const Asteal__JobRecord *hist_job(const struct hist *h, uint64_t id)
{
	size_t at = search_first(h->jobs, h->njobs, &id, record_below);

	return at < h->njobs && h->jobs[at]->id == id ? h->jobs[at] : NULL;
}

/* The columns of `history` (allotment records) and of `history --jobs`,
 * in their order, with those a table and CSV show by default. */
static const int rec_cols[] = {
	QC_JOB, QC_NAME, QC_USER, QC_FIRST, QC_LAST, QC_START_MS, QC_END_MS,
	QC_DURATION, QC_DESIRE, QC_AVAIL, QC_ALLOT, QC_CPUS, QC_WORK, QC_STEAL,
	QC_MUG, QC_SLEEP, QC_PREEMPTED, QC_ALLOTTED, QC_CLASS, QC_CPUQ,
};
static const int job_cols[] = {
	QC_ID, QC_NAME, QC_USER, QC_UID, QC_PID, QC_COMMAND, QC_START, QC_END,
	QC_ELAPSED, QC_STATE, QC_STATUS, QC_KNOWN, QC_WSTATUS, QC_WORK, QC_STEAL,
	QC_MUG, QC_SLEEP, QC_PREEMPTED, QC_WORKERS, QC_ALLOTTED, QC_TIMELIMIT,
};
static const struct query_table rec_table = QUERY_TABLE(rec_cols,
	"job,name,first,last,start,duration,desire,avail,allot,cpus,work,steal,"
	"sleep,preempted,class",
	"job,name,first,last,start,end,desire,avail,allot,cpus,work,steal,mug,"
	"sleep,preempted,allotted,class,cpuq");
static const struct query_table job_table = QUERY_TABLE(job_cols,
	"id,name,user,pid,start,end,elapsed,status,work,steal,mug,sleep,"
	"preempted",
	"id,name,uid,user,pid,command,start,end,elapsed,known,wstatus,status,"
	"work,steal,mug,sleep,preempted,workers,allotted");

/* The states of a job in the history, for --state and the STATE column. */
static const char *const states[] = { "running", "completed", "failed",
	"killed", "unknown", "timeout", NULL };
enum { S_RUNNING, S_COMPLETED, S_FAILED, S_KILLED, S_UNKNOWN, S_TIMEOUT };

/* A job's state: running (no end yet), timeout (asteald stopped it at its
 * time limit, however it ended then), completed (exit 0), failed (an
 * exit status other than 0), killed (by a signal), unknown (it ended and
 * nobody saw how: no supervising asteal run or submit). */
static int job_state(const Asteal__JobRecord *j)
{
	if (j->end_ns == 0)
		return S_RUNNING;
	if (j->timeout)
		return S_TIMEOUT;
	if (!j->status_known)
		return S_UNKNOWN;
	if (WIFEXITED(j->wait_status))
		return WEXITSTATUS(j->wait_status) == 0 ? S_COMPLETED : S_FAILED;
	return WIFSIGNALED(j->wait_status) ? S_KILLED : S_UNKNOWN;
}

/* Who job j is, for the cells and JSON both commands share. */
static struct query_job job_who(const Asteal__JobRecord *j)
{
	struct query_job w = { j->id, j->name, j->uid, (int)j->pid, j->command,
		states[job_state(j)], j->start_ns };

	return w;
}

/* Fill r with an allotment record's cells (raw: CSV's values). */
static void record_row(const struct hist *h, const Asteal__AllotmentRecord *a,
                       int raw, struct query_cells *r)
{
	const Asteal__JobRecord *j = hist_job(h, a->job_id);
	const struct query_val v[] = { { QC_JOB, a->job_id },
		{ QC_FIRST, a->first_quantum }, { QC_LAST, a->last_quantum },
		{ QC_START_MS, a->start_ns }, { QC_END_MS, a->end_ns },
		{ QC_DURATION, a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0 },
		{ QC_DESIRE, a->desire }, { QC_AVAIL, a->availability },
		{ QC_ALLOT, a->allotment }, { QC_CPUQ, record_cpu_quanta(a) },
		{ QC_CLASS, (uint64_t)a->quantum_class } };

	query_cells_start(r, raw);
	query_nums(r, v, sizeof(v) / sizeof(v[0]));
	if (j != NULL) {
		query_text(r, QC_NAME, j->name);
		query_num(r, QC_USER, j->uid);
	}
	/* a range of turns: AVAIL and ALLOT its means, two decimals in a
	 * table (asteal(1), "history") */
	if (record_turns(a)) {
		const int cols[] = { QC_AVAIL, QC_ALLOT };
		for (size_t k = 0; k < 2; k++) {
			if (raw)
				fmt_real(r->v[cols[k]], sizeof(r->v[0]), record_mean(a));
			else
				snprintf(r->v[cols[k]], sizeof(r->v[0]), "%.2f", record_mean(a));
			query_text(r, cols[k], r->v[cols[k]]);
		}
	}
	query_cpus(r, QC_CPUS, a->cpus, a->n_cpus);
	query_usage(r, a->usage);
}

/* Fill r with a job record's cells (raw: CSV's values). */
static void jobrec_row(const Asteal__JobRecord *j, uint64_t now, int raw,
                       struct query_cells *r)
{
	struct query_job who = job_who(j);
	uint64_t end = j->end_ns != 0 ? j->end_ns : now;
	const struct query_val v[] = { { QC_END, j->end_ns },
		{ QC_ELAPSED, end > j->start_ns ? end - j->start_ns : 0 },
		{ QC_KNOWN, j->status_known }, { QC_WORKERS, j->workers } };

	query_cells_start(r, raw);
	query_job_cells(r, &who);
	query_nums(r, v, sizeof(v) / sizeof(v[0]));
	/* no end yet: "running" in a table, empty in CSV */
	if (j->end_ns == 0)
		query_text(r, QC_END, raw ? NULL : "running");
	/* no status: "-" in a table, empty in CSV */
	if (j->status_known)
		query_text(r, QC_STATUS, fmt_wait_status(r->v[QC_STATUS], 48,
		                                         j->wait_status));
	if (j->status_known)
		query_int(r, QC_WSTATUS, (int)j->wait_status);
	/* no limit: "-" in a table, empty in CSV */
	if (j->time_limit_ns != 0)
		query_num(r, QC_TIMELIMIT, j->time_limit_ns);
	query_usage(r, j->usage);
}

/* A history as query_print's rows, and the end of its running jobs'
 * elapsed time. */
struct hist_rows {
	const struct hist *h;
	uint64_t now;
};

/* The cells of the history's allotment record i (query_cells_fn). */
static void record_cells(const void *ctx, size_t i, int raw,
                         struct query_cells *r)
{
	const struct hist_rows *v = ctx;

	record_row(v->h, v->h->recs[i], raw, r);
}

/* The cells of the job the history shows i-th (query_cells_fn). */
static void shown_cells(const void *ctx, size_t i, int raw,
                        struct query_cells *r)
{
	const struct hist_rows *v = ctx;

	jobrec_row(v->h->shown[i], v->now, raw, r);
}

/* Print h as a table in a's form and columns (jobs: its jobs, else its
 * allotment records): 0, or -1 when out of memory. */
static int hist_table(FILE *f, const struct hist *h, int jobs,
                      const struct query_args *a)
{
	struct hist_rows v = { h, a->now };

	return jobs ? query_print(f, a, h->nshown, shown_cells, &v)
	            : query_print(f, a, h->nrecs, record_cells, &v);
}

/* Keep in h only what passes a's user, name and state filters: the jobs
 * that do, and the records of those jobs. */
static void hist_filter(struct hist *h, const struct query_args *a)
{
	size_t i, k;

	for (i = k = 0; i < h->nrecs; i++) {
		const Asteal__JobRecord *j = hist_job(h, h->recs[i]->job_id);
		if (j != NULL && query_keep(a, j->uid, j->name, job_state(j)))
			h->recs[k++] = h->recs[i];
	}
	h->nrecs = k;
	for (i = k = 0; i < h->njobs; i++)
		if (query_keep(a, h->jobs[i]->uid, h->jobs[i]->name, job_state(h->jobs[i])))
			h->jobs[k++] = h->jobs[i];
	h->njobs = k;
}

/* One job record as a JSON object, named key in an object (NULL in an
 * array; now: the end of a running job's elapsed time). */
static void jobrec_json(struct json *w, const char *key, const Asteal__JobRecord *j,
                        uint64_t now)
{
	struct query_job who = job_who(j);
	uint64_t end = j->end_ns != 0 ? j->end_ns : now;

	json_object(w, key);
	query_job_json(w, &who);
	json_instant(w, "end", j->end_ns);
	json_uint(w, "elapsed_ns", end > j->start_ns ? end - j->start_ns : 0);
	json_bool(w, "running", j->end_ns == 0);
	json_exit(w, j->status_known, j->wait_status, j->timeout);
	json_usage(w, j->usage);
	json_uint(w, "workers", j->workers);
	json_uint(w, "time_limit_ns", j->time_limit_ns);        /* "0": none */
	json_end(w);
}

/* The history's records of some jobs, for `asteal show`. */
int query_history_jobs(struct client *c, const uint64_t *ids, size_t nids,
                       struct hist **out)
{
	struct hist *h = calloc(1, sizeof(*h));
	int r;

	if (h == NULL) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	if ((r = hist_fetch(c, NULL, ids, nids, 0, 0, 1, h)) != 0) {
		hist_free(h);
		free(h);
		return r;
	}
	*out = h;
	return 0;
}

/* Job id's record among them, or NULL. */
const Asteal__JobRecord *query_history_job(const struct hist *h, uint64_t id)
{
	return hist_job(h, id);
}

/* Free them. */
void query_history_free(struct hist *h)
{
	if (h != NULL)
		hist_free(h);
	free(h);
}

/* A job record's cells for people. */
void query_history_job_cells(const Asteal__JobRecord *j, uint64_t now,
                             struct query_cells *r)
{
	jobrec_row(j, now, 0, r);
}

/* A job record as JSON. */
void query_history_job_json(struct json *w, const char *key,
                            const Asteal__JobRecord *j, uint64_t now)
{
	jobrec_json(w, key, j, now);
}

/* One allotment record as a JSON object: availability and allotment are
 * the range's means (record_mean in a range of turns). */
static void record_json(struct json *w, const struct hist *h,
                        const Asteal__AllotmentRecord *a)
{
	const Asteal__JobRecord *j = hist_job(h, a->job_id);

	char user[64];

	json_object(w, NULL);
	json_uint(w, "job_id", a->job_id);
	json_str(w, "name", j != NULL ? j->name : NULL);
	json_str(w, "user", j != NULL ? fmt_user(j->uid, user, sizeof(user)) : NULL);
	json_uint(w, "first_quantum", a->first_quantum);
	json_uint(w, "last_quantum", a->last_quantum);
	json_instant(w, "start", a->start_ns);
	json_instant(w, "end", a->end_ns);
	json_uint(w, "duration_ns", a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0);
	json_uint(w, "desire", a->desire);
	if (record_turns(a)) {
		json_real(w, "availability", record_mean(a));
		json_real(w, "allotment", record_mean(a));
	} else {
		json_uint(w, "availability", a->availability);
		json_uint(w, "allotment", a->allotment);
	}
	json_u32s(w, "cpus", a->cpus, a->n_cpus);
	json_usage(w, a->usage);
	json_str(w, "quantum_class", query_class_name(a->quantum_class));
	json_uint(w, "cpu_quanta", record_cpu_quanta(a));
	json_end(w);
}

/* The history as one JSON object {"jobs": [...], "allotments": [...]},
 * an element per line (now: the end of running jobs' elapsed time). */
static void hist_json(FILE *f, const struct hist *h, uint64_t now)
{
	struct json w;
	size_t i;

	json_start(&w, f);
	json_object(&w, NULL);
	json_array(&w, "jobs", 1);
	for (i = 0; i < h->nshown; i++)
		jobrec_json(&w, NULL, h->shown[i], now);
	json_end(&w);
	json_array(&w, "allotments", 1);
	for (i = 0; i < h->nrecs; i++)
		record_json(&w, h, h->recs[i]);
	json_end(&w);
	json_end(&w);
}

/* Order JobRecord pointers by start, then id: oldest first. */
static int cmp_job_start(const void *a, const void *b)
{
	const Asteal__JobRecord *x = *(const Asteal__JobRecord *const *)a;
	const Asteal__JobRecord *y = *(const Asteal__JobRecord *const *)b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Order AllotmentRecord pointers by start, then job and quantum. */
static int cmp_rec_start(const void *a, const void *b)
{
	const Asteal__AllotmentRecord *x = *(const Asteal__AllotmentRecord *const *)a;
	const Asteal__AllotmentRecord *y = *(const Asteal__AllotmentRecord *const *)b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	return x->first_quantum < y->first_quantum ? -1
	       : x->first_quantum > y->first_quantum;
}

/* Whether ids[i] is below the id at key. */
static int id_below(const void *arr, size_t i, const void *key)
{
	return ((const uint64_t *)arr)[i] < *(const uint64_t *)key;
}

/* Put what h prints in time's order, oldest first, and keep its last
 * limit rows (0: all), as `--limit` says: with jobs, the jobs that
 * started last; else the records that started last (and in JSON the jobs
 * they name).  0, or -1 when out of memory. */
static int hist_order(struct hist *h, int jobs, size_t limit)
{
	uint64_t *named = NULL;         /* the kept records' jobs, sorted */
	size_t i, k, from, at;
	int cut = limit > 0 && !jobs;   /* records cut: their jobs only */

	if (h->nrecs > 1)
		qsort(h->recs, h->nrecs, sizeof(*h->recs), cmp_rec_start);
	if (cut && h->nrecs > limit) {
		memmove(h->recs, h->recs + (h->nrecs - limit),
		        limit * sizeof(*h->recs));
		h->nrecs = limit;
	}
	if (h->njobs == 0)
		return 0;
	if ((h->shown = malloc(h->njobs * sizeof(*h->shown))) == NULL ||
	    (cut && (named = malloc((h->nrecs + 1) * sizeof(*named))) == NULL))
		return -1;
	for (i = 0; cut && i < h->nrecs; i++)
		named[i] = h->recs[i]->job_id;
	if (cut)
		qsort(named, h->nrecs, sizeof(*named), search_cmp_u64);
	memcpy(h->shown, h->jobs, h->njobs * sizeof(*h->shown));
	qsort(h->shown, h->njobs, sizeof(*h->shown), cmp_job_start);
	from = jobs && limit > 0 && h->njobs > limit ? h->njobs - limit : 0;
	for (i = from, k = 0; i < h->njobs; i++) {
		uint64_t id = h->shown[i]->id;

		if (cut && ((at = search_first(named, h->nrecs, &id, id_below)) ==
		            h->nrecs || named[at] != id))
			continue;
		h->shown[k++] = h->shown[i];
	}
	h->nshown = k;
	free(named);
	return 0;
}

/* Draw h's records to path ("-": standard output): 0, or CLI_FAIL after
 * a message. */
static int hist_plot(const char *path, const struct hist *h, int ncpus)
{
	struct plot_input in;
	int r;

	in.jobs = (const Asteal__JobRecord *const *)h->jobs;
	in.njobs = h->njobs;
	in.recs = (const Asteal__AllotmentRecord *const *)h->recs;
	in.nrecs = h->nrecs;
	in.ncpus = ncpus;
	r = strcmp(path, "-") == 0 ? plot_write(stdout, &in) : plot_history(path, &in);
	if (r < 0) {
		cli_error("cannot write %s: %s", strcmp(path, "-") == 0
		          ? "the chart" : path, strerror(errno));
		return CLI_FAIL;
	}
	return CLI_OK;
}

#define HIST_MAX_LIMIT 1000000000       /* the most rows --limit keeps */

/* What a history query asks. */
struct hist_query {
	const uint64_t *ids;        /* only these jobs (none: all) */
	size_t nids;
	uint64_t since, until;      /* overlapping [since, until]; 0: open */
	int jobs;                   /* jobs, not allotment records */
	int plot;                   /* also allotment records for a chart */
	const char *db;             /* --db: this file, not the daemon */
};

/* Get what q asks into h (and, for a chart of a --jobs query, the
 * allotment records into hp), with the daemon's CPU count (0 from a file,
 * which does not say it): 0, or an exit code after a message.  The one
 * place history is read. */
static int hist_get(const struct cli *g, const struct hist_query *q,
                    struct hist *h, struct hist *hp, int *ncpus)
{
	struct client *c = NULL;
	struct histdb *db = NULL;
	int r;

	if ((r = q->db != NULL ? histdb_open(q->db, &db)
	                       : client_open(g->socket, &c)) != 0)
		return r;
	r = hist_fetch(c, db, q->ids, q->nids, q->since, q->until, q->jobs, h);
	/* the chart needs allotment records: --jobs asks for them apart */
	if (r == 0 && q->plot && q->jobs)
		r = hist_fetch(c, db, q->ids, q->nids, q->since, q->until, 0, hp);
	*ncpus = db != NULL ? 0 : client_ncpus(c);
	if (db != NULL)
		histdb_close(db);
	else
		client_close(c);
	return r;
}

/* What `asteal history`'s own options ask. */
struct hist_opts {
	struct hist_query q;
	const char *plot;           /* --plot: the chart's file, "-": stdout */
	unsigned long limit;        /* --limit: the last rows; 0: all */
};

/* One of `asteal history`'s own options (query_take_fn). */
static int hist_take(void *ctx, const char *cmd, int o, const char *arg)
{
	struct hist_opts *ho = ctx;
	char *end;

	switch (o) {
	case 'p':
		if (*arg == '\0')
			return cli_usage(cmd, "--plot needs a file name (- for "
			                 "standard output)");
		ho->plot = arg;
		return 0;
	case 'j':
		ho->q.jobs = 1;
		return 0;
	case 'd':
		if (*arg == '\0')
			return cli_usage(cmd, "--db needs a file name");
		ho->q.db = arg;
		return 0;
	default: /* 'l' */
		errno = 0;
		ho->limit = strtoul(arg, &end, 10);
		if (*arg < '1' || *arg > '9' || *end != '\0' || errno != 0 ||
		    ho->limit > HIST_MAX_LIMIT)
			return cli_usage(cmd, "bad --limit '%s' (a number of rows "
			                 "from 1 to %d)", arg, HIST_MAX_LIMIT);
		return 0;
	}
}

/* `asteal history [OPTIONS] [JOB...]`. */
int query_history(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "plot", required_argument, NULL, 'p' },
		{ "jobs", no_argument, NULL, 'j' },
		{ "db", required_argument, NULL, 'd' },
		{ "limit", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0];
	uint64_t ids[QUERY_MAX_IDS];
	struct hist h, hp;
	struct hist_opts ho;
	struct query_args a;
	int nids, r, ncpus = 0, to_stdout;

	memset(&ho, 0, sizeof(ho));
	query_args_init(&a, g, states);
	if ((r = query_getopt(&a, argc, argv, opts, hist_take, &ho)) != 0 ||
	    (r = query_args_done(&a, cmd, ho.q.jobs ? &job_table : &rec_table)) != 0 ||
	    a.helpformat)
		return r;
	to_stdout = ho.plot != NULL && strcmp(ho.plot, "-") == 0;
	if (to_stdout && (a.form_given || a.json || a.columns != NULL))
		return cli_usage(cmd, "--plot - writes the chart on standard output: "
		                 "no table or JSON with it");
	if ((nids = query_parse_ids(cmd, argc, argv, optind, ids)) < 0)
		return CLI_USAGE;
	/* sacct's default window: today, unless -S, -E or job ids say which */
	if (!a.since_given && !a.until_given && nids == 0 &&
	    query_parse_time("today", a.now, &a.since) < 0) {
		cli_error("cannot tell when today began");
		return CLI_FAIL;
	}
	ho.q.ids = ids;
	ho.q.nids = (size_t)nids;
	ho.q.since = a.since;
	ho.q.until = a.until;
	ho.q.plot = ho.plot != NULL;
	memset(&h, 0, sizeof(h));
	memset(&hp, 0, sizeof(hp));
	r = hist_get(g, &ho.q, &h, &hp, &ncpus);
	if (r == 0) {
		hist_filter(&h, &a);
		hist_filter(&hp, &a);
	}
	if (r == 0 && ho.plot != NULL)
		r = hist_plot(ho.plot, ho.q.jobs ? &hp : &h, ncpus);
	hist_free(&hp);
	/* the chart shows the whole window; the rows, --limit's last ones */
	if (r == 0 && hist_order(&h, ho.q.jobs, ho.limit) < 0) {
		cli_error("out of memory");
		r = CLI_FAIL;
	}
	if (r != 0) {
		hist_free(&h);
		return r;
	}
	/* with --plot alone the chart is the output; a --format adds its own */
	if (ho.plot == NULL || a.form_given || a.json) {
		if (a.json) {
			if (ho.q.jobs)
				h.nrecs = 0;
			hist_json(stdout, &h, a.now);
		} else if (hist_table(stdout, &h, ho.q.jobs, &a) < 0) {
			hist_free(&h);
			cli_error("out of memory");
			return CLI_FAIL;
		}
	}
	hist_free(&h);
	/* "plot: FILE" keeps out of JSON or CSV on stdout */
	if (ho.plot != NULL && !to_stdout)
		fprintf(a.json || a.style != TABLE_ALIGNED || !a.header ? stderr : stdout,
		        "plot: %s\n", ho.plot);
	return query_flush();
}
