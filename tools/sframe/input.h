/*
 * Where the host tools get SFrame sections from: ELF files (objects,
 * executables, shared objects), archives of them, and raw section blobs.
 * ELF parsing is libelf's; this only finds the .sframe section.
 */
#ifndef STITCH_TOOLS_SFRAME_INPUT_H
#define STITCH_TOOLS_SFRAME_INPUT_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One SFrame section as found in a file. */
struct section {
	const uint8_t *data; /* valid until the visit callback returns */
	size_t size;
	uint64_t addr;       /* sh_addr, or --vaddr for a blob */
	bool relocatable;    /* ET_REL: start addresses await relocation */
};

/*
 * Calls visit once per candidate: for a plain ELF or blob with member NULL,
 * for an archive once per member with its name. sec is NULL when that ELF
 * has no .sframe section. With relocate, a relocatable object's section is
 * passed with its .rela.sframe applied (reloc.h says when); a relocation
 * that cannot be applied is reported and that section skipped (status 1).
 * Returns -1 if the file cannot be read, else the bitwise OR of what visit
 * returned.
 */
typedef int (*visit_fn)(void *arg, const char *member, const struct section *sec);
int each_section(const char *path, uint64_t blob_vaddr, bool relocate,
		 visit_fn visit, void *arg);

/* The .sframe section of one ELF, if any (false if none); *scn_out is
 * its section, sec->data its bytes as the file holds them. */
bool find_sframe(Elf *elf, struct section *sec, Elf_Scn **scn_out);

/* Whole file contents (malloc'd), or NULL with errno set. */
uint8_t *read_file(const char *path, size_t *size);

#endif
