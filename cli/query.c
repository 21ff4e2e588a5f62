/*
 * query.c - what the query commands share (see query.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "cli.h"
#include "qtime.h"
#include "query.h"

/* Milliseconds on the monotonic clock. */
long long query_mono_ms(void)
{
	return (long long)(qtime_now_ns() / 1000000u);
}

/* Say a bad option (getopt returned o) and return CLI_USAGE. */
int query_bad_option(const char *cmd, int o, char **argv)
{
	if (o == ':')
		return cli_usage(cmd, "option '%s' needs an argument", argv[optind - 1]);
	if (optopt > ' ' && optopt < 127)
		return cli_usage(cmd, "unknown option '-%c'", optopt);
	return cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
}

/* Parse the JOB arguments argv[first..argc) into ids (at most QUERY_MAX_IDS):
 * their count, or -1 after a usage message. */
int query_parse_ids(const char *cmd, int argc, char **argv, int first,
                     uint64_t *ids)
{
	unsigned long long id;
	int i, n = 0;

	if (argc - first > QUERY_MAX_IDS) {
		cli_usage(cmd, "at most %d job ids", QUERY_MAX_IDS);
		return -1;
	}
	for (i = first; i < argc; i++) {
		if (cli_job_id(cmd, argv[i], &id) < 0)
			return -1;
		ids[n++] = id;
	}
	return n;
}

/* A quantum class as a word, NULL when none. */
const char *query_class_name(Asteal__QuantumClass c)
{
	switch (c) {
	case ASTEAL__QUANTUM_CLASS__INEFFICIENT:
		return "inefficient";
	case ASTEAL__QUANTUM_CLASS__SATISFIED:
		return "satisfied";
	case ASTEAL__QUANTUM_CLASS__DEPRIVED:
		return "deprived";
	default:
		return NULL;
	}
}

/* A job's end as waitpid() reported it: "exit 3", "killed by SIGKILL",
 * or NULL when unknown. */
const char *query_exit_text(char *buf, size_t len, const Asteal__JobRecord *j)
{
	int st = j->wait_status;

	if (!j->status_known)
		return NULL;
	if (WIFEXITED(st)) {
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		const char *name = sigabbrev_np(WTERMSIG(st));
		if (name != NULL)
			snprintf(buf, len, "killed by SIG%s%s", name,
			         WCOREDUMP(st) ? " (core dumped)" : "");
		else
			snprintf(buf, len, "killed by signal %d", WTERMSIG(st));
	} else {
		snprintf(buf, len, "status 0x%x", (unsigned)st);
	}
	return buf;
}

/* Flush stdout: CLI_OK, or CLI_FAIL after a message. */
int query_flush(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("writing the output: %s", strerror(errno));
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* Parse a time argument (asteal(1), TIMES) into *ns: 0, or -1. */
int query_parse_time(const char *s, uint64_t now, uint64_t *ns)
{
	static const char *const fmts[] = { "%Y-%m-%d", "%Y-%m-%dT%H:%M",
		"%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S" };
	const char *p;
	size_t i;

	if (strcmp(s, "now") == 0) {
		*ns = now;
		return 0;
	}
	if (s[0] == '-') {              /* -30s, -1.5h: before now */
		double v, mult;
		int digits = 0, dots = 0;

		for (p = s + 1; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
			if (*p == '.')
				dots++;
			else
				digits++;
		}
		if (digits == 0 || dots > 1 || p[0] == '\0' || p[1] != '\0')
			return -1;
		mult = *p == 's' ? 1e9 : *p == 'm' ? 60e9 : *p == 'h' ? 3600e9
		     : *p == 'd' ? 86400e9 : 0;
		v = strtod(s + 1, NULL) * mult;
		if (mult == 0 || !(v <= (double)now))
			return -1;
		*ns = now - (uint64_t)v;
		return 0;
	}
	if (s[0] == '@') {              /* @EPOCH[.FRACTION] */
		uint64_t sec = 0, frac = 0, scale = 100000000u;

		for (p = s + 1; *p >= '0' && *p <= '9'; p++) {
			if (sec > 10000000000ull)       /* year 2286: enough */
				return -1;
			sec = sec * 10 + (uint64_t)(*p - '0');
		}
		if (p == s + 1)
			return -1;
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
				frac += (uint64_t)(*p - '0') * scale;
		if (*p != '\0')
			return -1;
		*ns = sec * 1000000000u + frac;
		return 0;
	}
	if (s[0] < '0' || s[0] > '9')
		return -1;
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct tm tm, asked;
		time_t t;

		memset(&tm, 0, sizeof(tm));
		p = strptime(s, fmts[i], &tm);
		if (p == NULL || *p != '\0')
			continue;
		tm.tm_isdst = -1;
		asked = tm;
		t = mktime(&tm);
		/* 2026-02-31 is no day: mktime would make it March 3 */
		if (t == (time_t)-1 || t < 0 || tm.tm_year != asked.tm_year ||
		    tm.tm_mon != asked.tm_mon || tm.tm_mday != asked.tm_mday)
			return -1;
		*ns = (uint64_t)t * 1000000000u;
		return 0;
	}
	return -1;
}
