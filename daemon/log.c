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
 *
 * Repeated warnings and errors are rate-limited, so that a peer or a fault
 * that repeats cannot fill the disk (a daemon out of descriptors once wrote
 * 6.7 M lines in 15 s): lines alike but for their numbers share a key
 * (information lines, one per job event, are not limited), and past
 * LOG_BURST lines of one key in LOG_WINDOW_S seconds the rest of the
 * window is counted, not written; the count comes out as one line when
 * the key is next written or by log_flush (once a second from the
 * daemon's housekeeping).  libevent's own messages come here too
 * (log_route_libevent).
 *
 * Under systemd, stderr is a stream to the journal, and systemd names it
 * in JOURNAL_STREAM ("DEVICE:INODE", decimal) so that a program can tell
 * that stream from a stderr it was given elsewhere (a file, a pipe; the
 * variable is inherited, so its presence alone says nothing).  When the
 * two match, every line starts with its priority as sd-daemon(3) defines
 * it, "<3>" for error, "<4>" warning, "<6>" info, "<7>" debug, which the
 * journal strips and records (journalctl -p err shows the errors), and
 * the timestamp is left out (the journal has its own).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "log.h"
#include "qtime.h"

/* The longest line written, newline included (at most PIPE_BUF). */
#define LOG_LINE_MAX 2048

/* Rate limits: LOG_BURST lines per key per LOG_WINDOW_S, LOG_KEYS keys
 * remembered (the least recently written one is forgotten). */
#define LOG_BURST 20
#define LOG_WINDOW_S 10
#define LOG_WINDOW_NS ((uint64_t)LOG_WINDOW_S * 1000000000u)
#define LOG_KEYS 64
#define LOG_SAMPLE 96

/* One key's window. */
struct log_key {
	uint64_t key;                  /* 0: unused */
	uint64_t start_ns, last_ns;    /* its window's start, its last line */
	unsigned long lines, dropped;  /* in the window */
	char sample[LOG_SAMPLE];       /* the first line dropped */
};

static struct log_key log_keys[LOG_KEYS];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static atomic_int log_level = LOG_LEVEL_INFO;
static atomic_int log_timestamps = 0;
static atomic_int log_to_journal = 0;

static const char *const level_names[] = {
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_WARN] = "warning",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

/* The journal's priority of each level (sd-daemon's SD_ERR ... SD_DEBUG). */
static const int level_priorities[] = {
	[LOG_LEVEL_ERROR] = 3,
	[LOG_LEVEL_WARN] = 4,
	[LOG_LEVEL_INFO] = 6,
	[LOG_LEVEL_DEBUG] = 7,
};

/* Parse a decimal number that ends at *end; -1 when there is none. */
static int parse_number(const char *s, char **end, unsigned long long *out)
{
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, end, 10);
	return errno == 0 ? 0 : -1;
}

/* Whether stderr is the stream JOURNAL_STREAM ("DEVICE:INODE") names. */
static int stderr_is_journal(void)
{
	const char *v = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char *end;
	int saved = errno, match;

	if (v == NULL || parse_number(v, &end, &dev) < 0 || *end != ':' ||
	    parse_number(end + 1, &end, &ino) < 0 || *end != '\0' ||
	    fstat(STDERR_FILENO, &st) < 0) {
		errno = saved;
		return 0;
	}
	match = (unsigned long long)st.st_dev == dev &&
	        (unsigned long long)st.st_ino == ino;
	errno = saved;
	return match;
}

/* Set the level and whether to prefix timestamps, and find out whether
 * stderr is the journal (then lines carry priorities, not timestamps). */
void log_init(enum log_level level, int timestamps)
{
	int journal = stderr_is_journal();

	if ((int)level < LOG_LEVEL_ERROR)
		level = LOG_LEVEL_ERROR;
	if ((int)level > LOG_LEVEL_DEBUG)
		level = LOG_LEVEL_DEBUG;
	atomic_store_explicit(&log_level, (int)level, memory_order_relaxed);
	atomic_store_explicit(&log_to_journal, journal, memory_order_relaxed);
	atomic_store_explicit(&log_timestamps, timestamps != 0 && !journal,
			      memory_order_relaxed);
}

