/*
 * supervise.c - `asteal run` and `submit`: starting jobs under the daemon
 * and supervising them to their end (wait and cancel are in follow.c).
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
 * A submitted job's child opens its output files itself, once it knows
 * the id that %j in their names stands for.
 *
 * How the program runs is chosen before it starts, from what its file
 * says it is linked with (program.c): a program linked with libasteal
 * runs as it is (an adaptive job); one whose libraries include
 * libgomp.so.1 runs on asteal's OpenMP layer (--omp layer, the default),
 * which its child puts first in LD_LIBRARY_PATH, and is an adaptive job
 * as well; any other is a rigid job, of --cpus N, or of
 * SUPERVISE_RIGID_CPUS with a line saying so.  LLVM's libomp, OpenMP
 * linked in statically, or a layer that is missing or cannot replace the
 * program's libgomp: a line saying that it runs rigid, and why, even
 * with --cpus.
 *
 * When the daemon goes away (a restart), the job goes on; the supervisor
 * connects again with backoff (client_retry: at least every half second)
 * and takes the job back (Launch with its job_id), and after the child
 * ends it tries for SUPERVISE_REPORT_S to report its exit, so that a new
 * daemon learns it and `asteal wait` gets the job's real status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
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
#include "paths.h"
#include "program.h"
#include "qtime.h"
#include "table.h"

/* How long a supervisor whose child ended tries to reach a daemon to
 * report its exit (a daemon restarting comes back within seconds). */
#define SUPERVISE_REPORT_S 60

/* submit's default output file, in the current folder. */
#define SUPERVISE_OUTPUT "asteal-%j.out"

/* The CPUs of a rigid job whose program is linked with neither libasteal
 * nor libgomp (or runs on the system's OpenMP) when no --cpus is given:
 * what most such programs use (a shell, a serial tool), as Slurm gives a
 * task one CPU without -c; counted in DEQ and held, where unmanaged it
 * would take CPUs from the adaptive jobs unseen. */
#define SUPERVISE_RIGID_CPUS 1

/* What the child failed at, as it tells start() (with errno). */
enum child_fail { FAIL_EXEC, FAIL_OUTPUT, FAIL_ERROR };

