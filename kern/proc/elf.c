#include "kern/proc/elf.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"
#include "kern/mm/vm.h"
#include "stitch/syscall.h"


#define MAX_PHNUM 64

#define NOEXEC (-STITCH_ENOEXEC)

/* [off, off + len) inside [0, size), without overflow. */
static bool in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* The file header, an ELF32 one widened to ELF64's fields: true if the
 * file is a little-endian ELF of either class whose program headers lie
 * in the file. */
static bool read_ehdr(const uint8_t *file, uint64_t size, struct elf64_ehdr *e)
{
	if (size < sizeof(struct elf32_ehdr) || memcmp(file, "\x7f" "ELF", 4) != 0 ||
	    file[5] != 1 /* LE */ || file[6] != 1)
		return false;
	uint64_t phentsize;
	if (file[4] == ELFCLASS64 && size >= sizeof(*e)) {
		memcpy(e, file, sizeof(*e)); /* the file need not be aligned */
		phentsize = sizeof(struct elf64_phdr);
	} else if (file[4] == ELFCLASS32) {
		struct elf32_ehdr h;
		memcpy(&h, file, sizeof(h));
		*e = (struct elf64_ehdr){
			.type = h.type, .machine = h.machine, .version = h.version,
			.entry = h.entry, .phoff = h.phoff, .shoff = h.shoff,
			.flags = h.flags, .ehsize = h.ehsize, .phentsize = h.phentsize,
			.phnum = h.phnum, .shentsize = h.shentsize, .shnum = h.shnum,
			.shstrndx = h.shstrndx,
		};
		memcpy(e->ident, h.ident, sizeof(e->ident));
		phentsize = sizeof(struct elf32_phdr);
	} else {
		return false;
	}
	return e->phentsize == phentsize && e->phnum > 0 && e->phnum <= MAX_PHNUM &&
	       in_file(e->phoff, (uint64_t)e->phnum * phentsize, size);
}

/* Program header i of a file read_ehdr accepted, widened to ELF64's. */
static struct elf64_phdr read_phdr(const uint8_t *file, const struct elf64_ehdr *e, int i)
{
	const uint8_t *at = file + e->phoff + (uint64_t)i * e->phentsize;
	struct elf64_phdr p;
	if (e->ident[4] == ELFCLASS64) {
		memcpy(&p, at, sizeof(p));
		return p;
	}
	struct elf32_phdr h;
	memcpy(&h, at, sizeof(h));
	return (struct elf64_phdr){
		.type = h.type, .flags = h.flags, .offset = h.offset, .vaddr = h.vaddr,
		.paddr = h.paddr, .filesz = h.filesz, .memsz = h.memsz, .align = h.align,
	};
}

/* ... and a static executable: x86_64, or i386 in an ELF32 file. */
static bool header_ok(const uint8_t *file, uint64_t size, struct elf64_ehdr *e)
{
	return read_ehdr(file, size, e) && e->type == ET_EXEC && e->version == 1 &&
	       e->machine == (e->ident[4] == ELFCLASS64 ? EM_X86_64 : EM_386);
}

static int add_load(struct elf_image *img, const struct elf64_phdr *p,
		    const uint8_t *file, uint64_t size)
{
	if (p->memsz == 0)
		return 0;
	uint64_t max = img->compat ? ELF32_LOAD_MAX : ELF_LOAD_MAX;
	if (img->nloads == ELF_MAX_LOADS || p->filesz > p->memsz ||
	    !in_file(p->offset, p->filesz, size) || p->vaddr < ELF_LOAD_MIN ||
	    p->memsz > max || p->vaddr > max - p->memsz)
		return NOEXEC;
	/* Ascending, and no page shared with the previous segment: each page
	 * belongs to one region with one set of permissions. */
	if (img->nloads && PAGE_ROUND_DOWN(p->vaddr) < PAGE_ROUND_UP(img->end))
		return NOEXEC;
	img->loads[img->nloads++] = (struct elf_segment){
		.vaddr = p->vaddr, .memsz = p->memsz, .data = file + p->offset,
		.filesz = p->filesz, .offset = p->offset,
		.prot = (p->flags & PF_W ? VM_WRITE : 0) | (p->flags & PF_X ? VM_EXEC : 0),
	};
	img->end = p->vaddr + p->memsz;
	return 0;
}

