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
 * failed, killed and unknown.  hist_get is the one place the history is
 * read, from the daemon or, with --db, from the file (histdb.c).
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
#include "table.h"

/* Every page of a history query and the records they hold. */
struct hist {
	Asteal__Envelope **pages;
	size_t npages, cap;
	const Asteal__JobRecord **jobs;             /* by id, no repeats */
	size_t njobs, capj;
	const Asteal__AllotmentRecord **recs;       /* in the daemon's order */
	size_t nrecs, capr;
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

/* The job with id in h, or NULL. */
static const Asteal__JobRecord *hist_job(const struct hist *h, uint64_t id)
{
	size_t lo = 0, hi = h->njobs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->jobs[mid]->id == id)
			return h->jobs[mid];
		if (h->jobs[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The columns of `history` (allotment records) and of `history --jobs`
 * (asteal(1) explains each). */
enum {
	R_JOB, R_NAME, R_USER, R_FIRST, R_LAST, R_START, R_END, R_DURATION,
	R_DESIRE, R_AVAIL, R_ALLOT, R_CPUS, R_WORK, R_STEAL, R_MUG, R_SLEEP,
	R_PREEMPTED, R_ALLOTTED, R_CLASS, R_CPUQ, NRCOLS
};
static const struct query_col rec_cols[NRCOLS] = {
	{ "JOB", "job_id", 1 }, { "NAME", "name", 0 }, { "USER", "user", 0 },
	{ "FIRST", "first_quantum", 1 }, { "LAST", "last_quantum", 1 },
	{ "START", "start_ns", 0 }, { "END", "end_ns", 0 },
	{ "DURATION", "duration_ns", 1 }, { "DESIRE", "desire", 1 },
	{ "AVAIL", "availability", 1 }, { "ALLOT", "allotment", 1 },
	{ "CPUS", "cpus", 0 }, { "WORK", "work_ns", 1 }, { "STEAL", "steal_ns", 1 },
	{ "MUG", "mug_ns", 1 }, { "SLEEP", "sleep_ns", 1 },
	{ "PREEMPTED", "preempted_ns", 1 }, { "ALLOTTED", "allotted_ns", 1 },
	{ "CLASS", "quantum_class", 0 }, { "CPUQ", "cpu_quanta", 1 },
};
#define REC_TABLE "job,name,first,last,start,duration,desire,avail,allot," \
	"cpus,work,steal,sleep,preempted,class"
#define REC_CSV "job,name,first,last,start,end,desire,avail,allot,cpus,work," \
	"steal,mug,sleep,preempted,allotted,class,cpuq"

enum {
	J_ID, J_NAME, J_USER, J_UID, J_PID, J_COMMAND, J_START, J_END, J_ELAPSED,
	J_STATE, J_STATUS, J_KNOWN, J_WSTATUS, J_WORK, J_STEAL, J_MUG, J_SLEEP,
	J_PREEMPTED, J_WORKERS, J_ALLOTTED, NJCOLS
};
static const struct query_col job_cols[NJCOLS] = {
	{ "ID", "id", 1 }, { "NAME", "name", 0 }, { "USER", "user", 0 },
	{ "UID", "uid", 1 }, { "PID", "pid", 1 }, { "COMMAND", "command", 0 },
	{ "START", "start_ns", 0 }, { "END", "end_ns", 0 },
	{ "ELAPSED", "elapsed_ns", 1 }, { "STATE", "state", 0 },
	{ "STATUS", "status", 0 }, { "KNOWN", "status_known", 0 },
	{ "WSTATUS", "wait_status", 1 }, { "WORK", "work_ns", 1 },
	{ "STEAL", "steal_ns", 1 }, { "MUG", "mug_ns", 1 },
	{ "SLEEP", "sleep_ns", 1 }, { "PREEMPTED", "preempted_ns", 1 },
	{ "WORKERS", "workers", 1 }, { "ALLOTTED", "allotted_ns", 1 },
};
#define JOB_TABLE "id,name,user,pid,start,end,status,work,steal,mug,sleep," \
	"preempted"
#define JOB_CSV "id,name,uid,user,pid,command,start,end,known,wstatus," \
	"status,work,steal,mug,sleep,preempted,workers,allotted"

/* The states of a job in the history, for --state and the STATE column. */
static const char *const states[] = { "running", "completed", "failed",
	"killed", "unknown", NULL };
enum { S_RUNNING, S_COMPLETED, S_FAILED, S_KILLED, S_UNKNOWN };

/* A job's state: running (no end yet), completed (exit 0), failed (an
 * exit status other than 0), killed (by a signal), unknown (it ended and
 * nobody saw how: no supervising asteal run or submit). */
static int job_state(const Asteal__JobRecord *j)
{
	if (j->end_ns == 0)
		return S_RUNNING;
	if (!j->status_known)
		return S_UNKNOWN;
	if (WIFEXITED(j->wait_status))
		return WEXITSTATUS(j->wait_status) == 0 ? S_COMPLETED : S_FAILED;
	return WIFSIGNALED(j->wait_status) ? S_KILLED : S_UNKNOWN;
}

/* One row's cells, every column of either table. */
struct row {
	const char *cell[(int)NRCOLS > (int)NJCOLS ? (int)NRCOLS : (int)NJCOLS];
	char v[(int)NRCOLS > (int)NJCOLS ? (int)NRCOLS : (int)NJCOLS][48];
	char cpus[QUERY_CPUS_LEN];
};

/* A duration or, raw, its ns into buf. */
static char *duration(char *buf, uint64_t ns, int raw)
{
	return raw ? fmt_u64(buf, 48, ns) : fmt_duration(buf, 48, ns);
}

/* Fill r with an allotment record's cells (raw: CSV's values). */
static void record_row(const struct hist *h, const Asteal__AllotmentRecord *a,
                       int raw, struct row *r)
{
	const Asteal__JobRecord *j = hist_job(h, a->job_id);
	uint64_t usage[] = { a->work_ns, a->steal_ns, a->mug_ns, a->sleep_ns,
		a->preempted_ns, a->allotted_ns };
	int k;

	for (k = 0; k < NRCOLS; k++)
		r->cell[k] = r->v[k];
	fmt_u64(r->v[R_JOB], 48, a->job_id);
	r->cell[R_NAME] = j != NULL ? j->name : NULL;
	r->cell[R_USER] = j != NULL ? fmt_user(j->uid, r->v[R_USER], 48) : NULL;
	fmt_u64(r->v[R_FIRST], 48, a->first_quantum);
	fmt_u64(r->v[R_LAST], 48, a->last_quantum);
	if (raw) {
		fmt_u64(r->v[R_START], 48, a->start_ns);
		fmt_u64(r->v[R_END], 48, a->end_ns);
	} else {
		fmt_time_ms(r->v[R_START], 48, a->start_ns);
		fmt_time_ms(r->v[R_END], 48, a->end_ns);
	}
	duration(r->v[R_DURATION], a->end_ns > a->start_ns ? a->end_ns - a->start_ns
	         : 0, raw);
	snprintf(r->v[R_DESIRE], 48, "%u", a->desire);
	snprintf(r->v[R_AVAIL], 48, "%u", a->availability);
	/* a run of turns: its mean in a table, its lower value raw */
	if (!raw && plot_mean_allotment(a) > a->allotment)
		snprintf(r->v[R_ALLOT], 48, "%.2f", plot_mean_allotment(a));
	else
		snprintf(r->v[R_ALLOT], 48, "%u", a->allotment);
	fmt_u64(r->v[R_CPUQ], 48, plot_cpu_quanta(a));
	r->cell[R_CPUS] = a->n_cpus > 0 ? fmt_cpus(r->cpus, sizeof(r->cpus), a->cpus,
	                                           a->n_cpus) : NULL;
	for (k = 0; k < 6; k++)
		duration(r->v[R_WORK + k], usage[k], raw);
	r->cell[R_CLASS] = query_class_name(a->quantum_class);
}

/* Fill r with a job record's cells (raw: CSV's values). */
static void jobrec_row(const Asteal__JobRecord *j, uint64_t now, int raw,
                       struct row *r)
{
	uint64_t usage[] = { j->work_ns, j->steal_ns, j->mug_ns, j->sleep_ns,
		j->preempted_ns };
	uint64_t end = j->end_ns != 0 ? j->end_ns : now;
	int k;

	for (k = 0; k < NJCOLS; k++)
		r->cell[k] = r->v[k];
	fmt_u64(r->v[J_ID], 48, j->id);
	r->cell[J_NAME] = j->name;
	fmt_user(j->uid, r->v[J_USER], 48);
	snprintf(r->v[J_UID], 48, "%u", j->uid);
	snprintf(r->v[J_PID], 48, "%d", (int)j->pid);
	r->cell[J_COMMAND] = j->command;
	if (raw) {
		fmt_u64(r->v[J_START], 48, j->start_ns);
		fmt_u64(r->v[J_END], 48, j->end_ns);
		if (j->end_ns == 0)
			r->cell[J_END] = NULL;
	} else {
		fmt_time(r->v[J_START], 48, j->start_ns);
		if (j->end_ns != 0)
			fmt_time(r->v[J_END], 48, j->end_ns);
		else
			r->cell[J_END] = "running";
	}
	duration(r->v[J_ELAPSED], end > j->start_ns ? end - j->start_ns : 0, raw);
	r->cell[J_STATE] = states[job_state(j)];
	/* no status: "-" in a table, empty in CSV */
	r->cell[J_STATUS] = query_exit_text(r->v[J_STATUS], 48, j);
	r->cell[J_KNOWN] = raw ? (j->status_known ? "1" : "0")
	                   : (j->status_known ? "yes" : "no");
	snprintf(r->v[J_WSTATUS], 48, "%d", (int)j->wait_status);
	if (!j->status_known)
		r->cell[J_WSTATUS] = NULL;
	for (k = 0; k < 5; k++)
		duration(r->v[J_WORK + k], usage[k], raw);
	snprintf(r->v[J_WORKERS], 48, "%u", j->workers);
	duration(r->v[J_ALLOTTED], j->allotted_ns, raw);
}

/* Print h as a table in a's form and columns (jobs: its jobs, else its
 * allotment records): 0, or -1 when out of memory. */
static int hist_table(FILE *f, const struct hist *h, int jobs,
                      const struct query_args *a)
{
	struct table *t = query_table(a, jobs ? job_cols : rec_cols);
	struct row *r = malloc(sizeof(*r));
	int raw = a->style == TABLE_CSV, rc = -1;
	size_t i;

	if (t == NULL || r == NULL)
		goto out;
	for (i = 0; i < (jobs ? h->njobs : h->nrecs); i++) {
		if (jobs)
			jobrec_row(h->jobs[i], a->now, raw, r);
		else
			record_row(h, h->recs[i], raw, r);
		if (query_row(t, a, r->cell) < 0)
			goto out;
	}
	table_write(t, f, a->style, a->header);
	rc = 0;
out:
	free(r);
	table_free(t);
	return rc;
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

/* One job record as a JSON object. */
static void jobrec_json(FILE *f, const Asteal__JobRecord *j)
{
	char user[64], status[64];
	int st = j->wait_status;

	fprintf(f, "{\"id\":%llu,\"name\":", (unsigned long long)j->id);
	json_string(f, j->name);
	fprintf(f, ",\"uid\":%u,\"user\":", j->uid);
	json_string(f, fmt_user(j->uid, user, sizeof(user)));
	fprintf(f, ",\"pid\":%d,\"command\":", (int)j->pid);
	json_string(f, j->command);
	fputs(",\"state\":", f);
	json_string(f, states[job_state(j)]);
	json_instant(f, "start", j->start_ns);
	json_instant(f, "end", j->end_ns);
	fprintf(f, ",\"running\":%s,\"status_known\":%s,\"wait_status\":",
	        j->end_ns ? "false" : "true", j->status_known ? "true" : "false");
	if (j->status_known)
		fprintf(f, "%d,\"exit_code\":", (int)st);
	else
		fputs("null,\"exit_code\":", f);
	if (j->status_known && WIFEXITED(st))
		fprintf(f, "%d,\"signal\":", WEXITSTATUS(st));
	else
		fputs("null,\"signal\":", f);
	if (j->status_known && WIFSIGNALED(st))
		fprintf(f, "%d,\"status\":", WTERMSIG(st));
	else
		fputs("null,\"status\":", f);
	json_string(f, query_exit_text(status, sizeof(status), j));
	json_usage(f, j->work_ns, j->steal_ns, j->mug_ns, j->sleep_ns,
	           j->preempted_ns, j->allotted_ns);
	fprintf(f, ",\"workers\":%u}", j->workers);
}

/* One allotment record as a JSON object. */
static void record_json(FILE *f, const struct hist *h,
                        const Asteal__AllotmentRecord *a)
{
	const Asteal__JobRecord *j = hist_job(h, a->job_id);

	fprintf(f, "{\"job_id\":%llu,\"name\":", (unsigned long long)a->job_id);
	json_string(f, j != NULL ? j->name : NULL);
	fprintf(f, ",\"first_quantum\":%llu,\"last_quantum\":%llu",
	        (unsigned long long)a->first_quantum,
	        (unsigned long long)a->last_quantum);
	json_instant(f, "start", a->start_ns);
	json_instant(f, "end", a->end_ns);
	fprintf(f, ",\"desire\":%u,\"availability\":%u,\"allotment\":%u,\"cpus\":",
	        a->desire, a->availability, a->allotment);
	json_u32s(f, a->cpus, a->n_cpus);
	json_usage(f, a->work_ns, a->steal_ns, a->mug_ns, a->sleep_ns,
	           a->preempted_ns, a->allotted_ns);
	fputs(",\"quantum_class\":", f);
	json_string(f, query_class_name(a->quantum_class));
	fprintf(f, ",\"cpu_quanta\":%llu,\"mean_allotment\":%.4f",
	        (unsigned long long)plot_cpu_quanta(a),
	        plot_mean_allotment(a));
	fputc('}', f);
}

/* The history as one JSON object {"jobs": [...], "allotments": [...]},
 * an element per line. */
static void hist_json(FILE *f, const struct hist *h)
{
	size_t i;

	fputs("{\"jobs\":[", f);
	for (i = 0; i < h->njobs; i++) {
		fputs(i ? ",\n" : "\n", f);
		jobrec_json(f, h->jobs[i]);
	}
	fputs(h->njobs ? "\n],\"allotments\":[" : "],\"allotments\":[", f);
	for (i = 0; i < h->nrecs; i++) {
		fputs(i ? ",\n" : "\n", f);
		record_json(f, h, h->recs[i]);
	}
	fputs(h->nrecs ? "\n]}\n" : "]}\n", f);
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

/* `asteal history [OPTIONS] [JOB...]`. */
int query_history(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "plot", required_argument, NULL, 'p' },
		{ "jobs", no_argument, NULL, 'j' },
		{ "db", required_argument, NULL, 'd' },
		QUERY_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0], *plot = NULL;
	uint64_t ids[QUERY_MAX_IDS];
	struct hist h, hp;
	struct hist_query q;
	struct query_args a;
	int nids, o, r, ncpus = 0, to_stdout;

	memset(&q, 0, sizeof(q));
	query_args_init(&a, g, states);
	while ((o = getopt_long(argc, argv, ":" QUERY_SHORT, opts, NULL)) != -1) {
		switch (o) {
		case 'p':
			if (*optarg == '\0')
				return cli_usage(cmd, "--plot needs a file name (- for "
				                 "standard output)");
			plot = optarg;
			break;
		case 'j':
			q.jobs = 1;
			break;
		case 'd':
			if (*optarg == '\0')
				return cli_usage(cmd, "--db needs a file name");
			q.db = optarg;
			break;
		default:
			if ((r = query_option(&a, cmd, o, optarg)) < 0)
				return query_bad_option(cmd, o, argv);
			if (r > 0)
				return r;
		}
	}
	if ((r = query_args_done(&a, cmd, q.jobs ? job_cols : rec_cols,
	                         q.jobs ? NJCOLS : NRCOLS, q.jobs ? JOB_TABLE : REC_TABLE,
	                         q.jobs ? JOB_CSV : REC_CSV)) != 0)
		return r;
	to_stdout = plot != NULL && strcmp(plot, "-") == 0;
	if (to_stdout && (a.form_given || a.json || a.columns != NULL))
		return cli_usage(cmd, "--plot - writes the chart on standard output: "
		                 "no table or JSON with it");
	if ((nids = query_parse_ids(cmd, argc, argv, optind, ids)) < 0)
		return CLI_USAGE;
	q.ids = ids;
	q.nids = (size_t)nids;
	q.since = a.since;
	q.until = a.until;
	q.plot = plot != NULL;
	memset(&h, 0, sizeof(h));
	memset(&hp, 0, sizeof(hp));
	r = hist_get(g, &q, &h, &hp, &ncpus);
	if (r == 0) {
		hist_filter(&h, &a);
		hist_filter(&hp, &a);
	}
	if (r == 0 && plot != NULL)
		r = hist_plot(plot, q.jobs ? &hp : &h, ncpus);
	hist_free(&hp);
	if (r != 0) {
		hist_free(&h);
		return r;
	}
	/* with --plot alone the chart is the output; a --format adds its own */
	if (plot == NULL || a.form_given || a.json) {
		if (a.json) {
			if (q.jobs)
				h.nrecs = 0;
			hist_json(stdout, &h);
		} else if (hist_table(stdout, &h, q.jobs, &a) < 0) {
			hist_free(&h);
			cli_error("out of memory");
			return CLI_FAIL;
		}
	}
	hist_free(&h);
	/* "plot: FILE" keeps out of JSON or CSV on stdout */
	if (plot != NULL && !to_stdout)
		fprintf(a.json || a.style != TABLE_ALIGNED || !a.header ? stderr : stdout,
		        "plot: %s\n", plot);
	return query_flush();
}
