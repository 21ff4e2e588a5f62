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
	uint64_t time_limit_ns;   /* --time LIMIT: its wall-clock limit; 0 none */
	int omp_system;           /* --omp system: never the OpenMP layer */
	char layer[PATH_MAX];     /* the layer's folder, put first in LD_LIBRARY_PATH */
	char notice[3 * PATH_MAX]; /* how it runs, said before it starts, or "" */
	int failed;               /* the child failed: an enum spawn_fail + 1 */
	int detached;             /* submit */
	pid_t parent;             /* run: the supervisor the child dies with */
	pid_t pid;
	unsigned long long id;
	uint64_t started_ns;
};

/* Parse run's or submit's options (sp->detached) up to the program into
 * *sp, *stats (--stats) and *parsable (--parsable): 0, or an exit code
 * after a usage message. */
int spawn_parse(int argc, char **argv, struct spawn *sp, int *stats, int *parsable);

/* Parse a time limit (--time) in one of Slurm's forms, as sbatch --time
 * takes it: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS,
 * DAYS-HOURS:MINUTES or DAYS-HOURS:MINUTES:SECONDS (each field digits,
 * none range-checked: 90 is 90 minutes, 1:90 is 2:30), or 0, UNLIMITED or
 * INFINITE for none: 0 with the seconds in *secs (0: none), or -1 for
 * anything else or a limit beyond PROTO_TIME_LIMIT_MAX_S. */
int spawn_time_parse(const char *arg, uint64_t *secs);

/* A time limit of secs seconds as Slurm writes one ([D-]HH:MM:SS), into
 * buf (len bytes); returns buf. */
char *spawn_time_fmt(char *buf, size_t len, uint64_t secs);

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
 * parent why it failed (two ints: an enum spawn_fail and errno).  A run's
 * child (not detached) dies with its supervisor, sp->parent: SIGKILL from
 * the kernel as the supervisor dies (PR_SET_PDEATHSIG, kept across exec
 * but for set-user-ID programs; a supervisor dead already before it is
 * set is seen, and the child runs nothing). */
void spawn_child(const struct cli *g, struct spawn *sp, int gate, int err);

#endif
