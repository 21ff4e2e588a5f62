/*
 * main.c - `asteal`, the command line of the asteal scheduler: global
 * options, the command table, help, and the helpers every command shares
 * (messages, usage errors, job ids).  The commands live in supervise.c
 * (run, submit), follow.c (wait, cancel) and query_*.c (jobs, history,
 * status).
 */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asteal.h"
#include "cli.h"
#include "proto.h"

/* One command. */
struct command {
	const char *name;
	int (*run)(const struct cli *g, int argc, char **argv);
	const char *synopsis;
	const char *help;
	const char *valued;   /* its options that take a value in the next
	                         argument, blank-separated ("-c --cpus"): the
	                         scan for global options skips those values */
	int program;          /* its first operand starts a program's command
	                         line, which the scan leaves alone */
};

/* The options of the query commands that take a value (query.h). */
#define QUERY_VALUED "-u --user --name --state -S --since -E --until -o --format"

static const struct command commands[] = {
	{ "run", supervise_run,
	  "run [-J|--name NAME] [-c|--cpus N] [--omp layer|system] [-D|--chdir DIR] "
	  "[-t|--time LIMIT] [--stats] -- PROGRAM [ARGS...]",
	  "Run a job in the foreground under the daemon; exit with its status.\n"
	  "A program linked with libasteal, or with libgomp (run on asteal's\n"
	  "OpenMP layer), is an adaptive job; any other a rigid job (of 1 CPU\n"
	  "unless --cpus, said in one line).  If asteal run is killed, the job\n"
	  "is killed with it (SIGKILL).\n"
	  "  -J, --name NAME  the job's name (default: the program's)\n"
	  "  -c, --cpus N  a rigid job of N CPUs, for a program not linked with\n"
	  "                libasteal (OMP_NUM_THREADS and the like set to N);\n"
	  "                an adaptive program's desire is capped at N\n"
	  "  --omp layer   run a program linked with libgomp on asteal's OpenMP\n"
	  "                layer, as an adaptive job (the default)\n"
	  "  --omp system  on the system's libgomp instead, as a rigid job\n"
	  "  -D, --chdir DIR  run it in DIR\n"
	  "  -t, --time LIMIT  stop it after LIMIT (SIGTERM, then SIGKILL after\n"
	  "                asteald's kill-wait): MINUTES, MM:SS, HH:MM:SS, D-HH,\n"
	  "                D-HH:MM or D-HH:MM:SS, as sbatch --time\n"
	  "  --stats       print a summary line when it ends\n",
	  "-J --name -c --cpus --omp -D --chdir -t --time", 1 },
	{ "submit", supervise_submit,
	  "submit [-J|--name NAME] [-c|--cpus N] [--omp layer|system] [-o|--output FILE] "
	  "[-e|--error FILE] [-D|--chdir DIR] [-t|--time LIMIT] [--parsable] "
	  "(-- PROGRAM [ARGS...] | --wrap COMMAND)",
	  "Start a job detached and print its id (adaptive or rigid as for run).\n"
	  "  -J, --name NAME    the job's name (default: the program's)\n"
	  "  -c, --cpus N       a rigid job of N CPUs (as for run)\n"
	  "  --omp layer|system a libgomp program on asteal's OpenMP layer\n"
	  "                     (default) or on the system's libgomp (as for run)\n"
	  "  -o, --output FILE  its standard output, and its standard error\n"
	  "                     unless -e (default asteal-%j.out; %j is the\n"
	  "                     job id, %x its name, %u the user, %% a %)\n"
	  "  -e, --error FILE   its standard error (named as for -o)\n"
	  "  -D, --chdir DIR    run it in DIR (relative file names under it)\n"
	  "  -t, --time LIMIT   stop it after LIMIT (as for run)\n"
	  "  --wrap COMMAND     run sh -c COMMAND (named wrap), no PROGRAM\n"
	  "  --parsable         print only the id\n",
	  "-J --name -c --cpus --omp -o --output -e --error -D --chdir -t --time "
	  "--wrap", 1 },
	{ "wait", follow_wait, "wait [-t|--timeout SECONDS] JOB...",
	  "Wait until the jobs end; exit with the first failure's status, in the\n"
	  "order given (0: all succeeded; 128+N: killed by signal N; 1: status\n"
	  "unknown or no such job).  A job stopped at its time limit is said.\n"
	  "  -t, --timeout S  give up after S seconds (exit 124)\n",
	  "-t --timeout", 0 },
	{ "cancel", follow_cancel,
	  "cancel [-s|--signal SIG] [-u|--user U] [--name N] [--state S] [JOB...]",
	  "Send jobs a signal (default TERM); only their owner or root may.\n"
	  "  -s, --signal SIG  a name (TERM, SIGKILL) or a number\n"
	  "  -u, --user LIST, --name LIST, --state LIST\n"
	  "                    every running job that passes these (as for jobs),\n"
	  "                    among the JOBs if some are named\n",
	  "-s --signal -u --user --name --state", 0 },
	{ "jobs", query_jobs,
	  "jobs [--watch] [--interval SECONDS] [FILTERS] [OUTPUT] [JOB...]",
	  "List the running jobs: id, name, user, pid, desire, allotment, CPUs,\n"
	  "age and efficiency.\n"
	  "  --watch       refresh like top: on a terminal the whole screen, else\n"
	  "                refreshes one after another; a daemon restarting is\n"
	  "                waited out (q or Ctrl-C to quit)\n"
	  "  --interval S  refresh every S seconds (default 1)\n"
	  "Filters (a job passes if it matches each one given; lists are\n"
	  "comma-separated, any item matches):\n"
	  "  -u, --user LIST    user names or uids\n"
	  "  --name LIST        job names\n"
	  "  --state LIST       running, waiting, idle, unmanaged\n"
	  "  -S, --since T, -E, --until T   started in [T, T']: see history\n"
	  "Output:\n"
	  "  -o, --format LIST  the columns (asteal(1); a bad name lists them);\n"
	  "                     NAME%N: N characters wide, a longer value cut\n"
	  "                     with '+'\n"
	  "  --helpformat       list the columns, their keys and the defaults\n"
	  "  -n, --noheader     no header line\n"
	  "  -P, --parsable     cells separated by '|', unpadded\n"
	  "  --csv              CSV, raw values (ns, fractions)\n",
	  QUERY_VALUED " --interval", 0 },
	{ "history", query_history,
	  "history [--jobs] [FILTERS] [OUTPUT] [--limit N] [--plot FILE.svg] "
	  "[--db FILE] [JOB...]",
	  "Show the allotment history: one row per allotment change, oldest\n"
	  "first; as sacct, today's (from local midnight on) unless -S, -E or\n"
	  "JOBs say which (JOBs whenever they ran, unless -S or -E too).\n"
	  "  --jobs        list jobs (with exit status) instead of allotments\n"
	  "  --limit N     only the last N rows: the most recent, oldest first\n"
	  "  --plot FILE   write a chart of desire and allotment over time (SVG;\n"
	  "                - for standard output)\n"
	  "  --db FILE     read the history file itself, without a daemon\n"
	  "                (read-only)\n"
	  "Filters (as for jobs):\n"
	  "  -u, --user LIST    user names or uids\n"
	  "  --name LIST        job names\n"
	  "  --state LIST       running, completed, failed, killed, unknown,\n"
	  "                     timeout\n"
	  "  -S, --since T, -E, --until T   only what overlaps [T, T']; T is\n"
	  "                     now, today, yesterday, -30s, -5min, -2h, -1d,\n"
	  "                     now-1h, @EPOCH, YYYY-MM-DD[THH:MM[:SS]], or what\n"
	  "                     date -d reads ('1 hour ago', 17:30, ISO 8601)\n"
	  "Output:\n"
	  "  -o, --format LIST  the columns (asteal(1); a bad name lists them);\n"
	  "                     NAME%N: N characters wide, a longer value cut\n"
	  "                     with '+'; --format table, json or csv: that form\n"
	  "  --helpformat       list the columns (of --jobs with it), their\n"
	  "                     keys and the defaults\n"
	  "  -n, --noheader     no header line\n"
	  "  -P, --parsable     cells separated by '|', unpadded\n"
	  "  --csv              CSV, raw values (ns)\n",
	  QUERY_VALUED " --limit --plot --db", 0 },
	{ "status", query_status, "status",
	  "Show the daemon's version, CPUs, quantum, jobs, uptime and tick latency.\n",
	  "", 0 },
	{ "show", query_show, "show JOB...",
	  "All that is known of each job, as scontrol show job: what jobs says\n"
	  "of it while it runs and its record in the history (history --jobs),\n"
	  "a FIELD and its value a line; --json: an object per job with both\n"
	  "(running, history: null where there is none).  A job that is in\n"
	  "neither is said, and makes the exit status 1.\n",
	  "", 0 },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* Print a message. */
void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("asteal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Print a usage error. */
int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "asteal%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'asteal help%s%s'.\n", cmd ? " " : "", cmd ? cmd : "");
	return CLI_USAGE;
}

