/*
 * test_program.c - what a program is linked with (cli/program.c), against
 * programs of the build and programs this test builds with cc:
 *  - the search as execvp: PATH, a name with a '/', a file that is not
 *    executable (EACCES), a missing one (ENOENT), PATH unset;
 *  - build/jobs/fib: libasteal linked in statically (asteal_start), also
 *    when stripped (its ASTEAL_PROFILE string); build/bench/omp_fib (or
 *    omp_phases in a sanitizer build): libgomp.so.1, the layer can
 *    replace it, and the versions of libgomp it needs; /bin/true:
 *    neither; the layer itself: its identity and the versions it
 *    defines, as the system's libgomp's; an OpenACC program needs
 *    OACC_2.0;
 *  - scripts: #! with and without a space, env, an empty #!; not ELF;
 *  - garbage: random bytes, an empty file, a folder, every truncation of
 *    a real program's first 8 KiB and near its end, and 300 copies with
 *    bytes changed in its headers and dynamic section: never a crash, a
 *    truncated header is PROGRAM_OTHER;
 *  - the closure: libgomp reached only through a library of the test's
 *    (found by DT_RUNPATH with $ORIGIN, or by LD_LIBRARY_PATH, or not at
 *    all), pinned by a DT_RPATH to a copy of libgomp but not by a
 *    DT_RUNPATH, two libraries that need each other, and a program
 *    needing 600 libraries (the closure stops at PROGRAM_MAX_OBJECTS);
 *    ImageMagick's convert (libgomp through libMagickCore) where it is
 *    installed;
 *  - LLVM's libomp (clang -fopenmp=libomp) and OpenMP linked in
 *    statically (gcc -fopenmp -static, and stripped), where the tools
 *    and libraries to build them are installed (skipped otherwise).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
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

#include "program.h"
#include "testutil.h"

/* The temporary folder of this run, and the build folder under test. */
static char tmpdir[1024];
static const char *build = "build";

/* A path in the temporary folder (a static buffer per call site's use). */
static const char *tmp_path(char *buf, size_t len, const char *name)
{
	assert_true((size_t)snprintf(buf, len, "%s/%s", tmpdir, name) < len);
	return buf;
}

/* Run a shell command made from fmt: its exit status (0: success). */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_true(r > 0 && (size_t)r < sizeof(cmd));
	r = system(cmd);
	return r == -1 || !WIFEXITED(r) ? -1 : WEXITSTATUS(r);
}

