/*
 * elffile.c - one ELF file read with pread (see elffile.h), every offset
 * and size checked against the file before it is read, nothing mapped,
 * nothing run (no ldd).
 *
 * The names a symbol table defines are found without reading a string
 * per symbol: the string table is scanned once for each wanted name
 * followed by its NUL, and the symbols whose name offset is one of those
 * places are the wanted ones.  Strings in read-only data are found the
 * same way, ELFFILE_SCAN_MAX bytes at most.
 *
 * Bounds: ELFFILE_MAX_PHDRS program headers, ELFFILE_MAX_SHDRS section
 * headers and ELFFILE_MAX_DYN dynamic entries read per object,
 * ELFFILE_MAX_NEEDED DT_NEEDED entries kept, ELFFILE_MAX_TABLE bytes of a
 * symbol or string table.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elffile.h"

/* Bounds on what one file may make us read. */
#define ELFFILE_MAX_PHDRS   4096      /* program headers read per object */
#define ELFFILE_MAX_SHDRS   65535     /* section headers read per program */
#define ELFFILE_MAX_DYN     8192      /* dynamic entries read per object */
#define ELFFILE_MAX_TABLE   (256ull << 20)  /* bytes of one symbol or string table */
#define ELFFILE_SCAN_MAX    (64ull << 20)   /* bytes of read-only data searched */
#define ELFFILE_CHUNK       65536     /* bytes read at a time when scanning */

/* This machine's byte order, as ELF spells it. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ELFFILE_DATA ELFDATA2MSB
#else
#define ELFFILE_DATA ELFDATA2LSB
#endif

/* The file header's fields that are read, in 64-bit form, with the sizes
 * of a program and a section header of its class. */
struct ehdr {
	unsigned type, machine, phentsize, phnum, shentsize, shnum;
	uint64_t phoff, shoff;
	size_t phsize, shsize;
};

/* A program header, a section header, in 64-bit form. */
struct phdr { uint32_t type; uint64_t offset, vaddr, filesz; };
struct shdr { uint32_t type, link; uint64_t flags, offset, size, entsize; };

/* Format a reason into buf (len bytes). */
static void say(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "%s", what);
}

/* Read exactly len bytes at off of e, within the file: 0, or -1. */
static int rd(const struct elffile *e, uint64_t off, void *buf, size_t len)
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

/* Read the file header of e, of its class (cls set), into *h: 0, or -1
 * when the file is too short. */
static int elf_header(const struct elffile *e, struct ehdr *h)
{
	union { Elf64_Ehdr w; Elf32_Ehdr n; } x;

	if (rd(e, 0, &x, e->cls == ELFCLASS64 ? sizeof(x.w) : sizeof(x.n)) < 0)
		return -1;
	if (e->cls == ELFCLASS64)
		*h = (struct ehdr){ .type = x.w.e_type, .machine = x.w.e_machine,
		                    .phoff = x.w.e_phoff, .shoff = x.w.e_shoff,
		                    .phentsize = x.w.e_phentsize, .phnum = x.w.e_phnum,
		                    .shentsize = x.w.e_shentsize, .shnum = x.w.e_shnum,
		                    .phsize = sizeof(Elf64_Phdr), .shsize = sizeof(Elf64_Shdr) };
	else
		*h = (struct ehdr){ .type = x.n.e_type, .machine = x.n.e_machine,
		                    .phoff = x.n.e_phoff, .shoff = x.n.e_shoff,
		                    .phentsize = x.n.e_phentsize, .phnum = x.n.e_phnum,
		                    .shentsize = x.n.e_shentsize, .shnum = x.n.e_shnum,
		                    .phsize = sizeof(Elf32_Phdr), .shsize = sizeof(Elf32_Shdr) };
	return 0;
}

/* Open path as an ELF file of this byte order and read its header into
 * *e: 0; or -1 with why (len bytes) and errno (ENOEXEC: not ELF). */
