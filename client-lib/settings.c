/*
 * settings.c - the environment's settings for A-STEAL's quanta inside the
 * job (settings.h): the mode first, then, unless the mode is static (no
 * quanta, nothing more to read), the estimator's delta and rho, the
 * quantum's length, the profile and trace paths, the daemon's socket and
 * the job id to claim on it, and ASTEAL_QUIET.  A value out of range is
 * an error with a message naming the variable, never a default.  The
 * files named here are opened by their modules (profile.c, trace.c).
 */
#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "runtime.h"

#define SETTINGS_DEFAULT_MS 10.0

static const char *const mode_names[] = { "asteal", "abp", "static" };

/* Read an environment variable as a real number in [lo, hi]: 1 when set
 * and valid, 0 when unset, -1 with a message when invalid. */
static int env_real(const char *name, double lo, double hi, double *out)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= lo && v <= hi)) {
		fprintf(stderr, "asteal: %s=%s: expected a number from %g to %g\n",
		        name, s, lo, hi);
		errno = EINVAL;
		return -1;
	}
	*out = v;
	return 1;
}

/* Read ASTEAL_MODE (asteal when unset). */
int settings_mode(int *mode)
{
	const char *s = getenv("ASTEAL_MODE");
	int m;

	*mode = RT_MODE_ASTEAL;
	if (s == NULL || *s == '\0')
		return 0;
	for (m = 0; m <= RT_MODE_STATIC; m++)
		if (strcmp(s, mode_names[m]) == 0)
			break;
	if (m > RT_MODE_STATIC) {
		fprintf(stderr, "asteal: ASTEAL_MODE=%s: expected asteal, abp "
		        "or static\n", s);
		errno = EINVAL;
		return -1;
	}
	*mode = m;
	return 0;
}

/* Read the adaptive modes' settings. */
int settings_read(struct settings *s, int nworkers)
{
	const char *profile = getenv("ASTEAL_PROFILE");
	const char *trace = getenv("ASTEAL_TRACE");
	const char *sock = getenv(PROTO_SOCKET_ENV);
	const char *quiet = getenv("ASTEAL_QUIET");
	const char *why;
	double ms = SETTINGS_DEFAULT_MS;

	memset(s, 0, sizeof(*s));
	est_params_default(&s->est, nworkers);
	if (env_real("ASTEAL_DELTA", 0.0, 1.0, &s->est.delta) < 0 ||
	    env_real("ASTEAL_RHO", 1.0, 1000.0, &s->est.rho) < 0 ||
	    env_real("ASTEAL_QUANTUM_MS", 0.05, 60000.0, &ms) < 0)
		return -1;
	if (est_params_check(&s->est, &why) < 0) {
		fprintf(stderr, "asteal: ASTEAL_DELTA/ASTEAL_RHO: %s\n", why);
		errno = EINVAL;
		return -1;
	}
	s->length = (uint64_t)(ms * 1e6);
	s->profile = profile != NULL && *profile != '\0' ? profile : NULL;
	s->trace = trace != NULL && *trace != '\0' ? trace : NULL;
	/* The daemon: ASTEAL_SOCKET, else the system socket; none with a
	 * scripted profile (the profile is the job scheduler then) or when
	 * ASTEAL_SOCKET is "none". */
	if (s->profile == NULL && !(sock != NULL && strcmp(sock, "none") == 0)) {
		if (sock == NULL || *sock == '\0')
			sock = PROTO_SOCKET_PATH;
		if (strlen(sock) >= sizeof(s->socket)) {
			fprintf(stderr, "asteal: %s=%s: path too long\n", PROTO_SOCKET_ENV, sock);
			errno = EINVAL;
			return -1;
		}
		snprintf(s->socket, sizeof(s->socket), "%s", sock);
		/* Launched by `asteal run`/`submit`: claim the id it made. */
		const char *id = getenv("ASTEAL_JOB_ID");
		if (id != NULL && *id != '\0') {
			char *end;
			errno = 0;
			s->claim = strtoull(id, &end, 10);
			if (errno != 0 || *end != '\0')
				s->claim = 0;   /* not ours to judge: register anew */
		}
	}
	s->quiet = quiet != NULL && *quiet != '\0' && strcmp(quiet, "0") != 0;
	return 0;
}

/* The name of a mode. */
const char *settings_mode_name(int mode)
{
	return mode_names[mode];
}
