/*
 * log.h - asteald's log: one line per event on stderr, with a level, and a
 * timestamp when in the foreground.  When stderr is the journal's stream
 * (systemd's JOURNAL_STREAM names it), each line starts with its syslog
 * priority, "<3>" for errors, so that journalctl -p err finds them, and
 * carries no timestamp.  Lines below the configured level are dropped, and
 * lines that repeat (alike but for their numbers) beyond a burst are
 * counted instead of written (log.c).
 */
#ifndef ASTEAL_LOG_H
#define ASTEAL_LOG_H

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* Set the level and whether to prefix timestamps, and find out whether
 * stderr is the journal (then lines carry priorities, not timestamps). */
void log_init(enum log_level level, int timestamps);

/* Whether log_init found stderr to be the journal's stream. */
int log_journal(void);

/* Parse "error", "warn", "info" or "debug"; -1 when unknown. */
int log_parse_level(const char *s, enum log_level *out);

/* Write one line at the given level (printf format, no newline needed). */
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Whether a line at this level would be written. */
int log_enabled(enum log_level level);

/* Write the counts of repeated lines not written, for windows that have
 * ended (call about once a second). */
void log_flush(void);

/* Send libevent's own messages through this log. */
void log_route_libevent(void);

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
