/*
 * Relocations of .sframe in relocatable objects (.rela.sframe), applied as
 * `readelf` of binutils 2.46 applies them before dumping: each function
 * start becomes its offset in its own text section.
 */
#ifndef STITCH_TOOLS_SFRAME_RELOC_H
#define STITCH_TOOLS_SFRAME_RELOC_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>

#include "input.h"

/* Whether sec's start fields mean what a PC-relative relocation computes:
 * version 2 with SFRAME_F_FDE_FUNC_START_PCREL, or version 3. Version 1
 * fields are section-relative, but gas 2.40 relocates them PC-relative
 * (ld rewrites them), so they are left as stored, as readelf 2.40 does. */
bool reloc_wanted(const struct section *sec);

/* A malloc'd copy of sec's bytes with every relocation of the SHT_RELA
 * section that targets scn applied, or NULL with the reason in why. */
uint8_t *relocated_copy(Elf *elf, Elf_Scn *scn, const struct section *sec,
			char *why, size_t n);

#endif
