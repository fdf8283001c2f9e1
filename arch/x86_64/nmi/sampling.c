/*
 * Which clock raises the sampling NMIs, and the NMI handler.
 *
 * Sources, in the order `profile.source=auto` (the default) tries them:
 *
 *   pmu     the CPU's cycle counter overflowing (arch/x86_64/nmi/pmu.c): real
 *           machines, Intel or AMD, and hypervisors that virtualise it.
 *   lapic   the LAPIC timer, periodic, NMI delivery on its LVT: Intel and
 *           AMD document no delivery mode for the timer LVT, but QEMU (TCG
 *           and KVM) honours one, so this is chosen only under QEMU.
 *   ioapic  an HPET comparator routed through an IOAPIC input in NMI
 *           delivery mode (arch/x86_64/nmi/hpet.c): machines without a usable
 *           PMU, or whenever profile.source=ioapic asks for it.
 *
 * With none of them the LAPIC timer is tried all the same, and the boot
 * line says that samples may never come. `profile.source=pmu|lapic|ioapic`
 * overrides the choice; an unusable one is refused with its reason and
 * the automatic choice is made.
 */
#include <arch/arch.h>
#include "arch/x86_64/nmi/hpet.h"
#include "arch/x86_64/interrupts/lapic.h"
#include "arch/x86_64/nmi/pmu.h"
#include <arch/trap.h>
#include "kern/kernel.h"
#include "kern/profile/sample.h"
#include "kern/lib/stats.h"
#include "kern/lib/string.h"

enum source { SRC_NONE, SRC_PMU, SRC_LAPIC, SRC_IOAPIC };

static const char *const names[] = {
	[SRC_NONE] = "", [SRC_PMU] = "pmu", [SRC_LAPIC] = "lapic",
	[SRC_IOAPIC] = "ioapic",
};

static enum source chosen;  /* by arch_sampling_select */
/* Since the last start, on every CPU the same (arch_sampling_start_all):
 * left as it is by stop, so that each CPU stops its own by it. */
static enum source running;
static uint64_t hpet_last, hpet_min_gap; /* TSC: the last HPET sample, period / 2 */
static char line[256];

/* "TCGTCGTCGTCG" or "KVMKVMKVM": QEMU, whose LAPIC timer delivers NMIs. */
static const char *qemu_accel(void)
{
	if (!(cpuid(1, 0).ecx & (1u << 31)))
		return NULL;
	struct cpuid h = cpuid(0x40000000, 0);
	char sig[13];
	memcpy(sig, &h.ebx, 4);
	memcpy(sig + 4, &h.ecx, 4);
	memcpy(sig + 8, &h.edx, 4);
	sig[12] = '\0';
	if (strcmp(sig, "TCGTCGTCGTCG") == 0)
		return "QEMU TCG";
	if (memcmp(sig, "KVMKVMKVM", 9) == 0)
		return "KVM";
	return NULL;
}

static enum source parse(const char *want)
{
	for (enum source s = SRC_PMU; s <= SRC_IOAPIC; s++)
		if (strcmp(want, names[s]) == 0)
			return s;
	return SRC_NONE;
}

/* Why `want` cannot be had, or NULL if it can. */
static const char *refusal(enum source w, bool pmu, const char *pmu_why,
			   bool hpet, const char *hpet_why)
{
	if (w == SRC_NONE)
		return "unknown (auto, pmu, lapic or ioapic)";
	if (w == SRC_PMU && !pmu)
		return pmu_why;
	if (w == SRC_IOAPIC && !hpet)
		return hpet_why;
	return NULL;
}

/* The automatic choice, and why, into why[n]. */
static enum source choose(bool pmu, const char *pmu_why, bool hpet,
			  const char *hpet_why, char *why, size_t n)
{
	const char *qemu = qemu_accel();
	if (pmu) {
		ksnprintf(why, n, "%s", pmu_why);
		return SRC_PMU;
	}
	if (qemu) {
		ksnprintf(why, n, "%s; %s delivers NMIs from the timer LVT", pmu_why, qemu);
		return SRC_LAPIC;
	}
	if (hpet) {
		ksnprintf(why, n, "%s", pmu_why);
		return SRC_IOAPIC;
	}
	ksnprintf(why, n, "%s; %s; this machine may deliver none", pmu_why, hpet_why);
	return SRC_LAPIC;
}

