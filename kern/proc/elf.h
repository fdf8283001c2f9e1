/*
 * ELF64 executables, and ELF32 i386 ones (compat programs: the headers
 * are widened to ELF64's as they are read): validation and the facts the loader needs. The image
 * is untrusted (any initrd file can be spawned): every offset and size is
 * checked against the file and the user address range before use, and
 * anything malformed is -ENOEXEC.
 */
#ifndef KERN_PROC_ELF_H
#define KERN_PROC_ELF_H

#include <stdbool.h>
#include <stdint.h>

#include "stitch/elf.h"

#define ELF_MAX_LOADS    8
#define ELF_BUILD_ID_MAX 20
/* Where an executable may load: above page 0, below where the heap's
 * room, the mmap area and the stack begin (kern/mm/uvm.h). */
#define ELF_LOAD_MIN 0x10000ull
#define ELF_LOAD_MAX 0x0000100000000000ull
/* A compat program's segments end below 2 GiB: the heap's room and the
 * mmap area follow, under 4 GiB (kern/mm/uvm.h). */
#define ELF32_LOAD_MAX 0x80000000ull

struct elf_segment {
	uint64_t vaddr, memsz;   /* memory image [vaddr, vaddr + memsz) */
	const uint8_t *data;     /* its first filesz bytes, in the file */
	uint64_t filesz;
	uint64_t offset;         /* of data in the file */
	unsigned prot;           /* VM_WRITE | VM_EXEC */
};

struct elf_image {
	bool compat;             /* ELF32, EM_386: a compat (i386) program */
	uint64_t entry;
	int nloads;
	struct elf_segment loads[ELF_MAX_LOADS]; /* ascending, no shared pages */
	uint64_t end;            /* end of the highest segment */
	int text;                /* index of the executable segment holding entry */
	uint64_t sframe_addr, sframe_size; /* PT_GNU_SFRAME, 0 if none */
	uint64_t eh_hdr_addr, eh_hdr_size; /* PT_GNU_EH_FRAME, 0 if none */
	int eh_seg;                        /* 1 + the index of the PT_LOAD holding it, or 0 */
	uint8_t build_id[ELF_BUILD_ID_MAX];
	uint32_t build_id_size;  /* 0 if the file has no NT_GNU_BUILD_ID */
};

/* 0 and *out, or -ENOEXEC. */
int elf_parse(const uint8_t *file, uint64_t size, struct elf_image *out);

/* The NT_GNU_BUILD_ID of any ELF file of either class (a shared object
 * too): its size, copied to id, or 0 if there is none or the file is no
 * ELF. */
uint32_t elf_build_id(const uint8_t *file, uint64_t size,
		      uint8_t id[ELF_BUILD_ID_MAX]);

struct uvm;

/* Regions for the executable's segments, an empty heap after them, the
 * stack; registers its PT_GNU_SFRAME and PT_GNU_EH_FRAME (elf_load.c).
 * 0 or -ENOMEM. */
int elf_load(struct uvm *mm, const struct elf_image *img, const char *path);
/* The part of it for any ELF image (the signal page's too): regions for
 * its segments, its PT_GNU_SFRAME and PT_GNU_EH_FRAME registered for its
 * text. 0 or -ENOMEM. */
int elf_map_image(struct uvm *mm, const struct elf_image *img, const char *path);

#endif
