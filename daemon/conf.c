/*
 * conf.c - asteald's settings: defaults, then a config file, then the
 * command line, each overriding the one before (conf.h).
 *
 * The command line is parsed by hand (no getopt state, so conf_load can be
 * called any number of times): long options only, "--name VALUE" or
 * "--name=VALUE", exact names (no abbreviations), plus -h and -V; "--"
 * ends the options, and any positional argument is an error.  It is walked
 * twice: first for its syntax, --config, --help and --version (with --help
 * or --version, conf_load stops there and reads no file, so help always
 * works); then, after the config file, for the other options.
 *
 * The config file: lines "key = value", blanks around key and value
 * ignored; a line whose first non-blank character is '#' is a comment
 * (a '#' later in a line is part of the value); no quoting.  Keys are the
 * options that take a value, without the dashes, except config.
 *
 * Defaults that depend on the environment are taken only when no file or
 * option set the value: the socket is $ASTEAL_SOCKET when set and not
 * empty (PROTO_SOCKET_ENV, the way clients find a daemon run by hand),
 * else PROTO_SOCKET_PATH; the database is the first of the
 * colon-separated $STATE_DIRECTORY paths plus "/history.db" (systemd's
 * StateDirectory=), else CONF_DEFAULT_DB.  The offset defaults to a
 * tenth of the quantum (integer division); an offset that is set must be
 * below the quantum, whichever of the file and the command line set
 * either.  --handover and --share take a mode's exact name
 * (conf_handover_name, conf_share_name).
 * --cpus may only name CPUs this process may run on.
 *
 * deadline-ms (the feedback deadline after a Tick) is gone since protocol
 * 2, whose quanta are on the shared clock: as an option or a key it is
 * refused, before its value is looked at, with a pointer to offset-us.
 *
 * The words the user reads, the usage text and the modes' names, are
 * confusage.c's.
 */
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "conf.h"
#include "proto.h"

#define DEFAULT_QUANTUM_US 10000
#define DEFAULT_RETENTION_DAYS 30
#define DEFAULT_MAX_JOBS 4096
#define DEFAULT_MAX_CLIENTS 256
#define DEFAULT_MAX_USER_CLIENTS 16
#define DEFAULT_MAX_USER_JOBS 1024
#define DEFAULT_HELLO_TIMEOUT_MS 5000
#define HELLO_TIMEOUT_MIN_MS 100
#define HELLO_TIMEOUT_MAX_MS 60000
#define DEFAULT_KILL_WAIT_S 30         /* Slurm's KillWait */
#define KILL_WAIT_MAX_S 65533          /* ... and its most */
#define DEFAULT_SOCKET_MODE 0666
#define DEFAULT_OFFSET_DIVISOR 10      /* a tenth of the quantum */

#define QUANTUM_MIN_US 100             /* 0.1 ms */
#define QUANTUM_MAX_US 10000000        /* 10 s */
#define OFFSET_MAX_US (QUANTUM_MAX_US - 1)
#define RETENTION_MAX 36500
#define MAX_JOBS_MAX 1000000
#define MAX_CLIENTS_MAX 65536
#define DEFAULT_RT_PRIORITY 1
#define RT_PRIORITY_MAX 99             /* SCHED_FIFO's highest */

#define SUN_PATH_LEN (sizeof(((struct sockaddr_un *)0)->sun_path))

enum opt_id {
	OPT_SOCKET, OPT_DB, OPT_CPUS, OPT_QUANTUM, OPT_OFFSET, OPT_HANDOVER,
	OPT_SHARE, OPT_FOREGROUND, OPT_LOG_LEVEL, OPT_RETENTION, OPT_MAX_JOBS,
	OPT_MAX_CLIENTS, OPT_MAX_USER_JOBS, OPT_MAX_USER_CLIENTS,
	OPT_HELLO_TIMEOUT, OPT_KILL_WAIT, OPT_ADMIN_GROUP, OPT_PRIVATE_HISTORY,
	OPT_SOCKET_MODE, OPT_RT_PRIORITY, OPT_CONFINE, OPT_CONFINE_WITH,
	OPT_CONFIG, OPT_HELP,
	OPT_VERSION,
	OPT_GONE_DEADLINE,
};

