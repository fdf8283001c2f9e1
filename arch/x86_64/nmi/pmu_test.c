#include "arch/x86_64/nmi/pmu.h"
#include "kern/lib/console.h"
#include "kern/lib/ktest.h"

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
	KEXPECT(t, !pmu_usable(&(struct pmu_info){ .version = 2, .width = 48, .core_cycles = true }));
	p = pmu_decode(0xd, (struct cpuid){ 0, 0, 0, 0 });
	KEXPECT(t, !pmu_usable(&p));
	p = pmu_decode(0x7, (struct cpuid){ 0x07300404, 0, 0, 0 });
	KEXPECT_EQ(t, p.version, 0);
	KEXPECT(t, !pmu_usable(&p));

	/* AMD: family 17h (Zen), 10h, bare metal: the four legacy counters;
	 * K8 (0Fh), a hypervisor, or an Intel vendor string: none. */
	struct cpuid amd = { 0x10, 0x68747541, 0x444d4163, 0x69746e65 };
	struct cpuid hygon = { 0xd, 0x6f677948, 0x656e6975, 0x6e65476e };
	struct cpuid intel = { 0x16, 0x756e6547, 0x6c65746e, 0x49656e69 };
	p = pmu_decode_amd(amd, (struct cpuid){ 0x00800f12, 0, 0, 0 });
	KEXPECT(t, pmu_usable(&p) && p.amd && p.width == 48 && p.version == 1);
	p = pmu_decode_amd(hygon, (struct cpuid){ 0x00900f01, 0, 0, 0 });
	KEXPECT(t, pmu_usable(&p) && p.amd);
	p = pmu_decode_amd(amd, (struct cpuid){ 0x00100f22, 0, 0, 0 });
	KEXPECT(t, pmu_usable(&p));
	p = pmu_decode_amd(amd, (struct cpuid){ 0x00020f12, 0, 0, 0 });
	KEXPECT(t, !pmu_usable(&p));
	p = pmu_decode_amd(amd, (struct cpuid){ 0x00800f12, 0, 1u << 31, 0 });
	KEXPECT(t, !pmu_usable(&p));
	p = pmu_decode_amd(intel, (struct cpuid){ 0x000906ea, 0, 0, 0 });
	KEXPECT(t, !pmu_usable(&p));

	/* This machine, for the log. */
	p = pmu_decode(cpuid(0, 0).eax, cpuid(0xa, 0));
	kprintf("# pmu: version %u, %u counters of %u bits, cycles %s: %s\n",
		p.version, p.counters, p.width, p.core_cycles ? "yes" : "no",
		pmu_usable(&p) ? "PMU NMIs" : "LAPIC timer NMIs");
}
