/*
 * supervise.c - `asteal run` and `submit`: starting jobs under the daemon
 * and supervising them to their end (wait and cancel are in follow.c).
 *
 * run and submit fork the job's child (spawn.c), which waits on a pipe
 * until the daemon has given the job its id (Launch -> Launched), then
 * execs the program.  The process that forked it, the supervisor, stays
 * connected: it passes on the cancels the daemon forwards (CancelRequest)
 * to its child, and reports the child's wait status (JobExit) when it
 * ends.  For run, the supervisor is the `asteal` process itself, in the
 * foreground; for submit, a process detached from the terminal (setsid),
 * and `asteal submit` returns once the id is known.  How the program runs
 * (as it is, on asteal's OpenMP layer, or as a rigid job) is chosen
 * before it starts (runmode.c).
 *
 * When the daemon goes away (a restart), the job goes on; the supervisor
 * connects again with backoff (client_retry: at least every half second)
 * and takes the job back (Launch with its job_id), and after the child
 * ends it tries for SUPERVISE_REPORT_S to report its exit, so that a new
 * daemon learns it and `asteal wait` gets the job's real status.
 *
 * run's job ends with its supervisor, as srun's: the Launch says so
 * (ends_with_supervisor), and when `asteal run` is killed, its child is
 * killed too (PR_SET_PDEATHSIG, spawn.c; and by the daemon, which records
 * it killed by SIGKILL).  A submitted job outlives its supervisor.  The
 * time limit (--time) is the daemon's to keep: at it, its CancelRequests
 * say so (time_limit), and the supervisor tells it on its standard error
 * (submit's: the job's error file) as it passes the signal on.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "exchange.h"
#include "frame.h"
#include "json.h"
#include "qtime.h"
#include "record.h"
#include "runmode.h"
#include "spawn.h"
#include "table.h"

/* How long a supervisor whose child ended tries to reach a daemon to
 * report its exit (a daemon restarting comes back within seconds). */
#define SUPERVISE_REPORT_S 60

/* submit's default output file, in the current folder. */
#define SUPERVISE_OUTPUT "asteal-%j.out"

/* Written by the signal handlers: the self-pipe and the signal to pass. */
static int sig_pipe[2] = { -1, -1 };

/* A signal came: wake the supervision loop (SIGCHLD, or one to pass on). */
static void on_signal(int sig)
{
	int e = errno;
	unsigned char b = (unsigned char)sig;

	if (write(sig_pipe[1], &b, 1) < 0) {
		/* the pipe is full: the loop wakes anyway */
	}
	errno = e;
}


/* The Launch of sp's child (job_id 0: a new job; sp->id: taking it back)
 * into *l and the envelope env. */
static void launch_fill(Asteal__Envelope *env, Asteal__Launch *l,
                        const struct spawn *sp, uint64_t job_id)
{
	l->name = (char *)sp->name;
	l->command = (char *)sp->command;
	l->pid = sp->pid;
	l->cpus = sp->cpus;
	l->time_limit_ns = sp->time_limit_ns;
	l->ends_with_supervisor = !sp->detached;
	l->job_id = job_id;
	env->msg_case = ASTEAL__ENVELOPE__MSG_LAUNCH;
	env->launch = l;
}

/* Fork the child, launch the job with the daemon, let the child go: 0,
 * or an exit code (the child is then gone), or -(wait status) - 1 when
 * the child failed before the program ran (said on stderr). */
