#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/lib/string.h"

KTEST(pmm_alloc_free)
{
	size_t before = pmm_nfree();
	uint64_t a = pmm_alloc(), b = pmm_alloc();
	KASSERT(t, a && b);
	KEXPECT(t, a != b);
	KEXPECT_EQ(t, a % PAGE_SIZE, 0);
	KEXPECT_EQ(t, b % PAGE_SIZE, 0);
	KEXPECT_EQ(t, pmm_nfree(), before - 2);
	/* Both pages are RAM, distinct, and reachable through the direct map. */
	memset(p2v(a), 0xaa, PAGE_SIZE);
	memset(p2v(b), 0x55, PAGE_SIZE);
	KEXPECT_EQ(t, *(uint8_t *)p2v(a + PAGE_SIZE - 1), 0xaa);
	KEXPECT_EQ(t, *(uint8_t *)p2v(b), 0x55);
	pmm_free(a);
	pmm_free(b);
	KEXPECT_EQ(t, pmm_nfree(), before);
}

KTEST(pmm_alloc_zero)
{
	uint64_t pages[8];
	for (int i = 0; i < 8; i++) { /* dirty pages, so zeroing is visible */
		pages[i] = pmm_alloc();
		KASSERT(t, pages[i]);
		memset(p2v(pages[i]), 0xff, PAGE_SIZE);
	}
	for (int i = 0; i < 8; i++)
		pmm_free(pages[i]);
	uint64_t z = pmm_alloc_zero();
	KASSERT(t, z);
	const uint64_t *w = p2v(z);
	uint64_t any = 0;
	for (size_t i = 0; i < PAGE_SIZE / 8; i++)
		any |= w[i];
	KEXPECT_EQ(t, any, 0);
	pmm_free(z);
}

KTEST(pmm_contiguous)
{
	size_t before = pmm_nfree();
	uint64_t run = pmm_alloc_pages(16);
	KASSERT(t, run);
	KEXPECT_EQ(t, pmm_nfree(), before - 16);
	/* A single page never lands inside the run. */
	uint64_t one = pmm_alloc();
	KEXPECT(t, one && (one < run || one >= run + 16 * PAGE_SIZE));
	memset(p2v(run), 0x5a, 16 * PAGE_SIZE);
	KEXPECT_EQ(t, *(uint8_t *)p2v(run + 16 * PAGE_SIZE - 1), 0x5a);
	pmm_free(one);
	pmm_free_pages(run, 16);
	KEXPECT_EQ(t, pmm_alloc_pages(0), 0);
	KEXPECT_EQ(t, pmm_nfree(), before);
}

/* Takes every free page (chained through their first word), checks that
 * the count matched and that the allocator then says no, frees them all. */
KTEST(pmm_exhaustion)
{
	size_t before = pmm_nfree(), n = 0;
	uint64_t head = 0, pa;
	while ((pa = pmm_alloc()) != 0) {
		*(uint64_t *)p2v(pa) = head;
		head = pa;
		n++;
	}
	KEXPECT_EQ(t, n, before);
	KEXPECT_EQ(t, pmm_nfree(), 0);
	KEXPECT_EQ(t, pmm_alloc(), 0);
	KEXPECT_EQ(t, pmm_alloc_pages(2), 0);
	while (head) {
		pa = head;
		head = *(uint64_t *)p2v(pa);
		pmm_free(pa);
	}
	KEXPECT_EQ(t, pmm_nfree(), before);
	/* And the memory is usable again. */
	pa = pmm_alloc_pages(4);
	KEXPECT(t, pa != 0);
	if (pa)
		pmm_free_pages(pa, 4);
}
