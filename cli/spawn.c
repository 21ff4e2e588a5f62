/*
 * spawn.c - a job that run or submit is starting (see spawn.h): its
 * options, its output files' names, and its child.
 *
 * The child waits on a pipe until the daemon has given the job its id
 * (Launch -> Launched), then execs the program with ASTEAL_SOCKET,
 * ASTEAL_JOB_ID and ASTEAL_JOB_NAME set, so its libasteal claims that id;
 * a rigid job's child sets the thread counts runtimes read to its CPUs,
 * and one that runs on the OpenMP layer puts the layer first in
 * LD_LIBRARY_PATH.  A submitted job's child opens its output files
 * itself, once it knows the id that %j in their names stands for.  A
 * run's child dies with its supervisor (PR_SET_PDEATHSIG).  --time's
 * limit, in Slurm's forms, is parsed and written here too.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "spawn.h"

#include "client.h"
#include "proto.h"

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

/* The calling user's name (its uid as a number when it has none). */
static void user_name(char *buf, size_t len)
{
	struct passwd pw, *found = NULL;
	char tmp[1024];

	if (getpwuid_r(getuid(), &pw, tmp, sizeof(tmp), &found) == 0 && found != NULL)
		snprintf(buf, len, "%s", pw.pw_name);
	else
		snprintf(buf, len, "%u", (unsigned)getuid());
}

