/*
 * program.c - what a program is linked with (see program.h): its ELF file
 * read with pread, every offset and size checked against the file before
 * it is read, nothing mapped, nothing run (no ldd).
 *
 * The program's own symbols (.symtab, else .dynsym) tell what is linked
 * in statically: asteal_start (libasteal), GOMP_parallel and
 * GOMP_parallel_start (libgomp), __kmpc_fork_call (LLVM's libomp),
 * defined (not undefined references) and global or weak.  Symbol names
 * are found without reading a string per symbol: the string table is
 * scanned once for each wanted name followed by its NUL, and the symbols
 * whose name offset is one of those places are the wanted ones.  A
 * program stripped of .symtab whose .dynsym names nothing is searched
 * (its read-only data, PROGRAM_SCAN_MAX bytes at most) for a string
 * only that runtime holds: "ASTEAL_PROFILE" (an environment variable
 * only libasteal reads), "GOMP_SPINCOUNT" (one only libgomp reads).
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
 * Bounds: PROGRAM_MAX_OBJECTS objects read, PROGRAM_MAX_EDGES DT_NEEDED
 * entries in all (PROGRAM_MAX_NEEDED per object), PROGRAM_MAX_TABLE bytes
 * of a symbol or string table; past them the closure is "truncated", and
 * the names still read are still recognised (a program's 600th library
 * may be libgomp).
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
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "program.h"

/* Bounds on what one file may make us read or keep. */
#define PROGRAM_MAX_PHDRS   4096      /* program headers read per object */
#define PROGRAM_MAX_SHDRS   65535     /* section headers read per program */
#define PROGRAM_MAX_DYN     8192      /* dynamic entries read per object */
#define PROGRAM_MAX_NEEDED  1024      /* DT_NEEDED entries used per object */
#define PROGRAM_MAX_EDGES   8192      /* DT_NEEDED entries used in all */
#define PROGRAM_MAX_TABLE   (256ull << 20)  /* bytes of one symbol or string table */
#define PROGRAM_SCAN_MAX    (64ull << 20)   /* bytes of a stripped program searched */
#define PROGRAM_MAX_DIRS    128       /* directories of ld.so.conf kept */
#define PROGRAM_CONF_DEPTH  4         /* nested includes of ld.so.conf followed */
#define PROGRAM_CHUNK       65536     /* bytes read at a time when scanning */

/* This machine's byte order, as ELF spells it. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PROGRAM_DATA ELFDATA2MSB
#else
#define PROGRAM_DATA ELFDATA2LSB
#endif

/* One ELF file open for reading, its header in 64-bit form. */
struct elf {
	int fd;
	uint64_t size;
	int cls;                  /* ELFCLASS32 or ELFCLASS64 */
	int type, machine;
	uint64_t phoff, shoff;
	unsigned phnum, shnum;
};

/* A program header, a section header, in 64-bit form. */
struct phdr { uint32_t type; uint64_t offset, vaddr, filesz; };
struct shdr { uint32_t type, link; uint64_t flags, offset, size, entsize; };

/* What one object's dynamic section says. */
struct dyninfo {
	uint64_t strtab, strsz;          /* file offset and size of its strings */
	int has_strtab;
	uint64_t needed[PROGRAM_MAX_NEEDED];
	unsigned nneeded;
	uint64_t rpath, runpath;         /* string offsets */
	int has_rpath, has_runpath;
	uint64_t verneed, verneednum;    /* virtual address and count */
	uint64_t verdef, verdefnum;
};

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
	char *conf[PROGRAM_MAX_DIRS];    /* the directories of ld.so.conf */
	unsigned nconf;
	unsigned edges;                  /* DT_NEEDED entries used so far */
};

/* Format a reason into buf (len bytes). */
static void say(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "%s", what);
}

