/*
 * elffile.h - one ELF file of this machine's byte order, read without
 * mapping or running it: its identity, its dynamic section, the versions
 * it needs of a library and those it defines, the names its symbol
 * tables define, and strings in its read-only data.  program.c and
 * closure.c read programs and their libraries through it.
 *
 * Files are untrusted: every offset and size is checked against the file
 * before it is read (elffile.c gives the bounds), and a file that is not
 * a readable ELF file of this byte order fails elffile_open, never
 * crashes.
 */
#ifndef ASTEAL_CLI_ELFFILE_H
#define ASTEAL_CLI_ELFFILE_H

#include <stddef.h>
#include <stdint.h>

/* The most DT_NEEDED entries of one object kept. */
#define ELFFILE_MAX_NEEDED 1024

/* One ELF file open for reading, its header in 64-bit form. */
struct elffile {
	int fd;
	uint64_t size;
	int cls;                  /* ELFCLASS32 or ELFCLASS64 */
	int type, machine;
	uint64_t phoff, shoff;
	unsigned phnum, shnum;
};

/* What one object's dynamic section says. */
struct elffile_dyn {
	uint64_t strtab, strsz;          /* file offset and size of its strings */
	int has_strtab;
	uint64_t needed[ELFFILE_MAX_NEEDED];
	unsigned nneeded;
	uint64_t rpath, runpath;         /* string offsets */
	int has_rpath, has_runpath;
	uint64_t verneed, verneednum;    /* virtual address and count */
	uint64_t verdef, verdefnum;
};

/* Open path as an ELF file of this byte order and read its header into
 * *e: 0; or -1 with why (len bytes) and errno (ENOEXEC: not ELF). */
int elffile_open(struct elffile *e, const char *path, char *why, size_t len);

/* Close e. */
void elffile_close(struct elffile *e);

/* Read e's dynamic section into *d (all zero when it has none) and
 * whether it has a PT_INTERP: 0, or -1 when it is malformed. */
int elffile_dynamic(const struct elffile *e, struct elffile_dyn *d, int *has_interp);

/* Read a NUL-terminated string at offset at of the string table of d,
 * into buf (len bytes): buf, or NULL when it is out of the table, does
 * not fit or is empty. */
char *elffile_string(const struct elffile *e, const struct elffile_dyn *d, uint64_t at,
                     char *buf, size_t len);

/* Add to the space-separated list buf (len bytes) the version names e's
 * DT_VERNEED asks of the library named file. */
void elffile_verneed(const struct elffile *e, const struct elffile_dyn *d, const char *file,
                     char *buf, size_t len);

/* Add to the space-separated list buf (len bytes) the version names e's
 * DT_VERDEF defines, its own name left out: 0, or -1 when it has none. */
int elffile_verdef(const struct elffile *e, const struct elffile_dyn *d, char *buf, size_t len);

/* Set in *defined a bit per name of names (count of them, each at most
 * 63 characters) that e's symbol tables define, global or weak;
 * *had_symtab: whether it has a .symtab (is not stripped). */
void elffile_symbols(const struct elffile *e, const char *const *names, int count,
                     unsigned *defined, int *had_symtab);

/* Set in *found a bit per string of strings (count of them, each at most
 * 63 characters) that e's read-only data holds. */
void elffile_markers(const struct elffile *e, const char *const *strings, int count,
                     unsigned *found);

#endif