struct opt {
	const char *name;
	enum opt_id id;
	int has_arg;       /* takes a value */
	int in_file;       /* may be a config file key */
};

static const struct opt opts[] = {
	{ "socket", OPT_SOCKET, 1, 1 },
	{ "db", OPT_DB, 1, 1 },
	{ "cpus", OPT_CPUS, 1, 1 },
	{ "quantum-ms", OPT_QUANTUM, 1, 1 },
	{ "offset-us", OPT_OFFSET, 1, 1 },
	{ "handover", OPT_HANDOVER, 1, 1 },
	{ "share", OPT_SHARE, 1, 1 },
	{ "foreground", OPT_FOREGROUND, 0, 0 },
	{ "log-level", OPT_LOG_LEVEL, 1, 1 },
	{ "retention-days", OPT_RETENTION, 1, 1 },
	{ "max-jobs", OPT_MAX_JOBS, 1, 1 },
	{ "max-clients", OPT_MAX_CLIENTS, 1, 1 },
	{ "max-user-jobs", OPT_MAX_USER_JOBS, 1, 1 },
	{ "max-user-clients", OPT_MAX_USER_CLIENTS, 1, 1 },
	{ "hello-timeout-ms", OPT_HELLO_TIMEOUT, 1, 1 },
	{ "kill-wait", OPT_KILL_WAIT, 1, 1 },
	{ "admin-group", OPT_ADMIN_GROUP, 1, 1 },
	{ "private-history", OPT_PRIVATE_HISTORY, 0, 1 },
	{ "socket-mode", OPT_SOCKET_MODE, 1, 1 },
	{ "rt-priority", OPT_RT_PRIORITY, 1, 1 },
	{ "confine", OPT_CONFINE, 1, 1 },
	{ "confine-with", OPT_CONFINE_WITH, 1, 1 },
	{ "config", OPT_CONFIG, 1, 0 },
	{ "help", OPT_HELP, 0, 0 },
	{ "version", OPT_VERSION, 0, 0 },
	/* Gone: known only to be refused with a reason (apply). */
	{ "deadline-ms", OPT_GONE_DEADLINE, 1, 1 },
};

#define NOPTS ((int)(sizeof(opts) / sizeof(opts[0])))

/* One conf_load call's state. */
struct load {
	struct conf *c;
	char *why;
	size_t whylen;
	const char *file;          /* the config file being read, or NULL */
	int line;                  /* its current line */
	int socket_set, db_set, offset_set;
	int allowed[CPULIST_MAX];  /* cpulist_allowed */
	int nallowed;
};

/* Format a reason (prefixed with "FILE:LINE: " inside a config file) into
 * the caller's why; returns -1. */
__attribute__((format(printf, 2, 3)))
static int fail(struct load *ld, const char *fmt, ...)
{
	size_t at = 0;
	va_list ap;
	int m;

	if (ld->why == NULL || ld->whylen == 0)
		return -1;
	ld->why[0] = '\0';
	if (ld->file != NULL) {
		m = snprintf(ld->why, ld->whylen, "%s:%d: ", ld->file, ld->line);
		if (m < 0)
			m = 0;
		at = (size_t)m < ld->whylen ? (size_t)m : ld->whylen - 1;
	}
	va_start(ap, fmt);
	vsnprintf(ld->why + at, ld->whylen - at, fmt, ap);
	va_end(ap);
	return -1;
}

/* The option's name as the user wrote it: "--name" or, in a file, "name". */
static const char *shown(const struct load *ld, const struct opt *o,
			 char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", ld->file != NULL ? "" : "--", o->name);
	return buf;
}