static int start(const struct cli *g, struct client *c, struct spawn *sp)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *rep = NULL;
	Asteal__Launch l = ASTEAL__LAUNCH__INIT;
	char line[32], path[PATH_MAX];
	int gate[2], err[2], code, e[2] = { 0, 0 }, status;
	ssize_t n;

	if (pipe2(gate, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		cli_error("pipe: %s", strerror(errno));
		return CLI_FAIL;
	}
	sp->parent = getpid();
	sp->pid = fork();
	if (sp->pid < 0) {
		cli_error("fork: %s", strerror(errno));
		return CLI_FAIL;
	}
	if (sp->pid == 0) {
		close(gate[1]);
		close(err[0]);
		close(client_fd(c));
		spawn_child(g, sp, gate[0], err[1]);
	}
	close(gate[0]);
	close(err[1]);
	launch_fill(&env, &l, sp, 0);
	code = client_call(c, &env, ASTEAL__ENVELOPE__MSG_LAUNCHED, &rep, CLIENT_REPLY_MS);
	if (code != 0) {
		close(gate[1]);         /* the child exits without running */
		close(err[0]);
		waitpid(sp->pid, NULL, 0);
		return code;
	}
	sp->id = rep->launched->job_id;
	frame_free(rep);
	sp->started_ns = qtime_now_ns();
	snprintf(line, sizeof(line), "%llu\n", sp->id);
	if (write(gate[1], line, strlen(line)) < 0) {
		/* the child died already: its status tells */
	}
	close(gate[1]);
	while ((n = read(err[0], e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(err[0]);
	if (n == (ssize_t)sizeof(e)) {
		if (e[0] == SPAWN_FAIL_EXEC)
			cli_error("%s: %s", sp->argv[0], strerror(e[1]));
		else if (e[0] == SPAWN_FAIL_CHDIR)
			cli_error("job %llu: --chdir %s: %s", sp->id, sp->dir,
			          strerror(e[1]));
		else
			cli_error("job %llu: %s %s: %s", sp->id,
			          e[0] == SPAWN_FAIL_OUTPUT ? "--output" : "--error",
			          spawn_path(sp, e[0] == SPAWN_FAIL_OUTPUT ? sp->output
			                                                   : sp->error,
			                     path, sizeof(path)) == 0 ? path : "?",
			          strerror(e[1]));
		sp->failed = e[0] + 1;
		while (waitpid(sp->pid, &status, 0) < 0 && errno == EINTR)
			;
		return -status - 1;     /* report it, then exit with it */
	}
	return 0;
}

/* Milliseconds on the monotonic clock. */
static long long now_ms(void)
{
	return (long long)(qtime_now_ns() / 1000000u);
}

/* Whether a message from the daemon says it is stopping. */
static int stopping(const Asteal__Envelope *m)
{
	return m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR && m->request_id == 0 &&
	       m->error->code == ASTEAL__ERROR_CODE__SHUTDOWN;
}

/* Send req on c and take its reply, which should be a `want`: 0 with
 * *reply, CLI_UNAVAILABLE when the daemon went away or is stopping, or
 * another exit code with *reply the Error (or NULL); nothing is said. */
static int ask(struct client *c, const Asteal__Envelope *req,
               Asteal__Envelope__MsgCase want, Asteal__Envelope **reply)
{
	int r;

	*reply = NULL;
	if ((r = client_send(c, req)) != 0)
		return r;
	r = client_reply(c, reply, CLIENT_REPLY_MS);
	if (r == 0)
		return CLI_FAIL;
	if (r != 1)
		return r;
	if ((*reply)->msg_case == want)
		return 0;
	if (stopping(*reply)) {
		frame_free(*reply);
		*reply = NULL;
		return CLI_UNAVAILABLE;
	}
	return CLI_FAIL;
}

/* Report the child's wait status to the daemon: on *c, or on a new
 * connection while the daemon is away, for up to SUPERVISE_REPORT_S. */
static void report_exit(const struct cli *g, struct client **c,
                        const struct spawn *sp, int status)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *rep = NULL;
	Asteal__JobExit x = ASTEAL__JOB_EXIT__INIT;
	long long give_up = now_ms() + SUPERVISE_REPORT_S * 1000;
	struct client_retry retry;
	int code;

	x.job_id = sp->id;
	x.pid = sp->pid;
	x.wait_status = status;
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOB_EXIT;
	env.job_exit = &x;
	client_retry_start(&retry);
	for (;;) {
		if (*c == NULL) {
			code = client_retry(g->socket, c, &retry);
			if (code != 0 && code != CLI_UNAVAILABLE)
				return;         /* said */
		}
		if (*c != NULL) {
			code = ask(*c, &env, ASTEAL__ENVELOPE__MSG_OK, &rep);
			if (code == 0 || code != CLI_UNAVAILABLE) {
				if (code != 0 && rep != NULL &&
				    rep->msg_case == ASTEAL__ENVELOPE__MSG_ERROR)
					client_error(rep->error);
				else if (code != 0)
					cli_error("job %llu: asteald did not take its exit "
					          "status", sp->id);
				frame_free(rep);
				return;
			}
			client_close(*c);
			*c = NULL;
		}
		if (now_ms() >= give_up) {
			cli_error("job %llu: its exit status was not recorded (no "
			          "daemon at %s for %d s)", sp->id, g->socket,
			          SUPERVISE_REPORT_S);
			return;
		}
		poll(NULL, 0, client_retry_due_ms(&retry));
	}
}

/* Connect again after the daemon went away and take the job back (Launch
 * with its id): 0 with *c, or CLI_UNAVAILABLE while nothing answers.  A
 * daemon that refuses (the job has ended in its eyes: its libasteal came
 * and left) keeps the connection, for the JobExit. */
static int resume(const struct cli *g, struct client **c, const struct spawn *sp,
                  struct client_retry *retry)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *rep = NULL;
	Asteal__Launch l = ASTEAL__LAUNCH__INIT;
	int code;

	code = client_retry(g->socket, c, retry);
	if (code != 0)
		return CLI_UNAVAILABLE;
	launch_fill(&env, &l, sp, sp->id);
	code = ask(*c, &env, ASTEAL__ENVELOPE__MSG_LAUNCHED, &rep);
	frame_free(rep);
	if (code == CLI_UNAVAILABLE) {
		client_close(*c);
		*c = NULL;
	}
	return code == CLI_UNAVAILABLE ? code : 0;
}

/* The daemon stops the job at its time limit with sig: say so, as
 * slurmstepd does ("CANCELLED ... DUE TO TIME LIMIT"). */
static void say_time_limit(const struct spawn *sp, int sig)
{
	char limit[32];

	spawn_time_fmt(limit, sizeof(limit), sp->time_limit_ns / 1000000000u);
	if (sig == SIGKILL)
		cli_error("job %llu: still running after its time limit (%s): "
		          "SIGKILL", sp->id, limit);
	else
		cli_error("job %llu: time limit (%s) reached: SIGTERM", sp->id,
		          limit);
}

/* Supervise the child until it ends: pass on cancels and the signals a
 * supervisor receives, connect again when the daemon goes away; the wait
 * status. */
static int supervise(const struct cli *g, struct client **c, struct spawn *sp)
{
	struct client_retry retry;
	int status = 0;

	client_retry_start(&retry);
	for (;;) {
		struct pollfd p[2];
		unsigned char sigs[16];
		ssize_t n, i;
		pid_t w;

		while ((w = waitpid(sp->pid, &status, WNOHANG)) < 0 && errno == EINTR)
			;
		if (w == sp->pid || (w < 0 && errno == ECHILD))
			return w == sp->pid ? status : 0;
		if (*c == NULL)
			resume(g, c, sp, &retry);
		p[0].fd = sig_pipe[0];
		p[0].events = POLLIN;
		p[1].fd = *c != NULL ? client_fd(*c) : -1;
		p[1].events = POLLIN;
		if (poll(p, 2, *c != NULL ? -1 : client_retry_due_ms(&retry)) < 0 &&
		    errno != EINTR) {
			cli_error("poll: %s", strerror(errno));
			return 0;
		}
		if (p[0].revents & POLLIN) {
			n = read(sig_pipe[0], sigs, sizeof(sigs));
			for (i = 0; i < n; i++)
				if (sigs[i] != SIGCHLD)
					kill(sp->pid, sigs[i]);
		}
		if (*c != NULL && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			Asteal__Envelope *m = NULL;
			int r = client_recv(*c, &m, 0);
			if (r == 1 && m->msg_case == ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST &&
			    m->cancel_request->job_id == sp->id) {
				int sig = m->cancel_request->signal ? m->cancel_request->signal
				                                    : SIGTERM;
				if (m->cancel_request->time_limit)
					say_time_limit(sp, sig);
				kill(sp->pid, sig);
			}
			if (r > 1 || (r == 1 && stopping(m))) {
				/* The daemon went away: the job goes on; connect
				 * again until one comes back. */
				client_close(*c);
				*c = NULL;
				client_retry_start(&retry);
			}
			frame_free(m);
		}
	}
}

/* Catch the signals the supervisor handles: SIGCHLD always; pass on
 * SIGTERM and SIGHUP (and SIGINT, SIGQUIT when detached; in the
 * foreground the terminal sends those to the child itself). */
static int catch_signals(int detached)
{
	struct sigaction sa;

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		cli_error("pipe: %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (detached) {
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGQUIT, &sa, NULL);
	} else {
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
	}
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* What `run --stats` tells of a job, from its history. */
struct stats {
	uint64_t quanta;        /* of its allotment records */
	uint64_t cpuq;          /* processor-quanta allotted in them */
	const Asteal__JobRecord *job;   /* its row, NULL when not found */
	Asteal__Envelope *page; /* the page that holds job */
};

/* Sum the job's allotment records over every page of its history into
 * *st (free st->page after): 0, or -1 when there is no daemon to ask or
 * it failed to answer (a daemon gone says nothing: the connection is
 * quiet by then). */
static int stats_fetch(struct client *c, uint64_t id, struct stats *st)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *rep = NULL;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__HistoryCursor after = ASTEAL__HISTORY_CURSOR__INIT;
	size_t i;
	int more;

	memset(st, 0, sizeof(*st));
	hr.job_ids = &id;
	hr.n_job_ids = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hr;
	do {
		if (c == NULL ||
		    client_call(c, &env, ASTEAL__ENVELOPE__MSG_HISTORY, &rep, CLIENT_REPLY_MS) != 0) {
			frame_free(st->page);
			st->page = NULL;
			return -1;
		}
		for (i = 0; i < rep->history->n_allotments; i++) {
			st->quanta += record_quanta(rep->history->allotments[i]);
			st->cpuq += record_cpu_quanta(rep->history->allotments[i]);
		}
		for (i = 0; i < rep->history->n_jobs && st->job == NULL; i++)
			if (rep->history->jobs[i]->id == id)
				st->job = rep->history->jobs[i];
		more = frame_history_after(&hr, &after, rep->history);
		if (st->job != NULL && st->page == NULL)
			st->page = rep;         /* kept: st->job points into it */
		else
			frame_free(rep);
	} while (more);
	return 0;
}