/* Finds NT_GNU_BUILD_ID among the notes [off, off + len) of the file:
 * its size, copied to id, or 0. */
static uint32_t find_build_id(uint8_t *id, const uint8_t *file, uint64_t off,
			      uint64_t len)
{
	uint64_t end = off + len;
	while (end - off >= 12) {
		uint32_t n[3];
		memcpy(n, file + off, sizeof(n)); /* namesz, descsz, type */
		uint64_t name = off + 12, desc = name + ROUND_UP((uint64_t)n[0], 4);
		if (n[0] > len || n[1] > len || desc > end ||
		    ROUND_UP((uint64_t)n[1], 4) > end - desc)
			return 0;
		if (n[2] == NT_GNU_BUILD_ID && n[0] == 4 &&
		    memcmp(file + name, "GNU", 4) == 0 && n[1] <= ELF_BUILD_ID_MAX) {
			memcpy(id, file + desc, n[1]);
			return n[1];
		}
		off = desc + ROUND_UP((uint64_t)n[1], 4);
	}
	return 0;
}

uint32_t elf_build_id(const uint8_t *file, uint64_t size,
		      uint8_t id[ELF_BUILD_ID_MAX])
{
	struct elf64_ehdr e;
	if (!read_ehdr(file, size, &e))
		return 0;
	for (int i = 0; i < e.phnum; i++) {
		struct elf64_phdr p = read_phdr(file, &e, i);
		uint32_t n;
		if (p.type == PT_NOTE && in_file(p.offset, p.filesz, size) &&
		    (n = find_build_id(id, file, p.offset, p.filesz)))
			return n;
	}
	return 0;
}

/* The index of the executable segment that holds the entry point, or -1. */
static int entry_segment(const struct elf_image *img)
{
	for (int i = 0; i < img->nloads; i++) {
		const struct elf_segment *s = &img->loads[i];
		if ((s->prot & VM_EXEC) && img->entry >= s->vaddr &&
		    img->entry - s->vaddr < s->memsz)
			return i;
	}
	return -1;
}

int elf_parse(const uint8_t *file, uint64_t size, struct elf_image *out)
{
	struct elf64_ehdr e;
	memset(out, 0, sizeof(*out));
	if (!header_ok(file, size, &e))
		return NOEXEC;
	out->entry = e.entry;
	out->compat = e.ident[4] == ELFCLASS32;
	for (int i = 0; i < e.phnum; i++) {
		struct elf64_phdr p = read_phdr(file, &e, i);
		if (p.type == PT_LOAD) {
			int err = add_load(out, &p, file, size);
			if (err)
				return err;
		} else if (p.type == PT_NOTE && in_file(p.offset, p.filesz, size) &&
			   !out->build_id_size) {
			out->build_id_size = find_build_id(out->build_id, file,
							   p.offset, p.filesz);
		} else if (p.type == PT_GNU_SFRAME) {
			out->sframe_addr = p.vaddr;
			out->sframe_size = p.memsz;
		} else if (p.type == PT_GNU_EH_FRAME) {
			out->eh_hdr_addr = p.vaddr;
			out->eh_hdr_size = p.memsz;
		}
	}
	/* .eh_frame's size is not in its header: the registry bounds it by
	 * the PT_LOAD segment that holds .eh_frame_hdr, where ld puts
	 * .eh_frame too (the first use checks that eh_frame_ptr lies in it). */
	for (int i = 0; out->eh_hdr_addr && i < out->nloads; i++) {
		const struct elf_segment *l = &out->loads[i];
		if (out->eh_hdr_addr >= l->vaddr && out->eh_hdr_addr - l->vaddr < l->memsz)
			out->eh_seg = i + 1;
	}
	out->text = entry_segment(out);
	return out->text >= 0 ? 0 : NOEXEC;
}
