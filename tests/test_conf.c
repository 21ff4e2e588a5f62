/*
 * test_conf.c - asteald's small modules: CPU lists (parse and format round
 * trips, every rejection, the allowed set), settings (defaults, every
 * option, the offset's default and bound, the handover and share modes, the gone
 * deadline-ms, the config file and its error lines, precedence, the
 * environment's defaults, bad values for every numeric option, long
 * paths, bad command lines, --help) and the log (level filtering, line
 * format, timestamps, cut lines, one line per call, errno kept).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
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

#include "conf.h"
#include "cpulist.h"
#include "log.h"
#include "proto.h"
#include "testutil.h"

#define WHY 512

/* The temporary folder of this run, and an empty config file in it. */
static char tmpdir[1024];
static char empty_conf[PATH_MAX];

/* Fail unless hay contains needle, showing both. */
#define assert_contains(hay, needle)                                       \
	do {                                                               \
		const char *h_ = (hay), *n_ = (needle);                    \
		if (strstr(h_, n_) == NULL)                                \
			fail_msg("'%s' does not contain '%s'", h_, n_);    \
	} while (0)

/* ---- helpers ---------------------------------------------------------- */

/* Write text to NAME in the temporary folder; the path goes to path. */
static void write_file(const char *name, const char *text, char *path,
		       size_t len)
{
	FILE *f;

	assert_true((size_t)snprintf(path, len, "%s/%s", tmpdir, name) < len);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Run conf_load on "asteald" followed by the NULL-terminated arguments. */
static int run_list(struct conf *c, char *why, va_list ap)
{
	char *argv[64];
	int argc = 0;
	const char *a;

	argv[argc++] = (char *)"asteald";
	while ((a = va_arg(ap, const char *)) != NULL) {
		assert_true(argc < 63);
		argv[argc++] = (char *)a;
	}
	argv[argc] = NULL;
	why[0] = '\0';
	return conf_load(c, argc, argv, why, WHY);
}

/* conf_load with exactly the given arguments (NULL-terminated). */
static int run(struct conf *c, char *why, ...)
{
	va_list ap;
	int rc;

	va_start(ap, why);
	rc = run_list(c, why, ap);
	va_end(ap);
	return rc;
}

/* conf_load with "--config EMPTY" first, so that the machine's config
 * file plays no part (a later --config wins). */
static int run_cfg(struct conf *c, char *why, ...)
{
	char *argv[64];
	int argc = 0;
	const char *a;
	va_list ap;

	argv[argc++] = (char *)"asteald";
	argv[argc++] = (char *)"--config";
	argv[argc++] = empty_conf;
	va_start(ap, why);
	while ((a = va_arg(ap, const char *)) != NULL) {
		assert_true(argc < 63);
		argv[argc++] = (char *)a;
	}
	va_end(ap);
	argv[argc] = NULL;
	why[0] = '\0';
	return conf_load(c, argc, argv, why, WHY);
}

/* Expect run_cfg(args) to fail with a message containing each of the
 * strings in want (NULL-terminated). */
static void expect_error(const char *const *args, const char *const *want)
{
	static struct conf c;
	char why[WHY];
	char *argv[64];
	int argc = 0;

	argv[argc++] = (char *)"asteald";
	argv[argc++] = (char *)"--config";
	argv[argc++] = empty_conf;
	for (; *args != NULL; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	why[0] = '\0';
	if (conf_load(&c, argc, argv, why, sizeof(why)) == 0)
		fail_msg("'%s %s' was accepted", argc > 3 ? argv[3] : "",
			 argc > 4 ? argv[4] : "");
	assert_true(strlen(why) > 0);
	assert_null(strchr(why, '\n'));
	for (; *want != NULL; want++)
		assert_contains(why, *want);
}

/* The allowed CPUs, checked. */
static int allowed(int *cpus)
{
	int n = cpulist_allowed(cpus, CPULIST_MAX);

	assert_true(n >= 1);
	return n;
}

/* Remove one entry of the temporary folder (nftw callback). */
static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Make the temporary folder and a clean environment. */
static int group_setup(void **state)
{
	const char *base = getenv("TMPDIR");
	FILE *f;

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/asteal-conf-XXXXXX",
		 base != NULL && *base != '\0' ? base : "/tmp");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	if ((size_t)snprintf(empty_conf, sizeof(empty_conf), "%s/empty.conf",
			     tmpdir) >= sizeof(empty_conf))
		return -1;
	f = fopen(empty_conf, "w");
	if (f == NULL)
		return -1;
	fclose(f);
	return 0;
}

/* Remove the temporary folder. */
static int group_teardown(void **state)
{
	(void)state;
	nftw(tmpdir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* Each test starts without the variables that change the defaults. */
static int clean_env(void **state)
{
	(void)state;
	unsetenv(PROTO_SOCKET_ENV);
	unsetenv("STATE_DIRECTORY");
	log_init(LOG_LEVEL_INFO, 0);
	return 0;
}

/* ---- cpulist ---------------------------------------------------------- */

/* Good lists parse to the expected count and format back compactly. */
static void test_cpulist_parse_ok(void **state)
{
	static const struct {
		const char *in, *out;
		int n;
	} cases[] = {
		{ "0", "0", 1 },
		{ "0-3", "0-3", 4 },
		{ "0-3,6,8-9", "0-3,6,8-9", 7 },
		{ "5,1,3", "1,3,5", 3 },
		{ "7,0-2", "0-2,7", 4 },
		{ "2,3", "2-3", 2 },
		{ "1-1", "1", 1 },
		{ " 0 - 3 , 6 \n", "0-3,6", 5 },
		{ "0-3\n", "0-3", 4 },
		{ "\t4,\t5", "4-5", 2 },
		{ "1023", "1023", 1 },
		{ "0-1023", "0-1023", CPULIST_MAX },
		{ "007", "7", 1 },
		{ "10-12,0,20-21,13", "0,10-13,20-21", 7 },
	};
	static int cpus[CPULIST_MAX];
	char why[WHY], buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = cpulist_parse(cases[i].in, cpus, CPULIST_MAX, why,
				      sizeof(why));

		if (n != cases[i].n)
			fail_msg("'%s': %d (%s), want %d", cases[i].in, n,
				 n < 0 ? why : "", cases[i].n);
		for (int k = 1; k < n; k++)
			assert_true(cpus[k - 1] < cpus[k]);
		assert_int_equal(cpulist_format(cpus, n, buf, sizeof(buf)),
				 (int)strlen(cases[i].out));
		assert_string_equal(buf, cases[i].out);
	}
}

/* Every kind of bad list is refused with a reason. */
static void test_cpulist_parse_bad(void **state)
{
	static const struct {
		const char *in, *why;
	} cases[] = {
		{ "", "empty list" },
		{ "   ", "empty list" },
		{ "\n", "empty list" },
		{ "-1", "negative" },
		{ "0,-1", "negative" },
		{ "+1", "sign" },
		{ "1,", "trailing comma" },
		{ "1 , ", "trailing comma" },
		{ ",1", "empty item" },
		{ "1,,2", "empty item" },
		{ "3-1", "bad range 3-1" },
		{ "1024", "CPU 1024 out of range" },
		{ "5000", "CPU 5000 out of range" },
		{ "0-5000", "CPU 5000 out of range" },
		{ "99999999999999999999", "out of range" },
		{ "2,2", "CPU 2 listed twice" },
		{ "0-3,2-5", "CPU 2 listed twice" },
		{ "4,0-7", "CPU 4 listed twice" },
		{ "x", "expected a CPU id" },
		{ "1x", "unexpected" },
		{ "1 2", "unexpected" },
		{ "0-", "no end" },
		{ "0-,1", "no end" },
		{ "0-7:2", "unexpected" },
		{ "1-2-3", "unexpected" },
		{ "1.5", "unexpected" },
		{ "0;1", "unexpected" },
		{ "0x1", "unexpected" },
	};
	int cpus[CPULIST_MAX];
	char why[WHY];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why[0] = '\0';
		errno = 0;
		if (cpulist_parse(cases[i].in, cpus, CPULIST_MAX, why,
				  sizeof(why)) != -1)
			fail_msg("'%s' was accepted", cases[i].in);
		assert_int_equal(errno, EINVAL);
		assert_contains(why, cases[i].why);
	}
	assert_int_equal(cpulist_parse(NULL, cpus, CPULIST_MAX, why,
				       sizeof(why)), -1);
	/* More CPUs than the caller has room for. */
	assert_int_equal(cpulist_parse("0-3", cpus, 2, why, sizeof(why)), -1);
	assert_contains(why, "more than 2");
	assert_int_equal(cpulist_parse("0-1", cpus, 2, why, sizeof(why)), 2);
	/* No room for a reason is fine. */
	assert_int_equal(cpulist_parse("x", cpus, 2, NULL, 0), -1);
}

/* Formatting: any order, duplicates, empty, short buffers, bad ids. */
static void test_cpulist_format(void **state)
{
	const int some[] = { 9, 3, 1, 2, 3, 8, 0, 5 };
	const int bad[] = { 1, CPULIST_MAX };
	const int neg[] = { -1 };
	char buf[64];

	(void)state;
	assert_int_equal(cpulist_format(some, 8, buf, sizeof(buf)), 9);
	assert_string_equal(buf, "0-3,5,8-9");
	assert_int_equal(cpulist_format(some, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* Exactly enough room, then one byte short (a truncated list). */
	assert_int_equal(cpulist_format(some, 8, buf, 10), 9);
	assert_string_equal(buf, "0-3,5,8-9");
	errno = 0;
	assert_int_equal(cpulist_format(some, 8, buf, 9), -1);
	assert_int_equal(errno, ENOSPC);
	assert_string_equal(buf, "0-3,5,8-");
	assert_int_equal(cpulist_format(some, 8, buf, 3), -1);
	assert_string_equal(buf, "0-");
	assert_int_equal(cpulist_format(some, 0, buf, 0), -1);
	errno = 0;
	assert_int_equal(cpulist_format(bad, 2, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(cpulist_format(neg, 1, buf, sizeof(buf)), -1);
}

/* Random sets format and parse back to themselves. */
static void test_cpulist_round_trip(void **state)
{
	static int in[CPULIST_MAX], out[CPULIST_MAX];
	static char buf[8192];
	uint64_t x = 12345;
	char why[WHY];
	int rounds = (int)test_scale(300, 3, 10);

	(void)state;
	for (int r = 0; r < rounds; r++) {
		int n = 0, m, len;
		/* Densities from sparse to nearly full. */
		unsigned density = (unsigned)(r % 16) + 1;

		for (int c = 0; c < CPULIST_MAX; c++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			if ((x >> 33) % 17 < density)
				in[n++] = c;
		}
		len = cpulist_format(in, n, buf, sizeof(buf));
		assert_true(len >= 0);
		assert_int_equal((size_t)len, strlen(buf));
		if (n == 0)
			continue;
		m = cpulist_parse(buf, out, CPULIST_MAX, why, sizeof(why));
		if (m != n)
			fail_msg("'%s': %d (%s), want %d", buf, m, why, n);
		assert_memory_equal(in, out, (size_t)n * sizeof(int));
	}
}

/* The allowed set is ascending, not empty, and has the current CPU. */
static void test_cpulist_allowed(void **state)
{
	int cpus[CPULIST_MAX], small[1];
	int n, here = sched_getcpu(), found = 0;

	(void)state;
	n = allowed(cpus);
	for (int i = 0; i < n; i++) {
		assert_true(cpus[i] >= 0 && cpus[i] < CPULIST_MAX);
		if (i > 0)
			assert_true(cpus[i - 1] < cpus[i]);
		found |= cpus[i] == here;
	}
	assert_true(here >= 0);
	assert_true(found);
	if (n > 1) {
		errno = 0;
		assert_int_equal(cpulist_allowed(small, 1), -1);
		assert_int_equal(errno, ERANGE);
	} else {
		assert_int_equal(cpulist_allowed(small, 1), 1);
	}
}

/* ---- conf: defaults and options ---------------------------------------- */

/* With an empty config file and no options, every setting is its default. */
static void test_conf_defaults(void **state)
{
	static struct conf c;
	int cpus[CPULIST_MAX];
	char why[WHY];
	int n = allowed(cpus);

	(void)state;
	assert_int_equal(run_cfg(&c, why, NULL), 0);
	assert_string_equal(c.socket, PROTO_SOCKET_PATH);
	assert_string_equal(c.db, CONF_DEFAULT_DB);
	assert_int_equal(c.ncpus, n);
	assert_memory_equal(c.cpus, cpus, (size_t)n * sizeof(int));
	assert_int_equal(c.quantum_us, 10000);
	assert_int_equal(c.offset_us, 1000);
	assert_int_equal(c.handover, CONF_HANDOVER_RELEASE);
	assert_int_equal(c.foreground, 0);
	assert_int_equal(c.log_level, LOG_LEVEL_INFO);
	assert_int_equal(c.retention_days, 30);
	assert_int_equal(c.max_jobs, 4096);
	assert_int_equal(c.max_clients, 256);
	assert_int_equal(c.socket_mode, 0666);
	assert_int_equal(c.rt_priority, 1);
	assert_string_equal(c.config, empty_conf);
	assert_int_equal(c.show_help, 0);
	assert_int_equal(c.show_version, 0);
	assert_string_equal(why, "");
}

/* Without --config the default file is read only when it exists. */
static void test_conf_default_file(void **state)
{
	static struct conf c;
	char why[WHY];

	(void)state;
	if (access(CONF_DEFAULT_FILE, F_OK) == 0) {
		/* This machine has one: it is named when it was read. */
		if (run(&c, why, NULL) == 0)
			assert_string_equal(c.config, CONF_DEFAULT_FILE);
		else
			assert_contains(why, CONF_DEFAULT_FILE);
		return;
	}
	assert_int_equal(run(&c, why, NULL), 0);
	assert_string_equal(c.config, "");
	assert_int_equal(c.quantum_us, 10000);
	assert_int_equal(conf_load(&c, 0, NULL, why, sizeof(why)), 0);
}

/* Every option takes effect, as "--name value" and "--name=value". */
static void test_conf_options(void **state)
{
	static struct conf c;
	int cpus[CPULIST_MAX];
	char why[WHY], last[16];
	int n = allowed(cpus);

	(void)state;
	snprintf(last, sizeof(last), "%d", cpus[n - 1]);
	assert_int_equal(run_cfg(&c, why, "--socket", "/tmp/a.sock",
				 "--db=/tmp/h.db", "--cpus", last,
				 "--quantum-ms", "2.125", "--offset-us=250",
				 "--handover", "release",
				 "--foreground", "--log-level", "debug",
				 "--retention-days", "0", "--max-jobs", "7",
				 "--max-clients=3", "--socket-mode", "600",
				 "--rt-priority", "0", NULL), 0);
	assert_string_equal(c.socket, "/tmp/a.sock");
	assert_string_equal(c.db, "/tmp/h.db");
	assert_int_equal(c.ncpus, 1);
	assert_int_equal(c.cpus[0], cpus[n - 1]);
	assert_int_equal(c.quantum_us, 2125);
	assert_int_equal(c.offset_us, 250);
	assert_int_equal(c.handover, CONF_HANDOVER_RELEASE);
	assert_int_equal(c.foreground, 1);
	assert_int_equal(c.log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(c.retention_days, 0);
	assert_int_equal(c.max_jobs, 7);
	assert_int_equal(c.max_clients, 3);
	assert_int_equal(c.socket_mode, 0600);
	assert_int_equal(c.rt_priority, 0);
	assert_int_equal(c.show_help, 0);

	/* The other levels, an octal mode with its 0, limits at the top. */
	assert_int_equal(run_cfg(&c, why, "--log-level=error",
				 "--socket-mode=0660", "--max-jobs=1000000",
				 "--max-clients", "65536", "--retention-days",
				 "36500", "--quantum-ms", "10000",
				 "--rt-priority=99", NULL), 0);
	assert_int_equal(c.log_level, LOG_LEVEL_ERROR);
	assert_int_equal(c.socket_mode, 0660);
	assert_int_equal(c.max_jobs, 1000000);
	assert_int_equal(c.max_clients, 65536);
	assert_int_equal(c.retention_days, 36500);
	assert_int_equal(c.quantum_us, 10000000);
	assert_int_equal(c.rt_priority, 99);
	assert_int_equal(run_cfg(&c, why, "--log-level", "warn", NULL), 0);
	assert_int_equal(c.log_level, LOG_LEVEL_WARN);
	assert_int_equal(run_cfg(&c, why, "--log-level", "info", NULL), 0);
	assert_int_equal(c.log_level, LOG_LEVEL_INFO);

	/* All the allowed CPUs as a list; the last of repeated options wins. */
	{
		char list[4096];

		assert_true(cpulist_format(cpus, n, list, sizeof(list)) > 0);
		assert_int_equal(run_cfg(&c, why, "--cpus", last, "--cpus",
					 list, "--max-jobs", "5", "--max-jobs",
					 "6", NULL), 0);
		assert_int_equal(c.ncpus, n);
		assert_memory_equal(c.cpus, cpus, (size_t)n * sizeof(int));
		assert_int_equal(c.max_jobs, 6);
	}
}

/* The offset's default is a tenth of the quantum (integer division); one
 * that is set must be a whole number below the quantum, whichever of the
 * file and the command line set the two. */
static void test_conf_offset(void **state)
{
	static const struct {
		const char *quantum;
		int offset;
	} cases[] = {
		{ "10", 1000 }, { "0.1", 10 }, { "2.125", 212 }, { "1", 100 },
		{ "0.109", 10 }, { "0.25", 25 }, { "100", 10000 },
		{ "10000", 1000000 },
	};
	static const char *const garbage[] = {
		"-1", "1.5", "0.5", "1e3", "abc", "", " 5", "5us", "+5", "0x10",
	};
	static struct conf c;
	char path[PATH_MAX], why[WHY];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(run_cfg(&c, why, "--quantum-ms",
					 cases[i].quantum, NULL), 0);
		assert_int_equal(c.offset_us, cases[i].offset);
		assert_true(c.offset_us < c.quantum_us);
	}

	/* 0 and the quantum less a microsecond are accepted. */
	assert_int_equal(run_cfg(&c, why, "--offset-us", "0", NULL), 0);
	assert_int_equal(c.offset_us, 0);
	assert_int_equal(run_cfg(&c, why, "--offset-us=9999", NULL), 0);
	assert_int_equal(c.offset_us, 9999);
	assert_int_equal(run_cfg(&c, why, "--quantum-ms", "0.1", "--offset-us",
				 "99", NULL), 0);
	assert_int_equal(c.offset_us, 99);
	assert_int_equal(run_cfg(&c, why, "--quantum-ms", "2.125",
				 "--offset-us", "2124", NULL), 0);
	assert_int_equal(c.offset_us, 2124);
	assert_int_equal(run_cfg(&c, why, "--quantum-ms", "10000",
				 "--offset-us", "9999999", NULL), 0);
	assert_int_equal(c.offset_us, 9999999);
	/* The order of the two options does not matter. */
	assert_int_equal(run_cfg(&c, why, "--offset-us", "4999",
				 "--quantum-ms", "5", NULL), 0);
	assert_int_equal(c.offset_us, 4999);

	/* The quantum and above are refused, naming both. */
	assert_int_equal(run_cfg(&c, why, "--offset-us", "12000", NULL), -1);
	assert_string_equal(why, "the offset (12000 us) must be less than the "
			    "quantum (10 ms)");
	assert_int_equal(run_cfg(&c, why, "--offset-us", "10000", NULL), -1);
	assert_string_equal(why, "the offset (10000 us) must be less than the "
			    "quantum (10 ms)");
	assert_int_equal(run_cfg(&c, why, "--quantum-ms", "2.125",
				 "--offset-us", "2125", NULL), -1);
	assert_string_equal(why, "the offset (2125 us) must be less than the "
			    "quantum (2.125 ms)");
	assert_int_equal(run_cfg(&c, why, "--offset-us", "5000",
				 "--quantum-ms", "5", NULL), -1);
	assert_contains(why, "less than the quantum (5 ms)");
	assert_int_equal(run_cfg(&c, why, "--quantum-ms", "0.1", "--offset-us",
				 "100", NULL), -1);
	assert_contains(why, "the offset (100 us)");
	assert_contains(why, "quantum (0.1 ms)");
	/* Past the longest quantum: out of range whatever the quantum. */
	{
		const char *args[] = { "--offset-us", "10000000", NULL };
		const char *want[] = { "--offset-us: 10000000 out of range",
				       "(0 to 9999999)", NULL };

		expect_error(args, want);
	}
	{
		const char *args[] = { "--offset-us", "99999999999999999999",
				       NULL };
		const char *want[] = { "--offset-us", "out of range", NULL };

		expect_error(args, want);
	}

	/* Negative, fractional and other garbage: not a whole number. */
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		const char *args[] = { "--offset-us", garbage[i], NULL };
		const char *want[] = { "--offset-us: '", "is not a whole number",
				       "(0 to 9999999)", NULL };

		expect_error(args, want);
	}
	assert_int_equal(run_cfg(&c, why, "--offset-us", NULL), -1);
	assert_contains(why, "--offset-us needs a value");

	/* From a file; the command line wins over it, and the file's offset
	 * is checked against the quantum in force at the end. */
	write_file("offset.conf", "quantum-ms = 5\noffset-us = 300\n", path,
		   sizeof(path));
	assert_int_equal(run(&c, why, "--config", path, NULL), 0);
	assert_int_equal(c.quantum_us, 5000);
	assert_int_equal(c.offset_us, 300);
	assert_int_equal(run(&c, why, "--config", path, "--offset-us", "4000",
			     NULL), 0);
	assert_int_equal(c.offset_us, 4000);
	assert_int_equal(run(&c, why, "--offset-us=0", "--config", path, NULL),
			 0);
	assert_int_equal(c.offset_us, 0);
	assert_int_equal(run(&c, why, "--config", path, "--quantum-ms", "0.2",
			     NULL), -1);
	assert_string_equal(why, "the offset (300 us) must be less than the "
			    "quantum (0.2 ms)");
	assert_int_equal(run(&c, why, "--config", path, "--quantum-ms", "0.2",
			     "--offset-us", "199", NULL), 0);
	assert_int_equal(c.offset_us, 199);
	/* A file that sets only the quantum: the default follows it. */
	write_file("offset2.conf", "quantum-ms = 5\n", path, sizeof(path));
	assert_int_equal(run(&c, why, "--config", path, NULL), 0);
	assert_int_equal(c.offset_us, 500);
	/* A file's offset at the quantum is refused too. */
	write_file("offset3.conf", "offset-us = 10000\n", path, sizeof(path));
	assert_int_equal(run(&c, why, "--config", path, NULL), -1);
	assert_string_equal(why, "the offset (10000 us) must be less than the "
			    "quantum (10 ms)");
}

/* An option that takes one of two modes by name. */
struct mode_opt {
	const char *opt;                   /* its name, without dashes */
	const char *names[4];              /* its modes, in order */
	int n;                             /* how many */
	int first, dflt;                   /* their values; the default's */
	const char *(*name)(int);          /* conf_*_name */
	int (*get)(const struct conf *);   /* the mode conf_load set */
};

/* The mode of --handover. */
static int get_handover(const struct conf *c)
{
	return c->handover;
}

/* The mode of --share. */
static int get_share(const struct conf *c)
{
	return c->share;
}

/* A mode option: its default, either mode by name on the command line
 * (the last one wins) and in a file (the command line over it), nothing
 * else, each refusal naming the two modes. */
static void check_mode(const struct mode_opt *m)
{
	static const char *const bad[] = {
		"x", "Release", "IMMEDIATE", "USER", "", "release ", "rel",
		"jobs", "0", "1",
	};
	static struct conf c;
	char path[PATH_MAX], want[PATH_MAX + 128], why[WHY], dashed[32],
	     eq[2][48], modes[96], text[96];
	int v0 = m->first, v1 = m->first + 1;
	size_t len;

	snprintf(dashed, sizeof(dashed), "--%s", m->opt);
	len = (size_t)snprintf(modes, sizeof(modes), "is not one of %s", m->names[0]);
	for (int i = 1; i < m->n; i++)
		len += (size_t)snprintf(modes + len, sizeof(modes) - len, ", %s",
		                        m->names[i]);
	for (int i = 0; i < m->n; i++)
		assert_string_equal(m->name(m->first + i), m->names[i]);
	for (int i = 0; i < 2; i++)
		snprintf(eq[i], sizeof(eq[i]), "%s=%s", dashed, m->names[i]);
	assert_string_equal(m->name(-1), "?");
	assert_string_equal(m->name(m->first + m->n), "?");

	assert_int_equal(run_cfg(&c, why, NULL), 0);
	assert_int_equal(m->get(&c), m->dflt);
	assert_int_equal(run_cfg(&c, why, dashed, m->names[0], NULL), 0);
	assert_int_equal(m->get(&c), v0);
	assert_int_equal(run_cfg(&c, why, dashed, m->names[1], NULL), 0);
	assert_int_equal(m->get(&c), v1);
	assert_int_equal(run_cfg(&c, why, eq[0], NULL), 0);
	assert_int_equal(m->get(&c), v0);
	assert_int_equal(run_cfg(&c, why, eq[1], dashed, m->names[0], NULL), 0);
	assert_int_equal(m->get(&c), v0);

	assert_int_equal(run_cfg(&c, why, dashed, "x", NULL), -1);
	snprintf(want, sizeof(want), "%s: 'x' %s", dashed, modes);
	assert_string_equal(why, want);
	snprintf(want, sizeof(want), "%s: '", dashed);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[] = { dashed, bad[i], NULL };
		const char *msg[] = { want, modes, NULL };

		expect_error(args, msg);
	}
	assert_int_equal(run_cfg(&c, why, dashed, NULL), -1);
	snprintf(want, sizeof(want), "%s needs a value", dashed);
	assert_contains(why, want);

	/* From a file, and the command line over it. */
	snprintf(text, sizeof(text), "# mode\n%s = %s\n", m->opt, m->names[1]);
	write_file("mode.conf", text, path, sizeof(path));
	assert_int_equal(run(&c, why, "--config", path, NULL), 0);
	assert_int_equal(m->get(&c), v1);
	assert_int_equal(run(&c, why, "--config", path, dashed, m->names[0],
			     NULL), 0);
	assert_int_equal(m->get(&c), v0);
	snprintf(text, sizeof(text), "\n%s = x\n", m->opt);
	write_file("mode.conf", text, path, sizeof(path));
	assert_int_equal(run(&c, why, "--config", path, NULL), -1);
	snprintf(want, sizeof(want), "%s:2: %s: 'x' %s", path, m->opt, modes);
	assert_string_equal(why, want);
}

/* --handover: release by default, either mode by name, nothing else. */
static void test_conf_handover(void **state)
{
	static const struct mode_opt m = {
		"handover", { "immediate", "release" }, 2, CONF_HANDOVER_IMMEDIATE,
		CONF_HANDOVER_RELEASE, conf_handover_name, get_handover,
	};

	(void)state;
	check_mode(&m);
}

/* --share: user by default, either mode by name, nothing else. */
static void test_conf_share(void **state)
{
	static const struct mode_opt m = {
		"share", { "user", "job" }, 2, CONF_SHARE_USER, CONF_SHARE_USER,
		conf_share_name, get_share,
	};

	(void)state;
	check_mode(&m);
}

/* The mode of --confine. */
static int get_confine(const struct conf *c)
{
	return c->confine;
}

/* The mechanism of --confine-with. */
static int get_confine_with(const struct conf *c)
{
	return c->confine_with;
}

/* --confine: auto by default, the four modes by name, nothing else. */
static void test_conf_confine(void **state)
{
	static const struct mode_opt m = {
		"confine", { "auto", "off", "rigid", "all" }, 4, CONF_CONFINE_AUTO,
		CONF_CONFINE_AUTO, conf_confine_name, get_confine,
	};
	static const struct mode_opt w = {
		"confine-with", { "auto", "cgroup", "affinity" }, 3,
		CONF_CONFINE_WITH_AUTO, CONF_CONFINE_WITH_AUTO,
		conf_confine_with_name, get_confine_with,
	};

	(void)state;
	check_mode(&m);
	check_mode(&w);
}

/* deadline-ms, gone since protocol 2, is refused as an option (with or
 * without a value, even beside --help) and as a key, saying why. */
static void test_conf_deadline_gone(void **state)
{
	static const char *const lines[][4] = {
		{ "--deadline-ms", "2" },
		{ "--deadline-ms=0.25" },
		{ "--deadline-ms" },
		{ "--foreground", "--deadline-ms", "2", "--max-jobs=5" },
		{ "--help", "--deadline-ms", "2" },
		{ "--deadline-ms", "2", "--version" },
	};
	static const char *const files[] = {
		"quantum-ms = 5\ndeadline-ms = 2\n",
		"# old\ndeadline-ms = 0\n",
		"max-jobs = 5\ndeadline-ms =\n",
	};
	static struct conf c;
	char path[PATH_MAX], want[PATH_MAX + 128], why[WHY];

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char *argv[8];
		int argc = 0;

		argv[argc++] = (char *)"asteald";
		argv[argc++] = (char *)"--config";
		argv[argc++] = empty_conf;
		for (int k = 0; k < 4 && lines[i][k] != NULL; k++)
			argv[argc++] = (char *)lines[i][k];
		argv[argc] = NULL;
		why[0] = '\0';
		if (conf_load(&c, argc, argv, why, sizeof(why)) != -1)
			fail_msg("'%s' was accepted", argv[3]);
		assert_string_equal(why, "--deadline-ms: gone since protocol 2 "
				    "(quanta are on the shared clock); see "
				    "--offset-us");
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		write_file("deadline.conf", files[i], path, sizeof(path));
		assert_int_equal(run(&c, why, "--config", path, NULL), -1);
		snprintf(want, sizeof(want), "%s:2: deadline-ms: gone since "
			 "protocol 2 (quanta are on the shared clock); see "
			 "offset-us", path);
		assert_string_equal(why, want);
	}
	/* Not mistaken for another option, nor in the help. */
	assert_null(strstr(conf_usage(), "deadline"));
	assert_int_equal(run_cfg(&c, why, "--deadline", "2", NULL), -1);
	assert_string_equal(why, "unknown option '--deadline'");
}

/* Bad values of every numeric option name the option and its range. */
static void test_conf_bad_numbers(void **state)
{
	static const struct {
		const char *opt, *value, *range;
	} cases[] = {
		{ "--quantum-ms", "0", "0.1 to 10000" },
		{ "--quantum-ms", "0.05", "0.1 to 10000" },
		{ "--quantum-ms", "10000.001", "0.1 to 10000" },
		{ "--quantum-ms", "99999999999999999999", "0.1 to 10000" },
		{ "--quantum-ms", "abc", "0.1 to 10000" },
		{ "--quantum-ms", "-1", "0.1 to 10000" },
		{ "--quantum-ms", "1e3", "0.1 to 10000" },
		{ "--quantum-ms", "", "0.1 to 10000" },
		{ "--quantum-ms", "1.", "0.1 to 10000" },
		{ "--quantum-ms", ".", "0.1 to 10000" },
		{ "--quantum-ms", "0.0001", "0.1 to 10000" },
		{ "--quantum-ms", " 5", "0.1 to 10000" },
		{ "--quantum-ms", "5ms", "0.1 to 10000" },
		{ "--offset-us", "-1", "0 to 9999999" },
		{ "--offset-us", "10000000", "0 to 9999999" },
		{ "--offset-us", "0.5", "0 to 9999999" },
		{ "--offset-us", "x", "0 to 9999999" },
		{ "--retention-days", "-1", "0 to 36500" },
		{ "--retention-days", "36501", "0 to 36500" },
		{ "--retention-days", "1.5", "0 to 36500" },
		{ "--retention-days", "", "0 to 36500" },
		{ "--retention-days", "30d", "0 to 36500" },
		{ "--max-jobs", "0", "1 to 1000000" },
		{ "--max-jobs", "1000001", "1 to 1000000" },
		{ "--max-jobs", "99999999999999999999", "1 to 1000000" },
		{ "--max-jobs", "many", "1 to 1000000" },
		{ "--max-clients", "0", "1 to 65536" },
		{ "--max-clients", "65537", "1 to 65536" },
		{ "--max-clients", "+5", "1 to 65536" },
		{ "--socket-mode", "888", "0 to 777" },
		{ "--socket-mode", "1000", "0 to 777" },
		{ "--socket-mode", "rw", "0 to 777" },
		{ "--socket-mode", "0x1ff", "0 to 777" },
		{ "--socket-mode", "-1", "0 to 777" },
		{ "--rt-priority", "100", "0 to 99" },
		{ "--rt-priority", "-1", "0 to 99" },
		{ "--rt-priority", "fifo", "0 to 99" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { cases[i].opt, cases[i].value, NULL };
		const char *want[] = { cases[i].opt, cases[i].range, NULL };

		expect_error(args, want);
	}
}

/* Bad log levels, CPU lists and CPUs the daemon may not use. */
static void test_conf_bad_values(void **state)
{
	int cpus[CPULIST_MAX];
	int n = allowed(cpus), outside = -1;
	char list[16], one[16];

	(void)state;
	{
		const char *args[] = { "--log-level", "loud", NULL };
		const char *want[] = { "--log-level", "'loud'", "debug", NULL };

		expect_error(args, want);
	}
	{
		const char *args[] = { "--cpus", "3-1", NULL };
		const char *want[] = { "--cpus", "bad range 3-1", NULL };

		expect_error(args, want);
	}
	{
		const char *args[] = { "--cpus", "", NULL };
		const char *want[] = { "--cpus", "empty list", NULL };

		expect_error(args, want);
	}
	{
		const char *args[] = { "--cpus", "5000", NULL };
		const char *want[] = { "--cpus", "out of range", NULL };

		expect_error(args, want);
	}
	for (int c = CPULIST_MAX - 1, j = n - 1; c >= 0; c--) {
		while (j >= 0 && cpus[j] > c)
			j--;
		if (j < 0 || cpus[j] != c) {
			outside = c;
			break;
		}
	}
	assert_true(outside >= 0);
	snprintf(list, sizeof(list), "%d", outside);
	snprintf(one, sizeof(one), "CPU %d", outside);
	{
		const char *args[] = { "--cpus", list, NULL };
		const char *want[] = { "--cpus", one, "may run on", "allowed: ",
				       NULL };

		expect_error(args, want);
	}
}

/* Paths: the socket must fit sun_path; no path may be empty. */
static void test_conf_paths(void **state)
{
	static struct conf c;
	static char longdb[5000];
	char why[WHY], sock[200];

	(void)state;
	memset(sock, 0, sizeof(sock));
	sock[0] = '/';
	memset(sock + 1, 'a', 106);             /* 107 bytes: fits */
	assert_int_equal(run_cfg(&c, why, "--socket", sock, NULL), 0);
	assert_string_equal(c.socket, sock);
	sock[107] = 'a';                         /* 108: too long */
	assert_int_equal(run_cfg(&c, why, "--socket", sock, NULL), -1);
	assert_contains(why, "--socket");
	assert_contains(why, "longer than 107");
	assert_int_equal(run_cfg(&c, why, "--socket=", NULL), -1);
	assert_contains(why, "--socket: empty path");
	assert_int_equal(run_cfg(&c, why, "--db", "", NULL), -1);
	assert_contains(why, "--db: empty path");
	memset(longdb, 'd', sizeof(longdb) - 1);
	longdb[0] = '/';
	assert_int_equal(run_cfg(&c, why, "--db", longdb, NULL), -1);
	assert_contains(why, "--db: path longer than 4095");
	assert_int_equal(run(&c, why, "--config", longdb, NULL), -1);
	assert_contains(why, "--config: path longer than 4095");
}

/* Unknown options, missing values, stray arguments are refused. */
static void test_conf_bad_command_lines(void **state)
{
	static const struct {
		const char *args[4];
		const char *want;
	} cases[] = {
		{ { "--bogus" }, "unknown option '--bogus'" },
		{ { "--bogus=1" }, "unknown option '--bogus'" },
		{ { "--quantum", "5" }, "unknown option '--quantum'" },
		{ { "-x" }, "unknown option '-x'" },
		{ { "-help" }, "unknown option '-help'" },
		{ { "--socket" }, "--socket needs a value" },
		{ { "--foreground", "--max-jobs" }, "--max-jobs needs a value" },
		{ { "--foreground=1" }, "--foreground takes no value" },
		{ { "--help=yes" }, "--help takes no value" },
		{ { "stray" }, "unexpected argument 'stray'" },
		{ { "--foreground", "stray" }, "unexpected argument 'stray'" },
		{ { "-" }, "unexpected argument '-'" },
		{ { "--", "--foreground" },
		  "unexpected argument '--foreground'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *want[] = { cases[i].want, NULL };

		expect_error(cases[i].args, want);
	}
	/* "--" alone ends the options harmlessly. */
	{
		static struct conf c;
		char why[WHY];

		assert_int_equal(run_cfg(&c, why, "--foreground", "--", NULL), 0);
		assert_int_equal(c.foreground, 1);
	}
}

/* --help, -h, --version and -V; help works without its config file. */
static void test_conf_help(void **state)
{
	static const char *const names[] = {
		"--socket PATH", "--db PATH", "--cpus LIST", "--quantum-ms N",
		"--offset-us N", "--handover MODE", "--foreground",
		"--log-level L",
		"--retention-days N", "--max-jobs N", "--max-clients N",
		"--socket-mode OCTAL", "--config FILE", "--help", "--version",
		PROTO_SOCKET_PATH, CONF_DEFAULT_DB, CONF_DEFAULT_FILE,
		"default 10)", "default 4096", "default 256", "default 30",
		"default 0666", "default info",
	};
	static struct conf c;
	char why[WHY], missing[PATH_MAX + 32];
	const char *usage = conf_usage();

	(void)state;
	snprintf(missing, sizeof(missing), "%s/missing.conf", tmpdir);
	assert_int_equal(run(&c, why, "--help", "--config", missing, NULL), 0);
	assert_int_equal(c.show_help, 1);
	assert_int_equal(c.show_version, 0);
	assert_int_equal(run(&c, why, "-h", NULL), 0);
	assert_int_equal(c.show_help, 1);
	assert_int_equal(run(&c, why, "--version", "--config", missing, NULL),
			 0);
	assert_int_equal(c.show_version, 1);
	assert_int_equal(c.show_help, 0);
	assert_int_equal(run(&c, why, "-V", NULL), 0);
	assert_int_equal(c.show_version, 1);
	/* A bad command line is still an error. */
	assert_int_equal(run(&c, why, "--help", "--bogus", NULL), -1);

	assert_non_null(usage);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_contains(usage, names[i]);
}

/* ---- conf: the config file --------------------------------------------- */

/* Comments, blank lines, blanks around '=', CRLF, '#' inside a value. */
static void test_conf_file(void **state)
{
	static struct conf c;
	int cpus[CPULIST_MAX];
	char path[PATH_MAX], text[2048], why[WHY];
	int n = allowed(cpus);

	(void)state;
	snprintf(text, sizeof(text),
		 "# asteald settings\n"
		 "\n"
		 "   # an indented comment\n"
		 "socket=/tmp/file.sock\n"
		 "db =  /tmp/a#b.db  \n"
		 "\tcpus\t=\t%d\n"
		 "quantum-ms = 5\r\n"
		 "offset-us = 500\n"
		 "handover = release\n"
		 "log-level = warn\n"
		 "retention-days = 7\n"
		 "max-jobs = 100\n"
		 "   \t \n"
		 "max-clients = 9\n"
		 "socket-mode = 0600",               /* no final newline */
		 cpus[0]);
	write_file("good.conf", text, path, sizeof(path));
	assert_int_equal(run(&c, why, "--config", path, NULL), 0);
	assert_string_equal(c.config, path);
	assert_string_equal(c.socket, "/tmp/file.sock");
	assert_string_equal(c.db, "/tmp/a#b.db");
	assert_int_equal(c.ncpus, 1);
	assert_int_equal(c.cpus[0], cpus[0]);
	assert_int_equal(c.quantum_us, 5000);
	assert_int_equal(c.offset_us, 500);
	assert_int_equal(c.handover, CONF_HANDOVER_RELEASE);
	assert_int_equal(c.log_level, LOG_LEVEL_WARN);
	assert_int_equal(c.retention_days, 7);
	assert_int_equal(c.max_jobs, 100);
	assert_int_equal(c.max_clients, 9);
	assert_int_equal(c.socket_mode, 0600);
	assert_int_equal(c.foreground, 0);
	(void)n;
}

/* A bad line is refused with the file's name and the line's number. */
static void test_conf_file_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "# one\n\nmax-jobs = 5\n\n# five\n\nquantum = 5\n",
		  ":7: unknown key 'quantum'" },
		{ "\n\nquantum-ms = fast\n",
		  ":3: quantum-ms: 'fast' is not a number of milliseconds" },
		{ "max-jobs = 0\n", ":1: max-jobs: 0 out of range (1 to 1000000)" },
		{ "# x\nmax-clients=70000\n", ":2: max-clients: 70000 out of range" },
		{ "retention-days = -2\n", ":1: retention-days:" },
		{ "socket-mode = 9\n", ":1: socket-mode:" },
		{ "offset-us = -1\n", ":1: offset-us:" },
		{ "handover = fast\n", ":1: handover: 'fast'" },
		{ "\ndeadline-ms = 2\n", ":2: deadline-ms: gone" },
		{ "log-level = chatty\n", ":1: log-level: 'chatty'" },
		{ "cpus = 2-1\n", ":1: cpus: bad range 2-1" },
		{ "\nsocket =\n", ":2: missing value for 'socket'" },
		{ "= 5\n", ":1: missing key before '='" },
		{ "max-jobs 5\n", ":1: expected 'key = value'" },
		{ "foreground = 1\n", ":1: unknown key 'foreground'" },
		{ "config = /etc/other.conf\n", ":1: unknown key 'config'" },
		{ "--max-jobs = 5\n", ":1: unknown key '--max-jobs'" },
		{ "max-jobs = 5 # five\n", ":1: max-jobs: '5 # five'" },
		{ "quantum-ms = 1\noffset-us = 1000\n", "less than the quantum" },
	};
	static struct conf c;
	char path[PATH_MAX], want[PATH_MAX + 128], why[WHY];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file("bad.conf", cases[i].text, path, sizeof(path));
		if (run(&c, why, "--config", path, NULL) != -1)
			fail_msg("'%s' was accepted", cases[i].text);
		assert_null(strchr(why, '\n'));
		if (cases[i].want[0] == ':') {
			snprintf(want, sizeof(want), "%s%s", path, cases[i].want);
			if (strncmp(why, want, strlen(want)) != 0)
				fail_msg("'%s' does not start with '%s'", why,
					 want);
		} else {
			assert_contains(why, cases[i].want);
		}
	}
	/* The example of conf.h, exactly. */
	write_file("asteald.conf", "\n\n\n\n\n\nquantum = 5\n", path,
		   sizeof(path));
	assert_int_equal(run(&c, why, "--config", path, NULL), -1);
	snprintf(want, sizeof(want), "%s:7: unknown key 'quantum'", path);
	assert_string_equal(why, want);
}