/* The summary of `run --stats`: one line on stderr, or with --json one
 * object on stdout (asteal(1)).  A job asteald never scheduled (not
 * launched rigid, never connected, no quantum) is said to be unmanaged;
 * one without a quantum has no mean allotment. */
static void print_stats(const struct cli *g, struct client *c,
                        const struct spawn *sp, int status)
{
	static const Asteal__JobRecord none = ASTEAL__JOB_RECORD__INIT;
	const Asteal__JobRecord *j;
	struct usage_totals u;
	struct stats st;
	uint64_t elapsed = qtime_now_ns() - sp->started_ns, waste;
	double mean, waste_pct;
	char d[4][32], end[64];
	int managed;

	if (stats_fetch(c, sp->id, &st) < 0)
		return;
	j = st.job != NULL ? st.job : &none;
	managed = sp->cpus > 0 || j->workers > 0 || st.quanta > 0;
	mean = st.quanta ? (double)st.cpuq / (double)st.quanta : 0;
	/* Waste: what the job's allotted workers spent not working (stealing,
	 * asleep for lack of work, mugging), of the time they ran or slept;
	 * preempted time, the CPUs other processes took, is shown apart. */
	exchange_usage_from(&u, j->usage);
	waste = u.ns[USAGE_STEAL] + u.ns[USAGE_SLEEP] + u.ns[USAGE_MUG];
	waste_pct = u.ns[USAGE_WORK] + waste ? 100.0 * (double)waste /
	            (double)(u.ns[USAGE_WORK] + waste) : 0;
	if (g->json) {
		struct json w;

		json_start(&w, stdout);
		json_object(&w, NULL);
		json_uint(&w, "job_id", sp->id);
		json_str(&w, "name", sp->name);
		json_bool(&w, "managed", managed);
		json_exit(&w, 1, status, j->timeout);
		json_instant(&w, "end", j->end_ns);
		json_uint(&w, "elapsed_ns", elapsed);
		json_uint(&w, "quanta", st.quanta);
		json_uint(&w, "cpu_quanta", st.cpuq);
		if (st.quanta > 0)
			json_real(&w, "mean_allotment", mean);
		else
			json_null(&w, "mean_allotment");
		json_usage(&w, j->usage);
		json_real(&w, "waste_pct", waste_pct);
		json_end(&w);
	} else if (!managed) {
		fprintf(stderr, "asteal: job %llu %s: %s%s, %s elapsed, unmanaged "
		        "(asteald never scheduled it: it did not join)\n", sp->id,
		        sp->name, fmt_wait_status(end, sizeof(end), status),
		        j->timeout ? " at its time limit" : "",
		        fmt_duration(d[0], sizeof(d[0]), elapsed));
	} else {
		char quanta[64];

		if (st.quanta > 0)
			snprintf(quanta, sizeof(quanta), "%llu quanta, mean allotment "
			         "%.2f CPUs", (unsigned long long)st.quanta, mean);
		else
			snprintf(quanta, sizeof(quanta), "no quantum (it ended "
			         "before its first)");
		fprintf(stderr, "asteal: job %llu %s: %s%s, %s elapsed, %s, work %s, "
		        "waste %s (%.1f%%), preempted %s\n", sp->id, sp->name,
		        fmt_wait_status(end, sizeof(end), status),
		        j->timeout ? " at its time limit" : "",
		        fmt_duration(d[0], sizeof(d[0]), elapsed), quanta,
		        fmt_duration(d[1], sizeof(d[1]), u.ns[USAGE_WORK]),
		        fmt_duration(d[2], sizeof(d[2]), waste), waste_pct,
		        fmt_duration(d[3], sizeof(d[3]), u.ns[USAGE_PREEMPTED]));
	}
	frame_free(st.page);
}

