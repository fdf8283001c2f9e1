/*
 * The self-IPI that runs irq work (kern/proc/irq_work.h): a fixed interrupt,
 * vector VEC_SELF_IPI, sent by a CPU to itself. Raised from NMI context,
 * so sending it must be NMI-safe: lapic_self_ipi() is one ICR write. Its
 * handler calls irq_work_run(), as Linux's x86 sysvec_irq_work does.
 */
#include <arch/arch.h>
#include <arch/trap.h>
#include "arch/x86_64/interrupts/lapic.h"
#include "kern/proc/irq_work.h"
#include "kern/lib/stats.h"

/* trap_dispatch has already acknowledged the interrupt at the LAPIC. */
static void self_ipi(struct trap_frame *tf)
{
	(void)tf;
	stat_inc(STAT_SELF_IPIS);
	irq_work_run();
}

void self_ipi_init(void)
{
	trap_set_handler(VEC_SELF_IPI, self_ipi);
}

void arch_irq_work_raise(void)
{
	lapic_self_ipi(VEC_SELF_IPI);
}