/* The command line wins over the file wherever --config stands. */
static void test_conf_precedence(void **state)
{
	static struct conf c;
	char path[PATH_MAX], other[PATH_MAX], why[WHY];

	(void)state;
	write_file("prec.conf", "quantum-ms = 5\nmax-jobs = 100\n"
		   "log-level = debug\n", path, sizeof(path));
	write_file("other.conf", "max-jobs = 200\n", other, sizeof(other));
	assert_int_equal(run(&c, why, "--config", path, "--quantum-ms", "7",
			     NULL), 0);
	assert_int_equal(c.quantum_us, 7000);
	assert_int_equal(c.max_jobs, 100);
	assert_int_equal(c.log_level, LOG_LEVEL_DEBUG);
	assert_int_equal(c.offset_us, 700);
	assert_int_equal(run(&c, why, "--quantum-ms", "7", "--log-level",
			     "error", "--config", path, NULL), 0);
	assert_int_equal(c.quantum_us, 7000);
	assert_int_equal(c.log_level, LOG_LEVEL_ERROR);
	assert_int_equal(c.max_jobs, 100);
	/* Two --config: the last one is read, alone. */
	assert_int_equal(run(&c, why, "--config", path, "--config=", NULL), -1);
	assert_int_equal(run(&c, why, "--config", path, "--config", other,
			     NULL), 0);
	assert_string_equal(c.config, other);
	assert_int_equal(c.max_jobs, 200);
	assert_int_equal(c.quantum_us, 10000);
	/* An error on the command line after a good file. */
	assert_int_equal(run(&c, why, "--config", path, "--max-jobs", "0",
			     NULL), -1);
	assert_contains(why, "--max-jobs: 0 out of range");
}

