/*
 * cli.h - what every `asteal` command shares: the global options, the exit
 * codes, and the commands' entry points (one module per group).
 *
 * Exit codes (asteal(1)): 0 success, 1 failure, 2 usage, 69 the daemon is
 * unreachable, 77 permission denied; `run` and `wait` exit with the job's
 * own status instead (128 + N when a signal N killed it), and `wait` with
 * 124 when its --timeout passed first (as timeout(1)).
 */
#ifndef ASTEAL_CLI_H
#define ASTEAL_CLI_H

#define CLI_OK 0
#define CLI_FAIL 1
#define CLI_USAGE 2
#define CLI_UNAVAILABLE 69
#define CLI_NOPERM 77
#define CLI_TIMEOUT 124

/* The most CPUs `run` and `submit --cpus` take (the daemon's SCHED_MAX_WORKERS). */
#define CLI_MAX_CPUS 65536

/* The global options, parsed by main.c before the command. */
struct cli {
	const char *socket;   /* --socket, else $ASTEAL_SOCKET, else the system path */
	int json;             /* --json: machine-readable output */
	int tty;              /* stdout is a terminal */
	const char *prog;     /* "asteal", for messages */
};

/* Print "asteal: " and a formatted message on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a usage error for a command ("asteal run: ...; try asteal help
 * run") and return CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse a job id (a positive decimal): 0, or -1 after a usage message. */
int cli_job_id(const char *cmd, const char *s, unsigned long long *id);

/* The commands: argv[0] is the command's name; each returns an exit code. */
int supervise_run(const struct cli *g, int argc, char **argv);     /* run */
int supervise_submit(const struct cli *g, int argc, char **argv);  /* submit */
int follow_wait(const struct cli *g, int argc, char **argv);       /* wait */
int follow_cancel(const struct cli *g, int argc, char **argv);     /* cancel */

/* The exit code that tells a wait status: the job's own, or 128 + the
 * signal that killed it (follow.c). */
int follow_exit_code(int status);
int query_jobs(const struct cli *g, int argc, char **argv);        /* jobs */
int query_history(const struct cli *g, int argc, char **argv);     /* history */
int query_status(const struct cli *g, int argc, char **argv);      /* status */
int query_show(const struct cli *g, int argc, char **argv);        /* show */

#endif
