/*
 * The guest's ELF files on the host, placed where the guest mapped them,
 * and the snapshot's memory: the stack copy, plus whatever the files'
 * loaded segments hold (the unwind tables libunwind reads through its
 * memory accessor).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostunwind.h"
#include "util.h"

/* The load bias: the guest mapped file offset pgoff at start. */
static bool find_bias(struct image *im, const struct mmap_rec *m)
{
	for (size_t i = 0; i < im->nload; i++) {
		const GElf_Phdr *ph = &im->load[i];
		if (m->pgoff >= ph->p_offset && m->pgoff - ph->p_offset < ph->p_filesz) {
			im->bias = (int64_t)(m->start - (ph->p_vaddr + (m->pgoff - ph->p_offset)));
			return true;
		}
	}
	return false;
}

static void find_sections(struct image *im, Elf *e)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx))
		return;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_offset > im->size || sh.sh_size > im->size - sh.sh_offset)
			continue;
		uint64_t addr = sh.sh_addr + (uint64_t)im->bias;
		if (!strcmp(name, ".sframe") && sh.sh_size <= UINT32_MAX) {
			struct sf_src src = { .base = im->file + sh.sh_offset,
					      .size = (uint32_t)sh.sh_size, .vaddr = addr };
			im->has_sframe = !sf_open(&im->sframe, &src) && !sf_validate(&im->sframe);
		} else if (!strcmp(name, ".eh_frame")) {
			eh_frame_index(im, im->file + sh.sh_offset, sh.sh_size, addr);
		}
	}
}

/* Each image's search table gets 4 GiB of addresses in the kernel half,
 * where no user address of a snapshot can be. */
#define EH_TABLE_BASE 0xffff800000000000ull

struct image *image_load(const char *path, const struct mmap_rec *m)
{
	static uint64_t loaded;
	struct image *im = xcalloc(1, sizeof *im);
	im->eh_table_addr = EH_TABLE_BASE + (loaded++ << 32);
	Elf *e = NULL;
	size_t n;
	im->start = m->start;
	im->end = m->start + m->len;
	if (!(im->file = read_file(path, &im->size)) ||
	    !(e = elf_memory((char *)im->file, im->size)) || elf_getphdrnum(e, &n))
		goto fail;
	im->load = xcalloc(n ? n : 1, sizeof *im->load);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_offset <= im->size && ph.p_filesz <= im->size - ph.p_offset)
			im->load[im->nload++] = ph;
	}
	if (!find_bias(im, m))
		goto fail;
	find_sections(im, e);
	elf_end(e);
	return im;
fail:
	if (e)
		elf_end(e);
	image_free(im);
	return NULL;
}

void image_free(struct image *im)
{
	if (!im)
		return;
	free(im->file);
	free(im->load);
	free(im->eh_table);
	free(im);
}

const struct image *snap_image(const struct snap *sn, uint64_t addr)
{
	for (size_t i = 0; i < sn->nimages; i++)
		if (addr >= sn->images[i]->start && addr < sn->images[i]->end)
			return sn->images[i];
	return NULL;
}

/* Bytes of a file's loaded segments (not the bss: nothing reads it here). */
static bool image_read(const struct image *im, uint64_t addr, void *dst, uint32_t len)
{
	uint64_t va = addr - (uint64_t)im->bias;
	for (size_t i = 0; i < im->nload; i++) {
		const GElf_Phdr *ph = &im->load[i];
		if (va >= ph->p_vaddr && va - ph->p_vaddr <= ph->p_filesz &&
		    len <= ph->p_filesz - (va - ph->p_vaddr)) {
			memcpy(dst, im->file + ph->p_offset + (va - ph->p_vaddr), len);
			return true;
		}
	}
	return false;
}

bool snap_read(const struct snap *sn, uint64_t addr, void *dst, uint32_t len)
{
	/* Written so that nothing overflows, whatever addr is. */
	if (addr >= sn->sp && addr - sn->sp <= sn->size && len <= sn->size - (addr - sn->sp)) {
		memcpy(dst, sn->stack + (addr - sn->sp), len);
		return true;
	}
	for (size_t i = 0; i < sn->nimages; i++) {
		const struct image *im = sn->images[i];
		uint64_t tsize = im->neh * 8;
		if (addr >= im->eh_table_addr && addr - im->eh_table_addr <= tsize &&
		    len <= tsize - (addr - im->eh_table_addr)) {
			memcpy(dst, (const uint8_t *)im->eh_table + (addr - im->eh_table_addr), len);
			return true;
		}
		if (image_read(im, addr, dst, len))
			return true;
	}
	return false;
}