/* --config must name a readable file. */
static void test_conf_missing_file(void **state)
{
	static struct conf c;
	char path[PATH_MAX + 32], why[WHY];

	(void)state;
	snprintf(path, sizeof(path), "%s/nope.conf", tmpdir);
	assert_int_equal(run(&c, why, "--config", path, NULL), -1);
	assert_contains(why, path);
	assert_contains(why, strerror(ENOENT));
	assert_int_equal(run(&c, why, "--config", tmpdir, NULL), -1);
	assert_contains(why, tmpdir);
	assert_int_equal(run(&c, why, "--config", NULL), -1);
	assert_contains(why, "--config needs a value");
}

/* $STATE_DIRECTORY and $ASTEAL_SOCKET give defaults that options beat. */
static void test_conf_environment(void **state)
{
	static struct conf c;
	static char longdir[5000];
	char path[PATH_MAX], why[WHY];

	(void)state;
	setenv("STATE_DIRECTORY", "/var/lib/x:/var/lib/y", 1);
	assert_int_equal(run_cfg(&c, why, NULL), 0);
	assert_string_equal(c.db, "/var/lib/x/history.db");
	setenv("STATE_DIRECTORY", "/srv/state", 1);
	assert_int_equal(run_cfg(&c, why, NULL), 0);
	assert_string_equal(c.db, "/srv/state/history.db");
	assert_int_equal(run_cfg(&c, why, "--db", "/tmp/mine.db", NULL), 0);
	assert_string_equal(c.db, "/tmp/mine.db");
	write_file("db.conf", "db = /tmp/file.db\n", path, sizeof(path));
	assert_int_equal(run(&c, why, "--config", path, NULL), 0);
	assert_string_equal(c.db, "/tmp/file.db");
	setenv("STATE_DIRECTORY", "", 1);
	assert_int_equal(run_cfg(&c, why, NULL), 0);
	assert_string_equal(c.db, CONF_DEFAULT_DB);
	memset(longdir, 'd', sizeof(longdir) - 1);
	longdir[0] = '/';
	setenv("STATE_DIRECTORY", longdir, 1);
	assert_int_equal(run_cfg(&c, why, NULL), -1);
	assert_contains(why, "STATE_DIRECTORY");
	assert_int_equal(run_cfg(&c, why, "--db", "/tmp/x.db", NULL), 0);
	unsetenv("STATE_DIRECTORY");
	assert_int_equal(run_cfg(&c, why, NULL), 0);
	assert_string_equal(c.db, CONF_DEFAULT_DB);

	setenv(PROTO_SOCKET_ENV, "/tmp/env.sock", 1);
	assert_int_equal(run_cfg(&c, why, NULL), 0);
	assert_string_equal(c.socket, "/tmp/env.sock");
	assert_int_equal(run_cfg(&c, why, "--socket", "/tmp/opt.sock", NULL), 0);
	assert_string_equal(c.socket, "/tmp/opt.sock");
	setenv(PROTO_SOCKET_ENV, "", 1);
	assert_int_equal(run_cfg(&c, why, NULL), 0);
	assert_string_equal(c.socket, PROTO_SOCKET_PATH);
	unsetenv(PROTO_SOCKET_ENV);
}

