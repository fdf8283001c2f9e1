#include "arch/x86_64/interrupts/lapic.h"
#include <arch/arch.h>
#include <arch/ktest.h>
#include "arch/x86_64/x86.h"
#include "arch/x86_64/time/pit.h"
#include <arch/trap.h>
#include "kern/kernel.h"
#include "kern/mm/mm.h"

enum {
	REG_ID = 0x20,
	REG_TPR = 0x80,
	REG_EOI = 0xb0,
	REG_SVR = 0xf0,
	REG_ESR = 0x280,
	REG_ICR_LO = 0x300,
	REG_ICR_HI = 0x310,
	REG_LVT_TIMER = 0x320,
	REG_LVT_PMC = 0x340,
	REG_LVT_LINT0 = 0x350,
	REG_LVT_LINT1 = 0x360,
	REG_LVT_ERROR = 0x370,
	REG_TIMER_INIT = 0x380,
	REG_TIMER_CUR = 0x390,
	REG_TIMER_DIV = 0x3e0,
};

#define SVR_ENABLE       0x100
#define LVT_MASKED       (1u << 16)
#define LVT_PERIODIC     (1u << 17)
#define LVT_DELIVERY_NMI (4u << 8)
#define ICR_DELIVERY_NMI (4u << 8)
#define ICR_PENDING      (1u << 12)
#define ICR_ASSERT       (1u << 14)
#define ICR_DEST_SELF    (1u << 18) /* destination shorthand 01: self */
#define ICR_INIT         (5u << 8)
#define ICR_STARTUP      (6u << 8)
#define ICR_NMI          (4u << 8)
#define ICR_LEVEL        (1u << 15)
#define TIMER_DIV_16     0x3
#define APIC_BASE_ENABLE (1ull << 11)

/* Calibration interval: long enough for a few percent accuracy under
 * emulation, short enough not to slow the boot. */
#define CAL_MS 20

uint64_t lapic_timer_hz;
static volatile uint32_t *regs;

static uint32_t rd(unsigned reg)
{
	return regs[reg / 4];
}

static void wr(unsigned reg, uint32_t v)
{
	regs[reg / 4] = v;
}

void lapic_init(uint64_t phys)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	if ((base & ~0xfffull & 0xfffffffffull) != phys)
		kprintf("lapic: MADT says 0x%lx, IA32_APIC_BASE says 0x%lx\n", phys, base);
	wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);
	regs = p2v(phys);

	wr(REG_TPR, 0);
	wr(REG_SVR, SVR_ENABLE | VEC_SPURIOUS);
	wr(REG_LVT_TIMER, LVT_MASKED);
	/* The 8259 PICs are masked; LINT0 (their ExtINT line) stays masked,
	 * LINT1 is the platform NMI line. */
	wr(REG_LVT_LINT0, LVT_MASKED);
	wr(REG_LVT_LINT1, LVT_DELIVERY_NMI);
	wr(REG_LVT_ERROR, VEC_LAPIC_ERROR);
	wr(REG_ESR, 0); /* the ESR is cleared by two writes */
	wr(REG_ESR, 0);
	wr(REG_TIMER_DIV, TIMER_DIV_16);
	lapic_eoi();
}

void lapic_calibrate(void)
{
	uint16_t count = (uint16_t)(PIT_HZ * CAL_MS / 1000);

	wr(REG_LVT_TIMER, LVT_MASKED);
	pit_ch2_start(count);
	wr(REG_TIMER_INIT, 0xffffffffu);
	uint64_t t0 = arch_cycles();
	while (!pit_ch2_done())
		arch_cpu_relax();
	uint64_t t1 = arch_cycles();
	uint32_t left = rd(REG_TIMER_CUR);
	wr(REG_TIMER_INIT, 0);

	lapic_timer_hz = (uint64_t)(0xffffffffu - left) * PIT_HZ / count;
	arch_tsc_hz = (t1 - t0) * PIT_HZ / count;
}

uint32_t lapic_id(void)
{
	return rd(REG_ID) >> 24;
}

void lapic_eoi(void)
{
	wr(REG_EOI, 0);
}

/* Waits (boundedly) for the previous IPI to leave: modern CPUs (and
 * QEMU) never set the delivery status. */
