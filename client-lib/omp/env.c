/*
 * env.c - the OpenMP environment: reads every OMP_* (and the few GOMP_*)
 * variable libgomp 12 reads into omp_g, once, from the library's
 * constructor, with libgomp 12's defaults and its answers to bad values:
 * the same "\nlibgomp: ..." messages in the same order, and the same
 * value kept afterwards (found by running the system libgomp 12.2 with
 * each bad value and comparing: values, messages and the display block).
 * OMP_DISPLAY_ENV prints libgomp's block, byte for byte, plus one line
 * for ASTEAL_OMP_TEAM.
 *
 * The place list (OMP_PLACES, GOMP_CPU_AFFINITY) is places.c's, called
 * from here in libgomp's order.
 *
 * Rules libgomp 12 follows that are easy to get wrong:
 *  - max-active-levels-var: OMP_MAX_ACTIVE_LEVELS when valid (at most
 *    255, libgomp's supported levels); otherwise OMP_NESTED when valid
 *    (true: 255, false: 1); otherwise 255 when OMP_NUM_THREADS or
 *    OMP_PROC_BIND is a list of more than one value; otherwise 1.
 *    OMP_NESTED is not even read when OMP_MAX_ACTIVE_LEVELS is valid.
 *  - a boolean with trailing garbage ("truex") is reported and yet keeps
 *    the value read (libgomp does so), except OMP_NESTED, which then
 *    counts as unset.
 *  - GOMP_STACKSIZE counts only when OMP_STACKSIZE is unset or invalid.
 *
 * Nothing here calls the core: it only fills omp_g.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "layer.h"
#include "env.h"

#define SUPPORTED_LEVELS 255            /* libgomp's UCHAR_MAX */
#define DEFAULT_AFFINITY_FORMAT "level %L thread %i affinity %A"

struct omp_global omp_g;

/* What OMP_DISPLAY_ENV and omp_display_env print: the environment's
 * values, which the program's omp_set_* calls do not change (libgomp
 * prints its global ICVs, which those calls never write). */
static struct {
	struct omp_icv icv;
	unsigned long nthreads;         /* untruncated first value */
	unsigned long *nthreads_list;
	unsigned long stacksize;
	unsigned long long spincount;
	uintptr_t allocator;
} disp;

static const char *const alloc_names[] = {
	NULL, "omp_default_mem_alloc", "omp_large_cap_mem_alloc",
	"omp_const_mem_alloc", "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",
	"omp_cgroup_mem_alloc", "omp_pteam_mem_alloc", "omp_thread_mem_alloc",
};

/* Print one libgomp-style message line. */
static void verror(const char *fmt, va_list ap)
{
	fputs("\nlibgomp: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* libgomp's gomp_error: a message line on stderr. */
void omp_gomp_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
}

/* libgomp's gomp_fatal: a message line, then exit status 1. */
void omp_gomp_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
	exit(EXIT_FAILURE);
}

/* libgomp's fatal error for an allocation of size bytes that failed. */
void omp_gomp_oom(size_t size)
{
	omp_gomp_fatal("Out of memory allocating %lu bytes", (unsigned long)size);
}

/* malloc(size), or libgomp's fatal error when that fails. */
void *omp_gomp_malloc(size_t size)
{
	void *p = malloc(size);

	if (p == NULL)
		omp_gomp_oom(size);
	return p;
}

/* Report an invalid value the way libgomp words it. */
static void invalid(const char *name)
{
	omp_gomp_error("Invalid value for environment variable %s", name);
}

/* Skip white space. */
static const char *ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* The decimal number a set variable's value starts with (blanks before
 * it skipped), in *v, and what follows it, blanks skipped, in *end:
 * false when there is none or it is out of range. */
static bool leading_ulong(const char *env, unsigned long *v, const char **end)
{
	char *e;

	env = ws(env);
	if (*env == '\0')
		return false;
	errno = 0;
	*v = strtoul(env, &e, 10);
	*end = ws(e);
	return errno == 0 && e != env;
}

/* A non-negative (allow_zero) or positive number: true when set and valid. */
static bool parse_ulong(const char *name, const char *env, unsigned long *out,
                        bool allow_zero)
{
	const char *end;
	unsigned long v;

	if (env == NULL)
		return false;
	if (!leading_ulong(env, &v, &end) || (long)v < (allow_zero ? 0 : 1) ||
	    *end != '\0') {
		invalid(name);
		return false;
	}
	*out = v;
	return true;
}

