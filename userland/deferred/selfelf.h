/*
 * A program's own program headers: ld maps the ELF header and the program
 * headers with the first PT_LOAD and names the header __ehdr_start. For the
 * workloads that register SFrame sections for their own text.
 */
#ifndef DEFERRED_SELFELF_H
#define DEFERRED_SELFELF_H

#include <stdint.h>
#include <string.h>
#include <stitch/elf.h>

extern const unsigned char __ehdr_start[];

/* The first program header of `type` with all of `flags`, or NULL. */
static inline const struct elf64_phdr *own_phdr(uint32_t type, uint32_t flags)
{
	struct elf64_ehdr eh;
	memcpy(&eh, __ehdr_start, sizeof eh);
	const struct elf64_phdr *ph = (const struct elf64_phdr *)(__ehdr_start + eh.phoff);
	for (int i = 0; i < eh.phnum; i++)
		if (ph[i].type == type && (ph[i].flags & flags) == flags)
			return &ph[i];
	return NULL;
}

#endif