/* Parse a job id. */
int cli_job_id(const char *cmd, const char *s, unsigned long long *id)
{
	char *end;

	errno = 0;
	*id = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || *id == 0) {
		cli_usage(cmd, "'%s' is not a job id (a positive number)", s);
		return -1;
	}
	return 0;
}

/* The overall usage. */
static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: asteal [--socket PATH] [--json] COMMAND [ARGS]\n"
	        "The command line of asteal, the two-level adaptive scheduler.\n\n"
	        "Commands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  asteal %s\n", commands[i].synopsis);
	fprintf(f, "\nOptions:\n"
	        "  --socket PATH  the daemon's socket (default $%s, else %s)\n"
	        "  --json         machine-readable output\n"
	        "  -h, --help     this help; 'asteal help COMMAND' for a command's\n"
	        "  -V, --version  the version\n"
	        "They may also follow the command (up to --, and up to run's and\n"
	        "submit's program).\n\n"
	        "Exit status: 0 success, 1 failure, 2 usage, 69 daemon unreachable,\n"
	        "77 permission denied; run and wait: the job's own; wait: 124 timed\n"
	        "out.\n",
	        PROTO_SOCKET_ENV, PROTO_SOCKET_PATH);
}

/* The command named name, or NULL. */
static const struct command *find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* Whether arg is one of c's options that take the next argument as their
 * value: "--name" (not "--name=X"), or a cluster of short options whose
 * last letter takes one ("-c", "-nu"; not "-c2"). */
