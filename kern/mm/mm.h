/*
 * Physical and virtual addresses.
 *
 * All physical memory (every memory-map region, and 0-4 GiB for MMIO) is
 * mapped at PHYS_MAP_BASE once kernel_space_init has switched to the kernel's page
 * tables. Before that the loader's identity map is in use, so p2v() adds
 * phys_map_offset, which is 0 until the switch.
 */
#ifndef KERN_MM_MM_H
#define KERN_MM_MM_H

#include <stdint.h>

#include "stitch/boot_info.h"

#define PAGE_SIZE  ((uint64_t)4096)
#define PAGE_SHIFT 12
#define PAGE_ROUND_UP(x) (((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define PAGE_ROUND_DOWN(x) ((x) & ~(PAGE_SIZE - 1))

extern uint64_t phys_map_offset;

static inline void *p2v(uint64_t pa)
{
	return (void *)(pa + phys_map_offset);
}

/* Physical address of a direct-map or kernel-image address. */
uint64_t v2p(const void *va);

/* Linker symbols (linker.ld). */
extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_end[], __kernel_end[];

#endif
