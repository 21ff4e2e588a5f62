/*
 * supervise.c - `asteal run`, `submit`, `wait` and `cancel`: starting jobs
 * under the daemon and following them to their end.
 *
 * run and submit fork the job's child, which waits on a pipe until the
 * daemon has given the job its id (Launch -> Launched), then execs the
 * program with ASTEAL_SOCKET, ASTEAL_JOB_ID and ASTEAL_JOB_NAME set, so
 * its libasteal claims that id.  The process that forked it, the
 * supervisor, stays connected: it passes on the cancels the daemon
 * forwards (CancelRequest) to its child, and reports the child's wait
 * status (JobExit) when it ends.  For run, the supervisor is the `asteal`
 * process itself, in the foreground; for submit, a detached process in a
 * session of its own, and `asteal submit` returns once the id is known.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "frame.h"
#include "qtime.h"
#include "table.h"

/* A job being started. */
struct spawn {
	const char *name;         /* --name, or the program's base name */
	char **argv;              /* the program and its arguments */
	const char *output;       /* submit: where its stdout and stderr go */
	unsigned cpus;            /* --cpus N: a rigid job of N CPUs; 0 none */
	int detached;             /* submit */
	pid_t pid;
	unsigned long long id;
	uint64_t started_ns;
};

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

/* The exit code that tells a wait status: the job's own, or 128 + the
 * signal that killed it. */
static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return CLI_FAIL;
}

/* The program's arguments as one line, for listings. */
static void join_args(char **argv, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; argv[i] != NULL && used + 1 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
		                         argv[i]);
}

/* Parse run/submit options up to the program: 0, or an exit code. */
static int parse_spawn(int argc, char **argv, struct spawn *sp, int *stats,
                       int *parsable)
{
	static const struct option run_opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "stats", no_argument, NULL, 's' },
		{ "cpus", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option submit_opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "parsable", no_argument, NULL, 'p' },
		{ "cpus", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0];
	char *end;
	unsigned long v;
	const char *base;
	int o;

	while ((o = getopt_long(argc, argv, "+c:", sp->detached ? submit_opts
	                        : run_opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end != '\0' || errno != 0 ||
			    v < 1 || v > CLI_MAX_CPUS)
				return cli_usage(cmd, "--cpus: '%s' is not a number of "
				                 "CPUs from 1 to %d", optarg, CLI_MAX_CPUS);
			sp->cpus = (unsigned)v;
			break;
		case 'n':
			if (*optarg == '\0' || strlen(optarg) > 63)
				return cli_usage(cmd, "--name: 1 to 63 characters");
			sp->name = optarg;
			break;
		case 's':
			*stats = 1;
			break;
		case 'o':
			sp->output = optarg;
			break;
		case 'p':
			*parsable = 1;
			break;
		default:
			return cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0 &&
	    strcmp(argv[optind], "--") == 0)
		optind++;
	if (optind >= argc)
		return cli_usage(cmd, "no program to run (asteal %s [OPTIONS] -- "
		                 "PROGRAM [ARGS...])", cmd);
	sp->argv = argv + optind;
	if (sp->name == NULL) {
		base = strrchr(sp->argv[0], '/');
		sp->name = base != NULL ? base + 1 : sp->argv[0];
	}
	return 0;
}

/* The environment variables that runtimes read for their thread count,
 * each set to a rigid job's CPUs (`--cpus N`) over any value inherited:
 * OpenMP (libgomp, LLVM's libomp), the BLAS libraries' own, Rayon, Go,
 * Julia, numexpr; and ASTEAL_CPUS for any program that asks.  oneTBB reads
 * none: it sizes its arena from its affinity mask, which confinement sets
 * from the first quantum on. */
static const char *const cpus_env[] = {
	"ASTEAL_CPUS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
	"OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
	"NUMEXPR_NUM_THREADS", "RAYON_NUM_THREADS", "GOMAXPROCS",
	"JULIA_NUM_THREADS",
};

