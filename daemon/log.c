/*
 * log.c - asteald's log on stderr: "[TIMESTAMP ]LEVEL: message\n", e.g.
 * "2026-11-22 05:40:01.123 info: listening on /run/asteal/asteald.sock".
 *
 * Each line is built whole in a buffer and written with a single write(2)
 * of at most LOG_LINE_MAX bytes (no more than PIPE_BUF), so lines from one
 * process (and, on a pipe, from several) never interleave.  Longer
 * messages are cut and end in "...".  A message is one line: a trailing
 * newline is dropped and inner newlines become spaces.  The timestamp is
 * local time with milliseconds.  errno is the same after a call as before
 * (and "%m" in a format sees the caller's errno).  The level and the
 * timestamp switch are atomics, so any thread may log.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

/* The longest line written, newline included (at most PIPE_BUF). */
#define LOG_LINE_MAX 2048

static atomic_int log_level = LOG_LEVEL_INFO;
static atomic_int log_timestamps = 0;

static const char *const level_names[] = {
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_WARN] = "warning",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

/* Set the level and whether to prefix timestamps. */
void log_init(enum log_level level, int timestamps)
{
	if ((int)level < LOG_LEVEL_ERROR)
		level = LOG_LEVEL_ERROR;
	if ((int)level > LOG_LEVEL_DEBUG)
		level = LOG_LEVEL_DEBUG;
	atomic_store_explicit(&log_level, (int)level, memory_order_relaxed);
	atomic_store_explicit(&log_timestamps, timestamps != 0,
			      memory_order_relaxed);
}

/* Parse a level name ("warning" is taken for "warn" too); -1 when unknown. */
int log_parse_level(const char *s, enum log_level *out)
{
	static const struct {
		const char *name;
		enum log_level level;
	} names[] = {
		{ "error", LOG_LEVEL_ERROR },
		{ "warn", LOG_LEVEL_WARN },
		{ "warning", LOG_LEVEL_WARN },
		{ "info", LOG_LEVEL_INFO },
		{ "debug", LOG_LEVEL_DEBUG },
	};

	if (s == NULL)
		return -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i].name) == 0) {
			if (out != NULL)
				*out = names[i].level;
			return 0;
		}
	}
	return -1;
}

/* Whether a line at this level would be written. */
int log_enabled(enum log_level level)
{
	return (int)level <=
	       atomic_load_explicit(&log_level, memory_order_relaxed);
}

/* Write the local time "YYYY-MM-DD HH:MM:SS.mmm " into buf; its length. */
static size_t format_time(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;
	int m;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 ||
	    localtime_r(&ts.tv_sec, &tm) == NULL)
		return 0;
	n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	if (n == 0)
		return 0;
	m = snprintf(buf + n, len - n, ".%03ld ", ts.tv_nsec / 1000000L);
	if (m < 0 || (size_t)m >= len - n)
		return 0;
	return n + (size_t)m;
}

/* Write all of buf to stderr, retrying after signals. */
static void write_all(const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(STDERR_FILENO, buf, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += w;
		len -= (size_t)w;
	}
}

/* Write one line at the given level (printf format, no newline needed). */
void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char ellipsis[] = "...";
	int saved = errno;
	char line[LOG_LINE_MAX];
	size_t n = 0, room, start;
	va_list ap;
	int m;

	if (!log_enabled(level))
		return;
	if ((int)level < LOG_LEVEL_ERROR)
		level = LOG_LEVEL_ERROR;
	if ((int)level > LOG_LEVEL_DEBUG)
		level = LOG_LEVEL_DEBUG;

	if (atomic_load_explicit(&log_timestamps, memory_order_relaxed))
		n = format_time(line, sizeof(line));
	m = snprintf(line + n, sizeof(line) - n, "%s: ", level_names[level]);
	if (m > 0)
		n += (size_t)m;
	start = n;

	/* Room for the message, keeping one byte for the newline. */
	room = sizeof(line) - 1 - n;
	errno = saved;                  /* for "%m" */
	va_start(ap, fmt);
	m = vsnprintf(line + n, room + 1, fmt, ap);
	va_end(ap);
	if (m < 0) {
		m = snprintf(line + n, room + 1, "(bad log format)");
		if (m < 0)
			m = 0;
	}
	if ((size_t)m > room) {
		/* Cut: the message ends in "..." just before the newline. */
		n += room;
		memcpy(line + n - (sizeof(ellipsis) - 1), ellipsis,
		       sizeof(ellipsis) - 1);
	} else {
		n += (size_t)m;
	}

	/* One line: no trailing newlines, inner ones become spaces. */
	while (n > start && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	for (size_t i = start; i < n; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	line[n++] = '\n';

	write_all(line, n);
	errno = saved;
}