/* As parse_ulong, also rejecting values above INT_MAX. */
static bool parse_int(const char *name, const char *env, int *out, bool allow_zero)
{
	unsigned long v;

	if (!parse_ulong(name, env, &v, allow_zero))
		return false;
	if (v > INT_MAX) {
		invalid(name);
		return false;
	}
	*out = (int)v;
	return true;
}

/* TRUE/FALSE: true when set and valid; *val keeps a recognised word even
 * when garbage follows it (as libgomp). */
static bool parse_bool(const char *name, int *val)
{
	const char *env = getenv(name);

	if (env == NULL)
		return false;
	env = ws(env);
	if (strncasecmp(env, "true", 4) == 0) {
		*val = 1;
		env += 4;
	} else if (strncasecmp(env, "false", 5) == 0) {
		*val = 0;
		env += 5;
	} else {
		env = "X";
	}
	if (*ws(env) != '\0') {
		invalid(name);
		return false;
	}
	return true;
}

/* OMP_SCHEDULE: [monotonic:|nonmonotonic:]kind[,chunk]. */
static void parse_schedule(struct omp_icv *icv)
{
	const char *env = getenv("OMP_SCHEDULE");
	static const struct { const char *name; unsigned kind; } kinds[] = {
		{ "static", OMP_SCHED_STATIC }, { "dynamic", OMP_SCHED_DYNAMIC },
		{ "guided", OMP_SCHED_GUIDED }, { "auto", OMP_SCHED_AUTO },
	};
	int mono = 0;
	size_t i;
	char *end;
	unsigned long v;

	if (env == NULL)
		return;
	env = ws(env);
	if (strncasecmp(env, "monotonic", 9) == 0) {
		mono = 1;
		env += 9;
	} else if (strncasecmp(env, "nonmonotonic", 12) == 0) {
		mono = -1;
		env += 12;
	}
	if (mono != 0) {
		env = ws(env);
		if (*env != ':')
			goto unknown;
		env = ws(env + 1);
	}
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strncasecmp(env, kinds[i].name, strlen(kinds[i].name)) == 0)
			break;
	if (i == sizeof kinds / sizeof kinds[0])
		goto unknown;
	env += strlen(kinds[i].name);
	icv->sched = kinds[i].kind;
	if (mono == 1 || (mono == 0 && kinds[i].kind == OMP_SCHED_STATIC))
		icv->sched |= OMP_SCHED_MONOTONIC;
	env = ws(env);
	if (*env == '\0') {
		icv->chunk = kinds[i].kind != OMP_SCHED_STATIC;
		return;
	}
	if (*env++ != ',')
		goto unknown;
	env = ws(env);
	if (*env == '\0')
		goto bad_chunk;
	errno = 0;
	v = strtoul(env, &end, 10);
	/* libgomp's test (int)v != v, with the int widened to unsigned long:
	 * "-1" (ULONG_MAX) passes as -1, 2147483648 does not. */
	if (errno != 0 || *ws(end) != '\0' || (unsigned long)(long)(int)v != v)
		goto bad_chunk;
	if (v == 0 && kinds[i].kind != OMP_SCHED_STATIC)
		v = 1;
	icv->chunk = (int)v;
	return;
unknown:
	omp_gomp_error("Unknown value for environment variable OMP_SCHEDULE");
	return;
bad_chunk:
	omp_gomp_error("Invalid value for chunk size in environment variable OMP_SCHEDULE");
}

/* OMP_NUM_THREADS: a positive number or a list of them. */
static void parse_nthreads(void)
{
	const char *env = getenv("OMP_NUM_THREADS");
	unsigned long *vals = NULL, v;
	size_t n = 0;
	char *end;

	if (env == NULL)
		return;
	for (;;) {
		env = ws(env);
		if (*env == '\0')
			goto bad;
		errno = 0;
		v = strtoul(env, &end, 10);
		if (errno != 0 || (long)v <= 0)
			goto bad;
		unsigned long *nv = realloc(vals, (n + 1) * sizeof *vals);
		if (nv == NULL)
			goto bad;
		vals = nv;
		vals[n++] = v;
		env = ws(end);
		if (*env == '\0')
			break;
		if (*env++ != ',')
			goto bad;
	}
	disp.nthreads = vals[0];
	omp_g.icv.nthreads = (unsigned)vals[0];
	if (n == 1) {
		free(vals);
		return;
	}
	omp_g.nthreads_list = malloc(n * sizeof *omp_g.nthreads_list);
	if (omp_g.nthreads_list == NULL) {
		free(vals);
		return;
	}
	for (size_t i = 0; i < n; i++)
		omp_g.nthreads_list[i] = (unsigned)vals[i];
	omp_g.nthreads_len = n;
	disp.nthreads_list = vals;
	return;
bad:
	free(vals);
	invalid("OMP_NUM_THREADS");
}