/* Write len bytes of data to path, mode mode. */
static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_true(write(fd, data, len) == (ssize_t)len);
	assert_int_equal(close(fd), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* Write the string text to path, mode mode. */
static void write_text(const char *path, const char *text, mode_t mode)
{
	write_file(path, text, strlen(text), mode);
}

/* Read the whole file at path (at most max bytes) into a new buffer. */
static unsigned char *read_file(const char *path, size_t max, size_t *len)
{
	unsigned char *buf = malloc(max);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_non_null(buf);
	assert_true(fd >= 0);
	*len = 0;
	while ((n = read(fd, buf + *len, max - *len)) > 0)
		*len += (size_t)n;
	close(fd);
	return buf;
}

/* A program of the build, or skip the test when it is not built. */
static const char *built(char *buf, size_t len, const char *name)
{
	assert_true((size_t)snprintf(buf, len, "%s/%s", build, name) < len);
	if (access(buf, X_OK) != 0) {
		print_message("skip: %s is not built\n", buf);
		return NULL;
	}
	return buf;
}

/* Inspect name, which must succeed. */
static void inspect(const char *name, struct program *p)
{
	if (program_inspect(name, p) != 0)
		fail_msg("program_inspect(%s): %s", name, p->why);
}

/* Whether cc can build with these extra flags (a probe program). */
static int cc_can(const char *cc, const char *flags)
{
	char src[PATH_MAX], out[PATH_MAX];

	tmp_path(src, sizeof(src), "probe.c");
	tmp_path(out, sizeof(out), "probe");
	write_text(src, "int main(void) { return 0; }\n", 0644);
	return sh("%s %s -o '%s' '%s' >/dev/null 2>&1", cc, flags, out, src) == 0;
}

/* The C source of a small OpenMP program. */
static const char omp_src[] =
	"#include <omp.h>\n#include <stdio.h>\n"
	"int main(void) { int n = 0;\n"
	"#pragma omp parallel reduction(+:n)\n n++;\n"
	"printf(\"%d %d\\n\", n, omp_get_max_threads()); return 0; }\n";

/* execvp's search: PATH, slashes, permissions. */
static void test_find(void **state)
{
	char path[PATH_MAX], dir[1536], f[PATH_MAX], *old = NULL;
	const char *env = getenv("PATH");

	(void)state;
	if (env != NULL)
		old = strdup(env);
	assert_int_equal(program_find("true", path, sizeof(path)), 0);
	assert_string_equal(strrchr(path, '/'), "/true");
	assert_int_equal(access(path, X_OK), 0);
	/* a name with a '/' is taken as it is */
	assert_int_equal(program_find("./no/such", path, sizeof(path)), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(program_find("/bin/sh", path, sizeof(path)), 0);
	assert_string_equal(path, "/bin/sh");
	assert_int_equal(program_find("", path, sizeof(path)), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(program_find("true", path, 4), -1);
	/* a folder of PATH with the name, not executable, then one with it */
	tmp_path(dir, sizeof(dir), "find");
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(f, sizeof(f), "%s/prog", dir);
	write_text(f, "#!/bin/sh\n", 0644);
	assert_int_equal(setenv("PATH", dir, 1), 0);
	assert_int_equal(program_find("prog", path, sizeof(path)), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(program_find("absent", path, sizeof(path)), -1);
	assert_int_equal(errno, ENOENT);
	snprintf(path, sizeof(path), "%s:/bin:/usr/bin", dir);
	assert_int_equal(setenv("PATH", path, 1), 0);
	assert_int_equal(program_find("true", path, sizeof(path)), 0);
	assert_int_equal(chmod(f, 0755), 0);
	assert_int_equal(program_find("prog", path, sizeof(path)), 0);
	assert_string_equal(path, f);
	/* PATH unset: /bin:/usr/bin, as execvp */
	assert_int_equal(unsetenv("PATH"), 0);
	assert_int_equal(program_find("sh", path, sizeof(path)), 0);
	assert_true(strcmp(path, "/bin/sh") == 0 || strcmp(path, "/usr/bin/sh") == 0);
	if (old != NULL) {
		setenv("PATH", old, 1);
		free(old);
	}
}

/* build/jobs/fib: libasteal linked in statically, stripped or not. */
static void test_libasteal(void **state)
{
	char buf[PATH_MAX], s[PATH_MAX];
	const char *fib = built(buf, sizeof(buf), "jobs/fib");
	struct program p;

	(void)state;
	if (fib == NULL)
		skip();
	inspect(fib, &p);
	assert_int_equal(p.kind, PROGRAM_ELF);
	assert_true(p.links & PROGRAM_ASTEAL);
	assert_false(p.links & (PROGRAM_GOMP | PROGRAM_GOMP_STATIC | PROGRAM_LIBOMP));
	assert_true(p.nobjects >= 2);           /* it and libc at least */
	if (sh("command -v strip >/dev/null") != 0)
		return;
	tmp_path(s, sizeof(s), "fib-stripped");
	assert_int_equal(sh("strip -o '%s' '%s'", s, fib), 0);
	inspect(s, &p);
	assert_int_equal(p.kind, PROGRAM_ELF);
	assert_true(p.links & PROGRAM_ASTEAL);
}

/* An OpenMP program of the build: libgomp.so.1 in its DT_NEEDED. */
static void test_libgomp(void **state)
{
	char buf[PATH_MAX];
	const char *omp = built(buf, sizeof(buf), "bench/omp_fib");
	struct program p;

	(void)state;
	if (omp == NULL)
		omp = built(buf, sizeof(buf), "bench/omp_phases");
	if (omp == NULL)
		skip();
	inspect(omp, &p);
	assert_int_equal(p.kind, PROGRAM_ELF);
	assert_int_equal(p.links, PROGRAM_GOMP);
	assert_string_equal(p.via, "");         /* the program's own need */
	assert_false(p.is_static);
	/* the versions of libgomp it asks for: gcc's OpenMP entry points */
	assert_non_null(strstr(p.gomp_versions, "GOMP_"));
	assert_null(strstr(p.gomp_versions, "GLIBC"));
}

/* The versions a libgomp defines, and an OpenACC program's needs. */
static void test_versions(void **state)
{
	char have[4096], path[PATH_MAX], src[PATH_MAX], out[PATH_MAX];
	const char *layer = built(path, sizeof(path), "lib/asteal/libgomp.so.1");
	struct program p;

	(void)state;
	assert_int_equal(sh("cp \"$(cc -print-file-name=libgomp.so.1)\" '%s'",
	                    tmp_path(out, sizeof(out), "sysgomp.so")), 0);
	assert_int_equal(program_versions(out, have, sizeof(have)), 0);
	assert_non_null(strstr(have, "GOMP_4.0"));
	assert_non_null(strstr(have, "OMP_1.0"));
	assert_null(strstr(have, "libgomp.so.1"));      /* its own name is not a version */
	assert_int_equal(program_versions("/etc/passwd", have, sizeof(have)), -1);
	assert_string_equal(have, "");
	if (layer != NULL) {
		assert_int_equal(program_versions(layer, have, sizeof(have)), 0);
		assert_non_null(strstr(have, "GOMP_1.0"));
	}
	/* a list too long for the buffer keeps whole names */
	assert_int_equal(program_versions(out, have, 12), 0);
	assert_true(strlen(have) < 12);
	if (!cc_can("cc", "-fopenacc")) {
		print_message("skip: cc -fopenacc cannot build here\n");
		return;
	}
	tmp_path(src, sizeof(src), "acc.c");
	write_text(src, "int main(void) { int a[8];\n#pragma acc parallel loop\n"
	           "for (int i = 0; i < 8; i++) a[i] = i;\nreturn a[7] != 7; }\n", 0644);
	tmp_path(out, sizeof(out), "acc");
	assert_int_equal(sh("cc -fopenacc -o '%s' '%s'", out, src), 0);
	inspect(out, &p);
	assert_int_equal(p.links, PROGRAM_GOMP);
	assert_non_null(strstr(p.gomp_versions, "OACC_2.0"));
}

/* /bin/true: neither; and the identity of an ELF file. */
static void test_neither(void **state)
{
	struct program p;
	char buf[PATH_MAX];
	int cls, machine;
	const char *layer;

	(void)state;
	inspect("/bin/true", &p);
	assert_int_equal(p.kind, PROGRAM_ELF);
	assert_int_equal(p.links, 0);
	assert_true(p.nobjects >= 2);
	assert_false(p.truncated);
	assert_int_equal(p.elf_class, sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32);
	assert_int_equal(program_elf_id("/bin/true", &cls, &machine), 0);
	assert_int_equal(cls, p.elf_class);
	assert_int_equal(machine, p.machine);
	assert_int_equal(program_elf_id("/etc/passwd", &cls, &machine), -1);
	assert_int_equal(errno, ENOEXEC);
	layer = built(buf, sizeof(buf), "lib/asteal/libgomp.so.1");
	if (layer != NULL) {
		assert_int_equal(program_elf_id(layer, &cls, &machine), 0);
		assert_int_equal(cls, p.elf_class);
		assert_int_equal(machine, p.machine);
	}
}

/* Scripts are scripts, whatever their #! line; text is not a program. */
static void test_script(void **state)
{
	static const struct { const char *text, *interp; } cases[] = {
		{ "#!/bin/sh\necho hi\n", "/bin/sh" },
		{ "#! /usr/bin/env python3\nprint(1)\n", "/usr/bin/env" },
		{ "#!\t/bin/bash -e\n", "/bin/bash" },
		{ "#!", "" },
		{ "#!\n", "" },
	};
	char path[PATH_MAX];
	struct program p;

	(void)state;
	tmp_path(path, sizeof(path), "script");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_text(path, cases[i].text, 0755);
		inspect(path, &p);
		assert_int_equal(p.kind, PROGRAM_SCRIPT);
		assert_string_equal(p.interp, cases[i].interp);
		assert_int_equal(p.links, 0);
	}
	write_text(path, "echo no line\n", 0755);
	inspect(path, &p);
	assert_int_equal(p.kind, PROGRAM_OTHER);
	assert_string_equal(p.why, "not an ELF file");
}

/* Garbage, empty files, folders, truncations, damaged headers: never a
 * crash; a header cut short is not a program. */
static void test_garbage(void **state)
{
	char path[PATH_MAX], buf[PATH_MAX];
	const char *src = built(buf, sizeof(buf), "jobs/fib");
	unsigned char *img, junk[4096];
	struct program p;
	size_t len, cut;
	unsigned seed = 12345;

	(void)state;
	tmp_path(path, sizeof(path), "junk");
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)rand_r(&seed);
	write_file(path, junk, sizeof(junk), 0755);
	inspect(path, &p);
	assert_int_equal(p.kind, PROGRAM_OTHER);
	write_text(path, "", 0755);
	inspect(path, &p);
	assert_int_equal(p.kind, PROGRAM_OTHER);
	/* ELF magic and nothing else, then a wrong class and byte order */
	write_text(path, "\177ELF", 0755);
	inspect(path, &p);
	assert_int_equal(p.kind, PROGRAM_OTHER);
	memcpy(junk, "\177ELF\003\001\001", 7);
	write_file(path, junk, sizeof(junk), 0755);
	inspect(path, &p);
	assert_int_equal(p.kind, PROGRAM_OTHER);
	memcpy(junk, "\177ELF\002\002\001", 7);
	write_file(path, junk, sizeof(junk), 0755);
	inspect(path, &p);
	assert_int_equal(p.kind, PROGRAM_OTHER);
	assert_string_equal(p.why, "an ELF file of the other byte order");
	inspect(tmpdir, &p);
	assert_int_equal(p.kind, PROGRAM_OTHER);

	if (src == NULL)
		src = "/bin/true";
	img = read_file(src, 64u << 20, &len);
	assert_true(len > 8192);
	/* every cut of the first 8 KiB, then cuts near the end */
	for (cut = 0; cut <= 8192; cut += cut < 128 ? 1 : 61) {
		write_file(path, img, cut, 0755);
		inspect(path, &p);
		if (cut < sizeof(Elf64_Ehdr))
			assert_int_equal(p.kind, PROGRAM_OTHER);
	}
	for (cut = len - 4096; cut < len; cut += 97) {
		write_file(path, img, cut, 0755);
		inspect(path, &p);
	}
	/* 300 copies with 1 to 8 bytes set to random values, in the header,
	 * the program headers, anywhere in the first 16 KiB (the dynamic
	 * section's neighbourhood in a small program), or anywhere */
	for (int k = 0; k < 300; k++) {
		unsigned char *copy = malloc(len);
		size_t span = k % 4 == 0 ? 64 : k % 4 == 1 ? 1024 : k % 4 == 2 ? 16384 : len;
		int changes = 1 + (int)(rand_r(&seed) % 8);

		assert_non_null(copy);
		memcpy(copy, img, len);
		for (int c = 0; c < changes; c++) {
			size_t at = (size_t)rand_r(&seed) % (span < len ? span : len);
			copy[at] = (unsigned char)rand_r(&seed);
		}
		write_file(path, copy, len, 0755);
		free(copy);
		assert_int_equal(program_inspect(path, &p), 0);
		assert_true(p.kind == PROGRAM_ELF || p.kind == PROGRAM_OTHER);
		assert_true(p.nobjects <= PROGRAM_MAX_OBJECTS);
	}
	free(img);
}

/* libgomp through a library: found by RUNPATH with $ORIGIN, through
 * LD_LIBRARY_PATH, not at all; pinned by DT_RPATH only; a cycle. */
static void test_closure(void **state)
{
	char d[1536], src[PATH_MAX], gomp[PATH_MAX], p1[PATH_MAX];
	char *old = NULL;
	const char *env = getenv("LD_LIBRARY_PATH");
	struct program p;

	(void)state;
	if (!cc_can("cc", "-fopenmp"))
		skip();
	if (env != NULL)
		old = strdup(env);
	tmp_path(d, sizeof(d), "clo");
	assert_int_equal(sh("mkdir -p '%s/lib' '%s/pin' '%s/other'", d, d, d), 0);
	snprintf(src, sizeof(src), "%s/mid.c", d);
	write_text(src, "#include <omp.h>\nint mid(void) { return omp_get_max_threads(); }\n",
	           0644);
	assert_int_equal(sh("cc -fopenmp -shared -fPIC -o '%s/lib/libmid.so' '%s'", d, src), 0);
	snprintf(src, sizeof(src), "%s/main.c", d);
	write_text(src, "int mid(void);\nint main(void) { return mid() < 1; }\n", 0644);
	/* RUNPATH $ORIGIN/lib: libgomp through libmid.so */
	assert_int_equal(sh("cc -o '%s/prog' '%s' -L'%s/lib' -lmid -Wl,--enable-new-dtags "
	                    "-Wl,-rpath,'$ORIGIN/lib'", d, src, d), 0);
	snprintf(p1, sizeof(p1), "%s/prog", d);
	assert_int_equal(sh("'%s'", p1), 0);    /* it runs: what the linker does */
	assert_int_equal(unsetenv("LD_LIBRARY_PATH"), 0);
	inspect(p1, &p);
	assert_int_equal(p.links, PROGRAM_GOMP);
	assert_string_equal(p.via, "libmid.so");
	assert_non_null(strstr(p.gomp_versions, "OMP_1.0"));   /* libmid's need */
	/* no search path: libmid.so is not found, so neither is libgomp,
	 * until LD_LIBRARY_PATH names its folder */
	assert_int_equal(sh("cc -o '%s/bare' '%s' -L'%s/lib' -lmid", d, src, d), 0);
	snprintf(p1, sizeof(p1), "%s/bare", d);
	inspect(p1, &p);
	assert_int_equal(p.links, 0);
	snprintf(gomp, sizeof(gomp), "%s/other:%s/lib", d, d);
	assert_int_equal(setenv("LD_LIBRARY_PATH", gomp, 1), 0);
	inspect(p1, &p);
	assert_int_equal(p.links, PROGRAM_GOMP);
	assert_string_equal(p.via, "libmid.so");
	assert_int_equal(unsetenv("LD_LIBRARY_PATH"), 0);
	/* a copy of libgomp in pin/: DT_RPATH pins it, DT_RUNPATH does not */
	assert_int_equal(sh("cp \"$(cc -print-file-name=libgomp.so.1)\" '%s/pin/libgomp.so.1'", d), 0);
	snprintf(src, sizeof(src), "%s/omp.c", d);
	write_text(src, omp_src, 0644);
	assert_int_equal(sh("cc -fopenmp -o '%s/rpath' '%s' -Wl,--disable-new-dtags "
	                    "-Wl,-rpath,'%s/pin'", d, src, d), 0);
	snprintf(p1, sizeof(p1), "%s/rpath", d);
	inspect(p1, &p);
	assert_int_equal(p.links, PROGRAM_GOMP | PROGRAM_GOMP_PINNED);
	assert_int_equal(sh("cc -fopenmp -o '%s/runpath' '%s' -Wl,--enable-new-dtags "
	                    "-Wl,-rpath,'%s/pin'", d, src, d), 0);
	snprintf(p1, sizeof(p1), "%s/runpath", d);
	inspect(p1, &p);
	assert_int_equal(p.links, PROGRAM_GOMP);
	/* liba needs libb, which needs liba: followed once each */
	snprintf(src, sizeof(src), "%s/ab.c", d);
	write_text(src, "int f(void) { return 1; }\n", 0644);
	assert_int_equal(sh("cd '%s/lib' && cc -shared -fPIC -o libb.so '%s' && "
	                    "cc -shared -fPIC -o liba.so '%s' -L. -lb -Wl,-rpath,'$ORIGIN' && "
	                    "cc -shared -fPIC -o libb.so '%s' -L. -la -Wl,-rpath,'$ORIGIN'",
	                    d, src, src, src), 0);
	snprintf(src, sizeof(src), "%s/main2.c", d);
	write_text(src, "int f(void);\nint main(void) { return f() != 1; }\n", 0644);
	assert_int_equal(sh("cc -o '%s/cycle' '%s' -L'%s/lib' -la -Wl,-rpath,'%s/lib'",
	                    d, src, d, d), 0);
	snprintf(p1, sizeof(p1), "%s/cycle", d);
	inspect(p1, &p);
	assert_int_equal(p.links, 0);
	assert_false(p.truncated);
	assert_true(p.nobjects >= 4 && p.nobjects < 10);   /* it, liba, libb, libc... */
	if (old != NULL) {
		setenv("LD_LIBRARY_PATH", old, 1);
		free(old);
	}
}

/* A program needing 600 libraries: the closure stops at the bound, in
 * bounded time. */
static void test_bound(void **state)
{
	char d[1536], src[PATH_MAX], p1[PATH_MAX];
	struct program p;
	double t0;

	(void)state;
	tmp_path(d, sizeof(d), "many");
	assert_int_equal(sh("mkdir -p '%s'", d), 0);
	snprintf(src, sizeof(src), "%s/x.c", d);
	write_text(src, "int x(void) { return 0; }\n", 0644);
	/* one library without a soname, under 600 names: each -lxN is a
	 * DT_NEEDED of its own; libgomp the last, still seen */
	assert_int_equal(sh("cd '%s' && cc -shared -fPIC -o libx.so x.c && i=0 && "
	                    "while [ $i -lt 600 ]; do ln -s libx.so libx$i.so; i=$((i + 1)); done && "
	                    "echo 'int main(void) { return 0; }' >m.c && "
	                    "cc -o prog m.c -L. -Wl,--no-as-needed $(i=0; while [ $i -lt 600 ]; do "
	                    "printf ' -lx%%d' $i; i=$((i + 1)); done) -lgomp -Wl,-rpath,'%s'", d, d), 0);
	snprintf(p1, sizeof(p1), "%s/prog", d);
	t0 = test_now();
	inspect(p1, &p);
	assert_true(p.truncated);
	assert_true(p.nobjects <= PROGRAM_MAX_OBJECTS);
	assert_true(p.nobjects >= PROGRAM_MAX_OBJECTS / 2);
	assert_true(p.links & PROGRAM_GOMP);
	assert_true(test_now() - t0 < 10.0);
}

/* LLVM's libomp, where clang and libomp are installed. */
static void test_libomp(void **state)
{
	char src[PATH_MAX], out[PATH_MAX];
	struct program p;

	(void)state;
	if (sh("command -v clang >/dev/null") != 0 || !cc_can("clang", "-fopenmp=libomp")) {
		print_message("skip: clang -fopenmp=libomp cannot build here\n");
		skip();
	}
	tmp_path(src, sizeof(src), "llvm.c");
	tmp_path(out, sizeof(out), "llvm");
	write_text(src, omp_src, 0644);
	assert_int_equal(sh("clang -fopenmp=libomp -o '%s' '%s'", out, src), 0);
	inspect(out, &p);
	assert_int_equal(p.kind, PROGRAM_ELF);
	assert_true(p.links & PROGRAM_LIBOMP);
	assert_false(p.links & (PROGRAM_GOMP | PROGRAM_ASTEAL));
}

/* OpenMP linked in statically (libgomp.a), stripped too. */
static void test_static_omp(void **state)
{
	char src[PATH_MAX], out[PATH_MAX], s[PATH_MAX];
	struct program p;

	(void)state;
	if (!cc_can("cc", "-fopenmp -static")) {
		print_message("skip: cc -fopenmp -static cannot build here\n");
		skip();
	}
	tmp_path(src, sizeof(src), "static.c");
	tmp_path(out, sizeof(out), "static");
	write_text(src, omp_src, 0644);
	assert_int_equal(sh("cc -fopenmp -static -o '%s' '%s' 2>/dev/null", out, src), 0);
	inspect(out, &p);
	assert_int_equal(p.kind, PROGRAM_ELF);
	assert_true(p.is_static);
	assert_int_equal(p.links, PROGRAM_GOMP_STATIC);
	if (sh("command -v strip >/dev/null") != 0)
		return;
	tmp_path(s, sizeof(s), "static-stripped");
	assert_int_equal(sh("strip -o '%s' '%s'", s, out), 0);
	inspect(s, &p);
	assert_int_equal(p.links, PROGRAM_GOMP_STATIC);
}

/* ImageMagick's convert reaches libgomp through libMagickCore. */
static void test_convert(void **state)
{
	static const char *const names[] = {
		"/usr/bin/convert-im6.q16", "/usr/bin/convert-im6.q16hdri", "/usr/bin/magick",
	};
	struct program p;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (access(names[i], X_OK) != 0)
			continue;
		inspect(names[i], &p);
		assert_int_equal(p.kind, PROGRAM_ELF);
		assert_true(p.links & PROGRAM_GOMP);
		assert_true(strncmp(p.via, "libMagickCore", 13) == 0);
		return;
	}
	print_message("skip: ImageMagick is not installed\n");
	skip();
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

/* Make the temporary folder; take the build folder from run.sh. */
static int group_setup(void **state)
{
	const char *base = getenv("TMPDIR"), *b = getenv("ASTEAL_TEST_BUILD");

	(void)state;
	if (b != NULL && *b != '\0')
		build = b;
	snprintf(tmpdir, sizeof(tmpdir), "%s/asteal-program-XXXXXX",
	         base != NULL && *base != '\0' ? base : "/tmp");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

/* Remove the temporary folder. */
static int group_teardown(void **state)
{
	(void)state;
	nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_libasteal),
		cmocka_unit_test(test_libgomp),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_neither),
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_closure),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_libomp),
		cmocka_unit_test(test_static_omp),
		cmocka_unit_test(test_convert),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
