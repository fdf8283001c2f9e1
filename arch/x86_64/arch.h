/*
 * The hooks that architecture-neutral code (kern/) calls. kern/ includes
 * this header and nothing else from arch/x86_64/ unless it is a test.
 */
#ifndef ARCH_X86_64_ARCH_H
#define ARCH_X86_64_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/x86.h"

/* Interrupt flag save/restore: the kernel's only "lock" while it runs on
 * one CPU. NMIs are not masked by it: NMI code must not take it. */
typedef uint64_t irqflags_t;

static inline irqflags_t irq_save(void)
{
	irqflags_t f = read_rflags();
	cli();
	return f;
}

static inline void irq_restore(irqflags_t f)
{
	if (f & RFLAGS_IF)
		sti();
}

static inline void irq_enable(void) { sti(); }

/* Wait (interrupts enabled) until an interrupt has been handled. */
static inline void arch_wait_for_interrupt(void) { sti_hlt(); }

void arch_init_cpu(void);     /* serial, GDT, TSS, IDT: before anything can fault */
void arch_init_devices(void); /* LAPIC, IOAPIC, PIT tick, calibration: after kvm_init */

void arch_console_putc(char c);

/* Print a frame-pointer backtrace starting at ip, then the frames from bp. */
void arch_backtrace(uint64_t ip, uint64_t bp);

/* Exit QEMU through isa-debug-exit (success or failure); halt otherwise. */
__attribute__((noreturn)) void arch_shutdown(bool success);

/* Time: the TSC, calibrated against the PIT at boot. */
extern uint64_t tsc_hz;
uint64_t tsc_to_ns(uint64_t ticks);
void delay_us(uint64_t us);

#endif
