/* The GDT, the TSS and the IST stacks: one of each per CPU (a TSS holds
 * the CPU's rsp0 and IST pointers, and a busy TSS descriptor cannot be
 * loaded by a second CPU, so each CPU needs its own GDT too). */
#include "arch/x86_64/cpu/gdt.h"
#include <arch/arch.h>
#include "kern/lib/string.h"

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

#define IST_STACK_SIZE 16384

static struct tss tss[ARCH_MAX_CPUS];
static uint8_t ist_stacks[ARCH_MAX_CPUS][3][IST_STACK_SIZE] __attribute__((aligned(16)));

/* Flat segments; base and limit are ignored in 64-bit mode except for
 * the TSS descriptor, filled in by gdt_init. The 32-bit code segment
 * (compatibility mode) and the data segment a compat program uses are
 * flat 4 GiB ones: base 0, limit 0xfffff pages. */
static const uint64_t gdt_template[8] = {
	0,
	0x00af9a000000ffffull, /* 0x08 kernel code: present, DPL 0, L */
	0x00cf92000000ffffull, /* 0x10 kernel data */
	0x00cff2000000ffffull, /* 0x18 user data: DPL 3 */
	0x00affa000000ffffull, /* 0x20 user code: DPL 3, L */
	0, 0,                  /* 0x28 TSS (16 bytes) */
	0x00cffa000000ffffull, /* 0x38 user code, 32-bit: DPL 3, D */
};
static uint64_t gdt[ARCH_MAX_CPUS][8];

static void set_tss_descriptor(uint64_t *gdt, const struct tss *tss)
{
	uint64_t base = (uint64_t)tss, limit = sizeof(*tss) - 1;
	gdt[5] = (limit & 0xffff) | (base & 0xffffff) << 16 |
		 0x89ull << 40 /* present, 64-bit TSS available */ |
		 ((limit >> 16) & 0xf) << 48 | ((base >> 24) & 0xff) << 56;
	gdt[6] = base >> 32;
}

/* Loads the GDT, reloads every segment register (CS by a far return) and
 * the task register. FS and GS get the null selector; their bases are
 * MSRs. DS and ES get the user data segment: 64-bit code ignores them, but
 * compatibility mode addresses memory through them, and iretq to ring 3
 * would null a DPL 0 selector (Intel SDM vol. 3, 6.14.3 / IRET). */
static void load(const uint64_t *gdt)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) gdtr = { sizeof(gdt_template) - 1, (uint64_t)gdt };

	__asm__ volatile("lgdt %0\n\t"
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w2, %%ax\n\t"
			 "movw %%ax, %%ss\n\t"
			 "movw %w4, %%ax\n\t"
			 "movw %%ax, %%ds\n\t"
			 "movw %%ax, %%es\n\t"
			 "xorl %%eax, %%eax\n\t"
			 "movw %%ax, %%fs\n\t"
			 "movw %%ax, %%gs\n\t"
			 "ltr %w3"
			 :
			 : "m"(gdtr), "i"(SEG_KCODE), "r"(SEG_KDATA), "r"(SEG_TSS),
			   "r"(SEG_UDATA | 3)
			 : "rax", "memory");
}

void gdt_init(unsigned cpu)
{
	struct tss *t = &tss[cpu];
	for (int i = 0; i < 3; i++)
		t->ist[i] = (uint64_t)&ist_stacks[cpu][i][IST_STACK_SIZE];
	t->iomap_base = sizeof(*t); /* no I/O bitmap: ring 3 has no ports */
	memcpy(gdt[cpu], gdt_template, sizeof(gdt_template));
	set_tss_descriptor(gdt[cpu], t);
	load(gdt[cpu]);
}

bool ist_stack_bounds(uint64_t sp, uint64_t *lo, uint64_t *hi)
{
	uint64_t first = (uint64_t)ist_stacks, end = (uint64_t)(ist_stacks + ARCH_MAX_CPUS);
	if (sp < first || sp > end)
		return false;
	/* Every stack is [base, base + size]; a top is its own stack's, not
	 * the next one's base. */
	uint64_t i = (sp - first - (sp > first)) / IST_STACK_SIZE;
	*lo = first + i * IST_STACK_SIZE;
	*hi = *lo + IST_STACK_SIZE;
	return true;
}

uint64_t ist_stack_top(unsigned cpu, int ist)
{
	return tss[cpu].ist[ist - 1];
}

void tss_set_rsp0(uint64_t rsp0)
{
	tss[arch_cpu_id()].rsp[0] = rsp0;
}
