/*
 * conf.h - asteald's settings: defaults, then a config file, then the
 * command line (each overrides the one before).  A bad option or config
 * line is a clear one-line message and exit status 2 from main.
 *
 * Config file: "key = value" lines, '#' comment lines and blank lines
 * ignored; keys are the long options without the dashes (socket, db, cpus,
 * quantum-ms, offset-us, handover, share, log-level, retention-days,
 * max-jobs, max-clients, max-user-jobs, max-user-clients, hello-timeout-ms,
 * kill-wait, admin-group, private-history, socket-mode, rt-priority,
 * confine, confine-with).  The switch
 * private-history takes yes or no there.  The default file
 * /etc/asteal/asteald.conf is read when it exists; --config FILE must.  Errors name the file and line
 * ("asteald.conf:7: unknown key 'quantum'").  The option and key
 * deadline-ms, gone since protocol 2, are refused with a pointer to
 * offset-us.  conf.c has the details.
 */
#ifndef ASTEAL_CONF_H
#define ASTEAL_CONF_H

#include <stddef.h>

#include "cpulist.h"
#include "log.h"

#define CONF_DEFAULT_FILE "/etc/asteal/asteald.conf"
#define CONF_DEFAULT_DB "/var/lib/asteal/history.db"

/* --handover: how a CPU that DEQ moves from one job to another changes
 * hands.  IMMEDIATE tells both jobs at once; RELEASE tells the losing job
 * first and grants the CPU to the gaining job once the losing job reports
 * (Released) that its leaving workers have parked, or after a quarter of
 * the quantum if it never does. */
enum conf_handover {
	CONF_HANDOVER_IMMEDIATE,
	CONF_HANDOVER_RELEASE,
};

/* --share: what DEQ equipartitions.  USER: among the users with demand
 * first, then among each user's jobs (the default: a user's many jobs
 * cannot crowd out another user); JOB: among the jobs (the paper's flat
 * DEQ, which the simulator uses). */
enum conf_share {
	CONF_SHARE_USER,
	CONF_SHARE_JOB,
};

/* --confine: which jobs asteald holds to the CPUs it allots them (with
 * a cgroup cpuset or sched_setaffinity, --confine-with): RIGID, the jobs
 * launched with --cpus N (whether or not they link libasteal); ALL, every
 * job; OFF, none; AUTO (the default) is ALL when a cgroup can be managed,
 * else RIGID. */
enum conf_confine {
	CONF_CONFINE_AUTO,
	CONF_CONFINE_OFF,
	CONF_CONFINE_RIGID,
	CONF_CONFINE_ALL,
};

/* --confine-with: how.  AUTO: a cgroup when one can be managed, else
 * sched_setaffinity; CGROUP: a cgroup or asteald does not start;
 * AFFINITY: sched_setaffinity on every thread, re-applied each quantum. */
enum conf_confine_with {
	CONF_CONFINE_WITH_AUTO,
	CONF_CONFINE_WITH_CGROUP,
	CONF_CONFINE_WITH_AFFINITY,
};

struct conf {
	char socket[108];          /* --socket PATH (default $ASTEAL_SOCKET when set
	                              and not empty, else PROTO_SOCKET_PATH) */
	char db[4096];             /* --db PATH (default $STATE_DIRECTORY/history.db,
	                              its first path, else CONF_DEFAULT_DB) */
	int cpus[CPULIST_MAX];     /* --cpus LIST, ascending, all among
	                              cpulist_allowed (default: all of those) */
	int ncpus;
	int quantum_us;            /* --quantum-ms N, fractions allowed (default 10 ms),
	                              from 0.1 ms to 10 s */
	int offset_us;             /* --offset-us N: how far into each quantum DEQ
	                              runs and the Allots go out, in microseconds
	                              (default: a tenth of the quantum; 0 to less
	                              than the quantum) */
	int handover;              /* --handover immediate|release: enum
	                              conf_handover (default release) */
	int share;                 /* --share user|job: enum conf_share
	                              (default user) */
	int foreground;            /* --foreground: log timestamps, no sd_notify needed */
	enum log_level log_level;  /* --log-level error|warn|info|debug (default info) */
	int retention_days;        /* --retention-days N (default 30, 0 = forever;
	                              0 to 36500) */
	int max_jobs;              /* --max-jobs N (default 4096; 1 to 1000000) */
	int max_clients;           /* --max-clients N (default 256; 1 to 65536) */
	int max_user_jobs;         /* --max-user-jobs N: jobs per uid (default
	                              1024; 1 to 1000000) */
	int max_user_clients;      /* --max-user-clients N: command-line
	                              connections per uid (default 16; 1 to
	                              65536) */
	int hello_timeout_ms;      /* --hello-timeout-ms N: from connect to
	                              Hello, whatever comes before (default
	                              5000; 100 to 60000) */
	int kill_wait_s;           /* --kill-wait S: from the SIGTERM of a job
	                              at its time limit to its SIGKILL, as
	                              Slurm's KillWait (default 30; 0 to
	                              65533) */
	int admin_gid;             /* --admin-group GROUP (name or number): its
	                              members are limited as root is; -1: none */
	int private_history;       /* --private-history: a user sees only their
	                              own jobs and history (default: others'
	                              too, without their command lines) */
	int rt_priority;           /* --rt-priority N: SCHED_FIFO priority, 0 for
	                              SCHED_OTHER (default 1; 0 to 99) */
	int socket_mode;           /* --socket-mode OCTAL (default 0666 for a private
	                              socket; systemd's socket unit sets its own;
	                              0 to 0777) */
	int confine;               /* --confine auto|off|rigid|all: enum
	                              conf_confine (default auto) */
	int confine_with;          /* --confine-with auto|cgroup|affinity: enum
	                              conf_confine_with (default auto) */
	char config[4096];         /* --config FILE, or the default file if read,
	                              else empty */
	int show_help, show_version; /* --help (-h), --version (-V): conf_load
	                              then reads no config file */
};

/* Fill c from defaults, the config file and argv.  Returns 0, or -1 with
 * a one-line message in why (the caller prints it with the usage hint and
 * exits 2). */
int conf_load(struct conf *c, int argc, char **argv, char *why, size_t whylen);

/* The usage text for --help. */
const char *conf_usage(void);

/* The name of a handover mode ("immediate", "release"; "?" for any other
 * value), as --handover takes it. */
const char *conf_handover_name(int handover);

/* The name of a share mode ("user", "job"; "?" for any other value), as
 * --share takes it. */
const char *conf_share_name(int share);

/* The names of a confinement mode and mechanism ("?" for any other
 * value), as --confine and --confine-with take them. */
const char *conf_confine_name(int confine);
const char *conf_confine_with_name(int with);

#endif
