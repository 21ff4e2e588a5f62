/*
 * test_log.c - asteald's log under systemd (daemon/log.c): when stderr is
 * the stream JOURNAL_STREAM names ("DEVICE:INODE" of stderr, as systemd
 * sets it), every line starts with its sd-daemon priority ("<3>" error,
 * "<4>" warning, "<6>" info, "<7>" debug) and carries no timestamp, the
 * rate limiter's summary line too; when the variable is missing, names
 * another file or is malformed, lines are plain.  No systemd is needed:
 * the test points JOURNAL_STREAM at the file it captures stderr in.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "log.h"

/* stderr sent to a temporary file, and the descriptor to put back. */
struct capture {
	FILE *file;
	int saved;
};

/* Send stderr to a fresh temporary file. */
static void capture_start(struct capture *cap)
{
	fflush(stderr);
	cap->file = tmpfile();
	assert_non_null(cap->file);
	cap->saved = dup(2);
	assert_true(cap->saved >= 0);
	assert_int_equal(dup2(fileno(cap->file), 2), 2);
}

/* Set JOURNAL_STREAM to stderr's "DEVICE:INODE", plus delta on the inode
 * (a delta of 0 names stderr itself). */
static void journal_is_stderr(long delta)
{
	struct stat st;
	char v[64];

	assert_int_equal(fstat(2, &st), 0);
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + (unsigned long long)delta);
	assert_int_equal(setenv("JOURNAL_STREAM", v, 1), 0);
}

/* Put stderr back and return what was written (malloc'd). */
static char *capture_end(struct capture *cap)
{
	struct stat st;
	char *text;
	ssize_t got;

	assert_int_equal(dup2(cap->saved, 2), 2);
	close(cap->saved);
	assert_int_equal(fstat(fileno(cap->file), &st), 0);
	text = calloc(1, (size_t)st.st_size + 1);
	assert_non_null(text);
	got = pread(fileno(cap->file), text, (size_t)st.st_size, 0);
	assert_int_equal(got, st.st_size);
	fclose(cap->file);
	return text;
}

/* Write one line of each level. */
static void write_levels(void)
{
	log_error("e %d", 1);
	log_warn("w");
	log_info("i");
	log_debug("d");
}

/* stderr is the journal: priorities on every level, no timestamps even
 * when asked for. */
static void test_journal_priorities(void **state)
{
	struct capture cap;
	char *text;

	(void)state;
	capture_start(&cap);
	journal_is_stderr(0);
	log_init(LOG_LEVEL_DEBUG, 1);
	assert_true(log_journal());
	write_levels();
	errno = ENOENT;
	log_error("open: %m");
	assert_int_equal(errno, ENOENT);
	text = capture_end(&cap);
	assert_string_equal(text, "<3>error: e 1\n<4>warning: w\n<6>info: i\n"
			    "<7>debug: d\n<3>error: open: No such file or "
			    "directory\n");
	free(text);

	/* The level still filters. */
	capture_start(&cap);
	journal_is_stderr(0);
	log_init(LOG_LEVEL_WARN, 0);
	write_levels();
	text = capture_end(&cap);
	assert_string_equal(text, "<3>error: e 1\n<4>warning: w\n");
	free(text);
}

/* JOURNAL_STREAM missing, naming another file (inherited by a process
 * whose stderr was redirected), or malformed: plain lines. */
static void test_journal_plain(void **state)
{
	static const char *const bad[] = {
		"", "1", "1:", ":1", "a:b", "1:2x", " 1:2", "-1:2", "1:-2",
		"1:2:3", "99999999999999999999999:1", "1 :2",
	};
	struct capture cap;
	char *text;

	(void)state;
	capture_start(&cap);
	unsetenv("JOURNAL_STREAM");
	log_init(LOG_LEVEL_DEBUG, 0);
	assert_false(log_journal());
	write_levels();
	text = capture_end(&cap);
	assert_string_equal(text, "error: e 1\nwarning: w\ninfo: i\ndebug: d\n");
	free(text);

	capture_start(&cap);
	journal_is_stderr(1);
	log_init(LOG_LEVEL_INFO, 0);
	assert_false(log_journal());
	log_error("x");
	text = capture_end(&cap);
	assert_string_equal(text, "error: x\n");
	free(text);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		capture_start(&cap);
		assert_int_equal(setenv("JOURNAL_STREAM", bad[i], 1), 0);
		errno = EINTR;
		log_init(LOG_LEVEL_INFO, 0);
		assert_int_equal(errno, EINTR);
		if (log_journal())
			fail_msg("JOURNAL_STREAM='%s' taken for the journal",
				 bad[i]);
		log_error("x");
		text = capture_end(&cap);
		assert_string_equal(text, "error: x\n");
		free(text);
	}

	/* The journal found, then stderr moved to another file (the first
	 * one still open, so that the two differ): log_init looks again. */
	capture_start(&cap);
	journal_is_stderr(0);
	log_init(LOG_LEVEL_INFO, 0);
	assert_true(log_journal());
	{
		struct capture other;
		char *other_text;

		capture_start(&other);
		log_init(LOG_LEVEL_INFO, 0);
		assert_false(log_journal());
		log_error("y");
		other_text = capture_end(&other);
		assert_string_equal(other_text, "error: y\n");
		free(other_text);
	}
	text = capture_end(&cap);
	assert_string_equal(text, "");
	free(text);
}

/* The rate limiter's summary of lines not written is a warning to the
 * journal too. */
static void test_journal_dropped(void **state)
{
	struct capture cap;
	char *text;

	(void)state;
	capture_start(&cap);
	journal_is_stderr(0);
	log_init(LOG_LEVEL_INFO, 0);
	/* Past the burst (20 lines of one kind in 10 s), lines are counted;
	 * the count comes out when the kind is forgotten, as 64 other
	 * kinds of line take its place. */
	for (int i = 0; i < 21; i++)
		log_error("same %d", i);
	for (int i = 0; i < 70; i++)
		log_warn("kind %c%c", 'a' + i / 26, 'a' + i % 26);
	text = capture_end(&cap);
	if (strstr(text, "\n<4>warning: 1 more line like \"same 20\" not "
		   "written in 10 s\n") == NULL)
		fail_msg("no summary line with a priority in:\n%s", text);
	assert_non_null(strstr(text, "<3>error: same 19\n"));
	assert_null(strstr(text, "<3>error: same 20\n"));
	assert_non_null(strstr(text, "\n<4>warning: kind cr\n"));
	for (char *p = text; *p != '\0'; p = strchr(p, '\n') + 1)
		if (p[0] != '<' || (p[1] != '3' && p[1] != '4') || p[2] != '>')
			fail_msg("a line without its priority: %.40s", p);
	free(text);
}

/* Leave the environment as found. */
static int clean_env(void **state)
{
	(void)state;
	unsetenv("JOURNAL_STREAM");
	log_init(LOG_LEVEL_INFO, 0);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_journal_priorities, clean_env),
		cmocka_unit_test_teardown(test_journal_plain, clean_env),
		cmocka_unit_test_teardown(test_journal_dropped, clean_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
