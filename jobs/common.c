/*
 * common.c - argument parsing, timing and the result line for jobs/.
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtime.h"

#ifndef JOB_NO_RUNTIME
#include "asteal.h"
#endif

/* Monotonic time in seconds. */
double job_now(void)
{
	return (double)qtime_now_ns() * 1e-9;
}

/* Parse a whole decimal integer in [min, max]; -1 on anything else. */
int job_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Print usage on stderr and exit 2. */
void job_usage(const char *name, const char *usage)
{
	fprintf(stderr, "usage: %s %s\n", name, usage);
	exit(JOB_EXIT_USAGE);
}

/* Take --serial and --workers N out of argv and return the new argc. */
int job_parse_common(const char *name, const char *usage, int argc,
                     char **argv, job_common *c)
{
	int i, n = 1;
	long w;

	c->serial = 0;
	c->workers = 0;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--serial") == 0) {
			c->serial = 1;
		} else if (strcmp(argv[i], "--workers") == 0) {
			if (i + 1 >= argc ||
			    job_parse_long(argv[i + 1], 1, 4096, &w) < 0)
				job_usage(name, usage);
			c->workers = (int)w;
			i++;
		} else if (strcmp(argv[i], "-h") == 0 ||
		           strcmp(argv[i], "--help") == 0) {
			job_usage(name, usage);
		} else {
			argv[n++] = argv[i];
		}
	}
	argv[n] = NULL;
	return n;
}

/* Parse "SIZE [--serial] [--workers W]" into *c and return SIZE. */
long job_parse_size(const char *name, const char *usage, int argc,
                    char **argv, long min, long max, job_common *c)
{
	long n;

	argc = job_parse_common(name, usage, argc, argv, c);
	if (argc != 2 || job_parse_long(argv[1], min, max, &n) < 0)
		job_usage(name, usage);
	return n;
}

#ifndef JOB_NO_RUNTIME
/* Start the runtime with c->workers, or exit 1 with its error. */
void job_runtime_start(const char *name, const job_common *c)
{
	asteal_options o;

	if (c->serial)
		return;
	asteal_options_init(&o);
	o.workers = c->workers;
	if (asteal_start(&o) < 0) {
		fprintf(stderr, "%s: cannot start the runtime: %s\n", name,
		        strerror(errno));
		exit(1);
	}
}

/* Workers of the running runtime (0 in serial mode). */
int job_workers(const job_common *c)
{
	return c->serial ? 0 : asteal_workers();
}

/* Stop the runtime started by job_runtime_start. */
void job_runtime_stop(const job_common *c)
{
	if (!c->serial && asteal_stop() < 0)
		fprintf(stderr, "asteal_stop: %s\n", strerror(errno));
}
#else
/* Without libasteal (the OpenMP and TBB benchmarks): the --workers value. */
int job_workers(const job_common *c)
{
	return c->serial ? 0 : c->workers;
}
#endif

/* Print the result line; returns the exit status. */
int job_report(const char *name, const char *size, const char *result,
               const job_common *c, double seconds, int ok)
{
	printf("job=%s size=%s result=%s mode=%s workers=%d time_s=%.6f check=%s\n",
	       name, size, result, c->serial ? "serial" : "parallel",
	       c->serial ? 0 : job_workers(c), seconds, ok ? "ok" : "FAILED");
	fflush(stdout);
	if (!ok)
		fprintf(stderr, "%s: wrong result %s for size %s\n", name,
		        result, size);
	return ok ? 0 : JOB_EXIT_WRONG;
}