/* `asteal run`. */
int supervise_run(const struct cli *g, int argc, char **argv)
{
	struct spawn sp;
	struct client *c = NULL;
	int stats = 0, parsable = 0, code, status;

	memset(&sp, 0, sizeof(sp));
	if ((code = spawn_parse(argc, argv, &sp, &stats, &parsable)) != 0)
		return code;
	runmode_choose(&sp);
	if ((code = client_open(g->socket, &c)) != 0)
		return code;
	if ((code = spawn_check_cpus(&sp, c)) != 0) {
		client_close(c);
		return code;
	}
	if (sp.notice[0] != '\0')
		cli_error("%s", sp.notice);
	if (catch_signals(0) < 0) {
		client_close(c);
		return CLI_FAIL;
	}
	code = start(g, c, &sp);
	if (code > 0) {
		client_close(c);
		return code;
	}
	client_set_quiet(c, 1);
	status = code < 0 ? -code - 1 : supervise(g, &c, &sp);
	report_exit(g, &c, &sp, status);
	if (stats)
		print_stats(g, c, &sp, status);
	client_close(c);
	return follow_exit_code(status);
}

/* In a submitted job's supervisor: its own stdin from /dev/null, and its
 * messages appended to the job's error file (else its output file). */
static void supervisor_streams(const struct spawn *sp)
{
	char path[PATH_MAX];
	int null, fd = -1;

	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (spawn_path(sp, sp->error != NULL ? sp->error : sp->output, path,
	               sizeof(path)) == 0)
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		fd = null;
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	if (fd >= 0 && fd != null)
		close(fd);
	if (null >= 0)
		close(null);
}

