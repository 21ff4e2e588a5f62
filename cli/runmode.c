/*
 * runmode.c - how a program runs (see runmode.h), from what its file says
 * it is linked with (program.c): a program linked with libasteal runs as
 * it is (an adaptive job); one whose libraries include libgomp.so.1 runs
 * on asteal's OpenMP layer (--omp layer, the default), which its child
 * puts first in LD_LIBRARY_PATH, and is an adaptive job as well; any
 * other is a rigid job, of --cpus N, or of RUNMODE_RIGID_CPUS with a line
 * saying so.  LLVM's libomp, OpenMP linked in statically, or a layer that
 * is missing or cannot replace the program's libgomp: a line saying that
 * it runs rigid, and why, even with --cpus.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "program.h"
#include "runmode.h"

/* Whether the space-separated list have holds word. */
static int has_word(const char *have, const char *word)
{
	size_t w = strlen(word);

	for (const char *at = have; (at = strstr(at, word)) != NULL; at += w)
		if ((at == have || at[-1] == ' ') && (at[w] == ' ' || at[w] == '\0'))
			return 1;
	return 0;
}

/* Whether the layer at lib lacks a version of libgomp that program p's
 * closure asks for (an OpenACC program's OACC_2.0, a newer gcc's): 1 with
 * the first in miss (len bytes), 0 when it has them all or cannot tell
 * (the dynamic linker then says). */
static int lacks(const struct program *p, const char *lib, char *miss, size_t len)
{
	char have[4096], want[sizeof(p->gomp_versions)], *w, *save = NULL;

	if (p->gomp_versions[0] == '\0' || program_versions(lib, have, sizeof(have)) < 0)
		return 0;
	snprintf(want, sizeof(want), "%s", p->gomp_versions);
	for (w = strtok_r(want, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
		if (!has_word(have, w)) {
			snprintf(miss, len, "%s", w);
			return 1;
		}
	return 0;
}

/* The folder of asteal's OpenMP layer for program p: 0 with it in dir
 * (len bytes), or -1 with why (wlen bytes).  The layer is libgomp.so.1 in
 * ../lib/asteal from asteal's own folder (a build tree's build/lib/asteal,
 * or an install with lib beside bin), else in CLI_OMP_DIR, where make
 * install put it; it must be of the program's class and machine, and
 * define every version of libgomp the program asks for. */
static int layer_dir(const struct program *p, char *dir, size_t len, char *why,
                     size_t wlen)
{
	char exe[PATH_MAX], beside[PATH_MAX], lib[PATH_MAX], miss[64] = "";
	const char *cand[2], *other = NULL, *short_of = NULL;
	char *s;
	ssize_t n;
	int ncand = 0, cls, machine;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((s = strrchr(exe, '/')) != NULL) {
			*s = '\0';                    /* bin */
			if ((s = strrchr(exe, '/')) != NULL) {
				*s = '\0';            /* its parent */
				if (snprintf(beside, sizeof(beside), "%s/lib/asteal", exe) <
				    (int)sizeof(beside))
					cand[ncand++] = beside;
			}
		}
	}
	if (ncand == 0 || strcmp(cand[0], CLI_OMP_DIR) != 0)
		cand[ncand++] = CLI_OMP_DIR;
	for (int i = 0; i < ncand; i++) {
		if (snprintf(lib, sizeof(lib), "%s/libgomp.so.1", cand[i]) >= (int)sizeof(lib) ||
		    program_elf_id(lib, &cls, &machine) < 0)
			continue;
		if (cls == p->elf_class && machine == p->machine) {
			if (lacks(p, lib, miss, sizeof(miss))) {
				if (short_of == NULL)
					short_of = cand[i];
				continue;
			}
			if (snprintf(dir, len, "%s", cand[i]) < (int)len)
				return 0;
		}
		if (other == NULL)
			other = cand[i];
	}
	if (short_of != NULL)
		snprintf(why, wlen, "asteal's OpenMP layer (%s) lacks %s, a version of "
		         "libgomp.so.1 the program needs", short_of, miss);
	else if (other != NULL)
		snprintf(why, wlen, "asteal's OpenMP layer (%s) is built for another "
		         "machine or word size than the program", other);
	else
		snprintf(why, wlen, "asteal's OpenMP layer is not installed (no "
		         "libgomp.so.1 in %s%s%s)", cand[0], ncand > 1 ? " or " : "",
		         ncand > 1 ? cand[1] : "");
	return -1;
}

/* Choose how sp's program runs, from what it is linked with. */
void runmode_choose(struct spawn *sp)
{
	struct program *p = malloc(sizeof(*p));
	unsigned cpus = sp->cpus ? sp->cpus : RUNMODE_RIGID_CPUS;
	char why[2 * PATH_MAX + 128], how[64];
	const char *name = sp->argv[0], *hint = sp->cpus ? "" : " (--cpus N for N)";

	sp->notice[0] = '\0';
	sp->layer[0] = '\0';
	/* Not found or not readable: execvp says why it cannot run. */
	if (p == NULL || program_inspect(name, p) < 0)
		goto out;
	/* Linked with libasteal: an adaptive job as it is (--cpus caps it). */
	if (p->links & PROGRAM_ASTEAL)
		goto out;
	snprintf(how, sizeof(how), "a rigid job of %u CPU%s", cpus, cpus == 1 ? "" : "s");
	if (p->links & PROGRAM_LIBOMP) {
		snprintf(sp->notice, sizeof(sp->notice), "%s is linked with LLVM's "
		         "libomp%s%s: %s%s; asteal's OpenMP layer replaces libgomp.so.1 "
		         "only", name, p->via[0] ? " through " : "", p->via, how, hint);
	} else if (p->links & PROGRAM_GOMP_STATIC) {
		snprintf(sp->notice, sizeof(sp->notice), "%s has OpenMP (libgomp) linked "
		         "in statically: %s%s; asteal's OpenMP layer replaces the shared "
		         "libgomp.so.1 only", name, how, hint);
	} else if ((p->links & PROGRAM_GOMP) && !sp->omp_system) {
		if (p->links & PROGRAM_GOMP_PINNED)
			snprintf(why, sizeof(why), "its libgomp.so.1 is named by a path or "
			         "found through a DT_RPATH, which LD_LIBRARY_PATH does not "
			         "override");
		else if (layer_dir(p, sp->layer, sizeof(sp->layer), why, sizeof(why)) == 0)
			goto out;       /* on the layer: an adaptive job */
		snprintf(sp->notice, sizeof(sp->notice), "%s: %s: %s on the system's "
		         "libgomp%s", name, why, how, hint);
	} else if (sp->cpus > 0) {
		goto out;               /* rigid, as asked */
	} else if (p->links & PROGRAM_GOMP) {
		snprintf(sp->notice, sizeof(sp->notice), "%s runs on the system's libgomp "
		         "(--omp system): %s%s", name, how, hint);
	} else if (p->kind == PROGRAM_SCRIPT) {
		snprintf(sp->notice, sizeof(sp->notice), "%s is a script (#!%s), which "
		         "asteal does not look into: %s%s", name, p->interp, how, hint);
	} else if (p->kind == PROGRAM_OTHER) {
		snprintf(sp->notice, sizeof(sp->notice), "%s is not a program asteal can "
		         "read (%s): %s%s", name, p->why, how, hint);
	} else {
		snprintf(sp->notice, sizeof(sp->notice), "%s is linked with neither "
		         "libasteal nor libgomp: %s%s", name, how, hint);
	}
	sp->cpus = cpus;
out:
	free(p);
}
