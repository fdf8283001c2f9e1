/*
 * The self-IPI that runs irq work (kern/irq_work.c): a fixed interrupt,
 * vector VEC_SELF_IPI, sent by a CPU to itself. Raised from NMI context,
 * so sending it must be NMI-safe: lapic_self_ipi() is one ICR write.
 */
#include <arch/arch.h>
#include "arch/x86_64/lapic.h"
#include <arch/trap.h>

static void (*irq_work_handler)(void);

/* trap_dispatch has already acknowledged the interrupt at the LAPIC. */
static void self_ipi(struct trap_frame *tf)
{
	(void)tf;
	irq_work_handler();
}

void arch_irq_work_init(void (*handler)(void))
{
	irq_work_handler = handler;
	trap_set_handler(VEC_SELF_IPI, self_ipi);
}

void arch_irq_work_raise(void)
{
	lapic_self_ipi(VEC_SELF_IPI);
}
