/*
 * The other CPUs: each one runs kernel code when asked (arch_smp_call), knows
 * its own index without GS, has its own GDT, TSS and GS base, takes an
 * NMI on its own IST stack, and its own LAPIC timer delivers NMIs to it.
 * With one CPU there is nothing to test: they skip.
 */
#include <arch/arch.h>
#include "arch/x86_64/x86.h"
#include "arch/x86_64/cpu/gdt.h"
#include "arch/x86_64/interrupts/lapic.h"
#include "arch/x86_64/interrupts/madt.h"
#include "arch/x86_64/smp/smp.h"
#include <arch/trap.h>
#include "kern/kernel.h"
#include "kern/proc/irq_work.h"
#include "kern/lib/ktest.h"

#define IST_STACK_SIZE 16384

static bool several(struct ktest *t)
{
	if (arch_ncpus() > 1)
		return true;
	ktest_skip(t, "one CPU (boot with --cpus N)");
	return false;
}

struct whoami {
	unsigned cpu;
	uint32_t apic;
	uint64_t gs_base, gdt_base, tss_sel;
};

static void whoami(void *arg)
{
	struct whoami *w = arg;
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) gdtr;
	uint16_t tr;
	__asm__ volatile("sgdt %0; str %1" : "=m"(gdtr), "=r"(tr));
	w->cpu = arch_cpu_id();
	w->apic = lapic_id();
	w->gs_base = rdmsr(MSR_GS_BASE);
	w->gdt_base = gdtr.base;
	w->tss_sel = tr;
}

KTEST(smp_every_cpu_online)
{
	unsigned n = arch_ncpus();
	KEXPECT_EQ(t, n, (unsigned)MIN(madt.ncpus, ARCH_MAX_CPUS));
	if (!several(t))
		return;
	struct whoami w[ARCH_MAX_CPUS];
	for (unsigned cpu = 0; cpu < n; cpu++) {
		arch_smp_call(cpu, whoami, &w[cpu]);
		KEXPECT_EQ(t, w[cpu].cpu, cpu);
		KEXPECT_EQ(t, w[cpu].apic, cpu_apic_id[cpu]);
		KEXPECT_EQ(t, w[cpu].tss_sel, SEG_TSS);
		for (unsigned other = 0; other < cpu; other++) {
			KEXPECT(t, w[cpu].apic != w[other].apic);
			KEXPECT(t, w[cpu].gs_base != w[other].gs_base);
			KEXPECT(t, w[cpu].gdt_base != w[other].gdt_base);
		}
	}
}

/* Per CPU: NMIs seen, and whether each ran on that CPU's own NMI stack. */
static unsigned nmi_seen[ARCH_MAX_CPUS];
static unsigned nmi_off_stack[ARCH_MAX_CPUS];

static void count_nmi(struct trap_frame *tf)
{
	unsigned cpu = arch_cpu_id();
	uint64_t top = ist_stack_top(cpu, IST_NMI), at = (uint64_t)tf;
	if (at < top - IST_STACK_SIZE || at >= top)
		__atomic_fetch_add(&nmi_off_stack[cpu], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&nmi_seen[cpu], 1, __ATOMIC_RELAXED);
}

static void reset_counts(void)
{
	for (int i = 0; i < ARCH_MAX_CPUS; i++)
		nmi_seen[i] = nmi_off_stack[i] = 0;
}

/* pause: under -icount QEMU runs the CPUs round-robin and switches at a
 * pause, so a loop without one would keep the others from running. */
static bool wait_nmis(unsigned cpu, unsigned want)
{
	uint64_t end = arch_cycles() + arch_tsc_hz; /* 1 s of guest time */
	while (__atomic_load_n(&nmi_seen[cpu], __ATOMIC_RELAXED) < want) {
		if (arch_cycles() > end)
			return false;
		arch_cpu_relax();
	}
	return true;
}

KTEST(smp_nmi_on_own_ist_stack)
{
	if (!several(t))
		return;
	reset_counts();
	trap_set_handler(VEC_NMI, count_nmi);
	for (unsigned cpu = 1; cpu < arch_ncpus(); cpu++) {
		irqflags_t f = irq_save();
		lapic_send_nmi(cpu_apic_id[cpu]);
		irq_restore(f);
		KEXPECT(t, wait_nmis(cpu, 1));
	}
	trap_set_handler(VEC_NMI, NULL);
	KEXPECT_EQ(t, nmi_seen[0], 0);
	for (unsigned cpu = 1; cpu < arch_ncpus(); cpu++) {
		KEXPECT_EQ(t, nmi_seen[cpu], 1);
		KEXPECT_EQ(t, nmi_off_stack[cpu], 0);
	}
}

static void timer_nmis_on(void *arg)
{
	(void)arg;
	lapic_timer_periodic(200000, LAPIC_TIMER_NMI); /* 5 kHz */
}

static void timer_off(void *arg)
{
	(void)arg;
	lapic_timer_stop();
}

/* Each CPU's own timer: every CPU counts NMIs, each on its own stack. */
KTEST(smp_timer_nmi_every_cpu)
{
	if (!several(t))
		return;
	reset_counts();
	trap_set_handler(VEC_NMI, count_nmi);
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		arch_smp_call(cpu, timer_nmis_on, NULL);
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		KEXPECT(t, wait_nmis(cpu, 5));
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		arch_smp_call(cpu, timer_off, NULL);
	trap_set_handler(VEC_NMI, NULL);
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		KEXPECT_EQ(t, nmi_off_stack[cpu], 0);
}

/*
 * A work queued on another CPU (idle there, halted) and still running
 * when this CPU asks: irq_work_wait returns only once it has run, there.
 * This is what task exit relies on before the task's unwind state goes.
 */
static struct irq_work slow;
static unsigned slow_cpu, slow_runs;

static void slow_func(struct irq_work *w)
{
	(void)w;
	uint64_t end = arch_cycles() + arch_tsc_hz / 1000; /* 1 ms */
	while (arch_cycles() < end)
		arch_cpu_relax();
	slow_cpu = arch_cpu_id();
	__atomic_fetch_add(&slow_runs, 1, __ATOMIC_RELEASE);
}

/* In CPU 1's call handler, interrupts off: the self-IPI waits until the
 * handler has returned, so the work runs after arch_smp_call came back. */
static void queue_slow(void *arg)
{
	(void)arg;
	irq_work_queue(&slow);
}

KTEST(smp_irq_work_wait_other_cpu)
{
	if (!several(t))
		return;
	slow = (struct irq_work){ .func = slow_func };
	slow_runs = 0;
	arch_smp_call(1, queue_slow, NULL);
	irq_work_wait(&slow);
	KEXPECT_EQ(t, __atomic_load_n(&slow_runs, __ATOMIC_ACQUIRE), 1);
	KEXPECT_EQ(t, slow_cpu, 1);
	KEXPECT(t, !slow.busy && !slow.running);
}