/* Parse a whole number of decimal digits (no sign, no blanks) into *out,
 * capped above 10^12; -1 when s is not one. */
static int parse_whole(const char *s, int base, long long *out)
{
	long long v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		int d = *s - '0';

		if (d < 0 || d >= base)
			return -1;
		if (v < 1000000000000LL)
			v = v * base + d;
	}
	*out = v;
	return 0;
}

/* Parse milliseconds with up to three decimals ("10", "0.5", ".25") into
 * microseconds, capped above 10^12; -1 when s is not such a number. */
static int parse_ms(const char *s, long long *us)
{
	long long v = 0;
	int digits = 0, decimals = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++)
		if (v < 1000000000000LL)
			v = v * 10 + (*s - '0');
	v *= 1000;
	if (*s == '.') {
		long long scale = 100;

		for (s++; *s >= '0' && *s <= '9'; s++, decimals++) {
			if (decimals >= 3 && *s != '0')
				return -1;      /* finer than a microsecond */
			v += (*s - '0') * scale;
			scale /= 10;
		}
		if (decimals == 0)
			return -1;
	}
	if (*s != '\0' || digits + decimals == 0)
		return -1;
	*us = v;
	return 0;
}

/* Write microseconds as milliseconds without trailing zeros ("0.5"). */
static const char *ms_text(long long us, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%lld.%03lld", us / 1000, us % 1000);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

/* Set an integer option from value within [lo, hi] (base 10 or 8). */
static int set_int(struct load *ld, const struct opt *o, const char *value,
		   int base, long long lo, long long hi, int *dst)
{
	char name[32];
	long long v;

	if (parse_whole(value, base, &v) < 0) {
		if (base == 8)
			return fail(ld, "%s: '%s' is not an octal mode "
				    "(%llo to %llo)", shown(ld, o, name,
				    sizeof(name)), value,
				    (unsigned long long)lo,
				    (unsigned long long)hi);
		return fail(ld, "%s: '%s' is not a whole number (%lld to %lld)",
			    shown(ld, o, name, sizeof(name)), value, lo, hi);
	}
	if (v < lo || v > hi) {
		if (base == 8)
			return fail(ld, "%s: %s out of range (%llo to %llo)",
				    shown(ld, o, name, sizeof(name)), value,
				    (unsigned long long)lo,
				    (unsigned long long)hi);
		return fail(ld, "%s: %s out of range (%lld to %lld)",
			    shown(ld, o, name, sizeof(name)), value, lo, hi);
	}
	*dst = (int)v;
	return 0;
}

/* Set a duration option in milliseconds from value within [lo, hi] us. */
static int set_ms(struct load *ld, const struct opt *o, const char *value,
		  long long lo, long long hi, int *dst)
{
	char name[32], a[32], b[32];
	long long us;

	if (parse_ms(value, &us) < 0)
		return fail(ld, "%s: '%s' is not a number of milliseconds "
			    "(%s to %s, up to 3 decimals)",
			    shown(ld, o, name, sizeof(name)), value,
			    ms_text(lo, a, sizeof(a)), ms_text(hi, b, sizeof(b)));
	if (us < lo || us > hi)
		return fail(ld, "%s: %s out of range (%s to %s ms)",
			    shown(ld, o, name, sizeof(name)), value,
			    ms_text(lo, a, sizeof(a)), ms_text(hi, b, sizeof(b)));
	*dst = (int)us;
	return 0;
}

/* Set a mode from its name: one of the values from first on that name()
 * knows (it says "?" past the last). */
static int set_mode(struct load *ld, const struct opt *o, const char *value,
		    const char *(*name)(int), int first, int *dst)
{
	char shown_as[32], names[128];
	size_t len = 0;
	int m;

	for (m = first; strcmp(name(m), "?") != 0; m++)
		if (strcmp(value, name(m)) == 0) {
			*dst = m;
			return 0;
		}
	names[0] = '\0';
	for (m = first; strcmp(name(m), "?") != 0 && len < sizeof(names); m++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
		                        m > first ? ", " : "", name(m));
	return fail(ld, "%s: '%s' is not one of %s",
		    shown(ld, o, shown_as, sizeof(shown_as)), value, names);
}

/* A group by name or number for --admin-group. */
static int set_group(struct load *ld, const struct opt *o, const char *value)
{
	char name[32];
	struct group *g;
	long long v;

	if (parse_whole(value, 10, &v) == 0 && v >= 0 && v < 0x7fffffff) {
		ld->c->admin_gid = (int)v;
	} else {
		errno = 0;
		g = getgrnam(value);
		if (g == NULL)
			return fail(ld, "%s: no group '%s'%s%s",
				    shown(ld, o, name, sizeof(name)), value,
				    errno != 0 ? ": " : "",
				    errno != 0 ? strerror(errno) : "");
		ld->c->admin_gid = (int)g->gr_gid;
	}
	return 0;
}

/* Copy a path option into dst (len bytes with the NUL), checking it. */
static int set_path(struct load *ld, const struct opt *o, const char *value,
		    char *dst, size_t len)
{
	char name[32];

	if (*value == '\0')
		return fail(ld, "%s: empty path", shown(ld, o, name, sizeof(name)));
	if (strlen(value) >= len)
		return fail(ld, "%s: path longer than %zu bytes",
			    shown(ld, o, name, sizeof(name)), len - 1);
	memcpy(dst, value, strlen(value) + 1);
	return 0;
}

/* Set the CPUs from a list, all of which this process must be able to use. */
static int set_cpus(struct load *ld, const struct opt *o, const char *value)
{
	char name[32], reason[128], allowed[256];
	int cpus[CPULIST_MAX];
	int n = cpulist_parse(value, cpus, CPULIST_MAX, reason, sizeof(reason));

	if (n < 0)
		return fail(ld, "%s: %s", shown(ld, o, name, sizeof(name)),
			    reason);
	for (int i = 0, j = 0; i < n; i++) {
		while (j < ld->nallowed && ld->allowed[j] < cpus[i])
			j++;
		if (j == ld->nallowed || ld->allowed[j] != cpus[i]) {
			if (cpulist_format(ld->allowed, ld->nallowed, allowed,
					   sizeof(allowed)) < 0)
				snprintf(allowed + sizeof(allowed) - 4, 4, "...");
			return fail(ld, "%s: CPU %d is not one asteald may run "
				    "on (allowed: %s)",
				    shown(ld, o, name, sizeof(name)), cpus[i],
				    allowed);
		}
	}
	memcpy(ld->c->cpus, cpus, (size_t)n * sizeof(cpus[0]));
	ld->c->ncpus = n;
	return 0;
}

/* Apply one option with its value (NULL for a flag). */
static int apply(struct load *ld, const struct opt *o, const char *value)
{
	struct conf *c = ld->c;
	char name[32];

	switch (o->id) {
	case OPT_SOCKET:
		ld->socket_set = 1;
		return set_path(ld, o, value, c->socket, SUN_PATH_LEN);
	case OPT_DB:
		ld->db_set = 1;
		return set_path(ld, o, value, c->db, sizeof(c->db));
	case OPT_CPUS:
		return set_cpus(ld, o, value);
	case OPT_QUANTUM:
		return set_ms(ld, o, value, QUANTUM_MIN_US, QUANTUM_MAX_US,
			      &c->quantum_us);
	case OPT_OFFSET:
		ld->offset_set = 1;
		return set_int(ld, o, value, 10, 0, OFFSET_MAX_US,
			       &c->offset_us);
	case OPT_HANDOVER:
		return set_mode(ld, o, value, conf_handover_name,
				CONF_HANDOVER_IMMEDIATE, &c->handover);
	case OPT_SHARE:
		return set_mode(ld, o, value, conf_share_name, CONF_SHARE_USER,
				&c->share);
	case OPT_FOREGROUND:
		c->foreground = 1;
		return 0;
	case OPT_LOG_LEVEL:
		if (log_parse_level(value, &c->log_level) < 0)
			return fail(ld, "%s: '%s' is not one of error, warn, "
				    "info, debug",
				    shown(ld, o, name, sizeof(name)), value);
		return 0;
	case OPT_RETENTION:
		return set_int(ld, o, value, 10, 0, RETENTION_MAX,
			       &c->retention_days);
	case OPT_MAX_JOBS:
		return set_int(ld, o, value, 10, 1, MAX_JOBS_MAX, &c->max_jobs);
	case OPT_MAX_CLIENTS:
		return set_int(ld, o, value, 10, 1, MAX_CLIENTS_MAX,
			       &c->max_clients);
	case OPT_MAX_USER_JOBS:
		return set_int(ld, o, value, 10, 1, MAX_JOBS_MAX,
			       &c->max_user_jobs);
	case OPT_MAX_USER_CLIENTS:
		return set_int(ld, o, value, 10, 1, MAX_CLIENTS_MAX,
			       &c->max_user_clients);
	case OPT_HELLO_TIMEOUT:
		return set_int(ld, o, value, 10, HELLO_TIMEOUT_MIN_MS,
			       HELLO_TIMEOUT_MAX_MS, &c->hello_timeout_ms);
	case OPT_KILL_WAIT:
		return set_int(ld, o, value, 10, 0, KILL_WAIT_MAX_S,
			       &c->kill_wait_s);
	case OPT_ADMIN_GROUP:
		return set_group(ld, o, value);
	case OPT_PRIVATE_HISTORY:
		/* a switch on the command line, yes or no in the file */
		if (value == NULL || strcmp(value, "yes") == 0) {
			c->private_history = 1;
			return 0;
		}
		if (strcmp(value, "no") == 0) {
			c->private_history = 0;
			return 0;
		}
		return fail(ld, "%s: '%s' is not yes or no",
			    shown(ld, o, name, sizeof(name)), value);
	case OPT_SOCKET_MODE:
		return set_int(ld, o, value, 8, 0, 0777, &c->socket_mode);
	case OPT_RT_PRIORITY:
		return set_int(ld, o, value, 10, 0, RT_PRIORITY_MAX,
			       &c->rt_priority);
	case OPT_CONFINE:
		return set_mode(ld, o, value, conf_confine_name, CONF_CONFINE_AUTO,
				&c->confine);
	case OPT_CONFINE_WITH:
		return set_mode(ld, o, value, conf_confine_with_name,
				CONF_CONFINE_WITH_AUTO, &c->confine_with);
	case OPT_CONFIG:
		return set_path(ld, o, value, c->config, sizeof(c->config));
	case OPT_HELP:
		c->show_help = 1;
		return 0;
	case OPT_VERSION:
		c->show_version = 1;
		return 0;
	case OPT_GONE_DEADLINE:
		return fail(ld, "%s: gone since protocol 2 (quanta are on the "
			    "shared clock); see %soffset-us",
			    shown(ld, o, name, sizeof(name)),
			    ld->file != NULL ? "" : "--");
	}
	return fail(ld, "internal error: option %d", (int)o->id);
}

/* The option named by the n bytes at name, or NULL. */
static const struct opt *find_opt(const char *name, size_t n)
{
	for (int i = 0; i < NOPTS; i++)
		if (strlen(opts[i].name) == n &&
		    memcmp(opts[i].name, name, n) == 0)
			return &opts[i];
	return NULL;
}

/* Walk argv: check its syntax, and apply the options that belong to this
 * pass (the first: --config, --help, --version; the second: the rest). */
static int walk_argv(struct load *ld, int argc, char **argv, int first_pass)
{
	int options = 1;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = NULL, *eq;
		const struct opt *o;
		int early;

		if (!options || arg[0] != '-' || arg[1] == '\0')
			return fail(ld, "unexpected argument '%s'", arg);
		if (strcmp(arg, "--") == 0) {
			options = 0;
			continue;
		}
		if (strcmp(arg, "-h") == 0) {
			o = find_opt("help", 4);
		} else if (strcmp(arg, "-V") == 0) {
			o = find_opt("version", 7);
		} else if (arg[1] != '-') {
			return fail(ld, "unknown option '%s'", arg);
		} else {
			eq = strchr(arg + 2, '=');
			o = find_opt(arg + 2, eq != NULL ? (size_t)(eq - arg - 2)
					      : strlen(arg + 2));
			if (o == NULL)
				return fail(ld, "unknown option '%.*s'",
					    eq != NULL ? (int)(eq - arg)
						       : (int)strlen(arg), arg);
			if (o->id == OPT_GONE_DEADLINE)
				return apply(ld, o, NULL);
			if (eq != NULL && !o->has_arg)
				return fail(ld, "option --%s takes no value",
					    o->name);
			if (eq != NULL)
				value = eq + 1;
		}
		if (o->has_arg && value == NULL) {
			if (i + 1 >= argc)
				return fail(ld, "option --%s needs a value",
					    o->name);
			value = argv[++i];
		}
		early = o->id == OPT_CONFIG || o->id == OPT_HELP ||
			o->id == OPT_VERSION;
		if (early == first_pass && apply(ld, o, value) < 0)
			return -1;
	}
	return 0;
}

