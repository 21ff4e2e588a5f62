/*
 * test_cliout.c - the command line's output modules, apart from any
 * daemon: cli/json.c's strings (valid UTF-8 whatever the bytes: U+FFFD
 * for each bad one, escapes for control characters) and members by type
 * (every *_ns a string with all 64 bits, fractions, instants, a job's
 * end, nested containers); cli/table.c's tables (aligned by display width
 * in a UTF-8 locale, '?' for what does not print, "-" for no value,
 * '|'-separated and CSV forms, no header on request, fixed widths cut
 * with '+'; 3,000 rows aligned as one table; on a pseudo-terminal
 * narrower than the table, a name cut, a column on the right left out
 * whole, a value wrapped) and CPU lists; and
 * cli/plot.c's choice of panels (the jobs allotted the most CPU time, not
 * the most rows), its legend (averages over time slices), the allotted
 * time each panel states, and colours that no two panels share.
 */
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <pty.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <cmocka.h>

#include "json.h"
#include "plot.h"
#include "table.h"

/* What json_string writes for s, as a string (free it). */
static char *capture_json(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	json_string(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Whether s is valid UTF-8 (by the standard's table of well-formed
 * sequences, written out independently of table.c). */
static int valid_utf8(const unsigned char *s)
{
	while (*s) {
		unsigned char c = s[0];
		int n = c < 0x80 ? 1 : (c >= 0xc2 && c <= 0xdf) ? 2
		      : (c >= 0xe0 && c <= 0xef) ? 3 : (c >= 0xf0 && c <= 0xf4) ? 4 : 0;
		unsigned lo = 0x80, hi = 0xbf;
		int i;

		if (n == 0)
			return 0;
		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
		for (i = 1; i < n; i++) {
			if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
				return 0;
		}
		s += n;
	}
	return 1;
}

/* JSON strings: valid text passes, bad bytes become \ufffd one each,
 * control characters are escaped, quotes and backslashes too. */
static void test_json_string(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "größe-日本", "\"größe-日本\"" },
		{ "a\xff" "b", "\"a\\ufffdb\"" },
		{ "\xc3", "\"\\ufffd\"" },                      /* cut short */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },            /* overlong '/' */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" }, /* a surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },  /* U+1F600 */
		{ "q\"b\\s\n\t\x1b\x7f", "\"q\\\"b\\\\s\\n\\t\\u001b\\u007f\"" },
	};
	unsigned char all[256];
	char *out;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		out = capture_json(cases[i].in);
		assert_string_equal(out, cases[i].out);
		free(out);
	}
	out = capture_json(NULL);
	assert_string_equal(out, "null");
	free(out);
	/* every byte value, every pair after a lead byte: valid UTF-8 out */
	for (i = 1; i < 256; i++)
		all[i - 1] = (unsigned char)i;
	all[255] = 0;
	out = capture_json((const char *)all);
	assert_true(valid_utf8((const unsigned char *)out));
	free(out);
	for (i = 0xc0; i < 0x100; i++) {
		for (unsigned k = 1; k < 0x100; k++) {
			char s[4] = { (char)i, (char)k, 'x', 0 };
			out = capture_json(s);
			assert_true(valid_utf8((const unsigned char *)out));
			free(out);
		}
	}
}

/* The encoder's members: *_ns are strings with all 64 bits, other
 * integers numbers, fractions four decimals at most, instants twice, a
 * job's end the same members whether it exited, was killed or is not
 * known; containers nest, a lines array an element a line. */
