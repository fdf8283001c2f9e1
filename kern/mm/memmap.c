/* The memory-map summary printed at boot. */
#include "kern/mm/memmap.h"
#include "kern/kernel.h"

static const char *const type_names[] = {
	[BOOT_MEM_USABLE] = "usable",
	[BOOT_MEM_STITCH] = "stitch (kernel, initrd)",
	[BOOT_MEM_ACPI_RECLAIM] = "acpi tables",
	[BOOT_MEM_ACPI_NVS] = "acpi nvs",
	[BOOT_MEM_RUNTIME] = "uefi runtime",
	[BOOT_MEM_MMIO] = "mmio",
	[BOOT_MEM_RESERVED] = "reserved",
};

void memmap_print(const struct boot_info *bi)
{
	kprintf("memory map: %u regions\n", bi->mem_count);
	for (uint32_t t = BOOT_MEM_USABLE; t <= BOOT_MEM_RESERVED; t++) {
		uint64_t bytes = 0;
		unsigned n = 0;
		for (uint32_t i = 0; i < bi->mem_count; i++) {
			if (bi->mem[i].type == t) {
				bytes += bi->mem[i].length;
				n++;
			}
		}
		if (n == 0)
			continue;
		/* MiB with two decimals, in integers. */
		uint64_t centi = bytes * 100 / (1 << 20);
		kprintf("  %-24s %6lu.%02lu MiB in %u region%s\n", type_names[t],
			centi / 100, centi % 100, n, n == 1 ? "" : "s");
	}
}
