/*
 * Starting the other CPUs, and calling a function on one of them.
 *
 * The boot CPU (index 0) starts each enabled processor of the MADT in
 * turn, up to ARCH_MAX_CPUS: INIT, 10 ms, start-up IPI, and a second
 * start-up IPI if the first did not take (Intel SDM vol. 3, 8.4.4.1 "Typical
 * BSP Initialization Sequence"; QEMU needs one). Each AP runs trampoline.S
 * from pmm_low_page to ap_entry and ap_main below, on its own stack, with
 * the page tables of a temporary address space: the kernel half and the
 * trampoline page at its physical address, which the AP needs while it
 * turns paging on. Once every AP is up, that space is destroyed.
 *
 * Index, not APIC ID, names a CPU in the kernel: cpu_apic_id[index]. An
 * AP is online once it has its own GDT, TSS and IST stacks, the IDT, its
 * LAPIC, its index in TSC_AUX (arch_cpu_id() without GS), and its SYSCALL
 * and GS set up; then it idles with interrupts on.
 */
#include "arch/x86_64/smp/smp.h"
#include <arch/arch.h>
#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/gdt.h"
#include "arch/x86_64/interrupts/lapic.h"
#include "arch/x86_64/interrupts/madt.h"
#include "arch/x86_64/x86.h"
#include <arch/task.h>
#include <arch/trap.h>
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/proc/sched.h"
#include "kern/lib/string.h"
#include "kern/mm/vm.h"

#define AP_STACK_SIZE 16384
#define START_WAIT_US 200000 /* per start-up IPI: TCG on a loaded host is slow */
/* After the second start-up IPI, as long as Linux waits (10 s): under
 * multi-threaded TCG on a loaded host an AP's thread was seen to take
 * longer than 2 x 200 ms to run its first instructions (docs/SMP.md,
 * "Parallel runs"). Only a CPU that never starts costs this. */
#define LAST_WAIT_US  10000000

extern const char smp_trampoline[], smp_trampoline_end[], smp_trampoline_params[];
extern const char ap_entry[];
void ap_main(unsigned cpu);
static void call_ipi(struct trap_frame *tf);
static void resched_ipi(struct trap_frame *tf);

uint32_t cpu_apic_id[ARCH_MAX_CPUS];
static unsigned ncpus_online = 1;
static bool online[ARCH_MAX_CPUS];
/* Who decides an AP's fate, by compare-and-swap: the AP claims its start
 * (AP_CLAIMED) as it reaches ap_main, the boot CPU gives up on it
 * (AP_ABANDONED) when it waited long enough. Whichever comes first wins:
 * a claimed AP is waited for until online, an abandoned one halts for
 * good instead of running tasks the kernel does not know it runs (its
 * CPU index past arch_ncpus(), no record rings, no sampling). */
enum { AP_WAITING, AP_CLAIMED, AP_ABANDONED };
static int ap_state[ARCH_MAX_CPUS];
static uint8_t ap_stacks[ARCH_MAX_CPUS][AP_STACK_SIZE] __attribute__((aligned(16)));

unsigned arch_ncpus(void)
{
	return __atomic_load_n(&ncpus_online, __ATOMIC_ACQUIRE);
}

bool smp_stack_bounds(uint64_t sp, uint64_t *lo, uint64_t *hi)
{
	for (unsigned i = 1; i < ARCH_MAX_CPUS; i++) {
		uint64_t base = (uint64_t)ap_stacks[i];
		if (sp >= base && sp <= base + AP_STACK_SIZE) {
			*lo = base;
			*hi = base + AP_STACK_SIZE;
			return true;
		}
	}
	return false;
}

/* Index 0 is the CPU running now; the others in MADT order. */
static unsigned number_cpus(void)
{
	unsigned n = 1;
	cpu_apic_id[0] = lapic_id();
	for (int i = 0; i < madt.ncpus && n < ARCH_MAX_CPUS; i++)
		if (madt.apic_id[i] != cpu_apic_id[0])
			cpu_apic_id[n++] = madt.apic_id[i];
	if ((unsigned)madt.ncpus > ARCH_MAX_CPUS)
		kprintf("smp: %d CPUs in the MADT, using %d\n", madt.ncpus, ARCH_MAX_CPUS);
	return n;
}