static void test_json_members(void **state)
{
	const uint32_t cpus[] = { 0, 3 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json w;

	(void)state;
	json_start(&w, f);
	json_object(&w, NULL);
	json_uint(&w, "end_ns", UINT64_MAX);
	json_uint(&w, "n", (1ull << 53) + 1);
	json_int(&w, "pid", -1);
	json_real(&w, "a", 2.0 / 3.0);
	json_real(&w, "b", 1.0);
	json_real(&w, "c", 0.00001);
	json_real(&w, "d", NAN);
	json_instant(&w, "start", 1500000000123456789ull);
	json_instant(&w, "end", 0);
	json_array(&w, "jobs", 1);
	json_object(&w, NULL);
	json_exit(&w, 1, 3 << 8, 0);    /* exit 3 */
	json_end(&w);
	json_object(&w, NULL);
	json_exit(&w, 1, 9, 1);         /* SIGKILL at its time limit */
	json_end(&w);
	json_object(&w, NULL);
	json_exit(&w, 0, 0, 0);
	json_end(&w);
	json_end(&w);
	json_array(&w, "none", 1);
	json_end(&w);
	json_u32s(&w, "cpus", cpus, 2);
	json_bool(&w, "t", 1);
	json_str(&w, "s", NULL);
	json_end(&w);
	fclose(f);
	assert_string_equal(buf,
		"{\"end_ns\":\"18446744073709551615\",\"n\":9007199254740993,"
		"\"pid\":-1,\"a\":0.6667,\"b\":1,\"c\":0,\"d\":null,"
		"\"start_ns\":\"1500000000123456789\",\"start\":\"2017-07-14T02:40:00.123Z\","
		"\"end_ns\":\"0\",\"end\":null,\"jobs\":[\n"
		"{\"status_known\":true,\"wait_status\":768,\"exit_code\":3,"
		"\"signal\":null,\"status\":\"exit 3\",\"timeout\":false},\n"
		"{\"status_known\":true,\"wait_status\":9,\"exit_code\":null,"
		"\"signal\":9,\"status\":\"killed by SIGKILL\",\"timeout\":true},\n"
		"{\"status_known\":false,\"wait_status\":null,\"exit_code\":null,"
		"\"signal\":null,\"status\":null,\"timeout\":false}\n],"
		"\"none\":[],\"cpus\":[0,3],\"t\":true,\"s\":null}\n");
	free(buf);
}

/* Print t in a style into a string (free it). */
static char *capture_table(const struct table *t, enum table_style style, int header)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	table_write(t, f, style, header);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* A table of names that are wide, narrow, broken and hostile. */
static struct table *sample_table(void)
{
	static const char *const hdr[] = { ">ID", "NAME", "USER" };
	static const char *const rows[][3] = {
		{ "1", "größe-日本", "alice" },
		{ "22", "plain", NULL },
		{ "333", "bad\xff|\x1b[31m", "bob" },
	};
	struct table *t = table_new(hdr, 3);
	size_t i;

	assert_non_null(t);
	for (i = 0; i < 3; i++)
		assert_int_equal(table_add(t, rows[i]), 0);
	assert_int_equal(table_rows(t), 3);
	return t;
}

/* Aligned by display width: in a UTF-8 locale "größe-日本" takes 11
 * columns (日 and 本 two each), so USER starts at the same column on
 * every line; a bad byte and ESC show as '?', a missing value as "-". */
static void test_table_aligned(void **state)
{
	struct table *t;
	char *out;

	(void)state;
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		skip();
	t = sample_table();
	out = capture_table(t, TABLE_ALIGNED, 1);
	assert_string_equal(out,
		" ID  NAME        USER\n"
		"  1  größe-日本  alice\n"
		" 22  plain       -\n"
		"333  bad?|?[31m  bob\n");
	free(out);
	out = capture_table(t, TABLE_ALIGNED, 0);
	assert_string_equal(out,
		"  1  größe-日本  alice\n"
		" 22  plain       -\n"
		"333  bad?|?[31m  bob\n");
	free(out);
	/* in the C locale every byte above 0x7f is '?': nothing unsafe */
	setlocale(LC_CTYPE, "C");
	out = capture_table(t, TABLE_ALIGNED, 1);
	assert_non_null(strstr(out, "  1  gr????e-??????  alice\n"));
	assert_null(strchr(out, '\x1b'));
	free(out);
	table_free(t);
}

/* Parsable: '|' between cells and none inside one; CSV: quoted where
 * needed, bytes as they are, empty for no value. */
static void test_table_parsable_csv(void **state)
{
	struct table *t;
	char *out;

	(void)state;
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		skip();
	t = sample_table();
	out = capture_table(t, TABLE_PARSABLE, 1);
	assert_string_equal(out,
		"ID|NAME|USER\n"
		"1|größe-日本|alice\n"
		"22|plain|-\n"
		"333|bad???[31m|bob\n");
	free(out);
	out = capture_table(t, TABLE_CSV, 0);
	assert_string_equal(out,
		"1,größe-日本,alice\r\n"
		"22,plain,\r\n"
		"333,bad\xff|\x1b[31m,bob\r\n");
	free(out);
	table_free(t);
	setlocale(LC_CTYPE, "C");
}

/* Fixed widths (-o NAME%N): a cell or header wider than its column is
 * cut to it with '+' last (a wide character that would cross the cut goes
 * whole, and the cell is padded), a narrower one padded, right-aligned
 * ones on the left, even when every cell and the header are narrower;
 * parsable and CSV keep every value whole. */
static void test_table_widths(void **state)
{
	static const char *const one[] = { ">N", "M" };
	static const char *const small[] = { "1", "2" };
	struct table *t;
	char *out;

	(void)state;
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		skip();
	t = sample_table();
	table_set_width(t, 0, 2);
	table_set_width(t, 1, 8);
	table_set_width(t, 2, 3);
	out = capture_table(t, TABLE_ALIGNED, 1);
	assert_string_equal(out,
		"ID  NAME      US+\n"
		" 1  größe-+   al+\n"
		"22  plain     -\n"
		"3+  bad?|?[+  bob\n");
	free(out);
	out = capture_table(t, TABLE_PARSABLE, 0);
	assert_string_equal(out,
		"1|größe-日本|alice\n"
		"22|plain|-\n"
		"333|bad???[31m|bob\n");
	free(out);
	table_free(t);
	/* wider than its header and its cells, with or without the header */
	t = table_new(one, 2);
	assert_non_null(t);
	assert_int_equal(table_add(t, small), 0);
	table_set_width(t, 0, 6);
	out = capture_table(t, TABLE_ALIGNED, 1);
	assert_string_equal(out, "     N  M\n     1  2\n");
	free(out);
	out = capture_table(t, TABLE_ALIGNED, 0);
	assert_string_equal(out, "     1  2\n");
	free(out);
	table_free(t);
	setlocale(LC_CTYPE, "C");
}

/* What t prints aligned (with its header) on a pseudo-terminal of cols
 * columns, as a string (free it): written by a child, read back to a
 * line written after it, with a deadline. */
static char *capture_terminal(const struct table *t, int cols)
{
	struct winsize ws = { .ws_row = 50, .ws_col = (unsigned short)cols };
	struct termios raw;
	char *buf = NULL, *end;
	size_t len = 0;
	int master, slave, status;
	pid_t pid;
	FILE *f;

	assert_int_equal(openpty(&master, &slave, NULL, NULL, &ws), 0);
	assert_int_equal(tcgetattr(slave, &raw), 0);
	cfmakeraw(&raw);                        /* "\n" as it is */
	assert_int_equal(tcsetattr(slave, TCSANOW, &raw), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		f = fdopen(slave, "w");
		_exit(f != NULL && table_write(t, f, TABLE_ALIGNED, 1) == 0 &&
		      fputs("END\n", f) >= 0 && fflush(f) == 0 ? 0 : 1);
	}
	while ((end = buf != NULL ? strstr(buf, "END\n") : NULL) == NULL) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		char chunk[4096];
		ssize_t n;

		assert_int_equal(poll(&p, 1, 10000), 1);
		n = read(master, chunk, sizeof(chunk));
		assert_true(n > 0);
		buf = realloc(buf, len + (size_t)n + 1);
		assert_non_null(buf);
		memcpy(buf + len, chunk, (size_t)n);
		len += (size_t)n;
		buf[len] = '\0';
	}
	*end = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	close(slave);
	close(master);
	return buf;
}

