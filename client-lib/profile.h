/*
 * profile.h - a scripted availability (see profile.c): ASTEAL_PROFILE
 * names a file of one availability per quantum, which stands for the job
 * scheduler when the job runs without a daemon.
 */
#ifndef ASTEAL_PROFILE_H
#define ASTEAL_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/* The availabilities of quanta 1, 2, ... (the last one repeats). */
struct profile {
	int *avail;                    /* NULL: no profile */
	size_t n;
};

/* Read the profile file at path into *p (empty to start with): 0, or -1
 * with errno and a message; p holds what was read either way, for
 * profile_free. */
int profile_read(struct profile *p, const char *path);

/* Free what p holds (an empty profile is fine). */
void profile_free(struct profile *p);

/* The availability of quantum q (from 1): the profile's line q, the last
 * line for any later quantum, or all without a profile. */
int profile_availability(const struct profile *p, int all, uint64_t q);

#endif
