/*
 * The CPU's performance counters as the sampling NMI source: one counter
 * counts unhalted core cycles from -period up; its overflow raises an NMI
 * through the LAPIC's performance-counter LVT. The period is arch_tsc_hz / hz
 * cycles.
 *
 *   - Intel: architectural perfmon (SDM vol. 3, ch. 20), CPUID leaf 0xA,
 *     IA32_PMC0 and IA32_PERFEVTSEL0, event 0x3c.
 *   - AMD: the four legacy core counters (AMD64 APM vol. 2, 13.2
 *     "Performance Counters"), PerfEvtSel0 at C001_0000h and PerfCtr0 at
 *     C001_0004h, 48 bits, on every family from 10h on; event 076h, "CPU
 *     Clocks not Halted". They have no CPUID bit of their own, so they are
 *     used only on bare metal: a hypervisor may not emulate them (QEMU's
 *     TCG does not, and the WRMSR would fault).
 */
#include "arch/x86_64/nmi/pmu.h"
#include <arch/arch.h>
#include "arch/x86_64/interrupts/lapic.h"
#include "kern/kernel.h"

#define MSR_PMC0              0x0c1
#define MSR_PERFEVTSEL0       0x186
#define MSR_PERF_GLOBAL_STATUS   0x38e
#define MSR_PERF_GLOBAL_CTRL     0x38f
#define MSR_PERF_GLOBAL_OVF_CTRL 0x390
#define MSR_AMD_PERFEVTSEL0   0xc0010000u
#define MSR_AMD_PERFCTR0      0xc0010004u

#define EVTSEL_INTEL_CYCLES 0x3c /* event 0x3c, umask 0 */
#define EVTSEL_AMD_CYCLES   0x76
#define EVTSEL_USR (1u << 16)
#define EVTSEL_OS  (1u << 17)
#define EVTSEL_INT (1u << 20)   /* APIC interrupt on overflow */
#define EVTSEL_EN  (1u << 22)

#define AMD_WIDTH 48
#define CPUID_HYPERVISOR (1u << 31) /* leaf 1, ECX */

static struct pmu_info pmu;
static uint32_t evtsel_msr, ctr_msr;
static uint64_t period; /* cycles between NMIs */

struct pmu_info pmu_decode(uint32_t max_leaf, struct cpuid a)
{
	struct pmu_info p = { 0 };
	if (max_leaf < 0xa)
		return p;
	p.version = a.eax & 0xff;
	p.counters = (a.eax >> 8) & 0xff;
	p.width = (a.eax >> 16) & 0xff;
	/* EBX bit i set means event i is NOT available; EAX[31:24] says how
	 * many bits of EBX are valid. Bit 0 is unhalted core cycles. */
	unsigned nbits = a.eax >> 24;
	p.core_cycles = nbits > 0 && !(a.ebx & 1);
	return p;
}

bool pmu_usable(const struct pmu_info *p)
{
	return p->version >= 1 && p->counters >= 1 && p->width >= 32 &&
	       p->core_cycles;
}

/* CPUID leaf 0's vendor (EBX EDX ECX) and leaf 1's family and hypervisor
 * bit: AMD's counters, described like leaf 0xA's (version 1 semantics:
 * no global status), or version 0. */
struct pmu_info pmu_decode_amd(struct cpuid leaf0, struct cpuid leaf1)
{
	struct pmu_info p = { 0 };
	bool amd = (leaf0.ebx == 0x68747541 && leaf0.edx == 0x69746e65 &&
		    leaf0.ecx == 0x444d4163) ||   /* "AuthenticAMD" */
		   (leaf0.ebx == 0x6f677948 && leaf0.edx == 0x6e65476e &&
		    leaf0.ecx == 0x656e6975);     /* "HygonGenuine" */
	unsigned family = (leaf1.eax >> 8) & 0xf;
	if (family == 0xf)
		family += (leaf1.eax >> 20) & 0xff;
	if (!amd || family < 0x10 || (leaf1.ecx & CPUID_HYPERVISOR))
		return p;
	return (struct pmu_info){ .version = 1, .counters = 4, .width = AMD_WIDTH,
				  .core_cycles = true, .amd = true };
}

bool pmu_detect(const char **why)
{
	pmu = pmu_decode(cpuid(0, 0).eax, cpuid(0xa, 0));
	if (!pmu_usable(&pmu))
		pmu = pmu_decode_amd(cpuid(0, 0), cpuid(1, 0));
	if (!pmu_usable(&pmu)) {
		*why = "no architectural PMU, no AMD core counters on bare metal";
		return false;
	}
	*why = pmu.amd ? "AMD PerfCtr0, CPU clocks not halted" :
			 "Intel PMC0, unhalted core cycles";
	evtsel_msr = pmu.amd ? MSR_AMD_PERFEVTSEL0 : MSR_PERFEVTSEL0;
	ctr_msr = pmu.amd ? MSR_AMD_PERFCTR0 : MSR_PMC0;
	return true;
}

/* WRMSR to an Intel counter writes its low 32 bits sign-extended: -period
 * must fit in 31 bits (at 5 GHz and 100 Hz it is 50 M, far below). */
static void arm(void)
{
	wrmsr(ctr_msr, (uint64_t)-(int64_t)period & ((1ull << pmu.width) - 1));
	lapic_pmc_nmi(true);
}

/* Did the counter overflow? Intel version 2+ has a global status; without
 * one, a counter started at -period has its top bit set until it wraps. */
static bool overflowed(void)
{
	if (pmu.version >= 2)
		return rdmsr(MSR_PERF_GLOBAL_STATUS) & 1;
	return !(rdmsr(ctr_msr) >> (pmu.width - 1) & 1);
}

bool pmu_nmi(void)
{
	if (!overflowed())
		return false;
	if (pmu.version >= 2)
		wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, 1);
	arm();
	return true;
}

void pmu_start(unsigned hz)
{
	period = arch_tsc_hz / hz;
	wrmsr(evtsel_msr, 0);
	arm();
	wrmsr(evtsel_msr, (pmu.amd ? EVTSEL_AMD_CYCLES : EVTSEL_INTEL_CYCLES) |
				  EVTSEL_USR | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN);
	if (pmu.version >= 2)
		wrmsr(MSR_PERF_GLOBAL_CTRL, rdmsr(MSR_PERF_GLOBAL_CTRL) | 1);
}

void pmu_stop(void)
{
	wrmsr(evtsel_msr, 0);
	lapic_pmc_nmi(false);
	if (pmu.version >= 2)
		wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, 1);
}
