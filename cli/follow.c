/*
 * follow.c - `asteal wait` and `asteal cancel`: following jobs by id to
 * their end, and signalling them.
 *
 * wait sends one WaitRequest per job (at most FOLLOW_IN_FLIGHT at once,
 * the daemon's limit per connection) and matches the replies by request
 * id.  When the daemon goes away (a restart), it connects again with
 * backoff and asks again for the jobs not answered, until --timeout if
 * one was given, else for FOLLOW_RECONNECT_S; the new daemon holds back
 * "unknown" while a job's supervisor may still report (daemon/launch.h).
 * Its exit status is the first failure's, in the order the jobs were
 * named: a job's own exit code, 1 when its status is unknown or there is
 * no such job, CLI_TIMEOUT (124) when it was still running at --timeout.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "client.h"
#include "frame.h"
#include "json.h"
#include "qtime.h"
#include "query.h"
#include "table.h"

/* WaitRequests in flight on one connection (LAUNCH_CONN_WAITS). */
#define FOLLOW_IN_FLIGHT 64

/* How long wait, without --timeout, tries to reach a daemon that went
 * away before it gives up (exit 69). */
#define FOLLOW_RECONNECT_S 120

/* One job waited for. */
struct waited {
	unsigned long long id;
	uint64_t request;       /* the WaitRequest's id on this connection; 0
	                           when not asked (yet, or again) */
	int done;
	int code;               /* the exit code it stands for */
	int said;               /* the daemon refused: said already */
	int known;              /* its wait status is known */
	int status;
	int timeout;            /* asteald stopped it at its time limit */
	uint64_t end_ns;
};

/* A signal's name without SIG ("TERM"), or its number. */
static const char *sig_name(int sig, char *buf, size_t len)
{
	const char *n = sigabbrev_np(sig);

	if (n != NULL)
		return n;
	snprintf(buf, len, "%d", sig);
	return buf;
}

/* Parse TERM, SIGTERM or 15: the signal, or -1. */
static int sig_parse(const char *s)
{
	char *end;
	long v;
	int i;

	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	if (*s >= '0' && *s <= '9') {
		v = strtol(s, &end, 10);
		return *end == '\0' && v >= 1 && v <= 64 ? (int)v : -1;
	}
	for (i = 1; i < 65; i++) {
		const char *n = sigabbrev_np(i);
		if (n != NULL && strcasecmp(n, s) == 0)
			return i;
	}
	return -1;
}

/* The exit code that tells a wait status. */
int follow_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return CLI_FAIL;
}

/* Milliseconds on the monotonic clock. */
static long long now_ms(void)
{
	return (long long)(qtime_now_ns() / 1000000u);
}

/* Parse the job ids from argv[optind] on into a new array: 0 with *out
 * and *n, or an exit code after a message. */
static int parse_ids(const char *cmd, int argc, char **argv, int first,
                     unsigned long long **out, size_t *n)
{
	unsigned long long *ids;
	int i;

	if (first >= argc)
		return cli_usage(cmd, "expected a JOB (or several)");
	ids = calloc((size_t)(argc - first), sizeof(*ids));
	if (ids == NULL) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	for (i = first; i < argc; i++)
		if (cli_job_id(cmd, argv[i], &ids[i - first]) < 0) {
			free(ids);
			return CLI_USAGE;
		}
	*out = ids;
	*n = (size_t)(argc - first);
	return 0;
}

/* Send the WaitRequests not in flight, as many as the daemon takes: 0,
 * or an exit code. */
static int ask(struct client *c, struct waited *w, size_t n, size_t *in_flight)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__WaitRequest r = ASTEAL__WAIT_REQUEST__INIT;
	int code;

	env.msg_case = ASTEAL__ENVELOPE__MSG_WAIT_REQUEST;
	env.wait_request = &r;
	for (size_t i = 0; i < n && *in_flight < FOLLOW_IN_FLIGHT; i++) {
		if (w[i].done || w[i].request != 0)
			continue;
		r.job_id = w[i].id;
		if ((code = client_send(c, &env)) != 0)
			return code;
		w[i].request = client_last_id(c);
		(*in_flight)++;
	}
	return 0;
}