/* A table longer than libsmartcols is given at a time (1,024 lines)
 * aligns as one: its widest cells, on the last line only, set the widths
 * of the first lines too; on a terminal, those its NAME is cut to. */
static void test_table_pages(void **state)
{
	static const char *const hdr[] = { ">ID", "NAME", "USER" };
	struct table *t = table_new(hdr, 3);
	char id[16], *out, *line;
	int i, n = 0;

	(void)state;
	assert_non_null(t);
	for (i = 1; i <= 3000; i++) {
		const char *row[3] = { id, i < 3000 ? "x" : "the widest name", "u" };
		snprintf(id, sizeof(id), "%d", i == 3000 ? 123456 : i);
		assert_int_equal(table_add(t, row), 0);
	}
	out = capture_table(t, TABLE_ALIGNED, 1);
	assert_memory_equal(out, "    ID  NAME             USER\n"
	                         "     1  x                u\n", 57);
	for (line = out; *line != '\0'; line = strchr(line, '\n') + 1, n++)
		assert_int_equal(strchr(line, '\n') - line, n == 0 ? 29 : 26);
	assert_int_equal(n, 3001);
	assert_non_null(strstr(out, "\n  1025  x                u\n"));
	assert_non_null(strstr(out, "\n123456  the widest name  u\n"));
	free(out);
	/* on a terminal of 20 columns too, NAME cut to what is left */
	unsetenv("COLUMNS");
	table_set_shrink(t, 1, TABLE_SHRINK_CUT);
	out = capture_terminal(t, 20);
	assert_memory_equal(out, "    ID  NAME    USER\n"
	                         "     1  x       u\n", 38);
	for (line = out, n = 0; *line != '\0'; line = strchr(line, '\n') + 1, n++)
		assert_int_equal(strchr(line, '\n') - line, n == 0 ? 20 : 17);
	assert_int_equal(n, 3001);
	assert_non_null(strstr(out, "\n  1025  x       u\n"));
	assert_non_null(strstr(out, "\n123456  the wi  u\n"));
	free(out);
	table_free(t);
}

