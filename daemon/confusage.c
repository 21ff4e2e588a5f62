/*
 * confusage.c - asteald's settings in the words the user reads: the usage
 * text that --help prints, and the names of the modes (handover, share,
 * confinement and its mechanism), which the options and config keys take
 * (conf.c) and the status and the startup line show.  conf.h is the
 * interface.  The defaults and ranges the text states are conf.c's, and
 * the two must agree (tests/test_conf.c looks for the options and some
 * defaults in the text).
 */
#include "conf.h"
#include "proto.h"

/* The usage text for --help. */
const char *conf_usage(void)
{
	return
	"Usage: asteald [OPTION]...\n"
	"The asteal job scheduler: allots this machine's CPUs to parallel jobs\n"
	"every quantum (dynamic equipartitioning).\n"
	"\n"
	"  --socket PATH        listen on PATH (default $" PROTO_SOCKET_ENV
	" if set,\n"
	"                       else " PROTO_SOCKET_PATH ")\n"
	"  --db PATH            the history database (default\n"
	"                       $STATE_DIRECTORY/history.db if set, else\n"
	"                       " CONF_DEFAULT_DB ")\n"
	"  --cpus LIST          the CPUs to manage, e.g. 0-3,6 (default: all\n"
	"                       the CPUs asteald may run on)\n"
	"  --quantum-ms N       the scheduling quantum, 0.1 to 10000 ms, up to\n"
	"                       3 decimals (default 10)\n"
	"  --offset-us N        how far into each quantum to allot the CPUs, in\n"
	"                       microseconds, 0 to less than the quantum\n"
	"                       (default a tenth of the quantum)\n"
	"  --handover MODE      immediate or release: when a CPU moves between\n"
	"                       jobs, tell both at once, or grant it only once\n"
	"                       the losing job has released it (default\n"
	"                       release)\n"
	"  --share MODE         user or job: share the CPUs equally among the\n"
	"                       users with demand first, then among each\n"
	"                       user's jobs; or among the jobs alone, as the\n"
	"                       paper's DEQ (default user)\n"
	"  --foreground         log with timestamps; no sd_notify needed\n"
	"                       (default off)\n"
	"  --log-level L        error, warn, info or debug (default info)\n"
	"  --retention-days N   keep history N days, 0 to 36500, 0 = forever\n"
	"                       (default 30)\n"
	"  --max-jobs N         the most jobs at once, 1 to 1000000 (default 4096)\n"
	"  --max-clients N      the most connections at once, 1 to 65536\n"
	"                       (default 256)\n"
	"  --max-user-jobs N    the most jobs of one user at once, 1 to 1000000\n"
	"                       (default 1024; root and --admin-group: no limit)\n"
	"  --max-user-clients N the most command-line connections of one user,\n"
	"                       1 to 65536 (default 16; root and --admin-group:\n"
	"                       no limit, and room beyond --max-clients)\n"
	"  --hello-timeout-ms N how long a new connection has to say Hello,\n"
	"                       100 to 60000 (default 5000)\n"
	"  --kill-wait S        seconds from the SIGTERM of a job at its time\n"
	"                       limit (asteal submit --time) to its SIGKILL,\n"
	"                       0 to 65533 (default 30)\n"
	"  --admin-group GROUP  members of GROUP are limited as root is, not as\n"
	"                       users are (default none)\n"
	"  --private-history    show users only their own jobs and history\n"
	"                       (config: private-history = yes); without it\n"
	"                       they see others' jobs without command lines\n"
	"  --socket-mode OCTAL  the permissions of a socket asteald creates\n"
	"                       (default 0666)\n"
	"  --rt-priority N      run the scheduler as SCHED_FIFO priority N,\n"
	"                       1 to 99, where allowed, so that jobs' threads do\n"
	"                       not delay its ticks; 0 = an ordinary process\n"
	"                       (default 1)\n"
	"  --confine WHAT       which jobs to hold to their CPUs: rigid (jobs\n"
	"                       launched with --cpus), all, off, or auto (the\n"
	"                       default: all with a cgroup to manage, else rigid)\n"
	"  --confine-with HOW   cgroup (a cpuset cgroup, v2 or v1, or fail),\n"
	"                       affinity (sched_setaffinity on every thread, each\n"
	"                       quantum) or auto (the default: cgroup if one\n"
	"                       can be managed, else affinity)\n"
	"  --config FILE        read settings from FILE, which must exist\n"
	"                       (default " CONF_DEFAULT_FILE " if it exists)\n"
	"  -h, --help           show this help and exit\n"
	"  -V, --version        show the version and exit\n"
	"\n"
	"Settings come from the defaults, then the config file (\"key = value\"\n"
	"lines, '#' comments; keys are the options above that take a value,\n"
	"without the dashes, except config), then the command line.  SIGHUP\n"
	"(systemctl reload) reads them again: the log level, retention and\n"
	"limits change at once, the others are logged and wait for a restart.\n";
}

/* The name of a share mode, as --share takes it. */
const char *conf_share_name(int share)
{
	switch (share) {
	case CONF_SHARE_USER:
		return "user";
	case CONF_SHARE_JOB:
		return "job";
	}
	return "?";
}

/* The name of a handover mode, as --handover takes it. */
const char *conf_handover_name(int handover)
{
	switch (handover) {
	case CONF_HANDOVER_IMMEDIATE:
		return "immediate";
	case CONF_HANDOVER_RELEASE:
		return "release";
	}
	return "?";
}

/* The name of a confinement mode, as --confine takes it. */
const char *conf_confine_name(int confine)
{
	switch (confine) {
	case CONF_CONFINE_AUTO:
		return "auto";
	case CONF_CONFINE_OFF:
		return "off";
	case CONF_CONFINE_RIGID:
		return "rigid";
	case CONF_CONFINE_ALL:
		return "all";
	}
	return "?";
}

/* The name of a confinement mechanism, as --confine-with takes it. */
const char *conf_confine_with_name(int with)
{
	switch (with) {
	case CONF_CONFINE_WITH_AUTO:
		return "auto";
	case CONF_CONFINE_WITH_CGROUP:
		return "cgroup";
	case CONF_CONFINE_WITH_AFFINITY:
		return "affinity";
	}
	return "?";
}