/* Take one reply: 0, or an exit code when the connection is done for
 * (CLI_UNAVAILABLE: the daemon went away). */
static int take(const Asteal__Envelope *m, struct waited *w, size_t n,
                size_t *in_flight)
{
	size_t i;

	if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR && m->request_id == 0)
		return client_gone(0, m) ? CLI_UNAVAILABLE : client_error(m->error);
	for (i = 0; i < n; i++)
		if (!w[i].done && w[i].request == m->request_id)
			break;
	if (i == n)
		return 0;               /* answers nothing of ours */
	if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR &&
	    m->error->code == ASTEAL__ERROR_CODE__SHUTDOWN)
		return CLI_UNAVAILABLE;
	(*in_flight)--;
	w[i].done = 1;
	if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) {
		w[i].code = client_error(m->error);
		w[i].said = 1;
	} else if (m->msg_case != ASTEAL__ENVELOPE__MSG_WAIT_REPLY) {
		cli_error("asteald answered a wait with a %s", frame_name(m));
		w[i].code = CLI_FAIL;
		w[i].said = 1;
	} else {
		w[i].known = m->wait_reply->status_known;
		w[i].status = m->wait_reply->wait_status;
		w[i].end_ns = m->wait_reply->end_ns;
		w[i].timeout = m->wait_reply->timeout;
		w[i].code = w[i].known ? follow_exit_code(w[i].status) : CLI_FAIL;
	}
	return 0;
}

/* Say how each job ended (JSON: a line each; text: the ones still
 * running at --timeout, those stopped at their time limit, the unknown
 * ones, and with several jobs each failure); the exit code: the first
 * job's, in order, that is not 0. */
static int report(const struct cli *g, const struct waited *w, size_t n,
                  double timeout)
{
	char text[64];
	int code = CLI_OK;

	for (size_t i = 0; i < n; i++) {
		const struct waited *x = &w[i];

		if (code == CLI_OK)
			code = x->code;
		if (x->said)
			continue;
		if (g->json) {
			struct json jw;

			json_start(&jw, stdout);
			json_object(&jw, NULL);
			json_uint(&jw, "job_id", x->id);
			json_bool(&jw, "timed_out", !x->done);
			if (x->done) {
				json_exit(&jw, x->known, x->status, x->timeout);
				json_instant(&jw, "end", x->end_ns);
			}
			json_end(&jw);
		} else if (!x->done) {
			cli_error("job %llu: still running after %g s", x->id, timeout);
		} else if (x->timeout) {
			if (x->known)
				fmt_wait_status(text, sizeof(text), x->status);
			cli_error("job %llu: timeout: stopped at its time limit "
			          "(%s)", x->id, x->known ? text
			          : "its exit status is unknown");
		} else if (!x->known) {
			cli_error("job %llu ended; its exit status is unknown "
			          "(no supervisor reported it)", x->id);
		} else if (n > 1 && x->code != CLI_OK) {
			cli_error("job %llu: %s", x->id,
			          fmt_wait_status(text, sizeof(text), x->status));
		}
	}
	return code;
}

/* Wait for every job of w, reconnecting when the daemon goes away, until
 * deadline (monotonic ms; < 0: none): 0 when each is done or the
 * deadline passed, or an exit code. */
