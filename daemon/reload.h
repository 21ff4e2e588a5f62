/*
 * reload.h - asteald's settings read again while it runs (SIGHUP, as
 * `systemctl reload asteald` sends it): which settings change live, and
 * the log lines that say what changed and what waits for a restart.
 *
 * Live: log-level, retention-days (the next expiry step uses it),
 * max-jobs, max-clients, max-user-jobs, max-user-clients (checked at each
 * new connection; those over a lowered limit stay), hello-timeout-ms (new
 * connections), kill-wait (the next job to reach its time limit) and
 * private-history (the next request).  Kept until a
 * restart, each said in one warning line: socket, db, cpus, quantum-ms,
 * offset-us (the shared clock every job follows), handover and share (the
 * scheduler's state is built for them), rt-priority, socket-mode,
 * confine, confine-with and admin-group (the database file's group is set
 * when it opens).
 */
#ifndef ASTEAL_RELOAD_H
#define ASTEAL_RELOAD_H

#include "conf.h"

struct history;

/* What one reload did. */
struct reload_result {
	int changed;               /* settings changed live */
	int kept;                  /* settings that differ but wait for a restart */
	int retention_changed;     /* retention-days was among the changed */
};

/* Compare next (conf_load's fresh reading) with cur (in force): copy into
 * cur the live settings that differ, logging each change ("reload:
 * log-level info -> debug") and each other difference kept; set the log
 * level and h's retention (h may be NULL) to the new values.  Fills r
 * (may be NULL). */
void reload_apply(struct conf *cur, const struct conf *next,
                  struct history *h, struct reload_result *r);

#endif
