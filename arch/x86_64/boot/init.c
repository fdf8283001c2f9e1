/* Bringing up the CPU and the interrupt hardware, in dependency order. */
#include <arch/arch.h>
#include "arch/x86_64/x86.h"
#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/gdt.h"
#include "arch/x86_64/interrupts/ioapic.h"
#include "arch/x86_64/interrupts/lapic.h"
#include "arch/x86_64/interrupts/madt.h"
#include "arch/x86_64/time/pit.h"
#include <arch/trap.h>
#include "arch/x86_64/channel/uart.h"
#include "kern/kernel.h"

#define CR4_LA57 (1ull << 12)

/* Every CPU, for itself (the others from arch/x86_64/smp/smp.c). */
void arch_init_cpu_regs(void)
{
	/* paging.c builds 4-level tables; firmware that left 5-level paging on
	 * would make every address space wrong. */
	if (read_cr4() & CR4_LA57)
		panic("5-level paging is enabled; Stitch only does 4 levels");
	/* NX bits in page tables, read-only pages honoured in ring 0, global
	 * pages for the kernel half. */
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr0(read_cr0() | CR0_WP);
	write_cr4(read_cr4() | CR4_PGE);
}

void arch_init_cpu(void)
{
	uart_init(UART_COM1);
	gdt_init(0);
	trap_init();
	arch_init_cpu_regs();
}

/* The legacy 8259 PICs: all inputs masked; ISA interrupts go through the
 * IOAPIC. */
static void pic_disable(void)
{
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

void arch_init_devices(void)
{
	pic_disable();
	madt_init();
	lapic_init(madt.lapic_phys);
	self_ipi_init();
	cpu_id_init(0); /* the boot CPU; arch_start_cpus starts the others */
	ioapic_init();
	lapic_calibrate();
	pit_tick_init();
	kprintf("cpu: %d in MADT, LAPIC id %u at 0x%lx, %d IOAPIC(s), "
		"TSC %lu kHz, LAPIC timer %lu kHz\n",
		madt.ncpus, lapic_id(), madt.lapic_phys, madt.nioapics,
		arch_tsc_hz / 1000, lapic_timer_hz / 1000);
}
