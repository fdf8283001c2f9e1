/*
 * The physical page allocator: one bit per 4 KiB page of RAM, built from
 * the USABLE regions of the memory map. Pages of every other type (the
 * kernel image, initrd and boot_info in BOOT_MEM_STITCH regions, ACPI,
 * firmware) are never handed out. Physical page 0 is never handed out
 * either, so 0 means "no memory".
 */
#ifndef KERN_MM_PMM_H
#define KERN_MM_PMM_H

#include <stddef.h>
#include <stdint.h>
#include "stitch/boot_info.h"

void pmm_init(const struct boot_info *bi);

uint64_t pmm_alloc(void);               /* one page, contents undefined; 0 if none */
uint64_t pmm_alloc_zero(void);          /* one zeroed page; 0 if none */
uint64_t pmm_alloc_pages(size_t n);     /* n physically contiguous pages */
void pmm_free(uint64_t pa);
void pmm_free_pages(uint64_t pa, size_t n); /* panics on a double free */

/* One page below 1 MiB kept out of the pool at init, for the real-mode
 * start of the other CPUs; 0 if the memory map had none. */
extern uint64_t pmm_low_page;

size_t pmm_nfree(void);  /* pages free now: leak tests compare this */

#endif
