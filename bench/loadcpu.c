/*
 * loadcpu.c - the CPU time asteal-loadgen measures (see loadcpu.h): read
 * at the start and the end of the run, the differences are its shares of
 * a core.
 */
#include "loadcpu.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The user and system CPU seconds of process pid, from /proc/PID/stat. */
int loadcpu_of(int pid, double *user, double *sys)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f == NULL || fgets(buf, sizeof(buf), f) == NULL) {
		if (f != NULL)
			fclose(f);
		return -1;
	}
	fclose(f);
	p = strrchr(buf, ')');
	for (i = 0; p != NULL && i < 12; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%lu %lu", &ut, &st) != 2)
		return -1;
	*user = (double)ut / (double)sysconf(_SC_CLK_TCK);
	*sys = (double)st / (double)sysconf(_SC_CLK_TCK);
	return 0;
}

/* This process's CPU time in seconds. */
double loadcpu_own(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* The host's steal and total time so far (/proc/stat's first line). */
void loadcpu_steal(double *steal, double *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	*steal = *total = 0;
	if (f == NULL)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
	           &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		*steal = (double)v[7];
		for (int i = 0; i < 8; i++)
			*total += (double)v[i];
	}
	fclose(f);
}