/* OMP_PROC_BIND: true, false, or a list of master/primary/close/spread;
 * true when set and valid. */
static bool parse_bind(void)
{
	static const struct { const char *name; int kind; } kinds[] = {
		{ "false", 0 }, { "true", 1 }, { "master", 2 }, { "primary", 2 },
		{ "close", 3 }, { "spread", 4 },
	};
	const char *env = getenv("OMP_PROC_BIND");
	int *vals = NULL;
	size_t n = 0, i;

	if (env == NULL)
		return false;
	for (;;) {
		env = ws(env);
		for (i = n == 0 ? 0 : 2; i < sizeof kinds / sizeof kinds[0]; i++)
			if (strncasecmp(env, kinds[i].name, strlen(kinds[i].name)) == 0)
				break;
		if (i == sizeof kinds / sizeof kinds[0])
			goto bad;
		int *nv = realloc(vals, (n + 1) * sizeof *vals);
		if (nv == NULL)
			goto bad;
		vals = nv;
		vals[n++] = kinds[i].kind;
		env = ws(env + strlen(kinds[i].name));
		if (*env == '\0')
			break;
		if (*env++ != ',' || vals[0] < 2)
			goto bad;
	}
	omp_g.icv.bind = vals[0];
	if (n == 1) {
		free(vals);
	} else {
		omp_g.bind_list = vals;
		omp_g.bind_len = n;
	}
	return true;
bad:
	free(vals);
	invalid("OMP_PROC_BIND");
	return false;
}

/* OMP_STACKSIZE (or GOMP_STACKSIZE): a size in kilobytes unless suffixed
 * B, K, M or G. */
static bool parse_stacksize(const char *name, const char *env, unsigned long *out)
{
	unsigned long v, shift = 10;
	const char *end;

	if (env == NULL)
		return false;
	if (!leading_ulong(env, &v, &end))
		goto bad;
	if (*end != '\0') {
		switch (tolower((unsigned char)*end)) {
		case 'b': shift = 0; break;
		case 'k': break;
		case 'm': shift = 20; break;
		case 'g': shift = 30; break;
		default: goto bad;
		}
		if (*ws(end + 1) != '\0')
			goto bad;
	}
	if (((v << shift) >> shift) != v)
		goto bad;
	*out = v << shift;
	return true;
bad:
	invalid(name);
	return false;
}

/* GOMP_SPINCOUNT: a count, optionally k/M/G/T (powers of 1000), or
 * "infinite"; accepted and only displayed. */
static bool parse_spincount(unsigned long long *out)
{
	const char *env = getenv("GOMP_SPINCOUNT");
	unsigned long long v, mult = 1;
	char *end;

	if (env == NULL)
		return false;
	env = ws(env);
	if (*env == '\0')
		goto bad;
	if (strncasecmp(env, "infinite", 8) == 0 || strncasecmp(env, "infinity", 8) == 0) {
		v = ~0ULL;
		end = (char *)env + 8;
	} else {
		errno = 0;
		v = strtoull(env, &end, 10);
		if (errno != 0)
			goto bad;
		end = (char *)ws(end);
		if (*end != '\0') {
			switch (tolower((unsigned char)*end)) {
			case 'k': mult = 1000ULL; break;
			case 'm': mult = 1000000ULL; break;
			case 'g': mult = 1000000000ULL; break;
			case 't': mult = 1000000000000ULL; break;
			default: goto bad;
			}
			end++;
		}
	}
	if (*ws(end) != '\0')
		goto bad;
	*out = v > ~0ULL / mult ? ~0ULL : v * mult;
	return true;
bad:
	invalid("GOMP_SPINCOUNT");
	return false;
}