/* `asteal submit`: the supervisor forks off and tells us the id. */
int supervise_submit(const struct cli *g, int argc, char **argv)
{
	struct spawn sp;
	struct client *c = NULL;
	int stats = 0, parsable = 0, code, status, tell[2];
	char buf[32];
	ssize_t n;
	size_t got = 0;
	pid_t sup;

	memset(&sp, 0, sizeof(sp));
	sp.detached = 1;
	sp.output = SUPERVISE_OUTPUT;
	if ((code = spawn_parse(argc, argv, &sp, &stats, &parsable)) != 0)
		return code;
	runmode_choose(&sp);
	if (pipe2(tell, O_CLOEXEC) < 0) {
		cli_error("pipe: %s", strerror(errno));
		return CLI_FAIL;
	}
	fflush(NULL);
	sup = fork();
	if (sup < 0) {
		cli_error("fork: %s", strerror(errno));
		return CLI_FAIL;
	}
	if (sup > 0) {
		/* The id, or the supervisor's exit code after its message. */
		close(tell[1]);
		while (got < sizeof(buf) - 1 &&
		       ((n = read(tell[0], buf + got, sizeof(buf) - 1 - got)) > 0 ||
		        (n < 0 && errno == EINTR)))
			if (n > 0)
				got += (size_t)n;
		buf[got] = '\0';
		if (got < 2 || buf[got - 1] != '\n') {
			cli_error("the job's supervisor failed to start");
			return CLI_FAIL;
		}
		buf[got - 1] = '\0';
		if (buf[0] == '!')
			return atoi(buf + 1);
		if (g->json) {
			struct json w;

			json_start(&w, stdout);
			json_object(&w, NULL);
			json_uint(&w, "job_id", strtoull(buf, NULL, 10));
			json_end(&w);
		} else if (parsable)
			printf("%s\n", buf);
		else
			printf("submitted job %s\n", buf);
		return CLI_OK;
	}
	/* The supervisor: detached from the terminal (setsid), then the job. */
	close(tell[0]);
	setsid();
	if (catch_signals(1) < 0 || (code = client_open(g->socket, &c)) != 0) {
		dprintf(tell[1], "!%d\n", c == NULL && code ? code : CLI_FAIL);
		_exit(CLI_FAIL);
	}
	if ((code = spawn_check_cpus(&sp, c)) != 0) {
		dprintf(tell[1], "!%d\n", code);
		_exit(code);
	}
	if (sp.notice[0] != '\0')
		cli_error("%s", sp.notice);     /* still on the terminal */
	code = start(g, c, &sp);
	if (code > 0) {
		dprintf(tell[1], "!%d\n", code);
		_exit(code);
	}
	client_set_quiet(c, 1);
	if (code < 0 && sp.failed - 1 != SPAWN_FAIL_EXEC) {
		/* Its files could not be opened (said): the job never ran. */
		report_exit(g, &c, &sp, -code - 1);
		client_close(c);
		dprintf(tell[1], "!%d\n", CLI_FAIL);
		_exit(CLI_FAIL);
	}
	dprintf(tell[1], "%llu\n", sp.id);
	close(tell[1]);
	/* From here nothing of ours reaches the terminal. */
	supervisor_streams(&sp);
	status = code < 0 ? -code - 1 : supervise(g, &c, &sp);
	report_exit(g, &c, &sp, status);
	client_close(c);
	_exit(follow_exit_code(status));
}
