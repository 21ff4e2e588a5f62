/*
 * loaded.c - not a test: the runner's probe of which OpenMP runtime a
 * program really runs on.  It prints the file that provides the
 * omp_get_max_threads and GOMP_parallel this program calls (dladdr on the
 * addresses the dynamic linker bound), one per line, and then every
 * mapped file whose name contains "gomp" or "omp.so" (/proc/self/maps),
 * so that a misconfigured library path cannot pass silently.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

extern void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

/* Print the object that holds `addr`. */
static int where(const char *name, void *addr)
{
	Dl_info info;

	if (!dladdr(addr, &info) || !info.dli_fname) {
		printf("%s: unknown\n", name);
		return 1;
	}
	printf("%s: %s\n", name, info.dli_fname);
	return 0;
}

/* Both symbols, then the OpenMP libraries mapped. */
int main(void)
{
	char line[4096];
	FILE *maps;
	int bad = where("omp_get_max_threads", (void *)omp_get_max_threads);

	bad |= where("GOMP_parallel", (void *)GOMP_parallel);
	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return 1;
	while (fgets(line, sizeof line, maps)) {
		char *path = strchr(line, '/');
		if (path && (strstr(path, "gomp") || strstr(path, "omp.so")))
			printf("mapped: %s", path);
	}
	fclose(maps);
	return bad;
}
