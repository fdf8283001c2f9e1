/*
 * The hand-off from the UEFI loader (boot/) to the kernel (kern/).
 *
 * The loader fills one struct boot_info, exits boot services and jumps to
 * the kernel's ELF entry point with
 *
 *     rdi = physical address of the struct boot_info
 *     interrupts disabled, CR3 = page tables built by the loader that map
 *       - physical memory 1:1 from 0 up to max(4 GiB, top of RAM), and
 *       - every kernel PT_LOAD segment at its link-time virtual address.
 *
 * The kernel switches to its own stack and its own page tables at once; it
 * never relies on the firmware's page tables, GDT or IDT.
 *
 * Everything here is plain C with fixed-size types so that the loader
 * (gnu-efi, MS ABI inside, SysV ABI at the jump) and the kernel agree.
 */
#ifndef STITCH_BOOT_INFO_H
#define STITCH_BOOT_INFO_H

#include <stdint.h>

#define BOOT_INFO_MAGIC   0x4f464e4948435453ull /* "STCHINFO" */
#define BOOT_INFO_VERSION 2

/* Link address of the kernel (linker.ld) and base of the direct map. */
#define KERNEL_VIRT_BASE  0xffffffff80000000ull
#define PHYS_MAP_BASE     0xffff800000000000ull

/*
 * Memory the loader allocates for the kernel (image, initrd, command line,
 * boot_info, boot page tables) uses this OS-defined UEFI memory type, so it
 * is still recognisable in the final memory map after ExitBootServices.
 */
#define BOOT_EFI_STITCH_MEMORY_TYPE 0x80000001u

/* The loader translates UEFI memory types into these. */
enum boot_mem_type {
	BOOT_MEM_USABLE = 1,   /* free RAM: conventional, boot services, loader */
	BOOT_MEM_STITCH,       /* allocated by the loader for the kernel: keep */
	BOOT_MEM_ACPI_RECLAIM, /* ACPI tables: usable once they are parsed */
	BOOT_MEM_ACPI_NVS,
	BOOT_MEM_RUNTIME,      /* UEFI runtime services code and data */
	BOOT_MEM_MMIO,
	BOOT_MEM_RESERVED,     /* everything else, including unusable RAM */
};

struct boot_mem_region {
	uint64_t base;   /* physical address, page aligned */
	uint64_t length; /* bytes, a multiple of 4096 */
	uint32_t type;   /* enum boot_mem_type */
	uint32_t pad;
};

#define BOOT_FB_RGBX 1 /* byte order red, green, blue, reserved */
#define BOOT_FB_BGRX 2

struct boot_framebuffer {
	uint64_t base;   /* physical address, 0 when there is no GOP */
	uint64_t size;   /* bytes */
	uint32_t width, height;
	uint32_t pitch;  /* bytes per scan line */
	uint32_t format; /* BOOT_FB_* */
	/* Scan lines from the top that hold the firmware's and the loader's
	 * text, which the kernel's console leaves as they are. */
	uint32_t text_bottom;
	uint32_t pad;
};

#define BOOT_MEM_MAX     512
#define BOOT_CMDLINE_MAX 1024

struct boot_info {
	uint64_t magic;   /* BOOT_INFO_MAGIC */
	uint32_t version; /* BOOT_INFO_VERSION */
	uint32_t size;    /* sizeof(struct boot_info) as the loader saw it */

	uint64_t kernel_phys; /* physical range holding all PT_LOAD segments, */
	uint64_t kernel_size; /* contiguous and page aligned; kernel_phys is */
	uint64_t kernel_virt; /* mapped at kernel_virt (lowest PT_LOAD page) */

	uint64_t initrd_phys; /* cpio "newc" archive; size 0 when absent */
	uint64_t initrd_size;

	uint64_t rsdp_phys;    /* ACPI RSDP, 0 when not found */
	uint32_t acpi_version; /* 2 for an ACPI 2.0+ RSDP (XSDT), 1 otherwise */
	uint32_t pad;

	struct boot_framebuffer fb;

	/* RAM the loader reserved for records kept across a warm reset
	 * (include/stitch/keep.h), 2 MiB aligned; size 0 when there is no
	 * writable data partition on the boot medium to save them to. */
	uint64_t keep_phys;
	uint64_t keep_size;

	char cmdline[BOOT_CMDLINE_MAX]; /* NUL-terminated, from \stitch\cmdline.txt */

	uint32_t mem_count;   /* entries used in mem[], sorted by base */
	uint32_t mem_dropped; /* UEFI descriptors that did not fit in mem[] */
	struct boot_mem_region mem[BOOT_MEM_MAX];
};

/*
 * Add a region to bi->mem, kept sorted by base, merged with a neighbour of
 * the same type that it touches. Used by both producers of boot_info (the
 * UEFI loader and the kernel's PVH entry); a region that does not fit is
 * counted in mem_dropped, which the kernel reports.
 */
static inline void boot_mem_add(struct boot_info *bi, uint64_t base, uint64_t length,
				uint32_t type)
{
	struct boot_mem_region *m = bi->mem;
	uint32_t i = bi->mem_count;

	while (i > 0 && m[i - 1].base > base)
		i--;
	if (i > 0 && m[i - 1].type == type && m[i - 1].base + m[i - 1].length == base) {
		m[i - 1].length += length;
		return;
	}
	if (i < bi->mem_count && m[i].type == type && base + length == m[i].base) {
		m[i].base = base;
		m[i].length += length;
		return;
	}
	if (bi->mem_count == BOOT_MEM_MAX) {
		bi->mem_dropped++;
		return;
	}
	for (uint32_t j = bi->mem_count; j > i; j--)
		m[j] = m[j - 1];
	m[i] = (struct boot_mem_region){ .base = base, .length = length, .type = type };
	bi->mem_count++;
}

#endif