/* Expand a file name template. */
int spawn_path(const struct spawn *sp, const char *tmpl, char *out, size_t len)
{
	char user[64];
	size_t k = 0;
	int n;

	user_name(user, sizeof(user));
	if (sp->dir != NULL && tmpl[0] != '/') {
		n = snprintf(out, len, "%s/", sp->dir);
		if (n < 0 || (size_t)n >= len)
			return -1;
		k = (size_t)n;
	}
	for (const char *t = tmpl; *t != '\0'; t++) {
		if (*t == '%' && t[1] == 'j')
			n = snprintf(out + k, len - k, "%llu", sp->id);
		else if (*t == '%' && t[1] == 'x')
			n = snprintf(out + k, len - k, "%s", sp->name);
		else if (*t == '%' && t[1] == 'u')
			n = snprintf(out + k, len - k, "%s", user);
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
	if (tmpl[0] == '\0')
		return -1;
	out[k] = '\0';
	return 0;
}

/* Check a file name template of option opt: 0, or a usage exit code. */
static int check_template(const char *cmd, const char *opt, const char *tmpl)
{
	struct spawn probe = { .name = "x", .id = ~0ull };
	char buf[PATH_MAX];

	if (spawn_path(&probe, tmpl, buf, sizeof(buf)) == 0)
		return 0;
	return cli_usage(cmd, "%s '%s': an empty or too long name, or a %% other "
	                 "than %%j (the job id), %%x (its name), %%u (the user) and "
	                 "%%%% (a %%)", opt, tmpl);
}

/* Read a field of a time limit: 1 to 9 digits at *p, up to a character
 * of stop or the end, into *v; the character after it, or NULL when the
 * field is not so. */
static const char *time_field(const char *p, const char *stop, uint64_t *v)
{
	const char *q = p;

	*v = 0;
	while (*q >= '0' && *q <= '9' && q - p < 9)
		*v = *v * 10 + (uint64_t)(*q++ - '0');
	if (q == p || (*q != '\0' && strchr(stop, *q) == NULL))
		return NULL;
	return q;
}

/* Parse a time limit in Slurm's forms. */
int spawn_time_parse(const char *arg, uint64_t *secs)
{
	uint64_t f[4] = { 0, 0, 0, 0 }, days = 0, t;
	const char *p = arg;
	int n = 0, dash = strchr(arg, '-') != NULL;

	if (strcasecmp(arg, "unlimited") == 0 || strcasecmp(arg, "infinite") == 0) {
		*secs = 0;
		return 0;
	}
	if (dash && ((p = time_field(p, "-", &days)) == NULL || *p++ != '-'))
		return -1;
	for (;;) {
		if (n == 3 || (p = time_field(p, ":", &f[n++])) == NULL)
			return -1;
		if (*p == '\0')
			break;
		p++;                    /* a ':' */
	}
	if (dash)                       /* D-H, D-H:M, D-H:M:S */
		t = days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
	else if (n == 3)                /* H:M:S */
		t = f[0] * 3600 + f[1] * 60 + f[2];
	else                            /* M, M:S */
		t = f[0] * 60 + f[1];
	if (t > (uint64_t)PROTO_TIME_LIMIT_MAX_S)
		return -1;
	*secs = t;
	return 0;
}

/* Write a time limit as Slurm does. */
char *spawn_time_fmt(char *buf, size_t len, uint64_t secs)
{
	if (secs >= 86400)
		snprintf(buf, len, "%llu-%02llu:%02llu:%02llu",
		         (unsigned long long)(secs / 86400),
		         (unsigned long long)(secs % 86400 / 3600),
		         (unsigned long long)(secs % 3600 / 60),
		         (unsigned long long)(secs % 60));
	else
		snprintf(buf, len, "%02llu:%02llu:%02llu",
		         (unsigned long long)(secs / 3600),
		         (unsigned long long)(secs % 3600 / 60),
		         (unsigned long long)(secs % 60));
	return buf;
}

/* Parse run/submit options up to the program: 0, or an exit code. */
int spawn_parse(int argc, char **argv, struct spawn *sp, int *stats, int *parsable)
{
	/* The options run and submit share. */
#define SPAWN_LONG_OPTIONS \
		{ "name", required_argument, NULL, 'J' }, \
		{ "chdir", required_argument, NULL, 'D' }, \
		{ "cpus", required_argument, NULL, 'c' }, \
		{ "omp", required_argument, NULL, 'O' }, \
		{ "time", required_argument, NULL, 't' }
	static const struct option run_opts[] = {
		SPAWN_LONG_OPTIONS,
		{ "stats", no_argument, NULL, 's' },
		{ NULL, no_argument, NULL, 0 },
	};
	static const struct option submit_opts[] = {
		SPAWN_LONG_OPTIONS,
		{ "wrap", required_argument, NULL, 'w' },
		{ "output", required_argument, NULL, 'o' },
		{ "error", required_argument, NULL, 'e' },
		{ "parsable", no_argument, NULL, 'p' },
		{ NULL, no_argument, NULL, 0 },
	};
#undef SPAWN_LONG_OPTIONS
	const char *cmd = argv[0];
	char *end;
	unsigned long v;
	uint64_t secs;
	const char *base;
	int o, bad;

	while ((o = getopt_long(argc, argv, sp->detached ? "+c:J:o:e:D:t:" : "+c:J:D:t:",
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
		case 't':
			if (spawn_time_parse(optarg, &secs) == 0) {
				sp->time_limit_ns = secs * 1000000000u;
				break;
			}
			return cli_usage(cmd, "--time: '%s' is not a time limit: "
			                 "MINUTES, MINUTES:SECONDS, HOURS:MINUTES:"
			                 "SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES or "
			                 "DAYS-HOURS:MINUTES:SECONDS (as sbatch --time; "
			                 "0 or UNLIMITED: none), at most %lld days",
			                 optarg, (long long)PROTO_TIME_LIMIT_MAX_S / 86400);
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
		case 'D':
			if (*optarg == '\0' || strlen(optarg) > PATH_MAX / 2)
				return cli_usage(cmd, "--chdir: a folder's name");
			sp->dir = optarg;
			break;
		case 'w':
			sp->wrap[0] = (char *)"sh";
			sp->wrap[1] = (char *)"-c";
			sp->wrap[2] = optarg;
			break;
		default:
			return cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0 &&
	    strcmp(argv[optind], "--") == 0)
		optind++;
	if (sp->wrap[0] != NULL && optind < argc)
		return cli_usage(cmd, "--wrap runs its command: no program beside it");
	if (sp->wrap[0] == NULL && optind >= argc)
		return cli_usage(cmd, "no program to run (asteal %s [OPTIONS] -- "
		                 "PROGRAM [ARGS...])", cmd);
	sp->argv = sp->wrap[0] != NULL ? sp->wrap : argv + optind;
	if (sp->wrap[0] != NULL && sp->name == NULL)
		sp->name = "wrap";      /* as sbatch names it */
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

/* Tell the parent why the child failed, through the close-on-exec pipe
 * err, and exit (as a shell does: 127 no such program, else 126). */
static void child_fail(int err, enum spawn_fail what)
{
	int msg[2] = { (int)what, errno };

	if (write(err, msg, sizeof(msg)) < 0) {
		/* the parent sees the status only */
	}
	_exit(what == SPAWN_FAIL_EXEC && msg[1] == ENOENT ? 127 : 126);
}

/* Open a submitted job's output file from its template: the fd, or -1
 * with errno.  Truncated, then appended to (O_APPEND), so that the lines
 * its supervisor may add land after the job's. */
static int open_output(const struct spawn *sp, const char *tmpl)
{
	char path[PATH_MAX];

	if (spawn_path(sp, tmpl, path, sizeof(path)) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
}

/* Point a submitted job's standard streams at its files: stdin from
 * /dev/null, stdout to --output, stderr to --error or with stdout. */
static void child_streams(const struct spawn *sp, int err)
{
	char a[PATH_MAX], b[PATH_MAX];
	int null, out, efd;

	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0)
		child_fail(err, SPAWN_FAIL_OUTPUT);
	out = open_output(sp, sp->output);
	if (out < 0 || dup2(out, STDOUT_FILENO) < 0)
		child_fail(err, SPAWN_FAIL_OUTPUT);
	efd = out;
	if (sp->error != NULL && (spawn_path(sp, sp->output, a, sizeof(a)) < 0 ||
	                          spawn_path(sp, sp->error, b, sizeof(b)) < 0 ||
	                          strcmp(a, b) != 0)) {
		efd = open_output(sp, sp->error);
		if (efd < 0)
			child_fail(err, SPAWN_FAIL_ERROR);
	}
	if (dup2(efd, STDERR_FILENO) < 0)
		child_fail(err, SPAWN_FAIL_ERROR);
}

/* Check --cpus against the daemon's CPUs. */
int spawn_check_cpus(const struct spawn *sp, const struct client *c)
{
	int n = client_ncpus(c);

	if (sp->cpus == 0 || n <= 0 || sp->cpus <= (unsigned)n)
		return 0;
	cli_error("--cpus %u: asteald shares %d CPU%s; a job may have at most "
	          "that many", sp->cpus, n, n == 1 ? "" : "s");
	return CLI_USAGE;
}

/* In the child: wait for the id, then exec the program (never returns).
 * err is the close-on-exec pipe that tells the parent why it failed. */
void spawn_child(const struct cli *g, struct spawn *sp, int gate, int err)
{
	char buf[32];
	ssize_t n;
	size_t got = 0;

	/* run: die with the supervisor; one dead already is no parent */
	if (!sp->detached && (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
	                      getppid() != sp->parent))
		_exit(127);
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
	sp->id = strtoull(buf, NULL, 10);
	if (sp->detached)
		child_streams(sp, err);
	if (sp->dir != NULL && chdir(sp->dir) < 0)
		child_fail(err, SPAWN_FAIL_CHDIR);
	if (setenv("ASTEAL_SOCKET", g->socket, 1) < 0 ||
	    setenv("ASTEAL_JOB_ID", buf, 1) < 0 ||
	    setenv("ASTEAL_JOB_NAME", sp->name, 1) < 0 ||
	    (sp->cpus > 0 && set_cpus_env(sp->cpus) < 0) ||
	    (sp->layer[0] != '\0' && prepend_path("LD_LIBRARY_PATH", sp->layer) < 0))
		child_fail(err, SPAWN_FAIL_EXEC);
	execvp(sp->argv[0], sp->argv);
	child_fail(err, SPAWN_FAIL_EXEC);
}
