/*
 * common.h - what every job in jobs/ shares: argument parsing, timing, and
 * the one result line each job prints.
 *
 * Conventions (README.md, "Jobs"):
 *   job SIZE [--serial] [--workers N] [job flags...]
 * prints exactly one line on stdout:
 *   job=NAME size=SIZE result=R mode=serial|parallel workers=N time_s=T check=ok
 * and exits 0; a wrong result prints check=FAILED and exits 1; bad arguments
 * print usage on stderr and exit 2.
 */
#ifndef JOBS_COMMON_H
#define JOBS_COMMON_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JOB_EXIT_WRONG 1
#define JOB_EXIT_USAGE 2

/* Options common to all jobs, filled by job_parse_common. */
typedef struct job_common {
	int serial;        /* --serial: plain C, no runtime */
	int workers;       /* --workers N (0: runtime default) */
} job_common;

/* Monotonic time in seconds. */
double job_now(void);

/* Parse a whole decimal integer in [min, max]; -1 on anything else. */
int job_parse_long(const char *s, long min, long max, long *out);

/* Print "usage: NAME USAGE" on stderr and exit 2. */
void job_usage(const char *name, const char *usage) __attribute__((noreturn));

/* Take --serial and --workers N out of argv (compacting it) and return the
 * new argc; exits 2 through job_usage on a malformed --workers. */
int job_parse_common(const char *name, const char *usage, int argc,
                     char **argv, job_common *c);

/* Parse "SIZE [--serial] [--workers W]" with SIZE in [min, max] into *c
 * and return SIZE; exits 2 through job_usage on anything else. */
long job_parse_size(const char *name, const char *usage, int argc,
                    char **argv, long min, long max, job_common *c);

/* Start the runtime with c->workers, or exit 1 with its error. */
void job_runtime_start(const char *name, const job_common *c);

/* Workers of the running runtime (0 in serial mode). */
int job_workers(const job_common *c);

/* Stop the runtime started by job_runtime_start (no-op in serial mode). */
void job_runtime_stop(const job_common *c);

/* Print the result line; returns the exit status (0, or 1 when !ok). */
int job_report(const char *name, const char *size, const char *result,
               const job_common *c, double seconds, int ok);

#ifdef __cplusplus
}
#endif

#endif