int elffile_open(struct elffile *e, const char *path, char *why, size_t len)
{
	unsigned char id[EI_NIDENT];
	struct ehdr h;
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
	if (id[EI_DATA] != ELFFILE_DATA) {
		say(why, len, "an ELF file of the other byte order");
		goto notexec;
	}
	if (id[EI_VERSION] != EV_CURRENT) {
		say(why, len, "an ELF file of an unknown version");
		goto notexec;
	}
	e->cls = id[EI_CLASS];
	if (e->cls != ELFCLASS64 && e->cls != ELFCLASS32) {
		say(why, len, "an ELF file of an unknown class");
		goto notexec;
	}
	if (elf_header(e, &h) < 0)
		goto truncated;
	e->type = h.type;
	e->machine = h.machine;
	e->phoff = h.phoff;
	e->shoff = h.shoff;
	e->phnum = h.phentsize == h.phsize ? h.phnum : 0;
	e->shnum = h.shentsize == h.shsize ? h.shnum : 0;
	if (h.phnum > 0 && e->phnum == 0)
		goto truncated;
	if (e->phnum > ELFFILE_MAX_PHDRS)
		goto truncated;
	if (e->shoff == 0 || e->shnum > ELFFILE_MAX_SHDRS)
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
void elffile_close(struct elffile *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
}

/* Read entry i of the table at off, whose entries are wide bytes long in
 * an ELFCLASS64 file and narrow in another, into buf: 0, or -1. */
static int elf_entry(const struct elffile *e, uint64_t off, unsigned i, size_t wide,
                     size_t narrow, void *buf)
{
	size_t size = e->cls == ELFCLASS64 ? wide : narrow;

	return rd(e, off + (uint64_t)i * size, buf, size);
}

/* Read program header i of e into *ph: 0, or -1. */
static int elf_phdr(const struct elffile *e, unsigned i, struct phdr *ph)
{
	union { Elf64_Phdr w; Elf32_Phdr n; } p;

	if (elf_entry(e, e->phoff, i, sizeof(p.w), sizeof(p.n), &p) < 0)
		return -1;
	if (e->cls == ELFCLASS64)
		*ph = (struct phdr){ .type = p.w.p_type, .offset = p.w.p_offset,
		                     .vaddr = p.w.p_vaddr, .filesz = p.w.p_filesz };
	else
		*ph = (struct phdr){ .type = p.n.p_type, .offset = p.n.p_offset,
		                     .vaddr = p.n.p_vaddr, .filesz = p.n.p_filesz };
	return 0;
}

/* Read section header i of e into *sh: 0, or -1. */
static int elf_shdr(const struct elffile *e, unsigned i, struct shdr *sh)
{
	union { Elf64_Shdr w; Elf32_Shdr n; } s;

	if (elf_entry(e, e->shoff, i, sizeof(s.w), sizeof(s.n), &s) < 0)
		return -1;
	if (e->cls == ELFCLASS64)
		*sh = (struct shdr){ .type = s.w.sh_type, .link = s.w.sh_link,
		                     .flags = s.w.sh_flags, .offset = s.w.sh_offset,
		                     .size = s.w.sh_size, .entsize = s.w.sh_entsize };
	else
		*sh = (struct shdr){ .type = s.n.sh_type, .link = s.n.sh_link,
		                     .flags = s.n.sh_flags, .offset = s.n.sh_offset,
		                     .size = s.n.sh_size, .entsize = s.n.sh_entsize };
	return 0;
}

/* The file offset of virtual address va in e's loaded segments: 0 with
 * *off, or -1 when no PT_LOAD holds it. */
static int elf_offset(const struct elffile *e, uint64_t va, uint64_t *off)
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
char *elffile_string(const struct elffile *e, const struct elffile_dyn *d, uint64_t at,
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
int elffile_dynamic(const struct elffile *e, struct elffile_dyn *d, int *has_interp)
{
	struct phdr ph, dyn = { 0, 0, 0, 0 };
	uint64_t strtab_va = 0, esz, n;
	int found = 0;
	/* The other entries kept: where each one's value goes, and the flag
	 * it sets. */
	const struct { int64_t tag; uint64_t *to; int *has; } keep[] = {
		{ DT_STRTAB, &strtab_va, &d->has_strtab },
		{ DT_STRSZ, &d->strsz, NULL },
		{ DT_RPATH, &d->rpath, &d->has_rpath },
		{ DT_RUNPATH, &d->runpath, &d->has_runpath },
		{ DT_VERNEED, &d->verneed, NULL },
		{ DT_VERNEEDNUM, &d->verneednum, NULL },
		{ DT_VERDEF, &d->verdef, NULL },
		{ DT_VERDEFNUM, &d->verdefnum, NULL },
	};

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
	if (n > ELFFILE_MAX_DYN)
		n = ELFFILE_MAX_DYN;
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
		if (tag == DT_NEEDED && d->nneeded < ELFFILE_MAX_NEEDED)
			d->needed[d->nneeded++] = val;
		for (size_t f = 0; f < sizeof(keep) / sizeof(keep[0]); f++)
			if (keep[f].tag == tag) {
				*keep[f].to = val;
				if (keep[f].has != NULL)
					*keep[f].has = 1;
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
void elffile_verneed(const struct elffile *e, const struct elffile_dyn *d, const char *file,
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
		if (elffile_string(e, d, vn.vn_file, name, sizeof(name)) != NULL &&
		    strcmp(name, file) == 0) {
			aux = off + vn.vn_aux;
			for (unsigned a = 0; a < vn.vn_cnt && a < 256; a++) {
				if (rd(e, aux, &va, sizeof(va)) < 0)
					break;
				if (elffile_string(e, d, va.vna_name, name, sizeof(name)) != NULL)
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

/* Add to buf (len bytes) the version names e's DT_VERDEF defines, its own
 * name left out: 0, or -1 when it has none. */
int elffile_verdef(const struct elffile *e, const struct elffile_dyn *d, char *buf, size_t len)
{
	char name[128];
	uint64_t off, aux;
	Elf64_Verdef vd;        /* the same layout in both classes */
	Elf64_Verdaux va;

	if (d->verdef == 0 || elf_offset(e, d->verdef, &off) < 0)
		return -1;
	for (uint64_t k = 0; k < d->verdefnum && k < 1024; k++) {
		if (rd(e, off, &vd, sizeof(vd)) < 0)
			break;
		aux = off + vd.vd_aux;
		/* the base entry names the object itself, not a version */
		if (!(vd.vd_flags & VER_FLG_BASE) && vd.vd_cnt > 0 &&
		    rd(e, aux, &va, sizeof(va)) == 0 &&
		    elffile_string(e, d, va.vda_name, name, sizeof(name)) != NULL)
			add_word(buf, len, name);
		if (vd.vd_next == 0)
			break;
		off += vd.vd_next;
	}
	return 0;
}

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
static int scan(const struct elffile *e, uint64_t off, uint64_t n,
                const char *const *needles, int count,
                void (*found)(void *arg, int i, uint64_t pos), void *arg)
{
	char buf[ELFFILE_CHUNK + 64];
	size_t maxlen = 0, keep = 0, got, total, carry, nl, end;
	uint64_t done = 0;
	const char *p;

	for (int i = 0; i < count; i++)
		if (strlen(needles[i]) + 1 > maxlen)
			maxlen = strlen(needles[i]) + 1;
	if (maxlen > 64)
		return -1;
	while (done < n) {
		got = n - done < ELFFILE_CHUNK ? (size_t)(n - done) : ELFFILE_CHUNK;
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

/* Set in *defined (a bit per name of names, count of them) the names
 * that the symbol table sym of e defines, global or weak: 0, or -1 when
 * it is malformed. */
static int symtab_defines(const struct elffile *e, const struct shdr *sym,
                          const char *const *names, int count, unsigned *defined)
{
	union { Elf64_Sym s64[512]; Elf32_Sym s32[768]; } chunk;   /* 12 KiB either way */
	struct shdr str;
	struct hits h;
	uint64_t esz = e->cls == ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	uint64_t per = e->cls == ELFCLASS64 ? 512 : 768, nsyms, k, m;

	h.n = 0;
	if (sym->link == 0 || sym->link >= e->shnum || elf_shdr(e, sym->link, &str) < 0 ||
	    str.type != SHT_STRTAB)
		return -1;
	if (scan(e, str.offset, str.size < ELFFILE_MAX_TABLE ? str.size : ELFFILE_MAX_TABLE,
	         names, count, hit, &h) < 0)
		return -1;
	if (h.n == 0)
		return 0;
	nsyms = (sym->size < ELFFILE_MAX_TABLE ? sym->size : ELFFILE_MAX_TABLE) / esz;
	for (k = 0; k < nsyms; k += m) {
		m = nsyms - k < per ? nsyms - k : per;
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

/* Set in *defined the names of names e's symbol tables define;
 * *had_symtab: whether it has a .symtab (is not stripped). */
void elffile_symbols(const struct elffile *e, const char *const *names, int count,
                     unsigned *defined, int *had_symtab)
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
		symtab_defines(e, &sh, names, count, defined);
	}
}

/* Record which string was seen (scan's callback). */
static void marker_hit(void *arg, int i, uint64_t pos)
{
	(void)pos;
	*(unsigned *)arg |= 1u << i;
}

/* Set in *found (a bit per string of strings) the strings in e's
 * read-only data: its allocated, neither writable nor executable sections
 * (.rodata), or, without section headers, the whole file; at most
 * ELFFILE_SCAN_MAX bytes in all. */
void elffile_markers(const struct elffile *e, const char *const *strings, int count,
                     unsigned *found)
{
	uint64_t left = ELFFILE_SCAN_MAX, len;
	struct shdr sh;

	if (e->shnum == 0) {
		scan(e, 0, e->size < left ? e->size : left, strings, count, marker_hit, found);
		return;
	}
	for (unsigned i = 0; i < e->shnum && left > 0; i++) {
		if (elf_shdr(e, i, &sh) < 0)
			return;
		if (sh.type != SHT_PROGBITS || !(sh.flags & SHF_ALLOC) ||
		    (sh.flags & (SHF_WRITE | SHF_EXECINSTR)))
			continue;
		len = sh.size < left ? sh.size : left;
		scan(e, sh.offset, len, strings, count, marker_hit, found);
		left -= len;
	}
}