static void icr_wait(void)
{
	for (int i = 0; i < 1000 && (rd(REG_ICR_LO) & ICR_PENDING); i++)
		arch_cpu_relax();
}

/*
 * An IPI to a named APIC: destination in ICR high, then the command in ICR
 * low (the write of ICR low sends). Two writes, so not NMI-safe: an NMI
 * handler that wrote ICR high between them would change the destination;
 * only normal context with interrupts off calls these.
 */
static void send(uint32_t apic_id, uint32_t cmd)
{
	icr_wait();
	wr(REG_ICR_HI, apic_id << 24);
	wr(REG_ICR_LO, cmd);
}

/*
 * NMI-safe (the deferred unwinder raises it from NMI context): the "self"
 * destination shorthand makes the send one 32-bit write of ICR low, and
 * ICR high (which the shorthand ignores) is left alone, so the NMI does not
 * redirect an IPI whose two writes it interrupted.
 */
void lapic_self_ipi(uint8_t vector)
{
	icr_wait();
	wr(REG_ICR_LO, ICR_DEST_SELF | ICR_ASSERT | vector); /* fixed delivery */
}

/* The self shorthand allows fixed delivery only (Intel SDM vol. 3,
 * "Interrupt Command Register"): an NMI names this APIC's own ID. */
void arch_self_nmi(void)
{
	send(lapic_id(), ICR_DELIVERY_NMI | ICR_ASSERT);
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	send(apic_id, ICR_ASSERT | vector);
}

void lapic_send_nmi(uint32_t apic_id)
{
	send(apic_id, ICR_ASSERT | ICR_NMI);
}

/* INIT (level assert), then the deassert that the Pentium-era MP
 * specification asks for and later CPUs ignore (Intel SDM vol. 3,
 * 11.6.1 / MP spec. B.4). */
void lapic_send_init(uint32_t apic_id)
{
	send(apic_id, ICR_INIT | ICR_LEVEL | ICR_ASSERT);
	arch_delay_us(200);
	send(apic_id, ICR_INIT | ICR_LEVEL);
}

/* Start-up IPI: the AP starts in real mode at CS:IP = (page << 8):0. */
void lapic_send_sipi(uint32_t apic_id, uint8_t page)
{
	send(apic_id, ICR_STARTUP | page);
}

static uint32_t ns_to_count(uint64_t ns)
{
	/* ns * hz / 1e9 without overflow for ns up to hours at 1 GHz. */
	uint64_t c = ns / 1000 * (lapic_timer_hz / 1000) / 1000;
	if (c == 0)
		return 1;
	return c > 0xffffffffu ? 0xffffffffu : (uint32_t)c;
}

/*
 * Intel documents no delivery mode for the timer LVT; QEMU honours one
 * (NMI) there, which is how the sampler gets its NMIs under emulation.
 */
static void timer_start(uint64_t ns, unsigned vector, uint32_t mode)
{
	uint32_t lvt = vector == LAPIC_TIMER_NMI ? LVT_DELIVERY_NMI : vector;
	wr(REG_TIMER_INIT, 0);
	wr(REG_LVT_TIMER, lvt | mode);
	wr(REG_TIMER_INIT, ns_to_count(ns));
}

void lapic_timer_oneshot(uint64_t ns, unsigned vector)
{
	timer_start(ns, vector, 0);
}

void arch_nmi_after(uint64_t ns)
{
	lapic_timer_oneshot(ns, LAPIC_TIMER_NMI);
}

void lapic_timer_periodic(uint64_t ns, unsigned vector)
{
	timer_start(ns, vector, LVT_PERIODIC);
}

void lapic_timer_stop(void)
{
	wr(REG_LVT_TIMER, LVT_MASKED);
	wr(REG_TIMER_INIT, 0);
}

/* The performance-counter LVT: NMI delivery, or masked. The CPU sets the
 * mask bit when it delivers a counter overflow, so the handler re-arms. */
void lapic_pmc_nmi(bool on)
{
	wr(REG_LVT_PMC, on ? LVT_DELIVERY_NMI : LVT_MASKED);
}

uint32_t lapic_timer_count(void)
{
	return rd(REG_TIMER_CUR);
}
