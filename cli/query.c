/*
 * query.c - what the query commands share (see query.h).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "qtime.h"
#include "query.h"
#include "when.h"

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
	if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0) {
		time_t t = (time_t)(now / 1000000000u);
		struct tm tm;

		if (localtime_r(&t, &tm) == NULL)
			return -1;
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_mday -= s[0] == 'y';      /* mktime takes day 0 as the last */
		tm.tm_isdst = -1;
		if ((t = mktime(&tm)) == (time_t)-1 || t < 0)
			return -1;
		*ns = (uint64_t)t * 1000000000u;
		return 0;
	}
	if (s[0] == '-') {              /* -30s, -5min, -1.5h, -2d: before now */
		double v, mult;
		int digits = 0, dots = 0;

		for (p = s + 1; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
			if (*p == '.')
				dots++;
			else
				digits++;
		}
		mult = strcmp(p, "s") == 0 ? 1e9
		     : strcmp(p, "m") == 0 || strcmp(p, "min") == 0 ? 60e9
		     : strcmp(p, "h") == 0 ? 3600e9 : strcmp(p, "d") == 0 ? 86400e9 : 0;
		if (digits == 0 || dots > 1 || mult == 0)
			return -1;
		v = strtod(s + 1, NULL) * mult;
		if (!(v <= (double)now))
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
	if (strncmp(s, "now", 3) == 0 && (s[3] == '-' || s[3] == '+')) {
		char rel[64];           /* now-1h, now+30min: as -1h, or ahead */
		uint64_t d;

		snprintf(rel, sizeof(rel), "-%s", s + 4);
		if (s[4] == '-' || s[4] == '+' || strlen(s) >= sizeof(rel) ||
		    query_parse_time(rel, now, &d) < 0)
			return -1;
		*ns = s[3] == '-' ? d : now + (now - d);
		return 0;
	}
	for (i = 0; (s[0] >= '0' && s[0] <= '9') && i < sizeof(fmts) / sizeof(fmts[0]);
	     i++) {
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
	return when_date(s, ns);        /* as date -d reads it (when.h) */
}

/* Split s at commas into words (empty ones not allowed): their count, or
 * -1 when there are more than max or one is empty.  s is changed. */
static int split(char *s, char **words, int max)
{
	int n = 0;
	char *p;

	for (;;) {
		p = strchr(s, ',');
		if (p != NULL)
			*p = '\0';
		if (*s == '\0' || n == max)
			return -1;
		words[n++] = s;
		if (p == NULL)
			return n;
		s = p + 1;
	}
}

/* A comma-separated list of names, each in valid (a NULL-terminated
 * list), into the bit mask *mask: 0, or a usage error naming the valid
 * ones. */
static int parse_words(const char *cmd, const char *opt, const char *arg,
                       const char *const *valid, unsigned *mask)
{
	char copy[512], *words[32], list[512];
	int n, i, k;
	size_t used = 0;

	snprintf(copy, sizeof(copy), "%s", arg);
	n = strlen(arg) < sizeof(copy) ? split(copy, words, 32) : -1;
	for (i = 0; i < n; i++) {
		for (k = 0; valid[k] != NULL && strcasecmp(words[i], valid[k]) != 0; k++)
			;
		if (valid[k] == NULL)
			break;
		*mask |= 1u << k;
	}
	if (n > 0 && i == n)
		return 0;
	list[0] = '\0';
	for (k = 0; valid[k] != NULL && used < sizeof(list); k++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
		                         k ? ", " : "", valid[k]);
	return cli_usage(cmd, "bad %s '%s' (a comma-separated list of: %s)", opt,
	                 i < n ? words[i] : arg, list);
}

/* Parse -u/--user's list of names or uids into a. */
static int parse_users(struct query_args *a, const char *cmd, const char *arg)
{
	char copy[1024], *words[QUERY_MAX_LIST], pbuf[2048], *end;
	struct passwd pw, *res;
	unsigned long v;
	int n, i;

	snprintf(copy, sizeof(copy), "%s", arg);
	n = strlen(arg) < sizeof(copy) ? split(copy, words, QUERY_MAX_LIST) : -1;
	if (n < 0)
		return cli_usage(cmd, "bad --user '%s' (a comma-separated list of at "
		                 "most %d user names or uids)", arg, QUERY_MAX_LIST);
	for (i = 0; i < n; i++) {
		errno = 0;
		v = strtoul(words[i], &end, 10);
		if (isdigit((unsigned char)words[i][0]) && *end == '\0' && errno == 0 &&
		    v <= UINT32_MAX) {
			a->uids[a->nuids++] = (uint32_t)v;
			continue;
		}
		res = NULL;
		if (getpwnam_r(words[i], &pw, pbuf, sizeof(pbuf), &res) != 0 || res == NULL)
			return cli_usage(cmd, "no user '%s'", words[i]);
		a->uids[a->nuids++] = pw.pw_uid;
		if (a->nuids == QUERY_MAX_LIST)
			break;
	}
	return 0;
}

/* Parse --name's list into a (the names are copied). */
static int parse_names(struct query_args *a, const char *cmd, const char *arg)
{
	int n;

	snprintf(a->names_buf, sizeof(a->names_buf), "%s", arg);
	n = strlen(arg) < sizeof(a->names_buf)
	    ? split(a->names_buf, a->names, QUERY_MAX_LIST) : -1;
	if (n < 0)
		return cli_usage(cmd, "bad --name '%s' (a comma-separated list of at "
		                 "most %d names)", arg, QUERY_MAX_LIST);
	a->nnames = n;
	return 0;
}

/* Start the shared options. */
void query_args_init(struct query_args *a, const struct cli *g,
                     const char *const *states)
{
	memset(a, 0, sizeof(*a));
	a->json = g->json;
	a->header = 1;
	a->style = TABLE_ALIGNED;
	a->states_valid = states;
	a->now = qtime_wall_ns();
}

/* One of the shared options. */
int query_option(struct query_args *a, const char *cmd, int o, const char *arg)
{
	switch (o) {
	case 'u':
		return parse_users(a, cmd, arg) == 0 ? 0 : CLI_USAGE;
	case QUERY_OPT_NAME:
		return parse_names(a, cmd, arg) == 0 ? 0 : CLI_USAGE;
	case QUERY_OPT_STATE:
		return parse_words(cmd, "--state", arg, a->states_valid, &a->states) == 0
		       ? 0 : CLI_USAGE;
	case 'S':
	case 'E':
		if (query_parse_time(arg, a->now, o == 'S' ? &a->since : &a->until) < 0)
			return cli_usage(cmd, "bad time '%s' for --%s (%s)", arg,
			                 o == 'S' ? "since" : "until", QUERY_TIME_WORDS);
		*(o == 'S' ? &a->since_given : &a->until_given) = 1;
		return 0;
	case 'o':
		/* the older --format table|json|csv chooses the output's form */
		if (strcmp(arg, "table") == 0 || strcmp(arg, "json") == 0 ||
		    strcmp(arg, "csv") == 0) {
			a->json = arg[0] == 'j';
			a->style = arg[0] == 'c' ? TABLE_CSV : TABLE_ALIGNED;
			a->form_given = 1;
			return 0;
		}
		if (*arg == '\0')
			return cli_usage(cmd, "-o/--format needs column names");
		a->columns = arg;
		return 0;
	case 'n':
		a->header = 0;
		a->table_opt = "--noheader";
		return 0;
	case 'P':
		a->style = TABLE_PARSABLE;
		a->table_opt = "--parsable";
		a->form_given = 1;
		return 0;
	case QUERY_OPT_HELPFORMAT:
		a->helpformat = 1;
		return 0;
	case QUERY_OPT_CSV:
		a->style = TABLE_CSV;
		a->table_opt = "--csv";
		a->form_given = 1;
		return 0;
	default:
		return -1;
	}
}

/* The shared options, long and short. */
static const struct option shared_opts[] = {
	{ "user", required_argument, NULL, 'u' },
	{ "name", required_argument, NULL, QUERY_OPT_NAME },
	{ "state", required_argument, NULL, QUERY_OPT_STATE },
	{ "since", required_argument, NULL, 'S' },
	{ "until", required_argument, NULL, 'E' },
	{ "format", required_argument, NULL, 'o' },
	{ "noheader", no_argument, NULL, 'n' },
	{ "parsable", no_argument, NULL, 'P' },
	{ "csv", no_argument, NULL, QUERY_OPT_CSV },
	{ "helpformat", no_argument, NULL, QUERY_OPT_HELPFORMAT },
};
#define NSHARED (sizeof(shared_opts) / sizeof(shared_opts[0]))
#define SHARED_SHORT "u:S:E:o:nP"
#define MAX_OWN 16

/* Parse a command's options (query.h). */
int query_getopt(struct query_args *a, int argc, char **argv,
                 const struct option *own, query_take_fn *take, void *ctx)
{
	struct option all[MAX_OWN + NSHARED + 1];
	size_t n = 0;
	int o, r;

	while (own[n].name != NULL) {
		if (n == MAX_OWN) {
			cli_error("%s: more than %d options of its own", argv[0], MAX_OWN);
			return CLI_FAIL;
		}
		all[n] = own[n];
		n++;
	}
	memcpy(all + n, shared_opts, sizeof(shared_opts));
	memset(all + n + NSHARED, 0, sizeof(all[0]));
	while ((o = getopt_long(argc, argv, ":" SHARED_SHORT, all, NULL)) != -1) {
		if ((r = query_option(a, argv[0], o, optarg)) > 0)
			return r;
		if (r == 0)
			continue;
		if (o == '?' || o == ':')
			return query_bad_option(argv[0], o, argv);
		if ((r = take(ctx, argv[0], o, optarg)) != 0)
			return r;
	}
	return 0;
}

/* The QC_* of the column of cols (ncols QC_*) named s (its name or key,
 * any case), or -1. */
static int find_col(const int *cols, int ncols, const char *s)
{
	int i;

	for (i = 0; i < ncols; i++)
		if (strcasecmp(s, query_cols[cols[i]].name) == 0 ||
		    strcasecmp(s, query_cols[cols[i]].key) == 0)
			return cols[i];
	return -1;
}

/* Cut word's width off (NAME%N, as sacct --format takes it) into
 * *width (0 when it has none): 0, or CLI_USAGE after a message. */
static int take_width(const char *cmd, char *word, int *width)
{
	char *pct = strchr(word, '%'), *end;
	long v;

	*width = 0;
	if (pct == NULL)
		return 0;
	errno = 0;
	v = strtol(pct + 1, &end, 10);
	if (pct[1] < '0' || pct[1] > '9' || *end != '\0' || errno != 0 ||
	    v < 1 || v > QUERY_MAX_WIDTH)
		return cli_usage(cmd, "bad column width in '%s' (NAME%%N, N from 1 "
		                 "to %d: name%%30)", word, QUERY_MAX_WIDTH);
	*pct = '\0';
	*width = (int)v;
	return 0;
}

/* --helpformat: list t's columns (query_args_done). */
static int helpformat(const struct query_table *t)
{
	printf("%-10s %-14s %s\n", "COLUMN", "KEY", "DEFAULT");
	for (int k = 0; k < t->ncols; k++) {
		const struct query_col *c = &query_cols[t->cols[k]];
		const char *at = t->table_cols;
		size_t n = strlen(c->key);
		int dflt = 0;

		/* in the default list by its name or its key, any case */
		for (; *at != '\0'; at += strcspn(at, ","), at += *at == ',') {
			size_t w = strcspn(at, ",");

			if ((w == strlen(c->name) && strncasecmp(at, c->name, w) == 0) ||
			    (w == n && strncasecmp(at, c->key, w) == 0))
				dflt = 1;
		}
		if (dflt)
			printf("%-10s %-14s *\n", c->name, c->key);
		else
			printf("%-10s %s\n", c->name, c->key);
	}
	return query_flush();
}

/* Check the shared options together and choose the columns. */
int query_args_done(struct query_args *a, const char *cmd,
                    const struct query_table *t)
{
	const int *cols = t->cols;
	int ncols = t->ncols;
	char copy[1024], *words[QUERY_MAX_COLS], list[1024];
	const char *chosen;
	size_t used = 0;
	int n, i, k;

	if (a->helpformat)
		return helpformat(t);
	if (a->json && (a->columns != NULL || a->table_opt != NULL))
		return cli_usage(cmd, "%s is for tables: --json prints every field",
		                 a->columns != NULL ? "-o/--format" : a->table_opt);
	if (a->since != 0 && a->until != 0 && a->since > a->until)
		return cli_usage(cmd, "--since is after --until");
	chosen = a->columns != NULL ? a->columns
	         : a->style == TABLE_CSV ? t->csv_cols : t->table_cols;
	snprintf(copy, sizeof(copy), "%s", chosen);
	n = strlen(chosen) < sizeof(copy) ? split(copy, words, QUERY_MAX_COLS) : -1;
	for (i = 0; i < n; i++) {
		if (take_width(cmd, words[i], &a->widths[i]) != 0)
			return CLI_USAGE;
		if ((k = find_col(cols, ncols, words[i])) < 0)
			break;
		a->cols[i] = k;
	}
	a->ncols = n;
	if (n > 0 && i == n)
		return 0;
	list[0] = '\0';
	for (k = 0; k < ncols && used < sizeof(list); k++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
		                         k ? "," : "", query_cols[cols[k]].name);
	if (n < 0)
		return cli_usage(cmd, "bad column list '%s' (at most %d names, comma-"
		                 "separated, of: %s)", chosen, QUERY_MAX_COLS, list);
	return cli_usage(cmd, "no column '%s' (valid: %s)", words[i], list);
}

/* Whether a job passes the user, name and state filters. */
int query_keep(const struct query_args *a, uint32_t uid, const char *name,
               int state)
{
	size_t i;

	if (a->nuids > 0) {
		for (i = 0; i < a->nuids && a->uids[i] != uid; i++)
			;
		if (i == a->nuids)
			return 0;
	}
	if (a->nnames > 0) {
		for (i = 0; i < a->nnames && strcmp(a->names[i], name) != 0; i++)
			;
		if (i == a->nnames)
			return 0;
	}
	return a->states == 0 || (state >= 0 && (a->states >> state & 1));
}
