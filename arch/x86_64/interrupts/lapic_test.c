#include <arch/arch.h>
#include "arch/x86_64/x86.h"
#include "arch/x86_64/interrupts/lapic.h"
#include "arch/x86_64/interrupts/madt.h"
#include "arch/x86_64/time/pit.h"
#include <arch/trap.h>
#include "kern/kernel.h"
#include "kern/lib/ktest.h"

static volatile int hits;
static volatile uint64_t hit_vector;

static void count_hit(struct trap_frame *tf)
{
	hits++;
	hit_vector = tf->vector;
}

/* Spins (interrupts as they are) until *v >= want or ms elapse. */
static bool wait_for(volatile int *v, int want, uint64_t ms)
{
	uint64_t end = arch_cycles() + ms * (arch_tsc_hz / 1000);
	while (*v < want && arch_cycles() < end)
		arch_cpu_relax();
	return *v >= want;
}

static void wait_tick(void)
{
	uint64_t t0 = pit_ticks();
	while (pit_ticks() == t0)
		irq_wait();
}

/* Within 20% of expected: emulation jitters, a wrong calibration is off
 * by far more (a wrong divider is 2x, a wrong clock 10x or more). */
static bool near(uint64_t got, uint64_t expected)
{
	return got * 10 >= expected * 8 && got * 10 <= expected * 12;
}

/* Over 100 ms of PIT ticks, the LAPIC timer and the TSC must advance by
 * a tenth of the rates lapic_calibrate measured on channel 2. */
#define TENTH_S_TICKS (TICK_HZ / 10)
KTEST(lapic_timer_calibration)
{
	if (ktest_skip_timing(t))
		return;
	KASSERT(t, lapic_timer_hz > 0 && arch_tsc_hz > 0);
	trap_set_handler(VEC_LAPIC_TIMER, count_hit);
	wait_tick();
	lapic_timer_oneshot(1000000000, VEC_LAPIC_TIMER); /* 1 s: not expiring */
	uint64_t t0 = arch_cycles();
	uint32_t c0 = lapic_timer_count();
	uint64_t tick0 = pit_ticks();
	while (pit_ticks() < tick0 + TENTH_S_TICKS)
		irq_wait();
	uint32_t c1 = lapic_timer_count();
	uint64_t t1 = arch_cycles();
	lapic_timer_stop();
	trap_set_handler(VEC_LAPIC_TIMER, NULL);

	kprintf("# lapic: %u counts, tsc: %lu cycles in %u PIT ticks; "
		"calibrated %lu Hz, %lu Hz\n", c0 - c1, t1 - t0, TENTH_S_TICKS,
		lapic_timer_hz, arch_tsc_hz);
	KEXPECT(t, near(c0 - c1, lapic_timer_hz / 10));
	KEXPECT(t, near(t1 - t0, arch_tsc_hz / 10));
}

KTEST(lapic_timer_oneshot_vector)
{
	hits = 0;
	trap_set_handler(VEC_LAPIC_TIMER, count_hit);
	irq_enable();
	lapic_timer_oneshot(1000000, VEC_LAPIC_TIMER); /* 1 ms */
	KEXPECT(t, wait_for(&hits, 1, 200));
	KEXPECT_EQ(t, hit_vector, VEC_LAPIC_TIMER);
	wait_for(&hits, 2, 20); /* one-shot: no second interrupt */
	KEXPECT_EQ(t, hits, 1);
	lapic_timer_stop();
	trap_set_handler(VEC_LAPIC_TIMER, NULL);
}

KTEST(lapic_timer_periodic)
{
	if (ktest_skip_timing(t))
		return;
	hits = 0;
	trap_set_handler(VEC_LAPIC_TIMER, count_hit);
	irq_enable();
	lapic_timer_periodic(1000000, VEC_LAPIC_TIMER); /* 1 kHz */
	wait_for(&hits, 1000, 50);
	lapic_timer_stop();
	int n = hits;
	kprintf("# %d periodic interrupts in 50 ms\n", n);
	/* Emulation may merge late interrupts, never invent them. */
	KEXPECT(t, n >= 10 && n <= 55);
	wait_for(&hits, n + 1, 10);
	KEXPECT_EQ(t, hits, n); /* stopped */
	trap_set_handler(VEC_LAPIC_TIMER, NULL);
}

/* The sampler's path: the timer delivers an NMI, which arrives even with
 * interrupts disabled, on the NMI's own stack. */
KTEST(lapic_timer_nmi)
{
	hits = 0;
	trap_set_handler(VEC_NMI, count_hit);
	irqflags_t f = irq_save();
	lapic_timer_oneshot(1000000, LAPIC_TIMER_NMI);
	KEXPECT(t, wait_for(&hits, 1, 200));
	irq_restore(f);
	KEXPECT_EQ(t, hit_vector, VEC_NMI);
	KEXPECT_EQ(t, hits, 1);
	lapic_timer_stop();
	trap_set_handler(VEC_NMI, NULL);
}

/* A self-IPI sent with interrupts disabled waits until they are enabled.
 * The vector's own handler (irq work's, every CPU's) is put back after. */
KTEST(lapic_self_ipi)
{
	trap_handler_t irq_work_ipi = trap_handler(VEC_SELF_IPI);
	hits = 0;
	trap_set_handler(VEC_SELF_IPI, count_hit);
	irqflags_t f = irq_save();
	lapic_self_ipi(VEC_SELF_IPI);
	wait_for(&hits, 1, 5);
	KEXPECT_EQ(t, hits, 0);
	irq_enable();
	KEXPECT(t, wait_for(&hits, 1, 100));
	irq_restore(f);
	KEXPECT_EQ(t, hit_vector, VEC_SELF_IPI);
	trap_set_handler(VEC_SELF_IPI, irq_work_ipi);
}

/* IRQ 0 reaches us through the IOAPIC (with its source override) at
 * TICK_HZ, measured by the TSC. */
KTEST(pit_tick_rate)
{
	if (ktest_skip_timing(t))
		return;
	wait_tick();
	uint64_t t0 = arch_cycles(), tick0 = pit_ticks();
	while (pit_ticks() < tick0 + TENTH_S_TICKS)
		irq_wait();
	KEXPECT(t, near(arch_tsc_to_ns(arch_cycles() - t0), 100000000));
}

KTEST(madt_matches_cpu)
{
	KEXPECT_EQ(t, madt.lapic_phys, rdmsr(MSR_APIC_BASE) & 0xffffff000ull);
	bool found = false;
	for (int i = 0; i < madt.ncpus; i++)
		found |= madt.apic_id[i] == lapic_id();
	KEXPECT(t, found);
	KEXPECT(t, madt.nioapics >= 1);
}