/* conf_load keeps no state between calls. */
static void test_conf_reentrant(void **state)
{
	static struct conf c;
	char why[WHY];
	int rounds = (int)test_scale(200, 2, 5);

	(void)state;
	for (int i = 0; i < rounds; i++) {
		if (i % 2 == 0) {
			assert_int_equal(run_cfg(&c, why, "--max-jobs", "9",
						 "--foreground", NULL), 0);
			assert_int_equal(c.max_jobs, 9);
			assert_int_equal(c.foreground, 1);
		} else {
			assert_int_equal(run_cfg(&c, why, "stray", NULL), -1);
			assert_int_equal(run_cfg(&c, why, NULL), 0);
			assert_int_equal(c.max_jobs, 4096);
			assert_int_equal(c.foreground, 0);
		}
	}
	/* A NULL or zero-sized why is allowed. */
	{
		char *argv[] = { (char *)"asteald", (char *)"--bogus", NULL };

		assert_int_equal(conf_load(&c, 2, argv, NULL, 0), -1);
		assert_int_equal(conf_load(&c, 2, argv, why, 1), -1);
		assert_string_equal(why, "");
	}
}

/* ---- log --------------------------------------------------------------- */

/* Where stderr went while captured. */
struct capture {
	int saved;
	int fd;
	char path[PATH_MAX];
};

