/*
 * program.h - what a program is linked with, read from its ELF file, so
 * that `asteal run` and `submit` know how to run it: on libasteal as it
 * is, on asteal's OpenMP layer (libgomp.so.1) as an adaptive job, or as a
 * rigid job (LLVM's libomp, OpenMP linked in statically, or neither).
 *
 * The program is found as execvp(3) finds it (PATH), and its file read
 * without running anything: its symbols (.symtab, .dynsym), and the
 * closure of its DT_NEEDED libraries, each found as the dynamic linker
 * would (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH with $ORIGIN, the
 * directories of /etc/ld.so.conf, the standard and multiarch ones), up to
 * PROGRAM_MAX_OBJECTS of them.  Files are untrusted: every offset and
 * count is checked against the file, and one that is not a readable ELF
 * program of this machine's byte order is PROGRAM_OTHER, never a crash.
 * A script (#!) is not looked into: its interpreter is named, nothing
 * more (program.c says why).
 */
#ifndef ASTEAL_CLI_PROGRAM_H
#define ASTEAL_CLI_PROGRAM_H

#include <limits.h>
#include <stddef.h>

/* The most objects (the program and its libraries) a closure is followed
 * to; the rest is left unread (struct program's truncated), but the
 * libraries it names are still recognised by name. */
#define PROGRAM_MAX_OBJECTS 512

/* What kind of file the program is. */
enum program_kind {
	PROGRAM_ELF,       /* an ELF program of this machine's byte order */
	PROGRAM_SCRIPT,    /* a #! script (interp names what runs it) */
	PROGRAM_OTHER,     /* anything else: garbage, truncated, another byte
	                    * order (why says which) */
};

/* What a program is linked with: flags of struct program's links. */
/* libasteal: asteal_start defined in it, or libasteal.so.0 in its closure */
#define PROGRAM_ASTEAL      0x01u
/* libgomp.so.1 in its closure */
#define PROGRAM_GOMP        0x02u
/* ... named by a path, or found through a DT_RPATH (searched before
 * LD_LIBRARY_PATH): a layer put first in LD_LIBRARY_PATH does not replace it */
#define PROGRAM_GOMP_PINNED 0x04u
/* GOMP_parallel or GOMP_parallel_start defined in the program itself */
#define PROGRAM_GOMP_STATIC 0x08u
/* LLVM's (or Intel's) libomp in its closure, or __kmpc_fork_call defined in it */
#define PROGRAM_LIBOMP      0x10u

/* What program_inspect found. */
struct program {
	char path[PATH_MAX];        /* the file execvp would run */
	enum program_kind kind;
	unsigned links;             /* PROGRAM_ASTEAL, ... */
	int elf_class;              /* ELFCLASS32 or ELFCLASS64 (PROGRAM_ELF) */
	int machine;                /* e_machine (PROGRAM_ELF) */
	int is_static;              /* no PT_INTERP: linked statically */
	unsigned nobjects;          /* objects of the closure read, the program included */
	int truncated;              /* the closure had more than the bounds of closure.c */
	char via[NAME_MAX + 1];     /* the library whose DT_NEEDED names libgomp or
	                             * libomp; "" when it is the program's own */
	char gomp_versions[512];    /* the versions of libgomp.so.1 (GOMP_4.0 ...)
	                             * its closure asks for, space-separated */
	char interp[256];           /* PROGRAM_SCRIPT: its interpreter, as its #! line names it */
	char why[256];              /* PROGRAM_OTHER, or after -1: why */
};

/* Find name as execvp would (a name with a '/' as it is, else the first
 * executable regular file of that name in $PATH, or /bin:/usr/bin when
 * PATH is unset) into path (len bytes): 0, or -1 with errno (ENOENT,
 * EACCES, ENAMETOOLONG). */
int program_find(const char *name, char *path, size_t len);

/* Read what the program name (found by program_find) is and is linked
 * with into *p: 0, or -1 when it cannot be found or opened (p->why and
 * errno say why).  A file that can be opened but not understood is 0
 * with p->kind PROGRAM_OTHER. */
int program_inspect(const char *name, struct program *p);

/* The version names (GOMP_4.0 ...) the shared object at path defines
 * (DT_VERDEF, its own name left out), space-separated into buf (len
 * bytes; what does not fit is left out): 0, or -1 when it cannot be read
 * or defines no versions (buf is then empty). */
int program_versions(const char *path, char *buf, size_t len);

/* Read the ELF identity of the file at path (its class and machine): 0,
 * or -1 when it is not an ELF file of this byte order that can be read
 * (errno set; ENOEXEC for a file that is not ELF). */
int program_elf_id(const char *path, int *elf_class, int *machine);

#endif