const char *arch_sampling_select(const char *want)
{
	const char *pmu_why, *hpet_why;
	bool pmu = pmu_detect(&pmu_why), hpet = hpet_detect(&hpet_why);
	char why[160];

	chosen = SRC_NONE;
	if (want && *want && strcmp(want, "auto")) {
		enum source w = parse(want);
		const char *no = refusal(w, pmu, pmu_why, hpet, hpet_why);
		if (no) {
			kprintf("profile: profile.source=%s refused: %s; choosing\n", want, no);
		} else {
			chosen = w;
			ksnprintf(why, sizeof(why), "profile.source=%s", want);
		}
	}
	if (chosen == SRC_NONE)
		chosen = choose(pmu, pmu_why, hpet, hpet_why, why, sizeof(why));

	if (chosen == SRC_PMU)
		ksnprintf(line, sizeof(line), "PMU counter overflow (%s)", why);
	else if (chosen == SRC_IOAPIC)
		ksnprintf(line, sizeof(line), "HPET timer %u via IOAPIC input %u (%s)",
			  hpet_timer(), hpet_gsi(), why);
	else
		ksnprintf(line, sizeof(line), "LAPIC timer (%s)", why);
	return line;
}

/*
 * The HPET's NMIs: one per period. Under -icount (guest time exact) QEMU
 * 7.2's HPET was seen to raise each periodic interrupt twice at the same
 * instant (its timer callback moves the comparator on only once the
 * counter is past it, and at an exact match it is not); a second NMI
 * within half a period of the last is not a sample.
 */
static bool hpet_nmi_is_sample(void)
{
	uint64_t now = arch_cycles();
	if (now - hpet_last < hpet_min_gap)
		return false;
	hpet_last = now;
	return true;
}

/* NMI context. The LAPIC timer cannot say whether it raised this NMI, nor
 * can an edge-triggered HPET interrupt (it sets no status bit): every NMI
 * is a sample, but for the HPET's doubles above; the PMU can say. */
static void sampling_nmi(struct trap_frame *tf)
{
	if ((running == SRC_PMU && !pmu_nmi()) ||
	    (running == SRC_IOAPIC && !hpet_nmi_is_sample())) {
		stat_inc(STAT_NMI_IGNORED);
		return;
	}
	struct nmi_regs r = { .frame = tf, .ip = tf->rip, .sp = tf->rsp, .fp = tf->rbp,
			      .user = trap_from_user(tf),
			      .irqs_off = !(tf->rflags & RFLAGS_IF) };
	sample_nmi(&r);
}

void arch_sampling_start(unsigned hz)
{
	if (chosen == SRC_NONE)
		arch_sampling_select(NULL);
	trap_set_handler(VEC_NMI, sampling_nmi);
	running = chosen;
	if (running == SRC_PMU)
		pmu_start(hz);
	else if (running == SRC_IOAPIC) {
		/* One HPET for the machine, its NMI routed to the boot CPU:
		 * with this source the other CPUs are not sampled. */
		if (arch_cpu_id() == 0) {
			hpet_last = 0;
			hpet_min_gap = arch_tsc_hz / hz / 2;
			hpet_nmi_start(hz);
		}
	}
	else
		lapic_timer_periodic(1000000000ull / hz, LAPIC_TIMER_NMI);
}

/* The LAPIC timer is the watchdog's clock too: its NMIs find no
 * sampling handler (counted ignored) and go to watchdog_nmi. */
void arch_watchdog_start(unsigned hz)
{
	lapic_timer_periodic(1000000000ull / hz, LAPIC_TIMER_NMI);
	running = SRC_LAPIC; /* so that arch_sampling_stop stops it */
}

void arch_sampling_stop(void)
{
	if (running == SRC_PMU)
		pmu_stop();
	else if (running == SRC_IOAPIC && arch_cpu_id() == 0)
		hpet_nmi_stop();
	else if (running == SRC_LAPIC)
		lapic_timer_stop();
	/* An NMI already pending still finds a handler, which counts it
	 * (as ignored once sampling is disarmed). */
}