/* On a terminal narrower than the table, the table fits it (30 columns
 * here): NAME gives way (cut, the wide characters whole), the fixed
 * width of USER stays, and the column on the right that still does not
 * fit is left out, never a number cut; a column that wraps (asteal show's
 * values) goes on over more lines; the same table elsewhere is whole. */
static void test_table_terminal(void **state)
{
	static const char *const hdr[] = { ">ID", "NAME", "USER", ">COUNT" };
	static const char *const rows[][4] = {
		{ "1", "größe-日本 and a long name", "alice", "12345" },
		{ "22", "plain", NULL, "7" },
	};
	static const char *const kv_hdr[] = { "FIELD", "VALUE" };
	static const char *const kv[] = { "COMMAND", "sleep 600 --and many more words" };
	struct table *t = table_new(hdr, 4);
	char *out;

	(void)state;
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		skip();
	unsetenv("COLUMNS");
	assert_non_null(t);
	assert_int_equal(table_add(t, rows[0]), 0);
	assert_int_equal(table_add(t, rows[1]), 0);
	table_set_shrink(t, 1, TABLE_SHRINK_CUT);
	table_set_width(t, 2, 4);
	out = capture_terminal(t, 30);
	assert_string_equal(out,
		"ID  NAME           USER  COUNT\n"
		" 1  größe-日本 an  ali+  12345\n"
		"22  plain          -         7\n");
	free(out);
	/* 19 columns: COUNT left out, 本 not cut in two */
	out = capture_terminal(t, 19);
	assert_string_equal(out,
		"ID  NAME       USER\n"
		" 1  größe-日   ali+\n"
		"22  plain      -\n");
	free(out);
	out = capture_table(t, TABLE_ALIGNED, 1);
	assert_string_equal(out,
		"ID  NAME                        USER  COUNT\n"
		" 1  größe-日本 and a long name  ali+  12345\n"
		"22  plain                       -         7\n");
	free(out);
	table_free(t);
	/* a value wraps, and its table fits */
	t = table_new(kv_hdr, 2);
	assert_non_null(t);
	assert_int_equal(table_add(t, kv), 0);
	table_set_shrink(t, 1, TABLE_SHRINK_WRAP);
	out = capture_terminal(t, 24);
	assert_string_equal(out,
		"FIELD    VALUE\n"
		"COMMAND  sleep 600 --and\n"
		"          many more word\n"
		"         s\n");
	free(out);
	table_free(t);
	setlocale(LC_CTYPE, "C");
}