/* A keyword from a table (case-insensitive, surrounding spaces allowed);
 * its index, or -1 after reporting name as invalid. */
static int parse_word(const char *name, const char *env,
                      const char *const *words, int n)
{
	env = ws(env);
	for (int i = 0; i < n; i++) {
		size_t l;
		if (words[i] == NULL)
			continue;
		l = strlen(words[i]);
		if (strncasecmp(env, words[i], l) == 0 && *ws(env + l) == '\0')
			return i;
	}
	invalid(name);
	return -1;
}

/* Read the OMP_* and ASTEAL_OMP_* environment into omp_g. */
void omp_env_init(void)
{
	struct omp_icv *icv = &omp_g.icv;
	unsigned long ul, stack = 0;
	const char *env;
	int i, mal_set = 0, nested = 0, display = 0;
	bool ignore = false, bind_set, stack_set = false;

	omp_g.nprocs = omp_places_init();
	*icv = (struct omp_icv){
		.nthreads = (unsigned)omp_g.nprocs, .thread_limit = UINT_MAX,
		.dyn = 0, .max_active_levels = 1, .sched = OMP_SCHED_DYNAMIC,
		.chunk = 1, .bind = 0, .default_device = 0,
	};
	disp.nthreads = (unsigned long)omp_g.nprocs;
	omp_g.wait_policy = -1;
	omp_g.affinity_format = (char *)DEFAULT_AFFINITY_FORMAT;
	omp_g.default_allocator = 1;                    /* omp_default_mem_alloc */
	omp_g.supported_levels = SUPPORTED_LEVELS;
	omp_g.team_policy = OMP_TEAM_FULL;

	/* In libgomp 12's order, so that the messages come out in it. */
	parse_schedule(icv);
	parse_bool("OMP_DYNAMIC", &icv->dyn);
	parse_bool("OMP_CANCELLATION", &omp_g.cancel);
	parse_bool("OMP_DISPLAY_AFFINITY", &omp_g.display_affinity);
	parse_int("OMP_DEFAULT_DEVICE", getenv("OMP_DEFAULT_DEVICE"),
	          &icv->default_device, true);
	if ((env = getenv("OMP_TARGET_OFFLOAD")) != NULL) {
		static const char *const w[] = { "default", "mandatory", "disabled" };
		i = parse_word("OMP_TARGET_OFFLOAD", env, w, 3);
		omp_g.target_offload = i < 0 ? 0 : i;
	}
	parse_int("OMP_MAX_TASK_PRIORITY", getenv("OMP_MAX_TASK_PRIORITY"),
	          &omp_g.max_task_priority, true);
	if ((env = getenv("OMP_ALLOCATOR")) != NULL) {
		i = parse_word("OMP_ALLOCATOR", env, alloc_names, 9);
		omp_g.default_allocator = i < 0 ? 1 : (uintptr_t)i;
	}
	if (parse_ulong("OMP_THREAD_LIMIT", getenv("OMP_THREAD_LIMIT"), &ul, false))
		icv->thread_limit = ul > INT_MAX ? UINT_MAX : (unsigned)ul;
	parse_int("GOMP_DEBUG", secure_getenv("GOMP_DEBUG"), &i, true);
	parse_nthreads();
	parse_int("OMP_NUM_TEAMS", getenv("OMP_NUM_TEAMS"), &omp_g.nteams, false);
	parse_int("OMP_TEAMS_THREAD_LIMIT", getenv("OMP_TEAMS_THREAD_LIMIT"),
	          &omp_g.teams_thread_limit, false);
	bind_set = parse_bind();
	if (parse_ulong("OMP_MAX_ACTIVE_LEVELS", getenv("OMP_MAX_ACTIVE_LEVELS"), &ul, true)) {
		icv->max_active_levels = ul > SUPPORTED_LEVELS ? SUPPORTED_LEVELS : (int)ul;
		mal_set = 1;
	}
	if (!mal_set) {
		if (parse_bool("OMP_NESTED", &nested))
			icv->max_active_levels = nested ? SUPPORTED_LEVELS : 1;
		else if (omp_g.nthreads_len > 1 || omp_g.bind_len > 1)
			icv->max_active_levels = SUPPORTED_LEVELS;
	}
	/* OMP_PROC_BIND=false: places are checked but not made. */
	ignore = bind_set && icv->bind == 0;
	if (omp_places_parse(ignore)) {
		omp_g.places = strdup(getenv("OMP_PLACES"));
		if (icv->bind == 0)
			icv->bind = 1;
		ignore = true;
	}
	if (omp_places_cpu_affinity(ignore) && icv->bind == 0)
		icv->bind = 1;
	if (icv->bind != 0)
		omp_places_default();
	if ((env = getenv("OMP_AFFINITY_FORMAT")) != NULL) {
		char *f = strdup(env);
		if (f != NULL)
			omp_g.affinity_format = f;
	}
	if ((env = getenv("OMP_WAIT_POLICY")) != NULL) {
		static const char *const w[] = { "passive", "active" };
		omp_g.wait_policy = parse_word("OMP_WAIT_POLICY", env, w, 2);
	}
	if (!parse_spincount(&disp.spincount))
		disp.spincount = omp_g.wait_policy > 0 ? 30000000000ULL
		               : omp_g.wait_policy < 0 ? 300000ULL : 0;
	stack_set = parse_stacksize("OMP_STACKSIZE", getenv("OMP_STACKSIZE"), &stack)
	            || parse_stacksize("GOMP_STACKSIZE", getenv("GOMP_STACKSIZE"), &stack);
	if (stack_set) {
		pthread_attr_t a;
		int err;

		disp.stacksize = stack;
		pthread_attr_init(&a);
		err = pthread_attr_setstacksize(&a, stack);
		pthread_attr_destroy(&a);
		if (err == EINVAL && stack < (unsigned long)PTHREAD_STACK_MIN)
			omp_gomp_error("Stack size less than minimum of %luk",
			               (unsigned long)PTHREAD_STACK_MIN / 1024ul
			               + ((unsigned long)PTHREAD_STACK_MIN % 1024 != 0));
		else if (err == EINVAL)
			omp_gomp_error("Stack size larger than system limit");
		else if (err != 0)
			omp_gomp_error("Stack size change failed: %s", strerror(err));
		omp_g.stacksize = err == 0 ? stack : 0;
	}
	if ((env = getenv("ASTEAL_OMP_TEAM")) != NULL) {
		const char *v = ws(env);
		if (strncasecmp(v, "full", 4) == 0 && *ws(v + 4) == '\0')
			omp_g.team_policy = OMP_TEAM_FULL;
		else if (strncasecmp(v, "allotment", 9) == 0 && *ws(v + 9) == '\0')
			omp_g.team_policy = OMP_TEAM_ALLOTMENT;
		else
			fprintf(stderr, "asteal: ASTEAL_OMP_TEAM=%s: expected full or allotment\n",
			        env);
	}
	disp.icv = *icv;
	disp.allocator = omp_g.default_allocator;
	if ((env = getenv("OMP_DISPLAY_ENV")) != NULL) {
		/* A recognised word followed by garbage is reported, and yet
		 * obeyed (as libgomp). */
		static const char *const w[] = { "false", "true", "verbose" };
		const char *v = ws(env);
		for (i = 0; i < 3; i++)
			if (strncasecmp(v, w[i], strlen(w[i])) == 0)
				break;
		if (i < 3) {
			display = i;
			v += strlen(w[i]);
		}
		if (i == 3 || *ws(v) != '\0')
			invalid("OMP_DISPLAY_ENV");
		omp_g.display_env = display;
	}
	if (omp_g.display_env)
		omp_env_display(omp_g.display_env == 2);
}

