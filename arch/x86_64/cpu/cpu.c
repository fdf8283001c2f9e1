/*
 * Which CPU am I, from any context. The NMI cannot trust GS: it may arrive
 * on the first instructions of the syscall entry, before swapgs, with the
 * user's GS base loaded. So the index comes from RDTSCP, which returns
 * IA32_TSC_AUX (written here once per CPU, readable by nothing else in
 * the kernel), or, without RDTSCP, from the LAPIC ID.
 */
#include <arch/arch.h>
#include "arch/x86_64/x86.h"
#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/interrupts/lapic.h"
#include "arch/x86_64/smp/smp.h"

#define MSR_TSC_AUX   0xc0000103u
#define CPUID_RDTSCP  (1u << 27) /* leaf 0x80000001, edx */

/* Read inline by arch_cpu_id (<arch/cpu.h>): set once at boot, then constant. */
bool arch_has_rdtscp;
static bool lapic_up;

static bool cpu_has_rdtscp(void)
{
	if (cpuid(0x80000000, 0).eax < 0x80000001)
		return false;
	return cpuid(0x80000001, 0).edx & CPUID_RDTSCP;
}

/* After lapic_init, on each CPU as it starts (arch/x86_64/smp/smp.c). */
void cpu_id_init(unsigned index)
{
	arch_has_rdtscp = cpu_has_rdtscp();
	if (arch_has_rdtscp)
		wrmsr(MSR_TSC_AUX, index);
	lapic_up = true;
}

static unsigned from_lapic(void)
{
	if (!lapic_up)
		return 0; /* early boot: only the BSP runs */
	uint32_t id = lapic_id();
	for (unsigned i = 0; i < arch_ncpus(); i++)
		if (cpu_apic_id[i] == id)
			return i;
	return 0;
}

unsigned arch_cpu_id_lapic(void)
{
	return from_lapic();
}
