/* x86_64 4-level page tables (4 KiB, 2 MiB and 1 GiB pages). */
#ifndef ARCH_X86_64_MM_MMU_H
#define ARCH_X86_64_MM_MMU_H

#include <stdint.h>

#define PTE_P    (1ull << 0)
#define PTE_W    (1ull << 1)
#define PTE_U    (1ull << 2)
#define PTE_PWT  (1ull << 3)
#define PTE_PCD  (1ull << 4)
#define PTE_A    (1ull << 5)
#define PTE_D    (1ull << 6)
#define PTE_PS   (1ull << 7) /* 2 MiB (level 2) or 1 GiB (level 3) page */
#define PTE_G    (1ull << 8)
#define PTE_NX   (1ull << 63)
#define PTE_ADDR 0x000ffffffffff000ull

#define PT_ENTRIES 512
#define LARGE_PAGE_SIZE (2ull << 20)

/* Index of va in the table at `level` (4 = PML4 ... 1 = page table). */
static inline unsigned pt_index(uint64_t va, int level)
{
	return (va >> (12 + 9 * (level - 1))) & 511;
}

#endif
