/*
 * The other CPUs (arch/x86_64/smp/): starting them, calling a function on
 * one, and the IPIs that wake a CPU or run irq work.
 */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

/* Starts the other CPUs of the MADT; after proc_init. */
void arch_start_cpus(void);
/* CPUs online: 1 until arch_start_cpus, then those that started. */
unsigned arch_ncpus(void);
/* Runs fn(arg) on CPU cpu, in its interrupt handler (interrupts off), and
 * waits until it returned; cpu must be online. The caller may have its
 * interrupts off only if the target cannot be waiting, with its own off,
 * for the caller (a lock the caller holds, an arch_smp_call to it). */
void arch_smp_call(unsigned cpu, void (*fn)(void *), void *arg);
/* Interrupts CPU cpu (not this one) so that it looks at the run queue or
 * its task's TIF_NEED_RESCHED; normal context, interrupts off. */
void arch_resched_ipi(unsigned cpu);
/* irq work's self-IPI (arch/x86_64/interrupts/ipi.c), on this CPU
 * (NMI-safe): its handler calls irq_work_run(). */
void arch_irq_work_raise(void);

#endif
