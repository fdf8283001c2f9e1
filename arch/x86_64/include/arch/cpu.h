/*
 * CPUs: indices 0 .. ARCH_MAX_CPUS-1, and what one CPU does while it
 * waits (arch/x86_64/cpu/). arch_cpu_id() is safe anywhere, NMI included:
 * it reads no GS base (which may still be the user's when an NMI hits the
 * syscall entry), only RDTSCP's TSC_AUX, set to the index at boot, or the
 * LAPIC ID.
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <stdbool.h>
#include <stdint.h>

#define ARCH_MAX_CPUS 8
extern bool arch_has_rdtscp;
unsigned arch_cpu_id_lapic(void);
/* Inline: every counter update (kern/lib/stats.h) asks, the NMI's included. */
static inline unsigned arch_cpu_id(void)
{
	if (arch_has_rdtscp) {
		uint32_t aux;
		__asm__ volatile("rdtscp" : "=c"(aux) : : "rax", "rdx");
		return aux;
	}
	return arch_cpu_id_lapic();
}

/* In a spin loop: tells the CPU (and, under -icount, QEMU, which then runs
 * the other CPUs) that this one is waiting. */
static inline void arch_cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
/* No instruction: code after it cannot move before it, and a call just
 * before it is no tail call (its caller's frame stays for debuggers). */
static inline void arch_compiler_barrier(void) { __asm__ volatile(""); }

#endif
