/*
 * profile.c - the profile reader (profile.h): a text file of one
 * availability (an integer from 0 to RT_MAX_WORKERS) per line, blank
 * lines and lines starting with # skipped, at most PROFILE_MAX lines,
 * the last not 0 (it holds from there on: a job would never run again).
 * Without a daemon the link thread (quantum.c) takes quantum q's
 * availability from line q, the last line repeating; a job with a profile
 * never connects to the daemon (settings.c).
 */
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

#define PROFILE_MAX (1 << 24)          /* lines of a profile file */

/* Read a profile: -1 with a message on error. */
int profile_read(struct profile *p, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[128];
	size_t cap = 0, lineno = 0, last = 0;

	if (f == NULL) {
		fprintf(stderr, "asteal: ASTEAL_PROFILE=%s: %s\n", path, strerror(errno));
		errno = EINVAL;
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *s = line, *end;
		long v;

		lineno++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0')
			continue;
		errno = 0;
		v = strtol(s, &end, 10);
		while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
			end++;
		if (errno != 0 || end == s || *end != '\0' || v < 0 ||
		    v > RT_MAX_WORKERS || p->n >= PROFILE_MAX) {
			fprintf(stderr, "asteal: ASTEAL_PROFILE=%s:%zu: expected one "
			        "availability (0 to %d) per line\n", path, lineno,
			        RT_MAX_WORKERS);
			fclose(f);
			errno = EINVAL;
			return -1;
		}
		if (p->n == cap) {
			int *n = realloc(p->avail, (cap ? 2 * cap : 256) * sizeof(int));
			if (n == NULL) {
				fclose(f);
				errno = ENOMEM;
				return -1;
			}
			p->avail = n;
			cap = cap ? 2 * cap : 256;
		}
		p->avail[p->n++] = (int)v;
		last = lineno;
	}
	fclose(f);
	if (p->n == 0) {
		fprintf(stderr, "asteal: ASTEAL_PROFILE=%s: no availability in it\n", path);
		errno = EINVAL;
		return -1;
	}
	if (p->avail[p->n - 1] == 0) {
		fprintf(stderr, "asteal: ASTEAL_PROFILE=%s:%zu: the last availability, "
		        "which holds from there on, is 0: the job would stop there for "
		        "good; end the profile with 1 or more\n", path, last);
		profile_free(p);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Free a profile. */
void profile_free(struct profile *p)
{
	free(p->avail);
	p->avail = NULL;
	p->n = 0;
}

/* The availability of quantum q. */
int profile_availability(const struct profile *p, int all, uint64_t q)
{
	if (p->avail == NULL)
		return all;
	if (q < 1)
		q = 1;
	return p->avail[q - 1 < p->n ? q - 1 : p->n - 1];
}
