/*
 * Where the host tool gets .eh_frame and .eh_frame_hdr from: a linked ELF
 * file, through libelf (the ELF parsing is libelf's; this only finds the
 * two sections by name).
 */
#ifndef STITCH_TOOLS_EHFRAME_INPUT_H
#define STITCH_TOOLS_EHFRAME_INPUT_H

#include <gelf.h>
#include <stdbool.h>

#include "ehframe.h"

struct input {
	int fd;
	Elf *elf;
	struct eh_src frame;  /* size 0: the file has no .eh_frame */
	struct eh_src hdr;    /* size 0: no .eh_frame_hdr */
	bool relocatable;     /* ET_REL: addresses still await relocation */
	uint8_t abi;          /* enum eh_abi, from the ELF header */
	bool other_machine;   /* neither x86-64 nor i386 (input_open fails) */
};

/* Open path and find its sections; false (errno or a message printed)
 * when it is not a readable ELF file. */
bool input_open(const char *path, struct input *in);
void input_close(struct input *in);

/* eh_open on the file's sections (eh_open_frame without .eh_frame_hdr,
 * when allow_no_hdr); prints why not, prefixed by path. */
int input_table(const char *path, const struct input *in, bool allow_no_hdr,
		struct eh_table *t);

#endif