static int takes_next(const struct command *c, const char *arg)
{
	size_t n = strlen(arg);
	const char *w = c->valued;

	if (w == NULL || arg[0] != '-' || n < 2)
		return 0;
	if (arg[1] != '-') {
		/* a short cluster: the first letter that takes a value takes
		 * the rest of the cluster, or the next argument when last */
		for (size_t k = 1; k < n; k++) {
			char one[3] = { '-', arg[k], '\0' };

			for (w = c->valued; *w != '\0'; w += strcspn(w, " "),
			     w += strspn(w, " "))
				if (strncmp(w, one, 2) == 0 && (w[2] == ' ' || w[2] == '\0'))
					return k == n - 1;
		}
		return 0;
	}
	for (; *w != '\0'; w += strcspn(w, " "), w += strspn(w, " "))
		if (strncmp(w, arg, n) == 0 && (w[n] == ' ' || w[n] == '\0'))
			return 1;
	return 0;
}

/* The global options given after the command (git's and systemctl's
 * habit): take --socket PATH, --socket=PATH and --json out of argv into
 * g, up to "--" and, for run and submit, up to the program; a command's
 * own option and its value stay.  Returns the new argc, -1 after a help
 * text (exit 0), or -2 after a usage error. */
static int global_after(const struct command *c, struct cli *g, int argc,
                        char **argv)
{
	int i = 1;

	while (i < argc && strcmp(argv[i], "--") != 0) {
		const char *a = argv[i];
		int take = 0;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("Usage: asteal %s\n%s", c->synopsis, c->help);
			return -1;
		}
		if (strcmp(a, "--json") == 0) {
			g->json = 1;
			take = 1;
		} else if (strncmp(a, "--socket=", 9) == 0) {
			g->socket = a + 9;
			take = 1;
		} else if (strcmp(a, "--socket") == 0) {
			if (i + 1 >= argc) {
				cli_usage(c->name, "option '--socket' needs a value "
				          "(the daemon's socket path)");
				return -2;
			}
			g->socket = argv[i + 1];
			take = 2;
		} else if (a[0] != '-' || a[1] == '\0') {
			if (c->program)
				break;          /* the program and its arguments */
		} else if (takes_next(c, a)) {
			i++;                    /* the value, whatever it looks like */
		}
		if (take == 0) {
			i++;
			continue;
		}
		memmove(argv + i, argv + i + take,
		        (size_t)(argc - i - take + 1) * sizeof(*argv));
		argc -= take;
	}
	return argc;
}

