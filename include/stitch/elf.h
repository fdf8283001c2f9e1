/*
 * The ELF64 layouts and numbers Stitch reads, and the ELF32 headers of
 * i386 executables (System V gABI "Object Files"; the x86-64 psABI for
 * EM_X86_64 and the relocations, the i386 psABI for EM_386; GNU's
 * PT_GNU_EH_FRAME and PT_GNU_SFRAME, binutils include/elf/common.h), in
 * one place for the kernel's loader and symbol reader and the user
 * programs: neither the freestanding kernel nor newlib has <elf.h>. Host
 * tools use their C library's.
 */
#ifndef STITCH_ELF_H
#define STITCH_ELF_H

#include <stdint.h>

struct elf64_ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

/* ELF32: an i386 executable's file and program headers (the loader reads
 * nothing else of a 32-bit file). */
struct elf32_ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint32_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf32_phdr {
	uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};

struct elf64_shdr {
	uint32_t name, type;
	uint64_t flags, addr, offset, size;
	uint32_t link, info;
	uint64_t addralign, entsize;
};

struct elf64_sym {
	uint32_t name;
	uint8_t info, other;
	uint16_t shndx;
	uint64_t value, size;
};

struct elf64_dyn {
	int64_t tag;
	uint64_t val;
};

struct elf64_rela {
	uint64_t offset, info;
	int64_t addend;
};

#define ET_EXEC 2
#define ET_DYN  3
#define EM_386    3
#define EM_X86_64 62
#define ELFCLASS32 1 /* ident[4] */
#define ELFCLASS64 2

#define PT_LOAD         1
#define PT_DYNAMIC      2
#define PT_NOTE         4
#define PT_GNU_EH_FRAME 0x6474e550
#define PT_GNU_SFRAME   0x6474e554
#define PF_X 1
#define PF_W 2

#define SHT_SYMTAB 2
#define STT_FUNC   2
#define NT_GNU_BUILD_ID 3

#define DT_NULL     0
#define DT_PLTRELSZ 2
#define DT_HASH     4
#define DT_STRTAB   5
#define DT_SYMTAB   6
#define DT_RELA     7
#define DT_RELASZ   8
#define DT_JMPREL   23

#define R_X86_64_64        1
#define R_X86_64_GLOB_DAT  6
#define R_X86_64_JUMP_SLOT 7
#define R_X86_64_RELATIVE  8

#endif
