/*
 * closure.c - the libraries a program loads (see closure.h), each file
 * read with elffile.c.
 *
 * The closure of DT_NEEDED is followed breadth first, as the dynamic
 * linker loads it, each name once: for an object without DT_RUNPATH, the
 * DT_RPATHs of it and of the objects that loaded it (each without a
 * DT_RUNPATH of its own), then LD_LIBRARY_PATH, then its DT_RUNPATH, then
 * the directories of /etc/ld.so.conf (what ld.so.cache holds, read from
 * the directories instead of the cache), then the standard ones of the
 * program's machine (/lib/TRIPLET, /usr/lib/TRIPLET, /lib64 or /lib32,
 * /lib, /usr/lib).  $ORIGIN and ${ORIGIN} are expanded (the program's:
 * the folder of its real path; a library's: the folder it was found in);
 * an element with another $ token ($LIB, $PLATFORM) is skipped.  A
 * candidate of another class or machine is passed over, as the linker
 * does.  libgomp.so.1, libasteal.so.0 and libomp are recognised by name
 * and not followed; libgomp.so.1 is "pinned" when the layer put first in
 * LD_LIBRARY_PATH would not replace it: named by a path, or found through
 * a DT_RPATH (searched before LD_LIBRARY_PATH).  The versions of
 * libgomp.so.1 each object that needs it asks for (its DT_VERNEED) are
 * gathered, for the caller to hold against the layer's DT_VERDEF
 * (program_versions): a version the layer lacks would stop the dynamic
 * linker.
 *
 * Bounds: PROGRAM_MAX_OBJECTS objects read, CLOSURE_MAX_EDGES DT_NEEDED
 * entries in all (ELFFILE_MAX_NEEDED per object); past them the closure
 * is "truncated", and the names still read are still recognised (a
 * program's 600th library may be libgomp).
 */
#include <elf.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closure.h"
#include "elffile.h"

/* Bounds on the closure and on what ld.so.conf may make us keep. */
#define CLOSURE_MAX_EDGES   8192      /* DT_NEEDED entries used in all */
#define CLOSURE_MAX_DIRS    128       /* directories of ld.so.conf kept */
#define CLOSURE_CONF_DEPTH  4         /* nested includes of ld.so.conf followed */

/* An object of the closure. */
struct obj {
	char *name;                      /* as DT_NEEDED names it (the program: its base name) */
	char *path;                      /* where it was found; NULL: not found */
	char *origin;                    /* $ORIGIN: the folder of path */
	char *rpath, *runpath;           /* its own, NULL when it has none */
	int parent;                      /* the object that needed it first; -1 */
};

/* The closure being followed. */
struct closure {
	struct obj *objs;
	unsigned n;
	int cls, machine;
	char *conf[CLOSURE_MAX_DIRS];    /* the directories of ld.so.conf */
	unsigned nconf;
	unsigned edges;                  /* DT_NEEDED entries used so far */
};

/* A copy of s (NULL for NULL, or when out of memory). */
static char *dup_str(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* The last component of a path. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* The folder of path, as a new string ("." for a bare name). */
static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	char *d;

	if (s == NULL)
		return strdup(".");
	if (s == path)
		return strdup("/");
	d = strndup(path, (size_t)(s - path));
	return d;
}

/* The multiarch folder name of a class and machine, or NULL. */
static const char *triplet(int cls, int machine)
{
	switch (machine) {
	case EM_X86_64:
		return cls == ELFCLASS64 ? "x86_64-linux-gnu" : "x86_64-linux-gnux32";
	case EM_386:
		return "i386-linux-gnu";
	case EM_AARCH64:
		return "aarch64-linux-gnu";
	case EM_ARM:
		return "arm-linux-gnueabihf";
	case EM_PPC64:
		return "powerpc64le-linux-gnu";
	case EM_S390:
		return "s390x-linux-gnu";
	case EM_RISCV:
		return "riscv64-linux-gnu";
	default:
		return NULL;
	}
}

