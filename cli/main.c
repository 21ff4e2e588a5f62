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
};

static const struct command commands[] = {
	{ "run", supervise_run,
	  "run [-J|--name NAME] [-c|--cpus N] [--omp layer|system] [-D|--chdir DIR] "
	  "[--stats] -- PROGRAM [ARGS...]",
	  "Run a job in the foreground under the daemon; exit with its status.\n"
	  "A program linked with libasteal, or with libgomp (run on asteal's\n"
	  "OpenMP layer), is an adaptive job; any other a rigid job (of 1 CPU\n"
	  "unless --cpus, said in one line).\n"
	  "  -J, --name NAME  the job's name (default: the program's)\n"
	  "  -c, --cpus N  a rigid job of N CPUs, for a program not linked with\n"
	  "                libasteal (OMP_NUM_THREADS and the like set to N);\n"
	  "                an adaptive program's desire is capped at N\n"
	  "  --omp layer   run a program linked with libgomp on asteal's OpenMP\n"
	  "                layer, as an adaptive job (the default)\n"
	  "  --omp system  on the system's libgomp instead, as a rigid job\n"
	  "  -D, --chdir DIR  run it in DIR\n"
	  "  --stats       print a summary line when it ends\n" },
	{ "submit", supervise_submit,
	  "submit [-J|--name NAME] [-c|--cpus N] [--omp layer|system] [-o|--output FILE] "
	  "[-e|--error FILE] [-D|--chdir DIR] [--parsable] "
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
	  "  --wrap COMMAND     run sh -c COMMAND (named wrap), no PROGRAM\n"
	  "  --parsable         print only the id\n" },
	{ "wait", follow_wait, "wait [-t|--timeout SECONDS] JOB...",
	  "Wait until the jobs end; exit with the first failure's status, in the\n"
	  "order given (0: all succeeded; 128+N: killed by signal N; 1: status\n"
	  "unknown or no such job).\n"
	  "  -t, --timeout S  give up after S seconds (exit 124)\n" },
	{ "cancel", follow_cancel,
	  "cancel [-s|--signal SIG] [-u|--user U] [--name N] [--state S] [JOB...]",
	  "Send jobs a signal (default TERM); only their owner or root may.\n"
	  "  -s, --signal SIG  a name (TERM, SIGKILL) or a number\n"
	  "  -u, --user LIST, --name LIST, --state LIST\n"
	  "                    every running job that passes these (as for jobs),\n"
	  "                    among the JOBs if some are named\n" },
	{ "jobs", query_jobs,
	  "jobs [--watch] [--interval SECONDS] [FILTERS] [OUTPUT] [JOB...]",
	  "List the running jobs: id, name, user, pid, desire, allotment, CPUs,\n"
	  "age and efficiency.\n"
	  "  --watch       refresh like top (q or Ctrl-C to quit)\n"
	  "  --interval S  refresh every S seconds (default 1)\n"
	  "Filters (a job passes if it matches each one given; lists are\n"
	  "comma-separated, any item matches):\n"
	  "  -u, --user LIST    user names or uids\n"
	  "  --name LIST        job names\n"
	  "  --state LIST       running, waiting, idle, unmanaged\n"
	  "  -S, --since T, -E, --until T   started in [T, T']: see history\n"
	  "Output:\n"
	  "  -o, --format LIST  the columns (asteal(1); a bad name lists them)\n"
	  "  -n, --noheader     no header line\n"
	  "  -P, --parsable     cells separated by '|', unpadded\n"
	  "  --csv              CSV, raw values (ns, fractions)\n" },
	{ "history", query_history,
	  "history [--jobs] [FILTERS] [OUTPUT] [--plot FILE.svg] [--db FILE] [JOB...]",
	  "Show the allotment history: one row per allotment change.\n"
	  "  --jobs        list jobs (with exit status) instead of allotments\n"
	  "  --plot FILE   write a chart of desire and allotment over time (SVG;\n"
	  "                - for standard output)\n"
	  "  --db FILE     read the history file itself, without a daemon\n"
	  "                (read-only)\n"
	  "Filters (as for jobs):\n"
	  "  -u, --user LIST    user names or uids\n"
	  "  --name LIST        job names\n"
	  "  --state LIST       running, completed, failed, killed, unknown\n"
	  "  -S, --since T, -E, --until T   only what overlaps [T, T']; T is\n"
	  "                     now, today, yesterday, -30s, -5min, -2h, -1d,\n"
	  "                     @EPOCH, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]\n"
	  "                     (local time)\n"
	  "Output:\n"
	  "  -o, --format LIST  the columns (asteal(1); a bad name lists them);\n"
	  "                     --format table, json or csv: that form\n"
	  "  -n, --noheader     no header line\n"
	  "  -P, --parsable     cells separated by '|', unpadded\n"
	  "  --csv              CSV, raw values (ns)\n" },
	{ "status", query_status, "status",
	  "Show the daemon's version, CPUs, quantum, jobs, uptime and tick latency.\n" },
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
	        "  -V, --version  the version\n\n"
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
		return cli_usage(NULL, "no command '%s'", argv[1]);
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
	int o, i;

	/* the terminal's encoding, for the width of names in tables */
	setlocale(LC_CTYPE, "");
	memset(&g, 0, sizeof(g));
	g.prog = "asteal";
	g.socket = env != NULL && *env != '\0' && strcmp(env, "none") != 0
	           ? env : PROTO_SOCKET_PATH;
	g.tty = isatty(STDOUT_FILENO);
	opterr = 0;
	while ((o = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
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
		return cli_usage(NULL, "no command '%s'", argv[0]);
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("Usage: asteal %s\n%s", c->synopsis, c->help);
			return CLI_OK;
		}
		if (strcmp(argv[i], "--json") == 0) {
			/* Global, but welcome after the command too. */
			g.json = 1;
			memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof(*argv));
			argc--;
			i--;
		}
	}
	optind = 0;             /* each command runs getopt afresh */
	opterr = 0;
	return c->run(&g, argc, argv);
}