/* Read exactly len bytes at off of e, within the file: 0, or -1. */
static int rd(const struct elf *e, uint64_t off, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	if (off > e->size || len > e->size - off)
		return -1;
	while (got < len) {
		n = pread(e->fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Open path as an ELF file of this byte order and read its header into
 * *e: 0; or -1 with why (len bytes) and errno (ENOEXEC: not ELF). */
static int elf_open(struct elf *e, const char *path, char *why, size_t len)
{
	unsigned char id[EI_NIDENT];
	struct stat st;

	memset(e, 0, sizeof(*e));
	e->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (e->fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return -1;
	}
	if (fstat(e->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		say(why, len, "not a regular file");
		goto notexec;
	}
	e->size = (uint64_t)st.st_size;
	if (rd(e, 0, id, sizeof(id)) < 0 || memcmp(id, ELFMAG, SELFMAG) != 0) {
		say(why, len, "not an ELF file");
		goto notexec;
	}
	if (id[EI_DATA] != PROGRAM_DATA) {
		say(why, len, "an ELF file of the other byte order");
		goto notexec;
	}
	if (id[EI_VERSION] != EV_CURRENT) {
		say(why, len, "an ELF file of an unknown version");
		goto notexec;
	}
	e->cls = id[EI_CLASS];
	if (e->cls == ELFCLASS64) {
		Elf64_Ehdr h;
		if (rd(e, 0, &h, sizeof(h)) < 0)
			goto truncated;
		e->type = h.e_type;
		e->machine = h.e_machine;
		e->phoff = h.e_phoff;
		e->shoff = h.e_shoff;
		e->phnum = h.e_phentsize == sizeof(Elf64_Phdr) ? h.e_phnum : 0;
		e->shnum = h.e_shentsize == sizeof(Elf64_Shdr) ? h.e_shnum : 0;
		if (h.e_phnum > 0 && e->phnum == 0)
			goto truncated;
	} else if (e->cls == ELFCLASS32) {
		Elf32_Ehdr h;
		if (rd(e, 0, &h, sizeof(h)) < 0)
			goto truncated;
		e->type = h.e_type;
		e->machine = h.e_machine;
		e->phoff = h.e_phoff;
		e->shoff = h.e_shoff;
		e->phnum = h.e_phentsize == sizeof(Elf32_Phdr) ? h.e_phnum : 0;
		e->shnum = h.e_shentsize == sizeof(Elf32_Shdr) ? h.e_shnum : 0;
		if (h.e_phnum > 0 && e->phnum == 0)
			goto truncated;
	} else {
		say(why, len, "an ELF file of an unknown class");
		goto notexec;
	}
	if (e->phnum > PROGRAM_MAX_PHDRS)
		goto truncated;
	if (e->shoff == 0 || e->shnum > PROGRAM_MAX_SHDRS)
		e->shnum = 0;           /* no sections (or extended numbering): none read */
	return 0;
truncated:
	say(why, len, "a truncated or malformed ELF file");
notexec:
	close(e->fd);
	e->fd = -1;
	errno = ENOEXEC;
	return -1;
}

/* Close e. */
static void elf_close(struct elf *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
}

/* Read program header i of e into *ph: 0, or -1. */
static int elf_phdr(const struct elf *e, unsigned i, struct phdr *ph)
{
	if (e->cls == ELFCLASS64) {
		Elf64_Phdr p;
		if (rd(e, e->phoff + (uint64_t)i * sizeof(p), &p, sizeof(p)) < 0)
			return -1;
		ph->type = p.p_type;
		ph->offset = p.p_offset;
		ph->vaddr = p.p_vaddr;
		ph->filesz = p.p_filesz;
	} else {
		Elf32_Phdr p;
		if (rd(e, e->phoff + (uint64_t)i * sizeof(p), &p, sizeof(p)) < 0)
			return -1;
		ph->type = p.p_type;
		ph->offset = p.p_offset;
		ph->vaddr = p.p_vaddr;
		ph->filesz = p.p_filesz;
	}
	return 0;
}

/* Read section header i of e into *sh: 0, or -1. */
static int elf_shdr(const struct elf *e, unsigned i, struct shdr *sh)
{
	if (e->cls == ELFCLASS64) {
		Elf64_Shdr s;
		if (rd(e, e->shoff + (uint64_t)i * sizeof(s), &s, sizeof(s)) < 0)
			return -1;
		sh->type = s.sh_type;
		sh->link = s.sh_link;
		sh->flags = s.sh_flags;
		sh->offset = s.sh_offset;
		sh->size = s.sh_size;
		sh->entsize = s.sh_entsize;
	} else {
		Elf32_Shdr s;
		if (rd(e, e->shoff + (uint64_t)i * sizeof(s), &s, sizeof(s)) < 0)
			return -1;
		sh->type = s.sh_type;
		sh->link = s.sh_link;
		sh->flags = s.sh_flags;
		sh->offset = s.sh_offset;
		sh->size = s.sh_size;
		sh->entsize = s.sh_entsize;
	}
	return 0;
}

/* The file offset of virtual address va in e's loaded segments: 0 with
 * *off, or -1 when no PT_LOAD holds it. */
static int elf_offset(const struct elf *e, uint64_t va, uint64_t *off)
{
	struct phdr ph;

	for (unsigned i = 0; i < e->phnum; i++) {
		if (elf_phdr(e, i, &ph) < 0)
			return -1;
		if (ph.type == PT_LOAD && va >= ph.vaddr && va - ph.vaddr < ph.filesz) {
			*off = ph.offset + (va - ph.vaddr);
			return 0;
		}
	}
	return -1;
}

/* Read a NUL-terminated string at offset at of the string table of d,
 * into buf (len bytes): buf, or NULL when it is out of the table, does
 * not fit or is empty. */
static char *dyn_string(const struct elf *e, const struct dyninfo *d, uint64_t at,
                        char *buf, size_t len)
{
	uint64_t avail, want;

	if (!d->has_strtab || at >= d->strsz)
		return NULL;
	avail = d->strsz - at;
	want = avail < len ? avail : len;
	if (d->strtab > e->size || d->strtab + at > e->size)
		return NULL;
	if (want > e->size - d->strtab - at)
		want = e->size - d->strtab - at;
	if (want == 0 || rd(e, d->strtab + at, buf, (size_t)want) < 0)
		return NULL;
	if (memchr(buf, '\0', (size_t)want) == NULL || buf[0] == '\0')
		return NULL;
	return buf;
}

/* Read e's dynamic section into *d (all zero when it has none) and
 * whether it has a PT_INTERP: 0, or -1 when it is malformed. */
static int elf_dynamic(const struct elf *e, struct dyninfo *d, int *has_interp)
{
	struct phdr ph, dyn = { 0, 0, 0, 0 };
	uint64_t strtab_va = 0, esz, n;
	int found = 0;

	memset(d, 0, sizeof(*d));
	*has_interp = 0;
	for (unsigned i = 0; i < e->phnum; i++) {
		if (elf_phdr(e, i, &ph) < 0)
			return -1;
		if (ph.type == PT_INTERP)
			*has_interp = 1;
		if (ph.type == PT_DYNAMIC && !found) {
			dyn = ph;
			found = 1;
		}
	}
	if (!found)
		return 0;
	esz = e->cls == ELFCLASS64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	n = dyn.filesz / esz;
	if (n > PROGRAM_MAX_DYN)
		n = PROGRAM_MAX_DYN;
	for (uint64_t k = 0; k < n; k++) {
		int64_t tag;
		uint64_t val;
		if (e->cls == ELFCLASS64) {
			Elf64_Dyn x;
			if (rd(e, dyn.offset + k * esz, &x, sizeof(x)) < 0)
				return -1;
			tag = x.d_tag;
			val = x.d_un.d_val;
		} else {
			Elf32_Dyn x;
			if (rd(e, dyn.offset + k * esz, &x, sizeof(x)) < 0)
				return -1;
			tag = x.d_tag;
			val = x.d_un.d_val;
		}
		if (tag == DT_NULL)
			break;
		switch (tag) {
		case DT_NEEDED:
			if (d->nneeded < PROGRAM_MAX_NEEDED)
				d->needed[d->nneeded++] = val;
			break;
		case DT_STRTAB:
			strtab_va = val;
			d->has_strtab = 1;
			break;
		case DT_STRSZ:
			d->strsz = val;
			break;
		case DT_RPATH:
			d->rpath = val;
			d->has_rpath = 1;
			break;
		case DT_RUNPATH:
			d->runpath = val;
			d->has_runpath = 1;
			break;
		case DT_VERNEED:
			d->verneed = val;
			break;
		case DT_VERNEEDNUM:
			d->verneednum = val;
			break;
		case DT_VERDEF:
			d->verdef = val;
			break;
		case DT_VERDEFNUM:
			d->verdefnum = val;
			break;
		default:
			break;
		}
	}
	if (d->has_strtab && elf_offset(e, strtab_va, &d->strtab) < 0)
		d->has_strtab = 0;
	if (!d->has_strtab)
		d->nneeded = 0;
	return 0;
}

/* Append word to the space-separated list in buf (len bytes) unless it
 * is there already or does not fit. */
static void add_word(char *buf, size_t len, const char *word)
{
	size_t n = strlen(buf), w = strlen(word);
	const char *at = buf;

	while ((at = strstr(at, word)) != NULL) {
		if ((at == buf || at[-1] == ' ') && (at[w] == ' ' || at[w] == '\0'))
			return;
		at += w;
	}
	if (n + (n > 0) + w + 1 > len)
		return;
	snprintf(buf + n, len - n, "%s%s", n > 0 ? " " : "", word);
}

/* Add to buf (len bytes) the version names e's DT_VERNEED asks of the
 * library named file. */
static void elf_verneed(const struct elf *e, const struct dyninfo *d, const char *file,
                        char *buf, size_t len)
{
	char name[128];
	uint64_t off, aux;
	Elf64_Verneed vn;       /* the same layout in both classes */
	Elf64_Vernaux va;

	if (d->verneed == 0 || d->verneednum == 0 || elf_offset(e, d->verneed, &off) < 0)
		return;
	for (uint64_t k = 0; k < d->verneednum && k < 256; k++) {
		if (rd(e, off, &vn, sizeof(vn)) < 0)
			return;
		if (dyn_string(e, d, vn.vn_file, name, sizeof(name)) != NULL &&
		    strcmp(name, file) == 0) {
			aux = off + vn.vn_aux;
			for (unsigned a = 0; a < vn.vn_cnt && a < 256; a++) {
				if (rd(e, aux, &va, sizeof(va)) < 0)
					break;
				if (dyn_string(e, d, va.vna_name, name, sizeof(name)) != NULL)
					add_word(buf, len, name);
				if (va.vna_next == 0)
					break;
				aux += va.vna_next;
			}
		}
		if (vn.vn_next == 0)
			return;
		off += vn.vn_next;
	}
}

/* The names whose definitions tell what is linked in statically. */
enum sym_want { WANT_ASTEAL, WANT_GOMP, WANT_GOMP_START, WANT_KMPC, NWANT };
static const char *const wanted[NWANT] = {
	"asteal_start", "GOMP_parallel", "GOMP_parallel_start", "__kmpc_fork_call",
};

/* Places in a string table where a wanted name starts. */
struct hits {
	uint64_t at[64];
	int want[64];
	unsigned n;
};

/* Search n bytes at off of e for each of count NUL-terminated needles
 * (their NUL included, so a needle matches a whole string or the end of
 * one), calling found(arg, i, pos) once for each place, pos counted from
 * off: 0, or -1 when the bytes could not be read. */
static int scan(const struct elf *e, uint64_t off, uint64_t n,
                const char *const *needles, int count,
                void (*found)(void *arg, int i, uint64_t pos), void *arg)
{
	char buf[PROGRAM_CHUNK + 64];
	size_t maxlen = 0, keep = 0, got, total, carry, nl, end;
	uint64_t done = 0;
	const char *p;

	for (int i = 0; i < count; i++)
		if (strlen(needles[i]) + 1 > maxlen)
			maxlen = strlen(needles[i]) + 1;
	if (maxlen > 64)
		return -1;
	while (done < n) {
		got = n - done < PROGRAM_CHUNK ? (size_t)(n - done) : PROGRAM_CHUNK;
		if (rd(e, off + done, buf + keep, got) < 0)
			return -1;
		total = keep + got;
		for (int i = 0; i < count; i++) {
			nl = strlen(needles[i]) + 1;
			p = buf;
			while ((p = memmem(p, (size_t)(buf + total - p), needles[i], nl)) != NULL) {
				/* reported once: where its last byte is new */
				end = (size_t)(p - buf) + nl;
				if (end > keep)
					found(arg, i, done - keep + (uint64_t)(p - buf));
				p++;
			}
		}
		done += got;
		/* carry the tail a needle may straddle into the next chunk */
		carry = total < maxlen - 1 ? total : maxlen - 1;
		memmove(buf, buf + total - carry, carry);
		keep = carry;
	}
	return 0;
}

/* Record a place where a wanted name starts (scan's callback). */
static void hit(void *arg, int i, uint64_t pos)
{
	struct hits *h = arg;

	if (h->n < sizeof(h->at) / sizeof(h->at[0])) {
		h->at[h->n] = pos;
		h->want[h->n] = i;
		h->n++;
	}
}

/* Set in *defined (a bit per enum sym_want) the wanted names that the
 * symbol table sym of e defines, global or weak: 0, or -1 when it is
 * malformed. */
static int symtab_defines(const struct elf *e, const struct shdr *sym, unsigned *defined)
{
	union { Elf64_Sym s64[512]; Elf32_Sym s32[768]; } chunk;   /* 12 KiB either way */
	struct shdr str;
	struct hits h;
	uint64_t esz = e->cls == ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	uint64_t per = e->cls == ELFCLASS64 ? 512 : 768, count, k, m;

	h.n = 0;
	if (sym->link == 0 || sym->link >= e->shnum || elf_shdr(e, sym->link, &str) < 0 ||
	    str.type != SHT_STRTAB)
		return -1;
	if (scan(e, str.offset, str.size < PROGRAM_MAX_TABLE ? str.size : PROGRAM_MAX_TABLE,
	         wanted, NWANT, hit, &h) < 0)
		return -1;
	if (h.n == 0)
		return 0;
	count = (sym->size < PROGRAM_MAX_TABLE ? sym->size : PROGRAM_MAX_TABLE) / esz;
	for (k = 0; k < count; k += m) {
		m = count - k < per ? count - k : per;
		if (rd(e, sym->offset + k * esz, &chunk, (size_t)(m * esz)) < 0)
			return -1;
		for (uint64_t j = 0; j < m; j++) {
			uint64_t name;
			unsigned shndx, bind;
			if (e->cls == ELFCLASS64) {
				name = chunk.s64[j].st_name;
				shndx = chunk.s64[j].st_shndx;
				bind = ELF64_ST_BIND(chunk.s64[j].st_info);
			} else {
				name = chunk.s32[j].st_name;
				shndx = chunk.s32[j].st_shndx;
				bind = ELF32_ST_BIND(chunk.s32[j].st_info);
			}
			if (shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK))
				continue;
			for (unsigned x = 0; x < h.n; x++)
				if (h.at[x] == name)
					*defined |= 1u << h.want[x];
		}
	}
	return 0;
}

/* Set in *defined the wanted names e's symbol tables define; *had_symtab:
 * whether it has a .symtab (is not stripped). */
static void elf_symbols(const struct elf *e, unsigned *defined, int *had_symtab)
{
	struct shdr sh;

	*had_symtab = 0;
	for (unsigned i = 0; i < e->shnum; i++) {
		if (elf_shdr(e, i, &sh) < 0)
			return;
		if (sh.type != SHT_SYMTAB && sh.type != SHT_DYNSYM)
			continue;
		if (sh.entsize != (e->cls == ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym)))
			continue;
		*had_symtab |= sh.type == SHT_SYMTAB;
		symtab_defines(e, &sh, defined);
	}
}

/* The strings a stripped program holds when a runtime is linked in. */
static const char *const markers[] = { "ASTEAL_PROFILE", "GOMP_SPINCOUNT" };

/* Record which marker was seen (scan's callback). */
static void marker_hit(void *arg, int i, uint64_t pos)
{
	(void)pos;
	*(unsigned *)arg |= 1u << i;
}

/* Set in *found (a bit per marker) the markers in e's read-only data: its
 * allocated, neither writable nor executable sections (.rodata), or,
 * without section headers, the whole file; at most PROGRAM_SCAN_MAX
 * bytes in all. */
static void elf_markers(const struct elf *e, unsigned *found)
{
	const int n = (int)(sizeof(markers) / sizeof(markers[0]));
	uint64_t left = PROGRAM_SCAN_MAX, len;
	struct shdr sh;

	if (e->shnum == 0) {
		scan(e, 0, e->size < left ? e->size : left, markers, n, marker_hit, found);
		return;
	}
	for (unsigned i = 0; i < e->shnum && left > 0; i++) {
		if (elf_shdr(e, i, &sh) < 0)
			return;
		if (sh.type != SHT_PROGBITS || !(sh.flags & SHF_ALLOC) ||
		    (sh.flags & (SHF_WRITE | SHF_EXECINSTR)))
			continue;
		len = sh.size < left ? sh.size : left;
		scan(e, sh.offset, len, markers, n, marker_hit, found);
		left -= len;
	}
}

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
			if (depth >= PROGRAM_CONF_DEPTH || *s == '\0')
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
		if (*s == '/' && c->nconf < PROGRAM_MAX_DIRS && (c->conf[c->nconf] = strdup(s)) != NULL)
			c->nconf++;
	}
	fclose(f);
}

