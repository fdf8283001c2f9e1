/*
 * Time: the CPU's cycle counter (the TSC), calibrated against the PIT at
 * boot (arch/x86_64/time/).
 */
#ifndef ARCH_TIME_H
#define ARCH_TIME_H

#include <stdint.h>

#include <arch/cpu.h>

/* TSC ticks a second, measured at boot. */
extern uint64_t arch_tsc_hz;
uint64_t arch_tsc_to_ns(uint64_t ticks);
/* Spins us microseconds. */
void arch_delay_us(uint64_t us);

/* The TSC, arch_tsc_hz per second; inline, the NMI reads it. */
static inline uint64_t arch_cycles(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* The TSC and the CPU index in one instruction where RDTSCP exists.
 * Inline: the sampling NMI starts with it. */
static inline uint64_t arch_tsc_cpu(unsigned *cpu)
{
	if (arch_has_rdtscp) {
		uint32_t lo, hi, aux;
		__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
		*cpu = aux;
		return (uint64_t)hi << 32 | lo;
	}
	*cpu = arch_cpu_id_lapic();
	return arch_cycles();
}

#endif
