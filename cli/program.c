/*
 * program.c - what a program is linked with (see program.h): the program
 * found as execvp finds it, told a script or an ELF file, and that file
 * read with elffile.c, nothing run (no ldd); the libraries it loads are
 * followed by closure.c.
 *
 * The program's own symbols (.symtab, else .dynsym) tell what is linked
 * in statically: asteal_start (libasteal), GOMP_parallel and
 * GOMP_parallel_start (libgomp), __kmpc_fork_call (LLVM's libomp),
 * defined (not undefined references) and global or weak.  A program
 * stripped of .symtab whose .dynsym names nothing is searched (its
 * read-only data, a bounded number of bytes) for a string only that
 * runtime holds: "ASTEAL_PROFILE" (an environment variable only libasteal
 * reads), "GOMP_SPINCOUNT" (one only libgomp reads).
 *
 * A script (#!) is not followed to its interpreter: interpreters (sh,
 * python3, perl, env) are linked with neither libasteal nor libgomp, so
 * following them would only ever say "neither", and what the script
 * itself starts cannot be known without running it.  The caller treats
 * a script as linked with neither and names its interpreter.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "closure.h"
#include "elffile.h"
#include "program.h"

/* The names whose definitions tell what is linked in statically. */
enum sym_want { WANT_ASTEAL, WANT_GOMP, WANT_GOMP_START, WANT_KMPC, NWANT };
static const char *const wanted[NWANT] = {
	"asteal_start", "GOMP_parallel", "GOMP_parallel_start", "__kmpc_fork_call",
};

/* The strings a stripped program holds when a runtime is linked in. */
static const char *const markers[] = { "ASTEAL_PROFILE", "GOMP_SPINCOUNT" };

/* Find name as execvp would. */
int program_find(const char *name, char *path, size_t len)
{
	const char *dirs = getenv("PATH"), *s, *e;
	struct stat st;
	int denied = 0, n;

	if (*name == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (strchr(name, '/') != NULL) {
		if (strlen(name) >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		snprintf(path, len, "%s", name);
		return stat(path, &st);
	}
	if (dirs == NULL)
		dirs = "/bin:/usr/bin";
	for (s = dirs;; s = e + 1) {
		e = s + strcspn(s, ":");
		if (e == s)
			n = snprintf(path, len, "%s", name);
		else
			n = snprintf(path, len, "%.*s/%s", (int)(e - s), s, name);
		if (n > 0 && (size_t)n < len && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(path, X_OK) == 0)
				return 0;
			denied = 1;
		}
		if (*e == '\0')
			break;
	}
	errno = denied ? EACCES : ENOENT;
	return -1;
}

/* The interpreter named by a #! line (the first len bytes of a file in
 * head) into out. */
static void script_interp(const char *head, size_t len, char *out, size_t outlen)
{
	size_t i = 2, n;

	while (i < len && (head[i] == ' ' || head[i] == '\t'))
		i++;
	for (n = 0; i + n < len && head[i + n] != ' ' && head[i + n] != '\t' &&
	            head[i + n] != '\n' && head[i + n] != '\0'; n++)
		;
	snprintf(out, outlen, "%.*s", (int)n, head + i);
}

/* Read what the program name is and is linked with. */
int program_inspect(const char *name, struct program *p)
{
	unsigned defined = 0, found = 0;
	struct elffile_dyn *d;
	struct elffile e;
	char head[256];
	ssize_t n;
	int fd, had_symtab, interp;

	memset(p, 0, sizeof(*p));
	if (program_find(name, p->path, sizeof(p->path)) < 0) {
		int err = errno;
		p->path[0] = '\0';
		snprintf(p->why, sizeof(p->why), "%s", strerror(err));
		errno = err;
		return -1;
	}
	fd = open(p->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int err = errno;
		snprintf(p->why, sizeof(p->why), "%s", strerror(err));
		errno = err;
		return -1;
	}
	while ((n = pread(fd, head, sizeof(head), 0)) < 0 && errno == EINTR)
		;
	close(fd);
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		p->kind = PROGRAM_SCRIPT;
		script_interp(head, (size_t)n, p->interp, sizeof(p->interp));
		return 0;
	}
	if (elffile_open(&e, p->path, p->why, sizeof(p->why)) < 0) {
		if (errno != ENOEXEC)
			return -1;
		p->kind = PROGRAM_OTHER;
		return 0;
	}
	p->kind = PROGRAM_OTHER;
	if (e.type != ET_EXEC && e.type != ET_DYN) {
		snprintf(p->why, sizeof(p->why), "%s", "an ELF file that is not a program");
		elffile_close(&e);
		return 0;
	}
	d = malloc(sizeof(*d));
	if (d == NULL || elffile_dynamic(&e, d, &interp) < 0) {
		snprintf(p->why, sizeof(p->why), "%s",
		         d == NULL ? strerror(ENOMEM) : "a malformed ELF file");
		free(d);
		elffile_close(&e);
		return 0;
	}
	free(d);
	p->kind = PROGRAM_ELF;
	p->elf_class = e.cls;
	p->machine = e.machine;
	p->is_static = !interp;
	elffile_symbols(&e, wanted, NWANT, &defined, &had_symtab);
	if (defined & (1u << WANT_ASTEAL))
		p->links |= PROGRAM_ASTEAL;
	if (defined & (1u << WANT_GOMP | 1u << WANT_GOMP_START))
		p->links |= PROGRAM_GOMP_STATIC;
	if (defined & (1u << WANT_KMPC))
		p->links |= PROGRAM_LIBOMP;
	if (!had_symtab && !(p->links & (PROGRAM_ASTEAL | PROGRAM_GOMP_STATIC))) {
		elffile_markers(&e, markers, (int)(sizeof(markers) / sizeof(markers[0])),
		                &found);
		if (found & 1u)
			p->links |= PROGRAM_ASTEAL;
		if (found & 2u)
			p->links |= PROGRAM_GOMP_STATIC;
	}
	elffile_close(&e);
	closure_walk(p);
	return 0;
}

/* The version names the shared object at path defines. */
int program_versions(const char *path, char *buf, size_t len)
{
	struct elffile_dyn *d = malloc(sizeof(*d));
	char why[64];
	struct elffile e;
	int interp, r = -1;

	if (len > 0)
		buf[0] = '\0';
	if (d == NULL)
		return -1;
	if (elffile_open(&e, path, why, sizeof(why)) < 0) {
		free(d);
		return -1;
	}
	if (elffile_dynamic(&e, d, &interp) == 0)
		r = elffile_verdef(&e, d, buf, len);
	free(d);
	elffile_close(&e);
	return r;
}

/* Read the ELF identity of the file at path. */
int program_elf_id(const char *path, int *elf_class, int *machine)
{
	struct elffile e;
	char why[64];

	if (elffile_open(&e, path, why, sizeof(why)) < 0)
		return -1;
	*elf_class = e.cls;
	*machine = e.machine;
	elffile_close(&e);
	return 0;
}
