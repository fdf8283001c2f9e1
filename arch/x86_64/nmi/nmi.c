/*
 * NMI dispatch (the entry is nmientry.S): the handler set with
 * trap_set_handler(VEC_NMI, fn) runs, or the NMI is counted as ignored.
 * Every NMI is counted, and the TSC cycles spent in its handler; those
 * that interrupted ring 3 (the samples of user code) also apart.
 */
#include <arch/arch.h>
#include <arch/trap.h>
#include <arch/uaccess.h>
#include "arch/x86_64/x86.h"
#include "kern/lib/stats.h"
#include "kern/watchdog.h"

void nmi_dispatch(struct trap_frame *tf);

/* [start, end) of code ranges: usercopy.S, trapentry.S. */
extern const uint64_t uaccess_text[2], trap_ac_window[2];

static bool in(uint64_t ip, const uint64_t range[2])
{
	return ip >= range[0] && ip < range[1];
}

/*
 * SMAP stays on in the kernel except inside the user-access helpers, an
 * arch_user_access_begin/end window (this CPU's cpu_local.uaccess_open),
 * and the first instructions of the trap entry, before its clac. Every NMI
 * checks: AC set in the kernel code it interrupted anywhere else, AC set
 * in its own flags, or CR4.SMAP cleared is counted in smap_open (test/t/80-hostile.t
 * requires 0 after the hostile programs).
 */
static void check_smap(const struct trap_frame *tf, unsigned cpu)
{
	if (!uaccess_smap)
		return;
	bool open = (read_rflags() & RFLAGS_AC) || !(read_cr4() & CR4_SMAP);
	if (!(tf->cs & 3) && (tf->rflags & RFLAGS_AC) &&
	    !__atomic_load_n(&cpu_locals[cpu].uaccess_open, __ATOMIC_RELAXED) &&
	    !in(tf->rip, uaccess_text) && !in(tf->rip, trap_ac_window))
		open = true;
	if (open)
		stat_inc_on(cpu, STAT_SMAP_OPEN);
}

/* Per CPU: in nmi_dispatch (arch_in_nmi). NMIs do not nest, so a flag is
 * enough. */
bool arch_nmi_active[ARCH_MAX_CPUS];

/* The CPU index is read once, with the time (RDTSCP), and handed to every
 * counter: no GS here, and each arch_cpu_id() would be an RDTSCP more. */
void nmi_dispatch(struct trap_frame *tf)
{
	unsigned cpu;
	uint64_t t0 = arch_tsc_cpu(&cpu);
	trap_handler_t fn = trap_handler(VEC_NMI);

	stat_inc_on(cpu, STAT_NMI_COUNT);
	check_smap(tf, cpu);
	/* Sequentially consistent: arch_nmi_quiesce on another CPU must see
	 * it before this handler writes anything. */
	__atomic_store_n(&arch_nmi_active[cpu], true, __ATOMIC_SEQ_CST);
	if (fn)
		fn(tf);
	else
		stat_inc_on(cpu, STAT_NMI_IGNORED);
	struct nmi_regs wr = { .frame = tf, .ip = tf->rip, .sp = tf->rsp, .fp = tf->rbp,
			       .user = trap_from_user(tf), .irqs_off = !(tf->rflags & RFLAGS_IF) };
	watchdog_nmi(cpu, &wr);
	__atomic_store_n(&arch_nmi_active[cpu], false, __ATOMIC_RELAXED);
	uint64_t dt = arch_cycles() - t0;
	stat_add_on(cpu, STAT_NMI_CYCLES_TOTAL, dt);
	stat_max_on(cpu, STAT_NMI_CYCLES_MAX, dt);
	if (trap_from_user(tf)) {
		stat_inc_on(cpu, STAT_NMI_USER_COUNT);
		stat_add_on(cpu, STAT_NMI_USER_CYCLES_TOTAL, dt);
	}
}

/* arch_nmi_active is set before the handler looks at anything: once every flag was
 * seen clear after the caller disarmed sampling, no NMI still writes. Not
 * this CPU's: the caller may be its NMI (a panic there). */
void arch_nmi_quiesce(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		while (cpu != arch_cpu_id() &&
		       __atomic_load_n(&arch_nmi_active[cpu], __ATOMIC_SEQ_CST))
			arch_cpu_relax();
}
