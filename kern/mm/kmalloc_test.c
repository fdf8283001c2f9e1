#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/lib/string.h"

/* Objects of many sizes: aligned, not overlapping (each keeps its own
 * byte pattern), and all pages back after freeing. */
KTEST(kmalloc_sizes)
{
	static const size_t sizes[] = { 1, 8, 16, 17, 31, 64, 100, 256, 511,
					1000, 1024, 1025, 4096, 5000, 100000 };
	void *p[ARRAY_SIZE(sizes)];
	size_t before = pmm_nfree();

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		p[i] = kmalloc(sizes[i]);
		KASSERT(t, p[i] != NULL);
		KEXPECT_EQ(t, (uint64_t)p[i] % 16, 0);
		memset(p[i], (int)i + 1, sizes[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		const uint8_t *b = p[i];
		KEXPECT(t, b[0] == i + 1 && b[sizes[i] - 1] == i + 1);
	}
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		kfree(p[i]);
	KEXPECT_EQ(t, pmm_nfree(), before);
}

/* Enough small objects for several slabs, freed in a different order. */
KTEST(kmalloc_many_slabs)
{
	enum { N = 600 };
	static void *p[N];
	size_t before = pmm_nfree();

	for (int i = 0; i < N; i++) {
		p[i] = kmalloc(48);
		KASSERT(t, p[i] != NULL);
		*(int *)p[i] = i;
	}
	KEXPECT(t, pmm_nfree() < before); /* slabs came from the page allocator */
	for (int i = 0; i < N; i += 2)
		kfree(p[i]);
	for (int i = 1; i < N; i += 2)
		KEXPECT_EQ(t, *(int *)p[i], i);
	for (int i = 1; i < N; i += 2)
		kfree(p[i]);
	KEXPECT_EQ(t, pmm_nfree(), before);
}

KTEST(kmalloc_edge_cases)
{
	KEXPECT(t, kmalloc(0) == NULL);
	kfree(NULL);
	void *keep = kmalloc(300); /* keeps the slab alive across the kfree */
	uint8_t *z = kzalloc(300);
	KASSERT(t, z != NULL);
	int nonzero = 0;
	for (int i = 0; i < 300; i++)
		nonzero += z[i] != 0;
	KEXPECT_EQ(t, nonzero, 0);
	/* A freed object is reused by the next allocation of its class. */
	kfree(z);
	void *again = kmalloc(300);
	KEXPECT(t, again == z);
	kfree(again);
	kfree(keep);
}
