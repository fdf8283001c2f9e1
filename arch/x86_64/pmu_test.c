#include "arch/x86_64/pmu.h"
#include "kern/console.h"
#include "kern/ktest.h"

/* CPUID leaf 0xA as real processors report it, and as QEMU TCG does. */
KTEST(pmu_cpuid_decode)
{
	/* Skylake: version 4, 4 counters of 48 bits, 7 event bits, all there. */
	struct pmu_info p = pmu_decode(0x16, (struct cpuid){ 0x07300404, 0, 0, 0x603 });
	KEXPECT_EQ(t, p.version, 4);
	KEXPECT_EQ(t, p.counters, 4);
	KEXPECT_EQ(t, p.width, 48);
	KEXPECT(t, p.core_cycles);
	KEXPECT(t, pmu_usable(&p));

	/* EBX bit 0 set: no unhalted-core-cycles event. */
	p = pmu_decode(0x16, (struct cpuid){ 0x07300404, 0x1, 0, 0 });
	KEXPECT(t, !p.core_cycles);
	KEXPECT(t, !pmu_usable(&p));

	/* The EBX bit vector is 0 bits long: EBX says nothing, no event. */
	p = pmu_decode(0x16, (struct cpuid){ 0x00300404, 0, 0, 0 });
	KEXPECT(t, !pmu_usable(&p));

	/* Version 1 with 2 counters of 40 bits (Core Solo era) is enough. */
	p = pmu_decode(0xa, (struct cpuid){ 0x07280201, 0, 0, 0 });
	KEXPECT_EQ(t, p.version, 1);
	KEXPECT(t, pmu_usable(&p));

	/* No counters, or version 0 (TCG), or no leaf 0xA at all. */
	KEXPECT(t, !pmu_usable(&(struct pmu_info){ 2, 0, 48, true }));
	p = pmu_decode(0xd, (struct cpuid){ 0, 0, 0, 0 });
	KEXPECT(t, !pmu_usable(&p));
	p = pmu_decode(0x7, (struct cpuid){ 0x07300404, 0, 0, 0 });
	KEXPECT_EQ(t, p.version, 0);
	KEXPECT(t, !pmu_usable(&p));

	/* This machine, for the log. */
	p = pmu_decode(cpuid(0, 0).eax, cpuid(0xa, 0));
	kprintf("# pmu: version %u, %u counters of %u bits, cycles %s: %s\n",
		p.version, p.counters, p.width, p.core_cycles ? "yes" : "no",
		pmu_usable(&p) ? "PMU NMIs" : "LAPIC timer NMIs");
}
