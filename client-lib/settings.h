/*
 * settings.h - what the environment tells libasteal's link thread (see
 * settings.c): the scheduling mode (ASTEAL_MODE), and in the adaptive
 * modes the estimator's parameters, the quantum's length, the profile and
 * trace files, the daemon's socket, the id to claim and whether to be
 * quiet.  Read once, as the runtime starts (quantum_config, quantum.c);
 * the runtime's own options (workers, stack, ready limit) are runtime.c's.
 */
#ifndef ASTEAL_SETTINGS_H
#define ASTEAL_SETTINGS_H

#include <stdint.h>

#include "estimator.h"

#define SETTINGS_SOCKET_MAX 108        /* a socket path's room (sun_path) */

/* The adaptive modes' settings. */
struct settings {
	struct est_params est;         /* ASTEAL_DELTA, ASTEAL_RHO */
	uint64_t length;               /* L without a daemon (ns):
	                                  ASTEAL_QUANTUM_MS */
	const char *profile;           /* ASTEAL_PROFILE, or NULL */
	const char *trace;             /* ASTEAL_TRACE, or NULL */
	char socket[SETTINGS_SOCKET_MAX]; /* the daemon's socket, "" for none */
	uint64_t claim;                /* ASTEAL_JOB_ID, 0 for none */
	int quiet;                     /* ASTEAL_QUIET: no log lines */
};

/* Read ASTEAL_MODE into *mode (enum rt_mode, runtime.h): 0, or -1 with a
 * message when it names no mode. */
int settings_mode(int *mode);

/* Read the adaptive modes' settings for a job of nworkers workers (the
 * static mode reads none): 0, or -1 with a message when a value is bad. */
int settings_read(struct settings *s, int nworkers);

/* The name of a mode (enum rt_mode), as ASTEAL_MODE spells it. */
const char *settings_mode_name(int mode);

#endif