/* A job being started. */
struct spawn {
	const char *name;         /* --name, or the program's base name */
	char **argv;              /* the program and its arguments */
	char command[256];        /* argv as one line */
	const char *output;       /* submit: where its stdout (and stderr) go */
	const char *error;        /* submit: where its stderr goes, or NULL */
	unsigned cpus;            /* --cpus N: a rigid job of N CPUs; 0 none */
	int omp_system;           /* --omp system: never the OpenMP layer */
	char layer[PATH_MAX];     /* the layer's folder, put first in LD_LIBRARY_PATH */
	char notice[3 * PATH_MAX]; /* how it runs, said before it starts, or "" */
	int failed;               /* the child failed: an enum child_fail + 1 */
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

/* A file name template with %j replaced by the job id and %% by %: 0, or
 * -1 when it has another % or does not fit in len. */
static int expand(const char *tmpl, unsigned long long id, char *out, size_t len)
{
	size_t k = 0;
	int n;

	for (const char *t = tmpl; *t != '\0'; t++) {
		if (*t == '%' && t[1] == 'j')
			n = snprintf(out + k, len - k, "%llu", id);
		else if (*t == '%' && t[1] == '%')
			n = snprintf(out + k, len - k, "%%");
		else if (*t == '%')
			return -1;
		else
			n = snprintf(out + k, len - k, "%c", *t);
		if (n < 0 || (size_t)n >= len - k)
			return -1;
		k += (size_t)n;
		t += *t == '%';
	}
	if (k == 0)
		return -1;
	out[k] = '\0';
	return 0;
}

/* Check a file name template of option opt: 0, or a usage exit code. */
static int check_template(const char *cmd, const char *opt, const char *tmpl)
{
	char buf[PATH_MAX];

	if (expand(tmpl, ~0ull, buf, sizeof(buf)) == 0)
		return 0;
	return cli_usage(cmd, "%s '%s': an empty or too long name, or a %% other "
	                 "than %%j (the job id) and %%%% (a %%)", opt, tmpl);
}

/* Parse run/submit options up to the program: 0, or an exit code. */
static int parse_spawn(int argc, char **argv, struct spawn *sp, int *stats,
                       int *parsable)
{
	static const struct option run_opts[] = {
		{ "name", required_argument, NULL, 'J' },
		{ "stats", no_argument, NULL, 's' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "omp", required_argument, NULL, 'O' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option submit_opts[] = {
		{ "name", required_argument, NULL, 'J' },
		{ "output", required_argument, NULL, 'o' },
		{ "error", required_argument, NULL, 'e' },
		{ "parsable", no_argument, NULL, 'p' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "omp", required_argument, NULL, 'O' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0];
	char *end;
	unsigned long v;
	const char *base;
	int o, bad;

	while ((o = getopt_long(argc, argv, sp->detached ? "+c:J:o:e:" : "+c:J:",
	                        sp->detached ? submit_opts : run_opts, NULL)) != -1) {
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
		case 'O':
			if (strcmp(optarg, "layer") != 0 && strcmp(optarg, "system") != 0)
				return cli_usage(cmd, "--omp: '%s' is not layer (asteal's "
				                 "OpenMP layer) or system (the system's "
				                 "libgomp)", optarg);
			sp->omp_system = strcmp(optarg, "system") == 0;
			break;
		case 'J':
			if (*optarg == '\0' || strlen(optarg) > 63)
				return cli_usage(cmd, "--name: 1 to 63 characters");
			sp->name = optarg;
			break;
		case 's':
			*stats = 1;
			break;
		case 'o':
			if ((bad = check_template(cmd, "--output", optarg)) != 0)
				return bad;
			sp->output = optarg;
			break;
		case 'e':
			if ((bad = check_template(cmd, "--error", optarg)) != 0)
				return bad;
			sp->error = optarg;
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
	join_args(sp->argv, sp->command, sizeof(sp->command));
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
 * jobs"); and KMP_AFFINITY=disabled: a rigid job's CPUs are the daemon's
 * to set, and LLVM's libomp (and Intel's), which reads its affinity mask
 * as it starts and then pins its threads within it, aborts ("OMP: System
 * error #22: Invalid argument") when confinement changed the mask in
 * between: 8 runs in 40 of a small libomp program under `--cpus 1` with
 * a cgroup v1 cpuset, none with the variable. */
static int set_cpus_env(unsigned n)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", n);
	for (size_t i = 0; i < sizeof(cpus_env) / sizeof(cpus_env[0]); i++)
		if (setenv(cpus_env[i], v, 1) < 0)
			return -1;
	if (setenv("KMP_AFFINITY", "disabled", 0) < 0)
		return -1;
	return setenv("OMP_WAIT_POLICY", "passive", 0);
}

/* Put dir first in the search list of variable var (LD_LIBRARY_PATH): 0,
 * or -1 with errno. */
static int prepend_path(const char *var, const char *dir)
{
	const char *old = getenv(var);
	char *v;
	int r;

	if (old == NULL || *old == '\0')
		return setenv(var, dir, 1);
	if (asprintf(&v, "%s:%s", dir, old) < 0)
		return -1;
	r = setenv(var, v, 1);
	free(v);
	return r;
}

/* Whether the space-separated list have holds word. */
static int has_word(const char *have, const char *word)
{
	size_t w = strlen(word);

	for (const char *at = have; (at = strstr(at, word)) != NULL; at += w)
		if ((at == have || at[-1] == ' ') && (at[w] == ' ' || at[w] == '\0'))
			return 1;
	return 0;
}

/* Whether the layer at lib lacks a version of libgomp that program p's
 * closure asks for (an OpenACC program's OACC_2.0, a newer gcc's): 1 with
 * the first in miss (len bytes), 0 when it has them all or cannot tell
 * (the dynamic linker then says). */
static int lacks(const struct program *p, const char *lib, char *miss, size_t len)
{
	char have[4096], want[sizeof(p->gomp_versions)], *w, *save = NULL;

	if (p->gomp_versions[0] == '\0' || program_versions(lib, have, sizeof(have)) < 0)
		return 0;
	snprintf(want, sizeof(want), "%s", p->gomp_versions);
	for (w = strtok_r(want, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
		if (!has_word(have, w)) {
			snprintf(miss, len, "%s", w);
			return 1;
		}
	return 0;
}

/* The folder of asteal's OpenMP layer for program p: 0 with it in dir
 * (len bytes), or -1 with why (wlen bytes).  The layer is libgomp.so.1 in
 * ../lib/asteal from asteal's own folder (a build tree's build/lib/asteal,
 * or an install with lib beside bin), else in CLI_OMP_DIR, where make
 * install put it; it must be of the program's class and machine, and
 * define every version of libgomp the program asks for. */
static int layer_dir(const struct program *p, char *dir, size_t len, char *why,
                     size_t wlen)
{
	char exe[PATH_MAX], beside[PATH_MAX], lib[PATH_MAX], miss[64] = "";
	const char *cand[2], *other = NULL, *short_of = NULL;
	char *s;
	ssize_t n;
	int ncand = 0, cls, machine;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((s = strrchr(exe, '/')) != NULL) {
			*s = '\0';                    /* bin */
			if ((s = strrchr(exe, '/')) != NULL) {
				*s = '\0';            /* its parent */
				if (snprintf(beside, sizeof(beside), "%s/lib/asteal", exe) <
				    (int)sizeof(beside))
					cand[ncand++] = beside;
			}
		}
	}
	if (ncand == 0 || strcmp(cand[0], CLI_OMP_DIR) != 0)
		cand[ncand++] = CLI_OMP_DIR;
	for (int i = 0; i < ncand; i++) {
		if (snprintf(lib, sizeof(lib), "%s/libgomp.so.1", cand[i]) >= (int)sizeof(lib) ||
		    program_elf_id(lib, &cls, &machine) < 0)
			continue;
		if (cls == p->elf_class && machine == p->machine) {
			if (lacks(p, lib, miss, sizeof(miss))) {
				if (short_of == NULL)
					short_of = cand[i];
				continue;
			}
			if (snprintf(dir, len, "%s", cand[i]) < (int)len)
				return 0;
		}
		if (other == NULL)
			other = cand[i];
	}
	if (short_of != NULL)
		snprintf(why, wlen, "asteal's OpenMP layer (%s) lacks %s, a version of "
		         "libgomp.so.1 the program needs", short_of, miss);
	else if (other != NULL)
		snprintf(why, wlen, "asteal's OpenMP layer (%s) is built for another "
		         "machine or word size than the program", other);
	else
		snprintf(why, wlen, "asteal's OpenMP layer is not installed (no "
		         "libgomp.so.1 in %s%s%s)", cand[0], ncand > 1 ? " or " : "",
		         ncand > 1 ? cand[1] : "");
	return -1;
}

/* Choose how sp's program runs, from what it is linked with: sp->layer
 * for one to run on the OpenMP layer, sp->cpus for a rigid job
 * (SUPERVISE_RIGID_CPUS when none was given), and in sp->notice the line
 * that says so when it is not what the user may expect. */
static void choose(struct spawn *sp)
{
	struct program *p = malloc(sizeof(*p));
	unsigned cpus = sp->cpus ? sp->cpus : SUPERVISE_RIGID_CPUS;
	char why[2 * PATH_MAX + 128], how[64];
	const char *name = sp->argv[0], *hint = sp->cpus ? "" : " (--cpus N for N)";

	sp->notice[0] = '\0';
	sp->layer[0] = '\0';
	/* Not found or not readable: execvp says why it cannot run. */
	if (p == NULL || program_inspect(name, p) < 0)
		goto out;
	/* Linked with libasteal: an adaptive job as it is (--cpus caps it). */
	if (p->links & PROGRAM_ASTEAL)
		goto out;
	snprintf(how, sizeof(how), "a rigid job of %u CPU%s", cpus, cpus == 1 ? "" : "s");
	if (p->links & PROGRAM_LIBOMP) {
		snprintf(sp->notice, sizeof(sp->notice), "%s is linked with LLVM's "
		         "libomp%s%s: %s%s; asteal's OpenMP layer replaces libgomp.so.1 "
		         "only", name, p->via[0] ? " through " : "", p->via, how, hint);
	} else if (p->links & PROGRAM_GOMP_STATIC) {
		snprintf(sp->notice, sizeof(sp->notice), "%s has OpenMP (libgomp) linked "
		         "in statically: %s%s; asteal's OpenMP layer replaces the shared "
		         "libgomp.so.1 only", name, how, hint);
	} else if ((p->links & PROGRAM_GOMP) && !sp->omp_system) {
		if (p->links & PROGRAM_GOMP_PINNED)
			snprintf(why, sizeof(why), "its libgomp.so.1 is named by a path or "
			         "found through a DT_RPATH, which LD_LIBRARY_PATH does not "
			         "override");
		else if (layer_dir(p, sp->layer, sizeof(sp->layer), why, sizeof(why)) == 0)
			goto out;       /* on the layer: an adaptive job */
		snprintf(sp->notice, sizeof(sp->notice), "%s: %s: %s on the system's "
		         "libgomp%s", name, why, how, hint);
	} else if (sp->cpus > 0) {
		goto out;               /* rigid, as asked */
	} else if (p->links & PROGRAM_GOMP) {
		snprintf(sp->notice, sizeof(sp->notice), "%s runs on the system's libgomp "
		         "(--omp system): %s%s", name, how, hint);
	} else if (p->kind == PROGRAM_SCRIPT) {
		snprintf(sp->notice, sizeof(sp->notice), "%s is a script (#!%s), which "
		         "asteal does not look into: %s%s", name, p->interp, how, hint);
	} else if (p->kind == PROGRAM_OTHER) {
		snprintf(sp->notice, sizeof(sp->notice), "%s is not a program asteal can "
		         "read (%s): %s%s", name, p->why, how, hint);
	} else {
		snprintf(sp->notice, sizeof(sp->notice), "%s is linked with neither "
		         "libasteal nor libgomp: %s%s", name, how, hint);
	}
	sp->cpus = cpus;
out:
	free(p);
}

/* Tell the parent why the child failed, through the close-on-exec pipe
 * err, and exit (as a shell does: 127 no such program, else 126). */
static void child_fail(int err, enum child_fail what)
{
	int msg[2] = { (int)what, errno };

	if (write(err, msg, sizeof(msg)) < 0) {
		/* the parent sees the status only */
	}
	_exit(what == FAIL_EXEC && msg[1] == ENOENT ? 127 : 126);
}

/* Open a submitted job's output file from its template: the fd, or -1
 * with errno.  Truncated, then appended to (O_APPEND), so that the lines
 * its supervisor may add land after the job's. */
static int open_output(const char *tmpl, unsigned long long id)
{
	char path[PATH_MAX];

	if (expand(tmpl, id, path, sizeof(path)) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
}

/* Point a submitted job's standard streams at its files: stdin from
 * /dev/null, stdout to --output, stderr to --error or with stdout. */
static void child_streams(const struct spawn *sp, unsigned long long id, int err)
{
	char a[PATH_MAX], b[PATH_MAX];
	int null, out, efd;

	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0)
		child_fail(err, FAIL_OUTPUT);
	out = open_output(sp->output, id);
	if (out < 0 || dup2(out, STDOUT_FILENO) < 0)
		child_fail(err, FAIL_OUTPUT);
	efd = out;
	if (sp->error != NULL && (expand(sp->output, id, a, sizeof(a)) < 0 ||
	                          expand(sp->error, id, b, sizeof(b)) < 0 ||
	                          strcmp(a, b) != 0)) {
		efd = open_output(sp->error, id);
		if (efd < 0)
			child_fail(err, FAIL_ERROR);
	}
	if (dup2(efd, STDERR_FILENO) < 0)
		child_fail(err, FAIL_ERROR);
}

/* In the child: wait for the id, then exec the program (never returns).
 * err is the close-on-exec pipe that tells the parent why it failed. */
static void child(const struct cli *g, struct spawn *sp, int gate, int err)
{
	char buf[32];
	ssize_t n;
	size_t got = 0;

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
	if (sp->detached)
		child_streams(sp, strtoull(buf, NULL, 10), err);
	if (setenv("ASTEAL_SOCKET", g->socket, 1) < 0 ||
	    setenv("ASTEAL_JOB_ID", buf, 1) < 0 ||
	    setenv("ASTEAL_JOB_NAME", sp->name, 1) < 0 ||
	    (sp->cpus > 0 && set_cpus_env(sp->cpus) < 0) ||
	    (sp->layer[0] != '\0' && prepend_path("LD_LIBRARY_PATH", sp->layer) < 0))
		child_fail(err, FAIL_EXEC);
	execvp(sp->argv[0], sp->argv);
	child_fail(err, FAIL_EXEC);
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
	sp->pid = fork();
	if (sp->pid < 0) {
		cli_error("fork: %s", strerror(errno));
		return CLI_FAIL;
	}
	if (sp->pid == 0) {
		close(gate[1]);
		close(err[0]);
		close(client_fd(c));
		child(g, sp, gate[0], err[1]);
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
		if (e[0] == FAIL_EXEC)
			cli_error("%s: %s", sp->argv[0], strerror(e[1]));
		else
			cli_error("job %llu: %s %s: %s", sp->id, e[0] == FAIL_OUTPUT
			          ? "--output" : "--error", expand(e[0] == FAIL_OUTPUT
			          ? sp->output : sp->error, sp->id, path,
			          sizeof(path)) == 0 ? path : "?", strerror(e[1]));
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
		       sp->id, follow_exit_code(status), elapsed, (unsigned long long)quanta,
		       mean, (unsigned long long)work, (unsigned long long)steal,
		       (unsigned long long)mug, (unsigned long long)sleep,
		       (unsigned long long)preempted, waste);
	} else {
		fprintf(stderr, "asteal: job %llu %s: exit %d, %.2fs elapsed, %llu quanta, "
		        "mean allotment %.2f CPUs, work %s, waste %s (%.1f%%), "
		        "preempted %s\n", sp->id,
		        sp->name, follow_exit_code(status), elapsed, (unsigned long long)quanta,
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
	choose(&sp);
	if ((code = client_open(g->socket, &c)) != 0)
		return code;
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
	if (expand(sp->error != NULL ? sp->error : sp->output, sp->id, path,
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
	if ((code = parse_spawn(argc, argv, &sp, &stats, &parsable)) != 0)
		return code;
	choose(&sp);
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
	if (sp.notice[0] != '\0')
		cli_error("%s", sp.notice);     /* still on the terminal */
	code = start(g, c, &sp);
	if (code > 0) {
		dprintf(tell[1], "!%d\n", code);
		_exit(code);
	}
	client_set_quiet(c, 1);
	if (code < 0 && sp.failed - 1 != FAIL_EXEC) {
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
