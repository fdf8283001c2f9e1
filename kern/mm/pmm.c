/*
 * Physical page allocator: a bitmap over [0, top of usable RAM), one bit
 * per page, set = not free. The bitmap itself lives in the first usable
 * region large enough to hold it, and is reached through p2v() so that it
 * survives the switch from the loader's identity map to the direct map.
 */
#include "kern/mm/pmm.h"
#include <arch/arch.h>
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/lib/spinlock.h"
#include "kern/lib/string.h"

static uint64_t bitmap_pa;
static size_t npages; /* pages the bitmap covers */
static size_t nfree;
static size_t next;   /* where the next search starts (next fit) */
/* Guards the bitmap, nfree and next; a leaf: nothing is taken under it. */
static struct spinlock pmm_lock = SPINLOCK_INIT("pmm");

#define LOW_LIMIT 0x100000ull /* real mode reaches the first MiB */

static uint64_t *bitmap(void)
{
	return p2v(bitmap_pa);
}

static bool used(size_t pg)
{
	return bitmap()[pg / 64] >> (pg % 64) & 1;
}

static void set_used(size_t pg, bool u)
{
	uint64_t bit = 1ull << (pg % 64);
	if (u)
		bitmap()[pg / 64] |= bit;
	else
		bitmap()[pg / 64] &= ~bit;
}

/* A usable region that can hold the bitmap, not at page 0. */
static uint64_t place_bitmap(const struct boot_info *bi, uint64_t bytes)
{
	for (uint32_t i = 0; i < bi->mem_count; i++) {
		const struct boot_mem_region *r = &bi->mem[i];
		uint64_t base = r->base ? r->base : PAGE_SIZE;
		if (r->type == BOOT_MEM_USABLE && r->base + r->length >= base + bytes)
			return base;
	}
	panic("pmm: no usable region holds a %lu-byte bitmap", bytes);
}

/* The highest free page below 1 MiB, taken out of the pool for good: the
 * other CPUs start there in real mode (arch/x86_64/smp/smp.c). 0 if none. */
uint64_t pmm_low_page;

static void reserve_low_page(void)
{
	for (size_t pg = MIN(npages, LOW_LIMIT / PAGE_SIZE); pg-- > 1;)
		if (!used(pg)) {
			set_used(pg, true);
			nfree--;
			pmm_low_page = pg * PAGE_SIZE;
			return;
		}
}

void pmm_init(const struct boot_info *bi)
{
	uint64_t top = 0;
	for (uint32_t i = 0; i < bi->mem_count; i++)
		if (bi->mem[i].type == BOOT_MEM_USABLE)
			top = MAX(top, bi->mem[i].base + bi->mem[i].length);
	npages = top / PAGE_SIZE;
	uint64_t bytes = PAGE_ROUND_UP(ROUND_UP(npages, 64) / 8);
	bitmap_pa = place_bitmap(bi, bytes);
	memset(bitmap(), 0xff, bytes);

	for (uint32_t i = 0; i < bi->mem_count; i++) {
		const struct boot_mem_region *r = &bi->mem[i];
		if (r->type != BOOT_MEM_USABLE)
			continue;
		for (uint64_t pg = r->base / PAGE_SIZE; pg < (r->base + r->length) / PAGE_SIZE; pg++) {
			bool keep = pg == 0 || (pg >= bitmap_pa / PAGE_SIZE &&
						pg < (bitmap_pa + bytes) / PAGE_SIZE);
			if (!keep && used(pg)) {
				set_used(pg, false);
				nfree++;
			}
		}
	}
	reserve_low_page();
}

/* First run of n free pages at or after `from`, or npages. */
static size_t find_run(size_t from, size_t n)
{
	size_t run = 0;
	for (size_t pg = from; pg < npages; pg++) {
		/* Skip whole words of used pages: the common case when full. */
		if (pg % 64 == 0 && bitmap()[pg / 64] == ~0ull && pg + 64 <= npages) {
			run = 0;
			pg += 63;
			continue;
		}
		run = used(pg) ? 0 : run + 1;
		if (run == n)
			return pg + 1 - n;
	}
	return npages;
}

uint64_t pmm_alloc_pages(size_t n)
{
	if (n == 0)
		return 0;
	irqflags_t f = spin_lock_irqsave(&pmm_lock);
	size_t pg = find_run(next, n);
	if (pg == npages)
		pg = find_run(0, n);
	if (pg == npages) {
		spin_unlock_irqrestore(&pmm_lock, f);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		set_used(pg + i, true);
	nfree -= n;
	next = pg + n;
	spin_unlock_irqrestore(&pmm_lock, f);
	return (uint64_t)pg * PAGE_SIZE;
}

uint64_t pmm_alloc(void)
{
	return pmm_alloc_pages(1);
}

uint64_t pmm_alloc_zero(void)
{
	uint64_t pa = pmm_alloc();
	if (pa)
		memset(p2v(pa), 0, PAGE_SIZE);
	return pa;
}

void pmm_free_pages(uint64_t pa, size_t n)
{
	size_t pg = pa / PAGE_SIZE;
	if (pa % PAGE_SIZE || pg == 0 || pg + n > npages)
		panic("pmm_free: bad address 0x%lx (+%zu pages)", pa, n);
	irqflags_t f = spin_lock_irqsave(&pmm_lock);
	for (size_t i = 0; i < n; i++) {
		if (!used(pg + i))
			panic("pmm_free: page 0x%lx is already free", pa + i * PAGE_SIZE);
		set_used(pg + i, false);
	}
	nfree += n;
	spin_unlock_irqrestore(&pmm_lock, f);
}

void pmm_free(uint64_t pa)
{
	pmm_free_pages(pa, 1);
}

size_t pmm_nfree(void)
{
	return nfree;
}
