/*
 * A program's own program headers: ld maps the ELF header and the program
 * headers with the first PT_LOAD and names the header __ehdr_start. For the
 * workloads that register SFrame sections for their own text.
 */
#ifndef DEFERRED_SELFELF_H
#define DEFERRED_SELFELF_H

#include <stdint.h>
#include <string.h>

#define PT_LOAD 1
#define PT_GNU_EH_FRAME 0x6474e550
#define PT_GNU_SFRAME 0x6474e554
#define PF_X 1

struct phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

extern const unsigned char __ehdr_start[];

/* The program headers, *n of them. */
static inline const struct phdr *own_phdrs(int *n)
{
	uint64_t phoff;
	uint16_t phnum;
	memcpy(&phoff, __ehdr_start + 32, sizeof phoff);  /* e_phoff */
	memcpy(&phnum, __ehdr_start + 56, sizeof phnum);  /* e_phnum */
	*n = phnum;
	return (const struct phdr *)(__ehdr_start + phoff);
}

/* The first program header of `type` with all of `flags`, or NULL. */
static inline const struct phdr *own_phdr(uint32_t type, uint32_t flags)
{
	int n;
	const struct phdr *ph = own_phdrs(&n);
	for (int i = 0; i < n; i++)
		if (ph[i].type == type && (ph[i].flags & flags) == flags)
			return &ph[i];
	return NULL;
}

/* The PT_LOAD that holds vaddr, or NULL. */
static inline const struct phdr *own_load_holding(uint64_t vaddr)
{
	int n;
	const struct phdr *ph = own_phdrs(&n);
	for (int i = 0; i < n; i++)
		if (ph[i].type == PT_LOAD && vaddr - ph[i].vaddr < ph[i].memsz)
			return &ph[i];
	return NULL;
}

#endif