/* A hint for a command asteal does not have but users try. */
static const char *hint(const char *name)
{
	static const char *const hints[][2] = {
		{ "plot", "a chart of the history: asteal history --plot FILE.svg" },
		{ "kill", "asteal cancel [-s SIGNAL] JOB" },
		{ "ps", "the running jobs: asteal jobs" },
		{ "queue", "the running jobs: asteal jobs" },
		{ "list", "the running jobs: asteal jobs" },
	};

	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (strcmp(hints[i][0], name) == 0)
			return hints[i][1];
	return NULL;
}

/* Say that there is no command name (with a hint when one fits). */
static int no_command(const char *name)
{
	const char *h = hint(name);

	if (h != NULL)
		return cli_usage(NULL, "no command '%s' (%s)", name, h);
	return cli_usage(NULL, "no command '%s'", name);
}

/* `asteal help [COMMAND]`. */
static int help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stdout);
		return CLI_OK;
	}
	c = find(argv[1]);
	if (c == NULL)
		return no_command(argv[1]);
	printf("Usage: asteal %s\n%s", c->synopsis, c->help);
	return CLI_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli g;
	const struct command *c;
	const char *env = getenv(PROTO_SOCKET_ENV);
	int o;

	/* the terminal's encoding, for the width of names in tables */
	setlocale(LC_CTYPE, "");
	memset(&g, 0, sizeof(g));
	g.prog = "asteal";
	g.socket = env != NULL && *env != '\0' && strcmp(env, "none") != 0
	           ? env : PROTO_SOCKET_PATH;
	g.tty = isatty(STDOUT_FILENO);
	opterr = 0;
	while ((o = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			g.socket = optarg;
			break;
		case 'j':
			g.json = 1;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		case 'V':
			printf("asteal %s (protocol %u)\n", ASTEAL_VERSION, PROTO_VERSION);
			return CLI_OK;
		case ':':
			return cli_usage(NULL, "option '%s' needs a value%s",
			                 argv[optind - 1], optopt == 's'
			                 ? " (the daemon's socket path)" : "");
		default:
			return cli_usage(NULL, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return CLI_USAGE;
	}
	argc -= optind;
	argv += optind;
	if (strcmp(argv[0], "help") == 0)
		return help(argc, argv);
	c = find(argv[0]);
	if (c == NULL)
		return no_command(argv[0]);
	argc = global_after(c, &g, argc, argv);
	if (argc < 0)
		return argc == -1 ? CLI_OK : CLI_USAGE;
	optind = 0;             /* each command runs getopt afresh */
	opterr = 0;
	return c->run(&g, argc, argv);
}
