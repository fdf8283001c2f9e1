#ifndef STITCH_TOOLS_SFRAME_REWRITE_H
#define STITCH_TOOLS_SFRAME_REWRITE_H

#include <stdint.h>

/*
 * Write to out a copy of the linked ELF file in whose .sframe section
 * holds the len bytes of buf instead, every other byte where it was: the
 * section keeps its address and file offset and may grow only into the
 * gap that follows it, up to the next section in the file and in memory;
 * its PT_GNU_SFRAME, and its PT_LOAD where the section ends it, follow
 * its new size. 0, or after saying why on stderr REWRITE_NO_ROOM when the
 * section does not fit, else 1.
 */
#define REWRITE_NO_ROOM 3
int elf_with_sframe(const char *in, const char *out, const uint8_t *buf, uint32_t len);

#endif