/* Set every variable of cpus_env to n: 0, or -1 with errno.  And, unless
 * the user chose, OMP_WAIT_POLICY=passive: a rigid job's allotment can be
 * less than n, and OpenMP threads that spin at barriers on a shared CPU
 * burn the slices of the threads they wait for (bench/README.md, "Rigid
 * jobs"). */
static int set_cpus_env(unsigned n)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", n);
	for (size_t i = 0; i < sizeof(cpus_env) / sizeof(cpus_env[0]); i++)
		if (setenv(cpus_env[i], v, 1) < 0)
			return -1;
	return setenv("OMP_WAIT_POLICY", "passive", 0);
}

/* In the child: wait for the id, then exec the program (never returns).
 * err is the close-on-exec pipe that tells the parent why exec failed. */
static void child(const struct cli *g, struct spawn *sp, int gate, int err, int out)
{
	char buf[32];
	ssize_t n;
	size_t got = 0;
	int e;

	while (got < sizeof(buf) - 1 &&
	       ((n = read(gate, buf + got, sizeof(buf) - 1 - got)) > 0 ||
	        (n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	buf[got] = '\0';
	if (got == 0 || buf[got - 1] != '\n')
		_exit(127);         /* the parent failed: never run */
	buf[got - 1] = '\0';
	close(gate);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (out >= 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null < 0 || dup2(null, STDIN_FILENO) < 0 ||
		    dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0)
			goto fail;
	}
	if (setenv("ASTEAL_SOCKET", g->socket, 1) < 0 ||
	    setenv("ASTEAL_JOB_ID", buf, 1) < 0 ||
	    setenv("ASTEAL_JOB_NAME", sp->name, 1) < 0 ||
	    (sp->cpus > 0 && set_cpus_env(sp->cpus) < 0))
		goto fail;
	execvp(sp->argv[0], sp->argv);
fail:
	e = errno;
	if (write(err, &e, sizeof(e)) < 0) {
		/* the parent sees the status only */
	}
	_exit(e == ENOENT ? 127 : 126);
}

/* Fork the child, launch the job with the daemon, let the child go: 0,
 * or an exit code (the child is then gone).  out: submit's output fd. */
static int start(const struct cli *g, struct client *c, struct spawn *sp, int out)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *rep = NULL;
	Asteal__Launch l = ASTEAL__LAUNCH__INIT;
	char command[256], line[32];
	int gate[2], err[2], code, e = 0, status;
	ssize_t n;

	if (pipe2(gate, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		cli_error("pipe: %s", strerror(errno));
		return CLI_FAIL;
	}
	sp->pid = fork();
	if (sp->pid < 0) {
		cli_error("fork: %s", strerror(errno));
		return CLI_FAIL;
	}
	if (sp->pid == 0) {
		close(gate[1]);
		close(err[0]);
		close(client_fd(c));
		child(g, sp, gate[0], err[1], out);
	}
	close(gate[0]);
	close(err[1]);
	join_args(sp->argv, command, sizeof(command));
	l.name = (char *)sp->name;
	l.command = command;
	l.pid = sp->pid;
	l.cpus = sp->cpus;
	env.msg_case = ASTEAL__ENVELOPE__MSG_LAUNCH;
	env.launch = &l;
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
	while ((n = read(err[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(err[0]);
	if (n == (ssize_t)sizeof(e)) {
		cli_error("%s: %s", sp->argv[0], strerror(e));
		while (waitpid(sp->pid, &status, 0) < 0 && errno == EINTR)
			;
		return -status - 1;     /* report it, then exit with it */
	}
	return 0;
}

/* Report the child's wait status to the daemon (reconnecting once if it
 * went away). */
static void report_exit(const struct cli *g, struct client **c,
                        const struct spawn *sp, int status)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *rep = NULL;
	Asteal__JobExit x = ASTEAL__JOB_EXIT__INIT;

	x.job_id = sp->id;
	x.pid = sp->pid;
	x.wait_status = status;
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOB_EXIT;
	env.job_exit = &x;
	if (*c == NULL && client_open(g->socket, c) != 0) {
		cli_error("job %llu: its exit status was not recorded (no daemon)", sp->id);
		return;
	}
	if (client_call(*c, &env, ASTEAL__ENVELOPE__MSG_OK, &rep, CLIENT_REPLY_MS) == 0)
		frame_free(rep);
}

/* Supervise the child until it ends: pass on cancels and the signals a
 * supervisor receives; the wait status. */
static int supervise(struct client **c, struct spawn *sp)
{
	int status = 0;

	for (;;) {
		struct pollfd p[2];
		unsigned char sigs[16];
		ssize_t n, i;
		pid_t w;

		while ((w = waitpid(sp->pid, &status, WNOHANG)) < 0 && errno == EINTR)
			;
		if (w == sp->pid || (w < 0 && errno == ECHILD))
			return w == sp->pid ? status : 0;
		p[0].fd = sig_pipe[0];
		p[0].events = POLLIN;
		p[1].fd = *c != NULL ? client_fd(*c) : -1;
		p[1].events = POLLIN;
		if (poll(p, 2, -1) < 0 && errno != EINTR) {
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
				kill(sp->pid, sig);
			}
			frame_free(m);
			if (r > 1) {
				/* The daemon went away: the job goes on; its exit
				 * is reported to the next daemon, if one comes. */
				client_close(*c);
				*c = NULL;
			}
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

/* The one-line summary of `run --stats`, from the job's history. */
static void print_stats(const struct cli *g, struct client *c,
                        const struct spawn *sp, int status)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *rep = NULL;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__HistoryCursor after = ASTEAL__HISTORY_CURSOR__INIT;
	uint64_t id = sp->id, quanta = 0, cpuq = 0, work = 0, steal = 0, mug = 0;
	uint64_t sleep = 0, preempted = 0;
	double elapsed = (double)(qtime_now_ns() - sp->started_ns) / 1e9;
	double mean, waste;
	char d1[32], d2[32], d3[32];
	size_t i;
	int more;

	hr.job_ids = &id;
	hr.n_job_ids = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hr;
	for (;;) {
		if (c == NULL ||
		    client_call(c, &env, ASTEAL__ENVELOPE__MSG_HISTORY, &rep, CLIENT_REPLY_MS) != 0)
			return;
		for (i = 0; i < rep->history->n_allotments; i++) {
			const Asteal__AllotmentRecord *a = rep->history->allotments[i];
			uint64_t n = a->last_quantum - a->first_quantum + 1;
			quanta += n;
			cpuq += n * a->allotment;
		}
		for (i = 0; i < rep->history->n_jobs; i++)
			if (rep->history->jobs[i]->id == id) {
				work = rep->history->jobs[i]->work_ns;
				steal = rep->history->jobs[i]->steal_ns;
				mug = rep->history->jobs[i]->mug_ns;
				sleep = rep->history->jobs[i]->sleep_ns;
				preempted = rep->history->jobs[i]->preempted_ns;
			}
		more = frame_history_after(&hr, &after, rep->history);
		frame_free(rep);
		if (!more)
			break;
	}
	mean = quanta ? (double)cpuq / (double)quanta : 0;
	/* Waste: what the job's allotted workers spent not working (stealing,
	 * asleep for lack of work, mugging), of the time they ran or slept;
	 * preempted time, the CPUs other processes took, is shown apart. */
	waste = work + steal + sleep + mug ?
	        100.0 * (double)(steal + sleep + mug) / (double)(work + steal + sleep + mug) : 0;
	if (g->json) {
		printf("{\"job_id\":%llu,\"exit_code\":%d,\"elapsed_s\":%.3f,"
		       "\"quanta\":%llu,\"mean_allotment\":%.3f,\"work_ns\":%llu,"
		       "\"steal_ns\":%llu,\"mug_ns\":%llu,\"sleep_ns\":%llu,"
		       "\"preempted_ns\":%llu,\"waste_pct\":%.2f}\n",
		       sp->id, exit_code(status), elapsed, (unsigned long long)quanta,
		       mean, (unsigned long long)work, (unsigned long long)steal,
		       (unsigned long long)mug, (unsigned long long)sleep,
		       (unsigned long long)preempted, waste);
	} else {
		fprintf(stderr, "asteal: job %llu %s: exit %d, %.2fs elapsed, %llu quanta, "
		        "mean allotment %.2f CPUs, work %s, waste %s (%.1f%%), "
		        "preempted %s\n", sp->id,
		        sp->name, exit_code(status), elapsed, (unsigned long long)quanta,
		        mean, fmt_duration(d1, sizeof(d1), work),
		        fmt_duration(d2, sizeof(d2), steal + sleep + mug), waste,
		        fmt_duration(d3, sizeof(d3), preempted));
	}
}

/* `asteal run`. */
int supervise_run(const struct cli *g, int argc, char **argv)
{
	struct spawn sp;
	struct client *c = NULL;
	int stats = 0, parsable = 0, code, status;

	memset(&sp, 0, sizeof(sp));
	if ((code = parse_spawn(argc, argv, &sp, &stats, &parsable)) != 0)
		return code;
	if ((code = client_open(g->socket, &c)) != 0)
		return code;
	if (catch_signals(0) < 0) {
		client_close(c);
		return CLI_FAIL;
	}
	code = start(g, c, &sp, -1);
	if (code > 0) {
		client_close(c);
		return code;
	}
	status = code < 0 ? -code - 1 : supervise(&c, &sp);
	report_exit(g, &c, &sp, status);
	if (stats)
		print_stats(g, c, &sp, status);
	client_close(c);
	return exit_code(status);
}

/* `asteal submit`: the supervisor forks off and tells us the id. */
int supervise_submit(const struct cli *g, int argc, char **argv)
{
	struct spawn sp;
	struct client *c = NULL;
	int stats = 0, parsable = 0, code, status, tell[2], out, null;
	char buf[32];
	ssize_t n;
	size_t got = 0;
	pid_t sup;

	memset(&sp, 0, sizeof(sp));
	sp.detached = 1;
	sp.output = "/dev/null";
	if ((code = parse_spawn(argc, argv, &sp, &stats, &parsable)) != 0)
		return code;
	out = open(sp.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (out < 0) {
		cli_error("--output %s: %s", sp.output, strerror(errno));
		return CLI_FAIL;
	}
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
		close(out);
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
		if (g->json)
			printf("{\"job_id\":%s}\n", buf);
		else if (parsable)
			printf("%s\n", buf);
		else
			printf("submitted job %s\n", buf);
		return CLI_OK;
	}
	/* The supervisor: a session of its own, then the job. */
	close(tell[0]);
	setsid();
	if (catch_signals(1) < 0 || (code = client_open(g->socket, &c)) != 0) {
		dprintf(tell[1], "!%d\n", c == NULL && code ? code : CLI_FAIL);
		_exit(CLI_FAIL);
	}
	code = start(g, c, &sp, out);
	if (code > 0) {
		dprintf(tell[1], "!%d\n", code);
		_exit(code);
	}
	dprintf(tell[1], "%llu\n", sp.id);
	close(tell[1]);
	/* From here nothing of ours reaches the terminal. */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
		close(null);
	}
	close(out);
	status = code < 0 ? -code - 1 : supervise(&c, &sp);
	report_exit(g, &c, &sp, status);
	client_close(c);
	_exit(exit_code(status));
}

/* `asteal wait JOB`. */
int supervise_wait(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *rep = NULL;
	Asteal__WaitRequest w = ASTEAL__WAIT_REQUEST__INIT;
	struct client *c = NULL;
	unsigned long long id;
	double timeout = -1;
	char *end;
	int o, code, r;

	while ((o = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (o != 't')
			return cli_usage("wait", "unknown option '%s'", argv[optind - 1]);
		timeout = strtod(optarg, &end);
		if (*optarg == '\0' || *end != '\0' || !(timeout >= 0 && timeout <= 2e6))
			return cli_usage("wait", "--timeout: seconds from 0 to 2000000, not '%s'",
			                 optarg);
	}
	if (optind != argc - 1)
		return cli_usage("wait", "expected one JOB");
	if (cli_job_id("wait", argv[optind], &id) < 0)
		return CLI_USAGE;
	if ((code = client_open(g->socket, &c)) != 0)
		return code;
	w.job_id = id;
	env.msg_case = ASTEAL__ENVELOPE__MSG_WAIT_REQUEST;
	env.wait_request = &w;
	if ((code = client_send(c, &env)) != 0) {
		client_close(c);
		return code;
	}
	r = client_reply(c, &rep, timeout < 0 ? -1 : (int)(timeout * 1000));
	client_close(c);
	if (r == 0) {
		cli_error("job %llu: still running after %g s", id, timeout);
		return CLI_FAIL;
	}
	if (r != 1)
		return r;
	if (rep->msg_case == ASTEAL__ENVELOPE__MSG_ERROR) {
		code = client_error(rep->error);
	} else if (rep->msg_case != ASTEAL__ENVELOPE__MSG_WAIT_REPLY) {
		cli_error("asteald answered a wait with a %s", frame_name(rep));
		code = CLI_FAIL;
	} else if (!rep->wait_reply->status_known) {
		if (g->json)
			printf("{\"job_id\":%llu,\"status_known\":false,\"end_ns\":%llu}\n",
			       id, (unsigned long long)rep->wait_reply->end_ns);
		else
			cli_error("job %llu ended; its exit status is unknown (no "
			          "supervisor reported it)", id);
		code = CLI_FAIL;
	} else {
		int st = rep->wait_reply->wait_status;
		code = exit_code(st);
		if (g->json)
			printf("{\"job_id\":%llu,\"status_known\":true,\"exit_code\":%d,"
			       "\"signal\":%d,\"end_ns\":%llu}\n", id, code,
			       WIFSIGNALED(st) ? WTERMSIG(st) : 0,
			       (unsigned long long)rep->wait_reply->end_ns);
	}
	frame_free(rep);
	return code;
}

/* `asteal cancel JOB`. */
int supervise_cancel(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "signal", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *rep = NULL;
	Asteal__CancelRequest cr = ASTEAL__CANCEL_REQUEST__INIT;
	struct client *c = NULL;
	unsigned long long id;
	int o, code, sig = SIGTERM;
	char nb[16];

	while ((o = getopt_long(argc, argv, "+s:", opts, NULL)) != -1) {
		if (o != 's')
			return cli_usage("cancel", "unknown option '%s'", argv[optind - 1]);
		sig = sig_parse(optarg);
		if (sig < 0)
			return cli_usage("cancel", "--signal: no signal '%s'", optarg);
	}
	if (optind != argc - 1)
		return cli_usage("cancel", "expected one JOB");
	if (cli_job_id("cancel", argv[optind], &id) < 0)
		return CLI_USAGE;
	if ((code = client_open(g->socket, &c)) != 0)
		return code;
	cr.job_id = id;
	cr.signal = sig;
	env.msg_case = ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST;
	env.cancel_request = &cr;
	code = client_call(c, &env, ASTEAL__ENVELOPE__MSG_CANCEL_REPLY, &rep,
	                   CLIENT_REPLY_MS);
	client_close(c);
	if (code != 0)
		return code;
	frame_free(rep);
	if (g->json)
		printf("{\"job_id\":%llu,\"signal\":%d}\n", id, sig);
	else if (g->tty)
		printf("job %llu: sent SIG%s\n", id, sig_name(sig, nb, sizeof(nb)));
	return CLI_OK;
}
