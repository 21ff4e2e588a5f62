/*
 * spawn.h - a job that `asteal run` or `submit` is starting: its options,
 * the names of its output files, and its child, which waits for the job's
 * id, then points its streams and environment where they go and execs
 * the program.  supervise.c starts and supervises it; runmode.c chooses
 * how its program runs.
 */
#ifndef ASTEAL_CLI_SPAWN_H
#define ASTEAL_CLI_SPAWN_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli.h"

/* What the child failed at, as it tells the parent (with errno). */
enum spawn_fail { SPAWN_FAIL_EXEC, SPAWN_FAIL_OUTPUT, SPAWN_FAIL_ERROR,
	SPAWN_FAIL_CHDIR };

/* A job being started. */
struct spawn {
	const char *name;         /* --name, or the program's base name */
	char **argv;              /* the program and its arguments */
	char command[256];        /* argv as one line */
	const char *output;       /* submit: where its stdout (and stderr) go */
	const char *error;        /* submit: where its stderr goes, or NULL */
	const char *dir;          /* -D: its working folder, or NULL (ours) */
	char *wrap[4];            /* submit --wrap: sh -c COMMAND */
	unsigned cpus;            /* --cpus N: a rigid job of N CPUs; 0 none */
	int omp_system;           /* --omp system: never the OpenMP layer */
	char layer[PATH_MAX];     /* the layer's folder, put first in LD_LIBRARY_PATH */
	char notice[3 * PATH_MAX]; /* how it runs, said before it starts, or "" */
	int failed;               /* the child failed: an enum spawn_fail + 1 */
	int detached;             /* submit */
	pid_t pid;
	unsigned long long id;
	uint64_t started_ns;
};

/* Parse run's or submit's options (sp->detached) up to the program into
 * *sp, *stats (--stats) and *parsable (--parsable): 0, or an exit code
 * after a usage message. */
int spawn_parse(int argc, char **argv, struct spawn *sp, int *stats, int *parsable);

/* Whether sp's --cpus fits the daemon c speaks to: 0, or CLI_USAGE after
 * saying how many CPUs it shares (a rigid job of more could never be
 * allotted them, and its runtimes would start that many threads). */
struct client;
int spawn_check_cpus(const struct spawn *sp, const struct client *c);

/* A file name template of sp's with %j replaced by the job id, %x by
 * its name, %u by the user's name and %% by %, and, when relative, under
 * sp's -D folder: into out (len bytes): 0, or -1 when it has another %
 * or does not fit. */
int spawn_path(const struct spawn *sp, const char *tmpl, char *out, size_t len);

/* In the child: wait on the pipe gate for the job's id, then exec the
 * program; never returns.  err is the close-on-exec pipe that tells the
 * parent why it failed (two ints: an enum spawn_fail and errno). */
void spawn_child(const struct cli *g, struct spawn *sp, int gate, int err);

#endif