static struct trampoline_params *params(uint64_t page)
{
	return (struct trampoline_params *)((char *)p2v(page) +
					    (smp_trampoline_params - smp_trampoline));
}

/* Copies the trampoline to its page and fixes up its addresses. */
static void place_trampoline(uint64_t page, uint64_t cr3)
{
	memcpy(p2v(page), smp_trampoline, smp_trampoline_end - smp_trampoline);
	struct trampoline_params *p = params(page);
	p->gdt_base += (uint32_t)page;
	p->to32 += (uint32_t)page;
	p->to64 += (uint32_t)page;
	p->cr3 = cr3;
	p->entry = (uint64_t)ap_entry;
}

/* Until the AP claimed its start, or us passed. */
static bool wait_claimed(unsigned cpu, uint64_t us)
{
	uint64_t end = arch_cycles() + us * (arch_tsc_hz / 1000000);
	while (__atomic_load_n(&ap_state[cpu], __ATOMIC_ACQUIRE) == AP_WAITING) {
		if (arch_cycles() >= end)
			return false;
		arch_cpu_relax(); /* under -icount, lets QEMU run the other CPUs */
	}
	return true;
}

static bool start_ap(uint64_t page, unsigned cpu)
{
	struct trampoline_params *p = params(page);
	p->stack = (uint64_t)&ap_stacks[cpu][AP_STACK_SIZE];
	p->cpu = cpu;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	uint32_t apic = cpu_apic_id[cpu];
	lapic_send_init(apic);
	arch_delay_us(10000);
	for (int sipi = 0; sipi < 2; sipi++) {
		lapic_send_sipi(apic, (uint8_t)(page >> 12));
		if (wait_claimed(cpu, sipi ? LAST_WAIT_US : START_WAIT_US))
			break;
	}
	int waiting = AP_WAITING;
	if (__atomic_compare_exchange_n(&ap_state[cpu], &waiting, AP_ABANDONED, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return false;
	/* Claimed: it runs kernel code now, and comes online. */
	while (!__atomic_load_n(&online[cpu], __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	return true;
}

void arch_start_cpus(void)
{
	unsigned n = number_cpus();
	uint64_t page = pmm_low_page;
	if (n == 1)
		return;
	if (!page) {
		kprintf("smp: no free page below 1 MiB for the trampoline: 1 CPU\n");
		return;
	}
	struct vm_space boot_space;
	if (vm_space_init(&boot_space) || boot_space.root >= 1ull << 32 ||
	    vm_map(&boot_space, page, page, VM_WRITE | VM_EXEC)) {
		kprintf("smp: no page tables below 4 GiB for the trampoline: 1 CPU\n");
		if (boot_space.root)
			vm_space_destroy(&boot_space);
		return;
	}
	trap_set_handler(VEC_CALL, call_ipi);
	trap_set_handler(VEC_RESCHED, resched_ipi);
	place_trampoline(page, boot_space.root);
	for (unsigned cpu = 1; cpu < n; cpu++) {
		if (!start_ap(page, cpu)) {
			/* It may still start late and read the page: give up on
			 * the rest rather than rewrite the parameters under it. */
			kprintf("smp: cpu %u (APIC id %u) did not start; %u CPUs\n",
				cpu, cpu_apic_id[cpu], arch_ncpus());
			return;
		}
		__atomic_store_n(&ncpus_online, cpu + 1, __ATOMIC_RELEASE);
	}
	vm_unmap(&boot_space, page);
	vm_space_destroy(&boot_space);
	kprintf("smp: %u CPUs online\n", arch_ncpus());
}

/* The AP, from ap_entry: its own copies of what the boot CPU set up in
 * arch_init_cpu, arch_init_devices and proc_init. */
void ap_main(unsigned cpu)
{
	vm_switch(&kernel_space); /* the trampoline's identity page goes */
	int waiting = AP_WAITING;
	if (!__atomic_compare_exchange_n(&ap_state[cpu], &waiting, AP_CLAIMED, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		for (;;) /* too late: the boot CPU went on without it */
			hlt(); /* interrupts are still off (trampoline.S) */
	gdt_init(cpu);
	trap_load_idt();
	arch_init_cpu_regs();
	lapic_init(madt.lapic_phys);
	cpu_id_init(cpu);
	arch_proc_init_cpu(cpu);
	kprintf("smp: cpu %u online, APIC id %u\n", arch_cpu_id(), lapic_id());
	__atomic_store_n(&online[cpu], true, __ATOMIC_RELEASE);
	sched_idle_cpu();
}

/* The IPI only has to arrive: from ring 3 its return path reschedules,
 * and an idle CPU leaves its hlt and looks at the run queue. */
static void resched_ipi(struct trap_frame *tf)
{
	(void)tf;
}

/* Called with sched_lock held: no pause here to hand QEMU's -icount turn
 * to the CPU just woken, since a CPU that waits for the lock would then
 * wait for this one's next turn too (docs/SMP.md, "A CPU keeps its
 * turn"). */
void arch_resched_ipi(unsigned cpu)
{
	if (cpu != arch_cpu_id() && cpu < arch_ncpus())
		lapic_send_ipi(cpu_apic_id[cpu], VEC_RESCHED);
}

/*
 * arch_smp_call: one request slot per target CPU. A caller takes the slot's
 * busy flag, writes arg, publishes fn (release), sends VEC_CALL and waits
 * until the target has run fn and cleared it. Callers keep interrupts on
 * while they wait, so two CPUs calling each other are both served.
 */
static struct {
	int busy;
	void (*fn)(void *);
	void *arg;
} slot[ARCH_MAX_CPUS];

static void call_ipi(struct trap_frame *tf)
{
	(void)tf;
	unsigned cpu = arch_cpu_id();
	void (*fn)(void *) = __atomic_load_n(&slot[cpu].fn, __ATOMIC_ACQUIRE);
	if (!fn)
		return;
	fn(slot[cpu].arg);
	__atomic_store_n(&slot[cpu].fn, NULL, __ATOMIC_RELEASE);
}

void arch_smp_call(unsigned cpu, void (*fn)(void *), void *arg)
{
	assert(cpu < arch_ncpus());
	if (cpu == arch_cpu_id()) {
		irqflags_t f = irq_save();
		fn(arg);
		irq_restore(f);
		return;
	}
	int idle = 0;
	while (!__atomic_compare_exchange_n(&slot[cpu].busy, &idle, 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		idle = 0;
		arch_cpu_relax();
	}
	slot[cpu].arg = arg;
	__atomic_store_n(&slot[cpu].fn, fn, __ATOMIC_RELEASE);
	irqflags_t f = irq_save();
	lapic_send_ipi(cpu_apic_id[cpu], VEC_CALL);
	irq_restore(f);
	while (__atomic_load_n(&slot[cpu].fn, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	__atomic_store_n(&slot[cpu].busy, 0, __ATOMIC_RELEASE);
}

static void sampling_start_here(void *hz)
{
	arch_sampling_start((unsigned)(uintptr_t)hz);
}

static void sampling_stop_here(void *arg)
{
	(void)arg;
	arch_sampling_stop();
}

static void watchdog_start_here(void *hz)
{
	arch_watchdog_start((unsigned)(uintptr_t)hz);
}

void arch_watchdog_start_all(unsigned hz)
{
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		arch_smp_call(cpu, watchdog_start_here, (void *)(uintptr_t)hz);
}

/* Writes ICR high then low: not NMI-safe against this CPU's own sends,
 * which is why only the watchdog's last act uses it from an NMI. */
void arch_nmi_cpu(unsigned cpu)
{
	lapic_send_nmi(cpu_apic_id[cpu]);
}

void arch_sampling_start_all(unsigned hz)
{
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		arch_smp_call(cpu, sampling_start_here, (void *)(uintptr_t)hz);
}

/* arch_smp_call works with interrupts off here too, as long as the target is
 * not spinning with its interrupts off on something this CPU holds: true
 * of every caller (the end of a run, a test) but a panic, which may hold
 * anything: then only this CPU stops. */
void arch_sampling_stop_all(void)
{
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		if (!in_panic() || cpu == arch_cpu_id())
			arch_smp_call(cpu, sampling_stop_here, NULL);
}
