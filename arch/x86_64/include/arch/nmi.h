/*
 * NMIs (arch/x86_64/nmi/): the sampling sources, the watchdog's timer,
 * and whether this CPU is inside an NMI.
 */
#ifndef ARCH_NMI_H
#define ARCH_NMI_H

#include <stdbool.h>

#include <arch/cpu.h>

/* Sampling NMIs (sampling.c): hz per second on this CPU, each calling
 * sample_nmi(). arch_sampling_select() picks the source, "pmu", "lapic",
 * "ioapic", or NULL / "auto" to choose, and returns a line that names it
 * and says why (arch_sampling_start selects itself if not). */
const char *arch_sampling_select(const char *want);
void arch_sampling_start(unsigned hz);
void arch_sampling_stop(void);
/* The same on every CPU online (arch/x86_64/smp/smp.c). In a panic only
 * this CPU stops; the others' NMIs find sampling disarmed and are counted
 * as ignored. arch_nmi_quiesce() waits until no CPU is inside an NMI. */
void arch_sampling_start_all(unsigned hz);
void arch_sampling_stop_all(void);
void arch_nmi_quiesce(void);

/* The watchdog (kern/watchdog.c): this CPU's timer raising an NMI hz
 * times a second, for when nothing samples (every CPU: the _all form;
 * arch_sampling_stop, arch_sampling_stop_all and arch_sampling_start take
 * the timer back); and an NMI to another CPU, so that it prints its own
 * stack (may be sent from NMI context: the run ends after). */
void arch_watchdog_start(unsigned hz);
void arch_watchdog_start_all(unsigned hz);
void arch_nmi_cpu(unsigned cpu);

/* NMI context? (nmi.c: set while nmi_dispatch runs; per CPU, and NMIs do
 * not nest, so a flag is enough.) */
extern bool arch_nmi_active[ARCH_MAX_CPUS];
/* For a caller that already knows its CPU index (the NMI's request). */
static inline bool arch_in_nmi_on(unsigned cpu)
{
	return __atomic_load_n(&arch_nmi_active[cpu], __ATOMIC_RELAXED);
}
static inline bool arch_in_nmi(void)
{
	return arch_in_nmi_on(arch_cpu_id());
}

#endif