/* Strip blanks from both ends of s in place; returns the new start. */
static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
			 s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* Apply one line of the config file (ld->file, ld->line). */
static int file_line(struct load *ld, char *text)
{
	char *line = trim(text), *eq, *key, *value;
	const struct opt *o;

	if (*line == '\0' || *line == '#')
		return 0;
	eq = strchr(line, '=');
	if (eq == NULL)
		return fail(ld, "expected 'key = value', got '%.64s'", line);
	*eq = '\0';
	key = trim(line);
	value = trim(eq + 1);
	if (*key == '\0')
		return fail(ld, "missing key before '='");
	o = find_opt(key, strlen(key));
	if (o == NULL || !o->in_file)
		return fail(ld, "unknown key '%.64s'", key);
	if (o->id == OPT_GONE_DEADLINE)
		return apply(ld, o, NULL);
	if (*value == '\0')
		return fail(ld, "missing value for '%s'", key);
	return apply(ld, o, value);
}

/* Read the config file at path; a missing file is an error only when
 * must_exist.  Sets c->config to the path when the file was read. */
static int read_file(struct load *ld, const char *path, int must_exist)
{
	char *buf = NULL;
	size_t cap = 0;
	FILE *f;
	int rc = 0;

	f = fopen(path, "re");
	if (f == NULL) {
		if (!must_exist && (errno == ENOENT || errno == ENOTDIR))
			return 0;
		return fail(ld, "%s: cannot read the config file: %s", path,
			    strerror(errno));
	}
	ld->file = path;
	ld->line = 0;
	for (;;) {
		errno = 0;
		if (getline(&buf, &cap, f) < 0) {
			if (ferror(f)) {
				int err = errno != 0 ? errno : EIO;

				ld->file = NULL;
				rc = fail(ld, "%s: cannot read the config "
					  "file: %s", path, strerror(err));
			}
			break;
		}
		ld->line++;
		if (file_line(ld, buf) < 0) {
			rc = -1;
			break;
		}
	}
	ld->file = NULL;
	free(buf);
	fclose(f);
	if (rc == 0 && ld->c->config != path)
		snprintf(ld->c->config, sizeof(ld->c->config), "%s", path);
	return rc;
}

