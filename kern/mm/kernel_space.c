/*
 * The kernel's own page tables (kernel_space), built once at boot:
 *
 *   PHYS_MAP_BASE + pa   all of 0-4 GiB (MMIO: LAPIC, IOAPIC, PCI holes,
 *                        the framebuffer) and the RAM above it, in 2 MiB
 *                        pages: RAM write-back, chunks with no RAM uncached
 *   KERNEL_VIRT_BASE     the kernel image, 4 KiB pages, one permission per
 *                        segment: text R-X, rodata R--, data+bss RW-
 *
 * Nothing else: the loader's identity map is gone after the switch, so a
 * stray low pointer faults.
 */
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/mm/vm.h"

uint64_t phys_map_offset; /* 0 until kernel_space_init switches to kernel_space */

uint64_t v2p(const void *va)
{
	uint64_t a = (uint64_t)va;
	if (a >= boot_info.kernel_virt)
		return a - boot_info.kernel_virt + boot_info.kernel_phys;
	return a - phys_map_offset;
}

static bool is_ram(uint32_t type)
{
	return type != BOOT_MEM_MMIO && type != BOOT_MEM_RESERVED;
}

/* Does [pa, pa + len) overlap any RAM region of the memory map? */
static bool has_ram(const struct boot_info *bi, uint64_t pa, uint64_t len)
{
	for (uint32_t i = 0; i < bi->mem_count; i++) {
		const struct boot_mem_region *r = &bi->mem[i];
		if (is_ram(r->type) && r->base < pa + len && pa < r->base + r->length)
			return true;
	}
	return false;
}

/*
 * The top of what the direct map covers. Reserved regions above 4 GiB do
 * not count: QEMU reports 1012-1024 GiB reserved (a HyperTransport hole),
 * and mapping up to it would take half a million 2 MiB entries (182 million
 * instructions of every boot) for memory nothing reads. Devices above
 * 4 GiB that the kernel uses (ivshmem's BAR) are mapped by their drivers;
 * the screen console takes a framebuffer below 4 GiB only (fbcon.c).
 */
static uint64_t direct_map_top(const struct boot_info *bi)
{
	uint64_t top = 4ull << 30;
	for (uint32_t i = 0; i < bi->mem_count; i++)
		if (is_ram(bi->mem[i].type))
			top = MAX(top, bi->mem[i].base + bi->mem[i].length);
	return top;
}

static void map_direct(const struct boot_info *bi)
{
	const uint64_t chunk = 2ull << 20;
	uint64_t top = ROUND_UP(direct_map_top(bi), chunk);

	for (uint64_t pa = 0; pa < top; pa += chunk) {
		unsigned flags = VM_WRITE | VM_LARGE;
		if (!has_ram(bi, pa, chunk))
			flags |= VM_NOCACHE;
		if (vm_map_range(&kernel_space, PHYS_MAP_BASE + pa, pa, chunk, flags))
			panic("kernel_space: out of memory for the direct map");
	}
}

static void map_segment(const char *start, const char *end, unsigned flags)
{
	uint64_t va = (uint64_t)start;
	uint64_t len = PAGE_ROUND_UP((uint64_t)end) - va;
	if (vm_map_range(&kernel_space, va, v2p(start), len, flags))
		panic("kernel_space: cannot map the kernel segment at 0x%lx", va);
}

void kernel_space_init(const struct boot_info *bi)
{
	if ((uint64_t)__kernel_end - bi->kernel_virt > bi->kernel_size)
		panic("kernel_space: the loader gave %lu bytes for a %lu-byte kernel",
		      bi->kernel_size, (uint64_t)__kernel_end - bi->kernel_virt);
	kernel_space.root = pmm_alloc_zero();
	if (!kernel_space.root)
		panic("kernel_space: no page for the PML4");
	map_direct(bi);
	map_segment(__text_start, __text_end, VM_EXEC);
	map_segment(__rodata_start, __rodata_end, 0);
	map_segment(__data_start, __bss_end, VM_WRITE);
	vm_switch(&kernel_space);
	phys_map_offset = PHYS_MAP_BASE;
}
