/*
 * query_jobs.c - `asteal jobs`: the running jobs, once, or refreshed like
 * top with --watch (watch.c, which draws the frames this file renders:
 * query_jobs_render).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "frame.h"
#include "qtime.h"
#include "query.h"
#include "table.h"
#include "watch.h"

/* Order JobInfo pointers by id. */
static int cmp_jobinfo(const void *a, const void *b)
{
	const Asteal__JobInfo *x = *(const Asteal__JobInfo *const *)a;
	const Asteal__JobInfo *y = *(const Asteal__JobInfo *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Ask for the running jobs (ids: only these), page after page: 0 with
 * *reply (all its pages' jobs, sorted by id), or an exit code.  The
 * pages after the first give their jobs to the first one's array (each
 * decoded message is plain malloc'd memory, frame_free frees the
 * elements it finds in the array). */
int query_jobs_fetch(struct client *c, const uint64_t *ids, size_t nids,
                     Asteal__Envelope **reply)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__JobsRequest req = ASTEAL__JOBS_REQUEST__INIT;
	Asteal__Jobs *all;
	size_t cap;
	int r;

	req.ids = (uint64_t *)ids;
	req.n_ids = nids;
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	env.jobs_request = &req;
	r = client_call(c, &env, ASTEAL__ENVELOPE__MSG_JOBS, reply, CLIENT_REPLY_MS);
	if (r != 0)
		return r;
	all = (*reply)->jobs;
	cap = all->n_jobs;
	while (all->more) {
		if (all->n_jobs == 0 || all->jobs[all->n_jobs - 1]->id <= req.after) {
			cli_error("asteald sent a jobs page with more to follow "
			          "but no place after this one to go on from");
			r = CLI_FAIL;
			break;
		}
		req.after = all->jobs[all->n_jobs - 1]->id;
		if ((r = client_call(c, &env, ASTEAL__ENVELOPE__MSG_JOBS, &m,
		                     CLIENT_REPLY_MS)) != 0)
			break;
		for (size_t i = 0; i < m->jobs->n_jobs && r == 0; i++) {
			if (frame_grow(&all->jobs, sizeof(*all->jobs), all->n_jobs,
			               &cap, 64) < 0) {
				cli_error("out of memory");
				r = CLI_FAIL;
				/* the rest stay in m, which frees them */
				memmove(m->jobs->jobs, m->jobs->jobs + i,
				        (m->jobs->n_jobs - i) * sizeof(*m->jobs->jobs));
				m->jobs->n_jobs -= i;
				break;
			}
			all->jobs[all->n_jobs++] = m->jobs->jobs[i];
		}
		if (r == 0)
			m->jobs->n_jobs = 0;
		all->more = m->jobs->more;
		frame_free(m);
		if (r != 0)
			break;
	}
	if (r != 0) {
		frame_free(*reply);
		*reply = NULL;
		return r;
	}
	if (all->n_jobs > 1)
		qsort(all->jobs, all->n_jobs, sizeof(*all->jobs), cmp_jobinfo);
	return 0;
}

/* The columns of `jobs`, in its order, with those a table and CSV show
 * by default. */
static const int cols[] = {
	QC_ID, QC_NAME, QC_USER, QC_UID, QC_PID, QC_STATE, QC_DESIRE, QC_AVAIL,
	QC_ALLOT, QC_CPUS, QC_CAP, QC_RIGID, QC_HELD, QC_WORKERS, QC_START,
	QC_AGE, QC_EFF, QC_CLASS, QC_WORK, QC_STEAL, QC_MUG, QC_SLEEP,
	QC_PREEMPTED, QC_ALLOTTED, QC_CPUTIME, QC_COMMAND,
};
static const struct query_table columns = QUERY_TABLE(cols,
	"id,name,user,pid,desire,allot,cpus,cap,held,age,eff",
	"id,name,user,uid,pid,state,desire,avail,allot,cpus,cap,rigid,held,"
	"workers,start,age,eff,class,work,steal,mug,sleep,preempted,allotted,"
	"cputime,command");

/* The states of a running job, for --state and the STATE column. */
const char *const query_jobs_states[] = { "running", "waiting", "idle",
	"unmanaged", "stopped", NULL };
enum { S_RUNNING, S_WAITING, S_IDLE, S_UNMANAGED, S_STOPPED };

/* Whether process pid is stopped (SIGSTOP, SIGTSTP, a tracer), as its
 * /proc/PID/stat says on this machine; no when it cannot be read. */
static int stopped(int pid)
{
	char path[64], buf[512], *paren;
	FILE *f;
	size_t n;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "PID (COMM) S ...": the command may hold spaces and parentheses */
	paren = strrchr(buf, ')');
	return paren != NULL && paren[1] == ' ' && (paren[2] == 'T' || paren[2] == 't');
}

/* A job's state: unmanaged (a program the daemon does not schedule),
 * stopped (its process is, whatever it holds), running (it holds CPUs),
 * waiting (it wants some and holds none), idle (it wants none: nothing
 * to run). */
int query_jobs_state(const Asteal__JobInfo *j)
{
	return j->unmanaged ? S_UNMANAGED : stopped((int)j->pid) ? S_STOPPED
	       : j->allotment > 0 ? S_RUNNING : j->desire > 0 ? S_WAITING : S_IDLE;
}

/* Who job j is, for the cells and JSON both commands share. */
static struct query_job job_who(const Asteal__JobInfo *j)
{
	struct query_job w = { j->id, j->name, j->uid, (int)j->pid, j->command,
		query_jobs_states[query_jobs_state(j)], j->start_ns };

	return w;
}

/* Fill r with job j's cells: for people (what the table shows; NULL is
 * "-": no such value) or raw (CSV: integers, ns, fractions). */
static void job_row(const Asteal__JobInfo *j, uint64_t now, int raw,
                    struct query_cells *r)
{
	struct query_job who = job_who(j);
	const struct query_val v[] = { { QC_DESIRE, j->desire },
		{ QC_AVAIL, j->availability }, { QC_ALLOT, j->allotment },
		{ QC_RIGID, j->rigid }, { QC_WORKERS, j->workers },
		{ QC_CLASS, (uint64_t)j->quantum_class }, { QC_CPUTIME, j->cpu_ns } };
	uint64_t allotted = j->usage != NULL ? j->usage->allotted_ns : 0;
	double eff = NAN;

	query_cells_start(r, raw);
	query_job_cells(r, &who);
	query_num(r, QC_AGE, now > j->start_ns ? now - j->start_ns : 0);
	if (j->unmanaged)           /* the daemon knows none of the rest */
		return;
	query_nums(r, v, sizeof(v) / sizeof(v[0]));
	query_cpus(r, QC_CPUS, j->cpus, j->n_cpus);
	if (j->cpus_cap > 0) {
		snprintf(r->v[QC_CAP], 48, raw ? "%u" : "%u%s", j->cpus_cap,
		         j->rigid ? " rigid" : "");
		query_text(r, QC_CAP, r->v[QC_CAP]);
	}
	/* "failed: why" is for CSV and --json; the table says failed */
	if (*j->confinement != '\0') {
		snprintf(r->v[QC_HELD], 48, "%.*s", (int)strcspn(j->confinement, ":"),
		         j->confinement);
		query_text(r, QC_HELD, raw ? j->confinement : r->v[QC_HELD]);
	}
	/* a rigid job: its CPU time against its allotment */
	if (j->rigid && allotted > 0)
		eff = (double)j->cpu_ns / (double)allotted;
	else if (allotted > 0 && isfinite(j->efficiency))
		eff = j->efficiency;
	if (isfinite(eff)) {
		snprintf(r->v[QC_EFF], 48, raw ? "%.4f" : "%.0f%%", raw ? eff : eff * 100);
		query_text(r, QC_EFF, r->v[QC_EFF]);
	}
	query_usage(r, j->usage);
}

/* Jobs as query_print's rows, and the instant their ages run to. */
struct jobs_rows {
	const Asteal__Jobs *js;
	uint64_t now;
};

/* The cells of job i (query_cells_fn). */
static void job_cells(const void *ctx, size_t i, int raw, struct query_cells *r)
{
	const struct jobs_rows *v = ctx;

	job_row(v->js->jobs[i], v->now, raw, r);
}

/* Print the jobs as a table in a's form and columns: 0, or -1 when out
 * of memory. */
static int jobs_table(FILE *f, const Asteal__Jobs *js, uint64_t now,
                      const struct query_args *a)
{
	struct jobs_rows v = { js, now };

	return query_print(f, a, js->n_jobs, job_cells, &v);
}

/* Keep in out the jobs of in that pass a's filters (the user, name,
 * state and start time), into buf (room for all of in's). */
static void jobs_filter(const struct query_args *a, const Asteal__Jobs *in,
                        Asteal__Jobs *out, Asteal__JobInfo **buf)
{
	size_t i;

	*out = *in;
	out->jobs = buf;
	out->n_jobs = 0;
	for (i = 0; i < in->n_jobs; i++) {
		const Asteal__JobInfo *j = in->jobs[i];
		if (query_keep(a, j->uid, j->name, query_jobs_state(j)) &&
		    (a->since == 0 || j->start_ns >= a->since) &&
		    (a->until == 0 || j->start_ns <= a->until))
			buf[out->n_jobs++] = in->jobs[i];
	}
}

/* Print the jobs as a JSON array, a line per job (lines) or all on one
 * line (now: for their ages). */
static void jobs_json(FILE *f, const Asteal__Jobs *js, uint64_t now, int lines)
{
	struct json w;
	size_t i;

	json_start(&w, f);
	json_array(&w, NULL, lines);
	for (i = 0; i < js->n_jobs; i++)
		query_jobs_json(&w, NULL, js->jobs[i], now);
	json_end(&w);
}

/* One running job as a JSON object, named key in an object (NULL in an
 * array; now: for its age). */
void query_jobs_json(struct json *w, const char *key, const Asteal__JobInfo *j,
                     uint64_t now)
{
	{
		struct query_job who = job_who(j);

		json_object(w, key);
		query_job_json(w, &who);
		json_uint(w, "age_ns", now > j->start_ns ? now - j->start_ns : 0);
		json_uint(w, "desire", j->desire);
		json_uint(w, "allotment", j->allotment);
		json_uint(w, "availability", j->availability);
		json_u32s(w, "cpus", j->cpus, j->n_cpus);
		json_real(w, "efficiency", j->efficiency);
		json_usage(w, j->usage);
		json_uint(w, "workers", j->workers);
		json_str(w, "quantum_class", query_class_name(j->quantum_class));
		json_bool(w, "unmanaged", j->unmanaged);
		json_bool(w, "rigid", j->rigid);
		json_uint(w, "cpus_cap", j->cpus_cap);
		json_uint(w, "cpu_ns", j->cpu_ns);
		json_str(w, "confinement", j->confinement);
		json_end(w);
	}
}

/* A running job's cells for people. */
void query_jobs_cells(const Asteal__JobInfo *j, uint64_t now, struct query_cells *r)
{
	job_row(j, now, 0, r);
}

/* The jobs of all that pass a's filters as one frame of `jobs --watch`:
 * their table, or a JSON array on one line; their count and CPUs. */
int query_jobs_render(FILE *f, const struct query_args *a,
                      const Asteal__Jobs *all, uint64_t now,
                      struct query_jobs_sum *sum)
{
	Asteal__Jobs kept;
	Asteal__JobInfo **keep = malloc((all->n_jobs + 1) * sizeof(*keep));
	size_t i;
	int rc = 0;

	if (keep == NULL)
		return -1;
	jobs_filter(a, all, &kept, keep);
	sum->jobs = kept.n_jobs;
	sum->allotted = 0;
	for (i = 0; i < kept.n_jobs; i++)
		sum->allotted += kept.jobs[i]->unmanaged ? 0 : kept.jobs[i]->allotment;
	if (a->json)
		jobs_json(f, &kept, now, 0);
	else
		rc = jobs_table(f, &kept, now, a);
	free(keep);
	return rc;
}

/* What `asteal jobs`'s own options ask. */
struct jobs_opts {
	int watch;                  /* --watch */
	int have_interval;          /* --interval given */
	double interval;            /* its seconds */
};

/* One of `asteal jobs`'s own options (query_take_fn). */
static int jobs_take(void *ctx, const char *cmd, int o, const char *arg)
{
	struct jobs_opts *jo = ctx;
	char *end;

	if (o == 'w') {
		jo->watch = 1;
		return 0;
	}
	errno = 0;
	jo->interval = strtod(arg, &end);
	if (end == arg || *end != '\0' || errno != 0 || !isfinite(jo->interval) ||
	    jo->interval < 0.1 || jo->interval > 3600)
		return cli_usage(cmd, "bad interval '%s' (seconds, 0.1 to 3600)", arg);
	jo->have_interval = 1;
	return 0;
}

/* `asteal jobs [OPTIONS] [JOB...]`. */
int query_jobs(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "watch", no_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0];
	uint64_t ids[QUERY_MAX_IDS];
	Asteal__Envelope *reply = NULL;
	Asteal__Jobs kept;
	Asteal__JobInfo **keep;
	struct jobs_opts jo = { 0, 0, 1 };
	struct query_args a;
	struct client *c = NULL;
	int nids, o, r;
	size_t i, k;

	query_args_init(&a, g, query_jobs_states);
	if ((r = query_getopt(&a, argc, argv, opts, jobs_take, &jo)) != 0)
		return r;
	if (jo.have_interval && !jo.watch)
		return cli_usage(cmd, "--interval goes with --watch");
	if ((r = query_args_done(&a, cmd, &columns)) != 0 || a.helpformat)
		return r;
	if ((nids = query_parse_ids(cmd, argc, argv, optind, ids)) < 0)
		return CLI_USAGE;
	if ((r = client_open(g->socket, &c)) != 0)
		return r;
	if (jo.watch)
		return watch_jobs(g, &a, c, ids, (size_t)nids, jo.interval);
	r = query_jobs_fetch(c, ids, (size_t)nids, &reply);
	client_close(c);
	if (r != 0)
		return r;
	keep = malloc((reply->jobs->n_jobs + 1) * sizeof(*keep));
	if (keep == NULL) {
		frame_free(reply);
		cli_error("out of memory");
		return CLI_FAIL;
	}
	jobs_filter(&a, reply->jobs, &kept, keep);
	if (a.json) {
		jobs_json(stdout, &kept, qtime_wall_ns(), 1);
	} else if (jobs_table(stdout, &kept, qtime_wall_ns(), &a) < 0) {
		free(keep);
		frame_free(reply);
		cli_error("out of memory");
		return CLI_FAIL;
	}
	free(keep);
	/* a job named but not running: said, and the exit status says it */
	for (i = 0; i < (size_t)nids; i++) {
		for (k = 0; k < reply->jobs->n_jobs && reply->jobs->jobs[k]->id != ids[i]; k++)
			;
		if (k == reply->jobs->n_jobs) {
			cli_error("job %llu is not running", (unsigned long long)ids[i]);
			r = CLI_FAIL;
		}
	}
	frame_free(reply);
	o = query_flush();
	return r != 0 ? r : o;
}
