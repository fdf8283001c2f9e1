/*
 * Reading .symtab (System V ABI, "Symbol Table") out of an untrusted
 * ELF64 file: section headers, the SHT_SYMTAB section and its linked
 * string table, all inside the file; names must end inside their table.
 */
#include "kern/profile/elfsym.h"
#include "kern/proc/elf.h"
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/lib/string.h"

static bool inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* Heapsort by address: no recursion, no extra memory, n log n even for
 * a program with 100 000 functions. */
static void sift(struct elfsym *a, uint32_t i, uint32_t n)
{
	for (uint32_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && a[c + 1].addr > a[c].addr)
			c++;
		if (a[i].addr >= a[c].addr)
			return;
		struct elfsym t = a[i];
		a[i] = a[c];
		a[c] = t;
	}
}

static void sort(struct elfsym *a, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		sift(a, i, n);
	for (uint32_t end = n; end-- > 1;) {
		struct elfsym t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift(a, 0, end);
	}
}

static void read_loads(const uint8_t *file, uint64_t size, struct elfsyms *out)
{
	const struct elf64_ehdr *eh = (const void *)file;
	if (eh->phentsize != sizeof(struct elf64_phdr) ||
	    !inside(eh->phoff, (uint64_t)eh->phnum * sizeof(struct elf64_phdr), size))
		return;
	const struct elf64_phdr *ph = (const void *)(file + eh->phoff);
	for (uint32_t i = 0; i < eh->phnum && out->nloads < ARRAY_SIZE(out->load); i++)
		if (ph[i].type == PT_LOAD) {
			out->load[out->nloads].offset = ph[i].offset;
			out->load[out->nloads].vaddr = ph[i].vaddr;
			out->load[out->nloads].filesz = ph[i].filesz;
			out->nloads++;
		}
}

static const struct elf64_shdr *find_symtab(const uint8_t *file, uint64_t size,
					    const struct elf64_shdr **strtab)
{
	const struct elf64_ehdr *eh = (const void *)file;
	if (eh->shentsize != sizeof(struct elf64_shdr) ||
	    !inside(eh->shoff, (uint64_t)eh->shnum * sizeof(struct elf64_shdr), size))
		return NULL;
	const struct elf64_shdr *sh = (const void *)(file + eh->shoff);
	for (uint32_t i = 0; i < eh->shnum; i++) {
		if (sh[i].type != SHT_SYMTAB || sh[i].link >= eh->shnum ||
		    sh[i].entsize != sizeof(struct elf64_sym) ||
		    !inside(sh[i].offset, sh[i].size, size))
			continue;
		*strtab = &sh[sh[i].link];
		if (inside((*strtab)->offset, (*strtab)->size, size))
			return &sh[i];
	}
	return NULL;
}

int elfsyms_load(const uint8_t *file, uint64_t size, struct elfsyms *out)
{
	static const uint8_t magic[] = { 0x7f, 'E', 'L', 'F', 2 /* ELFCLASS64 */ };
	const struct elf64_shdr *symtab, *strtab = NULL;

	*out = (struct elfsyms){ .file = file };
	if (size < sizeof(struct elf64_ehdr) || memcmp(file, magic, sizeof(magic)))
		return -1;
	read_loads(file, size, out);
	if (!(symtab = find_symtab(file, size, &strtab)))
		return 0; /* stripped: no names, not an error */
	const struct elf64_sym *sym = (const void *)(file + symtab->offset);
	const char *str = (const char *)file + strtab->offset;
	uint64_t count = symtab->size / sizeof(*sym);
	if (count > UINT32_MAX / sizeof(struct elfsym) ||
	    !(out->sym = kmalloc(MAX(count, 1) * sizeof(struct elfsym))))
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		if ((sym[i].info & 0xf) != STT_FUNC || sym[i].shndx == 0 ||
		    sym[i].name >= strtab->size ||
		    strnlen(str + sym[i].name, strtab->size - sym[i].name) ==
			    strtab->size - sym[i].name)
			continue;
		out->sym[out->n++] = (struct elfsym){ sym[i].value, sym[i].size,
						      str + sym[i].name };
	}
	sort(out->sym, out->n);
	return 0;
}

const char *elfsyms_find(const struct elfsyms *s, uint64_t vaddr)
{
	uint32_t lo = 0, hi = s->n;
	while (lo < hi) { /* the last symbol at or below vaddr */
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->sym[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct elfsym *f = &s->sym[lo - 1];
	/* Size 0 (assembly without .size): up to the next symbol. */
	if (vaddr - f->addr < f->size || (f->size == 0 && lo < s->n))
		return f->name;
	return NULL;
}

bool elfsyms_vaddr(const struct elfsyms *s, uint64_t offset, uint64_t *vaddr)
{
	for (uint32_t i = 0; i < s->nloads; i++)
		if (offset - s->load[i].offset < s->load[i].filesz) {
			*vaddr = s->load[i].vaddr + (offset - s->load[i].offset);
			return true;
		}
	return false;
}