/* CPU lists by the daemon's formatter; ids no list can name are '?'. */
static void test_cpus(void **state)
{
	static const uint32_t a[] = { 0, 1, 2, 3, 6, 8, 9 };
	static const uint32_t bad[] = { 1, 5000 };
	char buf[64];

	(void)state;
	assert_string_equal(fmt_cpus(buf, sizeof(buf), a, 7), "0-3,6,8-9");
	assert_string_equal(fmt_cpus(buf, sizeof(buf), a, 0), "-");
	assert_string_equal(fmt_cpus(buf, sizeof(buf), bad, 2), "?");
}

/* The chart of 13 jobs shows 12: job 1 has a thousand short rows but
 * little CPU time, each of the others one long row; job 1 is left out.
 * The legend says the area is averaged over slices of the span / 436;
 * each panel says the CPU time it was allotted; the 12 colours differ. */
static void test_plot_choice(void **state)
{
	enum { NJOBS = 13, NREC = 1000 + NJOBS - 1 };
	Asteal__JobRecord jobs[NJOBS], *jp[NJOBS];
	Asteal__AllotmentRecord *recs = calloc(NREC, sizeof(*recs));
	Asteal__Usage *uses = calloc(NREC, sizeof(*uses));
	const Asteal__AllotmentRecord **rp = calloc(NREC, sizeof(*rp));
	const uint64_t t0 = 1700000000ull * 1000000000ull, L = 10000000;
	struct plot_input in;
	char *buf = NULL, name[NJOBS][16];
	size_t len = 0, i;
	FILE *f;

	(void)state;
	assert_non_null(recs);
	assert_non_null(uses);
	assert_non_null(rp);
	for (i = 0; i < NJOBS; i++) {
		asteal__job_record__init(&jobs[i]);
		jobs[i].id = i + 1;
		snprintf(name[i], sizeof(name[i]), "job-n%zu", i + 1);
		jobs[i].name = name[i];
		jp[i] = &jobs[i];
	}
	for (i = 0; i < NREC; i++) {
		Asteal__AllotmentRecord *r = &recs[i];
		asteal__allotment_record__init(r);
		asteal__usage__init(&uses[i]);
		r->usage = &uses[i];
		if (i < 1000) {         /* job 1: 1000 quanta of 1 CPU */
			r->job_id = 1;
			r->first_quantum = r->last_quantum = i;
			r->start_ns = t0 + i * L;
			r->end_ns = r->start_ns + L;
			r->usage->allotted_ns = L;
		} else {                /* jobs 2..13: 2 CPUs the whole time */
			r->job_id = i - 1000 + 2;
			r->first_quantum = 0;
			r->last_quantum = 999;
			r->start_ns = t0;
			r->end_ns = t0 + 1000 * L;
			r->usage->allotted_ns = 2000 * L;
		}
		r->desire = r->allotment = r->job_id == 1 ? 1 : 2;
		rp[i] = r;
	}
	in.jobs = (const Asteal__JobRecord *const *)jp;
	in.njobs = NJOBS;
	in.recs = rp;
	in.nrecs = NREC;
	in.ncpus = 2;
	f = open_memstream(&buf, &len);
	assert_int_equal(plot_write(f, &in), 0);
	fclose(f);
	assert_null(strstr(buf, "job-n1<"));
	for (i = 2; i <= NJOBS; i++) {
		char want[32];
		snprintf(want, sizeof(want), "job-n%zu<", i);
		assert_non_null(strstr(buf, want));
	}
	assert_non_null(strstr(buf, "(1 more job not shown)"));
	/* the whole machine's view counts it among the others */
	assert_non_null(strstr(buf, "data-job=\"others\""));
	/* 10 s over 436 slices: 22.9 ms each */
	assert_non_null(strstr(buf, "CPUs held, averaged over 22.9ms"));
	/* what ranks them is allotted time, and the panels say so: 2 CPUs
	 * for 10 s */
	assert_non_null(strstr(buf, "20.0s of CPU allotted"));
	assert_null(strstr(buf, "CPU time"));
	/* twelve panels, twelve colours (ids 2 and 12 fall on one by id) */
	{
		const char *at = buf, *key = "width=\"11\" height=\"11\" fill=\"";
		char seen[NJOBS][8];
		size_t n = 0, k;

		while ((at = strstr(at, key)) != NULL) {
			at += strlen(key);
			assert_true(n < NJOBS);
			snprintf(seen[n], sizeof(seen[n]), "%.7s", at);
			for (k = 0; k < n; k++)
				assert_string_not_equal(seen[k], seen[n]);
			n++;
		}
		assert_int_equal(n, NJOBS - 1);
	}
	free(buf);
	free(rp);
	free(uses);
	free(recs);
}

