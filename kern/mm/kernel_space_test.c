#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/mm/vm.h"

/* Is pa reachable through the direct map, at PHYS_MAP_BASE + pa? */
static bool direct_mapped(uint64_t pa)
{
	uint64_t got;
	unsigned flags;
	return vm_lookup(&kernel_space, PHYS_MAP_BASE + pa, &got, &flags) && got == pa;
}

/*
 * The direct map covers every byte the kernel reaches through p2v() (the
 * RAM, the ACPI tables, 0-4 GiB for MMIO and the framebuffer) and nothing
 * past them: not the reserved regions above the top of RAM (QEMU's 12 GiB
 * below 1 TiB), which would cost every boot half a million entries.
 */
KTEST(kernel_space_direct_map_covers_ram_not_reserved_holes)
{
	uint64_t top = 4ull << 30;
	for (uint32_t i = 0; i < boot_info.mem_count; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		if (r->type == BOOT_MEM_MMIO || r->type == BOOT_MEM_RESERVED || !r->length)
			continue;
		KEXPECT(t, direct_mapped(r->base));
		KEXPECT(t, direct_mapped(r->base + r->length - 1));
		top = MAX(top, r->base + r->length);
	}
	KEXPECT(t, direct_mapped(0xfee00000)); /* the LAPIC, below 4 GiB */
	if (boot_info.fb.base && boot_info.fb.base + boot_info.fb.size <= (4ull << 30))
		KEXPECT(t, direct_mapped(boot_info.fb.base + boot_info.fb.size - 1));
	top = ROUND_UP(top, 2ull << 20);
	for (uint32_t i = 0; i < boot_info.mem_count; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		if (r->base >= top)
			KEXPECT(t, !direct_mapped(r->base));
	}
	KEXPECT(t, !direct_mapped(top));
}