/* Send stderr to a fresh file. */
static void capture_start(struct capture *cap)
{
	fflush(stderr);
	assert_true((size_t)snprintf(cap->path, sizeof(cap->path),
				     "%s/log-XXXXXX", tmpdir) < sizeof(cap->path));
	cap->fd = mkstemp(cap->path);
	assert_true(cap->fd >= 0);
	cap->saved = dup(2);
	assert_true(cap->saved >= 0);
	assert_int_equal(dup2(cap->fd, 2), 2);
}

/* Put stderr back and return what was written (malloc'd). */
static char *capture_end(struct capture *cap)
{
	struct stat st;
	char *text;
	ssize_t got;

	assert_int_equal(dup2(cap->saved, 2), 2);
	close(cap->saved);
	assert_int_equal(fstat(cap->fd, &st), 0);
	text = calloc(1, (size_t)st.st_size + 1);
	assert_non_null(text);
	got = pread(cap->fd, text, (size_t)st.st_size, 0);
	assert_int_equal(got, st.st_size);
	close(cap->fd);
	unlink(cap->path);
	return text;
}

/* Level names parse; unknown ones do not. */
static void test_log_parse_level(void **state)
{
	enum log_level l;

	(void)state;
	assert_int_equal(log_parse_level("error", &l), 0);
	assert_int_equal(l, LOG_LEVEL_ERROR);
	assert_int_equal(log_parse_level("warn", &l), 0);
	assert_int_equal(l, LOG_LEVEL_WARN);
	assert_int_equal(log_parse_level("warning", &l), 0);
	assert_int_equal(l, LOG_LEVEL_WARN);
	assert_int_equal(log_parse_level("info", &l), 0);
	assert_int_equal(l, LOG_LEVEL_INFO);
	assert_int_equal(log_parse_level("debug", &l), 0);
	assert_int_equal(l, LOG_LEVEL_DEBUG);
	assert_int_equal(log_parse_level("", &l), -1);
	assert_int_equal(log_parse_level("INFO", &l), -1);
	assert_int_equal(log_parse_level("info ", &l), -1);
	assert_int_equal(log_parse_level(NULL, &l), -1);
}

