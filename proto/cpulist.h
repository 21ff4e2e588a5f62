/*
 * cpulist.h - Linux CPU lists ("0-3,6,8-9"): parse, format, and the CPUs
 * the calling process may run on.  Shared by asteald and the command line.
 */
#ifndef ASTEAL_CPULIST_H
#define ASTEAL_CPULIST_H

#include <stddef.h>

#define CPULIST_MAX 1024               /* CPU ids are below this */

/* Parse s into ascending, distinct CPU ids (at most max of them): returns
 * the count, or -1 with a reason in why ("bad range 3-1", "CPU 5000 out
 * of range", "empty list", "CPU 2 listed twice" ...). */
int cpulist_parse(const char *s, int *cpus, int max, char *why, size_t whylen);

/* Format n CPU ids (any order, duplicates collapse) as a compact list into
 * buf: returns the length, or -1 when buf is too small (ENOSPC: it then
 * holds a truncated list) or an id is out of range (EINVAL). */
int cpulist_format(const int *cpus, int n, char *buf, size_t len);

/* The CPUs this process may run on (sched_getaffinity), ascending, those
 * below CPULIST_MAX: the count, or -1 with errno (ERANGE: more than max,
 * or none below CPULIST_MAX). */
int cpulist_allowed(int *cpus, int max);

#endif