/* Add the directories an ld.so.conf file at path names to c, following
 * its includes (depth: how deep this file is). */
static void conf_read(struct closure *c, const char *path, int depth)
{
	char line[PATH_MAX + 64], pat[PATH_MAX * 2];
	FILE *f;
	int lines = 0;

	f = fopen(path, "re");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL && lines++ < 4096) {
		char *s = line, *h = strchr(line, '#');
		size_t n;
		if (h != NULL)
			*h = '\0';
		s += strspn(s, " \t");
		n = strcspn(s, "\r\n");
		s[n] = '\0';
		while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			s[--n] = '\0';
		if (n == 0 || (strncmp(s, "hwcap", 5) == 0 && (s[5] == ' ' || s[5] == '\t')))
			continue;
		if (strncmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t')) {
			glob_t g;
			char *dir;
			s += 7 + strspn(s + 7, " \t");
			if (depth >= CLOSURE_CONF_DEPTH || *s == '\0')
				continue;
			if (*s == '/') {
				snprintf(pat, sizeof(pat), "%s", s);
			} else {
				if ((dir = dir_of(path)) == NULL)
					continue;
				snprintf(pat, sizeof(pat), "%s/%s", dir, s);
				free(dir);
			}
			if (glob(pat, 0, NULL, &g) == 0) {
				for (size_t i = 0; i < g.gl_pathc; i++)
					conf_read(c, g.gl_pathv[i], depth + 1);
				globfree(&g);
			}
			continue;
		}
		s[strcspn(s, " \t:,=")] = '\0';
		if (*s == '/' && c->nconf < CLOSURE_MAX_DIRS && (c->conf[c->nconf] = strdup(s)) != NULL)
			c->nconf++;
	}
	fclose(f);
}

/* Whether path is an ELF file of c's class and machine. */
static int fits(const struct closure *c, const char *path)
{
	struct elffile e;
	char why[64];
	int ok;

	if (elffile_open(&e, path, why, sizeof(why)) < 0)
		return 0;
	ok = e.cls == c->cls && e.machine == c->machine;
	elffile_close(&e);
	return ok;
}

/* Whether name is in folder dir and fits c: 1 with its path in out. */
static int try_dir(const struct closure *c, const char *dir, const char *name,
                   char *out, size_t len)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	return n > 0 && (size_t)n < len && fits(c, out);
}

/* One element of a search list (n bytes at s) with $ORIGIN and ${ORIGIN}
 * replaced by origin, into out: 0, or -1 when it holds another $ token,
 * $ORIGIN without an origin, or does not fit.  An empty element is the
 * current folder, as for the dynamic linker. */
static int expand(const char *s, size_t n, const char *origin, char *out, size_t len)
{
	size_t k = 0, add, skip;
	const char *what;

	if (n == 0)
		return snprintf(out, len, ".") > 0 ? 0 : -1;
	for (size_t i = 0; i < n; i += skip) {
		if (s[i] == '$') {
			if (n - i >= 7 && strncmp(s + i + 1, "ORIGIN", 6) == 0 &&
			    (n - i == 7 || !(s[i + 7] == '_' || (s[i + 7] >= 'A' && s[i + 7] <= 'Z') ||
			                     (s[i + 7] >= 'a' && s[i + 7] <= 'z') ||
			                     (s[i + 7] >= '0' && s[i + 7] <= '9'))))
				skip = 7;
			else if (n - i >= 9 && strncmp(s + i + 1, "{ORIGIN}", 8) == 0)
				skip = 9;
			else
				return -1;
			if (origin == NULL)
				return -1;
			what = origin;
			add = strlen(origin);
		} else {
			what = s + i;
			add = 1;
			skip = 1;
		}
		if (k + add >= len)
			return -1;
		memcpy(out + k, what, add);
		k += add;
	}
	out[k] = '\0';
	return 0;
}

/* Look for name in each folder of list (':' or ';' between them, origin
 * for $ORIGIN): 1 with its path in out. */