static int follow(const struct cli *g, struct waited *w, size_t n,
                  long long deadline)
{
	struct client *c = NULL;
	struct client_retry retry;
	size_t in_flight = 0, left = n;
	long long lost_at = 0;
	int code;

	if ((code = client_open(g->socket, &c)) != 0)
		return code;
	client_set_quiet(c, 1);
	while (left > 0) {
		Asteal__Envelope *m = NULL;
		long long wait_ms = deadline < 0 ? -1 : deadline - now_ms();
		int r;

		if (deadline >= 0 && wait_ms <= 0)
			break;
		if (c == NULL) {
			/* Connect again, until the deadline or for
			 * FOLLOW_RECONNECT_S without one. */
			if (deadline < 0 && now_ms() - lost_at > FOLLOW_RECONNECT_S * 1000) {
				cli_error("asteald at %s did not come back within %d s",
				          g->socket, FOLLOW_RECONNECT_S);
				return CLI_UNAVAILABLE;
			}
			r = client_retry_due_ms(&retry);
			if (r > 0) {
				poll(NULL, 0, wait_ms >= 0 && wait_ms < r ? (int)wait_ms : r);
				continue;
			}
			code = client_retry(g->socket, &c, &retry);
			if (code == CLI_UNAVAILABLE)
				continue;
			if (code != 0)
				return code;
		}
		code = ask(c, w, n, &in_flight);
		if (code == 0) {
			r = client_recv(c, &m, wait_ms < 0 ? -1 : (int)wait_ms);
			if (r == 1) {
				code = take(m, w, n, &in_flight);
				frame_free(m);
			} else {
				code = r;       /* 0: the deadline passed */
			}
		}
		if (code != 0 && code != CLI_UNAVAILABLE) {
			client_close(c);
			return code;
		}
		left = 0;
		for (size_t i = 0; i < n; i++)
			left += !w[i].done;
		if (code == CLI_UNAVAILABLE) {
			/* Gone: ask again on the next connection. */
			client_close(c);
			c = NULL;
			in_flight = 0;
			for (size_t i = 0; i < n; i++)
				w[i].request = 0;
			lost_at = now_ms();
			client_retry_start(&retry);
			cli_error("asteald at %s went away; connecting again", g->socket);
		}
	}
	client_close(c);
	return 0;
}

/* `asteal wait JOB...`. */
int follow_wait(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long *ids = NULL;
	struct waited *w;
	double timeout = -1;
	size_t n = 0;
	char *end;
	int o, code;

	while ((o = getopt_long(argc, argv, "+t:", opts, NULL)) != -1) {
		if (o != 't')
			return cli_usage("wait", "unknown option '%s'", argv[optind - 1]);
		timeout = strtod(optarg, &end);
		if (*optarg == '\0' || *end != '\0' || !(timeout >= 0 && timeout <= 2e6))
			return cli_usage("wait", "--timeout: seconds from 0 to 2000000, not '%s'",
			                 optarg);
	}
	if ((code = parse_ids("wait", argc, argv, optind, &ids, &n)) != 0)
		return code;
	w = calloc(n, sizeof(*w));
	if (w == NULL) {
		free(ids);
		cli_error("out of memory");
		return CLI_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		w[i].id = ids[i];
		w[i].code = CLI_TIMEOUT;
	}
	free(ids);
	code = follow(g, w, n, timeout < 0 ? -1 : now_ms() + (long long)(timeout * 1000));
	if (code == 0)
		code = report(g, w, n, timeout);
	free(w);
	return code;
}

/* Cancel one job on c: 0, or an exit code after a message. */
static int cancel_one(const struct cli *g, struct client *c, unsigned long long id,
                      int sig)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *rep = NULL;
	Asteal__CancelRequest cr = ASTEAL__CANCEL_REQUEST__INIT;
	char nb[16];
	int code;

	cr.job_id = id;
	cr.signal = sig;
	env.msg_case = ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST;
	env.cancel_request = &cr;
	code = client_call(c, &env, ASTEAL__ENVELOPE__MSG_CANCEL_REPLY, &rep,
	                   CLIENT_REPLY_MS);
	if (code != 0)
		return code;
	frame_free(rep);
	if (g->json) {
		struct json w;

		json_start(&w, stdout);
		json_object(&w, NULL);
		json_uint(&w, "job_id", id);
		json_int(&w, "signal", sig);
		json_end(&w);
	} else if (g->tty)
		printf("job %llu: sent SIG%s\n", id, sig_name(sig, nb, sizeof(nb)));
	return CLI_OK;
}