/* The whole machine's panel: job 1 holds both CPUs for 5 s, then jobs 2
 * and 3 one each for 5 s; stacked, they fill P all along: the mean is P,
 * 100%, job 3's band (on top) reaches the line at P, and there is no band
 * of others. */
static void test_plot_machine(void **state)
{
	Asteal__JobRecord jobs[3];
	const Asteal__JobRecord *jp[3];
	Asteal__AllotmentRecord recs[3];
	Asteal__Usage uses[3];
	const Asteal__AllotmentRecord *rp[3];
	const uint64_t t0 = 1700000000ull * 1000000000ull, S = 1000000000ull;
	struct plot_input in;
	char *buf = NULL, *m, *band, *p, y[32];
	size_t len = 0;
	FILE *f;

	(void)state;
	for (int i = 0; i < 3; i++) {
		asteal__job_record__init(&jobs[i]);
		jobs[i].id = (uint64_t)i + 1;
		jobs[i].name = "j";
		jp[i] = &jobs[i];
		asteal__allotment_record__init(&recs[i]);
		asteal__usage__init(&uses[i]);
		recs[i].usage = &uses[i];
		recs[i].job_id = (uint64_t)i + 1;
		recs[i].start_ns = i == 0 ? t0 : t0 + 5 * S;
		recs[i].end_ns = i == 0 ? t0 + 5 * S : t0 + 10 * S;
		recs[i].desire = recs[i].allotment = i == 0 ? 2 : 1;
		uses[i].allotted_ns = 5 * S * recs[i].allotment;
		rp[i] = &recs[i];
	}
	in.jobs = jp;
	in.njobs = 3;
	in.recs = rp;
	in.nrecs = 3;
	in.ncpus = 2;
	f = open_memstream(&buf, &len);
	assert_int_equal(plot_write(f, &in), 0);
	fclose(f);
	m = strstr(buf, "<g id=\"machine\">");
	assert_non_null(m);
	assert_non_null(strstr(m, "mean 2.00 CPUs allotted, 100% of P"));
	assert_null(strstr(buf, "data-job=\"others\""));
	assert_non_null(strstr(m, "data-job=\"1\""));
	assert_non_null(strstr(m, "data-job=\"2\""));
	band = strstr(m, "data-job=\"3\"");
	assert_non_null(band);
	/* the line at P, after the bands: its height is in job 3's path */
	p = strstr(band, "stroke-dasharray=\"2 3\"");
	assert_non_null(p);
	p = strstr(m, "<line x1=");
	assert_non_null(p);
	p = strstr(p, "y1=\"");
	assert_non_null(p);
	snprintf(y, sizeof(y), " %.*s", (int)strcspn(p + 4, "\""), p + 4);
	*strstr(band, "/>") = '\0';
	assert_non_null(strstr(band, y));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_json_members),
		cmocka_unit_test(test_table_aligned),
		cmocka_unit_test(test_table_parsable_csv),
		cmocka_unit_test(test_table_widths),
		cmocka_unit_test(test_table_pages),
		cmocka_unit_test(test_table_terminal),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_plot_choice),
		cmocka_unit_test(test_plot_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