/* Whether path is an ELF file of c's class and machine. */
static int fits(const struct closure *c, const char *path)
{
	struct elf e;
	char why[64];
	int ok;

	if (elf_open(&e, path, why, sizeof(why)) < 0)
		return 0;
	ok = e.cls == c->cls && e.machine == c->machine;
	elf_close(&e);
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
	struct dyninfo *d;
	struct elf e;
	char why[64], name[NAME_MAX + 1], path[PATH_MAX], *s;
	char *str = NULL;
	unsigned known;
	int interp;
	enum found_by by;

	if (o->path == NULL || elf_open(&e, o->path, why, sizeof(why)) < 0)
		return;
	d = malloc(sizeof(*d));
	str = malloc(PATH_MAX);
	if (d == NULL || str == NULL || elf_dynamic(&e, d, &interp) < 0 ||
	    e.cls != c->cls || e.machine != c->machine)
		goto out;
	p->nobjects++;
	if (d->has_rpath && dyn_string(&e, d, d->rpath, str, PATH_MAX) != NULL)
		o->rpath = dup_str(str);
	if (d->has_runpath && dyn_string(&e, d, d->runpath, str, PATH_MAX) != NULL)
		o->runpath = dup_str(str);
	if (d->nneeded == PROGRAM_MAX_NEEDED)
		p->truncated = 1;
	for (unsigned k = 0; k < d->nneeded; k++) {
		if (c->edges >= PROGRAM_MAX_EDGES) {
			p->truncated = 1;
			break;
		}
		c->edges++;
		if ((s = dyn_string(&e, d, d->needed[k], name, sizeof(name))) == NULL ||
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
			elf_verneed(&e, d, s, p->gomp_versions, sizeof(p->gomp_versions));
		if (known == PROGRAM_GOMP && (by == BY_PATH || by == BY_RPATH))
			known |= PROGRAM_GOMP_PINNED;
		p->links |= known;
		if (add_obj(c, s, known == 0 && by != BY_NONE ? path : NULL, (int)i) < 0)
			p->truncated = 1;
	}
out:
	free(str);
	free(d);
	elf_close(&e);
}

/* Follow the closure of program p (its path, class and machine) into its
 * links, via, gomp_versions, nobjects and truncated. */
static void walk(struct program *p)
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
	struct dyninfo *d;
	struct elf e;
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
	if (elf_open(&e, p->path, p->why, sizeof(p->why)) < 0) {
		if (errno != ENOEXEC)
			return -1;
		p->kind = PROGRAM_OTHER;
		return 0;
	}
	p->kind = PROGRAM_OTHER;
	if (e.type != ET_EXEC && e.type != ET_DYN) {
		say(p->why, sizeof(p->why), "an ELF file that is not a program");
		elf_close(&e);
		return 0;
	}
	d = malloc(sizeof(*d));
	if (d == NULL || elf_dynamic(&e, d, &interp) < 0) {
		say(p->why, sizeof(p->why), d == NULL ? strerror(ENOMEM) : "a malformed ELF file");
		free(d);
		elf_close(&e);
		return 0;
	}
	free(d);
	p->kind = PROGRAM_ELF;
	p->elf_class = e.cls;
	p->machine = e.machine;
	p->is_static = !interp;
	elf_symbols(&e, &defined, &had_symtab);
	if (defined & (1u << WANT_ASTEAL))
		p->links |= PROGRAM_ASTEAL;
	if (defined & (1u << WANT_GOMP | 1u << WANT_GOMP_START))
		p->links |= PROGRAM_GOMP_STATIC;
	if (defined & (1u << WANT_KMPC))
		p->links |= PROGRAM_LIBOMP;
	if (!had_symtab && !(p->links & (PROGRAM_ASTEAL | PROGRAM_GOMP_STATIC))) {
		elf_markers(&e, &found);
		if (found & 1u)
			p->links |= PROGRAM_ASTEAL;
		if (found & 2u)
			p->links |= PROGRAM_GOMP_STATIC;
	}
	elf_close(&e);
	walk(p);
	return 0;
}

