/*
 * The direct boot path, second half: Xen's struct hvm_start_info (what
 * QEMU -kernel hands a PVH kernel) turned into the struct boot_info of the
 * UEFI loader, so that kmain cannot tell the two paths apart.
 *
 * pvh.S calls pvh_boot_info in long mode, on its boot page tables (0-4 GiB
 * 1:1, the image at its link address), before kmain: there is no console
 * and no allocator yet, so nothing here may fail loudly. What cannot be
 * trusted is dropped, and kmain reports what is missing (no memory, no
 * ACPI tables) with its own checks.
 *
 * Layouts: Xen's public/arch-x86/hvm/start_info.h.
 */
#include "arch/x86_64/boot/pvh.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"

#define HVM_START_MAGIC 0x336ec578

struct hvm_start_info {
	uint32_t magic;
	uint32_t version;       /* >= 1: rsdp and memmap fields are valid */
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr; /* struct hvm_modlist_entry[nr_modules] */
	uint64_t cmdline_paddr; /* NUL-terminated, 0 if none */
	uint64_t rsdp_paddr;
	uint64_t memmap_paddr;  /* struct hvm_memmap_entry[memmap_entries] */
	uint32_t memmap_entries;
	uint32_t reserved;
};

struct hvm_modlist_entry {
	uint64_t paddr;
	uint64_t size;
	uint64_t cmdline_paddr;
	uint64_t reserved;
};

struct hvm_memmap_entry { /* an E820 entry */
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	uint32_t reserved;
};

enum { E820_RAM = 1, E820_RESERVED, E820_ACPI, E820_NVS };

/* Physical addresses have at most 52 bits: anything beyond is garbage. */
#define PHYS_LIMIT (1ull << 52)

#define GIB (1ull << 30)
/* pvh.S maps 0-4 GiB; one PDPT (pvh_pdpt) reaches 512 GiB. */
#define PVH_MAPPED (4 * GIB)
#define PVH_MAX_RAM (512 * GIB)

/* Filled here, copied by kmain; it lives in the image, which is reserved. */
static struct boot_info pvh_info;

static uint32_t region_type(uint32_t e820_type)
{
	switch (e820_type) {
	case E820_RAM:
		return BOOT_MEM_USABLE;
	case E820_ACPI:
		return BOOT_MEM_ACPI_RECLAIM;
	case E820_NVS:
		return BOOT_MEM_ACPI_NVS;
	default: /* reserved, unusable, persistent memory, unknown */
		return BOOT_MEM_RESERVED;
	}
}

static void delete_region(struct boot_info *bi, uint32_t i)
{
	for (; i + 1 < bi->mem_count; i++)
		bi->mem[i] = bi->mem[i + 1];
	bi->mem_count--;
}

/* Remove [base, end) from every usable region, splitting where needed. */
static void remove_usable(struct boot_info *bi, uint64_t base, uint64_t end)
{
	uint32_t i = 0;
	while (i < bi->mem_count) {
		struct boot_mem_region r = bi->mem[i];
		uint64_t r_end = r.base + r.length;
		if (r.type != BOOT_MEM_USABLE || r_end <= base || r.base >= end) {
			i++;
			continue;
		}
		delete_region(bi, i);
		if (r.base < base)
			boot_mem_add(bi, r.base, base - r.base, BOOT_MEM_USABLE);
		if (r_end > end)
			boot_mem_add(bi, end, r_end - end, BOOT_MEM_USABLE);
		i = 0; /* the pieces lie outside [base, end): this ends */
	}
}

/* [base, end) becomes `type`; whatever usable RAM it covered is gone. */
static void carve(struct boot_info *bi, uint64_t base, uint64_t end, uint32_t type)
{
	if (end <= base)
		return;
	remove_usable(bi, base, end);
	boot_mem_add(bi, base, end - base, type);
}

static bool plausible(uint64_t pa, uint64_t size)
{
	return pa < PHYS_LIMIT && size <= PHYS_LIMIT - pa;
}

/* Can [pa, pa + size) be read here, through pvh.S's 0-4 GiB 1:1 map? */
static bool readable(uint64_t pa, uint64_t size)
{
	return pa && pa < PVH_MAPPED && size <= PVH_MAPPED - pa;
}

/*
 * RAM first, then every other entry carved out of it, so that where the
 * table contradicts itself the reservation wins. Usable RAM shrinks to
 * whole pages, everything else grows to whole pages.
 */
static void add_memmap(struct boot_info *bi, const struct hvm_start_info *si)
{
	const struct hvm_memmap_entry *e = (const void *)si->memmap_paddr;
	uint32_t n = si->memmap_entries;

	if (si->version < 1 || !readable(si->memmap_paddr, (uint64_t)n * sizeof(*e)))
		return; /* no memory: pmm_init panics */

	for (uint32_t i = 0; i < n; i++)
		if (e[i].type == E820_RAM && plausible(e[i].addr, e[i].size))
			carve(bi, PAGE_ROUND_UP(e[i].addr),
			      PAGE_ROUND_DOWN(e[i].addr + e[i].size), BOOT_MEM_USABLE);
	for (uint32_t i = 0; i < n; i++)
		if (e[i].type != E820_RAM && plausible(e[i].addr, e[i].size))
			carve(bi, PAGE_ROUND_DOWN(e[i].addr),
			      PAGE_ROUND_UP(e[i].addr + e[i].size), region_type(e[i].type));
}

