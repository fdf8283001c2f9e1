/*
 * The page tables the kernel starts on: physical memory 1:1 from 0 to
 * max(4 GiB, top of RAM) in 2 MiB pages (the loader keeps running on it
 * for the few instructions up to the jump, and the kernel reads boot_info
 * through it), plus the kernel image at its link address in 4 KiB pages.
 * The kernel replaces them with its own at once (kern/, arch/x86_64/).
 */
#include "loader.h"

#define PTE_PRESENT  0x1ull
#define PTE_WRITE    0x2ull
#define PTE_HUGE     0x80ull /* 2 MiB page in a page directory entry */
#define PTE_ADDR     0x000ffffffffff000ull

#define TWO_MIB (2ull << 20)

static UINTN index_at(UINT64 va, int level) /* level 3 = PML4 ... 0 = PT */
{
	return (va >> (12 + 9 * level)) & 511;
}

/* The table that entry `i` of `table` points to, made when missing. */
static EFI_STATUS next_table(UINT64 *table, UINTN i, UINT64 **next)
{
	EFI_PHYSICAL_ADDRESS page;

	if (!(table[i] & PTE_PRESENT)) {
		TRY(alloc_stitch_pages(1, &page), L"no memory for page tables");
		table[i] = page | PTE_PRESENT | PTE_WRITE;
	}
	*next = (UINT64 *)(table[i] & PTE_ADDR);
	return EFI_SUCCESS;
}

/* Map one page of `size` (4 KiB or 2 MiB) at va -> pa. */
static EFI_STATUS map(UINT64 *pml4, UINT64 va, UINT64 pa, UINT64 size)
{
	int leaf = size == TWO_MIB ? 1 : 0;
	UINT64 *table = pml4;
	EFI_STATUS status;

	for (int level = 3; level > leaf; level--)
		if ((status = next_table(table, index_at(va, level), &table)) != EFI_SUCCESS)
			return status;
	table[index_at(va, leaf)] = pa | PTE_PRESENT | PTE_WRITE | (leaf ? PTE_HUGE : 0);
	return EFI_SUCCESS;
}

EFI_STATUS build_boot_page_tables(struct boot_info *bi, UINT64 top_of_ram,
				  UINT64 *pml4_out)
{
	EFI_PHYSICAL_ADDRESS pml4;
	EFI_STATUS status;
	UINT64 top = top_of_ram > (4ull << 30) ? top_of_ram : (4ull << 30);

	TRY(alloc_stitch_pages(1, &pml4), L"no memory for page tables");
	for (UINT64 pa = 0; pa < top; pa += TWO_MIB)
		if ((status = map((UINT64 *)pml4, pa, pa, TWO_MIB)) != EFI_SUCCESS)
			return status;
	for (UINT64 off = 0; off < bi->kernel_size; off += PAGE_SIZE)
		if ((status = map((UINT64 *)pml4, bi->kernel_virt + off,
				  bi->kernel_phys + off, PAGE_SIZE)) != EFI_SUCCESS)
			return status;
	*pml4_out = pml4;
	return EFI_SUCCESS;
}