/* Lines below the level are dropped; the others are "level: message". */
static void test_log_levels(void **state)
{
	struct capture cap;
	char *text;

	(void)state;
	log_init(LOG_LEVEL_WARN, 0);
	assert_true(log_enabled(LOG_LEVEL_ERROR));
	assert_true(log_enabled(LOG_LEVEL_WARN));
	assert_false(log_enabled(LOG_LEVEL_INFO));
	assert_false(log_enabled(LOG_LEVEL_DEBUG));
	capture_start(&cap);
	log_error("a %d", 1);
	log_warn("b %s", "two");
	log_info("c");
	log_debug("d");
	text = capture_end(&cap);
	assert_string_equal(text, "error: a 1\nwarning: b two\n");
	free(text);

	log_init(LOG_LEVEL_DEBUG, 0);
	assert_true(log_enabled(LOG_LEVEL_DEBUG));
	capture_start(&cap);
	log_debug("d");
	log_info("i");
	log_info("trailing newline\n");
	log_info("two\nlines");
	log_info("%s", "");
	text = capture_end(&cap);
	assert_string_equal(text, "debug: d\ninfo: i\ninfo: trailing newline\n"
			    "info: two lines\ninfo: \n");
	free(text);

	log_init(LOG_LEVEL_ERROR, 0);
	capture_start(&cap);
	log_warn("w");
	log_error("e");
	text = capture_end(&cap);
	assert_string_equal(text, "error: e\n");
	free(text);
}

