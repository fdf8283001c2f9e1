/*
 * The direct boot path (QEMU -kernel, PVH): pvh.S enters long mode and
 * calls pvh_boot_info (pvh_info.c). Shared by both, so plain #defines.
 */
#ifndef ARCH_X86_64_BOOT_PVH_H
#define ARCH_X86_64_BOOT_PVH_H

/*
 * Where QEMU loads the image: linker.ld gives every section this load
 * address (LMA) plus its offset from KERNEL_VIRT_BASE, and asserts that it
 * agrees with this value. A multiple of 2 MiB: the boot page tables map
 * the image in 2 MiB pages.
 */
#define PVH_KERNEL_PHYS 0x1000000

/* Boot page-table entry bits: present + writable, and 2 MiB page. */
#define PVH_PTE_PW 0x3
#define PVH_PTE_2M 0x80

#ifndef __ASSEMBLY__
#include <stdint.h>

/* struct hvm_start_info at start_info (physical) -> the physical address
 * of a struct boot_info for _start. */
uint64_t pvh_boot_info(uint64_t start_info);

/* pvh.S's boot page tables, in .bss: all zero after a UEFI boot. */
extern uint64_t pvh_pml4[512], pvh_pdpt[512];
#endif

#endif
