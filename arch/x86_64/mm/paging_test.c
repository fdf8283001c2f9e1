#include <arch/arch.h>
#include "arch/x86_64/x86.h"
#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/mm/vm.h"
#include "stitch/syscall.h"

#define USER_VA 0x400000ull

/* A fresh address space: map a page at a user-half address, write it
 * through that mapping (on the new CR3), read it through the direct map,
 * unmap it, and see the page tables go away. */
KTEST(vm_map_unmap)
{
	size_t before = pmm_nfree();
	struct vm_space as;
	KASSERT_EQ(t, vm_space_init(&as), 0);
	uint64_t pa = pmm_alloc_zero();
	KASSERT(t, pa);
	*(volatile uint64_t *)p2v(pa) = 0x1111;

	KASSERT_EQ(t, vm_map(&as, USER_VA, pa, VM_WRITE), 0);
	/* root + frame + PDPT + PD + PT */
	KEXPECT_EQ(t, pmm_nfree(), before - 5);
	KEXPECT_EQ(t, vm_map(&as, USER_VA, pa, VM_WRITE), -STITCH_EEXIST);
	uint64_t got;
	unsigned flags;
	KEXPECT(t, vm_lookup(&as, USER_VA + 0x123, &got, &flags));
	KEXPECT_EQ(t, got, pa + 0x123);
	KEXPECT_EQ(t, flags, VM_WRITE);
	KEXPECT(t, !vm_lookup(&kernel_space, USER_VA, NULL, NULL));

	irqflags_t f = irq_save();
	vm_switch(&as);
	uint64_t seen = *(volatile uint64_t *)USER_VA;
	*(volatile uint64_t *)(USER_VA + 8) = 0x2222;
	vm_switch(&kernel_space);
	irq_restore(f);
	KEXPECT_EQ(t, seen, 0x1111);
	KEXPECT_EQ(t, ((volatile uint64_t *)p2v(pa))[1], 0x2222);

	KEXPECT_EQ(t, vm_unmap(&as, USER_VA), pa);
	KEXPECT(t, !vm_lookup(&as, USER_VA, NULL, NULL));
	KEXPECT_EQ(t, vm_unmap(&as, USER_VA), 0);
	KEXPECT_EQ(t, pmm_nfree(), before - 2); /* tables freed: root + frame left */
	vm_space_destroy(&as);
	pmm_free(pa);
	KEXPECT_EQ(t, pmm_nfree(), before);
}

/* A range that collides in its middle leaves nothing behind. */
KTEST(vm_map_range_rollback)
{
	size_t before = pmm_nfree();
	struct vm_space as;
	KASSERT_EQ(t, vm_space_init(&as), 0);
	uint64_t pa = pmm_alloc_pages(4);
	KASSERT(t, pa);
	KASSERT_EQ(t, vm_map(&as, USER_VA + 2 * PAGE_SIZE, pa, 0), 0);
	KEXPECT_EQ(t, vm_map_range(&as, USER_VA, pa, 4 * PAGE_SIZE, VM_WRITE),
		   -STITCH_EEXIST);
	KEXPECT(t, !vm_lookup(&as, USER_VA, NULL, NULL));
	KEXPECT(t, !vm_lookup(&as, USER_VA + PAGE_SIZE, NULL, NULL));
	KEXPECT_EQ(t, vm_unmap(&as, USER_VA + 2 * PAGE_SIZE), pa);
	KEXPECT_EQ(t, vm_map(&as, USER_VA + 1, pa, 0), -STITCH_EINVAL);
	KEXPECT_EQ(t, vm_map(&as, 0x0000800000000000ull, pa, 0), -STITCH_EINVAL);
	vm_space_destroy(&as);
	pmm_free_pages(pa, 4);
	KEXPECT_EQ(t, pmm_nfree(), before);
}

static uint64_t some_data = 1;

/* The kernel's own page tables: per-segment permissions, a direct map
 * in 2 MiB pages, uncached MMIO, and no identity map. */
KTEST(vm_kernel_layout)
{
	unsigned f;
	uint64_t pa;
	KEXPECT(t, vm_lookup(&kernel_space, (uint64_t)__text_start, &pa, &f));
	KEXPECT_EQ(t, f, VM_EXEC);
	KEXPECT_EQ(t, pa, boot_info.kernel_phys);
	KEXPECT(t, vm_lookup(&kernel_space, (uint64_t)__rodata_start, NULL, &f));
	KEXPECT_EQ(t, f, 0);
	KEXPECT(t, vm_lookup(&kernel_space, (uint64_t)&some_data, &pa, &f));
	KEXPECT_EQ(t, f, VM_WRITE);
	KEXPECT_EQ(t, *(uint64_t *)p2v(pa), some_data);
	KEXPECT_EQ(t, v2p(&some_data), pa);

	KEXPECT(t, vm_lookup(&kernel_space, PHYS_MAP_BASE + 0x123456, &pa, &f));
	KEXPECT_EQ(t, pa, 0x123456);
	KEXPECT_EQ(t, f, VM_WRITE | VM_LARGE);
	KEXPECT(t, vm_lookup(&kernel_space, PHYS_MAP_BASE + 0xfee00000, &pa, &f));
	KEXPECT_EQ(t, f, VM_WRITE | VM_LARGE | VM_NOCACHE);

	KEXPECT(t, !vm_lookup(&kernel_space, boot_info.kernel_phys, NULL, NULL));
	KEXPECT(t, !vm_lookup(&kernel_space, 0x1000, NULL, NULL));
	KEXPECT(t, vm_is_current(&kernel_space));
	KEXPECT(t, read_cr0() & CR0_WP);
}