static int try_list(const struct closure *c, const char *list, const char *origin,
                    const char *name, char *out, size_t len)
{
	char dir[PATH_MAX];
	const char *s = list, *e;

	for (;;) {
		e = s + strcspn(s, ":;");
		if (expand(s, (size_t)(e - s), origin, dir, sizeof(dir)) == 0 &&
		    try_dir(c, dir, name, out, len))
			return 1;
		if (*e == '\0')
			return 0;
		s = e + 1;
	}
}

/* How a library was found. */
enum found_by { BY_NONE, BY_PATH, BY_RPATH, BY_ENV, BY_RUNPATH, BY_CONF, BY_DEFAULT };

/* Find the library name that object i of c needs, as the dynamic linker
 * would: how, with its path in out (len bytes). */
static enum found_by resolve(const struct closure *c, unsigned i, const char *name,
                             char *out, size_t len)
{
	const struct obj *o = &c->objs[i];
	const char *env = getenv("LD_LIBRARY_PATH"), *t = triplet(c->cls, c->machine);
	char dir[64];

	if (strchr(name, '/') != NULL) {
		snprintf(out, len, "%s", name);
		return BY_PATH;
	}
	if (o->runpath == NULL)
		for (int j = (int)i; j >= 0; j = c->objs[j].parent)
			if (c->objs[j].rpath != NULL && c->objs[j].runpath == NULL &&
			    try_list(c, c->objs[j].rpath, c->objs[j].origin, name, out, len))
				return BY_RPATH;
	if (env != NULL && *env != '\0' && try_list(c, env, NULL, name, out, len))
		return BY_ENV;
	if (o->runpath != NULL && try_list(c, o->runpath, o->origin, name, out, len))
		return BY_RUNPATH;
	for (unsigned k = 0; k < c->nconf; k++)
		if (try_dir(c, c->conf[k], name, out, len))
			return BY_CONF;
	if (t != NULL) {
		snprintf(dir, sizeof(dir), "/lib/%s", t);
		if (try_dir(c, dir, name, out, len))
			return BY_DEFAULT;
		snprintf(dir, sizeof(dir), "/usr/lib/%s", t);
		if (try_dir(c, dir, name, out, len))
			return BY_DEFAULT;
	}
	if (try_dir(c, c->cls == ELFCLASS64 ? "/lib64" : "/lib32", name, out, len) ||
	    try_dir(c, c->cls == ELFCLASS64 ? "/usr/lib64" : "/usr/lib32", name, out, len) ||
	    try_dir(c, "/lib", name, out, len) || try_dir(c, "/usr/lib", name, out, len))
		return BY_DEFAULT;
	return BY_NONE;
}

/* Whether an object named name is in c already (the program aside). */
static int seen(const struct closure *c, const char *name)
{
	for (unsigned i = 1; i < c->n; i++)
		if (strcmp(c->objs[i].name, name) == 0)
			return 1;
	return 0;
}

/* What a library's name says it is: a PROGRAM_* flag, or 0. */
static unsigned known_library(const char *name)
{
	const char *b = base_name(name);

	if (strcmp(b, "libgomp.so.1") == 0)
		return PROGRAM_GOMP;
	if (strcmp(b, "libasteal.so.0") == 0)
		return PROGRAM_ASTEAL;
	if (strcmp(b, "libomp.so.5") == 0 || strcmp(b, "libomp.so") == 0 ||
	    strcmp(b, "libiomp5.so") == 0)
		return PROGRAM_LIBOMP;
	return 0;
}

/* Add an object to c (name, found at path or not, needed by parent): 0,
 * or -1 when c is full or memory ran out. */
static int add_obj(struct closure *c, const char *name, const char *path, int parent)
{
	struct obj *o;

	if (c->n >= PROGRAM_MAX_OBJECTS)
		return -1;
	o = &c->objs[c->n];
	memset(o, 0, sizeof(*o));
	o->parent = parent;
	o->name = strdup(name);
	if (o->name == NULL)
		return -1;
	if (path != NULL &&
	    ((o->path = strdup(path)) == NULL || (o->origin = dir_of(path)) == NULL)) {
		free(o->name);
		free(o->path);
		return -1;
	}
	c->n++;
	return 0;
}