/* Whether log_init found stderr to be the journal's stream. */
int log_journal(void)
{
	return atomic_load_explicit(&log_to_journal, memory_order_relaxed);
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

/* A line's key: its text without digits (so "pid 12" and "pid 345" are
 * alike), hashed (FNV-1a); never 0. */
static uint64_t line_key(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			continue;
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	}
	return h == 0 ? 1 : h;
}

/* Say how many lines like k's were dropped, and start its count again. */
static void say_dropped(struct log_key *k)
{
	char line[LOG_SAMPLE + 96];
	int m;

	if (k->dropped == 0)
		return;
	m = snprintf(line, sizeof(line), "%swarning: %lu more line%s like "
	             "\"%s\" not written in %d s\n",
	             log_journal() ? "<4>" : "", k->dropped,
	             k->dropped == 1 ? "" : "s", k->sample, LOG_WINDOW_S);
	if (m > 0)
		write_all(line, (size_t)m < sizeof(line) ? (size_t)m : sizeof(line) - 1);
	k->dropped = 0;
}

/* Start a new window for k at now, after saying what the last one
 * dropped. */
static void new_window(struct log_key *k, uint64_t now)
{
	say_dropped(k);
	k->start_ns = now;
	k->lines = 0;
}

/* Whether a message (n bytes at p) may be written now; counts it when
 * not.  Called with log_lock held. */
static int allowed(const char *p, size_t n)
{
	uint64_t key = line_key(p, n), now = qtime_now_ns();
	struct log_key *k = NULL, *oldest = &log_keys[0];

	for (int i = 0; i < LOG_KEYS; i++) {
		if (log_keys[i].key == key) {
			k = &log_keys[i];
			break;
		}
		if (log_keys[i].last_ns < oldest->last_ns)
			oldest = &log_keys[i];
	}
	if (k == NULL) {
		say_dropped(oldest);
		k = oldest;
		memset(k, 0, sizeof(*k));
		k->key = key;
		k->start_ns = now;
	}
	k->last_ns = now;
	if (now - k->start_ns >= LOG_WINDOW_NS)
		new_window(k, now);
	if (k->lines < LOG_BURST) {
		k->lines++;
		return 1;
	}
	if (k->dropped++ == 0)
		snprintf(k->sample, sizeof(k->sample), "%.*s",
		         (int)(n < LOG_SAMPLE - 1 ? n : LOG_SAMPLE - 1), p);
	return 0;
}

/* Write out the counts of lines dropped in windows that have ended. */
void log_flush(void)
{
	uint64_t now = qtime_now_ns();
	int saved = errno;

	pthread_mutex_lock(&log_lock);
	for (int i = 0; i < LOG_KEYS; i++) {
		struct log_key *k = &log_keys[i];

		if (k->key != 0 && k->dropped > 0 && now - k->start_ns >= LOG_WINDOW_NS)
			new_window(k, now);
	}
	pthread_mutex_unlock(&log_lock);
	errno = saved;
}

/* libevent's message: into our log, at the matching level. */
static void from_libevent(int severity, const char *msg)
{
	enum log_level level = severity >= EVENT_LOG_ERR ? LOG_LEVEL_ERROR
	                     : severity == EVENT_LOG_WARN ? LOG_LEVEL_WARN
	                     : severity == EVENT_LOG_MSG ? LOG_LEVEL_INFO
	                     : LOG_LEVEL_DEBUG;

	log_msg(level, "libevent: %s", msg);
}

/* Send libevent's own messages through this log (rate-limited as ours). */
void log_route_libevent(void)
{
	event_set_log_callback(from_libevent);
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

	if (log_journal())
		n = (size_t)snprintf(line, sizeof(line), "<%d>",
		                     level_priorities[level]);
	else if (atomic_load_explicit(&log_timestamps, memory_order_relaxed))
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

	pthread_mutex_lock(&log_lock);
	if (level > LOG_LEVEL_WARN || allowed(line + start, n - 1 - start))
		write_all(line, n);
	pthread_mutex_unlock(&log_lock);
	errno = saved;
}
