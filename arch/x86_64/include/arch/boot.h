/*
 * Bringing the machine up and down (arch/x86_64/boot/), in the order
 * kmain calls them, and the console that says how it went.
 */
#ifndef ARCH_BOOT_H
#define ARCH_BOOT_H

#include <stdbool.h>

#define ARCH_NAME "x86_64" /* in the boot banner */

void arch_init_cpu(void);     /* serial, GDT, TSS, IDT: before anything can fault */
void arch_init_devices(void); /* LAPIC, IOAPIC, PIT tick, calibration: after kernel_space_init */
void arch_init_cpu_regs(void); /* EFER.NXE, CR0.WP, CR4.PGE: each CPU */
/* The page-fault and user-exception handlers (arch/x86_64/interrupts/fault.c):
 * after the memory and process managers they call are up (proc_init). */
void arch_fault_init(void);

void arch_console_putc(char c);

/* Exit QEMU through isa-debug-exit (success or failure); halt otherwise. */
__attribute__((noreturn)) void arch_shutdown(bool success);

#endif
