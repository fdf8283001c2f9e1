/*
 * The generic address-space functions of kern/mm/vm.h on x86_64 4-level page
 * tables. Page-table pages are reached through p2v(), so this works both on
 * the loader's identity map (while kernel_space_init builds kernel_space) and on the
 * direct map afterwards.
 */
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/x86.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/mm/vm.h"
#include "stitch/syscall.h"

struct vm_space kernel_space;

static uint64_t *table_of(uint64_t entry)
{
	return p2v(entry & PTE_ADDR);
}

static bool canonical(uint64_t va)
{
	return va < USER_TOP || va >= KERNEL_HALF;
}

static uint64_t leaf_bits(uint64_t va, unsigned flags)
{
	uint64_t e = PTE_P;
	if (flags & VM_WRITE)
		e |= PTE_W;
	if (!(flags & VM_EXEC))
		e |= PTE_NX;
	if (flags & VM_USER)
		e |= PTE_U;
	if (flags & VM_NOCACHE)
		e |= PTE_PCD | PTE_PWT;
	/* Kernel-half mappings are the same in every address space: keep them
	 * in the TLB across CR3 switches. */
	if (va >= KERNEL_HALF)
		e |= PTE_G;
	return e;
}

/*
 * Finds the entry for va in the table at level `stop` (1: 4 KiB page,
 * 2: 2 MiB page), creating missing tables when `alloc`. Intermediate
 * entries are writable and, in the user half, user-accessible: the leaf
 * decides.
 */
static int walk(uint64_t root, uint64_t va, int stop, bool alloc, uint64_t **out)
{
	uint64_t *t = p2v(root);
	for (int level = 4; level > stop; level--) {
		uint64_t *e = &t[pt_index(va, level)];
		if (*e & PTE_PS)
			return -STITCH_EEXIST; /* a large page covers va */
		if (!(*e & PTE_P)) {
			if (!alloc)
				return -STITCH_ENOENT;
			uint64_t pa = pmm_alloc_zero();
			if (!pa)
				return -STITCH_ENOMEM;
			*e = pa | PTE_P | PTE_W | (va < USER_TOP ? PTE_U : 0);
		}
		t = table_of(*e);
	}
	*out = &t[pt_index(va, stop)];
	return 0;
}

static bool table_empty(const uint64_t *t)
{
	for (int i = 0; i < PT_ENTRIES; i++)
		if (t[i])
			return false;
	return true;
}

/*
 * Frees the page tables on the path to va that hold no entry any more,
 * lowest first. The kernel half's level-3 tables stay: every address
 * space points at them from its PML4.
 */
static void prune(uint64_t root, uint64_t va)
{
	uint64_t *tab[5], *ent[5]; /* tab[l]: table at level l; ent[l]: entry pointing at it */
	int level = 4;
	tab[4] = p2v(root);
	for (; level > 1; level--) {
		uint64_t *e = &tab[level][pt_index(va, level)];
		if (!(*e & PTE_P) || (*e & PTE_PS))
			break;
		ent[level - 1] = e;
		tab[level - 1] = table_of(*e);
	}
	for (int l = level; l <= 3; l++) {
		if ((l == 3 && va >= KERNEL_HALF) || !table_empty(tab[l]))
			break;
		pmm_free(*ent[l] & PTE_ADDR);
		*ent[l] = 0;
	}
}

bool vm_is_current(const struct vm_space *as)
{
	return (read_cr3() & PTE_ADDR) == as->root;
}

static void flush(const struct vm_space *as, uint64_t va)
{
	if (va >= KERNEL_HALF || vm_is_current(as))
		invlpg(va);
}

/* One leaf at `level` (1: a 4 KiB page table entry, 2: a 2 MiB page
 * directory entry, with PS); page-table pages made for it are pruned again
 * when the walk fails. */
static int map_leaf(struct vm_space *as, uint64_t va, uint64_t pa, unsigned flags, int level)
{
	uint64_t *e;
	int err = walk(as->root, va, level, true, &e);
	if (err) {
		prune(as->root, va);
		return err;
	}
	if (*e & PTE_P)
		return -STITCH_EEXIST;
	*e = pa | leaf_bits(va, flags) | (level == 2 ? PTE_PS : 0);
	return 0;
}

int vm_map(struct vm_space *as, uint64_t va, uint64_t pa, unsigned flags)
{
	if (va % PAGE_SIZE || pa % PAGE_SIZE || !canonical(va))
		return -STITCH_EINVAL;
	return map_leaf(as, va, pa, flags, 1);
}