/* Take the defaults that depend on the environment and the quantum, for
 * the settings no file or option gave; check the offset. */
static int finish(struct load *ld)
{
	struct conf *c = ld->c;
	const char *env;
	char q[32];

	env = getenv(PROTO_SOCKET_ENV);
	if (!ld->socket_set && env != NULL && *env != '\0') {
		if (strlen(env) >= SUN_PATH_LEN)
			return fail(ld, "$%s: path longer than %zu bytes",
				    PROTO_SOCKET_ENV, SUN_PATH_LEN - 1);
		memcpy(c->socket, env, strlen(env) + 1);
	}
	env = getenv("STATE_DIRECTORY");
	if (!ld->db_set && env != NULL && *env != '\0' && *env != ':') {
		size_t n = strcspn(env, ":");
		const char *file = "/history.db";

		if (n + strlen(file) >= sizeof(c->db))
			return fail(ld, "$STATE_DIRECTORY: path longer than "
				    "%zu bytes", sizeof(c->db) - 1 - strlen(file));
		memcpy(c->db, env, n);
		memcpy(c->db + n, file, strlen(file) + 1);
	}
	if (!ld->offset_set)
		c->offset_us = c->quantum_us / DEFAULT_OFFSET_DIVISOR;
	else if (c->offset_us >= c->quantum_us)
		return fail(ld, "the offset (%d us) must be less than the "
			    "quantum (%s ms)", c->offset_us,
			    ms_text(c->quantum_us, q, sizeof(q)));
	return 0;
}

