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

/* An ELF64 little-endian file whose program headers lie in the file. */
static bool phdrs_ok(const struct elf64_ehdr *e, uint64_t size)
{
	return size >= sizeof(*e) && memcmp(e->ident, "\x7f" "ELF", 4) == 0 &&
	       e->ident[4] == 2 /* 64-bit */ && e->ident[5] == 1 /* LE */ &&
	       e->ident[6] == 1 && e->phentsize == sizeof(struct elf64_phdr) &&
	       e->phnum > 0 && e->phnum <= MAX_PHNUM &&
	       in_file(e->phoff, (uint64_t)e->phnum * sizeof(struct elf64_phdr), size);
}

/* ... and a static x86_64 executable. */
static bool header_ok(const struct elf64_ehdr *e, uint64_t size)
{
	return phdrs_ok(e, size) && e->type == ET_EXEC &&
	       e->machine == EM_X86_64 && e->version == 1;
}

static int add_load(struct elf_image *img, const struct elf64_phdr *p,
		    const uint8_t *file, uint64_t size)
{
	if (p->memsz == 0)
		return 0;
	if (img->nloads == ELF_MAX_LOADS || p->filesz > p->memsz ||
	    !in_file(p->offset, p->filesz, size) || p->vaddr < ELF_LOAD_MIN ||
	    p->memsz > ELF_LOAD_MAX || p->vaddr > ELF_LOAD_MAX - p->memsz)
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
	if (size < sizeof(e))
		return 0;
	memcpy(&e, file, sizeof(e));
	if (!phdrs_ok(&e, size))
		return 0;
	for (int i = 0; i < e.phnum; i++) {
		struct elf64_phdr p;
		memcpy(&p, file + e.phoff + i * sizeof(p), sizeof(p));
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
	if (size < sizeof(e))
		return NOEXEC;
	memcpy(&e, file, sizeof(e)); /* the file need not be aligned */
	if (!header_ok(&e, size))
		return NOEXEC;
	out->entry = e.entry;
	for (int i = 0; i < e.phnum; i++) {
		struct elf64_phdr p;
		memcpy(&p, file + e.phoff + i * sizeof(p), sizeof(p));
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
