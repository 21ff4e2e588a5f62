/*
 * query_show.c - `asteal show JOB...`: all that is known of each job, as
 * `scontrol show job` gives it: what the daemon says of it while it runs
 * (the cells `jobs` has for it) and its record in the history (those of
 * `history --jobs`), each a "FIELD  value" line under a heading; with
 * --json, one object per job with both ("running" and "history", null
 * where there is none).  A job neither running nor in the history is
 * said on standard error and makes the exit status 1.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "frame.h"
#include "qtime.h"
#include "query.h"
#include "table.h"

/* The running job id among the jobs of rep, or NULL. */
static const Asteal__JobInfo *running(const Asteal__Envelope *rep, uint64_t id)
{
	for (size_t i = 0; i < rep->jobs->n_jobs; i++)
		if (rep->jobs->jobs[i]->id == id)
			return rep->jobs->jobs[i];
	return NULL;
}

/* Print r's cells that have a value, a "FIELD  value" line each, in the
 * columns' order, under the heading title: 0, or -1 out of memory. */
static int section(const char *title, const struct query_cells *r)
{
	static const char *const headers[] = { "FIELD", "VALUE" };
	struct table *t = table_new(headers, 2);
	int rc = 0;

	if (t == NULL)
		return -1;
	table_set_shrink(t, 1, TABLE_SHRINK_WRAP);  /* a long value: more lines */
	printf("%s\n", title);
	for (int k = 0; k < QC_NCOLS && rc == 0; k++) {
		char name[32];
		const char *row[2] = { name, r->cell[k] };

		if (r->cell[k] == NULL)
			continue;
		snprintf(name, sizeof(name), "  %s", query_cols[k].name);
		rc = table_add(t, row);
	}
	if (rc == 0)
		rc = table_write(t, stdout, TABLE_ALIGNED, 0);
	table_free(t);
	return rc;
}

/* Show one job (its running state j, its record h: either may be NULL)
 * as text: 0, or -1 out of memory. */
static int show_text(uint64_t id, const Asteal__JobInfo *j,
                     const Asteal__JobRecord *h, uint64_t now, int first)
{
	struct query_cells *r = malloc(sizeof(*r));
	char title[64];
	int rc = 0;

	if (r == NULL)
		return -1;
	if (!first)
		putchar('\n');
	if (j != NULL) {
		snprintf(title, sizeof(title), "job %llu, running (asteal jobs):",
		         (unsigned long long)id);
		query_jobs_cells(j, now, r);
		rc = section(title, r);
	}
	if (h != NULL && rc == 0) {
		snprintf(title, sizeof(title), "job %llu, in the history (asteal "
		         "history --jobs):", (unsigned long long)id);
		query_history_job_cells(h, now, r);
		rc = section(title, r);
	}
	free(r);
	return rc;
}

/* `asteal show JOB...`. */
int query_show(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = { { NULL, 0, NULL, 0 } };
	uint64_t ids[QUERY_MAX_IDS], now = qtime_wall_ns();
	Asteal__Envelope *rep = NULL;
	struct hist *hist = NULL;
	struct client *c = NULL;
	struct json w;
	int n, o, code = CLI_OK;

	while ((o = getopt_long(argc, argv, "+", opts, NULL)) != -1)
		return query_bad_option("show", o, argv);
	if (optind >= argc)
		return cli_usage("show", "expected a JOB (or several)");
	if ((n = query_parse_ids("show", argc, argv, optind, ids)) < 0)
		return CLI_USAGE;
	if ((code = client_open(g->socket, &c)) != 0)
		return code;
	if ((code = query_jobs_fetch(c, ids, (size_t)n, &rep)) != 0 ||
	    (code = query_history_jobs(c, ids, (size_t)n, &hist)) != 0)
		goto out;
	if (g->json) {
		json_start(&w, stdout);
		json_array(&w, NULL, 1);
	}
	for (int i = 0; i < n; i++) {
		const Asteal__JobInfo *j = running(rep, ids[i]);
		const Asteal__JobRecord *h = query_history_job(hist, ids[i]);

		if (j == NULL && h == NULL) {
			cli_error("job %llu: no such job, running or in the history",
			          (unsigned long long)ids[i]);
			code = CLI_FAIL;
			continue;
		}
		if (g->json) {
			json_object(&w, NULL);
			json_uint(&w, "id", ids[i]);
			if (j != NULL)
				query_jobs_json(&w, "running", j, now);
			else
				json_null(&w, "running");
			if (h != NULL)
				query_history_job_json(&w, "history", h, now);
			else
				json_null(&w, "history");
			json_end(&w);
		} else if (show_text(ids[i], j, h, now, i == 0) < 0) {
			cli_error("out of memory");
			code = CLI_FAIL;
			break;
		}
	}
	if (g->json)
		json_end(&w);
	if (code == CLI_OK || code == CLI_FAIL) {
		int flushed = query_flush();
		if (flushed != CLI_OK)
			code = flushed;
	}
out:
	frame_free(rep);
	query_history_free(hist);
	client_close(c);
	return code;
}