/* With timestamps: "YYYY-MM-DD HH:MM:SS.mmm level: message". */
static void test_log_timestamps(void **state)
{
	struct capture cap;
	regex_t re;
	char *text;

	(void)state;
	assert_int_equal(regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2} "
				 "[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} "
				 "info: hello 42\n"
				 "[0-9]{4}-[0-9]{2}-[0-9]{2} "
				 "[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} "
				 "error: bye\n$", REG_EXTENDED), 0);
	log_init(LOG_LEVEL_INFO, 1);
	capture_start(&cap);
	log_info("hello %d", 42);
	log_debug("not shown");
	log_error("bye");
	text = capture_end(&cap);
	if (regexec(&re, text, 0, NULL, 0) != 0)
		fail_msg("bad lines: '%s'", text);
	regfree(&re);
	free(text);
}

/* A long message is cut to one line ending in "...". */
static void test_log_long_line(void **state)
{
	static char big[10000];
	struct capture cap;
	char *text;
	size_t n;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	log_init(LOG_LEVEL_INFO, 0);
	capture_start(&cap);
	log_info("%s", big);
	log_info("after");
	text = capture_end(&cap);
	n = strcspn(text, "\n");
	assert_true(n > 1000 && n < 4096);
	assert_memory_equal(text, "info: xxx", 9);
	assert_memory_equal(text + n - 4, "x...", 4);
	assert_string_equal(text + n, "\ninfo: after\n");
	free(text);
}