/* What neither argv nor the file sets (the CPUs: all asteald may run on;
 * the offset: a tenth of the quantum, once that is known). */
static const struct conf conf_defaults = {
	.socket = PROTO_SOCKET_PATH,
	.db = CONF_DEFAULT_DB,
	.quantum_us = DEFAULT_QUANTUM_US,
	.handover = CONF_HANDOVER_RELEASE,
	.share = CONF_SHARE_USER,
	.log_level = LOG_LEVEL_INFO,
	.retention_days = DEFAULT_RETENTION_DAYS,
	.max_jobs = DEFAULT_MAX_JOBS,
	.max_clients = DEFAULT_MAX_CLIENTS,
	.max_user_jobs = DEFAULT_MAX_USER_JOBS,
	.max_user_clients = DEFAULT_MAX_USER_CLIENTS,
	.hello_timeout_ms = DEFAULT_HELLO_TIMEOUT_MS,
	.kill_wait_s = DEFAULT_KILL_WAIT_S,
	.admin_gid = -1,
	.socket_mode = DEFAULT_SOCKET_MODE,
	.rt_priority = DEFAULT_RT_PRIORITY,
};

/* Fill c from defaults, the config file and argv. */
int conf_load(struct conf *c, int argc, char **argv, char *why, size_t whylen)
{
	struct load *ld;
	int rc = -1;

	if (why != NULL && whylen > 0)
		why[0] = '\0';
	/* The state holds a CPU list (4 KiB): on the heap. */
	ld = calloc(1, sizeof(*ld));
	if (ld == NULL) {
		if (why != NULL && whylen > 0)
			snprintf(why, whylen, "out of memory");
		return -1;
	}
	ld->c = c;
	ld->why = why;
	ld->whylen = whylen;

	*c = conf_defaults;

	ld->nallowed = cpulist_allowed(ld->allowed, CPULIST_MAX);
	if (ld->nallowed < 0) {
		fail(ld, "cannot find the CPUs asteald may run on "
		     "(sched_getaffinity): %s", strerror(errno));
		goto out;
	}
	memcpy(c->cpus, ld->allowed, (size_t)ld->nallowed * sizeof(c->cpus[0]));
	c->ncpus = ld->nallowed;

	if (walk_argv(ld, argc, argv, 1) < 0)
		goto out;
	if (c->show_help || c->show_version) {
		rc = finish(ld);
		goto out;
	}
	if (c->config[0] != '\0') {
		if (read_file(ld, c->config, 1) < 0)
			goto out;
	} else if (read_file(ld, CONF_DEFAULT_FILE, 0) < 0) {
		goto out;
	}
	if (walk_argv(ld, argc, argv, 0) < 0)
		goto out;
	rc = finish(ld);
out:
	free(ld);
	return rc;
}
