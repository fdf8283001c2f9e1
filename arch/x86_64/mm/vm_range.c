/*
 * Unmapping a range of user pages at once (munmap, sbrk shrinking, process
 * teardown): one walk over the page tables that skips absent subtrees,
 * instead of one vm_unmap per page, which would cost a full walk for each
 * of the up to millions of pages a region may span. The walk goes a batch
 * of frames at a time, so that an address space shared by threads on
 * other CPUs can have their TLBs flushed before the frames are freed
 * (kern/mm/uvm.c, unmap_pages).
 */
#include "arch/x86_64/mm/mmu.h"
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
 * starting at base) that map [start, end): leaf frames and the lower
 * tables that end up empty go into b. Stops while b still has room for a
 * leaf and the three tables above it. Returns the address below which
 * [start, end) is clear in this table (end when all of it).
 */
static uint64_t unmap_table(uint64_t *t, int level, uint64_t base,
			    uint64_t start, uint64_t end, struct vm_batch *b)
{
	uint64_t span = entry_span(level);
	for (int i = 0; i < PT_ENTRIES; i++) {
		uint64_t lo = base + i * span, hi = lo + span;
		if (hi <= start || lo >= end || !(t[i] & PTE_P))
			continue;
		if (b->n + 4 > VM_BATCH_FRAMES)
			return MAX(lo, start);
		if (level == 1) {
			b->frames[b->n++] = t[i] & PTE_ADDR;
			t[i] = 0;
			continue;
		}
		if (t[i] & PTE_PS)
			panic("vm_unmap_batch: large page at 0x%lx in the user half", lo);
		uint64_t *sub = p2v(t[i] & PTE_ADDR);
		uint64_t done = unmap_table(sub, level - 1, lo, start, end, b);
		if (table_empty(sub)) {
			b->frames[b->n++] = t[i] & PTE_ADDR;
			t[i] = 0;
		}
		if (done < MIN(hi, end))
			return done;
	}
	return end;
}

uint64_t vm_unmap_batch(struct vm_space *as, uint64_t start, uint64_t end,
			struct vm_batch *b)
{
	if (start >= end || end > USER_TOP)
		return end;
	uint64_t done = unmap_table(p2v(as->root), 4, 0, start, end, b);
	/* Stale TLB entries for the range: reload CR3 (the user half is not
	 * global, so this drops them all, and the paging-structure caches). */
	if (vm_is_current(as))
		vm_switch(as);
	return done;
}

/* In VEC_CALL's handler: a CPU still on the address space drops its
 * translations (a CR3 write flushes every non-global entry). */
static void flush_if_current(void *as)
{
	if (vm_is_current(as))
		vm_switch(as);
}

void vm_flush_others(const struct vm_space *as)
{
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		if (cpu != arch_cpu_id())
			arch_smp_call(cpu, flush_if_current, (void *)as);
}