/* errno is the same after a call, even when the write fails; "%m" sees
 * the caller's errno. */
static void test_log_errno(void **state)
{
	struct capture cap;
	int pipefd[2], saved;
	char *text;

	(void)state;
	log_init(LOG_LEVEL_DEBUG, 1);
	capture_start(&cap);
	errno = ENOENT;
	log_error("open: %m");
	assert_int_equal(errno, ENOENT);
	errno = EAGAIN;
	log_debug("x");
	assert_int_equal(errno, EAGAIN);
	text = capture_end(&cap);
	assert_contains(text, "error: open: ");
	assert_contains(text, strerror(ENOENT));
	free(text);

	/* stderr on a pipe's read end: the write fails with EBADF. */
	assert_int_equal(pipe(pipefd), 0);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(pipefd[0], 2), 2);
	errno = ERANGE;
	log_error("lost");
	assert_int_equal(errno, ERANGE);
	errno = 0;
	log_info("lost");
	assert_int_equal(errno, 0);
	/* A line below the level changes nothing either. */
	log_init(LOG_LEVEL_ERROR, 0);
	errno = EINTR;
	log_debug("dropped");
	assert_int_equal(errno, EINTR);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(pipefd[0]);
	close(pipefd[1]);
}

#define LOG_THREADS 4
#define LOG_LINE_LEN 600

/* Write long lines with a thread's own letter. */
static void *log_thread(void *arg)
{
	char line[LOG_LINE_LEN + 1];
	int lines = (int)test_scale(300, 3, 10);

	memset(line, 'a' + (int)(intptr_t)arg, LOG_LINE_LEN);
	line[LOG_LINE_LEN] = '\0';
	for (int i = 0; i < lines; i++)
		log_info("%s", line);
	return NULL;
}

/* Lines written at once by several threads never interleave. */
static void test_log_no_interleaving(void **state)
{
	pthread_t t[LOG_THREADS];
	struct capture cap;
	char *text, *p;
	int count = 0, lines = (int)test_scale(300, 3, 10);

	(void)state;
	log_init(LOG_LEVEL_INFO, 1);
	capture_start(&cap);
	/* O_APPEND: concurrent writes land whole, one after another. */
	assert_true(fcntl(2, F_SETFL, O_APPEND) == 0);
	for (intptr_t i = 0; i < LOG_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, log_thread,
						(void *)i), 0);
	for (int i = 0; i < LOG_THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	text = capture_end(&cap);
	for (p = text; *p != '\0'; count++) {
		char *nl = strchr(p, '\n'), *msg = strstr(p, "info: ");
		char letter;

		assert_non_null(nl);
		assert_true(msg != NULL && msg < nl);
		msg += 6;
		letter = *msg;
		assert_true(letter >= 'a' && letter < 'a' + LOG_THREADS);
		assert_int_equal(nl - msg, LOG_LINE_LEN);
		for (char *q = msg; q < nl; q++)
			if (*q != letter)
				fail_msg("line %d mixes '%c' and '%c'", count,
					 letter, *q);
		p = nl + 1;
	}
	assert_int_equal(count, LOG_THREADS * lines);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist_parse_ok),
		cmocka_unit_test(test_cpulist_parse_bad),
		cmocka_unit_test(test_cpulist_format),
		cmocka_unit_test(test_cpulist_round_trip),
		cmocka_unit_test(test_cpulist_allowed),
		cmocka_unit_test_setup(test_conf_defaults, clean_env),
		cmocka_unit_test_setup(test_conf_default_file, clean_env),
		cmocka_unit_test_setup(test_conf_options, clean_env),
		cmocka_unit_test_setup(test_conf_offset, clean_env),
		cmocka_unit_test_setup(test_conf_handover, clean_env),
		cmocka_unit_test_setup(test_conf_share, clean_env),
		cmocka_unit_test_setup(test_conf_confine, clean_env),
		cmocka_unit_test_setup(test_conf_deadline_gone, clean_env),
		cmocka_unit_test_setup(test_conf_bad_numbers, clean_env),
		cmocka_unit_test_setup(test_conf_bad_values, clean_env),
		cmocka_unit_test_setup(test_conf_paths, clean_env),
		cmocka_unit_test_setup(test_conf_bad_command_lines, clean_env),
		cmocka_unit_test_setup(test_conf_help, clean_env),
		cmocka_unit_test_setup(test_conf_file, clean_env),
		cmocka_unit_test_setup(test_conf_file_errors, clean_env),
		cmocka_unit_test_setup(test_conf_precedence, clean_env),
		cmocka_unit_test_setup(test_conf_missing_file, clean_env),
		cmocka_unit_test_setup_teardown(test_conf_environment,
						clean_env, clean_env),
		cmocka_unit_test_setup(test_conf_reentrant, clean_env),
		cmocka_unit_test_teardown(test_log_parse_level, clean_env),
		cmocka_unit_test_teardown(test_log_levels, clean_env),
		cmocka_unit_test_teardown(test_log_timestamps, clean_env),
		cmocka_unit_test_teardown(test_log_long_line, clean_env),
		cmocka_unit_test_teardown(test_log_errno, clean_env),
		cmocka_unit_test_teardown(test_log_no_interleaving, clean_env),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