static uint64_t top_of_ram(const struct boot_info *bi)
{
	uint64_t top = 0;
	for (uint32_t i = 0; i < bi->mem_count; i++)
		if (bi->mem[i].type != BOOT_MEM_RESERVED && bi->mem[i].type != BOOT_MEM_MMIO)
			top = MAX(top, bi->mem[i].base + bi->mem[i].length);
	return top;
}

/* `pages` pages from the top of a usable region below 4 GiB, or 0. */
static uint64_t take_below_4g(struct boot_info *bi, uint64_t pages)
{
	uint64_t need = pages * PAGE_SIZE;
	for (uint32_t i = bi->mem_count; i-- > 0;) {
		const struct boot_mem_region *r = &bi->mem[i];
		uint64_t end = MIN(r->base + r->length, PVH_MAPPED);
		if (r->type != BOOT_MEM_USABLE || end < need ||
		    end - need < MAX(r->base, PAGE_SIZE))
			continue;
		carve(bi, end - need, end, BOOT_MEM_STITCH); /* like the loader's tables */
		return end - need;
	}
	return 0;
}

/*
 * The UEFI loader maps max(4 GiB, top of RAM) 1:1, and the kernel relies
 * on it until kernel_space_init (pmm_init may put its bitmap anywhere). pvh.S
 * mapped 4 GiB; the page directories for the rest come from RAM below
 * 4 GiB, which is mapped already. RAM that stays out of reach (beyond one
 * PDPT, or no room for the tables) is taken away from the kernel.
 */
static void map_above_4g(struct boot_info *bi)
{
	uint64_t top = top_of_ram(bi);
	if (top > PVH_MAX_RAM) {
		carve(bi, PVH_MAX_RAM, top, BOOT_MEM_RESERVED);
		top = PVH_MAX_RAM;
	}
	if (top <= PVH_MAPPED)
		return;

	uint64_t npd = ROUND_UP(top, GIB) / GIB - PVH_MAPPED / GIB;
	uint64_t pd = take_below_4g(bi, npd);
	if (!pd) {
		carve(bi, PVH_MAPPED, top, BOOT_MEM_RESERVED);
		return;
	}
	for (uint64_t k = 0; k < npd; k++) {
		uint64_t *table = (uint64_t *)(pd + k * PAGE_SIZE);
		uint64_t gib = PVH_MAPPED / GIB + k;
		for (uint64_t j = 0; j < 512; j++)
			table[j] = (gib * GIB + (j << 21)) | PVH_PTE_PW | PVH_PTE_2M;
		/* A not-present entry is never cached: no TLB flush needed. */
		pvh_pdpt[gib] = (pd + k * PAGE_SIZE) | PVH_PTE_PW;
	}
}

static void copy_cmdline(struct boot_info *bi, uint64_t pa)
{
	const char *s = (const char *)pa;
	size_t n = 0;
	if (readable(pa, BOOT_CMDLINE_MAX))
		for (; n < BOOT_CMDLINE_MAX - 1 && s[n]; n++)
			bi->cmdline[n] = s[n];
	bi->cmdline[n] = '\0';
}

/* QEMU's pvh.bin passes the initrd as module 0, its only module. */
static void add_initrd(struct boot_info *bi, const struct hvm_start_info *si)
{
	const struct hvm_modlist_entry *mod = (const void *)si->modlist_paddr;
	if (si->nr_modules == 0 || !readable(si->modlist_paddr, sizeof(*mod)) ||
	    !mod->paddr || !mod->size || !plausible(mod->paddr, mod->size))
		return;
	bi->initrd_phys = mod->paddr;
	bi->initrd_size = mod->size;
	carve(bi, PAGE_ROUND_DOWN(mod->paddr), PAGE_ROUND_UP(mod->paddr + mod->size),
	      BOOT_MEM_STITCH);
}

static void add_rsdp(struct boot_info *bi, const struct hvm_start_info *si)
{
	if (si->version < 1 || !readable(si->rsdp_paddr, 16))
		return; /* acpi_init says "no valid RSDP" */
	bi->rsdp_phys = si->rsdp_paddr;
	/* Revision (byte 15) 2 and up: ACPI 2.0+, an XSDT. */
	bi->acpi_version = ((const uint8_t *)si->rsdp_paddr)[15] >= 2 ? 2 : 1;
}

uint64_t pvh_boot_info(uint64_t start_info)
{
	const struct hvm_start_info *si = (const void *)start_info;
	struct boot_info *bi = &pvh_info;
	uint64_t bi_phys = (uint64_t)bi - KERNEL_VIRT_BASE + PVH_KERNEL_PHYS;

	/* Without the magic nothing here is known: the empty boot_info makes
	 * kmain panic ("bad magic") once it has a console. */
	if (si->magic != HVM_START_MAGIC)
		return bi_phys;

	bi->magic = BOOT_INFO_MAGIC;
	bi->version = BOOT_INFO_VERSION;
	bi->size = sizeof(*bi);
	bi->kernel_virt = KERNEL_VIRT_BASE;
	bi->kernel_phys = PVH_KERNEL_PHYS;
	bi->kernel_size = PAGE_ROUND_UP((uint64_t)__kernel_end) - KERNEL_VIRT_BASE;
	add_memmap(bi, si);
	carve(bi, bi->kernel_phys, bi->kernel_phys + bi->kernel_size, BOOT_MEM_STITCH);
	add_initrd(bi, si);
	add_rsdp(bi, si);
	copy_cmdline(bi, si->cmdline_paddr);
	map_above_4g(bi);
	return bi_phys;
}