/* Print the OpenMP environment as libgomp 12 does (OMP_DISPLAY_ENV). */
void omp_env_display(int verbose)
{
	static const char *const binds[] = { "FALSE", "TRUE", "MASTER", "CLOSE", "SPREAD" };
	const struct omp_icv *icv = &disp.icv;
	unsigned kind = icv->sched & ~OMP_SCHED_MONOTONIC;

	fputs("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n", stderr);
	fputs("  _OPENMP = '201511'\n", stderr);
	fprintf(stderr, "  OMP_DYNAMIC = '%s'\n", icv->dyn ? "TRUE" : "FALSE");
	fprintf(stderr, "  OMP_NESTED = '%s'\n", icv->max_active_levels > 1 ? "TRUE" : "FALSE");
	fprintf(stderr, "  OMP_NUM_THREADS = '%lu", disp.nthreads);
	for (size_t i = 1; i < omp_g.nthreads_len; i++)
		fprintf(stderr, ",%lu", disp.nthreads_list[i]);
	fputs("'\n", stderr);
	fputs("  OMP_SCHEDULE = '", stderr);
	if (icv->sched & OMP_SCHED_MONOTONIC) {
		if (kind != OMP_SCHED_STATIC)
			fputs("MONOTONIC:", stderr);
	} else if (kind == OMP_SCHED_STATIC) {
		fputs("NONMONOTONIC:", stderr);
	}
	switch (kind) {
	case OMP_SCHED_STATIC:
		fputs("STATIC", stderr);
		if (icv->chunk != 0)
			fprintf(stderr, ",%d", icv->chunk);
		break;
	case OMP_SCHED_AUTO:
		fputs("AUTO", stderr);
		break;
	default:
		fputs(kind == OMP_SCHED_DYNAMIC ? "DYNAMIC"
		      : kind == OMP_SCHED_GUIDED ? "GUIDED" : "RUNTIME", stderr);
		if (icv->chunk != 1)
			fprintf(stderr, ",%d", icv->chunk);
		break;
	}
	fputs("'\n", stderr);
	fprintf(stderr, "  OMP_PROC_BIND = '%s",
	        icv->bind >= 0 && icv->bind <= 4 ? binds[icv->bind] : "FALSE");
	for (size_t i = 1; i < omp_g.bind_len; i++)
		if (omp_g.bind_list[i] >= 2 && omp_g.bind_list[i] <= 4)
			fprintf(stderr, ",%s", binds[omp_g.bind_list[i]]);
	fputs("'\n", stderr);
	fputs("  OMP_PLACES = '", stderr);
	omp_places_print(stderr);
	fputs("'\n", stderr);
	fprintf(stderr, "  OMP_STACKSIZE = '%lu'\n", disp.stacksize);
	fprintf(stderr, "  OMP_WAIT_POLICY = '%s'\n", omp_g.wait_policy > 0 ? "ACTIVE" : "PASSIVE");
	fprintf(stderr, "  OMP_THREAD_LIMIT = '%u'\n", icv->thread_limit);
	fprintf(stderr, "  OMP_MAX_ACTIVE_LEVELS = '%u'\n", (unsigned)icv->max_active_levels);
	fprintf(stderr, "  OMP_NUM_TEAMS = '%u'\n", (unsigned)omp_g.nteams);
	fprintf(stderr, "  OMP_TEAMS_THREAD_LIMIT = '%u'\n", (unsigned)omp_g.teams_thread_limit);
	fprintf(stderr, "  OMP_CANCELLATION = '%s'\n", omp_g.cancel ? "TRUE" : "FALSE");
	fprintf(stderr, "  OMP_DEFAULT_DEVICE = '%d'\n", icv->default_device);
	fprintf(stderr, "  OMP_MAX_TASK_PRIORITY = '%d'\n", omp_g.max_task_priority);
	fprintf(stderr, "  OMP_DISPLAY_AFFINITY = '%s'\n", omp_g.display_affinity ? "TRUE" : "FALSE");
	fprintf(stderr, "  OMP_AFFINITY_FORMAT = '%s'\n", omp_g.affinity_format);
	fprintf(stderr, "  OMP_ALLOCATOR = '%s'\n",
	        disp.allocator >= 1 && disp.allocator <= 8 ? alloc_names[disp.allocator]
	                                                   : "omp_default_mem_alloc");
	fprintf(stderr, "  OMP_TARGET_OFFLOAD = '%s'\n",
	        omp_g.target_offload == 1 ? "MANDATORY"
	        : omp_g.target_offload == 2 ? "DISABLED" : "DEFAULT");
	if (verbose) {
		fputs("  GOMP_CPU_AFFINITY = ''\n", stderr);
		fprintf(stderr, "  GOMP_STACKSIZE = '%lu'\n", disp.stacksize);
		fprintf(stderr, "  GOMP_SPINCOUNT = '%llu'\n", disp.spincount);
	}
	fprintf(stderr, "  ASTEAL_OMP_TEAM = '%s'\n",
	        omp_g.team_policy == OMP_TEAM_ALLOTMENT ? "allotment" : "full");
	fputs("OPENMP DISPLAY ENVIRONMENT END\n", stderr);
}
