/*
 * reload.c - asteald's settings read again while it runs (reload.h says
 * which change live and why the others wait for a restart).
 *
 * Every setting is one row of a table: its name as the config file spells
 * it, where it lives in struct conf, how to write it as text, and whether
 * it changes live.  Two readings are compared by their texts, so a
 * setting differs exactly when what the log would show differs.  The live
 * ones the rest of the daemon reads through its pointer to the struct
 * conf in force (admit.c, control.c, scheduler.c's max-jobs), so copying
 * the field is all it takes, but for the log level (log_init) and the
 * history's retention (history_set_retention).  While the lines are
 * written the log runs at the more verbose of the old and the new level,
 * so that lowering it to warn still shows what the reload did.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "cpulist.h"
#include "history.h"
#include "log.h"
#include "reload.h"

/* How a setting is written as text. */
enum kind {
	K_INT, K_MS, K_LEVEL, K_YESNO, K_OCTAL, K_GROUP, K_HANDOVER, K_SHARE,
	K_CONFINE, K_CONFINE_WITH, K_STRING, K_CPUS,
};

/* One setting. */
struct setting {
	const char *name;          /* the config file's key */
	size_t off;                /* its field in struct conf */
	enum kind kind;
	int live;                  /* changes without a restart */
};

#define AT(f) offsetof(struct conf, f)

static const struct setting settings[] = {
	{ "log-level", AT(log_level), K_LEVEL, 1 },
	{ "retention-days", AT(retention_days), K_INT, 1 },
	{ "max-jobs", AT(max_jobs), K_INT, 1 },
	{ "max-clients", AT(max_clients), K_INT, 1 },
	{ "max-user-jobs", AT(max_user_jobs), K_INT, 1 },
	{ "max-user-clients", AT(max_user_clients), K_INT, 1 },
	{ "hello-timeout-ms", AT(hello_timeout_ms), K_INT, 1 },
	{ "kill-wait", AT(kill_wait_s), K_INT, 1 },
	{ "private-history", AT(private_history), K_YESNO, 1 },
	{ "socket", AT(socket), K_STRING, 0 },
	{ "db", AT(db), K_STRING, 0 },
	{ "cpus", AT(cpus), K_CPUS, 0 },
	{ "quantum-ms", AT(quantum_us), K_MS, 0 },
	{ "offset-us", AT(offset_us), K_INT, 0 },
	{ "handover", AT(handover), K_HANDOVER, 0 },
	{ "share", AT(share), K_SHARE, 0 },
	{ "rt-priority", AT(rt_priority), K_INT, 0 },
	{ "socket-mode", AT(socket_mode), K_OCTAL, 0 },
	{ "confine", AT(confine), K_CONFINE, 0 },
	{ "confine-with", AT(confine_with), K_CONFINE_WITH, 0 },
	{ "admin-group", AT(admin_gid), K_GROUP, 0 },
};

#define NSETTINGS ((int)(sizeof(settings) / sizeof(settings[0])))

/* The log level's name, as --log-level takes it. */
static const char *level_name(int level)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };

	return level >= 0 && level < 4 ? names[level] : "?";
}

/* The int field of setting s in c. */
static int int_of(const struct conf *c, const struct setting *s)
{
	int v;

	memcpy(&v, (const char *)c + s->off, sizeof(v));
	return v;
}

/* Setting s of c as text into buf. */
static const char *text(const struct conf *c, const struct setting *s,
                        char *buf, size_t len)
{
	int v = s->kind == K_STRING || s->kind == K_CPUS ? 0 : int_of(c, s);

	switch (s->kind) {
	case K_INT:
		snprintf(buf, len, "%d", v);
		break;
	case K_MS:
		snprintf(buf, len, "%g", v / 1000.0);
		break;
	case K_LEVEL:
		snprintf(buf, len, "%s", level_name(v));
		break;
	case K_YESNO:
		snprintf(buf, len, "%s", v ? "yes" : "no");
		break;
	case K_OCTAL:
		snprintf(buf, len, "%04o", (unsigned)v);
		break;
	case K_GROUP:
		if (v < 0)
			snprintf(buf, len, "none");
		else
			snprintf(buf, len, "%d", v);
		break;
	case K_HANDOVER:
		snprintf(buf, len, "%s", conf_handover_name(v));
		break;
	case K_SHARE:
		snprintf(buf, len, "%s", conf_share_name(v));
		break;
	case K_CONFINE:
		snprintf(buf, len, "%s", conf_confine_name(v));
		break;
	case K_CONFINE_WITH:
		snprintf(buf, len, "%s", conf_confine_with_name(v));
		break;
	case K_STRING:
		snprintf(buf, len, "%s", (const char *)c + s->off);
		break;
	case K_CPUS:
		if (cpulist_format(c->cpus, c->ncpus, buf, len) < 0)
			snprintf(buf, len, "(%d CPUs)", c->ncpus);
		break;
	}
	return buf;
}

/* Compare, apply the live settings, log what differs (reload.h). */
void reload_apply(struct conf *cur, const struct conf *next,
                  struct history *h, struct reload_result *r)
{
	struct reload_result res = { 0, 0, 0 };
	enum log_level level = next->log_level;
	char was[4096], now[4096];

	/* Lines written at the more verbose of the two levels. */
	if (level > cur->log_level)
		log_init(level, cur->foreground);
	for (int i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];

		text(cur, s, was, sizeof(was));
		text(next, s, now, sizeof(now));
		if (strcmp(was, now) == 0)
			continue;
		if (!s->live) {
			log_warn("reload: %s stays %s until asteald restarts (the "
			         "configuration now says %s)", s->name, was, now);
			res.kept++;
			continue;
		}
		log_info("reload: %s %s -> %s", s->name, was, now);
		memcpy((char *)cur + s->off, (const char *)next + s->off,
		       sizeof(int));
		res.changed++;
		if (strcmp(s->name, "retention-days") == 0) {
			res.retention_changed = 1;
			if (h != NULL)
				(void)history_set_retention(h, cur->retention_days);
		}
	}
	memcpy(cur->config, next->config, sizeof(cur->config));
	log_info("reload: settings read again (config file %s): %d changed "
	         "live, %d kept until a restart", cur->config[0] != '\0'
	         ? cur->config : "none", res.changed, res.kept);
	log_init(cur->log_level, cur->foreground);
	if (r != NULL)
		*r = res;
}
