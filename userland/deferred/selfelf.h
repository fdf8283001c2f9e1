/*
 * A program's own program headers: ld maps the ELF header and the program
 * headers with the first PT_LOAD and names the header __ehdr_start. For the
 * workloads that register SFrame or .eh_frame sections for their own text.
 */
#ifndef DEFERRED_SELFELF_H
#define DEFERRED_SELFELF_H

#include <stdint.h>
#include <string.h>
#include <stitch/elf.h>

extern const unsigned char __ehdr_start[];

/* The program headers, *n of them. */
static inline const struct elf64_phdr *own_phdrs(int *n)
{
	struct elf64_ehdr eh;
	memcpy(&eh, __ehdr_start, sizeof eh);
	*n = eh.phnum;
	return (const struct elf64_phdr *)(__ehdr_start + eh.phoff);
}

/* The first program header of `type` with all of `flags`, or NULL. */
static inline const struct elf64_phdr *own_phdr(uint32_t type, uint32_t flags)
{
	int n;
	const struct elf64_phdr *ph = own_phdrs(&n);
	for (int i = 0; i < n; i++)
		if (ph[i].type == type && (ph[i].flags & flags) == flags)
			return &ph[i];
	return NULL;
}

/* The PT_LOAD that holds vaddr, or NULL. */
static inline const struct elf64_phdr *own_load_holding(uint64_t vaddr)
{
	int n;
	const struct elf64_phdr *ph = own_phdrs(&n);
	for (int i = 0; i < n; i++)
		if (ph[i].type == PT_LOAD && vaddr - ph[i].vaddr < ph[i].memsz)
			return &ph[i];
	return NULL;
}

#endif
