/*
 * The interrupt flag: the kernel's only "lock" while it runs on one CPU.
 * NMIs are not masked by it: NMI code must not take it. (The IDT and the
 * interrupt controllers are arch/x86_64/interrupts/; kern/ sees none of
 * them.)
 */
#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

#include <stdint.h>

typedef uint64_t irqflags_t;
#define IRQFLAGS_ENABLED (1ull << 9) /* RFLAGS.IF */

static inline void irq_disable(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void irq_enable(void) { __asm__ volatile("sti" ::: "memory"); }

static inline irqflags_t irq_save(void)
{
	irqflags_t f;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(f) : : "memory");
	return f;
}

static inline void irq_restore(irqflags_t f)
{
	if (f & IRQFLAGS_ENABLED)
		irq_enable();
}

/* Wait (interrupts enabled) until an interrupt has been handled, without
 * the race between enabling and halting: sti takes effect only after the
 * next instruction, the hlt. */
static inline void irq_wait(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

#endif
