/*
 * Unmapping a range of user pages at once (munmap, sbrk shrinking, process
 * teardown): one walk over the page tables that skips absent subtrees,
 * instead of one vm_unmap per page, which would cost a full walk for each
 * of the up to millions of pages a region may span.
 */
#include "arch/x86_64/mmu.h"
#include "arch/x86_64/x86.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/mm/vm.h"

/* Bytes one entry covers at a level (1: 4 KiB ... 4: 512 GiB). */
static uint64_t entry_span(int level)
{
	return 1ull << (12 + 9 * (level - 1));
}

static bool table_empty(const uint64_t *t)
{
	for (int i = 0; i < PT_ENTRIES; i++)
		if (t[i])
			return false;
	return true;
}

/*
 * Clears the entries of the table at `level` (which covers the range
 * starting at base) that map [start, end): frees leaf frames and the
 * lower tables that end up empty. Returns the frames freed.
 */
static size_t unmap_table(uint64_t *t, int level, uint64_t base,
			  uint64_t start, uint64_t end)
{
	size_t freed = 0;
	uint64_t span = entry_span(level);
	for (int i = 0; i < PT_ENTRIES; i++) {
		uint64_t lo = base + i * span, hi = lo + span;
		if (hi <= start || lo >= end || !(t[i] & PTE_P))
			continue;
		if (level == 1) {
			pmm_free(t[i] & PTE_ADDR);
			t[i] = 0;
			freed++;
			continue;
		}
		if (t[i] & PTE_PS)
			panic("vm_unmap_range: large page at 0x%lx in the user half", lo);
		uint64_t *sub = p2v(t[i] & PTE_ADDR);
		freed += unmap_table(sub, level - 1, lo, start, end);
		if (table_empty(sub)) {
			pmm_free(t[i] & PTE_ADDR);
			t[i] = 0;
		}
	}
	return freed;
}

size_t vm_unmap_range(struct vm_space *as, uint64_t start, uint64_t end)
{
	if (start >= end || end > USER_TOP)
		return 0;
	size_t freed = unmap_table(p2v(as->root), 4, 0, start, end);
	/* Stale TLB entries for the range: reload CR3 (the user half is not
	 * global, so this drops them all). */
	if (vm_is_current(as))
		vm_switch(as);
	return freed;
}
