/*
 * The boot hand-off, whichever path made it (UEFI loader or pvh.S +
 * pvh_info.c): what the kernel gets must match include/stitch/boot_info.h.
 */
#include "arch/x86_64/mm/mmu.h"
#include "arch/x86_64/boot/pvh.h"
#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"

#define GIB (1ull << 30)

/* Is the page at pa inside a region of this type? */
static bool page_in(uint64_t pa, uint32_t type)
{
	for (uint32_t i = 0; i < boot_info.mem_count; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		if (r->type == type && r->base <= pa && pa + PAGE_SIZE <= r->base + r->length)
			return true;
	}
	return false;
}

/* Every page of [base, base + len) is BOOT_MEM_STITCH and none is usable. */
static void expect_reserved(struct ktest *t, uint64_t base, uint64_t len)
{
	for (uint64_t pa = PAGE_ROUND_DOWN(base); pa < base + len; pa += PAGE_SIZE) {
		if (!KEXPECT(t, page_in(pa, BOOT_MEM_STITCH) && !page_in(pa, BOOT_MEM_USABLE))) {
			kprintf("# page 0x%lx of [0x%lx, +0x%lx) is not reserved\n", pa, base, len);
			return;
		}
	}
}

KTEST(boot_kernel_and_initrd_reserved)
{
	KEXPECT_EQ(t, boot_info.kernel_virt, KERNEL_VIRT_BASE);
	KEXPECT(t, boot_info.kernel_size >= (uint64_t)__kernel_end - KERNEL_VIRT_BASE);
	expect_reserved(t, boot_info.kernel_phys, boot_info.kernel_size);
	KASSERT(t, boot_info.initrd_size > 0);
	expect_reserved(t, boot_info.initrd_phys, boot_info.initrd_size);
}

/* The initrd arrived whole: a cpio "newc" archive from magic to trailer. */
KTEST(boot_initrd_is_cpio)
{
	const char *p = p2v(boot_info.initrd_phys);
	uint64_t n = boot_info.initrd_size;
	KASSERT(t, n >= 6);
	KEXPECT(t, memcmp(p, "070701", 6) == 0);
	bool trailer = false;
	for (uint64_t i = n > 4096 ? n - 4096 : 0; i + 10 <= n && !trailer; i++)
		trailer = memcmp(p + i, "TRAILER!!!", 10) == 0;
	KEXPECT(t, trailer);
}

/* Translate va through pvh.S's boot tables (2 MiB leaves); false if unmapped. */
static bool boot_translate(uint64_t va, uint64_t *pa)
{
	const uint64_t *table = pvh_pml4;
	for (int shift = 39; shift >= 21; shift -= 9) {
		uint64_t e = table[(va >> shift) & 511];
		if (!(e & PTE_P) || !(e & PTE_W))
			return false;
		if (shift == 21) {
			*pa = ((e & PTE_ADDR) & ~(LARGE_PAGE_SIZE - 1)) | (va & (LARGE_PAGE_SIZE - 1));
			return e & PTE_PS;
		}
		table = p2v(e & PTE_ADDR);
	}
	return false;
}

/*
 * What boot_info.h promises the UEFI loader's page tables map, pvh.S's
 * map too: 0 - max(4 GiB, top of RAM) 1:1, the image at its link address.
 * Tables above 4 GiB (pvh_info.c) must sit in reserved memory.
 */
KTEST(boot_pvh_page_tables)
{
	if (!pvh_pml4[0]) {
		ktest_skip(t, "not booted through PVH");
		return;
	}
	uint64_t top = 4 * GIB, pa;
	for (uint32_t i = 0; i < boot_info.mem_count; i++)
		if (boot_info.mem[i].type != BOOT_MEM_RESERVED &&
		    boot_info.mem[i].type != BOOT_MEM_MMIO)
			top = MAX(top, boot_info.mem[i].base + boot_info.mem[i].length);
	for (uint64_t a = 0; a < top; a += LARGE_PAGE_SIZE)
		if (!KEXPECT(t, boot_translate(a, &pa) && pa == a)) {
			kprintf("# 0x%lx is not mapped 1:1\n", a);
			return;
		}
	for (uint64_t gib = 4; gib < ROUND_UP(top, GIB) / GIB; gib++)
		KEXPECT(t, page_in(pvh_pdpt[gib] & PTE_ADDR, BOOT_MEM_STITCH));
	for (uint64_t off = 0; off < boot_info.kernel_size; off += PAGE_SIZE)
		if (!KEXPECT(t, boot_translate(KERNEL_VIRT_BASE + off, &pa) &&
				pa == boot_info.kernel_phys + off)) {
			kprintf("# kernel page +0x%lx is not mapped\n", off);
			return;
		}
}
