#include "reloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe.h"

bool reloc_wanted(const struct section *sec)
{
	if (sec->size < SF_HEADER_SIZE)
		return false;
	uint8_t version = sec->data[2], flags = sec->data[3];
	return version == 3 || (version == 2 && (flags & SF_F_FUNC_START_PCREL));
}

/* Width in bytes of a PC-relative relocation gas emits for a start field,
 * 0 for any other type: only those can be computed without a linker. */
static int pcrel_width(GElf_Half machine, GElf_Word type)
{
	if (machine == EM_X86_64)
		return type == R_X86_64_PC64 ? 8 : type == R_X86_64_PC32 ? 4 : 0;
	if (machine == EM_AARCH64)
		return type == R_AARCH64_PREL64 ? 8 : type == R_AARCH64_PREL32 ? 4 : 0;
	return 0;
}

/* The SHT_RELA section whose sh_info names scn. */
static Elf_Scn *rela_for(Elf *elf, Elf_Scn *scn, GElf_Shdr *rel)
{
	size_t target = elf_ndxscn(scn);
	Elf_Scn *s = NULL;
	while ((s = elf_nextscn(elf, s)))
		if (gelf_getshdr(s, rel) && rel->sh_type == SHT_RELA &&
		    rel->sh_info == target)
			return s;
	return NULL;
}

/* S + A - P into the field at off, little-endian (the library reads only
 * little-endian sections). S is the symbol's st_value: in an object, the
 * offset in its section, which is what readelf prints. */
static bool apply(uint8_t *buf, size_t size, const struct section *sec,
		  const GElf_Rela *r, uint64_t s, int width, char *why, size_t n)
{
	if (r->r_offset > size || (size_t)width > size - r->r_offset) {
		snprintf(why, n, "relocation at 0x%llx outside the section",
			 (unsigned long long)r->r_offset);
		return false;
	}
	int64_t v = (int64_t)(s + (uint64_t)r->r_addend - (sec->addr + r->r_offset));
	if (width == 4 && (v < INT32_MIN || v > INT32_MAX)) {
		snprintf(why, n, "value at 0x%llx does not fit 32 bits",
			 (unsigned long long)r->r_offset);
		return false;
	}
	for (int i = 0; i < width; i++)
		buf[r->r_offset + (size_t)i] = (uint8_t)((uint64_t)v >> (8 * i));
	return true;
}

/* Every entry of the relocation section rs (header rel) applied to buf. */
static bool apply_all(Elf *elf, Elf_Scn *rs, const GElf_Shdr *rel, uint8_t *buf,
		      const struct section *sec, char *why, size_t n)
{
	GElf_Ehdr ehdr;
	Elf_Data *rd = elf_getdata(rs, NULL);
	Elf_Data *syms = elf_getdata(elf_getscn(elf, rel->sh_link), NULL);

	if (!gelf_getehdr(elf, &ehdr) || !rd || !syms || !rel->sh_entsize) {
		snprintf(why, n, "unreadable: %s", elf_errmsg(-1));
		return false;
	}
	for (size_t i = 0; i < rel->sh_size / rel->sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		if (!gelf_getrela(rd, (int)i, &r) ||
		    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym)) {
			snprintf(why, n, "entry %zu unreadable: %s", i, elf_errmsg(-1));
			return false;
		}
		GElf_Word type = (GElf_Word)GELF_R_TYPE(r.r_info);
		int width = pcrel_width(ehdr.e_machine, type);
		if (!width) {
			snprintf(why, n, "entry %zu: relocation type %u not supported", i, type);
			return false;
		}
		if (!apply(buf, sec->size, sec, &r, sym.st_value, width, why, n))
			return false;
	}
	return true;
}

uint8_t *relocated_copy(Elf *elf, Elf_Scn *scn, const struct section *sec,
			char *why, size_t n)
{
	GElf_Shdr rel;
	Elf_Scn *rs = rela_for(elf, scn, &rel);
	uint8_t *buf = malloc(sec->size ? sec->size : 1);

	if (!buf) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	memcpy(buf, sec->data, sec->size);
	if (rs && !apply_all(elf, rs, &rel, buf, sec, why, n)) {
		free(buf);
		return NULL;
	}
	return buf;
}
