/*
 * The sampling NMI source. With an architectural PMU (CPUID leaf 0xA:
 * real machines, KVM), counter 0 counts unhalted core cycles and its
 * overflow raises an NMI through the LAPIC's performance-counter LVT;
 * the period is tsc_hz / hz cycles. Without one (QEMU TCG), the LAPIC
 * timer runs periodically with NMI delivery, which QEMU honours on the
 * timer LVT (real hardware does not).
 */
#include "arch/x86_64/pmu.h"
#include "arch/x86_64/arch.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/trap.h"
#include "kern/sample.h"
#include "kern/stats.h"

#define MSR_PMC0              0x0c1
#define MSR_PERFEVTSEL0       0x186
#define MSR_PERF_GLOBAL_STATUS   0x38e
#define MSR_PERF_GLOBAL_CTRL     0x38f
#define MSR_PERF_GLOBAL_OVF_CTRL 0x390

#define EVTSEL_CORE_CYCLES 0x3c /* event 0x3c, umask 0 */
#define EVTSEL_USR (1u << 16)
#define EVTSEL_OS  (1u << 17)
#define EVTSEL_INT (1u << 20)   /* APIC interrupt on overflow */
#define EVTSEL_EN  (1u << 22)

enum source { SRC_NONE, SRC_PMU, SRC_LAPIC };

static enum source source;
static struct pmu_info pmu;
static uint64_t pmu_period; /* cycles between NMIs */

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

/* WRMSR to a counter writes its low 32 bits sign-extended: -period must
 * fit in 31 bits (at 5 GHz and 100 Hz it is 50 M, far below). */
static void pmu_arm(void)
{
	wrmsr(MSR_PMC0, (uint64_t)-(int64_t)pmu_period & ((1ull << pmu.width) - 1));
	lapic_pmc_nmi(true);
}

/* Did counter 0 overflow? With version 2+ the global status says so;
 * version 1 has none, but a counter started at -period has its top bit
 * set until it wraps. */
static bool pmu_overflowed(void)
{
	if (pmu.version >= 2)
		return rdmsr(MSR_PERF_GLOBAL_STATUS) & 1;
	return !(rdmsr(MSR_PMC0) >> (pmu.width - 1) & 1);
}

static void pmu_start(void)
{
	wrmsr(MSR_PERFEVTSEL0, 0);
	pmu_arm();
	wrmsr(MSR_PERFEVTSEL0, EVTSEL_CORE_CYCLES | EVTSEL_USR | EVTSEL_OS |
				       EVTSEL_INT | EVTSEL_EN);
	if (pmu.version >= 2)
		wrmsr(MSR_PERF_GLOBAL_CTRL, rdmsr(MSR_PERF_GLOBAL_CTRL) | 1);
}

static void pmu_stop(void)
{
	wrmsr(MSR_PERFEVTSEL0, 0);
	lapic_pmc_nmi(false);
	if (pmu.version >= 2)
		wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, 1);
}

static void regs_of(const struct trap_frame *tf, struct sample_regs *r)
{
	r->r[REC_REG_AX] = tf->rax;
	r->r[REC_REG_BX] = tf->rbx;
	r->r[REC_REG_CX] = tf->rcx;
	r->r[REC_REG_DX] = tf->rdx;
	r->r[REC_REG_SI] = tf->rsi;
	r->r[REC_REG_DI] = tf->rdi;
	r->r[REC_REG_BP] = tf->rbp;
	r->r[REC_REG_SP] = tf->rsp;
	r->r[REC_REG_IP] = tf->rip;
	r->r[REC_REG_FLAGS] = tf->rflags;
	r->r[REC_REG_R8] = tf->r8;
	r->r[REC_REG_R9] = tf->r9;
	r->r[REC_REG_R10] = tf->r10;
	r->r[REC_REG_R11] = tf->r11;
	r->r[REC_REG_R12] = tf->r12;
	r->r[REC_REG_R13] = tf->r13;
	r->r[REC_REG_R14] = tf->r14;
	r->r[REC_REG_R15] = tf->r15;
	r->user = trap_from_user(tf);
}

/* NMI context. The LAPIC timer cannot say whether it raised this NMI, so
 * with that source every NMI is a sample; the PMU can. */
static void sampling_nmi(struct trap_frame *tf)
{
	struct sample_regs r;
	if (source == SRC_PMU) {
		if (!pmu_overflowed()) {
			stat_inc(STAT_NMI_IGNORED);
			return;
		}
		if (pmu.version >= 2)
			wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, 1);
		pmu_arm();
	}
	regs_of(tf, &r);
	sample_nmi(&r);
}

static bool detect_pmu(void)
{
	pmu = pmu_decode(cpuid(0, 0).eax, cpuid(0xa, 0));
	return pmu_usable(&pmu);
}

const char *arch_sampling_source(void)
{
	return detect_pmu() ? "PMU counter 0 (unhalted core cycles) overflow NMI" :
			      "LAPIC timer NMI (no architectural PMU)";
}

void arch_sampling_start(unsigned hz)
{
	trap_set_handler(VEC_NMI, sampling_nmi);
	if (detect_pmu()) {
		source = SRC_PMU;
		pmu_period = tsc_hz / hz;
		pmu_start();
	} else {
		source = SRC_LAPIC;
		lapic_timer_periodic(1000000000ull / hz, LAPIC_TIMER_NMI);
	}
}

void arch_sampling_stop(void)
{
	if (source == SRC_PMU)
		pmu_stop();
	else if (source == SRC_LAPIC)
		lapic_timer_stop();
	/* An NMI already pending still finds a handler, which counts it.
	 * source stays: the other CPUs stop theirs by it too. */
}