/* The ids of the running jobs among ids (n: all when 0) that pass a's
 * filters, into *out and *nout: 0, or an exit code after a message. */
static int cancel_select(struct client *c, const struct query_args *a,
                         const unsigned long long *ids, size_t n,
                         unsigned long long **out, size_t *nout)
{
	Asteal__Envelope *rep = NULL;
	uint64_t want[QUERY_MAX_IDS];
	size_t k = 0;
	int code;

	if (n > QUERY_MAX_IDS)
		return cli_usage("cancel", "at most %d JOBs with a filter",
		                 QUERY_MAX_IDS);
	for (size_t i = 0; i < n; i++)
		want[i] = ids[i];
	if ((code = query_jobs_fetch(c, want, n, &rep)) != 0)
		return code;
	*out = calloc(rep->jobs->n_jobs + 1, sizeof(**out));
	if (*out == NULL) {
		frame_free(rep);
		cli_error("out of memory");
		return CLI_FAIL;
	}
	for (size_t i = 0; i < rep->jobs->n_jobs; i++) {
		const Asteal__JobInfo *j = rep->jobs->jobs[i];

		if (query_keep(a, j->uid, j->name, query_jobs_state(j)))
			(*out)[k++] = j->id;
	}
	*nout = k;
	frame_free(rep);
	return 0;
}

/* `asteal cancel [filters] [JOB...]`: every job is tried; the first
 * failure's code.  With -u, --name or --state (as scancel's), the running
 * jobs that pass them, among the JOBs if some are named. */
int follow_cancel(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "signal", required_argument, NULL, 's' },
		{ "user", required_argument, NULL, 'u' },
		{ "name", required_argument, NULL, QUERY_OPT_NAME },
		{ "state", required_argument, NULL, QUERY_OPT_STATE },
		{ NULL, 0, NULL, 0 },
	};
	struct query_args a;
	struct client *c = NULL;
	unsigned long long *ids = NULL, *chosen = NULL;
	size_t n = 0;
	int o, code, first = CLI_OK, sig = SIGTERM, filtered = 0;

	query_args_init(&a, g, query_jobs_states);
	while ((o = getopt_long(argc, argv, "+s:u:", opts, NULL)) != -1) {
		if (o == 's') {
			sig = sig_parse(optarg);
			if (sig < 0)
				return cli_usage("cancel", "--signal: no signal '%s'", optarg);
			continue;
		}
		if (o != 'u' && o != QUERY_OPT_NAME && o != QUERY_OPT_STATE)
			return cli_usage("cancel", "unknown option '%s'", argv[optind - 1]);
		if ((code = query_option(&a, "cancel", o, optarg)) != 0)
			return code;
		filtered = 1;
	}
	if ((!filtered || optind < argc) &&
	    (code = parse_ids("cancel", argc, argv, optind, &ids, &n)) != 0)
		return code;
	if ((code = client_open(g->socket, &c)) != 0) {
		free(ids);
		return code;
	}
	if (filtered) {
		code = cancel_select(c, &a, ids, n, &chosen, &n);
		free(ids);
		ids = chosen;
		if (code != 0) {
			client_close(c);
			return code;
		}
		if (n == 0 && !g->json)
			cli_error("no running job passes the filters");
	}
	for (size_t i = 0; i < n; i++) {
		code = cancel_one(g, c, ids[i], sig);
		if (first == CLI_OK)
			first = code;
		if (code == CLI_UNAVAILABLE)
			break;          /* the rest would fail alike */
	}
	client_close(c);
	free(ids);
	return first;
}
