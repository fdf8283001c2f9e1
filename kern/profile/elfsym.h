/*
 * Function symbols of an ELF64 file in the initrd, for the profile
 * summary the kernel prints (kern/profile/summary.c): .symtab's STT_FUNC entries,
 * sorted by address, names pointing into the file (the initrd stays in
 * memory). The file is untrusted: every section, entry and name is bounds
 * checked; a bad table yields fewer symbols, never a wild read.
 */
#ifndef KERN_PROFILE_ELFSYM_H
#define KERN_PROFILE_ELFSYM_H

#include <stdbool.h>
#include <stdint.h>

struct elfsym {
	uint64_t addr, size;
	const char *name;
};

struct elfsyms {
	const uint8_t *file;  /* the initrd file they came from */
	struct elfsym *sym;   /* kmalloc'd, ascending addr */
	uint32_t n;
	/* PT_LOAD segments: file offset -> virtual address */
	uint32_t nloads;
	struct { uint64_t offset, vaddr, filesz; } load[8];
};

/* 0 and *out (kfree(out->sym) when done), or -1: no ELF64, no memory. */
int elfsyms_load(const uint8_t *file, uint64_t size, struct elfsyms *out);
/* The function containing the ELF virtual address, or NULL. */
const char *elfsyms_find(const struct elfsyms *s, uint64_t vaddr);
/* The virtual address of a file offset (its PT_LOAD); false if none. */
bool elfsyms_vaddr(const struct elfsyms *s, uint64_t offset, uint64_t *vaddr);

#endif