/* Read object i of c: its search paths, and each library it needs added
 * to c (the known ones marked in p and not followed). */
static void walk_one(struct closure *c, unsigned i, struct program *p)
{
	struct obj *o = &c->objs[i];
	struct elffile_dyn *d;
	struct elffile e;
	char why[64], name[NAME_MAX + 1], path[PATH_MAX], *s;
	char *str = NULL;
	unsigned known;
	int interp;
	enum found_by by;

	if (o->path == NULL || elffile_open(&e, o->path, why, sizeof(why)) < 0)
		return;
	d = malloc(sizeof(*d));
	str = malloc(PATH_MAX);
	if (d == NULL || str == NULL || elffile_dynamic(&e, d, &interp) < 0 ||
	    e.cls != c->cls || e.machine != c->machine)
		goto out;
	p->nobjects++;
	if (d->has_rpath && elffile_string(&e, d, d->rpath, str, PATH_MAX) != NULL)
		o->rpath = dup_str(str);
	if (d->has_runpath && elffile_string(&e, d, d->runpath, str, PATH_MAX) != NULL)
		o->runpath = dup_str(str);
	if (d->nneeded == ELFFILE_MAX_NEEDED)
		p->truncated = 1;
	for (unsigned k = 0; k < d->nneeded; k++) {
		if (c->edges >= CLOSURE_MAX_EDGES) {
			p->truncated = 1;
			break;
		}
		c->edges++;
		if ((s = elffile_string(&e, d, d->needed[k], name, sizeof(name))) == NULL ||
		    seen(c, s))
			continue;
		known = known_library(s);
		/* the known ones are marked even when the closure is full */
		if (known == 0 && c->n >= PROGRAM_MAX_OBJECTS) {
			p->truncated = 1;
			continue;
		}
		by = resolve(c, i, s, path, sizeof(path));
		if ((known & (PROGRAM_GOMP | PROGRAM_LIBOMP)) && i > 0)
			snprintf(p->via, sizeof(p->via), "%s", o->name);
		if (known == PROGRAM_GOMP)
			elffile_verneed(&e, d, s, p->gomp_versions, sizeof(p->gomp_versions));
		if (known == PROGRAM_GOMP && (by == BY_PATH || by == BY_RPATH))
			known |= PROGRAM_GOMP_PINNED;
		p->links |= known;
		if (add_obj(c, s, known == 0 && by != BY_NONE ? path : NULL, (int)i) < 0)
			p->truncated = 1;
	}
out:
	free(str);
	free(d);
	elffile_close(&e);
}

/* Follow the closure of program p into its links and what goes with them. */
void closure_walk(struct program *p)
{
	struct closure c;
	char real[PATH_MAX];

	memset(&c, 0, sizeof(c));
	c.cls = p->elf_class;
	c.machine = p->machine;
	c.objs = calloc(PROGRAM_MAX_OBJECTS, sizeof(*c.objs));
	if (c.objs == NULL)
		return;
	conf_read(&c, "/etc/ld.so.conf", 0);
	/* The program's $ORIGIN is the folder of its real path. */
	if (add_obj(&c, base_name(p->path),
	            realpath(p->path, real) != NULL ? real : p->path, -1) == 0)
		for (unsigned i = 0; i < c.n; i++)
			walk_one(&c, i, p);
	for (unsigned i = 0; i < c.n; i++) {
		free(c.objs[i].name);
		free(c.objs[i].path);
		free(c.objs[i].origin);
		free(c.objs[i].rpath);
		free(c.objs[i].runpath);
	}
	for (unsigned i = 0; i < c.nconf; i++)
		free(c.conf[i]);
	free(c.objs);
}

