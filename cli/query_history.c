/*
 * query_history.c - `asteal history`: allotment records or jobs, every
 * page of them, as a table, JSON or CSV, and an SVG chart with --plot.
 *
 * Output: aligned tables for people; with --json one JSON document.  In
 * JSON and CSV, keys and columns are the protocol's field names in
 * snake_case; instants are integers of ns since the epoch (*_ns), and
 * JSON adds them as ISO 8601 UTC strings (the same key without _ns); CSV
 * has only the integers, and an empty field where JSON has null.
 * Quantum classes are the words inefficient, satisfied and deprived.
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
#include "plot.h"
#include "qtime.h"
#include "query.h"
#include "table.h"

/* The output formats of `history`. */
enum format { FMT_TABLE, FMT_JSON, FMT_CSV };

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
 * allotment records and their jobs): 0, or an exit code. */
static int hist_fetch(struct client *c, const uint64_t *ids, size_t nids,
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
		if ((r = client_call(c, &env, ASTEAL__ENVELOPE__MSG_HISTORY, &m,
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

/* The allotment records as a table (csv: raw values, for programs):
 * NULL when out of memory. */
static struct table *records_table(const struct hist *h, int csv)
{
	static const char *const hdr[] = { ">JOB", "NAME", ">FIRST", ">LAST",
		"START", ">DURATION", ">DESIRE", ">AVAIL", ">ALLOT", "CPUS", ">WORK",
		">STEAL", ">SLEEP", ">PREEMPTED", "CLASS" };
	static const char *const csv_hdr[] = { "job_id", "name", "first_quantum",
		"last_quantum", "start_ns", "end_ns", "desire", "availability",
		"allotment", "cpus", "work_ns", "steal_ns", "mug_ns", "sleep_ns",
		"preempted_ns", "allotted_ns", "quantum_class" };
	struct table *t = csv ? table_new(csv_hdr, 17) : table_new(hdr, 15);
	char v[17][40], cpus[QUERY_CPUS_LEN];
	const char *row[17];
	size_t i;
	int k;

	for (k = 0; k < 17; k++)
		row[k] = v[k];
	for (i = 0; t != NULL && i < h->nrecs; i++) {
		const Asteal__AllotmentRecord *a = h->recs[i];
		const Asteal__JobRecord *j = hist_job(h, a->job_id);
		const char *cls = query_class_name(a->quantum_class);

		fmt_u64(v[0], 40, a->job_id);
		row[1] = j != NULL ? j->name : csv ? "" : NULL;
		fmt_u64(v[2], 40, a->first_quantum);
		fmt_u64(v[3], 40, a->last_quantum);
		snprintf(v[6], 40, "%u", a->desire);
		snprintf(v[7], 40, "%u", a->availability);
		snprintf(v[8], 40, "%u", a->allotment);
		row[9] = a->n_cpus || !csv ? fmt_cpus(cpus, sizeof(cpus), a->cpus, a->n_cpus) : "";
		if (csv) {
			fmt_u64(v[4], 40, a->start_ns);
			fmt_u64(v[5], 40, a->end_ns);
			fmt_u64(v[10], 40, a->work_ns);
			fmt_u64(v[11], 40, a->steal_ns);
			fmt_u64(v[12], 40, a->mug_ns);
			fmt_u64(v[13], 40, a->sleep_ns);
			fmt_u64(v[14], 40, a->preempted_ns);
			fmt_u64(v[15], 40, a->allotted_ns);
			row[16] = cls != NULL ? cls : "";
		} else {
			fmt_time_ms(v[4], 40, a->start_ns);
			fmt_duration(v[5], 40, a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0);
			fmt_duration(v[10], 40, a->work_ns);
			fmt_duration(v[11], 40, a->steal_ns);
			fmt_duration(v[12], 40, a->sleep_ns);
			fmt_duration(v[13], 40, a->preempted_ns);
			row[14] = cls;      /* the table's last column */
		}
		if (table_add(t, row) < 0) {
			table_free(t);
			t = NULL;
		}
	}
	return t;
}

/* The jobs as a table (csv: raw values): NULL when out of memory. */
static struct table *jobrecs_table(const struct hist *h, int csv)
{
	static const char *const hdr[] = { ">ID", "NAME", "USER", ">PID", "START",
		"END", "STATUS", ">WORK", ">STEAL", ">MUG", ">SLEEP", ">PREEMPTED" };
	static const char *const csv_hdr[] = { "id", "name", "uid", "user", "pid",
		"command", "start_ns", "end_ns", "status_known", "wait_status",
		"status", "work_ns", "steal_ns", "mug_ns", "sleep_ns", "preempted_ns",
		"workers", "allotted_ns" };
	struct table *t = csv ? table_new(csv_hdr, 18) : table_new(hdr, 12);
	char v[18][64], status[64];
	const char *row[18];
	size_t i;
	int k;

	for (k = 0; k < 18; k++)
		row[k] = v[k];
	for (i = 0; t != NULL && i < h->njobs; i++) {
		const Asteal__JobRecord *j = h->jobs[i];
		const char *st = query_exit_text(status, sizeof(status), j);

		fmt_u64(v[0], 64, j->id);
		row[1] = j->name;
		if (csv) {
			snprintf(v[2], 64, "%u", j->uid);
			fmt_user(j->uid, v[3], 64);
			snprintf(v[4], 64, "%d", (int)j->pid);
			row[5] = j->command;
			fmt_u64(v[6], 64, j->start_ns);
			v[7][0] = '\0';
			if (j->end_ns != 0)
				fmt_u64(v[7], 64, j->end_ns);
			snprintf(v[8], 64, "%d", j->status_known ? 1 : 0);
			v[9][0] = '\0';
			if (j->status_known)
				snprintf(v[9], 64, "%d", (int)j->wait_status);
			row[10] = st != NULL ? st : "";
			fmt_u64(v[11], 64, j->work_ns);
			fmt_u64(v[12], 64, j->steal_ns);
			fmt_u64(v[13], 64, j->mug_ns);
			fmt_u64(v[14], 64, j->sleep_ns);
			fmt_u64(v[15], 64, j->preempted_ns);
			snprintf(v[16], 64, "%u", j->workers);
			fmt_u64(v[17], 64, j->allotted_ns);
		} else {
			fmt_user(j->uid, v[2], 64);
			snprintf(v[3], 64, "%d", (int)j->pid);
			fmt_time(v[4], 64, j->start_ns);
			if (j->end_ns != 0)
				fmt_time(v[5], 64, j->end_ns);
			else
				snprintf(v[5], 64, "running");
			row[6] = st;        /* NULL: unknown, "-" */
			fmt_duration(v[7], 64, j->work_ns);
			fmt_duration(v[8], 64, j->steal_ns);
			fmt_duration(v[9], 64, j->mug_ns);
			fmt_duration(v[10], 64, j->sleep_ns);
			fmt_duration(v[11], 64, j->preempted_ns);
		}
		if (table_add(t, row) < 0) {
			table_free(t);
			t = NULL;
		}
	}
	return t;
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
	fprintf(f, ",\"start_ns\":%llu,\"start\":", (unsigned long long)j->start_ns);
	json_iso(f, j->start_ns);
	fprintf(f, ",\"end_ns\":%llu,\"end\":", (unsigned long long)j->end_ns);
	json_iso(f, j->end_ns);
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
	fprintf(f, ",\"first_quantum\":%llu,\"last_quantum\":%llu,\"start_ns\":%llu,"
	        "\"start\":", (unsigned long long)a->first_quantum,
	        (unsigned long long)a->last_quantum, (unsigned long long)a->start_ns);
	json_iso(f, a->start_ns);
	fprintf(f, ",\"end_ns\":%llu,\"end\":", (unsigned long long)a->end_ns);
	json_iso(f, a->end_ns);
	fprintf(f, ",\"desire\":%u,\"availability\":%u,\"allotment\":%u,\"cpus\":",
	        a->desire, a->availability, a->allotment);
	json_u32s(f, a->cpus, a->n_cpus);
	json_usage(f, a->work_ns, a->steal_ns, a->mug_ns, a->sleep_ns,
	           a->preempted_ns, a->allotted_ns);
	fputs(",\"quantum_class\":", f);
	json_string(f, query_class_name(a->quantum_class));
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

/* Draw h's records to path: 0, or CLI_FAIL after a message. */
static int hist_plot(const char *path, const struct hist *h, int ncpus)
{
	struct plot_input in;

	in.jobs = (const Asteal__JobRecord *const *)h->jobs;
	in.njobs = h->njobs;
	in.recs = (const Asteal__AllotmentRecord *const *)h->recs;
	in.nrecs = h->nrecs;
	in.ncpus = ncpus;
	if (plot_history(path, &in) < 0) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* `asteal history [JOB...] [--since T] [--until T] [--format F]
 * [--plot FILE.svg] [--jobs]`. */
int query_history(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "until", required_argument, NULL, 'u' },
		{ "format", required_argument, NULL, 'f' },
		{ "plot", required_argument, NULL, 'p' },
		{ "jobs", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0], *plot = NULL;
	uint64_t ids[QUERY_MAX_IDS], since = 0, until = 0, now = qtime_wall_ns();
	struct hist h, hp;
	struct client *c = NULL;
	struct table *t;
	enum format fmt = g->json ? FMT_JSON : FMT_TABLE;
	int jobs = 0, fmt_given = g->json, nids, o, r;

	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (o) {
		case 's':
		case 'u':
			if (query_parse_time(optarg, now, o == 's' ? &since : &until) < 0)
				return cli_usage(cmd, "bad time '%s' for --%s (now, -30s, -5m, "
				                 "-2h, -1d, @EPOCH, YYYY-MM-DD or "
				                 "YYYY-MM-DDTHH:MM[:SS])", optarg,
				                 o == 's' ? "since" : "until");
			break;
		case 'f':
			if (strcmp(optarg, "table") == 0)
				fmt = FMT_TABLE;
			else if (strcmp(optarg, "json") == 0)
				fmt = FMT_JSON;
			else if (strcmp(optarg, "csv") == 0)
				fmt = FMT_CSV;
			else
				return cli_usage(cmd, "unknown format '%s' (table, json or csv)",
				                 optarg);
			fmt_given = 1;
			break;
		case 'p':
			if (*optarg == '\0')
				return cli_usage(cmd, "--plot needs a file name");
			plot = optarg;
			break;
		case 'j':
			jobs = 1;
			break;
		default:
			return query_bad_option(cmd, o, argv);
		}
	}
	if (since != 0 && until != 0 && since > until)
		return cli_usage(cmd, "--since is after --until");
	if ((nids = query_parse_ids(cmd, argc, argv, optind, ids)) < 0)
		return CLI_USAGE;
	if ((r = client_open(g->socket, &c)) != 0)
		return r;
	memset(&h, 0, sizeof(h));
	memset(&hp, 0, sizeof(hp));
	r = hist_fetch(c, ids, (size_t)nids, since, until, jobs, &h);
	/* the chart needs allotment records: --jobs asks for them apart */
	if (r == 0 && plot != NULL && jobs)
		r = hist_fetch(c, ids, (size_t)nids, since, until, 0, &hp);
	if (r == 0 && plot != NULL)
		r = hist_plot(plot, jobs ? &hp : &h, client_ncpus(c));
	client_close(c);
	hist_free(&hp);
	if (r != 0) {
		hist_free(&h);
		return r;
	}
	/* with --plot alone the chart is the output; a --format adds its own */
	if (plot == NULL || fmt_given) {
		if (fmt == FMT_JSON) {
			if (jobs)
				h.nrecs = 0;
			hist_json(stdout, &h);
		} else {
			t = jobs ? jobrecs_table(&h, fmt == FMT_CSV)
			         : records_table(&h, fmt == FMT_CSV);
			if (t == NULL) {
				hist_free(&h);
				cli_error("out of memory");
				return CLI_FAIL;
			}
			if (fmt == FMT_CSV)
				table_csv(t, stdout);
			else
				table_print(t, stdout);
			table_free(t);
		}
	}
	hist_free(&h);
	/* "plot: FILE" keeps out of JSON or CSV on stdout */
	if (plot != NULL)
		fprintf(fmt_given && fmt != FMT_TABLE ? stderr : stdout, "plot: %s\n", plot);
	return query_flush();
}
