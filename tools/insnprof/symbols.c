/*
 * The kernel's code symbols, read with elfutils' libelf: every FUNC or
 * NOTYPE symbol of an executable section. A symbol without a size (most
 * assembly) runs to the next symbol's address, so every kernel
 * instruction gets a name.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

static int by_start(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (y->end > y->start) - (x->end > x->start); /* sized ones first */
}

static int add(struct syms *s, size_t *cap, uint64_t start, uint64_t size, const char *name)
{
	if (s->n == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		struct sym *v = realloc(s->v, *cap * sizeof *v);
		if (!v)
			return -1;
		s->v = v;
	}
	s->v[s->n++] = (struct sym){ start, start + size, strdup(name) };
	return s->v[s->n - 1].name ? 0 : -1;
}

/* One symbol per address; sizeless ones end where the next one starts. */
static void tidy(struct syms *s)
{
	qsort(s->v, s->n, sizeof *s->v, by_start);
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (k && s->v[k - 1].start == s->v[i].start) {
			free(s->v[i].name);
			continue;
		}
		s->v[k++] = s->v[i];
	}
	s->n = k;
	for (size_t i = 0; i + 1 < s->n; i++)
		if (s->v[i].end <= s->v[i].start || s->v[i].end > s->v[i + 1].start)
			s->v[i].end = s->v[i + 1].start;
}

static int read_symtab(struct syms *s, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	size_t cap = 0;
	Elf_Data *d = elf_getdata(scn, NULL);
	for (size_t i = 0; d && i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Sym sym;
		GElf_Shdr text;
		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE)
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_NOTYPE)
			continue;
		if (!gelf_getshdr(elf_getscn(elf, sym.st_shndx), &text) ||
		    !(text.sh_flags & SHF_EXECINSTR))
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && *name && add(s, &cap, sym.st_value, sym.st_size, name))
			return -1;
	}
	return 0;
}

int syms_load(struct syms *s, const char *path, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open", path);
		return -1;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int rc = -1;
	for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize)
			rc = read_symtab(s, elf, scn, &sh);
	}
	if (rc == 0 && s->n)
		tidy(s);
	/* The load segment that holds the lowest symbol: where it is in
	 * physical memory (PVH loads at p_paddr). */
	size_t nph = 0;
	if (elf && !elf_getphdrnum(elf, &nph))
		for (size_t i = 0; rc == 0 && s->n && i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    s->v[0].start >= ph.p_vaddr && s->v[0].start < ph.p_vaddr + ph.p_memsz) {
				s->phys_delta = ph.p_vaddr - ph.p_paddr;
				s->has_phys = 1;
			}
		}
	else
		snprintf(err, errlen, "%s: %s", path,
			 elf ? "no code symbols (stripped?)" : elf_errmsg(-1));
	elf_end(elf);
	close(fd);
	return rc == 0 && s->n ? 0 : -1;
}

long syms_at(const struct syms *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= s->v[lo - 1].end)
		return -1;
	return (long)lo - 1;
}

long syms_named(const struct syms *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return (long)i;
	return -1;
}