/* The version names the shared object at path defines. */
int program_versions(const char *path, char *buf, size_t len)
{
	struct dyninfo *d = malloc(sizeof(*d));
	char why[64], name[128];
	struct elf e;
	uint64_t off, aux;
	Elf64_Verdef vd;        /* the same layout in both classes */
	Elf64_Verdaux va;
	int interp, r = -1;

	if (len > 0)
		buf[0] = '\0';
	if (d == NULL)
		return -1;
	if (elf_open(&e, path, why, sizeof(why)) < 0) {
		free(d);
		return -1;
	}
	if (elf_dynamic(&e, d, &interp) < 0 || d->verdef == 0 ||
	    elf_offset(&e, d->verdef, &off) < 0)
		goto out;
	r = 0;
	for (uint64_t k = 0; k < d->verdefnum && k < 1024; k++) {
		if (rd(&e, off, &vd, sizeof(vd)) < 0)
			break;
		aux = off + vd.vd_aux;
		/* the base entry names the object itself, not a version */
		if (!(vd.vd_flags & VER_FLG_BASE) && vd.vd_cnt > 0 &&
		    rd(&e, aux, &va, sizeof(va)) == 0 &&
		    dyn_string(&e, d, va.vda_name, name, sizeof(name)) != NULL)
			add_word(buf, len, name);
		if (vd.vd_next == 0)
			break;
		off += vd.vd_next;
	}
out:
	free(d);
	elf_close(&e);
	return r;
}

/* Read the ELF identity of the file at path. */
int program_elf_id(const char *path, int *elf_class, int *machine)
{
	struct elf e;
	char why[64];

	if (elf_open(&e, path, why, sizeof(why)) < 0)
		return -1;
	*elf_class = e.cls;
	*machine = e.machine;
	elf_close(&e);
	return 0;
}