/* Clears the leaf (4 KiB or 2 MiB) that maps va; returns its frame. */
static uint64_t unmap_leaf(struct vm_space *as, uint64_t va, bool large)
{
	uint64_t *e;
	if (!canonical(va) || walk(as->root, va, large ? 2 : 1, false, &e) ||
	    !(*e & PTE_P))
		return 0;
	uint64_t pa = *e & PTE_ADDR;
	*e = 0;
	prune(as->root, va);
	flush(as, va);
	return pa;
}

uint64_t vm_unmap(struct vm_space *as, uint64_t va)
{
	return unmap_leaf(as, PAGE_ROUND_DOWN(va), false);
}

static bool large_ok(uint64_t va, uint64_t pa, uint64_t left, unsigned flags)
{
	return (flags & VM_LARGE) && va % LARGE_PAGE_SIZE == 0 &&
	       pa % LARGE_PAGE_SIZE == 0 && left >= LARGE_PAGE_SIZE;
}

int vm_map_range(struct vm_space *as, uint64_t va, uint64_t pa, uint64_t len,
		 unsigned flags)
{
	if (va % PAGE_SIZE || pa % PAGE_SIZE || len % PAGE_SIZE ||
	    !canonical(va) || !canonical(va + len - 1))
		return -STITCH_EINVAL;
	for (uint64_t off = 0; off < len;) {
		bool large = large_ok(va + off, pa + off, len - off, flags);
		int err = large ? map_leaf(as, va + off, pa + off, flags, 2)
				: vm_map(as, va + off, pa + off, flags);
		if (err) {
			/* Undo in the same steps, so every leaf is found. */
			for (uint64_t u = 0; u < off;) {
				bool l = large_ok(va + u, pa + u, len - u, flags);
				unmap_leaf(as, va + u, l);
				u += l ? LARGE_PAGE_SIZE : PAGE_SIZE;
			}
			return err;
		}
		off += large ? LARGE_PAGE_SIZE : PAGE_SIZE;
	}
	return 0;
}

static unsigned vm_flags(uint64_t e)
{
	return (e & PTE_W ? VM_WRITE : 0) | (e & PTE_NX ? 0 : VM_EXEC) |
	       (e & PTE_U ? VM_USER : 0) | (e & PTE_PCD ? VM_NOCACHE : 0) |
	       (e & PTE_PS ? VM_LARGE : 0);
}

bool vm_lookup(const struct vm_space *as, uint64_t va, uint64_t *pa, unsigned *flags)
{
	if (!canonical(va))
		return false;
	const uint64_t *t = p2v(as->root);
	for (int level = 4; level >= 1; level--) {
		uint64_t e = t[pt_index(va, level)];
		if (!(e & PTE_P))
			return false;
		if (level == 1 || (e & PTE_PS)) {
			uint64_t size = 1ull << (12 + 9 * (level - 1));
			if (pa)
				*pa = (e & PTE_ADDR & ~(size - 1)) | (va & (size - 1));
			if (flags)
				*flags = vm_flags(e);
			return true;
		}
		t = table_of(e);
	}
	return false;
}

int vm_space_init(struct vm_space *as)
{
	as->root = pmm_alloc_zero();
	if (!as->root)
		return -STITCH_ENOMEM;
	uint64_t *dst = p2v(as->root);
	const uint64_t *src = p2v(kernel_space.root);
	for (int i = PT_ENTRIES / 2; i < PT_ENTRIES; i++)
		dst[i] = src[i];
	return 0;
}

static void free_tables(uint64_t pa, int level)
{
	if (level > 1) {
		const uint64_t *t = p2v(pa);
		for (int i = 0; i < PT_ENTRIES; i++)
			if ((t[i] & PTE_P) && !(t[i] & PTE_PS))
				free_tables(t[i] & PTE_ADDR, level - 1);
	}
	pmm_free(pa);
}

void vm_space_destroy(struct vm_space *as)
{
	if (vm_is_current(as))
		panic("vm_space_destroy: address space is in use");
	const uint64_t *t = p2v(as->root);
	for (int i = 0; i < PT_ENTRIES / 2; i++)
		if (t[i] & PTE_P)
			free_tables(t[i] & PTE_ADDR, 3);
	pmm_free(as->root);
	as->root = 0;
}

void vm_switch(const struct vm_space *as)
{
	write_cr3(as->root);
}
